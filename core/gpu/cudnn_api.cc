// cuDNN loaded at run time (cudnn_api.h).
#include "core/gpu/cudnn_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/gpu/cuda_libs.h"

namespace tensorweave {
namespace gpu {
namespace {

constexpr const char* kCudnnSoname = "libcudnn.so.9";

struct Loaded {
  CudnnApi api{};
  Status status;
};

Loaded* LoadCudnn() {
  auto* loaded = new Loaded();
  std::string tried, from;
  void* lib =
      OpenCudaLibrary(kCudnnSoname, "TW_CUDNN_LIBRARY",
                      {"nvidia/cudnn/lib", "nvidia/cu13/lib"}, &from, &tried);
  if (lib == nullptr) {
    loaded->status = errors::FailedPrecondition(
        "cuDNN (", kCudnnSoname,
        ") could not be loaded; set TW_CUDNN_LIBRARY to its path or install "
        "the nvidia-cudnn-cu13 package (convolutions then run on the im2col "
        "+ cuBLAS fallback). Tried:",
        tried);
    return loaded;
  }
  CudnnApi& a = loaded->api;
  std::string missing;
  BindSymbol(lib, "cudnnGetVersion", &a.GetVersion, &missing);
  BindSymbol(lib, "cudnnGetErrorString", &a.GetErrorString, &missing);
  BindSymbol(lib, "cudnnCreate", &a.Create, &missing);
  BindSymbol(lib, "cudnnSetStream", &a.SetStream, &missing);
  BindSymbol(lib, "cudnnCreateTensorDescriptor", &a.CreateTensorDescriptor,
             &missing);
  BindSymbol(lib, "cudnnDestroyTensorDescriptor", &a.DestroyTensorDescriptor,
             &missing);
  BindSymbol(lib, "cudnnSetTensor4dDescriptor", &a.SetTensor4dDescriptor,
             &missing);
  BindSymbol(lib, "cudnnCreateFilterDescriptor", &a.CreateFilterDescriptor,
             &missing);
  BindSymbol(lib, "cudnnDestroyFilterDescriptor", &a.DestroyFilterDescriptor,
             &missing);
  BindSymbol(lib, "cudnnSetFilter4dDescriptor", &a.SetFilter4dDescriptor,
             &missing);
  BindSymbol(lib, "cudnnCreateConvolutionDescriptor",
             &a.CreateConvolutionDescriptor, &missing);
  BindSymbol(lib, "cudnnDestroyConvolutionDescriptor",
             &a.DestroyConvolutionDescriptor, &missing);
  BindSymbol(lib, "cudnnSetConvolution2dDescriptor",
             &a.SetConvolution2dDescriptor, &missing);
  BindSymbol(lib, "cudnnSetConvolutionMathType", &a.SetConvolutionMathType,
             &missing);
  BindSymbol(lib, "cudnnGetConvolutionForwardAlgorithm_v7",
             &a.GetConvolutionForwardAlgorithm_v7, &missing);
  BindSymbol(lib, "cudnnGetConvolutionForwardWorkspaceSize",
             &a.GetConvolutionForwardWorkspaceSize, &missing);
  BindSymbol(lib, "cudnnConvolutionForward", &a.ConvolutionForward, &missing);
  BindSymbol(lib, "cudnnGetConvolutionBackwardDataAlgorithm_v7",
             &a.GetConvolutionBackwardDataAlgorithm_v7, &missing);
  BindSymbol(lib, "cudnnGetConvolutionBackwardDataWorkspaceSize",
             &a.GetConvolutionBackwardDataWorkspaceSize, &missing);
  BindSymbol(lib, "cudnnConvolutionBackwardData", &a.ConvolutionBackwardData,
             &missing);
  BindSymbol(lib, "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
             &a.GetConvolutionBackwardFilterAlgorithm_v7, &missing);
  BindSymbol(lib, "cudnnGetConvolutionBackwardFilterWorkspaceSize",
             &a.GetConvolutionBackwardFilterWorkspaceSize, &missing);
  BindSymbol(lib, "cudnnConvolutionBackwardFilter",
             &a.ConvolutionBackwardFilter, &missing);
  if (!missing.empty()) {
    loaded->status = errors::FailedPrecondition("cuDNN loaded from ", from,
                                                " lacks ", missing);
    return loaded;
  }
  const size_t version = a.GetVersion();
  if (version < 90000 || version >= 100000) {
    loaded->status =
        errors::FailedPrecondition("cuDNN loaded from ", from, " is version ",
                                   version, "; the GPU kernels need cuDNN 9.x");
  }
  return loaded;
}

}  // namespace

Status GetCudnn(const CudnnApi** api) {
  static Loaded* loaded = LoadCudnn();  // once; never unloaded
  TW_RETURN_IF_ERROR(loaded->status);
  *api = &loaded->api;
  return Status::OK();
}

Status GetCudnnHandle(int ordinal, cudnnHandle_t* handle) {
  const CudnnApi* api;
  TW_RETURN_IF_ERROR(GetCudnn(&api));
  static std::mutex* mu = new std::mutex();
  static auto* handles = new std::map<int, cudnnHandle_t>();
  std::lock_guard<std::mutex> lock(*mu);
  auto it = handles->find(ordinal);
  if (it != handles->end()) {
    *handle = it->second;
    return Status::OK();
  }
  int previous = 0;
  cudaError_t e = cudaGetDevice(&previous);
  if (e == cudaSuccess) e = cudaSetDevice(ordinal);
  if (e != cudaSuccess) {
    return errors::Internal("cudaSetDevice(", ordinal,
                            ") for cudnnCreate: ", cudaGetErrorString(e));
  }
  cudnnHandle_t h = nullptr;
  Status s = CudnnCheck(api->Create(&h), "cudnnCreate");
  cudaSetDevice(previous);
  TW_RETURN_IF_ERROR(s);
  (*handles)[ordinal] = h;
  *handle = h;
  return Status::OK();
}

std::string CudnnStatusString(cudnnStatus_t status) {
  const CudnnApi* api;
  std::string name = "cuDNN status";
  if (GetCudnn(&api).ok() && api->GetErrorString != nullptr) {
    name = api->GetErrorString(status);
  }
  return name + " (" + std::to_string(status) + ")";
}

Status CudnnCheck(cudnnStatus_t status, const char* what) {
  if (status == 0) return Status::OK();
  return errors::Internal(what, " failed: ", CudnnStatusString(status));
}

bool CudnnDisabledByEnv() {
  const char* v = std::getenv("TW_GPU_DISABLE_CUDNN");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

}  // namespace gpu
}  // namespace tensorweave
