// Kernels of the in-place sparse variable updates (ScatterUpdate/Add/Sub/
// Mul/Div/Min/Max, ScatterNdUpdate/Add/Sub) and CountUpTo. Each updates the
// variable under its lock, in place when no reader shares the buffer and on
// a copy otherwise (readers keep their snapshot); duplicate indices apply in
// order (Update: the last wins; Add/Sub/...: all accumulate).
#include <algorithm>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/types.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

enum class ScatterKind { kUpdate, kAdd, kSub, kMul, kDiv, kMin, kMax };

std::vector<int64_t> IndexValues(const Tensor& t) {
  std::vector<int64_t> out(t.num_elements());
  if (t.dtype() == DT_INT32) {
    const int32_t* p = t.data<int32_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  } else {
    const int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
  }
  return out;
}

template <ScatterKind kKind, typename T>
Status Apply(T* dst, const T& src) {
  if constexpr (kKind == ScatterKind::kUpdate) {
    *dst = src;
  } else if constexpr (std::is_same_v<T, std::string> ||
                       std::is_same_v<T, bool>) {
    return errors::InvalidArgument(
        "string and bool variables support only updates");
  } else if constexpr (kKind == ScatterKind::kAdd) {
    *dst = WrappingAdd(*dst, src);
  } else if constexpr (kKind == ScatterKind::kSub) {
    *dst = WrappingSub(*dst, src);
  } else if constexpr (kKind == ScatterKind::kMul) {
    *dst = WrappingMul(*dst, src);
  } else if constexpr (kKind == ScatterKind::kDiv) {
    if constexpr (std::is_integral_v<T>) {
      if (src == 0) return errors::InvalidArgument("Integer division by zero");
      if constexpr (std::is_signed_v<T>) {
        if (src == -1) {
          *dst = WrappingSub(T(0), *dst);
          return Status::OK();
        }
      }
    }
    *dst = static_cast<T>(*dst / src);
  } else if constexpr (kKind == ScatterKind::kMin) {
    *dst = std::min(*dst, src);
  } else {
    *dst = std::max(*dst, src);
  }
  return Status::OK();
}

template <ScatterKind kKind, bool kNd>
class ScatterVarOp : public OpKernel {
 public:
  explicit ScatterVarOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kNd) {
      // TF's bad_indices_policy: "IGNORE" skips an index outside ref; "",
      // "DEFAULT" and "ERROR" make it an error (the op allows no other).
      std::string policy;
      ctx->SetStatus(ctx->GetAttr("bad_indices_policy", &policy));
      ignore_bad_ = policy == "IGNORE";
    }
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    std::lock_guard<std::mutex> lock(*var->mu());
    Tensor* current = var->tensor();
    OP_REQUIRES(ctx, current->valid(),
                errors::FailedPrecondition(
                    "Attempting to use uninitialized value ", var->name()));
    const TensorShape& shape = current->shape();
    std::vector<int64_t> idx = IndexValues(indices);
    // Each index names a slice of `slice` elements at offset[i].
    std::vector<int64_t> offsets;
    int64_t slice = 1;
    if constexpr (!kNd) {
      OP_REQUIRES(
          ctx, shape.rank() >= 1,
          errors::InvalidArgument("Expected ref to be at least 1-D, got ",
                                  shape.ToString()));
      slice = 1;
      for (int i = 1; i < shape.rank(); ++i) slice *= shape.dim(i);
      std::vector<int64_t> want = indices.shape().dims();
      for (int i = 1; i < shape.rank(); ++i) want.push_back(shape.dim(i));
      OP_REQUIRES(ctx,
                  updates.rank() == 0 || updates.shape() == TensorShape(want),
                  errors::InvalidArgument(
                      "updates.shape ", updates.shape().ToString(),
                      " must equal indices.shape + params.shape[1:] (",
                      TensorShape(want).ToString(), ") or be a scalar"));
      for (size_t i = 0; i < idx.size(); ++i) {
        OP_REQUIRES(
            ctx, idx[i] >= 0 && idx[i] < shape.dim(0),
            errors::InvalidArgument("indices[", i, "] = ", idx[i],
                                    " is not in [0, ", shape.dim(0), ")"));
        offsets.push_back(idx[i] * slice);
      }
    } else {
      OP_REQUIRES(ctx, indices.rank() >= 1,
                  errors::InvalidArgument("indices must be at least 1-D, got ",
                                          indices.shape().ToString()));
      const int depth =
          static_cast<int>(indices.shape().dim(indices.rank() - 1));
      OP_REQUIRES(ctx, depth <= shape.rank(),
                  errors::InvalidArgument(
                      "The last dimension of indices (", depth,
                      ") must be <= the rank of ref (", shape.rank(), ")"));
      std::vector<int64_t> want(indices.shape().dims().begin(),
                                indices.shape().dims().end() - 1);
      for (int i = depth; i < shape.rank(); ++i) {
        slice *= shape.dim(i);
        want.push_back(shape.dim(i));
      }
      OP_REQUIRES(
          ctx, updates.shape() == TensorShape(want),
          errors::InvalidArgument("updates.shape ", updates.shape().ToString(),
                                  " must equal indices.shape[:-1] + "
                                  "ref.shape[indices.shape[-1]:] (",
                                  TensorShape(want).ToString(), ")"));
      const int64_t n =
          depth == 0 ? 0 : static_cast<int64_t>(idx.size()) / depth;
      for (int64_t i = 0; i < n; ++i) {
        int64_t offset = 0;
        bool skip = false;
        for (int k = 0; k < depth; ++k) {
          const int64_t v = idx[i * depth + k];
          if ((v < 0 || v >= shape.dim(k)) && ignore_bad_) {
            skip = true;
            break;
          }
          if (v < 0 || v >= shape.dim(k)) {
            std::string where;
            for (int j = 0; j < depth; ++j) {
              where += (j ? ", " : "") + std::to_string(idx[i * depth + j]);
            }
            ctx->SetStatus(errors::InvalidArgument(
                "indices[", i, "] = [", where, "] does not index into shape ",
                shape.ToString()));
            return;
          }
          offset = offset * shape.dim(k) + v;
        }
        offsets.push_back(skip ? -1 : offset * slice);
      }
    }
    Tensor target =
        current->BufferUniquelyOwned() ? *current : current->DeepCopy();
    const bool scalar_update = updates.rank() == 0 && !kNd;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_POD_TYPES, std::string>(
                 current->dtype(), [&](auto tag) -> Status {
                   using T = decltype(tag);
                   T* out = target.data<T>();
                   const T* in = updates.data<T>();
                   for (size_t i = 0; i < offsets.size(); ++i) {
                     if (offsets[i] < 0) continue;  // ignored (IGNORE)
                     for (int64_t j = 0; j < slice; ++j) {
                       const T& src = scalar_update ? in[0] : in[i * slice + j];
                       TW_RETURN_IF_ERROR(
                           (Apply<kKind, T>(out + offsets[i] + j, src)));
                     }
                   }
                   return Status::OK();
                 }));
    *current = std::move(target);
    ctx->set_output_ref(0, var);
  }

 private:
  bool ignore_bad_ = false;
};

