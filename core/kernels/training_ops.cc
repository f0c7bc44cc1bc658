// Fused optimizer update kernels (ApplyGradientDescent, ApplyMomentum,
// ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp, ApplyAdam, ApplyAdadelta,
// ApplyFtrl(V2), ApplyProximalGradientDescent, ApplyProximalAdagrad,
// ApplyAdagradDA, the SparseApply* forms of Momentum, Adagrad,
// (Centered)RMSProp and the last five, and FusedMatMulApplyGradientDescent).
//
// One kernel class, ApplyOp<Update>, does what all of them share: it locks
// the variables the op writes (in address order, so two ops locking
// overlapping sets cannot deadlock), checks that they are initialized and
// that shapes match, makes each buffer writable (in place when no snapshot
// shares it, else a copy: copy-on-write) and runs Update's element-wise
// formula over blocks of elements, in parallel on the intra-op pool for large
// tensors. SparseApplyOp<Update> runs the same formula row by row over the
// rows `indices` names (the input after the gradient), in index order as
// TensorFlow does. The formulas are TensorFlow's, written with Eigen arrays so
// that they vectorize.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <mutex>
#include <type_traits>
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

// The scalar input `t` as a T: its own dtype may differ (AdagradDA's int64
// global_step).
template <typename T>
T ScalarAs(const Tensor& t) {
  T value = T(0);
  Status s = DispatchType<float, double, half, bfloat16, int32_t, int64_t>(
      t.dtype(), [&](auto tag) {
        using S = decltype(tag);
        const S v = t.data<S>()[0];
        if constexpr (std::is_same_v<S, half> || std::is_same_v<S, bfloat16>) {
          value = static_cast<T>(static_cast<float>(v));
        } else {
          value = static_cast<T>(v);
        }
        return Status::OK();
      });
  (void)s;  // the op definitions allow only these dtypes
  return value;
}

// float16 and bfloat16 updates run in float on float copies of the variables
// and the gradient, rounded back once (TensorFlow's half kernels round after
// each operation: the results agree within the half type's rounding).
bool IsHalfType(DataType dtype) {
  return dtype == DT_HALF || dtype == DT_BFLOAT16;
}

Tensor Widened(const Tensor& t) {
  Tensor wide(DT_FLOAT, t.shape());
  float* out = wide.data<float>();
  (void)DispatchType<half, bfloat16>(t.dtype(), [&](auto tag) {
    const auto* in = t.data<decltype(tag)>();
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      out[i] = static_cast<float>(in[i]);
    }
    return Status::OK();
  });
  return wide;
}

void Narrow(const Tensor& wide, Tensor* t) {
  const float* in = wide.data<float>();
  (void)DispatchType<half, bfloat16>(t->dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* out = t->data<T>();
    for (int64_t i = 0; i < t->num_elements(); ++i) out[i] = T(in[i]);
    return Status::OK();
  });
}

// The tensors an update runs on: the targets and the gradient themselves, or
// for half types float copies of them, which Finish() rounds back.
class UpdateTensors {
 public:
  UpdateTensors(std::vector<Tensor>* targets, const Tensor& grad)
      : targets_(targets), grad_(&grad), half_(IsHalfType(grad.dtype())) {
    if (!half_) return;
    for (const Tensor& t : *targets) wide_.push_back(Widened(t));
    wide_grad_ = Widened(grad);
  }
  DataType dtype() const { return grad().dtype(); }
  const Tensor& grad() const { return half_ ? wide_grad_ : *grad_; }
  Tensor& target(int i) { return half_ ? wide_[i] : (*targets_)[i]; }
  void Finish() {
    for (size_t i = 0; i < wide_.size(); ++i) Narrow(wide_[i], &(*targets_)[i]);
  }

 private:
  std::vector<Tensor>* targets_;
  const Tensor* grad_;
  const bool half_;
  std::vector<Tensor> wide_;
  Tensor wide_grad_;
};

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
    UpdateTensors update(&targets, grad);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(update.dtype(), [&](auto tag) {
          using T = decltype(tag);
          UpdateBlock<T, kNumVars, kNumScalars> block;
          for (int i = 0; i < kNumVars; ++i) {
            block.vars[i] = update.target(i).template data<T>();
          }
          block.grad = update.grad().template data<T>();
          for (int k = 0; k < kNumScalars; ++k) {
            block.scalars[k] = ScalarAs<T>(ctx->input(scalar_inputs[k]));
          }
          ForRange(ctx, grad.num_elements(), [&](int64_t begin, int64_t end) {
            auto b = block;
            b.begin = begin;
            b.end = end;
            update_.Apply(b);
          });
          return Status::OK();
        }));
    update.Finish();
    for (int i = 0; i < kNumVars; ++i) *vars[i]->tensor() = targets[i];
    ctx->set_output_ref(0, vars[0]);
  }

 private:
  const Update update_;
};

