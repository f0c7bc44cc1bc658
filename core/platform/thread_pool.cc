#include "core/platform/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <system_error>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace tensorweave {
namespace {

constexpr auto kSpin = std::chrono::microseconds(300);

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// A pool's threads run kernels with flush-to-zero, as TensorFlow's pool
// threads do: results below the smallest normal float are 0 (the executor
// sets it around the kernels it runs on other threads, executor.cc).
void FlushDenormalResults() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_setcsr(_mm_getcsr() | 0x8000);  // MXCSR.FTZ
#elif defined(__aarch64__)
  uint64_t fpcr;
  asm volatile("mrs %0, fpcr" : "=r"(fpcr));
  fpcr |= uint64_t{1} << 24;  // FPCR.FZ
  asm volatile("msr fpcr, %0" : : "r"(fpcr));
#endif
}

// Spins until done() returns true or kSpin has passed; returns done(). For
// waits that are usually short, before blocking.
template <typename Done>
bool SpinUntil(const Done& done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (done()) return true;
      CpuRelax();
    }
    // Give the core to a runnable thread, if any: with more threads than
    // cores, the one spinning must not delay the ones working.
    std::this_thread::yield();
    if (std::chrono::steady_clock::now() >= deadline) return done();
  }
}

}  // namespace

int ThreadPool::NumCores() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

namespace {

constexpr int kDefaultMaxThreads = 4096;
std::atomic<int> max_threads{0};  // 0: not yet decided
std::atomic<int> live_threads{0};

int DefaultMaxThreads() {
  if (const char* env = std::getenv("TW_MAX_THREADS")) {
    char* end = nullptr;
    const long value = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && value > 0 && value <= INT32_MAX) {
      return static_cast<int>(value);
    }
  }
  return kDefaultMaxThreads;
}

}  // namespace

int ThreadPool::MaxThreads() {
  int cap = max_threads.load(std::memory_order_relaxed);
  if (cap == 0) {
    cap = DefaultMaxThreads();
    max_threads.store(cap, std::memory_order_relaxed);
  }
  return cap;
}

void ThreadPool::SetMaxThreads(int cap) {
  max_threads.store(cap > 0 ? cap : 0, std::memory_order_relaxed);
}

int ThreadPool::LiveThreads() {
  return live_threads.load(std::memory_order_relaxed);
}

Status ThreadPool::Create(int num_threads, const std::string& name,
                          std::unique_ptr<ThreadPool>* pool) {
  std::unique_ptr<ThreadPool> created(new ThreadPool());
  created->name_ = name;
  TW_RETURN_IF_ERROR(created->Start(num_threads));
  *pool = std::move(created);
  return Status::OK();
}

ThreadPool::ThreadPool(int num_threads, std::string name) {
  name_ = std::move(name);
  Status s = Start(num_threads);
  if (!s.ok()) {
    throw std::system_error(
        std::make_error_code(std::errc::resource_unavailable_try_again),
        s.message());
  }
}

// Reserves the threads against the cap, then starts them; on any failure
// nothing is left running or reserved.
Status ThreadPool::Start(int num_threads) {
  if (num_threads <= 0) num_threads = NumCores();
  const int cap = MaxThreads();
  int live = live_threads.load(std::memory_order_relaxed);
  do {
    if (num_threads > cap - live) {
      return errors::ResourceExhausted(
          "cannot create thread pool '", name_, "' of ", num_threads,
          " threads: tensorweave's thread pools already hold ", live,
          " threads and the cap is ", cap,
          " threads per process (set TW_MAX_THREADS, or ask for fewer "
          "threads: inter_op_parallelism_threads / "
          "intra_op_parallelism_threads)");
    }
  } while (!live_threads.compare_exchange_weak(live, live + num_threads,
                                               std::memory_order_relaxed));
  reserved_ = num_threads;
  try {
    workers_.reserve(num_threads);
    for (int i = 0; i < num_threads; ++i) {
      workers_.emplace_back([this] { WorkerLoop(); });
    }
  } catch (const std::exception& e) {
    const int started = static_cast<int>(workers_.size());
    StopAndJoin();
    return errors::ResourceExhausted(
        "cannot create thread pool '", name_, "' of ", num_threads,
        " threads: the system refused to start thread ", started + 1, " (",
        e.what(),
        "); ask for fewer threads (inter_op_parallelism_threads / "
        "intra_op_parallelism_threads) or raise the process's limits");
  }
  return Status::OK();
}

// Stops and joins the workers that started (only those are in workers_) and
// returns the reservation.
void ThreadPool::StopAndJoin() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
  workers_.clear();
  live_threads.fetch_sub(reserved_, std::memory_order_relaxed);
  reserved_ = 0;
}

ThreadPool::~ThreadPool() { StopAndJoin(); }

void ThreadPool::Schedule(std::function<void()> fn) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
    queued_.fetch_add(1, std::memory_order_release);
    // A spinning worker finds the task itself; only a sleeping one needs the
    // (costly) notification.
    wake = sleepers_ > 0;
  }
  if (wake) cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  FlushDenormalResults();
  for (;;) {
    SpinUntil([this] { return queued_.load(std::memory_order_acquire) > 0; });
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ++sleepers_;
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      --sleepers_;
      if (queue_.empty()) return;  // stopping, and nothing left to run
      fn = std::move(queue_.front());
      queue_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    fn();
  }
}

void ThreadPool::ParallelFor(int64_t total, int64_t min_block,
                             const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  min_block = std::max<int64_t>(min_block, 1);
  const int64_t max_parallel = num_threads() + 1;
  // Rounding down keeps every block but the last at least min_block long.
  const int64_t num_blocks =
      std::min<int64_t>(max_parallel * 4, total / min_block);
  if (num_blocks <= 1) {
    fn(0, total);
    return;
  }
  const int64_t block = (total + num_blocks - 1) / num_blocks;
  // Shared by the helpers, which may start after the loop is over.
  struct State {
    std::atomic<int64_t> next{0};
    std::atomic<int64_t> done{0};
    std::mutex mu;
    std::condition_variable cv;
  };
  auto state = std::make_shared<State>();
  const int64_t count = (total + block - 1) / block;
  auto run_blocks = [state, count, block, total, &fn] {
    for (;;) {
      int64_t b = state->next.fetch_add(1);
      if (b >= count) return;
      fn(b * block, std::min(total, (b + 1) * block));
      if (state->done.fetch_add(1) + 1 == count) {
        std::lock_guard<std::mutex> lock(state->mu);
        state->cv.notify_all();
      }
    }
  };
  const int64_t helpers = std::min<int64_t>(num_threads(), count - 1);
  for (int64_t i = 0; i < helpers; ++i) {
    // `fn` outlives every block: the caller waits for all of them below,
    // and a late helper finds no block left and never touches it.
    Schedule(run_blocks);
  }
  run_blocks();
  if (SpinUntil([&] { return state->done.load() == count; })) return;
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done.load() == count; });
}

}  // namespace tensorweave
