// MaxPool, AvgPool and their backprops (NHWC). The inner loops run over the
// contiguous channels of a pixel; images are split over the intra-op pool.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/conv_ops.h"

namespace tensorweave {
namespace {

// The in-bounds window of output pixel (oy, ox): rows [y0, y1), cols
// [x0, x1).
struct Span {
  int64_t y0, y1, x0, x1;
  int64_t count() const { return (y1 - y0) * (x1 - x0); }
};

Span WindowOf(const Window2D& w, int64_t oy, int64_t ox) {
  const int64_t y = oy * w.stride_rows - w.pad_rows;
  const int64_t x = ox * w.stride_cols - w.pad_cols;
  return {std::max<int64_t>(y, 0), std::min(y + w.window_rows, w.in_rows),
          std::max<int64_t>(x, 0), std::min(x + w.window_cols, w.in_cols)};
}

class PoolOpBase : public OpKernel {
 public:
  explicit PoolOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<int64_t> ksize, strides;
    ctx->SetStatus(ctx->GetAttr("ksize", &ksize));
    ctx->SetStatus(ctx->GetAttr("strides", &strides));
    ctx->SetStatus(ctx->GetAttr("padding", &padding_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(CheckNhwcAttr(ksize, "ksize"));
    ctx->SetStatus(CheckNhwcAttr(strides, "strides"));
    if (!ctx->status().ok()) return;
    window_.window_rows = ksize[1];
    window_.window_cols = ksize[2];
    window_.stride_rows = strides[1];
    window_.stride_cols = strides[2];
  }
  bool IsExpensive() const override { return true; }

 protected:
  // The geometry for an input of `shape`, and the pooled shape.
  Status Geometry(const TensorShape& shape, Window2D* w,
                  TensorShape* out_shape) const {
    if (shape.rank() != 4) {
      return errors::InvalidArgument("input must be 4-D [N,H,W,C], got ",
                                     shape.ToString());
    }
    *w = window_;
    w->batch = shape.dim(0);
    w->in_rows = shape.dim(1);
    w->in_cols = shape.dim(2);
    w->in_depth = shape.dim(3);
    Status s = w->Compute(padding_);
    if (!s.ok()) {
      return errors::InvalidArgument(s.message(), " (input ", shape.ToString(),
                                     ")");
    }
    *out_shape = TensorShape({w->batch, w->out_rows, w->out_cols, w->in_depth});
    return Status::OK();
  }

  Window2D window_;
  std::string padding_;
};

#ifdef __AVX512F__
// Float pixels as masked AVX-512 vectors of 16 channels (a shorter masked
// one for the last): each window tap of a channel chunk is one compare and
// one blend.
bool FitsOneVector(const Window2D& w, float) { return w.in_depth <= 16; }
template <typename T>
bool FitsOneVector(const Window2D&, T) {
  return false;
}

void MaxPoolImageVector(const Window2D& w, const float* in, float* out) {
  const int64_t c = w.in_depth;
  const __mmask16 mask = static_cast<__mmask16>((1u << c) - 1);
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      const Span s = WindowOf(w, oy, ox);
      __m512 best =
          _mm512_maskz_loadu_ps(mask, in + (s.y0 * w.in_cols + s.x0) * c);
      for (int64_t y = s.y0; y < s.y1; ++y) {
        for (int64_t x = s.x0; x < s.x1; ++x) {
          best = _mm512_max_ps(
              best, _mm512_maskz_loadu_ps(mask, in + (y * w.in_cols + x) * c));
        }
      }
      _mm512_mask_storeu_ps(out + (oy * w.out_cols + ox) * c, mask, best);
    }
  }
}

#endif  // __AVX512F__

// The machine's vectors (GCC vector types: AVX-512, AVX2 or SSE) of float
// channels and of the int32 taps that hold their maxima.
#if defined(__AVX512F__)
constexpr int kPoolVecBytes = 64;
#elif defined(__AVX__)
constexpr int kPoolVecBytes = 32;
#else
constexpr int kPoolVecBytes = 16;
#endif
typedef float PoolFloats __attribute__((vector_size(kPoolVecBytes)));
typedef int32_t PoolTaps __attribute__((vector_size(kPoolVecBytes)));
constexpr int kPoolLanes = kPoolVecBytes / sizeof(float);

// Any number of channels, a vector at a time (the last channels one by one).
// `offsets` holds window_rows * window_cols entries.
void MaxPoolGradImageVector(const Window2D& w, const float* in,
                            const float* grad, float* din, int64_t* offsets) {
  const int64_t c = w.in_depth;
  // Windows that do not overlap (stride >= window, the common 2x2/2) write
  // each of their pixels once: the gradient at the first maximum, zeros
  // elsewhere, as whole vectors. Pixels no window covers still need zeros.
  const bool disjoint =
      w.stride_rows >= w.window_rows && w.stride_cols >= w.window_cols;
  const bool tiled = disjoint && w.pad_rows == 0 && w.pad_cols == 0 &&
                     w.stride_rows == w.window_rows &&
                     w.stride_cols == w.window_cols &&
                     w.out_rows * w.stride_rows == w.in_rows &&
                     w.out_cols * w.stride_cols == w.in_cols;
  if (!tiled) std::fill(din, din + w.in_rows * w.in_cols * c, 0.0f);
  auto load = [](const float* p) {
    PoolFloats v;
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  // A window inside the image has its taps at fixed offsets from its corner.
  const int64_t kh = w.window_rows, kw = w.window_cols;
  int64_t corner_offsets[64];
  const bool by_corner = kh * kw <= 64;
  for (int64_t t = 0; by_corner && t < kh * kw; ++t) {
    corner_offsets[t] = ((t / kw) * w.in_cols + t % kw) * c;
  }
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    const int64_t y = oy * w.stride_rows - w.pad_rows;
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      const int64_t x = ox * w.stride_cols - w.pad_cols;
      int32_t n = 0;
      if (by_corner && y >= 0 && x >= 0 && y + kh <= w.in_rows &&
          x + kw <= w.in_cols) {
        const int64_t corner = (y * w.in_cols + x) * c;
        for (; n < kh * kw; ++n) offsets[n] = corner + corner_offsets[n];
      } else {
        const Span s = WindowOf(w, oy, ox);
        for (int64_t yy = s.y0; yy < s.y1; ++yy) {
          for (int64_t xx = s.x0; xx < s.x1; ++xx) {
            offsets[n++] = (yy * w.in_cols + xx) * c;
          }
        }
      }
      const float* g = grad + (oy * w.out_cols + ox) * c;
      int64_t c0 = 0;
      for (; c0 + kPoolLanes <= c; c0 += kPoolLanes) {
        PoolFloats best = load(in + offsets[0] + c0);
        PoolTaps where = PoolTaps{};
        for (int32_t t = 1; t < n; ++t) {
          const PoolFloats v = load(in + offsets[t] + c0);
          // Strictly greater: the first maximum keeps its tap.
          const PoolTaps better = v > best;
          best = better ? v : best;
          where = better ? PoolTaps{} + t : where;
        }
        const PoolFloats gv = load(g + c0);
        if (disjoint) {
          for (int32_t t = 0; t < n; ++t) {
            const PoolFloats out = where == t ? gv : PoolFloats{};
            std::memcpy(din + offsets[t] + c0, &out, sizeof(out));
          }
          continue;
        }
        for (int i = 0; i < kPoolLanes; ++i) {
          din[offsets[where[i]] + c0 + i] += gv[i];
        }
      }
      for (; c0 < c; ++c0) {  // the last channels
        int32_t at = 0;
        for (int32_t t = 1; t < n; ++t) {
          if (in[offsets[t] + c0] > in[offsets[at] + c0]) at = t;
        }
        if (disjoint) {
          for (int32_t t = 0; t < n; ++t) {
            din[offsets[t] + c0] = t == at ? g[c0] : 0.0f;
          }
        } else {
          din[offsets[at] + c0] += g[c0];
        }
      }
    }
  }
}

