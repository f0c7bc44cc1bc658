// The im2col algorithm: any geometry. Each image's patches are gathered
// into a matrix [out_rows * out_cols, KH * KW * C] and multiplied by the
// filter in one BLAS GEMM (single-threaded; images split over the pool). A
// pointwise convolution (1x1, stride 1, no padding) is already that matrix:
// one GEMM over a whole block of images.
#include <algorithm>
#include <vector>

#include "core/kernels/conv_algorithms.h"
#include "core/kernels/conv_simd.h"
#include "core/platform/blas.h"

namespace tensorweave {
namespace {

using conv_internal::AddValues;
using conv_internal::CopyValues;

// Row-major C[m,n] = op(A) op(B) + beta C.
template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  blas::Gemm<T>(ta, tb, m, n, k, T(1), a, lda, b, ldb, beta, c, ldc);
}

// col[p, (ky*KW + kx)*C + c] for image `image` (zeros outside the input).
// Without column dilation the KW*C values of one window row are contiguous
// in the image: one copy each.
template <typename T>
void Im2col(const Window2D& w, const T* image, T* col) {
  const int64_t c = w.in_depth;
  const int64_t row_values = w.window_cols * c;
  const int64_t k = w.window_rows * row_values;
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      T* row = col + (oy * w.out_cols + ox) * k;
      const int64_t ix0 = ox * w.stride_cols - w.pad_cols;
      const bool inside =
          w.dilation_cols == 1 && ix0 >= 0 && ix0 + w.window_cols <= w.in_cols;
      for (int64_t ky = 0; ky < w.window_rows; ++ky) {
        const int64_t iy =
            oy * w.stride_rows + ky * w.dilation_rows - w.pad_rows;
        T* dst = row + ky * row_values;
        if (iy < 0 || iy >= w.in_rows) {
          std::fill(dst, dst + row_values, T(0));
          continue;
        }
        const T* src_row = image + iy * w.in_cols * c;
        if (inside) {
          CopyValues(dst, src_row + ix0 * c, row_values);
          continue;
        }
        for (int64_t kx = 0; kx < w.window_cols; ++kx) {
          const int64_t ix = ix0 + kx * w.dilation_cols;
          T* d = dst + kx * c;
          if (ix < 0 || ix >= w.in_cols) {
            std::fill(d, d + c, T(0));
          } else {
            CopyValues(d, src_row + ix * c, c);
          }
        }
      }
    }
  }
}

// image += the patches of col, scattered back (the adjoint of Im2col).
template <typename T>
void Col2imAdd(const Window2D& w, const T* col, T* image) {
  const int64_t c = w.in_depth;
  const int64_t row_values = w.window_cols * c;
  const int64_t k = w.window_rows * row_values;
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      const T* row = col + (oy * w.out_cols + ox) * k;
      const int64_t ix0 = ox * w.stride_cols - w.pad_cols;
      const bool inside =
          w.dilation_cols == 1 && ix0 >= 0 && ix0 + w.window_cols <= w.in_cols;
      for (int64_t ky = 0; ky < w.window_rows; ++ky) {
        const int64_t iy =
            oy * w.stride_rows + ky * w.dilation_rows - w.pad_rows;
        if (iy < 0 || iy >= w.in_rows) continue;
        const T* src = row + ky * row_values;
        T* dst_row = image + iy * w.in_cols * c;
        if (inside) {
          AddValues(dst_row + ix0 * c, src, row_values);
          continue;
        }
        for (int64_t kx = 0; kx < w.window_cols; ++kx) {
          const int64_t ix = ix0 + kx * w.dilation_cols;
          if (ix < 0 || ix >= w.in_cols) continue;
          AddValues(dst_row + ix * c, src + kx * c, c);
        }
      }
    }
  }
}

bool IsPointwise(const Window2D& w) {
  return w.window_rows == 1 && w.window_cols == 1 && w.stride_rows == 1 &&
         w.stride_cols == 1 && w.pad_rows == 0 && w.pad_cols == 0;
}

}  // namespace

