// MatMul: OpenBLAS for float32/float64 (split into one block of C per
// thread of the intra-op pool), a plain loop for integers and as the
// reference.
#include "core/kernels/matmul_op.h"

#include <algorithm>
#include <type_traits>

#include "core/framework/op_kernel.h"
#include "core/kernels/wrapping_arithmetic.h"
#include "core/platform/blas.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

template <typename T>
void ReferenceMatMul(const T* a, const T* b, T* c, int64_t m, int64_t n,
                     int64_t k, bool transpose_a, bool transpose_b) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        T av = transpose_a ? a[p * m + i] : a[i * k + p];
        T bv = transpose_b ? b[j * k + p] : b[p * n + j];
        sum = WrappingAdd(sum, WrappingMul(av, bv));
      }
      c[i * n + j] = sum;
    }
  }
}
template void ReferenceMatMul<float>(const float*, const float*, float*,
                                     int64_t, int64_t, int64_t, bool, bool);
template void ReferenceMatMul<double>(const double*, const double*, double*,
                                      int64_t, int64_t, int64_t, bool, bool);
template void ReferenceMatMul<int32_t>(const int32_t*, const int32_t*, int32_t*,
                                       int64_t, int64_t, int64_t, bool, bool);
template void ReferenceMatMul<int64_t>(const int64_t*, const int64_t*, int64_t*,
                                       int64_t, int64_t, int64_t, bool, bool);

namespace {

// The block of C = op(A) op(B) with rows [r0, r1) and columns [c0, c1), by
// BLAS (which packs its operands into cache-sized panels itself).
template <typename T>
void BlasGemmBlock(const T* a, const T* b, T* c, int64_t m, int64_t n,
                   int64_t k, bool ta, bool tb, T alpha, T beta, int64_t r0,
                   int64_t r1, int64_t c0, int64_t c1) {
  const T* a_block = ta ? a + r0 : a + r0 * k;
  const T* b_block = tb ? b + c0 * k : b + c0;
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  blas::Gemm<T>(ta, tb, r1 - r0, c1 - c0, k, alpha, a_block, lda, b_block, ldb,
                beta, c + r0 * n + c0, n);
}

template <typename T>
void BlasGemm(ThreadPool* pool, const T* a, const T* b, T* c, int64_t m,
              int64_t n, int64_t k, bool ta, bool tb, T alpha, T beta) {
  const int64_t parts = pool == nullptr ? 1 : pool->num_threads() + 1;
  const int64_t flops = 2 * m * n * k;
  if (parts == 1 || flops < (int64_t{1} << 22)) {
    BlasGemmBlock<T>(a, b, c, m, n, k, ta, tb, alpha, beta, 0, m, 0, n);
    return;
  }
  // One block per thread, split along the longer side of C (rows when
  // equal: each thread then streams all of B once, through its own packed
  // panels, and writes a contiguous part of C). min_block = extent / parts
  // makes ParallelFor cut exactly `parts` blocks.
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  const int64_t block = std::max<int64_t>(16, extent / parts);
  pool->ParallelFor(extent, block, [&](int64_t begin, int64_t end) {
    if (by_rows) {
      BlasGemmBlock<T>(a, b, c, m, n, k, ta, tb, alpha, beta, begin, end, 0, n);
    } else {
      BlasGemmBlock<T>(a, b, c, m, n, k, ta, tb, alpha, beta, 0, m, begin, end);
    }
  });
}

}  // namespace

template <typename T>
void Gemm(ThreadPool* pool, const T* a, const T* b, T* c, int64_t m, int64_t n,
          int64_t k, bool transpose_a, bool transpose_b, T alpha, T beta) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == T(0)) {
      std::fill(c, c + m * n, T(0));
    } else {
      for (int64_t i = 0; i < m * n; ++i) c[i] *= beta;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    BlasGemm<T>(pool, a, b, c, m, n, k, transpose_a, transpose_b, alpha, beta);
  } else {
    ReferenceMatMul<T>(a, b, c, m, n, k, transpose_a, transpose_b);
  }
}
template void Gemm<float>(ThreadPool*, const float*, const float*, float*,
                          int64_t, int64_t, int64_t, bool, bool, float, float);
template void Gemm<double>(ThreadPool*, const double*, const double*, double*,
                           int64_t, int64_t, int64_t, bool, bool, double,
                           double);
template void Gemm<int32_t>(ThreadPool*, const int32_t*, const int32_t*,
                            int32_t*, int64_t, int64_t, int64_t, bool, bool,
                            int32_t, int32_t);
template void Gemm<int64_t>(ThreadPool*, const int64_t*, const int64_t*,
                            int64_t*, int64_t, int64_t, int64_t, bool, bool,
                            int64_t, int64_t);

Status MatMulDims(const Tensor& a, const Tensor& b, bool transpose_a,
                  bool transpose_b, const char* a_name, const char* b_name,
                  int64_t* m, int64_t* n, int64_t* k) {
  if (a.rank() != 2 || b.rank() != 2) {
    return errors::InvalidArgument("a matrix product needs matrices, got ",
                                   a_name, ": ", a.shape().ToString(), ", ",
                                   b_name, ": ", b.shape().ToString());
  }
  *m = a.dim(transpose_a ? 1 : 0);
  *k = a.dim(transpose_a ? 0 : 1);
  *n = b.dim(transpose_b ? 0 : 1);
  if (*k != b.dim(transpose_b ? 1 : 0)) {
    return errors::InvalidArgument("Matrix size-incompatible: ", a_name, ": ",
                                   a.shape().ToString(), ", ", b_name, ": ",
                                   b.shape().ToString());
  }
  return Status::OK();
}

namespace {

class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t m, n, k;
    OP_REQUIRES_OK(ctx, MatMulDims(a, b, transpose_a_, transpose_b_, "In[0]",
                                   "In[1]", &m, &n, &k));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES>(a.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     Gemm<T>(ctx->intra_op_pool(), a.data<T>(), b.data<T>(),
                             out->data<T>(), m, n, k, transpose_a_,
                             transpose_b_);
                     return Status::OK();
                   }));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

REGISTER_KERNEL(KernelDef("MatMul"), MatMulOp);

}  // namespace
}  // namespace tensorweave
