#include "core/platform/blas.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace tensorweave {
namespace {

// The plain triple loop, with the same strides and transposes.
template <typename T>
void ReferenceGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, T alpha,
                   const T* a, int64_t lda, const T* b, int64_t ldb, T beta,
                   T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        sum += (ta ? a[p * lda + i] : a[i * lda + p]) *
               (tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      c[i * ldc + j] = alpha * sum + beta * c[i * ldc + j];
    }
  }
}

template <typename T>
void CheckAgainstReference(double tolerance) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<T> dist(-1, 1);
  const int64_t m = 5, n = 7, k = 3;
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      // Strides wider than the matrices: lda, ldb and ldc are honoured.
      const int64_t lda = (ta ? m : k) + 2, ldb = (tb ? k : n) + 1;
      const int64_t ldc = n + 3;
      std::vector<T> a((ta ? k : m) * lda), b((tb ? n : k) * ldb);
      std::vector<T> c(m * ldc), expected;
      for (T& v : a) v = dist(rng);
      for (T& v : b) v = dist(rng);
      for (T& v : c) v = dist(rng);
      expected = c;
      blas::Gemm<T>(ta, tb, m, n, k, T(2), a.data(), lda, b.data(), ldb, T(0.5),
                    c.data(), ldc);
      ReferenceGemm<T>(ta, tb, m, n, k, T(2), a.data(), lda, b.data(), ldb,
                       T(0.5), expected.data(), ldc);
      for (int64_t i = 0; i < m * ldc; ++i) {
        EXPECT_NEAR(c[i], expected[i], tolerance)
            << "ta=" << ta << " tb=" << tb << " at " << i;
      }
    }
  }
}

TEST(BlasTest, FloatMatchesReference) { CheckAgainstReference<float>(1e-5); }
TEST(BlasTest, DoubleMatchesReference) { CheckAgainstReference<double>(1e-12); }

TEST(BlasTest, BetaZeroDoesNotReadC) {
  // C full of NaN: with beta = 0 the result must not carry it.
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4];
  for (float& v : c) v = std::numeric_limits<float>::quiet_NaN();
  blas::Gemm<float>(false, false, 2, 2, 2, 1.f, a, 2, b, 2, 0.f, c, 2);
  EXPECT_EQ(c[0], 19.f);
  EXPECT_EQ(c[1], 22.f);
  EXPECT_EQ(c[2], 43.f);
  EXPECT_EQ(c[3], 50.f);
}

}  // namespace
}  // namespace tensorweave
