// Reductions on the GPU: Sum, Mean, Prod, Max, Min, Any, All (axes in host
// memory), ArgMax/ArgMin (axis in host memory) and BiasAddGrad (a column
// reduction, here so that it shares the reduction engine).
//
// The engine: the input's dims are collapsed as on the CPU (size-1 dims
// dropped, neighbours of one kind merged) into groups, kept or reduced.
// Each pass reduces the innermost reduced group, viewing the tensor as
// [P, R, K] (P: everything before, R: the group, K: everything after):
//   - K == 1 (rows; also "reduce all"): a block per row, a shared-memory
//     tree; long rows are split over several blocks and the partials
//     reduced by a second launch (deterministic order, no atomics);
//   - K > 1 (columns, e.g. the bias gradient): 32 columns x 8 row lanes per
//     block, coalesced along K; long columns split as above.
// Float sums accumulate in float in a tree order (as a pairwise sum).
#include <climits>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/kernels/array_op_shapes.h"

namespace tensorweave {
namespace gpu {
namespace {

template <typename T>
__device__ __forceinline__ T LowestValue() {
  if constexpr (std::is_floating_point_v<T>) {
    return -INFINITY;
  } else {
    return sizeof(T) == 8 ? static_cast<T>(INT64_MIN)
                          : static_cast<T>(INT32_MIN);
  }
}
template <typename T>
__device__ __forceinline__ T HighestValue() {
  if constexpr (std::is_floating_point_v<T>) {
    return INFINITY;
  } else {
    return sizeof(T) == 8 ? static_cast<T>(INT64_MAX)
                          : static_cast<T>(INT32_MAX);
  }
}

struct SumR {
  template <typename T>
  static __device__ __forceinline__ T Init() {
    return T(0);
  }
  template <typename T>
  static __device__ __forceinline__ T Op(T a, T b) {
    return a + b;
  }
};
struct ProdR {
  template <typename T>
  static __device__ __forceinline__ T Init() {
    return T(1);
  }
  template <typename T>
  static __device__ __forceinline__ T Op(T a, T b) {
    return a * b;
  }
};
// NaN propagates (a NaN compared is false, so keep the NaN operand).
struct MaxR {
  template <typename T>
  static __device__ __forceinline__ T Init() {
    return LowestValue<T>();
  }
  template <typename T>
  static __device__ __forceinline__ T Op(T a, T b) {
    return (a != a || a > b) ? a : b;
  }
};
struct MinR {
  template <typename T>
  static __device__ __forceinline__ T Init() {
    return HighestValue<T>();
  }
  template <typename T>
  static __device__ __forceinline__ T Op(T a, T b) {
    return (a != a || a < b) ? a : b;
  }
};
struct AnyR {
  template <typename T>
  static __device__ __forceinline__ T Init() {
    return false;
  }
  template <typename T>
  static __device__ __forceinline__ T Op(T a, T b) {
    return a || b;
  }
};
struct AllR {
  template <typename T>
  static __device__ __forceinline__ T Init() {
    return true;
  }
  template <typename T>
  static __device__ __forceinline__ T Op(T a, T b) {
    return a && b;
  }
};

constexpr int kRowThreads = 256;
constexpr int kColX = 32, kColY = 8;

// in [P, R] -> out [P, splits]: block b reduces part (b % splits) of row
// (b / splits).
template <typename T, typename Red>
__global__ void RowReduceKernel(const T* __restrict__ in, T* __restrict__ out,
                                int64_t R, int splits) {
  __shared__ T buf[kRowThreads];
  const int64_t p = blockIdx.x / splits;
  const int s = blockIdx.x % splits;
  const int64_t chunk = (R + splits - 1) / splits;
  const int64_t begin = s * chunk;
  const int64_t end = min(R, begin + chunk);
  const T* row = in + p * R;
  T acc = Red::template Init<T>();
  for (int64_t r = begin + threadIdx.x; r < end; r += kRowThreads) {
    acc = Red::Op(acc, row[r]);
  }
  buf[threadIdx.x] = acc;
  __syncthreads();
  for (int width = kRowThreads / 2; width > 0; width /= 2) {
    if (threadIdx.x < width) {
      buf[threadIdx.x] = Red::Op(buf[threadIdx.x], buf[threadIdx.x + width]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

// in [P, R, K] -> out [P, splits, K]. Blocks: (p, s, column block) flat.
template <typename T, typename Red>
__global__ void ColReduceKernel(const T* __restrict__ in, T* __restrict__ out,
                                int64_t R, int64_t K, int splits,
                                int64_t kblocks) {
  __shared__ T buf[kColY][kColX + 1];
  const int64_t b = blockIdx.x;
  const int64_t kb = b % kblocks;
  const int64_t ps = b / kblocks;  // p * splits + s
  const int s = static_cast<int>(ps % splits);
  const int64_t p = ps / splits;
  const int64_t k = kb * kColX + threadIdx.x;
  const int64_t chunk = (R + splits - 1) / splits;
  const int64_t begin = s * chunk;
  const int64_t end = min(R, begin + chunk);
  T acc = Red::template Init<T>();
  if (k < K) {
    const T* base = in + p * R * K + k;
    for (int64_t r = begin + threadIdx.y; r < end; r += kColY) {
      acc = Red::Op(acc, base[r * K]);
    }
  }
  buf[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  for (int width = kColY / 2; width > 0; width /= 2) {
    if (threadIdx.y < width) {
      buf[threadIdx.y][threadIdx.x] = Red::Op(
          buf[threadIdx.y][threadIdx.x], buf[threadIdx.y + width][threadIdx.x]);
    }
    __syncthreads();
  }
  if (threadIdx.y == 0 && k < K) out[ps * K + k] = buf[0][threadIdx.x];
}

template <typename T>
__global__ void DivideKernel(T* out, int64_t n, int64_t count) {
  TW_GPU_LOOP(i, n) {
    if constexpr (std::is_integral_v<T>) {
      out[i] = count == 0 ? T(0) : out[i] / static_cast<T>(count);
    } else {
      out[i] = out[i] / static_cast<T>(count);  // 0 / 0: NaN, as the CPU
    }
  }
}

// Reduces in [P, R, K] into out [P, K], with temporaries in `temps`.
template <typename T, typename Red>
Status Reduce3(OpKernelContext* ctx, GpuDevice* device, const T* in, T* out,
               int64_t P, int64_t R, int64_t K, std::vector<Tensor>* temps) {
  if (P == 0 || K == 0) return Status::OK();
  if (K == 1) {
    int splits = 1;
    if (P < 512 && R > 4096) {
      splits = static_cast<int>(
          std::min<int64_t>((R + 4095) / 4096, std::max<int64_t>(1, 1024 / P)));
    }
    if (splits == 1) {
      RowReduceKernel<T, Red>
          <<<P, kRowThreads, 0, device->stream()>>>(in, out, R, 1);
      return CheckLaunch(device, "RowReduceKernel");
    }
    temps->emplace_back();
    TW_RETURN_IF_ERROR(ctx->allocate_temp(
        DataTypeOf<T>::value, TensorShape({P * splits}), &temps->back()));
    T* partial = temps->back().template data<T>();
    RowReduceKernel<T, Red><<<P * splits, kRowThreads, 0, device->stream()>>>(
        in, partial, R, splits);
    TW_RETURN_IF_ERROR(CheckLaunch(device, "RowReduceKernel"));
    RowReduceKernel<T, Red>
        <<<P, kRowThreads, 0, device->stream()>>>(partial, out, splits, 1);
    return CheckLaunch(device, "RowReduceKernel");
  }
  const int64_t kblocks = (K + kColX - 1) / kColX;
  int splits = 1;
  // Split long columns (over 128 rows per lane) when there are few blocks;
  // short ones stay one launch (the launch costs more than the rows).
  constexpr int64_t kSplitRows = 32 * kColY;
  if (R > 4 * kSplitRows && P * kblocks < 512) {
    splits = static_cast<int>(
        std::min<int64_t>((R + kSplitRows - 1) / kSplitRows,
                          std::max<int64_t>(1, 1024 / (P * kblocks))));
  }
  const dim3 block(kColX, kColY);
  if (splits == 1) {
    ColReduceKernel<T, Red><<<P * kblocks, block, 0, device->stream()>>>(
        in, out, R, K, 1, kblocks);
    return CheckLaunch(device, "ColReduceKernel");
  }
  temps->emplace_back();
  TW_RETURN_IF_ERROR(ctx->allocate_temp(
      DataTypeOf<T>::value, TensorShape({P * splits * K}), &temps->back()));
  T* partial = temps->back().template data<T>();
  ColReduceKernel<T, Red><<<P * splits * kblocks, block, 0, device->stream()>>>(
      in, partial, R, K, splits, kblocks);
  TW_RETURN_IF_ERROR(CheckLaunch(device, "ColReduceKernel"));
  ColReduceKernel<T, Red><<<P * kblocks, block, 0, device->stream()>>>(
      partial, out, splits, K, 1, kblocks);
  return CheckLaunch(device, "ColReduceKernel");
}

using Groups = std::vector<std::pair<int64_t, bool>>;  // (size, reduced)

// Reduces `in` (collapsed into `groups`) into `out` (the kept elements,
// num_out of them), pass by pass from the innermost reduced group.
template <typename T, typename Red>
Status ReduceGroups(OpKernelContext* ctx, GpuDevice* device, const T* in,
                    Groups groups, T* out, int64_t num_out) {
  if (num_out == 0) return Status::OK();
  std::vector<Tensor> temps;
  const T* cur = in;
  int reduced_left = 0;
  for (const auto& g : groups) reduced_left += g.second ? 1 : 0;
  if (reduced_left == 0) {  // nothing reduced (or only size-1 dims)
    if (cur == out) return Status::OK();
    return CudaStatus(
        cudaMemcpyAsync(out, cur, num_out * sizeof(T), cudaMemcpyDeviceToDevice,
                        device->stream()),
        "cudaMemcpyAsync (device to device)");
  }
  while (reduced_left > 0) {
    int j = static_cast<int>(groups.size()) - 1;
    while (!groups[j].second) --j;
    int64_t P = 1, K = 1;
    for (int i = 0; i < j; ++i) P *= groups[i].first;
    for (size_t i = j + 1; i < groups.size(); ++i) K *= groups[i].first;
    const int64_t R = groups[j].first;
    T* dst = out;
    if (reduced_left > 1) {
      temps.emplace_back();
      TW_RETURN_IF_ERROR(ctx->allocate_temp(
          DataTypeOf<T>::value, TensorShape({P * K}), &temps.back()));
      dst = temps.back().template data<T>();
    }
    TW_RETURN_IF_ERROR(
        (Reduce3<T, Red>(ctx, device, cur, dst, P, R, K, &temps)));
    groups.erase(groups.begin() + j);
    if (j > 0 && j < static_cast<int>(groups.size()) &&
        groups[j - 1].second == groups[j].second) {
      groups[j - 1].first *= groups[j].first;
      groups.erase(groups.begin() + j);
    }
    cur = dst;
    --reduced_left;
  }
  return Status::OK();
}

template <typename Red, bool kMean, typename... Types>
class GpuReductionOp : public OpKernel {
 public:
  explicit GpuReductionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& axes_tensor = ctx->input(1);  // host memory
    const int rank = input.rank();
    std::vector<bool> reduced;
    OP_REQUIRES_OK(ctx, ReadReductionAxes(input, axes_tensor, &reduced));
    TensorShape out_shape;
    int64_t count = 1;
    Groups groups;
    for (int i = 0; i < rank; ++i) {
      if (reduced[i]) count *= input.dim(i);
      if (!reduced[i]) {
        out_shape.AddDim(input.dim(i));
      } else if (keep_dims_) {
        out_shape.AddDim(1);
      }
      if (input.dim(i) == 1) continue;
      if (!groups.empty() && groups.back().second == reduced[i]) {
        groups.back().first *= input.dim(i);
      } else {
        groups.push_back({input.dim(i), reduced[i]});
      }
    }
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<Types...>(input.dtype(), [&](auto tag) {
          using T = decltype(tag);
          Tensor* out;
          TW_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
          const int64_t n = out->num_elements();
          TW_RETURN_IF_ERROR((ReduceGroups<T, Red>(ctx, device, input.data<T>(),
                                                   groups, out->data<T>(), n)));
          if constexpr (kMean) {
            if (n > 0) {
              DivideKernel<T>
                  <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                      out->data<T>(), n, count);
              TW_RETURN_IF_ERROR(CheckLaunch(device, "DivideKernel"));
            }
          }
          return Status::OK();
        }));
  }

 private:
  bool keep_dims_ = false;
};

// ArgMax / ArgMin: one thread per output position walks the axis; the first
// index of the extreme value wins (as the CPU).
template <bool kMax, typename T, typename Index>
__global__ void ArgKernel(const T* __restrict__ x, Index* out, int64_t outer,
                          int64_t n, int64_t inner) {
  TW_GPU_LOOP(u, outer * inner) {
    const int64_t o = u / inner, j = u % inner;
    const T* col = x + o * n * inner + j;
    int64_t best = 0;
    T best_value = col[0];
    for (int64_t i = 1; i < n; ++i) {
      const T v = col[i * inner];
      if (kMax ? v > best_value : v < best_value) {
        best = i;
        best_value = v;
      }
    }
    out[u] = static_cast<Index>(best);
  }
}

template <bool kMax>
class GpuArgOp : public OpKernel {
 public:
  explicit GpuArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    int axis;
    TensorShape out_shape;
    int64_t outer, n, inner;
    OP_REQUIRES_OK(
        ctx, ArgReductionArgs(*ctx, &axis, &out_shape, &outer, &n, &inner));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double, int64_t>(input.dtype(), [&](auto tag) {
          using T = decltype(tag);
          return DispatchType<int32_t, int64_t>(out->dtype(), [&](auto itag) {
            using Index = decltype(itag);
            ArgKernel<kMax, T, Index>
                <<<BlocksFor(outer * inner), kThreadsPerBlock, 0,
                   device->stream()>>>(input.data<T>(), out->data<Index>(),
                                       outer, n, inner);
            return CheckLaunch(device, "ArgKernel");
          });
        }));
  }
};

// BiasAddGrad: the sum of the gradient over every dim but the channel one
// (last for NHWC, third from last for NCHW), as core/kernels/bias_op.cc.
class GpuBiasAddGradOp : public OpKernel {
 public:
  explicit GpuBiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("data_format", &data_format_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const TensorShape& shape = grad.shape();
    const bool nchw = data_format_ == "NCHW";
    OP_REQUIRES(ctx, shape.rank() >= (nchw ? 3 : 2),
                errors::InvalidArgument("value must be at least rank ",
                                        nchw ? 3 : 2, " for ", data_format_,
                                        ", got shape ", shape.ToString()));
    const int dim = nchw ? shape.rank() - 3 : shape.rank() - 1;
    int64_t outer = 1, inner = 1;
    for (int i = 0; i < shape.rank(); ++i) {
      if (i < dim) outer *= shape.dim(i);
      if (i > dim) inner *= shape.dim(i);
    }
    const int64_t channels = shape.dim(dim);
    Groups groups;
    if (outer != 1) groups.push_back({outer, true});
    if (channels != 1) groups.push_back({channels, false});
    if (inner != 1) groups.push_back({inner, true});
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({channels}), &out));
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double, int64_t>(grad.dtype(), [&](auto t) {
          using T = decltype(t);
          return ReduceGroups<T, SumR>(ctx, device, grad.data<T>(), groups,
                                       out->data<T>(), channels);
        }));
  }

