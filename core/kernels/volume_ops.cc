// Conv3D, its backprops, MaxPool3D, AvgPool3D and their backprops (NDHWC,
// DHWIO filters): plain reference loops over each image's window taps,
// images split over the intra-op pool where their outputs are disjoint.
#include <algorithm>
#include <limits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/framework/window_geometry.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace {

// The geometry of one NDHWC windowed op with a 3-D window.
struct Window3D {
  int64_t batch = 0, depth = 0;  // depth: input channels
  int64_t in[3] = {0, 0, 0}, window[3] = {1, 1, 1}, stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1}, out[3] = {0, 0, 0}, pad[3] = {0, 0, 0};

  int64_t in_size() const { return in[0] * in[1] * in[2]; }
  int64_t out_size() const { return out[0] * out[1] * out[2]; }
  int64_t taps() const { return window[0] * window[1] * window[2]; }

  Status Compute(const TensorShape& input, const std::string& padding) {
    if (input.rank() != 5) {
      return errors::InvalidArgument("input must be 5-D [N,D,H,W,C], got ",
                                     input.ToString());
    }
    batch = input.dim(0);
    depth = input.dim(4);
    for (int i = 0; i < 3; ++i) {
      in[i] = input.dim(i + 1);
      Status s = WindowedOutputSize(in[i], window[i], stride[i], dilation[i],
                                    padding, &out[i], &pad[i]);
      if (!s.ok()) {
        return errors::InvalidArgument(s.message(), " (input ",
                                       input.ToString(), ")");
      }
    }
    return Status::OK();
  }
};

// Calls fn(out_pixel, tap, in_pixel) for each output pixel of one image and
// each window tap inside the input (pixels and taps as flat indices).
template <typename Fn>
void ForEachVolumeTap(const Window3D& w, Fn fn) {
  for (int64_t od = 0; od < w.out[0]; ++od) {
    for (int64_t oh = 0; oh < w.out[1]; ++oh) {
      for (int64_t ow = 0; ow < w.out[2]; ++ow) {
        const int64_t o = (od * w.out[1] + oh) * w.out[2] + ow;
        for (int64_t kd = 0; kd < w.window[0]; ++kd) {
          const int64_t id = od * w.stride[0] + kd * w.dilation[0] - w.pad[0];
          if (id < 0 || id >= w.in[0]) continue;
          for (int64_t kh = 0; kh < w.window[1]; ++kh) {
            const int64_t ih = oh * w.stride[1] + kh * w.dilation[1] - w.pad[1];
            if (ih < 0 || ih >= w.in[1]) continue;
            for (int64_t kw = 0; kw < w.window[2]; ++kw) {
              const int64_t iw =
                  ow * w.stride[2] + kw * w.dilation[2] - w.pad[2];
              if (iw < 0 || iw >= w.in[2]) continue;
              fn(o, (kd * w.window[1] + kh) * w.window[2] + kw,
                 (id * w.in[1] + ih) * w.in[2] + iw);
            }
          }
        }
      }
    }
  }
}

// Runs fn(image) for each image, over the pool when there is one.
void ForEachImage(OpKernelContext* ctx, int64_t batch,
                  const std::function<void(int64_t)>& fn) {
  ThreadPool* pool = ctx->intra_op_pool();
  if (pool == nullptr || batch < 2) {
    for (int64_t b = 0; b < batch; ++b) fn(b);
    return;
  }
  pool->ParallelFor(batch, 1, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) fn(b);
  });
}

Status CheckNdhwcAttr(const std::vector<int64_t>& values, const char* what) {
  if (values.size() != 5) {
    return errors::InvalidArgument(what, " must have 5 elements, got ",
                                   values.size());
  }
  for (int64_t v : values) {
    if (v <= 0) {
      return errors::InvalidArgument(what, " must be positive, got ", v);
    }
  }
  if (values[0] != 1 || values[4] != 1) {
    return errors::Unimplemented(
        what, " in the batch and depth dimensions must be 1 (NDHWC), got [",
        values[0], ",", values[1], ",", values[2], ",", values[3], ",",
        values[4], "]");
  }
  return Status::OK();
}

