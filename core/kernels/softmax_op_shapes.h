// What the CPU and GPU kernels of Softmax, LogSoftmax, their gradients and the
// cross-entropy ops share: the checks of their inputs and the allocation of
// their outputs, so that both give the same errors.
#ifndef TENSORWEAVE_CORE_KERNELS_SOFTMAX_OP_SHAPES_H_
#define TENSORWEAVE_CORE_KERNELS_SOFTMAX_OP_SHAPES_H_

#include <cstdint>

#include "core/framework/op_kernel.h"

namespace tensorweave {

// Softmax / LogSoftmax(logits): the output (like logits) and the class count.
inline Status PrepareSoftmax(OpKernelContext* ctx, Tensor** out,
                             int64_t* cols) {
  const Tensor& logits = ctx->input(0);
  if (logits.rank() < 1) {
    return errors::InvalidArgument("logits must have rank >= 1, got shape ",
                                   logits.shape().ToString());
  }
  TW_RETURN_IF_ERROR(ctx->allocate_output(0, logits.shape(), out));
  *cols = logits.dim(logits.rank() - 1);
  return Status::OK();
}

// SoftmaxGrad / LogSoftmaxGrad(gradients, softmax or logsoftmax).
inline Status PrepareSoftmaxGrad(OpKernelContext* ctx, bool log, Tensor** out,
                                 int64_t* cols) {
  const Tensor& grad = ctx->input(0);
  const Tensor& y = ctx->input(1);
  if (grad.shape() != y.shape() || y.rank() < 1) {
    return errors::InvalidArgument(
        "gradients and ", log ? "logsoftmax" : "softmax",
        " must have one shape of rank >= 1, got ", grad.shape().ToString(),
        " and ", y.shape().ToString());
  }
  TW_RETURN_IF_ERROR(ctx->allocate_output(0, y.shape(), out));
  *cols = y.dim(y.rank() - 1);
  return Status::OK();
}

// SoftmaxCrossEntropyWithLogits(logits, labels) (sparse: labels are class
// indices): the loss and backprop outputs, the batch and class counts. The
// label values are checked by the kernels.
inline Status PrepareXent(OpKernelContext* ctx, bool sparse, Tensor** loss,
                          Tensor** backprop, int64_t* rows, int64_t* cols) {
  const Tensor& logits = ctx->input(0);
  const Tensor& labels = ctx->input(1);
  if (logits.rank() != 2) {
    return errors::InvalidArgument("logits must be 2-D [batch, classes], got ",
                                   logits.shape().ToString());
  }
  *rows = logits.dim(0);
  *cols = logits.dim(1);
  if (sparse && (labels.rank() != 1 || labels.dim(0) != *rows)) {
    return errors::InvalidArgument("labels must be a vector of ", *rows,
                                   " class indices, got shape ",
                                   labels.shape().ToString());
  }
  if (!sparse && labels.shape() != logits.shape()) {
    return errors::InvalidArgument(
        "logits and labels must have the same shape, got ",
        logits.shape().ToString(), " and ", labels.shape().ToString());
  }
  TW_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({*rows}), loss));
  return ctx->allocate_output(1, logits.shape(), backprop);
}

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_SOFTMAX_OP_SHAPES_H_
