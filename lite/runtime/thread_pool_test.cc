#include "lite/runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace twl {
namespace {

TEST(ThreadPoolTest, ParallelForCoversRangeOnce) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 7, 100, 1001}) {
      std::vector<std::atomic<int>> hits(n);
      for (int repeat = 0; repeat < 50; ++repeat) {
        pool.ParallelFor(n, 3, threads, [&](int64_t b, int64_t e) {
          for (int64_t i = b; i < e; ++i) hits[i]++;
        });
      }
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 50);
    }
  }
}

TEST(ThreadPoolTest, RunUsesDistinctTasks) {
  ThreadPool pool(4);
  for (int tasks = 1; tasks <= 4; ++tasks) {
    std::atomic<int> mask{0};
    pool.Run(
        tasks,
        [](void* arg, int t) {
          static_cast<std::atomic<int>*>(arg)->fetch_or(1 << t);
        },
        &mask);
    EXPECT_EQ(mask.load(), (1 << tasks) - 1);
  }
}

TEST(ThreadPoolTest, WakesAfterSleeping) {
  ThreadPool pool(2);
  std::atomic<int> count{0};
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    pool.ParallelFor(2, 1, 2, [&](int64_t b, int64_t e) { count += e - b; });
  }
  EXPECT_EQ(count.load(), 6);
}

}  // namespace
}  // namespace twl
