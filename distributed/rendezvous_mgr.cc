#include "distributed/rendezvous_mgr.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <utility>

#include "core/framework/device_name.h"

namespace tensorweave {

Status TaskOfDevice(const std::string& device, std::string* task) {
  DeviceName name;
  if (!DeviceName::Parse(device, &name) || !name.has_job || !name.has_replica ||
      !name.has_task) {
    return errors::InvalidArgument("'", device,
                                   "' does not name a task's device "
                                   "(/job:<job>/replica:<r>/task:<t>/...)");
  }
  *task = "/job:" + name.job + "/replica:" + std::to_string(name.replica) +
          "/task:" + std::to_string(name.task);
  return Status::OK();
}

// ---------------------------------------------------------------------------
// StepRendezvous

StepRendezvous::StepRendezvous(RemoteRendezvousMgr* mgr, int64_t step_id)
    : mgr_(mgr),
      step_id_(step_id),
      last_used_(std::chrono::steady_clock::now()) {}

StepRendezvous::~StepRendezvous() = default;

Status StepRendezvous::Send(const std::string& key, const Tensor& value,
                            bool is_dead) {
  Rendezvous::ParsedKey parsed;
  TW_RETURN_IF_ERROR(Rendezvous::ParseKey(key, &parsed));
  if (mgr_->IsLocalDevice(parsed.dst_device)) {
    return local_.Send(key, value, is_dead);
  }
  std::string task;
  TW_RETURN_IF_ERROR(TaskOfDevice(parsed.dst_device, &task));
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!hold_task_.empty() && task == hold_task_) {
      if (!abort_status_.ok()) return abort_status_;
      held_.push_back({key, value, is_dead});
      return Status::OK();
    }
  }
  Transport transport = mgr_->transport();
  if (!transport) {
    return errors::FailedPrecondition(
        "step ", step_id_, " sends ", parsed.tensor_name, " to ",
        parsed.dst_device,
        ", a device of another task, but this worker has no transport set");
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return abort_status_;
    ++pending_sends_;
  }
  auto self = shared_from_this();
  auto called = std::make_shared<std::atomic<bool>>(false);
  transport(task, step_id_, key, value, is_dead,
            [self, called](const Status& status) {
              // A transport that calls done twice is ignored the second
              // time (the count of pending sends stays right).
              if (called->exchange(true)) return;
              self->SendDone(status);
            });
  return Status::OK();
}

void StepRendezvous::SendDone(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    --pending_sends_;
    if (!status.ok() && send_status_.ok()) send_status_ = status;
  }
  sends_done_.notify_all();
  if (!status.ok()) StartAbort(status);
}

void StepRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  Rendezvous::ParsedKey parsed;
  Status status = Rendezvous::ParseKey(key, &parsed);
  if (status.ok() && !mgr_->IsLocalDevice(parsed.dst_device)) {
    status = errors::InvalidArgument("a receive of ", parsed.tensor_name,
                                     " for ", parsed.dst_device,
                                     ", which is not a device of this task");
  }
  if (!status.ok()) {
    done(status, Tensor(), false);
    return;
  }
  local_.RecvAsync(key, std::move(done));
}

void StepRendezvous::StartAbort(const Status& status) {
  const Status abort =
      status.ok() ? errors::Aborted("step ", step_id_, " aborted") : status;
  std::set<std::shared_ptr<CancellationManager>> cancellations;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!abort_status_.ok()) return;
    abort_status_ = abort;
    cancellations = cancellations_;
  }
  sends_done_.notify_all();
  local_.StartAbort(abort);
  for (const auto& cancellation : cancellations) cancellation->StartCancel();
}

Status StepRendezvous::Deliver(const std::string& key, const Tensor& value,
                               bool is_dead) {
  Rendezvous::ParsedKey parsed;
  TW_RETURN_IF_ERROR(Rendezvous::ParseKey(key, &parsed));
  if (!mgr_->IsLocalDevice(parsed.dst_device)) {
    return errors::InvalidArgument(
        "a value delivered for ", parsed.dst_device,
        ", which is not a device of this task (key '", key, "')");
  }
  return local_.Send(key, value, is_dead);
}

