// A whole step's GPU work as one CUDA graph (see
// core/runtime/session_capture.cc for when the session captures and how it
// checks that a replay would do the same work).
//
// While a step is captured, the compute stream records: every kernel the
// executor dispatches, every copy the step's transfers make. Values that
// come from the host are first copied into pinned staging buffers that the
// recording owns, and values that go to the host are copied into others:
// a replay refills the first, launches the graph and reads the second.
// Tensors allocated meanwhile come from a pool that belongs to the
// recording, so that their addresses, baked into the graph, are never
// handed to anyone else.
#include <cuda_runtime.h>

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "core/framework/rendezvous.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"

namespace tensorweave {
namespace gpu {

namespace {

class CudaMallocSubAllocator : public SubAllocator {
 public:
  explicit CudaMallocSubAllocator(int ordinal) : ordinal_(ordinal) {}
  void* Alloc(size_t bytes) override {
    cudaSetDevice(ordinal_);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error state
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t bytes) override { cudaFree(ptr); }

 private:
  int ordinal_;
};

// Pinned host memory owned by a recording.
struct PinnedBlock {
  void* data = nullptr;
  size_t bytes = 0;
  PinnedBlock() = default;
  PinnedBlock(const PinnedBlock&) = delete;
  PinnedBlock& operator=(const PinnedBlock&) = delete;
  ~PinnedBlock() {
    if (data != nullptr) cudaFreeHost(data);
  }
};

Status NewPinned(size_t bytes, std::unique_ptr<PinnedBlock>* out) {
  auto block = std::make_unique<PinnedBlock>();
  block->bytes = bytes;
  if (bytes > 0) {
    TW_RETURN_IF_ERROR(
        CudaStatus(cudaHostAlloc(&block->data, bytes, cudaHostAllocDefault),
                   "cudaHostAlloc (a captured step's staging buffer)"));
  }
  *out = std::move(block);
  return Status::OK();
}

class GpuCapturedStep : public CapturedStep {
 public:
  ~GpuCapturedStep() override {
    if (device_ != nullptr && reserved_ != 0)
      device_->AddGraphPoolBytes(-reserved_);
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
  }
  const std::vector<Transfer>& inputs() const override { return inputs_; }
  const std::vector<Transfer>& outputs() const override { return outputs_; }

  Status Replay(const std::vector<Tensor>& inputs,
                std::vector<Tensor>* outputs) override {
    if (inputs.size() != inputs_.size()) {
      return errors::Internal("a captured step got ", inputs.size(),
                              " inputs, expected ", inputs_.size());
    }
    device_->MakeCurrent();
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (inputs_[i].host_memory) continue;
      const Tensor& in = inputs[i];
      if (in.num_bytes() != in_staging_[i]->bytes) {
        return errors::Internal("a captured step's input ", inputs_[i].key,
                                " changed size");
      }
      if (in.num_bytes() > 0) {
        HostCopy(in_staging_[i]->data, in.raw_data(), in.num_bytes());
      }
    }
    TW_RETURN_IF_ERROR(CudaStatus(cudaGraphLaunch(exec_, device_->stream()),
                                  "cudaGraphLaunch (a captured step)"));
    TW_RETURN_IF_ERROR(
        CudaStatus(cudaStreamSynchronize(device_->stream()),
                   "running a captured step (cudaStreamSynchronize)"));
    outputs->clear();
    outputs->reserve(outputs_.size());
    for (size_t i = 0; i < outputs_.size(); ++i) {
      Tensor out;
      TW_RETURN_IF_ERROR(
          Tensor::Allocate(outputs_[i].dtype, outputs_[i].shape, &out));
      if (out.num_bytes() > 0) {
        HostCopy(out.raw_data(), out_staging_[i]->data, out.num_bytes());
      }
      outputs->push_back(std::move(out));
    }
    return Status::OK();
  }

