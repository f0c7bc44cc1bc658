#include "core/runtime/frame_rendezvous.h"

#include <cinttypes>
#include <cstdio>
#include <utility>

namespace tensorweave {

namespace {

// FNV-1a, 64 bits: the same on every task (std::hash need not be).
uint64_t Fnv1a(uint64_t hash, const void* data, size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::string FrameIterField(uint64_t frame_id, int64_t iter) {
  char field[48];
  std::snprintf(field, sizeof(field), "%" PRIx64 ":%" PRId64, frame_id, iter);
  return field;
}

}  // namespace

uint64_t ChildFrameId(uint64_t parent_id, int64_t parent_iter,
                      const std::string& frame_name) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  hash = Fnv1a(hash, &parent_id, sizeof(parent_id));
  hash = Fnv1a(hash, &parent_iter, sizeof(parent_iter));
  hash = Fnv1a(hash, frame_name.data(), frame_name.size());
  return hash == 0 ? 1 : hash;  // 0 is the root's
}

FrameIterRendezvous::FrameIterRendezvous(Rendezvous* base, uint64_t frame_id,
                                         int64_t iter)
    : base_(base), frame_iter_(FrameIterField(frame_id, iter)) {}

std::string FrameIterRendezvous::KeyFor(const std::string& key,
                                        uint64_t frame_id, int64_t iter) {
  return key.substr(0, key.rfind(';') + 1) + FrameIterField(frame_id, iter);
}

std::string FrameIterRendezvous::Rewrite(const std::string& key) const {
  return key.substr(0, key.rfind(';') + 1) + frame_iter_;
}

Status FrameIterRendezvous::Send(const std::string& key, const Tensor& value,
                                 bool is_dead) {
  return base_->Send(Rewrite(key), value, is_dead);
}

void FrameIterRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  base_->RecvAsync(Rewrite(key), std::move(done));
}

void FrameIterRendezvous::StartAbort(const Status& status) {
  base_->StartAbort(status);
}

}  // namespace tensorweave
