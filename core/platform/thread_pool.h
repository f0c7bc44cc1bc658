// A fixed pool of worker threads, and parallel loops over it in which the
// calling thread takes part (so a loop never waits on a busy pool).
//
// An idle worker, and a loop's caller waiting for its helpers, spin for a
// few hundred microseconds (yielding the core to any runnable thread) before
// they block: a step hands work between threads every few microseconds to a
// millisecond, and a wake-up through the kernel costs 10-50 us on a virtual
// machine (300 us measured ~10% faster MLP training steps than 50 us).
#ifndef TENSORWEAVE_CORE_PLATFORM_THREAD_POOL_H_
#define TENSORWEAVE_CORE_PLATFORM_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/framework/status.h"

namespace tensorweave {

// Threads are counted process-wide against a cap (MaxThreads()); a pool that
// would pass it, or whose threads cannot all be started (std::thread throws
// std::system_error when the system refuses one: thread limits, address
// space), is not created: the threads it did start are stopped and joined
// (never one that did not start) and the failure is reported.
class ThreadPool {
 public:
  // The checked form: ResourceExhausted naming the pool, the threads asked
  // for and the cap (or the system's refusal). num_threads <= 0 means one
  // per core.
  static Status Create(int num_threads, const std::string& name,
                       std::unique_ptr<ThreadPool>* pool);
  // Throws std::system_error (with Create's message) where Create fails.
  ThreadPool(int num_threads, std::string name);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn);
  int num_threads() const { return static_cast<int>(workers_.size()); }

  // Calls fn(begin, end) on disjoint blocks covering [0, total), on the pool
  // and the calling thread, and returns when all are done. Blocks hold at
  // least `min_block` units; small loops run inline.
  void ParallelFor(int64_t total, int64_t min_block,
                   const std::function<void(int64_t, int64_t)>& fn);

  // Cores of this machine.
  static int NumCores();

  // The most threads all pools of the process may hold together: 4096, or
  // TW_MAX_THREADS when set (read once); SetMaxThreads changes it (0: back
  // to that default), for tests and embedders.
  static int MaxThreads();
  static void SetMaxThreads(int max_threads);
  // Threads held by live pools now.
  static int LiveThreads();

 private:
  ThreadPool() = default;
  Status Start(int num_threads);
  void StopAndJoin();
  void WorkerLoop();

  std::string name_;
  int reserved_ = 0;  // threads counted against MaxThreads()

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::atomic<int64_t> queued_{0};  // queue_.size(), read without mu_
  int sleepers_ = 0;                // workers blocked on cv_
  bool stopping_ = false;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_PLATFORM_THREAD_POOL_H_
