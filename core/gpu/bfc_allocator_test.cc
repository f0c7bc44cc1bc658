// The BFC allocator over host memory: a sub-allocator over aligned_alloc
// that records what it was asked for.
#include "core/gpu/bfc_allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace tensorweave {
namespace gpu {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

struct Calls {
  std::mutex mu;
  std::vector<size_t> allocs;  // sizes of successful Alloc calls
  std::vector<size_t> failed;  // sizes refused
  std::vector<size_t> frees;
};

class HostSubAllocator : public SubAllocator {
 public:
  // `fail_above`: Alloc of more bytes than this returns nullptr (as a
  // driver short of memory).
  HostSubAllocator(Calls* calls, size_t fail_above = SIZE_MAX)
      : calls_(calls), fail_above_(fail_above) {}
  void* Alloc(size_t bytes) override {
    std::lock_guard<std::mutex> lock(calls_->mu);
    if (bytes > fail_above_) {
      calls_->failed.push_back(bytes);
      return nullptr;
    }
    void* p = std::aligned_alloc(256, bytes);
    if (p != nullptr) calls_->allocs.push_back(bytes);
    return p;
  }
  void Free(void* ptr, size_t bytes) override {
    std::lock_guard<std::mutex> lock(calls_->mu);
    calls_->frees.push_back(bytes);
    std::free(ptr);
  }

