// Segment reductions. Ids are checked before any element moves: unsorted or
// negative sorted ids, and unsorted ids >= num_segments, are InvalidArgument
// errors naming the position; negative unsorted ids are dropped (TensorFlow).
#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

// Each reducer: the value of an empty segment, how an element joins the
// accumulator, and the final value from the accumulator and the count.
struct SumReducer {
  static constexpr bool kOrders = false;  // Min/Max compare: no complex dtypes
  template <typename T>
  static T Init() {
    return T(0);
  }
  template <typename T>
  static T Combine(T acc, T x) {
    return WrappingAdd(acc, x);
  }
  template <typename T>
  static T Finish(T acc, int64_t) {
    return acc;
  }
};
struct MeanReducer : SumReducer {
  // Integers divide as int64: the count as T may wrap to 0 or -1 (uint8
  // 256, int8 255), a division by zero or an overflow.
  template <typename T>
  static T Finish(T acc, int64_t count) {
    if (count == 0) return T(0);
    if constexpr (kWrapsAround<T>) {
      if constexpr (std::is_unsigned_v<T>) {
        return static_cast<T>(static_cast<uint64_t>(acc) /
                              static_cast<uint64_t>(count));
      } else {
        return static_cast<T>(static_cast<int64_t>(acc) / count);
      }
    } else {
      return static_cast<T>(acc / static_cast<T>(count));
    }
  }
};
struct ProdReducer {
  static constexpr bool kOrders = false;
  template <typename T>
  static T Init() {
    return T(1);
  }
  template <typename T>
  static T Combine(T acc, T x) {
    return WrappingMul(acc, x);
  }
  template <typename T>
  static T Finish(T acc, int64_t) {
    return acc;
  }
};
// kEmptyIsZero: the sorted ops give 0 for an empty segment; the unsorted
// ones the identity (the dtype's largest or lowest value).
template <bool kEmptyIsZero>
struct MinReducer {
  static constexpr bool kOrders = true;
  template <typename T>
  static T Init() {
    return std::numeric_limits<T>::max();
  }
  template <typename T>
  static T Combine(T acc, T x) {
    return (x < acc || x != x) ? x : acc;
  }
  template <typename T>
  static T Finish(T acc, int64_t count) {
    return kEmptyIsZero && count == 0 ? T(0) : acc;
  }
};
template <bool kEmptyIsZero>
struct MaxReducer {
  static constexpr bool kOrders = true;
  template <typename T>
  static T Init() {
    return std::numeric_limits<T>::lowest();
  }
  template <typename T>
  static T Combine(T acc, T x) {
    return (x > acc || x != x) ? x : acc;
  }
  template <typename T>
  static T Finish(T acc, int64_t count) {
    return kEmptyIsZero && count == 0 ? T(0) : acc;
  }
};

// out[ids[i]] (rows of `inner` elements) reduces data's row i; ids < 0 are
// skipped.
template <typename Reducer>
Status Reduce(OpKernelContext* ctx, const Tensor& data,
              const std::vector<int64_t>& ids, int64_t num_segments,
              int64_t inner, Tensor* out) {
  auto reduce = [&](auto tag) {
    using T = decltype(tag);
    const T* in = data.data<T>();
    T* o = out->data<T>();
    // No rows: nothing to reduce, and num_segments (not bounded by the
    // output's size then) must not size a table or a loop.
    if (inner == 0 || out->num_elements() == 0) return Status::OK();
    std::vector<int64_t> count(num_segments, 0);
    std::fill(o, o + out->num_elements(), Reducer::template Init<T>());
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0) continue;
      ++count[ids[i]];
      T* dst = o + ids[i] * inner;
      const T* src = in + i * inner;
      for (int64_t j = 0; j < inner; ++j) {
        dst[j] = Reducer::Combine(dst[j], src[j]);
      }
    }
    ForRows(ctx, num_segments, inner, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s) {
        for (int64_t j = 0; j < inner; ++j) {
          o[s * inner + j] = Reducer::Finish(o[s * inner + j], count[s]);
        }
      }
    });
    return Status::OK();
  };
  if constexpr (Reducer::kOrders) {
    return DispatchType<TW_NUMBER_TYPES, TW_SMALL_INT_TYPES>(data.dtype(),
                                                             reduce);
  } else {
    return DispatchType<TW_NUMBER_TYPES, TW_SMALL_INT_TYPES, TW_COMPLEX_TYPES>(
        data.dtype(), reduce);
  }
}

