// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator, so a stream can be split across
// threads by skipping ahead.
#ifndef TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_
#define TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_

#include <array>
#include <cstdint>

namespace tensorweave {

class Philox {
 public:
  using Block = std::array<uint32_t, 4>;
  Philox(uint64_t seed, uint64_t stream)
      : key_{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)},
        counter_{0, 0, static_cast<uint32_t>(stream),
                 static_cast<uint32_t>(stream >> 32)} {}
  Philox(const Block& counter, const std::array<uint32_t, 2>& key)
      : key_(key), counter_(counter) {}

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

// TensorFlow's generator for its (v1) stateless ops from a [2] seed
// (GenerateKey in its stateless_random_ops.cc): the seed words as a counter
// under a fixed key, one Philox block scrambles them into the key and the
// high half of the counter.
inline Philox TensorFlowStatelessPhilox(uint64_t seed0, uint64_t seed1) {
  Philox scramble(
      {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32),
       static_cast<uint32_t>(seed1), static_cast<uint32_t>(seed1 >> 32)},
      {0x3ec8f720u, 0x02461e29u});
  const Philox::Block mix = scramble.Next();
  return Philox({0, 0, mix[2], mix[3]}, {mix[0], mix[1]});
}

// Uniform in [0, 1) from 32 random bits (24 bits for float32, 32 for
// float64 — enough for initializers and dropout).
inline float UniformFloat(uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}
inline double UniformDouble(uint32_t bits) {
  return static_cast<double>(bits) * (1.0 / 4294967296.0);
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_RANDOM_OPS_H_
