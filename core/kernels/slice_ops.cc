// Slice, StridedSlice and StridedSliceGrad kernels: the region a slice reads
// becomes one offset table per input dimension.
#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/framework/strided_slice.h"
#include "core/kernels/array_op_shapes.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

// Tables reading input[begin[d] + i * step[d]] for i < sizes[d].
OffsetTables SliceTables(const std::vector<int64_t>& input_dims,
                         const std::vector<int64_t>& begin,
                         const std::vector<int64_t>& steps,
                         const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> strides = RowMajorStrides(input_dims);
  OffsetTables tables(input_dims.size());
  for (size_t d = 0; d < input_dims.size(); ++d) {
    tables[d] = AffineTable(sizes[d], begin[d], steps[d], strides[d]);
  }
  return tables;
}

class SliceOp : public OpKernel {
 public:
  explicit SliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> begin, size;
    OP_REQUIRES_OK(ctx, SliceArgs(*ctx, &begin, &size));
    const int rank = x.rank();
    if (TensorShape(size) == x.shape()) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(size), &out));
    if (out->num_elements() == 0) return;
    const OffsetTables tables = SliceTables(
        x.shape().dims(), begin, std::vector<int64_t>(rank, 1), size);
    OP_REQUIRES_OK(ctx, DispatchType<TW_ARRAY_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     GatherByTables(ctx, x.data<T>(), tables, out->data<T>());
                     return Status::OK();
                   }));
  }
};

class StridedSliceBase : public OpKernel {
 public:
  explicit StridedSliceBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("begin_mask", &masks_.begin_mask));
    ctx->SetStatus(ctx->GetAttr("end_mask", &masks_.end_mask));
    ctx->SetStatus(ctx->GetAttr("ellipsis_mask", &masks_.ellipsis_mask));
    ctx->SetStatus(ctx->GetAttr("new_axis_mask", &masks_.new_axis_mask));
    ctx->SetStatus(ctx->GetAttr("shrink_axis_mask", &masks_.shrink_axis_mask));
  }

 protected:
  // The spec over `dims` from inputs begin, end, strides at `first`.
  Status Spec(OpKernelContext* ctx, const std::vector<int64_t>& dims, int first,
              StridedSliceSpec* spec) const {
    std::vector<int64_t> begin, end, strides;
    TW_RETURN_IF_ERROR(ReadIndexVector(ctx->input(first), &begin));
    TW_RETURN_IF_ERROR(ReadIndexVector(ctx->input(first + 1), &end));
    TW_RETURN_IF_ERROR(ReadIndexVector(ctx->input(first + 2), &strides));
    return ComputeStridedSlice(dims, begin, end, strides, masks_, spec);
  }

 private:
  StridedSliceMasks masks_;
};

class StridedSliceOp : public StridedSliceBase {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : StridedSliceBase(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, Spec(ctx, x.shape().dims(), 1, &spec));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape(spec.final_shape), &out));
    if (out->num_elements() == 0) return;
    const OffsetTables tables = SliceTables(x.shape().dims(), spec.begin,
                                            spec.strides, spec.processing);
    OP_REQUIRES_OK(ctx, DispatchType<TW_ARRAY_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     GatherByTables(ctx, x.data<T>(), tables, out->data<T>());
                     return Status::OK();
                   }));
  }
};

class StridedSliceGradOp : public StridedSliceBase {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx)
      : StridedSliceBase(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &shape));
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, Spec(ctx, dims, 1, &spec));
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, dy.shape() == TensorShape(spec.final_shape),
                errors::InvalidArgument(
                    "shape of dy was ", dy.shape().ToString(), " instead of ",
                    TensorShape(spec.final_shape).ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const OffsetTables tables =
        SliceTables(dims, spec.begin, spec.strides, spec.processing);
    OP_REQUIRES_OK(ctx, DispatchType<TW_NUMBER_TYPES, TW_COMPLEX_TYPES>(
                            dy.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              T* o = out->data<T>();
                              std::fill(o, o + out->num_elements(), T(0));
                              if (dy.num_elements() > 0)
                                ScatterAddByTables(dy.data<T>(), tables, o);
                              return Status::OK();
                            }));
  }
};

REGISTER_KERNEL(KernelDef("Slice"), SliceOp);
REGISTER_KERNEL(KernelDef("StridedSlice"), StridedSliceOp);
REGISTER_KERNEL(KernelDef("StridedSliceGrad"), StridedSliceGradOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("StridedSlice")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                StridedSliceOp);
REGISTER_KERNEL(KernelDef("Slice")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                SliceOp);

}  // namespace
}  // namespace tensorweave
