// The GPU library's entry point for the Python loader. The library's
// registrations (the GPU device factory, the GPU kernels) are static
// initializers that ran when it was loaded; this reports whether the GPUs
// can be used.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>

namespace {

void Write(char* message, int message_len, const std::string& text) {
  if (message == nullptr || message_len <= 0) return;
  std::snprintf(message, static_cast<size_t>(message_len), "%s", text.c_str());
}

std::string Version(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

// The number of visible GPUs (0: none), or -1 when the CUDA driver cannot
// be used; `message` (message_len bytes, always NUL-terminated) says which
// GPUs, or why not.
extern "C" __attribute__((visibility("default"))) int TW_GpuPluginInit(
    char* message, int message_len) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorNoDevice) {
    cudaGetLastError();
    Write(message, message_len, "no CUDA GPU is visible");
    return 0;
  }
  if (e != cudaSuccess) {
    cudaGetLastError();
    std::string text = std::string("CUDA is not usable: ") +
                       cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
    int driver = 0, runtime = 0;
    cudaRuntimeGetVersion(&runtime);
    if (cudaDriverGetVersion(&driver) == cudaSuccess) {
      text += driver == 0 ? " (no CUDA driver is installed)"
                          : " (driver supports CUDA " + Version(driver) +
                                ", the library needs " + Version(runtime) + ")";
    }
    Write(message, message_len, text);
    return -1;
  }
  std::string text = std::to_string(count) + " GPU(s)";
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess) {
      text += std::string(i == 0 ? ": " : ", ") + p.name + " (sm_" +
              std::to_string(p.major) + std::to_string(p.minor) + ")";
    } else {
      cudaGetLastError();
    }
  }
  Write(message, message_len, text);
  return count;
}
