// The direct algorithm: stride-1 convolutions with few channels (LeNet-like
// layers). Each input channel is expanded so that one output row (all
// columns times all output channels, flattened) is a contiguous vector, and
// the filter taps become periodic vectors: every multiply-add is a full SIMD
// lane, however few the output channels. The input gradient is the same
// convolution of out_backprop with the flipped filter; the filter gradient
// accumulates expanded input rows times out_backprop rows.
#include <algorithm>
#include <climits>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include "core/kernels/conv_algorithms.h"
#include "core/kernels/conv_simd.h"

namespace tensorweave {
namespace {

using conv_internal::Simd;

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
    TW_CASE(4)
    TW_CASE(5)
    TW_CASE(6)
    TW_CASE(7) TW_CASE(8) TW_CASE(9) TW_CASE(10) TW_CASE(11) TW_CASE(12)
#undef TW_CASE
  }
}

// Float convolutions into a multiple of kBLanes channels (an image network's
// first layer, 3 -> 64): the input is not expanded. Each image is copied once
// with its padding (rep_rows x padded_cols pixels of in_depth values), and a
// block of P output pixels x V vectors of output channels is held in registers
// while each tap's V filter vectors multiply the P pixels' input value,
// broadcast (an implicit GEMM with k = taps). The filter gradient is the same
// product the other way: a block of TB taps x V vectors of output channels in
// registers over all pixels of the image, the out_backprop vectors times the
// TB input values broadcast.
// The vectors are the machine's registers (written with GCC's vector types,
// so the same code is AVX-512, AVX2 or SSE): 6 pixels x 4 vectors of
// accumulators + 4 + 1 of AVX-512's 32 registers, 6 x 2 + 2 + 1 of AVX2's 16.
#if defined(__AVX512F__)
constexpr int kBVecBytes = 64, kBroadcastVectors = 4;
#elif defined(__AVX__)
constexpr int kBVecBytes = 32, kBroadcastVectors = 2;
#else
constexpr int kBVecBytes = 16, kBroadcastVectors = 2;
#endif
typedef float BVec __attribute__((vector_size(kBVecBytes)));
constexpr int kBLanes = kBVecBytes / sizeof(float);
constexpr int kBroadcastPixels = 6;
constexpr int kBroadcastTaps = 6;

BVec LoadB(const float* p) {
  BVec v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
void StoreB(float* p, BVec v) { std::memcpy(p, &v, sizeof(v)); }
BVec BroadcastB(float x) {  // one broadcast load (BVec{} + x would add)
  BVec v;
  for (int i = 0; i < kBLanes; ++i) v[i] = x;
  return v;
}

bool BroadcastApplies(const DirectGeometry& g) {
  return g.out_depth % kBLanes == 0;
}

int64_t PaddedCols(const DirectGeometry& g) {
  return g.out_cols + (g.window_cols - 1) * g.dilation_cols;
}

// padded[r][c][ci] = image[r - pad_rows][c - pad_cols][ci], 0 outside.
void PadImage(const DirectGeometry& g, const float* image, float* padded) {
  const int64_t rows = g.rep_rows, cols = PaddedCols(g), cin = g.in_depth;
  std::fill(padded, padded + rows * cols * cin, 0.0f);
  const int64_t c0 = std::min<int64_t>(cols, g.pad_cols);
  const int64_t c1 =
      std::max<int64_t>(c0, std::min<int64_t>(cols, g.in_cols + g.pad_cols));
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t iy = r - g.pad_rows;
    if (iy < 0 || iy >= g.in_rows || c1 == c0) continue;
    std::memcpy(padded + (r * cols + c0) * cin,
                image + (iy * g.in_cols + c0 - g.pad_cols) * cin,
                (c1 - c0) * cin * sizeof(float));
  }
}

// The offset in the padded image of each tap (ky, kx, ci) from its pixel.
std::vector<int64_t> TapOffsets(const DirectGeometry& g) {
  std::vector<int64_t> off(g.taps());
  const int64_t cols = PaddedCols(g);
  for (int64_t ky = 0; ky < g.window_rows; ++ky) {
    for (int64_t kx = 0; kx < g.window_cols; ++kx) {
      for (int64_t ci = 0; ci < g.in_depth; ++ci) {
        off[(ky * g.window_cols + kx) * g.in_depth + ci] =
            (ky * g.dilation_rows * cols + kx * g.dilation_cols) * g.in_depth +
            ci;
      }
    }
  }
  return off;
}

