// MatrixLogarithm: the principal logarithm of each complex square matrix, by
// Eigen's MatrixFunctions as TensorFlow's kernel computes it (complex Schur
// form, then inverse scaling and squaring with Pade approximants; Higham).
#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class MatrixLogarithmOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(
        ctx, in.rank() >= 2,
        errors::InvalidArgument("Input must have rank >= 2, got ", in.rank()));
    const int64_t n = in.dim(in.rank() - 1);
    OP_REQUIRES(ctx, in.dim(in.rank() - 2) == n,
                errors::InvalidArgument("Input matrices must be squares, got ",
                                        in.dim(in.rank() - 2), " != ", n));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (out->num_elements() == 0) return;
    const int64_t count = in.num_elements() / (n * n);
    OP_REQUIRES_OK(
        ctx, DispatchType<complex64, complex128>(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          for (int64_t b = 0; b < count; ++b) {
            TW_RETURN_IF_ERROR(Logarithm<T>(in.data<T>() + b * n * n, n, b,
                                            out->data<T>() + b * n * n));
          }
          return Status::OK();
        }));
  }

 private:
  template <typename T>
  static Status Logarithm(const T* in, int64_t n, int64_t index, T* out) {
    const Matrix<T> a = Eigen::Map<const Matrix<T>>(in, n, n);
    if (!a.allFinite()) {
      return errors::InvalidArgument("matrix ", index,
                                     " has a non-finite entry: it has no "
                                     "logarithm");
    }
    // Eigen takes square roots of the triangular factor until it is near
    // the identity, which an eigenvalue of exactly 0 never reaches (a loop
    // without end): the logarithm is not defined there anyway.
    // The same decomposition a.log() starts with (computeU included, so
    // that it converges or fails alike): Eigen asserts it converged.
    const Eigen::ComplexSchur<Matrix<T>> schur(a);
    if (schur.info() != Eigen::Success) {
      return errors::InvalidArgument(
          "matrix ", index,
          ": its Schur decomposition did not converge (no logarithm computed)");
    }
    for (int64_t i = 0; i < n; ++i) {
      if (schur.matrixT()(i, i) == T(0)) {
        return errors::InvalidArgument(
            "matrix ", index,
            " is singular (an eigenvalue is 0): it has no logarithm");
      }
    }
    Eigen::Map<Matrix<T>>(out, n, n) = a.log();
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("MatrixLogarithm"), MatrixLogarithmOp);

}  // namespace
}  // namespace tensorweave
