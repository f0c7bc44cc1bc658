// The CUDA GPU device (gpu_device.h) and its factory.
//
// Every GpuDevice object of one GPU ordinal (each session makes its own
// Device objects) shares one process-wide state: the allocator, the
// streams, the pinned staging buffers and the cuBLAS handle. The state is
// made on first use and lives until the process ends (it is never
// destroyed: tensors may be released by static destructors, and tearing
// CUDA down at exit is unsafe).
#include "core/gpu/gpu_device.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/tensor_size.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace gpu {

namespace {

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kCublasWorkspaceBytes = 32 * kMiB;
// Staging: transfers up to this size go through cached pinned blocks;
// larger ones copy from (to) pageable memory directly.
constexpr size_t kMaxStagedBytes = 64 * kMiB;
constexpr size_t kMaxPinnedCacheBytes = 256 * kMiB;
constexpr size_t kMinPinnedBlock = 64 * 1024;

// The calling thread's current device, cached (cudaSetDevice only when it
// changes).
void SetCurrent(int ordinal) {
  thread_local int current = -1;
  if (current != ordinal) {
    if (cudaSetDevice(ordinal) == cudaSuccess) {
      current = ordinal;
    } else {
      cudaGetLastError();
    }
  }
}

class CudaMallocSubAllocator : public SubAllocator {
 public:
  explicit CudaMallocSubAllocator(int ordinal) : ordinal_(ordinal) {}
  void* Alloc(size_t bytes) override {
    SetCurrent(ordinal_);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();  // out of memory is not sticky: clear it
      return nullptr;
    }
    return p;
  }
  void Free(void* ptr, size_t bytes) override {
    SetCurrent(ordinal_);
    cudaFree(ptr);
  }

 private:
  const int ordinal_;
};

