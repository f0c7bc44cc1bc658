// Optimizer apply ops on the GPU: ApplyGradientDescent, ApplyMomentum,
// ApplyAdagrad, ApplyRMSProp, ApplyAdam, ApplyAdadelta. One fused
// element-wise kernel per op updates the variable and its slots in place.
// The scalar hyperparameters (lr, momentum, beta1_power, ...) are device
// tensors: each thread reads them from device memory, so nothing crosses to
// the host and a captured step replays with the values of its own step.
//
// The checks, the locking (in address order), copy on write when a reader's
// snapshot shares a buffer, and the formulas are the CPU kernel's
// (core/kernels/training_ops.cc). The formulas use explicitly rounded
// operations (__fmul_rn, ...) so that nvcc does not contract them into
// fused multiply-adds: the CPU computes each product and sum rounded.
#include <algorithm>
#include <array>
#include <mutex>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/resource.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"

namespace tensorweave {
namespace gpu {
namespace {

// Rounded arithmetic, never contracted.
__device__ inline float Mul(float a, float b) { return __fmul_rn(a, b); }
__device__ inline double Mul(double a, double b) { return __dmul_rn(a, b); }
__device__ inline float Add(float a, float b) { return __fadd_rn(a, b); }
__device__ inline double Add(double a, double b) { return __dadd_rn(a, b); }
__device__ inline float Sub(float a, float b) { return __fsub_rn(a, b); }
__device__ inline double Sub(double a, double b) { return __dsub_rn(a, b); }
__device__ inline float Div(float a, float b) { return __fdiv_rn(a, b); }
__device__ inline double Div(double a, double b) { return __ddiv_rn(a, b); }
__device__ inline float Sqrt(float a) { return __fsqrt_rn(a); }
__device__ inline double Sqrt(double a) { return __dsqrt_rn(a); }
template <typename T>
__device__ inline T Rsqrt(T a) {
  return Div(T(1), Sqrt(a));
}

// What one element's update sees: the variables (the leading Ref inputs),
// the gradient and the scalar hyperparameters (device pointers, in the
// op's input order after the variables, the gradient left out).
template <typename T, int V, int S>
struct ApplyArgs {
  T* vars[V];
  const T* grad;
  const T* scalars[S];
  int64_t n;
};

struct GradientDescentUpdate {
  static constexpr int kNumVars = 1, kGradIndex = 2, kNumScalars = 1;
  explicit GradientDescentUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  __device__ void Apply(const ApplyArgs<T, V, S>& a, int64_t i) const {
    const T alpha = *a.scalars[0];
    a.vars[0][i] = Sub(a.vars[0][i], Mul(a.grad[i], alpha));
  }
};

struct MomentumUpdate {
  static constexpr int kNumVars = 2, kGradIndex = 3, kNumScalars = 2;
  explicit MomentumUpdate(OpKernelConstruction* ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov));
  }
  template <typename T, int V, int S>
  __device__ void Apply(const ApplyArgs<T, V, S>& a, int64_t i) const {
    const T lr = *a.scalars[0], momentum = *a.scalars[1];
    const T grad = a.grad[i];
    const T accum = Add(Mul(a.vars[1][i], momentum), grad);
    a.vars[1][i] = accum;
    T var = a.vars[0][i];
    if (use_nesterov) {
      var = Sub(var, Add(Mul(grad, lr), Mul(Mul(accum, momentum), lr)));
    } else {
      var = Sub(var, Mul(accum, lr));
    }
    a.vars[0][i] = var;
  }
  bool use_nesterov = false;
};

struct AdagradUpdate {
  static constexpr int kNumVars = 2, kGradIndex = 3, kNumScalars = 1;
  explicit AdagradUpdate(OpKernelConstruction* ctx) {
    ctx->SetStatus(ctx->GetAttr("update_slots", &update_slots));
  }
  template <typename T, int V, int S>
  __device__ void Apply(const ApplyArgs<T, V, S>& a, int64_t i) const {
    const T lr = *a.scalars[0];
    const T grad = a.grad[i];
    T accum = a.vars[1][i];
    if (update_slots) {
      accum = Add(accum, Mul(grad, grad));
      a.vars[1][i] = accum;
    }
    a.vars[0][i] = Sub(a.vars[0][i], Mul(Mul(grad, lr), Rsqrt(accum)));
  }
  bool update_slots = true;
};

struct RMSPropUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 7, kNumScalars = 4;
  explicit RMSPropUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  __device__ void Apply(const ApplyArgs<T, V, S>& a, int64_t i) const {
    const T lr = *a.scalars[0], rho = *a.scalars[1], momentum = *a.scalars[2],
            epsilon = *a.scalars[3];
    const T grad = a.grad[i];
    const T ms = Add(a.vars[1][i],
                     Mul(Sub(Mul(grad, grad), a.vars[1][i]), Sub(T(1), rho)));
    const T mom = Add(Mul(a.vars[2][i], momentum),
                      Div(Mul(grad, lr), Sqrt(Add(ms, epsilon))));
    a.vars[1][i] = ms;
    a.vars[2][i] = mom;
    a.vars[0][i] = Sub(a.vars[0][i], mom);
  }
};

