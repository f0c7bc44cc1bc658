// RESIZE (ONNX Resize; see ResizeOptions in twl.fbs). Prepare turns each
// axis up to the last resized one into a table: for every output index, the
// input offsets (index * stride, clamped into the axis) and weights of its
// taps (1 tap on an axis kept as is). Each output position over those axes
// is the weighted sum, over the products of the axes' taps, of the
// contiguous block after them (the channels of an NHWC tensor resized on H
// and W), or, for NEAREST, a copy of one block (any type). The reference
// computes one position at a time; the fast path one output row along the
// last table axis at a time, split across threads.
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>

#include "lite/runtime/kernel_util.h"
#include "lite/runtime/kernels/kernels.h"
#include "lite/runtime/thread_pool.h"

namespace twl {
namespace {

// ResizeOptions.sizes entry of an axis whose output size is floor(input
// size x scale), for an axis whose size is known only when the model runs.
constexpr int kSizeFromScale = -2;

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
  const double lower = std::floor(c);
  if (o.interpolation() == ResizeInterpolation::CUBIC &&
      o.cubic_table_steps() > 0) {
    const double steps = o.cubic_table_steps();
    c = lower + std::nearbyint((c - lower) * steps) / steps;
  }
  // The n indices nearest c, the lower one on a tie (ONNX's reference).
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

TWL_PREPARE Status Prepare(KernelContext* context, Node* node) {
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
  TWL_CHECK_ARG(o->cubic_table_steps() >= 0,
                "cubic_table_steps is negative: %d", o->cubic_table_steps());
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
    int size = o->sizes()->Get(a);
    if (size == -1) continue;
    const double scale = o->scales()->Get(a);
    if (size == kSizeFromScale && std::isfinite(scale) && scale > 0) {
      const double scaled = std::floor(input->shape.dims[a] * scale);
      TWL_CHECK_ARG(scaled <= INT32_MAX, "axis %d scaled by %g is too large", a,
                    scale);
      size = static_cast<int>(scaled);
    }
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
  TWL_RETURN_IF_ERROR(context->ResizeTensor(output, shape));
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
  TWL_CHECK_ARG(total_taps <= kMaxTensorBytes / int64_t{sizeof(Tap)},
                "the resize tables would exceed %lld bytes",
                static_cast<long long>(kMaxTensorBytes));
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
  return Status::Ok();
}

// The taps of output position p over the table axes before `end_axis`;
// true when one of them is extrapolated.
bool PositionTaps(const OpData& d, int64_t p, int end_axis, const Tap** taps) {
  bool outside = false;
  for (int a = end_axis - 1; a >= 0; --a) {
    const int64_t x = p % d.out_dims[a];
    p /= d.out_dims[a];
    taps[a] = &d.taps[d.axes[a].begin + x * d.axes[a].taps];
    if (d.axes[a].outside >= 0 && d.outside[d.axes[a].outside + x]) {
      outside = true;
    }
  }
  return outside;
}

// Advances an odometer k over the taps of axes [0, end_axis); false after
// the last combination. `weight` and `offset` are the combination's.
bool NextCombination(const OpData& d, int end_axis, const Tap* const* taps,
                     int* k, float* weight, int64_t* offset) {
  int a = end_axis - 1;
  while (a >= 0 && ++k[a] == d.axes[a].taps) k[a--] = 0;
  if (a < 0) return false;
  *weight = 1;
  *offset = 0;
  for (int b = 0; b < end_axis; ++b) {
    *weight *= taps[b][k[b]].weight;
    *offset += taps[b][k[b]].offset;
  }
  return true;
}

// The reference: output positions [begin, end) over the table axes one at
// a time, each the sum over every combination of one tap per axis.
void ResizePositions(const OpData& d, const char* in, char* out,
                     size_t element_size, int64_t begin, int64_t end) {
  const int64_t inner = d.inner;
  for (int64_t p = begin; p < end; ++p) {
    const Tap* taps[kMaxDims];
    const bool outside = PositionTaps(d, p, d.rank, taps);
    char* dst = out + p * inner * element_size;
    if ((d.nearest || d.rank == 0) && !outside) {
      int64_t offset = 0;
      for (int a = 0; a < d.rank; ++a) offset += taps[a][0].offset;
      std::memcpy(dst, in + offset * element_size, inner * element_size);
      continue;
    }
    float* o = reinterpret_cast<float*>(dst);
    for (int64_t i = 0; i < inner; ++i) o[i] = outside ? d.extrapolation : 0;
    if (outside) continue;
    int k[kMaxDims] = {};
    k[d.rank - 1] = -1;  // the first NextCombination makes it 0
    float w;
    int64_t offset;
    while (NextCombination(d, d.rank, taps, k, &w, &offset)) {
      if (w == 0) continue;
      const float* src = reinterpret_cast<const float*>(in) + offset;
      for (int64_t i = 0; i < inner; ++i) o[i] += w * src[i];
    }
  }
}

// One output row of LINEAR or CUBIC (see ResizeRows).
void InterpolateRow(const OpData& d, const Tap* const* taps, const float* in,
                    float* o) {
  const int last = d.rank - 1;
  const int64_t inner = d.inner, width = d.out_dims[last];
  const int n = d.axes[last].taps;
  const Tap* row_taps = &d.taps[d.axes[last].begin];
  for (int64_t i = 0; i < width * inner; ++i) o[i] = 0;
  int k[kMaxDims] = {};
  if (last > 0) k[last - 1] = -1;  // the first NextCombination makes it 0
  float w = 1;
  int64_t base = 0;
  // With no axes before the last, the one combination is (1, 0).
  while (last == 0 ? k[0]++ == 0
                   : NextCombination(d, last, taps, k, &w, &base)) {
    if (w == 0) continue;
    for (int64_t x = 0; x < width; ++x) {
      const Tap* t = row_taps + x * n;
      float* dst = o + x * inner;
      for (int j = 0; j < n; ++j) {
        const float wj = w * t[j].weight;
        if (wj == 0) continue;
        const float* src = in + base + t[j].offset;
        for (int64_t i = 0; i < inner; ++i) dst[i] += wj * src[i];
      }
    }
  }
}

// The fast path: output rows [begin, end) (positions over the table axes
// but the last), each resized along the last table axis in one pass; the
// same sums in the same order as ResizePositions.
template <typename T>
void ResizeRows(const OpData& d, const T* in, T* out, int64_t begin,
                int64_t end) {
  const int last = d.rank - 1;
  const int64_t inner = d.inner, width = d.out_dims[last];
  const Tap* row_taps = &d.taps[d.axes[last].begin];
  const bool* row_outside =
      d.axes[last].outside >= 0 ? &d.outside[d.axes[last].outside] : nullptr;
  T extrapolation{};  // TF_CROP_AND_RESIZE takes float32 only
  if constexpr (std::is_same<T, float>::value) extrapolation = d.extrapolation;
  for (int64_t r = begin; r < end; ++r) {
    const Tap* taps[kMaxDims];
    const bool outside = PositionTaps(d, r, last, taps);
    T* o = out + r * width * inner;
    if (outside) {
      for (int64_t i = 0; i < width * inner; ++i) o[i] = extrapolation;
      continue;
    }
    if (d.nearest) {
      int64_t base = 0;
      for (int a = 0; a < last; ++a) base += taps[a][0].offset;
      for (int64_t x = 0; x < width; ++x) {
        const T* src = in + base + row_taps[x].offset;
        for (int64_t i = 0; i < inner; ++i) o[x * inner + i] = src[i];
      }
    } else if constexpr (std::is_same<T, float>::value) {
      InterpolateRow(d, taps, in, o);
    }
    if (row_outside != nullptr) {
      for (int64_t x = 0; x < width; ++x) {
        if (!row_outside[x]) continue;
        for (int64_t i = 0; i < inner; ++i) o[x * inner + i] = extrapolation;
      }
    }
  }
}

Status Eval(KernelContext* context, Node* node) {
  const OpData& d = *static_cast<OpData*>(node->user_data);
  const Tensor* input = context->input(*node, 0);
  Tensor* output = context->output(*node, 0);
  const size_t element_size = DataTypeSize(input->type);
  const char* in = static_cast<const char*>(input->data);
  char* out = static_cast<char*>(output->data);
  if (output->num_elements() == 0) return Status::Ok();
  if (context->use_reference() || d.rank == 0) {
    ResizePositions(d, in, out, element_size, 0,
                    output->shape.Product(0, d.rank));
    return Status::Ok();
  }
  const int64_t rows = output->shape.Product(0, d.rank - 1);
  const int64_t row_elements =
      output->shape.Product(d.rank - 1, d.rank) * d.inner;
  const int64_t grain = 16384 / row_elements + 1;
  ThreadPool* pool = context->thread_pool();
  if (input->type == DataType::kFloat32) {
    pool->ParallelFor(rows, grain, pool->num_threads(),
                      [&](int64_t b, int64_t e) {
                        ResizeRows(d, input->data_as<float>(),
                                   output->data_as<float>(), b, e);
                      });
    return Status::Ok();
  }
  return DispatchAll(input->type, [&](auto zero) {  // NEAREST: any type
    using T = decltype(zero);
    pool->ParallelFor(rows, grain, pool->num_threads(),
                      [&](int64_t b, int64_t e) {
                        ResizeRows(d, reinterpret_cast<const T*>(in),
                                   reinterpret_cast<T*>(out), b, e);
                      });
    return Status::Ok();
  });
}

}  // namespace

KernelRegistration Register_RESIZE() {
  return {BuiltinOperator::RESIZE, 1,       InitOpData<OpData>,
          FreeOpData<OpData>,      Prepare, Eval};
}

}  // namespace twl
