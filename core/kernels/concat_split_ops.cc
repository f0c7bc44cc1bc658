// ConcatV2, Split, SplitV, Pack and Unpack kernels. Each views its tensors
// as [outer, inner] matrices around the axis: concatenating joins rows of
// the pieces, splitting cuts each row into pieces.
#include <algorithm>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
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

Status ReadAxis(const Tensor& t, int rank, const char* what, int* axis) {
  std::vector<int64_t> v;
  TW_RETURN_IF_ERROR(ReadIndexVector(t, &v));
  if (v.size() != 1) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  if (v[0] < -rank || v[0] >= rank) {
    return errors::InvalidArgument(what, " ", v[0], " is out of range [", -rank,
                                   ", ", rank, ")");
  }
  *axis = static_cast<int>(v[0] < 0 ? v[0] + rank : v[0]);
  return Status::OK();
}

int64_t Product(const std::vector<int64_t>& dims, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= dims[i];
  return p;
}

class ConcatV2Op : public OpKernel {
 public:
  explicit ConcatV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(0);
    OP_REQUIRES(ctx, first.rank() > 0,
                errors::InvalidArgument("Can't concatenate scalars (use "
                                        "tw.stack instead)"));
    int axis;
    OP_REQUIRES_OK(ctx, ReadAxis(ctx->input(n), first.rank(), "axis", &axis));
    std::vector<int64_t> out_dims = first.shape().dims();
    out_dims[axis] = 0;
    std::vector<int64_t> widths(n);
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.rank() == first.rank(),
                  errors::InvalidArgument(
                      "ConcatOp : Ranks of all input tensors should match: "
                      "shape[0] = ",
                      first.shape().ToString(), " vs. shape[", i,
                      "] = ", t.shape().ToString()));
      for (int d = 0; d < t.rank(); ++d) {
        OP_REQUIRES(ctx, d == axis || t.dim(d) == first.dim(d),
                    errors::InvalidArgument(
                        "ConcatOp : Dimension ", d,
                        " in both shapes must be equal: shape[0] = ",
                        first.shape().ToString(), " vs. shape[", i,
                        "] = ", t.shape().ToString()));
      }
      OP_REQUIRES(
          ctx, AddWithoutOverflow(out_dims[axis], t.dim(axis), &out_dims[axis]),
          errors::InvalidArgument("ConcatOp : the concatenated dimension ",
                                  axis, " does not fit in int64 (input ", i,
                                  " has shape ", t.shape().ToString(), ")"));
      widths[i] = Product(t.shape().dims(), axis, t.rank());
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    // Nothing to copy; the row count of an empty shape may be huge.
    if (out->num_elements() == 0) return;
    const int64_t outer = Product(out_dims, 0, axis);
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
  const int64_t outer = Product(dims, 0, axis);
  const int64_t inner = Product(dims, axis + 1, value.rank());
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
    const Tensor& value = ctx->input(1);
    const int n = ctx->num_outputs();
    OP_REQUIRES(ctx, value.rank() > 0,
                errors::InvalidArgument("Can't split a scalar"));
    int axis;
    OP_REQUIRES_OK(ctx,
                   ReadAxis(ctx->input(0), value.rank(), "split_dim", &axis));
    OP_REQUIRES(ctx, value.dim(axis) % n == 0,
                errors::InvalidArgument(
                    "Number of ways to split should evenly divide the split "
                    "dimension, but got split_dim ",
                    axis, " (size = ", value.dim(axis), ") and num_split ", n));
    SplitInto(ctx, value, axis, std::vector<int64_t>(n, value.dim(axis) / n));
  }
};

class SplitVOp : public OpKernel {
 public:
  explicit SplitVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const int n = ctx->num_outputs();
    OP_REQUIRES(ctx, value.rank() > 0,
                errors::InvalidArgument("Can't split a scalar"));
    int axis;
    OP_REQUIRES_OK(ctx,
                   ReadAxis(ctx->input(2), value.rank(), "split_dim", &axis));
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &sizes));
    OP_REQUIRES(ctx, static_cast<int>(sizes.size()) == n,
                errors::InvalidArgument("size_splits has ", sizes.size(),
                                        " entries but num_split is ", n));
    int unknown = -1;
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
      if (sizes[i] == -1 && unknown < 0) {
        unknown = i;
        continue;
      }
      OP_REQUIRES(ctx, sizes[i] >= 0,
                  errors::InvalidArgument("size_splits[", i, "] = ", sizes[i],
                                          " is invalid (at most one -1, the "
                                          "others non-negative)"));
      total += sizes[i];
    }
    const int64_t dim = value.dim(axis);
    OP_REQUIRES(ctx,
                (unknown < 0 && total == dim) || (unknown >= 0 && total <= dim),
                errors::InvalidArgument(
                    "Determined shape must either match input shape along "
                    "split_dim exactly if fully specified, or be less than the "
                    "size of the input along split_dim if not fully "
                    "specified. Got: size_splits sum to ",
                    total, ", dimension ", axis, " has size ", dim));
    if (unknown >= 0) sizes[unknown] = dim - total;
    SplitInto(ctx, value, axis, sizes);
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
    const int rank = first.rank() + 1;
    OP_REQUIRES(ctx, axis_ >= -rank && axis_ < rank,
                errors::InvalidArgument("axis = ", axis_, " not in [", -rank,
                                        ", ", rank, ")"));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument(
                      "Shapes of all inputs must match: values[0].shape = ",
                      first.shape().ToString(), " != values[", i,
                      "].shape = ", ctx->input(i).shape().ToString()));
    }
    std::vector<int64_t> out_dims = first.shape().dims();
    out_dims.insert(out_dims.begin() + axis, n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    const int64_t outer = Product(first.shape().dims(), 0, axis);
    const int64_t inner = Product(first.shape().dims(), axis, first.rank());
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
    OP_REQUIRES(ctx, rank > 0,
                errors::InvalidArgument("Can't unstack a scalar"));
    OP_REQUIRES(ctx, axis_ >= -rank && axis_ < rank,
                errors::InvalidArgument("axis = ", axis_, " not in [", -rank,
                                        ", ", rank, ")"));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const int n = ctx->num_outputs();
    OP_REQUIRES(ctx, value.dim(axis) == n,
                errors::InvalidArgument(
                    "Input shape ", value.shape().ToString(), " has dimension ",
                    axis, " of size ", value.dim(axis), " but num is ", n));
    std::vector<int64_t> out_dims = value.shape().dims();
    out_dims.erase(out_dims.begin() + axis);
    const int64_t outer = Product(value.shape().dims(), 0, axis);
    const int64_t inner = Product(out_dims, axis, rank - 1);
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