void StepRendezvous::HoldFor(const std::string& task) {
  std::lock_guard<std::mutex> lock(mu_);
  hold_task_ = task;
}

std::vector<SentValue> StepRendezvous::TakeHeld() {
  std::lock_guard<std::mutex> lock(mu_);
  hold_task_.clear();
  return std::move(held_);
}

Status StepRendezvous::WaitForSends() {
  std::unique_lock<std::mutex> lock(mu_);
  sends_done_.wait(
      lock, [this] { return pending_sends_ == 0 || !abort_status_.ok(); });
  if (!send_status_.ok()) return send_status_;
  return abort_status_;
}

Status StepRendezvous::abort_status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return abort_status_;
}

void StepRendezvous::AddCancellation(
    std::shared_ptr<CancellationManager> cancellation) {
  bool aborted;
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted = !abort_status_.ok();
    if (!aborted) cancellations_.insert(cancellation);
  }
  if (aborted) cancellation->StartCancel();
}

void StepRendezvous::RemoveCancellation(
    const std::shared_ptr<CancellationManager>& cancellation) {
  std::lock_guard<std::mutex> lock(mu_);
  cancellations_.erase(cancellation);
}

// ---------------------------------------------------------------------------
// RemoteRendezvousMgr

RemoteRendezvousMgr::RemoteRendezvousMgr(const DeviceSet* local_devices,
                                         RemoteRendezvousOptions options)
    : local_devices_(local_devices),
      options_(options),
      last_collect_(std::chrono::steady_clock::now()) {}

RemoteRendezvousMgr::~RemoteRendezvousMgr() {
  std::unordered_map<int64_t, std::shared_ptr<StepRendezvous>> steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    steps.swap(steps_);
  }
  for (auto& [id, rendezvous] : steps) {
    rendezvous->StartAbort(errors::Cancelled("the worker is shutting down"));
  }
}

void RemoteRendezvousMgr::SetTransport(Transport transport) {
  std::lock_guard<std::mutex> lock(transport_mu_);
  transport_ = std::move(transport);
}

Transport RemoteRendezvousMgr::transport() const {
  std::lock_guard<std::mutex> lock(transport_mu_);
  return transport_;
}

bool RemoteRendezvousMgr::IsLocalDevice(const std::string& device) const {
  return local_devices_->FindByName(device) != nullptr;
}

void RemoteRendezvousMgr::Tombstone(int64_t step_id, const Status& status) {
  auto [it, inserted] = tombstones_.emplace(step_id, status);
  if (!inserted) return;
  tombstone_order_.push_back(step_id);
  while (tombstone_order_.size() > options_.max_tombstones) {
    tombstones_.erase(tombstone_order_.front());
    tombstone_order_.pop_front();
  }
}

void RemoteRendezvousMgr::MaybeCollectLocked(
    std::vector<std::shared_ptr<StepRendezvous>>* dead) {
  const auto now = std::chrono::steady_clock::now();
  const auto timeout =
      std::chrono::milliseconds(options_.stale_step_timeout_ms);
  const auto period = std::min<std::chrono::steady_clock::duration>(
      std::chrono::seconds(1), timeout);
  if (dead == nullptr || now - last_collect_ < period) return;
  last_collect_ = now;
  for (auto it = steps_.begin(); it != steps_.end();) {
    StepRendezvous* r = it->second.get();
    if (r->running_ == 0 && now - r->last_used_ > timeout) {
      const Status status = errors::Aborted(
          "step ", it->first, " was dropped: no RunGraph used it for ",
          options_.stale_step_timeout_ms, " ms");
      Tombstone(it->first, status);
      dead->push_back(std::move(it->second));
      it = steps_.erase(it);
    } else {
      ++it;
    }
  }
}

