// MatMul: OpenBLAS for float32/float64 (split into row panels over the
// intra-op pool), a plain loop for integers and as the reference.
#include "core/kernels/matmul_op.h"

#include <cblas.h>

#include "core/framework/op_kernel.h"
#include "core/runtime/thread_pool.h"

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
        sum += av * bv;
      }
      c[i * n + j] = sum;
    }
  }
}
template void ReferenceMatMul<float>(const float*, const float*, float*,
                                     int64_t, int64_t, int64_t, bool, bool);
template void ReferenceMatMul<double>(const double*, const double*, double*,
                                      int64_t, int64_t, int64_t, bool, bool);

namespace {

// Rows [r0, r1) of C = op(A) op(B) with BLAS.
template <typename T>
void BlasGemmRows(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k,
                  bool ta, bool tb, int64_t r0, int64_t r1) {
  const int64_t rows = r1 - r0;
  const T* a_rows = ta ? a + r0 : a + r0 * k;
  const auto trans_a = ta ? CblasTrans : CblasNoTrans;
  const auto trans_b = tb ? CblasTrans : CblasNoTrans;
  const int lda = ta ? m : k, ldb = tb ? k : n;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, trans_a, trans_b, rows, n, k, 1.0f, a_rows, lda,
                b, ldb, 0.0f, c + r0 * n, n);
  } else {
    cblas_dgemm(CblasRowMajor, trans_a, trans_b, rows, n, k, 1.0, a_rows, lda,
                b, ldb, 0.0, c + r0 * n, n);
  }
}

struct BlasSingleThreaded {
  // OpenBLAS's own threads would fight the session's pools: the kernel
  // parallelizes over row panels itself.
  BlasSingleThreaded() { openblas_set_num_threads(1); }
};

class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    static BlasSingleThreaded once;
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    OP_REQUIRES(ctx, a.rank() == 2 && b.rank() == 2,
                errors::InvalidArgument("MatMul needs matrices, got shapes ",
                                        a.shape().ToString(), " and ",
                                        b.shape().ToString()));
    const int64_t m = a.dim(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim(transpose_b_ ? 0 : 1);
    OP_REQUIRES(ctx, k == kb,
                errors::InvalidArgument(
                    "Matrix size-incompatible: In[0]: ", a.shape().ToString(),
                    ", In[1]: ", b.shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (m == 0 || n == 0) return;
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES>(a.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     if (k == 0) {
                       std::fill(out->data<T>(), out->data<T>() + m * n, T(0));
                     } else if constexpr (std::is_floating_point_v<T>) {
                       ComputeBlas<T>(ctx, a.data<T>(), b.data<T>(),
                                      out->data<T>(), m, n, k);
                     } else {
                       ReferenceMatMul<T>(a.data<T>(), b.data<T>(),
                                          out->data<T>(), m, n, k, transpose_a_,
                                          transpose_b_);
                     }
                     return Status::OK();
                   }));
  }

 private:
  template <typename T>
  void ComputeBlas(OpKernelContext* ctx, const T* a, const T* b, T* c,
                   int64_t m, int64_t n, int64_t k) {
    ThreadPool* pool = ctx->intra_op_pool();
    const int64_t flops = 2 * m * n * k;
    if (pool == nullptr || pool->num_threads() == 0 || flops < (1 << 22) ||
        m < 32) {
      BlasGemmRows<T>(a, b, c, m, n, k, transpose_a_, transpose_b_, 0, m);
      return;
    }
    const int64_t parts = pool->num_threads() + 1;
    const int64_t block = ((m + parts - 1) / parts + 7) / 8 * 8;
    pool->ParallelFor(m, block, [&](int64_t r0, int64_t r1) {
      BlasGemmRows<T>(a, b, c, m, n, k, transpose_a_, transpose_b_, r0, r1);
    });
  }

  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

REGISTER_KERNEL(KernelDef("MatMul"), MatMulOp);

}  // namespace
}  // namespace tensorweave
