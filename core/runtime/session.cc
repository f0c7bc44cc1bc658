#include "core/runtime/session.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "core/runtime/deadline_timer.h"

namespace tensorweave {

namespace {

// The process's pools, by (kind, threads): a pool lives while a session
// uses it.
Status SharedPool(const std::string& kind, int num_threads,
                  std::shared_ptr<ThreadPool>* pool) {
  static std::mutex* mu = new std::mutex();
  static auto* pools =
      new std::map<std::pair<std::string, int>, std::weak_ptr<ThreadPool>>();
  std::lock_guard<std::mutex> lock(*mu);
  std::weak_ptr<ThreadPool>& slot = (*pools)[{kind, num_threads}];
  *pool = slot.lock();
  if (*pool != nullptr) return Status::OK();
  std::unique_ptr<ThreadPool> created;
  TW_RETURN_IF_ERROR(ThreadPool::Create(num_threads, kind, &created));
  *pool = std::shared_ptr<ThreadPool>(std::move(created));
  slot = *pool;
  return Status::OK();
}

}  // namespace

Session::Session(std::shared_ptr<Graph> graph, const SessionOptions& options)
    : graph_(std::move(graph)) {
  const int inter_op = options.inter_op_threads > 0 ? options.inter_op_threads
                                                    : ThreadPool::NumCores();
  init_status_ = SharedPool("inter_op", inter_op, &inter_op_pool_);
  // The caller of a parallel loop takes part, so the intra-op pool needs one
  // thread fewer than the loop's parallelism; a parallelism of 1 needs no
  // pool.
  const int parallelism = options.intra_op_threads > 0
                              ? options.intra_op_threads
                              : ThreadPool::NumCores();
  if (init_status_.ok() && parallelism > 1) {
    init_status_ = SharedPool("intra_op", parallelism - 1, &intra_op_pool_);
  }
  if (init_status_.ok()) {
    init_status_ = DeviceSet::CreateLocal(options.device_count, "localhost", 0,
                                          0, &devices_);
  }
  placement_options_ = options.placement;
  operation_timeout_in_ms_ = options.operation_timeout_in_ms;
  optimizer_options_ = options.graph_optimizer;
  if (!init_status_.ok()) {
    inter_op_pool_.reset();
    intra_op_pool_.reset();
  }
}

Status Session::Create(std::shared_ptr<Graph> graph,
                       const SessionOptions& options,
                       std::unique_ptr<Session>* session) {
  auto created = std::make_unique<Session>(std::move(graph), options);
  TW_RETURN_IF_ERROR(created->init_status());
  *session = std::move(created);
  return Status::OK();
}

Session::~Session() {
  Close();
  // Resources go before the thread pools (members are destroyed in reverse
  // order, the pools last): an iterator's background threads may still run
  // kernels on the intra-op pool until the iterator is destroyed.
  resource_mgr_.Clear();
}

Status Session::Close() {
  {
    std::lock_guard<std::mutex> lock(steps_mu_);
    closed_ = true;
  }
  // Steps blocked in another thread (a dequeue from an empty queue) end
  // with Cancelled.
  std::set<std::shared_ptr<CancellationManager>> running;
  {
    std::lock_guard<std::mutex> lock(steps_mu_);
    running = running_steps_;
  }
  for (const auto& cancellation : running) cancellation->StartCancel();
  return Status::OK();
}

const Device* Session::placement(const Node* node) {
  std::lock_guard<std::mutex> lock(mu_);
  return node->id() < static_cast<int>(placement_.size())
             ? placement_[node->id()]
             : nullptr;
}

Status Session::GetKernel(const Node* node, OpKernel** kernel) {
  // Called with mu_ held (from MakeCallable), for a placed node. A node's
  // kernel is built once per session and shared by every step that runs it
  // (stateful kernels, such as random ops, keep their state across steps).
  auto& slot = kernels_[node->id()];
  if (slot == nullptr) {
    Device* device = placement_[node->id()];
    TW_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(
        *node, device->device_type(), &slot, device));
  }
  *kernel = slot.get();
  return Status::OK();
}