template <typename T>
void MaxPoolImage(const Window2D& w, const T* in, T* out) {
#ifdef __AVX512F__
  if constexpr (std::is_same_v<T, float>) {
    if (FitsOneVector(w, T())) return MaxPoolImageVector(w, in, out);
  }
#endif
  const int64_t c = w.in_depth;
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      const Span s = WindowOf(w, oy, ox);
      T* o = out + (oy * w.out_cols + ox) * c;
      const T* first = in + (s.y0 * w.in_cols + s.x0) * c;
      for (int64_t i = 0; i < c; ++i) o[i] = first[i];
      for (int64_t y = s.y0; y < s.y1; ++y) {
        for (int64_t x = s.x0; x < s.x1; ++x) {
          const T* p = in + (y * w.in_cols + x) * c;
          for (int64_t i = 0; i < c; ++i) o[i] = p[i] > o[i] ? p[i] : o[i];
        }
      }
    }
  }
}

template <typename T>
void AvgPoolImage(const Window2D& w, const T* in, T* out) {
  const int64_t c = w.in_depth;
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      const Span s = WindowOf(w, oy, ox);
      T* o = out + (oy * w.out_cols + ox) * c;
      std::fill(o, o + c, T(0));
      for (int64_t y = s.y0; y < s.y1; ++y) {
        for (int64_t x = s.x0; x < s.x1; ++x) {
          const T* p = in + (y * w.in_cols + x) * c;
          for (int64_t i = 0; i < c; ++i) o[i] += p[i];
        }
      }
      const T scale = T(1) / static_cast<T>(s.count());
      for (int64_t i = 0; i < c; ++i) o[i] *= scale;
    }
  }
}

