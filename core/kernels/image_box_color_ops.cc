// CropAndResize, NonMaxSuppressionV3, RGBToHSV, HSVToRGB, AdjustContrastv2,
// AdjustSaturation and AdjustHue (in float, as TensorFlow's CPU kernels).
#include <algorithm>
#include <cmath>
#include <queue>
#include <string>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/image_util.h"

namespace tensorweave {
namespace {

// As TensorFlow: a NaN or infinite box coordinate is an error, not a crop
// of NaN.
Status CheckBoxesFinite(const Tensor& boxes) {
  const float* bx = boxes.data<float>();
  for (int64_t i = 0; i < boxes.num_elements(); ++i) {
    if (!std::isfinite(bx[i])) {
      return errors::InvalidArgument(
          "Boxes contains at least one element that is not finite: boxes[",
          i / 4, "][", i % 4, "] = ", bx[i]);
    }
  }
  return Status::OK();
}

class CropAndResizeOp : public OpKernel {
 public:
  explicit CropAndResizeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("method", &method_));
    ctx->SetStatus(ctx->GetAttr("extrapolation_value", &extrapolation_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& image = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_ind = ctx->input(2);
    const Tensor& crop_size = ctx->input(3);
    OP_REQUIRES(ctx, image.rank() == 4,
                errors::InvalidArgument("input image must be 4-D",
                                        image.shape().ToString()));
    const int64_t batch = image.dim(0), h = image.dim(1), w = image.dim(2),
                  c = image.dim(3);
    OP_REQUIRES(ctx, h > 0 && w > 0,
                errors::InvalidArgument("image dimensions must be positive"));
    OP_REQUIRES(
        ctx, boxes.rank() == 2 && boxes.dim(1) == 4,
        errors::InvalidArgument("boxes must be 2-D [num_boxes, 4], got ",
                                boxes.shape().ToString()));
    const int64_t n = boxes.dim(0);
    OP_REQUIRES(
        ctx, box_ind.rank() == 1 && box_ind.dim(0) == n,
        errors::InvalidArgument("box_index has incompatible shape ",
                                box_ind.shape().ToString(), " for boxes ",
                                boxes.shape().ToString()));
    OP_REQUIRES(ctx, crop_size.rank() == 1 && crop_size.num_elements() == 2,
                errors::InvalidArgument("crop_size must be 1-D with 2 "
                                        "elements, got ",
                                        crop_size.shape().ToString()));
    const int32_t ch = crop_size.data<int32_t>()[0];
    const int32_t cw = crop_size.data<int32_t>()[1];
    OP_REQUIRES(ctx, ch > 0 && cw > 0,
                errors::InvalidArgument("crop dimensions must be positive"));
    const int32_t* ind = box_ind.data<int32_t>();
    for (int64_t b = 0; b < n; ++b) {
      OP_REQUIRES(
          ctx, ind[b] >= 0 && ind[b] < batch,
          errors::OutOfRange("box_index[", b, "] = ", ind[b],
                             " is outside [0, batch_size) = [0, ", batch, ")"));
    }
    OP_REQUIRES_OK(ctx, CheckBoxesFinite(boxes));
    std::vector<float> in;
    OP_REQUIRES_OK(ctx, ReadAsFloat(image, &in));
    Tensor* out;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape({n, ch, cw, c}), &out));
    const float* bx = boxes.data<float>();
    float* o = out->data<float>();
    const bool bilinear = method_ == "bilinear";
    for (int64_t b = 0; b < n; ++b) {
      const float y1 = bx[b * 4], x1 = bx[b * 4 + 1], y2 = bx[b * 4 + 2],
                  x2 = bx[b * 4 + 3];
      const float* img = in.data() + ind[b] * h * w * c;
      const float hs = ch > 1 ? (y2 - y1) * (h - 1) / (ch - 1) : 0;
      const float ws = cw > 1 ? (x2 - x1) * (w - 1) / (cw - 1) : 0;
      for (int64_t y = 0; y < ch; ++y) {
        const float in_y =
            ch > 1 ? y1 * (h - 1) + y * hs : 0.5f * (y1 + y2) * (h - 1);
        float* row_out = o + ((b * ch + y) * cw) * c;
        if (in_y < 0 || in_y > h - 1) {
          std::fill(row_out, row_out + cw * c, extrapolation_);
          continue;
        }
        const int64_t top = static_cast<int64_t>(std::floor(in_y));
        const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
        const float y_lerp = in_y - top;
        for (int64_t x = 0; x < cw; ++x) {
          const float in_x =
              cw > 1 ? x1 * (w - 1) + x * ws : 0.5f * (x1 + x2) * (w - 1);
          float* px = row_out + x * c;
          if (in_x < 0 || in_x > w - 1) {
            std::fill(px, px + c, extrapolation_);
            continue;
          }
          if (bilinear) {
            const int64_t left = static_cast<int64_t>(std::floor(in_x));
            const int64_t right = static_cast<int64_t>(std::ceil(in_x));
            const float x_lerp = in_x - left;
            for (int64_t k = 0; k < c; ++k) {
              const float tl = img[(top * w + left) * c + k];
              const float tr = img[(top * w + right) * c + k];
              const float bl = img[(bottom * w + left) * c + k];
              const float br = img[(bottom * w + right) * c + k];
              const float t = tl + (tr - tl) * x_lerp;
              const float bo = bl + (br - bl) * x_lerp;
              px[k] = t + (bo - t) * y_lerp;
            }
          } else {
            const int64_t yy = static_cast<int64_t>(std::round(in_y));
            const int64_t xx = static_cast<int64_t>(std::round(in_x));
            for (int64_t k = 0; k < c; ++k) px[k] = img[(yy * w + xx) * c + k];
          }
        }
      }
    }
  }

