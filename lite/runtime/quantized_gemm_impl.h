// Definitions of quantized_gemm.h's GEMMs and requantization, included
// once per instruction set after quantization.h, inside the variant's
// namespace (see quantized_gemm.h); it includes nothing itself, so that
// what it uses was compiled for the baseline target first.

#define TWL_QUANT_INLINE inline __attribute__((always_inline))
#if TWL_INT8_GEMM_FROM_AVX2
// The portable build's AVX-512 VNNI variant runs the AVX2 variant's int16
// GEMMs, requantization and addition (the same 256-bit code): forwarded,
// not compiled again.
void QuantizedGemm(const int16_t* lhs, const int16_t* rhs, int m, int n, int k,
                   int32_t* out, int64_t out_stride, ThreadPool* pool) {
  int8_avx2::QuantizedGemm(lhs, rhs, m, n, k, out, out_stride, pool);
}
int64_t PanelSize(int n, int k) { return int8_avx2::PanelSize(n, k); }
void PackPanels(const int16_t* rhs, int n, int k, int16_t* panels) {
  int8_avx2::PackPanels(rhs, n, k, panels);
}
void QuantizedGemmPanels(const int16_t* lhs, const int16_t* panels, int m,
                         int n, int k, int32_t* out, int64_t out_stride,
                         ThreadPool* pool) {
  int8_avx2::QuantizedGemmPanels(lhs, panels, m, n, k, out, out_stride, pool);
}
void QuantizedGemmPanels(const int16_t* lhs, const int16_t* panels, int m,
                         int n, int k, const QuantizedOutput& output,
                         ThreadPool* pool) {
  int8_avx2::QuantizedGemmPanels(lhs, panels, m, n, k, output, pool);
}
#else  // !TWL_INT8_GEMM_FROM_AVX2
#if !TWL_INT8_AVX2
namespace {

// The inner product of two int16 rows; GCC and Clang vectorize it into
// multiply-add-pairs (vpmaddwd).
inline int32_t Dot(const int16_t* a, const int16_t* b, int k) {
  int32_t sum = 0;
  for (int i = 0; i < k; ++i) sum += static_cast<int32_t>(a[i]) * b[i];
  return sum;
}

// Four inner products of row a with rows b, b + k, b + 2k, b + 3k: each load
// of a serves four multiply-adds.
inline void Dot4(const int16_t* a, const int16_t* b, int k, int32_t* out) {
  const int16_t *b0 = b, *b1 = b + k, *b2 = b + 2 * k, *b3 = b + 3 * k;
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int i = 0; i < k; ++i) {
    const int32_t x = a[i];
    s0 += x * b0[i];
    s1 += x * b1[i];
    s2 += x * b2[i];
    s3 += x * b3[i];
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
}

}  // namespace
#endif  // !TWL_INT8_AVX2

#if TWL_INT8_AVX2
namespace {

// Sum of the eight int32 lanes of v.
inline int32_t HorizontalSum(__m256i v) {
  __m128i s =
      _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
  return _mm_cvtsi128_si32(s);
}

// out[r * out_stride + c] = <a row r, b row c> for an R x C block: R * C
// int32 accumulators of vpmaddwd products (16 int16 pairs per step; each
// load of a row of a serves C multiply-adds, each of b R), then the k % 16
// tail plainly. The products of operands |v| <= 255 cannot saturate.
template <int R, int C>
void GemmBlock(const int16_t* a, const int16_t* b, int k, int32_t* out,
               int64_t out_stride) {
  __m256i acc[R][C];
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_si256();
  }
  int kk = 0;
  for (; kk + 16 <= k; kk += 16) {
    __m256i bv[C];
#pragma GCC unroll 4
    for (int c = 0; c < C; ++c) {
      bv[c] = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(b + int64_t{c} * k + kk));
    }
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256i av = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(a + int64_t{r} * k + kk));
#pragma GCC unroll 4
      for (int c = 0; c < C; ++c) {
        acc[r][c] = _mm256_add_epi32(acc[r][c], _mm256_madd_epi16(av, bv[c]));
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      int32_t sum = HorizontalSum(acc[r][c]);
      for (int t = kk; t < k; ++t) {
        sum +=
            static_cast<int32_t>(a[int64_t{r} * k + t]) * b[int64_t{c} * k + t];
      }
      out[r * out_stride + c] = sum;
    }
  }
}

template <int R>
void GemmRows(const int16_t* a, const int16_t* b, int k, int cols, int32_t* out,
              int64_t out_stride) {
  switch (cols) {
    case 1:
      return GemmBlock<R, 1>(a, b, k, out, out_stride);
    case 2:
      return GemmBlock<R, 2>(a, b, k, out, out_stride);
    default:
      return GemmBlock<R, 3>(a, b, k, out, out_stride);
  }
}

}  // namespace

