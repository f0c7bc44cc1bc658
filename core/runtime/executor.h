// Executor: runs one pruned subgraph by dataflow. A node runs once all its
// inputs are ready; cheap ready nodes run inline on the thread that made
// them ready, expensive ones are spread over the inter-op thread pool.
#ifndef TENSORWEAVE_CORE_RUNTIME_EXECUTOR_H_
#define TENSORWEAVE_CORE_RUNTIME_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/framework/cancellation.h"
#include "core/framework/graph.h"
#include "core/framework/op_kernel.h"
#include "core/framework/rendezvous.h"
#include "core/framework/step_stats.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {

class FrameIterRendezvous;

struct ExecutorSpec {
  std::vector<Endpoint> feeds;    // values supplied by the caller
  std::vector<Endpoint> fetches;  // values returned to the caller
  std::vector<Node*> targets;     // nodes run for their effects
};

// Returns the kernel of a node (owned by the caller, e.g. a session).
using KernelLookup = std::function<Status(const Node*, OpKernel**)>;

// The nodes a step runs: every node the fetches and targets depend on,
// stopping at fed tensors. Indexed by node id.
std::vector<bool> NodesNeeded(const Graph& graph, const ExecutorSpec& spec);

// What the executors of one partitioned step share: the first error (the
// one the step reports) and the flag that stops them all. The first error
// also aborts the rendezvous, so that a partition waiting for a value that
// will never be sent finishes too.
class StepAbort {
 public:
  explicit StepAbort(Rendezvous* rendezvous) : rendezvous_(rendezvous) {}
  void Fail(const Status& status);
  bool aborted() const { return aborted_.load(std::memory_order_relaxed); }
  Status status() const;

 private:
  Rendezvous* rendezvous_;
  std::atomic<bool> aborted_{false};
  mutable std::mutex mu_;
  Status status_;
};

struct StepContext {
  ResourceMgr* resource_mgr = nullptr;
  ThreadPool* inter_op_pool = nullptr;
  ThreadPool* intra_op_pool = nullptr;
  int64_t step_id = 0;
  // Partitioned steps only: the step's rendezvous and abort.
  Rendezvous* rendezvous = nullptr;
  StepAbort* abort = nullptr;
  // Optional: how blocked kernels are stopped (timeout, Session::Close),
  // and where traced steps record each node's times.
  CancellationManager* cancellation_manager = nullptr;
  StepStatsCollector* stats = nullptr;
  // The device the executor's kernels run on (nullptr: host memory).
  DeviceBase* device = nullptr;
};

class Executor {
 public:
  // Prunes `graph` to what the fetches and targets need given the feeds,
  // finds the frame of every node (control flow: the nodes between a loop's
  // Enter and Exit nodes run once per iteration, in a frame of their own),
  // and prepares the kernels. A malformed loop structure, or a feed or fetch
  // inside a loop, is InvalidArgument naming the node.
  static Status Create(const Graph& graph, const ExecutorSpec& spec,
                       const KernelLookup& kernels,
                       std::unique_ptr<Executor>* executor);
  ~Executor();

  // Runs one step. Safe to call from several threads at once.
  Status Run(const StepContext& step, const std::vector<Tensor>& feeds,
             std::vector<Tensor>* fetches) const;
  // Starts one step and returns; `done` gets its status once every node has
  // run (from whichever thread ran the last one). `step` and `fetches` must
  // live until then.
  void RunAsync(const StepContext& step, const std::vector<Tensor>& feeds,
                std::vector<Tensor>* fetches,
                std::function<void(const Status&)> done) const;

  // True when no node a step starts with is expensive (cheap ones and
  // _Recv waits): such a step can start on the caller's thread without
  // holding up the others.
  bool StartsCheap() const;

  // True when the graph has loops or conditionals (Switch, Merge, Enter...),
  // or a _Recv (its value may be dead: a conditional on another device).
  bool has_control_flow() const { return has_control_flow_; }

  // The nodes this executor runs, in graph order (for tests and tools).
  std::vector<const Node*> nodes() const;

 private:
  struct Item;
  struct FrameInfo;
  struct IterState;
  struct FrameState;
  struct Tagged;
  struct StepState;
  struct AsyncCall;
  Executor() = default;
  Status BuildFrames();
  int OutputFrame(const Item& item) const;
  void Start(StepState* state, const std::vector<Tensor>& feeds) const;
  void Process(StepState* state, std::vector<Tagged> queue) const;
  void ProcessAfterCallback(StepState* state, std::vector<Tagged> stack) const;
  bool RunItem(StepState* state, const Tagged& tagged,
               std::vector<Tagged>* ready) const;
  void FinishItem(StepState* state, const Tagged& tagged, OpKernelContext* ctx,
                  std::vector<Tagged>* ready) const;
  void PropagateOutputs(StepState* state, const Tagged& tagged,
                        TensorValue* outputs, std::vector<Tagged>* ready) const;
  // `reused`: the outputs are delivered again later (a loop constant, to
  // each iteration), so they are copied; else each output is moved to the
  // last of its consumers. `it`: the iteration's state when the caller has
  // it (else it is looked up, under the frame's mutex). `made_ready`: where
  // to count the nodes made ready (else they are added to the iteration's
  // outstanding count here).
  void ActivateNodes(StepState* state, const Item& item, TensorValue* outputs,
                     bool dead, FrameState* frame, int64_t iter,
                     std::vector<Tagged>* ready, bool reused = false,
                     IterState* it = nullptr, int* made_ready = nullptr) const;
  void ActivateMerge(StepState* state, const Item& dst, int slot,
                     TensorValue* value, bool move, bool control,
                     bool from_enter, FrameState* frame, int64_t iter,
                     std::vector<Tagged>* ready) const;
  void NewIteration(StepState* state, FrameState* frame,
                    std::vector<Tagged>* ready) const;
  FrameState* ChildFrame(StepState* state, FrameState* parent,
                         int64_t parent_iter, const Item& enter) const;
  void NodeDone(StepState* state, FrameState* frame, int64_t iter,
                std::vector<Tagged>* ready) const;
  void CleanupIterations(StepState* state, FrameState* frame,
                         std::vector<Tagged>* ready) const;
  bool Schedule(StepState* state, const std::vector<Tagged>& ready,
                std::vector<Tagged>* inline_ready, bool is_start) const;
  void Distribute(StepState* state, const std::vector<Tagged>& ready,
                  std::vector<Tagged>* inline_ready, int64_t* owned,
                  size_t first_pending = 0) const;
  void HandOver(StepState* state, int64_t* owned) const;
  bool RunInline(StepState* state, const Tagged& tagged, TensorValue* inputs,
                 std::vector<Tagged>* ready) const;
  Rendezvous* FrameView(const Tagged& tagged, Rendezvous* step_rendezvous,
                        std::optional<FrameIterRendezvous>* view) const;
  void Finish(StepState* state) const;
  Status CollectFetches(StepState* state, std::vector<Tensor>* fetches) const;

  std::vector<Item> items_;
  std::vector<FrameInfo> frames_;  // frames_[0] is the step's root frame
  std::vector<int> roots_;
  bool has_control_flow_ = false;
  // Slots of the root frame to fill from feed i.
  std::vector<std::vector<int>> feed_slots_;
  // Root-frame slot holding fetch i.
  std::vector<int> fetch_slots_;
  std::vector<const Node*> fetch_nodes_;  // the node of each fetch, for errors
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_EXECUTOR_H_
