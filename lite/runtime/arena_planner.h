// ArenaPlanner: places buffers with known lifetimes into one arena. Buffers
// whose lifetimes overlap never share bytes; the rest reuse memory. Greedy:
// largest buffer first, each at the lowest 64-byte-aligned offset that fits
// between the buffers already placed whose lifetimes overlap its own.
#ifndef TENSORWEAVE_LITE_RUNTIME_ARENA_PLANNER_H_
#define TENSORWEAVE_LITE_RUNTIME_ARENA_PLANNER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lite/runtime/status.h"

namespace twl {

constexpr size_t kArenaAlignment = 64;

class ArenaPlanner {
 public:
  void Reset() {
    requests_.clear();
    arena_size_ = 0;
  }
  // A buffer of `bytes` alive from step `first_use` to `last_use`
  // (inclusive). Returns its id.
  int Add(size_t bytes, int first_use, int last_use);
  // Sizes and offsets are computed with checked arithmetic: a buffer whose
  // aligned size or arena offset would overflow fails the plan
  // (kResourceExhausted) and failed_request() names it.
  Status Plan();
  int failed_request() const { return failed_request_; }
  size_t offset(int id) const { return requests_[id].offset; }
  size_t arena_size() const { return arena_size_; }
  int num_requests() const { return static_cast<int>(requests_.size()); }

 private:
  struct Request {
    size_t bytes;
    int first_use;
    int last_use;
    size_t offset;
  };
  std::vector<Request> requests_;
  size_t arena_size_ = 0;
  int failed_request_ = -1;
};

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_ARENA_PLANNER_H_
