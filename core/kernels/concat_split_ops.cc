// ConcatV2, Split, SplitV, Pack and Unpack kernels. Each views its tensors
// as [outer, inner] matrices around the axis: concatenating joins rows of
// the pieces, splitting cuts each row into pieces.
#include <algorithm>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/array_op_shapes.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

// out row r = piece[0] row r ++ piece[1] row r ++ ...; piece i has
// `widths[i]` elements per row.
template <typename T>
void ConcatRows(OpKernelContext* ctx, const std::vector<const T*>& pieces,
                const std::vector<int64_t>& widths, int64_t outer, T* out) {
  int64_t total = 0;
  for (int64_t w : widths) total += w;
  ForRows(ctx, outer, total, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T* dst = out + r * total;
      for (size_t i = 0; i < pieces.size(); ++i) {
        const T* src = pieces[i] + r * widths[i];
        dst = std::copy(src, src + widths[i], dst);
      }
    }
  });
}

// The inverse: piece i row r = columns [offset_i, offset_i + widths[i]) of
// in row r.
template <typename T>
void SplitRows(const T* in, const std::vector<int64_t>& widths, int64_t outer,
               const std::vector<T*>& pieces) {
  int64_t total = 0;
  for (int64_t w : widths) total += w;
  for (int64_t r = 0; r < outer; ++r) {
    const T* src = in + r * total;
    for (size_t i = 0; i < pieces.size(); ++i) {
      std::copy(src, src + widths[i], pieces[i] + r * widths[i]);
      src += widths[i];
    }
  }
}

class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    int axis;
    std::vector<int64_t> out_dims, widths;
    OP_REQUIRES_OK(ctx, ConcatArgs(*ctx, &axis, &out_dims, &widths));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    // Nothing to copy; the row count of an empty shape may be huge.
    if (out->num_elements() == 0) return;
    const int64_t outer = DimsProduct(out_dims, 0, axis);
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_ARRAY_TYPES>(out->dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     std::vector<const T*> pieces(n);
                     for (int i = 0; i < n; ++i)
                       pieces[i] = ctx->input(i).data<T>();
                     ConcatRows(ctx, pieces, widths, outer, out->data<T>());
                     return Status::OK();
                   }));
  }
};

// Allocates outputs of `value` cut along `axis` into `sizes` and copies.
void SplitInto(OpKernelContext* ctx, const Tensor& value, int axis,
               const std::vector<int64_t>& sizes) {
  const std::vector<int64_t>& dims = value.shape().dims();
  const int64_t outer = DimsProduct(dims, 0, axis);
  const int64_t inner = DimsProduct(dims, axis + 1, value.rank());
  std::vector<Tensor*> outs(sizes.size());
  std::vector<int64_t> widths(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<int64_t> out_dims = dims;
    out_dims[axis] = sizes[i];
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(i, TensorShape(out_dims), &outs[i]));
    widths[i] = sizes[i] * inner;
  }
  if (value.num_elements() == 0) return;
  OP_REQUIRES_OK(ctx,
                 DispatchType<TW_ARRAY_TYPES>(value.dtype(), [&](auto tag) {
                   using T = decltype(tag);
                   std::vector<T*> pieces(outs.size());
                   for (size_t i = 0; i < outs.size(); ++i)
                     pieces[i] = outs[i]->data<T>();
                   SplitRows(value.data<T>(), widths, outer, pieces);
                   return Status::OK();
                 }));
}

class SplitOp : public OpKernel {
 public:
  explicit SplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    int axis;
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx, SplitArgs(*ctx, &axis, &sizes));
    SplitInto(ctx, ctx->input(1), axis, sizes);
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    int axis;
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx, SplitVArgs(*ctx, &axis, &sizes));
    SplitInto(ctx, ctx->input(0), axis, sizes);
  }
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    int axis;
    std::vector<int64_t> out_dims;
    OP_REQUIRES_OK(ctx, PackArgs(*ctx, axis_, &axis, &out_dims));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    const int64_t outer = DimsProduct(first.shape().dims(), 0, axis);
    const int64_t inner = DimsProduct(first.shape().dims(), axis, first.rank());
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_ARRAY_TYPES>(out->dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     std::vector<const T*> pieces(n);
                     for (int i = 0; i < n; ++i)
                       pieces[i] = ctx->input(i).data<T>();
                     ConcatRows(ctx, pieces, std::vector<int64_t>(n, inner),
                                outer, out->data<T>());
                     return Status::OK();
                   }));
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const int rank = value.rank();
    const int n = ctx->num_outputs();
    int axis;
    std::vector<int64_t> out_dims;
    OP_REQUIRES_OK(ctx, UnpackArgs(*ctx, axis_, &axis, &out_dims));
    const int64_t outer = DimsProduct(value.shape().dims(), 0, axis);
    const int64_t inner = DimsProduct(out_dims, axis, rank - 1);
    std::vector<Tensor*> outs(n);
    for (int i = 0; i < n; ++i) {
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(i, TensorShape(out_dims), &outs[i]));
    }
    if (value.num_elements() == 0) return;
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_ARRAY_TYPES>(value.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     std::vector<T*> pieces(n);
                     for (int i = 0; i < n; ++i) pieces[i] = outs[i]->data<T>();
                     SplitRows(value.data<T>(), std::vector<int64_t>(n, inner),
                               outer, pieces);
                     return Status::OK();
                   }));
  }

 private:
  int64_t axis_ = 0;
};

REGISTER_KERNEL(KernelDef("ConcatV2"), ConcatV2Op);
REGISTER_KERNEL(KernelDef("Split"), SplitOp);
REGISTER_KERNEL(KernelDef("SplitV"), SplitVOp);
REGISTER_KERNEL(KernelDef("Pack"), PackOp);
REGISTER_KERNEL(KernelDef("Unpack"), UnpackOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("ConcatV2")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                ConcatV2Op);
REGISTER_KERNEL(KernelDef("Pack")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                PackOp);

}  // namespace
}  // namespace tensorweave
