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

#define TW_FFT_OP(Name, Rank, DocText)                                  \
  REGISTER_OP(Name)                                                     \
      .Input("input: Tcomplex")                                         \
      .Output("output: Tcomplex")                                       \
      .Attr("Tcomplex: {complex64, complex128} = complex64")            \
      .SetShapeFn(                                                      \
          [](InferenceContext* c) { return ComplexFftShape(c, Rank); }) \
      .Doc(DocText)

TW_FFT_OP("FFT", 1, "The DFT over the innermost dim.");
TW_FFT_OP("IFFT", 1, "The inverse DFT (scaled by 1/n) over the innermost dim.");
TW_FFT_OP("FFT2D", 2, "The 2-D DFT over the 2 innermost dims.");
TW_FFT_OP("IFFT2D", 2, "The inverse 2-D DFT over the 2 innermost dims.");
TW_FFT_OP("FFT3D", 3, "The 3-D DFT over the 3 innermost dims.");
TW_FFT_OP("IFFT3D", 3, "The inverse 3-D DFT over the 3 innermost dims.");
#undef TW_FFT_OP

#define TW_RFFT_OP(Name, Rank, DocText)                                    \
  REGISTER_OP(Name)                                                        \
      .Input("input: Treal")                                               \
      .Input("fft_length: int32")                                          \
      .Output("output: Tcomplex")                                          \
      .Attr("Treal: {float, double} = float")                              \
      .Attr("Tcomplex: {complex64, complex128} = complex64")               \
      .SetShapeFn(                                                         \
          [](InferenceContext* c) { return RealFftShape(c, Rank, true); }) \
      .Doc(DocText)
#define TW_IRFFT_OP(Name, Rank, DocText)                                    \
  REGISTER_OP(Name)                                                         \
      .Input("input: Tcomplex")                                             \
      .Input("fft_length: int32")                                           \
      .Output("output: Treal")                                              \
      .Attr("Treal: {float, double} = float")                               \
      .Attr("Tcomplex: {complex64, complex128} = complex64")                \
      .SetShapeFn(                                                          \
          [](InferenceContext* c) { return RealFftShape(c, Rank, false); }) \
      .Doc(DocText)

TW_RFFT_OP("RFFT", 1, "The DFT of a real signal over the innermost dim.");
TW_RFFT_OP("RFFT2D", 2, "The 2-D DFT of a real signal.");
TW_RFFT_OP("RFFT3D", 3, "The 3-D DFT of a real signal.");
TW_IRFFT_OP("IRFFT", 1, "The inverse of RFFT over the innermost dim.");
TW_IRFFT_OP("IRFFT2D", 2, "The inverse of RFFT2D.");
TW_IRFFT_OP("IRFFT3D", 3, "The inverse of RFFT3D.");
#undef TW_RFFT_OP
#undef TW_IRFFT_OP

}  // namespace tensorweave