 private:
  friend class ::tensorweave::gpu::GpuDevice;
  GpuDevice* device_ = nullptr;
  std::vector<Transfer> inputs_, outputs_;
  std::vector<std::unique_ptr<PinnedBlock>> in_staging_, out_staging_;
  // The tensors handed to the capturing step for values sent to the host,
  // filled once the recording has run (by EndCapture).
  std::vector<Tensor> first_outputs_;
  std::shared_ptr<BFCAllocator> pool_;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  int64_t reserved_ = 0;  // counted in the device's memory in use
};

// Whether a rendezvous key names a transfer from a device to itself
// (between its host and device memory).
bool WithinDevice(const std::string& key) {
  Rendezvous::ParsedKey parsed;
  return Rendezvous::ParseKey(key, &parsed).ok() &&
         parsed.src_device == parsed.dst_device;
}

}  // namespace

struct GpuDevice::Capture {
  std::unique_ptr<GpuCapturedStep> step;
  std::shared_ptr<BFCAllocator> pool;
  Status error;  // the first failure of a transfer while recording
};

std::shared_ptr<BFCAllocator> GpuDevice::capture_pool() const {
  Capture* c = capture_.load(std::memory_order_acquire);
  return c != nullptr ? c->pool : nullptr;
}

Status GpuDevice::BeginCapture() {
  std::lock_guard<std::mutex> lock(capture_mu_);
  if (capture_.load() != nullptr) {
    return errors::FailedPrecondition(name(), " is already capturing a step");
  }
  MakeCurrent();
  // The recording starts from an idle stream (earlier work is not part of
  // it, and a fault of earlier work is reported now, not replayed).
  TW_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(stream()),
                                "cudaStreamSynchronize before a capture"));
  auto capture = std::make_unique<Capture>();
  capture->step = std::make_unique<GpuCapturedStep>();
  capture->step->device_ = this;
  capture->pool = std::make_shared<BFCAllocator>(
      std::make_unique<CudaMallocSubAllocator>(ordinal()),
      static_cast<size_t>(attributes().memory_limit),
      "GPU_" + std::to_string(ordinal()) + "_graph_pool");
  capture->step->pool_ = capture->pool;
  // Relaxed: a kernel's first use of the pool may cudaMalloc a region
  // meanwhile (not recorded; the region belongs to the pool).
  TW_RETURN_IF_ERROR(
      CudaStatus(cudaStreamBeginCapture(stream(), cudaStreamCaptureModeRelaxed),
                 "cudaStreamBeginCapture"));
  capture_.store(capture.release(), std::memory_order_release);
  return Status::OK();
}

Status GpuDevice::EndCapture(const Status& step_status,
                             std::unique_ptr<CapturedStep>* captured) {
  std::unique_ptr<Capture> capture;
  {
    std::lock_guard<std::mutex> lock(capture_mu_);
    capture.reset(capture_.exchange(nullptr));
  }
  if (capture == nullptr) {
    return errors::FailedPrecondition(name(), " is not capturing a step");
  }
  MakeCurrent();
  GpuCapturedStep& step = *capture->step;
  // The capture must end even when the step failed (else the stream stays
  // in capture mode).
  cudaGraph_t graph = nullptr;
  Status end = CudaStatus(cudaStreamEndCapture(stream(), &graph),
                          "cudaStreamEndCapture");
  step.graph_ = graph;
  TW_RETURN_IF_ERROR(step_status);
  TW_RETURN_IF_ERROR(capture->error);
  TW_RETURN_IF_ERROR(end);
  if (graph == nullptr) {
    return errors::Internal("the capture of a step on ", name(),
                            " recorded no graph");
  }
  TW_RETURN_IF_ERROR(CudaStatus(cudaGraphInstantiate(&step.exec_, graph, 0),
                                "cudaGraphInstantiate"));
  // Run it once: the capturing step gets its values.
  TW_RETURN_IF_ERROR(CudaStatus(cudaGraphLaunch(step.exec_, stream()),
                                "cudaGraphLaunch (the captured step)"));
  TW_RETURN_IF_ERROR(
      CudaStatus(cudaStreamSynchronize(stream()),
                 "running the captured step (cudaStreamSynchronize)"));
  for (size_t i = 0; i < step.outputs_.size(); ++i) {
    Tensor& out = step.first_outputs_[i];
    if (out.num_bytes() > 0) {
      HostCopy(out.raw_data(), step.out_staging_[i]->data, out.num_bytes());
    }
  }
  step.first_outputs_.clear();
  step.reserved_ = capture->pool->GetStats().peak_bytes_in_use;
  AddGraphPoolBytes(step.reserved_);
  *captured = std::move(capture->step);
  return Status::OK();
}