Status Session::MakePartitions(const ExecutorSpec& spec,
                               const std::vector<bool>& needed,
                               Callable* callable) {
  // Called with mu_ held.
  PartitionOptions options;
  options.device_of = [this](const Node* node) {
    return placement_[node->id()]->name();
  };
  options.incarnation_of = [this](const std::string& device) {
    return devices_->FindByName(device)->attributes().incarnation;
  };
  options.host_memory_device = [this](const std::string& device) {
    return devices_->FindByName(device)->host_memory();
  };
  options.memory_type = [this](const Node* node, int index, bool input) {
    // The node's kernel, built on its device, knows (GetKernel keeps it
    // for the executor; a node without a kernel fails there).
    OpKernel* kernel = nullptr;
    if (!GetKernel(node, &kernel).ok()) return MemoryType::kDevice;
    return input ? kernel->input_memory_type(index)
                 : kernel->output_memory_type(index);
  };
  options.client_device = devices_->client_device()->name();
  std::vector<Partition> partitions;
  TW_RETURN_IF_ERROR(
      PartitionGraph(*graph_, spec, needed, options, &partitions));
  for (Partition& partition : partitions) {
    auto run = std::make_unique<PartitionRun>();
    run->partition = std::move(partition);
    run->graph = std::make_unique<Graph>();
    std::vector<Node*> added;
    Status s = run->graph->ImportGraphDef(run->partition.graph_def,
                                          ImportOptions(), &added);
    if (!s.ok()) {
      return errors::Internal("the partition for ", run->partition.device,
                              " does not import: ", s.message());
    }
    ExecutorSpec part_spec;
    for (const std::string& name : run->partition.feeds) {
      Endpoint e;
      TW_RETURN_IF_ERROR(run->graph->ParseTensorName(name, &e));
      part_spec.feeds.push_back(e);
    }
    for (const std::string& name : run->partition.fetches) {
      Endpoint e;
      TW_RETURN_IF_ERROR(run->graph->ParseTensorName(name, &e));
      part_spec.fetches.push_back(e);
    }
    for (const std::string& name : run->partition.targets) {
      part_spec.targets.push_back(run->graph->FindNode(name));
    }
    const std::set<std::string> added_names(run->partition.added.begin(),
                                            run->partition.added.end());
    Device* part_device = devices_->FindByName(run->partition.device);
    const std::string device_type = part_device->device_type();
    PartitionRun* r = run.get();
    TW_RETURN_IF_ERROR(Executor::Create(
        *run->graph, part_spec,
        [&](const Node* node, OpKernel** kernel) {
          if (added_names.count(node->name()) == 0) {
            // A node of the session's graph: its kernel is the session's.
            return GetKernel(graph_->FindNode(node->name()), kernel);
          }
          auto& slot = r->added_kernels[node->id()];
          TW_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(
              *node, device_type, &slot, part_device));
          *kernel = slot.get();
          return Status::OK();
        },
        &run->executor));
    run->device = part_device;
    callable->partitions.push_back(std::move(run));
  }
  return Status::OK();
}

