// GELU and ERF (float32).
//   ERF:  erf(x).
//   GELU: x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2))), or with `approximate`
//         0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
// The reference path calls std::erf / std::tanh. The optimized path runs
// vector_math.h's rational approximations of erf and tanh (|error| about
// 2e-7) on whole vectors, split across threads when large.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"
#include "lite/runtime/vector.h"
#include "lite/runtime/vector_math.h"

namespace twl {
namespace {

enum class Kind { kErf, kGelu, kGeluTanh };

Kind KindOf(const Node& node) {
  if (node.op == BuiltinOperator::ERF) return Kind::kErf;
  return GetOptions<schema::GeluOptions>(node)->approximate() ? Kind::kGeluTanh
                                                              : Kind::kGelu;
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  return context->ResizeTensor(output, input->shape);
}

void Reference(Kind kind, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    double r;
    switch (kind) {
      case Kind::kErf:
        r = std::erf(v);
        break;
      case Kind::kGelu:
        r = 0.5 * v * (1.0 + std::erf(v * 0.70710678118654752));
        break;
      default:
        r = 0.5 * v *
            (1.0 + std::tanh(0.79788456080286536 * (v + 0.044715 * v * v * v)));
    }
    y[i] = static_cast<float>(r);
  }
}

template <typename V>
TWL_KERNEL_INLINE V Apply(Kind kind, V x) {
  if (kind == Kind::kErf) return ErfVector(x);
  if (kind == Kind::kGelu) return GeluVector(x);
  return GeluTanhVector(x);
}

struct OptimizedOp {
  template <int W>
  static TWL_KERNEL_INLINE void Run(Kind kind, const float* x, float* y,
                                    int64_t n) {
    typedef typename VectorOf<W>::type Native;
    for (int64_t i = 0; i < n; i += W) {
      // The tail through one padded vector.
      const int64_t count = n - i < W ? n - i : W;
      float tail[W];
      const float* src = x + i;
      float* dst = y + i;
      if (count < W) {
        memset(tail, 0, sizeof(tail));
        memcpy(tail, src, sizeof(float) * count);
        src = dst = tail;
      }
      const Native v = Apply(kind, LoadVector<W>(src));
      memcpy(dst, &v, sizeof(v));
      if (count < W) memcpy(y + i, tail, sizeof(float) * count);
    }
  }
};

Status Eval(KernelContext* context, Node* node) {
  const float* x = context->input(*node, 0)->data_as<float>();
  float* y = context->output(*node, 0)->data_as<float>();
  const int64_t n = context->input(*node, 0)->num_elements();
  const Kind kind = KindOf(*node);
  if (context->use_reference()) {
    Reference(kind, x, y, n);
    return Status::Ok();
  }
  ThreadPool* pool = context->thread_pool();
  pool->ParallelFor(n, 16384, pool->num_threads(), [&](int64_t b, int64_t e) {
    RunKernel<OptimizedOp>(kind, x + b, y + b, e - b);
  });
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_GELU() {
  return {BuiltinOperator::GELU, 1, nullptr, nullptr, Prepare, Eval};
}
KernelRegistration Register_ERF() {
  return {BuiltinOperator::ERF, 1, nullptr, nullptr, Prepare, Eval};
}

}  // namespace twl
