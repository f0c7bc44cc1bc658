// The int8 GEMMs and requantization of one instruction set (see
// quantization.h): declarations without an include guard, included once
// per instruction set inside namespace twl::<variant> with TWL_INT8_AVX2,
// TWL_INT8_AVX512 and TWL_INT8_VNNI (each 0 or 1) naming what the variant's
// code may use. quantization.h includes it for twl::int8 (a native build's
// kernels, or a portable build's baseline ones); quantized_products.cc
// adds a portable x86-64 build's AVX2, AVX-512 and AVX-512 VNNI variants.
// Definitions: quantized_gemm_impl.h.

// out[i * out_stride + j] = sum_k lhs[i * k + kk] * rhs[j * k + kk] for
// i < m, j < n (rhs is the right-hand matrix transposed: one row per output
// column). k <= kMaxQuantizedDepth. Splits over `pool` when large (pool may
// be null).
void QuantizedGemm(const int16_t* lhs, const int16_t* rhs, int m, int n, int k,
                   int32_t* out, int64_t out_stride, ThreadPool* pool);

// The panel GEMM (AVX2 variants; kPanelGemm false elsewhere): the right
// operand packed once into panels of 8 columns, pairs of depth interleaved,
// so that the kernel multiplies a broadcast pair of lhs values by 8
// columns' pairs (vpmaddwd) into 8 int32 lanes, with no horizontal sums.
#if TWL_INT8_AVX2
constexpr bool kPanelGemm = true;
#else
constexpr bool kPanelGemm = false;
#endif

// int16 elements of the panel form of an n x k right operand.
int64_t PanelSize(int n, int k);

// Packs the n x k right operand `rhs` (row j, one output column, at
// rhs + j * k) into `panels` (PanelSize(n, k) elements).
void PackPanels(const int16_t* rhs, int n, int k, int16_t* panels);

// As QuantizedGemm, over the packed right operand; lhs must be readable one
// element past m * k (an odd depth reads it, times a zero of the panels).
void QuantizedGemmPanels(const int16_t* lhs, const int16_t* panels, int m,
                         int n, int k, int32_t* out, int64_t out_stride,
                         ThreadPool* pool);

// As QuantizedGemmPanels, adding the bias and requantizing each block of
// accumulators while it is in registers (no int32 matrix in memory).
void QuantizedGemmPanels(const int16_t* lhs, const int16_t* panels, int m,
                         int n, int k, const QuantizedOutput& output,
                         ThreadPool* pool);

// The VNNI GEMM (AVX-512 VNNI variants; kVnniGemm false elsewhere):
// uint8 lhs bytes times int8 right operand bytes, four depths per int32
// lane (vpdpbusd), 16 columns per vector. It takes the raw lhs (no zero
// point subtracted: the caller folds -lhs_zp * column sum into the bias).
#if TWL_INT8_VNNI
constexpr bool kVnniGemm = true;
#else
constexpr bool kVnniGemm = false;
#endif

// Bytes of the VNNI panel form of an n x k right operand.
int64_t VnniPanelSize(int n, int k);

// Packs the n x k right operand `rhs` (zero point subtracted, as for
// PackPanels) into `panels` (VnniPanelSize(n, k) bytes) and its column sums
// into column_sums[n]; false (nothing usable) when a value is outside int8.
bool PackVnniPanels(const int16_t* rhs, int n, int k, int8_t* panels,
                    int32_t* column_sums);

// output (bias required) of the m x n product of uint8 lhs rows (row i at
// lhs + i * lhs_stride, readable to k rounded up to 4; the bytes past k
// meet zero weights) and the packed right operand.
void VnniGemm(const uint8_t* lhs, int64_t lhs_stride, const int8_t* panels,
              int m, int n, int k, const QuantizedOutput& output,
              ThreadPool* pool);

// out[i] = RoundToQuantized<T>(acc[i] * multiplier, zero_point) over rows of
// `n` columns; multiplier[j] for column j when per_column, else
// multiplier[0]. T is int8_t or uint8_t (AVX2: four lanes of doubles at a
// time, rounded to nearest even as nearbyint does).
template <typename T>
void Requantize(const int32_t* acc, int64_t rows, int n,
                const float* multiplier, bool per_column, int32_t zero_point,
                T* out);

