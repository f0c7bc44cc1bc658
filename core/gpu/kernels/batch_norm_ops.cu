// GPU FusedBatchNorm and FusedBatchNormGrad (NHWC or NCHW), the CPU
// kernels' math (core/kernels/fused_batch_norm_ops.cc): x viewed as
// [outer, C, inner], per-channel statistics accumulated in double (two
// passes: the mean, then the squared deviations), the reported batch
// variance Bessel-corrected, reserve_space_1/2 the mean and biased variance
// used. One block per channel reduces; an element-wise kernel applies.
#include <string>

#include "core/framework/op_kernel.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/kernels/fused_batch_norm.h"

namespace tensorweave {
namespace gpu {
namespace {

constexpr int kReduceThreads = 256;

// Offset of row r (of outer * inner) of channel c.
__device__ inline int64_t BnOffset(const BatchNormLayout& l, int64_t c,
                                   int64_t r) {
  const int64_t o = r / l.inner;
  const int64_t k = r - o * l.inner;
  return (o * l.depth + c) * l.inner + k;
}

// Sum of v over the block (every thread gets it).
__device__ inline double BlockSum(double v, double* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) shared[threadIdx.x] += shared[threadIdx.x + s];
    __syncthreads();
  }
  const double total = shared[0];
  __syncthreads();
  return total;
}

// Block c: the channel's mean and variance (training: of the batch;
// inference: the inputs), the affine a, b with y = x * a + b, and outputs
// 1..4.
template <typename T>
__global__ void BnStatsKernel(BatchNormLayout l, bool training, float epsilon,
                              const T* x, const T* scale, const T* offset,
                              const T* in_mean, const T* in_var, T* batch_mean,
                              T* batch_var, T* reserve1, T* reserve2, T* a,
                              T* b) {
  __shared__ double shared[kReduceThreads];
  const int64_t c = blockIdx.x;
  const int64_t rows = l.outer * l.inner;
  double mean, var;
  if (training) {
    double sum = 0;
    for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
      sum += static_cast<double>(x[BnOffset(l, c, r)]);
    }
    sum = BlockSum(sum, shared);
    mean = rows ? sum / rows : 0.0;
    double sq = 0;
    for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
      const double d = static_cast<double>(x[BnOffset(l, c, r)]) - mean;
      sq += d * d;
    }
    sq = BlockSum(sq, shared);
    var = rows ? sq / rows : 0.0;
  } else {
    mean = static_cast<double>(in_mean[c]);
    var = static_cast<double>(in_var[c]);
  }
  if (threadIdx.x == 0) {
    const double inv = 1.0 / sqrt(var + static_cast<double>(epsilon));
    const double s = static_cast<double>(scale[c]);
    a[c] = static_cast<T>(s * inv);
    b[c] = static_cast<T>(static_cast<double>(offset[c]) - mean * s * inv);
    const double adjust = rows > 1 ? double(rows) / (rows - 1) : 1.0;
    batch_mean[c] = static_cast<T>(mean);
    batch_var[c] = static_cast<T>(training ? var * adjust : var);
    reserve1[c] = static_cast<T>(mean);
    reserve2[c] = static_cast<T>(var);
  }
}

template <typename T>
__global__ void BnApplyKernel(BatchNormLayout l, const T* x, const T* a,
                              const T* b, T* y, int64_t total) {
  TW_GPU_LOOP(i, total) {
    const int64_t c = (i / l.inner) % l.depth;
    y[i] = x[i] * a[c] + b[c];
  }
}

// Block c: sum_g, sum_gx = sum g * (x - mean); scale_backprop and
// offset_backprop; the doubles the dx kernel needs in `stats` (3 per
// channel: sum_g, sum_gx, inv).
template <typename T>
__global__ void BnGradReduceKernel(BatchNormLayout l, float epsilon, const T* g,
                                   const T* x, const T* mean, const T* var,
                                   T* scale_backprop, T* offset_backprop,
                                   double* stats) {
  __shared__ double shared[kReduceThreads];
  const int64_t c = blockIdx.x;
  const int64_t rows = l.outer * l.inner;
  const double m = static_cast<double>(mean[c]);
  double sg = 0, sgx = 0;
  for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
    const int64_t i = BnOffset(l, c, r);
    const double gv = static_cast<double>(g[i]);
    sg += gv;
    sgx += gv * (static_cast<double>(x[i]) - m);
  }
  sg = BlockSum(sg, shared);
  sgx = BlockSum(sgx, shared);
  if (threadIdx.x == 0) {
    const double inv =
        1.0 / sqrt(static_cast<double>(var[c]) + static_cast<double>(epsilon));
    scale_backprop[c] = static_cast<T>(sgx * inv);
    offset_backprop[c] = static_cast<T>(sg);
    stats[3 * c] = sg;
    stats[3 * c + 1] = sgx;
    stats[3 * c + 2] = inv;
  }
}

