// TILE and BROADCAST_TO: every output element copies the input element at
// (output coordinate mod input dim) on each dim, the input's dims aligned to
// the output's last ones (missing dims read as 1). TILE's output dims are
// the input's times `multiples`; BROADCAST_TO's are the numpy broadcast of
// the input's shape and `shape` (constant, or computed in the model: a
// dynamic output, sized in eval). Any dtype (copied by element size); large
// outputs split by rows across the thread pool.
#include <algorithm>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

// TILE's and BROADCAST_TO's checks (two inputs, the output of the input's
// type) and their second input's constant values (`what`: its name).
Status ReadShapeOperand(KernelContext* context, Node* node, const char* what,
                        int64_t* values, int* count) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  TWL_CHECK_ARG(
      context->input(*node, 0)->type == context->output(*node, 0)->type,
      "input and output types differ");
  return ReadConstantInts(context->input(*node, 1), what, values, kMaxDims,
                          count);
}

TWL_PREPARE Status PrepareTile(KernelContext* context, Node* node) {
  int64_t values[kMaxDims];
  int count = 0;
  TWL_RETURN_IF_ERROR(
      ReadShapeOperand(context, node, "multiples", values, &count));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(count == input->shape.rank,
                "multiples has %d values for an input of rank %d", count,
                input->shape.rank);
  Shape shape = input->shape;
  for (int i = 0; i < count; ++i) {
    TWL_CHECK_ARG(values[i] >= 0 && values[i] <= INT32_MAX,
                  "multiple %lld of dim %d is invalid",
                  static_cast<long long>(values[i]), i);
    const int64_t dim = input->shape.dims[i] * values[i];
    TWL_CHECK_ARG(dim <= INT32_MAX, "dim %d tiled is too large", i);
    shape.dims[i] = static_cast<int32_t>(dim);
  }
  return context->ResizeTensor(output, shape);
}

// BROADCAST_TO's target shape (see ReadShapeValues; a computed target makes
// the output dynamic).
Status ReadTarget(const Tensor* tensor, bool eval, Shape* target,
                  bool* computed) {
  int64_t values[kMaxDims];
  int count = 0;
  TWL_RETURN_IF_ERROR(ReadShapeValues(tensor, eval, values, &count, computed));
  target->rank = count;
  for (int i = 0; i < count; ++i) {
    TWL_CHECK_ARG(values[i] >= 0 && values[i] <= INT32_MAX,
                  "shape value %lld is invalid",
                  static_cast<long long>(values[i]));
    target->dims[i] = static_cast<int32_t>(values[i]);
  }
  return Status::Ok();
}

TWL_PREPARE Status PrepareBroadcastTo(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(input->type == output->type, "input and output types differ");
  Shape target, shape;
  bool computed = false;
  TWL_RETURN_IF_ERROR(
      ReadTarget(context->input(*node, 1), false, &target, &computed));
  if (computed) {
    TWL_RETURN_IF_ERROR(context->MarkDynamic(output));
    for (int i = 0; i < target.rank; ++i) target.dims[i] = 0;
    shape.rank = std::max(target.rank, input->shape.rank);
    for (int i = 0; i < shape.rank; ++i) shape.dims[i] = 0;
    return context->ResizeTensor(output, shape);
  }
  TWL_RETURN_IF_ERROR(BroadcastShapes(input->shape, target, &shape));
  return context->ResizeTensor(output, shape);
}

// Output rows (last-dim runs) [begin, end).
template <typename T>
void Tile(const Tensor* input, Tensor* output, int64_t begin, int64_t end) {
  const Shape& out = output->shape;
  const T* src = input->data_as<T>();
  T* dst = output->data_as<T>();
  if (out.rank == 0) {
    dst[0] = src[0];
    return;
  }
  // Input dim and stride of each output dim (dim 1 where absent).
  int64_t in_dim[kMaxDims], in_stride[kMaxDims], coord[kMaxDims] = {};
  int64_t stride = 1;
  for (int i = out.rank - 1; i >= 0; --i) {
    const int k = i - (out.rank - input->shape.rank);
    in_dim[i] = k >= 0 ? input->shape.dims[k] : 1;
    in_stride[i] = stride;
    stride *= in_dim[i];
  }
  const int last = out.rank - 1;
  for (int64_t i = last - 1, r = begin; i >= 0; --i) {  // row `begin`
    coord[i] = r % out.dims[i];
    r /= out.dims[i];
  }
  const int64_t row = out.dims[last], in_row = in_dim[last];
  for (int64_t r = begin; r < end; ++r) {
    int64_t base = 0;
    for (int i = 0; i < last; ++i)
      base += (coord[i] % in_dim[i]) * in_stride[i];
    T* o = dst + r * row;
    for (int64_t j = 0; j < row; ++j) o[j] = src[base + j % in_row];
    for (int i = last - 1; i >= 0 && ++coord[i] == out.dims[i]; --i) {
      coord[i] = 0;
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  if (output->is_dynamic && node->op == BuiltinOperator::BROADCAST_TO) {
    Shape target, shape;
    bool computed = false;
    TWL_RETURN_IF_ERROR(
        ReadTarget(context->input(*node, 1), true, &target, &computed));
    TWL_RETURN_IF_ERROR(BroadcastShapes(input->shape, target, &shape));
    TWL_RETURN_IF_ERROR(context->ResizeDynamicTensor(output, shape));
  }
  const Shape& out = output->shape;
  const int64_t total = output->num_elements();
  if (total == 0) return Status::Ok();
  const int64_t row = out.rank == 0 ? 1 : out.dims[out.rank - 1];
  const int64_t rows = total / row;
  return DispatchAll(input->type, [&](auto zero) {
    using T = decltype(zero);
    if (context->use_reference()) {
      Tile<T>(input, output, 0, rows);
    } else {
      ThreadPool* pool = context->thread_pool();
      pool->ParallelFor(
          rows, std::max<int64_t>(1, 32768 / row), pool->num_threads(),
          [&](int64_t b, int64_t e) { Tile<T>(input, output, b, e); });
    }
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_TILE() {
  return {BuiltinOperator::TILE, 1, nullptr, nullptr, PrepareTile, Eval};
}

KernelRegistration Register_BROADCAST_TO() {
  return {BuiltinOperator::BROADCAST_TO,
          1,
          nullptr,
          nullptr,
          PrepareBroadcastTo,
          Eval};
}

}  // namespace twl
