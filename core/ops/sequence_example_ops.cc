// ParseSequenceExampleV2 (tf.io.parse_sequence_example and
// parse_single_sequence_example): TensorFlow's signature; the kernel
// (core/kernels/sequence_example_ops.cc) parses sparse and dense context and
// feature-list keys; the ragged lists must be empty.
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("ParseSequenceExampleV2")
    .Input("serialized: string")
    .Input("debug_name: string")
    .Input("context_sparse_keys: string")
    .Input("context_dense_keys: string")
    .Input("context_ragged_keys: string")
    .Input("feature_list_sparse_keys: string")
    .Input("feature_list_dense_keys: string")
    .Input("feature_list_ragged_keys: string")
    .Input("feature_list_dense_missing_assumed_empty: bool")
    .Input("context_dense_defaults: Tcontext_dense")
    .Output("context_sparse_indices: Ncontext_sparse * int64")
    .Output("context_sparse_values: context_sparse_types")
    .Output("context_sparse_shapes: Ncontext_sparse * int64")
    .Output("context_dense_values: Tcontext_dense")
    .Output("context_ragged_values: context_ragged_value_types")
    .Output("context_ragged_row_splits: context_ragged_split_types")
    .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
    .Output("feature_list_sparse_values: feature_list_sparse_types")
    .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
    .Output("feature_list_dense_values: feature_list_dense_types")
    .Output("feature_list_dense_lengths: Nfeature_list_dense * int64")
    .Output("feature_list_ragged_values: feature_list_ragged_value_types")
    .Output("feature_list_ragged_outer_splits: feature_list_ragged_split_types")
    .Output("feature_list_ragged_inner_splits: feature_list_ragged_split_types")
    .Attr("Ncontext_sparse: int >= 0 = 0")
    .Attr("Tcontext_dense: list({float32, int64, string}) >= 0 = []")
    .Attr("context_sparse_types: list({float32, int64, string}) >= 0 = []")
    .Attr(
        "context_ragged_value_types: list({float32, int64, string}) >= 0 = []")
    .Attr("context_ragged_split_types: list({int32, int64}) >= 0 = []")
    .Attr("context_dense_shapes: list(shape) >= 0 = []")
    .Attr("Nfeature_list_sparse: int >= 0 = 0")
    .Attr("Nfeature_list_dense: int >= 0 = 0")
    .Attr("feature_list_dense_types: list({float32, int64, string}) >= 0 = []")
    .Attr("feature_list_sparse_types: list({float32, int64, string}) >= 0 = []")
    .Attr(
        "feature_list_ragged_value_types: list({float32, int64, string}) >= 0 "
        "= []")
    .Attr("feature_list_ragged_split_types: list({int32, int64}) >= 0 = []")
    .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
    .SetShapeFn([](InferenceContext* c) {
      int64_t ncs = 0, nfs = 0, nfd = 0;
      TW_RETURN_IF_ERROR(c->GetAttr("Ncontext_sparse", &ncs));
      TW_RETURN_IF_ERROR(c->GetAttr("Nfeature_list_sparse", &nfs));
      TW_RETURN_IF_ERROR(c->GetAttr("Nfeature_list_dense", &nfd));
      std::vector<PartialShape> cds, fds;
      TW_RETURN_IF_ERROR(c->GetAttr("context_dense_shapes", &cds));
      TW_RETURN_IF_ERROR(c->GetAttr("feature_list_dense_shapes", &fds));
      std::vector<DataType> cdt, fdt;
      TW_RETURN_IF_ERROR(c->GetAttr("Tcontext_dense", &cdt));
      TW_RETURN_IF_ERROR(c->GetAttr("feature_list_dense_types", &fdt));
      if (cds.size() != cdt.size() || fds.size() != static_cast<size_t>(nfd) ||
          fdt.size() != static_cast<size_t>(nfd)) {
        return errors::InvalidArgument(
            "ParseSequenceExampleV2: context_dense_shapes has ", cds.size(),
            " entries for ", cdt.size(),
            " Tcontext_dense; feature_list_dense_shapes has ", fds.size(),
            " and feature_list_dense_types ", fdt.size(),
            " for Nfeature_list_dense = ", nfd);
      }
      if (c->num_outputs() !=
          static_cast<int>(3 * ncs + cds.size() + 3 * nfs + 2 * nfd)) {
        return errors::Unimplemented(
            "ParseSequenceExampleV2: ragged features (RaggedFeature) are not "
            "supported");
      }
      const PartialShape& serialized = c->input(0);
      if (serialized.known_rank() && serialized.rank() > 1) {
        return errors::InvalidArgument(
            "serialized must be a scalar or a vector, got shape ",
            serialized.ToString());
      }
      const bool known = serialized.known_rank();
      const int64_t rank = known ? serialized.rank() + 1 : -1;
      int o = 0;
      for (int64_t i = 0; i < ncs; ++i) c->set_output(o++, {-1, rank});
      for (int64_t i = 0; i < ncs; ++i) c->set_output(o++, {-1});
      for (int64_t i = 0; i < ncs; ++i) c->set_output(o++, {rank});
      for (const PartialShape& s : cds) {
        if (!known || !s.known_rank()) {
          c->set_output(o++, PartialShape::UnknownRank());
          continue;
        }
        std::vector<int64_t> dims = serialized.dims();
        for (int64_t d : s.dims()) dims.push_back(d);
        c->set_output(o++, PartialShape(dims));
      }
      const int64_t fl_rank = known ? serialized.rank() + 2 : -1;
      for (int64_t i = 0; i < nfs; ++i) c->set_output(o++, {-1, fl_rank});
      for (int64_t i = 0; i < nfs; ++i) c->set_output(o++, {-1});
      for (int64_t i = 0; i < nfs; ++i) c->set_output(o++, {fl_rank});
      for (const PartialShape& s : fds) {
        if (!known || !s.known_rank()) {
          c->set_output(o++, PartialShape::UnknownRank());
          continue;
        }
        std::vector<int64_t> dims = serialized.dims();
        dims.push_back(-1);
        for (int64_t d : s.dims()) dims.push_back(d);
        c->set_output(o++, PartialShape(dims));
      }
      for (int64_t i = 0; i < nfd; ++i) {
        c->set_output(o++, known ? PartialShape(serialized.dims())
                                 : PartialShape::UnknownRank());
      }
      return Status::OK();
    })
    .Doc(
        "Parses serialized SequenceExample protos (a scalar or a vector). "
        "Context keys are parsed as ParseExampleV2 parses an Example's "
        "features. Feature-list sparse keys give a SparseTensor [batch, max "
        "steps, max count]; feature-list dense keys give [batch, max steps] + "
        "shape padded with zeros, and their lengths [batch]; a missing dense "
        "feature list is an error unless "
        "feature_list_dense_missing_assumed_empty says it may be missing. "
        "Ragged features are not supported.");

}  // namespace tensorweave
