// Sparse updates of variables in place (TF1's tf.scatter_* and
// tf.scatter_nd_* on Ref inputs) and CountUpTo.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// updates.shape == indices.shape + ref.shape[1:], or a scalar update.
Status ScatterUpdateShape(InferenceContext* c) {
  const PartialShape& ref = c->input(0);
  const PartialShape& indices = c->input(1);
  const PartialShape& updates = c->input(2);
  c->set_output(0, ref);
  if (!ref.known_rank() || !indices.known_rank() || !updates.known_rank() ||
      updates.rank() == 0) {
    return Status::OK();
  }
  std::vector<int64_t> want = indices.dims();
  for (int i = 1; i < ref.rank(); ++i) want.push_back(ref.dim(i));
  if (ref.rank() == 0 || !PartialShape(want).IsCompatibleWith(updates)) {
    return errors::InvalidArgument(
        "Shapes must be equal rank, or updates must be indices.shape + "
        "ref.shape[1:]: ref ",
        ref.ToString(), ", indices ", indices.ToString(), ", updates ",
        updates.ToString());
  }
  return Status::OK();
}

// updates.shape == indices.shape[:-1] + ref.shape[indices.shape[-1]:].
Status ScatterNdUpdateShape(InferenceContext* c) {
  const PartialShape& ref = c->input(0);
  const PartialShape& indices = c->input(1);
  const PartialShape& updates = c->input(2);
  c->set_output(0, ref);
  if (!ref.known_rank() || !indices.known_rank() || !updates.known_rank()) {
    return Status::OK();
  }
  if (indices.rank() < 1) {
    return errors::InvalidArgument("indices must be at least 1-D, got ",
                                   indices.ToString());
  }
  int64_t depth = indices.dim(indices.rank() - 1);
  if (depth < 0) return Status::OK();
  if (depth > ref.rank()) {
    return errors::InvalidArgument("The last dimension of indices (", depth,
                                   ") must be <= the rank of ref (", ref.rank(),
                                   ")");
  }
  std::vector<int64_t> want(indices.dims().begin(), indices.dims().end() - 1);
  for (int i = static_cast<int>(depth); i < ref.rank(); ++i) {
    want.push_back(ref.dim(i));
  }
  if (!PartialShape(want).IsCompatibleWith(updates)) {
    return errors::InvalidArgument(
        "updates must have shape indices.shape[:-1] + "
        "ref.shape[indices.shape[-1]:]: ref ",
        ref.ToString(), ", indices ", indices.ToString(), ", updates ",
        updates.ToString(), ", expected ", PartialShape(want).ToString());
  }
  return Status::OK();
}

}  // namespace

#define TW_REGISTER_SCATTER(NAME, TYPES, LOCKING, SHAPE, DOC) \
  REGISTER_OP(NAME)                                           \
      .Input("ref: Ref(T)")                                   \
      .Input("indices: Tindices")                             \
      .Input("updates: T")                                    \
      .Output("output_ref: Ref(T)")                           \
      .Attr("T: " TYPES)                                      \
      .Attr("Tindices: {int32, int64}")                       \
      .Attr("use_locking: bool = " LOCKING)                   \
      .SetShapeFn(SHAPE)                                      \
      .Doc(DOC)

TW_REGISTER_SCATTER("ScatterUpdate", "type", "true", ScatterUpdateShape,
                    "ref[indices, ...] = updates, in place.");
TW_REGISTER_SCATTER("ScatterAdd", "{numbertype}", "false", ScatterUpdateShape,
                    "ref[indices, ...] += updates, in place (duplicates add).");
TW_REGISTER_SCATTER("ScatterSub", "{numbertype}", "false", ScatterUpdateShape,
                    "ref[indices, ...] -= updates, in place.");
TW_REGISTER_SCATTER("ScatterMul", "{numbertype}", "false", ScatterUpdateShape,
                    "ref[indices, ...] *= updates, in place.");
TW_REGISTER_SCATTER("ScatterDiv", "{numbertype}", "false", ScatterUpdateShape,
                    "ref[indices, ...] /= updates, in place.");
TW_REGISTER_SCATTER("ScatterMin", "{realnumbertype}", "false",
                    ScatterUpdateShape,
                    "ref[indices, ...] = min(ref[indices, ...], updates).");
TW_REGISTER_SCATTER("ScatterMax", "{realnumbertype}", "false",
                    ScatterUpdateShape,
                    "ref[indices, ...] = max(ref[indices, ...], updates).");
// The Nd ones take TF's bad_indices_policy: "IGNORE" skips an index outside
// ref; "", "DEFAULT" and "ERROR" make it an error.
#define TW_REGISTER_SCATTER_ND(NAME, TYPES, LOCKING, DOC)           \
  TW_REGISTER_SCATTER(                                              \
      NAME, TYPES, LOCKING, ScatterNdUpdateShape,                   \
      DOC " bad_indices_policy IGNORE skips an index outside ref.") \
      .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
TW_REGISTER_SCATTER_ND(
    "ScatterNdUpdate", "type", "true",
    "ref[indices] = updates (indices' last dim indexes ref).");
TW_REGISTER_SCATTER_ND("ScatterNdAdd", "{numbertype}", "false",
                       "ref[indices] += updates.");
TW_REGISTER_SCATTER_ND("ScatterNdSub", "{numbertype}", "false",
                       "ref[indices] -= updates.");
#undef TW_REGISTER_SCATTER_ND

#undef TW_REGISTER_SCATTER

REGISTER_OP("CountUpTo")
    .Input("ref: Ref(T)")
    .Output("output: T")
    .Attr("limit: int")
    .Attr("T: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      if (c->input(0).known_rank() && c->input(0).rank() != 0) {
        return errors::InvalidArgument("Shape must be rank 0 but is rank ",
                                       c->input(0).rank());
      }
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "Increments the scalar variable until it reaches limit; returns its "
        "value before the increment (OutOfRange once limit is reached).");

}  // namespace tensorweave
