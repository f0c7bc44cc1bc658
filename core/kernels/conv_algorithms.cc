// The reference and fast algorithms of conv_ops.h.
#include <cblas.h>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/kernels/conv_ops.h"
#include "core/runtime/thread_pool.h"

namespace tensorweave {

// --- references --------------------------------------------------------------

namespace {

// Calls fn(n, oy, ox, ky, kx, iy, ix) for every output position and filter
// tap whose input position lies inside the input.
template <typename Fn>
void ForEachTap(const Window2D& w, Fn fn) {
  for (int64_t n = 0; n < w.batch; ++n) {
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
            fn(n, oy, ox, ky, kx, iy, ix);
          }
        }
      }
    }
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

// --- parallel helpers --------------------------------------------------------

int NumParts(ThreadPool* pool, int64_t n) {
  const int64_t threads = pool == nullptr ? 1 : pool->num_threads() + 1;
  return static_cast<int>(std::max<int64_t>(1, std::min(threads, n)));
}

void ParallelForParts(
    ThreadPool* pool, int64_t n,
    const std::function<void(int part, int64_t begin, int64_t end)>& fn) {
  const int parts = NumParts(pool, n);
  auto run = [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      fn(static_cast<int>(p), n * p / parts, n * (p + 1) / parts);
    }
  };
  if (parts == 1) {
    run(0, 1);
  } else {
    pool->ParallelFor(parts, 1, run);
  }
}

namespace {

// --- BLAS --------------------------------------------------------------------

// Row-major C[m,n] = alpha op(A) op(B) + beta C, single-threaded BLAS.
template <typename T>
void Gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
          int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  const auto trans_a = ta ? CblasTrans : CblasNoTrans;
  const auto trans_b = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, trans_a, trans_b, m, n, k, 1.0f, a, lda, b, ldb,
                beta, c, ldc);
  } else {
    cblas_dgemm(CblasRowMajor, trans_a, trans_b, m, n, k, 1.0, a, lda, b, ldb,
                beta, c, ldc);
  }
}

// A SIMD vector of 64 bytes (16 floats, 8 doubles): one AVX-512 register,
// two AVX2 registers elsewhere.
template <typename T>
struct Simd {
  typedef T Vec __attribute__((vector_size(64)));
  static constexpr int kLanes = 64 / sizeof(T);
  static Vec Load(const T* p) {
    Vec v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  }
  static void Store(T* p, Vec v) { std::memcpy(p, &v, sizeof(v)); }
};

// dst[i] = src[i] and dst[i] += src[i] for i < n, a vector at a time (the
// -O2 build does not vectorize loops of run-time length); the tail with a
// masked vector where AVX-512 has one.
template <typename T>
inline void CopyValues(T* dst, const T* src, int64_t n) {
  using S = Simd<T>;
  int64_t i = 0;
  for (; i + S::kLanes <= n; i += S::kLanes)
    S::Store(dst + i, S::Load(src + i));
  if (i == n) return;
#ifdef __AVX512F__
  const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
  if constexpr (std::is_same_v<T, float>) {
    _mm512_mask_storeu_ps(dst + i, mask, _mm512_maskz_loadu_ps(mask, src + i));
  } else {
    _mm512_mask_storeu_pd(
        dst + i, static_cast<__mmask8>(mask),
        _mm512_maskz_loadu_pd(static_cast<__mmask8>(mask), src + i));
  }
#else
  for (; i < n; ++i) dst[i] = src[i];
#endif
}
template <typename T>
inline void AddValues(T* dst, const T* src, int64_t n) {
  using S = Simd<T>;
  int64_t i = 0;
  for (; i + S::kLanes <= n; i += S::kLanes) {
    S::Store(dst + i, S::Load(dst + i) + S::Load(src + i));
  }
  if (i == n) return;
#ifdef __AVX512F__
  const __mmask16 mask = static_cast<__mmask16>((1u << (n - i)) - 1);
  if constexpr (std::is_same_v<T, float>) {
    const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(mask, dst + i),
                                     _mm512_maskz_loadu_ps(mask, src + i));
    _mm512_mask_storeu_ps(dst + i, mask, sum);
  } else {
    const __mmask8 m8 = static_cast<__mmask8>(mask);
    const __m512d sum = _mm512_add_pd(_mm512_maskz_loadu_pd(m8, dst + i),
                                      _mm512_maskz_loadu_pd(m8, src + i));
    _mm512_mask_storeu_pd(dst + i, m8, sum);
  }
