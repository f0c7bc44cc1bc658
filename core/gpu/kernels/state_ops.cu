// Variables on the GPU: Assign, AssignAdd and AssignSub. (VariableV2 and
// IsVariableInitialized are the CPU kernels, registered for the GPU in
// core/kernels/variable_ops.cc: the variable's tensor lives in device memory
// because Assign writes it there.)
//
// Assign copies INTO the variable's buffer (device to device, on the
// stream) whenever the variable already has one of the value's shape and
// dtype and no reader's snapshot shares it: the variable's address then
// stays the same from step to step, which a captured CUDA graph of the step
// relies on. Otherwise it adopts the value's buffer (nobody else holds it)
// or writes a new one (copy on write, as the CPU kernel).
#include <mutex>

#include "core/framework/op_kernel.h"
#include "core/framework/resource.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"

namespace tensorweave {
namespace gpu {
namespace {

// A device-to-device copy of `src` into `dst` (same byte size) on the stream.
Status CopyOnDevice(GpuDevice* device, const Tensor& src, Tensor* dst) {
  if (src.num_bytes() == 0) return Status::OK();
  return CudaStatus(
      cudaMemcpyAsync(dst->raw_data(), src.raw_data(), src.num_bytes(),
                      cudaMemcpyDeviceToDevice, device->stream()),
      "cudaMemcpyAsync (device to device)");
}

class AssignGpuOp : public OpKernel {
 public:
  explicit AssignGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("validate_shape", &validate_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    const Tensor& value = ctx->input(1);
    GpuDevice* device = GetGpuDevice(ctx);
    {
      std::lock_guard<std::mutex> lock(*var->mu());
      if (validate_shape_) {
        OP_REQUIRES(ctx, var->shape().IsCompatibleWith(value.shape()),
                    errors::InvalidArgument(
                        "Assign requires shapes of both tensors to match. "
                        "lhs shape= ",
                        var->shape().ToString(),
                        " rhs shape= ", value.shape().ToString()));
      }
      Tensor* current = var->tensor();
      if (current->valid() && current->BufferUniquelyOwned() &&
          current->shape() == value.shape() &&
          current->dtype() == value.dtype()) {
        // Into the variable's own buffer: its address stays stable.
        OP_REQUIRES_OK(ctx, CopyOnDevice(device, value, current));
      } else if (value.BufferUniquelyOwned()) {
        *current = value;  // nobody else sees this buffer: adopt it
      } else {
        Tensor copy;
        OP_REQUIRES_OK(ctx,
                       ctx->allocate_temp(value.dtype(), value.shape(), &copy));
        OP_REQUIRES_OK(ctx, CopyOnDevice(device, value, &copy));
        *current = std::move(copy);
      }
    }
    ctx->set_output_ref(0, var);
  }

 private:
  bool validate_shape_ = true;
};

template <typename T, bool kAdd>
__global__ void AssignUpdateKernel(const T* a, const T* b, T* out, int64_t n) {
  TW_GPU_LOOP(i, n) {
    if constexpr (std::is_integral_v<T>) {
      // Wrapping arithmetic, as the CPU kernel (wrapping_arithmetic.h).
      using U = std::make_unsigned_t<T>;
      out[i] =
          static_cast<T>(kAdd ? static_cast<U>(a[i]) + static_cast<U>(b[i])
                              : static_cast<U>(a[i]) - static_cast<U>(b[i]));
    } else {
      out[i] = kAdd ? a[i] + b[i] : a[i] - b[i];
    }
  }
}

template <bool kAdd>
class AssignUpdateGpuOp : public OpKernel {
 public:
  explicit AssignUpdateGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    const Tensor& value = ctx->input(1);
    GpuDevice* device = GetGpuDevice(ctx);
    {
      std::lock_guard<std::mutex> lock(*var->mu());
      Tensor* current = var->tensor();
      OP_REQUIRES(ctx, current->valid(),
                  errors::FailedPrecondition(
                      "Attempting to use uninitialized value ", var->name()));
      OP_REQUIRES(
          ctx, current->shape() == value.shape(),
          errors::InvalidArgument("Must have the same shape: the variable is ",
                                  current->shape().ToString(), ", the update ",
                                  value.shape().ToString()));
      OP_REQUIRES(ctx, current->dtype() == value.dtype(),
                  errors::InvalidArgument(
                      "Must have the same dtype: the variable is ",
                      DataTypeName(current->dtype()), ", the update ",
                      DataTypeName(value.dtype())));
      // Readers hold snapshots of the current buffer: write a new one then.
      // (Asked before `target` takes a reference of its own.)
      const bool shared = !current->BufferUniquelyOwned();
      Tensor target = *current;
      if (shared) {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(current->dtype(),
                                               current->shape(), &target));
      }
      const int64_t n = value.num_elements();
      if (n > 0) {
        OP_REQUIRES_OK(
            ctx,
            DispatchType<float, double, int64_t>(
                value.dtype(), [&](auto tag) -> Status {
                  using T = decltype(tag);
                  AssignUpdateKernel<T, kAdd>
                      <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                          current->data<T>(), value.data<T>(), target.data<T>(),
                          n);
                  return CheckLaunch(device, "AssignUpdateKernel");
                }));
      }
      *current = std::move(target);
    }
    ctx->set_output_ref(0, var);
  }
};

#define TW_GPU_VAR_TYPES \
  { DT_FLOAT, DT_DOUBLE, DT_INT64 }
REGISTER_KERNEL(KernelDef("Assign")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                AssignGpuOp);
REGISTER_KERNEL(KernelDef("AssignAdd")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_VAR_TYPES),
                AssignUpdateGpuOp<true>);
REGISTER_KERNEL(KernelDef("AssignSub")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_VAR_TYPES),
                AssignUpdateGpuOp<false>);
#undef TW_GPU_VAR_TYPES

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
