// Softmax, LogSoftmax (last axis), their gradients, and the two
// cross-entropy ops on the GPU: a warp per row (8 rows per block), the row's
// max and sum of exponentials by warp shuffles, so every row is numerically
// stable (x - max). Shapes and errors as core/kernels/softmax_ops.cc.
//
// SparseSoftmaxCrossEntropyWithLogits with a label outside [0, classes):
// the CPU kernel fails with InvalidArgument, but a GPU kernel cannot see
// device-memory labels without a synchronization (which would also break
// CUDA-graph capture). As TensorFlow's GPU kernel, that row's loss and
// every element of its backprop row are NaN instead; other rows are
// unaffected.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/framework/op_kernel.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/kernels/softmax_op_shapes.h"

namespace tensorweave {
namespace gpu {
namespace {

constexpr int kWarp = 32;
constexpr int kRowsPerBlock = 8;

template <typename T>
__device__ __forceinline__ T WarpMax(T v) {
  for (int o = kWarp / 2; o > 0; o /= 2) {
    const T other = __shfl_xor_sync(0xffffffffu, v, o);
    v = other > v ? other : v;
  }
  return v;
}
template <typename T>
__device__ __forceinline__ T WarpSum(T v) {
  for (int o = kWarp / 2; o > 0; o /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, o);
  }
  return v;
}

// The row's max and log(sum(exp(x - max))).
template <typename T>
__device__ __forceinline__ void RowStats(const T* x, int64_t cols, int lane,
                                         T* max_out, T* log_sum_out,
                                         T* sum_out = nullptr) {
  T m = -INFINITY;
  for (int64_t c = lane; c < cols; c += kWarp) m = x[c] > m ? x[c] : m;
  m = WarpMax(m);
  T s = 0;
  for (int64_t c = lane; c < cols; c += kWarp) s += exp(x[c] - m);
  s = WarpSum(s);
  *max_out = m;
  *log_sum_out = log(s);
  if (sum_out != nullptr) *sum_out = s;
}

// Launch: a warp per row. The row index is uniform over the warp, so a
// warp past the last row leaves as a whole (the shuffles need all lanes).
#define TW_ROW_PROLOGUE                                                       \
  const int64_t row =                                                         \
      static_cast<int64_t>(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp; \
  const int lane = threadIdx.x % kWarp;                                       \
  if (row >= rows) return;

template <typename T, bool kLog>
__global__ void SoftmaxKernel(const T* __restrict__ x, T* __restrict__ out,
                              int64_t rows, int64_t cols) {
  TW_ROW_PROLOGUE
  const T* xr = x + row * cols;
  T* o = out + row * cols;
  T m, log_sum, sum;
  RowStats(xr, cols, lane, &m, &log_sum, &sum);
  if (kLog) {
    for (int64_t c = lane; c < cols; c += kWarp) o[c] = xr[c] - m - log_sum;
  } else {
    // As the CPU: exp(x - max) / sum, the sum's reciprocal taken once.
    const T inv = T(1) / sum;
    for (int64_t c = lane; c < cols; c += kWarp) o[c] = exp(xr[c] - m) * inv;
  }
}

// SoftmaxGrad: (g - sum(g * y)) * y. LogSoftmaxGrad: g - exp(y) * sum(g).
template <typename T, bool kLog>
__global__ void SoftmaxGradKernel(const T* __restrict__ g,
                                  const T* __restrict__ y, T* __restrict__ out,
                                  int64_t rows, int64_t cols) {
  TW_ROW_PROLOGUE
  const T* gr = g + row * cols;
  const T* yr = y + row * cols;
  T* o = out + row * cols;
  T s = 0;
  for (int64_t c = lane; c < cols; c += kWarp)
    s += kLog ? gr[c] : gr[c] * yr[c];
  s = WarpSum(s);
  for (int64_t c = lane; c < cols; c += kWarp) {
    o[c] = kLog ? gr[c] - exp(yr[c]) * s : (gr[c] - s) * yr[c];
  }
}

// Dense labels: loss = -sum(labels * log_softmax), backprop = softmax -
// labels.
template <typename T>
__global__ void XentKernel(const T* __restrict__ x, const T* __restrict__ lab,
                           T* __restrict__ loss, T* __restrict__ backprop,
                           int64_t rows, int64_t cols) {
  TW_ROW_PROLOGUE
  const T* xr = x + row * cols;
  const T* lr = lab + row * cols;
  T* b = backprop + row * cols;
  T m, log_sum;
  RowStats(xr, cols, lane, &m, &log_sum);
  T sum = 0;
  for (int64_t c = lane; c < cols; c += kWarp) {
    const T log_p = xr[c] - m - log_sum;
    if (lr[c] != T(0)) sum -= lr[c] * log_p;
    b[c] = exp(log_p) - lr[c];
  }
  sum = WarpSum(sum);
  if (lane == 0) loss[row] = sum;
}

// Class-index labels; an out-of-range label gives NaN (see the top).
template <typename T, typename L>
__global__ void SparseXentKernel(const T* __restrict__ x,
                                 const L* __restrict__ labels,
                                 T* __restrict__ loss, T* __restrict__ backprop,
                                 int64_t rows, int64_t cols) {
  TW_ROW_PROLOGUE
  const T* xr = x + row * cols;
  T* b = backprop + row * cols;
  const int64_t label = static_cast<int64_t>(labels[row]);
  if (label < 0 || label >= cols) {
    const T nan = NAN;
    for (int64_t c = lane; c < cols; c += kWarp) b[c] = nan;
    if (lane == 0) loss[row] = nan;
    return;
  }
  T m, log_sum;
  RowStats(xr, cols, lane, &m, &log_sum);
  for (int64_t c = lane; c < cols; c += kWarp) {
    const T log_p = xr[c] - m - log_sum;
    b[c] = exp(log_p) - (c == label ? T(1) : T(0));
  }
  if (lane == 0) loss[row] = -(xr[label] - m - log_sum);
}
#undef TW_ROW_PROLOGUE

unsigned RowBlocks(int64_t rows) {
  return static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock);
}
constexpr int kRowThreads = kWarp * kRowsPerBlock;

template <bool kLog>
class GpuSoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    Tensor* out;
    int64_t cols;
    OP_REQUIRES_OK(ctx, PrepareSoftmax(ctx, &out, &cols));
    if (cols == 0 || logits.num_elements() == 0) return;
    const int64_t rows = logits.num_elements() / cols;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(logits.dtype(), [&](auto t) {
          using T = decltype(t);
          SoftmaxKernel<T, kLog>
              <<<RowBlocks(rows), kRowThreads, 0, device->stream()>>>(
                  logits.data<T>(), out->data<T>(), rows, cols);
          return CheckLaunch(device, "SoftmaxKernel");
        }));
  }
};

