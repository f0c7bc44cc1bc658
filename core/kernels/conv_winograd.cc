// The Winograd algorithm F(4x4, 3x3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016) for 3x3, stride-1, undilated
// convolutions with many channels. The output is cut into 4x4 tiles; each
// tile's 6x6 input patch d and the filter g are carried into a 6x6
// transformed domain, V = B^T d B and U = G g G^T, where the convolution is
// an element-wise product; Y = A^T (U . V) A brings it back. Summed over the
// input channels, the products at each of the 36 positions are one GEMM
// [tiles x C_in] x [C_in x C_out]: 36 multiplies per 16 outputs and input
// channel instead of 144.
//
// All three passes run in that domain:
//   forward          Y  = A^T (U . V) A, U from g, V from the input;
//   input gradient   the forward pass over out_backprop with the filter
//                    rotated by 180 degrees and its channels swapped, and
//                    the complementary padding (2 - pad);
//   filter gradient  dg = G^T [sum over tiles (A dY A^T) . V] G, the adjoint
//                    of the forward map in g: the tiles' GEMMs reduce over
//                    the tiles, and G^T . G runs once at the end.
// Tiles are processed in blocks small enough that a block's transformed
// inputs and products stay in the caches; blocks are split over the pool.
// Values past the input's edges are zeros; tiles past the output's edges are
// computed and dropped (forward) or contribute zeros (filter gradient).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/kernels/conv_algorithms.h"

namespace tensorweave {
namespace {

constexpr int kAlpha = 6;  // transformed tile side: 4 + 3 - 1
constexpr int kPoints = kAlpha * kAlpha;
constexpr int kTile = 4;  // output tile side

// One stride-1 3x3 convolution as the tiles see it (NHWC input and output).
struct TileGeometry {
  int64_t batch, in_rows, in_cols, in_depth;
  int64_t out_rows, out_cols, out_depth;
  int64_t pad_top, pad_left;

