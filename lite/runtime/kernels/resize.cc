// RESIZE (ONNX Resize; see ResizeOptions in twl.fbs). Prepare turns each
// axis up to the last resized one into a table: for every output index, the
// input offsets (index * stride, clamped into the axis) and weights of its
// taps (1 tap on an axis kept as is). Eval visits the output positions over
// those axes; each is the weighted sum of the taps' products of the
// contiguous block after them (the channels of an NHWC tensor resized on H
// and W), or, for NEAREST, a copy of one block (any type).
#include <cmath>
#include <cstring>
#include <memory>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

using schema::ResizeCoordinates;
using schema::ResizeInterpolation;
using schema::ResizeNearestRounding;

struct Tap {
  int64_t offset;  // input index * the axis's stride
  float weight;
};

struct Axis {
  int taps = 1;          // taps per output index
  int64_t begin = 0;     // the first output index's taps in OpData::taps
  int64_t outside = -1;  // its extrapolation flags in OpData::outside, or -1
};

struct OpData {
  std::unique_ptr<Tap[]> taps;
  std::unique_ptr<bool[]> outside;
  int rank = 0;       // axes with tables: up to the last resized one
  int64_t inner = 1;  // elements after them
  Axis axes[kMaxDims];
  int32_t out_dims[kMaxDims] = {};
  bool nearest = true;
  float extrapolation = 0;
};

void* Init(const schema::Operator&) { return new (std::nothrow) OpData(); }
void Free(void* data) { delete static_cast<OpData*>(data); }

// The input coordinate output index x samples (ONNX's formulas, in double).
double SourceCoordinate(ResizeCoordinates mode, double x, int in, int out,
                        double scale, double roi_start, double roi_end) {
  const double width = scale * in;
  switch (mode) {
    case ResizeCoordinates::ALIGN_CORNERS:
      return width == 1 ? 0.0 : x * (in - 1) / (width - 1);
    case ResizeCoordinates::ASYMMETRIC:
      return x / scale;
    case ResizeCoordinates::TF_CROP_AND_RESIZE:
      return (width == 1 ? (roi_end - roi_start) * (in - 1) / 2
                         : x * (roi_end - roi_start) * (in - 1) / (width - 1)) +
             roi_start * (in - 1);
    case ResizeCoordinates::PYTORCH_HALF_PIXEL:
      return width == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case ResizeCoordinates::TF_HALF_PIXEL_FOR_NN:
      return (x + 0.5) / scale;
    case ResizeCoordinates::HALF_PIXEL_SYMMETRIC:
      return in / 2.0 * (1 - out / width) + (x + 0.5) / scale - 0.5;
    default:  // HALF_PIXEL
      return (x + 0.5) / scale - 0.5;
  }
}

int64_t NearestIndex(ResizeNearestRounding rounding, double x) {
  const double lower = std::floor(x);
  const double fraction = x - lower;
  if (fraction == 0) return static_cast<int64_t>(lower);
  bool up = false;
  switch (rounding) {
    case ResizeNearestRounding::ROUND_PREFER_CEIL:
      up = fraction >= 0.5;
      break;
    case ResizeNearestRounding::FLOOR:
      break;
    case ResizeNearestRounding::CEIL:
      up = true;
      break;
    default:  // ROUND_PREFER_FLOOR
      up = fraction > 0.5;
  }
  return static_cast<int64_t>(lower) + (up ? 1 : 0);
}

// Keys' cubic convolution kernel at distance d >= 0.
double Cubic(double d, double a) {
  if (d <= 1) return ((a + 2) * d - (a + 3)) * d * d + 1;
  if (d < 2) return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a;
  return 0;
}

constexpr int kMaxTaps = 64;

// Taps per output index of a resized axis (kMaxTaps + 1 when more).
int TapCount(const schema::ResizeOptions& o, double scale) {
  if (o.interpolation() == ResizeInterpolation::NEAREST) return 1;
  const double support =
      o.interpolation() == ResizeInterpolation::LINEAR ? 1 : 2;
  if (!o.antialias() || scale >= 1) return static_cast<int>(2 * support);
  const double taps = -2 * std::floor(-support / scale);
  return taps > kMaxTaps ? kMaxTaps + 1 : static_cast<int>(taps);
}