// The SparseApply* form of Update: grad holds rows of var ([N] + var.shape[1:])
// and indices (the input after grad, [N]) says which; the formula runs on each
// of those rows of var and its slots, in index order (a repeated index is
// updated twice, as in TensorFlow), and leaves the other rows alone.
template <typename Update>
class SparseApplyOp : public OpKernel {
 public:
  static constexpr int kNumVars = Update::kNumVars;
  static constexpr int kNumScalars = Update::kNumScalars;
  static constexpr int kIndicesIndex = Update::kGradIndex + 1;

  explicit SparseApplyOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), update_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    std::vector<Var*> vars;
    OP_REQUIRES_OK(ctx, CollectVars(ctx, *this, kNumVars, &vars));
    const Tensor& grad = ctx->input(Update::kGradIndex);
    const Tensor& indices = ctx->input(kIndicesIndex);
    std::array<int, kNumScalars> scalar_inputs;
    for (int i = kNumVars, k = 0; i < ctx->num_inputs(); ++i) {
      if (i == Update::kGradIndex || i == kIndicesIndex) continue;
      OP_REQUIRES_OK(ctx, ScalarInput(ctx, *this, i));
      scalar_inputs[k++] = i;
    }
    OP_REQUIRES(ctx, indices.rank() == 1,
                errors::InvalidArgument("indices must be a vector, got shape ",
                                        indices.shape().ToString()));
    OP_REQUIRES(
        ctx, grad.rank() >= 1 && grad.dim(0) == indices.dim(0),
        errors::InvalidArgument("grad must have one row per index: grad is ",
                                grad.shape().ToString(), ", indices is ",
                                indices.shape().ToString()));

    OrderedVarLocks locks(vars);
    // The variables must have grad's shape past the first dimension.
    const Tensor* first = vars[0]->tensor();
    OP_REQUIRES(ctx, first->valid(),
                errors::FailedPrecondition(
                    "Attempting to use uninitialized value ", vars[0]->name(),
                    " (", InputName(*this, 0), ")"));
    std::vector<int64_t> dims = grad.shape().dims();
    OP_REQUIRES(
        ctx, first->rank() >= 1,
        errors::InvalidArgument(InputName(*this, 0), " (", vars[0]->name(),
                                ") must be at least 1-D, got a scalar"));
    const int64_t num_rows = first->dim(0);
    dims[0] = num_rows;
    std::vector<Tensor> targets;
    OP_REQUIRES_OK(ctx, WritableTargets(*this, vars, grad.dtype(),
                                        TensorShape(dims), &targets));
    const int64_t row_size =
        indices.dim(0) == 0 ? 0 : grad.num_elements() / indices.dim(0);
    UpdateTensors update(&targets, grad);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(update.dtype(), [&](auto tag) {
          using T = decltype(tag);
          UpdateBlock<T, kNumVars, kNumScalars> block;
          for (int k = 0; k < kNumScalars; ++k) {
            block.scalars[k] = ScalarAs<T>(ctx->input(scalar_inputs[k]));
          }
          block.begin = 0;
          block.end = row_size;
          return DispatchType<int32_t, int64_t>(
              indices.dtype(), [&](auto index_tag) -> Status {
                using Index = decltype(index_tag);
                const Index* rows = indices.data<Index>();
                for (int64_t i = 0; i < indices.dim(0); ++i) {
                  const int64_t row = rows[i];
                  if (row < 0 || row >= num_rows) {
                    return errors::InvalidArgument(
                        "Index ", row, " at offset ", i,
                        " in indices is out of range [0, ", num_rows, ")");
                  }
                }
                for (int64_t i = 0; i < indices.dim(0); ++i) {
                  auto b = block;
                  for (int v = 0; v < kNumVars; ++v) {
                    b.vars[v] = update.target(v).template data<T>() +
                                rows[i] * row_size;
                  }
                  b.grad = update.grad().template data<T>() + i * row_size;
                  update_.Apply(b);
                }
                return Status::OK();
              });
        }));
    update.Finish();
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