#else
  for (; i < n; ++i) dst[i] += src[i];
#endif
}

// --- im2col
// --------------------------------------------------------------------

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

// --- direct (stride 1, few channels)
// -------------------------------------------

constexpr int kMaxVectors = 12;  // accumulators held in registers

// A stride-1 convolution of one image seen as rows of out_cols * out_depth
// values. `pad_rows`/`pad_cols` may differ from the forward op's (the
// backprop input runs this with the flipped filter and the complementary
// padding).
struct DirectGeometry {
  int64_t in_rows, in_cols, in_depth, out_rows, out_cols, out_depth;
  int64_t window_rows, window_cols, dilation_rows, dilation_cols;
  int64_t pad_rows, pad_cols;
  int64_t block;           // output values per accumulator block
  int64_t row_len;         // padded length of one expanded input row
  int64_t rep_rows;        // expanded input rows per channel
  int64_t out_row_padded;  // out_cols*out_depth rounded up to blocks

  int64_t taps() const { return window_rows * window_cols * in_depth; }
  int64_t rep_size() const { return in_depth * rep_rows * row_len; }
};

template <typename T>
bool MakeDirectGeometry(DirectGeometry* g) {
  constexpr int64_t lanes = Simd<T>::kLanes;
  const int64_t base = std::lcm(lanes, g->out_depth);
  const int64_t base_vectors = base / lanes;
  if (base_vectors > kMaxVectors) return false;
  // The block (base * m values, at most 8 vectors when base allows) that
  // pads the output row least; the larger on ties.
  const int64_t row = g->out_cols * g->out_depth;
  const int64_t max_m = std::max<int64_t>(1, 8 / base_vectors);
  int64_t best_m = 1, best_padded = INT64_MAX;
  for (int64_t m = 1; m <= max_m; ++m) {
    const int64_t padded = (row + base * m - 1) / (base * m) * (base * m);
    if (padded <= best_padded) {
      best_m = m;
      best_padded = padded;
    }
  }
  g->block = base * best_m;
  g->out_row_padded = (row + g->block - 1) / g->block * g->block;
  g->row_len = g->out_row_padded +
               (g->window_cols - 1) * g->dilation_cols * g->out_depth;
  g->rep_rows = g->out_rows + (g->window_rows - 1) * g->dilation_rows;
  return g->rep_size() * static_cast<int64_t>(sizeof(T)) <= (1 << 20);
}

// rep[ci][r][c * out_depth + co] = image[r - pad_rows, c - pad_cols, ci] (0
// outside the image) for every co.
template <typename T>
void ExpandImage(const DirectGeometry& g, const T* image, T* rep) {
  const int64_t cols = g.row_len / g.out_depth;  // row_len is a multiple
  const int64_t plane = g.rep_rows * g.row_len;
  for (int64_t r = 0; r < g.rep_rows; ++r) {
    const int64_t iy = r - g.pad_rows;
    const int64_t c0 =
        std::min<int64_t>(cols, std::max<int64_t>(0, g.pad_cols));
    const int64_t c1 =
        std::max<int64_t>(c0, std::min<int64_t>(cols, g.in_cols + g.pad_cols));
    for (int64_t ci = 0; ci < g.in_depth; ++ci) {
      T* dst = rep + ci * plane + r * g.row_len;
      if (iy < 0 || iy >= g.in_rows) {
        std::fill(dst, dst + g.row_len, T(0));
        continue;
      }
      // Zeros left and right of the image, its values between.
      std::fill(dst, dst + c0 * g.out_depth, T(0));
      std::fill(dst + c1 * g.out_depth, dst + g.row_len, T(0));
      const T* src = image + iy * g.in_cols * g.in_depth + ci;
      if (g.out_depth % Simd<T>::kLanes == 0) {
        // Whole vectors of one value.
        for (int64_t c = c0; c < c1; ++c) {
          const typename Simd<T>::Vec v =
              src[(c - g.pad_cols) * g.in_depth] - typename Simd<T>::Vec{};
          for (int64_t j = c * g.out_depth; j < (c + 1) * g.out_depth;
               j += Simd<T>::kLanes) {
            Simd<T>::Store(dst + j, v);
          }
        }
        continue;
      }
      for (int64_t c = c0; c < c1; ++c) {
        const T v = src[(c - g.pad_cols) * g.in_depth];
        for (int64_t j = c * g.out_depth; j < (c + 1) * g.out_depth; ++j)
          dst[j] = v;
      }
    }
  }
}

