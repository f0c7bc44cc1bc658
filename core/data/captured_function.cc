#include "core/data/captured_function.h"

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace data {
namespace {

constexpr char kMagic[] = "twfn1";

// Reads one '\n'-terminated line at `*pos`.
bool ReadLine(const std::string& s, size_t* pos, std::string* line) {
  const size_t end = s.find('\n', *pos);
  if (end == std::string::npos) return false;
  *line = s.substr(*pos, end - *pos);
  *pos = end + 1;
  return true;
}

bool ReadCount(const std::string& s, size_t* pos, int* count) {
  std::string line;
  if (!ReadLine(s, pos, &line) || line.empty() || line.size() > 6) {
    return false;
  }
  for (char c : line) {
    if (c < '0' || c > '9') return false;
  }
  *count = std::atoi(line.c_str());
  return true;
}

// The inter-op pool of every function run (the iterator context has none):
// one thread per core, made at the first run. The executor hands it the
// expensive nodes beyond the first of a function step.
ThreadPool* FunctionInterOpPool() {
  static ThreadPool* pool = [] {
    std::unique_ptr<ThreadPool> created;
    Status s = ThreadPool::Create(0, "tf_data_function", &created);
    return s.ok() ? created.release() : nullptr;
  }();
  return pool;
}

// Step ids of function runs: apart from the sessions' (which count up
// from 0), so that per-step state never mixes.
std::atomic<int64_t> next_function_step_id{int64_t{1} << 48};

}  // namespace

CapturedFunction::~CapturedFunction() {
  // The executor refers to the kernels, the kernels to the graph's nodes.
  executor_.reset();
  kernels_.clear();
}

Status CapturedFunction::Create(const std::string& serialized,
                                const std::string& who,
                                std::shared_ptr<const CapturedFunction>* out) {
  auto malformed = [&](const std::string& what) {
    return errors::InvalidArgument(who, ": the function attr is not a ",
                                   "serialized tf.data function (", what, ")");
  };
  size_t pos = 0;
  std::string line;
  if (!ReadLine(serialized, &pos, &line) || line != kMagic) {
    return malformed("bad header");
  }
  std::shared_ptr<CapturedFunction> fn(new CapturedFunction());
  if (!ReadLine(serialized, &pos, &fn->name_)) return malformed("no name");
  fn->who_ = StrCat(who, " function '", fn->name_, "'");
  int num_args = 0;
  std::vector<std::string> arg_names, ret_names;
  if (!ReadCount(serialized, &pos, &num_args)) return malformed("arg count");
  for (int i = 0; i < num_args; ++i) {
    if (!ReadLine(serialized, &pos, &line)) return malformed("arg names");
    arg_names.push_back(line);
  }
  int num_rets = 0;
  if (!ReadCount(serialized, &pos, &num_rets)) return malformed("ret count");
  for (int i = 0; i < num_rets; ++i) {
    if (!ReadLine(serialized, &pos, &line)) return malformed("ret names");
    ret_names.push_back(line);
  }
  GraphDef graph_def;
  if (!graph_def.ParseFromArray(serialized.data() + pos,
                                static_cast<int>(serialized.size() - pos))) {
    return malformed("the GraphDef does not parse");
  }
  fn->graph_ = std::make_unique<Graph>();
  std::vector<Node*> added;
  Status s = fn->graph_->ImportGraphDef(graph_def, ImportOptions(), &added);
  if (!s.ok()) {
    return Status(
        s.code(),
        StrCat(fn->who_, ": its graph does not import: ", s.message()));
  }
  ExecutorSpec spec;
  for (const std::string& name : arg_names) {
    Endpoint e;
    s = fn->graph_->ParseTensorName(name, &e);
    if (!s.ok() || e.index < 0) return malformed("arg '" + name + "'");
    spec.feeds.push_back(e);
    fn->arg_dtypes_.push_back(e.node->output_type(e.index));
  }
  for (const std::string& name : ret_names) {
    Endpoint e;
    s = fn->graph_->ParseTensorName(name, &e);
    if (!s.ok() || e.index < 0) return malformed("ret '" + name + "'");
    int from_arg = -1;
    for (size_t a = 0; a < spec.feeds.size(); ++a) {
      if (spec.feeds[a].node == e.node && spec.feeds[a].index == e.index) {
        from_arg = static_cast<int>(a);
      }
    }
    fn->ret_from_arg_.push_back(from_arg);
    int fetch = -1;
    if (from_arg < 0) {
      for (size_t f = 0; f < spec.fetches.size(); ++f) {
        if (spec.fetches[f].node == e.node &&
            spec.fetches[f].index == e.index) {
          fetch = static_cast<int>(f);
        }
      }
      if (fetch < 0) {
        fetch = static_cast<int>(spec.fetches.size());
        spec.fetches.push_back(e);
      }
    }
    fn->ret_fetch_.push_back(fetch);
  }
  if (!spec.fetches.empty()) {
    fn->kernels_.resize(fn->graph_->num_nodes());
    CapturedFunction* raw = fn.get();
    s = Executor::Create(
        *fn->graph_, spec,
        [raw](const Node* node, OpKernel** kernel) {
          auto& slot = raw->kernels_[node->id()];
          if (slot == nullptr) {
            TW_RETURN_IF_ERROR(KernelRegistry::Global()->CreateKernel(
                *node, DEVICE_CPU, &slot));
          }
          *kernel = slot.get();
          return Status::OK();
        },
        &fn->executor_);
    if (!s.ok()) {
      return Status(s.code(), StrCat(fn->who_, ": ", s.message()));
    }
  }
  *out = std::move(fn);
  return Status::OK();
}

Status CapturedFunction::Run(IteratorContext* ctx, const Element& element,
                             const std::vector<Tensor>& captured,
                             std::vector<Tensor>* rets) const {
  const size_t num_given = element.size() + captured.size();
  if (num_given != arg_dtypes_.size()) {
    return errors::InvalidArgument(who_, " takes ", arg_dtypes_.size(),
                                   " arguments (element components, then "
                                   "captured inputs); got ",
                                   element.size(), " + ", captured.size());
  }
  std::vector<Tensor> args;
  args.reserve(num_given);
  for (const Tensor& t : element) args.push_back(t);
  for (const Tensor& t : captured) args.push_back(t);
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].dtype() != arg_dtypes_[i]) {
      return errors::InvalidArgument(
          who_, ": argument ", i, " has dtype ", DataTypeName(args[i].dtype()),
          "; the function takes ", DataTypeName(arg_dtypes_[i]));
    }
  }
  std::vector<Tensor> fetched;
  if (executor_ != nullptr) {
    StepContext step;
    step.resource_mgr = ctx != nullptr ? ctx->resource_mgr : nullptr;
    step.intra_op_pool = ctx != nullptr ? ctx->intra_op_pool : nullptr;
    step.step_id = next_function_step_id.fetch_add(1);
    if (ctx != nullptr && ctx->function_pool != nullptr) {
      // PrivateThreadPoolDataset: the whole call runs on the pipeline's own
      // pool. It starts there and its ops are handed on within the pool
      // (RunAsync), so no thread of the pool waits for another's work.
      step.inter_op_pool = ctx->function_pool;
      std::mutex mu;
      std::condition_variable cv;
      bool finished = false;
      Status status;
      ctx->function_pool->Schedule([&] {
        executor_->RunAsync(step, args, &fetched, [&](const Status& s) {
          std::lock_guard<std::mutex> lock(mu);
          status = s;
          finished = true;
          cv.notify_all();
        });
      });
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return finished; });
      TW_RETURN_IF_ERROR(status);
    } else {
      step.inter_op_pool = FunctionInterOpPool();
      if (step.inter_op_pool == nullptr) {
        return errors::ResourceExhausted(who_, ": no threads for its runs");
      }
      TW_RETURN_IF_ERROR(executor_->Run(step, args, &fetched));
    }
  }
  rets->clear();
  rets->reserve(ret_from_arg_.size());
  for (size_t i = 0; i < ret_from_arg_.size(); ++i) {
    rets->push_back(ret_from_arg_[i] >= 0 ? args[ret_from_arg_[i]]
                                          : fetched[ret_fetch_[i]]);
  }
  return Status::OK();
}

Status CapturedFunction::RunAndCheck(IteratorContext* ctx,
                                     const Element& element,
                                     const std::vector<Tensor>& captured,
                                     const DataTypeVector& dtypes,
                                     const std::vector<PartialShape>& shapes,
                                     std::vector<Tensor>* rets) const {
  TW_RETURN_IF_ERROR(Run(ctx, element, captured, rets));
  return CheckElement(who_, dtypes, shapes, *rets);
}

Status CreateFunctionFromAttr(OpKernelConstruction* ctx,
                              const std::string& attr,
                              std::shared_ptr<const CapturedFunction>* out) {
  std::string serialized;
  TW_RETURN_IF_ERROR(ctx->GetAttr(attr, &serialized));
  return CapturedFunction::Create(
      serialized,
      StrCat(ctx->node().type_string(), " '", ctx->node().name(), "'"), out);
}

std::vector<Tensor> CapturedInputs(OpKernelContext* ctx, int first, int count) {
  std::vector<Tensor> captured;
  captured.reserve(count);
  for (int i = first; i < first + count; ++i) captured.push_back(ctx->input(i));
  return captured;
}

}  // namespace data
}  // namespace tensorweave
