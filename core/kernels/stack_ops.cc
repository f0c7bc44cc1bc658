// Stack kernels: a per-step LIFO of tensors behind a string handle.
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/handle_resource.h"

namespace tensorweave {
namespace {

struct Stack {
  Stack(std::string name, DataType elem_type, int64_t max_size)
      : name(std::move(name)), elem_type(elem_type), max_size(max_size) {}
  const std::string name;
  const DataType elem_type;
  const int64_t max_size;  // < 0: unbounded
  std::mutex mu;
  std::vector<Tensor> elems;  // under mu
  bool closed = false;        // under mu
};

using StackRegistry = HandleRegistry<Stack>;

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("elem_type", &elem_type_));
    std::string stack_name;
    ctx->SetStatus(ctx->GetAttr("stack_name", &stack_name));
    stack_name_ = stack_name.empty() ? ctx->node().name() : stack_name;
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& max_size = ctx->input(0);
    OP_REQUIRES(ctx, max_size.num_elements() == 1,
                errors::InvalidArgument("max_size must be a scalar, got shape ",
                                        max_size.shape().ToString()));
    auto stack = std::make_shared<Stack>(stack_name_, elem_type_,
                                         max_size.data<int32_t>()[0]);
    ctx->set_output(0, StackRegistry::Global()->Create("stack", stack));
  }

 private:
  DataType elem_type_ = DT_INVALID;
  std::string stack_name_;
};

// Looks up the stack of input 0 and checks it is still open.
Status OpenStack(OpKernelContext* ctx, std::shared_ptr<Stack>* stack) {
  TW_RETURN_IF_ERROR(
      StackRegistry::Global()->Lookup(ctx->input(0), "Stack", stack));
  return Status::OK();
}

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Stack> stack;
    OP_REQUIRES_OK(ctx, OpenStack(ctx, &stack));
    const Tensor& elem = ctx->input(1);
    OP_REQUIRES(ctx, elem.dtype() == stack->elem_type,
                errors::InvalidArgument("Stack[", stack->name, "] holds ",
                                        DataTypeName(stack->elem_type),
                                        " elements, but Push got ",
                                        DataTypeName(elem.dtype())));
    {
      std::lock_guard<std::mutex> lock(stack->mu);
      OP_REQUIRES(ctx, !stack->closed,
                  errors::InvalidArgument("Stack[", stack->name,
                                          "] has already been closed."));
      OP_REQUIRES(
          ctx,
          stack->max_size < 0 ||
              static_cast<int64_t>(stack->elems.size()) < stack->max_size,
          errors::InvalidArgument("Stack[", stack->name,
                                  "] overflowed its max_size (",
                                  stack->max_size, ")"));
      stack->elems.push_back(elem);
    }
    ctx->set_output(0, elem);
  }
};

class StackPopOp : public OpKernel {
 public:
  explicit StackPopOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("elem_type", &elem_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Stack> stack;
    OP_REQUIRES_OK(ctx, OpenStack(ctx, &stack));
    OP_REQUIRES(ctx, stack->elem_type == elem_type_,
                errors::InvalidArgument("Stack[", stack->name, "] holds ",
                                        DataTypeName(stack->elem_type),
                                        " elements, but Pop asks for ",
                                        DataTypeName(elem_type_)));
    Tensor elem;
    {
      std::lock_guard<std::mutex> lock(stack->mu);
      OP_REQUIRES(ctx, !stack->closed,
                  errors::InvalidArgument("Stack[", stack->name,
                                          "] has already been closed."));
      OP_REQUIRES(ctx, !stack->elems.empty(),
                  errors::InvalidArgument("Stack[", stack->name,
                                          "] is empty when calling Pop()."));
      elem = std::move(stack->elems.back());
      stack->elems.pop_back();
    }
    ctx->set_output(0, std::move(elem));
  }

 private:
  DataType elem_type_ = DT_INVALID;
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Stack> stack;
    OP_REQUIRES_OK(ctx, OpenStack(ctx, &stack));
    std::vector<Tensor> released;  // freed outside the lock
    std::lock_guard<std::mutex> lock(stack->mu);
    stack->closed = true;
    released.swap(stack->elems);
  }
};

REGISTER_KERNEL(KernelDef("StackV2"), StackOp);
REGISTER_KERNEL(KernelDef("StackPushV2"), StackPushOp);
REGISTER_KERNEL(KernelDef("StackPopV2"), StackPopOp);
REGISTER_KERNEL(KernelDef("StackCloseV2"), StackCloseOp);

// GPU: a loop's gradient keeps its forward values on a stack colocated with
// their producer (control_flow_grad.py, as TF), so a GPU op's stack is on the
// GPU: it holds the device buffers themselves. The handle and max_size are
// in host memory, and int32 elements too, as elsewhere on the GPU.
#define TW_GPU_STACK_TYPES \
  { DT_FLOAT, DT_DOUBLE, DT_HALF, DT_INT64, DT_BOOL }
REGISTER_KERNEL(KernelDef("StackV2").Device("GPU").AllHostMemory(), StackOp);
REGISTER_KERNEL(KernelDef("StackPushV2")
                    .Device("GPU")
                    .TypeConstraint("T", TW_GPU_STACK_TYPES)
                    .HostMemoryInput(0),
                StackPushOp);
REGISTER_KERNEL(KernelDef("StackPushV2")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                StackPushOp);
REGISTER_KERNEL(KernelDef("StackPopV2")
                    .Device("GPU")
                    .TypeConstraint("elem_type", TW_GPU_STACK_TYPES)
                    .HostMemoryInput(0),
                StackPopOp);
REGISTER_KERNEL(KernelDef("StackPopV2")
                    .Device("GPU")
                    .TypeConstraint("elem_type", {DT_INT32})
                    .AllHostMemory(),
                StackPopOp);
REGISTER_KERNEL(KernelDef("StackCloseV2").Device("GPU").AllHostMemory(),
                StackCloseOp);
#undef TW_GPU_STACK_TYPES

}  // namespace
}  // namespace tensorweave
