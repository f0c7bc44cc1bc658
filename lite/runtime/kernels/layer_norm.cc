// LAYER_NORM (float32): normalizes over the input's dims [axis, rank),
//   y = (x - mean) / sqrt(variance + epsilon) * scale + bias,
// with the population variance, as ONNX's LayerNormalization (stash_type
// float32) and PyTorch's layer_norm define it. Inputs: input, scale, optional
// bias (-1 = none); scale and bias have the shape of dims [axis, rank).
// With the `rms` option it is RMS normalization (ONNX's RMSNormalization):
// the mean is taken as 0, y = x / sqrt(mean(x^2) + epsilon) * scale + bias.
//
// One fused pass per row (mean, centred variance, scale/shift); rows are
// split across threads. The reference path accumulates in double.
#include <cmath>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

struct OpData {
  int64_t rows = 0, depth = 0;
  float epsilon = 0;
  bool rms = false;
};

Status CheckParameter(const Tensor* t, const char* what, const Shape& x,
                      int axis) {
  TWL_RETURN_IF_ERROR(CheckType(t, what, DataType::kFloat32));
  bool same = t->shape.rank == x.rank - axis;
  for (int i = 0; same && i < t->shape.rank; ++i) {
    same = t->shape.dims[i] == x.dims[axis + i];
  }
  char got[96], want[96];
  TWL_CHECK_ARG(same,
                "%s has shape %s; it must be the input's dims from axis %d "
                "on (input shape %s)",
                what, t->shape.ToString(got, sizeof(got)), axis,
                x.ToString(want, sizeof(want)));
  return Status::Ok();
}

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 3));
  const Tensor* input = context->input(*node, 0);
  const Tensor* scale = context->input(*node, 1);
  const Tensor* bias = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_CHECK_ARG(scale != nullptr, "scale is required");
  TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  const auto* options = GetOptions<schema::LayerNormOptions>(*node);
  int axis = 0;
  TWL_RETURN_IF_ERROR(NormalizeAxis(options->axis(), input->shape.rank, &axis));
  d->epsilon = options->epsilon();
  d->rms = options->rms();
  TWL_CHECK_ARG(d->epsilon >= 0 && std::isfinite(d->epsilon),
                "epsilon %g must be finite and non-negative", d->epsilon);
  TWL_RETURN_IF_ERROR(CheckParameter(scale, "scale", input->shape, axis));
  if (bias != nullptr) {
    TWL_RETURN_IF_ERROR(CheckParameter(bias, "bias", input->shape, axis));
  }
  d->depth = 1;
  for (int i = axis; i < input->shape.rank; ++i)
    d->depth *= input->shape.dims[i];
  d->rows = d->depth == 0 ? 0 : input->num_elements() / d->depth;
  return context->ResizeTensor(output, input->shape);
}

void ReferenceRow(const float* x, const float* scale, const float* bias,
                  int64_t n, float epsilon, bool rms, float* y) {
  double sum = 0;
  for (int64_t i = 0; !rms && i < n; ++i) sum += x[i];
  const double mean = sum / n;
  double sq = 0;
  for (int64_t i = 0; i < n; ++i) sq += (x[i] - mean) * (x[i] - mean);
  const double inv = 1.0 / std::sqrt(sq / n + epsilon);
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<float>((x[i] - mean) * inv * scale[i] +
                              (bias ? bias[i] : 0.0));
  }
}

// Float sums in 8 lanes (vectorized by the compiler), combined at the end.
float Mean(const float* x, int64_t n) {
  constexpr int kLanes = 8;
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += x[i + l];
  }
  float sum = 0;
  for (; i < n; ++i) sum += x[i];
  for (int l = 0; l < kLanes; ++l) sum += acc[l];
  return sum / static_cast<float>(n);
}

void OptimizedRow(const float* x, const float* scale, const float* bias,
                  int64_t n, float epsilon, bool rms, float* y) {
  constexpr int kLanes = 8;
  const float mean = rms ? 0.f : Mean(x, n);
  int64_t i = 0;
  float sq_acc[kLanes] = {};
  for (i = 0; i + kLanes <= n; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      float c = x[i + l] - mean;
      sq_acc[l] += c * c;
    }
  }
  float sq = 0;
  for (; i < n; ++i) sq += (x[i] - mean) * (x[i] - mean);
  for (int l = 0; l < kLanes; ++l) sq += sq_acc[l];
  const float inv = 1.f / std::sqrt(sq / static_cast<float>(n) + epsilon);
  if (bias != nullptr) {
    for (i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i] + bias[i];
  } else {
    for (i = 0; i < n; ++i) y[i] = (x[i] - mean) * inv * scale[i];
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const float* x = context->input(*node, 0)->data_as<float>();
  const float* scale = context->input(*node, 1)->data_as<float>();
  const Tensor* bias_tensor = context->input(*node, 2);
  const float* bias =
      bias_tensor != nullptr ? bias_tensor->data_as<float>() : nullptr;
  float* y = context->output(*node, 0)->data_as<float>();
  const int64_t n = d.depth;
  if (context->use_reference()) {
    for (int64_t r = 0; r < d.rows; ++r) {
      ReferenceRow(x + r * n, scale, bias, n, d.epsilon, d.rms, y + r * n);
    }
    return Status::Ok();
  }
  ThreadPool* pool = context->thread_pool();
  const int64_t grain = n >= 16384 ? 1 : 16384 / n;
  pool->ParallelFor(
      d.rows, grain, pool->num_threads(), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          OptimizedRow(x + r * n, scale, bias, n, d.epsilon, d.rms, y + r * n);
        }
      });
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_LAYER_NORM() {
  return {BuiltinOperator::LAYER_NORM, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,          Prepare, Eval};
}

}  // namespace twl
