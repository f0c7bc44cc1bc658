// SparseToDense (the op of tf.sparse_to_dense in TensorFlow's graphs, and
// tf.raw_ops.SparseToDense) and DenseBincount (tf.raw_ops.DenseBincount,
// what TF2's tf.math.bincount builds).
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("SparseToDense")
    .Input("sparse_indices: Tindices")
    .Input("output_shape: Tindices")
    .Input("sparse_values: T")
    .Input("default_value: T")
    .Attr("validate_indices: bool = true")
    .Attr("T: type")
    .Output("dense: T")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape shape;
      TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(1, &shape));
      c->set_output(0, shape);
      return Status::OK();
    })
    .Doc(
        "A dense tensor of shape output_shape holding default_value but at "
        "sparse_indices (0-D, [N] or [N, rank]), which take sparse_values "
        "(one per index, or one scalar for all). With validate_indices the "
        "indices must be in bounds, sorted row-major and not repeated.");

REGISTER_OP("DenseBincount")
    .Input("input: Tidx")
    .Input("size: Tidx")
    .Input("weights: T")
    .Attr("Tidx: {int32, int64}")
    .Attr("T: {int32, int64, float32, float64}")
    .Attr("binary_output: bool = false")
    .Output("output: T")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape unused;
      TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
      int64_t size = -1;
      if (const Tensor* t = c->input_value(1)) {
        std::vector<int64_t> v;
        TW_RETURN_IF_ERROR(ReadIndexVector(*t, &v));
        size = v[0];
        if (size < 0) {
          return errors::InvalidArgument("size (", size,
                                         ") must be non-negative");
        }
      }
      const PartialShape& in = c->input(0);
      if (!in.known_rank()) {
        c->set_output(0, PartialShape::UnknownRank());
      } else if (in.rank() <= 1) {
        c->set_output(0, PartialShape({size}));
      } else if (in.rank() == 2) {
        c->set_output(0, PartialShape({in.dim(0), size}));
      } else {
        return errors::InvalidArgument(
            "Shape must be at most rank 2 but is rank ", in.rank());
      }
      return Status::OK();
    })
    .Doc(
        "Counts of each value of input in [0, size) (or the sums of weights, "
        "of input's shape, at them; binary_output: 1 where a value occurs), "
        "per row for a matrix input; other values are ignored, negative "
        "ones an error.");

}  // namespace tensorweave
