// Row-major GEMM on the device's stream through the run-time loaded cuBLAS
// (cuda_libs.h), shared by the MatMul and convolution kernels.
//
// cuBLAS is column-major: a row-major [r, c] matrix is its transpose seen
// column-major, so C = op(A) op(B) (row-major) is computed as
// C^T = op(B)^T op(A)^T: the operands swapped, no data moved.
#ifndef TENSORWEAVE_CORE_GPU_KERNELS_GPU_GEMM_H_
#define TENSORWEAVE_CORE_GPU_KERNELS_GPU_GEMM_H_

#include <climits>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "core/framework/status.h"
#include "core/gpu/cuda_libs.h"

namespace tensorweave {
namespace gpu {

// Held around every use of the device's cuBLAS handle from these kernels:
// kernels of one device may run Compute on several executor threads, and a
// handle is not thread-safe (FusedMatMulApplyGradientDescent also switches
// its pointer mode for the length of one call). Recursive: the fused op
// holds it across its calls to the helpers below.
inline std::recursive_mutex& CublasCallMutex() {
  static std::recursive_mutex* mu = new std::recursive_mutex();
  return *mu;
}

inline Status CublasCheck(cublasStatus_t status, const char* what) {
  if (status == 0) return Status::OK();
  return errors::Internal(what, " failed: ", CublasStatusString(status));
}

// InvalidArgument unless every size fits cuBLAS's int.
inline Status GemmSizesFit(int64_t m, int64_t n, int64_t k) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
    return errors::InvalidArgument(
        "matrix product of [", m, ",", k, "] x [", k, ",", n,
        "] has a dimension above cuBLAS's limit ", INT_MAX);
  }
  return Status::OK();
}

// C[m,n] = alpha op(A) op(B) + beta C, row-major, A [m,k] (or [k,m] when
// transpose_a), B [k,n] (or [n,k]). Requires m, n, k > 0 (callers handle the
// empty cases). alpha and beta are host pointers unless the handle is in
// device pointer mode.
template <typename T>
Status RowMajorGemm(const CublasApi* api, cublasHandle_t handle, bool trans_a,
                    bool trans_b, int64_t m, int64_t n, int64_t k,
                    const T* alpha, const T* a, const T* b, const T* beta,
                    T* c) {
  TW_RETURN_IF_ERROR(GemmSizesFit(m, n, k));
  std::lock_guard<std::recursive_mutex> lock(CublasCallMutex());
  const int lda = static_cast<int>(trans_a ? m : k);
  const int ldb = static_cast<int>(trans_b ? k : n);
  const int opa = trans_a ? TW_CUBLAS_OP_T : TW_CUBLAS_OP_N;
  const int opb = trans_b ? TW_CUBLAS_OP_T : TW_CUBLAS_OP_N;
  if constexpr (std::is_same_v<T, float>) {
    return CublasCheck(
        api->Sgemm(handle, opb, opa, static_cast<int>(n), static_cast<int>(m),
                   static_cast<int>(k), alpha, b, ldb, a, lda, beta, c,
                   static_cast<int>(n)),
        "cublasSgemm");
  } else {
    return CublasCheck(
        api->Dgemm(handle, opb, opa, static_cast<int>(n), static_cast<int>(m),
                   static_cast<int>(k), alpha, b, ldb, a, lda, beta, c,
                   static_cast<int>(n)),
        "cublasDgemm");
  }
}

// `batch` products C_i = alpha op(A_i) op(B_i) + beta C_i with A_i = a +
// i * stride_a (stride 0 reuses one matrix), likewise B and C.
template <typename T>
Status RowMajorGemmStridedBatched(const CublasApi* api, cublasHandle_t handle,
                                  bool trans_a, bool trans_b, int64_t m,
                                  int64_t n, int64_t k, const T* alpha,
                                  const T* a, int64_t stride_a, const T* b,
                                  int64_t stride_b, const T* beta, T* c,
                                  int64_t stride_c, int64_t batch) {
  TW_RETURN_IF_ERROR(GemmSizesFit(m, n, k));
  TW_RETURN_IF_ERROR(GemmSizesFit(batch, 1, 1));
  std::lock_guard<std::recursive_mutex> lock(CublasCallMutex());
  const int lda = static_cast<int>(trans_a ? m : k);
  const int ldb = static_cast<int>(trans_b ? k : n);
  const int opa = trans_a ? TW_CUBLAS_OP_T : TW_CUBLAS_OP_N;
  const int opb = trans_b ? TW_CUBLAS_OP_T : TW_CUBLAS_OP_N;
  if constexpr (std::is_same_v<T, float>) {
    return CublasCheck(
        api->SgemmStridedBatched(
            handle, opb, opa, static_cast<int>(n), static_cast<int>(m),
            static_cast<int>(k), alpha, b, ldb, stride_b, a, lda, stride_a,
            beta, c, static_cast<int>(n), stride_c, static_cast<int>(batch)),
        "cublasSgemmStridedBatched");
  } else {
    return CublasCheck(
        api->DgemmStridedBatched(
            handle, opb, opa, static_cast<int>(n), static_cast<int>(m),
            static_cast<int>(k), alpha, b, ldb, stride_b, a, lda, stride_a,
            beta, c, static_cast<int>(n), stride_c, static_cast<int>(batch)),
        "cublasDgemmStridedBatched");
  }
}

}  // namespace gpu
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_GPU_KERNELS_GPU_GEMM_H_