  int64_t tile_rows() const { return (out_rows + kTile - 1) / kTile; }
  int64_t tile_cols() const { return (out_cols + kTile - 1) / kTile; }
  int64_t tiles_per_image() const { return tile_rows() * tile_cols(); }
  int64_t tiles() const { return batch * tiles_per_image(); }
};

// --- vectors -----------------------------------------------------------------
// The vector unit's width (64 bytes with AVX-512, 32 with AVX2, else 16).
#if defined(__AVX512F__)
constexpr int kVecBytes = 64, kVectors = 4;
#elif defined(__AVX__)
constexpr int kVecBytes = 32, kVectors = 2;
#else
constexpr int kVecBytes = 16, kVectors = 2;
#endif
constexpr int kRows = 6;

template <typename T>
struct Vec {
  typedef T Type __attribute__((vector_size(kVecBytes)));
  static constexpr int kLanes = kVecBytes / sizeof(T);
  // x in every lane: one broadcast load (V{} + x would add).
  static Type Broadcast(T x) {
    Type v;
    for (int i = 0; i < kLanes; ++i) v[i] = x;
    return v;
  }
};
template <typename T>
constexpr int64_t kPanel = Vec<T>::kLanes* kVectors;

// --- the 1-D transforms, over vectors of n values (channels) ----------------
// Transform1D applies `formula` to in[(first + k) * is + c] -> out[i * os + c]
// for every c < n, a vector of channels at a time, then the scalar tail.
// Inputs k whose bit in `present` is clear are zeros and never read (rows
// past an image's edges: `first` may be negative). The formula is written
// once for vectors and scalars: formula(ld, st) reads input k as ld(k) and
// writes output i with st(i, value).
template <typename T, typename Formula>
void Transform1D(const T* in, int64_t is, T* out, int64_t os, int64_t n,
                 Formula formula, int64_t first = 0, unsigned present = ~0u) {
  using V = typename Vec<T>::Type;
  constexpr int L = Vec<T>::kLanes;
  int64_t c = 0;
  for (; c + L <= n; c += L) {
    formula(
        [&](int k) {
          V x = {};
          if (present >> k & 1) {
            std::memcpy(&x, in + (first + k) * is + c, sizeof(V));
          }
          return x;
        },
        [&](int i, V y) { std::memcpy(out + i * os + c, &y, sizeof(V)); });
  }
  for (; c < n; ++c) {
    formula(
        [&](int k) {
          return (present >> k & 1) ? in[(first + k) * is + c] : T(0);
        },
        [&](int i, T y) { out[i * os + c] = y; });
  }
}

// B^T d (6 -> 6).
template <typename T>
void InputTransform1D(const T* in, int64_t is, T* out, int64_t os, int64_t n,
                      int64_t first = 0, unsigned present = ~0u) {
  Transform1D(
      in, is, out, os, n,
      [](auto ld, auto st) {
        const auto d0 = ld(0), d1 = ld(1), d2 = ld(2), d3 = ld(3), d4 = ld(4);
        st(0, T(4) * d0 - T(5) * d2 + d4);
        st(1, d3 + d4 - T(4) * (d1 + d2));
        st(2, d4 - d3 + T(4) * (d1 - d2));
        st(3, d4 - d2 + T(2) * (d3 - d1));
        st(4, d4 - d2 + T(2) * (d1 - d3));
        st(5, T(4) * d1 - T(5) * d3 + ld(5));
      },
      first, present);
}

// A^T m (6 -> 4).
template <typename T>
void OutputTransform1D(const T* in, int64_t is, T* out, int64_t os, int64_t n) {
  Transform1D(in, is, out, os, n, [](auto ld, auto st) {
    const auto m1 = ld(1), m2 = ld(2), m3 = ld(3), m4 = ld(4);
    const auto s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4;
    st(0, ld(0) + s12 + s34);
    st(1, d12 + T(2) * d34);
    st(2, s12 + T(4) * s34);
    st(3, d12 + T(8) * d34 + ld(5));
  });
}

// G g (3 -> 6).
template <typename T>
void FilterTransform1D(const T* in, int64_t is, T* out, int64_t os, int64_t n) {
  Transform1D(in, is, out, os, n, [](auto ld, auto st) {
    const auto g0 = ld(0), g1 = ld(1), g2 = ld(2);
    st(0, g0 / T(4));
    st(1, -(g0 + g1 + g2) / T(6));
    st(2, -(g0 - g1 + g2) / T(6));
    st(3, g0 / T(24) + g1 / T(12) + g2 / T(6));
    st(4, g0 / T(24) - g1 / T(12) + g2 / T(6));
    st(5, g2);
  });
}

// A dy (4 -> 6): the adjoint of OutputTransform1D.
template <typename T>
void OutputAdjoint1D(const T* in, int64_t is, T* out, int64_t os, int64_t n,
                     int64_t first = 0, unsigned present = ~0u) {
  Transform1D(
      in, is, out, os, n,
      [](auto ld, auto st) {
        const auto y0 = ld(0), y1 = ld(1), y2 = ld(2), y3 = ld(3);
        const auto s02 = y0 + y2, s13 = y1 + y3;
        const auto q02 = y0 + T(4) * y2, q13 = T(2) * y1 + T(8) * y3;
        st(0, y0);
        st(1, s02 + s13);
        st(2, s02 - s13);
        st(3, q02 + q13);
        st(4, q02 - q13);
        st(5, y3);
      },
      first, present);
}

// G^T s (6 -> 3): the adjoint of FilterTransform1D.
template <typename T>
void FilterAdjoint1D(const T* in, int64_t is, T* out, int64_t os, int64_t n) {
  Transform1D(in, is, out, os, n, [](auto ld, auto st) {
    const auto s1 = ld(1), s2 = ld(2), s3 = ld(3), s4 = ld(4);
    st(0, ld(0) / T(4) - (s1 + s2) / T(6) + (s3 + s4) / T(24));
    st(1, (s2 - s1) / T(6) + (s3 - s4) / T(12));
    st(2, (s3 + s4 - s1 - s2) / T(6) + ld(5));
  });
}

// --- the GEMMs ---------------------------------------------------------------
// C[r][j] (+)= sum_p A(r, p) B[p][j] for kRows rows and one panel of
// kPanel(T) columns, A(r, p) = a[r * a_rs + p * a_ks]: the accumulators stay
// in registers for the whole sum (kRows x kVectors vectors), each step loads
// kVectors vectors of B and broadcasts kRows values of A. BLAS would repack
// its operands on every call, which costs as much as these GEMMs' multiplies
// (a few dozen rows each).
template <typename T, int R>
void MicroKernel(int64_t k, const T* a, int64_t a_rs, int64_t a_ks, const T* b,
                 int64_t ldb, T* c, int64_t ldc, bool accumulate) {
  using V = typename Vec<T>::Type;
  constexpr int L = Vec<T>::kLanes;
  V acc[R][kVectors];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      if (accumulate) {
        std::memcpy(&acc[r][v], c + r * ldc + v * L, sizeof(V));
      } else {
        acc[r][v] = V{};
      }
    }
  }
  for (int64_t p = 0; p < k; ++p) {
    V bv[kVectors];
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      std::memcpy(&bv[v], b + p * ldb + v * L, sizeof(V));
    }
    const T* ap = a + p * a_ks;
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const V av = Vec<T>::Broadcast(ap[r * a_rs]);
#pragma GCC unroll 4
      for (int v = 0; v < kVectors; ++v) acc[r][v] += av * bv[v];
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < kVectors; ++v) {
      std::memcpy(c + r * ldc + v * L, &acc[r][v], sizeof(V));
    }
  }
}

