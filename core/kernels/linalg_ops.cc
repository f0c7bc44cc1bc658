// Linear-algebra kernels over batches of matrices (the last two dims), by
// Eigen's dense decompositions as TensorFlow's CPU kernels use them:
// PartialPivLU (inverse, determinants, solve), LLT (Cholesky, fast least
// squares), HouseholderQR, BDCSVD, SelfAdjointEigenSolver, triangular views.
// Errors are TensorFlow's: InvalidArgument for a singular matrix, a failed
// Cholesky or a bad shape. The band / diagonal kernels move bytes, so they
// serve every fixed-size dtype.
#include <Eigen/Dense>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ConstMatrixMap = Eigen::Map<const Matrix<T>>;
template <typename T>
using MatrixMap = Eigen::Map<Matrix<T>>;

// The number of matrices in a [..., M, N] tensor.
int64_t NumMatrices(const Tensor& t) {
  int64_t n = 1;
  for (int d = 0; d + 2 < t.rank(); ++d) n *= t.dim(d);
  return n;
}

Status CheckMatrices(const Tensor& t, const char* what, bool square) {
  if (t.rank() < 2) {
    return errors::InvalidArgument(what, " must have rank >= 2, got shape ",
                                   t.shape().ToString());
  }
  if (square && t.dim(t.rank() - 1) != t.dim(t.rank() - 2)) {
    return errors::InvalidArgument(what, " must be a square matrix, got shape ",
                                   t.shape().ToString());
  }
  return Status::OK();
}

std::vector<int64_t> WithLastTwo(const Tensor& t, int64_t m, int64_t n) {
  std::vector<int64_t> dims(t.shape().dims().begin(),
                            t.shape().dims().end() - 2);
  dims.push_back(m);
  dims.push_back(n);
  return dims;
}

std::vector<int64_t> BatchOnly(const Tensor& t) {
  return std::vector<int64_t>(t.shape().dims().begin(),
                              t.shape().dims().end() - 2);
}

class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("adjoint", &adjoint_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", true));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const int64_t n = in.dim(in.rank() - 1);
          for (int64_t b = 0; b < NumMatrices(in); ++b) {
            ConstMatrixMap<T> a(in.data<T>() + b * n * n, n, n);
            MatrixMap<T> y(out->data<T>() + b * n * n, n, n);
            if (n == 0) continue;
            Eigen::PartialPivLU<Matrix<T>> lu(n);
            if (adjoint_) {
              lu.compute(a.transpose());
            } else {
              lu.compute(a);
            }
            // As TensorFlow: only an exact zero pivot is reported.
            if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0))) {
              return errors::InvalidArgument("Input is not invertible.");
            }
            y = lu.inverse();
          }
          return Status::OK();
        }));
  }

 private:
  bool adjoint_ = false;
};

// Determinants by LU: det = sign(P) * prod(diag(U)); the log form sums
// log|u_ii| and keeps the sign apart (0 and -inf for a singular matrix).
template <bool kLog>
class DeterminantOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", true));
    const TensorShape batch(BatchOnly(in));
    Tensor* first;
    Tensor* second = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, batch, &first));
    if (kLog) OP_REQUIRES_OK(ctx, ctx->allocate_output(1, batch, &second));
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(in.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const int64_t n = in.dim(in.rank() - 1);
                     for (int64_t b = 0; b < NumMatrices(in); ++b) {
                       T sign = T(1), log_abs = T(0);
                       if (n > 0) {
                         ConstMatrixMap<T> a(in.data<T>() + b * n * n, n, n);
                         Eigen::PartialPivLU<Matrix<T>> lu(a);
                         sign = static_cast<T>(lu.permutationP().determinant());
                         for (int64_t i = 0; i < n; ++i) {
                           const T u = lu.matrixLU()(i, i);
                           if (u == T(0)) {
                             sign = T(0);
                             log_abs = -std::numeric_limits<T>::infinity();
                             break;
                           }
                           if (u < T(0)) sign = -sign;
                           log_abs += std::log(std::abs(u));
                         }
                         if (!kLog && sign != T(0)) {
                           // The product itself (not exp of the log sum) keeps
                           // the rounding of LU's diagonal, as TensorFlow.
                           T det =
                               static_cast<T>(lu.permutationP().determinant());
                           for (int64_t i = 0; i < n; ++i)
                             det *= lu.matrixLU()(i, i);
                           first->data<T>()[b] = det;
                           continue;
                         }
                       }
                       if (kLog) {
                         first->data<T>()[b] = sign;
                         second->data<T>()[b] = log_abs;
                       } else {
                         first->data<T>()[b] = sign == T(0) ? T(0) : sign;
                       }
                     }
                     return Status::OK();
                   }));
  }
};

class CholeskyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", true));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(in.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const int64_t n = in.dim(in.rank() - 1);
                     for (int64_t b = 0; b < NumMatrices(in); ++b) {
                       if (n == 0) continue;
                       ConstMatrixMap<T> a(in.data<T>() + b * n * n, n, n);
                       MatrixMap<T> l(out->data<T>() + b * n * n, n, n);
                       Eigen::LLT<Matrix<T>, Eigen::Lower> llt(a);
                       if (llt.info() != Eigen::Success) {
                         // As TensorFlow's CPU kernel: no error, the lower
                         // triangle NaN.
                         l.setZero();
                         l.template triangularView<Eigen::Lower>().setConstant(
                             std::numeric_limits<T>::quiet_NaN());
                         continue;
                       }
                       l = llt.matrixL();
                     }
                     return Status::OK();
                   }));
  }
};

// The batch dims of matrix and rhs must agree.
Status CheckSolveShapes(const Tensor& a, const Tensor& rhs, bool square) {
  TW_RETURN_IF_ERROR(CheckMatrices(a, "matrix", square));
  TW_RETURN_IF_ERROR(CheckMatrices(rhs, "rhs", false));
  if (BatchOnly(a) != BatchOnly(rhs) ||
      a.dim(a.rank() - 2) != rhs.dim(rhs.rank() - 2)) {
    return errors::InvalidArgument(
        "matrix and rhs must have equal batch dims and rows, got shapes ",
        a.shape().ToString(), " and ", rhs.shape().ToString());
  }
  return Status::OK();
}

class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("adjoint", &adjoint_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_t = ctx->input(0);
    const Tensor& rhs_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckSolveShapes(a_t, rhs_t, true));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs_t.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(a_t.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const int64_t n = a_t.dim(a_t.rank() - 1);
          const int64_t k = rhs_t.dim(rhs_t.rank() - 1);
          for (int64_t b = 0; b < NumMatrices(a_t); ++b) {
            if (n == 0 || k == 0) continue;
            ConstMatrixMap<T> a(a_t.data<T>() + b * n * n, n, n);
            ConstMatrixMap<T> r(rhs_t.data<T>() + b * n * k, n, k);
            MatrixMap<T> x(out->data<T>() + b * n * k, n, k);
            Eigen::PartialPivLU<Matrix<T>> lu(n);
            if (adjoint_) {
              lu.compute(a.transpose());
            } else {
              lu.compute(a);
            }
            if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0))) {
              return errors::InvalidArgument("Input matrix is not invertible.");
            }
            x = lu.solve(r);
          }
          return Status::OK();
        }));
  }

 private:
  bool adjoint_ = false;
};

class MatrixTriangularSolveOp : public OpKernel {
 public:
  explicit MatrixTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("lower", &lower_));
    ctx->SetStatus(ctx->GetAttr("adjoint", &adjoint_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_t = ctx->input(0);
    const Tensor& rhs_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckSolveShapes(a_t, rhs_t, true));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs_t.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(a_t.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const int64_t n = a_t.dim(a_t.rank() - 1);
          const int64_t k = rhs_t.dim(rhs_t.rank() - 1);
          for (int64_t b = 0; b < NumMatrices(a_t); ++b) {
            if (n == 0 || k == 0) continue;
            ConstMatrixMap<T> a(a_t.data<T>() + b * n * n, n, n);
            MatrixMap<T> x(out->data<T>() + b * n * k, n, k);
            x = ConstMatrixMap<T>(rhs_t.data<T>() + b * n * k, n, k);
            // A zero on the diagonal gives inf / nan, as TensorFlow's CPU
            // kernel (no error).
            if (lower_ && !adjoint_) {
              a.template triangularView<Eigen::Lower>().solveInPlace(x);
            } else if (lower_) {
              a.transpose()
                  .template triangularView<Eigen::Upper>()
                  .solveInPlace(x);
            } else if (!adjoint_) {
              a.template triangularView<Eigen::Upper>().solveInPlace(x);
            } else {
              a.transpose()
                  .template triangularView<Eigen::Lower>()
                  .solveInPlace(x);
            }
          }
          return Status::OK();
        }));
  }

 private:
  bool lower_ = true;
  bool adjoint_ = false;
};

