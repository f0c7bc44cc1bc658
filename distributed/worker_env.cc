#include "distributed/worker_env.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <set>
#include <unordered_map>

#include "core/framework/cancellation.h"
#include "core/framework/op_kernel.h"
#include "core/runtime/deadline_timer.h"
#include "core/runtime/executor.h"
#include "core/runtime/graph_partition.h"
#include "core/runtime/step_stats_collector.h"
#include "distributed/cluster_partition.h"

namespace tensorweave {

// One device's nodes of a registered graph, with their kernels.
struct DevicePart {
  Device* device = nullptr;
  std::unique_ptr<Graph> graph;
  std::unordered_map<int, std::unique_ptr<OpKernel>> kernels;  // by node id
};

// The executors of one (feeds, fetches) signature of a registered graph.
struct WorkerEnv::Prepared {
  std::vector<std::unique_ptr<Executor>> executors;  // one per part
  // Per part: the RunGraph feeds it takes (indices), its fetches' indices.
  std::vector<std::vector<int>> part_feeds;
  std::vector<std::vector<int>> part_fetches;
  std::vector<Endpoint> feeds;       // the fed endpoints, for dtype checks
  std::vector<int> fetch_from_feed;  // per fetch: the feed it is, or -1
};

struct WorkerEnv::Registered {
  std::vector<std::unique_ptr<DevicePart>> parts;
  // Feed names given by the master (kFeedAttr) -> the placeholders they
  // feed ("x_feed/_0:0").
  std::map<std::string, std::vector<std::string>> feed_alias;
  std::mutex mu;
  std::map<std::string, std::shared_ptr<Prepared>> prepared;
};

Status WorkerEnv::Create(const WorkerEnvOptions& options,
                         std::unique_ptr<WorkerEnv>* out) {
  if (options.job.empty() ||
      options.job.find_first_of("/:; ") != std::string::npos) {
    return errors::InvalidArgument("invalid job name '", options.job, "'");
  }
  if (options.task < 0) {
    return errors::InvalidArgument("invalid task index ", options.task);
  }
  std::unique_ptr<WorkerEnv> env(new WorkerEnv());
  env->task_name_ =
      "/job:" + options.job + "/replica:0/task:" + std::to_string(options.task);
  TW_RETURN_IF_ERROR(DeviceSet::CreateLocal(options.device_count, options.job,
                                            0, options.task, &env->devices_));
  const int inter_op = options.inter_op_threads > 0 ? options.inter_op_threads
                                                    : ThreadPool::NumCores();
  std::unique_ptr<ThreadPool> inter_op_pool;
  TW_RETURN_IF_ERROR(
      ThreadPool::Create(inter_op, "worker_inter_op", &inter_op_pool));
  env->inter_op_pool_ = std::move(inter_op_pool);
  // The caller of a parallel loop takes part (as in Session).
  const int parallelism = options.intra_op_threads > 0
                              ? options.intra_op_threads
                              : ThreadPool::NumCores();
  if (parallelism > 1) {
    TW_RETURN_IF_ERROR(ThreadPool::Create(parallelism - 1, "worker_intra_op",
                                          &env->intra_op_pool_));
  }
  env->rendezvous_mgr_ = std::make_unique<RemoteRendezvousMgr>(
      env->devices_.get(), options.rendezvous);
  *out = std::move(env);
  return Status::OK();
}

WorkerEnv::~WorkerEnv() {
  // The rendezvous manager aborts the steps still waiting; the pools join
  // their threads after it.
  rendezvous_mgr_.reset();
}

size_t WorkerEnv::NumRegisteredGraphs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return graphs_.size();
}

