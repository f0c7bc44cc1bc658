// A best-fit allocator with coalescing over large regions obtained from a
// SubAllocator (cudaMalloc for the GPU), after TensorFlow's BFC allocator:
// freed blocks are kept and reused, so that a training step allocates no
// device memory from the driver once its first steps have run.
//
// Pure C++ (no CUDA): tested on the CPU with a host sub-allocator.
#ifndef TENSORWEAVE_CORE_GPU_BFC_ALLOCATOR_H_
#define TENSORWEAVE_CORE_GPU_BFC_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace tensorweave {
namespace gpu {

// Where the allocator's regions come from.
class SubAllocator {
 public:
  virtual ~SubAllocator() = default;
  virtual void* Alloc(size_t bytes) = 0;  // nullptr when out of memory
  virtual void Free(void* ptr, size_t bytes) = 0;
};

class BFCAllocator {
 public:
  struct Stats {
    int64_t num_allocs = 0;         // Allocate calls that succeeded
    int64_t bytes_in_use = 0;       // in live blocks (rounded sizes)
    int64_t peak_bytes_in_use = 0;  // since construction or ResetPeak
    int64_t largest_alloc_size = 0;
    int64_t bytes_reserved = 0;  // regions held from the sub-allocator
    int64_t bytes_limit = 0;
  };

  // `memory_limit`: the most bytes of regions it may hold.
  BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator, size_t memory_limit,
               std::string name);
  ~BFCAllocator();  // returns every region (live blocks are a caller bug)
  BFCAllocator(const BFCAllocator&) = delete;
  BFCAllocator& operator=(const BFCAllocator&) = delete;

  // A block of at least `bytes` (256-byte aligned), or nullptr when the
  // limit or the sub-allocator is exhausted. Thread-safe.
  void* Allocate(size_t bytes);
  void Deallocate(void* ptr);
  // The usable size of a live block.
  size_t AllocatedSize(const void* ptr) const;

  Stats GetStats() const;
  void ResetPeak();
  const std::string& name() const { return name_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string name_;
};

}  // namespace gpu
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_GPU_BFC_ALLOCATOR_H_
