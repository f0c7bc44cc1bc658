#include "lite/runtime/vector.h"

#include <cstdlib>

namespace twl {
namespace {

int PickWidth() {
#if TWL_MULTI_ISA
  __builtin_cpu_init();
  const char* cap = getenv("TWL_LITE_MAX_ISA");
  const bool sse2_only = cap != nullptr && strcmp(cap, "sse2") == 0;
  const bool avx2_max = cap != nullptr && strcmp(cap, "avx2") == 0;
  if (!sse2_only && !avx2_max && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512vl")) {
    return 16;
  }
  if (!sse2_only && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma")) {
    return 8;
  }
  return 4;
#else
  return kNativeWidth;
#endif
}

}  // namespace

int KernelWidth() {
  static const int width = PickWidth();
  return width;
}

const char* KernelIsa() {
  switch (KernelWidth()) {
    case 16:
      return "avx512";
    case 8:
#if !TWL_MULTI_ISA && !defined(__AVX2__)
      return "avx";
#else
      return "avx2";
#endif
    default:
#if defined(__aarch64__)
      return "neon";
#else
      return "sse2";
#endif
  }
}

}  // namespace twl
