// BiasAdd on the GPU (NHWC and NCHW): value viewed as [outer, C, inner],
// out = value + bias[c], in place in the value when it can be. The
// gradient, BiasAddGrad, is a column reduction and lives in
// reduction_ops.cu with the reduction engine. Shapes and errors as
// core/kernels/bias_op.cc.
#include <cstdint>

#include "core/framework/op_kernel.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"

namespace tensorweave {
namespace gpu {
namespace {

// inner == 1 (NHWC, and NCHW with 1x1 planes): the channel is i % C.
template <typename T>
__global__ void BiasAddKernel(const T* x, const T* b, T* out, int64_t n,
                              int64_t channels, int64_t inner) {
  if (inner == 1) {
    TW_GPU_LOOP(i, n) { out[i] = x[i] + b[i % channels]; }
  } else {
    TW_GPU_LOOP(i, n) { out[i] = x[i] + b[(i / inner) % channels]; }
  }
}

// NHWC with channels a multiple of kPackOf<T>, 16-byte aligned buffers: a
// Pack of x and the Pack of bias it lines up with (32-bit indices).
template <typename T>
__global__ void BiasAddPackKernel(const T* x, const T* b, T* out,
                                  uint32_t packs, uint32_t channel_packs) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < packs;
       i += blockDim.x * gridDim.x) {
    const Pack<T> a = reinterpret_cast<const Pack<T>*>(x)[i];
    const Pack<T> c = reinterpret_cast<const Pack<T>*>(b)[i % channel_packs];
    Pack<T> r;
#pragma unroll
    for (int j = 0; j < kPackOf<T>; ++j) r.v[j] = a.v[j] + c.v[j];
    reinterpret_cast<Pack<T>*>(out)[i] = r;
  }
}

class GpuBiasAddOp : public OpKernel {
 public:
  explicit GpuBiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("data_format", &data_format_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    const TensorShape& shape = value.shape();
    const bool nchw = data_format_ == "NCHW";
    OP_REQUIRES(ctx, shape.rank() >= (nchw ? 3 : 2),
                errors::InvalidArgument("value must be at least rank ",
                                        nchw ? 3 : 2, " for ", data_format_,
                                        ", got shape ", shape.ToString()));
    const int dim = nchw ? shape.rank() - 3 : shape.rank() - 1;
    int64_t inner = 1;
    for (int i = dim + 1; i < shape.rank(); ++i) inner *= shape.dim(i);
    const int64_t channels = shape.dim(dim);
    OP_REQUIRES(ctx, bias.rank() == 1 && bias.dim(0) == channels,
                errors::InvalidArgument("bias must be a vector of ", channels,
                                        " elements (the channel dim of value ",
                                        shape.ToString(), "), got shape ",
                                        bias.shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx,
                   ctx->forward_input_or_allocate_output(0, 0, shape, &out));
    const int64_t n = value.num_elements();
    if (n == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double, int64_t>(value.dtype(), [&](auto t) {
          using T = decltype(t);
          constexpr int k = kPackOf<T>;
          if (inner == 1 && channels % k == 0 && n / k <= UINT32_MAX &&
              PackAligned<T>(value.data<T>()) &&
              PackAligned<T>(bias.data<T>()) &&
              PackAligned<T>(out->data<T>())) {
            BiasAddPackKernel<T>
                <<<BlocksFor(n / k), kThreadsPerBlock, 0, device->stream()>>>(
                    value.data<T>(), bias.data<T>(), out->data<T>(),
                    static_cast<uint32_t>(n / k),
                    static_cast<uint32_t>(channels / k));
            return CheckLaunch(device, "BiasAddPackKernel");
          }
          BiasAddKernel<T>
              <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                  value.data<T>(), bias.data<T>(), out->data<T>(), n, channels,
                  inner);
          return CheckLaunch(device, "BiasAddKernel");
        }));
  }

 private:
  std::string data_format_;
};

REGISTER_KERNEL(KernelDef("BiasAdd").Device("GPU").TypeConstraint(
                    "T", {DT_FLOAT, DT_DOUBLE, DT_INT64}),
                GpuBiasAddOp);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