template <typename T>
__global__ void BnGradApplyKernel(BatchNormLayout l, bool training, const T* g,
                                  const T* x, const T* scale, const T* mean,
                                  const double* stats, T* dx, int64_t total) {
  const double rows = static_cast<double>(l.outer * l.inner);
  TW_GPU_LOOP(i, total) {
    const int64_t c = (i / l.inner) % l.depth;
    const double inv = stats[3 * c + 2];
    const double s = static_cast<double>(scale[c]);
    if (training) {
      const double xhat =
          (static_cast<double>(x[i]) - static_cast<double>(mean[c])) * inv;
      dx[i] = static_cast<T>(s * inv *
                             (static_cast<double>(g[i]) - stats[3 * c] / rows -
                              xhat * stats[3 * c + 1] * inv / rows));
    } else {
      dx[i] = static_cast<T>(static_cast<double>(g[i]) * s * inv);
    }
  }
}

class FusedBatchNormGpuOp : public BatchNormOpBase {
 public:
  using BatchNormOpBase::BatchNormOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    BatchNormLayout l;
    Tensor* outs[5];
    OP_REQUIRES_OK(ctx, PrepareForward(ctx, &l, outs));
    const int64_t depth = l.depth;
    if (depth == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(x.dtype(), [&](auto t) -> Status {
          using T = decltype(t);
          Tensor ab;
          TW_RETURN_IF_ERROR(
              ctx->allocate_temp(x.dtype(), TensorShape({2 * depth}), &ab));
          T* a = ab.data<T>();
          T* b = a + depth;
          const T* in_mean = is_training_ ? nullptr : ctx->input(3).data<T>();
          const T* in_var = is_training_ ? nullptr : ctx->input(4).data<T>();
          BnStatsKernel<T><<<static_cast<unsigned>(depth), kReduceThreads, 0,
                             device->stream()>>>(
              l, is_training_, epsilon_, x.data<T>(), ctx->input(1).data<T>(),
              ctx->input(2).data<T>(), in_mean, in_var, outs[1]->data<T>(),
              outs[2]->data<T>(), outs[3]->data<T>(), outs[4]->data<T>(), a, b);
          TW_RETURN_IF_ERROR(CheckLaunch(device, "FusedBatchNorm(stats)"));
          const int64_t total = x.num_elements();
          if (total == 0) return Status::OK();
          BnApplyKernel<T>
              <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                  l, x.data<T>(), a, b, outs[0]->data<T>(), total);
          return CheckLaunch(device, "FusedBatchNorm(apply)");
        }));
  }
};

class FusedBatchNormGradGpuOp : public BatchNormOpBase {
 public:
  using BatchNormOpBase::BatchNormOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    BatchNormLayout l;
    Tensor* outs[5];
    OP_REQUIRES_OK(ctx, PrepareBackward(ctx, &l, outs));
    const int64_t depth = l.depth;
    if (depth == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(x.dtype(), [&](auto t) -> Status {
          using T = decltype(t);
          Tensor stats;
          TW_RETURN_IF_ERROR(
              ctx->allocate_temp(DT_DOUBLE, TensorShape({3 * depth}), &stats));
          BnGradReduceKernel<T><<<static_cast<unsigned>(depth), kReduceThreads,
                                  0, device->stream()>>>(
              l, epsilon_, dy.data<T>(), x.data<T>(), ctx->input(3).data<T>(),
              ctx->input(4).data<T>(), outs[1]->data<T>(), outs[2]->data<T>(),
              stats.data<double>());
          TW_RETURN_IF_ERROR(CheckLaunch(device, "FusedBatchNormGrad(reduce)"));
          const int64_t total = x.num_elements();
          if (total == 0) return Status::OK();
          BnGradApplyKernel<T>
              <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                  l, is_training_, dy.data<T>(), x.data<T>(),
                  ctx->input(2).data<T>(), ctx->input(3).data<T>(),
                  stats.data<double>(), outs[0]->data<T>(), total);
          return CheckLaunch(device, "FusedBatchNormGrad(dx)");
        }));
  }
};

REGISTER_KERNEL(KernelDef("FusedBatchNorm")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                FusedBatchNormGpuOp);
REGISTER_KERNEL(KernelDef("FusedBatchNormGrad")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                FusedBatchNormGradGpuOp);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
