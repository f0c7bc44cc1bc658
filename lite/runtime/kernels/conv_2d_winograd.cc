// The Winograd algorithm F(4x4, 3x3) (Lavin and Gray, "Fast Algorithms for
// Convolutional Neural Networks", 2016) for CONV_2D: the output is cut into
// 4x4 tiles; each tile's 6x6 input patch d and the filter g are carried into
// a 6x6 transformed domain, V = B^T d B and U = G g G^T, where the
// convolution is an element-wise product; Y = A^T (U . V) A brings it back.
// Summed over the input channels, the products at each of the 36 positions
// are one GEMM [tiles x Cin] x [Cin x Cout] (lite's packed GEMM, U packed in
// prepare): 36 multiplies per 16 outputs and channel pair instead of 144.
//
// Tiles are processed in blocks small enough that a block's transformed
// inputs V [tile][36][Cin] and products M [tile][36][Cout] stay in the
// caches; blocks are split over the pool. Values past the input's edges are
// zeros; the rows and columns of a tile past the output's edges are not
// stored. The 1-D transforms are written once, for vectors of W channels
// (vector.h) and for the scalar tail.
#include "lite/runtime/kernels/conv_2d_winograd.h"

#include <algorithm>
#include <cstring>

#include "lite/runtime/gemm.h"
#include "lite/runtime/thread_pool.h"
#include "lite/runtime/vector.h"

