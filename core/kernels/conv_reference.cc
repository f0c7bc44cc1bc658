// The reference convolutions of conv_ops.h: plain loops over every output
// position and filter tap, single-threaded. They define Conv2D and its
// backprops; every fast algorithm is tested against them.
#include "core/kernels/conv_ops.h"

namespace tensorweave {

namespace {

// Calls fn(n, oy, ox, ky, kx, iy, ix) for every image, output position and
// filter tap whose input position lies inside the input.
template <typename Fn>
void ForEachTap(const Window2D& w, Fn fn) {
  for (int64_t n = 0; n < w.batch; ++n) {
    ForEachImageTap(
        w, [&](int64_t oy, int64_t ox, int64_t ky, int64_t kx, int64_t iy,
               int64_t ix) { fn(n, oy, ox, ky, kx, iy, ix); });
  }
}

}  // namespace

template <typename T>
void ReferenceConv2D(const Conv2DArgs& a, const T* input, const T* filter,
                     T* output) {
  const Window2D& w = a.w;
  const int64_t cin = w.in_depth, cout = a.out_depth;
  std::fill(output, output + w.batch * w.out_rows * w.out_cols * cout, T(0));
  ForEachTap(w, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                    int64_t iy, int64_t ix) {
    const T* in = input + ((n * w.in_rows + iy) * w.in_cols + ix) * cin;
    const T* f = filter + (ky * w.window_cols + kx) * cin * cout;
    T* out = output + ((n * w.out_rows + oy) * w.out_cols + ox) * cout;
    for (int64_t ci = 0; ci < cin; ++ci) {
      for (int64_t co = 0; co < cout; ++co)
        out[co] += in[ci] * f[ci * cout + co];
    }
  });
}

template <typename T>
void ReferenceConv2DBackpropInput(const Conv2DArgs& a, const T* filter,
                                  const T* out_backprop, T* in_backprop) {
  const Window2D& w = a.w;
  const int64_t cin = w.in_depth, cout = a.out_depth;
  std::fill(in_backprop, in_backprop + w.batch * w.in_rows * w.in_cols * cin,
            T(0));
  ForEachTap(w, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                    int64_t iy, int64_t ix) {
    T* din = in_backprop + ((n * w.in_rows + iy) * w.in_cols + ix) * cin;
    const T* f = filter + (ky * w.window_cols + kx) * cin * cout;
    const T* dout =
        out_backprop + ((n * w.out_rows + oy) * w.out_cols + ox) * cout;
    for (int64_t ci = 0; ci < cin; ++ci) {
      for (int64_t co = 0; co < cout; ++co)
        din[ci] += dout[co] * f[ci * cout + co];
    }
  });
}

template <typename T>
void ReferenceConv2DBackpropFilter(const Conv2DArgs& a, const T* input,
                                   const T* out_backprop, T* filter_backprop) {
  const Window2D& w = a.w;
  const int64_t cin = w.in_depth, cout = a.out_depth;
  std::fill(filter_backprop,
            filter_backprop + w.window_rows * w.window_cols * cin * cout, T(0));
  ForEachTap(w, [&](int64_t n, int64_t oy, int64_t ox, int64_t ky, int64_t kx,
                    int64_t iy, int64_t ix) {
    const T* in = input + ((n * w.in_rows + iy) * w.in_cols + ix) * cin;
    T* df = filter_backprop + (ky * w.window_cols + kx) * cin * cout;
    const T* dout =
        out_backprop + ((n * w.out_rows + oy) * w.out_cols + ox) * cout;
    for (int64_t ci = 0; ci < cin; ++ci) {
      for (int64_t co = 0; co < cout; ++co)
        df[ci * cout + co] += in[ci] * dout[co];
    }
  });
}

#define TW_INSTANTIATE(T)                                                      \
  template void ReferenceConv2D<T>(const Conv2DArgs&, const T*, const T*, T*); \
  template void ReferenceConv2DBackpropInput<T>(const Conv2DArgs&, const T*,   \
                                                const T*, T*);                 \
  template void ReferenceConv2DBackpropFilter<T>(const Conv2DArgs&, const T*,  \
                                                 const T*, T*);
TW_INSTANTIATE(float)
TW_INSTANTIATE(double)
#undef TW_INSTANTIATE

}  // namespace tensorweave
