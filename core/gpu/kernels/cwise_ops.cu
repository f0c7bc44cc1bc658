// Element-wise GPU kernels: binary ops with NumPy broadcasting (same shape,
// scalar operand and general strided paths; a row or column vector is the
// general path with two collapsed dims), comparisons and logical ops (bool
// out), the activation gradients, unary math and activations, AddN, Select
// and SelectV2, ZerosLike/OnesLike and IsFinite. One generic kernel per
// arity; each op is a functor. Behaviour, attrs and errors follow the CPU
// kernels in core/kernels/{cwise_ops,cwise_unary_ops,cwise_compare_ops,
// relu_op,select_ops,array_misc_ops}.cc.
//
// int32 arithmetic (Add, Sub, Mul, Maximum, ...) is NOT registered here: int32
// values feed shapes and stay in host memory (registered elsewhere).
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/gpu/kernels/gpu_broadcast.h"
#include "core/kernels/array_op_shapes.h"
#include "core/kernels/cwise_ops.h"

namespace tensorweave {
namespace gpu {
namespace {

// ---------------------------------------------------------------- kernels

// No __restrict__: the output may be one of the inputs (forwarded buffer).
template <typename T, typename Out, typename F>
__global__ void BinaryKernel(const T* x, const T* y, Out* out, int64_t n,
                             BroadcastIndex b, F f) {
  TW_GPU_LOOP(i, n) {
    int64_t xi, yi;
    BroadcastOffsets(b, i, &xi, &yi);
    out[i] = f(x[xi], y[yi]);
  }
}

template <typename T, typename Out, typename F>
__global__ void UnaryKernel(const T* x, Out* out, int64_t n, F f) {
  TW_GPU_LOOP(i, n) { out[i] = f(x[i]); }
}

// The same-shape binary and the unary kernels over Packs (x, y and out
// 16-byte aligned, Out == T); the n % kPackOf<T> last elements one each.
template <typename T, typename F>
__global__ void BinaryPackKernel(const T* x, const T* y, T* out, int64_t n,
                                 F f) {
  constexpr int k = kPackOf<T>;
  const int64_t packs = n / k;
  TW_GPU_LOOP(i, packs) {
    const Pack<T> a = reinterpret_cast<const Pack<T>*>(x)[i];
    const Pack<T> b = reinterpret_cast<const Pack<T>*>(y)[i];
    Pack<T> r;
#pragma unroll
    for (int j = 0; j < k; ++j) r.v[j] = f(a.v[j], b.v[j]);
    reinterpret_cast<Pack<T>*>(out)[i] = r;
  }
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t < n - packs * k)
    out[packs * k + t] = f(x[packs * k + t], y[packs * k + t]);
}

template <typename T, typename F>
__global__ void UnaryPackKernel(const T* x, T* out, int64_t n, F f) {
  constexpr int k = kPackOf<T>;
  const int64_t packs = n / k;
  TW_GPU_LOOP(i, packs) {
    const Pack<T> a = reinterpret_cast<const Pack<T>*>(x)[i];
    Pack<T> r;
#pragma unroll
    for (int j = 0; j < k; ++j) r.v[j] = f(a.v[j]);
    reinterpret_cast<Pack<T>*>(out)[i] = r;
  }
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t < n - packs * k) out[packs * k + t] = f(x[packs * k + t]);
}

// ---------------------------------------------------------------- functors
// Binary functors: Out<T> is the output type; `alpha` is set from the
// node's attr where the op has one (LeakyReluGrad).

struct SameOut {
  template <typename T>
  using Out = T;
  float alpha = 0;
};
struct BoolOut {
  template <typename T>
  using Out = bool;
  float alpha = 0;
};

#define TW_BINARY_FUNCTOR(Name, Base, expr)                        \
  struct Name : Base {                                             \
    template <typename T>                                          \
    __device__ __forceinline__ Out<T> operator()(T a, T b) const { \
      return expr;                                                 \
    }                                                              \
  };

template <typename T>
__device__ __forceinline__ T FloorDivValue(T a, T b) {
  return floor(a / b);
}
template <typename T>
__device__ __forceinline__ T FloorModValue(T a, T b) {
  T r = fmod(a, b);
  if (r != T(0) && ((r < T(0)) != (b < T(0)))) r += b;
  return r;
}
// NaN in either operand gives NaN, as the CPU (and TensorFlow).
template <typename T>
__device__ __forceinline__ T MaxValue(T a, T b) {
  return (a > b || a != a) ? a : b;
}
template <typename T>
__device__ __forceinline__ T MinValue(T a, T b) {
  return (a < b || a != a) ? a : b;
}

TW_BINARY_FUNCTOR(AddF, SameOut, a + b)
TW_BINARY_FUNCTOR(SubF, SameOut, a - b)
TW_BINARY_FUNCTOR(MulF, SameOut, a* b)
TW_BINARY_FUNCTOR(DivF, SameOut, a / b)
TW_BINARY_FUNCTOR(FloorDivF, SameOut, FloorDivValue(a, b))
TW_BINARY_FUNCTOR(FloorModF, SameOut, FloorModValue(a, b))
TW_BINARY_FUNCTOR(MaximumF, SameOut, MaxValue(a, b))
TW_BINARY_FUNCTOR(MinimumF, SameOut, MinValue(a, b))
TW_BINARY_FUNCTOR(PowF, SameOut, pow(a, b))
TW_BINARY_FUNCTOR(SquaredDifferenceF, SameOut, (a - b) * (a - b))
TW_BINARY_FUNCTOR(EqualF, BoolOut, a == b)
TW_BINARY_FUNCTOR(NotEqualF, BoolOut, a != b)
TW_BINARY_FUNCTOR(LessF, BoolOut, a < b)
TW_BINARY_FUNCTOR(LessEqualF, BoolOut, a <= b)
TW_BINARY_FUNCTOR(GreaterF, BoolOut, a > b)
TW_BINARY_FUNCTOR(GreaterEqualF, BoolOut, a >= b)
TW_BINARY_FUNCTOR(LogicalAndF, BoolOut, a&& b)
TW_BINARY_FUNCTOR(LogicalOrF, BoolOut, a || b)
// (y, dy) gradients, as core/kernels/cwise_ops.cc.
TW_BINARY_FUNCTOR(TanhGradF, SameOut, b*(T(1) - a * a))
TW_BINARY_FUNCTOR(SigmoidGradF, SameOut, b* a*(T(1) - a))
TW_BINARY_FUNCTOR(SqrtGradF, SameOut, b* T(0.5) / a)
TW_BINARY_FUNCTOR(RsqrtGradF, SameOut, b* T(-0.5) * a * a * a)
TW_BINARY_FUNCTOR(ReciprocalGradF, SameOut, -b* a* a)
// (gradients, features or outputs), as core/kernels/relu_op.cc.
TW_BINARY_FUNCTOR(ReluGradF, SameOut, b > T(0) ? a : T(0))
TW_BINARY_FUNCTOR(Relu6GradF, SameOut, b > T(0) && b < T(6) ? a : T(0))
TW_BINARY_FUNCTOR(EluGradF, SameOut, b < T(0) ? a * (b + T(1)) : a)
TW_BINARY_FUNCTOR(SoftplusGradF, SameOut, a / (T(1) + exp(-b)))
TW_BINARY_FUNCTOR(LeakyReluGradF, SameOut,
                  b > T(0) ? a : a * static_cast<T>(alpha))
#undef TW_BINARY_FUNCTOR

// Unary functors.
#define TW_UNARY_FUNCTOR(Name, Base, expr)                    \
  struct Name : Base {                                        \
    template <typename T>                                     \
    __device__ __forceinline__ Out<T> operator()(T a) const { \
      return expr;                                            \
    }                                                         \
  };

template <typename T>
__device__ __forceinline__ T AbsValue(T a) {
  if constexpr (std::is_floating_point_v<T>) {
    return fabs(a);  // clears the sign of -0.0, as the CPU
  } else {
    return a < T(0) ? -a : a;
  }
}
template <typename T>
__device__ __forceinline__ T SignValue(T a) {
  // NaN passes; -0.0 gives 0, as the CPU.
  return a != a ? a : static_cast<T>((T(0) < a) - (a < T(0)));
}
template <typename T>
__device__ __forceinline__ T SigmoidValue(T a) {
  return T(1) / (T(1) + exp(-a));
}
template <typename T>
__device__ __forceinline__ T SoftplusValue(T a) {
  return (a > T(0) ? a : T(0)) + log1p(exp(-AbsValue(a)));
}
template <typename T>
__device__ __forceinline__ bool IsFiniteValue(T a) {
  return isfinite(a);
}

TW_UNARY_FUNCTOR(NegF, SameOut, -a)
TW_UNARY_FUNCTOR(AbsF, SameOut, AbsValue(a))
TW_UNARY_FUNCTOR(SquareF, SameOut, a* a)
TW_UNARY_FUNCTOR(SignF, SameOut, SignValue(a))
TW_UNARY_FUNCTOR(SqrtF, SameOut, sqrt(a))
TW_UNARY_FUNCTOR(RsqrtF, SameOut, T(1) / sqrt(a))
TW_UNARY_FUNCTOR(ExpF, SameOut, exp(a))
TW_UNARY_FUNCTOR(LogF, SameOut, log(a))
TW_UNARY_FUNCTOR(Log1pF, SameOut, log1p(a))
TW_UNARY_FUNCTOR(TanhF, SameOut, tanh(a))
TW_UNARY_FUNCTOR(SigmoidF, SameOut, SigmoidValue(a))
TW_UNARY_FUNCTOR(ReciprocalF, SameOut, T(1) / a)
TW_UNARY_FUNCTOR(FloorF, SameOut, floor(a))
TW_UNARY_FUNCTOR(CeilF, SameOut, ceil(a))
TW_UNARY_FUNCTOR(RoundF, SameOut, rint(a))  // half to even, as TF
TW_UNARY_FUNCTOR(ReluF, SameOut, a < T(0) ? T(0) : a)
TW_UNARY_FUNCTOR(Relu6F, SameOut, a < T(0) ? T(0) : (a > T(6) ? T(6) : a))
TW_UNARY_FUNCTOR(EluF, SameOut, a > T(0) ? a : expm1(a))
TW_UNARY_FUNCTOR(SoftplusF, SameOut, SoftplusValue(a))
TW_UNARY_FUNCTOR(LeakyReluF, SameOut, a > T(0) ? a : a * static_cast<T>(alpha))
TW_UNARY_FUNCTOR(LogicalNotF, SameOut, !a)
TW_UNARY_FUNCTOR(IsFiniteF, BoolOut, IsFiniteValue(a))
#undef TW_UNARY_FUNCTOR

float ReadAlpha(OpKernelConstruction* ctx) {
  float alpha = 0;
  if (ctx->node().attrs().count("alpha")) {
    ctx->SetStatus(ctx->GetAttr("alpha", &alpha));
  }
  return alpha;
}

// Output 0 of `shape` and dtype Out: in place in input 0 or 1 when that
// input has the output's shape and dtype (each element is read before it
// is written, and a full-shape operand's offset is the output's).
template <typename T, typename Out>
Status AllocateElementwiseOutput(OpKernelContext* ctx, int num_inputs,
                                 const TensorShape& shape, Tensor** out) {
  if constexpr (std::is_same_v<T, Out>) {
    for (int i = 0; i < num_inputs; ++i) {
      if (ctx->input(i).shape() == shape) {
        return ctx->forward_input_or_allocate_output(i, 0, shape, out);
      }
    }
  }
  return ctx->allocate_output(0, shape, out);
}

// ---------------------------------------------------------------- ops

// A binary op with broadcasting. kSameShape: the activation gradients,
// which (as on the CPU) require operands of one shape.
template <typename F, bool kSameShape, typename... Types>
class GpuBinaryOp : public OpKernel {
 public:
  explicit GpuBinaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    f_.alpha = ReadAlpha(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    if (kSameShape) {
      OP_REQUIRES(ctx, x.shape() == y.shape(),
                  errors::InvalidArgument(
                      "gradients and ",
                      type_string() == "EluGrad" ? "outputs" : "features",
                      " must have the same shape, got ", x.shape().ToString(),
                      " and ", y.shape().ToString()));
    }
    BroadcastPlan plan;
    OP_REQUIRES_OK(ctx, MakeBroadcastPlan(x.shape(), y.shape(), &plan));
    BroadcastIndex index;
    OP_REQUIRES_OK(ctx, MakeBroadcastIndex(plan, &index));
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<Types...>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          using Out = typename F::template Out<T>;
          Tensor* out;
          TW_RETURN_IF_ERROR(
              (AllocateElementwiseOutput<T, Out>(ctx, 2, plan.output, &out)));
          const int64_t n = plan.output.num_elements();
          if (n == 0) return Status::OK();
          if constexpr (std::is_same_v<Out, T> && sizeof(T) >= 4) {
            if (index.mode == 0 && PackAligned<T>(x.data<T>()) &&
                PackAligned<T>(y.data<T>()) && PackAligned<T>(out->data<T>())) {
              BinaryPackKernel<T, F><<<BlocksFor(n / kPackOf<T> + 1),
                                       kThreadsPerBlock, 0, device->stream()>>>(
                  x.data<T>(), y.data<T>(), out->data<T>(), n, f_);
              return CheckLaunch(device, "BinaryPackKernel");
            }
          }
          BinaryKernel<T, Out, F>
              <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                  x.data<T>(), y.data<T>(), out->data<Out>(), n, index, f_);
          return CheckLaunch(device, "BinaryKernel");
        }));
  }

 private:
  F f_;
};

