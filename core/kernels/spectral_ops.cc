// Kernels of the complex-number ops (Complex, Real, Imag, Conj, Angle,
// ComplexAbs) and of the FFT family. The transforms run in double precision
// on the plans of fft.h, one axis at a time.
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "core/kernels/cwise_ops.h"
#include "core/kernels/fft.h"

namespace tensorweave {
namespace {

using cd = std::complex<double>;

bool IsRealComplexPair(DataType real, DataType complex) {
  return (real == DT_FLOAT && complex == DT_COMPLEX64) ||
         (real == DT_DOUBLE && complex == DT_COMPLEX128);
}

struct ComplexFunctor : SameTypeFunctor {
  template <typename T>
  using Output = std::complex<T>;
  template <typename T>
  static std::complex<T> Apply(T re, T im) {
    return {re, im};
  }
};

template <typename T>
using RealOf = typename T::value_type;

// Real, Imag, Angle and ComplexAbs: a complex x to its real dtype.
#define TW_TO_REAL_FUNCTOR(Name, expr) \
  struct Name : SameTypeFunctor {      \
    template <typename T>              \
    using Output = RealOf<T>;          \
    template <typename T>              \
    static RealOf<T> Apply(T x) {      \
      return expr;                     \
    }                                  \
  }
TW_TO_REAL_FUNCTOR(RealFunctor, x.real());
TW_TO_REAL_FUNCTOR(ImagFunctor, x.imag());
TW_TO_REAL_FUNCTOR(AngleFunctor, std::arg(x));
TW_TO_REAL_FUNCTOR(ComplexAbsFunctor, std::abs(x));
#undef TW_TO_REAL_FUNCTOR

struct ConjFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x) {
    return std::conj(x);
  }
};

// Transforms buf, of shape [outer..., dims...] (row-major, `batch` rows of
// the product of dims), along dims[axis].
void TransformAxis(std::vector<cd>* buf, int64_t batch,
                   const std::vector<int64_t>& dims, int axis, bool inverse) {
  const int64_t n = dims[axis];
  if (n <= 1 || buf->empty()) return;
  int64_t inner = 1, outer = batch;
  for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
  for (int d = 0; d < axis; ++d) outer *= dims[d];
  const fft::Plan plan(n, inverse);
  std::vector<cd> row(n);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      cd* base = buf->data() + o * n * inner + i;
      for (int64_t k = 0; k < n; ++k) row[k] = base[k * inner];
      plan.Run(row.data());
      for (int64_t k = 0; k < n; ++k) base[k * inner] = row[k];
    }
  }
}

// Copies src (shape [batch, src_dims...]) into dst (shape [batch,
// dst_dims...]), cropping or zero-padding each of the inner dims.
template <typename S, typename D>
void CopyCropPad(const S* src, const std::vector<int64_t>& src_dims, D* dst,
                 const std::vector<int64_t>& dst_dims, int64_t batch) {
  const int r = static_cast<int>(src_dims.size());
  int64_t src_size = 1, dst_size = 1;
  for (int d = 0; d < r; ++d) {
    src_size *= src_dims[d];
    dst_size *= dst_dims[d];
  }
  std::fill(dst, dst + batch * dst_size, D{});
  if (src_size == 0) return;
  std::vector<int64_t> idx(r);
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < dst_size; ++i) {
      int64_t rest = i, s = 0, stride = 1;
      bool inside = true;
      for (int d = r - 1; d >= 0; --d) {
        const int64_t k = rest % dst_dims[d];
        rest /= dst_dims[d];
        if (k >= src_dims[d]) inside = false;
        s += k * stride;
        stride *= src_dims[d];
      }
      if (inside) dst[b * dst_size + i] = D(src[b * src_size + s]);
    }
  }
}

Status CheckRank(const Tensor& in, int rank) {
  if (in.rank() < rank) {
    return errors::InvalidArgument("Input must have rank of at least ", rank,
                                   " but got: ", in.shape().ToString());
  }
  return Status::OK();
}

template <int kRank, bool kInverse>
class FftOp : public OpKernel {
 public:
  explicit FftOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckRank(in, kRank));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int r0 = in.rank() - kRank;
    std::vector<int64_t> dims;
    int64_t batch = 1, size = 1;
    for (int d = 0; d < in.rank(); ++d) {
      if (d < r0) {
        batch *= in.dim(d);
      } else {
        dims.push_back(in.dim(d));
        size *= in.dim(d);
      }
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_COMPLEX_TYPES>(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const int64_t n = in.num_elements();
          std::vector<cd> buf(in.data<T>(), in.data<T>() + n);
          for (int a = 0; a < kRank; ++a) {
            TransformAxis(&buf, batch, dims, a, kInverse);
          }
          const double scale = kInverse && size > 0 ? 1.0 / size : 1.0;
          T* o = out->data<T>();
          for (int64_t i = 0; i < n; ++i) o[i] = T(buf[i] * scale);
          return Status::OK();
        }));
  }
};

// Reads fft_length: a vector of kRank non-negative lengths.
Status ReadFftLength(const Tensor& t, int rank, std::vector<int64_t>* out) {
  if (t.rank() != 1 || t.dim(0) != rank) {
    return errors::InvalidArgument("fft_length must be a vector of length ",
                                   rank, ", got shape ", t.shape().ToString());
  }
  out->clear();
  for (int i = 0; i < rank; ++i) {
    const int64_t n = t.data<int32_t>()[i];
    if (n < 0) {
      return errors::InvalidArgument("fft_length must be non-negative, got ",
                                     n);
    }
    out->push_back(n);
  }
  return Status::OK();
}

