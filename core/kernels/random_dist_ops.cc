// RandomGamma and RandomPoissonV2 kernels: `shape` draws for each parameter
// value, from the node's Philox stream (seeded by its seed and seed2 attrs).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/random_ops.h"

namespace tensorweave {
namespace {

// Words from a Philox stream, one at a time.
Philox SeededGenerator(OpKernelConstruction* ctx) {
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

template <typename P>
double ToDouble(P v) {
  if constexpr (kIsReducedFloat<P>) {
    return ToFloat(v);
  } else {
    return static_cast<double>(v);
  }
}

// TensorFlow's gamma and Poisson draws (its random_gamma_op.cc and
// random_poisson_op.cc), value for value: output k (parameter-major: draw s
// of parameter j is output j * draws + s) starts 256 blocks into the run's
// stream, and takes doubles from blocks (a uniform block: two doubles, a
// normal block: two Box-Muller normals), the second of each pair first.
class TfDoubles {
 public:
  explicit TfDoubles(const Philox& base, int64_t output) : gen_(base) {
    gen_.Skip(kBlocksPerOutput * static_cast<uint64_t>(output));
  }
  static constexpr uint64_t kBlocksPerOutput = 256;
  double Uniform() { return Take(&uniform_, &uniform_left_, false); }
  double Normal() { return Take(&normal_, &normal_left_, true); }

 private:
  double Take(std::array<double, 2>* pair, int* left, bool normal) {
    if (*left == 0) {
      const Philox::Block x = gen_.Next();
      if (normal) {
        BoxMuller(x.data(), &(*pair)[0], &(*pair)[1]);
      } else {
        *pair = {Uint64ToDouble(x[0], x[1]), Uint64ToDouble(x[2], x[3])};
      }
      *left = 2;
    }
    return (*pair)[--*left];
  }

  Philox gen_;
  std::array<double, 2> uniform_{}, normal_{};
  int uniform_left_ = 0, normal_left_ = 0;
};

// Marsaglia and Tsang (2000); alpha < 1 through alpha + 2/3 and
// u^(1/alpha), alpha 1 as an exponential (TensorFlow's forms of them).
double SampleGamma(TfDoubles* r, double alpha) {
  if (alpha == 1.0) return -std::log1p(-r->Uniform());
  const bool below_one = alpha < 1;
  const double d = alpha + (below_one ? 2.0 / 3 : -1.0 / 3);
  const double c = 1.0 / 3 / std::sqrt(d);
  while (true) {
    const double x = r->Normal();
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = r->Uniform();
    if (u < 1 - 0.0331 * (x * x) * (x * x) ||
        std::log(u) < 0.5 * x * x + d * (1 - v + std::log(v))) {
      double result = d * v;
      if (below_one) result *= std::pow(r->Uniform(), 1 / alpha);
      return result;
    }
  }
}

// Below rate 10: count uniforms until their product drops to exp(-rate)
// (Knuth); above: Hormann's transformed rejection (PTRS, 1993). A NaN rate
// is NaN (TensorFlow's rejection loop would never end).
double SamplePoisson(TfDoubles* r, double rate) {
  if (std::isnan(rate)) return rate;
  if (rate < 10) {
    const double limit = std::exp(-rate);
    double product = 1, k = 0;
    while (true) {
      product *= r->Uniform();
      if (product <= limit) return k;
      k += 1;
    }
  }
  if (std::isinf(rate)) return rate;
  const double log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * std::sqrt(rate);
  const double a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
  while (true) {
    const double u = r->Uniform() - 0.5;
    const double v = r->Uniform();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + rate + 0.43);
    if (k < 0) continue;
    if (us >= 0.07 && v <= 0.9277 - 3.6224 / (b - 2)) return k;
    if (us < 0.013 && v > us) continue;
    if (std::log(v * inv_alpha / (a / (us * us) + b)) <=
        -rate + k * log_rate - std::lgamma(k + 1)) {
      return k;
    }
  }
}

// A draw converted to the output dtype. An integer output cannot hold a
// NaN draw (a NaN or negative parameter) or one past its range (a huge
// rate): InvalidArgument, not an undefined conversion.
template <typename T>
Status StoreDraw(double draw, double param, T* out) {
  if constexpr (std::is_integral_v<T>) {
    // 2^63 and 2^31 are exact doubles; the largest values below them are
    // the largest T that a double converts to without overflow.
    constexpr double kLimit =
        static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
    if (!(draw >= 0 && draw < kLimit)) {
      return errors::InvalidArgument("a draw for parameter ", param,
                                     " does not fit the output dtype ",
                                     DataTypeName(DataTypeOf<T>::value));
    }
  }
  *out = static_cast<T>(draw);
  return Status::OK();
}

// Output [shape..., param...]: draw s of parameter j at s * params + j,
// drawn as TensorFlow's output j * draws + s of the stream `base`.
template <double (*Sample)(TfDoubles*, double)>
Status FillDraws(const Philox& base, const std::vector<double>& values,
                 int64_t draws, Tensor* out) {
  const int64_t params = static_cast<int64_t>(values.size());
  return DispatchType<TW_ALL_FLOAT_TYPES, int32_t, int64_t>(
      out->dtype(), [&](auto tag) {
        using T = decltype(tag);
        T* o = out->data<T>();
        for (int64_t j = 0; j < params; ++j) {
          for (int64_t s = 0; s < draws; ++s) {
            TfDoubles r(base, j * draws + s);
            TW_RETURN_IF_ERROR(StoreDraw(Sample(&r, values[j]), values[j],
                                         &o[s * params + j]));
          }
        }
        return Status::OK();
      });
}

// The parameters as doubles.
Status ParamValues(const Tensor& param, std::vector<double>* values) {
  values->resize(param.num_elements());
  return DispatchType<TW_ALL_FLOAT_TYPES, int32_t, int64_t>(
      param.dtype(), [&](auto tag) {
        using P = decltype(tag);
        const P* p = param.data<P>();
        for (size_t j = 0; j < values->size(); ++j) {
          (*values)[j] = ToDouble(p[j]);
        }
        return Status::OK();
      });
}

template <double (*Sample)(TfDoubles*, double)>
class DrawsOp : public OpKernel {
 public:
  explicit DrawsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(SeededGenerator(ctx)) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_tensor = ctx->input(0);
    const Tensor& param = ctx->input(1);
    OP_REQUIRES(ctx, shape_tensor.rank() == 1,
                errors::InvalidArgument("shape must be a vector, got shape ",
                                        shape_tensor.shape().ToString()));
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(shape_tensor, &dims));
    for (int64_t d : dims) {
      OP_REQUIRES(
          ctx, d >= 0,
          errors::InvalidArgument("shape has a negative dimension: ", d));
    }
    for (int i = 0; i < param.rank(); ++i) dims.push_back(param.dim(i));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t params = param.num_elements();
    // From the output's checked size: the product of `shape` alone may
    // overflow, or be huge while no parameter makes the output empty (a
    // loop of that many empty rows would hang).
    const int64_t draws = params == 0 ? 0 : out->num_elements() / params;
    std::vector<double> values;
    OP_REQUIRES_OK(ctx, ParamValues(param, &values));
    // As TensorFlow: the run reserves 256 blocks per output.
    const Philox base = gen_.Reserve(static_cast<uint64_t>(draws * params) *
                                     TfDoubles::kBlocksPerOutput);
    OP_REQUIRES_OK(ctx, FillDraws<Sample>(base, values, draws, out));
  }

