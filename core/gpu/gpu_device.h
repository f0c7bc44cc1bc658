// The CUDA GPU device: tensors in the GPU's memory (a caching best-fit
// allocator over cudaMalloc, bfc_allocator.h), one compute stream on which
// every kernel of the device runs in the order the executor dispatches it
// (so a kernel's inputs, produced by earlier dispatches, are ready without
// events, and a freed block may be reused at once by later work), copy
// streams for host<->device transfers ordered against it by events, and
// pinned host staging memory for those copies.
//
// Built only into the GPU library (tools/build_gpu.sh); the core knows the
// device through Device/DeviceBase.
#ifndef TENSORWEAVE_CORE_GPU_GPU_DEVICE_H_
#define TENSORWEAVE_CORE_GPU_GPU_DEVICE_H_

#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

#include "core/framework/op_kernel.h"
#include "core/gpu/bfc_allocator.h"
#include "core/gpu/cuda_libs.h"
#include "core/runtime/device.h"

namespace tensorweave {
namespace gpu {

inline constexpr const char* DEVICE_GPU = "GPU";

class GpuDevice : public Device {
 public:
  // Use GpuDeviceFactory (registered by the GPU library) to make devices.
  GpuDevice(DeviceAttributes attributes, int ordinal);
  ~GpuDevice() override;
  Status Init();  // streams, allocator, cuBLAS handle

  bool host_memory() const override { return false; }
  Status AllocateTensor(DataType dtype, const TensorShape& shape,
                        Tensor* out) override;
  Status CopyFromHost(const Tensor& host, Tensor* out) override;
  Status CopyToHost(const Tensor& device, Tensor* out) override;
  Status Sync() override;

  int ordinal() const { return ordinal_; }
  const cudaDeviceProp& properties() const { return properties_; }
  // Every kernel of the device launches on this stream.
  cudaStream_t stream() const { return stream_; }
  // cuBLAS bound to stream(), with its own workspace (no allocation while a
  // step is captured). FailedPrecondition when cuBLAS cannot be loaded.
  Status Cublas(const CublasApi** api, cublasHandle_t* handle);
  BFCAllocator* allocator() { return allocator_; }
  // Makes this device the calling thread's current CUDA device.
  void MakeCurrent() const;

  // Step capture into a CUDA graph (gpu_capture.cc). While capturing, the
  // compute stream records instead of running, tensors come from a pool
  // private to the recording (its addresses are baked into the graph), and
  // Sync is a no-op (EndCapture runs and waits for the recording).
  bool SupportsCapture() const override { return true; }
  Status BeginCapture() override;
  Status EndCapture(const Status& step_status,
                    std::unique_ptr<CapturedStep>* captured) override;
  Status TransferIn(const std::string& key, bool host_memory,
                    const Tensor& host, Tensor* out) override;
  Status TransferOut(const std::string& key, bool host_memory,
                     const Tensor& value, Tensor* host_out) override;
  bool capturing() const { return capture_ != nullptr; }
  // The pool AllocateTensor takes from while capturing (nullptr: the
  // device's allocator).
  // (shared: a tensor from it may outlive the recording).
  std::shared_ptr<BFCAllocator> capture_pool() const;
  // Device memory a live captured step keeps (its pool's peak), counted by
  // the factory's GetMemoryInfo.
  void AddGraphPoolBytes(int64_t delta);

 private:
  struct Capture;  // the recording in progress
  std::mutex capture_mu_;
  std::atomic<Capture*> capture_{nullptr};
  const int ordinal_;
  cudaDeviceProp properties_{};
  cudaStream_t stream_ = nullptr;
  cudaStream_t h2d_stream_ = nullptr;
  cudaStream_t d2h_stream_ = nullptr;
  // The ordinal's process-wide allocator (shared by every GpuDevice of the
  // ordinal, alive until the process ends).
  BFCAllocator* allocator_ = nullptr;
  std::mutex cublas_mu_;
  cublasHandle_t cublas_ = nullptr;
  void* cublas_workspace_ = nullptr;
};

// memcpy between host buffers (a feed into pinned staging, staging into a
// fetch), split over a few threads above 2 MiB: one thread copies 5-10
// GB/s, so a 16 MiB batch took 2-3 ms of a step on one thread.
void HostCopy(void* dst, const void* src, size_t bytes);

// The GPU device a kernel runs on (kernels registered for DEVICE_GPU only),
// made the calling thread's current CUDA device: executor threads run the
// kernels of every GPU, and a launch on another GPU's stream would fail.
inline GpuDevice* GetGpuDevice(OpKernelContext* ctx) {
  auto* device = static_cast<GpuDevice*>(ctx->device());
  device->MakeCurrent();
  return device;
}
inline GpuDevice* GetGpuDevice(OpKernelConstruction* ctx) {
  return static_cast<GpuDevice*>(ctx->device());
}

}  // namespace gpu
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_GPU_GPU_DEVICE_H_
