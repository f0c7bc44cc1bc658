// QuantizeAndDequantizeV2/V3/V4 and QuantizeAndDequantizeV4Grad, with
// TensorFlow's arithmetic: the grid's scale is taken from whichever end of
// [min, max] limits it more, the other end moved to match, then
// out = round(x * scale) * inverse, x first clamped to a given range.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// The input as [outer, depth, inner] around `axis` (depth 1 for -1).
struct Slices {
  int64_t outer = 1, depth = 1, inner = 1;
  Slices(const TensorShape& shape, int64_t axis) {
    for (int d = 0; d < shape.rank(); ++d) {
      if (axis == -1 || d > axis) {
        inner *= shape.dim(d);
      } else if (d == axis) {
        depth = shape.dim(d);
      } else {
        outer *= shape.dim(d);
      }
    }
  }
  template <typename F>
  void ForChannel(int64_t c, const F& f) const {  // f(flat index)
    for (int64_t o = 0; o < outer; ++o) {
      const int64_t base = (o * depth + c) * inner;
      for (int64_t i = 0; i < inner; ++i) f(base + i);
    }
  }
};

// `axis` names a dimension of the input (or is -1); a given range has one
// value per slice.
Status CheckAxis(const Tensor& input, int64_t axis, bool range_given,
                 const Tensor& lo, const Tensor& hi) {
  if (axis < -1 || axis >= input.shape().rank()) {
    return errors::InvalidArgument("axis should be -1 or a dimension of the ",
                                   "input (rank ", input.shape().rank(),
                                   "), got ", axis);
  }
  if (!range_given) return Status::OK();
  const int64_t want = axis == -1 ? 1 : input.shape().dim(axis);
  const int rank = axis == -1 ? 0 : 1;
  for (const Tensor* t : {&lo, &hi}) {
    if (t->shape().rank() != rank || t->num_elements() != want) {
      return errors::InvalidArgument(
          "input_min and input_max must be ",
          axis == -1 ? "scalars" : "vectors of the axis' length ", want,
          ", got ", t->shape().ToString());
    }
  }
  return Status::OK();
}

template <typename T>
void QuantizeDequantize(const T* in, T* out, const Slices& slices,
                        const T* given_min, const T* given_max,
                        bool signed_input, int num_bits, bool narrow_range,
                        bool half_up) {
  const T min_q =
      signed_input
          ? static_cast<T>(-(int64_t{1} << (num_bits - 1)) + narrow_range)
          : T(0);
  const T max_q = signed_input
                      ? static_cast<T>((int64_t{1} << (num_bits - 1)) - 1)
                      : static_cast<T>((int64_t{1} << num_bits) - 1);
  for (int64_t c = 0; c < slices.depth; ++c) {
    T lo, hi;
    if (given_min != nullptr) {
      lo = given_min[c];
      hi = given_max[c];
    } else {
      lo = std::numeric_limits<T>::infinity();
      hi = -std::numeric_limits<T>::infinity();
      slices.ForChannel(c, [&](int64_t i) {
        lo = std::min(lo, in[i]);
        hi = std::max(hi, in[i]);
      });
    }
    const T big = std::numeric_limits<T>::max();
    const T from_min = min_q * lo > 0 ? min_q / lo : big;
    const T from_max = max_q * hi > 0 ? max_q / hi : big;
    T scale, inverse;
    if (from_min < from_max) {
      scale = from_min;
      inverse = lo / min_q;
      hi = max_q * inverse;
    } else {
      scale = from_max;
      inverse = hi / max_q;
      lo = min_q * inverse;
    }
    // A given range clamps (the grid may not reach past it); the input's
    // own range does not (an unsigned grid then passes negatives through).
    const bool clamp = given_min != nullptr;
    slices.ForChannel(c, [&](int64_t i) {
      const T v = (clamp ? std::max(std::min(in[i], hi), lo) : in[i]) * scale;
      out[i] = (half_up ? std::floor(v + T(0.5)) : std::nearbyint(v)) * inverse;
    });
  }
}

