// Test helper: an executor with the kernels, pools and resources it needs,
// built from a graph by tensor and node names. Header-only; used by the
// executor and control-flow tests.
#ifndef TENSORWEAVE_CORE_RUNTIME_EXECUTOR_TEST_UTIL_H_
#define TENSORWEAVE_CORE_RUNTIME_EXECUTOR_TEST_UTIL_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/platform/thread_pool.h"
#include "core/runtime/executor.h"

namespace tensorweave {
namespace test {

// Owns the kernels, pools and resources an executor needs.
class ExecutorHarness {
 public:
  explicit ExecutorHarness(Graph* graph)
      : graph_(graph),
        inter_(std::make_unique<ThreadPool>(4, "inter")),
        intra_(std::make_unique<ThreadPool>(1, "intra")) {}

  Status Create(const std::vector<std::string>& feeds,
                const std::vector<std::string>& fetches,
                const std::vector<std::string>& targets,
                std::unique_ptr<Executor>* executor) {
    ExecutorSpec spec;
    for (const auto& f : feeds) {
      Endpoint e;
      TW_RETURN_IF_ERROR(graph_->ParseTensorName(f, &e));
      spec.feeds.push_back(e);
    }
    for (const auto& f : fetches) {
      Endpoint e;
      TW_RETURN_IF_ERROR(graph_->ParseTensorName(f, &e));
      spec.fetches.push_back(e);
    }
    for (const auto& t : targets) spec.targets.push_back(graph_->FindNode(t));
    return Executor::Create(
        *graph_, spec,
        [this](const Node* node, OpKernel** kernel) {
          auto& slot = kernels_[node->id()];
          if (!slot) {
            TW_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(
                *node, DEVICE_CPU, &slot));
          }
          *kernel = slot.get();
          return Status::OK();
        },
        executor);
  }

  Status Run(const Executor& ex, const std::vector<Tensor>& feeds,
             std::vector<Tensor>* fetches) {
    StepContext step;
    step.resource_mgr = &resources_;
    step.inter_op_pool = inter_.get();
    step.intra_op_pool = intra_.get();
    step.step_id = ++step_id_;
    return ex.Run(step, feeds, fetches);
  }

 private:
  Graph* graph_;
  std::unique_ptr<ThreadPool> inter_, intra_;
  ResourceMgr resources_;
  std::map<int, std::unique_ptr<OpKernel>> kernels_;
  std::atomic<int64_t> step_id_{0};
};

}  // namespace test
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_EXECUTOR_TEST_UTIL_H_
