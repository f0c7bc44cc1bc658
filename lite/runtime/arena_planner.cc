#include "lite/runtime/arena_planner.h"

#include <algorithm>

namespace twl {
namespace {
// SIZE_MAX (never a valid size) when rounding up overflows.
size_t AlignUp(size_t n) {
  size_t padded = 0;
  if (__builtin_add_overflow(n, kArenaAlignment - 1, &padded)) return SIZE_MAX;
  return padded / kArenaAlignment * kArenaAlignment;
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
  failed_request_ = -1;
  for (int id : order) {
    Request& r = requests_[id];
    if (r.bytes == SIZE_MAX) {
      failed_request_ = id;
      return Status::Error(StatusCode::kResourceExhausted,
                           "buffer %d: its size overflows when aligned to %zu",
                           id, kArenaAlignment);
    }
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
    // Offsets and ends are checked sums: a wrap would place two live
    // buffers on the same bytes.
    size_t candidate = 0;
    size_t end = 0;
    bool overflow = false;
    for (int other : overlaps) {
      const Request& o = requests_[other];
      overflow |= __builtin_add_overflow(candidate, r.bytes, &end);
      if (overflow || o.offset >= end) break;               // fits in the gap
      candidate = std::max(candidate, o.offset + o.bytes);  // placed: no wrap
    }
    r.offset = candidate;
    if (overflow || __builtin_add_overflow(candidate, r.bytes, &end)) {
      failed_request_ = id;
      return Status::Error(StatusCode::kResourceExhausted,
                           "buffer %d of %zu bytes: its arena offset "
                           "overflows (%zu + %zu)",
                           id, r.bytes, candidate, r.bytes);
    }
    arena_size_ = std::max(arena_size_, end);
    placed.push_back(id);
  }
  return Status::Ok();
}

}  // namespace twl