// tiled[tap][j] = filter[tap][j % out_depth] for j < block; taps in (ky, kx,
// ci) order, filter laid out [taps, out_depth].
template <typename T>
void TileFilter(const DirectGeometry& g, const T* filter, T* tiled) {
  for (int64_t t = 0; t < g.taps(); ++t) {
    for (int64_t j = 0; j < g.block; ++j) {
      tiled[t * g.block + j] = filter[t * g.out_depth + j % g.out_depth];
    }
  }
}

template <typename T, int NV>
void DirectConvImage(const DirectGeometry& g, const T* rep, const T* tiled,
                     T* out) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  constexpr int64_t L = S::kLanes;
  const int64_t row = g.out_cols * g.out_depth;
  const int64_t plane = g.rep_rows * g.row_len;
  for (int64_t oy = 0; oy < g.out_rows; ++oy) {
    T* out_row = out + oy * row;
    for (int64_t j0 = 0; j0 < row; j0 += NV * L) {
      Vec acc[NV];
#pragma GCC unroll 16
      for (int v = 0; v < NV; ++v) acc[v] = Vec{};
      const T* w = tiled;
      for (int64_t ky = 0; ky < g.window_rows; ++ky) {
        const T* rrow = rep + (oy + ky * g.dilation_rows) * g.row_len + j0;
        for (int64_t kx = 0; kx < g.window_cols; ++kx) {
          const T* p = rrow + kx * g.dilation_cols * g.out_depth;
          for (int64_t ci = 0; ci < g.in_depth; ++ci, w += NV * L) {
            const T* pc = p + ci * plane;
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) {
              acc[v] += S::Load(pc + v * L) * S::Load(w + v * L);
            }
          }
        }
      }
      if (j0 + NV * L <= row) {
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) S::Store(out_row + j0 + v * L, acc[v]);
      } else {
        T tail[NV * L];
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) S::Store(tail + v * L, acc[v]);
        std::memcpy(out_row + j0, tail, (row - j0) * sizeof(T));
      }
    }
  }
}

// acc[t][j] += sum over rows and columns of rep * dy, for each tap t; dy is
// one image of out_backprop with rows padded to out_row_padded (zeros).
template <typename T, int NV>
void DirectFilterImage(const DirectGeometry& g, const T* rep, const T* dy,
                       T* acc_out) {
  using S = Simd<T>;
  using Vec = typename S::Vec;
  constexpr int64_t L = S::kLanes;
  const int64_t plane = g.rep_rows * g.row_len;
  for (int64_t ky = 0; ky < g.window_rows; ++ky) {
    for (int64_t kx = 0; kx < g.window_cols; ++kx) {
      for (int64_t ci = 0; ci < g.in_depth; ++ci) {
        const int64_t t = (ky * g.window_cols + kx) * g.in_depth + ci;
        Vec acc[NV];
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v)
          acc[v] = S::Load(acc_out + t * NV * L + v * L);
        for (int64_t oy = 0; oy < g.out_rows; ++oy) {
          const T* p = rep + ci * plane +
                       (oy + ky * g.dilation_rows) * g.row_len +
                       kx * g.dilation_cols * g.out_depth;
          const T* d = dy + oy * g.out_row_padded;
          for (int64_t j0 = 0; j0 < g.out_row_padded; j0 += NV * L) {
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) {
              acc[v] += S::Load(p + j0 + v * L) * S::Load(d + j0 + v * L);
            }
          }
        }
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v)
          S::Store(acc_out + t * NV * L + v * L, acc[v]);
      }
    }
  }
}

template <typename T, typename Fn>
void DispatchVectors(int64_t nv, Fn fn) {
  switch (nv) {
#define TW_CASE(N)                        \
  case N:                                 \
    fn(std::integral_constant<int, N>{}); \
    return;
    TW_CASE(1)
    TW_CASE(2)
    TW_CASE(3)
    TW_CASE(4) TW_CASE(5) TW_CASE(6) TW_CASE(7) TW_CASE(8) TW_CASE(9)
        TW_CASE(10) TW_CASE(11) TW_CASE(12)
#undef TW_CASE
  }
}

