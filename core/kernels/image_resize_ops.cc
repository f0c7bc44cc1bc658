// ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic, ResizeArea and the
// gradients of the first two, with TensorFlow's align_corners and
// half_pixel_centers sampling (computed in float, as TensorFlow's CPU
// kernels).
#include <cfloat>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/image_util.h"
#include "core/kernels/offset_tables.h"

// TensorFlow's kernels round every product and sum (no fused multiply-add):
// so do these (-march=native would otherwise contract a + (b - a) * w into
// an FMA and differ from TF in the last bits). Only this file's functions.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")

namespace tensorweave {
namespace {

// The validated geometry of one resize: input [batch, in_h, in_w, channels]
// to [batch, out_h, out_w, channels].
struct ResizeGeometry {
  int64_t batch = 0, in_h = 0, in_w = 0, channels = 0, out_h = 0, out_w = 0;
  float height_scale = 0, width_scale = 0;
};

Status ReadOutputSize(const Tensor& size, int64_t* h, int64_t* w) {
  if (size.rank() != 1) {
    return errors::InvalidArgument("shape_t must be 1-dimensional, got ",
                                   size.shape().ToString());
  }
  if (size.num_elements() != 2) {
    return errors::InvalidArgument("shape_t must have two elements, got ",
                                   size.shape().ToString());
  }
  std::vector<int64_t> hw;
  TW_RETURN_IF_ERROR(ReadIndexVector(size, &hw));
  *h = hw[0];
  *w = hw[1];
  return Status::OK();
}

// `image` is what is resized; (out_h, out_w) the size it is resized to.
Status MakeGeometry(const Tensor& image, int64_t out_h, int64_t out_w,
                    bool align_corners, bool half_pixel, ResizeGeometry* g) {
  if (image.rank() != 4) {
    return errors::InvalidArgument("input must be 4-dimensional",
                                   image.shape().ToString());
  }
  if (half_pixel && align_corners) {
    return errors::InvalidArgument(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  if (out_h <= 0 || out_w <= 0) {
    return errors::InvalidArgument("output dimensions must be positive");
  }
  g->batch = image.dim(0);
  g->in_h = image.dim(1);
  g->in_w = image.dim(2);
  g->channels = image.dim(3);
  if (g->in_h <= 0 || g->in_w <= 0) {
    return errors::InvalidArgument("input image must be of non-zero size");
  }
  g->out_h = out_h;
  g->out_w = out_w;
  g->height_scale = ResizeScale(g->in_h, out_h, align_corners);
  g->width_scale = ResizeScale(g->in_w, out_w, align_corners);
  return Status::OK();
}

// The two source positions and the weight of the second, per output index.
struct Lerp {
  int64_t lower, upper;
  float lerp;
};

std::vector<Lerp> LerpTable(int64_t out_size, int64_t in_size, float scale,
                            bool half_pixel) {
  std::vector<Lerp> table(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    // SourcePosition's formula, here so that it is not contracted either.
    const float in = half_pixel ? (static_cast<float>(i) + 0.5f) * scale - 0.5f
                                : static_cast<float>(i) * scale;
    const float in_f = std::floor(in);
    table[i].lower = std::max<int64_t>(static_cast<int64_t>(in_f), 0);
    table[i].upper =
        std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    table[i].lerp = in - in_f;
  }
  return table;
}

// The nearest source index per output index (TensorFlow's rounding).
std::vector<int64_t> NearestTable(int64_t out_size, int64_t in_size,
                                  float scale, bool align_corners,
                                  bool half_pixel) {
  std::vector<int64_t> table(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = half_pixel ? (static_cast<float>(i) + 0.5f) * scale
                                : static_cast<float>(i) * scale;
    int64_t index =
        std::min<int64_t>(align_corners ? static_cast<int64_t>(std::round(in))
                                        : static_cast<int64_t>(std::floor(in)),
                          in_size - 1);
    if (half_pixel) index = std::max<int64_t>(index, 0);
    table[i] = index;
  }
  return table;
}

class ResizeOpBase : public OpKernel {
 public:
  explicit ResizeOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("align_corners", &align_corners_));
    if (ctx->node().attrs().count("half_pixel_centers")) {
      ctx->SetStatus(ctx->GetAttr("half_pixel_centers", &half_pixel_));
    }
  }

 protected:
  // The geometry of resizing input 0 to the size in input 1; allocates
  // output 0.
  Status Prepare(OpKernelContext* ctx, ResizeGeometry* g, Tensor** out) {
    int64_t h, w;
    TW_RETURN_IF_ERROR(ReadOutputSize(ctx->input(1), &h, &w));
    TW_RETURN_IF_ERROR(
        MakeGeometry(ctx->input(0), h, w, align_corners_, half_pixel_, g));
    return ctx->allocate_output(0, TensorShape({g->batch, h, w, g->channels}),
                                out);
  }
  bool align_corners_ = false, half_pixel_ = false;
};

class ResizeBilinearOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;
  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* out;
    OP_REQUIRES_OK(ctx, Prepare(ctx, &g, &out));
    const Tensor& input = ctx->input(0);
    std::vector<float> converted;
    const float* in = nullptr;
    if (input.dtype() == DT_FLOAT) {
      in = input.data<float>();
    } else {
      OP_REQUIRES_OK(ctx, ReadAsFloat(input, &converted));
      in = converted.data();
    }
    const auto ys = LerpTable(g.out_h, g.in_h, g.height_scale, half_pixel_);
    const auto xs = LerpTable(g.out_w, g.in_w, g.width_scale, half_pixel_);
    const int64_t c = g.channels, row_len = g.out_w * c;
    // Per output element of a row: the offsets of its two source elements in
    // a source row and the weight of the second (the interpolation table).
    std::vector<int32_t> left(row_len), right(row_len);
    std::vector<float> weight(row_len);
    for (int64_t x = 0; x < g.out_w; ++x) {
      for (int64_t k = 0; k < c; ++k) {
        left[x * c + k] = static_cast<int32_t>(xs[x].lower * c + k);
        right[x * c + k] = static_cast<int32_t>(xs[x].upper * c + k);
        weight[x * c + k] = xs[x].lerp;
      }
    }
    float* o = out->data<float>();
    const int32_t* lo = left.data();
    const int32_t* hi = right.data();
    const float* wx = weight.data();
    // Each output row is the vertical lerp of two horizontally interpolated
    // source rows; consecutive output rows mostly share their source rows,
    // so each part keeps the last two interpolated rows and reuses them.
    // The arithmetic is the direct formula's, element by element:
    // t = tl + (tr - tl) * xl, b = bl + (br - bl) * xl, t + (b - t) * yl.
    ForRows(
        ctx, g.batch * g.out_h, row_len * 4, [&](int64_t begin, int64_t end) {
          std::vector<float> buffers(2 * row_len);
          float* rows[2] = {buffers.data(), buffers.data() + row_len};
          int64_t cached[2] = {-1, -1};  // the flat source row in each buffer
          auto interpolated = [&](int64_t source_row,
                                  int slot) -> const float* {
            for (int s = 0; s < 2; ++s) {
              if (cached[s] == source_row) return rows[s];
            }
            // Never overwrite the row the other slot of this output row uses.
            float* dst = rows[slot];
            cached[slot] = source_row;
            const float* src = in + source_row * g.in_w * c;
            for (int64_t j = 0; j < row_len; ++j) {
              const float l = src[lo[j]];
              dst[j] = l + (src[hi[j]] - l) * wx[j];
            }
            return dst;
          };
          for (int64_t r = begin; r < end; ++r) {
            const int64_t b = r / g.out_h, y = r % g.out_h;
            const int64_t top_row = b * g.in_h + ys[y].lower;
            const int64_t bottom_row = b * g.in_h + ys[y].upper;
            // The slot to fill for the top row: one not holding the bottom row.
            const int top_slot = cached[0] == bottom_row ? 1 : 0;
            const float* top = interpolated(top_row, top_slot);
            const int bottom_slot = top == rows[0] ? 1 : 0;
            const float* bottom = interpolated(bottom_row, bottom_slot);
            const float yl = ys[y].lerp;
            float* dst = o + r * row_len;
            for (int64_t j = 0; j < row_len; ++j) {
              const float t = top[j];
              dst[j] = t + (bottom[j] - t) * yl;
            }
          }
        });
  }
};

class ResizeBilinearGradOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    OP_REQUIRES(ctx, grads.rank() == 4,
                errors::InvalidArgument("input_grad must be 4-dimensional",
                                        grads.shape().ToString()));
    ResizeGeometry g;
    OP_REQUIRES_OK(ctx, MakeGeometry(original, grads.dim(1), grads.dim(2),
                                     align_corners_, half_pixel_, &g));
    OP_REQUIRES(ctx, grads.dim(0) == g.batch && grads.dim(3) == g.channels,
                errors::InvalidArgument("grads ", grads.shape().ToString(),
                                        " and original_image ",
                                        original.shape().ToString(),
                                        " differ in batch or channels"));
    const auto ys = LerpTable(g.out_h, g.in_h, g.height_scale, half_pixel_);
    const auto xs = LerpTable(g.out_w, g.in_w, g.width_scale, half_pixel_);
    std::vector<float> acc(original.num_elements(), 0.0f);
    const float* gr = grads.data<float>();
    const int64_t c = g.channels;
    for (int64_t b = 0; b < g.batch; ++b) {
      float* image = acc.data() + b * g.in_h * g.in_w * c;
      for (int64_t y = 0; y < g.out_h; ++y) {
        float* top = image + ys[y].lower * g.in_w * c;
        float* bottom = image + ys[y].upper * g.in_w * c;
        const float yl = ys[y].lerp, iyl = 1.0f - yl;
        for (int64_t x = 0; x < g.out_w; ++x) {
          const float xl = xs[x].lerp, ixl = 1.0f - xl;
          for (int64_t k = 0; k < c; ++k) {
            const float v = *gr++;
            top[xs[x].lower * c + k] += v * iyl * ixl;
            top[xs[x].upper * c + k] += v * iyl * xl;
            bottom[xs[x].lower * c + k] += v * yl * ixl;
            bottom[xs[x].upper * c + k] += v * yl * xl;
          }
        }
      }
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, original.shape(), &out));
    OP_REQUIRES_OK(ctx, WriteFromFloat(acc, out));
  }
};

class ResizeNearestNeighborOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;
  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* out;
    OP_REQUIRES_OK(ctx, Prepare(ctx, &g, &out));
    const auto ys = NearestTable(g.out_h, g.in_h, g.height_scale,
                                 align_corners_, half_pixel_);
    const auto xs = NearestTable(g.out_w, g.in_w, g.width_scale, align_corners_,
                                 half_pixel_);
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ALL_NUMBER_TYPES>(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* x = in.data<T>();
          T* o = out->data<T>();
          const int64_t c = g.channels;
          for (int64_t b = 0; b < g.batch; ++b) {
            for (int64_t y = 0; y < g.out_h; ++y) {
              for (int64_t i = 0; i < g.out_w; ++i) {
                const T* src = x + ((b * g.in_h + ys[y]) * g.in_w + xs[i]) * c;
                o = std::copy(src, src + c, o);
              }
            }
          }
          return Status::OK();
        }));
  }
};

class ResizeNearestNeighborGradOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    int64_t h, w;
    OP_REQUIRES_OK(ctx, ReadOutputSize(ctx->input(1), &h, &w));
    OP_REQUIRES(ctx, grads.rank() == 4,
                errors::InvalidArgument("input must be 4-dimensional",
                                        grads.shape().ToString()));
    OP_REQUIRES(ctx, h > 0 && w > 0,
                errors::InvalidArgument("output dimensions must be positive"));
    OP_REQUIRES(ctx, !(half_pixel_ && align_corners_),
                errors::InvalidArgument("If half_pixel_centers is True, "
                                        "align_corners must be False."));
    const int64_t batch = grads.dim(0), gh = grads.dim(1), gw = grads.dim(2),
                  c = grads.dim(3);
    // The forward op resized (h, w) to (gh, gw).
    const auto ys = NearestTable(gh, h, ResizeScale(h, gh, align_corners_),
                                 align_corners_, half_pixel_);
    const auto xs = NearestTable(gw, w, ResizeScale(w, gw, align_corners_),
                                 align_corners_, half_pixel_);
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({batch, h, w, c}), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ALL_NUMBER_TYPES>(grads.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* g = grads.data<T>();
          T* o = out->data<T>();
          std::fill(o, o + out->num_elements(), T(0));
          for (int64_t b = 0; b < batch; ++b) {
            for (int64_t y = 0; y < gh; ++y) {
              for (int64_t x = 0; x < gw; ++x) {
                T* dst = o + ((b * h + ys[y]) * w + xs[x]) * c;
                for (int64_t k = 0; k < c; ++k) dst[k] += *g++;
              }
            }
          }
          return Status::OK();
        }));
  }
};

// TensorFlow's table of Keys cubic weights (1024 steps per pixel).
constexpr int64_t kTableSize = 1024;

