// A discrete Fourier transform of any length in O(n log n): iterative
// radix-2 for powers of two, Bluestein's chirp-z algorithm (a convolution
// done with power-of-two transforms) for every other length. Twiddles are
// computed in double precision.
#ifndef TENSORWEAVE_CORE_KERNELS_FFT_H_
#define TENSORWEAVE_CORE_KERNELS_FFT_H_

#include <complex>
#include <cstdint>
#include <vector>

namespace tensorweave {
namespace fft {

// A transform of one length and direction, reusable for many rows.
// Forward: X[j] = sum_k x[k] exp(-2 pi i j k / n). Inverse: the same with
// +i and no 1/n scaling (the caller scales).
class Plan {
 public:
  Plan(int64_t n, bool inverse);
  int64_t size() const { return n_; }
  // Transforms data[0..n) in place.
  void Run(std::complex<double>* data) const;

 private:
  static void Radix2(std::complex<double>* data, int64_t n,
                     const std::vector<std::complex<double>>& twiddles);

  int64_t n_;
  bool pow2_;
  // Radix-2 twiddles for length n_ (power of two) or m_ (Bluestein).
  std::vector<std::complex<double>> twiddles_;
  std::vector<std::complex<double>> inverse_twiddles_;
  // Bluestein: padded length, chirp b[k], transform of the chirp sequence.
  int64_t m_ = 0;
  std::vector<std::complex<double>> chirp_;
  std::vector<std::complex<double>> chirp_fft_;
};

}  // namespace fft
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_FFT_H_
