// DepthwiseConv2dNative and its backprops (NHWC; filter [KH,KW,C,M]; output
// channel c*M + m). Plain loops whose inner loop runs over the contiguous
// C*M channels of one pixel; images split over the intra-op pool.
#include <algorithm>
#include <vector>

#include "core/kernels/conv_ops.h"

namespace tensorweave {
namespace {

// Calls fn(oy, ox, ky, kx, iy, ix) for one image's in-bounds taps.
template <typename Fn>
void ForEachImageTap(const Window2D& w, Fn fn) {
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      for (int64_t ky = 0; ky < w.window_rows; ++ky) {
        const int64_t iy =
            oy * w.stride_rows + ky * w.dilation_rows - w.pad_rows;
        if (iy < 0 || iy >= w.in_rows) continue;
        for (int64_t kx = 0; kx < w.window_cols; ++kx) {
          const int64_t ix =
              ox * w.stride_cols + kx * w.dilation_cols - w.pad_cols;
          if (ix < 0 || ix >= w.in_cols) continue;
          fn(oy, ox, ky, kx, iy, ix);
        }
      }
    }
  }
}

struct DepthwiseShapes {
  int64_t in_image, out_image, depth, multiplier;
};

DepthwiseShapes Shapes(const Conv2DArgs& a) {
  const Window2D& w = a.w;
  return {w.in_rows * w.in_cols * w.in_depth,
          w.out_rows * w.out_cols * a.out_depth, w.in_depth,
          a.out_depth / w.in_depth};
}

template <typename T>
void DepthwiseForward(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                      const T* filter, T* output) {
  const Window2D& w = a.w;
  const DepthwiseShapes s = Shapes(a);
  const int64_t cm = a.out_depth;
  ParallelForParts(pool, w.batch, [&](int, int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* in = input + n * s.in_image;
      T* out = output + n * s.out_image;
      std::fill(out, out + s.out_image, T(0));
      ForEachImageTap(w, [&](int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                             int64_t iy, int64_t ix) {
        const T* px = in + (iy * w.in_cols + ix) * s.depth;
        const T* f = filter + (ky * w.window_cols + kx) * cm;
        T* o = out + (oy * w.out_cols + ox) * cm;
        for (int64_t j = 0; j < cm; ++j) o[j] += px[j / s.multiplier] * f[j];
      });
    }
  });
}

template <typename T>
void DepthwiseBackpropInput(ThreadPool* pool, const Conv2DArgs& a,
                            const T* filter, const T* out_backprop,
                            T* in_backprop) {
  const Window2D& w = a.w;
  const DepthwiseShapes s = Shapes(a);
  const int64_t cm = a.out_depth;
  ParallelForParts(pool, w.batch, [&](int, int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      const T* dout = out_backprop + n * s.out_image;
      T* din = in_backprop + n * s.in_image;
      std::fill(din, din + s.in_image, T(0));
      ForEachImageTap(w, [&](int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                             int64_t iy, int64_t ix) {
        T* px = din + (iy * w.in_cols + ix) * s.depth;
        const T* f = filter + (ky * w.window_cols + kx) * cm;
        const T* d = dout + (oy * w.out_cols + ox) * cm;
        for (int64_t j = 0; j < cm; ++j) px[j / s.multiplier] += d[j] * f[j];
      });
    }
  });
}

template <typename T>
void DepthwiseBackpropFilter(ThreadPool* pool, const Conv2DArgs& a,
                             const T* input, const T* out_backprop,
                             T* filter_backprop) {
  const Window2D& w = a.w;
  const DepthwiseShapes s = Shapes(a);
  const int64_t cm = a.out_depth;
  const int64_t f_size = w.window_rows * w.window_cols * cm;
  const int parts = NumParts(pool, w.batch);
  std::vector<T> partials(parts * f_size, T(0));
  ParallelForParts(pool, w.batch, [&](int part, int64_t n0, int64_t n1) {
    T* acc = partials.data() + part * f_size;
    for (int64_t n = n0; n < n1; ++n) {
      const T* in = input + n * s.in_image;
      const T* dout = out_backprop + n * s.out_image;
      ForEachImageTap(w, [&](int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                             int64_t iy, int64_t ix) {
        const T* px = in + (iy * w.in_cols + ix) * s.depth;
        T* f = acc + (ky * w.window_cols + kx) * cm;
        const T* d = dout + (oy * w.out_cols + ox) * cm;
        for (int64_t j = 0; j < cm; ++j) f[j] += px[j / s.multiplier] * d[j];
      });
    }
  });
  for (int64_t i = 0; i < f_size; ++i) {
    T sum = 0;
    for (int p = 0; p < parts; ++p) sum += partials[p * f_size + i];
    filter_backprop[i] = sum;
  }
}

class DepthwiseConv2dOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DArgs args;
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, MakeConv2DArgs(input.shape(), filter.shape(), strides_, dilations_,
                            padding_, true, &args, &out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          DepthwiseForward<T>(ctx->intra_op_pool(), args, input.data<T>(),
                              filter.data<T>(), out->data<T>());
          return Status::OK();
        }));
  }
};

class DepthwiseBackpropInputOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape in_shape, out_shape;
    OP_REQUIRES_OK(ctx,
                   ShapeFromSizes(ctx->input(0), "input_sizes", &in_shape));
    Conv2DArgs args;
    OP_REQUIRES_OK(
        ctx, MakeConv2DArgs(in_shape, filter.shape(), strides_, dilations_,
                            padding_, true, &args, &out_shape));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop, out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(filter.dtype(), [&](auto t) {
          using T = decltype(t);
          if (out_shape.num_elements() == 0) {
            std::fill(out->data<T>(), out->data<T>() + out->num_elements(),
                      T(0));
          } else {
            DepthwiseBackpropInput<T>(ctx->intra_op_pool(), args,
                                      filter.data<T>(), out_backprop.data<T>(),
                                      out->data<T>());
          }
          return Status::OK();
        }));
  }
};

class DepthwiseBackpropFilterOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape, out_shape;
    OP_REQUIRES_OK(
        ctx, ShapeFromSizes(ctx->input(1), "filter_sizes", &filter_shape));
    Conv2DArgs args;
    OP_REQUIRES_OK(
        ctx, MakeConv2DArgs(input.shape(), filter_shape, strides_, dilations_,
                            padding_, true, &args, &out_shape));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop, out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          DepthwiseBackpropFilter<T>(ctx->intra_op_pool(), args,
                                     input.data<T>(), out_backprop.data<T>(),
                                     out->data<T>());
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("DepthwiseConv2dNative"), DepthwiseConv2dOp);
REGISTER_KERNEL(KernelDef("DepthwiseConv2dNativeBackpropInput"),
                DepthwiseBackpropInputOp);
REGISTER_KERNEL(KernelDef("DepthwiseConv2dNativeBackpropFilter"),
                DepthwiseBackpropFilterOp);

}  // namespace
}  // namespace tensorweave