Status Session::MakeCallable(const CallableSpec& spec, int64_t* handle) {
  TW_RETURN_IF_ERROR(init_status_);
  if (closed_) return errors::Cancelled("Attempted to use a closed Session.");
  ExecutorSpec exec_spec;
  for (const auto& name : spec.feeds) {
    Endpoint e;
    TW_RETURN_IF_ERROR(graph_->ParseTensorName(name, &e));
    if (e.index < 0) {
      return errors::InvalidArgument("cannot feed a control input '", name,
                                     "'");
    }
    if (e.node->output_is_ref(e.index)) {
      return errors::InvalidArgument(
          "cannot feed '", name, "': it is a variable; assign to it instead");
    }
    exec_spec.feeds.push_back(e);
  }
  for (const auto& name : spec.fetches) {
    Endpoint e;
    TW_RETURN_IF_ERROR(graph_->ParseTensorName(name, &e));
    if (e.index < 0) {
      return errors::InvalidArgument("cannot fetch '", name,
                                     "': name a tensor, or run it as a target");
    }
    exec_spec.fetches.push_back(e);
  }
  for (const auto& name : spec.targets) {
    std::string node_name =
        name.size() > 0 && name[0] == '^' ? name.substr(1) : name;
    Node* node = graph_->FindNode(node_name);
    if (node == nullptr) {
      return errors::NotFound("no node named '", node_name,
                              "' in the graph (a target)");
    }
    exec_spec.targets.push_back(node);
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto callable = std::make_unique<Callable>();
  callable->feeds = exec_spec.feeds;
  const std::vector<bool> needed = NodesNeeded(*graph_, exec_spec);
  std::vector<const Node*> nodes;
  for (int id = 0; id < static_cast<int>(needed.size()); ++id) {
    if (needed[id]) {
      nodes.push_back(graph_->node(id));
      callable->nodes.push_back(id);
    }
  }
  TW_RETURN_IF_ERROR(
      PlaceNodes(*graph_, nodes, *devices_, placement_options_, &placement_));
  // A device without host memory (a GPU) gets its feeds and returns its
  // fetches through the client's CPU: a partitioned step, always.
  const bool one_device =
      std::all_of(nodes.begin(), nodes.end(),
                  [&](const Node* n) {
                    return placement_[n->id()] ==
                           placement_[nodes.front()->id()];
                  }) &&
      (nodes.empty() || placement_[nodes.front()->id()]->host_memory());
  if (one_device) {
    callable->device = nodes.empty() ? devices_->devices().front()->name()
                                     : placement_[nodes.front()->id()]->name();
    TW_RETURN_IF_ERROR(
        CreateOptimizedExecutor(exec_spec,
                                nodes.empty() ? devices_->devices().front()
                                              : placement_[nodes.front()->id()],
                                callable.get()));
  } else {
    TW_RETURN_IF_ERROR(MakePartitions(exec_spec, needed, callable.get()));
    for (const Endpoint& fetch : exec_spec.fetches) {
      int from_feed = -1;
      for (size_t f = 0; f < exec_spec.feeds.size(); ++f) {
        if (exec_spec.feeds[f].node == fetch.node &&
            exec_spec.feeds[f].index == fetch.index) {
          from_feed = static_cast<int>(f);
        }
      }
      callable->fetch_from_feed.push_back(from_feed);
    }
    PrepareCapture(callable.get());
  }
  *handle = static_cast<int64_t>(callables_.size());
  callables_.push_back(std::move(callable));
  return Status::OK();
}

Status Session::RunCallable(int64_t handle, const std::vector<Tensor>& feeds,
                            std::vector<Tensor>* fetches) {
  return RunCallable(handle, feeds, RunOptions(), fetches, nullptr);
}

Status Session::RunCallable(int64_t handle, const std::vector<Tensor>& feeds,
                            const RunOptions& options,
                            std::vector<Tensor>* fetches,
                            RunMetadata* metadata) {
  TW_RETURN_IF_ERROR(init_status_);
  if (closed_) return errors::Cancelled("Attempted to use a closed Session.");
  Callable* callable;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle < 0 || handle >= static_cast<int64_t>(callables_.size())) {
      return errors::InvalidArgument("no callable with handle ", handle);
    }
    callable = callables_[handle].get();
  }
  if (feeds.size() != callable->feeds.size()) {
    return errors::InvalidArgument("expected ", callable->feeds.size(),
                                   " feed values, got ", feeds.size());
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Endpoint& e = callable->feeds[i];
    DataType expected = e.node->output_type(e.index);
    if (feeds[i].dtype() != expected) {
      return errors::InvalidArgument(
          "Cannot feed a ", DataTypeName(feeds[i].dtype()),
          " value for Tensor '", e.ToString(), "', which has dtype ",
          DataTypeName(expected));
    }
    const PartialShape& shape = e.node->output_shape(e.index);
    if (!shape.IsCompatibleWith(feeds[i].shape())) {
      return errors::InvalidArgument("Cannot feed value of shape ",
                                     feeds[i].shape().ToString(),
                                     " for Tensor '", e.ToString(),
                                     "', which has shape ", shape.ToString());
    }
  }
  StepContext step;
  step.resource_mgr = &resource_mgr_;
  step.inter_op_pool = inter_op_pool_.get();
  step.intra_op_pool = intra_op_pool_.get();
  step.step_id = next_step_id_.fetch_add(1);
  // Cancellation: Close() cancels every running step, and a step with a
  // timeout is cancelled once it passes (on a pool thread: what the
  // cancelled kernels finish may continue the step there).
  auto cancellation = std::make_shared<CancellationManager>();
  step.cancellation_manager = cancellation.get();
  {
    std::lock_guard<std::mutex> lock(steps_mu_);
    if (closed_) return errors::Cancelled("Attempted to use a closed Session.");
    running_steps_.insert(cancellation);
  }
  const int64_t timeout_ms = options.timeout_in_ms > 0
                                 ? options.timeout_in_ms
                                 : operation_timeout_in_ms_;
  auto timed_out = std::make_shared<std::atomic<bool>>(false);
  DeadlineTimer::Id timer = -1;
  if (timeout_ms > 0) {
    timer = DeadlineTimer::Global()->Schedule(
        timeout_ms, [cancellation, timed_out, pool = inter_op_pool_] {
          timed_out->store(true);
          pool->Schedule([cancellation] { cancellation->StartCancel(); });
        });
  }
  struct StepEnd {
    Session* session;
    std::shared_ptr<CancellationManager> cancellation;
    DeadlineTimer::Id timer;
    ~StepEnd() {
      if (timer >= 0) DeadlineTimer::Global()->Cancel(timer);
      std::lock_guard<std::mutex> lock(session->steps_mu_);
      session->running_steps_.erase(cancellation);
    }
  } step_end{this, cancellation, timer};
  if (metadata != nullptr && options.output_partition_graphs) {
    PartitionGraphs(*callable, &metadata->partition_graphs);
  }
  // A traced step records each node run (an untraced one pays nothing: the
  // executor skips the recording when step.stats is null).
  std::unique_ptr<StepStatsRecorder> recorder;
  if (metadata != nullptr && options.trace_level > RunOptions::NO_TRACE) {
    recorder = std::make_unique<StepStatsRecorder>();
    if (callable->executor != nullptr) {
      step.stats = recorder->ForDevice(callable->device);
    }
  }
  Status status;
  if (callable->executor != nullptr) {
    status = callable->executor->Run(step, feeds, fetches);
  } else if (callable->capture == nullptr || recorder != nullptr ||
             !RunCaptured(*callable, &step, feeds, fetches, &status)) {
    status = RunPartitions(*callable, &step, feeds, fetches, recorder.get());
  }
  if (recorder != nullptr) {
    metadata->step_stats.Clear();
    recorder->Finalize(&metadata->step_stats);
  }
  // A step that failed because its timeout cancelled it (a dequeue that
  // stopped waiting) reports the timeout, as TensorFlow; one that failed on
  // its own keeps its error.
  if (status.code() == Code::kCancelled && timed_out->load()) {
    return errors::DeadlineExceeded("Timed out waiting for notification");
  }
  return status;
}

