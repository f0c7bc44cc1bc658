// The packed GEMM against the reference triple loop over many shapes
// (tails in M, N and K), strides, bias modes and clamps.
#include "lite/runtime/gemm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "lite/runtime/thread_pool.h"
#include "lite/runtime/vector.h"

namespace twl {
namespace {

// C = clamp(A B^T + bias [+ residual]) [then the curve] against the
// reference, C row- or column-major; the tolerance grows with k.
void Check(int m, int n, int k, bool per_row, bool transposed_c,
           ThreadPool* pool, bool descending = false, bool residual = false,
           GemmCurve curve = GemmCurve::kNone) {
  std::mt19937 rng(m * 131 + n * 7 + k + 3 * residual);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<float> a(m * k), b(n * k), bias(per_row ? m : n), added(m * n);
  for (float& v : a) v = dist(rng);
  for (float& v : b) v = dist(rng);
  for (float& v : bias) v = dist(rng);
  for (float& v : added) v = 4 * dist(rng);
  AlignedFloats packed;
  ASSERT_TRUE(packed.Resize(PackedGemmBSize(n, k)));
  PackGemmB(b.data(), n, k, k, packed.data());
  GemmEpilogue e;
  e.bias = bias.data();
  e.bias_per_row = per_row;
  e.residual = residual ? added.data() : nullptr;
  e.low = -2.f;
  e.high = 2.5f;
  e.curve = curve;
  int64_t rs = transposed_c ? 1 : n, cs = transposed_c ? m : 1;
  std::vector<float> c(m * n, NAN), ref(m * n, NAN);
  Gemm(m, n, k, a.data(), k, packed.data(), c.data(), rs, cs, e, pool,
       descending);
  GemmReference(m, n, k, a.data(), k, b.data(), k, ref.data(), rs, cs, e);
  const float tolerance = 1e-4f * std::max(1, k / 256);
  for (int i = 0; i < m * n; ++i) {
    ASSERT_NEAR(c[i], ref[i], tolerance + 1e-4f * std::fabs(ref[i]))
        << "m=" << m << " n=" << n << " k=" << k << " i=" << i;
  }
}

TEST(GemmTest, MatchesReference) {
  ThreadPool pool(2);
  // N = 8, 24, 40: a tail of exactly half a panel (the half-panel kernel,
  // its epilogue fused); M = 12, 24: whole groups of its rows only.
  for (int m : {1, 2, 3, 5, 8, 9, 12, 17, 24, 64}) {
    for (int n : {1, 6, 8, 16, 17, 24, 40, 130}) {
      for (int k : {1, 3, 25, 150}) {
        Check(m, n, k, false, false, &pool);
        Check(m, n, k, true, true, nullptr);
      }
    }
  }
}

// Inner dimensions past 2 x kGemmSlice run in slices, each added to C by
// the residual epilogue: the bias (per column or per row) with the first,
// a fused residual too, the clamp and curve with the last; C laid out
// either way, the last slice shorter or not.
TEST(GemmTest, SlicedInnerDimensionMatchesReference) {
  ThreadPool pool(2);
  for (int k : {2 * kGemmSlice + 1, 700, 3 * kGemmSlice, 1100}) {
    for (int m : {1, 5, 13, 49}) {
      for (int n : {16, 17, 40}) {
        for (int variant = 0; variant < 4; ++variant) {
          Check(m, n, k, variant & 1, variant & 2,
                variant == 1 ? nullptr : &pool, false, true,
                variant == 3 ? GemmCurve::kGelu : GemmCurve::kNone);
        }
      }
    }
  }
}

TEST(GemmTest, DescendingPanelOrderOnEveryThreadMatchesReference) {
  // Large enough to be split by columns over the pool; N with a tail panel.
  ThreadPool pool(2);
  for (int m : {1, 3, 8}) {
    for (bool descending : {false, true}) {
      Check(m, 520, 784, false, false, &pool, descending);
      Check(m, 520, 784, false, false, nullptr, descending);
    }
  }
}

// The portable builds of this test (BUILD) each ask for one kernel set.
TEST(GemmTest, RunsTheKernelSetAsked) {
  const char* asked = getenv("TWL_LITE_MAX_ISA");
  if (asked == nullptr) GTEST_SKIP() << "a native build";
#if defined(__x86_64__)
  const bool supported =
      strncmp(asked, "avx512", 6) == 0 ? __builtin_cpu_supports("avx512vl")
      : strcmp(asked, "avx2") == 0     ? __builtin_cpu_supports("avx2")
                                       : true;
  if (!supported) GTEST_SKIP() << "this CPU lacks " << asked;
  // avx512vnni (the int8 kernels' widest set) caps nothing here.
  EXPECT_STREQ(KernelIsa(),
               strcmp(asked, "avx512vnni") == 0 ? "avx512" : asked);
#endif
}

TEST(GemmTest, PackTransposedEqualsPackOfTranspose) {
  int n = 19, k = 7;
  std::vector<float> b(n * k), bt(n * k);
  for (int i = 0; i < n * k; ++i) b[i] = static_cast<float>(i);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) bt[j * n + i] = b[i * k + j];
  std::vector<float> p1(PackedGemmBSize(n, k)), p2(PackedGemmBSize(n, k));
  PackGemmB(b.data(), n, k, k, p1.data());
  PackGemmBTransposed(bt.data(), n, k, n, p2.data());
  EXPECT_EQ(p1, p2);
}

}  // namespace
}  // namespace twl
