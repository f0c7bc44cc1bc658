#include "lite/runtime/arena_planner.h"

#include <algorithm>

namespace twl {
namespace {
size_t AlignUp(size_t n) {
  return (n + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}
}  // namespace

int ArenaPlanner::Add(size_t bytes, int first_use, int last_use) {
  requests_.push_back({AlignUp(bytes), first_use, last_use, 0});
  return static_cast<int>(requests_.size()) - 1;
}

Status ArenaPlanner::Plan() {
  std::vector<int> order(requests_.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return requests_[a].bytes > requests_[b].bytes;
  });
  std::vector<int> placed;    // ids placed so far
  std::vector<int> overlaps;  // scratch: placed ids alive with the current
  arena_size_ = 0;
  for (int id : order) {
    Request& r = requests_[id];
    overlaps.clear();
    for (int other : placed) {
      const Request& o = requests_[other];
      if (o.first_use <= r.last_use && r.first_use <= o.last_use) {
        overlaps.push_back(other);
      }
    }
    std::sort(overlaps.begin(), overlaps.end(), [&](int a, int b) {
      return requests_[a].offset < requests_[b].offset;
    });
    size_t candidate = 0;
    for (int other : overlaps) {
      const Request& o = requests_[other];
      if (o.offset >= candidate + r.bytes) break;  // fits in the gap
      candidate = std::max(candidate, o.offset + o.bytes);
    }
    r.offset = candidate;
    if (candidate + r.bytes < candidate) {
      return Status::Error(StatusCode::kResourceExhausted, "arena overflow");
    }
    arena_size_ = std::max(arena_size_, candidate + r.bytes);
    placed.push_back(id);
  }
  return Status::Ok();
}

}  // namespace twl