Status WorkerEnv::RegisterGraph(const GraphDef& graph_def,
                                const RegisterGraphOptions& options,
                                int64_t* handle) {
  auto full = std::make_unique<Graph>();
  std::vector<Node*> added;
  TW_RETURN_IF_ERROR(full->ImportGraphDef(graph_def, ImportOptions(), &added));
  if (full->num_nodes() == 0) {
    return errors::InvalidArgument("RegisterGraph: the graph has no nodes");
  }
  // Every node on a device of this task; the rendezvous keys of this task's
  // devices made for their current incarnation.
  std::vector<std::string> devices;  // in order of first appearance
  for (int id = 0; id < full->num_nodes(); ++id) {
    const Node* node = full->node(id);
    Device* device = devices_->FindByName(node->device());
    if (device == nullptr) {
      std::string known;
      for (const Device* d : devices_->devices()) known += " " + d->name();
      return errors::InvalidArgument("RegisterGraph: node ", node->DebugName(),
                                     " is placed on '", node->device(),
                                     "', which is not a device of task ",
                                     task_name_, " (its devices:", known, ")");
    }
    if (std::find(devices.begin(), devices.end(), device->name()) ==
        devices.end()) {
      devices.push_back(device->name());
    }
    const std::string& op = node->type_string();
    if (op == "_Send" || op == "_Recv") {
      auto send_device = node->attrs().find("send_device");
      auto incarnation = node->attrs().find("send_device_incarnation");
      if (send_device == node->attrs().end() ||
          incarnation == node->attrs().end()) {
        return errors::InvalidArgument("RegisterGraph: node ",
                                       node->DebugName(),
                                       " has no send_device or incarnation");
      }
      const Device* src = devices_->FindByName(send_device->second.s());
      if (src != nullptr && static_cast<uint64_t>(incarnation->second.i()) !=
                                src->attributes().incarnation) {
        return errors::FailedPrecondition(
            "RegisterGraph: node ", node->DebugName(), " was made for ",
            src->name(), " incarnation ", incarnation->second.i(),
            ", but this server's device has another one (the server was "
            "restarted): partition and register the graph again");
      }
    }
  }
  auto registered = std::make_shared<Registered>();
  for (int id = 0; id < full->num_nodes(); ++id) {
    const Node* node = full->node(id);
    auto alias = node->attrs().find(kFeedAttr);
    if (alias != node->attrs().end() && !alias->second.s().empty()) {
      registered->feed_alias[alias->second.s()].push_back(node->name() + ":0");
    }
  }
  if (devices.size() == 1) {
    auto part = std::make_unique<DevicePart>();
    part->device = devices_->FindByName(devices.front());
    part->graph = std::move(full);
    registered->parts.push_back(std::move(part));
  } else {
    // Nodes of several local devices: one graph per device, with _Send and
    // _Recv pairs for the edges between them (the master cut them already
    // when it partitioned by device; any left are cut here).
    ExecutorSpec spec;
    for (int id = 0; id < full->num_nodes(); ++id) {
      spec.targets.push_back(full->node(id));
    }
    std::vector<bool> needed(full->num_nodes(), true);
    PartitionOptions partition_options;
    partition_options.device_of = [](const Node* node) {
      return node->device();
    };
    partition_options.incarnation_of = [this](const std::string& device) {
      return devices_->FindByName(device)->attributes().incarnation;
    };
    std::vector<Partition> partitions;
    TW_RETURN_IF_ERROR(
        PartitionGraph(*full, spec, needed, partition_options, &partitions));
    for (Partition& partition : partitions) {
      auto part = std::make_unique<DevicePart>();
      part->device = devices_->FindByName(partition.device);
      part->graph = std::make_unique<Graph>();
      std::vector<Node*> part_added;
      Status s = part->graph->ImportGraphDef(partition.graph_def,
                                             ImportOptions(), &part_added);
      if (!s.ok()) {
        return errors::Internal("RegisterGraph: the part for ",
                                partition.device,
                                " does not import: ", s.message());
      }
      registered->parts.push_back(std::move(part));
    }
  }
  // Every kernel now: a node whose op has no kernel on its device is an
  // error of the registration, not of the first step.
  for (auto& part : registered->parts) {
    for (int id = 0; id < part->graph->num_nodes(); ++id) {
      const Node* node = part->graph->node(id);
      std::unique_ptr<OpKernel> kernel;
      Status s = KernelRegistry::Global()->CreateKernel(
          *node, part->device->device_type(), &kernel, part->device);
      if (!s.ok()) {
        return Status(
            s.code() == Code::kNotFound ? Code::kInvalidArgument : s.code(),
            "RegisterGraph: node " + node->DebugName() + ": " + s.message());
      }
      part->kernels[id] = std::move(kernel);
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  *handle = next_handle_++;
  graphs_[*handle] = std::move(registered);
  return Status::OK();
}

Status WorkerEnv::DeregisterGraph(int64_t handle) {
  std::lock_guard<std::mutex> lock(mu_);
  if (graphs_.erase(handle) == 0) {
    return errors::NotFound("no graph registered with handle ", handle);
  }
  return Status::OK();
}

Status WorkerEnv::Reset(const std::vector<std::string>& containers) {
  // Steps still running hold variables: they are cancelled and waited for.
  std::vector<int64_t> running;
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    running.assign(running_steps_.begin(), running_steps_.end());
  }
  for (int64_t step_id : running) {
    rendezvous_mgr_->Abort(step_id,
                           errors::Cancelled("the worker's resources were "
                                             "reset while step ",
                                             step_id, " ran"));
  }
  {
    std::unique_lock<std::mutex> lock(run_mu_);
    run_done_.wait(lock, [this] { return running_steps_.empty(); });
    // As TF's worker CleanupAll: no names is the default container.
    resource_mgr_.Clear(containers.empty() ? std::vector<std::string>{""}
                                           : containers);
  }
  return Status::OK();
}

Status WorkerEnv::Prepare(Registered* graph,
                          const std::vector<std::string>& feeds,
                          const std::vector<std::string>& fetches,
                          std::shared_ptr<Prepared>* out) {
  std::string signature;
  for (const auto& f : feeds) signature += f + ",";
  signature += "|";
  for (const auto& f : fetches) signature += f + ",";
  std::lock_guard<std::mutex> lock(graph->mu);
  auto it = graph->prepared.find(signature);
  if (it != graph->prepared.end()) {
    *out = it->second;
    return Status::OK();
  }
  auto prepared = std::make_shared<Prepared>();
  const size_t n = graph->parts.size();
  std::vector<ExecutorSpec> specs(n);
  prepared->part_feeds.resize(n);
  prepared->part_fetches.resize(n);
  // The part holding a tensor, and its endpoint there.
  auto find = [&](const std::string& name, const char* what, size_t* part,
                  Endpoint* e) -> Status {
    std::string node_name = name.substr(0, name.rfind(':'));
    for (size_t p = 0; p < n; ++p) {
      if (graph->parts[p]->graph->FindNode(node_name) == nullptr) continue;
      TW_RETURN_IF_ERROR(graph->parts[p]->graph->ParseTensorName(name, e));
      if (e->index < 0) {
        return errors::InvalidArgument("RunGraph: the ", what, " '", name,
                                       "' is not a tensor");
      }
      *part = p;
      return Status::OK();
    }
    return errors::InvalidArgument("RunGraph: the ", what, " '", name,
                                   "' is not a tensor of the registered graph");
  };
  std::vector<std::set<std::string>> fed_nodes(n);
  for (size_t i = 0; i < feeds.size(); ++i) {
    auto alias = graph->feed_alias.find(feeds[i]);
    const std::vector<std::string> names =
        alias != graph->feed_alias.end() ? alias->second
                                         : std::vector<std::string>{feeds[i]};
    for (const std::string& name : names) {
      size_t p;
      Endpoint e;
      TW_RETURN_IF_ERROR(find(name, "feed", &p, &e));
      if (e.node->output_is_ref(e.index)) {
        return errors::InvalidArgument("RunGraph: cannot feed '", feeds[i],
                                       "': it is a variable");
      }
      specs[p].feeds.push_back(e);
      prepared->part_feeds[p].push_back(static_cast<int>(i));
      if (prepared->feeds.size() == i) prepared->feeds.push_back(e);
      fed_nodes[p].insert(e.node->name());
    }
  }
  for (size_t j = 0; j < fetches.size(); ++j) {
    int from_feed = -1;
    for (size_t i = 0; i < feeds.size(); ++i) {
      if (feeds[i] == fetches[j]) from_feed = static_cast<int>(i);
    }
    prepared->fetch_from_feed.push_back(from_feed);
    if (from_feed >= 0) continue;
    size_t p;
    Endpoint e;
    TW_RETURN_IF_ERROR(find(fetches[j], "fetch", &p, &e));
    specs[p].fetches.push_back(e);
    prepared->part_fetches[p].push_back(static_cast<int>(j));
  }
  for (size_t p = 0; p < n; ++p) {
    DevicePart* part = graph->parts[p].get();
    for (int id = 0; id < part->graph->num_nodes(); ++id) {
      Node* node = part->graph->node(id);
      if (fed_nodes[p].count(node->name()) == 0) {
        specs[p].targets.push_back(node);
      }
    }
    std::unique_ptr<Executor> executor;
    TW_RETURN_IF_ERROR(Executor::Create(
        *part->graph, specs[p],
        [part](const Node* node, OpKernel** kernel) {
          auto k = part->kernels.find(node->id());
          if (k == part->kernels.end()) {
            return errors::Internal("no kernel for node ", node->name());
          }
          *kernel = k->second.get();
          return Status::OK();
        },
        &executor));
    prepared->executors.push_back(std::move(executor));
  }
  graph->prepared[signature] = prepared;
  *out = std::move(prepared);
  return Status::OK();
}

Status WorkerEnv::RunGraph(
    int64_t handle, int64_t step_id,
    const std::vector<std::pair<std::string, Tensor>>& feeds,
    const std::vector<std::string>& fetches, const RunGraphOptions& options,
    std::vector<Tensor>* outputs) {
  std::shared_ptr<Registered> graph;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(handle);
    if (it == graphs_.end()) {
      return errors::NotFound("RunGraph: no graph registered with handle ",
                              handle);
    }
    graph = it->second;
  }
  std::vector<std::string> feed_names;
  for (const auto& [name, value] : feeds) feed_names.push_back(name);
  std::shared_ptr<Prepared> prepared;
  TW_RETURN_IF_ERROR(Prepare(graph.get(), feed_names, fetches, &prepared));
  for (size_t i = 0; i < feeds.size(); ++i) {
    const Endpoint& e = prepared->feeds[i];
    const Tensor& value = feeds[i].second;
    if (value.dtype() != e.node->output_type(e.index)) {
      return errors::InvalidArgument(
          "RunGraph: cannot feed a ", DataTypeName(value.dtype()),
          " value for Tensor '", feeds[i].first, "', which has dtype ",
          DataTypeName(e.node->output_type(e.index)));
    }
    if (!e.node->output_shape(e.index).IsCompatibleWith(value.shape())) {
      return errors::InvalidArgument("RunGraph: cannot feed value of shape ",
                                     value.shape().ToString(), " for Tensor '",
                                     feeds[i].first, "', which has shape ",
                                     e.node->output_shape(e.index).ToString());
    }
  }

  if (options.reply_sends != nullptr) options.reply_sends->clear();
  std::shared_ptr<StepRendezvous> rendezvous;
  TW_RETURN_IF_ERROR(rendezvous_mgr_->StartRun(step_id, &rendezvous));
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    running_steps_.insert(step_id);
  }
  auto cancellation = std::make_shared<CancellationManager>();
  // Any cancellation (the timeout, an abort of the step) aborts the step's
  // rendezvous: receivers stop waiting, and so does the wait for sends.
  CancellationManager::Token abort_token;
  // (A weak reference: a late timeout may cancel after this call returned.)
  cancellation->RegisterCallback(
      &abort_token, [weak = std::weak_ptr<StepRendezvous>(rendezvous)] {
        if (auto r = weak.lock()) {
          r->StartAbort(errors::Cancelled("the step was cancelled"));
        }
      });
  rendezvous->AddCancellation(cancellation);
  if (options.reply_sends != nullptr) rendezvous->HoldFor(options.reply_task);
  auto timed_out = std::make_shared<std::atomic<bool>>(false);
  DeadlineTimer::Id timer = -1;
  if (options.timeout_ms > 0) {
    // The pool by a shared reference: the timer may fire as this call
    // returns and the environment goes away.
    std::shared_ptr<ThreadPool> pool = inter_op_pool_;
    timer = DeadlineTimer::Global()->Schedule(
        options.timeout_ms, [cancellation, timed_out, pool] {
          timed_out->store(true);
          pool->Schedule([cancellation] { cancellation->StartCancel(); });
        });
  }

  Status status = rendezvous->abort_status();
  const size_t n = prepared->executors.size();
  std::unique_ptr<StepStatsRecorder> recorder;
  if (options.step_stats != nullptr) {
    recorder = std::make_unique<StepStatsRecorder>();
  }
  std::vector<std::vector<Tensor>> part_outputs(n);
  if (status.ok()) {
    StepAbort abort(rendezvous.get());
    StepContext step;
    step.resource_mgr = &resource_mgr_;
    step.inter_op_pool = inter_op_pool_.get();
    step.intra_op_pool = intra_op_pool_.get();
    step.step_id = step_id;
    step.rendezvous = rendezvous.get();
    step.abort = &abort;
    step.cancellation_manager = cancellation.get();
    std::vector<std::vector<Tensor>> inputs(n);
    for (size_t p = 0; p < n; ++p) {
      for (int f : prepared->part_feeds[p]) {
        inputs[p].push_back(feeds[f].second);
      }
    }
    // Each part's step: the shared one, traced per device when asked.
    std::vector<StepContext> part_steps(n, step);
    if (recorder != nullptr) {
      for (size_t p = 0; p < n; ++p) {
        part_steps[p].stats =
            recorder->ForDevice(graph->parts[p]->device->name());
      }
    }
    std::mutex mu;
    std::condition_variable all_done;
    size_t remaining = n;
    auto start = [&](size_t p) {
      prepared->executors[p]->RunAsync(part_steps[p], inputs[p],
                                       &part_outputs[p], [&](const Status& s) {
                                         if (!s.ok()) abort.Fail(s);
                                         std::lock_guard<std::mutex> lock(mu);
                                         if (--remaining == 0)
                                           all_done.notify_all();
                                       });
    };
    // As Session::RunPartitions: cheap starts inline, busy ones on threads.
    std::vector<size_t> busy;
    for (size_t p = 0; p < n; ++p) {
      if (prepared->executors[p]->StartsCheap()) {
        start(p);
      } else {
        busy.push_back(p);
      }
    }
    for (size_t i = 0; i + 1 < busy.size(); ++i) {
      inter_op_pool_->Schedule([&start, p = busy[i]] { start(p); });
    }
    if (!busy.empty()) start(busy.back());
    {
      std::unique_lock<std::mutex> lock(mu);
      all_done.wait(lock, [&] { return remaining == 0; });
    }
    if (abort.aborted()) {
      status = abort.status();
    } else if (options.wait_for_sends) {
      status = rendezvous->WaitForSends();
    } else {
      status = rendezvous->abort_status();  // a push that failed already
    }
  }

  if (options.reply_sends != nullptr) {
    *options.reply_sends = rendezvous->TakeHeld();  // (a failed call's: none)
    if (!status.ok()) options.reply_sends->clear();
  }
  if (recorder != nullptr) recorder->Finalize(options.step_stats);
  if (timer >= 0) DeadlineTimer::Global()->Cancel(timer);
  cancellation->DeregisterCallback(abort_token);
  rendezvous->RemoveCancellation(cancellation);
  // The step's own abort status (an Abort with a reason) over the
  // Cancelled that it made the kernels finish with.
  const Status abort_status = rendezvous->abort_status();
  if (!status.ok() && status.code() == Code::kCancelled && !abort_status.ok() &&
      abort_status.code() != Code::kCancelled) {
    status = abort_status;
  }
  if (!status.ok() && timed_out->load()) {
    status = errors::DeadlineExceeded("RunGraph of step ", step_id,
                                      " timed out after ", options.timeout_ms,
                                      " ms");
  }
  rendezvous_mgr_->EndRun(rendezvous);
  if (options.cleanup) rendezvous_mgr_->Cleanup(step_id);
  {
    std::lock_guard<std::mutex> lock(run_mu_);
    running_steps_.erase(running_steps_.find(step_id));
  }
  run_done_.notify_all();
  TW_RETURN_IF_ERROR(status);

  outputs->assign(fetches.size(), Tensor());
  for (size_t p = 0; p < n; ++p) {
    const std::vector<int>& index = prepared->part_fetches[p];
    for (size_t j = 0; j < index.size(); ++j) {
      (*outputs)[index[j]] = std::move(part_outputs[p][j]);
    }
  }
  for (size_t j = 0; j < fetches.size(); ++j) {
    if (prepared->fetch_from_feed[j] >= 0) {
      (*outputs)[j] = feeds[prepared->fetch_from_feed[j]].second;
    }
  }
  return Status::OK();
}

