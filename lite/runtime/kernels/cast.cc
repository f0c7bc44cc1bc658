// CAST between any two of the 12 element types (the output tensor's type).
//
// Each value widens exactly to a canonical type (float for float16/32,
// double for float64, int64 for the signed integers and bool, uint64 for the
// unsigned ones) and narrows from it to the output type, so the code is 12
// widening loops and 12 x 4 narrowing loops rather than 12 x 12 conversions.
// Every step is the direct conversion's rounding:
//   float -> float16: IEEE round to nearest even, with subnormals, Inf, NaN;
//   float -> narrower float: round to nearest even (C++ conversion);
//   integer -> float: round to nearest even from the exact integer;
//   float -> integer: truncation toward zero, saturating at the type's
//     limits, NaN -> 0 (ONNX leaves out-of-range values undefined; numpy's
//     answers are the platform's);
//   integer -> integer: wraps modulo 2^bits (numpy's astype);
//   anything -> bool: x != 0 (NaN is true).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

// IEEE binary16 bits -> float (exact).
float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t magnitude = h & 0x7fff;
  uint32_t bits;
  if (magnitude >= 0x7c00) {  // Inf, NaN (payload kept)
    bits = sign | 0x7f800000 | ((magnitude & 0x3ff) << 13);
  } else if (magnitude >= 0x0400) {  // normal: rebias the exponent
    bits = sign | ((magnitude + ((127 - 15) << 10)) << 13);
  } else {  // subnormal (or zero): magnitude * 2^-24 is exact in float
    const float f = static_cast<float>(magnitude) * 0x1p-24f;
    std::memcpy(&bits, &f, 4);
    bits |= sign;
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

inline uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}
inline float BitsFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// float -> IEEE binary16 bits, rounded to nearest even, without branches
// (Maratyszcza's FP16 library): scaling by 2^112 * 2^-110 lets the float
// unit's own rounding to nearest even round at the half's precision (normal
// and subnormal alike) and overflow to Inf; NaN becomes a quiet NaN.
inline uint16_t FloatToHalf(float f) {
  float base = (std::fabs(f) * 0x1.0p+112f) * 0x1.0p-110f;
  const uint32_t w = FloatBits(f);
  const uint32_t shl1_w = w + w;
  const uint32_t sign = w & 0x80000000u;
  uint32_t bias = shl1_w & 0xff000000u;
  if (bias < 0x71000000u) bias = 0x71000000u;
  base = BitsFloat((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = FloatBits(base);
  const uint32_t exp_bits = (bits >> 13) & 0x00007c00u;
  const uint32_t mantissa_bits = bits & 0x00000fffu;
  const uint32_t nonsign = exp_bits + mantissa_bits;
  return static_cast<uint16_t>((sign >> 16) |
                               (shl1_w > 0xff000000u ? 0x7e00u : nonsign));
}

// double -> IEEE binary16 bits, rounded to nearest even (once: rounding
// through float could round twice).
uint16_t DoubleToHalf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  const uint16_t sign = static_cast<uint16_t>((bits >> 48) & 0x8000);
  const uint64_t magnitude = bits & 0x7fffffffffffffffULL;
  if (magnitude > 0x7ff0000000000000ULL) {  // NaN: quiet, top payload bits
    return sign | 0x7e00 | static_cast<uint16_t>((magnitude >> 42) & 0x3ff);
  }
  if (magnitude >= 0x40effe0000000000ULL) return sign | 0x7c00;  // >= 65520
  const int exponent = static_cast<int>(magnitude >> 52) - 1023;
  if (exponent < -25) return sign;  // below half the smallest subnormal
  // value = significand * 2^(exponent - 52); the result's unit is
  // 2^(exponent - 10) for a normal half, 2^-24 for a subnormal one.
  const uint64_t significand = (magnitude & ((1ULL << 52) - 1)) | (1ULL << 52);
  const int shift = exponent >= -14 ? 42 : 28 - exponent;  // 42..53
  uint64_t q = significand >> shift;
  const uint64_t rest = significand & ((1ULL << shift) - 1);
  const uint64_t halfway = 1ULL << (shift - 1);
  if (rest > halfway || (rest == halfway && (q & 1))) ++q;
  // A carry out of the significand (q == 2048, or 1024 for a subnormal)
  // moves into the exponent field as it should.
  const uint64_t out = exponent >= -14 ? ((exponent + 15) << 10) + q - 1024 : q;
  return sign | static_cast<uint16_t>(out);
}

struct Half {  // float16 storage
  uint16_t bits;
};

template <typename F>
Status DispatchCastType(DataType type, F&& f) {
  switch (type) {
    case DataType::kBool:
      return f(bool{});
    case DataType::kFloat16:
      return f(Half{});
    default:
      return DispatchAllNumeric(type, "CAST", static_cast<F&&>(f));
  }
}

// The type a value widens to exactly.
template <typename T>
using Canonical = typename std::conditional<
    std::is_same<T, float>::value || std::is_same<T, Half>::value, float,
    typename std::conditional<
        std::is_same<T, double>::value, double,
        typename std::conditional<std::is_signed<T>::value ||
                                      std::is_same<T, bool>::value,
                                  int64_t, uint64_t>::type>::type>::type;

inline float Widen(Half h) { return HalfToFloat(h.bits); }
template <typename T>
inline Canonical<T> Widen(T v) {
  return static_cast<Canonical<T>>(v);
}

template <typename To, typename C>
inline To Narrow(C v) {
  if constexpr (std::is_same<To, bool>::value) {
    return v != C(0);
  } else if constexpr (std::is_same<To, Half>::value) {
    // An integer rounds to float first: exact up to 2^24, and any larger
    // integer overflows float16 either way.
    if constexpr (std::is_same<C, double>::value) {
      return Half{DoubleToHalf(v)};
    } else {
      return Half{FloatToHalf(static_cast<float>(v))};
    }
  } else if constexpr (std::is_floating_point<C>::value &&
                       std::is_integral<To>::value) {
    if (!(v == v)) return To(0);  // NaN
    if (v <= static_cast<C>(std::numeric_limits<To>::min())) {
      return std::numeric_limits<To>::min();
    }
    if (v >= static_cast<C>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(v);
  } else {
    return static_cast<To>(v);  // integers wrap; floats round
  }
}

template <typename C>
void NarrowAll(DataType to, const C* in, void* out, int64_t n) {
  DispatchCastType(to, [&](auto zero) {
    using To = decltype(zero);
    To* o = static_cast<To*>(out);
    for (int64_t i = 0; i < n; ++i) o[i] = Narrow<To>(in[i]);
    return Status::Ok();
  });
}

// Converts elements [begin, end) in chunks through a canonical buffer.
void ConvertRange(DataType from, DataType to, const void* in, void* out,
                  int64_t begin, int64_t end) {
  constexpr int64_t kChunk = 256;
  const size_t out_size = DataTypeSize(to);
  DispatchCastType(from, [&](auto zero) {
    using From = decltype(zero);
    using C = Canonical<From>;
    C buffer[kChunk];
    const From* src = static_cast<const From*>(in);
    for (int64_t b = begin; b < end; b += kChunk) {
      const int64_t n = end - b < kChunk ? end - b : kChunk;
      for (int64_t i = 0; i < n; ++i) buffer[i] = Widen(src[b + i]);
      NarrowAll(to, buffer, static_cast<char*>(out) + b * out_size, n);
    }
    return Status::Ok();
  });
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  return context->ResizeTensor(context->output(*node, 0), input->shape);
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const int64_t n = input->num_elements();
  if (input->type == output->type) {
    if (n > 0) std::memcpy(output->data, input->data, output->bytes);
    return Status::Ok();
  }
  auto run = [&](int64_t b, int64_t e) {
    ConvertRange(input->type, output->type, input->data, output->data, b, e);
  };
  if (context->use_reference()) {
    run(0, n);
  } else {
    context->thread_pool()->ParallelFor(
        n, 32768, context->thread_pool()->num_threads(), run);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_CAST() {
  return {BuiltinOperator::CAST, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