// Blocks of 4 rows x 3 columns (12 accumulators, 3 + 1 operand registers of
// AVX2's 16), smaller at the edges.
void QuantizedGemm(const int16_t* lhs, const int16_t* rhs, int m, int n, int k,
                   int32_t* out, int64_t out_stride, ThreadPool* pool) {
  constexpr int kRows = 4, kCols = 3;
  const int row_blocks = (m + kRows - 1) / kRows;
  const int col_blocks = (n + kCols - 1) / kCols;
  const int64_t items = int64_t{row_blocks} * col_blocks;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int i = static_cast<int>(item / col_blocks) * kRows;
      const int j = static_cast<int>(item % col_blocks) * kCols;
      const int rows = std::min(kRows, m - i), cols = std::min(kCols, n - j);
      const int16_t* a = lhs + int64_t{i} * k;
      const int16_t* b = rhs + int64_t{j} * k;
      int32_t* o = out + i * out_stride + j;
      switch (rows) {
        case 1:
          GemmRows<1>(a, b, k, cols, o, out_stride);
          break;
        case 2:
          GemmRows<2>(a, b, k, cols, o, out_stride);
          break;
        case 3:
          GemmRows<3>(a, b, k, cols, o, out_stride);
          break;
        default:
          GemmRows<4>(a, b, k, cols, o, out_stride);
      }
    }
  };
  const int64_t grain =
      std::max<int64_t>(1, 65536 / (int64_t{kRows} * kCols * std::max(k, 1)));
  if (pool == nullptr) {
    run(0, items);
  } else {
    pool->ParallelFor(items, grain, pool->num_threads(), run);
  }
}

int64_t PanelSize(int n, int k) {
  return int64_t{(n + 7) / 8} * 8 * (k + 1) / 2 * 2;
}

void PackPanels(const int16_t* rhs, int n, int k, int16_t* panels) {
  const int pairs = (k + 1) / 2;
  for (int p = 0; p < (n + 7) / 8; ++p) {
    int16_t* dst = panels + int64_t{p} * pairs * 16;
    for (int t = 0; t < pairs; ++t) {
      for (int c = 0; c < 8; ++c) {
        const int j = p * 8 + c;
        for (int h = 0; h < 2; ++h) {
          const int kk = 2 * t + h;
          dst[t * 16 + c * 2 + h] =
              j < n && kk < k ? rhs[int64_t{j} * k + kk] : int16_t{0};
        }
      }
    }
  }
}

namespace {

// Stores of one 8-column vector of accumulators (`valid` of its lanes in
// the matrix) at (row, col): as int32, or with the bias added and
// requantized (QuantizedOutput).
struct Int32Store {
  int32_t* out;
  int64_t stride;
  TWL_QUANT_INLINE void operator()(int row, int col, __m256i v,
                                   int valid) const {
    int32_t* o = out + row * stride + col;
    if (valid == 8) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), v);
      return;
    }
    alignas(32) int32_t tmp[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(tmp), v);
    for (int c = 0; c < valid; ++c) o[c] = tmp[c];
  }
};

// Requantization of eight accumulators, as RoundToQuantized: the IEEE
// double product, rounded to nearest even by the conversion (the current
// rounding mode, as nearbyint), the zero point added and saturated to T.
// Saturation is by the packs: the product is capped at 32767 first (a
// larger one converts to INT32_MIN), one below -2^31 converts to INT32_MIN,
// packs to int16 saturate, adding the zero point (|zp| <= 255) saturates in
// int16 without leaving the side of T's range it saturates to, and the
// pack to 8 bits saturates to T's range. No NaN: multipliers are positive
// and finite.
struct RequantizeEight {
  __m256d same, cap;
  __m128i zp;
  static RequantizeEight For(float multiplier, int32_t zero_point) {
    return {_mm256_set1_pd(multiplier), _mm256_set1_pd(32767.0),
            _mm_set1_epi16(static_cast<int16_t>(zero_point))};
  }
  TWL_QUANT_INLINE __m128i Four(__m128i acc, __m256d m) const {
    const __m256d v = _mm256_mul_pd(_mm256_cvtepi32_pd(acc), m);
    return _mm256_cvtpd_epi32(_mm256_min_pd(v, cap));
  }
  // T values in the low 8 bytes.
  template <typename T>
  TWL_QUANT_INLINE __m128i Run(__m128i lo, __m128i hi, __m256d m_lo,
                               __m256d m_hi) const {
    const __m128i halves =
        _mm_adds_epi16(_mm_packs_epi32(Four(lo, m_lo), Four(hi, m_hi)), zp);
    return std::is_same<T, uint8_t>::value ? _mm_packus_epi16(halves, halves)
                                           : _mm_packs_epi16(halves, halves);
  }
};

