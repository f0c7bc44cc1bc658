// Session: runs steps on a graph. It prunes the graph to what each request
// needs, caches the prepared executor per (feeds, fetches, targets), owns
// the kernels and the variables (which live as long as the session), and
// accepts concurrent Run calls.
#ifndef TENSORWEAVE_CORE_RUNTIME_SESSION_H_
#define TENSORWEAVE_CORE_RUNTIME_SESSION_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/framework/cancellation.h"
#include "core/framework/graph.h"
#include "core/framework/op_kernel.h"
#include "core/framework/resource.h"
#include "core/framework/step_stats.pb.h"
#include "core/platform/thread_pool.h"
#include "core/runtime/device.h"
#include "core/runtime/executor.h"
#include "core/runtime/graph_optimizer.h"
#include "core/runtime/graph_partition.h"
#include "core/runtime/placer.h"
#include "core/runtime/step_stats_collector.h"

namespace tensorweave {

struct SessionOptions {
  int inter_op_threads = 0;  // 0: one per core
  int intra_op_threads = 0;  // 0: one per core
  // Devices per type ({"CPU": 4}); a type not named gets its default (one
  // CPU, every GPU).
  std::map<std::string, int> device_count;
  PlacementOptions placement;
  // ConfigProto.operation_timeout_in_ms: the timeout of a step whose
  // RunOptions give none (0: none).
  int64_t operation_timeout_in_ms = 0;
  // The passes run on each step's pruned graph (ConfigProto.graph_options).
  GraphOptimizerOptions graph_optimizer;
};

// What one step reports besides its fetches (TensorFlow's RunOptions and
// RunMetadata, the parts implemented).
struct RunOptions {
  // TensorFlow's RunOptions.TraceLevel.
  enum TraceLevel {
    NO_TRACE = 0,
    SOFTWARE_TRACE = 1,
    HARDWARE_TRACE = 2,
    FULL_TRACE = 3
  };
  // Above NO_TRACE: every node run is recorded into RunMetadata.step_stats
  // (times, thread, outputs), one DeviceStepStats per device.
  int trace_level = NO_TRACE;
  bool output_partition_graphs = false;
  // > 0: a step still running after this long is cancelled (its blocked
  // kernels, e.g. a dequeue, fail) and returns DeadlineExceeded.
  int64_t timeout_in_ms = 0;
};
struct RunMetadata {
  std::vector<GraphDef> partition_graphs;  // one per device, as run
  StepStats step_stats;                    // traced steps only
};

// What one kind of step feeds, fetches and runs, by tensor/node name.
struct CallableSpec {
  std::vector<std::string> feeds;    // "x:0"
  std::vector<std::string> fetches;  // "y:0"
  std::vector<std::string> targets;  // "train_op"
};

class Session {
 public:
  // Creates a session, or the error that prevented it (its thread pools
  // could not be started: ResourceExhausted naming the pool and the cap).
  static Status Create(std::shared_ptr<Graph> graph,
                       const SessionOptions& options,
                       std::unique_ptr<Session>* session);
  // Where the pools cannot be started, every call returns init_status().
  Session(std::shared_ptr<Graph> graph, const SessionOptions& options);
  const Status& init_status() const { return init_status_; }
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Prepares a step; the handle stays valid until the session closes.
  Status MakeCallable(const CallableSpec& spec, int64_t* handle);
  // Runs it: `feeds` in the order of spec.feeds, each of the fed tensor's
  // dtype and a compatible shape.
  Status RunCallable(int64_t handle, const std::vector<Tensor>& feeds,
                     std::vector<Tensor>* fetches);
  Status RunCallable(int64_t handle, const std::vector<Tensor>& feeds,
                     const RunOptions& options, std::vector<Tensor>* fetches,
                     RunMetadata* metadata);
  // One-off form: prepares (or reuses) the callable for this signature.
  Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches,
             const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs);
  Status Close();
  // The graph optimizer passes of the steps prepared from now on (those
  // already prepared keep theirs).
  void SetGraphOptimizerOptions(const GraphOptimizerOptions& options);

  // Process-wide counts of captured steps (session_capture.cc): steps
  // recorded, replayed, and replays that fell back to running the kernels
  // (the step differed from its recording).
  struct CaptureCounters {
    int64_t captures = 0;
    int64_t replays = 0;
    int64_t fallbacks = 0;
  };
  static CaptureCounters GetCaptureCounters();

  Graph* graph() const { return graph_.get(); }
  ResourceMgr* resource_mgr() { return &resource_mgr_; }
  const DeviceSet* devices() const { return devices_.get(); }
  // The device a node was placed on (nullptr: not placed yet).
  const Device* placement(const Node* node);