template <int kRank, bool kForward>
class RealFftOp : public OpKernel {
 public:
  explicit RealFftOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckRank(in, kRank));
    std::vector<int64_t> len;
    OP_REQUIRES_OK(ctx, ReadFftLength(ctx->input(1), kRank, &len));
    const int r0 = in.rank() - kRank;
    int64_t batch = 1;
    std::vector<int64_t> in_dims;
    TensorShape out_shape;
    for (int d = 0; d < r0; ++d) {
      batch *= in.dim(d);
      out_shape.AddDim(in.dim(d));
    }
    for (int d = r0; d < in.rank(); ++d) in_dims.push_back(in.dim(d));
    // The complex side's dims: fft_length with the last one halved.
    std::vector<int64_t> half = len;
    half.back() = len.back() / 2 + 1;
    for (int64_t n : kForward ? half : len) out_shape.AddDim(n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    int64_t full_size = 1, half_size = 1;
    for (int d = 0; d < kRank; ++d) {
      full_size *= len[d];
      half_size *= half[d];
    }
    const DataType real_type = kForward ? in.dtype() : out->dtype();
    const DataType complex_type = kForward ? out->dtype() : in.dtype();
    OP_REQUIRES(ctx, IsRealComplexPair(real_type, complex_type),
                errors::InvalidArgument(
                    "Treal and Tcomplex must be float/complex64 or "
                    "double/complex128, got ",
                    DataTypeName(real_type), "/", DataTypeName(complex_type)));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(real_type, [&](auto tag) {
          using R = decltype(tag);
          using C = std::complex<R>;
          if constexpr (kForward) {
            std::vector<cd> buf(batch * full_size);
            CopyCropPad(in.data<R>(), in_dims, buf.data(), len, batch);
            for (int a = 0; a < kRank; ++a) {
              TransformAxis(&buf, batch, len, a, false);
            }
            CopyCropPad(buf.data(), len, out->data<C>(), half, batch);
          } else {
            std::vector<cd> buf(batch * half_size);
            CopyCropPad(in.data<C>(), in_dims, buf.data(), half, batch);
            for (int a = 0; a + 1 < kRank; ++a) {
              TransformAxis(&buf, batch, half, a, true);
            }
            // The last axis: each row's Hermitian extension to length n.
            const int64_t n = len.back(), h = half.back();
            const int64_t rows = batch * half_size / h;
            const fft::Plan plan(n, true);
            std::vector<cd> row(n);
            R* o = out->data<R>();
            const double scale = 1.0 / static_cast<double>(full_size);
            for (int64_t r = 0; r < rows; ++r) {
              const cd* src = buf.data() + r * h;
              for (int64_t k = 0; k < n; ++k) {
                row[k] = k < h ? src[k] : std::conj(src[n - k]);
              }
              plan.Run(row.data());
              for (int64_t k = 0; k < n; ++k) {
                o[r * n + k] = static_cast<R>(row[k].real() * scale);
              }
            }
          }
          return Status::OK();
        }));
  }
};

// Complex, Real, Imag, Angle and ComplexAbs for the dtype pairs TensorFlow
// registers (float/complex64, double/complex128): a node asking for another
// pair (Tout float of a complex128) is an error when its kernel is made, not
// a write of doubles into a buffer of floats.
template <typename Base, bool kToComplex>
class PairedDtypeOp : public Base {
 public:
  explicit PairedDtypeOp(OpKernelConstruction* ctx) : Base(ctx) {
    const DataType in = ctx->node().input_type(0);
    const DataType out = ctx->node().output_type(0);
    if (!(kToComplex ? IsRealComplexPair(in, out)
                     : IsRealComplexPair(out, in))) {
      ctx->SetStatus(errors::InvalidArgument(
          ctx->node().type_string(), " of ", DataTypeName(in), " cannot give ",
          DataTypeName(out), ": the pairs are float/complex64 and ",
          "double/complex128"));
    }
  }
};

template <typename Functor>
using ToRealOp = PairedDtypeOp<UnaryOp<Functor, TW_COMPLEX_TYPES>, false>;

}  // namespace

REGISTER_KERNEL(KernelDef("Complex"),
                PairedDtypeOp<BinaryOp<ComplexFunctor, float, double>, true>);
REGISTER_KERNEL(KernelDef("Real"), ToRealOp<RealFunctor>);
REGISTER_KERNEL(KernelDef("Imag"), ToRealOp<ImagFunctor>);
REGISTER_KERNEL(KernelDef("Angle"), ToRealOp<AngleFunctor>);
REGISTER_KERNEL(KernelDef("ComplexAbs"), ToRealOp<ComplexAbsFunctor>);
REGISTER_KERNEL(KernelDef("Conj"), UnaryOp<ConjFunctor, TW_COMPLEX_TYPES>);

#define TW_FFT_KERNELS(Suffix, Rank)                                \
  REGISTER_KERNEL(KernelDef("FFT" Suffix), FftOp<Rank, false>);     \
  REGISTER_KERNEL(KernelDef("IFFT" Suffix), FftOp<Rank, true>);     \
  REGISTER_KERNEL(KernelDef("RFFT" Suffix), RealFftOp<Rank, true>); \
  REGISTER_KERNEL(KernelDef("IRFFT" Suffix), RealFftOp<Rank, false>)
TW_FFT_KERNELS("", 1);
TW_FFT_KERNELS("2D", 2);
TW_FFT_KERNELS("3D", 3);
#undef TW_FFT_KERNELS

}  // namespace tensorweave