 private:
  std::string method_;
  float extrapolation_ = 0;
};

// What the CropAndResize gradients share: the checked inputs and, per crop
// pixel inside the image, its sampling position.
struct CropGeometry {
  int64_t num_boxes = 0, crop_h = 0, crop_w = 0, depth = 0;
};

Status CheckCropGradInputs(const Tensor& grads, const Tensor& boxes,
                           const Tensor& box_ind, int64_t batch,
                           CropGeometry* g) {
  if (grads.rank() != 4) {
    return errors::InvalidArgument("grads image must be 4-D, got ",
                                   grads.shape().ToString());
  }
  g->num_boxes = grads.dim(0);
  g->crop_h = grads.dim(1);
  g->crop_w = grads.dim(2);
  g->depth = grads.dim(3);
  if (g->crop_h <= 0 || g->crop_w <= 0) {
    return errors::InvalidArgument("grads dimensions must be positive");
  }
  if (boxes.rank() != 2 || boxes.dim(0) != g->num_boxes || boxes.dim(1) != 4) {
    return errors::InvalidArgument("boxes must be [", g->num_boxes,
                                   ", 4], got ", boxes.shape().ToString());
  }
  if (box_ind.rank() != 1 || box_ind.dim(0) != g->num_boxes) {
    return errors::InvalidArgument("box_index has incompatible shape ",
                                   box_ind.shape().ToString());
  }
  const int32_t* ind = box_ind.data<int32_t>();
  for (int64_t b = 0; b < g->num_boxes; ++b) {
    if (ind[b] < 0 || ind[b] >= batch) {
      return errors::OutOfRange("box_index[", b, "] = ", ind[b],
                                " is outside [0, batch_size) = [0, ", batch,
                                ")");
    }
  }
  return CheckBoxesFinite(boxes);
}

