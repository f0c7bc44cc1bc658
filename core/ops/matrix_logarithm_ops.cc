// MatrixLogarithm (tf.linalg.logm): complex inputs only, as TensorFlow's.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status SquareMatrices(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (in.known_rank()) {
    if (in.rank() < 2) {
      return errors::InvalidArgument(
          "Shape must be at least rank 2 but is rank ", in.rank(),
          " for MatrixLogarithm");
    }
    const int64_t rows = in.dim(in.rank() - 2), cols = in.dim(in.rank() - 1);
    if (rows >= 0 && cols >= 0 && rows != cols) {
      return errors::InvalidArgument("Dimensions must be equal, but are ", rows,
                                     " and ", cols, " for MatrixLogarithm");
    }
  }
  c->set_output(0, in);
  return Status::OK();
}

}  // namespace

REGISTER_OP("MatrixLogarithm")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {complex64, complex128}")
    .SetShapeFn(SquareMatrices)
    .Doc(
        "The principal logarithm of each square matrix of input [..., M, M] "
        "(inverse scaling and squaring with Pade approximants).");

}  // namespace tensorweave