// The taps of output index x of a resized axis into `taps` (count `n`).
// Returns whether the coordinate falls outside the input (for
// TF_CROP_AND_RESIZE's extrapolation).
bool AxisTaps(const schema::ResizeOptions& o, int x, int in, int out,
              double scale, double roi_start, double roi_end, int64_t stride,
              int n, Tap* taps) {
  double c = SourceCoordinate(o.coordinate_transformation(), x, in, out, scale,
                              roi_start, roi_end);
  const bool outside =
      o.coordinate_transformation() == ResizeCoordinates::TF_CROP_AND_RESIZE &&
      (c < 0 || c > in - 1);
  // Far outside the input every index clamps to an edge: bounding c keeps
  // its conversions to integers defined (a tiny scale, a huge roi).
  constexpr double kFar = 1e12;
  c = c > -kFar ? (c < kFar ? c : kFar) : -kFar;  // NaN -> -kFar
  auto clamp = [in](int64_t i) { return i < 0 ? 0 : (i >= in ? in - 1 : i); };
  if (o.interpolation() == ResizeInterpolation::NEAREST) {
    taps[0] = {clamp(NearestIndex(o.nearest_rounding(), c)) * stride, 1.0f};
    return outside;
  }
  // The n indices nearest c, the lower one on a tie (ONNX's reference).
  const double lower = std::floor(c);
  const int64_t first =
      static_cast<int64_t>(lower) - n / 2 + (c == lower ? 0 : 1);
  const double s = o.antialias() && scale < 1 ? scale : 1.0;
  double weights[kMaxTaps];
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    const double d = std::fabs((first + k - c) * s);
    weights[k] = o.interpolation() == ResizeInterpolation::LINEAR
                     ? (d < 1 ? 1 - d : 0)
                     : Cubic(d, o.cubic_coeff_a());
    sum += weights[k];
  }
  if (o.antialias() && sum != 0) {
    for (int k = 0; k < n; ++k) weights[k] /= sum;
  }
  if (o.exclude_outside()) {
    sum = 0;
    for (int k = 0; k < n; ++k) {
      if (first + k < 0 || first + k >= in) weights[k] = 0;
      sum += weights[k];
    }
    if (sum != 0) {
      for (int k = 0; k < n; ++k) weights[k] /= sum;
    }
  }
  for (int k = 0; k < n; ++k) {
    taps[k] = {clamp(first + k) * stride, static_cast<float>(weights[k])};
  }
  return outside;
}

Status Prepare(KernelContext* context, Node* node) {
  OpData* d = static_cast<OpData*>(node->user_data);
  TWL_CHECK_ARG(d != nullptr, "out of memory");
  TWL_RETURN_IF_ERROR(CheckNumInputs(*node, 1, 1));
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const auto* o = GetOptions<schema::ResizeOptions>(*node);
  TWL_CHECK_ARG(output->type == input->type,
                "output type %s must equal input type %s",
                DataTypeName(output->type), DataTypeName(input->type));
  TWL_CHECK_ARG(o->interpolation() >= ResizeInterpolation::MIN &&
                    o->interpolation() <= ResizeInterpolation::MAX &&
                    o->coordinate_transformation() >= ResizeCoordinates::MIN &&
                    o->coordinate_transformation() <= ResizeCoordinates::MAX &&
                    o->nearest_rounding() >= ResizeNearestRounding::MIN &&
                    o->nearest_rounding() <= ResizeNearestRounding::MAX,
                "unknown interpolation, coordinate transformation or rounding");
  d->nearest = o->interpolation() == ResizeInterpolation::NEAREST;
  TWL_CHECK_ARG(d->nearest || input->type == DataType::kFloat32,
                "linear and cubic interpolation take float32, got %s",
                DataTypeName(input->type));
  TWL_CHECK_ARG(std::isfinite(o->cubic_coeff_a()),
                "cubic_coeff_a is not finite");
  const int rank = input->shape.rank;
  const bool crop =
      o->coordinate_transformation() == ResizeCoordinates::TF_CROP_AND_RESIZE;
  TWL_CHECK_ARG(!crop || input->type == DataType::kFloat32,
                "tf_crop_and_resize takes float32, got %s",
                DataTypeName(input->type));
  TWL_CHECK_ARG(o->sizes() != nullptr &&
                    static_cast<int>(o->sizes()->size()) == rank &&
                    o->scales() != nullptr &&
                    static_cast<int>(o->scales()->size()) == rank,
                "sizes and scales need one entry per input axis (%d)", rank);
  TWL_CHECK_ARG(!crop || (o->roi() != nullptr &&
                          static_cast<int>(o->roi()->size()) == 2 * rank),
                "tf_crop_and_resize needs a roi of 2 x rank (%d) values",
                2 * rank);
  Shape shape = input->shape;
  d->rank = 0;
  int64_t total_taps = 0, total_outside = 0;
  int taps_per_index[kMaxDims];
  for (int a = 0; a < rank; ++a) {
    const int size = o->sizes()->Get(a);
    if (size == -1) continue;
    const double scale = o->scales()->Get(a);
    TWL_CHECK_ARG(size >= 0, "output size %d of axis %d is negative", size, a);
    TWL_CHECK_ARG(input->shape.dims[a] > 0, "axis %d to resize is empty", a);
    TWL_CHECK_ARG(std::isfinite(scale) && scale > 0,
                  "scale %g of axis %d is not positive", scale, a);
    TWL_CHECK_ARG(!crop || (std::isfinite(o->roi()->Get(a)) &&
                            std::isfinite(o->roi()->Get(rank + a))),
                  "roi of axis %d is not finite", a);
    taps_per_index[a] = TapCount(*o, scale);
    TWL_CHECK_ARG(taps_per_index[a] <= kMaxTaps,
                  "antialias over scale %g of axis %d needs more than %d taps",
                  scale, a, kMaxTaps);
    shape.dims[a] = size;
    d->rank = a + 1;
  }
  int64_t strides[kMaxDims];
  ComputeStrides(input->shape, strides);
  d->inner = input->shape.Product(d->rank, rank);
  for (int a = 0; a < d->rank; ++a) {
    const bool resized = o->sizes()->Get(a) != -1;
    d->axes[a].taps = resized ? taps_per_index[a] : 1;
    d->axes[a].begin = total_taps;
    d->axes[a].outside = resized && crop ? total_outside : -1;
    total_taps += int64_t{shape.dims[a]} * d->axes[a].taps;
    if (resized && crop) total_outside += shape.dims[a];
    d->out_dims[a] = shape.dims[a];
  }
  d->taps.reset(new (std::nothrow) Tap[total_taps > 0 ? total_taps : 1]);
  d->outside.reset(new (std::nothrow) bool[total_outside + 1]);
  TWL_CHECK_ARG(d->taps != nullptr && d->outside != nullptr, "out of memory");
  for (int a = 0; a < d->rank; ++a) {
    Axis& axis = d->axes[a];
    Tap* taps = &d->taps[axis.begin];
    const int in = input->shape.dims[a];
    for (int x = 0; x < shape.dims[a]; ++x, taps += axis.taps) {
      if (axis.taps == 1 && o->sizes()->Get(a) == -1) {
        taps[0] = {x * strides[a], 1.0f};
        continue;
      }
      const bool outside = AxisTaps(
          *o, x, in, shape.dims[a], o->scales()->Get(a),
          crop ? o->roi()->Get(a) : 0, crop ? o->roi()->Get(rank + a) : 1,
          strides[a], axis.taps, taps);
      if (axis.outside >= 0) d->outside[axis.outside + x] = outside;
    }
  }
  d->extrapolation = o->extrapolation_value();
  return context->ResizeTensor(output, shape);
}