Status FlatIds(const Tensor& ids_tensor, std::vector<int64_t>* ids) {
  Tensor flat;
  TW_RETURN_IF_ERROR(
      ids_tensor.Reshaped(TensorShape({ids_tensor.num_elements()}), &flat));
  return ReadIndexVector(flat, ids);
}

template <typename Reducer>
class SegmentOp : public OpKernel {
 public:
  explicit SegmentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_tensor = ctx->input(1);
    OP_REQUIRES(ctx, ids_tensor.rank() == 1,
                errors::InvalidArgument("segment_ids should be a vector, got "
                                        "shape ",
                                        ids_tensor.shape().ToString()));
    OP_REQUIRES(
        ctx, data.rank() >= 1 && data.dim(0) == ids_tensor.dim(0),
        errors::InvalidArgument(
            "segment_ids should be the same size as dimension 0 of "
            "input, got ",
            ids_tensor.shape().ToString(), " and ", data.shape().ToString()));
    std::vector<int64_t> ids;
    OP_REQUIRES_OK(ctx, FlatIds(ids_tensor, &ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      OP_REQUIRES(ctx, ids[i] >= 0,
                  errors::InvalidArgument("segment ids must be >= 0, got ",
                                          ids[i], " at position ", i));
      OP_REQUIRES(ctx, i == 0 || ids[i - 1] <= ids[i],
                  errors::InvalidArgument(
                      "segment ids are not increasing: ", ids[i - 1],
                      " at position ", i - 1, " before ", ids[i]));
    }
    // The last id + 1 (an id of INT64_MAX has no + 1: too many segments).
    OP_REQUIRES(ctx,
                ids.empty() || ids.back() < std::numeric_limits<int64_t>::max(),
                errors::InvalidArgument("segment id ", ids.back(),
                                        " gives too many segments"));
    const int64_t num_segments = ids.empty() ? 0 : ids.back() + 1;
    std::vector<int64_t> dims = data.shape().dims();
    dims[0] = num_segments;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t inner =
        data.dim(0) == 0 ? 0 : data.num_elements() / data.dim(0);
    OP_REQUIRES_OK(ctx,
                   Reduce<Reducer>(ctx, data, ids, num_segments, inner, out));
  }
};

template <typename Reducer>
class UnsortedSegmentOp : public OpKernel {
 public:
  explicit UnsortedSegmentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& ids_tensor = ctx->input(1);
    std::vector<int64_t> num;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &num));
    OP_REQUIRES(ctx,
                ctx->input(2).rank() == 0 && num.size() == 1 && num[0] >= 0,
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
    std::vector<int64_t> ids;
    OP_REQUIRES_OK(ctx, FlatIds(ids_tensor, &ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      OP_REQUIRES(
          ctx, ids[i] < num_segments,
          errors::InvalidArgument("segment_ids[", i, "] = ", ids[i],
                                  " is out of range [0, ", num_segments, ")"));
    }
    std::vector<int64_t> dims = {num_segments};
    dims.insert(dims.end(), data.shape().dims().begin() + ids_tensor.rank(),
                data.shape().dims().end());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t inner =
        ids.empty() ? 0
                    : data.num_elements() / static_cast<int64_t>(ids.size());
    OP_REQUIRES_OK(ctx,
                   Reduce<Reducer>(ctx, data, ids, num_segments, inner, out));
  }
};

REGISTER_KERNEL(KernelDef("SegmentSum"), SegmentOp<SumReducer>);
REGISTER_KERNEL(KernelDef("SegmentMean"), SegmentOp<MeanReducer>);
REGISTER_KERNEL(KernelDef("SegmentProd"), SegmentOp<ProdReducer>);
REGISTER_KERNEL(KernelDef("SegmentMin"), SegmentOp<MinReducer<true>>);
REGISTER_KERNEL(KernelDef("SegmentMax"), SegmentOp<MaxReducer<true>>);
REGISTER_KERNEL(KernelDef("UnsortedSegmentProd"),
                UnsortedSegmentOp<ProdReducer>);
REGISTER_KERNEL(KernelDef("UnsortedSegmentMin"),
                UnsortedSegmentOp<MinReducer<false>>);
REGISTER_KERNEL(KernelDef("UnsortedSegmentMax"),
                UnsortedSegmentOp<MaxReducer<false>>);

}  // namespace
}  // namespace tensorweave
