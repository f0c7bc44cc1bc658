// SELECT (ONNX Where): out = condition ? x : y, with numpy broadcasting of
// its operands: a bool condition and x, y of one type (any dtype, copied as
// bytes). It builds attention masks, so it runs once per inference on small
// tensors: one path, an index counter over the output.
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"

namespace twl {
namespace {

constexpr int kMaxOperands = 3;

struct OpData {
  int num_operands = 0;
  Shape out_shape;
  int64_t strides[kMaxOperands][kMaxDims];
};

TWL_PREPARE Status PrepareBroadcast(KernelContext* context, Node* node, int n,
                                    OpData* d) {
  d->num_operands = n;
  d->out_shape = context->input(*node, 0)->shape;
  for (int i = 1; i < n; ++i) {
    Shape s;
    TWL_RETURN_IF_ERROR(
        BroadcastShapes(d->out_shape, context->input(*node, i)->shape, &s));
    d->out_shape = s;
  }
  for (int i = 0; i < n; ++i) {
    BroadcastStrides(context->input(*node, i)->shape, d->out_shape,
                     d->strides[i]);
  }
  return Status::Ok();
}

// Calls f(out_index, offsets[]) for every output element in order.
template <typename F>
void ForEachElement(const OpData& d, F&& f) {
  const Shape& s = d.out_shape;
  const int64_t total = s.NumElements();
  int64_t index[kMaxDims] = {};
  int64_t offset[kMaxOperands] = {};
  for (int64_t o = 0; o < total; ++o) {
    f(o, offset);
    for (int i = s.rank - 1; i >= 0; --i) {
      for (int k = 0; k < d.num_operands; ++k) offset[k] += d.strides[k][i];
      if (++index[i] < s.dims[i]) break;
      for (int k = 0; k < d.num_operands; ++k) {
        offset[k] -= d.strides[k][i] * s.dims[i];
      }
      index[i] = 0;
    }
  }
}

TWL_PREPARE Status PrepareSelect(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 3, 3));
  const Tensor* cond = context->input(*node, 0);
  const Tensor* x = context->input(*node, 1);
  const Tensor* y = context->input(*node, 2);
  Tensor* out = context->output(*node, 0);
  TWL_CHECK_ARG(cond != nullptr && x != nullptr && y != nullptr,
                "condition, x and y are required");
  TWL_RETURN_IF_ERROR(CheckType(cond, "condition", DataType::kBool));
  TWL_CHECK_ARG(x->type == y->type && out->type == x->type,
                "x (%s), y (%s) and output (%s) must have one type",
                DataTypeName(x->type), DataTypeName(y->type),
                DataTypeName(out->type));
  TWL_RETURN_IF_ERROR(PrepareBroadcast(context, node, 3, d));
  return context->ResizeTensor(out, d->out_shape);
}

Status EvalSelect(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  // Bytes, not bool: any non-zero byte of an untrusted input is true.
  const uint8_t* cond = context->input(*node, 0)->data_as<uint8_t>();
  const Tensor* x = context->input(*node, 1);
  Tensor* out = context->output(*node, 0);
  return DispatchAll(x->type, [&](auto zero) {
    using T = decltype(zero);
    const T* xs = x->data_as<T>();
    const T* ys = context->input(*node, 2)->data_as<T>();
    T* o = out->data_as<T>();
    ForEachElement(d, [&](int64_t i, const int64_t* off) {
      o[i] = cond[off[0]] != 0 ? xs[off[1]] : ys[off[2]];
    });
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_SELECT() {
  return {BuiltinOperator::SELECT, 1,
          InitOpData<OpData>,      FreeOpData<OpData>,
          PrepareSelect,           EvalSelect};
}

}  // namespace twl
