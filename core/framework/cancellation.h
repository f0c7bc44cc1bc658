// Cancellation of the blocking work of one step (a dequeue from an empty
// queue, an enqueue into a full one): a kernel that waits registers a
// callback; the step's timeout (RunOptions.timeout_in_ms) or the session's
// Close() runs every callback once, so the waiting kernel finishes with an
// error instead of holding the step forever.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_CANCELLATION_H_
#define TENSORWEAVE_CORE_FRAMEWORK_CANCELLATION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace tensorweave {

class CancellationManager {
 public:
  using Token = int64_t;
  using Callback = std::function<void()>;

  // Runs every registered callback (outside the lock), once; later
  // registrations are refused. Safe from any thread, idempotent.
  void StartCancel() {
    std::map<Token, Callback> callbacks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (cancelled_.load(std::memory_order_relaxed)) return;
      cancelled_.store(true, std::memory_order_release);
      callbacks.swap(callbacks_);
    }
    for (auto& [token, callback] : callbacks) callback();
  }
  // Lock-free: cheap enough to ask before every node of a step.
  bool IsCancelled() const {
    return cancelled_.load(std::memory_order_acquire);
  }
  // Registers `callback` and returns true, or returns false (callback not
  // registered, not run) when cancellation has already started.
  bool RegisterCallback(Token* token, Callback callback) {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.load(std::memory_order_relaxed)) return false;
    *token = next_token_++;
    callbacks_.emplace(*token, std::move(callback));
    return true;
  }
  // Removes a callback; returns false when it has run or is running.
  bool DeregisterCallback(Token token) {
    std::lock_guard<std::mutex> lock(mu_);
    return callbacks_.erase(token) > 0;
  }

 private:
  mutable std::mutex mu_;
  std::atomic<bool> cancelled_{false};  // written under mu_
  Token next_token_ = 0;
  std::map<Token, Callback> callbacks_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_CANCELLATION_H_
