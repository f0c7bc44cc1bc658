#include "lite/runtime/gemm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "lite/runtime/thread_pool.h"
#include "lite/runtime/vector.h"
#include "lite/runtime/vector_math.h"

namespace twl {
namespace {

// Accumulators a kernel keeps in registers, for vectors of W floats: x86
// has 16 vector registers without AVX-512 and 32 with it (8 hide the FMA
// latency there); AVX2 keeps 12 (6 rows x 2 vectors, 2 for the panel row, 1
// broadcast: 8 left the FMA units waiting, MobileNetV2's 1x1 convolutions
// ran ~20% slower); SSE2 8 (4 registers hold a panel row); aarch64 32
// (NEON's narrower vectors want more).
constexpr int Accumulators(int w) {
#if defined(__aarch64__)
  static_cast<void>(w);
  return 24;
#else
  return w == 8 ? 12 : 8;
#endif
}

// For vectors of W floats: the rows one MicroKernel call covers and the
// panels RowKernel reads at once (accumulators: rows or panels x 16 / W).
constexpr int KernelRows(int w) {
  return Accumulators(w) * w / kGemmNr < kGemmMr ? Accumulators(w) * w / kGemmNr
                                                 : kGemmMr;
}
// Rows of the half-panel kernel (a panel's first 8 columns only; a tail of
// at most 8 columns, e.g. the last of 24): 12 with AVX2 and NEON, 4 with
// SSE2; 0 where a panel is one vector (AVX-512), which has no half.
constexpr int HalfRows(int w) {
  return kGemmNr / w < 2 ? 0
         : Accumulators(w) * 2 * w / kGemmNr < kGemmMr
             ? Accumulators(w) * 2 * w / kGemmNr
             : kGemmMr;
}
constexpr int RowPanels(int w) {
  return Accumulators(w) * w / kGemmNr < 4 ? Accumulators(w) * w / kGemmNr : 4;
}

// The micro-kernels for a vector unit of W floats (vector.h), a panel row
// being kSub such vectors.
// A tile's epilogue fused into the micro-kernel: whole panels of columns
// (16), contiguous in C, bias per column.
struct FusedStore {
  const float* bias;  // at the tile's first column, or null
  float low, high;
  float* c;               // C at the tile's first row and column
  int64_t rs;             // C's row stride
  const float* residual;  // laid out as C, at the tile's first row and column
};

template <int W>
struct Kernels {
  typedef typename VectorOf<W>::type Native;
  static constexpr int kSub = kGemmNr / W;
  static constexpr int kRows = KernelRows(W);
  static constexpr int kRowPanels = RowPanels(W);

  static TWL_KERNEL_INLINE Native Load(const float* p) {
    return LoadVector<W>(p);
  }

  // Panel rows (a cache line each) fetched ahead of the multiply-adds: a
  // large filter streams from memory, and the hardware prefetcher, starting
  // over on every panel, left the loads waiting (ResNet-18's 7x7x512
  // convolutions ran at a third of the FMA rate).
  static constexpr int kPanelAhead = 32;

