// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter kernels (NHWC, HWIO):
// argument checking here, the algorithms in conv_algorithms.cc.
#include "core/kernels/conv_ops.h"

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

Status MakeConv2DArgs(const TensorShape& input, const TensorShape& filter,
                      const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& dilations,
                      const std::string& padding,
                      const std::vector<int64_t>& explicit_paddings,
                      bool depthwise, Conv2DArgs* args,
                      TensorShape* out_shape) {
  if (input.rank() != 4) {
    return errors::InvalidArgument("input must be 4-D [N,H,W,C], got ",
                                   input.ToString());
  }
  if (filter.rank() != 4) {
    return errors::InvalidArgument("filter must be 4-D [KH,KW,C,M], got ",
                                   filter.ToString());
  }
  if (input.dim(3) != filter.dim(2)) {
    return errors::InvalidArgument(
        "input depth ", input.dim(3), " does not match the filter's ",
        filter.dim(2), " input channels (input ", input.ToString(), ", filter ",
        filter.ToString(), ")");
  }
  Window2D& w = args->w;
  w = MakeWindow2D(input.dim(1), input.dim(2), filter.dim(0), filter.dim(1),
                   strides, dilations);
  w.batch = input.dim(0);
  w.in_depth = input.dim(3);
  Status s = w.Compute(padding, explicit_paddings);
  if (!s.ok()) {
    return errors::InvalidArgument(s.message(), " (input ", input.ToString(),
                                   ", filter ", filter.ToString(), ")");
  }
  args->out_depth = depthwise ? filter.dim(2) * filter.dim(3) : filter.dim(3);
  // Checked: explicit padding can make the output far larger than the input.
  return TensorShape::Build({w.batch, w.out_rows, w.out_cols, args->out_depth},
                            out_shape);
}

// The shape held by an int32 sizes input (input_sizes, filter_sizes).
Status ShapeFromSizes(const Tensor& sizes, const char* what,
                      TensorShape* shape) {
  std::vector<int64_t> dims;
  Status s = ReadIndexVector(sizes, &dims);
  if (!s.ok() || dims.size() != 4) {
    return errors::InvalidArgument(what, " must be a vector of 4 sizes, got ",
                                   sizes.DebugString());
  }
  return TensorShape::Build(dims, shape);
}

ConvOpBase::ConvOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
  ctx->SetStatus(ctx->GetAttr("strides", &strides_));
  ctx->SetStatus(ctx->GetAttr("padding", &padding_));
  ctx->SetStatus(ctx->GetAttr("dilations", &dilations_));
  if (ctx->node().attrs().count("explicit_paddings")) {
    ctx->SetStatus(ctx->GetAttr("explicit_paddings", &explicit_paddings_));
  }
  std::string data_format;
  ctx->SetStatus(ctx->GetAttr("data_format", &data_format));
  if (!ctx->status().ok()) return;
  ctx->SetStatus(CheckNhwcAttr(strides_, "strides"));
  ctx->SetStatus(CheckNhwcAttr(dilations_, "dilations"));
  ctx->SetStatus(CheckExplicitPaddings(padding_, explicit_paddings_));
  if (data_format != "NHWC") {
    ctx->SetStatus(errors::InvalidArgument(
        "only data_format NHWC is supported on CPU, got ", data_format));
  }
}

Status ConvOpBase::CheckOutBackprop(const Tensor& out_backprop,
                                    const TensorShape& expected) const {
  if (out_backprop.shape() != expected) {
    return errors::InvalidArgument(
        "out_backprop has shape ", out_backprop.shape().ToString(),
        " but the convolution's output has shape ", expected.ToString());
  }
  return Status::OK();
}

namespace {

struct Conv2DKernels {
  template <typename T>
  static void Forward(ThreadPool* pool, const Conv2DArgs& args, const T* input,
                      const T* filter, T* out) {
    FastConv2D<T>(pool, args, input, filter, out);
  }
  template <typename T>
  static void BackpropInput(ThreadPool* pool, const Conv2DArgs& args,
                            const T* filter, const T* out_backprop, T* out) {
    FastConv2DBackpropInput<T>(pool, args, filter, out_backprop, out);
  }
  template <typename T>
  static void BackpropFilter(ThreadPool* pool, const Conv2DArgs& args,
                             const T* input, const T* out_backprop, T* out) {
    FastConv2DBackpropFilter<T>(pool, args, input, out_backprop, out);
  }
};

REGISTER_KERNEL(KernelDef("Conv2D"), ConvForwardOp<Conv2DKernels, false>);
REGISTER_KERNEL(KernelDef("Conv2DBackpropInput"),
                ConvBackpropOp<Conv2DKernels, false, true>);
REGISTER_KERNEL(KernelDef("Conv2DBackpropFilter"),
                ConvBackpropOp<Conv2DKernels, false, false>);

}  // namespace
}  // namespace tensorweave
