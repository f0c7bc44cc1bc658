// Kernels of the control-flow primitives. They only forward values: which
// frame and iteration an output goes to, and which outputs are dead, is the
// executor's work (core/runtime/executor.cc).
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

void Forward(OpKernelContext* ctx, int input, int output) {
  if (Var* ref = ctx->input_ref(input)) {
    ctx->set_output_ref(output, ref);
  } else {
    ctx->set_output(output, ctx->input(input));
  }
}

Status ScalarPredicate(const Tensor& pred, bool* value) {
  if (pred.shape().rank() != 0) {
    return errors::InvalidArgument(
        "The second input must be a scalar, but it has shape ",
        pred.shape().ToString());
  }
  *value = pred.data<bool>()[0];
  return Status::OK();
}

// Enter, Exit, NextIteration (and their Ref forms) forward their input.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { Forward(ctx, 0, 0); }
};

// Sets output_true or output_false; the other stays unset: dead.
class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    bool pred;
    Status s = ScalarPredicate(ctx->input(1), &pred);
    if (!s.ok()) return ctx->SetStatus(s);
    Forward(ctx, 0, pred ? 1 : 0);
  }
};

// Runs once an input is live (the executor never runs it otherwise) and
// forwards the first live one.
class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (ctx->input(i).valid() || ctx->input_ref(i) != nullptr) {
        Forward(ctx, i, 0);
        ctx->set_output(1, Tensor::Scalar<int32_t>(i));
        return;
      }
    }
    ctx->SetStatus(errors::Internal("Merge ran with no live input"));
  }
};

class LoopCondOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(0);
    if (pred.shape().rank() != 0) {
      return ctx->SetStatus(errors::InvalidArgument(
          "LoopCond's input must be a scalar, but it has shape ",
          pred.shape().ToString()));
    }
    ctx->set_output(0, pred);
  }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
};

REGISTER_KERNEL(KernelDef("Switch"), SwitchOp);
REGISTER_KERNEL(KernelDef("RefSwitch"), SwitchOp);
REGISTER_KERNEL(KernelDef("Merge"), MergeOp);
REGISTER_KERNEL(KernelDef("RefMerge"), MergeOp);
REGISTER_KERNEL(KernelDef("Enter"), ForwardOp);
REGISTER_KERNEL(KernelDef("RefEnter"), ForwardOp);
REGISTER_KERNEL(KernelDef("Exit"), ForwardOp);
REGISTER_KERNEL(KernelDef("RefExit"), ForwardOp);
REGISTER_KERNEL(KernelDef("NextIteration"), ForwardOp);
REGISTER_KERNEL(KernelDef("RefNextIteration"), ForwardOp);
REGISTER_KERNEL(KernelDef("LoopCond"), LoopCondOp);
REGISTER_KERNEL(KernelDef("ControlTrigger"), ControlTriggerOp);

// GPU: the same kernels forward the device buffers, so a loop or a cond
// whose values live on the GPU stays in the GPU's partition (no per-iteration
// copies to the host), as TensorFlow's GPU kernels of these ops. The
// predicates (Switch's pred, LoopCond, Merge's value_index) are in host
// memory; int32 and string values (a stack's handle in a loop's gradient)
// are kept on the host entirely, as elsewhere on the GPU.
#define TW_GPU_FORWARD_TYPES \
  { DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT64, DT_BOOL }
#define TW_REGISTER_GPU(OP, KERNEL, DEVICE_MEMORY_DEF)              \
  REGISTER_KERNEL(KernelDef(OP).Device("GPU").TypeConstraint(       \
                      "T", TW_GPU_FORWARD_TYPES) DEVICE_MEMORY_DEF, \
                  KERNEL);                                          \
  REGISTER_KERNEL(KernelDef(OP)                                     \
                      .Device("GPU")                                \
                      .TypeConstraint("T", {DT_INT32, DT_STRING})   \
                      .AllHostMemory(),                             \
                  KERNEL)
TW_REGISTER_GPU("Switch", SwitchOp, .HostMemoryInput(1));
TW_REGISTER_GPU("RefSwitch", SwitchOp, .HostMemoryInput(1));
TW_REGISTER_GPU("Merge", MergeOp, .HostMemoryOutput(1));
TW_REGISTER_GPU("RefMerge", MergeOp, .HostMemoryOutput(1));
TW_REGISTER_GPU("Enter", ForwardOp, );
TW_REGISTER_GPU("RefEnter", ForwardOp, );
TW_REGISTER_GPU("Exit", ForwardOp, );
TW_REGISTER_GPU("RefExit", ForwardOp, );
TW_REGISTER_GPU("NextIteration", ForwardOp, );
TW_REGISTER_GPU("RefNextIteration", ForwardOp, );
#undef TW_REGISTER_GPU
#undef TW_GPU_FORWARD_TYPES
REGISTER_KERNEL(KernelDef("LoopCond").Device("GPU").AllHostMemory(),
                LoopCondOp);
REGISTER_KERNEL(KernelDef("ControlTrigger").Device("GPU"), ControlTriggerOp);

}  // namespace
}  // namespace tensorweave