namespace twl {
namespace {

constexpr int kAlpha = 6;  // transformed tile side: 4 + 3 - 1
constexpr int kPoints = kAlpha * kAlpha;
constexpr int kTile = 4;  // output tile side

// --- the 1-D transforms, for X = float or a vector of floats ----------------

// B^T d (6 -> 6).
template <typename X>
TWL_KERNEL_INLINE void InputFormula(const X* d, X* o) {
  o[0] = d[0] * 4.f - d[2] * 5.f + d[4];
  o[1] = d[3] + d[4] - (d[1] + d[2]) * 4.f;
  o[2] = d[4] - d[3] + (d[1] - d[2]) * 4.f;
  o[3] = d[4] - d[2] + (d[3] - d[1]) * 2.f;
  o[4] = d[4] - d[2] + (d[1] - d[3]) * 2.f;
  o[5] = d[1] * 4.f - d[3] * 5.f + d[5];
}

// A^T m (6 -> 4).
template <typename X>
TWL_KERNEL_INLINE void OutputFormula(const X* m, X* o) {
  const X s12 = m[1] + m[2], d12 = m[1] - m[2];
  const X s34 = m[3] + m[4], d34 = m[3] - m[4];
  o[0] = m[0] + s12 + s34;
  o[1] = d12 + d34 * 2.f;
  o[2] = s12 + s34 * 4.f;
  o[3] = d12 + d34 * 8.f + m[5];
}

// G g (3 -> 6).
template <typename X>
TWL_KERNEL_INLINE void FilterFormula(const X* g, X* o) {
  o[0] = g[0] * (1.f / 4);
  o[1] = (g[0] + g[1] + g[2]) * (-1.f / 6);
  o[2] = (g[0] - g[1] + g[2]) * (-1.f / 6);
  o[3] = g[0] * (1.f / 24) + g[1] * (1.f / 12) + g[2] * (1.f / 6);
  o[4] = g[0] * (1.f / 24) - g[1] * (1.f / 12) + g[2] * (1.f / 6);
  o[5] = g[2];
}

// x clamped to [lo, hi] (NaN stays NaN, as Clamp in vector.h).
TWL_KERNEL_INLINE float ClampScalar(float x, float lo, float hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

// What a task does with the tiles [t0, t0 + n) of a block.
struct BlockArgs {
  const Conv2DGeometry* g;
  const float* in;
  const float* bias;  // null: none
  float low, high;    // the activation's clamp
  int64_t t0;
  int n;
  float* patch;  // 36 * in_c: a gathered edge patch
  float* tmp;    // 36 * max(in_c, out_c): a tile's transform temporaries
  float* row;    // 4 * out_c: an output row of a tile cut by the right edge
};

// The tile's output corner.
struct TileAt {
  int b, y0, x0;
  TileAt(const Conv2DGeometry& g, int64_t t) {
    const int64_t cols = (g.out_w + kTile - 1) / kTile;
    const int64_t rows = (g.out_h + kTile - 1) / kTile;
    const int64_t r = t % (rows * cols);
    b = static_cast<int>(t / (rows * cols));
    y0 = static_cast<int>(r / cols) * kTile;
    x0 = static_cast<int>(r % cols) * kTile;
  }
};

template <int W>
struct WinogradKernels {
  typedef typename VectorOf<W>::type Vec;

  // out[i * os + c] = (B^T d)_i, d_k = in[k * is + c], for c < n.
  static TWL_KERNEL_INLINE void Input1D(const float* in, int64_t is, float* out,
                                        int64_t os, int n) {
    int c = 0;
    for (; c + W <= n; c += W) {
      Vec d[kAlpha], o[kAlpha];
#pragma GCC unroll 6
      for (int k = 0; k < kAlpha; ++k) d[k] = LoadVector<W>(in + k * is + c);
      InputFormula(d, o);
#pragma GCC unroll 6
      for (int i = 0; i < kAlpha; ++i)
        memcpy(out + i * os + c, &o[i], sizeof(Vec));
    }
    for (; c < n; ++c) {
      float d[kAlpha], o[kAlpha];
#pragma GCC unroll 6
      for (int k = 0; k < kAlpha; ++k) d[k] = in[k * is + c];
      InputFormula(d, o);
#pragma GCC unroll 6
      for (int i = 0; i < kAlpha; ++i) out[i * os + c] = o[i];
    }
  }

  // out[i * os + c] = (A^T m)_i, m_k = in[k * is + c], for c < n; with
  // `last`, plus bias[c] (if any), clamped to [low, high].
  template <bool kLast>
  static TWL_KERNEL_INLINE void Output1D(const float* in, int64_t is,
                                         float* out, int64_t os, int n,
                                         const float* bias, float low,
                                         float high) {
    int c = 0;
    const Vec lo = Splat<W>(low), hi = Splat<W>(high);
    for (; c + W <= n; c += W) {
      Vec m[kAlpha], o[kTile];
#pragma GCC unroll 6
      for (int k = 0; k < kAlpha; ++k) m[k] = LoadVector<W>(in + k * is + c);
      OutputFormula(m, o);
      if (kLast) {
        const Vec b = bias != nullptr ? LoadVector<W>(bias + c) : Vec{};
#pragma GCC unroll 4
        for (int i = 0; i < kTile; ++i) o[i] = Clamp(o[i] + b, lo, hi);
      }
#pragma GCC unroll 4
      for (int i = 0; i < kTile; ++i)
        memcpy(out + i * os + c, &o[i], sizeof(Vec));
    }
    for (; c < n; ++c) {
      float m[kAlpha], o[kTile];
#pragma GCC unroll 6
      for (int k = 0; k < kAlpha; ++k) m[k] = in[k * is + c];
      OutputFormula(m, o);
      if (kLast) {
        const float b = bias != nullptr ? bias[c] : 0.f;
#pragma GCC unroll 4
        for (int i = 0; i < kTile; ++i) o[i] = ClampScalar(o[i] + b, low, high);
      }
#pragma GCC unroll 4
      for (int i = 0; i < kTile; ++i) out[i * os + c] = o[i];
    }
  }

  // V rows of the block's tiles: v[t][36][in_c] = B^T d B.
  static TWL_KERNEL_INLINE void InputBlock(const BlockArgs& a, float* v) {
    const Conv2DGeometry& g = *a.g;
    const int cin = g.in_c;
    const int64_t in_row = static_cast<int64_t>(g.in_w) * cin;
    for (int t = 0; t < a.n; ++t) {
      const TileAt tile(g, a.t0 + t);
      const int iy0 = tile.y0 - g.pad_top, ix0 = tile.x0 - g.pad_left;
      const float* src;
      int64_t rs;  // floats from one patch row to the next
      if (iy0 >= 0 && iy0 + kAlpha <= g.in_h && ix0 >= 0 &&
          ix0 + kAlpha <= g.in_w) {
        src = a.in +
              ((static_cast<int64_t>(tile.b) * g.in_h + iy0) * g.in_w + ix0) *
                  cin;
        rs = in_row;
      } else {
        // Gather the patch, zeros outside the input.
        const int j0 = std::max(0, -ix0);
        const int j1 = std::max(j0, std::min(kAlpha, g.in_w - ix0));
        for (int i = 0; i < kAlpha; ++i) {
          float* dst = a.patch + i * kAlpha * cin;
          const int y = iy0 + i;
          if (y < 0 || y >= g.in_h) {
            memset(dst, 0, sizeof(float) * kAlpha * cin);
            continue;
          }
          memset(dst, 0, sizeof(float) * j0 * cin);
          if (j1 > j0) {
            memcpy(
                dst + j0 * cin,
                a.in + ((static_cast<int64_t>(tile.b) * g.in_h + y) * g.in_w +
                        ix0 + j0) *
                           cin,
                sizeof(float) * (j1 - j0) * cin);
          }
          memset(dst + j1 * cin, 0, sizeof(float) * (kAlpha - j1) * cin);
        }
        src = a.patch;
        rs = static_cast<int64_t>(kAlpha) * cin;
      }
      // Along the patch's rows (i), each column j: tmp[i][j][c].
      for (int j = 0; j < kAlpha; ++j) {
        Input1D(src + j * cin, rs, a.tmp + j * cin, kAlpha * cin, cin);
      }
      // Along the columns (j), each row i: v[t][i][j][c].
      float* vt = v + static_cast<int64_t>(t) * kPoints * cin;
      for (int i = 0; i < kAlpha; ++i) {
        Input1D(a.tmp + i * kAlpha * cin, cin, vt + i * kAlpha * cin, cin, cin);
      }
    }
  }

  // The block's outputs from its products m[t][36][out_c]: A^T m A, bias
  // and clamp as each row of a tile is stored.
  static TWL_KERNEL_INLINE void OutputBlock(const BlockArgs& a, const float* m,
                                            ActivationFunctionType act,
                                            float* out) {
    const Conv2DGeometry& g = *a.g;
    const int cout = g.out_c;
    const bool curve = act == ActivationFunctionType::TANH ||
                       act == ActivationFunctionType::SIGMOID;
    for (int t = 0; t < a.n; ++t) {
      const TileAt tile(g, a.t0 + t);
      const float* mt = m + static_cast<int64_t>(t) * kPoints * cout;
      // Along i, each column j: tmp[r][j][c], r < 4.
      for (int j = 0; j < kAlpha; ++j) {
        Output1D<false>(mt + j * cout, kAlpha * cout, a.tmp + j * cout,
                        kAlpha * cout, cout, nullptr, 0.f, 0.f);
      }
      const int rows = std::min(kTile, g.out_h - tile.y0);
      const int cols = std::min(kTile, g.out_w - tile.x0);
      float* corner =
          out + ((static_cast<int64_t>(tile.b) * g.out_h + tile.y0) * g.out_w +
                 tile.x0) *
                    cout;
      for (int r = 0; r < rows; ++r) {
        float* dst = corner + static_cast<int64_t>(r) * g.out_w * cout;
        // Along j: y[r][s][c], s < 4, straight into the output unless the
        // tile is cut by the right edge.
        Output1D<true>(a.tmp + r * kAlpha * cout, cout,
                       cols == kTile ? dst : a.row, cout, cout, a.bias, a.low,
                       a.high);
        if (cols < kTile) memcpy(dst, a.row, sizeof(float) * cols * cout);
        if (curve) ApplyActivationInPlace(dst, int64_t{cols} * cout, act);
      }
    }
  }
};

struct InputBlockOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const BlockArgs* a, float* v) {
    WinogradKernels<W>::InputBlock(*a, v);
  }
};

struct OutputBlockOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const BlockArgs* a, const float* m,
                                    ActivationFunctionType act, float* out) {
    WinogradKernels<W>::OutputBlock(*a, m, act, out);
  }
};

