// The best-fit-with-coalescing allocator (bfc_allocator.h), after
// TensorFlow's: memory comes from the sub-allocator in regions (each new one
// twice the size of the last, at least the request, within the limit),
// regions are cut into chunks that know their neighbours, free chunks wait
// in size-class bins (powers of two from 256 bytes) for the smallest one
// that fits, a chunk much larger than a request is split, and a freed chunk
// merges with free neighbours. Regions are returned only by the destructor.
#include "core/gpu/bfc_allocator.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace tensorweave {
namespace gpu {

namespace {

constexpr size_t kAlignment = 256;                // also the smallest chunk
constexpr int kNumBins = 21;                      // 256 B .. 256 MiB and larger
constexpr size_t kFirstRegion = size_t{2} << 20;  // 2 MiB
// A chunk is split when the rest is at least as large as the request, or
// when keeping it whole would waste this much.
constexpr size_t kMaxInternalFragmentation = size_t{128} << 20;

size_t RoundUp(size_t bytes) {
  if (bytes == 0) return kAlignment;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

int BinFor(size_t bytes) {
  size_t units = std::max<size_t>(bytes, kAlignment) / kAlignment;
  int bin = 0;
  while (units > 1 && bin < kNumBins - 1) {
    units >>= 1;
    ++bin;
  }
  return bin;
}

}  // namespace

struct BFCAllocator::Impl {
  struct Chunk {
    size_t size = 0;
    bool in_use = false;
    char* prev = nullptr;  // the neighbouring chunks of its region
    char* next = nullptr;
  };
  struct Region {
    char* base;
    size_t bytes;
  };

  Impl(std::unique_ptr<SubAllocator> sub, size_t limit)
      : sub_allocator(std::move(sub)),
        memory_limit(limit / kAlignment * kAlignment) {
    stats.bytes_limit = static_cast<int64_t>(memory_limit);
  }

  ~Impl() {
    for (const Region& r : regions) sub_allocator->Free(r.base, r.bytes);
  }

  void InsertFree(char* ptr, size_t size) {
    bins[BinFor(size)].emplace(size, ptr);
  }
  void RemoveFree(char* ptr, size_t size) {
    bins[BinFor(size)].erase({size, ptr});
  }

  // The smallest free chunk of at least `rounded` bytes (nullptr: none).
  // Bins hold increasing size classes, so the first fit of the lowest bin
  // that has one is the best fit overall.
  char* FindFree(size_t rounded) {
    for (int b = BinFor(rounded); b < kNumBins; ++b) {
      auto it = bins[b].lower_bound({rounded, nullptr});
      if (it != bins[b].end()) return it->second;
    }
    return nullptr;
  }

  // A new region large enough for `rounded` bytes; false when the limit or
  // the sub-allocator says no.
  bool Extend(size_t rounded) {
    size_t reserved = static_cast<size_t>(stats.bytes_reserved);
    if (reserved >= memory_limit || memory_limit - reserved < rounded) {
      return false;
    }
    size_t available = memory_limit - reserved;
    size_t want = regions.empty() ? kFirstRegion : regions.back().bytes * 2;
    size_t bytes = std::min(available, std::max(want, rounded));
    void* base = sub_allocator->Alloc(bytes);
    // Failure: ask for less, down to the request itself.
    while (base == nullptr && bytes > rounded) {
      bytes = std::max(rounded, RoundUp(bytes / 2));
      base = sub_allocator->Alloc(bytes);
    }
    if (base == nullptr) return false;
    if (reinterpret_cast<uintptr_t>(base) % kAlignment != 0) {
      std::fprintf(stderr,
                   "BFCAllocator: the sub-allocator returned %p, not "
                   "%zu-byte aligned; not used\n",
                   base, kAlignment);
      sub_allocator->Free(base, bytes);
      return false;
    }
    char* p = static_cast<char*>(base);
    regions.push_back({p, bytes});
    stats.bytes_reserved += static_cast<int64_t>(bytes);
    Chunk chunk;
    chunk.size = bytes;
    chunks[p] = chunk;
    InsertFree(p, bytes);
    return true;
  }

