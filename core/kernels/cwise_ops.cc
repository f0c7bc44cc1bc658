#include "core/kernels/cwise_ops.h"

#include <cmath>
#include <type_traits>

#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {

// True for complex64/complex128 (a copy of this lives in cwise_unary_ops.cc
// too: one definition in core/framework/types.h waits for the next change of
// that header, which rebuilds every kernel).
template <typename T>
constexpr bool kIsComplex =
    std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;

Status MakeBroadcastPlan(const TensorShape& x, const TensorShape& y,
                         BroadcastPlan* plan) {
  if (x == y) {  // the common case, without the work below
    plan->output = x;
    plan->kind = BroadcastPlan::kSameShape;
    return Status::OK();
  }
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
    return WrappingAdd(x, y);
  }
};
struct SubFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return WrappingSub(x, y);
  }
};
struct MulFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return WrappingMul(x, y);
  }
};
// Integer ops below never see a zero divisor (kChecksDivisor); the most
// negative value divided by -1 wraps instead of trapping.
struct DivFunctor : SameTypeFunctor {
  static constexpr bool kChecksDivisor = true;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      if (y == -1)
        return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
    }
    return x / y;
  }
};
struct FloorDivFunctor : SameTypeFunctor {
  static constexpr bool kChecksDivisor = true;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>) {
      return std::floor(x / y);
    } else if constexpr (std::is_signed_v<T>) {
      if (y == -1)
        return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
      T q = x / y;
      return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    } else {
      return x / y;
    }
  }
};
struct FloorModFunctor : SameTypeFunctor {
  static constexpr bool kChecksDivisor = true;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_floating_point_v<T>) {
      T r = std::fmod(x, y);
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    } else {
      if (y == -1) return 0;
      T r = x % y;
      return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
    }
  }
};
// NaN in either operand gives NaN (as TensorFlow). The select vectorizes
// under the dynamic cost model (BUILD); without it GCC's -O2 compiles the
// `||` to a branch, ~10x slower than a plain max on random data.
struct MaximumFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return (x > y || x != x) ? x : y;
  }
};
struct MinimumFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    return (x < y || x != x) ? x : y;
  }
};
// Integers to negative integer powers have no integer value: rejected (as
// TensorFlow) by a check of the exponents before the functor runs.
struct PowFunctor : SameTypeFunctor {
  static constexpr bool kChecksNegativeExponent = true;
  template <typename T>
  static T Apply(T x, T y) {
    if constexpr (std::is_integral_v<T>) {
      using U = WrapType<T>;  // no promotion to a signed int
      U result = 1, base = static_cast<U>(x);
      for (T e = y; e > 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return static_cast<T>(result);
    } else {
      return std::pow(x, y);
    }
  }
};
struct SquaredDifferenceFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T x, T y) {
    T d = WrappingSub(x, y);
    if constexpr (kIsComplex<T>) {
      return d * std::conj(d);  // |x - y|^2, as TensorFlow
    } else {
      return WrappingMul(d, d);
    }
  }
};

// The *Grad ops: x is the forward output y, y the incoming gradient dy. For
// complex dtypes the derivative is conjugated (TensorFlow's rule: the
// gradient of a real loss w.r.t. z is dL/dRe(z) + i dL/dIm(z)): inside the
// kernel for Sqrt/Rsqrt/ReciprocalGrad, and by the gradient function, which
// passes conj(y), for TanhGrad and SigmoidGrad (TensorFlow's kernels of
// these two do not conjugate; a graph it wrote computes the same here).
template <typename T>
T Conjugate(T x) {
  if constexpr (kIsComplex<T>) {
    return std::conj(x);
  } else {
    return x;
  }
}
struct TanhGradFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T y, T dy) {
    return dy * (T(1) - y * y);
  }
};
struct SigmoidGradFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T y, T dy) {
    return dy * (y * (T(1) - y));
  }
};
struct SqrtGradFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T y, T dy) {
    return dy * T(0.5) / Conjugate(y);
  }
};
struct RsqrtGradFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T y, T dy) {
    return dy * Conjugate(T(-0.5) * y * y * y);
  }
};
struct ReciprocalGradFunctor : SameTypeFunctor {
  template <typename T>
  static T Apply(T y, T dy) {
    return -dy * Conjugate(y * y);
  }
};

REGISTER_KERNEL(KernelDef("Add"),
                BinaryOp<AddFunctor, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("AddV2"),
                BinaryOp<AddFunctor, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Sub"),
                BinaryOp<SubFunctor, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Mul"),
                BinaryOp<MulFunctor, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("Div"),
                BinaryOp<DivFunctor, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("RealDiv"),
                BinaryOp<DivFunctor, TW_ALL_NUMBER_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("FloorDiv"),
                BinaryOp<FloorDivFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("FloorMod"),
                BinaryOp<FloorModFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Maximum"),
                BinaryOp<MaximumFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Minimum"),
                BinaryOp<MinimumFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Pow"),
                BinaryOp<PowFunctor, TW_ALL_SIGNED_TYPES, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("SquaredDifference"),
                BinaryOp<SquaredDifferenceFunctor, TW_REAL_TYPES, half,
                         bfloat16, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(
    KernelDef("TanhGrad"),
    BinaryOp<TanhGradFunctor, TW_FLOAT_TYPES, bfloat16, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(
    KernelDef("SigmoidGrad"),
    BinaryOp<SigmoidGradFunctor, TW_FLOAT_TYPES, bfloat16, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(
    KernelDef("SqrtGrad"),
    BinaryOp<SqrtGradFunctor, TW_FLOAT_TYPES, bfloat16, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(
    KernelDef("RsqrtGrad"),
    BinaryOp<RsqrtGradFunctor, TW_FLOAT_TYPES, bfloat16, TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("ReciprocalGrad"),
                BinaryOp<ReciprocalGradFunctor, TW_FLOAT_TYPES, bfloat16,
                         TW_COMPLEX_TYPES>);
REGISTER_KERNEL(KernelDef("InvGrad"),
                BinaryOp<ReciprocalGradFunctor, TW_FLOAT_TYPES, bfloat16,
                         TW_COMPLEX_TYPES>);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("Add")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<AddFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("AddV2")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<AddFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Sub")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<SubFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Mul")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<MulFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("FloorDiv")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<FloorDivFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("FloorMod")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<FloorModFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Maximum")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<MaximumFunctor, TW_ALL_NUMBER_TYPES>);
REGISTER_KERNEL(KernelDef("Minimum")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                BinaryOp<MinimumFunctor, TW_ALL_NUMBER_TYPES>);

}  // namespace
}  // namespace tensorweave
