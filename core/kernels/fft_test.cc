// The FFT plans of fft.h against a direct O(n^2) DFT computed here in long
// double, for powers of two and for other lengths (Bluestein), both
// directions, and round trips.
#include "core/kernels/fft.h"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

namespace tensorweave {
namespace {

using cd = std::complex<double>;

std::vector<cd> DirectDft(const std::vector<cd>& x, bool inverse) {
  const int64_t n = static_cast<int64_t>(x.size());
  const long double pi = 3.141592653589793238462643383279502884L;
  std::vector<cd> out(n);
  for (int64_t j = 0; j < n; ++j) {
    long double re = 0, im = 0;
    for (int64_t k = 0; k < n; ++k) {
      const long double a =
          (inverse ? 2 : -2) * pi * static_cast<long double>((j * k) % n) / n;
      re += x[k].real() * std::cos(a) - x[k].imag() * std::sin(a);
      im += x[k].real() * std::sin(a) + x[k].imag() * std::cos(a);
    }
    out[j] = {static_cast<double>(re), static_cast<double>(im)};
  }
  return out;
}

std::vector<cd> Random(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<cd> x(n);
  for (auto& v : x) v = {u(gen), u(gen)};
  return x;
}

TEST(FftTest, MatchesDirectDft) {
  for (int64_t n : {0, 1, 2, 3, 4, 5, 7, 8, 12, 17, 64, 100, 127, 256, 1000}) {
    for (bool inverse : {false, true}) {
      const std::vector<cd> x = Random(n, static_cast<unsigned>(n));
      std::vector<cd> y = x;
      fft::Plan(n, inverse).Run(y.data());
      const std::vector<cd> want = DirectDft(x, inverse);
      for (int64_t j = 0; j < n; ++j) {
        EXPECT_NEAR(y[j].real(), want[j].real(), 1e-9 * (n + 1))
            << "n=" << n << " j=" << j << " inverse=" << inverse;
        EXPECT_NEAR(y[j].imag(), want[j].imag(), 1e-9 * (n + 1))
            << "n=" << n << " j=" << j << " inverse=" << inverse;
      }
    }
  }
}

TEST(FftTest, RoundTripLarge) {
  for (int64_t n : {4096, 4099, 10007}) {
    const std::vector<cd> x = Random(n, 7);
    std::vector<cd> y = x;
    fft::Plan(n, false).Run(y.data());
    fft::Plan(n, true).Run(y.data());
    double err = 0;
    for (int64_t j = 0; j < n; ++j) {
      err = std::max(err, std::abs(y[j] / static_cast<double>(n) - x[j]));
    }
    EXPECT_LT(err, 1e-12) << "n=" << n;
  }
}

TEST(FftTest, ImpulseAndConstant) {
  // The DFT of an impulse is all ones; of all ones, n at 0 and 0 elsewhere.
  const int64_t n = 30;
  std::vector<cd> x(n, cd(0, 0));
  x[0] = 1;
  fft::Plan plan(n, false);
  plan.Run(x.data());
  for (const cd& v : x) EXPECT_NEAR(std::abs(v - cd(1, 0)), 0, 1e-12);
  plan.Run(x.data());
  EXPECT_NEAR(std::abs(x[0] - cd(n, 0)), 0, 1e-10);
  for (int64_t j = 1; j < n; ++j) EXPECT_NEAR(std::abs(x[j]), 0, 1e-10);
}

}  // namespace
}  // namespace tensorweave
