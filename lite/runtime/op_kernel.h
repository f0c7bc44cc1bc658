// The kernel interface. A kernel is four functions, as in TFLite Micro:
//   init    parses the op's options into per-node data (may allocate),
//   free    releases that data,
//   prepare checks inputs, sets output shapes, packs constant weights and
//           requests scratch memory (may allocate; runs in AllocateTensors),
//   eval    computes; it never allocates and reads scratch from the arena.
#ifndef TENSORWEAVE_LITE_RUNTIME_OP_KERNEL_H_
#define TENSORWEAVE_LITE_RUNTIME_OP_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lite/runtime/builtin_ops.h"
#include "lite/runtime/status.h"
#include "lite/runtime/tensor.h"

namespace twl {

class Model;
class ThreadPool;

constexpr int kMaxNodeTensors = 16;  // inputs or outputs per node
constexpr int kMaxNodeScratch = 4;

struct Node {
  int index = 0;  // position in the execution plan
  BuiltinOperator op = BuiltinOperator::ADD;
  const schema::Operator* fb = nullptr;  // options live here
  int num_inputs = 0;
  int num_outputs = 0;
  int inputs[kMaxNodeTensors] = {};  // tensor indices; -1 = absent
  int outputs[kMaxNodeTensors] = {};
  void* user_data = nullptr;  // from init
  // Set by the interpreter on a CONV_2D into which it fused the ADD that
  // alone read its output (Interpreter::FuseResidualAdds): inputs[3] is the
  // ADD's other operand, added after the bias and before the activation,
  // which is the ADD's; outputs[0] is the ADD's output.
  bool fused_add = false;
  schema::ActivationFunctionType fused_add_activation =
      schema::ActivationFunctionType::NONE;
  // Set by the interpreter on a DEPTHWISE_CONV_2D into which it fused the
  // 1x1 CONV_2D that alone feeds it (the expansion) and the 1x1 CONV_2D that
  // alone reads it (the projection, with its fused ADD if any): an inverted
  // residual block (Interpreter::FuseInvertedResiduals). Inputs: 0 the
  // expansion's input, 1-2 the depthwise filter and bias, 3-4 the
  // expansion's, 5-6 the projection's, 7 the residual (-1: none); outputs[0]
  // the projection's (or its ADD's) output; the options of the two
  // convolutions live here, the projection's activation (its ADD's when it
  // had one) in fused_project_activation.
  const schema::Operator* fused_expand = nullptr;
  const schema::Operator* fused_project = nullptr;
  schema::ActivationFunctionType fused_project_activation =
      schema::ActivationFunctionType::NONE;
  int num_scratch = 0;
  size_t scratch_bytes[kMaxNodeScratch] = {};
  void* scratch[kMaxNodeScratch] = {};  // set by the planner
};

// Heap buffers of dynamic tensors and of the scratch of the nodes that read
// them, one slot each, grown (never shrunk) as their sizes are learnt in
// Invoke and freed with the interpreter that owns them.
class DynamicBuffers {
 public:
  DynamicBuffers() = default;
  DynamicBuffers(const DynamicBuffers&) = delete;
  DynamicBuffers& operator=(const DynamicBuffers&) = delete;
  ~DynamicBuffers();
  // A 64-byte-aligned buffer of at least `bytes` (and at least 64) in
  // `slot`; its earlier contents are not kept when it grows.
  Status Reserve(size_t slot, size_t bytes, void** data);

 private:
  std::vector<void*> data_;
  std::vector<size_t> capacity_;
};

// What the interpreter offers kernels.
class KernelContext {
 public:
  KernelContext(Tensor* tensors, ThreadPool* thread_pool, bool use_reference,
                const Model* model = nullptr)
      : tensors_(tensors),
        thread_pool_(thread_pool),
        use_reference_(use_reference),
        model_(model) {}
  Tensor* tensor(int index) { return &tensors_[index]; }
  // Never null; may have a single thread.
  ThreadPool* thread_pool() { return thread_pool_; }
  // True when kernels should take their plain reference path.
  bool use_reference() const { return use_reference_; }

  // nullptr for an absent optional input or an index past num_inputs.
  Tensor* input(const Node& node, int i) {
    if (i >= node.num_inputs || node.inputs[i] < 0) return nullptr;
    return tensor(node.inputs[i]);
  }
  Tensor* output(const Node& node, int i) {
    return i < node.num_outputs ? tensor(node.outputs[i]) : nullptr;
  }
  // Prepare only: sets the shape (and byte size) of a non-constant tensor.
  Status ResizeTensor(Tensor* tensor, const Shape& shape);
  // Prepare only: asks for `bytes` of 64-byte-aligned scratch, valid during
  // this node's eval as node->scratch[*index].
  Status RequestScratch(Node* node, size_t bytes, int* index);
  // Prepare only: a kernel that keeps its own (e.g. packed) copy of a
  // constant says it will not read the original (its first `bytes`, by
  // default all) in eval, so the model's file pages holding it can be
  // dropped from memory (they are re-read from the file if anything touches
  // them again).
  void ReleaseConstant(const Tensor* tensor, size_t bytes = SIZE_MAX);
  // Prepare only: the shape of output `tensor` hangs on input values
  // (NON_ZERO, NON_MAX_SUPPRESSION); eval sets it with ResizeDynamicTensor.
  // The tensor is kept out of the arena, and each node that reads it (and
  // so on downstream) is prepared in Invoke, right before its eval.
  Status MarkDynamic(Tensor* tensor);
  // Eval only, on a dynamic tensor: sets its shape and gives it a buffer of
  // at least its byte size (which may move: read tensor->data after).
  Status ResizeDynamicTensor(Tensor* tensor, const Shape& shape);
  // Set by the interpreter (not owned); without it no tensor can be dynamic.
  void set_dynamic_buffers(DynamicBuffers* buffers) { dynamic_ = buffers; }

 private:
  Tensor* tensors_;
  ThreadPool* thread_pool_;
  bool use_reference_;
  const Model* model_;
  DynamicBuffers* dynamic_ = nullptr;
};

// Marks a kernel's prepare: it runs when tensors are allocated (again only
// when a dynamic input's shape or value changes), not once per inference,
// so it is compiled for size (GCC's `cold`: size-optimized code, apart in
// .text.unlikely). The stripped portable x86-64 library's 1 MiB goal rests
// on it (lite/tools/check_lite_size.sh).
#define TWL_PREPARE __attribute__((cold))

struct KernelRegistration {
  BuiltinOperator op;
  int version;
  void* (*init)(const schema::Operator& op);  // may be null
  void (*free)(void* user_data);              // may be null
  Status (*prepare)(KernelContext* context, Node* node);
  Status (*eval)(KernelContext* context, Node* node);
};

// Checks shared by kernels' prepare.
Status CheckNumInputs(const Node& node, int min, int max);
Status CheckType(const Tensor* tensor, const char* what, DataType type);
Status CheckRank(const Tensor* tensor, const char* what, int min, int max);
// Operands a and b and the output all of one type (elementwise binary ops).
Status CheckSameTypes(const Tensor* a, const Tensor* b, const Tensor* out);
// A float32 NHWC convolution: 4-D input and filter, float32 output.
Status CheckConvOperands(const Tensor* input, const Tensor* filter,
                         const Tensor* output);
// Reads a constant int32/int64 tensor into `values` (for shape-like inputs).
Status ReadConstantInts(const Tensor* tensor, const char* what, int64_t* values,
                        int max_values, int* count);

}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_OP_KERNEL_H_