template <typename T>
struct RequantizedStore {
  const QuantizedOutput& o;
  RequantizeEight eight;
  TWL_QUANT_INLINE void operator()(int row, int col, __m256i v,
                                   int valid) const {
    __m256d m_lo = eight.same, m_hi = eight.same;
    if (valid == 8) {
      if (o.bias != nullptr) {
        v = _mm256_add_epi32(
            v,
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(o.bias + col)));
      }
      if (o.per_column) {
        m_lo = _mm256_cvtps_pd(_mm_loadu_ps(o.multiplier + col));
        m_hi = _mm256_cvtps_pd(_mm_loadu_ps(o.multiplier + col + 4));
      }
    } else {
      alignas(32) int32_t b[8] = {};
      alignas(32) float m[8] = {1, 1, 1, 1, 1, 1, 1, 1};
      for (int c = 0; c < valid; ++c) {
        if (o.bias != nullptr) b[c] = o.bias[col + c];
        if (o.per_column) m[c] = o.multiplier[col + c];
      }
      v = _mm256_add_epi32(
          v, _mm256_load_si256(reinterpret_cast<const __m256i*>(b)));
      if (o.per_column) {
        m_lo = _mm256_cvtps_pd(_mm_load_ps(m));
        m_hi = _mm256_cvtps_pd(_mm_load_ps(m + 4));
      }
    }
    const __m128i bytes = eight.Run<T>(
        _mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1), m_lo, m_hi);
    T* out = static_cast<T*>(o.out) + row * o.out_stride + col;
    if (valid == 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(out), bytes);
      return;
    }
    alignas(16) T b[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(b), bytes);
    for (int c = 0; c < valid; ++c) out[c] = b[c];
  }
};

#if TWL_INT8_AVX2
// RequantizedStore in float for QuantizedOutput::float_exact, as
// RequantizeFloat16 (quantization.h) in eight lanes. One copy for int8 and
// uint8 output: the clamp holds the type, the store writes low bytes.
struct RequantizedFloatStore {
  static constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: 0x4B400000
  const int32_t* bias;
  const float* multiplier;
  bool per_column;
  uint8_t* out;
  int64_t out_stride;
  __m256 same, low, high;
  __m256i offset;
  static RequantizedFloatStore For(const QuantizedOutput& o) {
    return {o.bias,
            o.multiplier,
            o.per_column,
            static_cast<uint8_t*>(o.out),
            o.out_stride,
            _mm256_set1_ps(o.multiplier[0]),
            _mm256_set1_ps(kMagic + ((o.is_uint8 ? 0 : -128) - o.zero_point)),
            _mm256_set1_ps(kMagic + ((o.is_uint8 ? 255 : 127) - o.zero_point)),
            _mm256_set1_epi32(0x4B400000 - o.zero_point)};
  }
  TWL_QUANT_INLINE void operator()(int row, int col, __m256i v,
                                   int valid) const {
    __m256 m = same;
    if (valid == 8) {
      if (bias != nullptr) {
        v = _mm256_add_epi32(
            v,
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bias + col)));
      }
      if (per_column) m = _mm256_loadu_ps(multiplier + col);
    } else {
      // Lanes past `valid`: no bias, multiplier 0.
      const __m256i lanes = _mm256_cmpgt_epi32(
          _mm256_set1_epi32(valid), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
      if (bias != nullptr) {
        v = _mm256_add_epi32(v, _mm256_maskload_epi32(bias + col, lanes));
      }
      if (per_column) m = _mm256_maskload_ps(multiplier + col, lanes);
    }
    __m256 f =
        _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), m, _mm256_set1_ps(kMagic));
    f = _mm256_min_ps(_mm256_max_ps(f, low), high);
    const __m256i q = _mm256_sub_epi32(_mm256_castps_si256(f), offset);
    // In the output type's range already: the pack does not saturate, and
    // the low byte of each int16 is the result (a shuffle, as cheap as
    // the type's pack).
    const __m128i halves = _mm_packs_epi32(_mm256_castsi256_si128(q),
                                           _mm256_extracti128_si256(q, 1));
    const __m128i bytes =
        _mm_shuffle_epi8(halves, _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, -1,
                                               -1, -1, -1, -1, -1, -1, -1));
    uint8_t* o = out + row * out_stride + col;
    if (valid == 8) {
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o), bytes);
      return;
    }
    alignas(16) uint8_t bb[16];
    _mm_store_si128(reinterpret_cast<__m128i*>(bb), bytes);
    for (int c = 0; c < valid; ++c) o[c] = bb[c];
  }
};
#endif  // TWL_INT8_AVX2

// acc + madd(a, b) (vpmaddwd, vpaddd) in acc's register: GCC copies every
// accumulator of PanelBlock's loop each iteration (and spills some) when
// it sees the intrinsics.
TWL_QUANT_INLINE __m256i MaddAdd(__m256i acc, __m256i a, __m256i b) {
  __m256i product;
  asm("vpmaddwd %3, %2, %1\n\tvpaddd %1, %0, %0"
      : "+x"(acc), "=&x"(product)
      : "x"(a), "x"(b));
  return acc;
}

