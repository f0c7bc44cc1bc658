// Ragged tensor ops (TensorFlow's names): RaggedRange, RaggedCross. Host-only
// kernels in core/kernels/ragged_ops.cc; the rest of tf.RaggedTensor is built
// from plain ops in Python (python/tensorweave/_src/ops/ragged/).
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// rt_nested_splits [nrows + 1] (nrows: the inputs' common length, 1 when all
// are scalars), rt_dense_values [?].
Status RaggedRangeShape(InferenceContext* c) {
  int64_t rows = 1;
  bool vector = false;
  for (int i = 0; i < 3; ++i) {
    const PartialShape& s = c->input(i);
    if (!s.known_rank()) {
      rows = -1;
      continue;
    }
    if (s.rank() > 1) {
      return errors::InvalidArgument(
          "Shape must be at most rank 1 but is rank ", s.rank());
    }
    if (s.rank() == 1 && rows != -1) {
      if (s.dim(0) < 0) {
        rows = -1;
      } else if (vector && s.dim(0) != rows) {
        return errors::InvalidArgument(
            "starts, limits, and deltas must have the same shape");
      } else {
        rows = s.dim(0);
        vector = true;
      }
    }
  }
  c->set_output(0, PartialShape({rows < 0 ? -1 : rows + 1}));
  c->set_output(1, PartialShape({-1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("RaggedRange")
    .Input("starts: T")
    .Input("limits: T")
    .Input("deltas: T")
    .Output("rt_nested_splits: Tsplits")
    .Output("rt_dense_values: T")
    .Attr("T: {float, double, int32, int64} = int32")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(RaggedRangeShape)
    .Doc(
        "The ragged vector whose row i is range(starts[i], limits[i], "
        "deltas[i]); scalar inputs are broadcast.");

REGISTER_OP("RaggedCross")
    .Input("ragged_values: ragged_values_types")
    .Input("ragged_row_splits: ragged_splits_types")
    .Input("sparse_indices: Nsparse * int64")
    .Input("sparse_values: sparse_values_types")
    .Input("sparse_shape: Nsparse * int64")
    .Input("dense_inputs: dense_types")
    .Output("output_values: out_values_type")
    .Output("output_row_splits: out_row_splits_type")
    .Attr("Nsparse: int >= 0")
    .Attr("input_order: string")
    .Attr("hashed_output: bool")
    .Attr("num_buckets: int >= 0")
    .Attr("hash_key: int")
    .Attr("ragged_values_types: list({int64, string}) >= 0")
    .Attr("ragged_splits_types: list({int32, int64}) >= 0")
    .Attr("sparse_values_types: list({int64, string}) >= 0")
    .Attr("dense_types: list({int64, string}) >= 0")
    .Attr("out_values_type: {int64, string}")
    .Attr("out_row_splits_type: {int32, int64}")
    // Not TensorFlow's (its RaggedCross always joins with "_X_"): the
    // separator of tf.sparse.cross(separator=...), TF's SparseCrossV2.
    .Attr("separator: string = '_X_'")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, PartialShape({-1}));
      c->set_output(1, PartialShape({-1}));
      return Status::OK();
    })
    .Doc(
        "The feature crosses of ragged, sparse and dense inputs (in "
        "input_order: R, S, D), row by row: each choice of one value per "
        "input joined by separator, or hashed (FingerprintCat64 from hash_key, "
        "modulo num_buckets) with hashed_output.");

}  // namespace tensorweave