// Each output's grad goes to the first maximum of its window (scan order).
// Channel by channel, so that the running maximum and its offset stay in
// registers (channels are few in the layers this is tuned for; a
// channel-inner loop kept them in memory and ran 5x slower).
template <typename T>
void MaxPoolGradImage(const Window2D& w, const T* in, const T* grad, T* din,
                      int64_t* offsets) {
  if constexpr (std::is_same_v<T, float>) {
    return MaxPoolGradImageVector(w, in, grad, din, offsets);
  }
  const int64_t c = w.in_depth;
  std::fill(din, din + w.in_rows * w.in_cols * c, T(0));
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      const Span s = WindowOf(w, oy, ox);
      int64_t taps = 0;
      for (int64_t y = s.y0; y < s.y1; ++y) {
        for (int64_t x = s.x0; x < s.x1; ++x) {
          offsets[taps++] = (y * w.in_cols + x) * c;
        }
      }
      const T* g = grad + (oy * w.out_cols + ox) * c;
      for (int64_t i = 0; i < c; ++i) {
        T best = in[offsets[0] + i];
        int64_t where = offsets[0];
        for (int64_t t = 1; t < taps; ++t) {
          // Branch-free: with random data a branch mispredicts half the time.
          const T v = in[offsets[t] + i];
          const bool better = v > best;
          best = better ? v : best;
          where = better ? offsets[t] : where;
        }
        din[where + i] += g[i];
      }
    }
  }
}

template <typename T>
void AvgPoolGradImage(const Window2D& w, const T* grad, T* din) {
  const int64_t c = w.in_depth;
  std::fill(din, din + w.in_rows * w.in_cols * c, T(0));
  for (int64_t oy = 0; oy < w.out_rows; ++oy) {
    for (int64_t ox = 0; ox < w.out_cols; ++ox) {
      const Span s = WindowOf(w, oy, ox);
      const T scale = T(1) / static_cast<T>(s.count());
      const T* g = grad + (oy * w.out_cols + ox) * c;
      for (int64_t y = s.y0; y < s.y1; ++y) {
        for (int64_t x = s.x0; x < s.x1; ++x) {
          T* p = din + (y * w.in_cols + x) * c;
          for (int64_t i = 0; i < c; ++i) p[i] += g[i] * scale;
        }
      }
    }
  }
}

