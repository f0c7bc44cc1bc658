// Fused optimizer update kernels (ApplyGradientDescent, ApplyMomentum,
// ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdam, and
// FusedMatMulApplyGradientDescent).
//
// One kernel class, ApplyOp<Update>, does what all of them share: it locks
// the variables the op writes (in address order, so two ops locking
// overlapping sets cannot deadlock), checks that they are initialized and
// that shapes match, makes each buffer writable (in place when no snapshot
// shares it, else a copy: copy-on-write) and runs Update's element-wise
// formula over blocks of elements, in parallel on the intra-op pool for large
// tensors. The formulas are TensorFlow's, written with Eigen arrays so that
// they vectorize.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <mutex>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"
#include "core/kernels/matmul_op.h"

namespace tensorweave {
namespace {

template <typename T>
using Block = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstBlock = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// What an update formula sees of one block [begin, end) of the elements:
// writable blocks of the variable and its slots, the gradient, and the
// scalar hyperparameters in the op's input order.
template <typename T, int kNumVars, int kNumScalars>
struct UpdateBlock {
  std::array<T*, kNumVars> vars;
  const T* grad;
  std::array<T, kNumScalars> scalars;
  int64_t begin, end;

  Block<T> var(int i) const { return Block<T>(vars[i] + begin, end - begin); }
  ConstBlock<T> grad_block() const {
    return ConstBlock<T>(grad + begin, end - begin);
  }
};

// Locks the distinct variables of an op in address order.
class OrderedVarLocks {
 public:
  explicit OrderedVarLocks(std::vector<Var*> vars) {
    std::sort(vars.begin(), vars.end());
    vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
    for (Var* var : vars) locks_.emplace_back(*var->mu());
  }

 private:
  std::vector<std::unique_lock<std::mutex>> locks_;
};

// The input names of an op, for error messages.
std::string InputName(const OpKernel& kernel, int i) {
  const auto& inputs = kernel.node().op_def().inputs;
  return i < static_cast<int>(inputs.size()) ? inputs[i].name
                                             : "input " + std::to_string(i);
}

// The variables an update op writes: its leading `n` ref inputs, each
// distinct.
Status CollectVars(OpKernelContext* ctx, const OpKernel& kernel, int n,
                   std::vector<Var*>* vars) {
  for (int i = 0; i < n; ++i) {
    vars->push_back(ctx->input_ref(i));
    for (int j = 0; j < i; ++j) {
      if ((*vars)[j] == (*vars)[i]) {
        return errors::InvalidArgument("the same variable ", (*vars)[i]->name(),
                                       " is passed as ", InputName(kernel, j),
                                       " and ", InputName(kernel, i));
      }
    }
  }
  return Status::OK();
}

// With the variables locked: checks that each is initialized and has the
// gradient's dtype and shape, and returns a writable buffer for each (the
// variable's own when no snapshot shares it, else a copy: copy-on-write).
Status WritableTargets(const OpKernel& kernel, const std::vector<Var*>& vars,
                       DataType dtype, const TensorShape& shape,
                       std::vector<Tensor>* targets) {
  for (size_t i = 0; i < vars.size(); ++i) {
    const Tensor* current = vars[i]->tensor();
    const std::string& var = vars[i]->name();
    const int input = static_cast<int>(i);
    if (!current->valid()) {
      return errors::FailedPrecondition(
          "Attempting to use uninitialized value ", var, " (",
          InputName(kernel, input), ")");
    }
    if (current->dtype() != dtype) {
      return errors::InvalidArgument(InputName(kernel, input), " (", var,
                                     ") is ", DataTypeName(current->dtype()),
                                     " but grad is ", DataTypeName(dtype));
    }
    if (current->shape() != shape) {
      return errors::InvalidArgument(
          InputName(kernel, input), " (", var,
          ") and grad must have the same shape: ", current->shape().ToString(),
          " vs ", shape.ToString());
    }
  }
  for (Var* var : vars) {
    // Readers hold snapshots of the current buffer: update a copy then.
    Tensor* current = var->tensor();
    targets->push_back(current->BufferUniquelyOwned() ? *current
                                                      : current->DeepCopy());
  }
  return Status::OK();
}

// The scalar input i of an update op.
Status ScalarInput(OpKernelContext* ctx, const OpKernel& kernel, int i) {
  const Tensor& s = ctx->input(i);
  if (s.rank() != 0) {
    return errors::InvalidArgument(InputName(kernel, i),
                                   " must be a scalar, got shape ",
                                   s.shape().ToString());
  }
  return Status::OK();
}

// Update is a functor with kNumVars (the leading Ref inputs), kGradIndex,
// kNumScalars (every other input), a constructor taking the
// OpKernelConstruction (for its attrs) and
//   template <typename T, int V, int S> void Apply(const UpdateBlock<T,V,S>&)
// applying the formula to one block.
template <typename Update>
class ApplyOp : public OpKernel {
 public:
  static constexpr int kNumVars = Update::kNumVars;
  static constexpr int kNumScalars = Update::kNumScalars;

