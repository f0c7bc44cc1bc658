// QUANTIZED_BATCH_MATMUL and QUANTIZED_CONV_2D (quantized_products_impl.h)
// and the int8 GEMMs and requantization (quantized_gemm_impl.h) for each
// instruction set, and the run-time choice among them (Int8KernelIsa in
// quantization.h). A native build compiles them once, for its target
// (namespace twl::int8). A portable x86-64 build (vector.h's
// TWL_MULTI_ISA) compiles them for baseline x86-64 (twl::int8) and, under
// `#pragma GCC target`, for AVX2 (twl::int8_avx2) and AVX-512 with VNNI
// (twl::int8_vnni); an AVX-512 CPU without VNNI runs the AVX2 ones (a
// variant for it added 108 KB to the library for little). Everything they
// use from other headers is included before the pragmas, so the inline
// functions GCC emits out of line are baseline code, and each variant's
// own code has its own namespace: no two variants share a symbol. The VNNI
// variant's int16 GEMMs, Requantize and QuantizedAdd forward to the AVX2
// variant's (TWL_INT8_GEMM_FROM_AVX2): the same 256-bit code, compiled once.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/quantization.h"
#include "lite/runtime/thread_pool.h"

// The variants need GCC's `#pragma GCC target`: a clang build (the
// fuzzer's) compiles the baseline kernels only.
#if TWL_MULTI_ISA && !defined(__clang__)
#define TWL_INT8_VARIANTS 1
#else
#define TWL_INT8_VARIANTS 0
#endif

namespace twl {
namespace int8 {
// (quantization.h declared twl::int8's GEMMs.)
#include "lite/runtime/kernels/quantized_products_impl.h"  // NOLINT
#include "lite/runtime/quantized_gemm_impl.h"              // NOLINT
}  // namespace int8
}  // namespace twl

#if TWL_INT8_VARIANTS
#undef TWL_INT8_AVX2
#undef TWL_INT8_AVX512
#undef TWL_INT8_VNNI
#define TWL_INT8_AVX2 1
#define TWL_INT8_AVX512 0
#define TWL_INT8_VNNI 0
#pragma GCC push_options
#pragma GCC target("avx2,fma")
namespace twl {
namespace int8_avx2 {
// The declarations,
#include "lite/runtime/quantized_gemm.h"  // NOLINT
// the kernels
#include "lite/runtime/kernels/quantized_products_impl.h"  // NOLINT
// and the GEMMs.
#include "lite/runtime/quantized_gemm_impl.h"  // NOLINT
}  // namespace int8_avx2
}  // namespace twl
#pragma GCC pop_options

#undef TWL_INT8_AVX512
#define TWL_INT8_AVX512 1
#undef TWL_INT8_VNNI
#define TWL_INT8_VNNI 1
// Its int16 GEMMs, requantization and addition are the AVX2 variant's.
#define TWL_INT8_GEMM_FROM_AVX2 1
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512vnni,avx2,fma")
namespace twl {
namespace int8_vnni {
// The declarations,
#include "lite/runtime/quantized_gemm.h"  // NOLINT
// the kernels
#include "lite/runtime/kernels/quantized_products_impl.h"  // NOLINT
// and the GEMMs.
#include "lite/runtime/quantized_gemm_impl.h"  // NOLINT
}  // namespace int8_vnni
}  // namespace twl
#undef TWL_INT8_GEMM_FROM_AVX2
#pragma GCC pop_options
#endif  // TWL_INT8_VARIANTS

namespace twl {
namespace {

enum class Int8Isa { kBase, kAvx2, kVnni };

Int8Isa PickInt8Isa() {
#if TWL_INT8_VARIANTS
  __builtin_cpu_init();
  const char* cap = getenv("TWL_LITE_MAX_ISA");
  const auto capped = [cap](const char* isa) {
    return cap != nullptr && strcmp(cap, isa) == 0;
  };
  if (capped("sse2")) return Int8Isa::kBase;
  const bool avx2 =
      __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2 && !capped("avx2") && !capped("avx512") &&
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vnni")) {
    return Int8Isa::kVnni;
  }
  if (avx2) return Int8Isa::kAvx2;
#endif
  return Int8Isa::kBase;
}

Int8Isa PickedInt8Isa() {
  static const Int8Isa isa = PickInt8Isa();
  return isa;
}

}  // namespace

const char* Int8KernelIsa() {
#if TWL_MULTI_ISA
  switch (PickedInt8Isa()) {
    case Int8Isa::kVnni:
      return "avx512vnni";
    case Int8Isa::kAvx2:
      return "avx2";
    default:
      return "sse2";
  }
#else
  return TWL_INT8_VNNI     ? "avx512vnni"
         : TWL_INT8_AVX512 ? "avx512"
         : TWL_INT8_AVX2   ? "avx2"
                           : "generic";
#endif
}

// Calls int8_<variant>::F(args...) for the picked variant.
#if TWL_INT8_VARIANTS
#define TWL_INT8_CALL(F, ...)           \
  switch (PickedInt8Isa()) {            \
    case Int8Isa::kVnni:                \
      return int8_vnni::F(__VA_ARGS__); \
    case Int8Isa::kAvx2:                \
      return int8_avx2::F(__VA_ARGS__); \
    default:                            \
      return int8::F(__VA_ARGS__);      \
  }
#else
#define TWL_INT8_CALL(F, ...) return int8::F(__VA_ARGS__);
#endif

template <typename T>
void Requantize(const int32_t* acc, int64_t rows, int n,
                const float* multiplier, bool per_column, int32_t zero_point,
                T* out) {
  TWL_INT8_CALL(Requantize<T>, acc, rows, n, multiplier, per_column, zero_point,
                out)
}

template void Requantize<int8_t>(const int32_t*, int64_t, int, const float*,
                                 bool, int32_t, int8_t*);
template void Requantize<uint8_t>(const int32_t*, int64_t, int, const float*,
                                  bool, int32_t, uint8_t*);

template <typename T>
void QuantizedAdd(const T* a, const T* b, int64_t n, int32_t a_zp, int32_t b_zp,
                  float a_multiplier, float b_multiplier, int32_t y_zp, T* y) {
  TWL_INT8_CALL(QuantizedAdd<T>, a, b, n, a_zp, b_zp, a_multiplier,
                b_multiplier, y_zp, y)
}

template void QuantizedAdd<int8_t>(const int8_t*, const int8_t*, int64_t,
                                   int32_t, int32_t, float, float, int32_t,
                                   int8_t*);
template void QuantizedAdd<uint8_t>(const uint8_t*, const uint8_t*, int64_t,
                                    int32_t, int32_t, float, float, int32_t,
                                    uint8_t*);

KernelRegistration Register_QUANTIZED_BATCH_MATMUL(){
    TWL_INT8_CALL(QuantizedBatchMatMul)}

KernelRegistration Register_QUANTIZED_CONV_2D() {
  TWL_INT8_CALL(QuantizedConv2D)
}

#undef TWL_INT8_CALL

}  // namespace twl
