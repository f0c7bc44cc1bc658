// GRID_SAMPLE (ONNX GridSample, opset 20): X [N, C, D1..Dr] sampled at the
// normalized grid [N, O1..Or, r] points; see twl.fbs. As onnx's reference
// (and PyTorch's grid_sample): the coordinate is unnormalized, NEAREST rounds
// it half to even, a coordinate outside the borders is clamped (BORDER) or
// reflected (REFLECTION) before the taps are taken, and each tap outside X
// reads 0 (ZEROS), the clamped index (BORDER) or the reflected one.
// Per grid point, the taps of every dim (index and weight) are computed
// once and applied to all C channels. Scalar float32.
#include <cmath>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

using schema::GridSamplePadding;
using schema::ResizeInterpolation;

constexpr int kMaxSpatial = 3;
constexpr int kMaxTaps = 4;

struct OpData {
  int spatial;
  ResizeInterpolation mode;
  GridSamplePadding padding;
  bool align_corners;
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 2, 2));
  const Tensor* x = context->input(*node, 0);
  const Tensor* grid = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(x, "X", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(grid, "grid", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckRank(x, "X", 3, 2 + kMaxSpatial));
  const int r = x->shape.rank - 2;
  TWL_CHECK_ARG(grid->shape.rank == r + 2 && grid->shape.dims[r + 1] == r &&
                    grid->shape.dims[0] == x->shape.dims[0],
                "grid must be [%d, O1..O%d, %d] for X of rank %d",
                x->shape.dims[0], r, r, x->shape.rank);
  const auto* options = GetOptions<schema::GridSampleOptions>(*node);
  d->spatial = r;
  d->mode = options->interpolation();
  d->padding = options->padding_mode();
  d->align_corners = options->align_corners();
  TWL_CHECK_ARG(d->mode == ResizeInterpolation::NEAREST ||
                    d->mode == ResizeInterpolation::LINEAR ||
                    d->mode == ResizeInterpolation::CUBIC,
                "unknown interpolation %d", static_cast<int>(d->mode));
  TWL_CHECK_ARG(d->padding == GridSamplePadding::ZEROS ||
                    d->padding == GridSamplePadding::BORDER ||
                    d->padding == GridSamplePadding::REFLECTION,
                "unknown padding mode %d", static_cast<int>(d->padding));
  for (int i = 2; i < x->shape.rank; ++i) {
    TWL_CHECK_ARG(x->shape.dims[i] > 0, "X has an empty spatial dim %d", i);
  }
  Shape out;
  out.rank = x->shape.rank;
  out.dims[0] = x->shape.dims[0];
  out.dims[1] = x->shape.dims[1];
  for (int i = 0; i < r; ++i) out.dims[2 + i] = grid->shape.dims[1 + i];
  return context->ResizeTensor(output, out);
}

// onnx's _gs_reflect: reflects x at lo and hi until inside [lo, hi].
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (x < lo) {
    const double dx = lo - x;
    const int64_t n = static_cast<int64_t>(dx / range);
    const double r = dx - n * range;
    return n % 2 == 0 ? lo + r : hi - r;
  }
  if (x > hi) {
    const double dx = x - hi;
    const int64_t n = static_cast<int64_t>(dx / range);
    const double r = dx - n * range;
    return n % 2 == 0 ? hi - r : lo + r;
  }
  return x;
}

void CubicCoefficients(float t, float* c) {
  constexpr float a = -0.75f;
  const float t1 = t + 1, t2 = 1 - t, t3 = 2 - t;
  c[0] = ((a * t1 - 5 * a) * t1 + 8 * a) * t1 - 4 * a;
  c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
  c[2] = ((a + 2) * t2 - (a + 3)) * t2 * t2 + 1;
  c[3] = ((a * t3 - 5 * a) * t3 + 8 * a) * t3 - 4 * a;
}

