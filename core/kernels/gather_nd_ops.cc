// GatherNd, ScatterNd and TensorScatterUpdate/Add/Sub. Every index row is
// checked before any element moves: one outside the tensor is an
// InvalidArgument naming the row and its value, never a read or write
// outside the buffer.
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

// The N-d index rows of `indices` ([..., depth]) as flat slice numbers of
// `shape`'s first `depth` dims; `what` names the tensor indexed in errors.
// With `ignore_bad` (TF's bad_indices_policy IGNORE) a row outside the
// tensor is no error: its slice number is -1.
Status ReadIndexRows(const Tensor& indices, const std::vector<int64_t>& shape,
                     const char* what, std::vector<int64_t>* slices,
                     int64_t* depth_out, bool ignore_bad = false) {
  if (indices.rank() < 1) {
    return errors::InvalidArgument("indices must be at least a vector, got ",
                                   indices.shape().ToString());
  }
  const int64_t depth = indices.dim(indices.rank() - 1);
  if (depth > static_cast<int64_t>(shape.size())) {
    return errors::InvalidArgument(
        "indices.shape[-1] must be <= ", what,
        ".rank, but saw indices shape: ", indices.shape().ToString(), " and ",
        what, " shape: ", TensorShape(shape).ToString());
  }
  Tensor flat;
  TW_RETURN_IF_ERROR(
      indices.Reshaped(TensorShape({indices.num_elements()}), &flat));
  std::vector<int64_t> values;
  TW_RETURN_IF_ERROR(ReadIndexVector(flat, &values));
  int64_t n = 1;
  for (int d = 0; d + 1 < indices.rank(); ++d) n *= indices.dim(d);
  slices->assign(n, 0);
  for (int64_t r = 0; r < n; ++r) {
    int64_t slice = 0;
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t v = values[r * depth + k];
      if ((v < 0 || v >= shape[k]) && ignore_bad) {
        slice = -1;
        break;
      }
      if (v < 0 || v >= shape[k]) {
        std::string row = "[", index = "[";
        int64_t rest = r;
        std::vector<int64_t> pos(indices.rank() - 1);
        for (int d = indices.rank() - 2; d >= 0; --d) {
          pos[d] = rest % indices.dim(d);
          rest /= indices.dim(d);
        }
        for (size_t d = 0; d < pos.size(); ++d) {
          row += (d ? "," : "") + std::to_string(pos[d]);
        }
        for (int64_t j = 0; j < depth; ++j) {
          index += (j ? ", " : "") + std::to_string(values[r * depth + j]);
        }
        return errors::InvalidArgument(
            "indices", row, "] = ", index, "] does not index into ", what,
            " shape ", TensorShape(shape).ToString());
      }
      slice = slice * shape[k] + v;
    }
    (*slices)[r] = slice;
  }
  *depth_out = depth;
  return Status::OK();
}

int64_t InnerSize(const std::vector<int64_t>& shape, int64_t depth) {
  int64_t inner = 1;
  for (size_t d = depth; d < shape.size(); ++d) inner *= shape[d];
  return inner;
}

// Copies params slices to output rows in one parallel pass that reads the
// index rows as they are (int32 or int64) and checks each; a bad row is
// reported by ReadIndexRows' message (the first bad row, as before).
template <typename T, typename I, typename Copy>
bool GatherNdRowsWith(OpKernelContext* ctx, const T* in, const I* index,
                      int64_t depth, const std::vector<int64_t>& shape,
                      int64_t n, int64_t inner, T* out, bool ignore_bad,
                      Copy copy) {
  std::atomic<bool> bad{false};
  // The slice number of index row r, or -1 when the row is outside params.
  auto slice_of = [&](int64_t r) {
    const I* row = index + r * depth;
    int64_t slice = 0;
    for (int64_t k = 0; k < depth; ++k) {
      const int64_t v = static_cast<int64_t>(row[k]);
      if (v < 0 || v >= shape[k]) return int64_t{-1};  // before any overflow
      slice = slice * shape[k] + v;
    }
    return slice;
  };
  // Rows are random reads of params: the row kPrefetch ahead is requested
  // from memory while this one is copied (small rows are latency bound).
  constexpr int64_t kPrefetch = 8;
  const bool prefetch = inner * static_cast<int64_t>(sizeof(T)) <= 256;
  ForRows(ctx, n, inner + depth, [&](int64_t begin, int64_t end) {
    bool part_bad = false;
    for (int64_t r = begin; r < end; ++r) {
      if (prefetch && r + kPrefetch < end) {
        const int64_t ahead = slice_of(r + kPrefetch);
        if (ahead >= 0) __builtin_prefetch(in + ahead * inner);
      }
      const int64_t slice = slice_of(r);
      if (slice < 0 && ignore_bad) {  // TF's IGNORE: the output row is zeros
        std::fill(out + r * inner, out + (r + 1) * inner, T());
        continue;
      }
      if (slice < 0) {
        part_bad = true;
        continue;
      }
      copy(out + r * inner, in + slice * inner);
    }
    if (part_bad) bad.store(true, std::memory_order_relaxed);
  });
  return !bad.load();
}