inline int64_t RoundUp16(int64_t n) { return (n + 15) / 16 * 16; }

int64_t NumTiles(const Conv2DGeometry& g) {
  return static_cast<int64_t>(g.batch) * ((g.out_h + kTile - 1) / kTile) *
         ((g.out_w + kTile - 1) / kTile);
}

// A task's scratch, in order (each part 64-byte aligned).
struct TaskScratch {
  int64_t v, m, patch, tmp, row;
  explicit TaskScratch(const Conv2DGeometry& g) {
    const int64_t block = WinogradBlockTiles(g);
    v = RoundUp16(kPoints * block * g.in_c);
    m = RoundUp16(kPoints * block * g.out_c);
    patch = RoundUp16(int64_t{kPoints} * g.in_c);
    tmp = RoundUp16(int64_t{kPoints} * std::max(g.in_c, g.out_c));
    row = RoundUp16(int64_t{kTile} * g.out_c);
  }
  int64_t total() const { return v + m + patch + tmp + row; }
};

}  // namespace

int64_t WinogradFilterFloats(int in_c, int out_c) {
  return kPoints * static_cast<int64_t>(PackedGemmBSize(out_c, in_c));
}

void WinogradTransformFilter(const float* filter, int in_c, int out_c,
                             float* tmp, float* packed) {
  // tmp[e][co][ci] = (G g G^T)[i][j], e = i * 6 + j, g = filter[co][.][.][ci].
  const int64_t plane = static_cast<int64_t>(out_c) * in_c;
  for (int co = 0; co < out_c; ++co) {
    for (int ci = 0; ci < in_c; ++ci) {
      float g[3][3], h[kAlpha][3];
      for (int ky = 0; ky < 3; ++ky)
        for (int kx = 0; kx < 3; ++kx)
          g[ky][kx] =
              filter[((static_cast<int64_t>(co) * 3 + ky) * 3 + kx) * in_c +
                     ci];
      for (int kx = 0; kx < 3; ++kx) {  // along ky: h[i][kx]
        const float col[3] = {g[0][kx], g[1][kx], g[2][kx]};
        float o[kAlpha];
        FilterFormula(col, o);
        for (int i = 0; i < kAlpha; ++i) h[i][kx] = o[i];
      }
      for (int i = 0; i < kAlpha; ++i) {  // along kx
        float o[kAlpha];
        FilterFormula(h[i], o);
        for (int j = 0; j < kAlpha; ++j) {
          tmp[(i * kAlpha + j) * plane + static_cast<int64_t>(co) * in_c + ci] =
              o[j];
        }
      }
    }
  }
  const int64_t packed_size = PackedGemmBSize(out_c, in_c);
  for (int e = 0; e < kPoints; ++e) {
    PackGemmB(tmp + e * plane, out_c, in_c, in_c, packed + e * packed_size);
  }
}