  // out[r] = sum_k a[r * lda + k] * panel[k], for R <= kRows rows, over
  // the panel's first S vectors (S < kSub: the half-panel kernel, the rest
  // of out[r] zero). Fewer rows get more independent accumulators (split
  // over k) to hide FMA latency. With `fused`, the sums go to C instead,
  // bias added and clamped, straight from the registers.
  template <int R, int S = kSub>
  static TWL_KERNEL_INLINE void MicroKernel(int k, const float* a, int64_t lda,
                                            const float* panel,
                                            float (*out)[kGemmNr],
                                            const FusedStore* fused) {
    constexpr int kFree = Accumulators(W) / (R * S);
    constexpr int U = kFree >= 4 ? 4 : (kFree >= 2 ? 2 : 1);
    Native acc[U][R][S] = {};
    int kk = 0;
    for (; kk + U <= k; kk += U) {
#pragma GCC unroll 8
      for (int u = 0; u < U; ++u) {
        __builtin_prefetch(panel + (kk + u + kPanelAhead) * kGemmNr);
        Native b[S];
#pragma GCC unroll 4
        for (int s = 0; s < S; ++s) {
          b[s] = Load(panel + (kk + u) * kGemmNr + s * W);
        }
#pragma GCC unroll 16
        for (int r = 0; r < R; ++r) {
          const float x = a[r * lda + kk + u];
#pragma GCC unroll 4
          for (int s = 0; s < S; ++s) acc[u][r][s] += b[s] * x;
        }
      }
    }
    for (; kk < k; ++kk) {
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        const float x = a[r * lda + kk];
#pragma GCC unroll 4
        for (int s = 0; s < S; ++s) {
          acc[0][r][s] += Load(panel + kk * kGemmNr + s * W) * x;
        }
      }
    }
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (int u = 1; u < U; ++u) {
#pragma GCC unroll 4
        for (int s = 0; s < S; ++s) acc[0][r][s] += acc[u][r][s];
      }
    }
    if (fused == nullptr) {
#pragma GCC unroll 16
      for (int r = 0; r < R; ++r) {
        memcpy(out[r], acc[0][r], sizeof(acc[0][r]));
        if (S < kSub) memset(out[r] + S * W, 0, sizeof(out[r]) - S * W * 4);
      }
      return;
    }
    const Native lo = Splat<W>(fused->low), hi = Splat<W>(fused->high);
    Native bias[S];
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) {
      bias[s] = fused->bias != nullptr ? Load(fused->bias + s * W) : Native{};
    }
    const float* res = fused->residual;
#pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (int s = 0; s < S; ++s) {
        Native v = acc[0][r][s] + bias[s];
        if (res != nullptr) v += Load(res + r * fused->rs + s * W);
        v = Clamp(v, lo, hi);
        memcpy(fused->c + r * fused->rs + s * W, &v, sizeof(v));
      }
    }
  }

  // One row against kRowPanels adjacent panels: out[j] = sum_k a[k] *
  // panel j[k]. At batch 1 the weights stream from cache or memory;
  // independent streams keep more loads in flight than one (the MLP
  // 784-512-512-10 at batch 1 runs ~10% faster than with MicroKernel<1>).
  static TWL_KERNEL_INLINE void RowKernel(int k, const float* a,
                                          const float* panels,
                                          float (*out)[kGemmNr]) {
    constexpr int P = kRowPanels;
    const int64_t stride = static_cast<int64_t>(kGemmNr) * k;
    // Prefetching each stream kAhead rows (cache lines) ahead, one line in
    // four, measured ~3% faster than the hardware prefetcher alone.
    constexpr int kAhead = 8;
    Native acc[P][kSub] = {};
    int kk = 0;
    for (; kk + 4 <= k; kk += 4) {
#pragma GCC unroll 8
      for (int j = 0; j < P; ++j) {
        __builtin_prefetch(panels + j * stride + (kk + kAhead) * kGemmNr);
      }
#pragma GCC unroll 4
      for (int u = 0; u < 4; ++u) {
        const float x = a[kk + u];
#pragma GCC unroll 8
        for (int j = 0; j < P; ++j) {
#pragma GCC unroll 4
          for (int s = 0; s < kSub; ++s) {
            acc[j][s] +=
                Load(panels + j * stride + (kk + u) * kGemmNr + s * W) * x;
          }
        }
      }
    }
    for (; kk < k; ++kk) {
      const float x = a[kk];
#pragma GCC unroll 8
      for (int j = 0; j < P; ++j) {
#pragma GCC unroll 4
        for (int s = 0; s < kSub; ++s) {
          acc[j][s] += Load(panels + j * stride + kk * kGemmNr + s * W) * x;
        }
      }
    }
    for (int j = 0; j < P; ++j) memcpy(out[j], acc[j], sizeof(out[j]));
  }

  // Adds the bias, clamps and writes `rows` rows of sums to C.
  static TWL_KERNEL_INLINE void Store(const float (*acc)[kGemmNr], int rows,
                                      int m0, int n0, int cols, float* c,
                                      int64_t rs, int64_t cs,
                                      const GemmEpilogue& e) {
    const Native lo = Splat<W>(e.low), hi = Splat<W>(e.high);
    for (int r = 0; r < rows; ++r) {
      const int64_t offset = static_cast<int64_t>(m0 + r) * rs + n0 * cs;
      const float* res = e.residual != nullptr ? e.residual + offset : nullptr;
      float v[kGemmNr];
#pragma GCC unroll 4
      for (int s = 0; s < kSub; ++s) {
        Native x = Load(acc[r] + s * W);
        if (e.bias != nullptr) {
          if (e.bias_per_row) {
            x += e.bias[m0 + r];
          } else if (cols == kGemmNr) {
            x += Load(e.bias + n0 + s * W);
          } else {
            for (int j = 0; j < W; ++j) {
              if (s * W + j < cols) x[j] += e.bias[n0 + s * W + j];
            }
          }
        }
        if (res != nullptr) {
          if (cs == 1 && cols == kGemmNr) {
            x += Load(res + s * W);
          } else {
            for (int j = 0; j < W; ++j) {
              if (s * W + j < cols) x[j] += res[(s * W + j) * cs];
            }
          }
        }
        x = Clamp(x, lo, hi);
        memcpy(v + s * W, &x, sizeof(x));
      }
      float* row = c + offset;
      if (cs == 1 && cols == kGemmNr) {
        memcpy(row, v, sizeof(v));
      } else {
        for (int j = 0; j < cols; ++j) row[j * cs] = v[j];
      }
    }
  }

  // Row m of C for the kRowPanels panels from p0.
  static TWL_KERNEL_INLINE void RowGroup(int m, int p0, int n, int k,
                                         const float* a, int64_t lda,
                                         const float* packed_b, float* c,
                                         int64_t rs, int64_t cs,
                                         const GemmEpilogue& e) {
    float acc[kRowPanels][kGemmNr];
    RowKernel(k, a + static_cast<int64_t>(m) * lda,
              packed_b + static_cast<int64_t>(p0) * kGemmNr * k, acc);
    for (int j = 0; j < kRowPanels; ++j) {
      const int n0 = (p0 + j) * kGemmNr;
      Store(acc + j, 1, m, n0, std::min(kGemmNr, n - n0), c, rs, cs, e);
    }
  }
};

