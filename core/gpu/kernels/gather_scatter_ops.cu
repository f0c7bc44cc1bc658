// Gather and scatter on the GPU: GatherV2/Gather (indices in device memory,
// axis in host memory), UnsortedSegmentSum (its gradient; atomicAdd), and
// the ref-variable updates ScatterUpdate, ScatterAdd, ScatterSub.
//
// Indices live in device memory and are not read on the host (that would
// stall the stream), so out-of-range indices cannot be reported as the CPU
// kernels do. As TensorFlow's GPU kernels: Gather writes zeros for an
// out-of-range index; UnsortedSegmentSum drops an id outside
// [0, num_segments); the scatter ops ignore an out-of-range index.
// ScatterUpdate with a repeated index keeps one of the updates (which one is
// unspecified, as in TensorFlow); ScatterAdd/Sub add every one (atomicAdd).
#include <mutex>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/resource.h"
#include "core/framework/shape_inference.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/kernels/array_op_shapes.h"

namespace tensorweave {
namespace gpu {
namespace {

// out[b, i, j] = params[b, indices[i], j] (zero when out of range).
template <typename U, typename I>
__global__ void GatherKernel(const U* params, const I* indices, U* out,
                             int64_t total, int64_t n, int64_t inner,
                             int64_t limit) {
  TW_GPU_LOOP(e, total) {
    const int64_t j = e % inner;
    const int64_t row = e / inner;
    const int64_t i = row % n, b = row / n;
    const int64_t index = static_cast<int64_t>(indices[i]);
    out[e] = (index >= 0 && index < limit)
                 ? params[(b * limit + index) * inner + j]
                 : U(0);
  }
}

class GatherGpuOp : public OpKernel {
 public:
  explicit GatherGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().num_inputs() == 3) {
      ctx->SetStatus(ctx->GetAttr("batch_dims", &batch_dims_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    int axis;
    std::vector<int64_t> out_dims;
    OP_REQUIRES_OK(ctx, GatherArgs(*ctx, batch_dims_, &axis, &out_dims));
    const int rank = params.rank();
    const int64_t limit = params.dim(axis);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    const int64_t total = out->num_elements();
    if (total == 0) return;
    int64_t inner = 1;
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) {
      inner *= params.dim(d);
    }
    const int64_t n = indices.num_elements();
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchBySize(params.dtype(), [&](auto tag) -> Status {
          using U = decltype(tag);
          return DispatchType<
              int32_t, int64_t>(indices.dtype(), [&](auto itag) -> Status {
            using I = decltype(itag);
            GatherKernel<U, I>
                <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                    static_cast<const U*>(params.raw_data()), indices.data<I>(),
                    static_cast<U*>(out->raw_data()), total, n, inner, limit);
            return CheckLaunch(device, "GatherKernel");
          });
        }));
  }

 private:
  int64_t batch_dims_ = 0;
};

template <typename T, typename I>
__global__ void SegmentSumKernel(const T* data, const I* ids, T* out,
                                 int64_t total, int64_t inner,
                                 int64_t num_segments) {
  TW_GPU_LOOP(e, total) {
    const int64_t id = static_cast<int64_t>(ids[e / inner]);
    if (id >= 0 && id < num_segments) {
      atomicAdd(out + id * inner + e % inner, data[e]);
    }
  }
}

class UnsortedSegmentSumGpuOp : public OpKernel {
 public:
  explicit UnsortedSegmentSumGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    std::vector<int64_t> num;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &num));
    OP_REQUIRES(ctx, ctx->input(2).rank() == 0 && num[0] >= 0,
                errors::InvalidArgument(
                    "num_segments must be a non-negative scalar, got ",
                    ctx->input(2).DebugString()));
    const int64_t num_segments = num[0];
    bool prefix = ids.rank() <= data.rank();
    for (int d = 0; prefix && d < ids.rank(); ++d) {
      prefix = ids.dim(d) == data.dim(d);
    }
    OP_REQUIRES(
        ctx, prefix,
        errors::InvalidArgument("segment_ids shape ", ids.shape().ToString(),
                                " is not a prefix of data shape ",
                                data.shape().ToString()));
    std::vector<int64_t> out_dims = {num_segments};
    out_dims.insert(out_dims.end(), data.shape().dims().begin() + ids.rank(),
                    data.shape().dims().end());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    GpuDevice* device = GetGpuDevice(ctx);
    if (out->num_bytes() > 0) {
      OP_REQUIRES_CUDA_OK(ctx,
                          cudaMemsetAsync(out->raw_data(), 0, out->num_bytes(),
                                          device->stream()));
    }
    const int64_t total = data.num_elements();
    if (total == 0 || ids.num_elements() == 0) return;
    const int64_t inner = total / ids.num_elements();
    if (inner == 0) return;
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(data.dtype(), [&](auto tag) -> Status {
          using T = decltype(tag);
          return DispatchType<int32_t,
                              int64_t>(ids.dtype(), [&](auto itag) -> Status {
            using I = decltype(itag);
            SegmentSumKernel<T, I>
                <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                    data.data<T>(), ids.data<I>(), out->data<T>(), total, inner,
                    num_segments);
            return CheckLaunch(device, "SegmentSumKernel");
          });
        }));
  }
};

enum class ScatterKind { kUpdate, kAdd, kSub };