 private:
  // One device's part of a step that spans several.
  struct PartitionRun {
    Partition partition;
    std::unique_ptr<Graph> graph;
    std::unique_ptr<Executor> executor;
    Device* device = nullptr;  // the device the partition runs on
    // Kernels of the nodes partitioning added (_Send, _Recv, ...).
    std::unordered_map<int, std::unique_ptr<OpKernel>> added_kernels;
  };
  // Capture of a partitioned step's device work (session_capture.cc): once
  // the same callable has run with the same feed shapes a few times, its
  // device partition is recorded (a CUDA graph) and later steps replay the
  // recording instead of running the partition's kernels.
  struct CaptureState {
    std::mutex mu;        // held by the step that uses the state
    int partition = -1;   // the captured partition
    int stable_runs = 0;  // consecutive runs with the feed shapes below
    std::vector<TensorShape> feed_shapes;
    std::unique_ptr<CapturedStep> captured;
    // The variables the partition uses and their buffers at capture: a
    // variable given a new buffer since makes the recording stale.
    std::vector<std::pair<Var*, const void*>> var_buffers;
    int failures = 0;  // captures that failed; at 2 it stops trying
  };
  struct Callable {
    std::vector<Endpoint> feeds;
    // One device: the executor runs the step on the session's graph.
    std::unique_ptr<Executor> executor;
    std::vector<int> nodes;  // the step's nodes, for partition_graphs
    std::string device;      // the device it runs on, for step_stats
    // Several devices: one executor per device.
    std::vector<std::unique_ptr<PartitionRun>> partitions;
    std::vector<int> fetch_from_feed;  // per fetch: the feed it is, or -1
    // One device, optimized: the graph the executor runs, the kernels of
    // the nodes the optimizer made, and the device (for partition_graphs).
    std::unique_ptr<OptimizedGraph> optimized;
    std::unordered_map<int, std::unique_ptr<OpKernel>> optimized_kernels;
    std::string optimized_device;
    // Set when the step can be captured (PrepareCapture).
    std::unique_ptr<CaptureState> capture;
  };
  Status GetKernel(const Node* node, OpKernel** kernel);
  // Sets callable->executor for a one-device step: on the optimized graph
  // (session_graph_optimization.cc), or on graph_ when that fails.
  Status CreateOptimizedExecutor(const ExecutorSpec& spec, const Device* device,
                                 Callable* callable);
  void OptimizedGraphDef(const Callable& callable, GraphDef* def);
  Status MakePartitions(const ExecutorSpec& spec,
                        const std::vector<bool>& needed, Callable* callable);
  // With `recorder`, each partition's nodes are recorded as its device's;
  // with `replay`, that partition is run by `replayer` (a captured step)
  // instead of its executor.
  using Replayer =
      std::function<void(Rendezvous*, std::function<void(const Status&)>)>;
  Status RunPartitions(const Callable& callable, StepContext* step,
                       const std::vector<Tensor>& feeds,
                       std::vector<Tensor>* fetches,
                       StepStatsRecorder* recorder = nullptr, int replay = -1,
                       const Replayer& replayer = nullptr);
  void PartitionGraphs(const Callable& callable, std::vector<GraphDef>* graphs);
  // Step capture (session_capture.cc). PrepareCapture sets
  // callable->capture when the step qualifies: one partition on a device
  // that captures, whose kernels all can be, and host partitions that only
  // feed it and fetch from it. RunCaptured runs a step of such a callable:
  // normally, capturing, or replaying (false: run it normally instead).
  void PrepareCapture(Callable* callable);
  bool RunCaptured(const Callable& callable, StepContext* step,
                   const std::vector<Tensor>& feeds,
                   std::vector<Tensor>* fetches, Status* status);

  std::shared_ptr<Graph> graph_;
  ResourceMgr resource_mgr_;
  // Shared with the other sessions of the process that ask for the same
  // number of threads (as TensorFlow's sessions share one inter-op pool),
  // so that many open sessions do not hold many threads each.
  std::shared_ptr<ThreadPool> inter_op_pool_;
  std::shared_ptr<ThreadPool> intra_op_pool_;
  std::unique_ptr<DeviceSet> devices_;
  PlacementOptions placement_options_;
  GraphOptimizerOptions optimizer_options_;
  Status init_status_;
  std::atomic<int64_t> next_step_id_{1};
  std::atomic<bool> closed_{false};
  int64_t operation_timeout_in_ms_ = 0;
  // The cancellation of each running step: Close() cancels them all.
  std::mutex steps_mu_;
  std::set<std::shared_ptr<CancellationManager>> running_steps_;

  std::mutex mu_;  // guards the maps below
  std::unordered_map<int, std::unique_ptr<OpKernel>> kernels_;
  std::vector<Device*> placement_;  // by node id
  std::vector<std::unique_ptr<Callable>> callables_;
  std::map<std::string, int64_t> callable_by_signature_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_SESSION_H_