// An R-row x (8 * P)-column block at (row, col): acc[r][p] holds row r's 8
// columns of panel p; each depth pair broadcasts lhs (r, 2t..2t+1) as one
// int32 and multiply-adds it with the panel's pair vector.
template <int R, int P, typename Store>
TWL_QUANT_INLINE void PanelBlock(const int16_t* a, const int16_t* panel,
                                 int64_t panel_stride, int k, int cols,
                                 const Store& store, int row, int col) {
  __m256i acc[R][P];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int p = 0; p < P; ++p) acc[r][p] = _mm256_setzero_si256();
  }
  const int pairs = (k + 1) / 2;
  if constexpr (R == 4 && P == 2) {
    // The full block in one asm loop: GCC's own copies accumulators
    // between registers each step (a third more instructions).
    if (pairs > 0) {
      const int16_t* a3 = a + 3 * int64_t{k};
      const int64_t row_bytes = 2 * int64_t{k};
      const int16_t* p = panel;
      int count = pairs;
      asm volatile(
          "1:\n\t"
          "vmovdqu (%[p]), %%ymm12\n\t"
          "vmovdqu (%[p],%[ps]), %%ymm13\n\t"
          "vpbroadcastd (%[a]), %%ymm14\n\t"
          "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
          "vpaddd %%ymm15, %[c00], %[c00]\n\t"
          "vpmaddwd %%ymm13, %%ymm14, %%ymm14\n\t"
          "vpaddd %%ymm14, %[c01], %[c01]\n\t"
          "vpbroadcastd (%[a],%[rb]), %%ymm14\n\t"
          "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
          "vpaddd %%ymm15, %[c10], %[c10]\n\t"
          "vpmaddwd %%ymm13, %%ymm14, %%ymm14\n\t"
          "vpaddd %%ymm14, %[c11], %[c11]\n\t"
          "vpbroadcastd (%[a],%[rb],2), %%ymm14\n\t"
          "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
          "vpaddd %%ymm15, %[c20], %[c20]\n\t"
          "vpmaddwd %%ymm13, %%ymm14, %%ymm14\n\t"
          "vpaddd %%ymm14, %[c21], %[c21]\n\t"
          "vpbroadcastd (%[a3]), %%ymm14\n\t"
          "vpmaddwd %%ymm12, %%ymm14, %%ymm15\n\t"
          "vpaddd %%ymm15, %[c30], %[c30]\n\t"
          "vpmaddwd %%ymm13, %%ymm14, %%ymm14\n\t"
          "vpaddd %%ymm14, %[c31], %[c31]\n\t"
          "add $32, %[p]\n\t"
          "add $4, %[a]\n\t"
          "add $4, %[a3]\n\t"
          "dec %[n]\n\t"
          "jnz 1b"
          : [c00] "+x"(acc[0][0]), [c01] "+x"(acc[0][1]), [c10] "+x"(acc[1][0]),
            [c11] "+x"(acc[1][1]), [c20] "+x"(acc[2][0]), [c21] "+x"(acc[2][1]),
            [c30] "+x"(acc[3][0]), [c31] "+x"(acc[3][1]), [p] "+r"(p),
            [a] "+r"(a), [a3] "+r"(a3), [n] "+r"(count)
          : [ps] "r"(2 * panel_stride), [rb] "r"(row_bytes)
          : "xmm12", "xmm13", "xmm14", "xmm15", "cc", "memory");
    }
  } else {
    for (int t = 0; t < pairs; ++t) {
      __m256i b[P];
#pragma GCC unroll 2
      for (int p = 0; p < P; ++p) {
        b[p] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(
            panel + p * panel_stride + t * 16));
      }
#pragma GCC unroll 8
      for (int r = 0; r < R; ++r) {
        int32_t pair;
        memcpy(&pair, a + int64_t{r} * k + 2 * t, sizeof(pair));
        const __m256i av = _mm256_set1_epi32(pair);
#pragma GCC unroll 2
        for (int p = 0; p < P; ++p) {
          acc[r][p] = MaddAdd(acc[r][p], av, b[p]);
        }
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int p = 0; p < P; ++p) {
      store(row + r, col + 8 * p, acc[r][p], std::min(8, cols - 8 * p));
    }
  }
}

// `stored` is copied to a local, which the output's byte stores cannot
// alias (fields read through the reference are reloaded after each).
template <int P, typename Store>
__attribute__((noinline)) void PanelRows(int rows, const int16_t* a,
                                         const int16_t* panel,
                                         int64_t panel_stride, int k, int cols,
                                         const Store& stored, int row,
                                         int col) {
  const Store store = stored;
  switch (rows) {
    case 1:
      return PanelBlock<1, P>(a, panel, panel_stride, k, cols, store, row, col);
    case 2:
      return PanelBlock<2, P>(a, panel, panel_stride, k, cols, store, row, col);
    case 3:
      return PanelBlock<3, P>(a, panel, panel_stride, k, cols, store, row, col);
    default:
      return PanelBlock<4, P>(a, panel, panel_stride, k, cols, store, row, col);
  }
}