template <typename T, typename I, ScatterKind kKind>
__global__ void ScatterKernel(T* var, const I* indices, const T* updates,
                              bool scalar_update, int64_t total, int64_t slice,
                              int64_t rows) {
  TW_GPU_LOOP(e, total) {
    const int64_t row = static_cast<int64_t>(indices[e / slice]);
    if (row < 0 || row >= rows) continue;  // ignored, as TensorFlow's GPU
    T* dst = var + row * slice + e % slice;
    const T src = scalar_update ? updates[0] : updates[e];
    if (kKind == ScatterKind::kUpdate) {
      *dst = src;
    } else if (kKind == ScatterKind::kAdd) {
      atomicAdd(dst, src);
    } else {
      atomicAdd(dst, -src);
    }
  }
}

template <ScatterKind kKind>
class ScatterGpuOp : public OpKernel {
 public:
  explicit ScatterGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    GpuDevice* device = GetGpuDevice(ctx);
    std::lock_guard<std::mutex> lock(*var->mu());
    Tensor* current = var->tensor();
    OP_REQUIRES(ctx, current->valid(),
                errors::FailedPrecondition(
                    "Attempting to use uninitialized value ", var->name()));
    const TensorShape& shape = current->shape();
    OP_REQUIRES(ctx, shape.rank() >= 1,
                errors::InvalidArgument("Expected ref to be at least 1-D, got ",
                                        shape.ToString()));
    OP_REQUIRES(ctx, updates.dtype() == current->dtype(),
                errors::InvalidArgument(
                    "updates are ", DataTypeName(updates.dtype()),
                    " but the variable is ", DataTypeName(current->dtype())));
    int64_t slice = 1;
    for (int i = 1; i < shape.rank(); ++i) slice *= shape.dim(i);
    std::vector<int64_t> want = indices.shape().dims();
    for (int i = 1; i < shape.rank(); ++i) want.push_back(shape.dim(i));
    OP_REQUIRES(ctx,
                updates.rank() == 0 || updates.shape() == TensorShape(want),
                errors::InvalidArgument(
                    "updates.shape ", updates.shape().ToString(),
                    " must equal indices.shape + params.shape[1:] (",
                    TensorShape(want).ToString(), ") or be a scalar"));
    // Readers holding a snapshot keep their buffer: update a copy then.
    // (Asked before `target` takes a reference of its own.)
    const bool shared = !current->BufferUniquelyOwned();
    Tensor target = *current;
    if (shared) {
      OP_REQUIRES_OK(
          ctx, ctx->allocate_temp(current->dtype(), current->shape(), &target));
      if (current->num_bytes() > 0) {
        OP_REQUIRES_CUDA_OK(
            ctx, cudaMemcpyAsync(target.raw_data(), current->raw_data(),
                                 current->num_bytes(), cudaMemcpyDeviceToDevice,
                                 device->stream()));
      }
    }
    const int64_t total = indices.num_elements() * slice;
    if (total > 0) {
      OP_REQUIRES_OK(
          ctx, DispatchType<float,
                            double>(current->dtype(), [&](auto tag) -> Status {
            using T = decltype(tag);
            return DispatchType<
                int32_t, int64_t>(indices.dtype(), [&](auto itag) -> Status {
              using I = decltype(itag);
              ScatterKernel<T, I, kKind>
                  <<<BlocksFor(total), kThreadsPerBlock, 0, device->stream()>>>(
                      target.data<T>(), indices.data<I>(), updates.data<T>(),
                      updates.rank() == 0, total, slice, shape.dim(0));
              return CheckLaunch(device, "ScatterKernel");
            });
          }));
    }
    *current = std::move(target);
    ctx->set_output_ref(0, var);
  }
};

#define TW_GPU_INDEX_TYPES \
  { DT_INT32, DT_INT64 }
REGISTER_KERNEL(KernelDef("GatherV2")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("Tparams", {DT_FLOAT, DT_DOUBLE, DT_INT32,
                                                DT_INT64, DT_BOOL})
                    .TypeConstraint("Tindices", TW_GPU_INDEX_TYPES)
                    .HostMemoryInput(2),
                GatherGpuOp);
REGISTER_KERNEL(KernelDef("Gather")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("Tparams", {DT_FLOAT, DT_DOUBLE, DT_INT32,
                                                DT_INT64, DT_BOOL})
                    .TypeConstraint("Tindices", TW_GPU_INDEX_TYPES),
                GatherGpuOp);
REGISTER_KERNEL(KernelDef("UnsortedSegmentSum")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
                    .TypeConstraint("Tindices", TW_GPU_INDEX_TYPES)
                    .HostMemoryInput(2),
                UnsortedSegmentSumGpuOp);
REGISTER_KERNEL(KernelDef("ScatterUpdate")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
                    .TypeConstraint("Tindices", TW_GPU_INDEX_TYPES),
                ScatterGpuOp<ScatterKind::kUpdate>);
REGISTER_KERNEL(KernelDef("ScatterAdd")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
                    .TypeConstraint("Tindices", TW_GPU_INDEX_TYPES),
                ScatterGpuOp<ScatterKind::kAdd>);
REGISTER_KERNEL(KernelDef("ScatterSub")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE})
                    .TypeConstraint("Tindices", TW_GPU_INDEX_TYPES),
                ScatterGpuOp<ScatterKind::kSub>);
#undef TW_GPU_INDEX_TYPES

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
