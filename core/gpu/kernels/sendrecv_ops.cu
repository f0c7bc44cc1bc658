// GPU registrations of the step's plumbing ops. _Send and _Recv for the GPU
// are the CPU's kernels (core/kernels/sendrecv_ops.cc registers them for
// "GPU" too: the device moves the value, GpuDevice::TransferOut/TransferIn,
// so that the core holds the one copy of their cancellation logic). Here:
// NoOp, which has no inputs or outputs and so never touches GPU memory.
#include "core/framework/op_kernel.h"
#include "core/gpu/gpu_device.h"

namespace tensorweave {
namespace gpu {
namespace {

class NoOpGpu : public OpKernel {
 public:
  explicit NoOpGpu(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {}
};

REGISTER_KERNEL(KernelDef("NoOp").Device(DEVICE_GPU), NoOpGpu);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
