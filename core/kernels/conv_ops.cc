// Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter kernels (NHWC, HWIO):
// argument checking here, the algorithms in conv_algorithms.cc.
#include "core/kernels/conv_ops.h"

#include <cblas.h>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/runtime/thread_pool.h"

namespace tensorweave {

Status MakeConv2DArgs(const TensorShape& input, const TensorShape& filter,
                      const std::vector<int64_t>& strides,
                      const std::vector<int64_t>& dilations,
                      const std::string& padding, bool depthwise,
                      Conv2DArgs* args, TensorShape* out_shape) {
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
  w.batch = input.dim(0);
  w.in_rows = input.dim(1);
  w.in_cols = input.dim(2);
  w.in_depth = input.dim(3);
  w.window_rows = filter.dim(0);
  w.window_cols = filter.dim(1);
  w.stride_rows = strides[1];
  w.stride_cols = strides[2];
  w.dilation_rows = dilations[1];
  w.dilation_cols = dilations[2];
  Status s = w.Compute(padding);
  if (!s.ok()) {
    return errors::InvalidArgument(s.message(), " (input ", input.ToString(),
                                   ", filter ", filter.ToString(), ")");
  }
  args->out_depth = depthwise ? filter.dim(2) * filter.dim(3) : filter.dim(3);
  *out_shape = TensorShape({w.batch, w.out_rows, w.out_cols, args->out_depth});
  return Status::OK();
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
  // OpenBLAS's own threads would fight the session's pools.
  static const bool blas_single_threaded = [] {
    openblas_set_num_threads(1);
    return true;
  }();
  (void)blas_single_threaded;
  ctx->SetStatus(ctx->GetAttr("strides", &strides_));
  ctx->SetStatus(ctx->GetAttr("padding", &padding_));
  ctx->SetStatus(ctx->GetAttr("dilations", &dilations_));
  std::string data_format;
  ctx->SetStatus(ctx->GetAttr("data_format", &data_format));
  if (!ctx->status().ok()) return;
  ctx->SetStatus(CheckNhwcAttr(strides_, "strides"));
  ctx->SetStatus(CheckNhwcAttr(dilations_, "dilations"));
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

class Conv2DOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv2DArgs args;
    TensorShape out_shape;
    OP_REQUIRES_OK(
        ctx, MakeConv2DArgs(input.shape(), filter.shape(), strides_, dilations_,
                            padding_, false, &args, &out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
                     using T = decltype(t);
                     FastConv2D<T>(ctx->intra_op_pool(), args, input.data<T>(),
                                   filter.data<T>(), out->data<T>());
                     return Status::OK();
                   }));
  }
};

class Conv2DBackpropInputOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& filter = ctx->input(1);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape in_shape, out_shape;
    OP_REQUIRES_OK(ctx,
                   ShapeFromSizes(ctx->input(0), "input_sizes", &in_shape));
    Conv2DArgs args;
    OP_REQUIRES_OK(
        ctx, MakeConv2DArgs(in_shape, filter.shape(), strides_, dilations_,
                            padding_, false, &args, &out_shape));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop, out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(filter.dtype(), [&](auto t) {
          using T = decltype(t);
          if (out_shape.num_elements() == 0 || filter.num_elements() == 0) {
            std::fill(out->data<T>(), out->data<T>() + out->num_elements(),
                      T(0));
          } else {
            FastConv2DBackpropInput<T>(ctx->intra_op_pool(), args,
                                       filter.data<T>(), out_backprop.data<T>(),
                                       out->data<T>());
          }
          return Status::OK();
        }));
  }
};

class Conv2DBackpropFilterOp : public ConvOpBase {
 public:
  using ConvOpBase::ConvOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& out_backprop = ctx->input(2);
    TensorShape filter_shape, out_shape;
    OP_REQUIRES_OK(
        ctx, ShapeFromSizes(ctx->input(1), "filter_sizes", &filter_shape));
    Conv2DArgs args;
    OP_REQUIRES_OK(
        ctx, MakeConv2DArgs(input.shape(), filter_shape, strides_, dilations_,
                            padding_, false, &args, &out_shape));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(out_backprop, out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          if (out_shape.num_elements() == 0 ||
              filter_shape.num_elements() == 0) {
            std::fill(out->data<T>(), out->data<T>() + out->num_elements(),
                      T(0));
          } else {
            FastConv2DBackpropFilter<T>(ctx->intra_op_pool(), args,
                                        input.data<T>(), out_backprop.data<T>(),
                                        out->data<T>());
          }
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("Conv2D"), Conv2DOp);
REGISTER_KERNEL(KernelDef("Conv2DBackpropInput"), Conv2DBackpropInputOp);
REGISTER_KERNEL(KernelDef("Conv2DBackpropFilter"), Conv2DBackpropFilterOp);

}  // namespace
}  // namespace tensorweave
