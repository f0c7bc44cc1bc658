// Kernels of core/ops/image_box_ops.cc: SampleDistortedBoundingBox (V1, V2,
// stateless), CombinedNonMaxSuppression, NonMaxSuppressionPaddedTiled,
// ExtractGlimpse (V1, V2) and ExtractVolumePatches. Each follows the
// algorithm of TensorFlow's CPU kernel (or, for the tiled suppression, of
// tf.image.non_max_suppression_padded's graph) so that values agree.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <queue>
#include <random>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/random_ops.h"

namespace tensorweave {
namespace {

// Outputs larger than this many elements are refused (the sizes come from
// input values).
constexpr int64_t kMaxOutputElements = int64_t{1} << 28;

Philox SeededGenerator(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) {
    std::random_device device;
    seed = (static_cast<int64_t>(device()) << 32) | device();
    seed2 = (static_cast<int64_t>(device()) << 32) | device();
  }
  return Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
}

// 32-bit words of a Philox stream, one at a time.
class WordStream {
 public:
  explicit WordStream(Philox* gen) : gen_(gen) {}
  uint32_t Next() {
    if (used_ == 4) {
      block_ = gen_->Next();
      used_ = 0;
    }
    return block_[used_++];
  }
  float Float() { return UniformFloat(Next()); }
  // Uniform in [0, n) for n > 0.
  int64_t Below(int64_t n) {
    const uint64_t bits = (static_cast<uint64_t>(Next()) << 32) | Next();
    return static_cast<int64_t>(bits % static_cast<uint64_t>(n));
  }