// C [m x n] (+)= A B over whole panels: n a multiple of kPanel<T>, B and C
// rows ldb and ldc apart. Panels outer, so each panel of B (k x kPanel) stays
// in L1 while all the rows pass.
template <typename T>
void PanelGemm(int64_t m, int64_t n, int64_t k, const T* a, int64_t a_rs,
               int64_t a_ks, const T* b, int64_t ldb, T* c, int64_t ldc,
               bool accumulate) {
  for (int64_t j = 0; j < n; j += kPanel<T>) {
    int64_t r = 0;
    for (; r + kRows <= m; r += kRows) {
      MicroKernel<T, kRows>(k, a + r * a_rs, a_rs, a_ks, b + j, ldb,
                            c + r * ldc + j, ldc, accumulate);
    }
    if (r < m) {  // the last 1-5 rows
      using Kernel = void (*)(int64_t, const T*, int64_t, int64_t, const T*,
                              int64_t, T*, int64_t, bool);
      static constexpr Kernel kTails[kRows] = {
          nullptr,           MicroKernel<T, 1>, MicroKernel<T, 2>,
          MicroKernel<T, 3>, MicroKernel<T, 4>, MicroKernel<T, 5>};
      kTails[m - r](k, a + r * a_rs, a_rs, a_ks, b + j, ldb, c + r * ldc + j,
                    ldc, accumulate);
    }
  }
}

// n rounded up to whole panels.
template <typename T>
int64_t Panels(int64_t n) {
  return (n + kPanel<T> - 1) / kPanel<T> * kPanel<T>;
}

// --- the forward pass's epilogue ---------------------------------------------
// _FusedConv2D's bias and activation, applied to each output row while it is
// in L1: x = act(x + bias[c]) with act none (0), Relu (1) or Relu6 (2), the
// formulas of the unfused ops (NaN passes through both).
template <typename T>
struct Epilogue {
  const T* bias = nullptr;  // none: a plain convolution
  int activation = 0;
};

template <typename T>
void ApplyEpilogue(const Epilogue<T>& epilogue, T* out, int64_t pixels,
                   int64_t depth) {
  using V = typename Vec<T>::Type;
  constexpr int L = Vec<T>::kLanes;
  const int activation = epilogue.activation;
  auto act = [activation](auto x) {
    if (activation == 0) return x;
    x = x < T(0) ? T(0) : x;
    return activation == 1 ? x : (x > T(6) ? T(6) : x);
  };
  for (int64_t p = 0; p < pixels; ++p) {
    T* row = out + p * depth;
    int64_t c = 0;
    for (; c + L <= depth; c += L) {
      V x, b;
      std::memcpy(&x, row + c, sizeof(V));
      std::memcpy(&b, epilogue.bias + c, sizeof(V));
      x = act(x + b);
      std::memcpy(row + c, &x, sizeof(V));
    }
    for (; c < depth; ++c) row[c] = act(row[c] + epilogue.bias[c]);
  }
}

