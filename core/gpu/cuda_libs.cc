// cuBLAS loaded at run time (cuda_libs.h). The declarations in
// cuda_libs.h were checked against cublas_api.h of the nvidia-cublas 13.x
// wheel: the enums (cublasOperation_t, cublasMath_t) are passed as int,
// which has the same calling convention.
#include "core/gpu/cuda_libs.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

namespace tensorweave {
namespace gpu {

namespace {

constexpr const char* kCublasSoname = "libcublas.so.13";

struct Loaded {
  CublasApi api{};
  Status status;
};

Loaded* LoadCublas() {
  auto* loaded = new Loaded();
  std::string tried, from;
  void* lib =
      OpenCudaLibrary(kCublasSoname, "TW_CUBLAS_LIBRARY",
                      {"nvidia/cu13/lib", "nvidia/cublas/lib"}, &from, &tried);
  if (lib == nullptr) {
    loaded->status = errors::FailedPrecondition(
        "cuBLAS (", kCublasSoname,
        ") could not be loaded; set TW_CUBLAS_LIBRARY to its path or "
        "install the nvidia-cublas package. Tried:",
        tried);
    return loaded;
  }
  CublasApi& a = loaded->api;
  std::string missing;
  BindSymbol(lib, "cublasCreate_v2", &a.Create, &missing);
  BindSymbol(lib, "cublasDestroy_v2", &a.Destroy, &missing);
  BindSymbol(lib, "cublasSetStream_v2", &a.SetStream, &missing);
  BindSymbol(lib, "cublasSetWorkspace_v2", &a.SetWorkspace, &missing);
  BindSymbol(lib, "cublasSetMathMode", &a.SetMathMode, &missing);
  BindSymbol(lib, "cublasSgemm_v2", &a.Sgemm, &missing);
  BindSymbol(lib, "cublasDgemm_v2", &a.Dgemm, &missing);
  BindSymbol(lib, "cublasSgemmStridedBatched", &a.SgemmStridedBatched,
             &missing);
  BindSymbol(lib, "cublasDgemmStridedBatched", &a.DgemmStridedBatched,
             &missing);
  BindSymbol(lib, "cublasSetPointerMode_v2", &a.SetPointerMode, &missing);
  if (!missing.empty()) {
    loaded->status = errors::FailedPrecondition("cuBLAS loaded from ", from,
                                                " lacks ", missing);
  }
  return loaded;
}

}  // namespace

void* OpenCudaLibrary(const char* soname, const char* env_var,
                      const std::vector<std::string>& pip_subdirs,
                      std::string* from, std::string* tried) {
  std::vector<std::string> paths;
  if (const char* lib = std::getenv(env_var); lib && *lib) {
    paths.push_back(lib);
  }
  paths.push_back(soname);  // the loader's path
  if (const char* dirs = std::getenv("TW_NVIDIA_LIB_DIRS"); dirs && *dirs) {
    const std::string all(dirs);
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(':', start);
      if (end == std::string::npos) end = all.size();
      const std::string dir = all.substr(start, end - start);
      if (!dir.empty()) {
        for (const std::string& sub : pip_subdirs) {
          paths.push_back(dir + "/" + sub + "/" + soname);
        }
        paths.push_back(dir + "/" + soname);
      }
      start = end + 1;
    }
  }
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    paths.push_back(std::string(home) + "/lib64/" + soname);
  }
  paths.push_back(std::string("/usr/local/cuda/lib64/") + soname);
  for (const std::string& path : paths) {
    if (void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      *from = path;
      return lib;
    }
    const char* why = dlerror();
    *tried += "\n  " + path + ": " + (why != nullptr ? why : "not loadable");
  }
  return nullptr;
}

Status GetCublas(const CublasApi** api) {
  static Loaded* loaded = LoadCublas();  // once; never unloaded
  TW_RETURN_IF_ERROR(loaded->status);
  *api = &loaded->api;
  return Status::OK();
}

std::string CublasStatusString(cublasStatus_t status) {
  switch (status) {
    case 0:
      return "CUBLAS_STATUS_SUCCESS";
    case 1:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case 8:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16:
      return "CUBLAS_STATUS_LICENSE_ERROR";
    default:
      return "cuBLAS status " + std::to_string(status);
  }
}

}  // namespace gpu
}  // namespace tensorweave