 private:
  std::string data_format_;
};

#define TW_GPU_REDUCTION(name, Red, kMean, ...)                        \
  REGISTER_KERNEL(KernelDef(name)                                      \
                      .Device("GPU")                                   \
                      .TypeConstraint("T", DataTypesOf<__VA_ARGS__>()) \
                      .HostMemoryInput(1),                             \
                  GpuReductionOp<Red, kMean, __VA_ARGS__>)

template <typename... Types>
std::vector<DataType> DataTypesOf() {
  return {DataTypeOf<Types>::value...};
}

TW_GPU_REDUCTION("Sum", SumR, false, float, double, int64_t);
TW_GPU_REDUCTION("Mean", SumR, true, float, double, int64_t);
TW_GPU_REDUCTION("Prod", ProdR, false, float, double, int64_t);
TW_GPU_REDUCTION("Max", MaxR, false, float, double, int64_t);
TW_GPU_REDUCTION("Min", MinR, false, float, double, int64_t);
TW_GPU_REDUCTION("Any", AnyR, false, bool);
TW_GPU_REDUCTION("All", AllR, false, bool);

REGISTER_KERNEL(KernelDef("ArgMax")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64})
                    .HostMemoryInput(1),
                GpuArgOp<true>);
REGISTER_KERNEL(KernelDef("ArgMin")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64})
                    .HostMemoryInput(1),
                GpuArgOp<false>);
REGISTER_KERNEL(KernelDef("BiasAddGrad")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64}),
                GpuBiasAddGradOp);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