// Calls fn(b, y, x, in_y, in_x) for each crop pixel that samples inside the
// image (as CropAndResize computes in_y and in_x).
template <typename Fn>
void ForEachCropSample(const CropGeometry& g, const float* boxes, int64_t h,
                       int64_t w, Fn fn) {
  for (int64_t b = 0; b < g.num_boxes; ++b) {
    const float y1 = boxes[b * 4], x1 = boxes[b * 4 + 1], y2 = boxes[b * 4 + 2],
                x2 = boxes[b * 4 + 3];
    const float hs = g.crop_h > 1 ? (y2 - y1) * (h - 1) / (g.crop_h - 1) : 0;
    const float ws = g.crop_w > 1 ? (x2 - x1) * (w - 1) / (g.crop_w - 1) : 0;
    for (int64_t y = 0; y < g.crop_h; ++y) {
      const float in_y =
          g.crop_h > 1 ? y1 * (h - 1) + y * hs : 0.5f * (y1 + y2) * (h - 1);
      if (in_y < 0 || in_y > h - 1) continue;
      for (int64_t x = 0; x < g.crop_w; ++x) {
        const float in_x =
            g.crop_w > 1 ? x1 * (w - 1) + x * ws : 0.5f * (x1 + x2) * (w - 1);
        if (in_x < 0 || in_x > w - 1) continue;
        fn(b, y, x, in_y, in_x);
      }
    }
  }
}

class CropAndResizeGradImageOp : public OpKernel {
 public:
  explicit CropAndResizeGradImageOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("method", &method_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    const Tensor& box_ind = ctx->input(2);
    const Tensor& size_t_ = ctx->input(3);
    OP_REQUIRES(ctx, size_t_.rank() == 1 && size_t_.num_elements() == 4,
                errors::InvalidArgument("image_size must be 1-D with 4 "
                                        "elements, got ",
                                        size_t_.shape().ToString()));
    const int32_t* size = size_t_.data<int32_t>();
    const int64_t batch = size[0], h = size[1], w = size[2], c = size[3];
    OP_REQUIRES(ctx, batch > 0 && h > 0 && w > 0,
                errors::InvalidArgument("image dimensions must be positive"));
    CropGeometry g;
    OP_REQUIRES_OK(ctx, CheckCropGradInputs(grads, boxes, box_ind, batch, &g));
    OP_REQUIRES(ctx, g.depth == c,
                errors::InvalidArgument("image_size and grads are "
                                        "incompatible: depth ",
                                        c, " vs ", g.depth));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, h, w, c}), &out));
    std::vector<float> acc(out->num_elements(), 0.0f);
    const float* gr = grads.data<float>();
    const int32_t* ind = box_ind.data<int32_t>();
    const bool bilinear = method_ == "bilinear";
    ForEachCropSample(
        g, boxes.data<float>(), h, w,
        [&](int64_t b, int64_t y, int64_t x, float in_y, float in_x) {
          float* img = acc.data() + ind[b] * h * w * c;
          const float* gp = gr + ((b * g.crop_h + y) * g.crop_w + x) * c;
          if (!bilinear) {
            const int64_t yy = static_cast<int64_t>(std::round(in_y));
            const int64_t xx = static_cast<int64_t>(std::round(in_x));
            for (int64_t k = 0; k < c; ++k) img[(yy * w + xx) * c + k] += gp[k];
            return;
          }
          const int64_t top = static_cast<int64_t>(std::floor(in_y));
          const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float yl = in_y - top, xl = in_x - left;
          for (int64_t k = 0; k < c; ++k) {
            const float dtop = (1 - yl) * gp[k], dbottom = yl * gp[k];
            img[(top * w + left) * c + k] += (1 - xl) * dtop;
            img[(top * w + right) * c + k] += xl * dtop;
            img[(bottom * w + left) * c + k] += (1 - xl) * dbottom;
            img[(bottom * w + right) * c + k] += xl * dbottom;
          }
        });
    OP_REQUIRES_OK(ctx, WriteFromFloat(acc, out));
  }

 private:
  std::string method_;
};

