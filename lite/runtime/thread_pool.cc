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
constexpr int kGenerationShift = 40;
constexpr int kTasksShift = 32;

uint64_t GenerationOf(uint64_t work) { return work >> kGenerationShift; }
}  // namespace

ThreadPool::ThreadPool(int num_threads)
    : num_threads_(num_threads < 1 ? 1 : num_threads) {
  for (int w = 1; w < num_threads_; ++w) {
    workers_.emplace_back([this] { WorkerLoop(); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
    work_.fetch_add(uint64_t{1} << kGenerationShift);
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::RunTasks(uint64_t generation) {
  uint64_t work = work_.load(std::memory_order_acquire);
  for (;;) {
    if (GenerationOf(work) != generation) return;
    uint32_t next = static_cast<uint32_t>(work);
    uint32_t tasks = static_cast<uint32_t>(work >> kTasksShift) & 0xff;
    if (next >= tasks) return;
    if (work_.compare_exchange_weak(work, work + 1,
                                    std::memory_order_acq_rel)) {
      fn_(arg_, static_cast<int>(next));  // the job cannot change until done
      done_.fetch_add(1, std::memory_order_release);
      work = work_.load(std::memory_order_acquire);
    }
  }
}

void ThreadPool::Run(int num_tasks, void (*fn)(void*, int), void* arg) {
  if (num_tasks <= 1 || num_threads_ == 1) {
    for (int t = 0; t < num_tasks; ++t) fn(arg, t);
    return;
  }
  if (num_tasks > 255) num_tasks = 255;
  fn_ = fn;
  arg_ = arg;
  done_.store(0, std::memory_order_relaxed);
  generation_ = (generation_ + 1) & ((uint64_t{1} << 24) - 1);
  work_.store((generation_ << kGenerationShift) |
              (static_cast<uint64_t>(num_tasks) << kTasksShift));
  if (sleeping_.load() > 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  RunTasks(generation_);
  for (int i = 0; done_.load(std::memory_order_acquire) != num_tasks; ++i) {
    TWL_CPU_RELAX();
    if ((i & 1023) == 1023) std::this_thread::yield();  // worker preempted
  }
}

void ThreadPool::WorkerLoop() {
  // Generation 0 is the state at construction, before any job or stop; a
  // worker that starts late still sees every later change.
  uint64_t seen = 0;
  for (;;) {
    // Spin, then sleep, until a new job is published.
    auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
    uint64_t now = GenerationOf(work_.load(std::memory_order_acquire));
    for (int i = 0; now == seen; ++i) {
      TWL_CPU_RELAX();
      if ((i & 255) == 255 && std::chrono::steady_clock::now() > spin_until) {
        std::unique_lock<std::mutex> lock(mutex_);
        sleeping_.fetch_add(1);
        wake_.wait(lock, [&] { return GenerationOf(work_.load()) != seen; });
        sleeping_.fetch_sub(1, std::memory_order_relaxed);
      }
      now = GenerationOf(work_.load(std::memory_order_acquire));
    }
    seen = now;
    if (stop_.load()) return;
    RunTasks(now);
  }
}

}  // namespace twl
