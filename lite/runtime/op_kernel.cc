#include "lite/runtime/op_kernel.h"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "lite/runtime/model.h"

namespace twl {

Status KernelContext::ResizeTensor(Tensor* tensor, const Shape& shape) {
  if (tensor->is_constant) {
    if (tensor->shape == shape) return Status::Ok();
    char text[96];
    return Status::Error(StatusCode::kInvalidArgument,
                         "cannot resize constant tensor '%s' to %s",
                         tensor->name, shape.ToString(text, sizeof(text)));
  }
  for (int i = 0; i < shape.rank; ++i) {
    TWL_CHECK_ARG(shape.dims[i] >= 0, "output dim %d of '%s' is negative (%d)",
                  i, tensor->name, shape.dims[i]);
  }
  size_t bytes = 0;
  TWL_RETURN_IF_ERROR(ComputeByteSize(shape, tensor->type, &bytes));
  tensor->shape = shape;
  tensor->bytes = bytes;
  return Status::Ok();
}

Status KernelContext::RequestScratch(Node* node, size_t bytes, int* index) {
  if (node->num_scratch >= kMaxNodeScratch) {
    return Status::Error(StatusCode::kInternal, "too many scratch buffers");
  }
  if (bytes > static_cast<size_t>(kMaxTensorBytes)) {
    return Status::Error(StatusCode::kResourceExhausted,
                         "scratch of %zu bytes exceeds the limit", bytes);
  }
  *index = node->num_scratch++;
  node->scratch_bytes[*index] = bytes;
  return Status::Ok();
}

Status CheckNumInputs(const Node& node, int min, int max) {
  TWL_CHECK_ARG(node.num_inputs >= min && node.num_inputs <= max,
                "expects %d..%d inputs, got %d", min, max, node.num_inputs);
  for (int i = 0; i < min; ++i) {
    TWL_CHECK_ARG(node.inputs[i] >= 0, "required input %d is absent", i);
  }
  return Status::Ok();
}

Status CheckType(const Tensor* tensor, const char* what, DataType type) {
  TWL_CHECK_ARG(tensor->type == type, "%s '%s' must be %s, got %s", what,
                tensor->name, DataTypeName(type), DataTypeName(tensor->type));
  return Status::Ok();
}

Status CheckRank(const Tensor* tensor, const char* what, int min, int max) {
  char text[96];
  TWL_CHECK_ARG(tensor->shape.rank >= min && tensor->shape.rank <= max,
                "%s '%s' must have rank %d..%d, got shape %s", what,
                tensor->name, min, max,
                tensor->shape.ToString(text, sizeof(text)));
  return Status::Ok();
}

Status CheckSameTypes(const Tensor* a, const Tensor* b, const Tensor* out) {
  TWL_CHECK_ARG(a->type == b->type && a->type == out->type,
                "input types %s, %s and output type %s must match",
                DataTypeName(a->type), DataTypeName(b->type),
                DataTypeName(out->type));
  return Status::Ok();
}

Status CheckConvOperands(const Tensor* input, const Tensor* filter,
                         const Tensor* output) {
  TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(filter, "filter", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 4, 4));
  return CheckRank(filter, "filter", 4, 4);
}

Status ReadConstantInts(const Tensor* tensor, const char* what, int64_t* values,
                        int max_values, int* count) {
  TWL_CHECK_ARG(tensor != nullptr, "%s is missing", what);
  TWL_CHECK_ARG(tensor->is_constant && tensor->data != nullptr,
                "%s '%s' must be a constant tensor", what, tensor->name);
  TWL_CHECK_ARG(
      tensor->type == DataType::kInt32 || tensor->type == DataType::kInt64,
      "%s '%s' must be int32 or int64, got %s", what, tensor->name,
      DataTypeName(tensor->type));
  int64_t n = tensor->num_elements();
  TWL_CHECK_ARG(n <= max_values, "%s '%s' has %lld values, at most %d allowed",
                what, tensor->name, static_cast<long long>(n), max_values);
  for (int64_t i = 0; i < n; ++i) {
    values[i] = tensor->type == DataType::kInt32
                    ? tensor->data_as<int32_t>()[i]
                    : tensor->data_as<int64_t>()[i];
  }
  *count = static_cast<int>(n);
  return Status::Ok();
}

}  // namespace twl

namespace twl {

void KernelContext::ReleaseConstant(const Tensor* tensor, size_t bytes) {
  if (model_ != nullptr && tensor != nullptr && tensor->is_constant) {
    model_->DropPages(tensor->data, std::min(bytes, tensor->bytes));
  }
}

}  // namespace twl

namespace twl {

DynamicBuffers::~DynamicBuffers() {
  for (void* data : data_) free(data);
}

Status DynamicBuffers::Reserve(size_t slot, size_t bytes, void** data) {
  if (bytes > static_cast<size_t>(kMaxTensorBytes)) {
    return Status::Error(StatusCode::kResourceExhausted,
                         "dynamic buffer of %zu bytes exceeds the limit",
                         bytes);
  }
  if (slot >= data_.size()) {
    data_.resize(slot + 1, nullptr);
    capacity_.resize(slot + 1, 0);
  }
  if (data_[slot] == nullptr || capacity_[slot] < bytes) {
    free(data_[slot]);
    data_[slot] = nullptr;
    capacity_[slot] = 0;
    const size_t capacity = (std::max(bytes, size_t{64}) + 63) / 64 * 64;
    data_[slot] = aligned_alloc(64, capacity);
    if (data_[slot] == nullptr) {
      return Status::Error(StatusCode::kResourceExhausted,
                           "cannot allocate a dynamic buffer of %zu bytes",
                           capacity);
    }
    capacity_[slot] = capacity;
  }
  *data = data_[slot];
  return Status::Ok();
}

Status KernelContext::MarkDynamic(Tensor* tensor) {
  if (dynamic_ == nullptr || tensor->is_constant) {
    return Status::Error(StatusCode::kInternal,
                         "tensor '%s' cannot be dynamic%s", tensor->name,
                         tensor->is_constant ? " (a constant)" : "");
  }
  tensor->is_dynamic = true;
  return Status::Ok();
}

Status KernelContext::ResizeDynamicTensor(Tensor* tensor, const Shape& shape) {
  if (dynamic_ == nullptr || !tensor->is_dynamic) {
    return Status::Error(StatusCode::kInternal,
                         "tensor '%s' is not dynamic: its shape is set in "
                         "prepare",
                         tensor->name);
  }
  for (int i = 0; i < shape.rank; ++i) {
    TWL_CHECK_ARG(shape.dims[i] >= 0, "output dim %d of '%s' is negative (%d)",
                  i, tensor->name, shape.dims[i]);
  }
  size_t bytes = 0;
  TWL_RETURN_IF_ERROR(ComputeByteSize(shape, tensor->type, &bytes));
  void* data = nullptr;
  TWL_RETURN_IF_ERROR(
      dynamic_->Reserve(static_cast<size_t>(tensor - tensors_), bytes, &data));
  tensor->shape = shape;
  tensor->bytes = bytes;
  tensor->data = data;
  return Status::Ok();
}

}  // namespace twl
