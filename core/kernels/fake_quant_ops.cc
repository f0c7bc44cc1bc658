// FakeQuantWithMinMax{Args,Vars,VarsPerChannel} and their gradients: the
// float arithmetic of TensorFlow's kernels (same nudging, same rounding), so
// that a model trained with them quantizes to the values it was trained on.
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace {

// [min, max] moved so that 0.0 is exactly a level of the grid.
struct Grid {
  float nudged_min = 0, nudged_max = 0, scale = 0, inv_scale = 0;
  float quant_zero = 0;
  bool zero = false;  // min == max == 0: everything is 0

  Grid(float min, float max, int num_bits, bool narrow_range) {
    if (min == 0.0f && max == 0.0f) {
      zero = true;
      return;
    }
    const float quant_min = narrow_range ? 1.0f : 0.0f;
    const float quant_max = static_cast<float>((1 << num_bits) - 1);
    scale = (max - min) / (quant_max - quant_min);
    inv_scale = (quant_max - quant_min) / (max - min);
    const float zero_from_min = quant_min - min / scale;
    float nudged_zero;
    if (zero_from_min < quant_min) {
      nudged_zero = quant_min;
    } else if (zero_from_min > quant_max) {
      nudged_zero = quant_max;
    } else {
      // TensorFlow keeps the zero point as a uint16.
      nudged_zero =
          static_cast<float>(static_cast<uint16_t>(std::round(zero_from_min)));
    }
    nudged_min = (quant_min - nudged_zero) * scale;
    nudged_max = (quant_max - nudged_zero) * scale;
    quant_zero = std::floor(-nudged_min * inv_scale + 0.5f);
  }

  float Quantize(float x) const {
    if (zero) return 0.0f;
    // As TensorFlow's x.cwiseMin(nudged_max).cwiseMax(nudged_min): NaN passes
    // through, and nudged_min wins when min > max inverts the range.
    const float below = std::isnan(x) || x <= nudged_max ? x : nudged_max;
    const float clamped = below < nudged_min ? nudged_min : below;
    return std::floor((clamped - nudged_min) * inv_scale - quant_zero + 0.5f) *
           scale;
  }
  bool Passes(float x) const {
    return zero || (x >= nudged_min && x <= nudged_max);
  }
};

Status CheckNumBits(int num_bits) {
  if (num_bits < 2 || num_bits > 16) {
    return errors::InvalidArgument(
        "num_bits is out of range, expected between 2 and 16, was: ", num_bits);
  }
  return Status::OK();
}

// num_bits and narrow_range, checked when the kernel is made.
struct BitsAttrs {
  int num_bits = 8;
  bool narrow_range = false;
  explicit BitsAttrs(OpKernelConstruction* ctx) {
    int64_t bits = 8;
    ctx->SetStatus(ctx->GetAttr("num_bits", &bits));
    ctx->SetStatus(ctx->GetAttr("narrow_range", &narrow_range));
    num_bits = static_cast<int>(bits);
    ctx->SetStatus(CheckNumBits(num_bits));
  }
};

// Reads min and max (inputs `first`, `first + 1`): scalars, or with
// `channels` >= 0 vectors of that length.
Status ReadRange(OpKernelContext* ctx, int first, int64_t channels,
                 const float** min, const float** max) {
  for (int i = first; i < first + 2; ++i) {
    const Tensor& t = ctx->input(i);
    const bool ok = channels < 0
                        ? t.shape().rank() == 0
                        : t.shape().rank() == 1 && t.shape().dim(0) == channels;
    if (!ok) {
      return errors::InvalidArgument(
          i == first ? "min" : "max", " must be ",
          channels < 0
              ? std::string("a scalar")
              : StrCat("a vector of ", channels, " values (one per channel)"),
          ", got shape ", t.shape().ToString());
    }
  }
  *min = ctx->input(first).data<float>();
  *max = ctx->input(first + 1).data<float>();
  return Status::OK();
}

// The gradient ops' gradients (input 0) and inputs (input 1) agree.
Status CheckGradientShape(OpKernelContext* ctx) {
  const TensorShape& g = ctx->input(0).shape();
  const TensorShape& x = ctx->input(1).shape();
  if (!(g == x)) {
    return errors::InvalidArgument(
        "gradients and inputs must have the same shape, got ", g.ToString(),
        " and ", x.ToString());
  }
  return Status::OK();
}

// The channel count of per-channel inputs: their last dimension.
Status Channels(const Tensor& inputs, int64_t* channels) {
  const int rank = inputs.shape().rank();
  if (rank < 1 || rank > 4) {
    return errors::InvalidArgument("inputs must have rank 1 to 4, got shape ",
                                   inputs.shape().ToString());
  }
  *channels = inputs.shape().dim(rank - 1);
  return Status::OK();
}

class FakeQuantArgsOp : public OpKernel {
 public:
  explicit FakeQuantArgsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), bits_(ctx) {
    ctx->SetStatus(ctx->GetAttr("min", &min_));
    ctx->SetStatus(ctx->GetAttr("max", &max_));
    if (!(min_ < max_)) {
      ctx->SetStatus(errors::InvalidArgument(
          "min has to be smaller than max, was: min=", min_, ", max=", max_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const bool gradient = ctx->num_inputs() == 2;
    const Tensor& x = ctx->input(gradient ? 1 : 0);
    if (gradient) OP_REQUIRES_OK(ctx, CheckGradientShape(ctx));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const Grid grid(min_, max_, bits_.num_bits, bits_.narrow_range);
    const float* in = x.data<float>();
    const float* g = gradient ? ctx->input(0).data<float>() : nullptr;
    float* o = out->data<float>();
    ForRange(ctx, x.num_elements(), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        o[i] = gradient ? (grid.Passes(in[i]) ? g[i] : 0.0f)
                        : grid.Quantize(in[i]);
      }
    });
  }

 private:
  BitsAttrs bits_;
  float min_ = -6, max_ = 6;
};

// FakeQuantWithMinMaxVars (per_channel false) and ...PerChannel, and with
// `gradient` their gradient ops.
template <bool kPerChannel, bool kGradient>
class FakeQuantVarsOp : public OpKernel {
 public:
  explicit FakeQuantVarsOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), bits_(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int x_index = kGradient ? 1 : 0;
    const Tensor& x = ctx->input(x_index);
    if (kGradient) OP_REQUIRES_OK(ctx, CheckGradientShape(ctx));
    int64_t channels = -1;
    if (kPerChannel) OP_REQUIRES_OK(ctx, Channels(x, &channels));
    const float *min, *max;
    OP_REQUIRES_OK(ctx, ReadRange(ctx, x_index + 1, channels, &min, &max));
    const int64_t num_grids = kPerChannel ? channels : 1;
    std::vector<Grid> grids;
    grids.reserve(num_grids);
    for (int64_t c = 0; c < num_grids; ++c) {
      grids.emplace_back(min[c], max[c], bits_.num_bits, bits_.narrow_range);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const float* in = x.data<float>();
    float* o = out->data<float>();
    const int64_t n = x.num_elements();
    if (!kGradient) {
      ForRange(ctx, n, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          o[i] = grids[kPerChannel ? i % num_grids : 0].Quantize(in[i]);
        }
      });
      return;
    }
    const TensorShape range_shape =
        kPerChannel ? TensorShape({channels}) : TensorShape();
    Tensor *d_min, *d_max;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, range_shape, &d_min));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, range_shape, &d_max));
    float* dmin = d_min->data<float>();
    float* dmax = d_max->data<float>();
    std::fill(dmin, dmin + num_grids, 0.0f);
    std::fill(dmax, dmax + num_grids, 0.0f);
    const float* g = ctx->input(0).data<float>();
    for (int64_t i = 0; i < n; ++i) {
      const int64_t c = kPerChannel ? i % num_grids : 0;
      const Grid& grid = grids[c];
      const bool passes = grid.Passes(in[i]);
      o[i] = passes ? g[i] : 0.0f;
      if (grid.zero) continue;
      if (in[i] < grid.nudged_min) dmin[c] += g[i];
      if (in[i] > grid.nudged_max) dmax[c] += g[i];
    }
  }

 private:
  BitsAttrs bits_;
};

REGISTER_KERNEL(KernelDef("FakeQuantWithMinMaxArgs"), FakeQuantArgsOp);
REGISTER_KERNEL(KernelDef("FakeQuantWithMinMaxArgsGradient"), FakeQuantArgsOp);
REGISTER_KERNEL(KernelDef("FakeQuantWithMinMaxVars"),
                FakeQuantVarsOp<false, false>);
REGISTER_KERNEL(KernelDef("FakeQuantWithMinMaxVarsGradient"),
                FakeQuantVarsOp<false, true>);
REGISTER_KERNEL(KernelDef("FakeQuantWithMinMaxVarsPerChannel"),
                FakeQuantVarsOp<true, false>);
REGISTER_KERNEL(KernelDef("FakeQuantWithMinMaxVarsPerChannelGradient"),
                FakeQuantVarsOp<true, true>);

}  // namespace
}  // namespace tensorweave