struct AdamUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 9, kNumScalars = 6;
  explicit AdamUpdate(OpKernelConstruction* ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov));
  }
  template <typename T, int V, int S>
  __device__ void Apply(const ApplyArgs<T, V, S>& a, int64_t i) const {
    const T beta1_power = *a.scalars[0], beta2_power = *a.scalars[1],
            lr = *a.scalars[2], beta1 = *a.scalars[3], beta2 = *a.scalars[4],
            epsilon = *a.scalars[5];
    const T alpha =
        Div(Mul(lr, Sqrt(Sub(T(1), beta2_power))), Sub(T(1), beta1_power));
    const T grad = a.grad[i];
    const T m =
        Add(a.vars[1][i], Mul(Sub(grad, a.vars[1][i]), Sub(T(1), beta1)));
    const T v = Add(a.vars[2][i],
                    Mul(Sub(Mul(grad, grad), a.vars[2][i]), Sub(T(1), beta2)));
    a.vars[1][i] = m;
    a.vars[2][i] = v;
    const T denom = Add(Sqrt(v), epsilon);
    T step;
    if (use_nesterov) {
      step = Div(Mul(Add(Mul(grad, Sub(T(1), beta1)), Mul(beta1, m)), alpha),
                 denom);
    } else {
      step = Div(Mul(m, alpha), denom);
    }
    a.vars[0][i] = Sub(a.vars[0][i], step);
  }
  bool use_nesterov = false;
};

struct AdadeltaUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 6, kNumScalars = 3;
  explicit AdadeltaUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  __device__ void Apply(const ApplyArgs<T, V, S>& a, int64_t i) const {
    const T lr = *a.scalars[0], rho = *a.scalars[1], epsilon = *a.scalars[2];
    const T grad = a.grad[i];
    const T accum =
        Add(Mul(a.vars[1][i], rho), Mul(Mul(grad, grad), Sub(T(1), rho)));
    const T update =
        Mul(Mul(Sqrt(Add(a.vars[2][i], epsilon)), Rsqrt(Add(accum, epsilon))),
            grad);
    a.vars[0][i] = Sub(a.vars[0][i], Mul(update, lr));
    a.vars[1][i] = accum;
    a.vars[2][i] =
        Add(Mul(a.vars[2][i], rho), Mul(Mul(update, update), Sub(T(1), rho)));
  }
};

template <typename Update, typename T, int V, int S>
__global__ void ApplyKernel(Update update, ApplyArgs<T, V, S> args) {
  TW_GPU_LOOP(i, args.n) { update.Apply(args, i); }
}

// The input names of an op, for error messages.
std::string InputName(const OpKernel& kernel, int i) {
  const auto& inputs = kernel.node().op_def().inputs;
  return i < static_cast<int>(inputs.size()) ? inputs[i].name
                                             : "input " + std::to_string(i);
}

template <typename Update>
class ApplyGpuOp : public OpKernel {
 public:
  static constexpr int kNumVars = Update::kNumVars;
  static constexpr int kNumScalars = Update::kNumScalars;

