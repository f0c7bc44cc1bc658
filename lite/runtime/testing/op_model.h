// OpModel: builds a small model with ModelBuilder, runs it on two
// interpreters (optimized kernels with N threads, and reference kernels) and
// compares them. Every kernel test uses it, so every kernel's optimized path
// is checked against its reference path.
//
// Tolerance for float32: |optimized - reference| <= kFloatAbsTolerance +
// kFloatRelTolerance * |reference|. Integer types must match exactly.
#ifndef TENSORWEAVE_LITE_RUNTIME_TESTING_OP_MODEL_H_
#define TENSORWEAVE_LITE_RUNTIME_TESTING_OP_MODEL_H_

#include <memory>
#include <string>
#include <vector>

#include "lite/runtime/interpreter.h"
#include "lite/runtime/testing/model_builder.h"

namespace twl {
namespace testing {

constexpr float kFloatAbsTolerance = 1e-4f;
constexpr float kFloatRelTolerance = 1e-4f;

class OpModel {
 public:
  ModelBuilder& builder() { return builder_; }
  // A graph input (fed with SetInput in call order).
  int AddInput(DataType type, const std::vector<int32_t>& shape,
               const std::string& name = "");
  template <typename T>
  int AddConst(const std::vector<int32_t>& shape, const std::vector<T>& v) {
    return builder_.AddConstant<T>(shape, v, "const");
  }
  // A graph output; its shape is computed by prepare.
  int AddOutput(DataType type, const std::string& name = "");
  // An intermediate tensor.
  int AddTensor(DataType type) { return builder_.AddTensor(type, {}, "t"); }
  void AddOp(BuiltinOperator op, const std::vector<int32_t>& inputs,
             const std::vector<int32_t>& outputs, Options options = Options()) {
    builder_.AddOperator(op, inputs, outputs, options);
  }

  // Builds the model and both interpreters and allocates tensors.
  Status Build(int num_threads = 2);
  // Options of the optimized interpreter Build creates (num_threads aside).
  InterpreterOptions& options() { return options_; }
  Status ResizeInput(int i, const Shape& shape);
  template <typename T>
  void SetInput(int i, const std::vector<T>& values) {
    SetInputBytes(i, values.data(), values.size() * sizeof(T));
  }
  void SetInputBytes(int i, const void* data, size_t bytes);
  // Invokes both interpreters.
  Status Invoke();
  template <typename T>
  std::vector<T> GetOutput(int i) {
    const Tensor* t = interpreter_->output(i);
    const T* p = t->data_as<T>();
    return std::vector<T>(p, p + t->num_elements());
  }
  std::vector<int32_t> OutputShape(int i);
  // Empty when the optimized output matches the reference output, else a
  // description of the first mismatch.
  std::string CompareWithReference();

  Interpreter* interpreter() { return interpreter_.get(); }
  Interpreter* reference() { return reference_.get(); }
  const AlignedBytes& bytes() const { return bytes_; }

 private:
  ModelBuilder builder_;
  std::vector<int32_t> inputs_, outputs_;
  AlignedBytes bytes_;
  std::unique_ptr<Model> model_;
  OpResolver resolver_;
  std::unique_ptr<Interpreter> interpreter_, reference_;
  InterpreterOptions options_;
};

}  // namespace testing
}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_TESTING_OP_MODEL_H_