 private:
  Philox* gen_;
  Philox::Block block_{};
  int used_ = 4;
};

// ---------------------------------------------------------------------------
// SampleDistortedBoundingBox.

struct Rect {
  int64_t min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  bool Empty() const { return min_x > max_x || min_y > max_y; }
  double Area() const {
    return Empty() ? 0.0
                   : static_cast<double>(max_x - min_x) *
                         static_cast<double>(max_y - min_y);
  }
  Rect Intersect(const Rect& o) const {
    Rect r{std::max(min_x, o.min_x), std::max(min_y, o.min_y),
           std::min(max_x, o.max_x), std::min(max_y, o.max_y)};
    if (r.Empty()) return Rect{};
    return r;
  }
};

// Rounds to nearest, clamped so that later arithmetic cannot overflow.
int64_t RoundClamped(double v) {
  constexpr double kLimit = 1e12;
  if (!(v > -kLimit)) return static_cast<int64_t>(-kLimit);
  if (v > kLimit) return static_cast<int64_t>(kLimit);
  return static_cast<int64_t>(std::nearbyint(v));
}

// TensorFlow's GenerateRandomCrop: a crop of the given aspect ratio whose
// area lies in [min_area, max_area] (relative), at a random position.
bool GenerateRandomCrop(int64_t width, int64_t height, float min_rel,
                        float max_rel, float aspect, WordStream* random,
                        Rect* crop) {
  const double min_area = static_cast<double>(min_rel) * width * height;
  const double max_area = static_cast<double>(max_rel) * width * height;
  int64_t h = RoundClamped(std::sqrt(min_area / aspect));
  int64_t max_h = RoundClamped(std::sqrt(max_area / aspect));
  if (RoundClamped(max_h * static_cast<double>(aspect)) > width) {
    // The largest height whose rounded width still fits.
    constexpr double kEps = 0.0000001;
    max_h = static_cast<int64_t>(
        std::min(1e12, (width + 0.5 - kEps) / static_cast<double>(aspect)));
    if (RoundClamped(max_h * static_cast<double>(aspect)) > width) max_h -= 1;
  }
  max_h = std::min(max_h, height);
  h = std::min(h, max_h);
  if (h < max_h) h += random->Below(max_h - h + 1);
  auto width_of = [&](int64_t hh) {
    return RoundClamped(hh * static_cast<double>(aspect));
  };
  int64_t w = width_of(h);
  double area = static_cast<double>(w) * h;
  if (area < min_area) {
    h += 1;
    w = width_of(h);
    area = static_cast<double>(w) * h;
  }
  if (area > max_area) {
    h -= 1;
    w = width_of(h);
    area = static_cast<double>(w) * h;
  }
  if (area < min_area || area > max_area || w > width || h > height || w <= 0 ||
      h <= 0) {
    return false;
  }
  const int64_t y = h < height ? random->Below(height - h) : 0;
  const int64_t x = w < width ? random->Below(width - w) : 0;
  *crop = Rect{x, y, x + w, y + h};
  return true;
}

bool CoversAnObject(const Rect& crop, float min_covered,
                    const std::vector<Rect>& boxes) {
  constexpr double kMinArea = 1.0;
  if (crop.Area() < kMinArea) return false;
  for (const Rect& box : boxes) {
    const double area = box.Area();
    if (area < kMinArea) continue;
    if (crop.Intersect(box).Area() / area >= min_covered) return true;
  }
  return false;
}

enum class SampleKind { kV1, kV2, kStateless };

template <SampleKind kKind>
class SampleDistortedBoundingBoxOp : public OpKernel {
 public:
  explicit SampleDistortedBoundingBoxOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(0, 0) {
    ctx->SetStatus(ctx->GetAttr("aspect_ratio_range", &aspect_range_));
    ctx->SetStatus(ctx->GetAttr("area_range", &area_range_));
    ctx->SetStatus(ctx->GetAttr("max_attempts", &max_attempts_));
    ctx->SetStatus(ctx->GetAttr("use_image_if_no_bounding_boxes",
                                &use_image_if_no_boxes_));
    if (kKind == SampleKind::kV1) {
      ctx->SetStatus(ctx->GetAttr("min_object_covered", &min_covered_));
    }
    if (kKind != SampleKind::kStateless) {
      int64_t seed = 0, seed2 = 0;
      ctx->SetStatus(ctx->GetAttr("seed", &seed));
      ctx->SetStatus(ctx->GetAttr("seed2", &seed2));
      gen_ = SeededGenerator(seed, seed2);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(
        ctx, aspect_range_.size() == 2,
        errors::InvalidArgument("aspect_ratio_range must have 2 elements, got ",
                                aspect_range_.size()));
    OP_REQUIRES(
        ctx, aspect_range_[0] > 0 && aspect_range_[1] > 0,
        errors::InvalidArgument("aspect_ratio_range must be positive: [",
                                aspect_range_[0], ", ", aspect_range_[1], "]"));
    OP_REQUIRES(ctx, area_range_.size() == 2,
                errors::InvalidArgument("area_range must have 2 elements, got ",
                                        area_range_.size()));
    OP_REQUIRES(
        ctx,
        area_range_[0] > 0 && area_range_[1] > 0 && area_range_[0] <= 1 &&
            area_range_[1] <= 1,
        errors::InvalidArgument("area_range must be in (0, 1]: [",
                                area_range_[0], ", ", area_range_[1], "]"));
    OP_REQUIRES(ctx, max_attempts_ > 0,
                errors::InvalidArgument("max_attempts must be positive, got ",
                                        max_attempts_));
    const Tensor& image_size = ctx->input(0);
    OP_REQUIRES(ctx, image_size.rank() == 1 && image_size.dim(0) == 3,
                errors::InvalidArgument(
                    "image_size must be 1-D with 3 elements, got shape ",
                    image_size.shape().ToString()));
    std::vector<int64_t> hwc;
    OP_REQUIRES_OK(ctx, ReadImageSize(image_size, &hwc));
    const int64_t height = hwc[0], width = hwc[1];
    OP_REQUIRES(
        ctx,
        height >= 0 && width >= 0 &&
            height <= std::numeric_limits<int>::max() &&
            width <= std::numeric_limits<int>::max(),
        errors::InvalidArgument("image height and width must be in [0, 2^31), "
                                "got ",
                                height, " and ", width));
    const Tensor& boxes = ctx->input(1);
    OP_REQUIRES(ctx, boxes.rank() == 3 && boxes.dim(2) == 4,
                errors::InvalidArgument(
                    "bounding_boxes must have shape [batch, N, 4], got ",
                    boxes.shape().ToString()));
    float min_covered = min_covered_;
    if (kKind != SampleKind::kV1) {
      const Tensor& t = ctx->input(2);
      OP_REQUIRES(ctx, t.num_elements() == 1,
                  errors::InvalidArgument(
                      "min_object_covered must be a scalar, got shape ",
                      t.shape().ToString()));
      min_covered = t.data<float>()[0];
    }
    OP_REQUIRES(
        ctx, min_covered >= 0,
        errors::InvalidArgument("min_object_covered must be non-negative, got ",
                                min_covered));
    std::vector<Rect> objects;
    const float* b = boxes.data<float>();
    for (int64_t i = 0; i < boxes.num_elements() / 4; ++i) {
      for (int k = 0; k < 4; ++k) {
        OP_REQUIRES(ctx, b[4 * i + k] >= 0 && b[4 * i + k] <= 1,
                    errors::InvalidArgument(
                        "All bounding box coordinates must be in [0.0, 1.0]: ",
                        b[4 * i + k]));
      }
      objects.push_back(Rect{static_cast<int64_t>(b[4 * i + 1] * width),
                             static_cast<int64_t>(b[4 * i] * height),
                             static_cast<int64_t>(b[4 * i + 3] * width),
                             static_cast<int64_t>(b[4 * i + 2] * height)});
    }
    const Rect image{0, 0, width, height};
    if (objects.empty()) {
      OP_REQUIRES(ctx, use_image_if_no_boxes_,
                  errors::InvalidArgument(
                      "No bounding boxes provided as input. One must enable "
                      "use_image_if_no_bounding_boxes if you wish to not "
                      "provide any bounding boxes."));
      objects.push_back(image);
    }
    Philox gen(0, 0);
    if (kKind == SampleKind::kStateless) {
      const Tensor& seed = ctx->input(3);
      OP_REQUIRES(ctx, seed.rank() == 1 && seed.dim(0) == 2,
                  errors::InvalidArgument("seed must have shape [2], not ",
                                          seed.shape().ToString()));
      std::vector<int64_t> s;
      OP_REQUIRES_OK(ctx, ReadIndexVector(seed, &s));
      gen = Philox(static_cast<uint64_t>(s[0]), static_cast<uint64_t>(s[1]));
    } else {
      // Each run takes its own stretch of the node's stream.
      std::lock_guard<std::mutex> lock(mu_);
      gen = gen_;
      gen_.Skip(static_cast<uint64_t>(max_attempts_) * 2);
    }
    WordStream random(&gen);
    Rect crop = image;
    for (int64_t i = 0; i < max_attempts_; ++i) {
      const float aspect =
          random.Float() * (aspect_range_[1] - aspect_range_[0]) +
          aspect_range_[0];
      Rect candidate;
      if (GenerateRandomCrop(width, height, area_range_[0], area_range_[1],
                             aspect, &random, &candidate) &&
          CoversAnObject(candidate, min_covered, objects)) {
        crop = candidate;
        break;
      }
    }
    Tensor *begin, *size, *bbox;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({3}), &begin));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({3}), &size));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({1, 1, 4}), &bbox));
    const int64_t begin_values[3] = {crop.min_y, crop.min_x, 0};
    const int64_t size_values[3] = {crop.max_y - crop.min_y,
                                    crop.max_x - crop.min_x, -1};
    OP_REQUIRES_OK(
        ctx, DispatchType<uint8_t, int8_t, int16_t, int32_t, int64_t>(
                 begin->dtype(), [&](auto tag) {
                   using T = decltype(tag);
                   for (int i = 0; i < 3; ++i) {
                     begin->data<T>()[i] = static_cast<T>(begin_values[i]);
                     size->data<T>()[i] = static_cast<T>(size_values[i]);
                   }
                   return Status::OK();
                 }));
    float* out = bbox->data<float>();
    out[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
    out[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
    out[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
    out[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
  }

 private:
  static Status ReadImageSize(const Tensor& t, std::vector<int64_t>* out) {
    return DispatchType<uint8_t, int8_t, int16_t, int32_t, int64_t>(
        t.dtype(), [&](auto tag) {
          using T = decltype(tag);
          for (int i = 0; i < 3; ++i) {
            out->push_back(static_cast<int64_t>(t.data<T>()[i]));
          }
          return Status::OK();
        });
  }

  std::vector<float> aspect_range_, area_range_;
  int64_t max_attempts_ = 100;
  bool use_image_if_no_boxes_ = false;
  float min_covered_ = 0.1f;
  std::mutex mu_;
  Philox gen_;
};

REGISTER_KERNEL(KernelDef("SampleDistortedBoundingBox"),
                SampleDistortedBoundingBoxOp<SampleKind::kV1>);
REGISTER_KERNEL(KernelDef("SampleDistortedBoundingBoxV2"),
                SampleDistortedBoundingBoxOp<SampleKind::kV2>);
REGISTER_KERNEL(KernelDef("StatelessSampleDistortedBoundingBox"),
                SampleDistortedBoundingBoxOp<SampleKind::kStateless>);

// ---------------------------------------------------------------------------
// CombinedNonMaxSuppression.

Status ScalarInput(OpKernelContext* ctx, int i, const char* name) {
  if (ctx->input(i).num_elements() != 1 || ctx->input(i).rank() != 0) {
    return errors::InvalidArgument(name, " must be a scalar, got shape ",
                                   ctx->input(i).shape().ToString());
  }
  return Status::OK();
}

// IoU of boxes i and j of [n, 4] corners in any order; 0 when either is
// empty (TensorFlow's IOU of its non-max suppression kernels).
float CornerIou(const float* boxes, int64_t i, int64_t j) {
  const float* a = boxes + 4 * i;
  const float* b = boxes + 4 * j;
  const float ymin_a = std::min(a[0], a[2]), ymax_a = std::max(a[0], a[2]);
  const float xmin_a = std::min(a[1], a[3]), xmax_a = std::max(a[1], a[3]);
  const float ymin_b = std::min(b[0], b[2]), ymax_b = std::max(b[0], b[2]);
  const float xmin_b = std::min(b[1], b[3]), xmax_b = std::max(b[1], b[3]);
  const float area_a = (ymax_a - ymin_a) * (xmax_a - xmin_a);
  const float area_b = (ymax_b - ymin_b) * (xmax_b - xmin_b);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float iy =
      std::max(std::min(ymax_a, ymax_b) - std::max(ymin_a, ymin_b), 0.0f);
  const float ix =
      std::max(std::min(xmax_a, xmax_b) - std::max(xmin_a, xmin_b), 0.0f);
  const float inter = iy * ix;
  return inter / (area_a + area_b - inter);
}

class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  explicit CombinedNonMaxSuppressionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("pad_per_class", &pad_per_class_));
    ctx->SetStatus(ctx->GetAttr("clip_boxes", &clip_boxes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    OP_REQUIRES(ctx, boxes.rank() == 4 && boxes.dim(3) == 4,
                errors::InvalidArgument(
                    "boxes must be 4-D [batch, num_boxes, q, 4], got ",
                    boxes.shape().ToString()));
    OP_REQUIRES(ctx, scores.rank() == 3,
                errors::InvalidArgument(
                    "scores must be 3-D [batch, num_boxes, num_classes], got ",
                    scores.shape().ToString()));
    const int64_t batch = boxes.dim(0), num_boxes = boxes.dim(1);
    const int64_t q = boxes.dim(2), num_classes = scores.dim(2);
    OP_REQUIRES(ctx, scores.dim(0) == batch && scores.dim(1) == num_boxes,
                errors::InvalidArgument("scores ", scores.shape().ToString(),
                                        " do not match boxes ",
                                        boxes.shape().ToString()));
    OP_REQUIRES(ctx, q == 1 || q == num_classes,
                errors::InvalidArgument(
                    "third dimension of boxes must be either 1 or equal to the "
                    "third dimension of scores, got ",
                    q, " and ", num_classes));
    static const char* kNames[] = {"max_output_size_per_class",
                                   "max_total_size", "iou_threshold",
                                   "score_threshold"};
    for (int i = 2; i < 6; ++i)
      OP_REQUIRES_OK(ctx, ScalarInput(ctx, i, kNames[i - 2]));
    const int64_t per_class = ctx->input(2).data<int32_t>()[0];
    const int64_t max_total = ctx->input(3).data<int32_t>()[0];
    const float iou_threshold = ctx->input(4).data<float>()[0];
    const float score_threshold = ctx->input(5).data<float>()[0];
    OP_REQUIRES(ctx, per_class > 0,
                errors::InvalidArgument("max_size_per_class must be > 0, got ",
                                        per_class));
    OP_REQUIRES(
        ctx, max_total > 0,
        errors::InvalidArgument("max_total_size must be > 0, got ", max_total));
    OP_REQUIRES(ctx, iou_threshold >= 0 && iou_threshold <= 1,
                errors::InvalidArgument("iou_threshold must be in [0, 1], got ",
                                        iou_threshold));
    int64_t per_batch = max_total, all_classes = 0, outputs = 0;
    if (pad_per_class_) {
      per_batch = __builtin_mul_overflow(per_class, num_classes, &all_classes)
                      ? max_total
                      : std::min(max_total, all_classes);
    }
    OP_REQUIRES(ctx,
                !__builtin_mul_overflow(batch, per_batch, &outputs) &&
                    outputs <= kMaxOutputElements / 4,
                errors::InvalidArgument("the output of ", batch, " x ",
                                        per_batch, " detections is too large"));
    Tensor *out_boxes, *out_scores, *out_classes, *out_valid;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({batch, per_batch, 4}), &out_boxes));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({batch, per_batch}),
                                             &out_scores));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({batch, per_batch}),
                                             &out_classes));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(3, TensorShape({batch}), &out_valid));
    std::fill_n(out_boxes->data<float>(), out_boxes->num_elements(), 0.0f);
    std::fill_n(out_scores->data<float>(), out_scores->num_elements(), 0.0f);
    std::fill_n(out_classes->data<float>(), out_classes->num_elements(), 0.0f);
    const float* box_data = boxes.data<float>();
    const float* score_data = scores.data<float>();
    struct Selected {
      float score;
      int64_t box, cls;
    };
    std::vector<float> class_boxes;
    for (int64_t b = 0; b < batch; ++b) {
      if (num_classes > 0) class_boxes.resize(num_boxes * 4);
      std::vector<Selected> chosen;
      for (int64_t c = 0; c < num_classes; ++c) {
        const int64_t qc = q == 1 ? 0 : c;
        for (int64_t i = 0; i < num_boxes; ++i) {
          std::memcpy(&class_boxes[4 * i],
                      box_data + ((b * num_boxes + i) * q + qc) * 4,
                      4 * sizeof(float));
        }
        struct Candidate {
          int64_t box;
          float score;
        };
        auto less = [](const Candidate& x, const Candidate& y) {
          return x.score < y.score;
        };
        std::priority_queue<Candidate, std::vector<Candidate>, decltype(less)>
            queue(less);
        for (int64_t i = 0; i < num_boxes; ++i) {
          const float s = score_data[(b * num_boxes + i) * num_classes + c];
          if (s > score_threshold) queue.push(Candidate{i, s});
        }
        std::vector<int64_t> kept;
        while (static_cast<int64_t>(kept.size()) < per_class &&
               !queue.empty()) {
          const Candidate next = queue.top();
          queue.pop();
          bool keep = true;
          for (int64_t j = static_cast<int64_t>(kept.size()) - 1; j >= 0; --j) {
            if (CornerIou(class_boxes.data(), next.box, kept[j]) >
                iou_threshold) {
              keep = false;
              break;
            }
          }
          if (!keep) continue;
          kept.push_back(next.box);
          chosen.push_back(Selected{next.score, next.box, c});
        }
      }
      std::stable_sort(chosen.begin(), chosen.end(),
                       [](const Selected& x, const Selected& y) {
                         return x.score > y.score;
                       });
      const int64_t count =
          std::min<int64_t>(per_batch, static_cast<int64_t>(chosen.size()));
      for (int64_t k = 0; k < count; ++k) {
        const Selected& s = chosen[k];
        const int64_t qc = q == 1 ? 0 : s.cls;
        const float* src = box_data + ((b * num_boxes + s.box) * q + qc) * 4;
        float* dst = out_boxes->data<float>() + (b * per_batch + k) * 4;
        for (int e = 0; e < 4; ++e) {
          dst[e] =
              clip_boxes_ ? std::max(std::min(src[e], 1.0f), 0.0f) : src[e];
        }
        out_scores->data<float>()[b * per_batch + k] = s.score;
        out_classes->data<float>()[b * per_batch + k] =
            static_cast<float>(s.cls);
      }
      out_valid->data<int32_t>()[b] = static_cast<int32_t>(count);
    }
  }

 private:
  bool pad_per_class_ = false, clip_boxes_ = true;
};

