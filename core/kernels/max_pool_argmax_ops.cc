// MaxPoolWithArgmax and MaxPoolGradWithArgmax (NHWC): the flat index of each
// window's first maximum, ((b * H + y) * W + x) * C + c, the batch term only
// with include_batch_in_index.
#include <limits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/window_geometry.h"

namespace tensorweave {
namespace {

class MaxPoolArgmaxBase : public OpKernel {
 public:
  explicit MaxPoolArgmaxBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> ksize, strides;
    ctx->SetStatus(ctx->GetAttr("ksize", &ksize));
    ctx->SetStatus(ctx->GetAttr("strides", &strides));
    ctx->SetStatus(ctx->GetAttr("padding", &padding_));
    ctx->SetStatus(
        ctx->GetAttr("include_batch_in_index", &include_batch_in_index_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(CheckNhwcAttr(ksize, "ksize"));
    ctx->SetStatus(CheckNhwcAttr(strides, "strides"));
    if (!ctx->status().ok()) return;
    window_.window_rows = ksize[1];
    window_.window_cols = ksize[2];
    window_.stride_rows = strides[1];
    window_.stride_cols = strides[2];
  }

 protected:
  Status Geometry(const TensorShape& shape, Window2D* w) const {
    if (shape.rank() != 4) {
      return errors::InvalidArgument("input must be 4-D [N,H,W,C], got ",
                                     shape.ToString());
    }
    *w = window_;
    w->batch = shape.dim(0);
    w->in_rows = shape.dim(1);
    w->in_cols = shape.dim(2);
    w->in_depth = shape.dim(3);
    Status s = w->Compute(padding_);
    if (!s.ok()) {
      return errors::InvalidArgument(s.message(), " (input ", shape.ToString(),
                                     ")");
    }
    return Status::OK();
  }

  Window2D window_;
  std::string padding_;
  bool include_batch_in_index_ = false;
};

class MaxPoolWithArgmaxOp : public MaxPoolArgmaxBase {
 public:
  using MaxPoolArgmaxBase::MaxPoolArgmaxBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Window2D w;
    OP_REQUIRES_OK(ctx, Geometry(input.shape(), &w));
    const TensorShape out_shape({w.batch, w.out_rows, w.out_cols, w.in_depth});
    Tensor *out, *argmax;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &argmax));
    const int64_t depth = w.in_depth;
    const int64_t image = w.in_rows * w.in_cols * depth;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          return DispatchType<int32_t, int64_t>(argmax->dtype(), [&](auto i) {
            using I = decltype(i);
            const T* x = input.data<T>();
            T* y = out->data<T>();
            I* a = argmax->data<I>();
            for (int64_t b = 0; b < w.batch; ++b) {
              const T* xb = x + b * image;
              const int64_t base = include_batch_in_index_ ? b * image : 0;
              T* yb = y + b * w.out_rows * w.out_cols * depth;
              I* ab = a + b * w.out_rows * w.out_cols * depth;
              for (int64_t o = 0; o < w.out_rows * w.out_cols * depth; ++o) {
                yb[o] = -std::numeric_limits<T>::infinity();
                ab[o] = -1;
              }
              ForEachImageTap(w, [&](int64_t oy, int64_t ox, int64_t, int64_t,
                                     int64_t iy, int64_t ix) {
                const int64_t o = (oy * w.out_cols + ox) * depth;
                const int64_t in = (iy * w.in_cols + ix) * depth;
                for (int64_t c = 0; c < depth; ++c) {
                  if (ab[o + c] < 0 || xb[in + c] > yb[o + c]) {
                    yb[o + c] = xb[in + c];
                    ab[o + c] = static_cast<I>(base + in + c);
                  }
                }
              });
            }
            return Status::OK();
          });
        }));
  }
};

class MaxPoolGradWithArgmaxOp : public MaxPoolArgmaxBase {
 public:
  using MaxPoolArgmaxBase::MaxPoolArgmaxBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    const Tensor& argmax = ctx->input(2);
    Window2D w;
    OP_REQUIRES_OK(ctx, Geometry(input.shape(), &w));
    const TensorShape out_shape({w.batch, w.out_rows, w.out_cols, w.in_depth});
    OP_REQUIRES(ctx, grad.shape() == out_shape && argmax.shape() == out_shape,
                errors::InvalidArgument(
                    "grad and argmax must have the pooled shape ",
                    out_shape.ToString(), ", got ", grad.shape().ToString(),
                    " and ", argmax.shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t image = w.in_rows * w.in_cols * w.in_depth;
    const int64_t pooled = w.out_rows * w.out_cols * w.in_depth;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          return DispatchType<int32_t, int64_t>(argmax.dtype(), [&](auto i) {
            using I = decltype(i);
            T* dx = out->data<T>();
            for (int64_t k = 0; k < input.num_elements(); ++k) dx[k] = T(0);
            for (int64_t b = 0; b < w.batch; ++b) {
              for (int64_t o = 0; o < pooled; ++o) {
                int64_t index = argmax.data<I>()[b * pooled + o];
                if (!include_batch_in_index_) index += b * image;
                if (index < b * image || index >= (b + 1) * image) {
                  return errors::InvalidArgument(
                      "argmax ", argmax.data<I>()[b * pooled + o],
                      " at position ", b * pooled + o,
                      " is out of range for image ", b, " of input ",
                      input.shape().ToString());
                }
                dx[index] += grad.data<T>()[b * pooled + o];
              }
            }
            return Status::OK();
          });
        }));
  }
};

REGISTER_KERNEL(KernelDef("MaxPoolWithArgmax"), MaxPoolWithArgmaxOp);
REGISTER_KERNEL(KernelDef("MaxPoolGradWithArgmax"), MaxPoolGradWithArgmaxOp);

}  // namespace
}  // namespace tensorweave
