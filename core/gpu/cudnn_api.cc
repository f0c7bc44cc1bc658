// cuDNN loaded at run time (cudnn_api.h).
#include "core/gpu/cudnn_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace tensorweave {
namespace gpu {
namespace {

constexpr const char* kCudnnSoname = "libcudnn.so.9";

std::vector<std::string> CudnnCandidates() {
  std::vector<std::string> paths;
  if (const char* lib = std::getenv("TW_CUDNN_LIBRARY"); lib && *lib) {
    paths.push_back(lib);
  }
  paths.push_back(kCudnnSoname);  // the loader's path
  if (const char* dirs = std::getenv("TW_NVIDIA_LIB_DIRS"); dirs && *dirs) {
    std::string all(dirs);
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(':', start);
      if (end == std::string::npos) end = all.size();
      std::string dir = all.substr(start, end - start);
      if (!dir.empty()) {
        // The loader lists site-packages dirs (holding nvidia/) or the
        // nvidia/*/lib dirs themselves: try both.
        paths.push_back(dir + "/nvidia/cudnn/lib/" + kCudnnSoname);
        paths.push_back(dir + "/nvidia/cu13/lib/" + kCudnnSoname);
        paths.push_back(dir + "/" + kCudnnSoname);
      }
      start = end + 1;
    }
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    paths.push_back(std::string(home) + "/lib64/" + kCudnnSoname);
  }
  paths.push_back(std::string("/usr/local/cuda/lib64/") + kCudnnSoname);
  return paths;
}

template <typename F>
void Bind(void* lib, const char* symbol, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(lib, symbol));
  if (*fn == nullptr) {
    if (!missing->empty()) *missing += ", ";
    *missing += symbol;
  }
}

struct Loaded {
  CudnnApi api{};
  Status status;
};

Loaded* LoadCudnn() {
  auto* loaded = new Loaded();
  std::string tried;
  void* lib = nullptr;
  std::string from;
  for (const std::string& path : CudnnCandidates()) {
    lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      from = path;
      break;
    }
    const char* why = dlerror();
    tried += "\n  " + path + ": " + (why != nullptr ? why : "not loadable");
  }
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
  Bind(lib, "cudnnGetVersion", &a.GetVersion, &missing);
  Bind(lib, "cudnnGetErrorString", &a.GetErrorString, &missing);
  Bind(lib, "cudnnCreate", &a.Create, &missing);
  Bind(lib, "cudnnSetStream", &a.SetStream, &missing);
  Bind(lib, "cudnnCreateTensorDescriptor", &a.CreateTensorDescriptor, &missing);
  Bind(lib, "cudnnDestroyTensorDescriptor", &a.DestroyTensorDescriptor,
       &missing);
  Bind(lib, "cudnnSetTensor4dDescriptor", &a.SetTensor4dDescriptor, &missing);
  Bind(lib, "cudnnCreateFilterDescriptor", &a.CreateFilterDescriptor, &missing);
  Bind(lib, "cudnnDestroyFilterDescriptor", &a.DestroyFilterDescriptor,
       &missing);
  Bind(lib, "cudnnSetFilter4dDescriptor", &a.SetFilter4dDescriptor, &missing);
  Bind(lib, "cudnnCreateConvolutionDescriptor", &a.CreateConvolutionDescriptor,
       &missing);
  Bind(lib, "cudnnDestroyConvolutionDescriptor",
       &a.DestroyConvolutionDescriptor, &missing);
  Bind(lib, "cudnnSetConvolution2dDescriptor", &a.SetConvolution2dDescriptor,
       &missing);
  Bind(lib, "cudnnSetConvolutionMathType", &a.SetConvolutionMathType, &missing);
  Bind(lib, "cudnnGetConvolutionForwardAlgorithm_v7",
       &a.GetConvolutionForwardAlgorithm_v7, &missing);
  Bind(lib, "cudnnGetConvolutionForwardWorkspaceSize",
       &a.GetConvolutionForwardWorkspaceSize, &missing);
  Bind(lib, "cudnnConvolutionForward", &a.ConvolutionForward, &missing);
  Bind(lib, "cudnnGetConvolutionBackwardDataAlgorithm_v7",
       &a.GetConvolutionBackwardDataAlgorithm_v7, &missing);
  Bind(lib, "cudnnGetConvolutionBackwardDataWorkspaceSize",
       &a.GetConvolutionBackwardDataWorkspaceSize, &missing);
  Bind(lib, "cudnnConvolutionBackwardData", &a.ConvolutionBackwardData,
       &missing);
  Bind(lib, "cudnnGetConvolutionBackwardFilterAlgorithm_v7",
       &a.GetConvolutionBackwardFilterAlgorithm_v7, &missing);
  Bind(lib, "cudnnGetConvolutionBackwardFilterWorkspaceSize",
       &a.GetConvolutionBackwardFilterWorkspaceSize, &missing);
  Bind(lib, "cudnnConvolutionBackwardFilter", &a.ConvolutionBackwardFilter,
       &missing);
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
