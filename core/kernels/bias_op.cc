// BiasAdd and BiasAddGrad: a bias [C] along the channel dim (last for NHWC,
// third from last for NCHW).
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

// value viewed as [outer, channels, inner].
struct BiasLayout {
  int64_t outer = 1, channels = 1, inner = 1;
};

Status GetBiasLayout(const TensorShape& shape, const std::string& data_format,
                     BiasLayout* layout) {
  const bool nchw = data_format == "NCHW";
  if (shape.rank() < (nchw ? 3 : 2)) {
    return errors::InvalidArgument("value must be at least rank ", nchw ? 3 : 2,
                                   " for ", data_format, ", got shape ",
                                   shape.ToString());
  }
  const int dim = nchw ? shape.rank() - 3 : shape.rank() - 1;
  for (int i = 0; i < shape.rank(); ++i) {
    if (i < dim) layout->outer *= shape.dim(i);
    if (i > dim) layout->inner *= shape.dim(i);
  }
  layout->channels = shape.dim(dim);
  return Status::OK();
}

class BiasOpBase : public OpKernel {
 public:
  explicit BiasOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("data_format", &data_format_));
  }

 protected:
  std::string data_format_;
};

// Calls fn(begin, end) over units of `unit_size` elements, in parallel when
// there are enough elements.
void ForUnits(OpKernelContext* ctx, int64_t units, int64_t unit_size,
              const std::function<void(int64_t, int64_t)>& fn) {
  if (units * unit_size < kParallelElementThreshold ||
      ctx->intra_op_pool() == nullptr) {
    fn(0, units);
    return;
  }
  ctx->intra_op_pool()->ParallelFor(
      units, std::max<int64_t>(1, kParallelElementThreshold / 4 / unit_size),
      fn);
}

// Rows of C channels are handled in stretches of at least 64 elements (a
// few rows against the bias repeated as often) so that the inner loop is long
// enough to vectorize even for a handful of channels.
int64_t RowsPerStretch(int64_t channels) {
  return std::max<int64_t>(1, 64 / channels);
}

// out = in + bias[channel]. NHWC: stretch by stretch against a repeated bias.
// NCHW: one plane of a channel at a time.
template <typename T>
void AddBias(OpKernelContext* ctx, const T* in, const T* bias,
             const BiasLayout& l, T* out) {
  if (l.inner == 1) {
    const int64_t rows = RowsPerStretch(l.channels);
    const int64_t stretch = rows * l.channels;
    std::vector<T> repeated;
    const T* pattern = bias;
    if (rows > 1) {
      repeated.resize(stretch);
      for (int64_t r = 0; r < rows; ++r) {
        std::copy(bias, bias + l.channels, repeated.data() + r * l.channels);
      }
      pattern = repeated.data();
    }
    const int64_t total = l.outer * l.channels;
    const int64_t units = (total + stretch - 1) / stretch;
    ForUnits(ctx, units, stretch, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        const int64_t i0 = u * stretch;
        const int64_t n = std::min(stretch, total - i0);
        for (int64_t j = 0; j < n; ++j) {
          out[i0 + j] = WrappingAdd(in[i0 + j], pattern[j]);
        }
      }
    });
    return;
  }
  ForUnits(ctx, l.outer * l.channels, l.inner, [&](int64_t b, int64_t e) {
    for (int64_t plane = b; plane < e; ++plane) {
      const T bc = bias[plane % l.channels];
      const T* p = in + plane * l.inner;
      T* o = out + plane * l.inner;
      for (int64_t i = 0; i < l.inner; ++i) o[i] = WrappingAdd(p[i], bc);
    }
  });
}

class BiasAddOp : public BiasOpBase {
 public:
  using BiasOpBase::BiasOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    BiasLayout l;
    OP_REQUIRES_OK(ctx, GetBiasLayout(value.shape(), data_format_, &l));
    OP_REQUIRES(
        ctx, bias.rank() == 1 && bias.dim(0) == l.channels,
        errors::InvalidArgument("bias must be a vector of ", l.channels,
                                " elements (the channel dim of value ",
                                value.shape().ToString(), "), got shape ",
                                bias.shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, value.shape(), &out));
    if (value.num_elements() == 0) return;  // no channels or no rows
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES, bfloat16, TW_COMPLEX_TYPES>(
                            value.dtype(), [&](auto t) {
                              using T = decltype(t);
                              AddBias(ctx, value.data<T>(), bias.data<T>(), l,
                                      out->data<T>());
                              return Status::OK();
                            }));
  }
};

class BiasAddGradOp : public BiasOpBase {
 public:
  using BiasOpBase::BiasOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    BiasLayout l;
    OP_REQUIRES_OK(ctx, GetBiasLayout(grad.shape(), data_format_, &l));
    Tensor* out;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({l.channels}), &out));
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES, bfloat16, TW_COMPLEX_TYPES>(
                            grad.dtype(), [&](auto t) {
                              using T = decltype(t);
                              // No rows: the sums are zero (no channels: no
                              // sums).
                              if (grad.num_elements() == 0) {
                                std::fill_n(out->data<T>(), l.channels, T(0));
                                return Status::OK();
                              }
                              if constexpr (std::is_same_v<T, bfloat16>) {
                                // Summed in float, rounded once (as
                                // TensorFlow's accumulator type).
                                const T* g = grad.data<T>();
                                std::vector<float> wide(grad.num_elements());
                                for (size_t i = 0; i < wide.size(); ++i)
                                  wide[i] = ToFloat(g[i]);
                                std::vector<float> sums(l.channels);
                                SumToChannels(wide.data(), l, sums.data());
                                for (int64_t c = 0; c < l.channels; ++c)
                                  out->data<T>()[c] = T(sums[c]);
                              } else {
                                SumToChannels(grad.data<T>(), l,
                                              out->data<T>());
                              }
                              return Status::OK();
                            }));
  }

 private:
  template <typename T>
  static void SumToChannels(const T* g, const BiasLayout& l, T* out) {
    std::fill(out, out + l.channels, T(0));
    if (l.inner == 1) {
      // Accumulate stretch by stretch (see AddBias), then fold the rows.
      const int64_t rows = RowsPerStretch(l.channels);
      const int64_t stretch = rows * l.channels;
      std::vector<T> acc(stretch, T(0));
      const int64_t total = l.outer * l.channels;
      int64_t i = 0;
      for (; i + stretch <= total; i += stretch) {
        for (int64_t j = 0; j < stretch; ++j)
          acc[j] = WrappingAdd(acc[j], g[i + j]);
      }
      for (int64_t j = 0; i + j < total; ++j)
        acc[j] = WrappingAdd(acc[j], g[i + j]);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < l.channels; ++c) {
          out[c] = WrappingAdd(out[c], acc[r * l.channels + c]);
        }
      }
      return;
    }
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t c = 0; c < l.channels; ++c) {
        const T* p = g + (o * l.channels + c) * l.inner;
        T sum = 0;
        for (int64_t i = 0; i < l.inner; ++i) sum = WrappingAdd(sum, p[i]);
        out[c] = WrappingAdd(out[c], sum);
      }
    }
  }
};

REGISTER_KERNEL(KernelDef("BiasAdd"), BiasAddOp);
REGISTER_KERNEL(KernelDef("BiasAddGrad"), BiasAddGradOp);

}  // namespace
}  // namespace tensorweave