// Runs the direct convolution of every image with the [taps, out_depth]
// filter.
template <typename T>
void DirectConv(ThreadPool* pool, const DirectGeometry& g, int64_t batch,
                const T* input, const T* filter, T* output) {
  std::vector<T> tiled(g.taps() * g.block);
  TileFilter(g, filter, tiled.data());
  const int64_t in_size = g.in_rows * g.in_cols * g.in_depth;
  const int64_t out_size = g.out_rows * g.out_cols * g.out_depth;
  DispatchVectors<T>(g.block / Simd<T>::kLanes, [&](auto nv) {
    ParallelForParts(pool, batch, [&](int, int64_t n0, int64_t n1) {
      std::vector<T> rep(g.rep_size());
      for (int64_t n = n0; n < n1; ++n) {
        ExpandImage(g, input + n * in_size, rep.data());
        DirectConvImage<T, decltype(nv)::value>(g, rep.data(), tiled.data(),
                                                output + n * out_size);
      }
    });
  });
}

DirectGeometry ForwardGeometry(const Conv2DArgs& a) {
  const Window2D& w = a.w;
  return DirectGeometry{w.in_rows,
                        w.in_cols,
                        w.in_depth,
                        w.out_rows,
                        w.out_cols,
                        a.out_depth,
                        w.window_rows,
                        w.window_cols,
                        w.dilation_rows,
                        w.dilation_cols,
                        w.pad_rows,
                        w.pad_cols,
                        0,
                        0,
                        0,
                        0};
}

// The backprop input as a forward convolution of out_backprop with the
// flipped, transposed filter and the complementary padding.
DirectGeometry BackpropInputGeometry(const Conv2DArgs& a) {
  const Window2D& w = a.w;
  return DirectGeometry{w.out_rows,
                        w.out_cols,
                        a.out_depth,
                        w.in_rows,
                        w.in_cols,
                        w.in_depth,
                        w.window_rows,
                        w.window_cols,
                        w.dilation_rows,
                        w.dilation_cols,
                        (w.window_rows - 1) * w.dilation_rows - w.pad_rows,
                        (w.window_cols - 1) * w.dilation_cols - w.pad_cols,
                        0,
                        0,
                        0,
                        0};
}

// Whether the direct algorithm can run these args (stride 1, buffers of
// bounded size).
bool DirectFeasible(const Conv2DArgs& a, bool backprop_input,
                    int element_size) {
  if (a.w.stride_rows != 1 || a.w.stride_cols != 1) return false;
  DirectGeometry g =
      backprop_input ? BackpropInputGeometry(a) : ForwardGeometry(a);
  if (g.pad_rows < 0 || g.pad_cols < 0) return false;
  return element_size == 4 ? MakeDirectGeometry<float>(&g)
                           : MakeDirectGeometry<double>(&g);
}

// Whether it is the faster one. Measured (benchmarks/nn_kernels.py, LeNet
// layers): direct wins where im2col would copy each input value KH*KW times
// in runs of one or two values (1-4 input channels); from LeNet's conv2 on
// (6 channels in) expanding the input costs more than im2col + GEMM.
bool DirectProfitable(const Conv2DArgs& a, bool backprop_input) {
  const int64_t in_depth = backprop_input ? a.out_depth : a.w.in_depth;
  return in_depth <= 4;
}

bool UseDirect(ConvAlgorithm algorithm, const Conv2DArgs& a,
               bool backprop_input, int element_size) {
  switch (algorithm) {
    case ConvAlgorithm::kIm2col:
      return false;
    case ConvAlgorithm::kDirect:
      return DirectFeasible(a, backprop_input, element_size);
    case ConvAlgorithm::kAuto:
      break;
  }
  return DirectProfitable(a, backprop_input) &&
         DirectFeasible(a, backprop_input, element_size);
}

}  // namespace

ConvAlgorithm ChooseConvAlgorithm(const Conv2DArgs& args, bool backprop_input,
                                  int element_size) {
  return UseDirect(ConvAlgorithm::kAuto, args, backprop_input, element_size)
             ? ConvAlgorithm::kDirect
             : ConvAlgorithm::kIm2col;
}

template <typename T>
void FastConv2D(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                const T* filter, T* output, ConvAlgorithm algorithm) {
  if (UseDirect(algorithm, a, false, sizeof(T))) {
    DirectGeometry g = ForwardGeometry(a);
    MakeDirectGeometry<T>(&g);
    DirectConv(pool, g, a.w.batch, input, filter, output);
    return;
  }
  Im2colConv2D(pool, a, input, filter, output);
}

