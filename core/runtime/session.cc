#include "core/runtime/session.h"

#include <map>
#include <mutex>
#include <utility>

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

Session::~Session() { Close(); }

Status Session::Close() {
  closed_ = true;
  return Status::OK();
}

Status Session::GetKernel(const Node* node, OpKernel** kernel) {
  // Called with mu_ held (from MakeCallable).
  auto& slot = kernels_[node->id()];
  if (slot == nullptr) {
    TW_RETURN_IF_ERROR(
        KernelRegistry::Global()->CreateKernel(*node, DEVICE_CPU, &slot));
  }
  *kernel = slot.get();
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
  TW_RETURN_IF_ERROR(Executor::Create(
      *graph_, exec_spec,
      [this](const Node* node, OpKernel** kernel) {
        return GetKernel(node, kernel);
      },
      &callable->executor));
  *handle = static_cast<int64_t>(callables_.size());
  callables_.push_back(std::move(callable));
  return Status::OK();
}

Status Session::RunCallable(int64_t handle, const std::vector<Tensor>& feeds,
                            std::vector<Tensor>* fetches) {
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
  return callable->executor->Run(step, feeds, fetches);
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
