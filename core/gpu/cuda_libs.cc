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

// Where to look, in order (see GetCublas in cuda_libs.h).
std::vector<std::string> CublasCandidates() {
  std::vector<std::string> paths;
  if (const char* lib = std::getenv("TW_CUBLAS_LIBRARY"); lib && *lib) {
    paths.push_back(lib);
  }
  paths.push_back(kCublasSoname);  // the loader's path
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    paths.push_back(std::string(home) + "/lib64/" + kCublasSoname);
  }
  paths.push_back(std::string("/usr/local/cuda/lib64/") + kCublasSoname);
  // The nvidia-cublas pip package, under each site-packages dir the Python
  // loader lists (a colon-separated list of dirs that hold `nvidia/`).
  if (const char* dirs = std::getenv("TW_NVIDIA_LIB_DIRS"); dirs && *dirs) {
    std::string all(dirs);
    size_t start = 0;
    while (start <= all.size()) {
      size_t end = all.find(':', start);
      if (end == std::string::npos) end = all.size();
      std::string dir = all.substr(start, end - start);
      if (!dir.empty()) {
        paths.push_back(dir + "/nvidia/cu13/lib/" + kCublasSoname);
        paths.push_back(dir + "/nvidia/cublas/lib/" + kCublasSoname);
      }
      start = end + 1;
    }
  }
  return paths;
}

template <typename F>
bool Bind(void* lib, const char* symbol, F* fn, std::string* missing) {
  *fn = reinterpret_cast<F>(dlsym(lib, symbol));
  if (*fn == nullptr) {
    if (!missing->empty()) *missing += ", ";
    *missing += symbol;
    return false;
  }
  return true;
}

struct Loaded {
  CublasApi api{};
  Status status;
};

Loaded* LoadCublas() {
  auto* loaded = new Loaded();
  std::string tried;
  void* lib = nullptr;
  std::string from;
  for (const std::string& path : CublasCandidates()) {
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
        "cuBLAS (", kCublasSoname,
        ") could not be loaded; set TW_CUBLAS_LIBRARY to its path or "
        "install the nvidia-cublas package. Tried:",
        tried);
    return loaded;
  }
  CublasApi& a = loaded->api;
  std::string missing;
  Bind(lib, "cublasCreate_v2", &a.Create, &missing);
  Bind(lib, "cublasDestroy_v2", &a.Destroy, &missing);
  Bind(lib, "cublasSetStream_v2", &a.SetStream, &missing);
  Bind(lib, "cublasSetWorkspace_v2", &a.SetWorkspace, &missing);
  Bind(lib, "cublasSetMathMode", &a.SetMathMode, &missing);
  Bind(lib, "cublasSgemm_v2", &a.Sgemm, &missing);
  Bind(lib, "cublasDgemm_v2", &a.Dgemm, &missing);
  Bind(lib, "cublasSgemmStridedBatched", &a.SgemmStridedBatched, &missing);
  Bind(lib, "cublasDgemmStridedBatched", &a.DgemmStridedBatched, &missing);
  Bind(lib, "cublasSetPointerMode_v2", &a.SetPointerMode, &missing);
  if (!missing.empty()) {
    loaded->status = errors::FailedPrecondition("cuBLAS loaded from ", from,
                                                " lacks ", missing);
  }
  return loaded;
}

}  // namespace

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
