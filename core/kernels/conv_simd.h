// Vector helpers shared by the convolution algorithms (conv_im2col.cc,
// conv_direct.cc): 64-byte vectors and copies/additions of run-time length.
#ifndef TENSORWEAVE_CORE_KERNELS_CONV_SIMD_H_
#define TENSORWEAVE_CORE_KERNELS_CONV_SIMD_H_

#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tensorweave {
namespace conv_internal {

// A SIMD vector of 64 bytes (16 floats, 8 doubles): one AVX-512 register,
// two AVX2 registers elsewhere.
template <typename T>
struct Simd {
  typedef T Vec __attribute__((vector_size(64)));
  static constexpr int kLanes = 64 / sizeof(T);
  static Vec Load(const T* p) {
    Vec v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(T* p, Vec v) { std::memcpy(p, &v, sizeof(v)); }
};

// dst[i] = src[i] and dst[i] += src[i] for i < n, a vector at a time (the
// -O2 build does not vectorize loops of run-time length); the tail with a
// masked vector where AVX-512 has one.
template <typename T>
inline void CopyValues(T* dst, const T* src, int64_t n) {
  using S = Simd<T>;
  int64_t i = 0;
  for (; i + S::kLanes <= n; i += S::kLanes)
    S::Store(dst + i, S::Load(src + i));
  if (i == n) return;
#ifdef __AVX512F__
  const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
  if constexpr (std::is_same_v<T, float>) {
    _mm512_mask_storeu_ps(dst + i, mask, _mm512_maskz_loadu_ps(mask, src + i));
  } else {
    _mm512_mask_storeu_pd(
        dst + i, static_cast<__mmask8>(mask),
        _mm512_maskz_loadu_pd(static_cast<__mmask8>(mask), src + i));
  }
#else
  for (; i < n; ++i) dst[i] = src[i];
#endif
}
template <typename T>
inline void AddValues(T* dst, const T* src, int64_t n) {
  using S = Simd<T>;
  int64_t i = 0;
  for (; i + S::kLanes <= n; i += S::kLanes) {
    S::Store(dst + i, S::Load(dst + i) + S::Load(src + i));
  }
  if (i == n) return;
#ifdef __AVX512F__
  const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
  if constexpr (std::is_same_v<T, float>) {
    const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, dst + i),
                                     _mm512_maskz_loadu_ps(mask, src + i));
    _mm512_mask_storeu_ps(dst + i, mask, sum);
  } else {
    const __mmask8 m8 = static_cast<__mmask8>(mask);
    const __m512d sum = _mm512_add_pd(_mm512_maskz_loadu_pd(m8, dst + i),
                                      _mm512_maskz_loadu_pd(m8, src + i));
    _mm512_mask_storeu_pd(dst + i, m8, sum);
  }
#else
  for (; i < n; ++i) dst[i] += src[i];
#endif
}

}  // namespace conv_internal
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_CONV_SIMD_H_