// Each micro-kernel, the store of a tile and a row group run per RunKernel
// call, each in a function of its own: inlined into the loops around them,
// the inner loops had too few registers left (10-30% slower).
template <int R>
struct MicroOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(int k, const float* a, int64_t lda,
                                    const float* panel, float (*out)[kGemmNr],
                                    const FusedStore* fused) {
    if constexpr (R <= Kernels<W>::kRows) {
      Kernels<W>::template MicroKernel<R>(k, a, lda, panel, out, fused);
    }
  }
};

// The half-panel kernel at HalfRows(W) rows (none where there is no half).
struct HalfMicroOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(int k, const float* a, int64_t lda,
                                    const float* panel, float (*out)[kGemmNr],
                                    const FusedStore* fused) {
    if constexpr (HalfRows(W) > 0) {
      Kernels<W>::template MicroKernel<HalfRows(W), Kernels<W>::kSub / 2>(
          k, a, lda, panel, out, fused);
    }
  }
};

struct StoreOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(const float (*acc)[kGemmNr], int rows,
                                    int m0, int n0, int cols, float* c,
                                    int64_t rs, int64_t cs,
                                    const GemmEpilogue* e) {
    Kernels<W>::Store(acc, rows, m0, n0, cols, c, rs, cs, *e);
  }
};

struct RowGroupOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(int m, int p0, int n, int k, const float* a,
                                    int64_t lda, const float* packed_b,
                                    float* c, int64_t rs, int64_t cs,
                                    const GemmEpilogue* e) {
    Kernels<W>::RowGroup(m, p0, n, k, a, lda, packed_b, c, rs, cs, *e);
  }
};

// The epilogue's curve on C[m0 .. m0 + rows) x [n0 .. n0 + cols), cols <=
// kGemmNr, right after the tile's store while it is in L1 (in the
// micro-kernels it would take registers from the inner loop).
struct CurveOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(float* c, int rows, int cols, int64_t rs,
                                    int64_t cs, GemmCurve curve) {
    typedef typename VectorOf<W>::type Native;
    constexpr int kSub = kGemmNr / W;
    const bool direct = cs == 1 && cols == kGemmNr;  // in place
    for (int r = 0; r < rows; ++r) {
      float* row = c + r * rs;
      float v[kGemmNr] = {};
      float* p = direct ? row : v;
      if (!direct) {
        for (int j = 0; j < cols; ++j) v[j] = row[j * cs];
      }
#pragma GCC unroll 4
      for (int s = 0; s < kSub; ++s) {
        Native x = LoadVector<W>(p + s * W);
        x = curve == GemmCurve::kGelu ? GeluVector(x) : GeluTanhVector(x);
        memcpy(p + s * W, &x, sizeof(x));
      }
      if (!direct) {
        for (int j = 0; j < cols; ++j) row[j * cs] = v[j];
      }
    }
  }
};

