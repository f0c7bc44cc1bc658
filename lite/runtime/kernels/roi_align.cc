// ROI_ALIGN (ONNX RoiAlign, opset 16); see twl.fbs. As onnx's reference
// (and onnxruntime): per bin, a roi_bin_grid_h x roi_bin_grid_w grid of
// samples, each bilinear over its four neighbours (a sample more than one
// pixel outside X contributes 0; one within clamps to the edge); avg mode
// averages the samples, max mode takes the largest weighted neighbour over
// the samples. The taps of a sample are computed once for all channels.
// Coordinates and sums in double, as the reference. Scalar float32.
#include <cmath>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

struct OpData {
  int out_h, out_w, sampling_ratio;
  double spatial_scale;
  bool half_pixel, max_mode;
};

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 3, 3));
  const Tensor* x = context->input(*node, 0);
  const Tensor* rois = context->input(*node, 1);
  const Tensor* indices = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  TWL_RETURN_IF_ERROR(CheckType(x, "X", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(rois, "rois", DataType::kFloat32));
  TWL_RETURN_IF_ERROR(CheckType(output, "output", DataType::kFloat32));
  TWL_CHECK_ARG(
      indices->type == DataType::kInt32 || indices->type == DataType::kInt64,
      "batch_indices must be int32 or int64, got %s",
      DataTypeName(indices->type));
  TWL_RETURN_IF_ERROR(CheckRank(x, "X", 4, 4));
  const int32_t num_rois = rois->shape.rank == 2 ? rois->shape.dims[0] : -1;
  TWL_CHECK_ARG(rois->shape.rank == 2 && rois->shape.dims[1] == 4,
                "rois must be [num_rois, 4]");
  TWL_CHECK_ARG(indices->shape.rank == 1 && indices->shape.dims[0] == num_rois,
                "batch_indices must be [%d], one per roi", num_rois);
  TWL_CHECK_ARG(x->shape.dims[2] > 0 && x->shape.dims[3] > 0,
                "X has an empty spatial dim");
  const auto* options = GetOptions<schema::RoiAlignOptions>(*node);
  d->out_h = options->output_height();
  d->out_w = options->output_width();
  d->sampling_ratio = options->sampling_ratio();
  d->spatial_scale = options->spatial_scale();
  d->half_pixel = options->half_pixel();
  d->max_mode = options->max_mode();
  TWL_CHECK_ARG(d->out_h > 0 && d->out_w > 0,
                "output size %dx%d is not positive", d->out_h, d->out_w);
  TWL_CHECK_ARG(d->sampling_ratio >= 0, "sampling_ratio %d is negative",
                d->sampling_ratio);
  TWL_CHECK_ARG(std::isfinite(d->spatial_scale), "spatial_scale is not finite");
  return context->ResizeTensor(
      output, Shape({num_rois, x->shape.dims[1], d->out_h, d->out_w}));
}

// The four neighbours (offsets into a plane) and weights of sample (y, x).
void Sample(double y, double x, int height, int width, int64_t* pos,
            double* w) {
  if (y < -1.0 || y > height || x < -1.0 || x > width) {
    for (int k = 0; k < 4; ++k) pos[k] = 0, w[k] = 0;
    return;
  }
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  int64_t y_low = static_cast<int64_t>(y), x_low = static_cast<int64_t>(x);
  int64_t y_high, x_high;
  if (y_low >= height - 1) {
    y_high = y_low = height - 1;
    y = static_cast<double>(y_low);
  } else {
    y_high = y_low + 1;
  }
  if (x_low >= width - 1) {
    x_high = x_low = width - 1;
    x = static_cast<double>(x_low);
  } else {
    x_high = x_low + 1;
  }
  const double ly = y - y_low, lx = x - x_low, hy = 1 - ly, hx = 1 - lx;
  pos[0] = y_low * width + x_low;
  pos[1] = y_low * width + x_high;
  pos[2] = y_high * width + x_low;
  pos[3] = y_high * width + x_high;
  w[0] = hy * hx;
  w[1] = hy * lx;
  w[2] = ly * hx;
  w[3] = ly * lx;
}

// One roi's start, bin size and samples per bin (onnx's arithmetic).
struct RoiGeometry {
  double y0, x0, bin_h, bin_w;
  int64_t grid_h, grid_w;
};

// The most samples per bin on an axis (an adaptive grid of a huge roi).
constexpr double kMaxGrid = 1 << 16;