template <typename F, typename... Types>
class GpuUnaryOp : public OpKernel {
 public:
  explicit GpuUnaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    f_.alpha = ReadAlpha(ctx);
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<Types...>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          using Out = typename F::template Out<T>;
          Tensor* out;
          TW_RETURN_IF_ERROR(
              (AllocateElementwiseOutput<T, Out>(ctx, 1, x.shape(), &out)));
          const int64_t n = x.num_elements();
          if (n == 0) return Status::OK();
          if constexpr (std::is_same_v<Out, T> && sizeof(T) >= 4) {
            if (PackAligned<T>(x.data<T>()) && PackAligned<T>(out->data<T>())) {
              UnaryPackKernel<T, F>
                  <<<BlocksFor(n / kPackOf<T> + 1), kThreadsPerBlock, 0,
                     device->stream()>>>(x.data<T>(), out->data<T>(), n, f_);
              return CheckLaunch(device, "UnaryPackKernel");
            }
          }
          UnaryKernel<T, Out, F>
              <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                  x.data<T>(), out->data<Out>(), n, f_);
          return CheckLaunch(device, "UnaryKernel");
        }));
  }

 private:
  F f_;
};

// ZerosLike / OnesLike.
template <typename T>
__global__ void FillKernel(T* out, int64_t n, T value) {
  TW_GPU_LOOP(i, n) { out[i] = value; }
}