std::shared_ptr<StepRendezvous> RemoteRendezvousMgr::FindOrCreateLocked(
    int64_t step_id) {
  auto& slot = steps_[step_id];
  if (slot == nullptr) slot = std::make_shared<StepRendezvous>(this, step_id);
  slot->last_used_ = std::chrono::steady_clock::now();
  return slot;
}

Status RemoteRendezvousMgr::StartRun(int64_t step_id,
                                     std::shared_ptr<StepRendezvous>* out) {
  std::vector<std::shared_ptr<StepRendezvous>> dead;
  Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    MaybeCollectLocked(&dead);
    auto tomb = tombstones_.find(step_id);
    if (tomb != tombstones_.end()) {
      status = tomb->second.ok()
                   ? errors::FailedPrecondition(
                         "step ", step_id,
                         " has already ended on this task (step ids must not "
                         "be reused)")
                   : tomb->second;
    } else {
      *out = FindOrCreateLocked(step_id);
      ++(*out)->running_;
    }
  }
  for (const auto& r : dead) {
    r->StartAbort(errors::Aborted("step ", r->step_id(), " was dropped"));
  }
  return status;
}

void RemoteRendezvousMgr::EndRun(
    const std::shared_ptr<StepRendezvous>& rendezvous) {
  std::lock_guard<std::mutex> lock(mu_);
  --rendezvous->running_;
  rendezvous->last_used_ = std::chrono::steady_clock::now();
}

Status RemoteRendezvousMgr::Deliver(int64_t step_id, const std::string& key,
                                    const Tensor& value, bool is_dead,
                                    bool* accepted) {
  *accepted = false;
  std::vector<std::shared_ptr<StepRendezvous>> dead;
  std::shared_ptr<StepRendezvous> rendezvous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    MaybeCollectLocked(&dead);
    if (tombstones_.count(step_id) == 0) {
      rendezvous = FindOrCreateLocked(step_id);
    }
  }
  for (const auto& r : dead) {
    r->StartAbort(errors::Aborted("step ", r->step_id(), " was dropped"));
  }
  if (rendezvous == nullptr) return Status::OK();  // the step has ended
  TW_RETURN_IF_ERROR(rendezvous->Deliver(key, value, is_dead));
  *accepted = true;
  return Status::OK();
}

void RemoteRendezvousMgr::Cleanup(int64_t step_id) {
  std::shared_ptr<StepRendezvous> rendezvous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find(step_id);
    Status ended;
    if (it != steps_.end()) {
      rendezvous = std::move(it->second);
      steps_.erase(it);
      // An aborted step stays failed for a RunGraph that comes later.
      ended = rendezvous->abort_status();
    }
    Tombstone(step_id, ended);
  }
  if (rendezvous != nullptr) {
    rendezvous->StartAbort(
        errors::Cancelled("step ", step_id, " was cleaned up"));
  }
}

void RemoteRendezvousMgr::Abort(int64_t step_id, const Status& status) {
  const Status abort =
      status.ok() ? errors::Aborted("step ", step_id, " aborted") : status;
  std::shared_ptr<StepRendezvous> rendezvous;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find(step_id);
    if (it != steps_.end()) {
      rendezvous = it->second;
      // A step no RunGraph is running ends now; a running one ends when its
      // RunGraph does.
      if (rendezvous->running_ == 0) {
        steps_.erase(it);
        Tombstone(step_id, abort);
      }
    } else {
      Tombstone(step_id, abort);
    }
  }
  if (rendezvous != nullptr) rendezvous->StartAbort(abort);
}

size_t RemoteRendezvousMgr::NumSteps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.size();
}

size_t RemoteRendezvousMgr::NumTombstones() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tombstones_.size();
}

void RemoteRendezvousMgr::CollectGarbage() {
  std::vector<std::shared_ptr<StepRendezvous>> dead;
  {
    std::lock_guard<std::mutex> lock(mu_);
    last_collect_ = std::chrono::steady_clock::time_point();
    MaybeCollectLocked(&dead);
  }
  for (const auto& r : dead) {
    r->StartAbort(errors::Aborted("step ", r->step_id(), " was dropped"));
  }
}

}  // namespace tensorweave
