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

namespace {

CBLAS_TRANSPOSE ToCblas(ComplexOp op) {
  switch (op) {
    case ComplexOp::kTranspose:
      return CblasTrans;
    case ComplexOp::kAdjoint:
      return CblasConjTrans;
    default:
      return CblasNoTrans;
  }
}

}  // namespace

template <>
void ComplexGemm<std::complex<float>>(ComplexOp op_a, ComplexOp op_b, int64_t m,
                                      int64_t n, int64_t k,
                                      const std::complex<float>* a, int64_t lda,
                                      const std::complex<float>* b, int64_t ldb,
                                      std::complex<float>* c, int64_t ldc) {
  UseSingleThread();
  const std::complex<float> one(1), zero(0);
  cblas_cgemm(CblasRowMajor, ToCblas(op_a), ToCblas(op_b), m, n, k, &one, a,
              lda, b, ldb, &zero, c, ldc);
}

template <>
void ComplexGemm<std::complex<double>>(
    ComplexOp op_a, ComplexOp op_b, int64_t m, int64_t n, int64_t k,
    const std::complex<double>* a, int64_t lda, const std::complex<double>* b,
    int64_t ldb, std::complex<double>* c, int64_t ldc) {
  UseSingleThread();
  const std::complex<double> one(1), zero(0);
  cblas_zgemm(CblasRowMajor, ToCblas(op_a), ToCblas(op_b), m, n, k, &one, a,
              lda, b, ldb, &zero, c, ldc);
}

}  // namespace blas
}  // namespace tensorweave