// --- scratch memory ----------------------------------------------------------
// Each thread keeps its buffers between calls: a training step runs the same
// convolutions every time, and fresh multi-megabyte vectors would be fresh
// pages that the kernel zeroes on first touch, every step (measured: 8% of
// the CIFAR CNN's step). Scratch<T>(slot, n) is the calling thread's buffer
// `slot`, at least n values long, holding whatever its last use left. A
// thread uses the outer slots in the op's own call, the inner ones in the
// parts it runs; no thread runs two calls at once (ParallelFor's caller
// waits without running other work).
enum ScratchSlot {
  kFilterSlot,      // outer: the transformed filter, padded
  kFilterTmpSlot,   // outer: filter transform temporaries
  kFilterTmp2Slot,  // outer: the rotated filter, dU
  kPartialsSlot,    // outer: the filter gradient's per-part sums
  kBlockInSlot,     // inner: a block's transformed inputs
  kBlockOutSlot,    // inner: a block's products / transformed dY
  kPatchSlot,       // inner: a partial output tile
  kTmpSlot,         // inner: one tile's transform temporaries
  kNumSlots
};

template <typename T>
std::vector<T>& ScratchBuffer(ScratchSlot slot) {
  thread_local std::vector<T> buffers[kNumSlots];
  return buffers[slot];
}

template <typename T>
T* Scratch(ScratchSlot slot, int64_t n) {
  std::vector<T>& buffer = ScratchBuffer<T>(slot);
  if (static_cast<int64_t>(buffer.size()) < n) buffer = std::vector<T>(n);
  return buffer.data();
}

// Frees the calling thread's buffers [first, last] above 16 MiB once a call
// is done with them: a model's largest layers must not pin that much memory
// per thread for the life of the process.
template <typename T>
void TrimScratch(ScratchSlot first, ScratchSlot last) {
  for (int slot = first; slot <= last; ++slot) {
    std::vector<T>& buffer = ScratchBuffer<T>(static_cast<ScratchSlot>(slot));
    if (buffer.size() * sizeof(T) > (16u << 20)) std::vector<T>().swap(buffer);
  }
}

// --- tiles -------------------------------------------------------------------

// Bit k set where row first + k of `size` rows is inside [0, rows).
unsigned RowsInside(int64_t first, int size, int64_t rows) {
  unsigned present = 0;
  for (int k = 0; k < size; ++k) {
    if (first + k >= 0 && first + k < rows) present |= 1u << k;
  }
  return present;
}

// V[e] (e = (i, j) of the 6x6 domain, points `point_stride` apart) = B^T d B
// of the 6x6 patch d of `image` [rows, cols, depth] whose corner is (y0, x0),
// zeros outside the image, read in place. `tmp` holds 36 * depth values.
template <typename T>
void TransformImagePatch(const T* image, int64_t rows, int64_t cols,
                         int64_t depth, int64_t y0, int64_t x0, T* tmp, T* v,
                         int64_t point_stride) {
  const unsigned present = RowsInside(y0, kAlpha, rows);
  for (int j = 0; j < kAlpha; ++j) {  // columns: along i, into tmp[i][j]
    const int64_t x = x0 + j;
    if (x < 0 || x >= cols) {
      for (int i = 0; i < kAlpha; ++i) {
        std::fill_n(tmp + (i * kAlpha + j) * depth, depth, T(0));
      }
      continue;
    }
    InputTransform1D(image + x * depth, cols * depth, tmp + j * depth,
                     kAlpha * depth, depth, y0, present);
  }
  for (int i = 0; i < kAlpha; ++i) {  // rows: along j
    InputTransform1D(tmp + i * kAlpha * depth, depth,
                     v + i * kAlpha * point_stride, point_stride, depth);
  }
}

