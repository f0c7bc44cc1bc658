// Kernels that only move elements: ReverseV2, Roll, ReverseSequence,
// BroadcastTo, SpaceToDepth, DepthToSpace, SpaceToBatchND, BatchToSpaceND
// and ExtractImagePatches. Each says, for every output element, which input
// element it reads (or none: a zero), and one copy does the rest.
#include <cstdint>
#include <limits>
#include <string>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

// Allocates output 0 of `out_shape` and fills it by `source`, which gives
// the flat input position each output element reads (-1: a zero).
template <typename SourceFn>
Status CopyFromSource(OpKernelContext* ctx, const Tensor& in,
                      const TensorShape& out_shape, const SourceFn& source) {
  Tensor* out;
  TW_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
  const int64_t n = out->num_elements();
  if (n == 0) return Status::OK();
  std::vector<int64_t> src(n);
  const std::vector<int64_t>& dims = out_shape.dims();
  std::vector<int64_t> index(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    src[i] = source(index);
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
  return DispatchType<TW_ARRAY_TYPES>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.data<T>();
    T* o = out->data<T>();
    for (int64_t i = 0; i < n; ++i) o[i] = src[i] < 0 ? T() : x[src[i]];
    return Status::OK();
  });
}

// Allocates output 0 of `out_shape` and fills it by offset tables (one per
// output dim: element (i0, ..., ik) reads table[0][i0] + ... + table[k][ik]),
// in parallel over rows: the rearrangements whose dims map independently.
// The tables come from make_tables(), called once the output is allocated
// (so a hostile size is the allocation's error, never a huge table).
template <typename MakeTables>
Status CopyByTables(OpKernelContext* ctx, const Tensor& in,
                    const TensorShape& out_shape,
                    const MakeTables& make_tables) {
  Tensor* out;
  TW_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
  if (out->num_elements() == 0) return Status::OK();
  const OffsetTables tables = make_tables();
  return DispatchType<TW_ARRAY_TYPES>(in.dtype(), [&](auto tag) {
    using T = decltype(tag);
    GatherByTables(ctx, in.data<T>(), tables, out->data<T>());
    return Status::OK();
  });
}

int64_t Flat(const std::vector<int64_t>& index,
             const std::vector<int64_t>& strides) {
  int64_t flat = 0;
  for (size_t d = 0; d < index.size(); ++d) flat += index[d] * strides[d];
  return flat;
}

// An axis argument: each value in [-rank, rank), made non-negative.
Status ReadAxes(const Tensor& t, int rank, std::vector<int64_t>* axes) {
  Tensor flat;
  TW_RETURN_IF_ERROR(t.Reshaped(TensorShape({t.num_elements()}), &flat));
  TW_RETURN_IF_ERROR(ReadIndexVector(flat, axes));
  for (int64_t& a : *axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument("axis ", a, " is out of valid range [",
                                     -rank, ", ", rank, ")");
    }
    if (a < 0) a += rank;
  }
  return Status::OK();
}

class ReverseV2Op : public OpKernel {
 public:
  explicit ReverseV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, ctx->input(1).rank() == 1,
                errors::InvalidArgument("'dims' must be 1-dimension, not ",
                                        ctx->input(1).rank()));
    std::vector<int64_t> axes;
    OP_REQUIRES_OK(ctx, ReadAxes(ctx->input(1), x.rank(), &axes));
    std::vector<bool> flip(x.rank(), false);
    for (int64_t a : axes) {
      OP_REQUIRES(
          ctx, !flip[a],
          errors::InvalidArgument("axis ", a, " specified more than once."));
      flip[a] = true;
    }
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OP_REQUIRES_OK(ctx, CopyByTables(ctx, x, x.shape(), [&] {
                     OffsetTables tables(x.rank());
                     for (int d = 0; d < x.rank(); ++d) {
                       const int64_t n = x.dim(d);
                       tables[d] = flip[d]
                                       ? AffineTable(n, n - 1, -1, strides[d])
                                       : AffineTable(n, 0, 1, strides[d]);
                     }
                     return tables;
                   }));
  }
};