void ApplyCurve(int m0, int rows, int n0, int cols, float* c, int64_t rs,
                int64_t cs, const GemmEpilogue& e) {
  if (e.curve == GemmCurve::kNone) return;
  RunKernel<CurveOp>(c + static_cast<int64_t>(m0) * rs + n0 * cs, rows, cols,
                     rs, cs, e.curve);
}

// Rows of C one Tile call computes from a panel: whole micro-kernels on
// every ISA (3 x 8 rows with AVX-512, 4 x 6 with AVX2 and NEON), where 12
// rows ran an 8-row and a 4-row kernel with AVX-512 (the 4-row one at 5 loads
// per 4 multiply-adds); and each panel is read once per 24 rows.
constexpr int kTileRows = 2 * kGemmMr;

// C[m0 .. m0 + rows) x [n0 .. n0 + cols) from one panel, rows <= kTileRows.
void Tile(int m0, int rows, int n0, int cols, int k, const float* a,
          int64_t lda, const float* panel, float* c, int64_t rs, int64_t cs,
          const GemmEpilogue& e) {
  float acc[kTileRows][kGemmNr];
  const float* ar = a + static_cast<int64_t>(m0) * lda;
  const int step = KernelRows(KernelWidth());
  // A tail of at most half a panel: the half-panel kernel, where there is
  // one, on whole groups of its rows (the 24-channel convolutions of
  // MobileNetV2 spent half their last panel's multiply-adds on zeros).
  const int half_rows = HalfRows(KernelWidth());
  const bool half = half_rows > 0 && cols <= kGemmNr / 2;
  // Whole panels (or halves) stored contiguously: the epilogue runs in the
  // micro-kernel.
  const bool fuse = cs == 1 && !e.bias_per_row &&
                    (cols == kGemmNr || (half && cols == kGemmNr / 2));
  FusedStore fused = {e.bias != nullptr ? e.bias + n0 : nullptr,
                      e.low,
                      e.high,
                      nullptr,
                      rs,
                      nullptr};
  for (int r = 0; r < rows;) {
    const float* ai = ar + r * lda;
    const int64_t offset = static_cast<int64_t>(m0 + r) * rs + n0;
    fused.c = c + offset;
    if (e.residual != nullptr) fused.residual = e.residual + offset;
    const bool half_tile = half && rows - r >= half_rows;
    const FusedStore* f =
        fuse && (half_tile || cols == kGemmNr) ? &fused : nullptr;
    if (half_tile) {
      RunKernel<HalfMicroOp>(k, ai, lda, panel, acc + r, f);
      r += half_rows;
      continue;
    }
    const int n = std::min(step, rows - r);
    switch (n) {
#define TWL_ROWS_CASE(R)                                  \
  case R:                                                 \
    RunKernel<MicroOp<R>>(k, ai, lda, panel, acc + r, f); \
    break;
      TWL_ROWS_CASE(12)
      TWL_ROWS_CASE(11)
      TWL_ROWS_CASE(10)
      TWL_ROWS_CASE(9)
      TWL_ROWS_CASE(8)
      TWL_ROWS_CASE(7)
      TWL_ROWS_CASE(6)
      TWL_ROWS_CASE(5)
      TWL_ROWS_CASE(4)
      TWL_ROWS_CASE(3)
      TWL_ROWS_CASE(2)
      TWL_ROWS_CASE(1)
#undef TWL_ROWS_CASE
    }
    r += n;
  }
  if (!fuse) {
    RunKernel<StoreOp>(static_cast<const float(*)[kGemmNr]>(acc), rows, m0, n0,
                       cols, c, rs, cs, &e);
  } else if (cols < kGemmNr && rows % half_rows != 0) {
    // The rows after the last whole group of half-panel rows.
    const int done = rows / half_rows * half_rows;
    RunKernel<StoreOp>(static_cast<const float(*)[kGemmNr]>(acc + done),
                       rows - done, m0 + done, n0, cols, c, rs, cs, &e);
  }
  ApplyCurve(m0, rows, n0, cols, c, rs, cs, e);
}