// Blocks of 4 rows x 16 columns (8 accumulators, 2 panel registers, a
// broadcast and a product of AVX2's 16: six rows spilled accumulators to
// the stack), smaller at the edges. Rows go in chunks, each multiplied by
// every panel in turn, so that a chunk of lhs stays in L1/L2 while the
// panels stream (a panel per column block, not the whole lhs).
template <typename Store>
void GemmPanels(const int16_t* lhs, const int16_t* panels, int m, int n, int k,
                const Store& store, ThreadPool* pool) {
  constexpr int kRows = 4, kCols = 16;
  const int64_t panel_stride = int64_t{(k + 1) / 2} * 16;
  // About 128 KiB of lhs per chunk (in L2 with a panel), a multiple of
  // kRows.
  const int chunk = static_cast<int>(std::max<int64_t>(
      kRows, 131072 / (2 * int64_t{std::max(k, 1)}) / kRows * kRows));
  const int64_t chunks = (m + chunk - 1) / chunk;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int i0 = static_cast<int>(c * chunk);
      const int i1 = std::min(m, i0 + chunk);
      for (int j = 0; j < n; j += kCols) {
        const int cols = std::min(kCols, n - j);
        const int16_t* panel = panels + (j / 8) * panel_stride;
        for (int i = i0; i < i1; i += kRows) {
          const int rows = std::min(kRows, i1 - i);
          const int16_t* a = lhs + int64_t{i} * k;
          if (cols > 8) {
            PanelRows<2>(rows, a, panel, panel_stride, k, cols, store, i, j);
          } else {
            PanelRows<1>(rows, a, panel, panel_stride, k, cols, store, i, j);
          }
        }
      }
    }
  };
  const int64_t per_chunk = int64_t{chunk} * n * std::max(k, 1);
  const int64_t grain = std::max<int64_t>(1, 262144 / per_chunk);
  if (pool == nullptr) {
    run(0, chunks);
  } else {
    pool->ParallelFor(chunks, grain, pool->num_threads(), run);
  }
}

}  // namespace

void QuantizedGemmPanels(const int16_t* lhs, const int16_t* panels, int m,
                         int n, int k, int32_t* out, int64_t out_stride,
                         ThreadPool* pool) {
  GemmPanels(lhs, panels, m, n, k, Int32Store{out, out_stride}, pool);
}

void QuantizedGemmPanels(const int16_t* lhs, const int16_t* panels, int m,
                         int n, int k, const QuantizedOutput& output,
                         ThreadPool* pool) {
#if TWL_INT8_AVX2
  if (output.float_exact) {
    GemmPanels(lhs, panels, m, n, k, RequantizedFloatStore::For(output), pool);
    return;
  }
#endif
  if (output.is_uint8) {
    GemmPanels(lhs, panels, m, n, k,
               RequantizedStore<uint8_t>{
                   output, RequantizeEight::For(output.multiplier[0],
                                                output.zero_point)},
               pool);
  } else {
    GemmPanels(lhs, panels, m, n, k,
               RequantizedStore<int8_t>{
                   output, RequantizeEight::For(output.multiplier[0],
                                                output.zero_point)},
               pool);
  }
}

#else  // !TWL_INT8_AVX2: the compiler vectorizes Dot/Dot4 (NEON smlal, SSE2).

int64_t PanelSize(int, int) { return 0; }
void PackPanels(const int16_t*, int, int, int16_t*) {}
void QuantizedGemmPanels(const int16_t*, const int16_t*, int, int, int,
                         int32_t*, int64_t, ThreadPool*) {}
void QuantizedGemmPanels(const int16_t*, const int16_t*, int, int, int,
                         const QuantizedOutput&, ThreadPool*) {}

void QuantizedGemm(const int16_t* lhs, const int16_t* rhs, int m, int n, int k,
                   int32_t* out, int64_t out_stride, ThreadPool* pool) {
  // Work items are a row times four columns (fewer at the end).
  const int blocks = (n + 3) / 4;
  const int64_t items = static_cast<int64_t>(m) * blocks;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t i = item / blocks;
      const int j = static_cast<int>(item % blocks) * 4;
      const int16_t* a = lhs + i * k;
      int32_t* o = out + i * out_stride + j;
      if (j + 4 <= n) {
        Dot4(a, rhs + static_cast<int64_t>(j) * k, k, o);
      } else {
        for (int t = 0; j + t < n; ++t) {
          o[t] = Dot(a, rhs + static_cast<int64_t>(j + t) * k, k);
        }
      }
    }
  };
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max(k, 1));
  if (pool == nullptr) {
    run(0, items);
  } else {
    pool->ParallelFor(items, grain, pool->num_threads(), run);
  }
}

#endif  // TWL_INT8_AVX2
#endif  // TWL_INT8_GEMM_FROM_AVX2

