// Complex-number ops (Complex, Real, Imag, Conj, Angle, ComplexAbs) and the
// FFT family (FFT/IFFT/RFFT/IRFFT and their 2-D and 3-D forms), with
// TensorFlow's names, attrs and type constraints.
#include <string>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ComplexFftShape(InferenceContext* c, int rank) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, rank));
  return c->UnchangedShape();
}

// RFFT* (forward) and IRFFT* (inverse): the input's last `rank` dims become
// fft_length (RFFT: the last one fft_length[-1] / 2 + 1).
Status RealFftShape(InferenceContext* c, int rank, bool forward) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, rank));
  PartialShape len_shape;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &len_shape));
  if (len_shape.dim(0) >= 0 && len_shape.dim(0) != rank) {
    return errors::InvalidArgument("fft_length must be a vector of length ",
                                   rank, ", got shape ", len_shape.ToString());
  }
  const PartialShape& in = c->input(0);
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  const int first = static_cast<int>(dims.size()) - rank;
  const Tensor* len = c->input_value(1);
  for (int i = 0; i < rank; ++i) {
    int64_t n = -1;
    if (len != nullptr && len->num_elements() == rank) {
      n = len->data<int32_t>()[i];
      if (n < 0) {
        return errors::InvalidArgument("fft_length must be non-negative, got ",
                                       n);
      }
      if (forward && i == rank - 1) n = n / 2 + 1;
    }
    dims[first + i] = n;
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Complex")
    .Input("real: T")
    .Input("imag: T")
    .Output("out: Tout")
    .Attr("T: {float, double} = float")
    .Attr("Tout: {complex64, complex128} = complex64")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("real + imag * 1j, element-wise with broadcasting.");

#define TW_COMPLEX_PART_OP(Name, DocText)                                  \
  REGISTER_OP(Name)                                                        \
      .Input("input: T")                                                   \
      .Output("output: Tout")                                              \
      .Attr("T: {complex64, complex128} = complex64")                      \
      .Attr("Tout: {float, double} = float")                               \
      .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); }) \
      .Doc(DocText)

TW_COMPLEX_PART_OP("Real", "The real part of each element.");
TW_COMPLEX_PART_OP("Imag", "The imaginary part of each element.");
TW_COMPLEX_PART_OP("Angle", "The argument atan2(imag, real) of each element.");
#undef TW_COMPLEX_PART_OP

REGISTER_OP("ComplexAbs")
    .Input("x: T")
    .Output("y: Tout")
    .Attr("T: {complex64, complex128} = complex64")
    .Attr("Tout: {float, double} = float")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); })
    .Doc("The modulus sqrt(real^2 + imag^2) of each element.");

REGISTER_OP("Conj")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: {complex64, complex128} = complex64")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); })
    .Doc("The complex conjugate of each element.");

// The FFT family over the Rank innermost dims (Suffix "", "2D", "3D"):
// FFT and IFFT of complex signals, RFFT of a real signal (the non-negative
// frequencies of the last dim: fft_length[-1] / 2 + 1 of them) and IRFFT,
// its inverse.
#define TW_FFT_OPS(Suffix, Rank, Where)                                     \
  REGISTER_OP("FFT" Suffix)                                                 \
      .Input("input: Tcomplex")                                             \
      .Output("output: Tcomplex")                                           \
      .Attr("Tcomplex: {complex64, complex128} = complex64")                \
      .SetShapeFn(                                                          \
          [](InferenceContext* c) { return ComplexFftShape(c, Rank); })     \
      .Doc("The DFT over the " Where ".");                                  \
  REGISTER_OP("IFFT" Suffix)                                                \
      .Input("input: Tcomplex")                                             \
      .Output("output: Tcomplex")                                           \
      .Attr("Tcomplex: {complex64, complex128} = complex64")                \
      .SetShapeFn(                                                          \
          [](InferenceContext* c) { return ComplexFftShape(c, Rank); })     \
      .Doc("The inverse DFT (scaled by 1/n) over the " Where ".");          \
  REGISTER_OP("RFFT" Suffix)                                                \
      .Input("input: Treal")                                                \
      .Input("fft_length: int32")                                           \
      .Output("output: Tcomplex")                                           \
      .Attr("Treal: {float, double} = float")                               \
      .Attr("Tcomplex: {complex64, complex128} = complex64")                \
      .SetShapeFn(                                                          \
          [](InferenceContext* c) { return RealFftShape(c, Rank, true); })  \
      .Doc("The DFT of a real signal over the " Where ".");                 \
  REGISTER_OP("IRFFT" Suffix)                                               \
      .Input("input: Tcomplex")                                             \
      .Input("fft_length: int32")                                           \
      .Output("output: Treal")                                              \
      .Attr("Treal: {float, double} = float")                               \
      .Attr("Tcomplex: {complex64, complex128} = complex64")                \
      .SetShapeFn(                                                          \
          [](InferenceContext* c) { return RealFftShape(c, Rank, false); }) \
      .Doc("The inverse of RFFT" Suffix " (a real signal of fft_length).")
TW_FFT_OPS("", 1, "innermost dim");
TW_FFT_OPS("2D", 2, "2 innermost dims");
TW_FFT_OPS("3D", 3, "3 innermost dims");
#undef TW_FFT_OPS

}  // namespace tensorweave
