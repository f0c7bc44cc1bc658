// Random initializers on the GPU: RandomUniform, RandomStandardNormal and
// TruncatedNormal (shape in host memory), with the CPU kernel's generator,
// Philox4x32-10 keyed by the node's seed and started at counter (0, 0,
// seed2): core/kernels/random_ops.h.
//
// The generator's 128-bit counter lives in device memory: each run reads it
// on the device and a one-thread kernel then advances it by the blocks the
// run used, so nothing goes through the host and a captured step, replayed,
// draws new numbers (CanBeCaptured stays true).
//
// RandomUniform and RandomStandardNormal use the counter exactly as the CPU
// kernel does (element i from word i % 4 of block i / 4; the normals by
// Box-Muller in double from each pair of words), so a seeded op draws the
// same numbers on the GPU as on the CPU (the normals up to the last bit of
// the device's double log/sqrt/sin/cos, which are within 1 ulp of the
// host's before rounding to float). TruncatedNormal cannot follow the CPU's
// sequential rejection in parallel: element i draws from its own blocks
// (attempt j uses block counter + j * n + i, its four normals in order, the
// first within 2 standard deviations is taken), so it has the same
// distribution but other values than the CPU; each run advances the
// counter by kTruncatedAttempts * n blocks.
#include <cstdint>
#include <mutex>
#include <random>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"