class RollOp : public OpKernel {
 public:
  explicit RollOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& shift_t = ctx->input(1);
    const Tensor& axis_t = ctx->input(2);
    OP_REQUIRES(ctx, x.rank() >= 1,
                errors::InvalidArgument("input must be 1-D or higher"));
    OP_REQUIRES(ctx, shift_t.rank() <= 1 && axis_t.rank() <= 1,
                errors::InvalidArgument(
                    "shift and axis must be a scalar or a 1-D vector"));
    OP_REQUIRES(
        ctx, shift_t.num_elements() == axis_t.num_elements(),
        errors::InvalidArgument("shift and axis must have the same size, got ",
                                shift_t.shape().ToString(), " and ",
                                axis_t.shape().ToString()));
    std::vector<int64_t> shifts, axes;
    Tensor flat;
    OP_REQUIRES_OK(
        ctx, shift_t.Reshaped(TensorShape({shift_t.num_elements()}), &flat));
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &shifts));
    OP_REQUIRES_OK(ctx, ReadAxes(axis_t, x.rank(), &axes));
    std::vector<int64_t> total(x.rank(), 0);
    for (size_t i = 0; i < axes.size(); ++i) total[axes[i]] += shifts[i];
    for (int d = 0; d < x.rank(); ++d) {
      if (x.dim(d) > 0)
        total[d] = ((total[d] % x.dim(d)) + x.dim(d)) % x.dim(d);
    }
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OP_REQUIRES_OK(ctx, CopyByTables(ctx, x, x.shape(), [&] {
                     OffsetTables tables(x.rank());
                     for (int d = 0; d < x.rank(); ++d) {
                       tables[d].resize(x.dim(d));
                       for (int64_t i = 0; i < x.dim(d); ++i) {
                         int64_t j = i - total[d];
                         if (j < 0) j += x.dim(d);
                         tables[d][i] = j * strides[d];
                       }
                     }
                     return tables;
                   }));
  }
};

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("seq_dim", &seq_dim_));
    ctx->SetStatus(ctx->GetAttr("batch_dim", &batch_dim_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& lengths_t = ctx->input(1);
    const int rank = x.rank();
    OP_REQUIRES(
        ctx,
        seq_dim_ >= 0 && seq_dim_ < rank && batch_dim_ >= 0 &&
            batch_dim_ < rank && seq_dim_ != batch_dim_,
        errors::InvalidArgument("Invalid seq_dim ", seq_dim_, " or batch_dim ",
                                batch_dim_, " for input of rank ", rank));
    OP_REQUIRES(ctx, lengths_t.rank() == 1,
                errors::InvalidArgument("seq_lens input must be 1-dim, not ",
                                        lengths_t.rank()));
    OP_REQUIRES(
        ctx, lengths_t.dim(0) == x.dim(static_cast<int>(batch_dim_)),
        errors::InvalidArgument("Length of seq_lens != input.dims(", batch_dim_,
                                "), (", lengths_t.dim(0), " vs. ",
                                x.dim(static_cast<int>(batch_dim_)), ")"));
    std::vector<int64_t> lengths;
    OP_REQUIRES_OK(ctx, ReadIndexVector(lengths_t, &lengths));
    const int64_t max_len = x.dim(static_cast<int>(seq_dim_));
    for (size_t b = 0; b < lengths.size(); ++b) {
      OP_REQUIRES(ctx, lengths[b] >= 0 && lengths[b] <= max_len,
                  errors::InvalidArgument("seq_lens(", b, ") = ", lengths[b],
                                          " is not in [0, input.dims(",
                                          seq_dim_, ") = ", max_len, "]"));
    }
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OP_REQUIRES_OK(ctx,
                   CopyFromSource(ctx, x, x.shape(), [&](const auto& index) {
                     int64_t flat = Flat(index, strides);
                     const int64_t s = index[seq_dim_];
                     const int64_t len = lengths[index[batch_dim_]];
                     if (s < len) flat += (len - 1 - 2 * s) * strides[seq_dim_];
                     return flat;
                   }));
  }

 private:
  int64_t seq_dim_ = 0, batch_dim_ = 0;
};

