// MatMul: OpenBLAS for float32/float64 (split into one block of C per
// thread of the intra-op pool; float products with few rows or a short inner
// dimension by an AVX-512 kernel of its own, SmallGemm, which keeps B packed
// while the same B comes again: a while loop's weight), a plain loop for
// integers and as the reference.
#include "core/kernels/matmul_op.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/framework/op_kernel.h"
#include "core/kernels/wrapping_arithmetic.h"
#include "core/platform/blas.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

template <typename T>
void ReferenceMatMul(const T* a, const T* b, T* c, int64_t m, int64_t n,
                     int64_t k, bool transpose_a, bool transpose_b) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        T av = transpose_a ? a[p * m + i] : a[i * k + p];
        T bv = transpose_b ? b[j * k + p] : b[p * n + j];
        sum = WrappingAdd(sum, WrappingMul(av, bv));
      }
      c[i * n + j] = sum;
    }
  }
}
template void ReferenceMatMul<float>(const float*, const float*, float*,
                                     int64_t, int64_t, int64_t, bool, bool);
template void ReferenceMatMul<double>(const double*, const double*, double*,
                                      int64_t, int64_t, int64_t, bool, bool);
template void ReferenceMatMul<int32_t>(const int32_t*, const int32_t*, int32_t*,
                                       int64_t, int64_t, int64_t, bool, bool);
template void ReferenceMatMul<int64_t>(const int64_t*, const int64_t*, int64_t*,
                                       int64_t, int64_t, int64_t, bool, bool);

