// Cast on the GPU between float32, float64, float16, int32, int64 and bool,
// with the CPU kernel's rules (core/kernels/shape_ops.cc): to bool is
// "!= 0"; half converts through float both ways; a float to an integer is
// clamped to the integer's range and NaN gives 0; the same dtype passes the
// input through.
#include <cuda_fp16.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "core/framework/float16.h"
#include "core/framework/op_kernel.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"

namespace tensorweave {
namespace gpu {
namespace {

// How a dtype is stored: half as its 16 bits.
template <typename T>
using Storage = std::conditional_t<std::is_same_v<T, half>, uint16_t, T>;
// What it is read as: half as float.
template <typename T>
using Wide = std::conditional_t<std::is_same_v<T, half>, float, T>;

template <typename S, typename D>
__global__ void CastKernel(const Storage<S>* __restrict__ in,
                           Storage<D>* __restrict__ out, int64_t n) {
  TW_GPU_LOOP(i, n) {
    Wide<S> v;
    if constexpr (std::is_same_v<S, half>) {
      v = __half2float(__ushort_as_half(in[i]));
    } else {
      v = in[i];
    }
    if constexpr (std::is_same_v<D, bool>) {
      out[i] = v != Wide<S>(0);
    } else if constexpr (std::is_same_v<D, half>) {
      out[i] = __half_as_ushort(__float2half_rn(static_cast<float>(v)));
    } else if constexpr (std::is_floating_point_v<Wide<S>> &&
                         std::is_integral_v<D>) {
      constexpr D kMin = sizeof(D) == 8 ? static_cast<D>(INT64_MIN)
                                        : static_cast<D>(INT32_MIN);
      constexpr D kMax = sizeof(D) == 8 ? static_cast<D>(INT64_MAX)
                                        : static_cast<D>(INT32_MAX);
      if (!(v == v)) {
        out[i] = 0;
      } else if (v <= static_cast<Wide<S>>(kMin)) {
        out[i] = kMin;
      } else if (v >= static_cast<Wide<S>>(kMax)) {
        out[i] = kMax;
      } else {
        out[i] = static_cast<D>(v);
      }
    } else {
      out[i] = static_cast<D>(v);
    }
  }
}

class GpuCastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const DataType dst = node().output_type(0);
    if (x.dtype() == dst) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    const int64_t n = x.num_elements();
    if (n == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double, half, int32_t, int64_t,
                          bool>(x.dtype(), [&](auto src) {
          using S = decltype(src);
          return DispatchType<float, double, half, int32_t, int64_t, bool>(
              dst, [&](auto dst_tag) {
                using D = decltype(dst_tag);
                CastKernel<S, D>
                    <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                        reinterpret_cast<const Storage<S>*>(x.raw_data()),
                        reinterpret_cast<Storage<D>*>(out->raw_data()), n);
                return CheckLaunch(device, "CastKernel");
              });
        }));
  }
};

constexpr DataType kCastTypes[] = {DT_FLOAT, DT_DOUBLE, DT_HALF,
                                   DT_INT32, DT_INT64,  DT_BOOL};

REGISTER_KERNEL(
    KernelDef("Cast")
        .Device("GPU")
        .TypeConstraint("SrcT", {std::begin(kCastTypes), std::end(kCastTypes)})
        .TypeConstraint("DstT", {std::begin(kCastTypes), std::end(kCastTypes)}),
    GpuCastOp);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
