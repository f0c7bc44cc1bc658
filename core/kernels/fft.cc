#include "core/kernels/fft.h"

#include <cmath>
#include <utility>

namespace tensorweave {
namespace fft {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool IsPowerOfTwo(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

// exp(sign * 2 pi i k / n) for k in [0, n / 2).
std::vector<std::complex<double>> Twiddles(int64_t n, double sign) {
  std::vector<std::complex<double>> w(n / 2);
  for (int64_t k = 0; k < n / 2; ++k) {
    const double a = sign * 2.0 * kPi * static_cast<double>(k) / n;
    w[k] = {std::cos(a), std::sin(a)};
  }
  return w;
}

}  // namespace

Plan::Plan(int64_t n, bool inverse) : n_(n), pow2_(IsPowerOfTwo(n) || n <= 1) {
  const double sign = inverse ? 1.0 : -1.0;
  if (pow2_) {
    twiddles_ = Twiddles(n, sign);
    return;
  }
  m_ = 1;
  while (m_ < 2 * n - 1) m_ *= 2;
  twiddles_ = Twiddles(m_, -1.0);
  inverse_twiddles_ = Twiddles(m_, 1.0);
  // b[k] = exp(-sign * pi i k^2 / n); k^2 is reduced mod 2n first so the
  // angle stays small and exact.
  chirp_.resize(n);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t k2 =
        static_cast<int64_t>((static_cast<unsigned __int128>(k) * k) %
                             (2 * static_cast<uint64_t>(n)));
    const double a = -sign * kPi * static_cast<double>(k2) / n;
    chirp_[k] = {std::cos(a), std::sin(a)};
  }
  chirp_fft_.assign(m_, {0.0, 0.0});
  chirp_fft_[0] = chirp_[0];
  for (int64_t k = 1; k < n; ++k) {
    chirp_fft_[k] = chirp_[k];
    chirp_fft_[m_ - k] = chirp_[k];
  }
  Radix2(chirp_fft_.data(), m_, twiddles_);
}

void Plan::Radix2(std::complex<double>* data, int64_t n,
                  const std::vector<std::complex<double>>& twiddles) {
  if (n <= 1) return;
  // Bit-reversal permutation.
  for (int64_t i = 1, j = 0; i < n; ++i) {
    int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(data[i], data[j]);
  }
  for (int64_t len = 2; len <= n; len <<= 1) {
    const int64_t half = len / 2, step = n / len;
    for (int64_t start = 0; start < n; start += len) {
      for (int64_t k = 0; k < half; ++k) {
        const std::complex<double> t =
            twiddles[k * step] * data[start + k + half];
        const std::complex<double> u = data[start + k];
        data[start + k] = u + t;
        data[start + k + half] = u - t;
      }
    }
  }
}

void Plan::Run(std::complex<double>* data) const {
  if (pow2_) {
    Radix2(data, n_, twiddles_);
    return;
  }
  // X[j] = conj(b[j]) * sum_k (x[k] conj(b[k])) b[j - k].
  std::vector<std::complex<double>> a(m_, {0.0, 0.0});
  for (int64_t k = 0; k < n_; ++k) a[k] = data[k] * std::conj(chirp_[k]);
  Radix2(a.data(), m_, twiddles_);
  for (int64_t k = 0; k < m_; ++k) a[k] *= chirp_fft_[k];
  Radix2(a.data(), m_, inverse_twiddles_);
  const double scale = 1.0 / static_cast<double>(m_);
  for (int64_t j = 0; j < n_; ++j) {
    data[j] = a[j] * std::conj(chirp_[j]) * scale;
  }
}

}  // namespace fft
}  // namespace tensorweave
