// QUANTIZED_ADD (LiteRT's int8 ADD, ONNX QLinearAdd); see twl.fbs. Residual
// adds of quantized CNNs stay integer instead of DEQUANTIZE, ADD and
// QUANTIZE. The optimized path splits the elements over the pool and runs
// quantization.h's QuantizedAdd (vector on AVX2); the reference path is its
// plain loop, element by element.
#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/quantization.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

enum {
  kA,
  kB,
  kAZeroPoint,
  kBZeroPoint,
  kAMultiplier,
  kBMultiplier,
  kYZeroPoint
};

Status CheckScalar(const Tensor* t, const char* what, DataType type) {
  TWL_CHECK_ARG(t != nullptr, "%s is missing", what);
  TWL_RETURN_IF_ERROR(CheckType(t, what, type));
  TWL_CHECK_ARG(t->num_elements() == 1,
                "%s '%s' must have one element, has %lld", what, t->name,
                static_cast<long long>(t->num_elements()));
  return Status::Ok();
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 7, 7));
  const Tensor* a = context->input(*node, kA);
  const Tensor* b = context->input(*node, kB);
  TWL_CHECK_ARG(a->type == DataType::kInt8 || a->type == DataType::kUInt8,
                "a '%s' must be int8 or uint8, got %s", a->name,
                DataTypeName(a->type));
  TWL_RETURN_IF_ERROR(CheckType(b, "b", a->type));
  TWL_CHECK_ARG(a->shape == b->shape,
                "a '%s' and b '%s' must have one shape (no broadcasting)",
                a->name, b->name);
  TWL_RETURN_IF_ERROR(
      CheckScalar(context->input(*node, kAZeroPoint), "a zero point", a->type));
  TWL_RETURN_IF_ERROR(
      CheckScalar(context->input(*node, kBZeroPoint), "b zero point", a->type));
  TWL_RETURN_IF_ERROR(
      CheckScalar(context->input(*node, kYZeroPoint), "y zero point", a->type));
  for (int i : {kAMultiplier, kBMultiplier}) {
    const Tensor* m = context->input(*node, i);
    const char* what = i == kAMultiplier ? "a multiplier" : "b multiplier";
    TWL_RETURN_IF_ERROR(CheckScalar(m, what, DataType::kFloat32));
    if (m->is_constant) TWL_RETURN_IF_ERROR(CheckScales(*m, what));
  }
  Tensor* y = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(y, "y", a->type));
  return context->ResizeTensor(y, a->shape);
}

template <typename T>
T ScalarOf(const Tensor* t) {
  return t->data_as<T>()[0];
}

Status Eval(KernelContext* context, Node* node) {
  const Tensor* a = context->input(*node, kA);
  const Tensor* b = context->input(*node, kB);
  for (int i : {kAMultiplier, kBMultiplier}) {
    const Tensor* m = context->input(*node, i);
    if (!m->is_constant) TWL_RETURN_IF_ERROR(CheckScales(*m, "multiplier"));
  }
  const float ma = ScalarOf<float>(context->input(*node, kAMultiplier));
  const float mb = ScalarOf<float>(context->input(*node, kBMultiplier));
  Tensor* y = context->output(*node, 0);
  const int64_t n = a->num_elements();
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const int32_t za = ScalarOf<T>(context->input(*node, kAZeroPoint));
    const int32_t zb = ScalarOf<T>(context->input(*node, kBZeroPoint));
    const int32_t zy = ScalarOf<T>(context->input(*node, kYZeroPoint));
    const T* av = a->data_as<T>();
    const T* bv = b->data_as<T>();
    T* yv = y->data_as<T>();
    if (context->use_reference()) {
      for (int64_t i = 0; i < n; ++i) {
        yv[i] = RoundToQuantized<T>(
            (static_cast<int32_t>(av[i]) - za) * static_cast<double>(ma) +
                (static_cast<int32_t>(bv[i]) - zb) * static_cast<double>(mb),
            zy);
      }
      return;
    }
    ThreadPool* pool = context->thread_pool();
    auto part = [&](int64_t begin, int64_t end) {
      QuantizedAdd<T>(av + begin, bv + begin, end - begin, za, zb, ma, mb, zy,
                      yv + begin);
    };
    if (pool == nullptr) {
      part(0, n);
    } else {
      pool->ParallelFor(n, 32768, pool->num_threads(), part);
    }
  };
  if (a->type == DataType::kInt8) {
    run(int8_t{});
  } else {
    run(uint8_t{});
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_QUANTIZED_ADD() {
  return {BuiltinOperator::QUANTIZED_ADD, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