template <bool kMax>
class PoolOp : public PoolOpBase {
 public:
  using PoolOpBase::PoolOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Window2D w;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, Geometry(input.shape(), &w, &out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    const int64_t in_image = w.in_rows * w.in_cols * w.in_depth;
    const int64_t out_image = w.out_rows * w.out_cols * w.in_depth;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          const T* in = input.data<T>();
          T* o = out->data<T>();
          ParallelForParts(
              ctx->intra_op_pool(), w.batch, [&](int, int64_t n0, int64_t n1) {
                for (int64_t n = n0; n < n1; ++n) {
                  if (kMax) {
                    MaxPoolImage(w, in + n * in_image, o + n * out_image);
                  } else {
                    AvgPoolImage(w, in + n * in_image, o + n * out_image);
                  }
                }
              });
          return Status::OK();
        }));
  }
};

class MaxPoolGradOp : public PoolOpBase {
 public:
  using PoolOpBase::PoolOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& output = ctx->input(1);
    const Tensor& grad = ctx->input(2);
    Window2D w;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, Geometry(input.shape(), &w, &out_shape));
    OP_REQUIRES(ctx, output.shape() == out_shape && grad.shape() == out_shape,
                errors::InvalidArgument(
                    "orig_output and grad must have the pooled shape ",
                    out_shape.ToString(), ", got ", output.shape().ToString(),
                    " and ", grad.shape().ToString()));
    Tensor* din;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &din));
    const int64_t in_image = w.in_rows * w.in_cols * w.in_depth;
    const int64_t out_image = w.out_rows * w.out_cols * w.in_depth;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          if (out_shape.num_elements() == 0) {
            std::fill(din->data<T>(), din->data<T>() + din->num_elements(),
                      T(0));
            return Status::OK();
          }
          ParallelForParts(
              ctx->intra_op_pool(), w.batch, [&](int, int64_t n0, int64_t n1) {
                std::vector<int64_t> offsets(w.window_rows * w.window_cols);
                for (int64_t n = n0; n < n1; ++n) {
                  MaxPoolGradImage(w, input.data<T>() + n * in_image,
                                   grad.data<T>() + n * out_image,
                                   din->data<T>() + n * in_image,
                                   offsets.data());
                }
              });
          return Status::OK();
        }));
  }
};

class AvgPoolGradOp : public PoolOpBase {
 public:
  using PoolOpBase::PoolOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(1);
    std::vector<int64_t> dims;
    Status s = ReadIndexVector(ctx->input(0), &dims);
    OP_REQUIRES(ctx, s.ok() && dims.size() == 4,
                errors::InvalidArgument(
                    "orig_input_shape must be a vector of 4 sizes, got ",
                    ctx->input(0).DebugString()));
    TensorShape in_shape, out_shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &in_shape));
    Window2D w;
    OP_REQUIRES_OK(ctx, Geometry(in_shape, &w, &out_shape));
    OP_REQUIRES(ctx, grad.shape() == out_shape,
                errors::InvalidArgument("grad must have the pooled shape ",
                                        out_shape.ToString(), ", got ",
                                        grad.shape().ToString()));
    Tensor* din;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &din));
    const int64_t in_image = w.in_rows * w.in_cols * w.in_depth;
    const int64_t out_image = w.out_rows * w.out_cols * w.in_depth;
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(grad.dtype(), [&](auto t) {
                     using T = decltype(t);
                     if (out_shape.num_elements() == 0) {
                       std::fill(din->data<T>(),
                                 din->data<T>() + din->num_elements(), T(0));
                       return Status::OK();
                     }
                     ParallelForParts(ctx->intra_op_pool(), w.batch,
                                      [&](int, int64_t n0, int64_t n1) {
                                        for (int64_t n = n0; n < n1; ++n) {
                                          AvgPoolGradImage(
                                              w, grad.data<T>() + n * out_image,
                                              din->data<T>() + n * in_image);
                                        }
                                      });
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("MaxPool"), PoolOp<true>);
REGISTER_KERNEL(KernelDef("AvgPool"), PoolOp<false>);
REGISTER_KERNEL(KernelDef("MaxPoolGrad"), MaxPoolGradOp);
REGISTER_KERNEL(KernelDef("AvgPoolGrad"), AvgPoolGradOp);

}  // namespace
}  // namespace tensorweave