// Rows [m_begin, m_end) x panels [p_begin, p_end) of a long product (k > 2 x
// kGemmSlice; a 3x3 convolution of 512 channels has k = 4608), in slices of
// about kGemmSlice of the inner dimension: a tile's rows of A [24, 256] stay
// in L1 while the panels' slices stream past them, where whole rows came from
// L2 for every panel (49 x 512 x 4608, weights in cache: 1.8 -> 1.6 ms). Each
// slice's sums are added to C by the residual epilogue; the bias goes with
// the first slice, the clamp and curve with the last.
void SlicedBlock(int m_begin, int m_end, int p_begin, int p_end, int n, int k,
                 const float* a, int64_t lda, const float* packed_b, float* c,
                 int64_t rs, int64_t cs, const GemmEpilogue& e) {
  const int slices = (k + kGemmSlice - 1) / kGemmSlice;
  const int step = (k + slices - 1) / slices;
  for (int k0 = 0; k0 < k; k0 += step) {
    const int kc = std::min(step, k - k0);
    GemmEpilogue se;
    if (k0 == 0) {
      se.bias = e.bias;
      se.bias_per_row = e.bias_per_row;
      se.residual = e.residual;
    } else {
      se.residual = c;  // laid out as C, each element read before written
    }
    if (k0 + kc == k) {
      se.low = e.low;
      se.high = e.high;
      se.curve = e.curve;
    }
    for (int m0 = m_begin; m0 < m_end; m0 += kTileRows) {
      for (int p = p_begin; p < p_end; ++p) {
        const int n0 = p * kGemmNr;
        Tile(m0, std::min(kTileRows, m_end - m0), n0, std::min(kGemmNr, n - n0),
             kc, a + k0, lda,
             packed_b + static_cast<int64_t>(p) * kGemmNr * k +
                 static_cast<int64_t>(k0) * kGemmNr,
             c, rs, cs, se);
      }
    }
  }
}

// Panels [p_begin, p_end) (in descending order when asked) x rows
// [m_begin, m_end).
void GemmBlock(int m_begin, int m_end, int p_begin, int p_end, int n, int k,
               const float* a, int64_t lda, const float* packed_b, float* c,
               int64_t rs, int64_t cs, const GemmEpilogue& e,
               bool descending = false) {
  if (m_end - m_begin == 1) {
    // Whole groups of row panels, in the order asked; the rest one by one.
    const int group = RowPanels(KernelWidth());
    const int groups = (p_end - p_begin) / group;
    for (int g = 0; g < groups; ++g) {
      const int p0 = descending ? p_end - (g + 1) * group : p_begin + g * group;
      RunKernel<RowGroupOp>(m_begin, p0, n, k, a, lda, packed_b, c, rs, cs, &e);
      for (int j = 0; j < group; ++j) {
        const int n0 = (p0 + j) * kGemmNr;
        ApplyCurve(m_begin, 1, n0, std::min(kGemmNr, n - n0), c, rs, cs, e);
      }
    }
    if (descending) {
      p_end -= groups * group;
    } else {
      p_begin += groups * group;
    }
  }
  if (k > 2 * kGemmSlice) {
    SlicedBlock(m_begin, m_end, p_begin, p_end, n, k, a, lda, packed_b, c, rs,
                cs, e);
    return;
  }
  for (int i = p_begin; i < p_end; ++i) {
    const int p = descending ? p_end - 1 - (i - p_begin) : i;
    const float* panel = packed_b + static_cast<int64_t>(p) * kGemmNr * k;
    const int n0 = p * kGemmNr;
    const int cols = std::min(kGemmNr, n - n0);
    for (int m0 = m_begin; m0 < m_end; m0 += kTileRows) {
      Tile(m0, std::min(kTileRows, m_end - m0), n0, cols, k, a, lda, panel, c,
           rs, cs, e);
    }
  }
}

}  // namespace

