// Checkpoint ops: SaveV2 writes tensors to a checkpoint, RestoreV2 reads
// them back (the file format is in core/util/checkpoint_format.h). The
// prefix is a tensor, so one graph saves to many paths; a task (a parameter
// server) saves and restores the variables it holds.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status CheckVector(InferenceContext* c, int i, const char* what) {
  PartialShape unused;
  if (!c->WithRank(i, 1, &unused).ok()) {
    return errors::InvalidArgument(what, " must be a vector, got shape ",
                                   c->input(i).ToString());
  }
  return Status::OK();
}

Status CheckPrefixAndNames(InferenceContext* c) {
  PartialShape unused;
  if (!c->WithRank(0, 0, &unused).ok()) {
    return errors::InvalidArgument("prefix must be a scalar, got shape ",
                                   c->input(0).ToString());
  }
  TW_RETURN_IF_ERROR(CheckVector(c, 1, "tensor_names"));
  return CheckVector(c, 2, "shape_and_slices");
}

}  // namespace

REGISTER_OP("SaveV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Input("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .SetIsStateful()
    .SetShapeFn(CheckPrefixAndNames)
    .Doc(
        "Saves tensors as checkpoint `prefix` (files prefix.safetensors and "
        "prefix.manifest.json), written atomically. shape_and_slices must be "
        "empty strings (slices are not supported).");

REGISTER_OP("RestoreV2")
    .Input("prefix: string")
    .Input("tensor_names: string")
    .Input("shape_and_slices: string")
    .Output("tensors: dtypes")
    .Attr("dtypes: list(type)")
    .Attr("shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(CheckPrefixAndNames(c));
      std::vector<PartialShape> shapes;
      TW_RETURN_IF_ERROR(c->GetAttr("shapes", &shapes));
      if (!shapes.empty() &&
          static_cast<int>(shapes.size()) != c->num_outputs()) {
        return errors::InvalidArgument("shapes has ", shapes.size(),
                                       " entries for ", c->num_outputs(),
                                       " tensors");
      }
      for (int i = 0; i < c->num_outputs(); ++i) {
        c->set_output(i, shapes.empty() ? PartialShape() : shapes[i]);
      }
      return Status::OK();
    })
    .Doc(
        "Reads tensors from checkpoint `prefix`, after verifying the files' "
        "sizes and checksums and each tensor's dtype (and shape, when "
        "`shapes` is given): a corrupt or mismatched checkpoint is an error "
        "and nothing is returned.");

// The pieces of TensorFlow's sharded save (every Saver graph TensorFlow
// writes has them, so that a .meta or SavedModel from TensorFlow imports):
// each device saves to a shard file name, and MergeV2Checkpoints joins the
// shards into the checkpoint at the final prefix.
REGISTER_OP("ShardedFilename")
    .Input("basename: string")
    .Input("shard: int32")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("basename-SSSSS-of-NNNNN: the name of shard `shard` of `num_shards`.");

REGISTER_OP("ShardedFilespec")
    .Input("basename: string")
    .Input("num_shards: int32")
    .Output("filename: string")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("basename-?????-of-NNNNN: a glob of the shards' names.");

REGISTER_OP("MergeV2Checkpoints")
    .Input("checkpoint_prefixes: string")
    .Input("destination_prefix: string")
    .Attr("delete_old_dirs: bool = true")
    .Attr("allow_missing_files: bool = false")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(CheckVector(c, 0, "checkpoint_prefixes"));
      PartialShape unused;
      if (!c->WithRank(1, 0, &unused).ok()) {
        return errors::InvalidArgument(
            "destination_prefix must be a scalar, got shape ",
            c->input(1).ToString());
      }
      return Status::OK();
    })
    .Doc(
        "Writes the tensors of the checkpoints `checkpoint_prefixes` (whose "
        "names must differ) as one checkpoint at `destination_prefix`, then "
        "deletes the sources (and, with delete_old_dirs, their directories "
        "when empty). A missing source is an error unless "
        "allow_missing_files.");

}  // namespace tensorweave
