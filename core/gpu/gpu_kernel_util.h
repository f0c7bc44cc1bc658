// What GPU kernels share: error checks that name the node, launch shapes,
// and the grid-stride loop. Included by the .cu files of core/gpu/kernels.
#ifndef TENSORWEAVE_CORE_GPU_GPU_KERNEL_UTIL_H_
#define TENSORWEAVE_CORE_GPU_GPU_KERNEL_UTIL_H_

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/framework/op_kernel.h"
#include "core/gpu/gpu_device.h"

namespace tensorweave {
namespace gpu {

// Internal naming what failed and CUDA's message; OK for cudaSuccess.
Status CudaStatus(cudaError_t error, const char* what);

// After a kernel launch: a launch error (bad configuration, no kernel image
// for this GPU) is the kernel's failure. With TW_GPU_SYNC_CHECK=1 in the
// environment, also waits for the kernel, so that a fault inside it is
// reported by the node that caused it rather than by the step's end.
Status CheckLaunch(GpuDevice* device, const char* kernel_name);

inline constexpr int kThreadsPerBlock = 256;
// Blocks for a grid-stride loop over n elements (at least 1, capped so
// that very large n loop rather than launch huge grids).
inline int BlocksFor(int64_t n, int threads = kThreadsPerBlock) {
  int64_t blocks = (n + threads - 1) / threads;
  return static_cast<int>(
      std::max<int64_t>(1, std::min<int64_t>(blocks, 65535 * 8)));
}

// Calls fn(U{}) with the unsigned integer type of `dtype`'s element size:
// kernels that only move elements (gather, slice, pad...) move their bits.
template <typename Fn>
Status DispatchBySize(DataType dtype, Fn&& fn) {
  switch (DataTypeSize(dtype)) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
    default:
      return errors::Unimplemented(
          "the GPU kernels that move elements do not "
          "support ",
          DataTypeName(dtype));
  }
}

}  // namespace gpu
}  // namespace tensorweave

#ifdef __CUDACC__
#define TW_GPU_LOOP(i, n)                                               \
  for (int64_t i =                                                      \
           blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; \
       i < (n); i += static_cast<int64_t>(blockDim.x) * gridDim.x)
#endif

#ifdef __CUDACC__
namespace tensorweave {
namespace gpu {
// 16 bytes of T, loaded and stored as one vector access: element-wise
// kernels over 4- and 8-byte types move kPackOf<T> elements per thread
// through it (the memory system needs the wider accesses to reach its
// bandwidth) where their buffers are 16-byte aligned.
template <typename T>
struct alignas(16) Pack {
  T v[16 / sizeof(T)];
};
template <typename T>
inline constexpr int kPackOf = 16 / sizeof(T);
template <typename T>
inline bool PackAligned(const void* p) {
  return (sizeof(T) == 4 || sizeof(T) == 8) &&
         reinterpret_cast<uintptr_t>(p) % 16 == 0;
}
}  // namespace gpu
}  // namespace tensorweave
#endif

// In Compute: a CUDA call that fails ends the kernel with its error.
#define OP_REQUIRES_CUDA_OK(ctx, expr) \
  OP_REQUIRES_OK(ctx, ::tensorweave::gpu::CudaStatus((expr), #expr))
// After launching `name<<<...>>>` on the device's stream.
#define OP_REQUIRES_LAUNCH_OK(ctx, name)               \
  OP_REQUIRES_OK(ctx, ::tensorweave::gpu::CheckLaunch( \
                          ::tensorweave::gpu::GetGpuDevice(ctx), name))

#endif  // TENSORWEAVE_CORE_GPU_GPU_KERNEL_UTIL_H_
