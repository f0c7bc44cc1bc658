// RandomUniform, RandomUniformInt, RandomStandardNormal, TruncatedNormal,
// RandomShuffle and Multinomial kernels. The first four draw exactly
// TensorFlow's values for the same (seed, seed2) on every run.
#include "core/kernels/random_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <type_traits>
#include <vector>

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

// Fills out[0, n) in groups of `group` values, group g from `fill_group`
// given a copy of `base` skipped by g * skip blocks: the values do not depend
// on how the groups are split between threads.
template <typename T, typename FillGroup>
void FillGroups(OpKernelContext* ctx, const Philox& base, T* out, int64_t n,
                int group, uint64_t skip, FillGroup fill_group) {
  const int64_t groups = (n + group - 1) / group;
  ForRows(ctx, groups, group * 16, [&](int64_t begin, int64_t end) {
    T values[4];
    for (int64_t g = begin; g < end; ++g) {
      Philox gen = base;
      gen.Skip(static_cast<uint64_t>(g) * skip);
      fill_group(&gen, values);
      const int64_t count = std::min<int64_t>(group, n - g * group);
      std::copy(values, values + count, out + g * group);
    }
  });
}

// As TensorFlow's PhiloxRandomOp: uniform and normal values from one block
// per group (4 floats or 2 doubles); a truncated normal group from a word
// stream of its own 256 blocks per 4 values, drawing pairs until the group
// has its values within 2 stddevs.
template <typename T>
void FillDistribution(OpKernelContext* ctx, RandomDistribution dist,
                      const Philox& base, T* out, int64_t n) {
  constexpr bool kFloat = std::is_same_v<T, float>;
  constexpr int kGroup = kFloat ? 4 : 2;
  if (dist == RandomDistribution::kTruncatedNormal) {
    FillGroups<T>(ctx, base, out, n, kGroup, kGroup * 256 / 4,
                  [](Philox* gen, T* values) {
                    WordStream words(gen);
                    for (int index = 0; index < kGroup;) {
                      uint32_t x[4];
                      for (int i = 0; i < (kFloat ? 2 : 4); ++i) x[i] = words();
                      T pair[2];
                      BoxMuller(x, &pair[0], &pair[1]);
                      for (int i = 0; i < 2 && index < kGroup; ++i) {
                        if (std::abs(pair[i]) < T(2)) values[index++] = pair[i];
                      }
                    }
                  });
    return;
  }
  const bool normal = dist == RandomDistribution::kNormal;
  FillGroups<T>(ctx, base, out, n, kGroup, 1, [normal](Philox* gen, T* values) {
    const Philox::Block b = gen->Next();
    if (normal) {
      BoxMuller(&b[0], &values[0], &values[1]);
      if constexpr (kFloat) BoxMuller(&b[2], &values[2], &values[3]);
    } else if constexpr (kFloat) {
      for (int i = 0; i < 4; ++i) values[i] = Uint32ToFloat(b[i]);
    } else {
      values[0] = Uint64ToDouble(b[0], b[1]);
      values[1] = Uint64ToDouble(b[2], b[3]);
    }
  });
}

// A word (two for int64) modulo the range, per value.
template <typename T>
void FillUniformInt(OpKernelContext* ctx, const Philox& base, T lo, T hi,
                    T* out, int64_t n) {
  using U = std::make_unsigned_t<T>;
  const U range = static_cast<U>(hi) - static_cast<U>(lo);
  constexpr int kGroup = sizeof(T) == 4 ? 4 : 2;
  FillGroups<T>(ctx, base, out, n, kGroup, 1, [&](Philox* gen, T* values) {
    const Philox::Block b = gen->Next();
    for (int i = 0; i < kGroup; ++i) {
      U bits = b[i];
      if constexpr (sizeof(T) == 8) {
        bits = b[2 * i] | (static_cast<uint64_t>(b[2 * i + 1]) << 32);
      }
      values[i] = static_cast<T>(static_cast<U>(lo) + bits % range);
    }
  });
}

