// Kernels for more than one vector unit. A kernel is written once for a
// vector of W floats (VectorOf<W>, W = 16, 8 or 4) and run by RunKernel:
//  - a build for a fixed target (Bazel's -march=native, aarch64, an x86-64
//    build with AVX2 or AVX-512 enabled) runs W = kNativeWidth;
//  - a build for baseline x86-64 (a wheel for other machines) compiles the
//    kernel for AVX-512 (16), AVX2 (8) and SSE2 (4) and runs the widest
//    this CPU has, at most the one $TWL_LITE_MAX_ISA names (sse2 or avx2;
//    any other value, or none, caps nothing).
// Kernels compute in the width they run at: GCC lowers arithmetic on a
// vector wider than the target's through memory when one operand is a
// scalar (a portable build of 16-float kernels ran 5-20x slower). Helpers
// are inlined into each per-ISA copy, but GCC has already simplified their
// bodies for the baseline target by then: write zeroing loops with
// `#pragma GCC unroll` (else they become a memset of a stack array) and
// check the portable build's code of a new kernel.
#ifndef TENSORWEAVE_LITE_RUNTIME_VECTOR_H_
#define TENSORWEAVE_LITE_RUNTIME_VECTOR_H_

#include <cstring>

// Everything a kernel calls must be inlined into RunKernel's per-ISA copies.
#define TWL_KERNEL_INLINE inline __attribute__((always_inline))

#if defined(__x86_64__) && !defined(__AVX512F__) && !defined(__AVX2__)
#define TWL_MULTI_ISA 1
#else
#define TWL_MULTI_ISA 0
#endif

namespace twl {

// A vector of W floats (GCC ignores vector_size on a typedef that depends
// on a template parameter, so each width is spelled out).
template <int W>
struct VectorOf;
template <>
struct VectorOf<16> {
  typedef float type __attribute__((vector_size(64)));
};
template <>
struct VectorOf<8> {
  typedef float type __attribute__((vector_size(32)));
};
template <>
struct VectorOf<4> {
  typedef float type __attribute__((vector_size(16)));
};

template <int W>
TWL_KERNEL_INLINE typename VectorOf<W>::type LoadVector(const float* p) {
  typename VectorOf<W>::type v;
  memcpy(&v, p, sizeof(v));
  return v;
}

// x in every lane. (0 + x, which turns -0 into +0, no caller minds; the
// exact x - 0 was built lane by lane once inlined into a wider target's
// function.) Vector-scalar arithmetic broadcasts the scalar too: prefer it
// in inner loops.
template <int W>
TWL_KERNEL_INLINE typename VectorOf<W>::type Splat(float x) {
  return typename VectorOf<W>::type{} + x;
}

// x clamped to [lo, hi] lane by lane (a NaN lane stays NaN).
template <typename V>
TWL_KERNEL_INLINE V Clamp(V x, V lo, V hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

#if defined(__AVX512F__)
constexpr int kNativeWidth = 16;
#elif defined(__AVX__)
constexpr int kNativeWidth = 8;
#else
constexpr int kNativeWidth = 4;  // SSE2, NEON
#endif

// The width RunKernel runs at, and its instruction set's name: "avx512",
// "avx2", "sse2" or "neon".
int KernelWidth();
const char* KernelIsa();

#if TWL_MULTI_ISA
template <typename Op, typename... Args>
__attribute__((target("avx512f,avx512vl,avx2,fma"), noinline)) void RunAvx512(
    Args... args) {
  Op::template Run<16>(args...);
}
template <typename Op, typename... Args>
__attribute__((target("avx2,fma"), noinline)) void RunAvx2(Args... args) {
  Op::template Run<8>(args...);
}
template <typename Op, typename... Args>
__attribute__((noinline)) void RunSse2(Args... args) {
  Op::template Run<4>(args...);
}
#else
template <typename Op, typename... Args>
__attribute__((noinline)) void RunNative(Args... args) {
  Op::template Run<kNativeWidth>(args...);
}
#endif

// Runs Op::Run<W>(args...) at KernelWidth(), in a function of its own
// compiled for that width's instruction set. Op::Run and what it calls are
// TWL_KERNEL_INLINE.
template <typename Op, typename... Args>
inline void RunKernel(Args... args) {
#if TWL_MULTI_ISA
  switch (KernelWidth()) {
    case 16:
      return RunAvx512<Op>(args...);
    case 8:
      return RunAvx2<Op>(args...);
    default:
      return RunSse2<Op>(args...);
  }
#else
  RunNative<Op>(args...);
#endif
}

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_VECTOR_H_