  explicit ApplyOp(OpKernelConstruction* ctx) : OpKernel(ctx), update_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<Var*> vars;
    OP_REQUIRES_OK(ctx, CollectVars(ctx, *this, kNumVars, &vars));
    const Tensor& grad = ctx->input(Update::kGradIndex);
    std::array<int, kNumScalars> scalar_inputs;
    for (int i = kNumVars, k = 0; i < ctx->num_inputs(); ++i) {
      if (i == Update::kGradIndex) continue;
      OP_REQUIRES_OK(ctx, ScalarInput(ctx, *this, i));
      scalar_inputs[k++] = i;
    }

    OrderedVarLocks locks(vars);
    std::vector<Tensor> targets;
    OP_REQUIRES_OK(ctx, WritableTargets(*this, vars, grad.dtype(), grad.shape(),
                                        &targets));
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(grad.dtype(), [&](auto tag) {
          using T = decltype(tag);
          UpdateBlock<T, kNumVars, kNumScalars> block;
          for (int i = 0; i < kNumVars; ++i) {
            block.vars[i] = targets[i].template data<T>();
          }
          block.grad = grad.data<T>();
          for (int k = 0; k < kNumScalars; ++k) {
            block.scalars[k] =
                ctx->input(scalar_inputs[k]).template data<T>()[0];
          }
          ForRange(ctx, grad.num_elements(), [&](int64_t begin, int64_t end) {
            auto b = block;
            b.begin = begin;
            b.end = end;
            update_.Apply(b);
          });
          return Status::OK();
        }));
    for (int i = 0; i < kNumVars; ++i) *vars[i]->tensor() = targets[i];
    ctx->set_output_ref(0, vars[0]);
  }

 private:
  const Update update_;
};

// var -= alpha * op(a) op(b): gradient descent whose gradient is a matrix
// product (a dense layer's kernel), in one GEMM that accumulates into the
// variable (beta = 1), so the gradient is never written out nor read back.
class FusedMatMulApplyGradientDescentOp : public OpKernel {
 public:
  explicit FusedMatMulApplyGradientDescentOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Var*> vars;
    OP_REQUIRES_OK(ctx, CollectVars(ctx, *this, 1, &vars));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, *this, 1));
    const Tensor& alpha = ctx->input(1);
    const Tensor& a = ctx->input(2);
    const Tensor& b = ctx->input(3);
    int64_t m, n, k;
    OP_REQUIRES_OK(ctx, MatMulDims(a, b, transpose_a_, transpose_b_, "a", "b",
                                   &m, &n, &k));
    OrderedVarLocks locks(vars);
    std::vector<Tensor> targets;
    OP_REQUIRES_OK(ctx, WritableTargets(*this, vars, a.dtype(),
                                        TensorShape({m, n}), &targets));
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(a.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     Gemm<T>(ctx->intra_op_pool(), a.data<T>(), b.data<T>(),
                             targets[0].template data<T>(), m, n, k,
                             transpose_a_, transpose_b_, -alpha.data<T>()[0],
                             T(1));
                     return Status::OK();
                   }));
    *vars[0]->tensor() = targets[0];
    ctx->set_output_ref(0, vars[0]);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

// --- the formulas (TensorFlow's training_ops) --------------------------------

struct GradientDescentUpdate {
  static constexpr int kNumVars = 1, kGradIndex = 2, kNumScalars = 1;
  explicit GradientDescentUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T alpha = b.scalars[0];
    b.var(0) -= b.grad_block() * alpha;
  }
};

