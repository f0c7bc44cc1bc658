#include "lite/runtime/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
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

TEST(ThreadPoolTest, ParallelForBalancedCoversRangeOnceInGrains) {
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 7, 100, 1001}) {
      for (int64_t grain : {1, 3, 16}) {
        std::vector<std::atomic<int>> hits(n);
        for (int repeat = 0; repeat < 20; ++repeat) {
          pool.ParallelForBalanced(n, grain, threads,
                                   [&](int64_t b, int64_t e) {
                                     ASSERT_EQ(b % grain, 0);
                                     ASSERT_TRUE(e % grain == 0 || e == n) << e;
                                     ASSERT_LT(b, e);
                                     for (int64_t i = b; i < e; ++i) hits[i]++;
                                   });
        }
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 20) << i;
      }
    }
  }
}

// A worker that stalls in its first chunk (as one descheduled on a busy
// machine) holds up only that chunk: the caller runs its own range, then
// every chunk of the worker's range that the worker has not started.
TEST(ThreadPoolTest, ParallelForBalancedTakesOverAStalledTasksChunks) {
  ThreadPool pool(2);
  const std::thread::id caller = std::this_thread::get_id();
  for (int repeat = 0; repeat < 5; ++repeat) {
    std::atomic<int> on_caller{0}, total{0};
    std::atomic<bool> stalled{false};
    pool.ParallelForBalanced(64, 1, 2, [&](int64_t b, int64_t e) {
      if (std::this_thread::get_id() != caller && !stalled.exchange(true)) {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
      }
      if (std::this_thread::get_id() == caller) on_caller += e - b;
      total += e - b;
    });
    EXPECT_EQ(total.load(), 64);
    // Its own 32, and all of the worker's 32 but the first chunk of 8.
    EXPECT_GE(on_caller.load(), 56);
  }
}

TEST(ThreadPoolTest, ParallelForTasksGivesEachRangeItsOwnTask) {
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 2, 24, 1001}) {
      std::vector<std::atomic<int>> hits(n);
      std::atomic<int> tasks_seen{0};
      pool.ParallelForTasks(n, 1, threads, [&](int t, int64_t b, int64_t e) {
        ASSERT_GE(t, 0);
        ASSERT_LT(t, threads);
        // Each task index is used once: its bit is set exactly once.
        ASSERT_EQ(tasks_seen.fetch_or(1 << t) & (1 << t), 0);
        for (int64_t i = b; i < e; ++i) hits[i]++;
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1);
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

TEST(ThreadPoolTest, DestroyRightAfterCreateAndReuse) {
  for (int i = 0; i < 200; ++i) {
    ThreadPool pool(3);  // workers may start after the destructor begins
    if (i % 2) {
      std::atomic<int> n{0};
      pool.ParallelFor(10, 1, 3, [&](int64_t b, int64_t e) { n += e - b; });
      EXPECT_EQ(n.load(), 10);
    }
  }
}

TEST(ThreadPoolTest, ManyJobsBackToBack) {
  ThreadPool pool(2);
  int64_t total = 0;
  std::vector<int64_t> sums(2);
  for (int job = 0; job < 20000; ++job) {
    sums[0] = sums[1] = 0;
    pool.Run(
        2, [](void* arg, int t) { static_cast<int64_t*>(arg)[t] += t + 1; },
        sums.data());
    total += sums[0] + sums[1];
  }
  EXPECT_EQ(total, 20000 * 3);
}

}  // namespace
}  // namespace twl
