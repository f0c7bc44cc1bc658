#ifndef TENSORWEAVE_CORE_KERNELS_MATMUL_OP_H_
#define TENSORWEAVE_CORE_KERNELS_MATMUL_OP_H_

#include <cstdint>

#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "core/platform/blas.h"

namespace tensorweave {

class ThreadPool;

// The plain triple loop: C[m,n] = op(A) op(B), row-major; the oracle for the
// optimized kernels.
template <typename T>
void ReferenceMatMul(const T* a, const T* b, T* c, int64_t m, int64_t n,
                     int64_t k, bool transpose_a, bool transpose_b);

// C[m,n] = alpha op(A) op(B) + beta C, row-major, with the fastest kernel
// there is for T (BLAS for float32/float64, split over `pool` when large; the
// reference loop for integers, which supports only alpha = 1, beta = 0).
// `pool` may be null. With beta = 0, C is not read.
template <typename T>
void Gemm(ThreadPool* pool, const T* a, const T* b, T* c, int64_t m, int64_t n,
          int64_t k, bool transpose_a, bool transpose_b, T alpha = T(1),
          T beta = T(0));

// The sizes of op(a) [m, k] times op(b) [k, n]. InvalidArgument, naming the
// operands' shapes, unless both are matrices with equal inner dimensions.
// The complex product C[m,n] = op(A) op(B) (op: as stored, transposed or
// adjoint), T = complex64 or complex128. k = 0 gives zeros.
template <typename T>
void ComplexMatMul(const T* a, const T* b, T* c, int64_t m, int64_t n,
                   int64_t k, blas::ComplexOp op_a, blas::ComplexOp op_b);

Status MatMulDims(const Tensor& a, const Tensor& b, bool transpose_a,
                  bool transpose_b, const char* a_name, const char* b_name,
                  int64_t* m, int64_t* n, int64_t* k);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_MATMUL_OP_H_
