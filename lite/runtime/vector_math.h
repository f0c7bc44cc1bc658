// erf, exp and GELU on whole vectors (vector.h's VectorOf<W>::type), for
// kernels run through RunKernel: the GEMM's fused epilogue and the GELU
// kernel. Everything is TWL_KERNEL_INLINE arithmetic on GCC vector types, so
// each per-ISA copy computes in its own width. Lanes that are NaN stay NaN.
#ifndef TENSORWEAVE_LITE_RUNTIME_VECTOR_MATH_H_
#define TENSORWEAVE_LITE_RUNTIME_VECTOR_MATH_H_

#include <cstring>

#include "lite/runtime/vector.h"

namespace twl {

constexpr float kGeluSqrtHalf = 0.70710678118654752f;
constexpr float kGeluSqrtTwoOverPi = 0.79788456080286536f;

// erf(x) = x P(x^2) / Q(x^2) on [-4, 4] (clamped; erf(4) is 1 in float):
// the rational approximation of Eigen and XLA, |error| < 2e-7.
template <typename V>
TWL_KERNEL_INLINE V ErfVector(V x) {
  x = Clamp(x, V{} - 4.f, V{} + 4.f);
  const V x2 = x * x;
  V p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
  p = p * x2 + -2.10102402082508e-06f;
  p = p * x2 + -5.69250639462346e-05f;
  p = p * x2 + -7.34990630326855e-04f;
  p = p * x2 + -2.95459980854025e-03f;
  p = p * x2 + -1.60960333262415e-02f;
  V q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
  q = q * x2 + -1.68282697438203e-03f;
  q = q * x2 + -7.37332916720468e-03f;
  q = q * x2 + -1.42647390514189e-02f;
  return x * p / q;
}

// exp(x) as fast_math.h's FastExp: x = n ln2 + r, Cephes' polynomial for
// exp(r) (relative error about 1e-7), 2^n through the exponent bits; x
// clamped to the normal range.
template <typename V>
TWL_KERNEL_INLINE V ExpVector(V x) {
  typedef decltype(x < x) Int;  // 32-bit integer lanes, as many
  x = Clamp(x, V{} - 87.f, V{} + 88.f);
  const V n = (x * 1.44269504088896341f + 12582912.f) - 12582912.f;
  V r = x - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  V p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const V e = p * r * r + r + 1.f;
  const Int bits = (__builtin_convertvector(n, Int) + 127) << 23;
  V scale;
  memcpy(&scale, &bits, sizeof(scale));
  return e * scale;
}

// GELU: x Phi(x) = 0.5 x (1 + erf(x / sqrt(2))).
template <typename V>
TWL_KERNEL_INLINE V GeluVector(V x) {
  return x * 0.5f * (ErfVector(x * kGeluSqrtHalf) + 1.f);
}

// GELU's tanh form: 0.5 x (1 + tanh(u)), u = sqrt(2 / pi) (x + 0.044715
// x^3), computed as x / (1 + exp(-2u)): no cancellation in 1 + tanh(u)
// where tanh(u) is near -1.
template <typename V>
TWL_KERNEL_INLINE V GeluTanhVector(V x) {
  const V u = (x * x * 0.044715f + 1.f) * x * kGeluSqrtTwoOverPi;
  return x / (ExpVector(u * -2.f) + 1.f);
}

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_VECTOR_MATH_H_