std::vector<float> CubicTable(double a) {
  std::vector<float> table((kTableSize + 1) * 2);
  for (int64_t i = 0; i <= kTableSize; ++i) {
    float x = i * 1.0 / kTableSize;
    table[i * 2] = ((a + 2) * x - (a + 3)) * x * x + 1;
    x += 1.0;
    table[i * 2 + 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  }
  return table;
}

struct CubicTaps {
  int64_t index[4];
  float weight[4];
};

CubicTaps Taps(int64_t out, float scale, int64_t limit, bool half_pixel,
               const std::vector<float>& table) {
  const float in = SourcePosition(out, scale, half_pixel);
  const int64_t in_loc = static_cast<int64_t>(std::floor(in));
  const float delta = in - in_loc;
  const int64_t offset = std::lrint(delta * kTableSize);
  const float w[4] = {table[offset * 2 + 1], table[offset * 2],
                      table[(kTableSize - offset) * 2],
                      table[(kTableSize - offset) * 2 + 1]};
  CubicTaps taps;
  float sum = 0;
  for (int t = 0; t < 4; ++t) {
    const int64_t want = in_loc - 1 + t;
    taps.index[t] = std::min(limit - 1, std::max<int64_t>(0, want));
    // With half-pixel centers, taps outside the image weigh nothing and the
    // rest are renormalized (TensorFlow's Keys cubic); otherwise the edge
    // pixel repeats.
    taps.weight[t] = (!half_pixel || taps.index[t] == want) ? w[t] : 0.0f;
    sum += taps.weight[t];
  }
  if (half_pixel && std::abs(sum) >= 1000.0f * FLT_MIN) {
    const float inv = 1.0f / sum;
    for (float& x : taps.weight) x *= inv;
  }
  return taps;
}

class ResizeBicubicOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;
  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* out;
    OP_REQUIRES_OK(ctx, Prepare(ctx, &g, &out));
    std::vector<float> in;
    OP_REQUIRES_OK(ctx, ReadAsFloat(ctx->input(0), &in));
    const std::vector<float> table = CubicTable(half_pixel_ ? -0.5 : -0.75);
    std::vector<CubicTaps> xs(g.out_w);
    for (int64_t x = 0; x < g.out_w; ++x) {
      xs[x] = Taps(x, g.width_scale, g.in_w, half_pixel_, table);
    }
    float* o = out->data<float>();
    const int64_t c = g.channels;
    for (int64_t b = 0; b < g.batch; ++b) {
      const float* image = in.data() + b * g.in_h * g.in_w * c;
      for (int64_t y = 0; y < g.out_h; ++y) {
        const CubicTaps ty =
            Taps(y, g.height_scale, g.in_h, half_pixel_, table);
        for (int64_t x = 0; x < g.out_w; ++x) {
          const CubicTaps& tx = xs[x];
          for (int64_t k = 0; k < c; ++k) {
            float rows[4];
            for (int r = 0; r < 4; ++r) {
              const float* row = image + ty.index[r] * g.in_w * c;
              rows[r] = tx.weight[0] * row[tx.index[0] * c + k] +
                        tx.weight[1] * row[tx.index[1] * c + k] +
                        tx.weight[2] * row[tx.index[2] * c + k] +
                        tx.weight[3] * row[tx.index[3] * c + k];
            }
            *o++ = ty.weight[0] * rows[0] + ty.weight[1] * rows[1] +
                   ty.weight[2] * rows[2] + ty.weight[3] * rows[3];
          }
        }
      }
    }
  }
};

// The transpose of ResizeBicubic: each output gradient spread over the 16
// taps that produced it.
class ResizeBicubicGradOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    OP_REQUIRES(ctx, grads.rank() == 4,
                errors::InvalidArgument("input_grad must be 4-dimensional",
                                        grads.shape().ToString()));
    ResizeGeometry g;
    OP_REQUIRES_OK(ctx, MakeGeometry(original, grads.dim(1), grads.dim(2),
                                     align_corners_, half_pixel_, &g));
    OP_REQUIRES(ctx, grads.dim(0) == g.batch && grads.dim(3) == g.channels,
                errors::InvalidArgument("grads ", grads.shape().ToString(),
                                        " and original_image ",
                                        original.shape().ToString(),
                                        " differ in batch or channels"));
    const std::vector<float> table = CubicTable(half_pixel_ ? -0.5 : -0.75);
    std::vector<CubicTaps> xs(g.out_w);
    for (int64_t x = 0; x < g.out_w; ++x) {
      xs[x] = Taps(x, g.width_scale, g.in_w, half_pixel_, table);
    }
    std::vector<float> acc(original.num_elements(), 0.0f);
    const float* gr = grads.data<float>();
    const int64_t c = g.channels;
    for (int64_t b = 0; b < g.batch; ++b) {
      float* image = acc.data() + b * g.in_h * g.in_w * c;
      for (int64_t y = 0; y < g.out_h; ++y) {
        const CubicTaps ty =
            Taps(y, g.height_scale, g.in_h, half_pixel_, table);
        for (int64_t x = 0; x < g.out_w; ++x) {
          const CubicTaps& tx = xs[x];
          for (int64_t k = 0; k < c; ++k) {
            const float v = *gr++;
            for (int r = 0; r < 4; ++r) {
              float* row = image + ty.index[r] * g.in_w * c;
              for (int t = 0; t < 4; ++t) {
                row[tx.index[t] * c + k] += v * ty.weight[r] * tx.weight[t];
              }
            }
          }
        }
      }
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, original.shape(), &out));
    OP_REQUIRES_OK(ctx, WriteFromFloat(acc, out));
  }
};

