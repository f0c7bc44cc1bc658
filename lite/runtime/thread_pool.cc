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
// How long the caller gives a spinning worker to pick up its task before
// taking it over.
constexpr auto kPickUpTime = std::chrono::microseconds(3);

constexpr uint64_t kPending = 0, kRunning = 1, kDone = 2;
uint64_t State(uint64_t generation, uint64_t s) { return generation << 2 | s; }
}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(
          num_threads < 1
              ? 1
              : (num_threads > kMaxThreads ? kMaxThreads : num_threads)) {
  for (auto& state : task_state_) state.store(State(0, kDone));
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

bool ThreadPool::TryRun(int t, uint64_t generation) {
  uint64_t expected = State(generation, kPending);
  if (!task_state_[t].compare_exchange_strong(
          expected, State(generation, kRunning), std::memory_order_acq_rel)) {
    return false;
  }
  fn_(arg_, t);  // the job cannot change until every task is done
  task_state_[t].store(State(generation, kDone), std::memory_order_release);
  return true;
}

void ThreadPool::Run(int num_tasks, void (*fn)(void*, int), void* arg) {
  if (num_tasks > num_threads_) num_tasks = num_threads_;
  if (num_tasks <= 1) {
    if (num_tasks == 1) fn(arg, 0);
    return;
  }
  const uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
  fn_ = fn;
  arg_ = arg;
  num_tasks_ = num_tasks;
  for (int t = 0; t < num_tasks; ++t) {
    task_state_[t].store(State(generation, kPending),
                         std::memory_order_relaxed);
  }
  generation_.store(generation);  // publishes the job
  const bool any_asleep = sleeping_.load() > 0;
  if (any_asleep) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  TryRun(0, generation);
  for (int t = 1; t < num_tasks; ++t) {
    // Give the owner a moment to pick its task up (none if workers slept),
    // then run it here; then wait for it to finish.
    if (!any_asleep) {
      auto deadline = std::chrono::steady_clock::now() + kPickUpTime;
      while (task_state_[t].load(std::memory_order_acquire) ==
                 State(generation, kPending) &&
             std::chrono::steady_clock::now() < deadline) {
        TWL_CPU_RELAX();
      }
    }
    TryRun(t, generation);
    for (int i = 0; task_state_[t].load(std::memory_order_acquire) !=
                    State(generation, kDone);
         ++i) {
      TWL_CPU_RELAX();
      if ((i & 1023) == 1023) std::this_thread::yield();  // owner preempted
    }
  }
}

void ThreadPool::WorkerLoop(int worker) {
  // Generation 0 is the state at construction, before any job or stop; a
  // worker that starts late still sees every later change.
  uint64_t seen = 0;
  for (;;) {
    // Spin, then sleep, until a new job is published.
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
    TryRun(worker, now);  // fails if not part of this job or taken over
  }
}

}  // namespace twl