// Slices of a few bytes (an embedding row of 8 floats) copy with a memcpy
// of a size known at compile time (a few vector moves, not a call).
template <typename T, typename I>
bool GatherNdRows(OpKernelContext* ctx, const T* in, const I* index,
                  int64_t depth, const std::vector<int64_t>& shape, int64_t n,
                  int64_t inner, T* out, bool ignore_bad) {
  auto run = [&](auto copy) {
    return GatherNdRowsWith(ctx, in, index, depth, shape, n, inner, out,
                            ignore_bad, copy);
  };
  if constexpr (std::is_trivially_copyable_v<T>) {
    auto fixed = [&](auto bytes_tag) {
      constexpr size_t kBytes = decltype(bytes_tag)::value;
      return run([](T* dst, const T* src) { std::memcpy(dst, src, kBytes); });
    };
    switch (inner * sizeof(T)) {
      case 4:
        return fixed(std::integral_constant<size_t, 4>());
      case 8:
        return fixed(std::integral_constant<size_t, 8>());
      case 16:
        return fixed(std::integral_constant<size_t, 16>());
      case 32:
        return fixed(std::integral_constant<size_t, 32>());
      case 64:
        return fixed(std::integral_constant<size_t, 64>());
      default:
        return run([inner](T* dst, const T* src) {
          std::memcpy(dst, src, inner * sizeof(T));
        });
    }
  } else {
    return run(
        [inner](T* dst, const T* src) { std::copy(src, src + inner, dst); });
  }
}

// TF's bad_indices_policy: "", "DEFAULT" and "ERROR" make an index outside
// the tensor an error on CPU; "IGNORE" skips it (GatherNd: a zero row). The
// op definitions allow no other value.
bool IgnoresBadIndices(OpKernelConstruction* ctx) {
  std::string policy;
  ctx->SetStatus(ctx->GetAttr("bad_indices_policy", &policy));
  return policy == "IGNORE";
}

class GatherNdOp : public OpKernel {
 public:
  explicit GatherNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(IgnoresBadIndices(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const std::vector<int64_t>& shape = params.shape().dims();
    OP_REQUIRES(
        ctx, indices.rank() >= 1,
        errors::InvalidArgument("indices must be at least a vector, got ",
                                indices.shape().ToString()));
    const int64_t depth = indices.dim(indices.rank() - 1);
    OP_REQUIRES(ctx, depth <= static_cast<int64_t>(shape.size()),
                errors::InvalidArgument(
                    "indices.shape[-1] must be <= params.rank, but saw "
                    "indices shape: ",
                    indices.shape().ToString(),
                    " and params shape: ", params.shape().ToString()));
    std::vector<int64_t> dims(indices.shape().dims().begin(),
                              indices.shape().dims().end() - 1);
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    OP_REQUIRES(ctx, n == 0 || params.num_elements() > 0,
                errors::InvalidArgument(
                    "Requested more than 0 entries, but params is empty.  "
                    "Params shape: ",
                    params.shape().ToString()));
    dims.insert(dims.end(), shape.begin() + depth, shape.end());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t inner = InnerSize(shape, depth);
    bool ok = true;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ARRAY_TYPES>(params.dtype(), [&](auto tag) {
          using T = decltype(tag);
          return DispatchType<int32_t, int64_t>(
              indices.dtype(), [&](auto itag) {
                using I = decltype(itag);
                ok = GatherNdRows<T, I>(ctx, params.data<T>(),
                                        indices.data<I>(), depth, shape, n,
                                        inner, out->data<T>(), ignore_bad_);
                return Status::OK();
              });
        }));
    if (!ok) {
      // The message (the first bad row and its value) from the checker.
      std::vector<int64_t> slices;
      int64_t unused = 0;
      // TensorFlow's words: "... does not index into param shape [2,2], node
      // name: GatherNd".
      Status s = ReadIndexRows(indices, shape, "param", &slices, &unused);
      OP_REQUIRES(
          ctx, s.ok(),
          errors::InvalidArgument(s.message(), ", node name: ", name()));
      ctx->SetStatus(
          errors::Internal("GatherNd: a bad index row was not "
                           "found again"));
    }
  }

 private:
  const bool ignore_bad_;
};

enum class ScatterMode { kUpdate, kAdd, kSub, kMax, kMin };

