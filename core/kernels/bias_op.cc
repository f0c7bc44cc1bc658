// BiasAdd and BiasAddGrad: a bias [C] along the channel dim (last for NHWC,
// third from last for NCHW).
#include <algorithm>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"

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
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_REAL_TYPES>(value.dtype(), [&](auto t) {
          using T = decltype(t);
          const T* in = value.data<T>();
          const T* b = bias.data<T>();
          T* o = out->data<T>();
          const int64_t row = l.channels * l.inner;
          ForRange(ctx, l.outer * row, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end;) {
              // One stretch of constant channel per inner loop.
              const int64_t c = (i % row) / l.inner;
              const int64_t stop = std::min(end, i - i % l.inner + l.inner);
              if (l.inner == 1) {
                // NHWC: walk whole rows of channels.
                const int64_t row_stop = std::min(end, i - c + l.channels);
                for (int64_t j = i; j < row_stop; ++j) {
                  o[j] = in[j] + b[c + (j - i)];
                }
                i = row_stop;
                continue;
              }
              const T bc = b[c];
              for (int64_t j = i; j < stop; ++j) o[j] = in[j] + bc;
              i = stop;
            }
          });
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
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES>(grad.dtype(), [&](auto t) {
                     using T = decltype(t);
                     SumToChannels(grad.data<T>(), l, out->data<T>());
                     return Status::OK();
                   }));
  }

 private:
  template <typename T>
  static void SumToChannels(const T* g, const BiasLayout& l, T* out) {
    std::fill(out, out + l.channels, T(0));
    if (l.inner == 1) {
      // Consecutive rows of C channels: accumulate in a stretch of 16 rows so
      // that the inner loop is long and vectorizes, then fold.
      const int64_t stretch = l.channels * 16;
      std::vector<T> acc(stretch, T(0));
      const int64_t total = l.outer * l.channels;
      int64_t i = 0;
      for (; i + stretch <= total; i += stretch) {
        for (int64_t j = 0; j < stretch; ++j) acc[j] += g[i + j];
      }
      for (int64_t j = 0; i + j < total; ++j) acc[j] += g[i + j];
      for (int64_t j = 0; j < stretch; ++j) out[j % l.channels] += acc[j];
      return;
    }
    for (int64_t o = 0; o < l.outer; ++o) {
      for (int64_t c = 0; c < l.channels; ++c) {
        const T* p = g + (o * l.channels + c) * l.inner;
        T sum = 0;
        for (int64_t i = 0; i < l.inner; ++i) sum += p[i];
        out[c] += sum;
      }
    }
  }
};

REGISTER_KERNEL(KernelDef("BiasAdd"), BiasAddOp);
REGISTER_KERNEL(KernelDef("BiasAddGrad"), BiasAddGradOp);

}  // namespace
}  // namespace tensorweave