template <bool kLog>
class GpuSoftmaxGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& y = ctx->input(1);
    Tensor* out;
    int64_t cols;
    OP_REQUIRES_OK(ctx, PrepareSoftmaxGrad(ctx, kLog, &out, &cols));
    if (cols == 0 || y.num_elements() == 0) return;
    const int64_t rows = y.num_elements() / cols;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(y.dtype(), [&](auto t) {
          using T = decltype(t);
          SoftmaxGradKernel<T, kLog>
              <<<RowBlocks(rows), kRowThreads, 0, device->stream()>>>(
                  grad.data<T>(), y.data<T>(), out->data<T>(), rows, cols);
          return CheckLaunch(device, "SoftmaxGradKernel");
        }));
  }
};

template <bool kSparse>
class GpuXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    Tensor *loss, *backprop;
    int64_t rows, cols;
    OP_REQUIRES_OK(ctx,
                   PrepareXent(ctx, kSparse, &loss, &backprop, &rows, &cols));
    if (rows == 0) return;
    OP_REQUIRES(ctx, cols > 0,
                errors::InvalidArgument("logits must have at least one class"));
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(logits.dtype(), [&](auto t) {
          using T = decltype(t);
          if constexpr (kSparse) {
            return DispatchType<int32_t, int64_t>(labels.dtype(), [&](auto lt) {
              using L = decltype(lt);
              SparseXentKernel<T, L>
                  <<<RowBlocks(rows), kRowThreads, 0, device->stream()>>>(
                      logits.data<T>(), labels.data<L>(), loss->data<T>(),
                      backprop->data<T>(), rows, cols);
              return CheckLaunch(device, "SparseXentKernel");
            });
          } else {
            XentKernel<T>
                <<<RowBlocks(rows), kRowThreads, 0, device->stream()>>>(
                    logits.data<T>(), labels.data<T>(), loss->data<T>(),
                    backprop->data<T>(), rows, cols);
            return CheckLaunch(device, "XentKernel");
          }
        }));
  }
};

