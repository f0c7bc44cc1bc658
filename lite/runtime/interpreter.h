// Interpreter: runs the main subgraph of a Model.
//
//   std::unique_ptr<Interpreter> interpreter;
//   Interpreter::Create(model, resolver, options, &interpreter);
//   interpreter->AllocateTensors();      // prepare + plan the arena
//   memcpy(interpreter->input(0)->data, ...);
//   interpreter->Invoke();               // allocates nothing
//
// The model and the resolver must outlive the interpreter. One interpreter
// runs one call at a time; use one interpreter per thread for concurrency
// (they may share a Model).
#ifndef TENSORWEAVE_LITE_RUNTIME_INTERPRETER_H_
#define TENSORWEAVE_LITE_RUNTIME_INTERPRETER_H_

#include <chrono>
#include <memory>
#include <vector>

#include "lite/runtime/arena_planner.h"
#include "lite/runtime/model.h"
#include "lite/runtime/op_kernel.h"
#include "lite/runtime/op_resolver.h"
#include "lite/runtime/thread_pool.h"

namespace twl {

// Receives the duration of every node's eval when set on an interpreter.
class Profiler {
 public:
  virtual ~Profiler() = default;
  virtual void OnNodeDone(int node, BuiltinOperator op,
                          double microseconds) = 0;
};

struct InterpreterOptions {
  int num_threads = 1;
  // AllocateTensors fails rather than plan a larger arena.
  size_t max_arena_bytes = size_t{1} << 30;
  // Run the plain reference kernels instead of the optimized ones (tests
  // compare the two).
  bool use_reference_kernels = false;
  // An inverted residual block (1x1 conv -> 3x3 depthwise -> 1x1 conv) runs
  // as one node when its expanded tensor has at least this many bytes
  // (Interpreter::FuseInvertedResiduals; 0: every block). Smaller ones
  // gain nothing: their intermediates stay in cache unfused.
  size_t min_fused_block_bytes = size_t{2} << 20;
};

class Interpreter {
 public:
  static Status Create(const Model* model, const OpResolver* resolver,
                       const InterpreterOptions& options,
                       std::unique_ptr<Interpreter>* interpreter);
  ~Interpreter();
  Interpreter(const Interpreter&) = delete;
  Interpreter& operator=(const Interpreter&) = delete;

  // Runs every kernel's prepare, then plans and places all non-constant
  // tensors and scratch buffers in one arena. Cheap when nothing changed.
  Status AllocateTensors();
  // Runs every kernel's eval in order. Needs AllocateTensors() first.
  // Allocates nothing unless the model has dynamic tensors (whose shapes
  // hang on values: NON_ZERO, NON_MAX_SUPPRESSION and what reads them);
  // those live in heap buffers that grow when a run needs more, and the
  // nodes reading them are prepared here, before their eval.
  Status Invoke();
  // Sets the shape of graph input `input`; the next AllocateTensors()
  // re-plans. Rank must match the model's.
  Status ResizeInputTensor(int input, const Shape& shape);

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  Tensor* input(int i) { return &tensors_[inputs_[i]]; }
  Tensor* output(int i) { return &tensors_[outputs_[i]]; }
  Tensor* tensor(int index) { return &tensors_[index]; }
  // Index of the graph input/output named `name`, or -1.
  int FindInput(const char* name) const;
  int FindOutput(const char* name) const;
  // Tensor named `name` in the inputs (or outputs) of signature `key`; null
  // when absent or the signature is for another subgraph.
  Tensor* FindSignatureTensor(const char* key, const char* name, bool is_input);
  int num_signatures() const;
  const char* signature_key(int i) const;

  // Per-node timing (null: off). Not owned.
  void set_profiler(Profiler* profiler) { profiler_ = profiler; }

  bool tensors_allocated() const { return allocated_; }
  size_t arena_size() const { return planner_.arena_size(); }
  const uint8_t* arena() const { return arena_; }
  // Text of the last failed call ("" if none).
  const char* error_message() const { return error_.message(); }

 private:
  Interpreter(const Model* model, const InterpreterOptions& options);
  Status Init(const OpResolver* resolver);
  // Runs each residual ADD inside the CONV_2D it adds to (see the .cc).
  void FuseResidualAdds();
  // Runs each 1x1 expansion -> depthwise 3x3 -> 1x1 projection chain
  // (MobileNetV2's inverted residual) as one node (see the .cc).
  void FuseInvertedResiduals();
  // first_use_ and last_use_ of every tensor from the plan.
  void ComputeLifetimes();
  Status PrepareNodes();
  // Prepares a node that reads a dynamic tensor (in Invoke, before its
  // eval) and gives its outputs and scratch heap buffers, unless its inputs
  // are as at its last prepare (see InputsKey).
  Status PrepareDeferred(Node* node);
  // What a deferred node's prepare reads of its inputs: each one's type and
  // shape, and the values of the small computed ones (shape values such as
  // a Reshape target or a Range limit).
  void InputsKey(const Node& node, std::vector<int64_t>* key) const;
  // With the model's own input shapes, the shapes prepare computed must be
  // the shapes the file declares (a corrupt shape is caught here).
  Status CheckDeclaredShapes(const Node& node) const;
  bool InputsHaveDeclaredShapes() const;
  Status PlanArena();
  Status Fail(const Status& status);
  void ReportTime(int node, std::chrono::steady_clock::time_point start);

  const Model* model_;
  InterpreterOptions options_;
  ThreadPool thread_pool_;
  std::vector<Tensor> tensors_;
  std::vector<int> inputs_;
  std::vector<int> outputs_;
  std::vector<Node> nodes_;
  std::vector<const KernelRegistration*> kernels_;
  std::vector<bool> fused_away_;  // per node: runs inside another node
  // Per node: reads a dynamic tensor, so it is prepared in Invoke.
  std::vector<bool> deferred_;
  bool has_deferred_ = false;
  // Per deferred node: InputsKey at its last prepare (empty: not prepared
  // since PrepareNodes).
  std::vector<std::vector<int64_t>> prepared_key_;
  std::vector<int64_t> key_;  // InputsKey's buffer
  DynamicBuffers dynamic_buffers_;
  std::vector<int> first_use_;  // per tensor; -1 when never live
  std::vector<int> last_use_;
  KernelContext context_;
  ArenaPlanner planner_;
  uint8_t* arena_ = nullptr;
  size_t arena_capacity_ = 0;
  bool allocated_ = false;
  Profiler* profiler_ = nullptr;
  Status error_;
};

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_INTERPRETER_H_