class Volume3DOpBase : public OpKernel {
 public:
  Volume3DOpBase(OpKernelConstruction* ctx, const char* window_attr)
      : OpKernel(ctx) {
    std::vector<int64_t> strides, window = {1, 1, 1, 1, 1},
                                  dilations = {1, 1, 1, 1, 1};
    std::string data_format;
    ctx->SetStatus(ctx->GetAttr("strides", &strides));
    ctx->SetStatus(ctx->GetAttr("padding", &padding_));
    ctx->SetStatus(ctx->GetAttr("data_format", &data_format));
    if (window_attr != nullptr) {
      ctx->SetStatus(ctx->GetAttr(window_attr, &window));
    } else {
      ctx->SetStatus(ctx->GetAttr("dilations", &dilations));
    }
    if (!ctx->status().ok()) return;
    if (data_format != "NDHWC") {
      ctx->SetStatus(errors::InvalidArgument(
          "only data_format NDHWC is supported on CPU, got ", data_format));
      return;
    }
    ctx->SetStatus(CheckNdhwcAttr(strides, "strides"));
    ctx->SetStatus(CheckNdhwcAttr(window, window_attr ? "ksize" : "strides"));
    ctx->SetStatus(CheckNdhwcAttr(dilations, "dilations"));
    for (int i = 0; i < 3; ++i) {
      window_.stride[i] = strides[i + 1];
      window_.window[i] = window[i + 1];
      window_.dilation[i] = dilations[i + 1];
    }
  }
  bool IsExpensive() const override { return true; }

 protected:
  // The geometry of a convolution of `input` by `filter`; its output shape.
  Status ConvGeometry(const TensorShape& input, const TensorShape& filter,
                      Window3D* w, TensorShape* out_shape) const {
    if (filter.rank() != 5) {
      return errors::InvalidArgument("filter must be 5-D [KD,KH,KW,C,M], got ",
                                     filter.ToString());
    }
    if (input.rank() == 5 && input.dim(4) != filter.dim(3)) {
      return errors::InvalidArgument(
          "input depth ", input.dim(4), " does not match the filter's ",
          filter.dim(3), " input channels (input ", input.ToString(),
          ", filter ", filter.ToString(), ")");
    }
    *w = window_;
    for (int i = 0; i < 3; ++i) w->window[i] = filter.dim(i);
    TW_RETURN_IF_ERROR(w->Compute(input, padding_));
    *out_shape =
        TensorShape({w->batch, w->out[0], w->out[1], w->out[2], filter.dim(4)});
    return Status::OK();
  }

  Status PoolGeometry(const TensorShape& input, Window3D* w,
                      TensorShape* out_shape) const {
    *w = window_;
    TW_RETURN_IF_ERROR(w->Compute(input, padding_));
    *out_shape =
        TensorShape({w->batch, w->out[0], w->out[1], w->out[2], w->depth});
    return Status::OK();
  }

  static Status Sizes(const Tensor& sizes, const char* what,
                      TensorShape* shape) {
    std::vector<int64_t> dims;
    Status s = ReadIndexVector(sizes, &dims);
    if (!s.ok() || dims.size() != 5) {
      return errors::InvalidArgument(what, " must be a vector of 5 sizes, got ",
                                     sizes.DebugString());
    }
    return TensorShape::Build(dims, shape);
  }

  static Status CheckGrad(const Tensor& grad, const TensorShape& expected,
                          const char* what) {
    if (grad.shape() != expected) {
      return errors::InvalidArgument(
          what, " has shape ", grad.shape().ToString(),
          " but the op's output has shape ", expected.ToString());
    }
    return Status::OK();
  }

  Window3D window_;
  std::string padding_;
};

class Conv3DOp : public Volume3DOpBase {
 public:
  explicit Conv3DOp(OpKernelConstruction* ctx) : Volume3DOpBase(ctx, nullptr) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Window3D w;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx,
                   ConvGeometry(input.shape(), filter.shape(), &w, &out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t c_in = w.depth, c_out = filter.dim(4);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          const T* x = input.data<T>();
          const T* f = filter.data<T>();
          T* y = out->data<T>();
          ForEachImage(ctx, w.batch, [&](int64_t b) {
            const T* xb = x + b * w.in_size() * c_in;
            T* yb = y + b * w.out_size() * c_out;
            std::fill(yb, yb + w.out_size() * c_out, T(0));
            ForEachVolumeTap(w, [&](int64_t o, int64_t k, int64_t i) {
              T* yo = yb + o * c_out;
              const T* xi = xb + i * c_in;
              const T* fk = f + k * c_in * c_out;
              for (int64_t c = 0; c < c_in; ++c) {
                const T v = xi[c];
                const T* fc = fk + c * c_out;
                for (int64_t m = 0; m < c_out; ++m) yo[m] += v * fc[m];
              }
            });
          });
          return Status::OK();
        }));
  }
};