template <int kValue>
class GpuConstantLikeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx,
        DispatchType<float, double, int32_t, int64_t, bool>(
            x.dtype(), [&](auto tag) {
              using T = decltype(tag);
              Tensor* out;
              TW_RETURN_IF_ERROR(ctx->allocate_output(0, x.shape(), &out));
              const int64_t n = x.num_elements();
              if (n == 0) return Status::OK();
              FillKernel<T>
                  <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                      out->data<T>(), n, static_cast<T>(kValue));
              return CheckLaunch(device, "FillKernel");
            }));
  }
};

// AddN: up to kAddNChunk inputs per pass; more inputs add into the output.
inline constexpr int kAddNChunk = 16;
template <typename T>
struct AddNInputs {
  const T* p[kAddNChunk];
  int count;
};

template <typename T>
__global__ void AddNKernel(AddNInputs<T> in, T* out, int64_t n,
                           bool accumulate) {
  TW_GPU_LOOP(i, n) {
    T sum = accumulate ? out[i] : T(0);
    for (int k = 0; k < in.count; ++k) sum += in.p[k][i];
    out[i] = sum;
  }
}

class GpuAddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int num = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < num; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument(
                      "AddN: all inputs must have the same shape; input 0 is ",
                      first.shape().ToString(), ", input ", i, " is ",
                      ctx->input(i).shape().ToString()));
    }
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double, int64_t>(first.dtype(), [&](auto tag) {
          using T = decltype(tag);
          Tensor* out;
          TW_RETURN_IF_ERROR(
              ctx->forward_input_or_allocate_output(0, 0, first.shape(), &out));
          const int64_t n = first.num_elements();
          if (n == 0) return Status::OK();
          for (int begin = 0; begin < num; begin += kAddNChunk) {
            AddNInputs<T> in;
            in.count = std::min(kAddNChunk, num - begin);
            for (int k = 0; k < in.count; ++k) {
              in.p[k] = ctx->input(begin + k).template data<T>();
            }
            AddNKernel<T>
                <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                    in, out->data<T>(), n, begin > 0);
            TW_RETURN_IF_ERROR(CheckLaunch(device, "AddNKernel"));
          }
          return Status::OK();
        }));
  }
};