 private:
  GuardedPhilox gen_;
};

// --- stateless ops: a fresh generator from the seed input on every run ---

// The output's shape and TensorFlow's stateless generator for the seed.
Status StatelessSetup(OpKernelContext* ctx, Philox* tf_gen,
                      TensorShape* shape) {
  const Tensor& seed = ctx->input(1);
  if (seed.rank() != 1 || seed.dim(0) != 2) {
    return errors::InvalidArgument("seed must have shape [2], not ",
                                   seed.shape().ToString());
  }
  std::vector<int64_t> s, dims;
  TW_RETURN_IF_ERROR(ReadIndexVector(seed, &s));
  const Tensor& shape_tensor = ctx->input(0);
  if (shape_tensor.rank() != 1) {
    return errors::InvalidArgument("shape must be a vector, got shape ",
                                   shape_tensor.shape().ToString());
  }
  TW_RETURN_IF_ERROR(ReadIndexVector(shape_tensor, &dims));
  for (int64_t d : dims) {
    if (d < 0) {
      return errors::InvalidArgument("shape has a negative dimension: ", d);
    }
  }
  *tf_gen = TensorFlowStatelessPhilox(static_cast<uint64_t>(s[0]),
                                      static_cast<uint64_t>(s[1]));
  *shape = TensorShape(dims);
  return Status::OK();
}

enum class Stateless { kUniform, kNormal, kTruncatedNormal };

// TensorFlow's values for the seed (its stateless generator, its
// distributions), in every float dtype.
template <Stateless kDist>
class StatelessRandomOp : public OpKernel {
 public:
  explicit StatelessRandomOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Philox tf_gen(0, 0);
    TensorShape shape;
    OP_REQUIRES_OK(ctx, StatelessSetup(ctx, &tf_gen, &shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    constexpr RandomDistribution kKind =
        kDist == Stateless::kUniform  ? RandomDistribution::kUniform
        : kDist == Stateless::kNormal ? RandomDistribution::kNormal
                                      : RandomDistribution::kTruncatedNormal;
    OP_REQUIRES_OK(ctx, FillRandom(ctx, kKind, tf_gen, out));
  }
};

class StatelessRandomUniformIntOp : public OpKernel {
 public:
  explicit StatelessRandomUniformIntOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Philox tf_gen(0, 0);
    TensorShape shape;
    OP_REQUIRES_OK(ctx, StatelessSetup(ctx, &tf_gen, &shape));
    std::vector<int64_t> lo, hi;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &lo));
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(3), &hi));
    OP_REQUIRES(ctx, ctx->input(2).rank() == 0 && ctx->input(3).rank() == 0,
                errors::InvalidArgument("minval and maxval must be scalars"));
    OP_REQUIRES(ctx, lo[0] < hi[0],
                errors::InvalidArgument("Need minval < maxval: ", lo[0],
                                        " >= ", hi[0]));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    // TensorFlow's values: its stateless generator, a word (two for int64)
    // modulo the range.
    if (out->dtype() == DT_INT32) {
      FillRandomInt(ctx, tf_gen, static_cast<int32_t>(lo[0]),
                    static_cast<int32_t>(hi[0]), out->data<int32_t>(),
                    out->num_elements());
    } else {
      FillRandomInt(ctx, tf_gen, lo[0], hi[0], out->data<int64_t>(),
                    out->num_elements());
    }
  }
};