// Writes updates into `out` (already holding the base values) at `slices`.
Status ScatterInto(const Tensor& updates, const std::vector<int64_t>& slices,
                   int64_t inner, ScatterMode mode, Tensor* out) {
  const int64_t n = static_cast<int64_t>(slices.size());
  if (updates.num_elements() != n * inner) {
    return errors::InvalidArgument(
        "updates has ", updates.num_elements(), " elements (shape ",
        updates.shape().ToString(), "), the indices address ", n * inner);
  }
  if (mode == ScatterMode::kUpdate) {
    return DispatchType<TW_ARRAY_TYPES>(updates.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* u = updates.data<T>();
      T* o = out->data<T>();
      for (int64_t r = 0; r < n; ++r) {
        if (slices[r] < 0) continue;  // ignored (bad_indices_policy IGNORE)
        std::copy(u + r * inner, u + (r + 1) * inner, o + slices[r] * inner);
      }
      return Status::OK();
    });
  }
  return DispatchType<TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>(
      updates.dtype(), [&](auto tag) {
        using T = decltype(tag);
        constexpr bool kOrdered =
            !std::is_same_v<T, complex64> && !std::is_same_v<T, complex128>;
        if (!kOrdered && mode != ScatterMode::kAdd &&
            mode != ScatterMode::kSub) {
          return errors::InvalidArgument(
              "the maximum or minimum of ", DataTypeName(updates.dtype()),
              " values is not defined: complex numbers are not ordered");
        }
        const T* u = updates.data<T>();
        T* o = out->data<T>();
        for (int64_t r = 0; r < n; ++r) {
          if (slices[r] < 0) continue;  // ignored (bad_indices_policy IGNORE)
          T* dst = o + slices[r] * inner;
          const T* src = u + r * inner;
          for (int64_t j = 0; j < inner; ++j) {
            switch (mode) {
              case ScatterMode::kAdd:
                dst[j] = WrappingAdd(dst[j], src[j]);
                break;
              case ScatterMode::kSub:
                dst[j] = WrappingSub(dst[j], src[j]);
                break;
              case ScatterMode::kMax:
                if constexpr (kOrdered) {
                  if (dst[j] < src[j]) dst[j] = src[j];
                }
                break;
              default:
                if constexpr (kOrdered) {
                  if (src[j] < dst[j]) dst[j] = src[j];
                }
                break;
            }
          }
        }
        return Status::OK();
      });
}

class ScatterNdOp : public OpKernel {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(IgnoresBadIndices(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& updates = ctx->input(1);
    std::vector<int64_t> shape;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &shape));
    OP_REQUIRES(ctx, ctx->input(2).rank() == 1,
                errors::InvalidArgument("shape must be a vector, got shape ",
                                        ctx->input(2).shape().ToString()));
    for (int64_t d : shape) {
      OP_REQUIRES(ctx, d >= 0,
                  errors::InvalidArgument("shape must be non-negative, got ",
                                          TensorShape(shape).ToString()));
    }
    std::vector<int64_t> slices;
    int64_t depth = 0;
    OP_REQUIRES_OK(ctx, ReadIndexRows(indices, shape, "output", &slices, &depth,
                                      ignore_bad_));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(shape), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ARRAY_TYPES>(updates.dtype(), [&](auto tag) {
          using T = decltype(tag);
          std::fill(out->data<T>(), out->data<T>() + out->num_elements(), T());
          return Status::OK();
        }));
    OP_REQUIRES_OK(ctx, ScatterInto(updates, slices, InnerSize(shape, depth),
                                    ScatterMode::kAdd, out));
  }

 private:
  const bool ignore_bad_;
};

template <ScatterMode kMode>
class TensorScatterOp : public OpKernel {
 public:
  explicit TensorScatterOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), ignore_bad_(IgnoresBadIndices(ctx)) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tensor = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    std::vector<int64_t> slices;
    int64_t depth = 0;
    OP_REQUIRES_OK(ctx, ReadIndexRows(indices, tensor.shape().dims(), "tensor",
                                      &slices, &depth, ignore_bad_));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, tensor.shape(), &out));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ARRAY_TYPES>(tensor.dtype(), [&](auto tag) {
          using T = decltype(tag);
          std::copy(tensor.data<T>(), tensor.data<T>() + tensor.num_elements(),
                    out->data<T>());
          return Status::OK();
        }));
    OP_REQUIRES_OK(
        ctx, ScatterInto(updates, slices,
                         InnerSize(tensor.shape().dims(), depth), kMode, out));
  }

 private:
  const bool ignore_bad_;
};

REGISTER_KERNEL(KernelDef("GatherNd"), GatherNdOp);
REGISTER_KERNEL(KernelDef("ScatterNd"), ScatterNdOp);
REGISTER_KERNEL(KernelDef("TensorScatterUpdate"),
                TensorScatterOp<ScatterMode::kUpdate>);
REGISTER_KERNEL(KernelDef("TensorScatterAdd"),
                TensorScatterOp<ScatterMode::kAdd>);
REGISTER_KERNEL(KernelDef("TensorScatterSub"),
                TensorScatterOp<ScatterMode::kSub>);
REGISTER_KERNEL(KernelDef("TensorScatterMax"),
                TensorScatterOp<ScatterMode::kMax>);
REGISTER_KERNEL(KernelDef("TensorScatterMin"),
                TensorScatterOp<ScatterMode::kMin>);

}  // namespace
}  // namespace tensorweave