struct TileIndex {
  int64_t image, y0, x0;  // output corner
};

TileIndex TileAt(const TileGeometry& g, int64_t t) {
  const int64_t per_image = g.tiles_per_image();
  const int64_t r = t % per_image;
  return {t / per_image, (r / g.tile_cols()) * kTile,
          (r % g.tile_cols()) * kTile};
}

// V = B^T d B of the input patches of tiles [b0, b0 + nb): tile t's point e
// at v + t * tile_stride + e * point_stride.
template <typename T>
void TransformInputTiles(const TileGeometry& g, const T* input, int64_t b0,
                         int64_t nb, T* tmp, T* v, int64_t tile_stride,
                         int64_t point_stride) {
  const int64_t in_image = g.in_rows * g.in_cols * g.in_depth;
  for (int64_t t = 0; t < nb; ++t) {
    const TileIndex tile = TileAt(g, b0 + t);
    TransformImagePatch(input + tile.image * in_image, g.in_rows, g.in_cols,
                        g.in_depth, tile.y0 - g.pad_top, tile.x0 - g.pad_left,
                        tmp, v + t * tile_stride, point_stride);
  }
}

// Tiles per block. Each block streams the whole transformed filter (36 x in
// x out values) through the GEMMs, and its own transformed inputs and
// products (36 x tiles x (in + out)) through the transforms: a block holds
// about 1 MiB (half a core's L2), or as much as the filter where that is
// larger, so that the filter's traffic is at most the tiles'. Measured on
// the CIFAR CNN's layers: the 64->128 layer is within 10% from 0.5 to 2 MiB;
// the 128->256 layer (4.5 MiB of filter) runs 20% faster with 85 tiles per
// block than with 18.
int64_t BlockTiles(const TileGeometry& g, int element_size, int64_t cap) {
  const int64_t per_tile = kPoints * (g.in_depth + g.out_depth) * element_size;
  const int64_t filter = kPoints * g.in_depth * g.out_depth * element_size;
  const int64_t tiles = std::clamp<int64_t>(
      std::max<int64_t>(1 << 20, filter) / per_tile, 8, cap);
  return tiles / kRows * kRows;  // whole row groups for the micro-kernel
}

// U [36][in_depth][Panels(out_depth)] = G f G^T of an HWIO filter
// [3][3][in][out], in the calling thread's kFilterSlot; the padding columns
// are zeros. Input channels are split over the pool.
template <typename T>
const T* TransformFilter(ThreadPool* pool, const T* filter, int64_t in_depth,
                         int64_t out_depth) {
  const int64_t cc = in_depth * out_depth, padded = Panels<T>(out_depth);
  T* tmp = Scratch<T>(kFilterTmpSlot, kAlpha * 3 * cc);
  T* u = Scratch<T>(kFilterSlot, kPoints * in_depth * padded);
  ParallelForParts(pool, in_depth, [&](int, int64_t c0, int64_t c1) {
    const int64_t at = c0 * out_depth, n = (c1 - c0) * out_depth;
    for (int kx = 0; kx < 3; ++kx) {  // along ky: tmp[i][kx]
      FilterTransform1D(filter + kx * cc + at, 3 * cc, tmp + kx * cc + at,
                        3 * cc, n);
    }
    for (int64_t c = c0; c < c1; ++c) {
      for (int i = 0; i < kAlpha; ++i) {  // along kx: u[i][j][c]
        T* row = u + (i * kAlpha * in_depth + c) * padded;
        FilterTransform1D(tmp + i * 3 * cc + c * out_depth, cc, row,
                          in_depth * padded, out_depth);
        for (int j = 0; j < kAlpha; ++j) {
          T* pad = row + j * in_depth * padded;
          std::fill(pad + out_depth, pad + padded, T(0));
        }
      }
    }
  });
  return u;
}

