// GPU MaxPool, AvgPool and their backprops (NHWC, SAME/VALID, as the CPU
// kernels in core/kernels/pooling_ops.cc). One thread per output element
// for the forward ops; the backprops gather (one thread per input element,
// summing the windows that cover it) so that they need no atomics and are
// deterministic. MaxPoolGrad follows the CPU's tie rule: each window's grad
// goes to the FIRST maximum in scan order (rows, then columns). Where the
// windows do not overlap (stride >= window: the 2x2/2 pools of CNNs) each
// input element is in at most one window, and MaxPoolGrad scatters instead:
// one thread per window finds its first maximum once and writes its whole
// window (4x fewer window scans than gathering). Indices are 32-bit where
// the tensors allow (64-bit division is slow on a GPU).
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/framework/window_geometry.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"

namespace tensorweave {
namespace gpu {
namespace {

struct PoolGeom {
  int64_t batch, in_rows, in_cols, depth, out_rows, out_cols;
  int64_t window_rows, window_cols, stride_rows, stride_cols, pad_rows,
      pad_cols;
};

PoolGeom ToGeom(const Window2D& w) {
  return {w.batch,       w.in_rows,     w.in_cols,     w.in_depth,
          w.out_rows,    w.out_cols,    w.window_rows, w.window_cols,
          w.stride_rows, w.stride_cols, w.pad_rows,    w.pad_cols};
}

// The in-bounds window [y0, y1) x [x0, x1) of output pixel (oy, ox).
__device__ inline void WindowOf(const PoolGeom& g, int64_t oy, int64_t ox,
                                int64_t* y0, int64_t* y1, int64_t* x0,
                                int64_t* x1) {
  const int64_t y = oy * g.stride_rows - g.pad_rows;
  const int64_t x = ox * g.stride_cols - g.pad_cols;
  *y0 = y > 0 ? y : 0;
  *y1 = y + g.window_rows < g.in_rows ? y + g.window_rows : g.in_rows;
  *x0 = x > 0 ? x : 0;
  *x1 = x + g.window_cols < g.in_cols ? x + g.window_cols : g.in_cols;
}

// Index of the first maximum of the window of output (n, oy, ox, c), as
// the offset of an input element (the CPU's scan: strictly greater wins).
template <typename T>
__device__ inline int64_t FirstMax(const PoolGeom& g, const T* in, int64_t n,
                                   int64_t oy, int64_t ox, int64_t c) {
  int64_t y0, y1, x0, x1;
  WindowOf(g, oy, ox, &y0, &y1, &x0, &x1);
  int64_t where = ((n * g.in_rows + y0) * g.in_cols + x0) * g.depth + c;
  T best = in[where];
  for (int64_t y = y0; y < y1; ++y) {
    for (int64_t x = x0; x < x1; ++x) {
      const int64_t at = ((n * g.in_rows + y) * g.in_cols + x) * g.depth + c;
      const T v = in[at];
      if (v > best) {
        best = v;
        where = at;
      }
    }
  }
  return where;
}

// (n, oy, ox, c) of element i of the pooled [batch, out_rows, out_cols,
// depth] tensor, in Index arithmetic.
template <typename Index>
__device__ inline void PooledPosition(const PoolGeom& g, Index i, Index* n,
                                      Index* oy, Index* ox, Index* c) {
  const Index depth = g.depth, out_cols = g.out_cols, out_rows = g.out_rows;
  *c = i % depth;
  Index rest = i / depth;
  *ox = rest % out_cols;
  rest /= out_cols;
  *oy = rest % out_rows;
  *n = rest / out_rows;
}

template <typename T, bool kMax, typename Index>
__global__ void PoolForwardKernel(PoolGeom g, const T* in, T* out,
                                  Index total) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += blockDim.x * gridDim.x) {
    Index n, oy, ox, c;
    PooledPosition(g, i, &n, &oy, &ox, &c);
    if (kMax) {
      out[i] = in[FirstMax(g, in, n, oy, ox, c)];
    } else {
      int64_t y0, y1, x0, x1;
      WindowOf(g, oy, ox, &y0, &y1, &x0, &x1);
      T sum = T(0);
      for (int64_t y = y0; y < y1; ++y) {
        for (int64_t x = x0; x < x1; ++x) {
          sum += in[((n * g.in_rows + y) * g.in_cols + x) * g.depth + c];
        }
      }
      out[i] = sum * (T(1) / static_cast<T>((y1 - y0) * (x1 - x0)));
    }
  }
}

// The outputs whose windows (unclipped) cover input row y: [lo, hi].
__device__ inline void Covering(int64_t y, int64_t window, int64_t stride,
                                int64_t pad, int64_t out_size, int64_t* lo,
                                int64_t* hi) {
  // oy * stride - pad <= y < oy * stride - pad + window
  const int64_t a = y + pad - window + 1;  // oy * stride >= a
  *lo = a <= 0 ? 0 : (a + stride - 1) / stride;
  *hi = (y + pad) / stride;  // y + pad >= 0 always
  if (*hi > out_size - 1) *hi = out_size - 1;
}

// din[n, y, x, c] = sum of grad over the windows whose first maximum is
// (y, x): window outputs in scan order, so the sum's order is fixed.
template <typename T>
__global__ void MaxPoolGradKernel(PoolGeom g, const T* in, const T* grad,
                                  T* din, int64_t total) {
  TW_GPU_LOOP(i, total) {
    const int64_t c = i % g.depth;
    int64_t rest = i / g.depth;
    const int64_t x = rest % g.in_cols;
    rest /= g.in_cols;
    const int64_t y = rest % g.in_rows;
    const int64_t n = rest / g.in_rows;
    int64_t oy0, oy1, ox0, ox1;
    Covering(y, g.window_rows, g.stride_rows, g.pad_rows, g.out_rows, &oy0,
             &oy1);
    Covering(x, g.window_cols, g.stride_cols, g.pad_cols, g.out_cols, &ox0,
             &ox1);
    T sum = T(0);
    for (int64_t oy = oy0; oy <= oy1; ++oy) {
      for (int64_t ox = ox0; ox <= ox1; ++ox) {
        if (FirstMax(g, in, n, oy, ox, c) == i) {
          sum += grad[((n * g.out_rows + oy) * g.out_cols + ox) * g.depth + c];
        }
      }
    }
    din[i] = sum;
  }
}

// Windows that do not overlap: the thread of output (n, oy, ox, c) writes
// grad to its window's first maximum and 0 to the rest of its window (input
// elements in no window are zeroed before, where there are any).
template <typename T, typename Index>
__global__ void MaxPoolGradScatterKernel(PoolGeom g, const T* in, const T* grad,
                                         T* din, Index total) {
  for (Index i = blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += blockDim.x * gridDim.x) {
    Index n, oy, ox, c;
    PooledPosition(g, i, &n, &oy, &ox, &c);
    int64_t y0, y1, x0, x1;
    WindowOf(g, oy, ox, &y0, &y1, &x0, &x1);
    const Index depth = g.depth;
    const Index row = static_cast<Index>(g.in_cols) * depth;
    const Index base = (n * static_cast<Index>(g.in_rows) + Index(y0)) * row +
                       Index(x0) * depth + c;
    const Index h = Index(y1 - y0), w = Index(x1 - x0);
    Index best_at = base;
    T best = in[base];
    for (Index y = 0; y < h; ++y) {
      for (Index x = 0; x < w; ++x) {
        const Index at = base + y * row + x * depth;
        const T v = in[at];
        if (v > best) {
          best = v;
          best_at = at;
        }
      }
    }
    const T dy = grad[i];
    for (Index y = 0; y < h; ++y) {
      for (Index x = 0; x < w; ++x) {
        const Index at = base + y * row + x * depth;
        din[at] = at == best_at ? dy : T(0);
      }
    }
  }
}

template <typename T>
__global__ void AvgPoolGradKernel(PoolGeom g, const T* grad, T* din,
                                  int64_t total) {
  TW_GPU_LOOP(i, total) {
    const int64_t c = i % g.depth;
    int64_t rest = i / g.depth;
    const int64_t x = rest % g.in_cols;
    rest /= g.in_cols;
    const int64_t y = rest % g.in_rows;
    const int64_t n = rest / g.in_rows;
    int64_t oy0, oy1, ox0, ox1;
    Covering(y, g.window_rows, g.stride_rows, g.pad_rows, g.out_rows, &oy0,
             &oy1);
    Covering(x, g.window_cols, g.stride_cols, g.pad_cols, g.out_cols, &ox0,
             &ox1);
    T sum = T(0);
    for (int64_t oy = oy0; oy <= oy1; ++oy) {
      for (int64_t ox = ox0; ox <= ox1; ++ox) {
        int64_t y0, y1, x0, x1;
        WindowOf(g, oy, ox, &y0, &y1, &x0, &x1);
        const T scale = T(1) / static_cast<T>((y1 - y0) * (x1 - x0));
        sum += grad[((n * g.out_rows + oy) * g.out_cols + ox) * g.depth + c] *
               scale;
      }
    }
    din[i] = sum;
  }
}

// Attrs and geometry, with the CPU kernels' checks and messages.
class PoolGpuBase : public OpKernel {
 public:
  explicit PoolGpuBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
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