class BroadcastToOp : public OpKernel {
 public:
  explicit BroadcastToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> shape;
    OP_REQUIRES(ctx, ctx->input(1).rank() == 1,
                errors::InvalidArgument("shape must be a vector, got shape ",
                                        ctx->input(1).shape().ToString()));
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &shape));
    const int out_rank = static_cast<int>(shape.size());
    const int offset = out_rank - x.rank();
    bool ok = offset >= 0;
    for (int d = 0; ok && d < x.rank(); ++d) {
      ok = x.dim(d) == 1 || x.dim(d) == shape[offset + d];
    }
    for (int64_t d : shape) ok = ok && d >= 0;
    OP_REQUIRES(
        ctx, ok,
        errors::InvalidArgument("Unable to broadcast tensor of shape ",
                                x.shape().ToString(), " to tensor of shape ",
                                TensorShape(shape).ToString()));
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OP_REQUIRES_OK(ctx, CopyByTables(ctx, x, TensorShape(shape), [&] {
                     OffsetTables tables(out_rank);
                     for (int d = 0; d < out_rank; ++d) {
                       const int in_d = d - offset;
                       const bool repeat = in_d < 0 || x.dim(in_d) == 1;
                       tables[d] = AffineTable(shape[d], 0, repeat ? 0 : 1,
                                               repeat ? 0 : strides[in_d]);
                     }
                     return tables;
                   }));
  }
};

template <bool kToDepth>
class SpaceDepthOp : public OpKernel {
 public:
  explicit SpaceDepthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("block_size", &block_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.rank() == 4,
                errors::InvalidArgument("Input rank should be: 4 instead of: ",
                                        x.rank()));
    // block_size is an int32 in TensorFlow: b * b fits int64, the dims
    // times it may not (an error, not a wrapped shape).
    OP_REQUIRES(ctx,
                block_ >= 2 && block_ <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("Attr block_size has value ", block_,
                                        " out of range for an int32 >= 2"));
    const int64_t b = block_, n = x.dim(0), h = x.dim(1), w = x.dim(2),
                  c = x.dim(3);
    std::vector<int64_t> dims;
    bool fits = true;
    if (kToDepth) {
      OP_REQUIRES(ctx, h % b == 0 && w % b == 0,
                  errors::InvalidArgument("Image width ", w, " and height ", h,
                                          " should be divisible by "
                                          "block_size: ",
                                          b));
      dims = {n, h / b, w / b, 0};
      fits = MultiplyWithoutOverflow(c, b * b, &dims[3]);
    } else {
      OP_REQUIRES(ctx, c % (b * b) == 0,
                  errors::InvalidArgument("Input depth dimension ", c,
                                          " should be divisible by: ", b * b));
      dims = {n, 0, 0, c / (b * b)};
      fits = MultiplyWithoutOverflow(h, b, &dims[1]) &&
             MultiplyWithoutOverflow(w, b, &dims[2]);
    }
    OP_REQUIRES(
        ctx, fits,
        errors::InvalidArgument("the output shape of ", x.shape().ToString(),
                                " with block_size ", b, " overflows int64"));
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OP_REQUIRES_OK(
        ctx, CopyFromSource(ctx, x, TensorShape(dims), [&](const auto& i) {
          if (kToDepth) {
            const int64_t oc = c;
            const int64_t k = i[3] / oc;
            return Flat({i[0], i[1] * b + k / b, i[2] * b + k % b, i[3] % oc},
                        strides);
          }
          const int64_t oc = dims[3];
          return Flat({i[0], i[1] / b, i[2] / b,
                       ((i[1] % b) * b + i[2] % b) * oc + i[3]},
                      strides);
        }));
  }

 private:
  int64_t block_ = 2;
};