// The taps of one dim: index (-1: reads 0) and weight; returns their count.
int Taps(const OpData& d, float g, int dim, int64_t* index, float* weight) {
  const float lo = d.align_corners ? 0.0f : -0.5f;
  const float hi = d.align_corners ? dim - 1.0f : dim - 0.5f;
  float x =
      d.align_corners ? (g + 1) / 2.0f * (dim - 1) : ((g + 1) * dim - 1) / 2.0f;
  if (d.mode == ResizeInterpolation::NEAREST) x = std::nearbyint(x);
  if (x < lo || x > hi) {
    if (d.padding == GridSamplePadding::BORDER) {
      x = std::min(std::max(x, 0.0f), dim - 1.0f);
    } else if (d.padding == GridSamplePadding::REFLECTION) {
      x = static_cast<float>(Reflect(x, lo, hi));
    }
  }
  int n;
  int64_t first;
  if (d.mode == ResizeInterpolation::NEAREST) {
    n = 1;
    first = static_cast<int64_t>(x);  // truncates, as onnx's astype(int32)
    weight[0] = 1;
  } else {
    const float base = std::floor(x);
    const float t = x - base;
    if (d.mode == ResizeInterpolation::LINEAR) {
      n = 2;
      first = static_cast<int64_t>(base);
      weight[0] = 1 - t;
      weight[1] = t;
    } else {
      n = 4;
      first = static_cast<int64_t>(base) - 1;
      CubicCoefficients(t, weight);
    }
  }
  for (int k = 0; k < n; ++k) {
    int64_t i = first + k;
    if (i < 0 || i >= dim) {
      if (d.padding == GridSamplePadding::ZEROS) {
        i = -1;
      } else if (d.padding == GridSamplePadding::BORDER) {
        i = std::min<int64_t>(std::max<int64_t>(i, 0), dim - 1);
      } else {
        i = static_cast<int64_t>(Reflect(static_cast<double>(i), lo, hi));
        i = std::min<int64_t>(std::max<int64_t>(i, 0), dim - 1);
      }
    }
    index[k] = i;
  }
  return n;
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* x = context->input(*node, 0);
  const Tensor* grid = context->input(*node, 1);
  Tensor* output = context->output(*node, 0);
  const int r = d.spatial;
  const int64_t batch = x->shape.dims[0], channels = x->shape.dims[1];
  const int64_t in_plane = x->shape.Product(2, x->shape.rank);
  const int64_t points = grid->shape.Product(1, r + 1);
  int64_t in_strides[kMaxSpatial];
  in_strides[r - 1] = 1;
  for (int i = r - 2; i >= 0; --i) {
    in_strides[i] = in_strides[i + 1] * x->shape.dims[i + 3];
  }
  const float* in = x->data_as<float>();
  const float* g = grid->data_as<float>();
  float* out = output->data_as<float>();
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {  // p = n * points + point
      const int64_t n = p / points, point = p % points;
      int64_t index[kMaxSpatial][kMaxTaps];
      float weight[kMaxSpatial][kMaxTaps];
      int count[kMaxSpatial];
      for (int i = 0; i < r; ++i) {  // grid holds x (the last dim) first
        count[i] = Taps(d, g[p * r + (r - 1 - i)], x->shape.dims[2 + i],
                        index[i], weight[i]);
      }
      // The flattened taps: offset into a plane (-1: zero) and weight.
      constexpr int kMaxAll = kMaxTaps * kMaxTaps * kMaxTaps;
      int64_t offsets[2][kMaxAll];
      float weights[2][kMaxAll];
      int taps = 1, cur = 0;
      offsets[0][0] = 0;
      weights[0][0] = 1;
      for (int i = 0; i < r; ++i) {
        int next = 0;
        for (int t = 0; t < taps; ++t) {
          for (int k = 0; k < count[i]; ++k, ++next) {
            const bool zero = offsets[cur][t] < 0 || index[i][k] < 0;
            offsets[1 - cur][next] =
                zero ? -1 : offsets[cur][t] + index[i][k] * in_strides[i];
            weights[1 - cur][next] = weights[cur][t] * weight[i][k];
          }
        }
        taps = next;
        cur = 1 - cur;
      }
      const float* plane = in + n * channels * in_plane;
      float* dst = out + n * channels * points + point;
      for (int64_t c = 0; c < channels; ++c) {
        float sum = 0;
        for (int t = 0; t < taps; ++t) {
          if (offsets[cur][t] >= 0) {
            sum += weights[cur][t] * plane[offsets[cur][t]];
          }
        }
        dst[c * points] = sum;
        plane += in_plane;
      }
    }
  };
  ThreadPool* pool = context->thread_pool();
  const int64_t grain = 4096 / (channels + 1) + 1;
  pool->ParallelFor(batch * points, grain, pool->num_threads(), run);
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_GRID_SAMPLE() {
  return {BuiltinOperator::GRID_SAMPLE, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,           Prepare, Eval};
}

}  // namespace twl