namespace {

// Products with few rows or a short inner dimension (a recurrent cell's
// [32, 384] x [384, 1024] and its weight gradient [384, 32] x [32, 1024]):
// OpenBLAS spends about as long packing op(A) and clearing C as multiplying
// there. This kernel packs only 32 columns of B at a time into a contiguous
// [k, 32] panel (a copy of 128-byte rows), reads op(A) in place and keeps
// each 8 x 32 block of C in 16 AVX-512 accumulators over the whole inner
// dimension: ~1.3x OpenBLAS's SkylakeX kernels at these sizes. A transposed
// B (the cell's input gradient [32, 1024] x [384, 1024]^T) is packed by 8 x 8
// register transposes (k a multiple of 8).
constexpr int64_t kSmallRows = 8, kSmallCols = 32, kSmallMaxInner = 4096;

bool SmallGemmApplies(int64_t m, int64_t n, int64_t k, bool tb) {
#if defined(__AVX512F__)
  return m > 0 && k > 0 && m % kSmallRows == 0 && n % kSmallCols == 0 &&
         n > 0 && k <= kSmallMaxInner && (m <= 64 || k <= 64) &&
         (!tb || k % 8 == 0);
#else
  (void)m, (void)n, (void)k, (void)tb;
  return false;
#endif
}

#if defined(__AVX512F__)
// C[8, 32] (row stride ldc) = alpha op(A)[8, k] panel[k, 32] + beta C, where
// op(A)[i, p] = a[i * ars + p * aps]; with beta = 0, C is not read.
void SmallGemmBlock(const float* a, int64_t ars, int64_t aps,
                    const float* panel, int64_t k, float alpha, float beta,
                    float* c, int64_t ldc) {
  __m512 acc[kSmallRows][2];
  for (int r = 0; r < kSmallRows; ++r) {
    acc[r][0] = _mm512_setzero_ps();
    acc[r][1] = _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < k; ++p) {
    const __m512 b0 = _mm512_load_ps(panel + p * kSmallCols);
    const __m512 b1 = _mm512_load_ps(panel + p * kSmallCols + 16);
    const float* ap = a + p * aps;
#pragma GCC unroll 8
    for (int r = 0; r < kSmallRows; ++r) {
      const __m512 av = _mm512_set1_ps(ap[r * ars]);
      acc[r][0] = _mm512_fmadd_ps(av, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(av, b1, acc[r][1]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha);
  const __m512 vb = _mm512_set1_ps(beta);
  for (int r = 0; r < kSmallRows; ++r) {
    float* cr = c + r * ldc;
    __m512 c0 = _mm512_mul_ps(acc[r][0], va);
    __m512 c1 = _mm512_mul_ps(acc[r][1], va);
    if (beta != 0.0f) {
      c0 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(cr), c0);
      c1 = _mm512_fmadd_ps(vb, _mm512_loadu_ps(cr + 16), c1);
    }
    _mm512_storeu_ps(cr, c0);
    _mm512_storeu_ps(cr + 16, c1);
  }
}

// A panel is multiplied in slices of this many inner indices (a [256, 32]
// slice is 32 KB): each slice stays in L1 while every row block of C is
// multiplied by it, where a whole panel ([1024, 32] for a cell's input
// gradient, 128 KB) would stream from L2 once per row block.
constexpr int64_t kSmallInnerBlock = 256;

// C[m, 32] (row stride ldc) = alpha op(A)[m, k] panel[k, 32] + beta C, by
// slices of the inner dimension (the first scaled by beta, the rest added).
void PanelTimesA(const float* a, int64_t ars, int64_t aps, int64_t m,
                 const float* panel, int64_t k, float alpha, float beta,
                 float* c, int64_t ldc) {
  for (int64_t p0 = 0; p0 < k; p0 += kSmallInnerBlock) {
    const int64_t kc = std::min(kSmallInnerBlock, k - p0);
    const float slice_beta = p0 == 0 ? beta : 1.0f;
    for (int64_t i0 = 0; i0 < m; i0 += kSmallRows) {
      SmallGemmBlock(a + i0 * ars + p0 * aps, ars, aps, panel + p0 * kSmallCols,
                     kc, alpha, slice_beta, c + i0 * ldc, ldc);
    }
  }
}

// panel[p * 32 + c] = op(B)[p, j0 + c] for p in [0, k), c in [0, 32).
void PackPanel(bool tb, const float* b, int64_t ldb, int64_t k, int64_t j0,
               float* panel) {
  if (!tb) {
    for (int64_t p = 0; p < k; ++p) {
      const float* row = b + p * ldb + j0;
      _mm512_store_ps(panel + p * kSmallCols, _mm512_loadu_ps(row));
      _mm512_store_ps(panel + p * kSmallCols + 16, _mm512_loadu_ps(row + 16));
    }
    return;
  }
  // op(B)[p, j] = B[j, p]: rows j0..j0+31 of B, each contiguous in p,
  // transposed 8 x 8 at a time (k % 8 == 0).
  for (int64_t c = 0; c < kSmallCols; c += 8) {
    const float* rows = b + (j0 + c) * ldb;
    for (int64_t p = 0; p < k; p += 8) {
      __m256 r[8], t[8], u[8];
      for (int q = 0; q < 8; ++q) r[q] = _mm256_loadu_ps(rows + q * ldb + p);
      for (int q = 0; q < 8; q += 2) {
        t[q] = _mm256_unpacklo_ps(r[q], r[q + 1]);
        t[q + 1] = _mm256_unpackhi_ps(r[q], r[q + 1]);
      }
      for (int q = 0; q < 8; q += 4) {
        u[q] = _mm256_shuffle_ps(t[q], t[q + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[q + 1] = _mm256_shuffle_ps(t[q], t[q + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[q + 2] =
            _mm256_shuffle_ps(t[q + 1], t[q + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[q + 3] =
            _mm256_shuffle_ps(t[q + 1], t[q + 3], _MM_SHUFFLE(3, 2, 3, 2));
      }
      float* out = panel + p * kSmallCols + c;
      for (int q = 0; q < 4; ++q) {
        _mm256_storeu_ps(out + q * kSmallCols,
                         _mm256_permute2f128_ps(u[q], u[q + 4], 0x20));
        _mm256_storeu_ps(out + (q + 4) * kSmallCols,
                         _mm256_permute2f128_ps(u[q], u[q + 4], 0x31));
      }
    }
  }
}

// C[m, n] = alpha op(A) op(B) + beta C, row-major with leading dimensions,
// where SmallGemmApplies.
void SmallGemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha,
               const float* a, int64_t lda, const float* b, int64_t ldb,
               float beta, float* c, int64_t ldc) {
  thread_local std::vector<float> buffer;
  const int64_t ars = ta ? 1 : lda, aps = ta ? lda : 1;
  const int64_t panel_size = k * kSmallCols;
  // When all of op(B) packed fits well in L2 (a dense layer's weight
  // gradient [4096, 64] x [64, 512]: 128 KB), it is packed once and C is
  // computed 8 rows at a time across all its columns: the 8 rows of op(A)
  // stay in L1 (a transposed A is read down its columns, one cache line per
  // inner index) and C is written row block by row block. Each element is
  // computed as in the panel-outer order below, so the results are the same.
  if (n * k * static_cast<int64_t>(sizeof(float)) <= (256 << 10)) {
    const size_t need = static_cast<size_t>(n * k + 16);
    if (buffer.size() < need) buffer.resize(need);
    float* panels = reinterpret_cast<float*>(
        (reinterpret_cast<uintptr_t>(buffer.data()) + 63) & ~uintptr_t{63});
    for (int64_t j0 = 0; j0 < n; j0 += kSmallCols) {
      PackPanel(tb, b, ldb, k, j0, panels + (j0 / kSmallCols) * panel_size);
    }
    for (int64_t i0 = 0; i0 < m; i0 += kSmallRows) {
      for (int64_t j0 = 0; j0 < n; j0 += kSmallCols) {
        PanelTimesA(a + i0 * ars, ars, aps, kSmallRows,
                    panels + (j0 / kSmallCols) * panel_size, k, alpha, beta,
                    c + i0 * ldc + j0, ldc);
      }
    }
    return;
  }
  const size_t need = static_cast<size_t>(panel_size + 16);
  if (buffer.size() < need) buffer.resize(need);
  float* panel = reinterpret_cast<float*>(
      (reinterpret_cast<uintptr_t>(buffer.data()) + 63) & ~uintptr_t{63});
  for (int64_t j0 = 0; j0 < n; j0 += kSmallCols) {
    PackPanel(tb, b, ldb, k, j0, panel);
    PanelTimesA(a, ars, aps, m, panel, k, alpha, beta, c + j0, ldc);
  }
}

// All of op(B) [k, n] packed as SmallGemm packs it: n / 32 panels [k, 32].
struct PackedB {
  std::shared_ptr<TensorBuffer> buffer;  // B's: it cannot change or go away
  const float* data;
  bool tb;
  int64_t k, n;
  std::vector<float> storage;
  const float* panels;
};

std::shared_ptr<const PackedB> PackB(const Tensor& b, bool tb, int64_t k,
                                     int64_t n) {
  auto packed = std::make_shared<PackedB>();
  packed->buffer = b.buffer();
  packed->data = b.data<float>();
  packed->tb = tb;
  packed->k = k;
  packed->n = n;
  packed->storage.resize(static_cast<size_t>(n * k + 16));
  float* panels = reinterpret_cast<float*>(
      (reinterpret_cast<uintptr_t>(packed->storage.data()) + 63) &
      ~uintptr_t{63});
  for (int64_t j0 = 0; j0 < n; j0 += kSmallCols) {
    PackPanel(tb, packed->data, tb ? k : n, k, j0, panels + j0 * k);
  }
  packed->panels = panels;
  return packed;
}

// C[m, n] = op(A) op(B) from B packed by PackB: the same products, summed in
// the same order, as SmallGemm's.
void SmallGemmPacked(bool ta, int64_t m, int64_t n, int64_t k, const float* a,
                     const PackedB& b, float* c) {
  const int64_t lda = ta ? m : k;
  const int64_t ars = ta ? 1 : lda, aps = ta ? lda : 1;
  for (int64_t j0 = 0; j0 < n; j0 += kSmallCols) {
    PanelTimesA(a, ars, aps, m, b.panels + j0 * k, k, 1.0f, 0.0f, c + j0, n);
  }
}
#endif

// The block of C = op(A) op(B) with rows [r0, r1) and columns [c0, c1), by
// BLAS (which packs its operands into cache-sized panels itself), or by
// SmallGemm for float products of its sizes.
template <typename T>
void BlasGemmBlock(const T* a, const T* b, T* c, int64_t m, int64_t n,
                   int64_t k, bool ta, bool tb, T alpha, T beta, int64_t r0,
                   int64_t r1, int64_t c0, int64_t c1) {
  const T* a_block = ta ? a + r0 : a + r0 * k;
  const T* b_block = tb ? b + c0 * k : b + c0;
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
#if defined(__AVX512F__)
  if constexpr (std::is_same_v<T, float>) {
    if (SmallGemmApplies(r1 - r0, c1 - c0, k, tb)) {
      SmallGemm(ta, tb, r1 - r0, c1 - c0, k, alpha, a_block, lda, b_block, ldb,
                beta, c + r0 * n + c0, n);
      return;
    }
  }
#endif
  blas::Gemm<T>(ta, tb, r1 - r0, c1 - c0, k, alpha, a_block, lda, b_block, ldb,
                beta, c + r0 * n + c0, n);
}

template <typename T>
void BlasGemm(ThreadPool* pool, const T* a, const T* b, T* c, int64_t m,
              int64_t n, int64_t k, bool ta, bool tb, T alpha, T beta) {
  const int64_t parts = pool == nullptr ? 1 : pool->num_threads() + 1;
  const int64_t flops = 2 * m * n * k;
  if (parts == 1 || flops < (int64_t{1} << 22)) {
    BlasGemmBlock<T>(a, b, c, m, n, k, ta, tb, alpha, beta, 0, m, 0, n);
    return;
  }
  // One block per thread, split along the longer side of C (rows when
  // equal: each thread then streams all of B once, through its own packed
  // panels, and writes a contiguous part of C). min_block = extent / parts
  // makes ParallelFor cut exactly `parts` blocks.
  const bool by_rows = m >= n;
  const int64_t extent = by_rows ? m : n;
  const int64_t block = std::max<int64_t>(16, extent / parts);
  pool->ParallelFor(extent, block, [&](int64_t begin, int64_t end) {
    if (by_rows) {
      BlasGemmBlock<T>(a, b, c, m, n, k, ta, tb, alpha, beta, begin, end, 0, n);
    } else {
      BlasGemmBlock<T>(a, b, c, m, n, k, ta, tb, alpha, beta, 0, m, begin, end);
    }
  });
}

}  // namespace

template <typename T>
void Gemm(ThreadPool* pool, const T* a, const T* b, T* c, int64_t m, int64_t n,
          int64_t k, bool transpose_a, bool transpose_b, T alpha, T beta) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta == T(0)) {
      std::fill(c, c + m * n, T(0));
    } else {
      for (int64_t i = 0; i < m * n; ++i) c[i] *= beta;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    BlasGemm<T>(pool, a, b, c, m, n, k, transpose_a, transpose_b, alpha, beta);
  } else {
    ReferenceMatMul<T>(a, b, c, m, n, k, transpose_a, transpose_b);
  }
}
template void Gemm<float>(ThreadPool*, const float*, const float*, float*,
                          int64_t, int64_t, int64_t, bool, bool, float, float);
template void Gemm<double>(ThreadPool*, const double*, const double*, double*,
                           int64_t, int64_t, int64_t, bool, bool, double,
                           double);
template void Gemm<int32_t>(ThreadPool*, const int32_t*, const int32_t*,
                            int32_t*, int64_t, int64_t, int64_t, bool, bool,
                            int32_t, int32_t);
template void Gemm<int64_t>(ThreadPool*, const int64_t*, const int64_t*,
                            int64_t*, int64_t, int64_t, int64_t, bool, bool,
                            int64_t, int64_t);

template <typename T>
void ComplexMatMul(const T* a, const T* b, T* c, int64_t m, int64_t n,
                   int64_t k, blas::ComplexOp op_a, blas::ComplexOp op_b) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::fill(c, c + m * n, T(0));
    return;
  }
  const bool ta = op_a != blas::ComplexOp::kNone;
  const bool tb = op_b != blas::ComplexOp::kNone;
  blas::ComplexGemm<T>(op_a, op_b, m, n, k, a, ta ? m : k, b, tb ? k : n, c, n);
}
template void ComplexMatMul<complex64>(const complex64*, const complex64*,
                                       complex64*, int64_t, int64_t, int64_t,
                                       blas::ComplexOp, blas::ComplexOp);
template void ComplexMatMul<complex128>(const complex128*, const complex128*,
                                        complex128*, int64_t, int64_t, int64_t,
                                        blas::ComplexOp, blas::ComplexOp);

Status MatMulDims(const Tensor& a, const Tensor& b, bool transpose_a,
                  bool transpose_b, const char* a_name, const char* b_name,
                  int64_t* m, int64_t* n, int64_t* k) {
  if (a.rank() != 2 || b.rank() != 2) {
    return errors::InvalidArgument("a matrix product needs matrices, got ",
                                   a_name, ": ", a.shape().ToString(), ", ",
                                   b_name, ": ", b.shape().ToString());
  }
  *m = a.dim(transpose_a ? 1 : 0);
  *k = a.dim(transpose_a ? 0 : 1);
  *n = b.dim(transpose_b ? 0 : 1);
  if (*k != b.dim(transpose_b ? 1 : 0)) {
    return errors::InvalidArgument("Matrix size-incompatible: ", a_name, ": ",
                                   a.shape().ToString(), ", ", b_name, ": ",
                                   b.shape().ToString());
  }
  return Status::OK();
}

namespace {

std::vector<float> WidenToFloat(const Tensor& t) {
  std::vector<float> out(t.num_elements());
  const bfloat16* p = t.data<bfloat16>();
  for (size_t i = 0; i < out.size(); ++i) out[i] = ToFloat(p[i]);
  return out;
}

void NarrowFromFloat(const std::vector<float>& in, bfloat16* out) {
  for (size_t i = 0; i < in.size(); ++i) out[i] = bfloat16(in[i]);
}

#if defined(__AVX512F__)
// A float product that Gemm computes by SmallGemm in one block (one thread).
bool PackedGemmApplies(ThreadPool* pool, int64_t m, int64_t n, int64_t k,
                       bool tb) {
  const int64_t parts = pool == nullptr ? 1 : pool->num_threads() + 1;
  return SmallGemmApplies(m, n, k, tb) &&
         (parts == 1 || 2 * m * n * k < (int64_t{1} << 22));
}
#endif

class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t m, n, k;
    OP_REQUIRES_OK(ctx, MatMulDims(a, b, transpose_a_, transpose_b_, "In[0]",
                                   "In[1]", &m, &n, &k));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    OP_REQUIRES_OK(
        ctx,
        DispatchType<TW_REAL_TYPES, bfloat16, TW_COMPLEX_TYPES>(
            a.dtype(), [&](auto tag) {
              using T = decltype(tag);
              if constexpr (std::is_same_v<T, bfloat16>) {
                // Accumulated in float, rounded once (TensorFlow's CPU kernel).
                std::vector<float> fa = WidenToFloat(a), fb = WidenToFloat(b);
                std::vector<float> fo(m * n);
                Gemm<float>(ctx->intra_op_pool(), fa.data(), fb.data(),
                            fo.data(), m, n, k, transpose_a_, transpose_b_);
                NarrowFromFloat(fo, out->data<T>());
              } else if constexpr (std::is_same_v<T, complex64> ||
                                   std::is_same_v<T, complex128>) {
                // MatMul's transposes do not conjugate (TensorFlow's).
                using blas::ComplexOp;
                ComplexMatMul<T>(
                    a.data<T>(), b.data<T>(), out->data<T>(), m, n, k,
                    transpose_a_ ? ComplexOp::kTranspose : ComplexOp::kNone,
                    transpose_b_ ? ComplexOp::kTranspose : ComplexOp::kNone);
              } else {
#if defined(__AVX512F__)
                if constexpr (std::is_same_v<T, float>) {
                  if (auto packed = PackedFor(ctx, b, m, n, k)) {
                    SmallGemmPacked(transpose_a_, m, n, k, a.data<float>(),
                                    *packed, out->data<float>());
                    return Status::OK();
                  }
                }
#endif
                Gemm<T>(ctx->intra_op_pool(), a.data<T>(), b.data<T>(),
                        out->data<T>(), m, n, k, transpose_a_, transpose_b_);
              }
              return Status::OK();
            }));
  }

 private:
#if defined(__AVX512F__)
  // B packed for SmallGemm, kept while the same B comes again: a loop's
  // invariant weight, multiplied in every iteration, is packed once. The
  // packed copy holds B's buffer, so that buffer is neither reused nor
  // written in place (a variable update copies it: resource.h) while packed;
  // a borrowed buffer (a fed array) is never kept, nor a B over 32 MiB (the
  // copy would double it). B is packed on its second use in a step.
  std::shared_ptr<const PackedB> PackedFor(OpKernelContext* ctx,
                                           const Tensor& b, int64_t m,
                                           int64_t n, int64_t k) {
    if (!PackedGemmApplies(ctx->intra_op_pool(), m, n, k, transpose_b_) ||
        !b.buffer() || !b.buffer()->owned() ||
        n * k * static_cast<int64_t>(sizeof(float)) > (int64_t{32} << 20)) {
      return nullptr;
    }
    const float* data = b.data<float>();
    std::lock_guard<std::mutex> lock(mu_);
    if (packed_ != nullptr && packed_->buffer == b.buffer() &&
        packed_->data == data && packed_->k == k && packed_->n == n) {
      return packed_;
    }
    if (last_b_ != data || last_step_ != ctx->step_id()) {
      last_b_ = data;
      last_step_ = ctx->step_id();
      return nullptr;
    }
    packed_ = PackB(b, transpose_b_, k, n);
    return packed_;
  }

  std::mutex mu_;
  std::shared_ptr<const PackedB> packed_;
  const float* last_b_ = nullptr;
  int64_t last_step_ = -1;
#endif
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

REGISTER_KERNEL(KernelDef("MatMul"), MatMulOp);

}  // namespace
}  // namespace tensorweave