// TensorFlow's MatrixSolveLs: with fast, the regularized normal equations
// by Cholesky (A^T A + l2 I when M >= N, else A A^T + l2 I); otherwise a
// complete orthogonal decomposition (the minimum-norm solution).
class MatrixSolveLsOp : public OpKernel {
 public:
  explicit MatrixSolveLsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("fast", &fast_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a_t = ctx->input(0);
    const Tensor& rhs_t = ctx->input(1);
    const Tensor& l2_t = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckSolveShapes(a_t, rhs_t, false));
    OP_REQUIRES(ctx, l2_t.rank() == 0,
                errors::InvalidArgument("l2_regularizer must be a scalar, got "
                                        "shape ",
                                        l2_t.shape().ToString()));
    const double l2 = l2_t.data<double>()[0];
    OP_REQUIRES(
        ctx, l2 >= 0,
        errors::InvalidArgument("l2_regularizer must be >= 0, got ", l2));
    const int64_t m = a_t.dim(a_t.rank() - 2), n = a_t.dim(a_t.rank() - 1);
    const int64_t k = rhs_t.dim(rhs_t.rank() - 1);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape(WithLastTwo(rhs_t, n, k)), &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_FLOAT_TYPES>(a_t.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     for (int64_t b = 0; b < NumMatrices(a_t); ++b) {
                       MatrixMap<T> x(out->data<T>() + b * n * k, n, k);
                       if (n == 0 || k == 0) continue;
                       if (m == 0) {
                         x.setZero();
                         continue;
                       }
                       ConstMatrixMap<T> a(a_t.data<T>() + b * m * n, m, n);
                       ConstMatrixMap<T> r(rhs_t.data<T>() + b * m * k, m, k);
                       if (!fast_) {
                         x = a.completeOrthogonalDecomposition().solve(r);
                         continue;
                       }
                       const T reg = static_cast<T>(l2);
                       if (m >= n) {
                         Matrix<T> gram = a.transpose() * a;
                         gram.diagonal().array() += reg;
                         Eigen::LLT<Matrix<T>, Eigen::Lower> llt(gram);
                         if (llt.info() != Eigen::Success)
                           return RankDeficient();
                         x = llt.solve(a.transpose() * r);
                       } else {
                         Matrix<T> gram = a * a.transpose();
                         gram.diagonal().array() += reg;
                         Eigen::LLT<Matrix<T>, Eigen::Lower> llt(gram);
                         if (llt.info() != Eigen::Success)
                           return RankDeficient();
                         x = a.transpose() * llt.solve(r);
                       }
                     }
                     return Status::OK();
                   }));
  }

 private:
  static Status RankDeficient() {
    return errors::InvalidArgument(
        "Input matrix was rank deficient or ill-conditioned. Try setting "
        "fast=False or provide a larger l2_regularizer > 0.");
  }
  bool fast_ = true;
};

class QrOp : public OpKernel {
 public:
  explicit QrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("full_matrices", &full_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", false));
    const int64_t m = in.dim(in.rank() - 2), n = in.dim(in.rank() - 1);
    const int64_t p = full_ ? m : std::min(m, n);
    Tensor *q_t, *r_t;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape(WithLastTwo(in, m, p)), &q_t));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, TensorShape(WithLastTwo(in, p, n)), &r_t));
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(in.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     for (int64_t b = 0; b < NumMatrices(in); ++b) {
                       MatrixMap<T> q(q_t->data<T>() + b * m * p, m, p);
                       MatrixMap<T> r(r_t->data<T>() + b * p * n, p, n);
                       if (m == 0 || n == 0) {
                         q.setIdentity();
                         r.setZero();
                         continue;
                       }
                       ConstMatrixMap<T> a(in.data<T>() + b * m * n, m, n);
                       Eigen::HouseholderQR<Matrix<T>> qr(a);
                       r = qr.matrixQR()
                               .topRows(p)
                               .template triangularView<Eigen::Upper>();
                       q = qr.householderQ() * Matrix<T>::Identity(m, p);
                     }
                     return Status::OK();
                   }));
  }

 private:
  bool full_ = false;
};