Status GpuDevice::TransferIn(const std::string& key, bool host_memory,
                             const Tensor& host, Tensor* out) {
  Capture* capture = capture_.load(std::memory_order_acquire);
  if (capture == nullptr) {
    if (host_memory) {
      *out = host;
      return Status::OK();
    }
    return CopyFromHost(host, out);
  }
  if (WithinDevice(key)) {
    // A value the device's own kernels computed on the host (from shapes,
    // and from host inputs the replay checks by value): the same in every
    // replay, so the recording keeps it (CopyFromHost bakes it in), and the
    // replay does not wait for it (nothing sends it then).
    if (host_memory) {
      *out = host;
      return Status::OK();
    }
    return CopyFromHost(host, out);
  }
  std::lock_guard<std::mutex> lock(capture_mu_);
  GpuCapturedStep& step = *capture->step;
  CapturedStep::Transfer t;
  t.key = key;
  t.host_memory = host_memory;
  t.dtype = host.dtype();
  t.shape = host.shape();
  std::unique_ptr<PinnedBlock> staging;
  Status s = NewPinned(host_memory ? 0 : host.num_bytes(), &staging);
  if (s.ok() && host_memory) {
    t.value = host.DeepCopy();
    *out = host;
  } else if (s.ok()) {
    if (host.num_bytes() > 0) {
      HostCopy(staging->data, host.raw_data(), host.num_bytes());
    }
    s = AllocateTensor(host.dtype(), host.shape(), out);
    if (s.ok() && host.num_bytes() > 0) {
      s = CudaStatus(
          cudaMemcpyAsync(out->raw_data(), staging->data, host.num_bytes(),
                          cudaMemcpyHostToDevice, stream()),
          "cudaMemcpyAsync (host to device, captured)");
    }
  }
  if (!s.ok()) {
    if (capture->error.ok()) capture->error = s;
    return s;
  }
  step.inputs_.push_back(std::move(t));
  step.in_staging_.push_back(std::move(staging));
  return Status::OK();
}

Status GpuDevice::TransferOut(const std::string& key, bool host_memory,
                              const Tensor& value, Tensor* host_out) {
  Capture* capture = capture_.load(std::memory_order_acquire);
  if (capture == nullptr) {
    if (host_memory) {
      *host_out = value;
      return Status::OK();
    }
    return CopyToHost(value, host_out);
  }
  if (WithinDevice(key)) {
    // To this device's own kernels (TransferIn above keeps it): not an
    // output of the recording. (A device value read on the host here is
    // refused by the session; CopyToHost fails while capturing.)
    if (host_memory) {
      *host_out = value;
      return Status::OK();
    }
    return CopyToHost(value, host_out);
  }
  std::lock_guard<std::mutex> lock(capture_mu_);
  GpuCapturedStep& step = *capture->step;
  CapturedStep::Transfer t;
  t.key = key;
  t.host_memory = host_memory;
  t.dtype = value.dtype();
  t.shape = value.shape();
  std::unique_ptr<PinnedBlock> staging;
  Status s = NewPinned(value.num_bytes(), &staging);
  if (s.ok()) s = Tensor::Allocate(value.dtype(), value.shape(), host_out);
  if (s.ok() && value.num_bytes() > 0) {
    if (host_memory) {
      // Computed on the host while recording: the same every replay.
      HostCopy(staging->data, value.raw_data(), value.num_bytes());
    } else {
      s = CudaStatus(
          cudaMemcpyAsync(staging->data, value.raw_data(), value.num_bytes(),
                          cudaMemcpyDeviceToHost, stream()),
          "cudaMemcpyAsync (device to host, captured)");
    }
  }
  if (!s.ok()) {
    if (capture->error.ok()) capture->error = s;
    return s;
  }
  step.outputs_.push_back(std::move(t));
  step.out_staging_.push_back(std::move(staging));
  step.first_outputs_.push_back(*host_out);
  return Status::OK();
}

}  // namespace gpu
}  // namespace tensorweave
