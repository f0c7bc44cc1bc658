#include "core/kernels/cwise_ops.h"

namespace tensorweave {

Status MakeBroadcastPlan(const TensorShape& x, const TensorShape& y,
                         BroadcastPlan* plan) {
  const int rank = std::max(x.rank(), y.rank());
  std::vector<int64_t> xd(rank, 1), yd(rank, 1), out(rank);
  for (int i = 0; i < x.rank(); ++i) xd[rank - x.rank() + i] = x.dim(i);
  for (int i = 0; i < y.rank(); ++i) yd[rank - y.rank() + i] = y.dim(i);
  for (int i = 0; i < rank; ++i) {
    if (xd[i] != yd[i] && xd[i] != 1 && yd[i] != 1) {
      return errors::InvalidArgument("Incompatible shapes: ", x.ToString(),
                                     " vs. ", y.ToString());
    }
    out[i] = xd[i] == 1 ? yd[i] : xd[i];
  }
  plan->output = TensorShape(out);
  if (x == y) {
    plan->kind = BroadcastPlan::kSameShape;
    return Status::OK();
  }
  if (x.num_elements() == 1 && plan->output.num_elements() >= 1) {
    plan->kind = BroadcastPlan::kScalarX;
    return Status::OK();
  }
  if (y.num_elements() == 1 && plan->output.num_elements() >= 1) {
    plan->kind = BroadcastPlan::kScalarY;
    return Status::OK();
  }
  if (plan->output.num_elements() == 0) {
    plan->kind = BroadcastPlan::kSameShape;  // nothing to compute
    return Status::OK();
  }
  plan->kind = BroadcastPlan::kGeneral;
  // Collapse adjacent dims that broadcast the same way, then compute strides.
  std::vector<int64_t> dims, xc, yc;
  for (int i = 0; i < rank; ++i) {
    if (out[i] == 1) continue;
    bool xb = xd[i] == 1, yb = yd[i] == 1;
    if (!dims.empty() && (xc.back() == 1) == xb && (yc.back() == 1) == yb &&
        !(xb && yb)) {
      dims.back() *= out[i];
      xc.back() *= xd[i];
      yc.back() *= yd[i];
    } else {
      dims.push_back(out[i]);
      xc.push_back(xd[i]);
      yc.push_back(yd[i]);
    }
  }
  if (dims.empty()) {
    dims = {1};
    xc = {1};
    yc = {1};
  }
  const int n = static_cast<int>(dims.size());
  plan->dims = dims;
  plan->x_strides.assign(n, 0);
  plan->y_strides.assign(n, 0);
  int64_t xs = 1, ys = 1;
  for (int i = n - 1; i >= 0; --i) {
    plan->x_strides[i] = xc[i] == 1 ? 0 : xs;
    plan->y_strides[i] = yc[i] == 1 ? 0 : ys;
    xs *= xc[i];
    ys *= yc[i];
  }
  return Status::OK();
}

namespace {

struct AddFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return x + y;
  }
};
struct SubFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return x - y;
  }
};
struct MulFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return x * y;
  }
};
// Integer division by zero has no value; it yields 0 rather than trapping
// (the CPU would raise SIGFPE).
struct DivFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      if (y == 0) return 0;
      if constexpr (std::is_signed_v<T>) {
        if (y == -1) return static_cast<T>(-x);
      }
    }
    return x / y;
  }
};
struct NegFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x) {
    return -x;
  }
};

REGISTER_KERNEL(KernelDef("Add"), BinaryOp<AddFunctor, TW_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Sub"), BinaryOp<SubFunctor, TW_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Mul"), BinaryOp<MulFunctor, TW_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Div"), BinaryOp<DivFunctor, TW_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Neg"), UnaryOp<NegFunctor, TW_REAL_TYPES>);

}  // namespace
}  // namespace tensorweave