#if TWL_INT8_VNNI

int64_t VnniPanelSize(int n, int k) {
  return int64_t{(n + 15) / 16} * 16 * ((k + 3) / 4 * 4);
}

// Block b of 16 columns, depth quad q: 64 bytes at (b * quads + q) * 64,
// column c's four depths at c * 4 (one vpdpbusd lane).
bool PackVnniPanels(const int16_t* rhs, int n, int k, int8_t* panels,
                    int32_t* column_sums) {
  const int quads = (k + 3) / 4;
  for (int j = 0; j < n; ++j) {
    int32_t sum = 0;
    for (int kk = 0; kk < k; ++kk) {
      const int16_t v = rhs[int64_t{j} * k + kk];
      if (v < -128 || v > 127) return false;
      sum += v;
    }
    column_sums[j] = sum;
  }
  for (int b = 0; b < (n + 15) / 16; ++b) {
    for (int q = 0; q < quads; ++q) {
      int8_t* dst = panels + (int64_t{b} * quads + q) * 64;
      for (int c = 0; c < 16; ++c) {
        for (int h = 0; h < 4; ++h) {
          const int j = b * 16 + c, kk = 4 * q + h;
          dst[c * 4 + h] = static_cast<int8_t>(
              j < n && kk < k ? rhs[int64_t{j} * k + kk] : 0);
        }
      }
    }
  }
  return true;
}

namespace {

// The bias and multipliers of one vector of 16 columns (`mask` of
// them in the matrix).
struct VnniColumns {
  __m512i bias;
  __m512d m_lo, m_hi;
  __m512 m;  // VnniStoreFloat
  __mmask16 mask;
};

// Requantization of 16 accumulators (bias included): Requantize16, or
// RequantizeFloat16 (QuantizedOutput::float_exact). One copy for int8 and
// uint8 output: the requantizer's clamp holds the type, the store writes
// bytes. Held by value: stores through the output (bytes) could alias
// fields read through a reference.
template <typename Requantizer>
struct VnniStore {
  uint8_t* out;
  int64_t out_stride;
  const int32_t* bias;
  const float* multiplier;
  bool per_column;
  Requantizer requantize;
  static VnniStore For(const QuantizedOutput& o) {
    return {static_cast<uint8_t*>(o.out),
            o.out_stride,
            o.bias,
            o.multiplier,
            o.per_column,
            Requantizer(o.zero_point, o.is_uint8)};
  }
  TWL_QUANT_INLINE VnniColumns Columns(int col, int n) const {
    const int valid = std::min(16, n - col);
    VnniColumns c;
    c.mask = static_cast<__mmask16>((1u << valid) - 1);
    c.bias = _mm512_maskz_loadu_epi32(c.mask, bias + col);
    if constexpr (std::is_same<Requantizer, RequantizeFloat16>::value) {
      c.m = per_column ? _mm512_maskz_loadu_ps(c.mask, multiplier + col)
                       : _mm512_set1_ps(multiplier[0]);
    } else {
      Multipliers16(multiplier, per_column, col, c.mask, &c.m_lo, &c.m_hi);
    }
    return c;
  }
  TWL_QUANT_INLINE void operator()(int row, int col, __m512i acc,
                                   const VnniColumns& c) const {
    __m128i bytes;
    if constexpr (std::is_same<Requantizer, RequantizeFloat16>::value) {
      bytes = requantize(acc, c.m);
    } else {
      bytes = requantize(acc, c.m_lo, c.m_hi);
    }
    _mm_mask_storeu_epi8(out + row * out_stride + col, c.mask, bytes);
  }
};

// acc + a (uint8) . b (int8) per lane, accumulating in acc's register: GCC
// 12 copies every accumulator of the intrinsic's loop each iteration.
TWL_QUANT_INLINE __m512i Dpbusd(__m512i acc, __m512i a, __m512i b) {
  asm("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
}

// An R-row x (16 * B)-column block at (row, col): each depth quad
// broadcasts lhs (r, 4q..4q+3) as one int32 and vpdpbusd's it with the
// block's quad vectors.
template <int R, int B, typename Store>
TWL_QUANT_INLINE void VnniBlock(const uint8_t* a, int64_t a_stride,
                                const int8_t* panel, int64_t panel_stride,
                                int quads, int n, const Store& store, int row,
                                int col) {
  // The accumulators start at the bias.
  VnniColumns columns[B];
  __m512i acc[R][B];
#pragma GCC unroll 2
  for (int b = 0; b < B; ++b) columns[b] = store.Columns(col + 16 * b, n);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 2
    for (int b = 0; b < B; ++b) acc[r][b] = columns[b].bias;
  }
  for (int q = 0; q < quads; ++q) {
    __m512i w[B];
#pragma GCC unroll 2
    for (int b = 0; b < B; ++b) {
      w[b] = _mm512_loadu_si512(panel + b * panel_stride + q * 64);
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      int32_t quad;
      memcpy(&quad, a + r * a_stride + 4 * q, sizeof(quad));
      const __m512i av = _mm512_set1_epi32(quad);
#pragma GCC unroll 2
      for (int b = 0; b < B; ++b) {
        acc[r][b] = Dpbusd(acc[r][b], av, w[b]);
      }
    }
  }
#pragma GCC unroll 2
  for (int b = 0; b < B; ++b) {
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      store(row + r, col + 16 * b, acc[r][b], columns[b]);
    }
  }
}

