#include "lite/runtime/testing/op_model.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace twl {
namespace testing {

int OpModel::AddInput(DataType type, const std::vector<int32_t>& shape,
                      const std::string& name) {
  int t = builder_.AddTensor(
      type, shape,
      name.empty() ? "input" + std::to_string(inputs_.size()) : name);
  inputs_.push_back(t);
  return t;
}

int OpModel::AddOutput(DataType type, const std::string& name) {
  int t = builder_.AddTensor(type, {}, name.empty() ? "output" : name);
  outputs_.push_back(t);
  return t;
}

Status OpModel::Build(int num_threads) {
  builder_.SetInputs(inputs_);
  builder_.SetOutputs(outputs_);
  bytes_ = builder_.Finish();
  TWL_RETURN_IF_ERROR(
      Model::CreateFromBuffer(bytes_.data(), bytes_.size(), &model_));
  TWL_RETURN_IF_ERROR(RegisterBuiltinKernels(&resolver_));
  InterpreterOptions options = options_;
  options.num_threads = num_threads;
  TWL_RETURN_IF_ERROR(
      Interpreter::Create(model_.get(), &resolver_, options, &interpreter_));
  options.num_threads = 1;
  options.use_reference_kernels = true;
  TWL_RETURN_IF_ERROR(
      Interpreter::Create(model_.get(), &resolver_, options, &reference_));
  TWL_RETURN_IF_ERROR(interpreter_->AllocateTensors());
  return reference_->AllocateTensors();
}

Status OpModel::ResizeInput(int i, const Shape& shape) {
  TWL_RETURN_IF_ERROR(interpreter_->ResizeInputTensor(i, shape));
  TWL_RETURN_IF_ERROR(reference_->ResizeInputTensor(i, shape));
  TWL_RETURN_IF_ERROR(interpreter_->AllocateTensors());
  return reference_->AllocateTensors();
}

void OpModel::SetInputBytes(int i, const void* data, size_t bytes) {
  for (Interpreter* interp : {interpreter_.get(), reference_.get()}) {
    Tensor* t = interp->input(i);
    if (t->bytes == bytes && bytes != 0) memcpy(t->data, data, bytes);
  }
}

Status OpModel::Invoke() {
  TWL_RETURN_IF_ERROR(reference_->Invoke());
  return interpreter_->Invoke();
}

std::vector<int32_t> OpModel::OutputShape(int i) {
  const Shape& s = interpreter_->output(i)->shape;
  return std::vector<int32_t>(s.dims, s.dims + s.rank);
}

std::string OpModel::CompareWithReference() {
  std::ostringstream error;
  for (int i = 0; i < interpreter_->num_outputs(); ++i) {
    const Tensor* a = interpreter_->output(i);
    const Tensor* b = reference_->output(i);
    if (a->shape != b->shape || a->bytes != b->bytes) {
      error << "output " << i << ": shapes differ";
      return error.str();
    }
    if (a->type != DataType::kFloat32) {
      if (a->bytes != 0 && memcmp(a->data, b->data, a->bytes) != 0) {
        error << "output " << i << ": integer outputs differ";
      }
      continue;
    }
    for (int64_t k = 0; k < a->num_elements(); ++k) {
      float x = a->data_as<float>()[k], y = b->data_as<float>()[k];
      if (std::isnan(x) && std::isnan(y)) continue;
      if (x == y) continue;  // also equal infinities
      if (!(std::fabs(x - y) <=
            kFloatAbsTolerance + kFloatRelTolerance * std::fabs(y))) {
        error << "output " << i << " element " << k << ": optimized " << x
              << " vs reference " << y;
        return error.str();
      }
    }
  }
  return error.str();
}

}  // namespace testing
}  // namespace twl