// out[i][v * kBLanes ..] (pixels `depth` apart) = sum over taps t of
// pix[i * cin + off[t]] * filter[t * depth + v * kBLanes ..].
template <int P, int V, int kEpilogue>
void BroadcastForwardBlock(const float* pix, int64_t cin, const int64_t* off,
                           int64_t taps, const float* filter, int64_t depth,
                           const float* bias, float* out) {
  BVec acc[P][V];
#pragma GCC unroll 8
  for (int i = 0; i < P; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[i][v] = BVec{};
  }
  for (int64_t t = 0; t < taps; ++t) {
    BVec w[V];
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) w[v] = LoadB(filter + t * depth + v * kBLanes);
    const float* p = pix + off[t];
#pragma GCC unroll 8
    for (int i = 0; i < P; ++i) {
      const BVec x = BroadcastB(p[i * cin]);
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) acc[i][v] += x * w[v];
    }
  }
  // kEpilogue: 0 the sum, 1 plus the bias, 2 then Relu, 3 then Relu6 (a NaN
  // stays NaN, as in the separate ops).
  BVec b[V];
#pragma GCC unroll 4
  for (int v = 0; v < V; ++v) {
    b[v] = kEpilogue > 0 ? LoadB(bias + v * kBLanes) : BVec{};
  }
  const BVec zero = BVec{}, six = BroadcastB(6.0f);
#pragma GCC unroll 8
  for (int i = 0; i < P; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      BVec y = acc[i][v];
      if (kEpilogue > 0) y += b[v];
      if (kEpilogue > 1) y = y < zero ? zero : y;
      if (kEpilogue > 2) y = y > six ? six : y;
      StoreB(out + i * depth + v * kBLanes, y);
    }
  }
}

// acc_out[j * depth + v * kBLanes ..] += sum over the image's pixels q of
// padded[q + off[j]] * dy[q][v * kBLanes ..], for j < TB.
template <int TB, int V>
void BroadcastFilterBlock(const DirectGeometry& g, const float* padded,
                          const float* dy, const int64_t* off, float* acc_out) {
  const int64_t cols = PaddedCols(g), cin = g.in_depth, depth = g.out_depth;
  BVec acc[TB][V];
#pragma GCC unroll 8
  for (int j = 0; j < TB; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) acc[j][v] = BVec{};
  }
  int64_t o[TB];
#pragma GCC unroll 8
  for (int j = 0; j < TB; ++j) o[j] = off[j];
  for (int64_t oy = 0; oy < g.out_rows; ++oy) {
    const float* prow = padded + oy * cols * cin;
    const float* drow = dy + oy * g.out_cols * depth;
    for (int64_t ox = 0; ox < g.out_cols; ++ox) {
      BVec d[V];
#pragma GCC unroll 4
      for (int v = 0; v < V; ++v) d[v] = LoadB(drow + ox * depth + v * kBLanes);
      const float* p = prow + ox * cin;
#pragma GCC unroll 8
      for (int j = 0; j < TB; ++j) {
        const BVec x = BroadcastB(p[o[j]]);
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[j][v] += x * d[v];
      }
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < TB; ++j) {
#pragma GCC unroll 4
    for (int v = 0; v < V; ++v) {
      float* a = acc_out + j * depth + v * kBLanes;
      StoreB(a, LoadB(a) + acc[j][v]);
    }
  }
}

// fn(std::integral_constant<int, A>, std::integral_constant<int, B>) for
// 1 <= a <= 6, 1 <= b <= 4.
template <typename Fn>
void Dispatch6x4(int a, int b, Fn fn) {
  auto inner = [&](auto ac) {
    switch (b) {
      case 1:
        return fn(ac, std::integral_constant<int, 1>{});
      case 2:
        return fn(ac, std::integral_constant<int, 2>{});
      case 3:
        return fn(ac, std::integral_constant<int, 3>{});
      default:
        return fn(ac, std::integral_constant<int, 4>{});
    }
  };
  switch (a) {
    case 1:
      return inner(std::integral_constant<int, 1>{});
    case 2:
      return inner(std::integral_constant<int, 2>{});
    case 3:
      return inner(std::integral_constant<int, 3>{});
    case 4:
      return inner(std::integral_constant<int, 4>{});
    case 5:
      return inner(std::integral_constant<int, 5>{});
    default:
      return inner(std::integral_constant<int, 6>{});
  }
}