REGISTER_KERNEL(KernelDef("CombinedNonMaxSuppression"),
                CombinedNonMaxSuppressionOp);

// ---------------------------------------------------------------------------
// NonMaxSuppressionPaddedTiled: tf.image.non_max_suppression_padded's graph
// (non_max_suppression_padded_v2) as one kernel, step for step: boxes sorted
// by score, suppressed tile by tile by the earlier tiles' survivors (IoU >=
// threshold), then within the tile by iterating "boxes no earlier box
// suppresses suppress the later ones" until the IoU sum stops dropping by
// more than the threshold; a box counts as selected while any coordinate is
// > 0.

// The IoU of _bbox_overlap (float32, + 1e-8 in the union).
float TileIou(const float* a, const float* b) {
  const float ix = std::max(std::min(a[3], b[3]) - std::max(a[1], b[1]), 0.0f);
  const float iy = std::max(std::min(a[2], b[2]) - std::max(a[0], b[0]), 0.0f);
  const float inter = ix * iy;
  const float area_a = (a[2] - a[0]) * (a[3] - a[1]);
  const float area_b = (b[2] - b[0]) * (b[3] - b[1]);
  return inter / (area_a + area_b - inter + 1e-8f);
}

class NonMaxSuppressionPaddedTiledOp : public OpKernel {
 public:
  explicit NonMaxSuppressionPaddedTiledOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("sorted_input", &sorted_input_));
    ctx->SetStatus(ctx->GetAttr("canonicalized_coordinates", &canonicalized_));
    ctx->SetStatus(ctx->GetAttr("tile_size", &tile_size_));
    ctx->SetStatus(ctx->GetAttr("filter_scores", &filter_scores_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes_in = ctx->input(0);
    const Tensor& scores_in = ctx->input(1);
    OP_REQUIRES(ctx, boxes_in.rank() == 3 && boxes_in.dim(2) == 4,
                errors::InvalidArgument(
                    "boxes must have shape [batch, num_boxes, 4], got ",
                    boxes_in.shape().ToString()));
    const int64_t batch = boxes_in.dim(0), n = boxes_in.dim(1);
    OP_REQUIRES(
        ctx,
        scores_in.rank() == 2 && scores_in.dim(0) == batch &&
            scores_in.dim(1) == n,
        errors::InvalidArgument("scores must have shape [", batch, ", ", n,
                                "], got ", scores_in.shape().ToString()));
    for (int i = 2; i < 5; ++i) {
      OP_REQUIRES_OK(ctx, ScalarInput(ctx, i,
                                      i == 2   ? "max_output_size"
                                      : i == 3 ? "iou_threshold"
                                               : "score_threshold"));
    }
    OP_REQUIRES(ctx, tile_size_ > 0 && tile_size_ <= 4096,
                errors::InvalidArgument("tile_size must be in [1, 4096], got ",
                                        tile_size_));
    const int64_t max_out = ctx->input(2).data<int32_t>()[0];
    const float iou_threshold = ctx->input(3).data<float>()[0];
    const float score_threshold = ctx->input(4).data<float>()[0];
    OP_REQUIRES(ctx, max_out >= 0,
                errors::InvalidArgument(
                    "max_output_size must be non-negative, got ", max_out));
    int64_t outputs = 0;
    OP_REQUIRES(ctx,
                !__builtin_mul_overflow(batch, max_out, &outputs) &&
                    outputs <= kMaxOutputElements &&
                    batch <= kMaxOutputElements,
                errors::InvalidArgument("the output of ", batch, " x ", max_out,
                                        " indices is too large"));
    // Score filter, canonical corners (decided by the first box of the first
    // image, as TensorFlow's graph does), then the sort.
    std::vector<float> boxes(boxes_in.data<float>(),
                             boxes_in.data<float>() + boxes_in.num_elements());
    std::vector<float> scores(
        scores_in.data<float>(),
        scores_in.data<float>() + scores_in.num_elements());
    if (filter_scores_) {
      for (int64_t i = 0; i < batch * n; ++i) {
        const float mask = scores[i] > score_threshold ? 1.0f : 0.0f;
        scores[i] *= mask;
        for (int k = 0; k < 4; ++k) boxes[4 * i + k] *= mask;
      }
    }
    if (!canonicalized_ && batch > 0 && n > 0) {
      const bool swap_y = !(boxes[0] <= boxes[2]);
      const bool swap_x = !(boxes[1] <= boxes[3]);
      for (int64_t i = 0; i < batch * n; ++i) {
        if (swap_y) std::swap(boxes[4 * i], boxes[4 * i + 2]);
        if (swap_x) std::swap(boxes[4 * i + 1], boxes[4 * i + 3]);
      }
    }
    std::vector<int64_t> order(batch * n);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t* o = order.data() + b * n;
      for (int64_t i = 0; i < n; ++i) o[i] = i;
      if (!sorted_input_) {
        const float* s = scores.data() + b * n;
        std::stable_sort(o, o + n, [s](int64_t x, int64_t y) {
          return s[x] > s[y] || (!std::isnan(s[y]) && std::isnan(s[x]));
        });
      }
    }
    std::vector<float> sorted(boxes.size());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t i = 0; i < n; ++i) {
        std::memcpy(&sorted[4 * (b * n + i)],
                    &boxes[4 * (b * n + order[b * n + i])], 4 * sizeof(float));
      }
    }
    Suppress(batch, n, max_out, iou_threshold, &sorted);
    Tensor *idx, *valid;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, max_out}), &idx));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({batch}), &valid));
    for (int64_t b = 0; b < batch; ++b) {
      int32_t* out = idx->data<int32_t>() + b * max_out;
      int64_t count = 0;
      for (int64_t i = 0; i < n && count < max_out; ++i) {
        const float* box = &sorted[4 * (b * n + i)];
        if (box[0] > 0 || box[1] > 0 || box[2] > 0 || box[3] > 0) {
          out[count++] =
              static_cast<int32_t>(sorted_input_ ? i : order[b * n + i]);
        }
      }
      const int64_t num_valid = std::min<int64_t>(selected_[b], max_out);
      for (int64_t i = std::min(count, num_valid); i < max_out; ++i) out[i] = 0;
      valid->data<int32_t>()[b] = static_cast<int32_t>(num_valid);
    }
  }

 private:
  static bool Selected(const float* box) {
    return box[0] > 0 || box[1] > 0 || box[2] > 0 || box[3] > 0;
  }

  // The while loop over tiles of _suppression_loop_body, all images in step.
  void Suppress(int64_t batch, int64_t n, int64_t max_out, float threshold,
                std::vector<float>* boxes) {
    const int64_t tile = std::min(tile_size_, n);  // the IoU matrices' stride
    selected_.assign(batch, 0);
    if (n == 0) return;
    const int64_t tiles = (n + tile_size_ - 1) / tile_size_;
    std::vector<std::vector<float>> ious(batch,
                                         std::vector<float>(tile * tile));
    for (int64_t t = 0; t < tiles; ++t) {
      if (batch == 0) break;
      if (*std::min_element(selected_.begin(), selected_.end()) >= max_out) {
        break;
      }
      const int64_t begin = t * tile_size_;
      const int64_t end = std::min(n, begin + tile_size_);
      const int64_t m = end - begin;
      // Suppression by the earlier tiles (their survivors; suppressed boxes
      // are zeros, whose IoU is 0).
      for (int64_t b = 0; b < batch; ++b) {
        float* base = boxes->data() + 4 * b * n;
        for (int64_t j = begin; j < end; ++j) {
          bool keep = true;
          for (int64_t i = 0; i < begin && keep; ++i) {
            if (!(TileIou(base + 4 * i, base + 4 * j) < threshold)) {
              keep = false;
            }
          }
          if (!keep) std::fill_n(base + 4 * j, 4, 0.0f);
        }
      }
      // Self suppression: iou[i][j] for i < j where iou >= threshold.
      std::vector<double> sums(batch, 0.0);
      for (int64_t b = 0; b < batch; ++b) {
        const float* base = boxes->data() + 4 * (b * n + begin);
        std::vector<float>& w = ious[b];
        std::fill(w.begin(), w.end(), 0.0f);
        float sum = 0.0f;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = i + 1; j < m; ++j) {
            const float v = TileIou(base + 4 * i, base + 4 * j);
            w[i * tile + j] = v >= threshold ? v : 0.0f;
          }
        }
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < m; ++j) sum += w[i * tile + j];
        }
        sums[b] = sum;
      }
      for (bool changed = true; changed;) {
        changed = false;
        for (int64_t b = 0; b < batch; ++b) {
          std::vector<float>& w = ious[b];
          // Column maxima: can box j suppress others?
          std::vector<char> can_suppress(m);
          for (int64_t j = 0; j < m; ++j) {
            float mx = 0.0f;
            for (int64_t i = 0; i < m; ++i) mx = std::max(mx, w[i * tile + j]);
            can_suppress[j] = mx < threshold;
          }
          // Row i survives unless a box that can suppress suppresses it.
          std::vector<char> keep_row(m);
          for (int64_t i = 0; i < m; ++i) {
            float mx = 0.0f;
            for (int64_t k = 0; k < m; ++k) {
              if (can_suppress[k]) mx = std::max(mx, w[k * tile + i]);
            }
            keep_row[i] = mx < threshold;
          }
          float sum = 0.0f;
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < m; ++j) {
              if (!keep_row[i]) w[i * tile + j] = 0.0f;
              sum += w[i * tile + j];
            }
          }
          if (sums[b] - sum > threshold) changed = true;
          sums[b] = sum;
        }
      }
      for (int64_t b = 0; b < batch; ++b) {
        float* base = boxes->data() + 4 * (b * n + begin);
        const std::vector<float>& w = ious[b];
        for (int64_t j = 0; j < m; ++j) {
          float column = 0.0f;
          for (int64_t i = 0; i < m; ++i) column += w[i * tile + j];
          if (column > 0) std::fill_n(base + 4 * j, 4, 0.0f);
        }
        for (int64_t j = 0; j < m; ++j) {
          if (Selected(base + 4 * j)) ++selected_[b];
        }
      }
    }
  }

  bool sorted_input_ = false, canonicalized_ = false, filter_scores_ = true;
  int64_t tile_size_ = 512;
  std::vector<int64_t> selected_;
};