// Y = conv(X, the filter whose transform is u), over the tile geometry. A
// block's transformed inputs v [tile][36][cin] and products m
// [tile][36][coutp] are tile-major, so that each tile's transforms read and
// write one contiguous run.
template <typename T>
void WinogradForward(ThreadPool* pool, const TileGeometry& g, const T* input,
                     const T* u, T* output, const Epilogue<T>& epilogue = {}) {
  const int64_t cin = g.in_depth, cout = g.out_depth;
  const int64_t coutp = Panels<T>(cout);
  const int64_t block = BlockTiles(g, sizeof(T), 128);
  const int64_t out_image = g.out_rows * g.out_cols * cout;
  ParallelForParts(pool, g.tiles(), [&](int, int64_t t0, int64_t t1) {
    T* v = Scratch<T>(kBlockInSlot, kPoints * block * cin);
    T* m = Scratch<T>(kBlockOutSlot, kPoints * block * coutp);
    // A tile past the output's right edge: its rows, before their copy.
    T* partial = Scratch<T>(kPatchSlot, kTile * kTile * cout);
    T* tmp = Scratch<T>(kTmpSlot, kPoints * std::max(cin, coutp));
    for (int64_t b0 = t0; b0 < t1; b0 += block) {
      const int64_t nb = std::min(block, t1 - b0);
      TransformInputTiles(g, input, b0, nb, tmp, v, kPoints * cin, cin);
      for (int e = 0; e < kPoints; ++e) {
        PanelGemm<T>(nb, coutp, cin, v + e * cin, kPoints * cin, 1,
                     u + e * cin * coutp, coutp, m + e * coutp, kPoints * coutp,
                     /*accumulate=*/false);
      }
      for (int64_t t = 0; t < nb; ++t) {
        const TileIndex tile = TileAt(g, b0 + t);
        const T* mt = m + t * kPoints * coutp;
        for (int j = 0; j < kAlpha; ++j) {  // along i: tmp[r][j]
          OutputTransform1D(mt + j * coutp, kAlpha * coutp, tmp + j * cout,
                            kAlpha * cout, cout);
        }
        const int64_t rows = std::min<int64_t>(kTile, g.out_rows - tile.y0);
        const int64_t cols = std::min<int64_t>(kTile, g.out_cols - tile.x0);
        T* corner = output + tile.image * out_image +
                    (tile.y0 * g.out_cols + tile.x0) * cout;
        for (int r = 0; r < rows; ++r) {  // along j: y[r][s]
          T* dst = cols == kTile ? corner + r * g.out_cols * cout
                                 : partial + r * kTile * cout;
          OutputTransform1D(tmp + r * kAlpha * cout, cout, dst, cout, cout);
          if (epilogue.bias != nullptr)
            ApplyEpilogue(epilogue, dst, cols, cout);
          if (cols < kTile) {
            std::copy(dst, dst + cols * cout, corner + r * g.out_cols * cout);
          }
        }
      }
    }
    TrimScratch<T>(kBlockInSlot, kTmpSlot);
  });
}

TileGeometry ForwardTiles(const Conv2DArgs& a) {
  const Window2D& w = a.w;
  return {w.batch,    w.in_rows,   w.in_cols,  w.in_depth, w.out_rows,
          w.out_cols, a.out_depth, w.pad_rows, w.pad_cols};
}

}  // namespace

bool WinogradFeasible(const Conv2DArgs& a) {
  const Window2D& w = a.w;
  return w.window_rows == 3 && w.window_cols == 3 && w.stride_rows == 1 &&
         w.stride_cols == 1 && w.dilation_rows == 1 && w.dilation_cols == 1;
}

template <typename T>
void WinogradConv2D(ThreadPool* pool, const Conv2DArgs& a, const T* input,
                    const T* filter, T* output) {
  const T* u = TransformFilter(pool, filter, a.w.in_depth, a.out_depth);
  WinogradForward(pool, ForwardTiles(a), input, u, output);
  TrimScratch<T>(kFilterSlot, kPartialsSlot);
}