class CropAndResizeGradBoxesOp : public OpKernel {
 public:
  explicit CropAndResizeGradBoxesOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& image = ctx->input(1);
    const Tensor& boxes = ctx->input(2);
    const Tensor& box_ind = ctx->input(3);
    OP_REQUIRES(ctx, image.rank() == 4,
                errors::InvalidArgument("input image must be 4-D, got ",
                                        image.shape().ToString()));
    const int64_t batch = image.dim(0), h = image.dim(1), w = image.dim(2),
                  c = image.dim(3);
    OP_REQUIRES(ctx, h > 0 && w > 0,
                errors::InvalidArgument("image dimensions must be positive"));
    CropGeometry g;
    OP_REQUIRES_OK(ctx, CheckCropGradInputs(grads, boxes, box_ind, batch, &g));
    OP_REQUIRES(ctx, g.depth == c,
                errors::InvalidArgument("image and grads differ in depth: ", c,
                                        " vs ", g.depth));
    std::vector<float> in;
    OP_REQUIRES_OK(ctx, ReadAsFloat(image, &in));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, boxes.shape(), &out));
    float* gb = out->data<float>();
    std::fill(gb, gb + out->num_elements(), 0.0f);
    const float* gr = grads.data<float>();
    const int32_t* ind = box_ind.data<int32_t>();
    const float hr =
        g.crop_h > 1 ? static_cast<float>(h - 1) / (g.crop_h - 1) : 0.0f;
    const float wr =
        g.crop_w > 1 ? static_cast<float>(w - 1) / (g.crop_w - 1) : 0.0f;
    ForEachCropSample(
        g, boxes.data<float>(), h, w,
        [&](int64_t b, int64_t y, int64_t x, float in_y, float in_x) {
          const float* img = in.data() + ind[b] * h * w * c;
          const float* gp = gr + ((b * g.crop_h + y) * g.crop_w + x) * c;
          const int64_t top = static_cast<int64_t>(std::floor(in_y));
          const int64_t bottom = static_cast<int64_t>(std::ceil(in_y));
          const int64_t left = static_cast<int64_t>(std::floor(in_x));
          const int64_t right = static_cast<int64_t>(std::ceil(in_x));
          const float yl = in_y - top, xl = in_x - left;
          for (int64_t k = 0; k < c; ++k) {
            const float tl = img[(top * w + left) * c + k];
            const float tr = img[(top * w + right) * c + k];
            const float bl = img[(bottom * w + left) * c + k];
            const float br = img[(bottom * w + right) * c + k];
            const float grad_y =
                ((1 - xl) * (bl - tl) + xl * (br - tr)) * gp[k];
            const float grad_x =
                ((1 - yl) * (tr - tl) + yl * (br - bl)) * gp[k];
            if (g.crop_h > 1) {
              gb[b * 4] += grad_y * (h - 1 - y * hr);
              gb[b * 4 + 2] += grad_y * (y * hr);
            } else {
              gb[b * 4] += grad_y * 0.5f * (h - 1);
              gb[b * 4 + 2] += grad_y * 0.5f * (h - 1);
            }
            if (g.crop_w > 1) {
              gb[b * 4 + 1] += grad_x * (w - 1 - x * wr);
              gb[b * 4 + 3] += grad_x * (x * wr);
            } else {
              gb[b * 4 + 1] += grad_x * 0.5f * (w - 1);
              gb[b * 4 + 3] += grad_x * 0.5f * (w - 1);
            }
          }
        });
  }
};

