#include "core/platform/blas.h"

#include <cblas.h>

namespace tensorweave {
namespace blas {

void UseSingleThread() {
  static const bool once = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)once;
}

template <>
void Gemm<float>(bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                 int64_t k, float alpha, const float* a, int64_t lda,
                 const float* b, int64_t ldb, float beta, float* c,
                 int64_t ldc) {
  UseSingleThread();
  cblas_sgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda,
              b, ldb, beta, c, ldc);
}

template <>
void Gemm<double>(bool transpose_a, bool transpose_b, int64_t m, int64_t n,
                  int64_t k, double alpha, const double* a, int64_t lda,
                  const double* b, int64_t ldb, double beta, double* c,
                  int64_t ldc) {
  UseSingleThread();
  cblas_dgemm(CblasRowMajor, transpose_a ? CblasTrans : CblasNoTrans,
              transpose_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, a, lda,
              b, ldb, beta, c, ldc);
}

}  // namespace blas
}  // namespace tensorweave
