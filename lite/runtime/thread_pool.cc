#include "lite/runtime/thread_pool.h"

#include <chrono>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TWL_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define TWL_CPU_RELAX() asm volatile("yield" ::: "memory")
#else
#define TWL_CPU_RELAX() ((void)0)
#endif

namespace twl {
namespace {
// How long an idle worker spins before sleeping.
constexpr auto kSpinTime = std::chrono::microseconds(300);
}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(num_threads < 1 ? 1 : num_threads) {
  for (int w = 1; w < num_threads_; ++w) {
    workers_.emplace_back([this, w] { WorkerLoop(w); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Run(int num_tasks, void (*fn)(void*, int), void* arg) {
  if (num_tasks > num_threads_) num_tasks = num_threads_;
  if (num_tasks <= 1) {
    if (num_tasks == 1) fn(arg, 0);
    return;
  }
  fn_ = fn;
  arg_ = arg;
  num_tasks_ = num_tasks;
  // Every worker acknowledges every generation, so none can read a later
  // job's fields while still on an earlier one.
  pending_.store(num_threads_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1);
  if (sleeping_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  fn(arg, 0);
  while (pending_.load(std::memory_order_acquire) != 0) TWL_CPU_RELAX();
}

void ThreadPool::WorkerLoop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    // Spin, then sleep, until the generation moves.
    auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
    uint64_t now = generation_.load(std::memory_order_acquire);
    for (int i = 0; now == seen; ++i) {
      TWL_CPU_RELAX();
      if ((i & 255) == 255 && std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleeping_.fetch_add(1);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
        sleeping_.fetch_sub(1, std::memory_order_relaxed);
      }
      now = generation_.load(std::memory_order_acquire);
    }
    seen = now;
    if (stop_.load()) return;
    if (worker < num_tasks_) fn_(arg_, worker);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

}  // namespace twl