// Select / SelectV2: three operands with per-dim strides (0 where
// broadcast) over the output's dims.
struct Select3Index {
  int rank = 0;
  int64_t dims[kMaxBroadcastRank] = {};
  int64_t strides[3][kMaxBroadcastRank] = {};
};

template <typename T>
__global__ void SelectKernel(const bool* c, const T* t, const T* e, T* out,
                             int64_t n, Select3Index s) {
  TW_GPU_LOOP(i, n) {
    int64_t rest = i, co = 0, to = 0, eo = 0;
    for (int d = s.rank - 1; d >= 0; --d) {
      const int64_t idx = rest % s.dims[d];
      rest /= s.dims[d];
      co += idx * s.strides[0][d];
      to += idx * s.strides[1][d];
      eo += idx * s.strides[2][d];
    }
    out[i] = c[co] ? t[to] : e[eo];
  }
}

// Strides of `shape` right-aligned into `rank` output dims (0 where the
// dim is missing or 1).
void RightAlignedStrides(const TensorShape& shape, const TensorShape& out,
                         int64_t* strides) {
  const int rank = out.rank();
  const int offset = rank - shape.rank();
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const int sd = d - offset;
    if (sd < 0 || shape.dim(sd) == 1) {
      strides[d] = 0;
    } else {
      strides[d] = stride;
    }
    if (sd >= 0) stride *= shape.dim(sd);
  }
}

