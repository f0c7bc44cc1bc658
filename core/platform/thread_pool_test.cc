#include "core/platform/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace tensorweave {
namespace {

TEST(ThreadPoolTest, NumThreads) {
  ThreadPool three(3, "t");
  EXPECT_EQ(three.num_threads(), 3);
  ThreadPool cores(0, "t");
  EXPECT_EQ(cores.num_threads(), ThreadPool::NumCores());
  EXPECT_GE(ThreadPool::NumCores(), 1);
}

TEST(ThreadPoolTest, ParallelForCoversEveryIndexOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads, "pf");
    for (int64_t total : {0, 1, 2, 3, 7, 16, 17, 100, 1000, 4099, 100000}) {
      for (int64_t min_block : {-1, 0, 1, 3, 16, 1000, 1 << 20}) {
        std::vector<std::atomic<int>> hits(total);
        for (auto& h : hits) h.store(0);
        std::atomic<int64_t> calls{0};
        std::atomic<bool> bad_range{false};
        pool.ParallelFor(total, min_block, [&](int64_t begin, int64_t end) {
          ++calls;
          if (begin < 0 || end > total || begin >= end) bad_range = true;
          // Blocks are at least min_block long, except possibly the last.
          if (min_block > 1 && end - begin < min_block && end != total) {
            bad_range = true;
          }
          for (int64_t i = begin; i < end; ++i) hits[i].fetch_add(1);
        });
        EXPECT_FALSE(bad_range) << total << " " << min_block;
        for (int64_t i = 0; i < total; ++i) {
          ASSERT_EQ(hits[i].load(), 1)
              << "index " << i << " total " << total << " min_block "
              << min_block << " threads " << threads;
        }
        if (total == 0) EXPECT_EQ(calls.load(), 0);
        if (total > 0 && min_block >= total) EXPECT_EQ(calls.load(), 1);
      }
    }
  }
}

TEST(ThreadPoolTest, ParallelForUsesSeveralThreads) {
  ThreadPool pool(3, "pf");
  std::mutex mu;
  std::set<std::thread::id> ids;
  pool.ParallelFor(8, 1, [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_GE(ids.size(), 2u);
}

TEST(ThreadPoolTest, NestedParallelForDoesNotDeadlock) {
  ThreadPool pool(2, "nested");
  std::atomic<int64_t> sum{0};
  pool.ParallelFor(8, 1, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      pool.ParallelFor(100, 1, [&](int64_t b2, int64_t e2) {
        for (int64_t j = b2; j < e2; ++j) sum += j;
      });
    }
  });
  EXPECT_EQ(sum.load(), 8 * (99 * 100 / 2));
}

TEST(ThreadPoolTest, ScheduleRunsAllTasks) {
  std::atomic<int> count{0};
  std::atomic<int64_t> sum{0};
  {
    ThreadPool pool(4, "sched");
    for (int i = 1; i <= 1000; ++i) {
      pool.Schedule([&count, &sum, i] {
        sum += i;
        ++count;
      });
    }
    // Wait without relying on the destructor.
    for (int spin = 0; spin < 5000 && count.load() < 1000; ++spin) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(count.load(), 1000);
  }
  EXPECT_EQ(sum.load(), 1000 * 1001 / 2);
}

TEST(ThreadPoolTest, WorkersThatWentToSleepAreWokenForNewWork) {
  // Idle workers spin for a while, then block; work scheduled after that
  // (here: after 5 ms idle) must still wake them, for tasks and for loops.
  ThreadPool pool(2, "sleepy");
  for (int round = 0; round < 3; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::atomic<int> done{0};
    std::mutex mu;
    std::set<std::thread::id> ids;
    for (int i = 0; i < 2; ++i) {
      pool.Schedule([&] {
        {
          std::lock_guard<std::mutex> lock(mu);
          ids.insert(std::this_thread::get_id());
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        ++done;
      });
    }
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (done.load() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    ASSERT_EQ(done.load(), 2) << "round " << round;
    EXPECT_EQ(ids.size(), 2u) << "both sleeping workers woke";
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::atomic<int64_t> sum{0};
    pool.ParallelFor(1000, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum += i;
    });
    EXPECT_EQ(sum.load(), 999 * 1000 / 2);
  }
}

TEST(ThreadPoolTest, DestructionRunsQueuedTasksAndJoins) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(2, "join");
    for (int i = 0; i < 20; ++i) {
      pool.Schedule([&done] {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++done;
      });
    }
  }  // destructor: every queued task has run, every worker has exited
  EXPECT_EQ(done.load(), 20);
}

TEST(ThreadPoolTest, TasksMayScheduleMoreTasks) {
  std::atomic<int> done{0};
  {
    ThreadPool pool(2, "chain");
    pool.Schedule([&] {
      for (int i = 0; i < 10; ++i) pool.Schedule([&done] { ++done; });
      ++done;
    });
    for (int spin = 0; spin < 5000 && done.load() < 11; ++spin) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  EXPECT_EQ(done.load(), 11);
}

TEST(ThreadPoolTest, ThreadsAreCountedAndReturned) {
  const int before = ThreadPool::LiveThreads();
  {
    std::unique_ptr<ThreadPool> pool;
    ASSERT_TRUE(ThreadPool::Create(5, "counted", &pool).ok());
    EXPECT_EQ(pool->num_threads(), 5);
    EXPECT_EQ(ThreadPool::LiveThreads(), before + 5);
  }
  EXPECT_EQ(ThreadPool::LiveThreads(), before);
}

TEST(ThreadPoolTest, CapIsReportedNamingThePoolAndTheCap) {
  const int before = ThreadPool::LiveThreads();
  ThreadPool::SetMaxThreads(before + 4);
  std::unique_ptr<ThreadPool> ok;
  ASSERT_TRUE(ThreadPool::Create(4, "fits", &ok).ok());
  std::unique_ptr<ThreadPool> over;
  Status s = ThreadPool::Create(1, "one_too_many", &over);
  EXPECT_EQ(s.code(), Code::kResourceExhausted);
  EXPECT_EQ(over, nullptr);
  EXPECT_NE(s.message().find("one_too_many"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cap is " + std::to_string(before + 4)),
            std::string::npos)
      << s.message();
  // The constructor reports the same failure as an exception, never a hang
  // or std::terminate.
  EXPECT_THROW(ThreadPool(2, "ctor"), std::system_error);
  EXPECT_EQ(ThreadPool::LiveThreads(), before + 4);
  ok.reset();
  EXPECT_EQ(ThreadPool::LiveThreads(), before);
  ASSERT_TRUE(ThreadPool::Create(4, "after", &over).ok());
  over.reset();
  ThreadPool::SetMaxThreads(0);
  EXPECT_EQ(ThreadPool::MaxThreads(), 4096);  // TW_MAX_THREADS unset in tests
}

}  // namespace
}  // namespace tensorweave
