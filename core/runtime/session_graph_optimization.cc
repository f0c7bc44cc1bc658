// Session's use of the graph optimizer (graph_optimizer.h): a step that runs
// on one device runs an optimized copy of its pruned graph. Nodes the passes
// left unchanged keep the session's kernels (and so their state, e.g. a
// random op's); created or rewritten nodes get kernels of the step's own.
// Where optimization fails the step runs the graph as it is (as TensorFlow
// falls back when Grappler fails); TW_GRAPH_OPTIMIZER_STRICT=1 makes that
// failure the step's error instead (for tests).
#include <cstdlib>

#include "core/runtime/session.h"

namespace tensorweave {

Status Session::CreateOptimizedExecutor(const ExecutorSpec& spec,
                                        const Device* device,
                                        Callable* callable) {
  // Called with mu_ held.
  if (!optimizer_options_.any()) {
    return Executor::Create(
        *graph_, spec,
        [this](const Node* node, OpKernel** kernel) {
          return GetKernel(node, kernel);
        },
        &callable->executor);
  }
  const char* strict_env = std::getenv("TW_GRAPH_OPTIMIZER_STRICT");
  const bool strict = strict_env != nullptr && std::string(strict_env) == "1";
  auto optimized = std::make_unique<OptimizedGraph>();
  const std::string device_type = device->device_type();
  Status s = OptimizeGraph(*graph_, spec, optimizer_options_, device_type,
                           inter_op_pool_.get(), optimized.get());
  std::unique_ptr<Executor> executor;
  std::unordered_map<int, std::unique_ptr<OpKernel>> kernels;
  if (s.ok()) {
    const OptimizedGraph* opt = optimized.get();
    s = Executor::Create(
        *opt->graph, opt->spec,
        [&](const Node* node, OpKernel** kernel) {
          const Node* original = graph_->FindNode(node->name());
          if (original != nullptr && opt->rewritten.count(node->name()) == 0 &&
              original->type_string() == node->type_string()) {
            return GetKernel(original, kernel);
          }
          auto& slot = kernels[node->id()];
          TW_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(
              *node, device_type, &slot));
          *kernel = slot.get();
          return Status::OK();
        },
        &executor);
  }
  if (!s.ok()) {
    if (strict) return s;
    return Executor::Create(
        *graph_, spec,
        [this](const Node* node, OpKernel** kernel) {
          return GetKernel(node, kernel);
        },
        &callable->executor);
  }
  callable->optimized = std::move(optimized);
  callable->optimized_kernels = std::move(kernels);
  callable->optimized_device = device->name();
  callable->executor = std::move(executor);
  return Status::OK();
}

void Session::SetGraphOptimizerOptions(const GraphOptimizerOptions& options) {
  std::lock_guard<std::mutex> lock(mu_);
  optimizer_options_ = options;
}

void Session::OptimizedGraphDef(const Callable& callable, GraphDef* def) {
  for (int id = 0; id < callable.optimized->graph->num_nodes(); ++id) {
    NodeDef* node = def->add_node();
    *node = callable.optimized->graph->node(id)->def();
    node->set_device(callable.optimized_device);
  }
}

}  // namespace tensorweave
