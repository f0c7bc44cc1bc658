// ArenaPlanner: places buffers with known lifetimes into one arena. Buffers
// whose lifetimes overlap never share bytes; the rest reuse memory. Greedy:
// largest buffer first, each at the lowest 64-byte-aligned offset that fits
// between the buffers already placed whose lifetimes overlap its own.
#ifndef TENSORWEAVE_LITE_RUNTIME_ARENA_PLANNER_H_
#define TENSORWEAVE_LITE_RUNTIME_ARENA_PLANNER_H_

#include <cstddef>
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
  Status Plan();
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
};

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_ARENA_PLANNER_H_
