#include "core/framework/rendezvous.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

namespace tensorweave {

namespace {
std::atomic<int64_t> live_rendezvous{0};
}  // namespace

std::string Rendezvous::CreateKey(const std::string& src_device,
                                  uint64_t src_incarnation,
                                  const std::string& dst_device,
                                  const std::string& tensor_name) {
  char incarnation[24];
  std::snprintf(incarnation, sizeof(incarnation), "%" PRIx64, src_incarnation);
  return src_device + ";" + incarnation + ";" + dst_device + ";" + tensor_name +
         ";0:0";
}

Status Rendezvous::ParseKey(const std::string& key, ParsedKey* parsed) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t end = key.find(';', start);
    if (end == std::string::npos) {
      parts.push_back(key.substr(start));
      break;
    }
    parts.push_back(key.substr(start, end - start));
    start = end + 1;
  }
  if (parts.size() != 5 || parts[0].empty() || parts[1].empty() ||
      parts[2].empty() || parts[3].empty()) {
    return errors::InvalidArgument(
        "malformed rendezvous key '", key,
        "': expected 'src_device;incarnation;dst_device;tensor;frame'");
  }
  char* end = nullptr;
  const unsigned long long incarnation =
      std::strtoull(parts[1].c_str(), &end, 16);
  if (end == nullptr || *end != '\0') {
    return errors::InvalidArgument("malformed rendezvous key '", key,
                                   "': the incarnation '", parts[1],
                                   "' is not a hexadecimal number");
  }
  parsed->src_device = parts[0];
  parsed->src_incarnation = static_cast<uint64_t>(incarnation);
  parsed->dst_device = parts[2];
  parsed->tensor_name = parts[3];
  parsed->frame = parts[4];
  return Status::OK();
}

LocalRendezvous::LocalRendezvous() { ++live_rendezvous; }

LocalRendezvous::~LocalRendezvous() {
  // Receivers still waiting (none, after a step that ran to its end) learn
  // that the step is over.
  bool waiting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    waiting = std::any_of(table_.begin(), table_.end(), [](const auto& entry) {
      return !entry.second.has_value;
    });
  }
  if (waiting) {
    StartAbort(errors::Cancelled("the step ended before the value arrived"));
  }
  --live_rendezvous;
}

int64_t LocalRendezvous::NumLive() { return live_rendezvous.load(); }

size_t LocalRendezvous::NumPending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return table_.size();
}

Status LocalRendezvous::Send(const std::string& key, const Tensor& value,
                             bool is_dead) {
  DoneCallback waiter;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return abort_status_;
    auto [it, inserted] = table_.try_emplace(key);
    if (inserted) {
      it->second.has_value = true;
      it->second.value = value;
      it->second.is_dead = is_dead;
      return Status::OK();
    }
    if (it->second.has_value) {
      return errors::Internal("the rendezvous key ", key,
                              " was sent twice in one step");
    }
    waiter = std::move(it->second.waiter);
    table_.erase(it);
  }
  // The receiver runs outside the lock: it may go on to send.
  waiter(Status::OK(), value, is_dead);
  return Status::OK();
}

void LocalRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  Item item;
  Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) {
      status = abort_status_;
    } else {
      auto [it, inserted] = table_.try_emplace(key);
      if (inserted) {
        it->second.waiter = std::move(done);
        return;
      }
      if (!it->second.has_value) {
        status = errors::Internal("two receivers wait for the rendezvous key ",
                                  key, " in one step");
      } else {
        item = std::move(it->second);
        table_.erase(it);
      }
    }
  }
  // Callbacks run outside the lock: they may go on to send.
  done(status, item.value, item.is_dead);
}

void LocalRendezvous::StartAbort(const Status& status) {
  std::vector<DoneCallback> waiters;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return;
    abort_status_ = status.ok() ? errors::Cancelled("step aborted") : status;
    for (auto& [key, item] : table_) {
      if (!item.has_value) waiters.push_back(std::move(item.waiter));
    }
    table_.clear();
  }
  for (DoneCallback& waiter : waiters) waiter(status, Tensor(), false);
}

}  // namespace tensorweave