 protected:
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

template <typename T>
Status ZeroFill(GpuDevice* device, Tensor* t) {
  if (t->num_elements() == 0) return Status::OK();
  return CudaStatus(
      cudaMemsetAsync(t->raw_data(), 0, t->num_bytes(), device->stream()),
      "cudaMemsetAsync");
}

template <bool kMax>
class PoolGpuOp : public PoolGpuBase {
 public:
  using PoolGpuBase::PoolGpuBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    Window2D w;
    TensorShape out_shape;
    OP_REQUIRES_OK(ctx, Geometry(input.shape(), &w, &out_shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t total = out->num_elements();
    if (total == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          if (input.num_elements() <= INT32_MAX) {
            PoolForwardKernel<T, kMax, int32_t>
                <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                    ToGeom(w), input.data<T>(), out->data<T>(),
                    static_cast<int32_t>(total));
          } else {
            PoolForwardKernel<T, kMax, int64_t>
                <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                    ToGeom(w), input.data<T>(), out->data<T>(), total);
          }
          return CheckLaunch(device, kMax ? "MaxPool" : "AvgPool");
        }));
  }
};

class MaxPoolGradGpuOp : public PoolGpuBase {
 public:
  using PoolGpuBase::PoolGpuBase;
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
    const int64_t total = din->num_elements();
    if (total == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          if (out_shape.num_elements() == 0) return ZeroFill<T>(device, din);
          if (w.stride_rows >= w.window_rows &&
              w.stride_cols >= w.window_cols) {
            // Every input element in exactly one window: no zeroing.
            const bool tiled = w.stride_rows == w.window_rows &&
                               w.stride_cols == w.window_cols &&
                               w.pad_rows == 0 && w.pad_cols == 0 &&
                               w.out_rows * w.stride_rows == w.in_rows &&
                               w.out_cols * w.stride_cols == w.in_cols;
            if (!tiled) TW_RETURN_IF_ERROR(ZeroFill<T>(device, din));
            const int64_t windows = out_shape.num_elements();
            if (total <= INT32_MAX) {
              MaxPoolGradScatterKernel<T, int32_t>
                  <<<BlocksFor(windows), kThreadsPerBlock, 0,
                     device->stream()>>>(ToGeom(w), input.data<T>(),
                                         grad.data<T>(), din->data<T>(),
                                         static_cast<int32_t>(windows));
            } else {
              MaxPoolGradScatterKernel<T, int64_t>
                  <<<BlocksFor(windows), kThreadsPerBlock, 0,
                     device->stream()>>>(ToGeom(w), input.data<T>(),
                                         grad.data<T>(), din->data<T>(),
                                         windows);
            }
            return CheckLaunch(device, "MaxPoolGrad(scatter)");
          }
          MaxPoolGradKernel<T>
              <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                  ToGeom(w), input.data<T>(), grad.data<T>(), din->data<T>(),
                  total);
          return CheckLaunch(device, "MaxPoolGrad");
        }));
  }
};