// TensorFlow's draws for the seed: its multinomial from its stateless
// generator.
class StatelessMultinomialOp : public OpKernel {
 public:
  explicit StatelessMultinomialOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& seed = ctx->input(2);
    OP_REQUIRES(ctx, logits.rank() == 2,
                errors::InvalidArgument("logits should be a matrix, got shape ",
                                        logits.shape().ToString()));
    OP_REQUIRES(ctx, seed.rank() == 1 && seed.dim(0) == 2,
                errors::InvalidArgument("seed must have shape [2], not ",
                                        seed.shape().ToString()));
    OP_REQUIRES(ctx, ctx->input(1).num_elements() == 1,
                errors::InvalidArgument("num_samples should be a scalar, got "
                                        "shape ",
                                        ctx->input(1).shape().ToString()));
    const int64_t num_samples = ctx->input(1).data<int32_t>()[0];
    OP_REQUIRES(ctx, num_samples >= 0,
                errors::InvalidArgument("num_samples should be nonnegative, "
                                        "got ",
                                        num_samples));
    std::vector<int64_t> s;
    OP_REQUIRES_OK(ctx, ReadIndexVector(seed, &s));
    const int64_t batch = logits.dim(0), classes = logits.dim(1);
    OP_REQUIRES(ctx, classes > 0 || num_samples == 0 || batch == 0,
                errors::InvalidArgument("num_classes should be positive, got ",
                                        classes));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, num_samples}), &out));
    OP_REQUIRES_OK(ctx, SampleMultinomial(ctx, logits,
                                          TensorFlowStatelessPhilox(
                                              static_cast<uint64_t>(s[0]),
                                              static_cast<uint64_t>(s[1])),
                                          out));
  }
};

// Draws of the given shape; the parameter (input 2) is a scalar or of the
// output's trailing shape. TensorFlow's values for the seed.
template <double (*Sample)(TfDoubles*, double)>
class StatelessDrawsOp : public OpKernel {
 public:
  explicit StatelessDrawsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Philox tf_gen(0, 0);
    TensorShape shape;
    OP_REQUIRES_OK(ctx, StatelessSetup(ctx, &tf_gen, &shape));
    const Tensor& param = ctx->input(2);
    bool suffix = param.rank() <= shape.rank();
    for (int i = 0; suffix && i < param.rank(); ++i) {
      suffix =
          param.dim(param.rank() - 1 - i) == shape.dim(shape.rank() - 1 - i);
    }
    OP_REQUIRES(ctx, param.num_elements() == 1 || suffix,
                errors::InvalidArgument(
                    "the parameter's shape ", param.shape().ToString(),
                    " must be a scalar or the trailing dims of shape ",
                    shape.ToString()));
    std::vector<double> values;
    OP_REQUIRES_OK(ctx, ParamValues(param, &values));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t params = static_cast<int64_t>(values.size());
    const int64_t draws = params == 0 ? 0 : out->num_elements() / params;
    OP_REQUIRES_OK(ctx, FillDraws<Sample>(tf_gen, values, draws, out));
  }
};

REGISTER_KERNEL(KernelDef("StatelessRandomUniform"),
                StatelessRandomOp<Stateless::kUniform>);
REGISTER_KERNEL(KernelDef("StatelessRandomNormal"),
                StatelessRandomOp<Stateless::kNormal>);
REGISTER_KERNEL(KernelDef("StatelessTruncatedNormal"),
                StatelessRandomOp<Stateless::kTruncatedNormal>);
REGISTER_KERNEL(KernelDef("StatelessRandomUniformInt"),
                StatelessRandomUniformIntOp);
REGISTER_KERNEL(KernelDef("StatelessMultinomial"), StatelessMultinomialOp);
REGISTER_KERNEL(KernelDef("StatelessRandomGammaV2"),
                StatelessDrawsOp<SampleGamma>);
REGISTER_KERNEL(KernelDef("StatelessRandomPoisson"),
                StatelessDrawsOp<SamplePoisson>);
REGISTER_KERNEL(KernelDef("RandomGamma"), DrawsOp<SampleGamma>);
REGISTER_KERNEL(KernelDef("RandomPoissonV2"), DrawsOp<SamplePoisson>);

}  // namespace
}  // namespace tensorweave