Status TensorFromBytes(DataType dtype, const std::vector<int64_t>& shape,
                       const void* data, size_t size, Tensor* out) {
  if (!IsValidDataType(static_cast<int>(dtype)) || dtype == DT_INVALID) {
    return errors::InvalidArgument("unknown dtype ", static_cast<int>(dtype),
                                   " for a tensor's bytes");
  }
  if (dtype == DT_STRING || DataTypeSize(dtype) == 0) {
    return errors::InvalidArgument(
        "a ", DataTypeName(dtype),
        " tensor has no fixed-size bytes (send its elements)");
  }
  TensorShape tensor_shape(shape);
  // The byte size first (nothing is allocated for a shape that does not
  // match the bytes).
  uint64_t expected = DataTypeSize(dtype);
  bool overflow = false;
  for (int64_t d : shape) {
    if (d < 0) {
      return errors::InvalidArgument("a tensor's shape ",
                                     tensor_shape.ToString(),
                                     " has a negative dimension");
    }
    if (d != 0 && expected > UINT64_MAX / static_cast<uint64_t>(d)) {
      overflow = true;
    }
    expected *= static_cast<uint64_t>(d);
  }
  if (std::find(shape.begin(), shape.end(), int64_t{0}) != shape.end()) {
    expected = 0;
    overflow = false;
  }
  if (overflow || expected != size) {
    return errors::InvalidArgument(
        "a ", DataTypeName(dtype), " tensor of shape ", tensor_shape.ToString(),
        " does not have ", size, " bytes (its elements take ",
        overflow ? std::string("more than 2^64") : std::to_string(expected),
        ")");
  }
  Tensor tensor;
  TW_RETURN_IF_ERROR(Tensor::Allocate(dtype, tensor_shape, &tensor));
  if (size > 0) std::memcpy(tensor.raw_data(), data, size);
  *out = std::move(tensor);
  return Status::OK();
}

Status TensorFromStrings(const std::vector<int64_t>& shape,
                         std::vector<std::string> elements, Tensor* out) {
  TensorShape tensor_shape(shape);
  // The count first: a peer's shape must not allocate (and construct) more
  // strings than it sent.
  int64_t count;
  TW_RETURN_IF_ERROR(NumElementsOf(shape, &count));
  if (static_cast<uint64_t>(count) != elements.size()) {
    return errors::InvalidArgument("a string tensor of shape ",
                                   tensor_shape.ToString(), " has ", count,
                                   " elements, got ", elements.size());
  }
  Tensor tensor;
  TW_RETURN_IF_ERROR(Tensor::Allocate(DT_STRING, tensor_shape, &tensor));
  for (size_t i = 0; i < elements.size(); ++i) {
    tensor.data<std::string>()[i] = std::move(elements[i]);
  }
  *out = std::move(tensor);
  return Status::OK();
}

}  // namespace tensorweave