class Conv3DBackpropInputOp : public Volume3DOpBase {
 public:
  explicit Conv3DBackpropInputOp(OpKernelConstruction* ctx)
      : Volume3DOpBase(ctx, nullptr) {}
  void Compute(OpKernelContext* ctx) override {
    TensorShape in_shape, out_shape;
    OP_REQUIRES_OK(ctx, Sizes(ctx->input(0), "input_sizes", &in_shape));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    Window3D w;
    OP_REQUIRES_OK(ctx, ConvGeometry(in_shape, filter.shape(), &w, &out_shape));
    OP_REQUIRES_OK(ctx, CheckGrad(dy, out_shape, "out_backprop"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    const int64_t c_in = w.depth, c_out = filter.dim(4);
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(dy.dtype(), [&](auto t) {
                     using T = decltype(t);
                     const T* f = filter.data<T>();
                     const T* g = dy.data<T>();
                     T* dx = out->data<T>();
                     ForEachImage(ctx, w.batch, [&](int64_t b) {
                       const T* gb = g + b * w.out_size() * c_out;
                       T* dxb = dx + b * w.in_size() * c_in;
                       std::fill(dxb, dxb + w.in_size() * c_in, T(0));
                       ForEachVolumeTap(w,
                                        [&](int64_t o, int64_t k, int64_t i) {
                                          const T* go = gb + o * c_out;
                                          T* di = dxb + i * c_in;
                                          const T* fk = f + k * c_in * c_out;
                                          for (int64_t c = 0; c < c_in; ++c) {
                                            const T* fc = fk + c * c_out;
                                            T sum = 0;
                                            for (int64_t m = 0; m < c_out; ++m)
                                              sum += go[m] * fc[m];
                                            di[c] += sum;
                                          }
                                        });
                     });
                     return Status::OK();
                   }));
  }
};

class Conv3DBackpropFilterOp : public Volume3DOpBase {
 public:
  explicit Conv3DBackpropFilterOp(OpKernelConstruction* ctx)
      : Volume3DOpBase(ctx, nullptr) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    TensorShape filter_shape, out_shape;
    OP_REQUIRES_OK(ctx, Sizes(ctx->input(1), "filter_sizes", &filter_shape));
    const Tensor& dy = ctx->input(2);
    Window3D w;
    OP_REQUIRES_OK(ctx,
                   ConvGeometry(input.shape(), filter_shape, &w, &out_shape));
    OP_REQUIRES_OK(ctx, CheckGrad(dy, out_shape, "out_backprop"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    const int64_t c_in = w.depth, c_out = filter_shape.dim(4);
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(dy.dtype(), [&](auto t) {
                     using T = decltype(t);
                     const T* x = input.data<T>();
                     const T* g = dy.data<T>();
                     T* df = out->data<T>();
                     std::fill(df, df + out->num_elements(), T(0));
                     for (int64_t b = 0; b < w.batch; ++b) {
                       const T* xb = x + b * w.in_size() * c_in;
                       const T* gb = g + b * w.out_size() * c_out;
                       ForEachVolumeTap(w,
                                        [&](int64_t o, int64_t k, int64_t i) {
                                          const T* go = gb + o * c_out;
                                          const T* xi = xb + i * c_in;
                                          T* dk = df + k * c_in * c_out;
                                          for (int64_t c = 0; c < c_in; ++c) {
                                            const T v = xi[c];
                                            T* dc = dk + c * c_out;
                                            for (int64_t m = 0; m < c_out; ++m)
                                              dc[m] += v * go[m];
                                          }
                                        });
                     }
                     return Status::OK();
                   }));
  }
};

// The first tap (in window order) holding each channel's maximum: out[o * C
// + c] is an input pixel index, one image.
template <typename T>
void ArgmaxOfImage(const Window3D& w, const T* x, std::vector<int64_t>* best) {
  const int64_t c_in = w.depth;
  best->assign(w.out_size() * c_in, -1);
  ForEachVolumeTap(w, [&](int64_t o, int64_t, int64_t i) {
    int64_t* bo = best->data() + o * c_in;
    const T* xi = x + i * c_in;
    for (int64_t c = 0; c < c_in; ++c) {
      if (bo[c] < 0 || xi[c] > x[bo[c] * c_in + c]) bo[c] = i;
    }
  });
}

template <bool kMax>
class Pool3DOp : public Volume3DOpBase {
 public:
  explicit Pool3DOp(OpKernelConstruction* ctx) : Volume3DOpBase(ctx, "ksize") {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Window3D w;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, PoolGeometry(input.shape(), &w, &out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t c_in = w.depth;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          ForEachImage(ctx, w.batch, [&](int64_t b) {
            const T* xb = input.data<T>() + b * w.in_size() * c_in;
            T* yb = out->data<T>() + b * w.out_size() * c_in;
            std::fill(yb, yb + w.out_size() * c_in,
                      kMax ? -std::numeric_limits<T>::infinity() : T(0));
            std::vector<int64_t> count(kMax ? 0 : w.out_size(), 0);
            ForEachVolumeTap(w, [&](int64_t o, int64_t, int64_t i) {
              T* yo = yb + o * c_in;
              const T* xi = xb + i * c_in;
              for (int64_t c = 0; c < c_in; ++c) {
                yo[c] = kMax ? std::max(yo[c], xi[c]) : yo[c] + xi[c];
              }
              if (!kMax) ++count[o];
            });
            for (int64_t o = 0; !kMax && o < w.out_size(); ++o) {
              for (int64_t c = 0; c < c_in; ++c) {
                yb[o * c_in + c] /=
                    static_cast<T>(std::max<int64_t>(count[o], 1));
              }
            }
          });
          return Status::OK();
        }));
  }
};