class AvgPoolGradGpuOp : public PoolGpuBase {
 public:
  using PoolGpuBase::PoolGpuBase;
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
    const int64_t total = din->num_elements();
    if (total == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(grad.dtype(), [&](auto t) {
          using T = decltype(t);
          if (out_shape.num_elements() == 0) return ZeroFill<T>(device, din);
          AvgPoolGradKernel<T>
              <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                  ToGeom(w), grad.data<T>(), din->data<T>(), total);
          return CheckLaunch(device, "AvgPoolGrad");
        }));
  }
};

#define TW_POOL_TYPES TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
REGISTER_KERNEL(KernelDef("MaxPool").Device(DEVICE_GPU).TW_POOL_TYPES,
                PoolGpuOp<true>);
REGISTER_KERNEL(KernelDef("AvgPool").Device(DEVICE_GPU).TW_POOL_TYPES,
                PoolGpuOp<false>);
REGISTER_KERNEL(KernelDef("MaxPoolGrad").Device(DEVICE_GPU).TW_POOL_TYPES,
                MaxPoolGradGpuOp);
REGISTER_KERNEL(KernelDef("AvgPoolGrad")
                    .Device(DEVICE_GPU)
                    .TW_POOL_TYPES.HostMemoryInput(0),
                AvgPoolGradGpuOp);
#undef TW_POOL_TYPES

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
