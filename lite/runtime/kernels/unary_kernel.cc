#include "lite/runtime/kernels/unary_kernel.h"

#include "lite/runtime/thread_pool.h"

namespace twl {

TWL_PREPARE Status PrepareUnary(KernelContext* context, Node* node,
                                TypeSet types, bool predicate) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG((types & TypeBit(input->type)) != 0,
                "unsupported input type %s", DataTypeName(input->type));
  const DataType want = predicate ? DataType::kBool : input->type;
  TWL_CHECK_ARG(output->type == want, "output type %s must be %s",
                DataTypeName(output->type), DataTypeName(want));
  return context->ResizeTensor(output, input->shape);
}

void RunUnary(KernelContext* context, int64_t n, size_t in_size,
              size_t out_size, const void* op, const void* in, void* out,
              UnaryRunFn fast, UnaryRunFn reference) {
  if (context->use_reference()) {
    reference(op, in, out, n);
    return;
  }
  ThreadPool* pool = context->thread_pool();
  pool->ParallelFor(n, 32768, pool->num_threads(), [&](int64_t b, int64_t e) {
    fast(op, static_cast<const char*>(in) + b * static_cast<int64_t>(in_size),
         static_cast<char*>(out) + b * static_cast<int64_t>(out_size), e - b);
  });
}

}  // namespace twl