// With kEpilogue (BroadcastForwardBlock's) and its bias.
template <int kEpilogue = 0>
void BroadcastConv(ThreadPool* pool, const DirectGeometry& g, int64_t batch,
                   const float* input, const float* filter, float* output,
                   const float* bias = nullptr) {
  const std::vector<int64_t> off = TapOffsets(g);
  const int64_t cols = PaddedCols(g), cin = g.in_depth, depth = g.out_depth;
  const int64_t in_size = g.in_rows * g.in_cols * cin;
  const int64_t out_size = g.out_rows * g.out_cols * depth;
  ParallelForParts(pool, batch, [&](int, int64_t n0, int64_t n1) {
    std::vector<float> padded(g.rep_rows * cols * cin);
    for (int64_t n = n0; n < n1; ++n) {
      PadImage(g, input + n * in_size, padded.data());
      float* out = output + n * out_size;
      for (int64_t oy = 0; oy < g.out_rows; ++oy) {
        for (int64_t co = 0; co < depth; co += kBLanes * kBroadcastVectors) {
          const int nv = static_cast<int>(
              std::min<int64_t>(kBroadcastVectors, (depth - co) / kBLanes));
          for (int64_t ox = 0; ox < g.out_cols; ox += kBroadcastPixels) {
            const int np = static_cast<int>(
                std::min<int64_t>(kBroadcastPixels, g.out_cols - ox));
            Dispatch6x4(np, nv, [&](auto p, auto v) {
              BroadcastForwardBlock<decltype(p)::value, decltype(v)::value,
                                    kEpilogue>(
                  padded.data() + (oy * cols + ox) * cin, cin, off.data(),
                  g.taps(), filter + co, depth,
                  kEpilogue > 0 ? bias + co : nullptr,
                  out + (oy * g.out_cols + ox) * depth + co);
            });
          }
        }
      }
    }
  });
}

// filter_backprop[t][co] = sum over images and pixels of the input at tap t
// times out_backprop.
void BroadcastFilter(ThreadPool* pool, const DirectGeometry& g, int64_t batch,
                     const float* input, const float* out_backprop,
                     float* filter_backprop) {
  const std::vector<int64_t> off = TapOffsets(g);
  const int64_t cols = PaddedCols(g), cin = g.in_depth, depth = g.out_depth;
  const int64_t taps = g.taps();
  const int64_t in_size = g.in_rows * g.in_cols * cin;
  const int64_t out_size = g.out_rows * g.out_cols * depth;
  const int parts = NumParts(pool, batch);
  std::vector<float> partials(parts * taps * depth, 0.0f);
  ParallelForParts(pool, batch, [&](int part, int64_t n0, int64_t n1) {
    std::vector<float> padded(g.rep_rows * cols * cin);
    float* acc = partials.data() + part * taps * depth;
    for (int64_t n = n0; n < n1; ++n) {
      PadImage(g, input + n * in_size, padded.data());
      const float* dy = out_backprop + n * out_size;
      for (int64_t co = 0; co < depth; co += kBLanes * kBroadcastVectors) {
        const int nv = static_cast<int>(
            std::min<int64_t>(kBroadcastVectors, (depth - co) / kBLanes));
        for (int64_t t = 0; t < taps; t += kBroadcastTaps) {
          const int nt =
              static_cast<int>(std::min<int64_t>(kBroadcastTaps, taps - t));
          Dispatch6x4(nt, nv, [&](auto tb, auto v) {
            BroadcastFilterBlock<decltype(tb)::value, decltype(v)::value>(
                g, padded.data(), dy + co, off.data() + t,
                acc + t * depth + co);
          });
        }
      }
    }
  });
  for (int64_t i = 0; i < taps * depth; ++i) {
    float sum = 0;
    for (int part = 0; part < parts; ++part)
      sum += partials[part * taps * depth + i];
    filter_backprop[i] = sum;
  }
}

