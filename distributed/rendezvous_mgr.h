// The remote rendezvous of a worker task: one rendezvous per step, shared by
// every partition of that step run on this task, and the meeting point of
// tensors sent between tasks.
//
// Push model: a _Send whose key names a destination device of this task
// leaves the value in the step's local table; one whose destination is on
// another task hands the value to the transport (a gRPC call, in the Python
// layer), which delivers it to the destination task's Deliver(). The
// receiving _Recv always waits on its own task's table, so a value may
// arrive before, or after, the receiving task started its part of the step.
//
// Step lifetime: a step's rendezvous is made on first use (a Deliver, a
// RunGraph or an Abort); Cleanup() ends it. A step that ended leaves a
// tombstone (a bounded number of them, oldest dropped first), so a delivery
// that arrives late is dropped instead of making the step again; the
// rendezvous of a step that never ran (deliveries for a step whose RunGraph
// never came) is dropped after `stale_step_timeout_ms`.
#ifndef TENSORWEAVE_DISTRIBUTED_RENDEZVOUS_MGR_H_
#define TENSORWEAVE_DISTRIBUTED_RENDEZVOUS_MGR_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/framework/cancellation.h"
#include "core/framework/rendezvous.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "core/runtime/device.h"

namespace tensorweave {

// Sends one tensor of step `step_id` to the task `dst_task`
// ("/job:worker/replica:0/task:1"), which must Deliver() it under `key`.
// Called from an executor thread: it must not block (hand the value to an
// asynchronous call and return); `done` must be called exactly once, from
// any thread, with the outcome (an error aborts the sending step).
using TransportDone = std::function<void(const Status&)>;
using Transport = std::function<void(
    const std::string& dst_task, int64_t step_id, const std::string& key,
    const Tensor& value, bool is_dead, TransportDone done)>;

// A value a step sent, kept for the caller of its RunGraph (see
// StepRendezvous::HoldFor).
struct SentValue {
  std::string key;
  Tensor value;
  bool is_dead = false;
};

// "/job:j/replica:r/task:t" of a full device name; InvalidArgument when the
// name has no job, replica or task.
Status TaskOfDevice(const std::string& device, std::string* task);

class RemoteRendezvousMgr;

// One step's rendezvous on one task.
class StepRendezvous : public Rendezvous,
                       public std::enable_shared_from_this<StepRendezvous> {
 public:
  StepRendezvous(RemoteRendezvousMgr* mgr, int64_t step_id);
  ~StepRendezvous() override;

  // Local destination: into the table. Remote: to the transport (an error
  // when none is set or the destination is not a task name).
  Status Send(const std::string& key, const Tensor& value,
              bool is_dead) override;
  // Only keys whose destination device is on this task.
  void RecvAsync(const std::string& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;

  // A value pushed by another task: InvalidArgument when the key is
  // malformed or its destination is not a device of this task; the abort
  // status once the step is aborted.
  Status Deliver(const std::string& key, const Tensor& value, bool is_dead);

  // Values sent to `task` from now on are kept here (not handed to the
  // transport) until TakeHeld: the caller of the step's RunGraph, which is
  // that task, delivers them itself from the reply.
  void HoldFor(const std::string& task);
  // The values held (in the order sent); later sends to that task go to the
  // transport.
  std::vector<SentValue> TakeHeld();

  // Waits until every value sent to another task has been acknowledged
  // (its transport's done ran) or the step is aborted; returns the first
  // transport error, or the abort status.
  Status WaitForSends();
  // The status the step was aborted with (OK while it is not).
  Status abort_status() const;
  int64_t step_id() const { return step_id_; }

  // Cancellations of the RunGraph calls running this step: an abort
  // cancels them (a kernel blocked outside the rendezvous, e.g. a dequeue,
  // stops too).
  void AddCancellation(std::shared_ptr<CancellationManager> cancellation);
  void RemoveCancellation(
      const std::shared_ptr<CancellationManager>& cancellation);

 private:
  friend class RemoteRendezvousMgr;
  void SendDone(const Status& status);
  RemoteRendezvousMgr* const mgr_;
  const int64_t step_id_;
  LocalRendezvous local_;
  mutable std::mutex mu_;
  std::condition_variable sends_done_;
  int64_t pending_sends_ = 0;
  Status abort_status_;
  Status send_status_;
  std::set<std::shared_ptr<CancellationManager>> cancellations_;
  std::string hold_task_;  // empty: nothing is held
  std::vector<SentValue> held_;
  // Under the manager's lock: RunGraph calls in progress, last use.
  int running_ = 0;
  std::chrono::steady_clock::time_point last_used_;
};

struct RemoteRendezvousOptions {
  // A step's rendezvous with no RunGraph running for this long is dropped
  // (its deliveries came, but its RunGraph never did or never cleaned up).
  int64_t stale_step_timeout_ms = 300000;
  // Steps remembered as ended (late deliveries for them are dropped).
  size_t max_tombstones = 100000;
};

class RemoteRendezvousMgr {
 public:
  // `local_devices`: this task's devices (must outlive the manager).
  RemoteRendezvousMgr(const DeviceSet* local_devices,
                      RemoteRendezvousOptions options = {});
  ~RemoteRendezvousMgr();

  void SetTransport(Transport transport);

  // A step about to run on this task (made on demand), counted as running
  // until EndRun. The step's status when it has already ended: its abort
  // status, or FailedPrecondition when it was cleaned up.
  Status StartRun(int64_t step_id, std::shared_ptr<StepRendezvous>* out);
  void EndRun(const std::shared_ptr<StepRendezvous>& rendezvous);

  // A value pushed from another task for step `step_id`. `*accepted` is
  // false when the step has ended (the value is dropped); errors as
  // StepRendezvous::Deliver.
  Status Deliver(int64_t step_id, const std::string& key, const Tensor& value,
                 bool is_dead, bool* accepted);
  // Ends a step: its rendezvous is dropped (a receiver still waiting gets
  // Cancelled) and its id remembered.
  void Cleanup(int64_t step_id);
  // Fails the step with `status`: its waiting receivers, its RunGraph calls
  // in progress (cancelled) and any RunGraph of it that starts later.
  void Abort(int64_t step_id, const Status& status);

  // For tests and monitoring: steps with a rendezvous, steps remembered.
  size_t NumSteps() const;
  size_t NumTombstones() const;
  // Drops stale steps now (otherwise done at most once a second, on use).
  void CollectGarbage();

  const DeviceSet* local_devices() const { return local_devices_; }
  bool IsLocalDevice(const std::string& device) const;

 private:
  friend class StepRendezvous;
  Transport transport() const;
  // Under mu_.
  void Tombstone(int64_t step_id, const Status& status);
  void MaybeCollectLocked(std::vector<std::shared_ptr<StepRendezvous>>* dead);
  std::shared_ptr<StepRendezvous> FindOrCreateLocked(int64_t step_id);

  const DeviceSet* const local_devices_;
  const RemoteRendezvousOptions options_;
  mutable std::mutex transport_mu_;
  Transport transport_;
  mutable std::mutex mu_;
  std::unordered_map<int64_t, std::shared_ptr<StepRendezvous>> steps_;
  std::unordered_map<int64_t, Status> tombstones_;
  std::deque<int64_t> tombstone_order_;
  std::chrono::steady_clock::time_point last_collect_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_DISTRIBUTED_RENDEZVOUS_MGR_H_