// Output positions [begin, end) over the table axes.
void ResizeRange(const OpData& d, const char* in, char* out,
                 size_t element_size, int64_t begin, int64_t end) {
  const int64_t inner = d.inner;
  for (int64_t p = begin; p < end; ++p) {
    const Tap* taps[kMaxDims];
    bool outside = false;
    int64_t rest = p;
    for (int a = d.rank - 1; a >= 0; --a) {
      const int64_t x = rest % d.out_dims[a];
      rest /= d.out_dims[a];
      taps[a] = &d.taps[d.axes[a].begin + x * d.axes[a].taps];
      if (d.axes[a].outside >= 0 && d.outside[d.axes[a].outside + x]) {
        outside = true;
      }
    }
    char* dst = out + p * inner * element_size;
    if (d.nearest && !outside) {
      int64_t offset = 0;
      for (int a = 0; a < d.rank; ++a) offset += taps[a][0].offset;
      std::memcpy(dst, in + offset * element_size, inner * element_size);
      continue;
    }
    float* o = reinterpret_cast<float*>(dst);
    if (outside) {
      for (int64_t i = 0; i < inner; ++i) o[i] = d.extrapolation;
      continue;
    }
    // Every combination of one tap per axis (an odometer over the taps).
    int k[kMaxDims] = {};
    bool first = true;
    for (;;) {
      float w = 1;
      int64_t offset = 0;
      for (int a = 0; a < d.rank; ++a) {
        w *= taps[a][k[a]].weight;
        offset += taps[a][k[a]].offset;
      }
      if (w != 0 || first) {
        const float* src = reinterpret_cast<const float*>(in) + offset;
        if (first) {
          for (int64_t i = 0; i < inner; ++i) o[i] = w * src[i];
        } else {
          for (int64_t i = 0; i < inner; ++i) o[i] += w * src[i];
        }
        first = false;
      }
      int a = d.rank - 1;
      while (a >= 0 && ++k[a] == d.axes[a].taps) k[a--] = 0;
      if (a < 0) break;
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const int64_t positions = output->shape.Product(0, d.rank);
  const size_t element_size = DataTypeSize(input->type);
  auto run = [&](int64_t b, int64_t e) {
    ResizeRange(d, static_cast<const char*>(input->data),
                static_cast<char*>(output->data), element_size, b, e);
  };
  if (positions == 0 || d.inner == 0) return Status::Ok();
  if (context->use_reference()) {
    run(0, positions);
  } else {
    const int64_t grain = 16384 / (d.inner > 0 ? d.inner : 1) + 1;
    context->thread_pool()->ParallelFor(
        positions, grain, context->thread_pool()->num_threads(), run);
  }
  return Status::Ok();
}

}  // namespace

KernelRegistration Register_RESIZE() {
  return {BuiltinOperator::RESIZE, 1, Init, Free, Prepare, Eval};
}

}  // namespace twl