 private:
  Calls* calls_;
  size_t fail_above_;
};

std::unique_ptr<BFCAllocator> Make(Calls* calls, size_t limit,
                                   size_t fail_above = SIZE_MAX) {
  return std::make_unique<BFCAllocator>(
      std::make_unique<HostSubAllocator>(calls, fail_above), limit, "test_bfc");
}

uintptr_t Addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(BFCAllocatorTest, FreedBlocksAreReusedWithoutNewRegions) {
  Calls calls;
  auto bfc = Make(&calls, 64 * kMiB);
  void* a = bfc->Allocate(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(Addr(a) % 256, 0u);
  EXPECT_EQ(bfc->AllocatedSize(a), 1024u);
  ASSERT_EQ(calls.allocs.size(), 1u);
  EXPECT_EQ(calls.allocs[0], 2 * kMiB);  // the first region
  bfc->Deallocate(a);
  for (int i = 0; i < 100; ++i) {
    void* p = bfc->Allocate(1000);
    ASSERT_EQ(p, a) << "step " << i;
    bfc->Deallocate(p);
  }
  EXPECT_EQ(calls.allocs.size(), 1u);
  EXPECT_EQ(bfc->GetStats().bytes_reserved, static_cast<int64_t>(2 * kMiB));
  EXPECT_EQ(bfc->GetStats().num_allocs, 101);
  EXPECT_EQ(bfc->GetStats().bytes_in_use, 0);
  bfc.reset();
  ASSERT_EQ(calls.frees.size(), 1u);
  EXPECT_EQ(calls.frees[0], 2 * kMiB);
}

TEST(BFCAllocatorTest, ZeroBytesGivesASmallBlock) {
  Calls calls;
  auto bfc = Make(&calls, 4 * kMiB);
  void* p = bfc->Allocate(0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(bfc->AllocatedSize(p), 256u);
  bfc->Deallocate(p);
  bfc->Deallocate(nullptr);  // a no-op
}

TEST(BFCAllocatorTest, BestFitPicksTheSmallestFreeChunkThatFits) {
  Calls calls;
  auto bfc = Make(&calls, 64 * kMiB);
  // Free holes of 8 KiB, 4 KiB and 6 KiB, each between live blocks.
  void* g0 = bfc->Allocate(256);
  void* h8 = bfc->Allocate(8192);
  void* g1 = bfc->Allocate(256);
  void* h4 = bfc->Allocate(4096);
  void* g2 = bfc->Allocate(256);
  void* h6 = bfc->Allocate(6144);
  void* g3 = bfc->Allocate(256);
  for (void* p : {g0, h8, g1, h4, g2, h6, g3}) ASSERT_NE(p, nullptr);
  bfc->Deallocate(h8);
  bfc->Deallocate(h4);
  bfc->Deallocate(h6);
  EXPECT_EQ(bfc->Allocate(5000), h6);  // 5120 fits 6 KiB best
  EXPECT_EQ(bfc->Allocate(4000), h4);  // 4096 exactly
  EXPECT_EQ(bfc->Allocate(7000), h8);
  EXPECT_EQ(calls.allocs.size(), 1u);
}

TEST(BFCAllocatorTest, SplitsLargeChunksAndCoalescesFreedNeighbours) {
  Calls calls;
  auto bfc = Make(&calls, 64 * kMiB);
  void* a = bfc->Allocate(1024);
  void* b = bfc->Allocate(1024);
  void* c = bfc->Allocate(1024);
  // Carved one after another from the first region.
  EXPECT_EQ(Addr(b), Addr(a) + 1024);
  EXPECT_EQ(Addr(c), Addr(b) + 1024);
  EXPECT_EQ(bfc->AllocatedSize(a), 1024u);
  // a and b freed: one 2 KiB chunk (merged), so a 2 KiB request fits at a.
  bfc->Deallocate(b);
  bfc->Deallocate(a);
  void* ab = bfc->Allocate(2048);
  EXPECT_EQ(ab, a);
  EXPECT_EQ(bfc->AllocatedSize(ab), 2048u);
  // Everything freed merges back into the whole region: the largest block
  // possible comes from it without a new region.
  bfc->Deallocate(ab);
  bfc->Deallocate(c);
  void* whole = bfc->Allocate(2 * kMiB);
  EXPECT_EQ(whole, a);
  EXPECT_EQ(calls.allocs.size(), 1u);
  bfc->Deallocate(whole);
  // A request of a little more than half a free chunk takes all of it (no
  // tiny remainder split off).
  void* big = bfc->Allocate(kMiB + 256);
  EXPECT_EQ(bfc->AllocatedSize(big), 2 * kMiB);
}

TEST(BFCAllocatorTest, GrowsByDoublingAtLeastTheRequestWithinTheLimit) {
  Calls calls;
  auto bfc = Make(&calls, 20 * kMiB);
  void* a = bfc->Allocate(2 * kMiB);   // the whole first region (2 MiB)
  void* b = bfc->Allocate(1 * kMiB);   // a new region of 4 MiB
  void* c = bfc->Allocate(10 * kMiB);  // 8 MiB would not do: 10 MiB
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(calls.allocs.size(), 3u);
  EXPECT_EQ(calls.allocs[0], 2 * kMiB);
  EXPECT_EQ(calls.allocs[1], 4 * kMiB);
  EXPECT_EQ(calls.allocs[2], 10 * kMiB);
  // 16 MiB reserved, 4 left: doubling (20 MiB) is cut to the limit.
  void* d = bfc->Allocate(4 * kMiB - 3 * kMiB);  // fits b's region's rest
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(calls.allocs.size(), 3u);
  void* e = bfc->Allocate(3 * kMiB);
  ASSERT_NE(e, nullptr);
  ASSERT_EQ(calls.allocs.size(), 4u);
  EXPECT_EQ(calls.allocs[3], 4 * kMiB);
  EXPECT_EQ(bfc->GetStats().bytes_reserved, static_cast<int64_t>(20 * kMiB));
}

TEST(BFCAllocatorTest, RetriesSmallerWhenTheSubAllocatorRefuses) {
  Calls calls;
  // The "driver" gives at most 3 MiB at once.
  auto bfc = Make(&calls, 1024 * kMiB, 3 * kMiB);
  void* a = bfc->Allocate(2 * kMiB);
  ASSERT_NE(a, nullptr);
  void* b = bfc->Allocate(1 * kMiB);  // 4 MiB refused, then 2 MiB
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(calls.failed.size(), 1u);
  EXPECT_EQ(calls.failed[0], 4 * kMiB);
  EXPECT_EQ(calls.allocs.back(), 2 * kMiB);
  // A request the sub-allocator can never satisfy: nullptr, no crash.
  EXPECT_EQ(bfc->Allocate(5 * kMiB), nullptr);
  void* c = bfc->Allocate(1 * kMiB);  // still works
  EXPECT_NE(c, nullptr);
}

TEST(BFCAllocatorTest, ReturnsNullBeyondTheLimit) {
  Calls calls;
  auto bfc = Make(&calls, 8 * kMiB);
  EXPECT_EQ(bfc->Allocate(8 * kMiB + 1), nullptr);
  EXPECT_TRUE(calls.allocs.empty());  // not even tried
  void* a = bfc->Allocate(6 * kMiB);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(bfc->Allocate(3 * kMiB), nullptr);  // 2 MiB left
  void* b = bfc->Allocate(2 * kMiB);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(bfc->Allocate(256), nullptr);
  bfc->Deallocate(a);
  void* c = bfc->Allocate(5 * kMiB);  // reused, within the limit
  EXPECT_EQ(c, a);
  EXPECT_EQ(bfc->GetStats().bytes_limit, static_cast<int64_t>(8 * kMiB));
  EXPECT_LE(bfc->GetStats().bytes_reserved, static_cast<int64_t>(8 * kMiB));
}

TEST(BFCAllocatorTest, StatsAndPeak) {
  Calls calls;
  auto bfc = Make(&calls, 64 * kMiB);
  BFCAllocator::Stats s = bfc->GetStats();
  EXPECT_EQ(s.num_allocs, 0);
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.peak_bytes_in_use, 0);
  EXPECT_EQ(s.bytes_reserved, 0);
  void* a = bfc->Allocate(1000);   // 1024
  void* b = bfc->Allocate(10000);  // 10240
  s = bfc->GetStats();
  EXPECT_EQ(s.num_allocs, 2);
  EXPECT_EQ(s.bytes_in_use, 1024 + 10240);
  EXPECT_EQ(s.peak_bytes_in_use, 1024 + 10240);
  EXPECT_EQ(s.largest_alloc_size, 10240);
  bfc->Deallocate(b);
  s = bfc->GetStats();
  EXPECT_EQ(s.bytes_in_use, 1024);
  EXPECT_EQ(s.peak_bytes_in_use, 1024 + 10240);
  bfc->ResetPeak();
  EXPECT_EQ(bfc->GetStats().peak_bytes_in_use, 1024);
  void* c = bfc->Allocate(512);
  EXPECT_EQ(bfc->GetStats().peak_bytes_in_use, 1024 + 512);
  bfc->Deallocate(a);
  bfc->Deallocate(c);
  EXPECT_EQ(bfc->GetStats().bytes_in_use, 0);
  EXPECT_EQ(bfc->GetStats().num_allocs, 3);
  EXPECT_EQ(bfc->name(), "test_bfc");
}

TEST(BFCAllocatorTest, ManyThreads) {
  Calls calls;
  auto bfc = Make(&calls, 256 * kMiB);
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<int> bad(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<std::pair<unsigned char*, size_t>> live;
      for (int i = 0; i < 2000; ++i) {
        if (live.size() < 20 && (live.empty() || rng() % 2 == 0)) {
          size_t n = 1 + rng() % 20000;
          auto* p = static_cast<unsigned char*>(bfc->Allocate(n));
          if (p == nullptr) {
            ++bad[t];
            continue;
          }
          std::memset(p, t + 1, n);  // each thread's own bytes
          live.emplace_back(p, n);
        } else {
          size_t k = rng() % live.size();
          auto [p, n] = live[k];
          for (size_t j = 0; j < n; j += 97) bad[t] += p[j] != t + 1;
          bfc->Deallocate(p);
          live.erase(live.begin() + k);
        }
      }
      for (auto [p, n] : live) bfc->Deallocate(p);
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;
  EXPECT_EQ(bfc->GetStats().bytes_in_use, 0);
}

TEST(BFCAllocatorTest, RandomizedAgainstAReferenceOfLiveRanges) {
  Calls calls;
  auto bfc = Make(&calls, 48 * kMiB);
  std::mt19937_64 rng(42);
  std::map<uintptr_t, size_t> live;  // start -> usable size
  int64_t expected_in_use = 0;
  int nulls = 0;
  for (int i = 0; i < 20000; ++i) {
    bool alloc = live.empty() || rng() % 100 < 55;
    if (alloc) {
      // Mostly small, sometimes up to several MiB.
      size_t n = rng() % 10 == 0 ? rng() % (6 * kMiB) : rng() % 40000;
      void* p = bfc->Allocate(n);
      if (p == nullptr) {
        ++nulls;
        // Refused only when no free chunk fits and the limit leaves no
        // room for a region of this size (the host never refuses).
        size_t rounded = (n + 255) / 256 * 256;
        EXPECT_GT(static_cast<size_t>(bfc->GetStats().bytes_reserved) +
                      std::max<size_t>(rounded, 256),
                  48 * kMiB)
            << "step " << i << ": " << n << " bytes refused";
        continue;
      }
      uintptr_t a = Addr(p);
      size_t size = bfc->AllocatedSize(p);
      ASSERT_EQ(a % 256, 0u) << "step " << i;
      ASSERT_GE(size, n) << "step " << i;
      ASSERT_EQ(size % 256, 0u);
      // No overlap with the live block before or after it.
      auto next = live.lower_bound(a);
      if (next != live.end()) {
        ASSERT_LE(a + size, next->first) << "step " << i;
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, a) << "step " << i;
      }
      live[a] = size;
      expected_in_use += static_cast<int64_t>(size);
    } else {
      auto it = live.begin();
      std::advance(it, rng() % live.size());
      expected_in_use -= static_cast<int64_t>(it->second);
      bfc->Deallocate(reinterpret_cast<void*>(it->first));
      live.erase(it);
    }
    ASSERT_EQ(bfc->GetStats().bytes_in_use, expected_in_use) << "step " << i;
  }
  for (auto [a, size] : live) bfc->Deallocate(reinterpret_cast<void*>(a));
  EXPECT_EQ(bfc->GetStats().bytes_in_use, 0);
  EXPECT_LE(bfc->GetStats().bytes_reserved, static_cast<int64_t>(48 * kMiB));
  // Everything coalesced: the largest region is one free block again.
  size_t largest = 0;
  for (size_t r : calls.allocs) largest = std::max(largest, r);
  void* p = bfc->Allocate(largest);
  EXPECT_NE(p, nullptr);
  size_t regions = calls.allocs.size();
  bfc->Deallocate(p);
  EXPECT_EQ(calls.allocs.size(), regions);
}

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