template <bool kV2>
class GpuSelectOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    const Tensor& t = ctx->input(1);
    const Tensor& e = ctx->input(2);
    Select3Index s;
    TensorShape out_shape;
    bool rows = false;  // Select: the condition is over t's first dimension
    if (kV2) {
      // NumPy broadcasting of all three.
      BroadcastPlan p1, p2;
      OP_REQUIRES_OK(ctx, MakeBroadcastPlan(t.shape(), e.shape(), &p1));
      OP_REQUIRES_OK(ctx, MakeBroadcastPlan(cond.shape(), p1.output, &p2));
      out_shape = p2.output;
    } else {
      OP_REQUIRES_OK(ctx, SelectArgs(*ctx, &rows));
      out_shape = t.shape();
    }
    OP_REQUIRES(
        ctx, out_shape.rank() <= kMaxBroadcastRank,
        errors::Unimplemented("GPU Select supports up to ", kMaxBroadcastRank,
                              " dims, got shape ", out_shape.ToString()));
    s.rank = out_shape.rank();
    for (int d = 0; d < s.rank; ++d) s.dims[d] = out_shape.dim(d);
    if (!kV2 && rows) {
      s.strides[0][0] = cond.dim(0) == 1 ? 0 : 1;  // one per first-dim row
    } else {
      RightAlignedStrides(cond.shape(), out_shape, s.strides[0]);
    }
    RightAlignedStrides(t.shape(), out_shape, s.strides[1]);
    RightAlignedStrides(e.shape(), out_shape, s.strides[2]);
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx,
        DispatchType<float, double, int32_t, int64_t, bool>(
            t.dtype(), [&](auto tag) {
              using T = decltype(tag);
              Tensor* out;
              TW_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
              const int64_t n = out_shape.num_elements();
              if (n == 0) return Status::OK();
              SelectKernel<T>
                  <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                      cond.data<bool>(), t.data<T>(), e.data<T>(),
                      out->data<T>(), n, s);
              return CheckLaunch(device, "SelectKernel");
            }));
  }
};