#if TWL_INT8_AVX512
// RoundToQuantized<T>(acc[i] * multiplier[i], zero_point) of 16 int32
// lanes, multipliers 0-7 in m_lo and 8-15 in m_hi: the double product
// clamped to [T's min - zp, T's max - zp] (integers, so clamping commutes
// with rounding), rounded to nearest even by the conversion, plus the zero
// point; T's in the 16 bytes (T is uint8_t when is_uint8, else int8_t:
// the type sets only the clamp, so one copy of the code serves both).
struct Requantize16 {
  __m512d low, high;
  __m512i zp;
  Requantize16(int32_t zero_point, bool is_uint8)
      : low(_mm512_set1_pd((is_uint8 ? 0.0 : -128.0) - zero_point)),
        high(_mm512_set1_pd((is_uint8 ? 255.0 : 127.0) - zero_point)),
        zp(_mm512_set1_epi32(zero_point)) {}
  inline __m128i operator()(__m512i acc, __m512d m_lo, __m512d m_hi) const {
    __m512d lo =
        _mm512_mul_pd(_mm512_cvtepi32_pd(_mm512_castsi512_si256(acc)), m_lo);
    __m512d hi = _mm512_mul_pd(
        _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(acc, 1)), m_hi);
    lo = _mm512_min_pd(_mm512_max_pd(lo, low), high);
    hi = _mm512_min_pd(_mm512_max_pd(hi, low), high);
    const __m512i v =
        _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtpd_epi32(lo)),
                           _mm512_cvtpd_epi32(hi), 1);
    return _mm512_cvtepi32_epi8(_mm512_add_epi32(v, zp));
  }
};

// As Requantize16 with float multipliers, for |acc| <= kFloatRequantizeLimit
// (the caller's bound): float(acc) is then exact and one fma adds acc * m
// to 1.5 * 2^23, where the floats are the integers, so the sum rounds once,
// to nearest even, as nearbyint of the (exact) double product does;
// clamped there (rounding is monotonic, so a sum past 2^24 or below 2^23
// clamps as its product would), its bits less 1.5 * 2^23's are the integer.
struct RequantizeFloat16 {
  static constexpr float kMagic = 12582912.0f;  // 1.5 * 2^23: 0x4B400000
  __m512 low, high;
  __m512i offset;
  RequantizeFloat16(int32_t zero_point, bool is_uint8)
      : low(_mm512_set1_ps(kMagic + ((is_uint8 ? 0 : -128) - zero_point))),
        high(_mm512_set1_ps(kMagic + ((is_uint8 ? 255 : 127) - zero_point))),
        offset(_mm512_set1_epi32(0x4B400000 - zero_point)) {}
  // The results as int32 (in T's range).
  inline __m512i Int32(__m512i acc, __m512 m) const {
    __m512 v =
        _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc), m, _mm512_set1_ps(kMagic));
    v = _mm512_min_ps(_mm512_max_ps(v, low), high);
    return _mm512_sub_epi32(_mm512_castps_si512(v), offset);
  }
  inline __m128i operator()(__m512i acc, __m512 m) const {
    return _mm512_cvtepi32_epi8(Int32(acc, m));
  }
};

// Multipliers [col, col + 16) (lanes past `mask` 0) as two vectors of
// doubles, or multiplier[0] in every lane when not per_column.
inline void Multipliers16(const float* multiplier, bool per_column, int col,
                          __mmask16 mask, __m512d* lo, __m512d* hi) {
  if (!per_column) {
    *lo = *hi = _mm512_set1_pd(multiplier[0]);
    return;
  }
  const __m512 m = _mm512_maskz_loadu_ps(mask, multiplier + col);
  *lo = _mm512_cvtps_pd(_mm512_castps512_ps256(m));
  *hi = _mm512_cvtps_pd(
      _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(m), 1)));
}
#endif  // TWL_INT8_AVX512

// As twl::QuantizedAdd (quantization.h).
template <typename T>
void QuantizedAdd(const T* a, const T* b, int64_t n, int32_t a_zp, int32_t b_zp,
                  float a_multiplier, float b_multiplier, int32_t y_zp, T* y);
