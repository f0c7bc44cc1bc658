#include "lite/runtime/quantization.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

TEST(QuantizationTest, RoundsHalfToEvenThenAddsTheZeroPoint) {
  EXPECT_EQ(RoundToQuantized<int8_t>(0.5, 0), 0);
  EXPECT_EQ(RoundToQuantized<int8_t>(1.5, 0), 2);
  EXPECT_EQ(RoundToQuantized<int8_t>(2.5, 0), 2);
  EXPECT_EQ(RoundToQuantized<int8_t>(-2.5, 0), -2);
  EXPECT_EQ(RoundToQuantized<int8_t>(-1.5, 0), -2);
  // Rounded before the zero point is added: 2.5 -> 2, + 1 = 3 (not 4).
  EXPECT_EQ(RoundToQuantized<uint8_t>(2.5, 1), 3);
  EXPECT_EQ(RoundToQuantized<uint8_t>(2.4999, 1), 3);
  EXPECT_EQ(RoundToQuantized<uint8_t>(2.5001, 1), 4);
}

TEST(QuantizationTest, Saturates) {
  EXPECT_EQ(RoundToQuantized<int8_t>(127.6, 0), 127);
  EXPECT_EQ(RoundToQuantized<int8_t>(-200, 0), -128);
  EXPECT_EQ(RoundToQuantized<int8_t>(120, 20), 127);
  EXPECT_EQ(RoundToQuantized<uint8_t>(-3, 2), 0);
  EXPECT_EQ(RoundToQuantized<uint16_t>(70000, 0), 65535);
  EXPECT_EQ(RoundToQuantized<int16_t>(-1e30, 0), -32768);
  EXPECT_EQ(RoundToQuantized<int32_t>(1e30, 0), 2147483647);
  EXPECT_EQ(RoundToQuantized<uint8_t>(INFINITY, 0), 255);
  EXPECT_EQ(RoundToQuantized<uint8_t>(-INFINITY, 7), 0);
  EXPECT_EQ(RoundToQuantized<uint8_t>(NAN, 7), 7);  // NaN: the zero point
}

TEST(QuantizationTest, CheckScalesRefusesZeroNegativeNanAndInfinity) {
  for (float bad : {0.f, -1.f, NAN, INFINITY}) {
    float values[2] = {0.5f, bad};
    Tensor t;
    t.type = DataType::kFloat32;
    t.shape = Shape{2};
    t.data = values;
    t.name = "s";
    Status s = CheckScales(t, "scale");
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(std::string(s.message()).find("element 1"), std::string::npos)
        << s.message();
  }
  float good[1] = {1e-30f};
  Tensor t;
  t.shape = Shape{1};
  t.data = good;
  EXPECT_TRUE(CheckScales(t, "scale").ok());
}

TEST(QuantizationTest, GemmMatchesNaiveProductsOnThreads) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> value(-255, 255);
  for (int k : {1, 7, 16, 33, 300}) {
    const int m = 9, n = 23;
    std::vector<int16_t> lhs(m * k), rhs(n * k);
    for (auto& v : lhs) v = value(rng);
    for (auto& v : rhs) v = value(rng);
    std::vector<int32_t> out(m * (n + 3), -1);
    ThreadPool pool(3);
    int8::QuantizedGemm(lhs.data(), rhs.data(), m, n, k, out.data(), n + 3,
                        &pool);
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < n; ++j) {
        int64_t want = 0;
        for (int kk = 0; kk < k; ++kk)
          want += lhs[i * k + kk] * rhs[j * k + kk];
        ASSERT_EQ(out[i * (n + 3) + j], want) << i << "," << j << " k=" << k;
      }
      ASSERT_EQ(out[i * (n + 3) + n], -1);  // past n: untouched
    }
  }
}

