// Dilation2D and its backprops (NHWC input, [KH,KW,C] filter): a window's
// value is the maximum of input + filter over its in-bounds taps; the
// backprops route each gradient to the first tap holding that maximum.
#include <limits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/window_geometry.h"

namespace tensorweave {
namespace {

template <int kMode>  // 0: forward, 1: input backprop, 2: filter backprop
class Dilation2DOp : public OpKernel {
 public:
  explicit Dilation2DOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> strides, rates;
    ctx->SetStatus(ctx->GetAttr("strides", &strides));
    ctx->SetStatus(ctx->GetAttr("rates", &rates));
    ctx->SetStatus(ctx->GetAttr("padding", &padding_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(CheckNhwcAttr(strides, "strides"));
    ctx->SetStatus(CheckNhwcAttr(rates, "rates"));
    if (!ctx->status().ok()) return;
    window_.stride_rows = strides[1];
    window_.stride_cols = strides[2];
    window_.dilation_rows = rates[1];
    window_.dilation_cols = rates[2];
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    OP_REQUIRES(ctx, input.rank() == 4,
                errors::InvalidArgument("input must be 4-D [N,H,W,C], got ",
                                        input.shape().ToString()));
    OP_REQUIRES(ctx, filter.rank() == 3,
                errors::InvalidArgument("filter must be 3-D [KH,KW,C], got ",
                                        filter.shape().ToString()));
    OP_REQUIRES(ctx, input.dim(3) == filter.dim(2),
                errors::InvalidArgument("input depth ", input.dim(3),
                                        " does not match the filter's depth ",
                                        filter.dim(2)));
    Window2D w = window_;
    w.batch = input.dim(0);
    w.in_rows = input.dim(1);
    w.in_cols = input.dim(2);
    w.in_depth = input.dim(3);
    w.window_rows = filter.dim(0);
    w.window_cols = filter.dim(1);
    Status s = w.Compute(padding_);
    OP_REQUIRES(ctx, s.ok(),
                errors::InvalidArgument(s.message(), " (input ",
                                        input.shape().ToString(), ", filter ",
                                        filter.shape().ToString(), ")"));
    const TensorShape out_shape({w.batch, w.out_rows, w.out_cols, w.in_depth});
    if (kMode != 0) {
      const Tensor& grad = ctx->input(2);
      OP_REQUIRES(ctx, grad.shape() == out_shape,
                  errors::InvalidArgument("out_backprop has shape ",
                                          grad.shape().ToString(),
                                          " but Dilation2D's output has shape ",
                                          out_shape.ToString()));
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0,
                                             kMode == 0   ? out_shape
                                             : kMode == 1 ? input.shape()
                                                          : filter.shape(),
                                             &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<float, double, int32_t, int64_t>(
                       input.dtype(), [&](auto t) {
                         using T = decltype(t);
                         Run<T>(w, input.data<T>(), filter.data<T>(),
                                kMode == 0 ? nullptr : ctx->input(2).data<T>(),
                                out->data<T>(), out->num_elements());
                         return Status::OK();
                       }));
  }

 private:
  template <typename T>
  static void Run(const Window2D& w, const T* x, const T* f, const T* grad,
                  T* out, int64_t out_size) {
    const int64_t depth = w.in_depth;
    const int64_t pixels = w.out_rows * w.out_cols * depth;
    if (kMode != 0) {
      for (int64_t i = 0; i < out_size; ++i) out[i] = T(0);
    }
    std::vector<T> best(pixels);
    std::vector<int64_t> best_in(pixels), best_tap(pixels);
    for (int64_t b = 0; b < w.batch; ++b) {
      const T* xb = x + b * w.in_rows * w.in_cols * depth;
      std::fill(best.begin(), best.end(), std::numeric_limits<T>::lowest());
      std::fill(best_in.begin(), best_in.end(), -1);
      ForEachImageTap(w, [&](int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                             int64_t iy, int64_t ix) {
        const int64_t o = (oy * w.out_cols + ox) * depth;
        const int64_t in = (iy * w.in_cols + ix) * depth;
        const int64_t tap = (ky * w.window_cols + kx) * depth;
        for (int64_t c = 0; c < depth; ++c) {
          const T v = xb[in + c] + f[tap + c];
          if (best_in[o + c] < 0 || v > best[o + c]) {
            best[o + c] = v;
            best_in[o + c] = in + c;
            best_tap[o + c] = tap + c;
          }
        }
      });
      for (int64_t o = 0; o < pixels; ++o) {
        if (kMode == 0) {
          out[b * pixels + o] = best[o];
        } else if (best_in[o] >= 0) {
          const T g = grad[b * pixels + o];
          if (kMode == 1) {
            out[b * w.in_rows * w.in_cols * depth + best_in[o]] += g;
          } else {
            out[best_tap[o]] += g;
          }
        }
      }
    }
  }

  Window2D window_;
  std::string padding_;
};

REGISTER_KERNEL(KernelDef("Dilation2D"), Dilation2DOp<0>);
REGISTER_KERNEL(KernelDef("Dilation2DBackpropInput"), Dilation2DOp<1>);
REGISTER_KERNEL(KernelDef("Dilation2DBackpropFilter"), Dilation2DOp<2>);

}  // namespace
}  // namespace tensorweave
