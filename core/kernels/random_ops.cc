// RandomUniform, RandomStandardNormal and TruncatedNormal kernels.
#include "core/kernels/random_ops.h"

#include <cmath>
#include <mutex>
#include <random>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

template <Distribution kDist>
class RandomOp : public OpKernel {
 public:
  explicit RandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t seed = 0, seed2 = 0;
    ctx->SetStatus(ctx->GetAttr("seed", &seed));
    ctx->SetStatus(ctx->GetAttr("seed2", &seed2));
    if (seed == 0 && seed2 == 0) {
      std::random_device device;
      seed = (static_cast<int64_t>(device()) << 32) | device();
      seed2 = (static_cast<int64_t>(device()) << 32) | device();
    }
    gen_ = Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->num_elements();
    // Each run continues the node's stream where the last one stopped.
    std::lock_guard<std::mutex> lock(mu_);
    OP_REQUIRES_OK(ctx, DispatchType<float, double>(out->dtype(), [&](auto t) {
                     using T = decltype(t);
                     Fill<T>(out->data<T>(), n);
                     return Status::OK();
                   }));
  }

 private:
  template <typename T>
  static T Uniform(uint32_t bits) {
    if constexpr (std::is_same_v<T, float>) {
      return UniformFloat(bits);
    } else {
      return static_cast<T>(UniformDouble(bits));
    }
  }

  template <typename T>
  void Fill(T* out, int64_t n) {
    if (kDist == Distribution::kUniform) {
      for (int64_t i = 0; i < n; i += 4) {
        Philox::Block b = gen_.Next();
        for (int j = 0; j < 4 && i + j < n; ++j) out[i + j] = Uniform<T>(b[j]);
      }
      return;
    }
    // Box-Muller: two normals from each pair of uniforms; a truncated pair
    // with a value beyond 2 stddevs is drawn again.
    for (int64_t i = 0; i < n;) {
      Philox::Block b = gen_.Next();
      for (int pair = 0; pair < 2 && i < n; ++pair) {
        constexpr double kTwoPi = 6.283185307179586;
        double r = std::sqrt(-2.0 * std::log(1.0 - UniformDouble(b[2 * pair])));
        double angle = kTwoPi * UniformDouble(b[2 * pair + 1]);
        double z0 = r * std::cos(angle), z1 = r * std::sin(angle);
        if (kDist == Distribution::kTruncatedNormal &&
            (std::fabs(z0) > 2.0 || std::fabs(z1) > 2.0)) {
          continue;
        }
        out[i++] = static_cast<T>(z0);
        if (i < n) out[i++] = static_cast<T>(z1);
      }
    }
  }

  std::mutex mu_;
  Philox gen_{0, 0};
};

REGISTER_KERNEL(KernelDef("RandomUniform"), RandomOp<Distribution::kUniform>);
REGISTER_KERNEL(KernelDef("RandomStandardNormal"),
                RandomOp<Distribution::kNormal>);
REGISTER_KERNEL(KernelDef("TruncatedNormal"),
                RandomOp<Distribution::kTruncatedNormal>);

}  // namespace
}  // namespace tensorweave
