// Shape, Reshape and Cast kernels.
#include <complex>
#include <limits>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

class ShapeOp : public OpKernel {
 public:
  explicit ShapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& shape = ctx->input(0).shape();
    Tensor* out;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({shape.rank()}), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<int32_t, int64_t>(out->dtype(), [&](auto tag) {
          using T = decltype(tag);
          for (int i = 0; i < shape.rank(); ++i) {
            if (std::is_same_v<T, int32_t> && shape.dim(i) > INT32_MAX) {
              return errors::InvalidArgument("dimension ", i, " of size ",
                                             shape.dim(i),
                                             " does not fit in int32; use "
                                             "out_type=int64");
            }
            out->data<T>()[i] = static_cast<T>(shape.dim(i));
          }
          return Status::OK();
        }));
  }
};

class ReshapeOp : public OpKernel {
 public:
  explicit ReshapeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &dims));
    int unknown = -1;
    int64_t product = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] == -1) {
        OP_REQUIRES(ctx, unknown < 0,
                    errors::InvalidArgument("only one input size may be -1"));
        unknown = static_cast<int>(i);
      } else {
        OP_REQUIRES(ctx, dims[i] >= 0,
                    errors::InvalidArgument("size ", i,
                                            " must be "
                                            "non-negative, not ",
                                            dims[i]));
        OP_REQUIRES(ctx, MultiplyWithoutOverflow(product, dims[i], &product),
                    errors::InvalidArgument(
                        "requested shape ", TensorShape(dims).ToString(),
                        " has more than 2**63 - 1 elements"));
      }
    }
    const int64_t n = input.num_elements();
    if (unknown >= 0) {
      OP_REQUIRES(ctx, product > 0 && n % product == 0,
                  errors::InvalidArgument(
                      "Input to reshape is a tensor with ", n,
                      " values, which cannot be reshaped to ",
                      TensorShape(dims).ToString(), " with one -1"));
      dims[unknown] = n / product;
    }
    TensorShape shape(dims);
    OP_REQUIRES(ctx, product == n || unknown >= 0,
                errors::InvalidArgument("Input to reshape is a tensor with ", n,
                                        " values, but the requested shape has ",
                                        product));
    Tensor out;
    OP_REQUIRES_OK(ctx, input.Reshaped(shape, &out));
    ctx->set_output(0, std::move(out));
  }
};

template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

// A real value converted to D as TensorFlow's Cast does (integers clamp,
// NaN gives 0; half goes through float).
template <typename D>
D FromDouble(double v) {
  if constexpr (std::is_same_v<D, bool>) {
    return v != 0;
  } else if constexpr (kIsReducedFloat<D>) {
    return D(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<D>) {
    if (!(v == v)) return 0;
    if (v <= static_cast<double>(std::numeric_limits<D>::min())) {
      return std::numeric_limits<D>::min();
    }
    if (v >= static_cast<double>(std::numeric_limits<D>::max())) {
      return std::numeric_limits<D>::max();
    }
    return static_cast<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

// Cast from or to a complex dtype: complex to real keeps the real part
// (complex to bool: x != 0), real to complex has a zero imaginary part.
Status CastComplex(const Tensor& x, Tensor* out) {
  return DispatchType<TW_POD_TYPES, TW_COMPLEX_TYPES>(x.dtype(), [&](auto src) {
    using S = decltype(src);
    return DispatchType<TW_POD_TYPES, TW_COMPLEX_TYPES>(
        out->dtype(), [&](auto dst_tag) {
          using D = decltype(dst_tag);
          if constexpr (!IsComplex<S>::value && !IsComplex<D>::value) {
            return errors::Internal("CastComplex of real dtypes");
          }
          const S* in = x.data<S>();
          D* o = out->data<D>();
          for (int64_t i = 0; i < x.num_elements(); ++i) {
            if constexpr (IsComplex<S>::value && IsComplex<D>::value) {
              o[i] = D(in[i]);
            } else if constexpr (IsComplex<S>::value) {
              if constexpr (std::is_same_v<D, bool>) {
                o[i] = in[i] != S(0);
              } else {
                o[i] = FromDouble<D>(static_cast<double>(in[i].real()));
              }
            } else if constexpr (IsComplex<D>::value) {
              using R = typename D::value_type;
              if constexpr (kIsReducedFloat<S>) {
                o[i] = D(static_cast<R>(static_cast<float>(in[i])));
              } else {
                o[i] = D(static_cast<R>(in[i]));
              }
            }
          }
          return Status::OK();
        });
  });
}

class CastOp : public OpKernel {
 public:
  explicit CastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    DataType dst = node().output_type(0);
    if (x.dtype() == dst) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    if (DataTypeIsComplex(x.dtype()) || DataTypeIsComplex(dst)) {
      OP_REQUIRES_OK(ctx, CastComplex(x, out));
      return;
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_POD_TYPES>(x.dtype(), [&](auto src) {
          using S = decltype(src);
          return DispatchType<TW_POD_TYPES>(dst, [&](auto dst_tag) {
            using D = decltype(dst_tag);
            // half and bfloat16 convert through float both ways (as
            // Eigen::half: a double or an int64 is rounded to float first).
            using SF = std::conditional_t<kIsReducedFloat<S>, float, S>;
            const S* in = x.data<S>();
            D* o = out->data<D>();
            for (int64_t i = 0; i < x.num_elements(); ++i) {
              if constexpr (std::is_same_v<D, bool>) {
                o[i] = in[i] != S(0);
              } else if constexpr (kIsReducedFloat<D>) {
                o[i] = D(static_cast<float>(in[i]));
              } else if constexpr (std::is_floating_point_v<SF> &&
                                   std::is_integral_v<D>) {
                // Out-of-range and NaN conversions are undefined in C++; clamp
                // them (NaN gives 0).
                SF v = static_cast<SF>(in[i]);
                if (!(v == v)) {
                  o[i] = 0;
                } else if (v <=
                           static_cast<SF>(std::numeric_limits<D>::min())) {
                  o[i] = std::numeric_limits<D>::min();
                } else if (v >=
                           static_cast<SF>(std::numeric_limits<D>::max())) {
                  o[i] = std::numeric_limits<D>::max();
                } else {
                  o[i] = static_cast<D>(v);
                }
              } else {
                o[i] = static_cast<D>(static_cast<SF>(in[i]));
              }
            }
            return Status::OK();
          });
        }));
  }
};

REGISTER_KERNEL(KernelDef("Shape"), ShapeOp);
REGISTER_KERNEL(KernelDef("Reshape"), ReshapeOp);
REGISTER_KERNEL(KernelDef("Cast"), CastOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("Reshape")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ReshapeOp);
// Other dtypes: the same kernel relabels the device buffer (no copy); only
// the shape is read on the host.
REGISTER_KERNEL(KernelDef("Reshape")
                    .Device("GPU")
                    .TypeConstraint("T",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL})
                    .HostMemoryInput(1),
                ReshapeOp);
// Shape reads only its input's shape: the input stays in device memory.
REGISTER_KERNEL(KernelDef("Shape").Device("GPU").HostMemoryOutput(0), ShapeOp);

}  // namespace
}  // namespace tensorweave
