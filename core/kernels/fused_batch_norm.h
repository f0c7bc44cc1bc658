// What the CPU and GPU kernels of FusedBatchNorm and FusedBatchNormGrad
// share: their attrs, the view of x as [outer, C, inner] (NHWC: [N*H*W, C, 1];
// NCHW: [N, C, H*W]), and the checks of their inputs with the allocation of
// their outputs, so that both give the same errors.
#ifndef TENSORWEAVE_CORE_KERNELS_FUSED_BATCH_NORM_H_
#define TENSORWEAVE_CORE_KERNELS_FUSED_BATCH_NORM_H_

#include <cstdint>
#include <string>

#include "core/framework/op_kernel.h"

namespace tensorweave {

// x as [outer, depth, inner]: element (o, c, k) at (o * depth + c) * inner + k.
struct BatchNormLayout {
  int64_t outer = 0, depth = 0, inner = 0;
  int64_t rows() const { return outer * inner; }  // values per channel
  template <typename Fn>
  void ForEach(Fn fn) const {  // fn(flat index, channel)
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < depth; ++c) {
        const int64_t base = (o * depth + c) * inner;
        for (int64_t k = 0; k < inner; ++k) fn(base + k, c);
      }
    }
  }
};

class BatchNormOpBase : public OpKernel {
 public:
  explicit BatchNormOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
    std::string data_format;
    ctx->SetStatus(ctx->GetAttr("data_format", &data_format));
    channels_first_ = data_format == "NCHW";
  }

 protected:
  BatchNormLayout LayoutOf(const Tensor& x) const {
    BatchNormLayout l;
    if (channels_first_) {
      l.outer = x.dim(0);
      l.depth = x.dim(1);
      l.inner = x.dim(2) * x.dim(3);
    } else {
      l.depth = x.dim(3);
      l.outer = l.depth == 0 ? 0 : x.num_elements() / l.depth;
      l.inner = 1;
    }
    return l;
  }

  // FusedBatchNorm(x, scale, offset, mean, variance): checks the inputs and
  // allocates y (like x) and the four statistics (one per channel).
  Status PrepareForward(OpKernelContext* ctx, BatchNormLayout* layout,
                        Tensor* outs[5]) const {
    const Tensor& x = ctx->input(0);
    if (x.rank() != 4) {
      return errors::InvalidArgument("x must be 4-D, got ",
                                     x.shape().ToString());
    }
    *layout = LayoutOf(x);
    const int64_t depth = layout->depth;
    TW_RETURN_IF_ERROR(CheckVector(ctx, 1, "scale", depth));
    TW_RETURN_IF_ERROR(CheckVector(ctx, 2, "offset", depth));
    if (!is_training_) {
      TW_RETURN_IF_ERROR(CheckVector(ctx, 3, "mean", depth));
      TW_RETURN_IF_ERROR(CheckVector(ctx, 4, "variance", depth));
    }
    TW_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &outs[0]));
    for (int i = 1; i < 5; ++i) {
      TW_RETURN_IF_ERROR(
          ctx->allocate_output(i, TensorShape({depth}), &outs[i]));
    }
    return Status::OK();
  }

  // FusedBatchNormGrad(y_backprop, x, scale, reserve_space_1,
  // reserve_space_2): checks the inputs and allocates x_backprop (like x),
  // scale_backprop, offset_backprop and the two empty reserve outputs.
  Status PrepareBackward(OpKernelContext* ctx, BatchNormLayout* layout,
                         Tensor* outs[5]) const {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    if (x.rank() != 4 || dy.shape() != x.shape()) {
      return errors::InvalidArgument(
          "y_backprop and x must have one 4-D shape, got ",
          dy.shape().ToString(), " and ", x.shape().ToString());
    }
    *layout = LayoutOf(x);
    const int64_t depth = layout->depth;
    TW_RETURN_IF_ERROR(CheckVector(ctx, 2, "scale", depth));
    TW_RETURN_IF_ERROR(CheckVector(ctx, 3, "reserve_space_1 (mean)", depth));
    TW_RETURN_IF_ERROR(
        CheckVector(ctx, 4, "reserve_space_2 (variance)", depth));
    TW_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &outs[0]));
    TW_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({depth}), &outs[1]));
    TW_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({depth}), &outs[2]));
    TW_RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({0}), &outs[3]));
    return ctx->allocate_output(4, TensorShape({0}), &outs[4]);
  }

  float epsilon_ = 1e-4f;
  bool is_training_ = true;
  bool channels_first_ = false;

 private:
  static Status CheckVector(OpKernelContext* ctx, int i, const char* what,
                            int64_t depth) {
    const Tensor& v = ctx->input(i);
    if (v.rank() != 1 || v.dim(0) != depth) {
      return errors::InvalidArgument(what, " must be a vector of ", depth,
                                     " elements (the depth of x), got shape ",
                                     v.shape().ToString());
    }
    return Status::OK();
  }
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_FUSED_BATCH_NORM_H_