class CountUpToOp : public OpKernel {
 public:
  explicit CountUpToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("limit", &limit_));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    std::lock_guard<std::mutex> lock(*var->mu());
    Tensor* current = var->tensor();
    OP_REQUIRES(ctx, current->valid(),
                errors::FailedPrecondition(
                    "Attempting to use uninitialized value ", var->name()));
    OP_REQUIRES(ctx, current->rank() == 0,
                errors::InvalidArgument("input is not a scalar: ",
                                        current->shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<int32_t, int64_t>(
                            current->dtype(), [&](auto tag) -> Status {
                              using T = decltype(tag);
                              const T before = current->data<T>()[0];
                              if (before >= limit_) {
                                return errors::OutOfRange("Reached limit of ",
                                                          limit_);
                              }
                              Tensor next = current->BufferUniquelyOwned()
                                                ? *current
                                                : current->DeepCopy();
                              next.data<T>()[0] = before + 1;
                              *current = std::move(next);
                              out->data<T>()[0] = before;
                              return Status::OK();
                            }));
  }

 private:
  int64_t limit_ = 0;
};

REGISTER_KERNEL(KernelDef("ScatterUpdate"),
                ScatterVarOp<ScatterKind::kUpdate, false>);
REGISTER_KERNEL(KernelDef("ScatterAdd"),
                ScatterVarOp<ScatterKind::kAdd, false>);
REGISTER_KERNEL(KernelDef("ScatterSub"),
                ScatterVarOp<ScatterKind::kSub, false>);
REGISTER_KERNEL(KernelDef("ScatterMul"),
                ScatterVarOp<ScatterKind::kMul, false>);
REGISTER_KERNEL(KernelDef("ScatterDiv"),
                ScatterVarOp<ScatterKind::kDiv, false>);
REGISTER_KERNEL(KernelDef("ScatterMin"),
                ScatterVarOp<ScatterKind::kMin, false>);
REGISTER_KERNEL(KernelDef("ScatterMax"),
                ScatterVarOp<ScatterKind::kMax, false>);
REGISTER_KERNEL(KernelDef("ScatterNdUpdate"),
                ScatterVarOp<ScatterKind::kUpdate, true>);
REGISTER_KERNEL(KernelDef("ScatterNdAdd"),
                ScatterVarOp<ScatterKind::kAdd, true>);
REGISTER_KERNEL(KernelDef("ScatterNdSub"),
                ScatterVarOp<ScatterKind::kSub, true>);
REGISTER_KERNEL(KernelDef("CountUpTo"), CountUpToOp);

}  // namespace
}  // namespace tensorweave
