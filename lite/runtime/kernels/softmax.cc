// SOFTMAX and LOG_SOFTMAX over the last axis (float32), with beta:
//   softmax(x)_i = exp(beta * (x_i - max)) / sum_j exp(beta * (x_j - max)).
// The optimized SOFTMAX path computes exp by a polynomial the compiler
// vectorizes (FastExp), its rows split between threads; the reference path
// and LOG_SOFTMAX call std::exp.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/fast_math.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(input, "input", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(input, "input", 1, kMaxDims));
  return context->ResizeTensor(output, input->shape);
}

constexpr int kLanes = 8;

// Softmax of one row with the sums and max in kLanes partial lanes.
void OptimizedRow(const float* in, float* out, int depth, float beta) {
  float lane_max[kLanes];
  for (int l = 0; l < kLanes; ++l) lane_max[l] = in[0];
  int i = 0;
  for (; i + kLanes <= depth; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) {
      lane_max[l] = in[i + l] > lane_max[l] ? in[i + l] : lane_max[l];
    }
  }
  float max = in[0];
  for (; i < depth; ++i) max = in[i] > max ? in[i] : max;
  for (int l = 0; l < kLanes; ++l) max = lane_max[l] > max ? lane_max[l] : max;
  for (i = 0; i < depth; ++i) out[i] = FastExp(beta * (in[i] - max));
  float lane_sum[kLanes] = {};
  for (i = 0; i + kLanes <= depth; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) lane_sum[l] += out[i + l];
  }
  float sum = 0.f;
  for (; i < depth; ++i) sum += out[i];
  for (int l = 0; l < kLanes; ++l) sum += lane_sum[l];
  const float scale = 1.f / sum;
  for (i = 0; i < depth; ++i) out[i] *= scale;
}

template <bool kLog>
Status Eval(KernelContext* context, Node* node) {
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const float beta = GetOptions<schema::SoftmaxOptions>(*node)->beta();
  const int depth = input->shape.dims[input->shape.rank - 1];
  if (depth == 0) return Status::Ok();
  const int64_t rows = input->num_elements() / depth;
  const float* in = input->data_as<float>();
  float* out = output->data_as<float>();
  if (!kLog && !context->use_reference()) {
    // Rows split between threads, at least about 8K elements each.
    const int64_t grain = std::max<int64_t>(1, 8192 / depth);
    ThreadPool* pool = context->thread_pool();
    pool->ParallelFor(
        rows, grain, pool->num_threads(), [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            OptimizedRow(in + r * depth, out + r * depth, depth, beta);
          }
        });
    return Status::Ok();
  }
  for (int64_t r = 0; r < rows; ++r, in += depth, out += depth) {
    float max = in[0];
    for (int i = 1; i < depth; ++i) max = in[i] > max ? in[i] : max;
    float sum = 0.f;
    for (int i = 0; i < depth; ++i) {
      float e = std::exp(beta * (in[i] - max));
      out[i] = e;
      sum += e;
    }
    if (kLog) {
      float log_sum = std::log(sum);
      for (int i = 0; i < depth; ++i) out[i] = beta * (in[i] - max) - log_sum;
    } else {
      float scale = 1.f / sum;
      for (int i = 0; i < depth; ++i) out[i] *= scale;
    }
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_SOFTMAX() {
  return {BuiltinOperator::SOFTMAX, 1, nullptr, nullptr, Prepare, Eval<false>};
}
KernelRegistration Register_LOG_SOFTMAX() {
  return {
      BuiltinOperator::LOG_SOFTMAX, 1, nullptr, nullptr, Prepare, Eval<true>};
}

}  // namespace twl
