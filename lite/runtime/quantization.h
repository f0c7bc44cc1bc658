// Integer arithmetic shared by the quantized kernels (QUANTIZE, DEQUANTIZE,
// DYNAMIC_QUANTIZE, QUANTIZED_BATCH_MATMUL, QUANTIZED_CONV_2D):
//  - rounding and saturation to an integer type, as ONNX QuantizeLinear
//    defines it: round half to even, then add the zero point, then clamp;
//  - an integer GEMM with int32 accumulation whose operands are 8-bit values
//    with their zero points subtracted, held as int16 (|v| <= 255), so one
//    loop serves int8 and uint8 on either side and the compiler turns the
//    inner product into multiply-add-pairs (AVX2 vpmaddwd, NEON smlal);
//  - requantization of int32 accumulators to int8/uint8 by a float
//    multiplier (one, or one per output channel): y = saturate(
//    round_half_to_even(acc * multiplier) + zero_point), in double, as
//    onnxruntime's and ONNX's reference kernels compute it (not TFLite's
//    fixed-point multiplier and shift, which rounds ties away from zero).
#ifndef TENSORWEAVE_LITE_RUNTIME_QUANTIZATION_H_
#define TENSORWEAVE_LITE_RUNTIME_QUANTIZATION_H_

#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512DQ__)
#define TWL_QUANT_AVX512 1
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "lite/runtime/status.h"
#include "lite/runtime/tensor.h"
#include "lite/runtime/vector.h"

namespace twl {

class ThreadPool;

// The largest depth K the GEMM accepts: 255 * 255 * K stays below 2^31, so
// the int32 accumulators cannot overflow.
constexpr int kMaxQuantizedDepth = 33025;

// Checks that every element of float32 `scale` is positive and finite.
Status CheckScales(const Tensor& scale, const char* what);

// saturate(round_half_to_even(v) + zero_point) in T's range; NaN gives the
// zero point, +-inf saturates.
template <typename T>
inline T RoundToQuantized(double v, int32_t zero_point) {
  constexpr double kLow = std::numeric_limits<T>::min();
  constexpr double kHigh = std::numeric_limits<T>::max();
  if (std::isnan(v)) return static_cast<T>(zero_point);
  double q = std::nearbyint(v) + zero_point;  // to nearest, ties to even
  q = q < kLow ? kLow : q;
  q = q > kHigh ? kHigh : q;
  return static_cast<T>(static_cast<int32_t>(q));
}

// dst[i] = src[i] - zero_point as int16 (8-bit src).
template <typename T>
inline void WidenSubtract(const T* src, int64_t count, int32_t zero_point,
                          int16_t* dst) {
  for (int64_t i = 0; i < count; ++i) {
    dst[i] = static_cast<int16_t>(static_cast<int32_t>(src[i]) - zero_point);
  }
}

// Where QuantizedGemmPanels' second form writes: column j's accumulators
// plus bias[j] (wrapping; bias may be null) requantized as Requantize does,
// RoundToQuantized<T>(acc * multiplier[per_column ? j : 0], zero_point),
// into out (int8, or uint8 when is_uint8) at row * out_stride + j.
struct QuantizedOutput {
  const int32_t* bias = nullptr;
  const float* multiplier = nullptr;
  bool per_column = false;
  int32_t zero_point = 0;
  bool is_uint8 = false;
  void* out = nullptr;
  int64_t out_stride = 0;
  // Every accumulator plus bias is within +-kFloatRequantizeLimit, so the
  // requantization may run in float (RequantizeFloat16) with the same
  // results.
  bool float_exact = false;
};

// The largest |accumulator| RequantizeFloat16 rounds exactly (float holds
// it exactly).
constexpr int32_t kFloatRequantizeLimit = 1 << 24;

// out[i] = RoundToQuantized<T>(acc[i] * multiplier, zero_point) over rows of
// `n` columns; multiplier[j] for column j when per_column, else
// multiplier[0]. T is int8_t or uint8_t (AVX2: four lanes of doubles at a
// time, rounded to nearest even as nearbyint does).
template <typename T>
void Requantize(const int32_t* acc, int64_t rows, int n,
                const float* multiplier, bool per_column, int32_t zero_point,
                T* out);

// y[i] = RoundToQuantized<T>((a[i] - a_zp) * a_multiplier +
// (b[i] - b_zp) * b_multiplier, y_zp) for i < n, in double (QUANTIZED_ADD;
// AVX2: eight at a time with the same products and rounding).
template <typename T>
void QuantizedAdd(const T* a, const T* b, int64_t n, int32_t a_zp, int32_t b_zp,
                  float a_multiplier, float b_multiplier, int32_t y_zp, T* y);

// The int8 kernels' instruction set: a native build's ("avx512vnni",
// "avx512", "avx2" or "generic"), or the one a portable x86-64 build
// (vector.h's TWL_MULTI_ISA) picked at run time: "avx512vnni" (AVX-512
// F, BW, VL, DQ and VNNI), else "avx2" (AVX2 and FMA), else "sse2", at
// most what $TWL_LITE_MAX_ISA allows (sse2; avx2 or avx512: "avx2"; any
// other value, or none, caps nothing). Requantize, QuantizedAdd and the
// QUANTIZED_BATCH_MATMUL and QUANTIZED_CONV_2D kernels run it.
const char* Int8KernelIsa();

// The GEMMs and requantization of twl::int8: a native build's kernels for
// its target, a portable build's baseline ones.
#if TWL_MULTI_ISA
#define TWL_INT8_AVX2 0
#define TWL_INT8_AVX512 0
#define TWL_INT8_VNNI 0
#else
#if defined(__AVX2__) && defined(__FMA__)
#define TWL_INT8_AVX2 1
#else
#define TWL_INT8_AVX2 0
#endif
#if TWL_INT8_AVX2 && defined(TWL_QUANT_AVX512)
#define TWL_INT8_AVX512 1
#else
#define TWL_INT8_AVX512 0
#endif
#if TWL_INT8_AVX512 && defined(__AVX512VNNI__)
#define TWL_INT8_VNNI 1
#else
#define TWL_INT8_VNNI 0
#endif
#endif  // TWL_MULTI_ISA
namespace int8 {
#include "lite/runtime/quantized_gemm.h"  // NOLINT(build/include)
}  // namespace int8

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_QUANTIZATION_H_