// SpaceToBatchND (kToBatch) and BatchToSpaceND.
template <bool kToBatch>
class SpaceBatchOp : public OpKernel {
 public:
  explicit SpaceBatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& block_t = ctx->input(1);
    const Tensor& pads_t = ctx->input(2);
    OP_REQUIRES(ctx, block_t.rank() == 1,
                errors::InvalidArgument("block_shape must be 1-D, got shape ",
                                        block_t.shape().ToString()));
    std::vector<int64_t> block, pads;
    OP_REQUIRES_OK(ctx, ReadIndexVector(block_t, &block));
    const int m = static_cast<int>(block.size());
    OP_REQUIRES(
        ctx, pads_t.rank() == 2 && pads_t.dim(0) == m && pads_t.dim(1) == 2,
        errors::InvalidArgument(kToBatch ? "paddings" : "crops",
                                " should have shape [", m, ", 2] instead of ",
                                pads_t.shape().ToString()));
    Tensor flat;
    OP_REQUIRES_OK(
        ctx, pads_t.Reshaped(TensorShape({pads_t.num_elements()}), &flat));
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &pads));
    OP_REQUIRES(ctx, x.rank() >= m + 1,
                errors::InvalidArgument("input rank should be >= ", m + 1,
                                        " instead of ", x.rank()));
    int64_t prod = 1;
    for (int i = 0; i < m; ++i) {
      OP_REQUIRES(ctx, block[i] >= 1,
                  errors::InvalidArgument("block_shape must be positive"));
      OP_REQUIRES(ctx, pads[2 * i] >= 0 && pads[2 * i + 1] >= 0,
                  errors::InvalidArgument(kToBatch ? "paddings" : "crops",
                                          " must be non-negative"));
      OP_REQUIRES(
          ctx, MultiplyWithoutOverflow(prod, block[i], &prod),
          errors::InvalidArgument("the product of block_shape ",
                                  block_t.DebugString(), " overflows int64"));
    }
    // Sizes from hostile blocks and paddings are checked, not wrapped.
    const auto too_large = [&](const char* what) {
      return errors::InvalidArgument(what, " of input shape ",
                                     x.shape().ToString(), " overflows int64");
    };
    std::vector<int64_t> dims = x.shape().dims();
    int64_t batch;  // the batch of the space-side tensor
    if (kToBatch) {
      batch = x.dim(0);
      OP_REQUIRES(ctx, MultiplyWithoutOverflow(batch, prod, &dims[0]),
                  too_large("the output batch"));
      for (int i = 0; i < m; ++i) {
        int64_t padded = 0;
        OP_REQUIRES(ctx,
                    AddWithoutOverflow(x.dim(i + 1), pads[2 * i], &padded) &&
                        AddWithoutOverflow(padded, pads[2 * i + 1], &padded),
                    too_large("a padded dimension"));
        OP_REQUIRES(ctx, padded % block[i] == 0,
                    errors::InvalidArgument("padded_shape[", i, "]=", padded,
                                            " is not divisible by block_shape[",
                                            i, "]=", block[i]));
        dims[i + 1] = padded / block[i];
      }
    } else {
      OP_REQUIRES(
          ctx, x.dim(0) % prod == 0,
          errors::InvalidArgument(
              "Input batch dimension (", x.dim(0),
              ") is not divisible by product of block sizes (", prod, ")"));
      batch = x.dim(0) / prod;
      dims[0] = batch;
      for (int i = 0; i < m; ++i) {
        int64_t full = 0, crop = 0;
        OP_REQUIRES(ctx,
                    MultiplyWithoutOverflow(x.dim(i + 1), block[i], &full) &&
                        AddWithoutOverflow(pads[2 * i], pads[2 * i + 1], &crop),
                    too_large("a block-scaled dimension"));
        OP_REQUIRES(ctx, crop <= full,
                    errors::InvalidArgument("Cropped size must be "
                                            "non-negative: crops ",
                                            pads[2 * i], "+", pads[2 * i + 1],
                                            " > ", full));
        dims[i + 1] = full - pads[2 * i] - pads[2 * i + 1];
      }
    }
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OP_REQUIRES_OK(
        ctx, CopyFromSource(ctx, x, TensorShape(dims), [&](const auto& i) {
          std::vector<int64_t> src(i);
          if (kToBatch) {
            // Output batch bo * batch + b reads block offset bo of batch b.
            int64_t bo = i[0] / batch;
            src[0] = i[0] % batch;
            for (int d = m - 1; d >= 0; --d) {
              const int64_t offset = bo % block[d];
              bo /= block[d];
              const int64_t p = i[d + 1] * block[d] + offset - pads[2 * d];
              if (p < 0 || p >= x.dim(d + 1)) return int64_t{-1};
              src[d + 1] = p;
            }
          } else {
            int64_t bo = 0;
            for (int d = 0; d < m; ++d) {
              const int64_t p = i[d + 1] + pads[2 * d];
              bo = bo * block[d] + p % block[d];
              src[d + 1] = p / block[d];
            }
            src[0] = bo * batch + i[0];
          }
          return Flat(src, strides);
        }));
  }
};

