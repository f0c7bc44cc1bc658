// Select / SelectV2 (where with three arguments), ClipByValue and AddN.
#include <algorithm>

#include "core/kernels/array_op_shapes.h"
#include "core/kernels/cwise_ops.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

// Element strides of `shape` (aligned to the right of `out`), 0 along the
// dims it is broadcast over.
std::vector<int64_t> BroadcastStrides(const TensorShape& shape,
                                      const TensorShape& out) {
  const int rank = out.rank(), offset = rank - shape.rank();
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    strides[offset + i] = shape.dim(i) == 1 ? 0 : stride;
    stride *= shape.dim(i);
  }
  return strides;
}

// Calls fn(out_index, offsets[k]) for each element of `out`, with the
// matching element offset in each operand.
template <int K, typename Fn>
void ForEachBroadcast(OpKernelContext* ctx, const TensorShape& out,
                      const std::array<std::vector<int64_t>, K>& strides,
                      Fn fn) {
  const int rank = out.rank();
  const int64_t n = out.num_elements();
  if (n == 0) return;
  if (rank == 0) {
    std::array<int64_t, K> offsets{};
    fn(0, offsets);
    return;
  }
  const int64_t inner = out.dim(rank - 1);
  ForRange(ctx, n / inner, [&](int64_t row_begin, int64_t row_end) {
    for (int64_t row = row_begin; row < row_end; ++row) {
      std::array<int64_t, K> base{};
      int64_t rest = row;
      for (int d = rank - 2; d >= 0; --d) {
        const int64_t idx = rest % out.dim(d);
        rest /= out.dim(d);
        for (int k = 0; k < K; ++k) base[k] += idx * strides[k][d];
      }
      for (int64_t i = 0; i < inner; ++i) {
        std::array<int64_t, K> offsets;
        for (int k = 0; k < K; ++k) {
          offsets[k] = base[k] + i * strides[k][rank - 1];
        }
        fn(row * inner + i, offsets);
      }
    }
  });
}

// TF1's Select: t and e of one shape; cond a scalar, of that shape, or a
// vector over the first dimension.
class SelectOp : public OpKernel {
 public:
  explicit SelectOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    bool rows;
    OP_REQUIRES_OK(ctx, SelectArgs(*ctx, &rows));
    const bool scalar = cond.rank() == 0;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, t.shape(), &out));
    const bool* c = cond.data<bool>();
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_POD_TYPES, TW_COMPLEX_TYPES, std::string>(
                 t.dtype(), [&](auto tag) {
                   using T = decltype(tag);
                   const T* tp = t.data<T>();
                   const T* ep = e.data<T>();
                   T* o = out->data<T>();
                   const int64_t n = t.num_elements();
                   // Elements per condition value.
                   const int64_t group =
                       scalar ? n : (rows && t.dim(0) > 0 ? n / t.dim(0) : 1);
                   ForRange(ctx, n, [&](int64_t b, int64_t end) {
                     for (int64_t i = b; i < end; ++i) {
                       o[i] = c[i / group] ? tp[i] : ep[i];
                     }
                   });
                   return Status::OK();
                 }));
  }
};

// SelectV2: condition, t and e all broadcast together.
class SelectV2Op : public OpKernel {
 public:
  explicit SelectV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    BroadcastPlan te, all;
    OP_REQUIRES_OK(ctx, MakeBroadcastPlan(t.shape(), e.shape(), &te));
    OP_REQUIRES_OK(ctx, MakeBroadcastPlan(cond.shape(), te.output, &all));
    const TensorShape& shape = all.output;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    std::array<std::vector<int64_t>, 3> strides = {
        BroadcastStrides(cond.shape(), shape),
        BroadcastStrides(t.shape(), shape), BroadcastStrides(e.shape(), shape)};
    const bool* c = cond.data<bool>();
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_POD_TYPES, TW_COMPLEX_TYPES, std::string>(
                       t.dtype(), [&](auto tag) {
                         using T = decltype(tag);
                         const T* tp = t.data<T>();
                         const T* ep = e.data<T>();
                         T* o = out->data<T>();
                         ForEachBroadcast<3>(
                             ctx, shape, strides,
                             [&](int64_t i, const std::array<int64_t, 3>& off) {
                               o[i] = c[off[0]] ? tp[off[1]] : ep[off[2]];
                             });
                         return Status::OK();
                       }));
  }
};

class ClipByValueOp : public OpKernel {
 public:
  explicit ClipByValueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    for (const Tensor* bound : {&lo, &hi}) {
      OP_REQUIRES(ctx, bound->rank() == 0 || bound->shape() == t.shape(),
                  errors::InvalidArgument(
                      "ClipByValue: clip_value_min and clip_value_max must be "
                      "scalars or of the shape of t, ",
                      t.shape().ToString(), "; got ", lo.shape().ToString(),
                      " and ", hi.shape().ToString()));
    }
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, t.shape(), &out));
    const int64_t lo_step = lo.rank() == 0 ? 0 : 1;
    const int64_t hi_step = hi.rank() == 0 ? 0 : 1;
    OP_REQUIRES_OK(ctx,
                   DispatchType<TW_ALL_NUMBER_TYPES>(t.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* x = t.data<T>();
                     const T* l = lo.data<T>();
                     const T* h = hi.data<T>();
                     T* o = out->data<T>();
                     ForRange(ctx, t.num_elements(), [&](int64_t b, int64_t e) {
                       // As TensorFlow: min(t, max) first, then max(., min),
                       // so clip_value_min wins when it exceeds max.
                       for (int64_t i = b; i < e; ++i) {
                         T v = x[i] > h[i * hi_step] ? h[i * hi_step] : x[i];
                         o[i] = v < l[i * lo_step] ? l[i * lo_step] : v;
                       }
                     });
                     return Status::OK();
                   }));
  }
};

class AddNOp : public OpKernel {
 public:
  explicit AddNOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument(
                      "AddN: all inputs must have the same shape; input 0 is ",
                      first.shape().ToString(), ", input ", i, " is ",
                      ctx->input(i).shape().ToString()));
    }
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->forward_input_or_allocate_output(0, 0, first.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>(
                            first.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              T* o = out->data<T>();
                              ForRange(ctx, first.num_elements(),
                                       [&](int64_t b, int64_t e) {
                                         const T* in0 = ctx->input(0).data<T>();
                                         if (o != in0)
                                           std::copy(in0 + b, in0 + e, o + b);
                                         for (int k = 1; k < n; ++k) {
                                           const T* in =
                                               ctx->input(k).data<T>();
                                           for (int64_t i = b; i < e; ++i)
                                             o[i] = WrappingAdd(o[i], in[i]);
                                         }
                                       });
                              return Status::OK();
                            }));
  }
};

REGISTER_KERNEL(KernelDef("Select"), SelectOp);
REGISTER_KERNEL(KernelDef("SelectV2"), SelectV2Op);
// GPU: selections among int32 shapes (gradients of reductions over dynamic
// shapes) stay in host memory, as TensorFlow's GPU kernels; the CPU kernel
// runs there.
REGISTER_KERNEL(KernelDef("Select")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                SelectOp);
REGISTER_KERNEL(KernelDef("SelectV2")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                SelectV2Op);
REGISTER_KERNEL(KernelDef("AddN")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                AddNOp);
REGISTER_KERNEL(KernelDef("ClipByValue"), ClipByValueOp);
REGISTER_KERNEL(KernelDef("AddN"), AddNOp);

}  // namespace
}  // namespace tensorweave