// `stored`: by reference, copied here (a local, so that the output's byte
// stores cannot alias it): a by-value Store of vectors is copied to the
// stack by each caller and its reload here stalled on store forwarding.
template <int B, typename Store>
__attribute__((noinline)) void VnniRows(int rows, const uint8_t* a,
                                        int64_t a_stride, const int8_t* panel,
                                        int64_t panel_stride, int quads, int n,
                                        const Store& stored, int row, int col) {
  const Store store = stored;
#define TWL_VNNI_ROWS(R)                                                      \
  case R:                                                                     \
    return VnniBlock<R, B>(a, a_stride, panel, panel_stride, quads, n, store, \
                           row, col);
  switch (rows) {
    TWL_VNNI_ROWS(1)
    TWL_VNNI_ROWS(2)
    TWL_VNNI_ROWS(3)
    TWL_VNNI_ROWS(4)
    TWL_VNNI_ROWS(5)
    TWL_VNNI_ROWS(6)
    TWL_VNNI_ROWS(7)
    default:
      return VnniBlock<8, B>(a, a_stride, panel, panel_stride, quads, n, store,
                             row, col);
  }
#undef TWL_VNNI_ROWS
}

// Blocks of 8 rows x 32 columns (16 accumulators, 2 panel registers and a
// broadcast of AVX-512's 32), smaller at the edges; rows in chunks of about
// 64 KiB of lhs, each multiplied by every block of columns in turn.
template <typename Store>
void VnniGemmRun(const uint8_t* lhs, int64_t lhs_stride, const int8_t* panels,
                 int m, int n, int k, const Store& store, ThreadPool* pool) {
  constexpr int kRows = 8, kCols = 32;
  const int quads = (k + 3) / 4;
  const int64_t panel_stride = int64_t{quads} * 64;
  const int chunk = static_cast<int>(std::max<int64_t>(
      kRows, 65536 / std::max<int64_t>(lhs_stride, 1) / kRows * kRows));
  const int64_t chunks = (m + chunk - 1) / chunk;
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t c = begin; c < end; ++c) {
      const int i0 = static_cast<int>(c * chunk);
      const int i1 = std::min(m, i0 + chunk);
      for (int j = 0; j < n; j += kCols) {
        const int8_t* panel = panels + (j / 16) * panel_stride;
        for (int i = i0; i < i1; i += kRows) {
          const int rows = std::min(kRows, i1 - i);
          const uint8_t* a = lhs + int64_t{i} * lhs_stride;
          if (n - j > 16) {
            VnniRows<2>(rows, a, lhs_stride, panel, panel_stride, quads, n,
                        store, i, j);
          } else {
            VnniRows<1>(rows, a, lhs_stride, panel, panel_stride, quads, n,
                        store, i, j);
          }
        }
      }
    }
  };
  const int64_t per_chunk = int64_t{chunk} * n * std::max(k, 1);
  const int64_t grain = std::max<int64_t>(1, 262144 / per_chunk);
  if (pool == nullptr) {
    run(0, chunks);
  } else {
    pool->ParallelFor(chunks, grain, pool->num_threads(), run);
  }
}

}  // namespace

void VnniGemm(const uint8_t* lhs, int64_t lhs_stride, const int8_t* panels,
              int m, int n, int k, const QuantizedOutput& output,
              ThreadPool* pool) {
  if (output.float_exact) {
    VnniGemmRun(lhs, lhs_stride, panels, m, n, k,
                VnniStore<RequantizeFloat16>::For(output), pool);
  } else {
    VnniGemmRun(lhs, lhs_stride, panels, m, n, k,
                VnniStore<Requantize16>::For(output), pool);
  }
}

#else  // no AVX-512 VNNI

int64_t VnniPanelSize(int, int) { return 0; }
bool PackVnniPanels(const int16_t*, int, int, int8_t*, int32_t*) {
  return false;
}
void VnniGemm(const uint8_t*, int64_t, const int8_t*, int, int, int,
              const QuantizedOutput&, ThreadPool*) {}

#endif  // TWL_INT8_VNNI

#if TWL_INT8_GEMM_FROM_AVX2
template <typename T>
void Requantize(const int32_t* acc, int64_t rows, int n,
                const float* multiplier, bool per_column, int32_t zero_point,
                T* out) {
  int8_avx2::Requantize(acc, rows, n, multiplier, per_column, zero_point, out);
}

