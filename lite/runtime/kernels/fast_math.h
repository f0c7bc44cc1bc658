// exp, sigmoid and tanh for optimized kernel paths: no library calls, so
// loops over them vectorize. Reference paths call the <cmath> functions.
#ifndef TENSORWEAVE_LITE_RUNTIME_KERNELS_FAST_MATH_H_
#define TENSORWEAVE_LITE_RUNTIME_KERNELS_FAST_MATH_H_

#include <algorithm>
#include <cstdint>

namespace twl {

// exp(x): x = n ln2 + r, |r| <= ln2 / 2 (about), exp(r) by Cephes'
// polynomial (relative error about 1e-7), 2^n through the exponent bits; x
// clamped above to 88. Below -87 (about ln of the smallest normal float)
// it gives 0: a subnormal result, and the subnormal products it leads to
// (a masked score's softmax probability times V), cost x86 cores tens of
// cycles an operation (an encoder with a padding mask ran its attention
// 6x slower).
inline float FastExp(float x) {
  const bool underflow = x < -87.f;
  x = std::min(88.f, std::max(-87.f, x));
  // Round to nearest by adding and subtracting 1.5 * 2^23 (std::floor
  // would keep GCC from vectorizing the loop).
  const float n = (x * 1.44269504088896341f + 12582912.f) - 12582912.f;
  float r = x - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e = p * r * r + r + 1.f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  return underflow ? 0.f : e * __builtin_bit_cast(float, bits);
}

// 1 / (1 + exp(-x)); absolute error about 1e-7.
inline float FastSigmoid(float x) { return 1.f / (1.f + FastExp(-x)); }

// tanh(x) = 1 - 2 / (exp(2x) + 1); absolute error about 2e-7.
inline float FastTanh(float x) { return 1.f - 2.f / (FastExp(2.f * x) + 1.f); }

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_KERNELS_FAST_MATH_H_