struct MomentumUpdate {
  static constexpr int kNumVars = 2, kGradIndex = 3, kNumScalars = 2;
  explicit MomentumUpdate(OpKernelConstruction* ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov));
  }
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0], momentum = b.scalars[1];
    auto var = b.var(0);
    auto accum = b.var(1);
    auto grad = b.grad_block();
    accum = accum * momentum + grad;
    if (use_nesterov) {
      var -= grad * lr + accum * momentum * lr;
    } else {
      var -= accum * lr;
    }
  }
  bool use_nesterov = false;
};

struct AdagradUpdate {
  static constexpr int kNumVars = 2, kGradIndex = 3, kNumScalars = 1;
  explicit AdagradUpdate(OpKernelConstruction* ctx) {
    ctx->SetStatus(ctx->GetAttr("update_slots", &update_slots));
  }
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0];
    auto var = b.var(0);
    auto accum = b.var(1);
    auto grad = b.grad_block();
    if (update_slots) accum += grad.square();
    var -= grad * lr * accum.rsqrt();
  }
  bool update_slots = true;
};

struct RMSPropUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 7, kNumScalars = 4;
  explicit RMSPropUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0], rho = b.scalars[1], momentum = b.scalars[2],
            epsilon = b.scalars[3];
    auto var = b.var(0);
    auto ms = b.var(1);
    auto mom = b.var(2);
    auto grad = b.grad_block();
    ms += (grad.square() - ms) * (T(1) - rho);
    mom = mom * momentum + (grad * lr) / (ms + epsilon).sqrt();
    var -= mom;
  }
};

struct CenteredRMSPropUpdate {
  static constexpr int kNumVars = 4, kGradIndex = 8, kNumScalars = 4;
  explicit CenteredRMSPropUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0], rho = b.scalars[1], momentum = b.scalars[2],
            epsilon = b.scalars[3];
    auto var = b.var(0);
    auto mg = b.var(1);
    auto ms = b.var(2);
    auto mom = b.var(3);
    auto grad = b.grad_block();
    ms += (grad.square() - ms) * (T(1) - rho);
    mg += (grad - mg) * (T(1) - rho);
    mom = mom * momentum + (grad * lr) / ((ms - mg.square()) + epsilon).sqrt();
    var -= mom;
  }
};

struct AdamUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 9, kNumScalars = 6;
  explicit AdamUpdate(OpKernelConstruction* ctx) {
    ctx->SetStatus(ctx->GetAttr("use_nesterov", &use_nesterov));
  }
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T beta1_power = b.scalars[0], beta2_power = b.scalars[1],
            lr = b.scalars[2], beta1 = b.scalars[3], beta2 = b.scalars[4],
            epsilon = b.scalars[5];
    const T alpha = lr * std::sqrt(T(1) - beta2_power) / (T(1) - beta1_power);
    auto var = b.var(0);
    auto m = b.var(1);
    auto v = b.var(2);
    auto grad = b.grad_block();
    m += (grad - m) * (T(1) - beta1);
    v += (grad.square() - v) * (T(1) - beta2);
    if (use_nesterov) {
      var -=
          ((grad * (T(1) - beta1) + beta1 * m) * alpha) / (v.sqrt() + epsilon);
    } else {
      var -= (m * alpha) / (v.sqrt() + epsilon);
    }
  }
  bool use_nesterov = false;
};

REGISTER_KERNEL(KernelDef("ApplyGradientDescent"),
                ApplyOp<GradientDescentUpdate>);
REGISTER_KERNEL(KernelDef("ApplyMomentum"), ApplyOp<MomentumUpdate>);
REGISTER_KERNEL(KernelDef("ApplyAdagrad"), ApplyOp<AdagradUpdate>);
REGISTER_KERNEL(KernelDef("ApplyRMSProp"), ApplyOp<RMSPropUpdate>);
REGISTER_KERNEL(KernelDef("ApplyCenteredRMSProp"),
                ApplyOp<CenteredRMSPropUpdate>);
REGISTER_KERNEL(KernelDef("ApplyAdam"), ApplyOp<AdamUpdate>);
REGISTER_KERNEL(KernelDef("FusedMatMulApplyGradientDescent"),
                FusedMatMulApplyGradientDescentOp);

}  // namespace
}  // namespace tensorweave