float Iou(const float* a, const float* b) {
  const float ymin_a = std::min(a[0], a[2]), xmin_a = std::min(a[1], a[3]);
  const float ymax_a = std::max(a[0], a[2]), xmax_a = std::max(a[1], a[3]);
  const float ymin_b = std::min(b[0], b[2]), xmin_b = std::min(b[1], b[3]);
  const float ymax_b = std::max(b[0], b[2]), xmax_b = std::max(b[1], b[3]);
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

float ScalarAsFloat(const Tensor& t) {
  std::vector<float> v;
  return ReadAsFloat(t, &v).ok() && !v.empty() ? v[0] : 0.0f;
}

class NonMaxSuppressionV3Op : public OpKernel {
 public:
  explicit NonMaxSuppressionV3Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes_t = ctx->input(0);
    const Tensor& scores_t = ctx->input(1);
    OP_REQUIRES(ctx, boxes_t.rank() == 2 && boxes_t.dim(1) == 4,
                errors::InvalidArgument("boxes must be 2-D [num_boxes, 4], "
                                        "got ",
                                        boxes_t.shape().ToString()));
    const int64_t n = boxes_t.dim(0);
    OP_REQUIRES(
        ctx, scores_t.rank() == 1 && scores_t.dim(0) == n,
        errors::InvalidArgument("scores has incompatible shape ",
                                scores_t.shape().ToString(), " for boxes ",
                                boxes_t.shape().ToString()));
    for (int i = 2; i <= 4; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).num_elements() == 1,
                  errors::InvalidArgument(i == 2   ? "max_output_size"
                                          : i == 3 ? "iou_threshold"
                                                   : "score_threshold",
                                          " must be a scalar, got shape ",
                                          ctx->input(i).shape().ToString()));
    }
    const int64_t max_out = ctx->input(2).data<int32_t>()[0];
    OP_REQUIRES(ctx, max_out >= 0,
                errors::InvalidArgument("max_output_size must be "
                                        "non-negative, got ",
                                        max_out));
    const float iou_threshold = ScalarAsFloat(ctx->input(3));
    const float score_threshold = ScalarAsFloat(ctx->input(4));
    OP_REQUIRES(ctx, iou_threshold >= 0 && iou_threshold <= 1,
                errors::InvalidArgument("iou_threshold must be in [0, 1]"));
    std::vector<float> boxes, scores;
    OP_REQUIRES_OK(ctx, ReadAsFloat(boxes_t, &boxes));
    OP_REQUIRES_OK(ctx, ReadAsFloat(scores_t, &scores));
    // Highest score first; the lower index first among equal scores.
    std::vector<int64_t> order;
    for (int64_t i = 0; i < n; ++i) {
      if (scores[i] > score_threshold) order.push_back(i);
    }
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return scores[a] > scores[b];
    });
    std::vector<int32_t> selected;
    for (int64_t i : order) {
      if (static_cast<int64_t>(selected.size()) >= max_out) break;
      bool keep = true;
      for (int32_t j : selected) {
        if (Iou(&boxes[i * 4], &boxes[j * 4]) > iou_threshold) {
          keep = false;
          break;
        }
      }
      if (keep) selected.push_back(static_cast<int32_t>(i));
    }
    Tensor* out;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            0, TensorShape({static_cast<int64_t>(selected.size())}), &out));
    std::copy(selected.begin(), selected.end(), out->data<int32_t>());
  }
};

// TensorFlow's RGB -> HSV: h in [0, 1), s = range / max, v = max.
void RgbToHsv(float r, float g, float b, float* h, float* s, float* v) {
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0.0f;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  if (r == vv) {
    hh = norm * (g - b);
  } else if (g == vv) {
    hh = norm * (b - r) + 2.0f / 6.0f;
  } else {
    hh = norm * (r - g) + 4.0f / 6.0f;
  }
  if (range <= 0.0f) hh = 0;
  if (hh < 0.0f) hh += 1;
  *h = hh;
  *v = vv;
}

void HsvToRgb(float h, float s, float v, float* r, float* g, float* b) {
  const float dh = h * 6.0f;
  const float dr = std::min(std::max(std::abs(dh - 3.0f) - 1.0f, 0.0f), 1.0f);
  const float dg = std::min(std::max(2.0f - std::abs(dh - 2.0f), 0.0f), 1.0f);
  const float db = std::min(std::max(2.0f - std::abs(dh - 4.0f), 0.0f), 1.0f);
  const float one_minus_s = 1.0f - s;
  *r = (one_minus_s + s * dr) * v;
  *g = (one_minus_s + s * dg) * v;
  *b = (one_minus_s + s * db) * v;
}

// Applies fn(rgb in, rgb out) to each pixel of input 0 (last dim 3).
template <typename Fn>
void MapPixels(OpKernelContext* ctx, Fn fn) {
  const Tensor& x = ctx->input(0);
  OP_REQUIRES(
      ctx, x.rank() >= 1 && x.dim(x.rank() - 1) == 3,
      errors::InvalidArgument("input must have 3 channels but input has shape ",
                              x.shape().ToString()));
  std::vector<float> in;
  OP_REQUIRES_OK(ctx, ReadAsFloat(x, &in));
  std::vector<float> out(in.size());
  for (size_t i = 0; i < in.size(); i += 3) fn(&in[i], &out[i]);
  Tensor* o;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &o));
  OP_REQUIRES_OK(ctx, WriteFromFloat(out, o));
}

class RgbToHsvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    MapPixels(ctx, [](const float* p, float* q) {
      RgbToHsv(p[0], p[1], p[2], &q[0], &q[1], &q[2]);
    });
  }
};

class HsvToRgbOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    MapPixels(ctx, [](const float* p, float* q) {
      HsvToRgb(p[0], p[1], p[2], &q[0], &q[1], &q[2]);
    });
  }
};

Status ReadFactor(OpKernelContext* ctx, const char* what, float* value) {
  const Tensor& t = ctx->input(1);
  if (t.rank() != 0) {
    return errors::InvalidArgument(what,
                                   " must be scalar: ", t.shape().ToString());
  }
  *value = t.data<float>()[0];
  return ctx->input(0).rank() >= 3
             ? Status::OK()
             : errors::InvalidArgument("input must be at least 3-D, got shape ",
                                       ctx->input(0).shape().ToString());
}

// AdjustSaturation (kHue false) and AdjustHue.
template <bool kHue>
class AdjustHsvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    float factor;
    OP_REQUIRES_OK(ctx, ReadFactor(ctx, kHue ? "delta" : "scale", &factor));
    MapPixels(ctx, [factor](const float* p, float* q) {
      float h, s, v;
      RgbToHsv(p[0], p[1], p[2], &h, &s, &v);
      if (kHue) {
        h = std::fmod(h + factor, 1.0f);
        if (h < 0) h += 1.0f;
      } else {
        s = std::min(1.0f, std::max(0.0f, s * factor));
      }
      HsvToRgb(h, s, v, &q[0], &q[1], &q[2]);
    });
  }
};

class AdjustContrastOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    float factor;
    OP_REQUIRES_OK(ctx, ReadFactor(ctx, "contrast_factor", &factor));
    const Tensor& x = ctx->input(0);
    const int r = x.rank();
    const int64_t c = x.dim(r - 1);
    const int64_t pixels = x.dim(r - 2) * x.dim(r - 3);
    const int64_t images =
        pixels * c == 0 ? 0 : x.num_elements() / (pixels * c);
    std::vector<float> in;
    OP_REQUIRES_OK(ctx, ReadAsFloat(x, &in));
    std::vector<float> out(in.size());
    for (int64_t b = 0; b < images; ++b) {
      const float* img = in.data() + b * pixels * c;
      float* dst = out.data() + b * pixels * c;
      for (int64_t k = 0; k < c; ++k) {
        double sum = 0;
        for (int64_t p = 0; p < pixels; ++p) sum += img[p * c + k];
        const float mean = static_cast<float>(sum / pixels);
        for (int64_t p = 0; p < pixels; ++p) {
          dst[p * c + k] = (img[p * c + k] - mean) * factor + mean;
        }
      }
    }
    Tensor* o;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &o));
    OP_REQUIRES_OK(ctx, WriteFromFloat(out, o));
  }
};

REGISTER_KERNEL(KernelDef("CropAndResize"), CropAndResizeOp);
REGISTER_KERNEL(KernelDef("CropAndResizeGradImage"), CropAndResizeGradImageOp);
REGISTER_KERNEL(KernelDef("CropAndResizeGradBoxes"), CropAndResizeGradBoxesOp);
REGISTER_KERNEL(KernelDef("NonMaxSuppressionV3"), NonMaxSuppressionV3Op);
REGISTER_KERNEL(KernelDef("RGBToHSV"), RgbToHsvOp);
REGISTER_KERNEL(KernelDef("HSVToRGB"), HsvToRgbOp);
REGISTER_KERNEL(KernelDef("AdjustSaturation"), AdjustHsvOp<false>);
REGISTER_KERNEL(KernelDef("AdjustHue"), AdjustHsvOp<true>);
REGISTER_KERNEL(KernelDef("AdjustContrastv2"), AdjustContrastOp);

}  // namespace
}  // namespace tensorweave