template <typename T>
void FastConv2DBackpropInput(ThreadPool* pool, const Conv2DArgs& a,
                             const T* filter, const T* out_backprop,
                             T* in_backprop, ConvAlgorithm algorithm) {
  if (UseDirect(algorithm, a, true, sizeof(T))) {
    const Window2D& w = a.w;
    DirectGeometry g = BackpropInputGeometry(a);
    MakeDirectGeometry<T>(&g);
    // flipped[ky][kx][co][ci] = filter[KH-1-ky][KW-1-kx][ci][co].
    std::vector<T> flipped(w.window_rows * w.window_cols * w.in_depth *
                           a.out_depth);
    for (int64_t ky = 0; ky < w.window_rows; ++ky) {
      for (int64_t kx = 0; kx < w.window_cols; ++kx) {
        const T* src = filter + ((w.window_rows - 1 - ky) * w.window_cols +
                                 (w.window_cols - 1 - kx)) *
                                    w.in_depth * a.out_depth;
        T* dst = flipped.data() +
                 (ky * w.window_cols + kx) * w.in_depth * a.out_depth;
        for (int64_t ci = 0; ci < w.in_depth; ++ci) {
          for (int64_t co = 0; co < a.out_depth; ++co) {
            dst[co * w.in_depth + ci] = src[ci * a.out_depth + co];
          }
        }
      }
    }
    DirectConv(pool, g, w.batch, out_backprop, flipped.data(), in_backprop);
    return;
  }
  Im2colBackpropInput(pool, a, filter, out_backprop, in_backprop);
}

template <typename T>
void FastConv2DBackpropFilter(ThreadPool* pool, const Conv2DArgs& a,
                              const T* input, const T* out_backprop,
                              T* filter_backprop, ConvAlgorithm algorithm) {
  if (!UseDirect(algorithm, a, false, sizeof(T))) {
    Im2colBackpropFilter(pool, a, input, out_backprop, filter_backprop);
    return;
  }
  DirectGeometry g = ForwardGeometry(a);
  MakeDirectGeometry<T>(&g);
  const int64_t in_size = g.in_rows * g.in_cols * g.in_depth;
  const int64_t row = g.out_cols * g.out_depth;
  const int64_t acc_size = g.taps() * g.block;
  const int parts = NumParts(pool, a.w.batch);
  std::vector<T> partials(parts * acc_size, T(0));
  DispatchVectors<T>(g.block / Simd<T>::kLanes, [&](auto nv) {
    ParallelForParts(pool, a.w.batch, [&](int part, int64_t n0, int64_t n1) {
      std::vector<T> rep(g.rep_size());
      std::vector<T> dy(g.out_rows * g.out_row_padded, T(0));
      for (int64_t n = n0; n < n1; ++n) {
        ExpandImage(g, input + n * in_size, rep.data());
        const T* src = out_backprop + n * g.out_rows * row;
        for (int64_t oy = 0; oy < g.out_rows; ++oy) {
          std::memcpy(dy.data() + oy * g.out_row_padded, src + oy * row,
                      row * sizeof(T));
        }
        DirectFilterImage<T, decltype(nv)::value>(
            g, rep.data(), dy.data(), partials.data() + part * acc_size);
      }
    });
  });
  // Fold: filter_backprop[t][co] = sum over parts and j = co (mod depth).
  for (int64_t t = 0; t < g.taps(); ++t) {
    for (int64_t co = 0; co < g.out_depth; ++co) {
      T sum = 0;
      for (int part = 0; part < parts; ++part) {
        const T* acc = partials.data() + part * acc_size + t * g.block;
        for (int64_t j = co; j < g.block; j += g.out_depth) sum += acc[j];
      }
      filter_backprop[t * g.out_depth + co] = sum;
    }
  }
}

#define TW_INSTANTIATE(T)                                                      \
  template void ReferenceConv2D<T>(const Conv2DArgs&, const T*, const T*, T*); \
  template void ReferenceConv2DBackpropInput<T>(const Conv2DArgs&, const T*,   \
                                                const T*, T*);                 \
  template void ReferenceConv2DBackpropFilter<T>(const Conv2DArgs&, const T*,  \
                                                 const T*, T*);                \
  template void FastConv2D<T>(ThreadPool*, const Conv2DArgs&, const T*,        \
                              const T*, T*, ConvAlgorithm);                    \
  template void FastConv2DBackpropInput<T>(                                    \
      ThreadPool*, const Conv2DArgs&, const T*, const T*, T*, ConvAlgorithm);  \
  template void FastConv2DBackpropFilter<T>(                                   \
      ThreadPool*, const Conv2DArgs&, const T*, const T*, T*, ConvAlgorithm);
TW_INSTANTIATE(float)
TW_INSTANTIATE(double)
#undef TW_INSTANTIATE

}  // namespace tensorweave
