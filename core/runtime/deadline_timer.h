// DeadlineTimer: runs a callback once a deadline passes, unless cancelled
// first. One thread serves every timer of the process (started on first
// use); callbacks run on it and must be short (a step's timeout hands its
// cancellation to a pool).
#ifndef TENSORWEAVE_CORE_RUNTIME_DEADLINE_TIMER_H_
#define TENSORWEAVE_CORE_RUNTIME_DEADLINE_TIMER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

namespace tensorweave {

class DeadlineTimer {
 public:
  using Clock = std::chrono::steady_clock;
  using Id = int64_t;

  // Leaked on purpose: timers may be cancelled during static destruction.
  static DeadlineTimer* Global() {
    static DeadlineTimer* timer = new DeadlineTimer;
    return timer;
  }

  // Runs `fn` on the timer's thread after `timeout_ms` milliseconds.
  Id Schedule(int64_t timeout_ms, std::function<void()> fn) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
    const Id id = next_id_++;
    const Clock::time_point at =
        Clock::now() + std::chrono::milliseconds(timeout_ms);
    pending_.emplace(std::make_pair(at, id), std::move(fn));
    wake_.notify_one();
    return id;
  }

  // Removes a timer; returns false when it has fired (or is firing).
  bool Cancel(Id id) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = pending_.begin(); it != pending_.end(); ++it) {
      if (it->first.second == id) {
        pending_.erase(it);
        return true;
      }
    }
    return false;
  }

 private:
  DeadlineTimer() = default;
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (pending_.empty()) {
        wake_.wait(lock);
        continue;
      }
      auto first = pending_.begin();
      if (Clock::now() < first->first.first) {
        wake_.wait_until(lock, first->first.first);
        continue;
      }
      std::function<void()> fn = std::move(first->second);
      pending_.erase(first);
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;
  std::thread thread_;
  Id next_id_ = 0;
  std::map<std::pair<Clock::time_point, Id>, std::function<void()>> pending_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_DEADLINE_TIMER_H_