class QuantizeAndDequantizeOp : public OpKernel {
 public:
  explicit QuantizeAndDequantizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("signed_input", &signed_input_));
    ctx->SetStatus(ctx->GetAttr("range_given", &range_given_));
    ctx->SetStatus(ctx->GetAttr("narrow_range", &narrow_range_));
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
    num_bits_from_input_ =
        ctx->node().type_string() == "QuantizeAndDequantizeV3";
    if (!num_bits_from_input_) {
      ctx->SetStatus(ctx->GetAttr("num_bits", &num_bits_));
      std::string round_mode;
      ctx->SetStatus(ctx->GetAttr("round_mode", &round_mode));
      half_up_ = round_mode == "HALF_UP";
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckAxis(input, axis_, range_given_, lo, hi));
    int64_t num_bits = num_bits_;
    if (num_bits_from_input_) {
      const Tensor& bits = ctx->input(3);
      OP_REQUIRES(ctx, bits.shape().rank() == 0,
                  errors::InvalidArgument("num_bits must be a scalar, got ",
                                          bits.shape().ToString()));
      num_bits = bits.data<int32_t>()[0];
    }
    const int64_t limit = signed_input_ ? 62 : 63;
    OP_REQUIRES(ctx, num_bits > 0 && num_bits < limit,
                errors::InvalidArgument("num_bits is out of range: ", num_bits,
                                        " with signed_input ",
                                        signed_input_ ? "true" : "false"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const Slices slices(input.shape(), axis_);
    if (input.num_elements() == 0) return;
    if (input.dtype() == DT_DOUBLE) {
      Run<double>(ctx, input, lo, hi, out, slices, num_bits);
    } else if (input.dtype() == DT_FLOAT) {
      Run<float>(ctx, input, lo, hi, out, slices, num_bits);
    } else {
      ctx->SetStatus(errors::Unimplemented(
          "QuantizeAndDequantize takes float32 or float64 here, got ",
          DataTypeName(input.dtype())));
    }
  }

 private:
  template <typename T>
  void Run(OpKernelContext* ctx, const Tensor& input, const Tensor& lo,
           const Tensor& hi, Tensor* out, const Slices& slices,
           int64_t num_bits) {
    if (range_given_) {
      for (int64_t c = 0; c < slices.depth; ++c) {
        OP_REQUIRES(ctx, lo.data<T>()[c] <= hi.data<T>()[c],
                    errors::InvalidArgument("Invalid range: input_min ",
                                            lo.data<T>()[c], " > input_max ",
                                            hi.data<T>()[c]));
      }
    }
    QuantizeDequantize<T>(input.data<T>(), out->data<T>(), slices,
                          range_given_ ? lo.data<T>() : nullptr,
                          range_given_ ? hi.data<T>() : nullptr, signed_input_,
                          static_cast<int>(num_bits), narrow_range_, half_up_);
  }

  bool signed_input_ = true, range_given_ = false, narrow_range_ = false;
  bool half_up_ = false, num_bits_from_input_ = false;
  int64_t num_bits_ = 8, axis_ = -1;
};

class QuantizeAndDequantizeV4GradOp : public OpKernel {
 public:
  explicit QuantizeAndDequantizeV4GradOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& input = ctx->input(1);
    const Tensor& lo = ctx->input(2);
    const Tensor& hi = ctx->input(3);
    OP_REQUIRES(
        ctx, grad.shape() == input.shape(),
        errors::InvalidArgument(
            "gradients and input must have the same shape, got ",
            grad.shape().ToString(), " and ", input.shape().ToString()));
    OP_REQUIRES_OK(ctx, CheckAxis(input, axis_, /*range_given=*/true, lo, hi));
    Tensor *dx, *dlo, *dhi;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &dx));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, lo.shape(), &dlo));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, hi.shape(), &dhi));
    const Slices slices(input.shape(), axis_);
    if (input.dtype() == DT_DOUBLE) {
      Run<double>(grad, input, lo, hi, dx, dlo, dhi, slices);
    } else if (input.dtype() == DT_FLOAT) {
      Run<float>(grad, input, lo, hi, dx, dlo, dhi, slices);
    } else {
      ctx->SetStatus(errors::Unimplemented(
          "QuantizeAndDequantizeV4Grad takes float32 or float64 here, got ",
          DataTypeName(input.dtype())));
    }
  }

 private:
  template <typename T>
  static void Run(const Tensor& grad, const Tensor& input, const Tensor& lo,
                  const Tensor& hi, Tensor* dx, Tensor* dlo, Tensor* dhi,
                  const Slices& slices) {
    const T* g = grad.data<T>();
    const T* x = input.data<T>();
    T* d = dx->data<T>();
    for (int64_t c = 0; c < slices.depth; ++c) {
      const T low = lo.data<T>()[c], high = hi.data<T>()[c];
      slices.ForChannel(c, [&](int64_t i) {
        d[i] = x[i] >= low && x[i] <= high ? g[i] : T(0);
      });
      dlo->data<T>()[c] = T(0);
      dhi->data<T>()[c] = T(0);
    }
  }

  int64_t axis_ = -1;
};

REGISTER_KERNEL(KernelDef("QuantizeAndDequantizeV2"), QuantizeAndDequantizeOp);
REGISTER_KERNEL(KernelDef("QuantizeAndDequantizeV3"), QuantizeAndDequantizeOp);
REGISTER_KERNEL(KernelDef("QuantizeAndDequantizeV4"), QuantizeAndDequantizeOp);
REGISTER_KERNEL(KernelDef("QuantizeAndDequantizeV4Grad"),
                QuantizeAndDequantizeV4GradOp);

}  // namespace
}  // namespace tensorweave