struct AdadeltaUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 6, kNumScalars = 3;
  explicit AdadeltaUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0], rho = b.scalars[1], epsilon = b.scalars[2];
    auto var = b.var(0);
    auto accum = b.var(1);
    auto accum_update = b.var(2);
    auto grad = b.grad_block();
    accum = accum * rho + grad.square() * (T(1) - rho);
    const Eigen::Array<T, Eigen::Dynamic, 1> update =
        (accum_update + epsilon).sqrt() * (accum + epsilon).rsqrt() * grad;
    var -= update * lr;
    accum_update = accum_update * rho + update.square() * (T(1) - rho);
  }
};

// FTRL-proximal (McMahan et al. 2013), TensorFlow's ApplyFtrl and, with
// kShrinkage, ApplyFtrlV2 (its l2_shrinkage scalar sits before lr_power).
template <bool kShrinkage>
struct FtrlUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 3;
  static constexpr int kNumScalars = kShrinkage ? 5 : 4;
  explicit FtrlUpdate(OpKernelConstruction* ctx) {
    ctx->SetStatus(
        ctx->GetAttr("multiply_linear_by_lr", &multiply_linear_by_lr));
  }
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0], l1 = b.scalars[1], l2 = b.scalars[2];
    const T l2_shrinkage = kShrinkage ? b.scalars[3] : T(0);
    const T lr_power = b.scalars[kNumScalars - 1];
    auto var = b.var(0);
    auto accum = b.var(1);
    auto linear = b.var(2);
    auto grad = b.grad_block();
    using Array = Eigen::Array<T, Eigen::Dynamic, 1>;
    const Array shrunk_grad =
        kShrinkage ? Array(grad + T(2) * l2_shrinkage * var) : Array(grad);
    const Array new_accum = accum + grad.square();
    Array new_power, old_power;
    if (lr_power == T(-0.5)) {
      new_power = new_accum.sqrt();
      old_power = accum.sqrt();
    } else {
      new_power = new_accum.pow(-lr_power);
      old_power = accum.pow(-lr_power);
    }
    Array quadratic;
    Array x;
    if (multiply_linear_by_lr) {
      linear += shrunk_grad * lr - (new_power - old_power) * var;
      x = linear.sign() * (l1 * lr) - linear;
      quadratic = new_power + T(2) * l2 * lr;
      var = (linear.abs() > l1 * lr).select(x / quadratic, T(0));
    } else {
      linear += shrunk_grad - (new_power - old_power) / lr * var;
      x = linear.sign() * l1 - linear;
      quadratic = new_power / lr + T(2) * l2;
      var = (linear.abs() > l1).select(x / quadratic, T(0));
    }
    accum = new_accum;
  }
  bool multiply_linear_by_lr = false;
};

struct AdagradDAUpdate {
  static constexpr int kNumVars = 3, kGradIndex = 3, kNumScalars = 4;
  explicit AdagradDAUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0], l1 = b.scalars[1], l2 = b.scalars[2],
            global_step = b.scalars[3];
    auto var = b.var(0);
    auto gradient_accum = b.var(1);
    auto gradient_squared_accum = b.var(2);
    auto grad = b.grad_block();
    gradient_accum += grad;
    gradient_squared_accum += grad.square();
    const auto denominator =
        gradient_squared_accum.sqrt() + l2 * global_step * lr;
    if (l1 > T(0)) {
      var = (-gradient_accum.sign()) *
            (gradient_accum.abs() - l1 * global_step).max(T(0)) * lr /
            denominator;
    } else {
      var = (-gradient_accum) * lr / denominator;
    }
  }
};

// The proximal step shared by ProximalGradientDescent and ProximalAdagrad:
// var = sign(prox_v) * max(|prox_v| - rate * l1, 0) / (1 + rate * l2), with
// rate a scalar or a per-element array.
template <typename Var, typename Prox, typename Rate, typename T>
void ProximalStep(Var var, const Prox& prox_v, const Rate& rate, T l1, T l2) {
  if (l1 > T(0)) {
    var = prox_v.sign() * (prox_v.abs() - rate * l1).max(T(0)) /
          (rate * l2 + T(1));
  } else {
    var = prox_v / (rate * l2 + T(1));
  }
}