void PackGemmB(const float* b, int n, int k, int64_t ldb, float* packed) {
  int panels = (n + kGemmNr - 1) / kGemmNr;
  for (int p = 0; p < panels; ++p) {
    float* out = packed + static_cast<int64_t>(p) * kGemmNr * k;
    for (int kk = 0; kk < k; ++kk) {
      for (int j = 0; j < kGemmNr; ++j) {
        int col = p * kGemmNr + j;
        out[kk * kGemmNr + j] = col < n ? b[col * ldb + kk] : 0.f;
      }
    }
  }
}

void PackGemmBTransposed(const float* b, int n, int k, int64_t ldb,
                         float* packed) {
  int panels = (n + kGemmNr - 1) / kGemmNr;
  for (int p = 0; p < panels; ++p) {
    float* out = packed + static_cast<int64_t>(p) * kGemmNr * k;
    for (int kk = 0; kk < k; ++kk) {
      for (int j = 0; j < kGemmNr; ++j) {
        int col = p * kGemmNr + j;
        out[kk * kGemmNr + j] = col < n ? b[kk * ldb + col] : 0.f;
      }
    }
  }
}

void Gemm(int m, int n, int k, const float* a, int64_t lda,
          const float* packed_b, float* c, int64_t rs, int64_t cs,
          const GemmEpilogue& e, ThreadPool* pool, bool descending) {
  if (m <= 0 || n <= 0) return;
  int panels = (n + kGemmNr - 1) / kGemmNr;
  int64_t work = static_cast<int64_t>(m) * n * k;
  // Below this many multiply-adds per thread, moving operands between cores
  // costs more than the second core saves (measured on LeNet/MLP layers).
  constexpr int64_t kMinWorkPerThread = 96 * 1024;
  int threads = pool == nullptr ? 1 : pool->num_threads();
  int max_tasks = static_cast<int>(std::min<int64_t>(
      threads, std::max<int64_t>(1, work / kMinWorkPerThread)));
  int m_blocks = (m + kGemmMr - 1) / kGemmMr;
  if (max_tasks <= 1) {
    GemmBlock(0, m, 0, panels, n, k, a, lda, packed_b, c, rs, cs, e);
  } else if (panels >= m_blocks) {  // split columns (weights stay per-core)
    pool->ParallelFor(panels, 1, max_tasks, [&](int64_t b, int64_t end) {
      GemmBlock(0, m, static_cast<int>(b), static_cast<int>(end), n, k, a, lda,
                packed_b, c, rs, cs, e, descending);
    });
  } else {  // split rows
    pool->ParallelFor(m_blocks, 1, max_tasks, [&](int64_t b, int64_t end) {
      GemmBlock(static_cast<int>(b) * kGemmMr,
                std::min<int>(m, static_cast<int>(end) * kGemmMr), 0, panels, n,
                k, a, lda, packed_b, c, rs, cs, e);
    });
  }
}

void GemmReference(int m, int n, int k, const float* a, int64_t lda,
                   const float* b, int64_t ldb, float* c, int64_t rs,
                   int64_t cs, const GemmEpilogue& e) {
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double sum = 0;
      for (int kk = 0; kk < k; ++kk) {
        sum += static_cast<double>(a[i * lda + kk]) * b[j * ldb + kk];
      }
      if (e.bias != nullptr) sum += e.bias_per_row ? e.bias[i] : e.bias[j];
      if (e.residual != nullptr) sum += e.residual[i * rs + j * cs];
      float v = std::min(std::max(static_cast<float>(sum), e.low), e.high);
      const double x = v;
      if (e.curve == GemmCurve::kGelu) {
        v = static_cast<float>(0.5 * x * (1.0 + std::erf(x * M_SQRT1_2)));
      } else if (e.curve == GemmCurve::kGeluTanh) {
        v = static_cast<float>(0.5 * x *
                               (1.0 + std::tanh(0.79788456080286536 *
                                                (x + 0.044715 * x * x * x))));
      }
      c[i * rs + j * cs] = v;
    }
  }
}

AlignedFloats::~AlignedFloats() { free(data_); }

bool AlignedFloats::Resize(size_t n) {
  if (n > capacity_) {
    free(data_);
    size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    data_ = static_cast<float*>(aligned_alloc(64, bytes));
    capacity_ = data_ != nullptr ? n : 0;
    if (data_ == nullptr) {
      size_ = 0;
      return false;
    }
  }
  size_ = n;
  return true;
}

}  // namespace twl