// Runs every partition of a step and waits for all: the step's error is the
// first one, after which the others stop (their waits for values from the
// failed partition end with it).
Status Session::RunPartitions(const Callable& callable, StepContext* step,
                              const std::vector<Tensor>& feeds,
                              std::vector<Tensor>* fetches,
                              StepStatsRecorder* recorder, int replay,
                              const Replayer& replayer) {
  LocalRendezvous rendezvous;
  StepAbort abort(&rendezvous);
  step->rendezvous = &rendezvous;
  step->abort = &abort;
  const size_t n = callable.partitions.size();
  std::vector<std::vector<Tensor>> inputs(n), outputs(n);
  // Each partition's step: the shared one, with its device's collector.
  std::vector<StepContext> part_steps(n, *step);
  for (size_t p = 0; p < n; ++p) {
    part_steps[p].device = callable.partitions[p]->device;
  }
  if (recorder != nullptr) {
    for (size_t p = 0; p < n; ++p) {
      part_steps[p].stats =
          recorder->ForDevice(callable.partitions[p]->partition.device);
    }
  }
  for (size_t p = 0; p < n; ++p) {
    for (int f : callable.partitions[p]->partition.feed_index) {
      inputs[p].push_back(feeds[f]);
    }
  }
  std::mutex mu;
  std::condition_variable all_done;
  size_t remaining = n;
  auto start = [&](size_t p) {
    auto done = [&](const Status& s) {
      if (!s.ok()) abort.Fail(s);
      std::lock_guard<std::mutex> lock(mu);
      if (--remaining == 0) all_done.notify_all();
    };
    if (static_cast<int>(p) == replay) {
      replayer(&rendezvous, done);
      return;
    }
    callable.partitions[p]->executor->RunAsync(part_steps[p], inputs[p],
                                               &outputs[p], done);
  };
  // Partitions that start with cheap nodes (and waits for values) start
  // here, one after the other: their expensive nodes go to the pool as they
  // become ready, and a value one sends to another continues the receiver
  // on the sender's thread, without a hand-over between threads. Those
  // that start with expensive nodes run at once, each on its own thread
  // (the last on this one), so that partitions run concurrently.
  // A replayed partition waits for its inputs: it starts last, here.
  std::vector<size_t> busy;
  for (size_t p = 0; p < n; ++p) {
    if (static_cast<int>(p) != replay &&
        callable.partitions[p]->executor->StartsCheap()) {
      start(p);
    } else {
      busy.push_back(p);
    }
  }
  if (replay >= 0) {
    busy.erase(std::remove(busy.begin(), busy.end(), replay), busy.end());
    busy.push_back(replay);
  }
  for (size_t i = 0; i + 1 < busy.size(); ++i) {
    step->inter_op_pool->Schedule([&start, p = busy[i]] { start(p); });
  }
  if (!busy.empty()) start(busy.back());
  {
    std::unique_lock<std::mutex> lock(mu);
    all_done.wait(lock, [&] { return remaining == 0; });
  }
  // Devices that run asynchronously (a GPU's stream) finish the step's
  // work before it returns, as TensorFlow's sync_on_finish: the next step
  // (or the caller) sees it done, and a kernel's fault is this step's.
  for (size_t p = 0; p < n; ++p) {
    Device* device = callable.partitions[p]->device;
    if (!device->host_memory() && static_cast<int>(p) != replay) {
      Status s = device->Sync();
      if (!s.ok()) abort.Fail(s);
    }
  }
  if (abort.aborted()) return abort.status();
  fetches->resize(callable.fetch_from_feed.size());
  for (size_t p = 0; p < n; ++p) {
    const std::vector<int>& index =
        callable.partitions[p]->partition.fetch_index;
    for (size_t j = 0; j < index.size(); ++j) {
      (*fetches)[index[j]] = std::move(outputs[p][j]);
    }
  }
  for (size_t f = 0; f < callable.fetch_from_feed.size(); ++f) {
    if (callable.fetch_from_feed[f] >= 0) {
      (*fetches)[f] = feeds[callable.fetch_from_feed[f]];
    }
  }
  return Status::OK();
}