template <RandomDistribution kDist>
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
    const Philox base =
        gen_.Reserve(static_cast<uint64_t>(out->num_elements()) * 256);
    OP_REQUIRES_OK(ctx, FillRandom(ctx, kDist, base, out));
  }

 private:
  GuardedPhilox gen_;
};

// Integers in [minval, maxval): a word (two for int64) modulo the range.
class RandomUniformIntOp : public OpKernel {
 public:
  explicit RandomUniformIntOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(MakeGenerator(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& minval = ctx->input(1);
    const Tensor& maxval = ctx->input(2);
    OP_REQUIRES(ctx, minval.rank() == 0,
                errors::InvalidArgument("minval must be 0-D, got shape ",
                                        minval.shape().ToString()));
    OP_REQUIRES(ctx, maxval.rank() == 0,
                errors::InvalidArgument("maxval must be 0-D, got shape ",
                                        maxval.shape().ToString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->num_elements();
    OP_REQUIRES_OK(
        ctx, DispatchType<int32_t, int64_t>(out->dtype(), [&](auto t) {
          using T = decltype(t);
          const T lo = minval.data<T>()[0], hi = maxval.data<T>()[0];
          if (n == 0) return Status::OK();
          if (lo >= hi) {
            return errors::InvalidArgument("Need minval < maxval: ", lo,
                                           " >= ", hi);
          }
          const Philox base = gen_.Reserve(static_cast<uint64_t>(n) * 256);
          FillRandomInt(ctx, base, lo, hi, out->data<T>(), n);
          return Status::OK();
        }));
  }

 private:
  GuardedPhilox gen_;
};

// Fisher-Yates over the slices along dimension 0, front to back, one word
// per swap, as TensorFlow's RandomShuffle draws it.
class RandomShuffleOp : public OpKernel {
 public:
  explicit RandomShuffleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(MakeGenerator(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int64_t n = x.rank() == 0 ? 1 : x.dim(0);
    if (n <= 1 || x.num_elements() <= 1) {
      ctx->set_output(0, x);
      return;
    }
    std::vector<int64_t> order(n);
    for (int64_t i = 0; i < n; ++i) order[i] = i;
    Philox local = gen_.Reserve(static_cast<uint64_t>(n - 1 + 3) / 4);
    WordStream words(&local);
    for (int64_t i = 0; i + 1 < n; ++i) {
      uint64_t bits = words();
      if (n - i > std::numeric_limits<uint32_t>::max()) {
        bits = (bits << 32) | words();
      }
      std::swap(order[i], order[i + bits % static_cast<uint64_t>(n - i)]);
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
  GuardedPhilox gen_;
};

template <typename T, typename Out>
void SampleRows(OpKernelContext* ctx, const T* logits, int64_t batch,
                int64_t classes, int64_t num_samples, const Philox& base,
                Out* out) {
  ForRows(ctx, batch, classes + num_samples, [&](int64_t begin, int64_t end) {
    std::vector<double> cdf(classes), row(classes);
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t j = 0; j < classes; ++j) {  // half: through float
        const T v = logits[b * classes + j];
        if constexpr (std::is_same_v<T, double>) {
          row[j] = v;
        } else {
          row[j] = static_cast<float>(v);
        }
      }
      // Non-finite logits have probability 0, as in TensorFlow.
      double max_logit = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < classes; ++j) {
        if (std::isfinite(row[j])) max_logit = std::max(max_logit, row[j]);
      }
      double total = 0;
      for (int64_t j = 0; j < classes; ++j) {
        if (std::isfinite(row[j])) total += std::exp(row[j] - max_logit);
        cdf[j] = total;
      }
      // Word 2 * (b * num_samples + s) of the stream starts sample s.
      const uint64_t first_word = 2 * static_cast<uint64_t>(b) * num_samples;
      Philox gen = base;
      gen.Skip(first_word / 4);
      WordStream words(&gen);
      for (uint64_t w = 0; w < first_word % 4; ++w) words();
      Out* o = out + b * num_samples;
      for (int64_t s = 0; s < num_samples; ++s) {
        const uint32_t x0 = words();
        const double u = Uint64ToDouble(x0, words()) * total;
        const int64_t j =
            std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
        o[s] = static_cast<Out>(j);
      }
    }
  });
}

}  // namespace

Status SampleMultinomial(OpKernelContext* ctx, const Tensor& logits,
                         const Philox& base, Tensor* out) {
  const int64_t batch = logits.dim(0), classes = logits.dim(1);
  const int64_t num_samples = out->dim(1);
  // No rows: `classes` is not bounded by the logits' size then.
  if (batch == 0) return Status::OK();
  return DispatchType<TW_ALL_FLOAT_TYPES>(logits.dtype(), [&](auto tag) {
    using T = decltype(tag);
    return DispatchType<int32_t, int64_t>(out->dtype(), [&](auto out_tag) {
      using Out = decltype(out_tag);
      SampleRows<T, Out>(ctx, logits.data<T>(), batch, classes, num_samples,
                         base, out->data<Out>());
      return Status::OK();
    });
  });
}

namespace {

// Inverse-CDF sampling per row of logits, as TensorFlow's CPU kernel: one
// stream of words through the rows, two words (a double) per sample; each
// row starts at its own offset in it, so rows run in parallel.
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
    const uint64_t reserved =
        static_cast<uint64_t>(batch) * ((num_samples + 3) / 4 * 4) * 2 * 256;
    const Philox base = gen_.Reserve(reserved);
    OP_REQUIRES_OK(ctx, SampleMultinomial(ctx, logits, base, out));
  }

 private:
  GuardedPhilox gen_;
};

REGISTER_KERNEL(KernelDef("RandomShuffle"), RandomShuffleOp);
REGISTER_KERNEL(KernelDef("Multinomial"), MultinomialOp);
REGISTER_KERNEL(KernelDef("RandomUniform"),
                RandomOp<RandomDistribution::kUniform>);
REGISTER_KERNEL(KernelDef("RandomStandardNormal"),
                RandomOp<RandomDistribution::kNormal>);
REGISTER_KERNEL(KernelDef("TruncatedNormal"),
                RandomOp<RandomDistribution::kTruncatedNormal>);
REGISTER_KERNEL(KernelDef("RandomUniformInt"), RandomUniformIntOp);

}  // namespace

