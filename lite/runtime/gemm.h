// Packed single-precision GEMM used by FullyConnected, Conv2D and
// BatchMatMul:
//   C[m, n] = clamp(sum_k A[m, k] * B[n, k] + bias, low, high)
// with A row-major (row stride lda) and B pre-packed into panels of kGemmNr
// columns (PackGemmB). The micro-kernels are written with GCC/Clang vector
// extensions for any vector width (vector.h): AVX-512, AVX2, SSE2 or NEON.
#ifndef TENSORWEAVE_LITE_RUNTIME_GEMM_H_
#define TENSORWEAVE_LITE_RUNTIME_GEMM_H_

#include <cstddef>
#include <cstdint>

namespace twl {

class ThreadPool;

constexpr int kGemmNr = 16;  // columns per packed panel
constexpr int kGemmMr = 12;  // rows per tile: 6 x 2 (AVX2), 8 + 4, 2 x 6
// A longer inner dimension than 2 x kGemmSlice is multiplied in slices of
// about kGemmSlice, each tile's slice of A kept in L1 (gemm.cc).
constexpr int kGemmSlice = 256;

// Floats needed to pack an N x K matrix.
inline size_t PackedGemmBSize(int n, int k) {
  return static_cast<size_t>((n + kGemmNr - 1) / kGemmNr) * kGemmNr * k;
}
// Packs B (B[n * ldb + k], n < N) into `packed`; columns past N are zero.
void PackGemmB(const float* b, int n, int k, int64_t ldb, float* packed);
// Packs B given transposed (B[k * ldb + n]).
void PackGemmBTransposed(const float* b, int n, int k, int64_t ldb,
                         float* packed);

// A curve applied to each element after the bias and clamp.
enum class GemmCurve : uint8_t {
  kNone,
  kGelu,      // x Phi(x), through erf
  kGeluTanh,  // GELU's tanh approximation
};

struct GemmEpilogue {
  const float* bias = nullptr;  // length N (per column) or M (per row)
  bool bias_per_row = false;
  float low = -__builtin_inff();
  float high = __builtin_inff();
  GemmCurve curve = GemmCurve::kNone;
  // Added after the bias, before the clamp (a fused residual connection):
  // element (m, n) at residual[m * c_row_stride + n * c_col_stride], laid
  // out as C. Null: none.
  const float* residual = nullptr;
};

// C element (m, n) is stored at c[m * c_row_stride + n * c_col_stride].
// Splits the work over `pool` when it is large enough (pool may be null).
//
// `descending`: when split over threads by columns, each thread walks its
// panels last to first. A caller running the same weights again and again
// (FullyConnected at batch 1) alternates it call by call: each thread then
// starts on the panels it read last, which are still in its cache, instead
// of on the ones the rest of the pass evicted.
void Gemm(int m, int n, int k, const float* a, int64_t lda,
          const float* packed_b, float* c, int64_t c_row_stride,
          int64_t c_col_stride, const GemmEpilogue& epilogue, ThreadPool* pool,
          bool descending = false);

// Plain triple loop with the same contract but unpacked B (B[n*ldb + k]);
// the curve in double precision through <cmath>.
void GemmReference(int m, int n, int k, const float* a, int64_t lda,
                   const float* b, int64_t ldb, float* c, int64_t c_row_stride,
                   int64_t c_col_stride, const GemmEpilogue& epilogue);

// 64-byte-aligned float storage owned by a kernel (allocated in prepare).
class AlignedFloats {
 public:
  AlignedFloats() = default;
  ~AlignedFloats();
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  // Reallocates when `n` exceeds the capacity; false when out of memory.
  bool Resize(size_t n);
  float* data() { return data_; }
  size_t size() const { return size_; }

 private:
  float* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_GEMM_H_