  void* Allocate(size_t bytes) {
    size_t rounded = RoundUp(bytes);
    if (rounded < bytes) return nullptr;  // overflow
    char* ptr = FindFree(rounded);
    if (ptr == nullptr) {
      if (!Extend(rounded)) return nullptr;
      ptr = FindFree(rounded);
      if (ptr == nullptr) return nullptr;
    }
    Chunk& chunk = chunks[ptr];
    RemoveFree(ptr, chunk.size);
    size_t rest = chunk.size - rounded;
    if (rest >= kAlignment &&
        (rest >= rounded || rest >= kMaxInternalFragmentation)) {
      char* tail = ptr + rounded;
      Chunk t;
      t.size = rest;
      t.prev = ptr;
      t.next = chunk.next;
      if (chunk.next != nullptr) chunks[chunk.next].prev = tail;
      chunk.next = tail;
      chunk.size = rounded;
      chunks[tail] = t;
      InsertFree(tail, rest);
    }
    chunk.in_use = true;
    stats.num_allocs += 1;
    stats.bytes_in_use += static_cast<int64_t>(chunk.size);
    stats.peak_bytes_in_use =
        std::max(stats.peak_bytes_in_use, stats.bytes_in_use);
    stats.largest_alloc_size =
        std::max(stats.largest_alloc_size, static_cast<int64_t>(chunk.size));
    return ptr;
  }

  void Deallocate(void* p, const std::string& name) {
    char* ptr = static_cast<char*>(p);
    auto it = chunks.find(ptr);
    if (it == chunks.end() || !it->second.in_use) {
      std::fprintf(stderr,
                   "BFCAllocator %s: Deallocate(%p) of a block it did not "
                   "hand out (or freed twice); ignored\n",
                   name.c_str(), p);
      return;
    }
    Chunk* chunk = &it->second;
    chunk->in_use = false;
    stats.bytes_in_use -= static_cast<int64_t>(chunk->size);
    // Merge with the next chunk, then into the previous one.
    if (chunk->next != nullptr) {
      auto next = chunks.find(chunk->next);
      if (!next->second.in_use) {
        RemoveFree(next->first, next->second.size);
        chunk->size += next->second.size;
        chunk->next = next->second.next;
        if (chunk->next != nullptr) chunks[chunk->next].prev = ptr;
        chunks.erase(next);
      }
    }
    if (chunk->prev != nullptr) {
      auto prev = chunks.find(chunk->prev);
      if (!prev->second.in_use) {
        RemoveFree(prev->first, prev->second.size);
        prev->second.size += chunk->size;
        prev->second.next = chunk->next;
        if (chunk->next != nullptr) chunks[chunk->next].prev = prev->first;
        chunks.erase(ptr);
        ptr = prev->first;
        chunk = &prev->second;
      }
    }
    InsertFree(ptr, chunk->size);
  }

  std::unique_ptr<SubAllocator> sub_allocator;
  const size_t memory_limit;
  mutable std::mutex mu;
  std::vector<Region> regions;
  std::map<char*, Chunk> chunks;  // every chunk of every region, by address
  std::set<std::pair<size_t, char*>> bins[kNumBins];  // free chunks
  Stats stats;
};

BFCAllocator::BFCAllocator(std::unique_ptr<SubAllocator> sub_allocator,
                           size_t memory_limit, std::string name)
    : impl_(std::make_unique<Impl>(std::move(sub_allocator), memory_limit)),
      name_(std::move(name)) {}

BFCAllocator::~BFCAllocator() = default;

void* BFCAllocator::Allocate(size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->Allocate(bytes);
}

void BFCAllocator::Deallocate(void* ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->Deallocate(ptr, name_);
}

size_t BFCAllocator::AllocatedSize(const void* ptr) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->chunks.find(static_cast<char*>(const_cast<void*>(ptr)));
  if (it == impl_->chunks.end() || !it->second.in_use) return 0;
  return it->second.size;
}

BFCAllocator::Stats BFCAllocator::GetStats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

void BFCAllocator::ResetPeak() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->stats.peak_bytes_in_use = impl_->stats.bytes_in_use;
}

}  // namespace gpu
}  // namespace tensorweave