class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("full_matrices", &full_));
    ctx->SetStatus(ctx->GetAttr("compute_uv", &compute_uv_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", false));
    const int64_t m = in.dim(in.rank() - 2), n = in.dim(in.rank() - 1);
    const int64_t p = std::min(m, n);
    const int64_t pu = full_ ? m : p, pv = full_ ? n : p;
    std::vector<int64_t> s_dims = BatchOnly(in);
    s_dims.push_back(p);
    Tensor *s_t, *u_t, *v_t;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(s_dims), &s_t));
    if (compute_uv_) {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              1, TensorShape(WithLastTwo(in, m, pu)), &u_t));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(
                              2, TensorShape(WithLastTwo(in, n, pv)), &v_t));
    } else {
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({0}), &u_t));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({0}), &v_t));
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          for (int64_t b = 0; b < NumMatrices(in); ++b) {
            Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> s(
                s_t->data<T>() + b * p, p);
            if (m == 0 || n == 0) {
              if (compute_uv_) {
                MatrixMap<T>(u_t->data<T>() + b * m * pu, m, pu).setIdentity();
                MatrixMap<T>(v_t->data<T>() + b * n * pv, n, pv).setIdentity();
              }
              continue;
            }
            ConstMatrixMap<T> a(in.data<T>() + b * m * n, m, n);
            if (!a.allFinite()) {
              // As TensorFlow: a matrix with NaN or Inf has NaN factors
              // (Eigen's SVD gives meaningless numbers for it).
              const T nan = std::numeric_limits<T>::quiet_NaN();
              s.setConstant(nan);
              if (compute_uv_) {
                MatrixMap<T>(u_t->data<T>() + b * m * pu, m, pu)
                    .setConstant(nan);
                MatrixMap<T>(v_t->data<T>() + b * n * pv, n, pv)
                    .setConstant(nan);
              }
              continue;
            }
            if (!compute_uv_) {
              s = Eigen::BDCSVD<Matrix<T>>(a).singularValues();
              continue;
            }
            const unsigned options =
                full_ ? (Eigen::ComputeFullU | Eigen::ComputeFullV)
                      : (Eigen::ComputeThinU | Eigen::ComputeThinV);
            Eigen::BDCSVD<Matrix<T>> svd(a, options);
            s = svd.singularValues();
            MatrixMap<T>(u_t->data<T>() + b * m * pu, m, pu) = svd.matrixU();
            MatrixMap<T>(v_t->data<T>() + b * n * pv, n, pv) = svd.matrixV();
          }
          return Status::OK();
        }));
  }

 private:
  bool full_ = false;
  bool compute_uv_ = true;
};

class SelfAdjointEigOp : public OpKernel {
 public:
  explicit SelfAdjointEigOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("compute_v", &compute_v_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", true));
    const int64_t n = in.dim(in.rank() - 1);
    std::vector<int64_t> e_dims = BatchOnly(in);
    e_dims.push_back(n);
    Tensor *e_t, *v_t;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(e_dims), &e_t));
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(1, compute_v_ ? in.shape() : TensorShape({0}),
                                  &v_t));
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(in.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     for (int64_t b = 0; b < NumMatrices(in); ++b) {
                       if (n == 0) continue;
                       ConstMatrixMap<T> a(in.data<T>() + b * n * n, n, n);
                       Eigen::SelfAdjointEigenSolver<Matrix<T>> eig(
                           Matrix<T>(a), compute_v_ ? Eigen::ComputeEigenvectors
                                                    : Eigen::EigenvaluesOnly);
                       if (eig.info() != Eigen::Success) {
                         return errors::InvalidArgument(
                             "Self-adjoint eigen decomposition was not "
                             "successful. The input "
                             "might not be valid.");
                       }
                       Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(
                           e_t->data<T>() + b * n, n) = eig.eigenvalues();
                       if (compute_v_) {
                         MatrixMap<T>(v_t->data<T>() + b * n * n, n, n) =
                             eig.eigenvectors();
                       }
                     }
                     return Status::OK();
                   }));
  }

 private:
  bool compute_v_ = true;
};