REGISTER_KERNEL(KernelDef("NonMaxSuppressionPaddedTiled"),
                NonMaxSuppressionPaddedTiledOp);

// ---------------------------------------------------------------------------
// ExtractGlimpse (V1, V2): Eigen's ExtractGlimpses as TensorFlow calls it.

template <int kVersion>
class ExtractGlimpseOp : public OpKernel {
 public:
  explicit ExtractGlimpseOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(SeededGenerator(0, 0)) {
    ctx->SetStatus(ctx->GetAttr("centered", &centered_));
    ctx->SetStatus(ctx->GetAttr("normalized", &normalized_));
    ctx->SetStatus(ctx->GetAttr("uniform_noise", &uniform_noise_));
    ctx->SetStatus(ctx->GetAttr("noise", &noise_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx,
                noise_.empty() || noise_ == "uniform" || noise_ == "gaussian" ||
                    noise_ == "zero",
                errors::InvalidArgument(
                    "noise must be 'uniform', 'gaussian' or 'zero', got '",
                    noise_, "'"));
    OP_REQUIRES(
        ctx, !(uniform_noise_ && !noise_.empty() && noise_ != "uniform"),
        errors::InvalidArgument("The uniform_noise should not be True "
                                "when noise is not uniform, got noise '",
                                noise_, "'"));
    const Tensor& input = ctx->input(0);
    const Tensor& size = ctx->input(1);
    const Tensor& offsets = ctx->input(2);
    OP_REQUIRES(ctx, input.rank() == 4,
                errors::InvalidArgument(
                    "input must be 4-D [batch, height, width, channels], got ",
                    input.shape().ToString()));
    OP_REQUIRES(ctx, size.rank() == 1 && size.dim(0) == 2,
                errors::InvalidArgument(
                    "size must be a vector of 2 elements (height, width), got ",
                    size.shape().ToString()));
    const int64_t batch = input.dim(0), in_h = input.dim(1),
                  in_w = input.dim(2), channels = input.dim(3);
    OP_REQUIRES(
        ctx,
        offsets.rank() == 2 && offsets.dim(0) == batch && offsets.dim(1) == 2,
        errors::InvalidArgument("offsets must have shape [", batch,
                                ", 2], got ", offsets.shape().ToString()));
    const int64_t out_h = size.data<int32_t>()[0];
    const int64_t out_w = size.data<int32_t>()[1];
    OP_REQUIRES(ctx, out_h >= 0 && out_w >= 0,
                errors::InvalidArgument("size must be non-negative, got [",
                                        out_h, ", ", out_w, "]"));
    int64_t glimpse_elements = 0, all_elements = 0;
    OP_REQUIRES(
        ctx,
        !__builtin_mul_overflow(out_h * out_w, channels, &glimpse_elements) &&
            !__builtin_mul_overflow(glimpse_elements, batch, &all_elements) &&
            out_h * out_w <= kMaxOutputElements &&
            all_elements <= kMaxOutputElements,
        errors::InvalidArgument("a glimpse of size [", out_h, ", ", out_w,
                                "] is too large"));
    Tensor* out;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(
                       0, TensorShape({batch, out_h, out_w, channels}), &out));
    const float* in = input.data<float>();
    const float* off = offsets.data<float>();
    float* dst = out->data<float>();
    const int64_t image_size = in_h * in_w * channels;
    const int64_t glimpse_size = out_h * out_w * channels;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t oy = Offset(off[2 * b], in_h, out_h);
      const int64_t ox = Offset(off[2 * b + 1], in_w, out_w);
      const float* image = in + b * image_size;
      float* glimpse = dst + b * glimpse_size;
      const bool inside =
          oy >= 0 && ox >= 0 && oy + out_h < in_h && ox + out_w < in_w;
      if (!inside) FillNoise(image, image_size, glimpse, glimpse_size);
      for (int64_t r = 0; r < out_h; ++r) {
        const int64_t y = oy + r;
        if (y < 0 || y >= in_h) continue;
        for (int64_t c = 0; c < out_w; ++c) {
          const int64_t x = ox + c;
          if (x < 0 || x >= in_w) continue;
          std::memcpy(glimpse + (r * out_w + c) * channels,
                      image + (y * in_w + x) * channels,
                      channels * sizeof(float));
        }
      }
    }
  }

 private:
  // The glimpse's top (left) pixel from one offset coordinate.
  int64_t Offset(float v, int64_t in, int64_t out) const {
    float x = v;
    const float half_in = static_cast<float>(in) / 2.0f;
    const float half_out = static_cast<float>(out) / 2.0f;
    if (kVersion == 1) {
      if (normalized_) x *= static_cast<float>(in);
      if (centered_) x = x / 2.0f + half_in;
      x -= half_out;
    } else if (normalized_) {
      x *= static_cast<float>(in);
      if (centered_) x = x / 2.0f + half_in - half_out;
    } else if (centered_) {
      x += half_in;
    }
    // Eigen truncates to an integer; a value past any image (or NaN) puts
    // the whole glimpse outside.
    constexpr float kFar = 1e15f;
    if (!(x > -kFar)) return -static_cast<int64_t>(kFar);
    if (x > kFar) return static_cast<int64_t>(kFar);
    return static_cast<int64_t>(x);
  }

  void FillNoise(const float* image, int64_t image_size, float* glimpse,
                 int64_t glimpse_size) {
    const bool zero = !uniform_noise_ && noise_ == "zero";
    const bool gaussian = !uniform_noise_ && noise_ == "gaussian";
    if (zero || image_size == 0) {
      std::fill_n(glimpse, glimpse_size, 0.0f);
      return;
    }
    std::lock_guard<std::mutex> lock(mu_);
    WordStream random(&gen_);
    if (gaussian) {
      double mean = 0.0, sq = 0.0;
      for (int64_t i = 0; i < image_size; ++i) mean += image[i];
      mean /= static_cast<double>(image_size);
      for (int64_t i = 0; i < image_size; ++i) {
        sq += (image[i] - mean) * (image[i] - mean);
      }
      const double stddev = std::sqrt(sq / static_cast<double>(image_size));
      for (int64_t i = 0; i < glimpse_size; ++i) {
        const double u1 = 1.0 - UniformDouble(random.Next());
        const double u2 = UniformDouble(random.Next());
        glimpse[i] =
            static_cast<float>(mean + stddev * std::sqrt(-2.0 * std::log(u1)) *
                                          std::cos(6.283185307179586 * u2));
      }
      return;
    }
    const auto [lo, hi] = std::minmax_element(image, image + image_size);
    const float range = *hi - *lo;
    for (int64_t i = 0; i < glimpse_size; ++i) {
      glimpse[i] = *lo + random.Float() * range;
    }
  }

  bool centered_ = true, normalized_ = true, uniform_noise_ = true;
  std::string noise_;
  std::mutex mu_;
  Philox gen_;
};