template <typename T>
bool WinogradConv2DBiasActivation(ThreadPool* pool, const Conv2DArgs& a,
                                  const T* input, const T* filter,
                                  const T* bias, int activation, T* output) {
  const T* u = TransformFilter(pool, filter, a.w.in_depth, a.out_depth);
  WinogradForward(pool, ForwardTiles(a), input, u, output,
                  Epilogue<T>{bias, activation});
  TrimScratch<T>(kFilterSlot, kPartialsSlot);
  return AllFinite(pool, output,
                   a.w.batch * a.w.out_rows * a.w.out_cols * a.out_depth);
}

template <typename T>
void WinogradBackpropInput(ThreadPool* pool, const Conv2DArgs& a,
                           const T* filter, const T* out_backprop,
                           T* in_backprop) {
  // The forward pass of out_backprop (out_depth channels in) with
  // rotated[ky][kx][co][ci] = filter[2-ky][2-kx][ci][co], padded 2 - pad.
  const Window2D& w = a.w;
  const int64_t cin = w.in_depth, cout = a.out_depth;
  T* rotated = Scratch<T>(kFilterTmp2Slot, 9 * cin * cout);
  ParallelForParts(pool, cout, [&](int, int64_t c0, int64_t c1) {
    for (int k = 0; k < 9; ++k) {
      const T* src = filter + (8 - k) * cin * cout;
      T* dst = rotated + k * cin * cout;
      for (int64_t co = c0; co < c1; ++co) {
        for (int64_t ci = 0; ci < cin; ++ci) {
          dst[co * cin + ci] = src[ci * cout + co];
        }
      }
    }
  });
  const T* u = TransformFilter<T>(pool, rotated, cout, cin);
  const TileGeometry g = {w.batch, w.out_rows,     w.out_cols,
                          cout,    w.in_rows,      w.in_cols,
                          cin,     2 - w.pad_rows, 2 - w.pad_cols};
  WinogradForward(pool, g, out_backprop, u, in_backprop);
  TrimScratch<T>(kFilterSlot, kPartialsSlot);
}

// Adds sum over tiles [t0, t1) of V^T (A dY A^T) to du [36][cin][coutp]
// (the filter gradient in the transformed domain), a block of tiles at a
// time.
template <typename T>
void AccumulateFilterGradient(const TileGeometry& g, const T* input,
                              const T* out_backprop, int64_t block, int64_t t0,
                              int64_t t1, T* du) {
  const int64_t cin = g.in_depth, cout = g.out_depth, coutp = Panels<T>(cout);
  const int64_t ccp = cin * coutp;
  const int64_t out_image = g.out_rows * g.out_cols * cout;

  T* v = Scratch<T>(kBlockInSlot, kPoints * block * cin);
  // ady's padding columns stay zero: the transforms write cout of coutp.
  T* ady = Scratch<T>(kBlockOutSlot, kPoints * block * coutp);
  std::fill(ady, ady + kPoints * block * coutp, T(0));
  T* tmp = Scratch<T>(kTmpSlot, kPoints * std::max(cin, cout));
  for (int64_t b0 = t0; b0 < t1; b0 += block) {
    const int64_t nb = std::min(block, t1 - b0);
    TransformInputTiles(g, input, b0, nb, tmp, v, cin, nb * cin);
    for (int64_t t = 0; t < nb; ++t) {
      const TileIndex tile = TileAt(g, b0 + t);
      // A dY A^T of the 4x4 out_backprop tile (zeros past the edges),
      // read in place.
      const T* dy = out_backprop + tile.image * out_image;
      const unsigned present = RowsInside(tile.y0, kTile, g.out_rows);
      for (int s = 0; s < kTile; ++s) {  // along r: tmp[i][s]
        const int64_t x = tile.x0 + s;
        if (x >= g.out_cols) {
          for (int i = 0; i < kAlpha; ++i) {
            std::fill_n(tmp + (i * kTile + s) * cout, cout, T(0));
          }
          continue;
        }
        OutputAdjoint1D(dy + x * cout, g.out_cols * cout, tmp + s * cout,
                        kTile * cout, cout, tile.y0, present);
      }
      for (int i = 0; i < kAlpha; ++i) {  // along s: ady[i][j]
        OutputAdjoint1D(tmp + i * kTile * cout, cout,
                        ady + i * kAlpha * nb * coutp + t * coutp, nb * coutp,
                        cout);
      }
    }
    for (int e = 0; e < kPoints; ++e) {
      PanelGemm<T>(cin, coutp, nb, v + e * nb * cin, 1, cin,
                   ady + e * nb * coutp, coutp, du + e * ccp, coutp,
                   /*accumulate=*/true);
    }
  }
}

