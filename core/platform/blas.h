// The core's one BLAS wrapper (OpenBLAS through CBLAS). Every call runs on
// the calling thread only: OpenBLAS's own threads would fight the session's
// pools, so callers (MatMul, the im2col convolutions) split their work over
// the intra-op pool themselves and the first call makes OpenBLAS
// single-threaded for the whole process.
#ifndef TENSORWEAVE_CORE_PLATFORM_BLAS_H_
#define TENSORWEAVE_CORE_PLATFORM_BLAS_H_

#include <complex>
#include <cstdint>

namespace tensorweave {
namespace blas {

// Row-major C[m,n] = alpha op(A) op(B) + beta C, op(X) = X or X^T; lda, ldb
// and ldc are the row strides of A, B and C as stored. With beta = 0, C is
// not read. T is float or double.
template <typename T>
void Gemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k,
          T alpha, const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
          T* c, int64_t ldc);

// How a complex Gemm operand is used: as stored, transposed, or transposed
// and conjugated (the adjoint).
enum class ComplexOp { kNone, kTranspose, kAdjoint };

// Row-major C[m,n] = op(A) op(B) for T = std::complex<float> or
// std::complex<double>; C is not read.
template <typename T>
void ComplexGemm(ComplexOp op_a, ComplexOp op_b, int64_t m, int64_t n,
                 int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                 T* c, int64_t ldc);

// Makes OpenBLAS single-threaded (once per process; Gemm calls it too). For
// code that calls OpenBLAS other than through Gemm.
void UseSingleThread();

}  // namespace blas
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_PLATFORM_BLAS_H_
