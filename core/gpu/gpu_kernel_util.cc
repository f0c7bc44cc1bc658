// Error checks for GPU kernels (gpu_kernel_util.h).
#include "core/gpu/gpu_kernel_util.h"

#include <cstdlib>
#include <cstring>

namespace tensorweave {
namespace gpu {

Status CudaStatus(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return Status::OK();
  // Clear the error (a later launch check must not report it again).
  cudaGetLastError();
  return errors::Internal(what, " failed: ", cudaGetErrorName(error), ": ",
                          cudaGetErrorString(error));
}

Status CheckLaunch(GpuDevice* device, const char* kernel_name) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    return errors::Internal("launching the GPU kernel ", kernel_name, " on ",
                            device->name(), " failed: ", cudaGetErrorName(e),
                            ": ", cudaGetErrorString(e));
  }
  static const bool sync_check = [] {
    const char* v = std::getenv("TW_GPU_SYNC_CHECK");
    return v != nullptr && std::strcmp(v, "") != 0 && std::strcmp(v, "0") != 0;
  }();
  if (sync_check && !device->capturing()) {
    e = cudaStreamSynchronize(device->stream());
    if (e != cudaSuccess) {
      cudaGetLastError();
      return errors::Internal("the GPU kernel ", kernel_name, " on ",
                              device->name(), " failed: ", cudaGetErrorName(e),
                              ": ", cudaGetErrorString(e),
                              " (TW_GPU_SYNC_CHECK)");
    }
  }
  return Status::OK();
}

}  // namespace gpu
}  // namespace tensorweave