// L2Loss: sum(x^2) / 2. Blocks of 256 threads each write a partial sum
// (grid-stride, then a shared-memory tree); with several blocks a second
// one-block launch sums the partials (kSquare false) and halves.
constexpr int kL2Threads = 256;
template <typename T, bool kSquare>
__global__ void L2LossKernel(const T* __restrict__ x, T* out, int64_t n,
                             bool halve) {
  __shared__ T buf[kL2Threads];
  T acc = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(kL2Threads) + threadIdx.x;
       i < n; i += static_cast<int64_t>(kL2Threads) * gridDim.x) {
    acc += kSquare ? x[i] * x[i] : x[i];
  }
  buf[threadIdx.x] = acc;
  __syncthreads();
  for (int width = kL2Threads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) buf[threadIdx.x] += buf[threadIdx.x + width];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = halve ? buf[0] / T(2) : buf[0];
}

class GpuL2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    GpuDevice* device = GetGpuDevice(ctx);
    const int64_t n = x.num_elements();
    const int blocks = static_cast<int>(
        std::min<int64_t>(1024, std::max<int64_t>(1, n / (kL2Threads * 16))));
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(x.dtype(), [&](auto t) {
          using T = decltype(t);
          if (blocks == 1) {
            L2LossKernel<T, true><<<1, kL2Threads, 0, device->stream()>>>(
                x.data<T>(), out->data<T>(), n, true);
            return CheckLaunch(device, "L2LossKernel");
          }
          Tensor partial;
          TW_RETURN_IF_ERROR(
              ctx->allocate_temp(x.dtype(), TensorShape({blocks}), &partial));
          L2LossKernel<T, true><<<blocks, kL2Threads, 0, device->stream()>>>(
              x.data<T>(), partial.data<T>(), n, false);
          TW_RETURN_IF_ERROR(CheckLaunch(device, "L2LossKernel"));
          L2LossKernel<T, false><<<1, kL2Threads, 0, device->stream()>>>(
              partial.data<T>(), out->data<T>(), blocks, true);
          return CheckLaunch(device, "L2LossKernel");
        }));
  }
};

#define TW_FLOAT_KERNEL(name, ...)                              \
  REGISTER_KERNEL(KernelDef(name).Device("GPU").TypeConstraint( \
                      "T", {DT_FLOAT, DT_DOUBLE}),              \
                  __VA_ARGS__)
TW_FLOAT_KERNEL("Softmax", GpuSoftmaxOp<false>);
TW_FLOAT_KERNEL("LogSoftmax", GpuSoftmaxOp<true>);
TW_FLOAT_KERNEL("SoftmaxGrad", GpuSoftmaxGradOp<false>);
TW_FLOAT_KERNEL("LogSoftmaxGrad", GpuSoftmaxGradOp<true>);
TW_FLOAT_KERNEL("SoftmaxCrossEntropyWithLogits", GpuXentOp<false>);
TW_FLOAT_KERNEL("SparseSoftmaxCrossEntropyWithLogits", GpuXentOp<true>);
TW_FLOAT_KERNEL("L2Loss", GpuL2LossOp);
#undef TW_FLOAT_KERNEL

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