int WinogradBlockTiles(const Conv2DGeometry& g) {
  // As in the training runtime: a block holds about 1 MiB, or as much as
  // the transformed filter where that is larger (so the filter's traffic
  // through the GEMMs is at most the tiles'), in whole micro-kernel row
  // groups, 8 to 128 tiles, and no more than the convolution has.
  const int64_t per_tile = int64_t{kPoints} * (g.in_c + g.out_c) * 4;
  const int64_t filter = int64_t{kPoints} * g.in_c * g.out_c * 4;
  int64_t tiles = std::max<int64_t>(int64_t{1} << 20, filter) / per_tile;
  tiles =
      std::min<int64_t>(tiles, (NumTiles(g) + kGemmMr - 1) / kGemmMr * kGemmMr);
  tiles = std::max<int64_t>(kGemmMr, std::min<int64_t>(128, tiles));
  return static_cast<int>(tiles / kGemmMr * kGemmMr);
}

int64_t WinogradTaskScratchFloats(const Conv2DGeometry& g) {
  return TaskScratch(g).total();
}

void WinogradConv2D(const Conv2DGeometry& g, const float* in,
                    const float* packed, const float* bias,
                    ActivationFunctionType act, ThreadPool* pool, int max_tasks,
                    float* scratch, float* out) {
  const int64_t tiles = NumTiles(g);
  if (tiles <= 0 || g.out_c <= 0) return;
  const int block = WinogradBlockTiles(g);
  const TaskScratch layout(g);
  const int64_t packed_size = PackedGemmBSize(g.out_c, g.in_c);
  float low, high;
  ActivationRange(act, &low, &high);
  // Few tiles (deep layers at batch 1): one block; its transforms run on
  // the calling thread and its 36 GEMMs are split over the pool by
  // position, so each core reads its share of the transformed filter only,
  // with one fork and join. Otherwise the tiles are split over the tasks,
  // each running its blocks end to end.
  BlockArgs a;
  a.g = &g;
  a.in = in;
  a.bias = bias;
  a.low = low;
  a.high = high;
  auto gemms = [&](const BlockArgs& b, const float* v, float* m, int e0,
                   int e1) {
    GemmEpilogue none;
    for (int e = e0; e < e1; ++e) {
      Gemm(b.n, g.out_c, g.in_c, v + e * g.in_c, int64_t{kPoints} * g.in_c,
           packed + e * packed_size, m + e * g.out_c,
           int64_t{kPoints} * g.out_c, 1, none, nullptr);
    }
  };
  auto carve = [&](int task, BlockArgs* b, float** v, float** m) {
    *v = scratch + task * layout.total();
    *m = *v + layout.v;
    b->patch = *m + layout.m;
    b->tmp = b->patch + layout.patch;
    b->row = b->tmp + layout.tmp;
  };
  if (tiles <= block || max_tasks <= 1) {
    for (int64_t t0 = 0; t0 < tiles; t0 += block) {
      float *v, *m;
      carve(0, &a, &v, &m);
      a.t0 = t0;
      a.n = static_cast<int>(std::min<int64_t>(block, tiles - t0));
      RunKernel<InputBlockOp>(static_cast<const BlockArgs*>(&a), v);
      pool->ParallelFor(kPoints, 1, max_tasks, [&](int64_t e0, int64_t e1) {
        gemms(a, v, m, static_cast<int>(e0), static_cast<int>(e1));
      });
      RunKernel<OutputBlockOp>(static_cast<const BlockArgs*>(&a),
                               static_cast<const float*>(m), act, out);
    }
    return;
  }
  pool->ParallelForTasks(
      tiles, 1, max_tasks, [&](int task, int64_t begin, int64_t end) {
        BlockArgs b = a;
        float *v, *m;
        carve(task, &b, &v, &m);
        for (int64_t t0 = begin; t0 < end; t0 += block) {
          b.t0 = t0;
          b.n = static_cast<int>(std::min<int64_t>(block, end - t0));
          RunKernel<InputBlockOp>(static_cast<const BlockArgs*>(&b), v);
          gemms(b, v, m, 0, kPoints);
          RunKernel<OutputBlockOp>(static_cast<const BlockArgs*>(&b),
                                   static_cast<const float*>(m), act, out);
        }
      });
}

}  // namespace twl
