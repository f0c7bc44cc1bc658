// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator, so a stream can be split across
// threads by skipping ahead.
#ifndef TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_
#define TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <type_traits>

namespace tensorweave {

class Philox {
 public:
  using Block = std::array<uint32_t, 4>;
  Philox(uint64_t seed, uint64_t stream)
      : key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)},
        counter_{0, 0, static_cast<uint32_t>(stream),
                 static_cast<uint32_t>(stream >> 32)} {}

  // Moves ahead by `blocks` outputs of 4 words.
  void Skip(uint64_t blocks) {
    uint64_t low = (static_cast<uint64_t>(counter_[1]) << 32) | counter_[0];
    uint64_t sum = low + blocks;
    if (sum < low) {  // carry into the high half
      if (++counter_[2] == 0) ++counter_[3];
    }
    counter_[0] = static_cast<uint32_t>(sum);
    counter_[1] = static_cast<uint32_t>(sum >> 32);
  }

  Block Next() {
    Block ctr = counter_;
    std::array<uint32_t, 2> key = key_;
    for (int round = 0; round < 10; ++round) {
      ctr = Round(ctr, key);
      key[0] += 0x9E3779B9u;
      key[1] += 0xBB67AE85u;
    }
    Skip(1);
    return ctr;
  }

 private:
  static Block Round(const Block& c, const std::array<uint32_t, 2>& k) {
    uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c[0];
    uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * c[2];
    return {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0],
            static_cast<uint32_t>(p1),
            static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1],
            static_cast<uint32_t>(p0)};
  }

  std::array<uint32_t, 2> key_;
  Block counter_;
};

// Uniform in [0, 1) from 32 random bits (24 bits for float32, 32 for
// float64 — enough for initializers and dropout).
inline float UniformFloat(uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}
inline double UniformDouble(uint32_t bits) {
  return static_cast<double>(bits) * (1.0 / 4294967296.0);
}

// TensorFlow's conversions of Philox words (its random_distributions.h), so
// that kernels drawing through them give TensorFlow's values.
inline float Uint32ToFloat(uint32_t x) {
  const uint32_t bits = (127u << 23) | (x & 0x7fffffu);  // [1, 2)
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f - 1.0f;
}
inline double Uint64ToDouble(uint32_t x0, uint32_t x1) {
  const uint64_t bits = (uint64_t{1023} << 52) |
                        (static_cast<uint64_t>(x0 & 0xfffffu) << 32) | x1;
  double d;
  std::memcpy(&d, &bits, sizeof(d));
  return d - 1.0;
}

// A node's generator, guarded: each run takes a copy and moves the node's
// generator past what the run may use (as TensorFlow's GuardedPhiloxRandom),
// so runs continue the stream as TensorFlow's do.
class GuardedPhilox {
 public:
  explicit GuardedPhilox(const Philox& gen) : gen_(gen) {}
  void Reset(const Philox& gen) {
    std::lock_guard<std::mutex> lock(mu_);
    gen_ = gen;
  }
  Philox Reserve(uint64_t blocks) {
    std::lock_guard<std::mutex> lock(mu_);
    Philox local = gen_;
    gen_.Skip(blocks);
    return local;
  }

 private:
  std::mutex mu_;
  Philox gen_;
};

// The words of a generator one at a time (TensorFlow's SingleSampleAdapter).
class WordStream {
 public:
  explicit WordStream(Philox* gen) : gen_(gen) {}
  uint32_t operator()() {
    if (used_ == 4) {
      block_ = gen_->Next();
      used_ = 0;
    }
    return block_[used_++];
  }
  // A double in [0, 1) from two words (TensorFlow's SimplePhilox::RandDouble).
  double Double() {
    const uint32_t x0 = (*this)();
    return Uint64ToDouble(x0, (*this)());
  }
  // 64 bits, the first word low (SimplePhilox::Rand64).
  uint64_t Bits64() {
    const uint64_t lo = (*this)();
    return lo | (static_cast<uint64_t>((*this)()) << 32);
  }

 private:
  Philox* gen_;
  Philox::Block block_{};
  int used_ = 4;
};

template <typename T>
inline void SinCos(T v, T* s, T* c) {
#if defined(__GLIBC__)
  if constexpr (std::is_same_v<T, float>) {
    sincosf(v, s, c);
  } else {
    sincos(v, s, c);
  }
#else
  *s = std::sin(v);
  *c = std::cos(v);
#endif
}

// TensorFlow's Box-Muller: two normals from two words (four for doubles).
inline void BoxMuller(const uint32_t* x, float* f0, float* f1) {
  float u1 = Uint32ToFloat(x[0]);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const float v1 = 2.0 * M_PI * Uint32ToFloat(x[1]);
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  SinCos(v1, f0, f1);
  *f0 *= u2;
  *f1 *= u2;
}
inline void BoxMuller(const uint32_t* x, double* d0, double* d1) {
  double u1 = Uint64ToDouble(x[0], x[1]);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2 * M_PI * Uint64ToDouble(x[2], x[3]);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  SinCos(v1, d0, d1);
  *d0 *= u2;
  *d1 *= u2;
}

// TensorFlow's generator for its stateless ops from a [2] seed (GenerateKey
// in its stateless_random_ops.cc): the seed words as a counter under a fixed
// key; one Philox block scrambles them into the key and the counter's high
// half.
inline Philox TensorFlowStatelessPhilox(uint64_t seed0, uint64_t seed1) {
  Philox scramble(/*seed=*/0x02461e293ec8f720ull, /*stream=*/seed1);
  scramble.Skip(seed0);
  const Philox::Block mix = scramble.Next();
  return Philox((static_cast<uint64_t>(mix[1]) << 32) | mix[0],
                (static_cast<uint64_t>(mix[3]) << 32) | mix[2]);
}

class OpKernelContext;
class Status;
class Tensor;
enum class RandomDistribution { kUniform, kNormal, kTruncatedNormal };

// `out` (float16, bfloat16, float32 or float64) as TensorFlow's
// PhiloxRandomOp draws `dist` from `base` (the generator a run reserved) for
// its dtype: TensorFlow's values for the same seeds, in groups that run in
// parallel on the context's threads. Half and bfloat16 are the float draws
// rounded (normal, truncated normal), or the low 10 / 7 bits of each float
// draw's word (uniform: TensorFlow's Uint16ToHalf / Uint16ToGfloat16).
Status FillRandom(OpKernelContext* ctx, RandomDistribution dist,
                  const Philox& base, Tensor* out);
// Integers in [lo, hi), lo < hi, as TensorFlow's UniformDistribution<int>.
void FillRandomInt(OpKernelContext* ctx, const Philox& base, int32_t lo,
                   int32_t hi, int32_t* out, int64_t n);
void FillRandomInt(OpKernelContext* ctx, const Philox& base, int64_t lo,
                   int64_t hi, int64_t* out, int64_t n);
// `out` [batch, num_samples] (int32 or int64): classes drawn per row of the
// [batch, classes] `logits` (a float type) as TensorFlow's CPU multinomial
// draws them from `base` (non-finite logits have probability 0).
Status SampleMultinomial(OpKernelContext* ctx, const Tensor& logits,
                         const Philox& base, Tensor* out);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_