// Pinned host blocks for host<->device copies. A block given back after
// an asynchronous copy waits behind an event recorded on the stream, and
// is reused only once the event has completed (checked without blocking).
class PinnedPool {
 public:
  // A block of at least `bytes` (nullptr when none can be had: the caller
  // copies from pageable memory instead).
  void* Get(size_t bytes, size_t* block_bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    Reclaim();
    auto it = free_.lower_bound(bytes);
    // Not a block much larger than needed (it would be held for nothing).
    if (it != free_.end() &&
        it->first <= std::max(2 * bytes, kMinPinnedBlock)) {
      void* p = it->second;
      *block_bytes = it->first;
      free_.erase(it);
      return p;
    }
    size_t size = kMinPinnedBlock;
    while (size < bytes) size *= 2;
    if (held_ + size > kMaxPinnedCacheBytes) return nullptr;
    void* p = nullptr;
    if (cudaHostAlloc(&p, size, cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    held_ += size;
    *block_bytes = size;
    return p;
  }
  // Free for reuse now (its copy has completed).
  void Put(void* p, size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    free_.emplace(bytes, p);
  }
  // Free for reuse once the work queued on `stream` so far has run.
  Status PutAfter(void* p, size_t bytes, cudaStream_t stream) {
    std::lock_guard<std::mutex> lock(mu_);
    cudaEvent_t event = nullptr;
    if (!events_.empty()) {
      event = events_.back();
      events_.pop_back();
    } else {
      TW_RETURN_IF_ERROR(
          CudaStatus(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
                     "cudaEventCreate (pinned staging)"));
    }
    Status s =
        CudaStatus(cudaEventRecord(event, stream), "cudaEventRecord (staging)");
    if (!s.ok()) {
      // Not known when the copy ends: the block is not reused.
      events_.push_back(event);
      return s;
    }
    pending_.push_back({p, bytes, event});
    return Status::OK();
  }

 private:
  struct Pending {
    void* data;
    size_t bytes;
    cudaEvent_t event;
  };
  // Moves blocks whose copies have completed to the free list (in order:
  // the copies ran in stream order).
  void Reclaim() {
    while (!pending_.empty()) {
      cudaError_t e = cudaEventQuery(pending_.front().event);
      if (e == cudaErrorNotReady) break;
      if (e != cudaSuccess) {
        // A failed stream: the error surfaces at the device's Sync; the
        // block is not reused (its copy may be in any state).
        cudaGetLastError();
        events_.push_back(pending_.front().event);
        pending_.pop_front();
        continue;
      }
      free_.emplace(pending_.front().bytes, pending_.front().data);
      events_.push_back(pending_.front().event);
      pending_.pop_front();
    }
  }

  std::mutex mu_;
  std::multimap<size_t, void*> free_;
  std::deque<Pending> pending_;
  std::vector<cudaEvent_t> events_;
  size_t held_ = 0;
};

// What every GpuDevice of one ordinal shares.
struct GpuState {
  int ordinal = 0;
  cudaDeviceProp properties{};
  size_t memory_limit = 0;
  cudaStream_t compute = nullptr;
  cudaStream_t h2d = nullptr;
  cudaStream_t d2h = nullptr;
  std::unique_ptr<BFCAllocator> allocator;
  PinnedPool pinned;
  std::mutex kept_mu;
  std::vector<void*> kept;  // pinned blocks baked into captured steps
  // Device memory reserved by live captured steps (their pools' peaks: a
  // replay writes all of it), counted as in use by GetMemoryInfo.
  std::atomic<int64_t> graph_pool_bytes{0};
  std::mutex cublas_mu;
  bool cublas_tried = false;
  Status cublas_status;
  const CublasApi* cublas_api = nullptr;
  cublasHandle_t cublas = nullptr;
  void* cublas_workspace = nullptr;
};

std::string CudaError(cudaError_t e) {
  return StrCat(cudaGetErrorName(e), ": ", cudaGetErrorString(e));
}

// The device's memory limit: TW_GPU_MEMORY_LIMIT_MB, else the free memory
// now less a reserve (5% of the total, at least 512 MiB) for the CUDA
// context, libraries' workspaces and other users of the GPU.
size_t MemoryLimit(size_t free_bytes, size_t total_bytes) {
  const char* env = std::getenv("TW_GPU_MEMORY_LIMIT_MB");
  if (env != nullptr && *env != '\0') {
    char* end = nullptr;
    long long mb = std::strtoll(env, &end, 10);
    if (end != env && *end == '\0' && mb > 0) {
      return static_cast<size_t>(mb) * kMiB;
    }
    std::fprintf(stderr,
                 "tensorweave: TW_GPU_MEMORY_LIMIT_MB=%s is not a positive "
                 "number of MiB; ignored\n",
                 env);
  }
  size_t reserve = std::max<size_t>(512 * kMiB, total_bytes / 20);
  return free_bytes > reserve ? free_bytes - reserve : free_bytes / 2;
}

Status MakeState(int ordinal, std::unique_ptr<GpuState>* out) {
  auto state = std::make_unique<GpuState>();
  state->ordinal = ordinal;
  const std::string where = StrCat("GPU ", ordinal);
  auto check = [&](cudaError_t e, const char* what) -> Status {
    if (e == cudaSuccess) return Status::OK();
    cudaGetLastError();
    return errors::Internal("Could not initialize ", where, ": ", what,
                            " failed: ", CudaError(e));
  };
  TW_RETURN_IF_ERROR(check(cudaSetDevice(ordinal), "cudaSetDevice"));
  TW_RETURN_IF_ERROR(check(cudaGetDeviceProperties(&state->properties, ordinal),
                           "cudaGetDeviceProperties"));
  TW_RETURN_IF_ERROR(check(cudaFree(nullptr), "creating the CUDA context"));
  size_t free_bytes = 0, total_bytes = 0;
  TW_RETURN_IF_ERROR(
      check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"));
  state->memory_limit = MemoryLimit(free_bytes, total_bytes);
  TW_RETURN_IF_ERROR(
      check(cudaStreamCreateWithFlags(&state->compute, cudaStreamNonBlocking),
            "cudaStreamCreate (compute)"));
  TW_RETURN_IF_ERROR(
      check(cudaStreamCreateWithFlags(&state->h2d, cudaStreamNonBlocking),
            "cudaStreamCreate (host to device)"));
  TW_RETURN_IF_ERROR(
      check(cudaStreamCreateWithFlags(&state->d2h, cudaStreamNonBlocking),
            "cudaStreamCreate (device to host)"));
  state->allocator = std::make_unique<BFCAllocator>(
      std::make_unique<CudaMallocSubAllocator>(ordinal), state->memory_limit,
      StrCat("GPU_", ordinal, "_bfc"));
  *out = std::move(state);
  return Status::OK();
}

// The process-wide state of `ordinal`, made on first use (a failure is
// remembered and returned again).
Status GetState(int ordinal, GpuState** out) {
  static std::mutex mu;
  static auto* states = new std::map<int, std::unique_ptr<GpuState>>();
  static auto* failures = new std::map<int, Status>();
  std::lock_guard<std::mutex> lock(mu);
  auto it = states->find(ordinal);
  if (it != states->end()) {
    *out = it->second.get();
    return Status::OK();
  }
  auto failed = failures->find(ordinal);
  if (failed != failures->end()) return failed->second;
  std::unique_ptr<GpuState> state;
  Status s = MakeState(ordinal, &state);
  if (!s.ok()) {
    (*failures)[ordinal] = s;
    return s;
  }
  *out = state.get();
  (*states)[ordinal] = std::move(state);
  return Status::OK();
}

// The device count, 0 when there is no usable driver or GPU.
int VisibleDeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

// TensorFlow's names of the dtypes in its OOM message.
std::string TfTypeName(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return "float";
    case DT_DOUBLE:
      return "double";
    default:
      return DataTypeName(dtype);
  }
}

GpuState* StateOf(int ordinal) {
  GpuState* state = nullptr;
  return GetState(ordinal, &state).ok() ? state : nullptr;
}

}  // namespace

GpuDevice::GpuDevice(DeviceAttributes attributes, int ordinal)
    : Device(std::move(attributes)), ordinal_(ordinal) {}

// The shared state outlives every device; nothing of it is freed here.
GpuDevice::~GpuDevice() = default;

Status GpuDevice::Init() {
  GpuState* state = nullptr;
  TW_RETURN_IF_ERROR(GetState(ordinal_, &state));
  properties_ = state->properties;
  stream_ = state->compute;
  h2d_stream_ = state->h2d;
  d2h_stream_ = state->d2h;
  allocator_ = state->allocator.get();
  return Status::OK();
}

void GpuDevice::MakeCurrent() const { SetCurrent(ordinal_); }

void GpuDevice::AddGraphPoolBytes(int64_t delta) {
  if (GpuState* state = StateOf(ordinal_)) state->graph_pool_bytes += delta;
}

Status GpuDevice::AllocateTensor(DataType dtype, const TensorShape& shape,
                                 Tensor* out) {
  TW_RETURN_IF_ERROR(CheckTensorAllocation(dtype, shape));
  if (dtype == DT_STRING) {
    return errors::InvalidArgument(
        "string tensors cannot be placed in GPU memory (", name(), ")");
  }
  const size_t bytes =
      static_cast<size_t>(shape.num_elements()) * DataTypeSize(dtype);
  if (bytes == 0) {
    *out = Tensor(dtype, shape, TensorBuffer::Adopt(nullptr, 0, [] {}));
    return Status::OK();
  }
  // While capturing, from the recording's own pool (held by the tensor:
  // it may outlive the recording).
  std::shared_ptr<BFCAllocator> pool = capture_pool();
  BFCAllocator* allocator = pool != nullptr ? pool.get() : allocator_;
  if (allocator == nullptr) {
    return errors::FailedPrecondition(name(), " was not initialized");
  }
  void* p = allocator->Allocate(bytes);
  if (p == nullptr) {
    return errors::ResourceExhausted("OOM when allocating tensor with shape ",
                                     shape.ToString(), " and type ",
                                     TfTypeName(dtype), " on ", name(),
                                     " by allocator ", allocator->name());
  }
  *out =
      Tensor(dtype, shape, TensorBuffer::Adopt(p, bytes, [allocator, pool, p] {
               allocator->Deallocate(p);
             }));
  return Status::OK();
}

Status GpuDevice::CopyFromHost(const Tensor& host, Tensor* out) {
  GpuState* state = StateOf(ordinal_);
  if (state == nullptr) {
    return errors::FailedPrecondition(name(), " was not initialized");
  }
  MakeCurrent();
  TW_RETURN_IF_ERROR(AllocateTensor(host.dtype(), host.shape(), out));
  const size_t bytes = host.num_bytes();
  if (bytes == 0) return Status::OK();
  const std::string what = StrCat("copying ", bytes, " bytes to ", name());
  if (capturing()) {
    // The staging block is baked into the recording: it keeps this value
    // for every replay (kept until the process ends).
    void* p = nullptr;
    TW_RETURN_IF_ERROR(CudaStatus(
        cudaHostAlloc(&p, bytes, cudaHostAllocPortable), what.c_str()));
    HostCopy(p, host.raw_data(), bytes);
    {
      std::lock_guard<std::mutex> lock(state->kept_mu);
      state->kept.push_back(p);
    }
    return CudaStatus(cudaMemcpyAsync(out->raw_data(), p, bytes,
                                      cudaMemcpyHostToDevice, stream_),
                      what.c_str());
  }
  size_t block_bytes = 0;
  void* staging = bytes <= kMaxStagedBytes
                      ? state->pinned.Get(bytes, &block_bytes)
                      : nullptr;
  if (staging == nullptr) {
    // Pageable: returns once the source has been read.
    return CudaStatus(cudaMemcpyAsync(out->raw_data(), host.raw_data(), bytes,
                                      cudaMemcpyHostToDevice, stream_),
                      what.c_str());
  }
  HostCopy(staging, host.raw_data(), bytes);
  Status s = CudaStatus(cudaMemcpyAsync(out->raw_data(), staging, bytes,
                                        cudaMemcpyHostToDevice, stream_),
                        what.c_str());
  if (!s.ok()) {
    state->pinned.Put(staging, block_bytes);
    return s;
  }
  return state->pinned.PutAfter(staging, block_bytes, stream_);
}

Status GpuDevice::CopyToHost(const Tensor& device, Tensor* out) {
  GpuState* state = StateOf(ordinal_);
  if (state == nullptr) {
    return errors::FailedPrecondition(name(), " was not initialized");
  }
  if (capturing()) {
    return errors::FailedPrecondition(
        "cannot copy a value to the host while a step is being captured on ",
        name());
  }
  MakeCurrent();
  TW_RETURN_IF_ERROR(Tensor::Allocate(device.dtype(), device.shape(), out));
  const size_t bytes = device.num_bytes();
  if (bytes == 0) return Status::OK();
  const std::string what = StrCat("copying ", bytes, " bytes from ", name());
  size_t block_bytes = 0;
  void* staging = bytes <= kMaxStagedBytes
                      ? state->pinned.Get(bytes, &block_bytes)
                      : nullptr;
  void* dst = staging != nullptr ? staging : out->raw_data();
  Status s = CudaStatus(cudaMemcpyAsync(dst, device.raw_data(), bytes,
                                        cudaMemcpyDeviceToHost, stream_),
                        what.c_str());
  if (s.ok()) {
    cudaError_t e = cudaStreamSynchronize(stream_);
    if (e != cudaSuccess) {
      cudaGetLastError();
      s = errors::Internal("GPU error on ", name(), " (", what,
                           "): ", CudaError(e));
    }
  }
  if (s.ok() && staging != nullptr) {
    HostCopy(out->raw_data(), staging, bytes);
  }
  if (staging != nullptr) {
    if (s.ok()) {
      state->pinned.Put(staging, block_bytes);
    } else {
      // The copy's state is unknown: reuse only after the stream passes.
      state->pinned.PutAfter(staging, block_bytes, stream_);
    }
  }
  return s;
}

Status GpuDevice::Sync() {
  if (capturing()) return Status::OK();  // EndCapture runs and waits
  MakeCurrent();
  cudaError_t e = cudaStreamSynchronize(stream_);
  if (e == cudaSuccess) e = cudaGetLastError();
  if (e != cudaSuccess) {
    cudaGetLastError();
    return errors::Internal("GPU error on ", name(), ": ", CudaError(e));
  }
  return Status::OK();
}

Status GpuDevice::Cublas(const CublasApi** api, cublasHandle_t* handle) {
  GpuState* state = StateOf(ordinal_);
  if (state == nullptr) {
    return errors::FailedPrecondition(name(), " was not initialized");
  }
  std::lock_guard<std::mutex> lock(state->cublas_mu);
  if (!state->cublas_tried) {
    state->cublas_tried = true;
    MakeCurrent();
    const CublasApi* loaded = nullptr;
    Status s = GetCublas(&loaded);
    cublasHandle_t h = nullptr;
    auto cublas_check = [&](cublasStatus_t st, const char* what) -> Status {
      if (st == 0) return Status::OK();
      return errors::Internal(what, " failed on ", name(), ": ",
                              CublasStatusString(st));
    };
    if (s.ok()) s = cublas_check(loaded->Create(&h), "cublasCreate");
    if (s.ok())
      s = cublas_check(loaded->SetStream(h, stream_), "cublasSetStream");
    if (s.ok()) {
      s = CudaStatus(
          cudaMalloc(&state->cublas_workspace, kCublasWorkspaceBytes),
          "cudaMalloc (the cuBLAS workspace)");
    }
    if (s.ok()) {
      s = cublas_check(loaded->SetWorkspace(h, state->cublas_workspace,
                                            kCublasWorkspaceBytes),
                       "cublasSetWorkspace");
    }
    // CUBLAS_DEFAULT_MATH: no TF32 (as TensorFlow with TF32 off).
    if (s.ok())
      s = cublas_check(loaded->SetMathMode(h, 0), "cublasSetMathMode");
    if (s.ok()) {
      state->cublas_api = loaded;
      state->cublas = h;
    } else if (h != nullptr) {
      loaded->Destroy(h);
    }
    state->cublas_status = s;
  }
  TW_RETURN_IF_ERROR(state->cublas_status);
  cublas_ = state->cublas;
  cublas_workspace_ = state->cublas_workspace;
  *api = state->cublas_api;
  *handle = state->cublas;
  return Status::OK();
}

namespace {

class GpuDeviceFactory : public DeviceFactory {
 public:
  Status CreateDevices(int count, const std::string& name_prefix,
                       std::vector<std::unique_ptr<Device>>* devices) override {
    if (count == 0) return Status::OK();  // not even CUDA's initialization
    int n = VisibleDeviceCount();
    if (count > 0) n = std::min(n, count);
    for (int i = 0; i < n; ++i) {
      GpuState* state = nullptr;
      TW_RETURN_IF_ERROR(GetState(i, &state));
      const cudaDeviceProp& p = state->properties;
      char bus_id[64] = {0};
      if (cudaDeviceGetPCIBusId(bus_id, sizeof(bus_id), i) != cudaSuccess) {
        cudaGetLastError();
        std::snprintf(bus_id, sizeof(bus_id), "%04x:%02x:%02x.0", p.pciDomainID,
                      p.pciBusID, p.pciDeviceID);
      }
      std::string bus(bus_id);
      for (char& c : bus) c = static_cast<char>(std::tolower(c));
      DeviceAttributes attributes;
      attributes.name = StrCat(name_prefix, "/device:GPU:", i);
      attributes.device_type = DEVICE_GPU;
      attributes.memory_limit = static_cast<int64_t>(state->memory_limit);
      attributes.physical_device_desc =
          StrCat("device: ", i, ", name: ", p.name, ", pci bus id: ", bus,
                 ", compute capability: ", p.major, ".", p.minor);
      auto device = std::make_unique<GpuDevice>(std::move(attributes), i);
      TW_RETURN_IF_ERROR(device->Init());
      devices->push_back(std::move(device));
    }
    return Status::OK();
  }