// ---------------------------------------------------------------- registry

#define TW_GPU_BINARY(name, F, ...)                             \
  REGISTER_KERNEL(KernelDef(name).Device("GPU").TypeConstraint( \
                      "T", DataTypesOf<__VA_ARGS__>()),         \
                  GpuBinaryOp<F, false, __VA_ARGS__>)
#define TW_GPU_ACT_GRAD(name, F, ...)                           \
  REGISTER_KERNEL(KernelDef(name).Device("GPU").TypeConstraint( \
                      "T", DataTypesOf<__VA_ARGS__>()),         \
                  GpuBinaryOp<F, true, __VA_ARGS__>)
#define TW_GPU_UNARY(name, F, ...)                              \
  REGISTER_KERNEL(KernelDef(name).Device("GPU").TypeConstraint( \
                      "T", DataTypesOf<__VA_ARGS__>()),         \
                  GpuUnaryOp<F, __VA_ARGS__>)

template <typename... Types>
std::vector<DataType> DataTypesOf() {
  return {DataTypeOf<Types>::value...};
}

#define TW_F float, double
#define TW_FI float, double, int64_t

TW_GPU_BINARY("Add", AddF, TW_FI);
TW_GPU_BINARY("AddV2", AddF, TW_FI);
TW_GPU_BINARY("Sub", SubF, TW_FI);
TW_GPU_BINARY("Mul", MulF, TW_FI);
TW_GPU_BINARY("RealDiv", DivF, TW_F);
TW_GPU_BINARY("Div", DivF, TW_F);
TW_GPU_BINARY("FloorDiv", FloorDivF, TW_F);
TW_GPU_BINARY("FloorMod", FloorModF, TW_F);
TW_GPU_BINARY("Maximum", MaximumF, TW_FI);
TW_GPU_BINARY("Minimum", MinimumF, TW_FI);
TW_GPU_BINARY("Pow", PowF, TW_F);
TW_GPU_BINARY("SquaredDifference", SquaredDifferenceF, TW_F);
TW_GPU_BINARY("Equal", EqualF, float, double, int64_t, bool);
TW_GPU_BINARY("NotEqual", NotEqualF, float, double, int64_t, bool);
TW_GPU_BINARY("Less", LessF, TW_FI);
TW_GPU_BINARY("LessEqual", LessEqualF, TW_FI);
TW_GPU_BINARY("Greater", GreaterF, TW_FI);
TW_GPU_BINARY("GreaterEqual", GreaterEqualF, TW_FI);
// No "T" attr: bool only.
REGISTER_KERNEL(KernelDef("LogicalAnd").Device("GPU"),
                GpuBinaryOp<LogicalAndF, false, bool>);
