// Fused optimizer update kernels (ApplyGradientDescent, ApplyMomentum,
// ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdam).
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
    std::vector<Var*> vars(kNumVars);
    for (int i = 0; i < kNumVars; ++i) {
      vars[i] = ctx->input_ref(i);
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
      scalar_inputs[k++] = i;
    }

    OrderedVarLocks locks(vars);
    std::array<Tensor, kNumVars> targets;
    for (int i = 0; i < kNumVars; ++i) {
      Tensor* current = vars[i]->tensor();
      OP_REQUIRES(ctx, current->valid(),
                  errors::FailedPrecondition(
                      "Attempting to use uninitialized value ", vars[i]->name(),
                      " (", InputName(*this, i), ")"));
      OP_REQUIRES(
          ctx, current->dtype() == grad.dtype(),
          errors::InvalidArgument(InputName(*this, i), " (", vars[i]->name(),
                                  ") is ", DataTypeName(current->dtype()),
                                  " but grad is ", DataTypeName(grad.dtype())));
      OP_REQUIRES(
          ctx, current->shape() == grad.shape(),
          errors::InvalidArgument(InputName(*this, i), " (", vars[i]->name(),
                                  ") and grad must have the same shape: ",
                                  current->shape().ToString(), " vs ",
                                  grad.shape().ToString()));
    }
    for (int i = 0; i < kNumVars; ++i) {
      // Readers hold snapshots of the current buffer: update a copy then.
      Tensor* current = vars[i]->tensor();
      targets[i] =
          current->BufferUniquelyOwned() ? *current : current->DeepCopy();
    }
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

}  // namespace
}  // namespace tensorweave
