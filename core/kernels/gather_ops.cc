// GatherV2, Gather, UnsortedSegmentSum, OneHot and Where kernels. Indices
// from the user are checked before any element moves: an out-of-range index
// is an InvalidArgument naming it, never a read outside the tensor.
#include <string>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/array_op_shapes.h"
#include "core/kernels/offset_tables.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

// "[1,2]": the position of flat element `flat` in `shape`.
std::string PositionString(const TensorShape& shape, int64_t flat) {
  if (shape.rank() == 0) return "";  // TensorFlow's "indices = 5 is not in"
  std::vector<int64_t> index(shape.rank());
  for (int d = shape.rank() - 1; d >= 0; --d) {
    index[d] = shape.dim(d) == 0 ? 0 : flat % shape.dim(d);
    flat = shape.dim(d) == 0 ? 0 : flat / shape.dim(d);
  }
  std::string out = "[";
  for (int d = 0; d < shape.rank(); ++d) {
    out += (d > 0 ? "," : "") + std::to_string(index[d]);
  }
  return out + "]";
}

// The indices as int64, each checked to lie in [0, limit).
Status ReadIndices(const Tensor& indices, int64_t limit, const char* what,
                   std::vector<int64_t>* out) {
  Tensor flat;
  TW_RETURN_IF_ERROR(
      indices.Reshaped(TensorShape({indices.num_elements()}), &flat));
  TW_RETURN_IF_ERROR(ReadIndexVector(flat, out));
  for (size_t i = 0; i < out->size(); ++i) {
    if ((*out)[i] < 0 || (*out)[i] >= limit) {
      return errors::InvalidArgument(what, PositionString(indices.shape(), i),
                                     " = ", (*out)[i], " is not in [0, ", limit,
                                     ")");
    }
  }
  return Status::OK();
}

// GatherV2 (axis from input 2) and Gather (axis 0).
class GatherOp : public OpKernel {
 public:
  explicit GatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (ctx->node().num_inputs() == 3) {
      ctx->SetStatus(ctx->GetAttr("batch_dims", &batch_dims_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices_tensor = ctx->input(1);
    int axis;
    std::vector<int64_t> out_dims;
    OP_REQUIRES_OK(ctx, GatherArgs(*ctx, batch_dims_, &axis, &out_dims));
    const int rank = params.rank();
    const int64_t limit = params.dim(axis);
    std::vector<int64_t> indices;
    OP_REQUIRES_OK(ctx,
                   ReadIndices(indices_tensor, limit, "indices", &indices));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < axis; ++d) outer *= params.dim(d);
    for (int d = static_cast<int>(axis) + 1; d < rank; ++d) {
      inner *= params.dim(d);
    }
    const int64_t n = static_cast<int64_t>(indices.size());
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ARRAY_TYPES>(params.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* in = params.data<T>();
          T* o = out->data<T>();
          // Rows are random reads of params: small ones are memory-latency
          // bound, so the row kPrefetch ahead is requested while this one is
          // copied (as GatherNd does).
          constexpr int64_t kPrefetch = 8;
          const bool prefetch = inner * static_cast<int64_t>(sizeof(T)) <= 256;
          auto source = [&](int64_t row) {
            return in + ((row / n) * limit + indices[row % n]) * inner;
          };
          ForRows(ctx, outer * n, inner, [&](int64_t begin, int64_t end) {
            for (int64_t row = begin; row < end; ++row) {
              if (prefetch && row + kPrefetch < end) {
                __builtin_prefetch(source(row + kPrefetch));
              }
              const T* src = source(row);
              std::copy(src, src + inner, o + row * inner);
            }
          });
          return Status::OK();
        }));
  }

 private:
  int64_t batch_dims_ = 0;
};

class UnsortedSegmentSumOp : public OpKernel {
 public:
  explicit UnsortedSegmentSumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_tensor = ctx->input(1);
    std::vector<int64_t> num;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &num));
    OP_REQUIRES(ctx, ctx->input(2).rank() == 0 && num[0] >= 0,
                errors::InvalidArgument(
                    "num_segments must be a non-negative scalar, got ",
                    ctx->input(2).DebugString()));
    const int64_t num_segments = num[0];
    bool prefix = ids_tensor.rank() <= data.rank();
    for (int d = 0; prefix && d < ids_tensor.rank(); ++d) {
      prefix = ids_tensor.dim(d) == data.dim(d);
    }
    OP_REQUIRES(ctx, prefix,
                errors::InvalidArgument("segment_ids shape ",
                                        ids_tensor.shape().ToString(),
                                        " is not a prefix of data shape ",
                                        data.shape().ToString()));
    Tensor flat;
    OP_REQUIRES_OK(ctx, ids_tensor.Reshaped(
                            TensorShape({ids_tensor.num_elements()}), &flat));
    std::vector<int64_t> ids;
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      OP_REQUIRES(
          ctx, ids[i] < num_segments,
          errors::InvalidArgument(
              "segment_ids", PositionString(ids_tensor.shape(), i), " = ",
              ids[i], " is out of range [0, ", num_segments, ")"));
    }
    std::vector<int64_t> out_dims = {num_segments};
    out_dims.insert(out_dims.end(),
                    data.shape().dims().begin() + ids_tensor.rank(),
                    data.shape().dims().end());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    const int64_t inner =
        ids.empty() ? 0
                    : data.num_elements() / static_cast<int64_t>(ids.size());
    OP_REQUIRES_OK(ctx, DispatchType<TW_REAL_TYPES, TW_COMPLEX_TYPES>(
                            data.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              T* o = out->data<T>();
                              std::fill(o, o + out->num_elements(), T(0));
                              const T* in = data.data<T>();
                              for (size_t i = 0; i < ids.size(); ++i) {
                                if (ids[i] < 0)
                                  continue;  // dropped, as in TensorFlow
                                T* dst = o + ids[i] * inner;
                                const T* src = in + i * inner;
                                for (int64_t j = 0; j < inner; ++j) {
                                  dst[j] = WrappingAdd(dst[j], src[j]);
                                }
                              }
                              return Status::OK();
                            }));
  }
};