// No "T" attr: bool only.
REGISTER_KERNEL(KernelDef("LogicalOr").Device("GPU"),
                GpuBinaryOp<LogicalOrF, false, bool>);
TW_GPU_BINARY("TanhGrad", TanhGradF, TW_F);
TW_GPU_BINARY("SigmoidGrad", SigmoidGradF, TW_F);
TW_GPU_BINARY("SqrtGrad", SqrtGradF, TW_F);
TW_GPU_BINARY("RsqrtGrad", RsqrtGradF, TW_F);
TW_GPU_BINARY("ReciprocalGrad", ReciprocalGradF, TW_F);
TW_GPU_ACT_GRAD("ReluGrad", ReluGradF, TW_FI);
TW_GPU_ACT_GRAD("Relu6Grad", Relu6GradF, TW_FI);
TW_GPU_ACT_GRAD("EluGrad", EluGradF, TW_F);
TW_GPU_ACT_GRAD("SoftplusGrad", SoftplusGradF, TW_F);
TW_GPU_ACT_GRAD("LeakyReluGrad", LeakyReluGradF, TW_F);

TW_GPU_UNARY("Neg", NegF, TW_FI);
TW_GPU_UNARY("Abs", AbsF, TW_FI);
TW_GPU_UNARY("Square", SquareF, TW_FI);
TW_GPU_UNARY("Sign", SignF, TW_FI);
TW_GPU_UNARY("Sqrt", SqrtF, TW_F);
TW_GPU_UNARY("Rsqrt", RsqrtF, TW_F);
TW_GPU_UNARY("Exp", ExpF, TW_F);
TW_GPU_UNARY("Log", LogF, TW_F);
TW_GPU_UNARY("Log1p", Log1pF, TW_F);
TW_GPU_UNARY("Tanh", TanhF, TW_F);
TW_GPU_UNARY("Sigmoid", SigmoidF, TW_F);
TW_GPU_UNARY("Reciprocal", ReciprocalF, TW_F);
TW_GPU_UNARY("Floor", FloorF, TW_F);
TW_GPU_UNARY("Ceil", CeilF, TW_F);
TW_GPU_UNARY("Round", RoundF, TW_F);
TW_GPU_UNARY("Relu", ReluF, TW_FI);
TW_GPU_UNARY("Relu6", Relu6F, TW_FI);
TW_GPU_UNARY("Elu", EluF, TW_F);
TW_GPU_UNARY("Softplus", SoftplusF, TW_F);
TW_GPU_UNARY("LeakyRelu", LeakyReluF, TW_F);
// No "T" attr: bool only.
REGISTER_KERNEL(KernelDef("LogicalNot").Device("GPU"),
                GpuUnaryOp<LogicalNotF, bool>);
TW_GPU_UNARY("IsFinite", IsFiniteF, TW_F);

REGISTER_KERNEL(KernelDef("ZerosLike")
                    .Device("GPU")
                    .TypeConstraint("T",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                GpuConstantLikeOp<0>);
REGISTER_KERNEL(KernelDef("OnesLike")
                    .Device("GPU")
                    .TypeConstraint("T",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                GpuConstantLikeOp<1>);
REGISTER_KERNEL(KernelDef("AddN").Device("GPU").TypeConstraint(
                    "T", {DT_FLOAT, DT_DOUBLE, DT_INT64}),
                GpuAddNOp);
// (int32 Select, SelectV2, ZerosLike and OnesLike are shape arithmetic:
// registered for the GPU in host memory by the core, as TensorFlow's.)
REGISTER_KERNEL(KernelDef("Select").Device("GPU").TypeConstraint(
                    "T", {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                GpuSelectOp<false>);
REGISTER_KERNEL(KernelDef("SelectV2")
                    .Device("GPU")
                    .TypeConstraint("T",
                                    {DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL}),
                GpuSelectOp<true>);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