// The share of source pixel i in the output span [in, in1).
float AreaWeight(int64_t i, float in, float in1, float scale) {
  if (i < in) return i + 1 > in1 ? scale : i + 1 - in;
  return i + 1 > in1 ? in1 - i : 1.0f;
}

class ResizeAreaOp : public ResizeOpBase {
 public:
  using ResizeOpBase::ResizeOpBase;
  void Compute(OpKernelContext* ctx) override {
    ResizeGeometry g;
    Tensor* out;
    OP_REQUIRES_OK(ctx, Prepare(ctx, &g, &out));
    std::vector<float> in;
    OP_REQUIRES_OK(ctx, ReadAsFloat(ctx->input(0), &in));
    const float scale = 1.0f / (g.height_scale * g.width_scale);
    const int64_t c = g.channels;
    float* o = out->data<float>();
    std::vector<float> sum(c);
    for (int64_t b = 0; b < g.batch; ++b) {
      const float* image = in.data() + b * g.in_h * g.in_w * c;
      for (int64_t y = 0; y < g.out_h; ++y) {
        const float in_y = y * g.height_scale;
        const float in_y1 = (y + 1) * g.height_scale;
        const int64_t y_start = static_cast<int64_t>(std::floor(in_y));
        const int64_t y_end = static_cast<int64_t>(std::ceil(in_y1));
        for (int64_t x = 0; x < g.out_w; ++x) {
          const float in_x = x * g.width_scale;
          const float in_x1 = (x + 1) * g.width_scale;
          const int64_t x_start = static_cast<int64_t>(std::floor(in_x));
          const int64_t x_end = static_cast<int64_t>(std::ceil(in_x1));
          std::fill(sum.begin(), sum.end(), 0.0f);
          for (int64_t i = y_start; i < y_end; ++i) {
            const float wy = AreaWeight(i, in_y, in_y1, g.height_scale);
            const float* row =
                image +
                std::min(std::max<int64_t>(i, 0), g.in_h - 1) * g.in_w * c;
            for (int64_t k = 0; k < c; ++k) {
              float sum_x = 0;
              for (int64_t j = x_start; j < x_end; ++j) {
                const float wx = AreaWeight(j, in_x, in_x1, g.width_scale);
                sum_x +=
                    wx *
                    row[std::min(std::max<int64_t>(j, 0), g.in_w - 1) * c + k];
              }
              sum[k] += wy * sum_x;
            }
          }
          for (int64_t k = 0; k < c; ++k) *o++ = sum[k] * scale;
        }
      }
    }
  }
};

REGISTER_KERNEL(KernelDef("ResizeBilinear"), ResizeBilinearOp);
REGISTER_KERNEL(KernelDef("ResizeBilinearGrad"), ResizeBilinearGradOp);
REGISTER_KERNEL(KernelDef("ResizeNearestNeighbor"), ResizeNearestNeighborOp);
REGISTER_KERNEL(KernelDef("ResizeNearestNeighborGrad"),
                ResizeNearestNeighborGradOp);
REGISTER_KERNEL(KernelDef("ResizeBicubic"), ResizeBicubicOp);
REGISTER_KERNEL(KernelDef("ResizeBicubicGrad"), ResizeBicubicGradOp);
REGISTER_KERNEL(KernelDef("ResizeArea"), ResizeAreaOp);

}  // namespace
}  // namespace tensorweave

#pragma GCC pop_options