class MaxPool3DGradOp : public Volume3DOpBase {
 public:
  explicit MaxPool3DGradOp(OpKernelConstruction* ctx)
      : Volume3DOpBase(ctx, "ksize") {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    Window3D w;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, PoolGeometry(input.shape(), &w, &out_shape));
    OP_REQUIRES_OK(ctx, CheckGrad(ctx->input(1), out_shape, "orig_output"));
    OP_REQUIRES_OK(ctx, CheckGrad(grad, out_shape, "grad"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t c_in = w.depth;
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
                     using T = decltype(t);
                     ForEachImage(ctx, w.batch, [&](int64_t b) {
                       const T* xb = input.data<T>() + b * w.in_size() * c_in;
                       const T* gb = grad.data<T>() + b * w.out_size() * c_in;
                       T* dxb = out->data<T>() + b * w.in_size() * c_in;
                       std::fill(dxb, dxb + w.in_size() * c_in, T(0));
                       std::vector<int64_t> best;
                       ArgmaxOfImage(w, xb, &best);
                       for (int64_t o = 0; o < w.out_size(); ++o) {
                         for (int64_t c = 0; c < c_in; ++c) {
                           const int64_t i = best[o * c_in + c];
                           if (i >= 0) dxb[i * c_in + c] += gb[o * c_in + c];
                         }
                       }
                     });
                     return Status::OK();
                   }));
  }
};

class AvgPool3DGradOp : public Volume3DOpBase {
 public:
  explicit AvgPool3DGradOp(OpKernelConstruction* ctx)
      : Volume3DOpBase(ctx, "ksize") {}
  void Compute(OpKernelContext* ctx) override {
    TensorShape in_shape, out_shape;
    OP_REQUIRES_OK(ctx, Sizes(ctx->input(0), "orig_input_shape", &in_shape));
    const Tensor& grad = ctx->input(1);
    Window3D w;
    OP_REQUIRES_OK(ctx, PoolGeometry(in_shape, &w, &out_shape));
    OP_REQUIRES_OK(ctx, CheckGrad(grad, out_shape, "grad"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    const int64_t c_in = w.depth;
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(grad.dtype(), [&](auto t) {
                     using T = decltype(t);
                     ForEachImage(ctx, w.batch, [&](int64_t b) {
                       const T* gb = grad.data<T>() + b * w.out_size() * c_in;
                       T* dxb = out->data<T>() + b * w.in_size() * c_in;
                       std::fill(dxb, dxb + w.in_size() * c_in, T(0));
                       std::vector<int64_t> count(w.out_size(), 0);
                       ForEachVolumeTap(
                           w, [&](int64_t o, int64_t, int64_t) { ++count[o]; });
                       ForEachVolumeTap(w, [&](int64_t o, int64_t, int64_t i) {
                         const T scale = T(1) / static_cast<T>(count[o]);
                         for (int64_t c = 0; c < c_in; ++c) {
                           dxb[i * c_in + c] += gb[o * c_in + c] * scale;
                         }
                       });
                     });
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("Conv3D"), Conv3DOp);
REGISTER_KERNEL(KernelDef("Conv3DBackpropInputV2"), Conv3DBackpropInputOp);
REGISTER_KERNEL(KernelDef("Conv3DBackpropFilterV2"), Conv3DBackpropFilterOp);
REGISTER_KERNEL(KernelDef("MaxPool3D"), Pool3DOp<true>);
REGISTER_KERNEL(KernelDef("AvgPool3D"), Pool3DOp<false>);
REGISTER_KERNEL(KernelDef("MaxPool3DGrad"), MaxPool3DGradOp);
REGISTER_KERNEL(KernelDef("AvgPool3DGrad"), AvgPool3DGradOp);

}  // namespace
}  // namespace tensorweave