// --- Band and diagonal kernels: byte moves over any fixed-size dtype. ---

Status ElementSize(const Tensor& t, size_t* size) {
  *size = DataTypeSize(t.dtype());
  if (*size == 0) {
    return errors::InvalidArgument("unsupported dtype ",
                                   DataTypeName(t.dtype()));
  }
  return Status::OK();
}

Status ScalarIndex(const Tensor& t, const char* what, int64_t* value) {
  std::vector<int64_t> v;
  TW_RETURN_IF_ERROR(ReadIndexVector(t, &v));
  if (t.rank() != 0 || v.size() != 1) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  *value = v[0];
  return Status::OK();
}

class MatrixBandPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", false));
    int64_t lower, upper;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx->input(1), "num_lower", &lower));
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx->input(2), "num_upper", &upper));
    const int64_t m = in.dim(in.rank() - 2), n = in.dim(in.rank() - 1);
    OP_REQUIRES(ctx, lower <= m,
                errors::InvalidArgument(
                    "num_lower must be negative or less or equal to number of "
                    "rows (",
                    m, ") got: ", lower));
    OP_REQUIRES(ctx, upper <= n,
                errors::InvalidArgument(
                    "num_upper must be negative or less or equal to number of "
                    "columns (",
                    n, ") got: ", upper));
    size_t size;
    OP_REQUIRES_OK(ctx, ElementSize(in, &size));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    if (in.num_elements() == 0) return;
    std::memset(dst, 0, out->num_bytes());
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      for (int64_t i = 0; i < m; ++i) {
        const int64_t begin = lower < 0 ? 0 : std::max<int64_t>(0, i - lower);
        const int64_t end = upper < 0 ? n : std::min<int64_t>(n, i + upper + 1);
        if (begin >= end) continue;
        const size_t offset = ((b * m + i) * n + begin) * size;
        std::memcpy(dst + offset, src + offset, (end - begin) * size);
      }
    }
  }
};

class MatrixDiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.rank() >= 1,
                errors::InvalidArgument("diagonal must be at least rank 1, got "
                                        "shape ",
                                        in.shape().ToString()));
    size_t size;
    OP_REQUIRES_OK(ctx, ElementSize(in, &size));
    const int64_t n = in.dim(in.rank() - 1);
    std::vector<int64_t> dims = in.shape().dims();
    dims.push_back(n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (out->num_elements() == 0) return;
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    std::memset(dst, 0, out->num_bytes());
    const int64_t batches = in.num_elements() / n;
    for (int64_t b = 0; b < batches; ++b) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(dst + ((b * n + i) * n + i) * size,
                    src + (b * n + i) * size, size);
      }
    }
  }
};

class MatrixDiagPartOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", false));
    size_t size;
    OP_REQUIRES_OK(ctx, ElementSize(in, &size));
    const int64_t m = in.dim(in.rank() - 2), n = in.dim(in.rank() - 1);
    const int64_t p = std::min(m, n);
    std::vector<int64_t> dims = BatchOnly(in);
    dims.push_back(p);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const char* src = static_cast<const char*>(in.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t b = 0; b < (p == 0 ? 0 : NumMatrices(in)); ++b) {
      for (int64_t i = 0; i < p; ++i) {
        std::memcpy(dst + (b * p + i) * size,
                    src + ((b * m + i) * n + i) * size, size);
      }
    }
  }
};

class MatrixSetDiagOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& diag = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", false));
    const int64_t m = in.dim(in.rank() - 2), n = in.dim(in.rank() - 1);
    const int64_t p = std::min(m, n);
    std::vector<int64_t> want = BatchOnly(in);
    want.push_back(p);
    OP_REQUIRES(ctx, diag.shape().dims() == want,
                errors::InvalidArgument(
                    "diagonal must have shape ", TensorShape(want).ToString(),
                    " for input shape ", in.shape().ToString(), ", got ",
                    diag.shape().ToString()));
    size_t size;
    OP_REQUIRES_OK(ctx, ElementSize(in, &size));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.num_elements() == 0) return;
    const char* src = static_cast<const char*>(diag.raw_data());
    char* dst = static_cast<char*>(out->raw_data());
    std::memcpy(dst, in.raw_data(), in.num_bytes());
    for (int64_t b = 0; b < NumMatrices(in); ++b) {
      for (int64_t i = 0; i < p; ++i) {
        std::memcpy(dst + ((b * m + i) * n + i) * size,
                    src + (b * p + i) * size, size);
      }
    }
  }
};