  bool GetMemoryInfo(int index, int64_t* current, int64_t* peak) override {
    if (index < 0 || index >= VisibleDeviceCount()) return false;
    GpuState* state = StateOf(index);
    if (state == nullptr) return false;
    BFCAllocator::Stats stats = state->allocator->GetStats();
    const int64_t graphs = state->graph_pool_bytes.load();
    *current = stats.bytes_in_use + graphs;
    *peak = stats.peak_bytes_in_use + graphs;
    return true;
  }

  bool ResetMemoryStats(int index) override {
    if (index < 0 || index >= VisibleDeviceCount()) return false;
    GpuState* state = StateOf(index);
    if (state == nullptr) return false;
    state->allocator->ResetPeak();
    return true;
  }
};

struct RegisterGpuDeviceFactory {
  RegisterGpuDeviceFactory() {
    DeviceFactory::Register(DEVICE_GPU, std::make_unique<GpuDeviceFactory>(),
                            210);
  }
} register_gpu_device_factory;

}  // namespace

void HostCopy(void* dst, const void* src, size_t bytes) {
  constexpr size_t kBlock = size_t{1} << 20;
  // Leaked: copies may still run while the process exits.
  static ThreadPool* const pool = []() -> ThreadPool* {
    const int threads = std::min(4, ThreadPool::NumCores() - 1);
    std::unique_ptr<ThreadPool> p;
    if (threads < 1 || !ThreadPool::Create(threads, "gpu_host_copy", &p).ok()) {
      return nullptr;
    }
    return p.release();
  }();
  if (bytes < 2 * kBlock || pool == nullptr) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const int64_t blocks = static_cast<int64_t>((bytes + kBlock - 1) / kBlock);
  pool->ParallelFor(blocks, 1, [&](int64_t begin, int64_t end) {
    const size_t from = static_cast<size_t>(begin) * kBlock;
    const size_t to = std::min(bytes, static_cast<size_t>(end) * kBlock);
    std::memcpy(static_cast<char*>(dst) + from,
                static_cast<const char*>(src) + from, to - from);
  });
}

}  // namespace gpu
}  // namespace tensorweave