// The panel GEMM (AVX2 builds) over edge sizes: rows not a multiple of the
// 4-row block nor of the chunk (several chunks at small depth), columns
// past a panel's 8 and a block's 16, odd depths, the extremes of the
// operands, on threads and without.
TEST(QuantizationTest, PanelGemmMatchesNaiveProductsAtEdges) {
  if (!int8::kPanelGemm) GTEST_SKIP() << "no panel GEMM in this build";
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> value(-255, 255);
  struct Case {
    int m, n, k;
  } cases[] = {{1, 1, 1},     {3, 9, 3},      {5, 17, 7},
               {9, 23, 33},   {4, 16, 2},     {7, 40, 301},
               {13, 8, 4608}, {2100, 33, 27}, {70, 130, 64}};
  for (const Case& c : cases) {
    const int m = c.m, n = c.n, k = c.k;
    std::vector<int16_t> lhs(int64_t{m} * k + 1), rhs(int64_t{n} * k);
    for (auto& v : lhs) v = value(rng);
    for (auto& v : rhs) v = value(rng);
    lhs[0] = rhs[0] = -255;  // the extremes multiply exactly
    if (k > 1) lhs[1] = rhs[1] = 255;
    std::vector<int16_t> panels(int8::PanelSize(n, k));
    int8::PackPanels(rhs.data(), n, k, panels.data());
    ThreadPool pool(3);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      std::vector<int32_t> out(int64_t{m} * (n + 3), -1);
      int8::QuantizedGemmPanels(lhs.data(), panels.data(), m, n, k, out.data(),
                                n + 3, p);
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < n; ++j) {
          int64_t want = 0;
          for (int kk = 0; kk < k; ++kk)
            want += lhs[int64_t{i} * k + kk] * rhs[int64_t{j} * k + kk];
          ASSERT_EQ(out[int64_t{i} * (n + 3) + j], want)
              << i << "," << j << " m=" << m << " n=" << n << " k=" << k;
        }
        ASSERT_EQ(out[int64_t{i} * (n + 3) + n], -1);  // past n: untouched
      }
    }
  }
}

TEST(QuantizationTest, GemmAtTheLargestDepthDoesNotOverflow) {
  const int k = kMaxQuantizedDepth;
  std::vector<int16_t> a(k, -255), b(k, -255);
  int32_t out = 0;
  int8::QuantizedGemm(a.data(), b.data(), 1, 1, k, &out, 1, nullptr);
  EXPECT_EQ(out, int64_t{255} * 255 * k);
}

TEST(QuantizationTest, RequantizesPerColumn) {
  const int32_t acc[4] = {10, -10, 7, 1000};
  const float multiplier[2] = {0.25f, 0.5f};
  int8_t out[4];
  Requantize<int8_t>(acc, 2, 2, multiplier, true, 3, out);
  // 2.5 -> 2, -5 -> -5, 1.75 -> 2, 500 saturates.
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[1], -2);
  EXPECT_EQ(out[2], 5);
  EXPECT_EQ(out[3], 127);
}

// The vector requantization (eight at a time) against RoundToQuantized at
// the edges: products past int32 either way (multiplier 1e10 with the
// largest accumulators), just past the cap of 32767 and T's range, ties
// to even on both signs, the largest zero points; per column and not.
template <typename T>
void CheckRequantizeEdges() {
  const int32_t accs[] = {INT32_MAX, INT32_MIN, 0,    1,     -1,    3,
                          -3,        5,         -5,   65534, 65535, -65536,
                          -65537,    255,       -255, 511,   -511,  1 << 20};
  const float multipliers[] = {1e10f, 0.5f, 1.0f, 0.25f, 3e-10f, 1.5f};
  const int32_t zps[] = {std::numeric_limits<T>::min(),
                         std::numeric_limits<T>::max(), 0};
  const int n = 24;  // three vectors of eight
  for (float m : multipliers) {
    for (int32_t zp : zps) {
      std::vector<int32_t> acc(n * 2);
      std::vector<float> per(n);
      for (int i = 0; i < n * 2; ++i) acc[i] = accs[i % 18];
      for (int j = 0; j < n; ++j) per[j] = multipliers[j % 6];
      std::vector<T> out(n * 2);
      Requantize<T>(acc.data(), 2, n, &m, false, zp, out.data());
      for (int i = 0; i < n * 2; ++i) {
        ASSERT_EQ(out[i], RoundToQuantized<T>(acc[i] * double{m}, zp))
            << acc[i] << " * " << m << " + " << zp;
      }
      Requantize<T>(acc.data(), 2, n, per.data(), true, zp, out.data());
      for (int i = 0; i < n * 2; ++i) {
        ASSERT_EQ(out[i], RoundToQuantized<T>(acc[i] * double{per[i % n]}, zp))
            << acc[i] << " * " << per[i % n] << " + " << zp;
      }
    }
  }
}

TEST(QuantizationTest, RequantizeMatchesScalarAtTheEdges) {
  CheckRequantizeEdges<int8_t>();
  CheckRequantizeEdges<uint8_t>();
}

}  // namespace
}  // namespace twl
