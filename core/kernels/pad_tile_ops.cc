// Pad, PadV2, MirrorPad, MirrorPadGrad and Tile kernels, over offset tables:
// Tile reads input[i % size], MirrorPad reads the mirrored position.
#include <algorithm>
#include <string>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/array_op_shapes.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

// Pad and PadV2 (constant_values is input 2).
class PadOp : public OpKernel {
 public:
  explicit PadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> before, after, out_dims;
    OP_REQUIRES_OK(ctx, PadArgs(*ctx, &before, &after, &out_dims));
    const bool has_value = ctx->num_inputs() == 3;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    const std::vector<int64_t> strides = RowMajorStrides(out_dims);
    OffsetTables tables(x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      tables[d] = AffineTable(x.dim(d), before[d], 1, strides[d]);
    }
    OP_REQUIRES_OK(ctx, DispatchType<TW_ARRAY_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T value =
                         has_value ? ctx->input(2).data<T>()[0] : T();
                     T* o = out->data<T>();
                     std::fill(o, o + out->num_elements(), value);
                     if (x.num_elements() > 0) {
                       ScatterByTables(x.data<T>(), tables, o,
                                       [](T& dst, const T& src) { dst = src; });
                     }
                     return Status::OK();
                   }));
  }
};

// For each position of a padded dimension, the input position it mirrors.
Status MirrorTable(const std::string& mode, int d, int64_t size, int64_t before,
                   int64_t after, int64_t stride, std::vector<int64_t>* table) {
  const bool reflect = mode == "REFLECT";
  const int64_t limit = reflect ? size - 1 : size;
  if (before > limit || after > limit) {
    return errors::InvalidArgument(
        "paddings must be no greater than the dimension size",
        reflect ? " - 1" : "", " in ", mode, " mode: ", before, ", ", after,
        " greater than ", limit, " (dimension ", d, ")");
  }
  table->resize(size + before + after);
  for (int64_t i = 0; i < size + before + after; ++i) {
    int64_t j = i - before;
    if (j < 0) j = reflect ? -j : -j - 1;
    if (j >= size) j = reflect ? 2 * size - 2 - j : 2 * size - 1 - j;
    (*table)[i] = j * stride;
  }
  return Status::OK();
}

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("mode", &mode_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> before, after;
    OP_REQUIRES_OK(ctx, ReadPaddings(ctx->input(1), x.rank(), &before, &after));
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OffsetTables tables(x.rank());
    std::vector<int64_t> out_dims(x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      OP_REQUIRES_OK(ctx, MirrorTable(mode_, d, x.dim(d), before[d], after[d],
                                      strides[d], &tables[d]));
      out_dims[d] = static_cast<int64_t>(tables[d].size());
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(ctx, DispatchType<TW_ARRAY_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     GatherByTables(ctx, x.data<T>(), tables, out->data<T>());
                     return Status::OK();
                   }));
  }

 private:
  std::string mode_;
};

// Input: the gradient of MirrorPad's output; output: of its input.
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("mode", &mode_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    std::vector<int64_t> before, after;
    OP_REQUIRES_OK(ctx,
                   ReadPaddings(ctx->input(1), grad.rank(), &before, &after));
    std::vector<int64_t> out_dims(grad.rank());
    for (int d = 0; d < grad.rank(); ++d) {
      // Both paddings are non-negative: compare before subtracting.
      OP_REQUIRES(
          ctx, before[d] <= grad.dim(d) && after[d] <= grad.dim(d) - before[d],
          errors::InvalidArgument("paddings ", before[d], ", ", after[d],
                                  " of dimension ", d, " exceed its size ",
                                  grad.dim(d)));
      out_dims[d] = grad.dim(d) - before[d] - after[d];
    }
    const std::vector<int64_t> strides = RowMajorStrides(out_dims);
    OffsetTables tables(grad.rank());
    for (int d = 0; d < grad.rank(); ++d) {
      OP_REQUIRES_OK(ctx, MirrorTable(mode_, d, out_dims[d], before[d],
                                      after[d], strides[d], &tables[d]));
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_REAL_TYPES>(grad.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     T* o = out->data<T>();
                     std::fill(o, o + out->num_elements(), T(0));
                     if (grad.num_elements() > 0)
                       ScatterAddByTables(grad.data<T>(), tables, o);
                     return Status::OK();
                   }));
  }

 private:
  std::string mode_;
};

class TileOp : public OpKernel {
 public:
  explicit TileOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> multiples, out_dims;
    OP_REQUIRES_OK(ctx, TileArgs(*ctx, &multiples, &out_dims));
    // allocate_output checks the element count and byte size before the
    // offset tables below take memory in proportion to the output's dims.
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OffsetTables tables(x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      tables[d].resize(out_dims[d]);
      for (int64_t i = 0; i < out_dims[d]; ++i) {
        tables[d][i] = (i % x.dim(d)) * strides[d];
      }
    }
    OP_REQUIRES_OK(ctx, DispatchType<TW_ARRAY_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     GatherByTables(ctx, x.data<T>(), tables, out->data<T>());
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("Pad"), PadOp);
REGISTER_KERNEL(KernelDef("PadV2"), PadOp);
REGISTER_KERNEL(KernelDef("MirrorPad"), MirrorPadOp);
REGISTER_KERNEL(KernelDef("MirrorPadGrad"), MirrorPadGradOp);
REGISTER_KERNEL(KernelDef("Tile"), TileOp);

}  // namespace
}  // namespace tensorweave
