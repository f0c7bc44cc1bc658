// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator, so a stream can be split across
// threads by skipping ahead.
#ifndef TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_
#define TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_

#include <array>
#include <cstdint>
#include <cstring>
#include <mutex>

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

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_