// Runs the direct convolution of every image with the [taps, out_depth]
// filter.
template <typename T>
void DirectConv(ThreadPool* pool, const DirectGeometry& g, int64_t batch,
                const T* input, const T* filter, T* output) {
  if constexpr (std::is_same_v<T, float>) {
    if (BroadcastApplies(g)) {
      return BroadcastConv(pool, g, batch, input, filter, output);
    }
  }
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

}  // namespace

bool DirectFeasible(const Conv2DArgs& a, bool backprop_input,
                    int element_size) {
  if (a.w.stride_rows != 1 || a.w.stride_cols != 1) return false;
  DirectGeometry g =
      backprop_input ? BackpropInputGeometry(a) : ForwardGeometry(a);
  if (g.pad_rows < 0 || g.pad_cols < 0) return false;
  return element_size == 4 ? MakeDirectGeometry<float>(&g)
                           : MakeDirectGeometry<double>(&g);
}

template <typename T>
void DirectConv2D(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                  const T* filter, T* output) {
  DirectGeometry g = ForwardGeometry(a);
  MakeDirectGeometry<T>(&g);
  DirectConv(pool, g, a.w.batch, input, filter, output);
}

template <typename T>
void DirectBackpropInput(ThreadPool* pool, const Conv2DArgs& a, const T* filter,
                         const T* out_backprop, T* in_backprop) {
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
      T* dst =
          flipped.data() + (ky * w.window_cols + kx) * w.in_depth * a.out_depth;
      for (int64_t ci = 0; ci < w.in_depth; ++ci) {
        for (int64_t co = 0; co < a.out_depth; ++co) {
          dst[co * w.in_depth + ci] = src[ci * a.out_depth + co];
        }
      }
    }
  }
  DirectConv(pool, g, w.batch, out_backprop, flipped.data(), in_backprop);
}

template <typename T>
void DirectBackpropFilter(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                          const T* out_backprop, T* filter_backprop) {
  DirectGeometry g = ForwardGeometry(a);
  MakeDirectGeometry<T>(&g);
  if constexpr (std::is_same_v<T, float>) {
    if (BroadcastApplies(g)) {
      return BroadcastFilter(pool, g, a.w.batch, input, out_backprop,
                             filter_backprop);
    }
  }
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

// output = act(conv(input, filter) + bias) where ChooseConvAlgorithm picked
// kDirect for the forward pass, the bias and activation applied as each block
// is stored; activation 0: none, 1: Relu (x < 0 ? 0 : x), 2: Relu6 (then
// x > 6 ? 6 : x), the formulas of the Relu kernels. False, writing nothing,
// where this layer has no such kernel (out_depth not a multiple of kBLanes).
// _FusedConv2D (fused_ops.cc) calls it (declared in conv_algorithms.h).
bool DirectConv2DBiasActivation(ThreadPool* pool, const Conv2DArgs& a,
                                const float* input, const float* filter,
                                const float* bias, int activation,
                                float* output) {
  DirectGeometry g = ForwardGeometry(a);
  if (!MakeDirectGeometry<float>(&g) || !BroadcastApplies(g)) return false;
  switch (activation) {
    case 0:
      BroadcastConv<1>(pool, g, a.w.batch, input, filter, output, bias);
      return true;
    case 1:
      BroadcastConv<2>(pool, g, a.w.batch, input, filter, output, bias);
      return true;
    case 2:
      BroadcastConv<3>(pool, g, a.w.batch, input, filter, output, bias);
      return true;
    default:
      return false;
  }
}

#define TW_INSTANTIATE(T)                                                 \
  template void DirectConv2D<T>(ThreadPool*, const Conv2DArgs&, const T*, \
                                const T*, T*);                            \
  template void DirectBackpropInput<T>(ThreadPool*, const Conv2DArgs&,    \
                                       const T*, const T*, T*);           \
  template void DirectBackpropFilter<T>(ThreadPool*, const Conv2DArgs&,   \
                                        const T*, const T*, T*);
TW_INSTANTIATE(float)
TW_INSTANTIATE(double)
#undef TW_INSTANTIATE

}  // namespace tensorweave