class OneHotOp : public OpKernel {
 public:
  explicit OneHotOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices_tensor = ctx->input(0);
    const Tensor& depth_tensor = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    OP_REQUIRES(ctx,
                depth_tensor.rank() == 0 && on.rank() == 0 && off.rank() == 0,
                errors::InvalidArgument(
                    "depth, on_value and off_value must be scalars, got "
                    "shapes ",
                    depth_tensor.shape().ToString(), ", ",
                    on.shape().ToString(), ", ", off.shape().ToString()));
    const int64_t depth = depth_tensor.data<int32_t>()[0];
    OP_REQUIRES(
        ctx, depth >= 0,
        errors::InvalidArgument("depth must be non-negative, got: ", depth));
    const int rank = indices_tensor.rank();
    OP_REQUIRES(
        ctx, axis_ >= -1 && axis_ <= rank,
        errors::InvalidArgument("Expected axis to be -1 or between [0, ", rank,
                                "].  But received: ", axis_));
    const int axis = static_cast<int>(axis_ == -1 ? rank : axis_);
    std::vector<int64_t> out_dims = indices_tensor.shape().dims();
    out_dims.insert(out_dims.begin() + axis, depth);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    int64_t prefix = 1, suffix = 1;
    for (int d = 0; d < axis; ++d) prefix *= indices_tensor.dim(d);
    for (int d = axis; d < rank; ++d) suffix *= indices_tensor.dim(d);
    std::vector<int64_t> indices;
    if (indices_tensor.dtype() == DT_UINT8) {
      for (int64_t i = 0; i < indices_tensor.num_elements(); ++i) {
        indices.push_back(indices_tensor.data<uint8_t>()[i]);
      }
    } else if (indices_tensor.dtype() == DT_INT8) {
      for (int64_t i = 0; i < indices_tensor.num_elements(); ++i) {
        indices.push_back(indices_tensor.data<int8_t>()[i]);
      }
    } else {
      Tensor flat;
      OP_REQUIRES_OK(ctx,
                     indices_tensor.Reshaped(
                         TensorShape({indices_tensor.num_elements()}), &flat));
      OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &indices));
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ARRAY_TYPES>(on.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T on_value = on.data<T>()[0], off_value = off.data<T>()[0];
          T* o = out->data<T>();
          ForRows(ctx, prefix, depth * suffix, [&](int64_t begin, int64_t end) {
            for (int64_t p = begin; p < end; ++p) {
              T* row = o + p * depth * suffix;
              std::fill(row, row + depth * suffix, off_value);
              for (int64_t s = 0; s < suffix; ++s) {
                const int64_t index = indices[p * suffix + s];
                if (index >= 0 && index < depth)
                  row[index * suffix + s] = on_value;
              }
            }
          });
          return Status::OK();
        }));
  }

 private:
  int64_t axis_ = -1;
};

class WhereOp : public OpKernel {
 public:
  explicit WhereOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> true_positions;
    OP_REQUIRES_OK(ctx, DispatchType<TW_POD_TYPES>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* in = x.data<T>();
                     for (int64_t i = 0; i < x.num_elements(); ++i) {
                       if (in[i] != T(0)) true_positions.push_back(i);
                     }
                     return Status::OK();
                   }));
    const int rank = x.rank();
    const int64_t n = static_cast<int64_t>(true_positions.size());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n, rank}), &out));
    int64_t* o = out->data<int64_t>();
    for (int64_t i = 0; i < n; ++i) {
      int64_t flat = true_positions[i];
      for (int d = rank - 1; d >= 0; --d) {
        o[i * rank + d] = flat % x.dim(d);
        flat /= x.dim(d);
      }
    }
  }
};

REGISTER_KERNEL(KernelDef("GatherV2"), GatherOp);
REGISTER_KERNEL(KernelDef("Gather"), GatherOp);
REGISTER_KERNEL(KernelDef("UnsortedSegmentSum"), UnsortedSegmentSumOp);
REGISTER_KERNEL(KernelDef("OneHot"), OneHotOp);
REGISTER_KERNEL(KernelDef("Where"), WhereOp);

}  // namespace
}  // namespace tensorweave
