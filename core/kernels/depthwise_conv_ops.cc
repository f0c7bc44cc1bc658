// DepthwiseConv2dNative and its backprops (NHWC; filter [KH,KW,C,M]; output
// channel c*M + m). Plain loops whose inner loop runs over the contiguous
// C*M channels of one pixel; images split over the intra-op pool.
#include <algorithm>
#include <vector>

#include "core/kernels/conv_ops.h"

namespace tensorweave {
namespace {

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

struct DepthwiseKernels {
  template <typename T>
  static void Forward(ThreadPool* pool, const Conv2DArgs& args, const T* input,
                      const T* filter, T* out) {
    DepthwiseForward<T>(pool, args, input, filter, out);
  }
  template <typename T>
  static void BackpropInput(ThreadPool* pool, const Conv2DArgs& args,
                            const T* filter, const T* out_backprop, T* out) {
    DepthwiseBackpropInput<T>(pool, args, filter, out_backprop, out);
  }
  template <typename T>
  static void BackpropFilter(ThreadPool* pool, const Conv2DArgs& args,
                             const T* input, const T* out_backprop, T* out) {
    DepthwiseBackpropFilter<T>(pool, args, input, out_backprop, out);
  }
};

REGISTER_KERNEL(KernelDef("DepthwiseConv2dNative"),
                ConvForwardOp<DepthwiseKernels, true>);
REGISTER_KERNEL(KernelDef("DepthwiseConv2dNativeBackpropInput"),
                ConvBackpropOp<DepthwiseKernels, true, true>);
REGISTER_KERNEL(KernelDef("DepthwiseConv2dNativeBackpropFilter"),
                ConvBackpropOp<DepthwiseKernels, true, false>);

}  // namespace
}  // namespace tensorweave