namespace tensorweave {
namespace gpu {
namespace {

constexpr int kTruncatedAttempts = 8;

struct Key {
  uint32_t k0, k1;
};

// counter + blocks (128-bit, blocks added to the low 64 bits with carry).
__device__ inline uint4 CounterPlus(const uint32_t* c, uint64_t blocks) {
  const uint64_t low = (static_cast<uint64_t>(c[1]) << 32) | c[0];
  const uint64_t sum = low + blocks;
  uint32_t c2 = c[2], c3 = c[3];
  if (sum < low) {
    if (++c2 == 0) ++c3;
  }
  return make_uint4(static_cast<uint32_t>(sum),
                    static_cast<uint32_t>(sum >> 32), c2, c3);
}

__device__ inline uint4 Philox(uint4 ctr, Key key) {
  uint32_t k0 = key.k0, k1 = key.k1;
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * ctr.x;
    const uint64_t p1 = static_cast<uint64_t>(0xCD9E8D57u) * ctr.z;
    ctr = make_uint4(static_cast<uint32_t>(p1 >> 32) ^ ctr.y ^ k0,
                     static_cast<uint32_t>(p1),
                     static_cast<uint32_t>(p0 >> 32) ^ ctr.w ^ k1,
                     static_cast<uint32_t>(p0));
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return ctr;
}

__device__ inline uint32_t Word(const uint4& b, int j) {
  return j == 0 ? b.x : j == 1 ? b.y : j == 2 ? b.z : b.w;
}

template <typename T>
__device__ inline T UniformFromBits(uint32_t bits) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
  } else {
    return static_cast<double>(bits) * (1.0 / 4294967296.0);
  }
}

__device__ inline double UniformDouble(uint32_t bits) {
  return static_cast<double>(bits) * (1.0 / 4294967296.0);
}

// The two normals of words (a, b), as the CPU's Box-Muller.
__device__ inline void BoxMuller(uint32_t a, uint32_t b, double* z0,
                                 double* z1) {
  constexpr double kTwoPi = 6.283185307179586;
  const double r = sqrt(-2.0 * log(1.0 - UniformDouble(a)));
  const double angle = kTwoPi * UniformDouble(b);
  *z0 = r * cos(angle);
  *z1 = r * sin(angle);
}

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

// One thread per block of 4 outputs (uniform, normal).
template <typename T, Distribution kDist>
__global__ void RandomBlocksKernel(const uint32_t* counter, Key key, T* out,
                                   int64_t n) {
  const int64_t blocks = (n + 3) / 4;
  TW_GPU_LOOP(b, blocks) {
    const uint4 words = Philox(CounterPlus(counter, b), key);
    const int64_t base = 4 * b;
    if (kDist == Distribution::kUniform) {
      for (int j = 0; j < 4 && base + j < n; ++j) {
        out[base + j] = UniformFromBits<T>(Word(words, j));
      }
    } else {
      double z[4];
      BoxMuller(words.x, words.y, &z[0], &z[1]);
      BoxMuller(words.z, words.w, &z[2], &z[3]);
      for (int j = 0; j < 4 && base + j < n; ++j) {
        out[base + j] = static_cast<T>(z[j]);
      }
    }
  }
}

template <typename T>
__global__ void TruncatedNormalKernel(const uint32_t* counter, Key key, T* out,
                                      int64_t n) {
  TW_GPU_LOOP(i, n) {
    double value = 0.0;  // all attempts rejected: p < 1e-40
    bool done = false;
    for (int attempt = 0; attempt < kTruncatedAttempts && !done; ++attempt) {
      const uint4 words = Philox(
          CounterPlus(counter, static_cast<uint64_t>(attempt) * n + i), key);
      double z[4];
      BoxMuller(words.x, words.y, &z[0], &z[1]);
      BoxMuller(words.z, words.w, &z[2], &z[3]);
      for (int j = 0; j < 4 && !done; ++j) {
        if (fabs(z[j]) <= 2.0) {
          value = z[j];
          done = true;
        }
      }
    }
    out[i] = static_cast<T>(value);
  }
}

__global__ void AdvanceCounterKernel(uint32_t* counter, uint64_t blocks) {
  const uint4 next = CounterPlus(counter, blocks);
  counter[0] = next.x;
  counter[1] = next.y;
  counter[2] = next.z;
  counter[3] = next.w;
}

template <Distribution kDist>
class RandomGpuOp : public OpKernel {
 public:
  explicit RandomGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t seed = 0, seed2 = 0;
    ctx->SetStatus(ctx->GetAttr("seed", &seed));
    ctx->SetStatus(ctx->GetAttr("seed2", &seed2));
    if (seed == 0 && seed2 == 0) {  // as the CPU: from the system's entropy
      std::random_device device;
      seed = (static_cast<int64_t>(device()) << 32) | device();
      seed2 = (static_cast<int64_t>(device()) << 32) | device();
    }
    key_ = {static_cast<uint32_t>(seed),
            static_cast<uint32_t>(static_cast<uint64_t>(seed) >> 32)};
    // The counter (0, 0, seed2 low, seed2 high), in device memory.
    Tensor host(DT_INT32, TensorShape({4}));
    uint32_t* c = static_cast<uint32_t*>(host.raw_data());
    c[0] = 0;
    c[1] = 0;
    c[2] = static_cast<uint32_t>(seed2);
    c[3] = static_cast<uint32_t>(static_cast<uint64_t>(seed2) >> 32);
    ctx->SetStatus(ctx->device()->CopyFromHost(host, &counter_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->num_elements();
    if (n == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    uint32_t* counter = static_cast<uint32_t*>(counter_.raw_data());
    // The stream orders the runs' reads and advances; the lock orders
    // their enqueueing.
    std::lock_guard<std::mutex> lock(mu_);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(out->dtype(), [&](auto tag) -> Status {
          using T = decltype(tag);
          if (kDist == Distribution::kTruncatedNormal) {
            TruncatedNormalKernel<T>
                <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                    counter, key_, out->data<T>(), n);
          } else {
            RandomBlocksKernel<T, kDist>
                <<<BlocksFor((n + 3) / 4), kThreadsPerBlock, 0,
                   device->stream()>>>(counter, key_, out->data<T>(), n);
          }
          return CheckLaunch(device, "RandomKernel");
        }));
    const uint64_t used = kDist == Distribution::kTruncatedNormal
                              ? static_cast<uint64_t>(kTruncatedAttempts) * n
                              : static_cast<uint64_t>((n + 3) / 4);
    AdvanceCounterKernel<<<1, 1, 0, device->stream()>>>(counter, used);
    OP_REQUIRES_LAUNCH_OK(ctx, "AdvanceCounterKernel");
  }

 private:
  Key key_{};
  Tensor counter_;  // 4 x uint32 in device memory
  std::mutex mu_;
};

REGISTER_KERNEL(KernelDef("RandomUniform")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("dtype", {DT_FLOAT, DT_DOUBLE})
                    .HostMemoryInput(0),
                RandomGpuOp<Distribution::kUniform>);
REGISTER_KERNEL(KernelDef("RandomStandardNormal")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("dtype", {DT_FLOAT, DT_DOUBLE})
                    .HostMemoryInput(0),
                RandomGpuOp<Distribution::kNormal>);
REGISTER_KERNEL(KernelDef("TruncatedNormal")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("dtype", {DT_FLOAT, DT_DOUBLE})
                    .HostMemoryInput(0),
                RandomGpuOp<Distribution::kTruncatedNormal>);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