  explicit ApplyGpuOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), update_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<Var*> vars;
    for (int i = 0; i < kNumVars; ++i) {
      vars.push_back(ctx->input_ref(i));
      for (int j = 0; j < i; ++j) {
        OP_REQUIRES(ctx, vars[j] != vars[i],
                    errors::InvalidArgument(
                        "the same variable ", vars[i]->name(), " is passed as ",
                        InputName(*this, j), " and ", InputName(*this, i)));
      }
    }
    const Tensor& grad = ctx->input(Update::kGradIndex);
    std::array<int, kNumScalars> scalar_inputs;
    for (int i = kNumVars, k = 0; i < ctx->num_inputs(); ++i) {
      if (i == Update::kGradIndex) continue;
      const Tensor& s = ctx->input(i);
      OP_REQUIRES(ctx, s.rank() == 0,
                  errors::InvalidArgument(InputName(*this, i),
                                          " must be a scalar, got shape ",
                                          s.shape().ToString()));
      OP_REQUIRES(ctx, s.dtype() == grad.dtype(),
                  errors::InvalidArgument(
                      InputName(*this, i), " is ", DataTypeName(s.dtype()),
                      " but grad is ", DataTypeName(grad.dtype())));
      scalar_inputs[k++] = i;
    }

    // Lock the distinct variables in address order (no deadlock with
    // another op locking an overlapping set).
    std::vector<Var*> sorted = vars;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::unique_lock<std::mutex>> locks;
    for (Var* var : sorted) locks.emplace_back(*var->mu());

    for (int i = 0; i < kNumVars; ++i) {
      const Tensor* current = vars[i]->tensor();
      const std::string& var = vars[i]->name();
      OP_REQUIRES(
          ctx, current->valid(),
          errors::FailedPrecondition("Attempting to use uninitialized value ",
                                     var, " (", InputName(*this, i), ")"));
      OP_REQUIRES(
          ctx, current->dtype() == grad.dtype(),
          errors::InvalidArgument(InputName(*this, i), " (", var, ") is ",
                                  DataTypeName(current->dtype()),
                                  " but grad is ", DataTypeName(grad.dtype())));
      OP_REQUIRES(
          ctx, current->shape() == grad.shape(),
          errors::InvalidArgument(InputName(*this, i), " (", var,
                                  ") and grad must have the same shape: ",
                                  current->shape().ToString(), " vs ",
                                  grad.shape().ToString()));
    }
    GpuDevice* device = GetGpuDevice(ctx);
    // Readers holding a snapshot keep their buffer: update a copy then.
    std::vector<Tensor> targets;
    for (Var* var : vars) {
      Tensor* current = var->tensor();
      // (Asked before `target` takes a reference of its own.)
      const bool shared = !current->BufferUniquelyOwned();
      Tensor target = *current;
      if (shared) {
        OP_REQUIRES_OK(ctx, ctx->allocate_temp(current->dtype(),
                                               current->shape(), &target));
        if (current->num_bytes() > 0) {
          OP_REQUIRES_CUDA_OK(
              ctx, cudaMemcpyAsync(target.raw_data(), current->raw_data(),
                                   current->num_bytes(),
                                   cudaMemcpyDeviceToDevice, device->stream()));
        }
      }
      targets.push_back(std::move(target));
    }
    const int64_t n = grad.num_elements();
    if (n > 0) {
      OP_REQUIRES_OK(
          ctx, DispatchType<float, double>(grad.dtype(), [&](auto tag) {
            using T = decltype(tag);
            ApplyArgs<T, kNumVars, kNumScalars> args;
            for (int i = 0; i < kNumVars; ++i) {
              args.vars[i] = targets[i].template data<T>();
            }
            args.grad = grad.data<T>();
            for (int k = 0; k < kNumScalars; ++k) {
              args.scalars[k] = ctx->input(scalar_inputs[k]).template data<T>();
            }
            args.n = n;
            ApplyKernel<Update, T, kNumVars, kNumScalars>
                <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                    update_, args);
            return CheckLaunch(device, type_string().c_str());
          }));
    }
    for (int i = 0; i < kNumVars; ++i) *vars[i]->tensor() = targets[i];
    ctx->set_output_ref(0, vars[0]);
  }

 private:
  const Update update_;
};

#define TW_REGISTER_APPLY(op, update)                              \
  REGISTER_KERNEL(KernelDef(op)                                    \
                      .Device(DEVICE_GPU)                          \
                      .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}), \
                  ApplyGpuOp<update>)
TW_REGISTER_APPLY("ApplyGradientDescent", GradientDescentUpdate);
TW_REGISTER_APPLY("ApplyMomentum", MomentumUpdate);
TW_REGISTER_APPLY("ApplyAdagrad", AdagradUpdate);
TW_REGISTER_APPLY("ApplyRMSProp", RMSPropUpdate);
TW_REGISTER_APPLY("ApplyAdam", AdamUpdate);
TW_REGISTER_APPLY("ApplyAdadelta", AdadeltaUpdate);
#undef TW_REGISTER_APPLY

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