template <typename T>
void QuantizedAdd(const T* a, const T* b, int64_t n, int32_t a_zp, int32_t b_zp,
                  float a_multiplier, float b_multiplier, int32_t y_zp, T* y) {
  int8_avx2::QuantizedAdd(a, b, n, a_zp, b_zp, a_multiplier, b_multiplier, y_zp,
                          y);
}
#else  // !TWL_INT8_GEMM_FROM_AVX2
namespace {

// The plain requantization of acc[j], j in [begin, n), of one row.
template <typename T>
void RequantizeTail(const int32_t* acc, int begin, int n,
                    const float* multiplier, bool per_column,
                    int32_t zero_point, T* out) {
  for (int j = begin; j < n; ++j) {
    const double scale = multiplier[per_column ? j : 0];
    out[j] = RoundToQuantized<T>(acc[j] * scale, zero_point);
  }
}

}  // namespace

template <typename T>
void Requantize(const int32_t* acc, int64_t rows, int n,
                const float* multiplier, bool per_column, int32_t zero_point,
                T* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t* a = acc + r * n;
    T* o = out + r * n;
    int j = 0;
#if TWL_INT8_AVX2
    const RequantizeEight eight =
        RequantizeEight::For(multiplier[0], zero_point);
    for (; j + 8 <= n; j += 8) {
      __m256d m_lo = eight.same, m_hi = eight.same;
      if (per_column) {
        m_lo = _mm256_cvtps_pd(_mm_loadu_ps(multiplier + j));
        m_hi = _mm256_cvtps_pd(_mm_loadu_ps(multiplier + j + 4));
      }
      const __m128i bytes = eight.Run<T>(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j)),
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + j + 4)), m_lo,
          m_hi);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(o + j), bytes);
    }
#endif
    RequantizeTail(a, j, n, multiplier, per_column, zero_point, o);
  }
}

template <typename T>
void QuantizedAdd(const T* a, const T* b, int64_t n, int32_t a_zp, int32_t b_zp,
                  float a_multiplier, float b_multiplier, int32_t y_zp, T* y) {
  int64_t i = 0;
#if TWL_INT8_AVX2
  const RequantizeEight eight = RequantizeEight::For(1.0f, y_zp);
  const __m256d ma = _mm256_set1_pd(a_multiplier);
  const __m256d mb = _mm256_set1_pd(b_multiplier);
  const __m128i za = _mm_set1_epi32(a_zp), zb = _mm_set1_epi32(b_zp);
  // Four lanes of (x - zp) as int32 from four bytes at p.
  auto widen = [](const T* p, __m128i zp) {
    int32_t word;
    memcpy(&word, p, sizeof(word));
    const __m128i v = _mm_cvtsi32_si128(word);
    return _mm_sub_epi32(std::is_same<T, uint8_t>::value ? _mm_cvtepu8_epi32(v)
                                                         : _mm_cvtepi8_epi32(v),
                         zp);
  };
  // The exact products' sum, rounded once (as the scalar path), capped
  // and converted as RequantizeEight::Four with a multiplier of 1.
  auto four = [&](int64_t at) {
    const __m256d sum =
        _mm256_add_pd(_mm256_mul_pd(_mm256_cvtepi32_pd(widen(a + at, za)), ma),
                      _mm256_mul_pd(_mm256_cvtepi32_pd(widen(b + at, zb)), mb));
    return _mm256_cvtpd_epi32(_mm256_min_pd(sum, eight.cap));
  };
  for (; i + 8 <= n; i += 8) {
    const __m128i halves =
        _mm_adds_epi16(_mm_packs_epi32(four(i), four(i + 4)), eight.zp);
    const __m128i bytes = std::is_same<T, uint8_t>::value
                              ? _mm_packus_epi16(halves, halves)
                              : _mm_packs_epi16(halves, halves);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(y + i), bytes);
  }
#endif
  const double ma_d = a_multiplier, mb_d = b_multiplier;
  for (; i < n; ++i) {
    y[i] = RoundToQuantized<T>((static_cast<int32_t>(a[i]) - a_zp) * ma_d +
                                   (static_cast<int32_t>(b[i]) - b_zp) * mb_d,
                               y_zp);
  }
}

#endif  // TWL_INT8_GEMM_FROM_AVX2

template void Requantize<int8_t>(const int32_t*, int64_t, int, const float*,
                                 bool, int32_t, int8_t*);
template void Requantize<uint8_t>(const int32_t*, int64_t, int, const float*,
                                  bool, int32_t, uint8_t*);
template void QuantizedAdd<int8_t>(const int8_t*, const int8_t*, int64_t,
                                   int32_t, int32_t, float, float, int32_t,
                                   int8_t*);
template void QuantizedAdd<uint8_t>(const uint8_t*, const uint8_t*, int64_t,
                                    int32_t, int32_t, float, float, int32_t,
                                    uint8_t*);

#undef TWL_QUANT_INLINE
