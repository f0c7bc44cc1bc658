// ThreadPool: a tiny persistent pool for intra-op parallelism. Task t runs
// on thread t (the caller is thread 0), so a kernel's share of the weights
// stays in the same core's cache from one Invoke to the next. A task whose
// worker has not picked it up soon (asleep, or descheduled on a busy
// machine) is taken over by the caller instead of waited for. Idle workers
// spin briefly (low wake-up latency for microsecond-scale kernels), then
// sleep on a condition variable. Running work allocates nothing.
#ifndef TENSORWEAVE_LITE_RUNTIME_THREAD_POOL_H_
#define TENSORWEAVE_LITE_RUNTIME_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace twl {

class ThreadPool {
 public:
  // `num_threads` counts the caller: 1 means no worker threads.
  explicit ThreadPool(int num_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int num_threads() const { return num_threads_; }

  // Runs fn(arg, t) for every t in [0, num_tasks), num_tasks <=
  // num_threads(), and returns when all are done.
  void Run(int num_tasks, void (*fn)(void* arg, int task), void* arg);

  // Splits [0, n) into at most num_threads() contiguous ranges whose sizes
  // are multiples of `grain` (except the last) and calls f(begin, end) on
  // each. Runs inline when one range suffices.
  template <typename F>
  void ParallelFor(int64_t n, int64_t grain, int max_tasks, F&& f) {
    ParallelForTasks(n, grain, max_tasks,
                     [&f](int, int64_t begin, int64_t end) { f(begin, end); });
  }

  // ParallelFor for work whose ranges need no scratch of their own (f may
  // run on any thread, any number of times): task t starts on its own range
  // (the range ParallelFor gives it, so on a quiet machine each thread
  // keeps the same part of the data from one call to the next), in chunks
  // of about a quarter of it, then takes the chunks other tasks have not
  // started. On a busy machine a worker that is descheduled, or wakes up
  // late, then holds up at most the one chunk it is running instead of its
  // whole share. Allocates nothing.
  template <typename F>
  void ParallelForBalanced(int64_t n, int64_t grain, int max_tasks, F&& f) {
    if (grain < 1) grain = 1;
    const int64_t chunks = (n + grain - 1) / grain;
    int tasks = num_threads_ < max_tasks ? num_threads_ : max_tasks;
    if (chunks < tasks) tasks = static_cast<int>(chunks);
    if (tasks <= 1) {
      if (n > 0) f(int64_t{0}, n);
      return;
    }
    struct alignas(64) Range {
      std::atomic<int64_t> next;
      int64_t end;
    };
    struct Job {
      F* f;
      int64_t grain, n, step;  // step: chunk size, in grains
      int tasks;
      Range ranges[kMaxThreads];
    } job;
    job.f = &f;
    job.grain = grain;
    job.n = n;
    job.tasks = tasks;
    job.step = chunks / tasks / 4 > 1 ? chunks / tasks / 4 : 1;
    for (int t = 0; t < tasks; ++t) {
      job.ranges[t].next.store(chunks * t / tasks, std::memory_order_relaxed);
      job.ranges[t].end = chunks * (t + 1) / tasks;
    }
    Run(
        tasks,
        [](void* arg, int t) {
          Job* j = static_cast<Job*>(arg);
          for (int k = 0; k < j->tasks; ++k) {
            Range& r = j->ranges[(t + k) % j->tasks];
            for (;;) {
              const int64_t c = r.next.fetch_add(j->step);
              if (c >= r.end) break;
              const int64_t c_end = c + j->step < r.end ? c + j->step : r.end;
              const int64_t end =
                  c_end * j->grain < j->n ? c_end * j->grain : j->n;
              (*j->f)(c * j->grain, end);
            }
          }
        },
        &job);
  }

  // ParallelFor that also passes each range's task index t, in [0,
  // max_tasks): for work that needs scratch of its own per task.
  template <typename F>
  void ParallelForTasks(int64_t n, int64_t grain, int max_tasks, F&& f) {
    if (grain < 1) grain = 1;
    int64_t chunks = (n + grain - 1) / grain;
    int tasks = num_threads_ < max_tasks ? num_threads_ : max_tasks;
    if (chunks < tasks) tasks = static_cast<int>(chunks);
    if (tasks <= 1) {
      if (n > 0) f(0, int64_t{0}, n);
      return;
    }
    struct Job {
      F* f;
      int64_t n, grain, chunks;
      int tasks;
    } job{&f, n, grain, chunks, tasks};
    Run(
        tasks,
        [](void* arg, int t) {
          Job* j = static_cast<Job*>(arg);
          int64_t begin = j->chunks * t / j->tasks * j->grain;
          int64_t end = j->chunks * (t + 1) / j->tasks * j->grain;
          if (end > j->n) end = j->n;
          if (begin < end) (*j->f)(t, begin, end);
        },
        &job);
  }

 private:
  static constexpr int kMaxThreads = 64;

  void WorkerLoop(int worker);
  // Runs task t of job `generation` unless another thread claimed it first.
  bool TryRun(int t, uint64_t generation);

  int num_threads_;
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> sleeping_{0};
  std::atomic<bool> stop_{false};
  // Per task: generation << 2 | {0 pending, 1 running, 2 done}.
  std::atomic<uint64_t> task_state_[kMaxThreads];
  // The current job; stable while any of its tasks runs.
  void (*fn_)(void*, int) = nullptr;
  void* arg_ = nullptr;
  int num_tasks_ = 0;
};

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_THREAD_POOL_H_