Status Geometry(const OpData& d, const float* box, RoiGeometry* g) {
  const double offset = d.half_pixel ? 0.5 : 0.0;
  g->x0 = box[0] * d.spatial_scale - offset;
  g->y0 = box[1] * d.spatial_scale - offset;
  double roi_w = box[2] * d.spatial_scale - offset - g->x0;
  double roi_h = box[3] * d.spatial_scale - offset - g->y0;
  if (!d.half_pixel) {
    roi_w = std::max(roi_w, 1.0);
    roi_h = std::max(roi_h, 1.0);
  }
  g->bin_h = roi_h / d.out_h;
  g->bin_w = roi_w / d.out_w;
  const double grid_h =
      d.sampling_ratio > 0 ? d.sampling_ratio : std::ceil(g->bin_h);
  const double grid_w =
      d.sampling_ratio > 0 ? d.sampling_ratio : std::ceil(g->bin_w);
  TWL_CHECK_ARG(std::isfinite(g->x0) && std::isfinite(g->y0) &&
                    std::isfinite(g->bin_h) && std::isfinite(g->bin_w) &&
                    grid_h <= kMaxGrid && grid_w <= kMaxGrid,
                "roi (%g, %g, %g, %g) is not finite or too large", box[0],
                box[1], box[2], box[3]);
  // A negative adaptive grid (an inverted roi) takes no samples: 0.
  g->grid_h = static_cast<int64_t>(std::max(grid_h, 0.0));
  g->grid_w = static_cast<int64_t>(std::max(grid_w, 0.0));
  return Status::Ok();
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* x = context->input(*node, 0);
  const Tensor* rois = context->input(*node, 1);
  const Tensor* indices = context->input(*node, 2);
  Tensor* output = context->output(*node, 0);
  const int64_t batch = x->shape.dims[0], channels = x->shape.dims[1];
  const int height = x->shape.dims[2], width = x->shape.dims[3];
  const int64_t num_rois = rois->shape.dims[0];
  const int64_t plane = static_cast<int64_t>(height) * width;
  const int64_t bins = static_cast<int64_t>(d.out_h) * d.out_w;
  for (int64_t r = 0; r < num_rois; ++r) {
    const int64_t b = indices->type == DataType::kInt32
                          ? indices->data_as<int32_t>()[r]
                          : indices->data_as<int64_t>()[r];
    RoiGeometry g;
    TWL_RETURN_IF_ERROR(Geometry(d, rois->data_as<float>() + r * 4, &g));
    TWL_CHECK_ARG(b >= 0 && b < batch,
                  "batch index %lld of roi %lld out of "
                  "range [0, %lld)",
                  static_cast<long long>(b), static_cast<long long>(r),
                  static_cast<long long>(batch));
  }
  const float* in = x->data_as<float>();
  const float* box = rois->data_as<float>();
  float* out = output->data_as<float>();
  auto run = [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t b = indices->type == DataType::kInt32
                            ? indices->data_as<int32_t>()[r]
                            : indices->data_as<int64_t>()[r];
      RoiGeometry g;
      (void)Geometry(d, box + r * 4, &g);  // checked above
      const double y0 = g.y0, x0 = g.x0, bin_h = g.bin_h, bin_w = g.bin_w;
      const int64_t grid_h = g.grid_h, grid_w = g.grid_w;
      const double count =
          static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
      const float* src = in + b * channels * plane;
      float* dst = out + r * channels * bins;
      for (int ph = 0; ph < d.out_h; ++ph) {
        for (int pw = 0; pw < d.out_w; ++pw) {
          const int64_t bin = ph * d.out_w + pw;
          for (int64_t c = 0; c < channels; ++c) dst[c * bins + bin] = 0;
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            const double y = y0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h;
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const double xx = x0 + pw * bin_w + (ix + 0.5) * bin_w / grid_w;
              int64_t pos[4];
              double w[4];
              Sample(y, xx, height, width, pos, w);
              const bool first = iy == 0 && ix == 0;
              for (int64_t c = 0; c < channels; ++c) {
                const float* p = src + c * plane;
                float& o = dst[c * bins + bin];
                if (d.max_mode) {
                  double v = w[0] * p[pos[0]];
                  for (int k = 1; k < 4; ++k) v = std::max(v, w[k] * p[pos[k]]);
                  o = first ? static_cast<float>(v)
                            : static_cast<float>(std::max<double>(o, v));
                } else {
                  o +=
                      static_cast<float>((w[0] * p[pos[0]] + w[1] * p[pos[1]] +
                                          w[2] * p[pos[2]] + w[3] * p[pos[3]]) /
                                         count);
                }
              }
            }
          }
        }
      }
    }
  };
  ThreadPool* pool = context->thread_pool();
  pool->ParallelFor(num_rois, 1, pool->num_threads(), run);
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_ROI_ALIGN() {
  return {BuiltinOperator::ROI_ALIGN, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,         Prepare, Eval};
}

}  // namespace twl
