// ExpandDims, Squeeze, Size, Rank, ZerosLike, OnesLike, StopGradient and
// Range kernels. The reshaping ones share the input's buffer.
#include "core/framework/op_kernel.h"
#include "core/framework/range.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

class ExpandDimsOp : public OpKernel {
 public:
  explicit ExpandDimsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> dim;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &dim));
    OP_REQUIRES(ctx, dim.size() == 1,
                errors::InvalidArgument(
                    "'dim' must be a tensor with a single value, got shape ",
                    ctx->input(1).shape().ToString()));
    const int rank = x.rank() + 1;
    int64_t axis = dim[0];
    OP_REQUIRES(
        ctx, axis >= -rank && axis < rank,
        errors::InvalidArgument("Tried to expand dim index ", axis,
                                " for tensor with ", x.rank(), " dimensions."));
    if (axis < 0) axis += rank;
    std::vector<int64_t> dims = x.shape().dims();
    dims.insert(dims.begin() + axis, 1);
    Tensor out;
    OP_REQUIRES_OK(ctx, x.Reshaped(TensorShape(dims), &out));
    ctx->set_output(0, std::move(out));
  }
};

class SqueezeOp : public OpKernel {
 public:
  explicit SqueezeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("squeeze_dims", &squeeze_dims_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int rank = x.rank();
    std::vector<bool> remove(rank, squeeze_dims_.empty());
    for (int64_t d : squeeze_dims_) {
      OP_REQUIRES(
          ctx, d >= -rank && d < rank,
          errors::InvalidArgument("Tried to squeeze dim index ", d,
                                  " for tensor with ", rank, " dimensions."));
      const int axis = static_cast<int>(d < 0 ? d + rank : d);
      OP_REQUIRES(ctx, x.dim(axis) == 1,
                  errors::InvalidArgument("Can not squeeze dim[", axis,
                                          "], expected a dimension of 1, got ",
                                          x.dim(axis)));
      remove[axis] = true;
    }
    std::vector<int64_t> dims;
    for (int d = 0; d < rank; ++d) {
      if (!(remove[d] && x.dim(d) == 1)) dims.push_back(x.dim(d));
    }
    Tensor out;
    OP_REQUIRES_OK(ctx, x.Reshaped(TensorShape(dims), &out));
    ctx->set_output(0, std::move(out));
  }

 private:
  std::vector<int64_t> squeeze_dims_;
};

// Size (a number of elements) and Rank, as a scalar of the output dtype.
template <bool kRank>
class CountOp : public OpKernel {
 public:
  explicit CountOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int64_t value = kRank ? x.rank() : x.num_elements();
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<int32_t, int64_t>(out->dtype(), [&](auto tag) {
          using T = decltype(tag);
          if (std::is_same_v<T, int32_t> && value > INT32_MAX) {
            return errors::InvalidArgument("size ", value,
                                           " does not fit in int32; use "
                                           "out_type=int64");
          }
          out->data<T>()[0] = static_cast<T>(value);
          return Status::OK();
        }));
  }
};

// ZerosLike (kValue 0) and OnesLike (kValue 1).
template <int kValue>
class ConstantLikeOp : public OpKernel {
 public:
  explicit ConstantLikeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    OP_REQUIRES_OK(
        ctx,
        DispatchType<TW_POD_TYPES, TW_COMPLEX_TYPES>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          T* o = out->data<T>();
          std::fill(o, o + out->num_elements(), static_cast<T>(kValue));
          return Status::OK();
        }));
  }
};

class StopGradientOp : public OpKernel {
 public:
  explicit StopGradientOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
  }
};

class RangeOp : public OpKernel {
 public:
  explicit RangeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < 3; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).rank() == 0,
                  errors::InvalidArgument(i == 0   ? "start"
                                          : i == 1 ? "limit"
                                                   : "delta",
                                          " must be a scalar, not shape ",
                                          ctx->input(i).shape().ToString()));
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_REAL_TYPES>(ctx->input(0).dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T start = ctx->input(0).data<T>()[0];
          const T limit = ctx->input(1).data<T>()[0];
          const T delta = ctx->input(2).data<T>()[0];
          int64_t size;
          TW_RETURN_IF_ERROR(RangeSize(start, limit, delta, &size));
          Tensor* out;
          TW_RETURN_IF_ERROR(
              ctx->allocate_output(0, TensorShape({size}), &out));
          T* o = out->data<T>();
          for (int64_t i = 0; i < size; ++i) {
            o[i] = static_cast<T>(start + static_cast<T>(i) * delta);
          }
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("ExpandDims"), ExpandDimsOp);
REGISTER_KERNEL(KernelDef("Squeeze"), SqueezeOp);
REGISTER_KERNEL(KernelDef("Size"), CountOp<false>);
REGISTER_KERNEL(KernelDef("Rank"), CountOp<true>);
REGISTER_KERNEL(KernelDef("ZerosLike"), ConstantLikeOp<0>);
REGISTER_KERNEL(KernelDef("OnesLike"), ConstantLikeOp<1>);
REGISTER_KERNEL(KernelDef("StopGradient"), StopGradientOp);
REGISTER_KERNEL(KernelDef("Range"), RangeOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("Range")
                    .Device("GPU")
                    .TypeConstraint("Tidx", {DT_INT32})
                    .AllHostMemory(),
                RangeOp);
REGISTER_KERNEL(KernelDef("ExpandDims")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ExpandDimsOp);
REGISTER_KERNEL(KernelDef("Squeeze")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                SqueezeOp);
// Other dtypes: the same kernels relabel the device buffer (no copy).
REGISTER_KERNEL(KernelDef("ExpandDims")
                    .Device("GPU")
                    .TypeConstraint("T",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL})
                    .HostMemoryInput(1),
                ExpandDimsOp);
REGISTER_KERNEL(KernelDef("Squeeze").Device("GPU").TypeConstraint(
                    "T", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                SqueezeOp);
REGISTER_KERNEL(KernelDef("ZerosLike")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ConstantLikeOp<0>);
REGISTER_KERNEL(KernelDef("OnesLike")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ConstantLikeOp<1>);
// Size and Rank read only their input's shape: it stays in device memory.
REGISTER_KERNEL(KernelDef("Size").Device("GPU").HostMemoryOutput(0),
                CountOp<false>);
REGISTER_KERNEL(KernelDef("Rank").Device("GPU").HostMemoryOutput(0),
                CountOp<true>);

}  // namespace
}  // namespace tensorweave
