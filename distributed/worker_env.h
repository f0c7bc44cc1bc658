// WorkerEnv: the C++ side of one task of a cluster (one per server
// process). It holds the task's devices, the resources (variables, queues)
// shared by every graph registered on it — they live as long as the server,
// so a parameter server's variables are shared by every client and session —
// its thread pools, and its remote rendezvous.
//
// The master partitions a step's graph per task (PartitionForCluster,
// cluster_partition.h) and registers each task's part here; a step is then
// one RunGraph per task, all with the same step id. Values cross between
// tasks through the rendezvous manager's transport (rendezvous_mgr.h).
#ifndef TENSORWEAVE_DISTRIBUTED_WORKER_ENV_H_
#define TENSORWEAVE_DISTRIBUTED_WORKER_ENV_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/framework/graph.h"
#include "core/framework/resource.h"
#include "core/framework/status.h"
#include "core/framework/step_stats.pb.h"
#include "core/framework/tensor.h"
#include "core/platform/thread_pool.h"
#include "core/runtime/device.h"
#include "distributed/rendezvous_mgr.h"

namespace tensorweave {

struct WorkerEnvOptions {
  std::string job = "worker";
  int task = 0;
  // Devices per type, as SessionOptions.device_count.
  std::map<std::string, int> device_count;
  int inter_op_threads = 0;  // 0: one per core
  int intra_op_threads = 0;  // 0: one per core
  RemoteRendezvousOptions rendezvous;
};

struct RegisterGraphOptions {
  // Nothing yet: the graph's nodes carry their devices.
};

struct RunGraphOptions {
  // > 0: the call fails with DeadlineExceeded (its blocked kernels are
  // cancelled) once it has run this long.
  int64_t timeout_ms = 0;
  // Clean the step's rendezvous up when the call ends (the usual case: a
  // step is one RunGraph per task). False keeps it for another RunGraph of
  // the same step id; then call Cleanup(step_id) when the step is over.
  bool cleanup = true;
  // Wait until every value this call's _Sends pushed to other tasks was
  // delivered there (a failed push fails the call). False: the call ends when
  // its executors are done, with the pushes of its values possibly still
  // being acknowledged (a master's step, whose receivers wait for the values
  // anyway: one round trip less); a push that fails later is the transport's
  // to report to the task it was for, whose RunGraph then fails with it.
  bool wait_for_sends = true;
  // When `reply_sends` is set, the values this call's _Sends address to the
  // task `reply_task` (the caller's) are not pushed: they are returned in
  // `*reply_sends`, in the order sent, for the reply to carry (the caller
  // delivers them itself). Only for a graph that cannot wait on the caller's
  // task (it receives nothing from other tasks and has no blocking op), and
  // a caller that waits for the reply before anything else of the step.
  std::string reply_task;
  std::vector<SentValue>* reply_sends = nullptr;
  // When set, the step is traced (as RunOptions FULL_TRACE): one
  // DeviceStepStats per device of this task, with every node it ran.
  StepStats* step_stats = nullptr;
};

class WorkerEnv {
 public:
  static Status Create(const WorkerEnvOptions& options,
                       std::unique_ptr<WorkerEnv>* env);
  ~WorkerEnv();
  WorkerEnv(const WorkerEnv&) = delete;
  WorkerEnv& operator=(const WorkerEnv&) = delete;

  // "/job:<job>/replica:0/task:<task>".
  const std::string& task_name() const { return task_name_; }
  const DeviceSet& devices() const { return *devices_; }
  ResourceMgr* resource_mgr() { return &resource_mgr_; }
  RemoteRendezvousMgr* rendezvous_mgr() { return rendezvous_mgr_.get(); }

  // Registers the part of a step's graph that runs on this task: every node
  // must name a device of this task (the master assigned them). Nodes on
  // different local devices run in one executor per device, with the step's
  // rendezvous between them. InvalidArgument naming the node for an unknown
  // device or an op without a kernel for its device; FailedPrecondition when
  // a _Send/_Recv of a local device names another incarnation of it (the
  // graph was made for an earlier run of this server: register it again).
  Status RegisterGraph(const GraphDef& graph_def,
                       const RegisterGraphOptions& options, int64_t* handle);
  // Runs one step of a registered graph: `feeds` by tensor name ("x:0"),
  // `fetches` by tensor name. Every other node of the graph runs (its
  // targets and _Sends). Returns once every partition has finished and
  // every value sent to another task has been acknowledged.
  Status RunGraph(int64_t handle, int64_t step_id,
                  const std::vector<std::pair<std::string, Tensor>>& feeds,
                  const std::vector<std::string>& fetches,
                  const RunGraphOptions& options, std::vector<Tensor>* outputs);
  Status DeregisterGraph(int64_t handle);
  // Drops the variables and resources (queues, ...) of the named containers,
  // as TF's Session.reset; an empty list, or [""], names the default one.
  // Steps still running are cancelled first.
  Status Reset(const std::vector<std::string>& containers);

  size_t NumRegisteredGraphs() const;

 private:
  struct Registered;
  struct Prepared;
  WorkerEnv() = default;
  Status Prepare(Registered* graph, const std::vector<std::string>& feeds,
                 const std::vector<std::string>& fetches,
                 std::shared_ptr<Prepared>* prepared);

  std::string task_name_;
  std::unique_ptr<DeviceSet> devices_;
  ResourceMgr resource_mgr_;
  // Shared with the step timers (one may fire as a call returns).
  std::shared_ptr<ThreadPool> inter_op_pool_;
  std::unique_ptr<ThreadPool> intra_op_pool_;
  std::unique_ptr<RemoteRendezvousMgr> rendezvous_mgr_;

  // The step ids of the RunGraph calls in progress (Reset waits for them).
  std::mutex run_mu_;
  std::condition_variable run_done_;
  std::multiset<int64_t> running_steps_;

  mutable std::mutex mu_;
  int64_t next_handle_ = 1;
  std::map<int64_t, std::shared_ptr<Registered>> graphs_;
};

// A tensor built from the raw bytes of one that crossed the wire (one
// copy). InvalidArgument when the dtype is unknown or has no fixed size, a
// dimension is negative, or `size` is not the shape's byte size;
// ResourceExhausted when it is too big to allocate.
Status TensorFromBytes(DataType dtype, const std::vector<int64_t>& shape,
                       const void* data, size_t size, Tensor* out);
// A string tensor of `shape` from its elements (row-major).
Status TensorFromStrings(const std::vector<int64_t>& shape,
                         std::vector<std::string> elements, Tensor* out);

}  // namespace tensorweave

#endif  // TENSORWEAVE_DISTRIBUTED_WORKER_ENV_H_