REGISTER_KERNEL(KernelDef("ExtractGlimpse"), ExtractGlimpseOp<1>);
REGISTER_KERNEL(KernelDef("ExtractGlimpseV2"), ExtractGlimpseOp<2>);

// ---------------------------------------------------------------------------
// ExtractVolumePatches.

class ExtractVolumePatchesOp : public OpKernel {
 public:
  explicit ExtractVolumePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("ksizes", &ksizes_));
    ctx->SetStatus(ctx->GetAttr("strides", &strides_));
    ctx->SetStatus(ctx->GetAttr("padding", &padding_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.rank() == 5,
                errors::InvalidArgument(
                    "input must be 5-D [batch, planes, rows, cols, depth], "
                    "got ",
                    x.shape().ToString()));
    OP_REQUIRES(ctx,
                ksizes_.size() == 5 && strides_.size() == 5 &&
                    ksizes_[0] == 1 && ksizes_[4] == 1 && strides_[0] == 1 &&
                    strides_[4] == 1,
                errors::Unimplemented(
                    "Only support ksizes and strides of the form [1, p, r, c, "
                    "1] across the batch and depth dimensions."));
    for (int d = 1; d <= 3; ++d) {
      OP_REQUIRES(
          ctx, ksizes_[d] >= 1 && ksizes_[d] <= (1 << 20) && strides_[d] >= 1,
          errors::InvalidArgument("ksizes must be in [1, ", 1 << 20,
                                  "] and strides positive, got ksizes[", d,
                                  "] = ", ksizes_[d], ", strides[", d,
                                  "] = ", strides_[d]));
    }
    int64_t out[4] = {x.dim(0), 0, 0, 0}, pad[4] = {0, 0, 0, 0};
    for (int d = 1; d <= 3; ++d) {
      const int64_t in = x.dim(d), k = ksizes_[d], s = strides_[d];
      if (padding_ == "VALID") {
        out[d] = in < k ? 0 : (in - k) / s + 1;
      } else {
        out[d] = in == 0 ? 0 : (in - 1) / s + 1;
        pad[d] = std::max<int64_t>(0, (out[d] - 1) * s + k - in) / 2;
      }
    }
    const int64_t depth = x.dim(4);
    int64_t taps = 0, depth_out = 0, total = 0;
    OP_REQUIRES(
        ctx,
        !__builtin_mul_overflow(ksizes_[1] * ksizes_[2], ksizes_[3], &taps) &&
            !__builtin_mul_overflow(taps, depth, &depth_out) &&
            !__builtin_mul_overflow(out[0], out[1], &total) &&
            !__builtin_mul_overflow(total, out[2], &total) &&
            !__builtin_mul_overflow(total, out[3], &total) &&
            !__builtin_mul_overflow(total, depth_out, &total) &&
            total <= kMaxOutputElements * 4,
        errors::InvalidArgument("the patches of ksizes ", ksizes_[1], "x",
                                ksizes_[2], "x", ksizes_[3], " over ",
                                x.shape().ToString(), " are too large"));
    Tensor* y;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({out[0], out[1], out[2], out[3], depth_out}), &y));
    const int64_t elem = DataTypeSize(x.dtype());
    const char* src = static_cast<const char*>(x.raw_data());
    char* dst = static_cast<char*>(y->raw_data());
    const int64_t row = depth * elem;
    int64_t o = 0;
    for (int64_t b = 0; b < out[0]; ++b) {
      for (int64_t p = 0; p < out[1]; ++p) {
        for (int64_t r = 0; r < out[2]; ++r) {
          for (int64_t c = 0; c < out[3]; ++c) {
            for (int64_t kp = 0; kp < ksizes_[1]; ++kp) {
              const int64_t ip = p * strides_[1] - pad[1] + kp;
              for (int64_t kr = 0; kr < ksizes_[2]; ++kr) {
                const int64_t ir = r * strides_[2] - pad[2] + kr;
                for (int64_t kc = 0; kc < ksizes_[3]; ++kc, o += row) {
                  const int64_t ic = c * strides_[3] - pad[3] + kc;
                  if (ip < 0 || ip >= x.dim(1) || ir < 0 || ir >= x.dim(2) ||
                      ic < 0 || ic >= x.dim(3)) {
                    std::memset(dst + o, 0, row);
                    continue;
                  }
                  const int64_t at =
                      (((b * x.dim(1) + ip) * x.dim(2) + ir) * x.dim(3) + ic) *
                      row;
                  std::memcpy(dst + o, src + at, row);
                }
              }
            }
          }
        }
      }
    }
  }

 private:
  std::vector<int64_t> ksizes_, strides_;
  std::string padding_;
};

REGISTER_KERNEL(KernelDef("ExtractVolumePatches"), ExtractVolumePatchesOp);

}  // namespace
}  // namespace tensorweave
