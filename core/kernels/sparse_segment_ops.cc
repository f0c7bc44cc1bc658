// SparseSegmentSum/Mean/SqrtN (+ WithNumSegments): out[segment_ids[i]]
// reduces data[indices[i]]. Bad indices or ids are InvalidArgument errors
// naming the position, checked before any element moves.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

enum class Kind { kSum, kMean, kSqrtN };

template <Kind kKind, bool kWithNum>
class SparseSegmentOp : public OpKernel {
 public:
  explicit SparseSegmentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& idx_t = ctx->input(1);
    const Tensor& seg_t = ctx->input(2);
    OP_REQUIRES(ctx, data.rank() >= 1,
                errors::InvalidArgument("data must be at least rank 1, got ",
                                        data.shape().ToString()));
    OP_REQUIRES(
        ctx, idx_t.rank() == 1 && seg_t.rank() == 1,
        errors::InvalidArgument(
            "indices and segment_ids should be vectors, got ",
            idx_t.shape().ToString(), " and ", seg_t.shape().ToString()));
    OP_REQUIRES(ctx, idx_t.dim(0) == seg_t.dim(0),
                errors::InvalidArgument(
                    "segment_ids and indices should have same size, got ",
                    seg_t.dim(0), " and ", idx_t.dim(0)));
    std::vector<int64_t> idx, seg;
    OP_REQUIRES_OK(ctx, ReadIndexVector(idx_t, &idx));
    OP_REQUIRES_OK(ctx, ReadIndexVector(seg_t, &seg));
    const int64_t rows = data.dim(0);
    // The last id + 1; an id of INT64_MAX is out of range below (its + 1
    // would overflow).
    int64_t num_segments = seg.empty() ? 0
                           : seg.back() == std::numeric_limits<int64_t>::max()
                               ? seg.back()
                               : seg.back() + 1;
    if (kWithNum) {
      std::vector<int64_t> num;
      OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(3), &num));
      OP_REQUIRES(ctx, ctx->input(3).rank() == 0 && num[0] >= 0,
                  errors::InvalidArgument(
                      "num_segments must be a non-negative scalar, got ",
                      ctx->input(3).DebugString()));
      num_segments = num[0];
    }
    for (size_t i = 1; i < seg.size(); ++i) {
      OP_REQUIRES(ctx, i == 0 || seg[i - 1] <= seg[i],
                  errors::InvalidArgument(
                      "segment ids are not increasing: ", seg[i - 1],
                      " at position ", i - 1, " before ", seg[i]));
    }
    for (size_t i = 0; i < idx.size(); ++i) {
      OP_REQUIRES(ctx, idx[i] >= 0 && idx[i] < rows,
                  errors::InvalidArgument("indices[", i, "] = ", idx[i],
                                          " is not in range [0, ", rows, ")"));
      OP_REQUIRES(
          ctx, seg[i] >= 0 && seg[i] < num_segments,
          errors::InvalidArgument("segment_ids[", i, "] = ", seg[i],
                                  " is out of range [0, ", num_segments, ")"));
    }
    std::vector<int64_t> dims = data.shape().dims();
    dims[0] = num_segments;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t inner = rows == 0 ? 0 : data.num_elements() / rows;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(data.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* in = data.data<T>();
          T* o = out->data<T>();
          for (int64_t k = 0; k < out->num_elements(); ++k) o[k] = T(0);
          if (inner == 0) return Status::OK();  // num_segments may be huge
          for (size_t i = 0; i < idx.size(); ++i) {
            T* dst = o + seg[i] * inner;
            const T* src = in + idx[i] * inner;
            for (int64_t j = 0; j < inner; ++j) dst[j] += src[j];
          }
          // The ids are sorted: each segment's count is the length of its run
          // (no table of num_segments counts).
          for (size_t begin = 0; kKind != Kind::kSum && begin < seg.size();) {
            size_t end = begin + 1;
            while (end < seg.size() && seg[end] == seg[begin]) ++end;
            const T count = static_cast<T>(end - begin);
            const T scale =
                kKind == Kind::kMean ? T(1) / count : T(1) / std::sqrt(count);
            T* dst = o + seg[begin] * inner;
            for (int64_t j = 0; j < inner; ++j) dst[j] *= scale;
            begin = end;
          }
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("SparseSegmentSum"),
                SparseSegmentOp<Kind::kSum, false>);
REGISTER_KERNEL(KernelDef("SparseSegmentMean"),
                SparseSegmentOp<Kind::kMean, false>);
REGISTER_KERNEL(KernelDef("SparseSegmentSqrtN"),
                SparseSegmentOp<Kind::kSqrtN, false>);
REGISTER_KERNEL(KernelDef("SparseSegmentSumWithNumSegments"),
                SparseSegmentOp<Kind::kSum, true>);
REGISTER_KERNEL(KernelDef("SparseSegmentMeanWithNumSegments"),
                SparseSegmentOp<Kind::kMean, true>);
REGISTER_KERNEL(KernelDef("SparseSegmentSqrtNWithNumSegments"),
                SparseSegmentOp<Kind::kSqrtN, true>);

}  // namespace
}  // namespace tensorweave