struct ProximalGradientDescentUpdate {
  static constexpr int kNumVars = 1, kGradIndex = 4, kNumScalars = 3;
  explicit ProximalGradientDescentUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T alpha = b.scalars[0], l1 = b.scalars[1], l2 = b.scalars[2];
    auto var = b.var(0);
    const Eigen::Array<T, Eigen::Dynamic, 1> prox_v =
        var - b.grad_block() * alpha;
    const Eigen::Array<T, Eigen::Dynamic, 1> rate =
        Eigen::Array<T, Eigen::Dynamic, 1>::Constant(prox_v.size(), alpha);
    ProximalStep(var, prox_v, rate, l1, l2);
  }
};

struct ProximalAdagradUpdate {
  static constexpr int kNumVars = 2, kGradIndex = 5, kNumScalars = 3;
  explicit ProximalAdagradUpdate(OpKernelConstruction*) {}
  template <typename T, int V, int S>
  void Apply(const UpdateBlock<T, V, S>& b) const {
    const T lr = b.scalars[0], l1 = b.scalars[1], l2 = b.scalars[2];
    auto var = b.var(0);
    auto accum = b.var(1);
    auto grad = b.grad_block();
    accum += grad.square();
    const Eigen::Array<T, Eigen::Dynamic, 1> rate = accum.rsqrt() * lr;
    const Eigen::Array<T, Eigen::Dynamic, 1> prox_v = var - grad * rate;
    ProximalStep(var, prox_v, rate, l1, l2);
  }
};

REGISTER_KERNEL(KernelDef("ApplyGradientDescent"),
                ApplyOp<GradientDescentUpdate>);
REGISTER_KERNEL(KernelDef("ApplyMomentum"), ApplyOp<MomentumUpdate>);
REGISTER_KERNEL(KernelDef("ApplyAdagrad"), ApplyOp<AdagradUpdate>);
REGISTER_KERNEL(KernelDef("ApplyRMSProp"), ApplyOp<RMSPropUpdate>);
REGISTER_KERNEL(KernelDef("ApplyCenteredRMSProp"),
                ApplyOp<CenteredRMSPropUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyMomentum"),
                SparseApplyOp<MomentumUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyAdagrad"), SparseApplyOp<AdagradUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyRMSProp"), SparseApplyOp<RMSPropUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyCenteredRMSProp"),
                SparseApplyOp<CenteredRMSPropUpdate>);
REGISTER_KERNEL(KernelDef("ApplyAdam"), ApplyOp<AdamUpdate>);
REGISTER_KERNEL(KernelDef("ApplyAdadelta"), ApplyOp<AdadeltaUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyAdadelta"),
                SparseApplyOp<AdadeltaUpdate>);
REGISTER_KERNEL(KernelDef("ApplyFtrl"), ApplyOp<FtrlUpdate<false>>);
REGISTER_KERNEL(KernelDef("SparseApplyFtrl"), SparseApplyOp<FtrlUpdate<false>>);
REGISTER_KERNEL(KernelDef("ApplyFtrlV2"), ApplyOp<FtrlUpdate<true>>);
REGISTER_KERNEL(KernelDef("SparseApplyFtrlV2"),
                SparseApplyOp<FtrlUpdate<true>>);
REGISTER_KERNEL(KernelDef("ApplyProximalGradientDescent"),
                ApplyOp<ProximalGradientDescentUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyProximalGradientDescent"),
                SparseApplyOp<ProximalGradientDescentUpdate>);
REGISTER_KERNEL(KernelDef("ApplyProximalAdagrad"),
                ApplyOp<ProximalAdagradUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyProximalAdagrad"),
                SparseApplyOp<ProximalAdagradUpdate>);
REGISTER_KERNEL(KernelDef("ApplyAdagradDA"), ApplyOp<AdagradDAUpdate>);
REGISTER_KERNEL(KernelDef("SparseApplyAdagradDA"),
                SparseApplyOp<AdagradDAUpdate>);
REGISTER_KERNEL(KernelDef("FusedMatMulApplyGradientDescent"),
                FusedMatMulApplyGradientDescentOp);

}  // namespace
}  // namespace tensorweave