class ExtractImagePatchesOp : public OpKernel {
 public:
  explicit ExtractImagePatchesOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("ksizes", &ksizes_));
    ctx->SetStatus(ctx->GetAttr("strides", &strides_));
    ctx->SetStatus(ctx->GetAttr("rates", &rates_));
    ctx->SetStatus(ctx->GetAttr("padding", &padding_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.rank() == 4,
                errors::InvalidArgument("input must be 4-dimensional, got ",
                                        x.shape().ToString()));
    OP_REQUIRES(ctx,
                ksizes_.size() == 4 && strides_.size() == 4 &&
                    rates_.size() == 4 && ksizes_[1] >= 1 && ksizes_[2] >= 1 &&
                    strides_[1] >= 1 && strides_[2] >= 1 && rates_[1] >= 1 &&
                    rates_[2] >= 1,
                errors::InvalidArgument("ksizes, strides and rates must be "
                                        "[1, r, c, 1] with positive r, c"));
    for (int d = 1; d <= 2; ++d) {
      OP_REQUIRES(
          ctx, ksizes_[d] <= (1 << 20) && rates_[d] <= (1 << 20),
          errors::InvalidArgument("ksizes and rates must be at most ", 1 << 20,
                                  ", got ksizes[", d, "] = ", ksizes_[d],
                                  ", rates[", d, "] = ", rates_[d]));
    }
    int64_t depth_out = 0;
    OP_REQUIRES(
        ctx,
        !__builtin_mul_overflow(ksizes_[1] * ksizes_[2], x.dim(3), &depth_out),
        errors::InvalidArgument("the patch depth ksizes[1] * "
                                "ksizes[2] * depth overflows"));
    int64_t out[3], pad[3], k[3];
    for (int d = 1; d <= 2; ++d) {
      k[d] = ksizes_[d] + (ksizes_[d] - 1) * (rates_[d] - 1);
      if (padding_ == "VALID") {
        // As TensorFlow: an error when the window overhangs the image by at
        // least a stride.
        const int64_t size = (x.dim(d) - k[d] + strides_[d]) / strides_[d];
        OP_REQUIRES(ctx, size >= 0,
                    errors::InvalidArgument(
                        "Computed output size would be negative: ", size,
                        " [input_size: ", x.dim(d), ", effective_filter_size: ",
                        k[d], ", stride: ", strides_[d], "]"));
        out[d] = x.dim(d) < k[d] ? 0 : (x.dim(d) - k[d]) / strides_[d] + 1;
        pad[d] = 0;
      } else {
        out[d] = (x.dim(d) + strides_[d] - 1) / strides_[d];
        pad[d] =
            std::max<int64_t>(0, (out[d] - 1) * strides_[d] + k[d] - x.dim(d)) /
            2;
      }
    }
    const int64_t depth = x.dim(3), kc = ksizes_[2];
    const std::vector<int64_t> dims = {x.dim(0), out[1], out[2],
                                       ksizes_[1] * kc * depth};
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    OP_REQUIRES_OK(
        ctx, CopyFromSource(ctx, x, TensorShape(dims), [&](const auto& i) {
          const int64_t tap = i[3] / depth;
          const int64_t r =
              i[1] * strides_[1] - pad[1] + (tap / kc) * rates_[1];
          const int64_t c =
              i[2] * strides_[2] - pad[2] + (tap % kc) * rates_[2];
          if (r < 0 || r >= x.dim(1) || c < 0 || c >= x.dim(2)) {
            return int64_t{-1};
          }
          return Flat({i[0], r, c, i[3] % depth}, strides);
        }));
  }

 private:
  std::vector<int64_t> ksizes_, strides_, rates_;
  std::string padding_;
};

REGISTER_KERNEL(KernelDef("ReverseV2"), ReverseV2Op);
REGISTER_KERNEL(KernelDef("Roll"), RollOp);
REGISTER_KERNEL(KernelDef("ReverseSequence"), ReverseSequenceOp);
REGISTER_KERNEL(KernelDef("BroadcastTo"), BroadcastToOp);
REGISTER_KERNEL(KernelDef("SpaceToDepth"), SpaceDepthOp<true>);
REGISTER_KERNEL(KernelDef("DepthToSpace"), SpaceDepthOp<false>);
REGISTER_KERNEL(KernelDef("SpaceToBatchND"), SpaceBatchOp<true>);
REGISTER_KERNEL(KernelDef("BatchToSpaceND"), SpaceBatchOp<false>);
REGISTER_KERNEL(KernelDef("ExtractImagePatches"), ExtractImagePatchesOp);

}  // namespace
}  // namespace tensorweave