// The graphs a step runs, one per device, with each node's device.
void Session::PartitionGraphs(const Callable& callable,
                              std::vector<GraphDef>* graphs) {
  graphs->clear();
  if (callable.executor == nullptr) {
    for (const auto& run : callable.partitions) {
      graphs->push_back(run->partition.graph_def);
    }
    return;
  }
  GraphDef def;
  if (callable.optimized != nullptr) {
    OptimizedGraphDef(callable, &def);
    graphs->push_back(std::move(def));
    return;
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (int id : callable.nodes) {
    NodeDef* node = def.add_node();
    *node = graph_->node(id)->def();
    node->set_device(placement_[id]->name());
  }
  graphs->push_back(std::move(def));
}

Status Session::Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                    const std::vector<std::string>& fetches,
                    const std::vector<std::string>& targets,
                    std::vector<Tensor>* outputs) {
  CallableSpec spec;
  std::vector<Tensor> values;
  std::string signature;
  for (const auto& [name, value] : feeds) {
    spec.feeds.push_back(name);
    values.push_back(value);
    signature += name + ",";
  }
  signature += "|";
  for (const auto& name : fetches) signature += name + ",";
  signature += "|";
  for (const auto& name : targets) signature += name + ",";
  spec.fetches = fetches;
  spec.targets = targets;
  int64_t handle = -1;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = callable_by_signature_.find(signature);
    if (it != callable_by_signature_.end()) handle = it->second;
  }
  if (handle < 0) {
    TW_RETURN_IF_ERROR(MakeCallable(spec, &handle));
    std::lock_guard<std::mutex> lock(mu_);
    callable_by_signature_[signature] = handle;
  }
  return RunCallable(handle, values, outputs);
}

}  // namespace tensorweave