template <typename T>
void WinogradBackpropFilter(ThreadPool* pool, const Conv2DArgs& a,
                            const T* input, const T* out_backprop,
                            T* filter_backprop) {
  const TileGeometry g = ForwardTiles(a);
  const int64_t cin = g.in_depth, cout = g.out_depth, coutp = Panels<T>(cout);
  const int64_t ccp = cin * coutp;
  const int64_t block = BlockTiles(g, sizeof(T), 256);
  // dU [36][cin][coutp] per part: the sum over its tiles of V^T (A dY A^T).
  // At most 128 MiB of them (a 512->512 layer's dU is 36 MiB): fewer parts
  // than threads on the largest layers.
  const int64_t part_bytes = kPoints * ccp * sizeof(T);
  const int parts = static_cast<int>(std::min<int64_t>(
      NumParts(pool, g.tiles()),
      std::max<int64_t>(1, (int64_t{128} << 20) / part_bytes)));
  T* partials = Scratch<T>(kPartialsSlot, parts * kPoints * ccp);
  std::fill(partials, partials + parts * kPoints * ccp, T(0));
  ParallelForParts(pool, parts, [&](int, int64_t p0, int64_t p1) {
    for (int64_t part = p0; part < p1; ++part) {
      AccumulateFilterGradient(
          g, input, out_backprop, block, g.tiles() * part / parts,
          g.tiles() * (part + 1) / parts, partials + part * kPoints * ccp);
    }
    TrimScratch<T>(kBlockInSlot, kTmpSlot);
  });
  // filter_backprop = G^T dU G, dU the parts' sum: per input channel c,
  // dU[.][c] summed (without the padding columns), along i (6 -> 3) for
  // each j, then along j. Input channels are split over the pool.
  const int64_t cc = cin * cout;
  T* du = Scratch<T>(kFilterTmp2Slot, kPoints * cc);
  T* gtmp = Scratch<T>(kFilterTmpSlot, 3 * kAlpha * cc);
  ParallelForParts(pool, cin, [&](int, int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      for (int e = 0; e < kPoints; ++e) {
        T* dst = du + e * cc + c * cout;
        const T* src = partials + (e * cin + c) * coutp;
        std::copy(src, src + cout, dst);
        for (int part = 1; part < parts; ++part) {
          const T* more = src + part * kPoints * ccp;
          for (int64_t k = 0; k < cout; ++k) dst[k] += more[k];
        }
      }
      for (int j = 0; j < kAlpha; ++j) {
        FilterAdjoint1D(du + j * cc + c * cout, kAlpha * cc,
                        gtmp + j * cc + c * cout, kAlpha * cc, cout);
      }
      for (int ky = 0; ky < 3; ++ky) {
        FilterAdjoint1D(gtmp + ky * kAlpha * cc + c * cout, cc,
                        filter_backprop + ky * 3 * cc + c * cout, cc, cout);
      }
    }
  });
  TrimScratch<T>(kFilterSlot, kPartialsSlot);
}

#define TW_INSTANTIATE(T)                                                     \
  template void WinogradConv2D<T>(ThreadPool*, const Conv2DArgs&, const T*,   \
                                  const T*, T*);                              \
  template bool WinogradConv2DBiasActivation<T>(                              \
      ThreadPool*, const Conv2DArgs&, const T*, const T*, const T*, int, T*); \
  template void WinogradBackpropInput<T>(ThreadPool*, const Conv2DArgs&,      \
                                         const T*, const T*, T*);             \
  template void WinogradBackpropFilter<T>(ThreadPool*, const Conv2DArgs&,     \
                                          const T*, const T*, T*);
TW_INSTANTIATE(float)
TW_INSTANTIATE(double)
#undef TW_INSTANTIATE

}  // namespace tensorweave