Status FillRandom(OpKernelContext* ctx, RandomDistribution dist,
                  const Philox& base, Tensor* out) {
  const int64_t n = out->num_elements();
  return DispatchType<TW_ALL_FLOAT_TYPES>(out->dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      FillDistribution(ctx, dist, base, out->data<T>(), n);
    } else {
      std::vector<float> draws(n);
      FillDistribution(ctx, dist, base, draws.data(), n);
      // A uniform float draw is its word's low 23 bits / 2^23, exactly.
      constexpr uint32_t kMantissa = std::is_same_v<T, half> ? 0x3ff : 0x7f;
      constexpr float kScale = std::is_same_v<T, half> ? 1024.0f : 128.0f;
      T* o = out->data<T>();
      for (int64_t i = 0; i < n; ++i) {
        if (dist == RandomDistribution::kUniform) {
          const auto word = static_cast<uint32_t>(draws[i] * 8388608.0f);
          o[i] = static_cast<T>(static_cast<float>(word & kMantissa) / kScale);
        } else {
          o[i] = static_cast<T>(draws[i]);
        }
      }
    }
    return Status::OK();
  });
}
void FillRandomInt(OpKernelContext* ctx, const Philox& base, int32_t lo,
                   int32_t hi, int32_t* out, int64_t n) {
  FillUniformInt(ctx, base, lo, hi, out, n);
}
void FillRandomInt(OpKernelContext* ctx, const Philox& base, int64_t lo,
                   int64_t hi, int64_t* out, int64_t n) {
  FillUniformInt(ctx, base, lo, hi, out, n);
}

}  // namespace tensorweave