template <typename T>
void Im2colConv2D(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                  const T* filter, T* output) {
  const Window2D& w = a.w;
  const int64_t p = w.out_rows * w.out_cols;
  const int64_t k = w.window_rows * w.window_cols * w.in_depth;
  const int64_t in_size = w.in_rows * w.in_cols * w.in_depth;
  ParallelForParts(pool, w.batch, [&](int, int64_t n0, int64_t n1) {
    if (IsPointwise(w)) {
      Gemm<T>(false, false, (n1 - n0) * p, a.out_depth, k, input + n0 * in_size,
              k, filter, a.out_depth, T(0), output + n0 * p * a.out_depth,
              a.out_depth);
      return;
    }
    std::vector<T> col(p * k);
    for (int64_t n = n0; n < n1; ++n) {
      Im2col(w, input + n * in_size, col.data());
      Gemm<T>(false, false, p, a.out_depth, k, col.data(), k, filter,
              a.out_depth, T(0), output + n * p * a.out_depth, a.out_depth);
    }
  });
}

template <typename T>
void Im2colBackpropInput(ThreadPool* pool, const Conv2DArgs& a, const T* filter,
                         const T* out_backprop, T* in_backprop) {
  const Window2D& w = a.w;
  const int64_t p = w.out_rows * w.out_cols;
  const int64_t k = w.window_rows * w.window_cols * w.in_depth;
  const int64_t in_size = w.in_rows * w.in_cols * w.in_depth;
  ParallelForParts(pool, w.batch, [&](int, int64_t n0, int64_t n1) {
    if (IsPointwise(w)) {
      Gemm<T>(false, true, (n1 - n0) * p, k, a.out_depth,
              out_backprop + n0 * p * a.out_depth, a.out_depth, filter,
              a.out_depth, T(0), in_backprop + n0 * in_size, k);
      return;
    }
    std::vector<T> col(p * k);
    for (int64_t n = n0; n < n1; ++n) {
      Gemm<T>(false, true, p, k, a.out_depth,
              out_backprop + n * p * a.out_depth, a.out_depth, filter,
              a.out_depth, T(0), col.data(), k);
      T* image = in_backprop + n * in_size;
      std::fill(image, image + in_size, T(0));
      Col2imAdd(w, col.data(), image);
    }
  });
}

template <typename T>
void Im2colBackpropFilter(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                          const T* out_backprop, T* filter_backprop) {
  const Window2D& w = a.w;
  const int64_t p = w.out_rows * w.out_cols;
  const int64_t k = w.window_rows * w.window_cols * w.in_depth;
  const int64_t in_size = w.in_rows * w.in_cols * w.in_depth;
  const int64_t f_size = k * a.out_depth;
  const int parts = NumParts(pool, w.batch);
  std::vector<T> partials(parts * f_size, T(0));
  ParallelForParts(pool, w.batch, [&](int part, int64_t n0, int64_t n1) {
    T* acc = partials.data() + part * f_size;
    if (IsPointwise(w)) {
      Gemm<T>(true, false, k, a.out_depth, (n1 - n0) * p, input + n0 * in_size,
              k, out_backprop + n0 * p * a.out_depth, a.out_depth, T(0), acc,
              a.out_depth);
      return;
    }
    std::vector<T> col(p * k);
    for (int64_t n = n0; n < n1; ++n) {
      Im2col(w, input + n * in_size, col.data());
      Gemm<T>(true, false, k, a.out_depth, p, col.data(), k,
              out_backprop + n * p * a.out_depth, a.out_depth, T(1), acc,
              a.out_depth);
    }
  });
  for (int64_t i = 0; i < f_size; ++i) {
    T sum = 0;
    for (int part = 0; part < parts; ++part) sum += partials[part * f_size + i];
    filter_backprop[i] = sum;
  }
}

#define TW_INSTANTIATE(T)                                                 \
  template void Im2colConv2D<T>(ThreadPool*, const Conv2DArgs&, const T*, \
                                const T*, T*);                            \
  template void Im2colBackpropInput<T>(ThreadPool*, const Conv2DArgs&,    \
                                       const T*, const T*, T*);           \
  template void Im2colBackpropFilter<T>(ThreadPool*, const Conv2DArgs&,   \
                                        const T*, const T*, T*);
TW_INSTANTIATE(float)
TW_INSTANTIATE(double)
#undef TW_INSTANTIATE

}  // namespace tensorweave
