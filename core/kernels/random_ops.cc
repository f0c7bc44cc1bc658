// RandomUniform, RandomStandardNormal, TruncatedNormal, RandomShuffle and
// Multinomial kernels.
#include "core/kernels/random_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <random>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

// The node's generator: seeded by its (seed, seed2) attrs, or from the
// system's entropy when both are 0.
Philox MakeGenerator(OpKernelConstruction* ctx) {
  int64_t seed = 0, seed2 = 0;
  ctx->SetStatus(ctx->GetAttr("seed", &seed));
  ctx->SetStatus(ctx->GetAttr("seed2", &seed2));
  if (seed == 0 && seed2 == 0) {
    std::random_device device;
    seed = (static_cast<int64_t>(device()) << 32) | device();
    seed2 = (static_cast<int64_t>(device()) << 32) | device();
  }
  return Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
}

// A double in [0, 1) with 53 random bits from two words.
inline double Uniform53(uint32_t hi, uint32_t lo) {
  const uint64_t bits = (static_cast<uint64_t>(hi) << 32) | lo;
  return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

enum class Distribution { kUniform, kNormal, kTruncatedNormal };

template <Distribution kDist>
class RandomOp : public OpKernel {
 public:
  explicit RandomOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(MakeGenerator(ctx)) {}

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
  Philox gen_;
};

// Fisher-Yates over the slices along dimension 0.
class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(MakeGenerator(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int64_t n = x.rank() == 0 ? 1 : x.dim(0);
    if (n <= 1) {
      ctx->set_output(0, x);
      return;
    }
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Philox::Block block{};
      int used = 4;
      auto word = [&]() {
        if (used == 4) {
          block = gen_.Next();
          used = 0;
        }
        return block[used++];
      };
      for (int64_t i = n - 1; i > 0; --i) {
        const uint64_t bits = (static_cast<uint64_t>(word()) << 32) | word();
        std::swap(order[i], order[bits % static_cast<uint64_t>(i + 1)]);
      }
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t row = x.num_elements() / n;
    OP_REQUIRES_OK(ctx, DispatchType<TW_ARRAY_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* in = x.data<T>();
                     T* o = out->data<T>();
                     ForRows(ctx, n, row, [&](int64_t begin, int64_t end) {
                       for (int64_t i = begin; i < end; ++i) {
                         std::copy(in + order[i] * row,
                                   in + (order[i] + 1) * row, o + i * row);
                       }
                     });
                     return Status::OK();
                   }));
  }

 private:
  std::mutex mu_;
  Philox gen_;
};

// Inverse-CDF sampling per row of logits; each row draws from its own
// stretch of the node's stream, so rows run in parallel and the result does
// not depend on the number of threads.
class MultinomialOp : public OpKernel {
 public:
  explicit MultinomialOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(MakeGenerator(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& num_samples_tensor = ctx->input(1);
    OP_REQUIRES(ctx, logits.rank() == 2,
                errors::InvalidArgument("logits should be a matrix, got shape ",
                                        logits.shape().ToString()));
    OP_REQUIRES(ctx, num_samples_tensor.rank() == 0,
                errors::InvalidArgument("num_samples should be a scalar, got "
                                        "shape ",
                                        num_samples_tensor.shape().ToString()));
    const int64_t num_samples = num_samples_tensor.data<int32_t>()[0];
    OP_REQUIRES(ctx, num_samples >= 0,
                errors::InvalidArgument("num_samples should be nonnegative, "
                                        "got ",
                                        num_samples));
    const int64_t batch = logits.dim(0), classes = logits.dim(1);
    OP_REQUIRES(ctx, classes > 0 || num_samples == 0 || batch == 0,
                errors::InvalidArgument("num_classes should be positive, got ",
                                        classes));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, num_samples}), &out));
    // Two words per sample.
    const uint64_t blocks_per_row = (2 * num_samples + 3) / 4;
    Philox base(0, 0);
    {
      std::lock_guard<std::mutex> lock(mu_);
      base = gen_;
      gen_.Skip(blocks_per_row * batch);
    }
    OP_REQUIRES_OK(ctx,
                   DispatchType<float, double>(logits.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     return DispatchType<int32_t, int64_t>(
                         out->dtype(), [&](auto out_tag) {
                           using Out = decltype(out_tag);
                           Sample<T, Out>(ctx, logits.data<T>(), batch, classes,
                                          num_samples, base, blocks_per_row,
                                          out->data<Out>());
                           return Status::OK();
                         });
                   }));
  }

 private:
  template <typename T, typename Out>
  static void Sample(OpKernelContext* ctx, const T* logits, int64_t batch,
                     int64_t classes, int64_t num_samples, const Philox& base,
                     uint64_t blocks_per_row, Out* out) {
    ForRows(ctx, batch, classes + num_samples, [&](int64_t begin, int64_t end) {
      std::vector<double> cdf(classes);
      for (int64_t b = begin; b < end; ++b) {
        const T* row = logits + b * classes;
        // Non-finite logits have probability 0, as in TensorFlow.
        double max_logit = -std::numeric_limits<double>::infinity();
        for (int64_t j = 0; j < classes; ++j) {
          if (std::isfinite(row[j]))
            max_logit = std::max<double>(max_logit, row[j]);
        }
        double total = 0;
        for (int64_t j = 0; j < classes; ++j) {
          if (std::isfinite(row[j])) total += std::exp(row[j] - max_logit);
          cdf[j] = total;
        }
        Philox gen = base;
        gen.Skip(blocks_per_row * b);
        Out* o = out + b * num_samples;
        for (int64_t s = 0; s < num_samples; s += 2) {
          const Philox::Block words = gen.Next();
          for (int k = 0; k < 2 && s + k < num_samples; ++k) {
            const double u = Uniform53(words[2 * k], words[2 * k + 1]) * total;
            int64_t j =
                std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
            o[s + k] = static_cast<Out>(std::min(j, classes - 1));
          }
        }
      }
    });
  }

  std::mutex mu_;
  Philox gen_;
};

REGISTER_KERNEL(KernelDef("RandomShuffle"), RandomShuffleOp);
REGISTER_KERNEL(KernelDef("Multinomial"), MultinomialOp);
REGISTER_KERNEL(KernelDef("RandomUniform"), RandomOp<Distribution::kUniform>);
REGISTER_KERNEL(KernelDef("RandomStandardNormal"),
                RandomOp<Distribution::kNormal>);
REGISTER_KERNEL(KernelDef("TruncatedNormal"),
                RandomOp<Distribution::kTruncatedNormal>);

}  // namespace
}  // namespace tensorweave
