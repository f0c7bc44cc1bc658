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