REGISTER_KERNEL(KernelDef("MatrixInverse"), MatrixInverseOp);
REGISTER_KERNEL(KernelDef("MatrixDeterminant"), DeterminantOp<false>);
REGISTER_KERNEL(KernelDef("LogMatrixDeterminant"), DeterminantOp<true>);
REGISTER_KERNEL(KernelDef("Cholesky"), CholeskyOp);
REGISTER_KERNEL(KernelDef("MatrixSolve"), MatrixSolveOp);
REGISTER_KERNEL(KernelDef("MatrixTriangularSolve"), MatrixTriangularSolveOp);
REGISTER_KERNEL(KernelDef("MatrixSolveLs"), MatrixSolveLsOp);
REGISTER_KERNEL(KernelDef("Qr"), QrOp);
REGISTER_KERNEL(KernelDef("Svd"), SvdOp);
REGISTER_KERNEL(KernelDef("SelfAdjointEigV2"), SelfAdjointEigOp);
REGISTER_KERNEL(KernelDef("MatrixBandPart"), MatrixBandPartOp);
REGISTER_KERNEL(KernelDef("MatrixDiag"), MatrixDiagOp);
REGISTER_KERNEL(KernelDef("MatrixDiagPart"), MatrixDiagPartOp);
REGISTER_KERNEL(KernelDef("MatrixSetDiag"), MatrixSetDiagOp);

}  // namespace
}  // namespace tensorweave

namespace tensorweave {
namespace {

class CrossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.shape() == b.shape(),
                errors::InvalidArgument(
                    "Both inputs must be of same shape: ", a.shape().ToString(),
                    " vs. ", b.shape().ToString()));
    OP_REQUIRES(ctx, a.rank() >= 1 && a.dim(a.rank() - 1) == 3,
                errors::InvalidArgument(
                    "Trailing dimension must be of size 3, got shape ",
                    a.shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, a.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES>(a.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* u = a.data<T>();
                     const T* v = b.data<T>();
                     T* w = out->data<T>();
                     // Integers wrap around, as TensorFlow's kernel.
                     auto det = [](T p, T q, T r, T s) {
                       return WrappingSub(WrappingMul(p, q), WrappingMul(r, s));
                     };
                     for (int64_t i = 0; i < a.num_elements(); i += 3) {
                       w[i] = det(u[i + 1], v[i + 2], u[i + 2], v[i + 1]);
                       w[i + 1] = det(u[i + 2], v[i], u[i], v[i + 2]);
                       w[i + 2] = det(u[i], v[i + 1], u[i + 1], v[i]);
                     }
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("Cross"), CrossOp);

}  // namespace
}  // namespace tensorweave

namespace tensorweave {
namespace {

class LuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckMatrices(in, "input", true));
    const int64_t n = in.dim(in.rank() - 1);
    std::vector<int64_t> p_dims = BatchOnly(in);
    p_dims.push_back(n);
    Tensor *lu_t, *p_t;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &lu_t));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape(p_dims), &p_t));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          return DispatchType<int32_t, int64_t>(p_t->dtype(), [&](auto itag) {
            using I = decltype(itag);
            for (int64_t b = 0; b < NumMatrices(in); ++b) {
              if (n == 0) continue;
              ConstMatrixMap<T> a(in.data<T>() + b * n * n, n, n);
              Eigen::PartialPivLU<Matrix<T>> lu(a);
              // As TensorFlow: an exact zero pivot is an error.
              if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > T(0))) {
                return errors::InvalidArgument("Input is not invertible.");
              }
              MatrixMap<T>(lu_t->data<T>() + b * n * n, n, n) = lu.matrixLU();
              // P A = L U moves row i of A to row indices[i]; p lists, for each
              // row of L U, the row of A it came from.
              const auto& indices = lu.permutationP().indices();
              I* p = p_t->data<I>() + b * n;
              for (int64_t i = 0; i < n; ++i) p[indices[i]] = static_cast<I>(i);
            }
            return Status::OK();
          });
        }));
  }
};

REGISTER_KERNEL(KernelDef("Lu"), LuOp);

}  // namespace
}  // namespace tensorweave
