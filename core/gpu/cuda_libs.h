// The parts of cuBLAS and cuDNN the GPU device uses, loaded at run time
// (dlopen) so that the GPU library links against neither: it loads on any
// machine with a CUDA driver, and says plainly which library is missing
// when a kernel needs one. Declarations follow the libraries' C APIs
// (cublas_api.h, cudnn_*.h); only what is called is declared.
#ifndef TENSORWEAVE_CORE_GPU_CUDA_LIBS_H_
#define TENSORWEAVE_CORE_GPU_CUDA_LIBS_H_

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <string>
#include <vector>

#include "core/framework/status.h"

// cuBLAS (libcublas.so.13).
struct cublasContext;
typedef struct cublasContext* cublasHandle_t;
typedef int cublasStatus_t;  // 0: CUBLAS_STATUS_SUCCESS
enum TwCublasOperation { TW_CUBLAS_OP_N = 0, TW_CUBLAS_OP_T = 1 };

namespace tensorweave {
namespace gpu {

struct CublasApi {
  cublasStatus_t (*Create)(cublasHandle_t*);
  cublasStatus_t (*Destroy)(cublasHandle_t);
  cublasStatus_t (*SetStream)(cublasHandle_t, cudaStream_t);
  cublasStatus_t (*SetWorkspace)(cublasHandle_t, void*, size_t);
  cublasStatus_t (*SetMathMode)(cublasHandle_t, int);
  cublasStatus_t (*Sgemm)(cublasHandle_t, int transa, int transb, int m, int n,
                          int k, const float* alpha, const float* A, int lda,
                          const float* B, int ldb, const float* beta, float* C,
                          int ldc);
  cublasStatus_t (*Dgemm)(cublasHandle_t, int transa, int transb, int m, int n,
                          int k, const double* alpha, const double* A, int lda,
                          const double* B, int ldb, const double* beta,
                          double* C, int ldc);
  cublasStatus_t (*SgemmStridedBatched)(cublasHandle_t, int transa, int transb,
                                        int m, int n, int k, const float* alpha,
                                        const float* A, int lda,
                                        long long strideA, const float* B,
                                        int ldb, long long strideB,
                                        const float* beta, float* C, int ldc,
                                        long long strideC, int batchCount);
  cublasStatus_t (*DgemmStridedBatched)(
      cublasHandle_t, int transa, int transb, int m, int n, int k,
      const double* alpha, const double* A, int lda, long long strideA,
      const double* B, int ldb, long long strideB, const double* beta,
      double* C, int ldc, long long strideC, int batchCount);
  // cublasPointerMode_t as int: 0 HOST, 1 DEVICE (alpha/beta in GPU memory).
  cublasStatus_t (*SetPointerMode)(cublasHandle_t, int mode);
};

// A CUDA library (`soname`) opened with dlopen from the first place it
// loads: $`env_var` (a path), the loader's path, each TW_NVIDIA_LIB_DIRS
// entry (a site-packages dir holding nvidia/, where each of `pip_subdirs`
// is tried, or such a lib dir itself), CUDA_HOME/lib64 and
// /usr/local/cuda/lib64. nullptr when none does; `tried` then lists each
// place and why, `from` names where it came from otherwise.
void* OpenCudaLibrary(const char* soname, const char* env_var,
                      const std::vector<std::string>& pip_subdirs,
                      std::string* from, std::string* tried);

// *fn = the library's `symbol`; a missing one is added to `missing`.
template <typename F>
void BindSymbol(void* lib, const char* symbol, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(lib, symbol));
  if (*fn == nullptr) {
    if (!missing->empty()) *missing += ", ";
    *missing += symbol;
  }
}

// The process's cuBLAS, loaded on first use (OpenCudaLibrary with
// TW_CUBLAS_LIBRARY and the nvidia-cublas package). Unavailable
// (FailedPrecondition naming where it looked) when none loads.
Status GetCublas(const CublasApi** api);
std::string CublasStatusString(cublasStatus_t status);

}  // namespace gpu
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_GPU_CUDA_LIBS_H_
