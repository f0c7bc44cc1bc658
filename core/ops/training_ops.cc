// Fused optimizer updates: each op updates a variable (and its slots, such
// as momentum accumulators) in place, with TensorFlow's names and formulas.
// The first inputs are the variables (Ref), the others are scalar
// hyperparameters and the gradient, which has the variable's shape.
#include <string>
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/ops/shape_errors.h"

namespace tensorweave {
namespace {

// The inputs of an apply op: its names in order, how many leading ones are
// variables, and which one is the gradient. Every other input is a scalar.
struct ApplyInputs {
  std::vector<std::string> names;
  int num_vars;
  int grad_index;
};

ShapeFn ApplyShapeFn(ApplyInputs inputs) {
  return [inputs](InferenceContext* c) -> Status {
    PartialShape shape = c->input(0);
    for (int i = 1; i < c->num_inputs(); ++i) {
      if (i < inputs.num_vars || i == inputs.grad_index) {
        PartialShape merged;
        if (!shape.Merge(c->input(i), &merged).ok()) {
          if (i == inputs.grad_index) return MergeError(shape, c->input(i));
          return errors::InvalidArgument(
              inputs.names[0], " and ", inputs.names[i],
              " must have the same shape: ", inputs.names[0], " is ",
              c->input(0).ToString(), ", ", inputs.names[i], " is ",
              c->input(i).ToString());
        }
        shape = merged;
      } else {
        PartialShape unused;
        Status s = c->WithRank(i, 0, &unused);
        if (!s.ok()) {
          return errors::InvalidArgument(inputs.names[i],
                                         " must be a scalar, got shape ",
                                         c->input(i).ToString());
        }
      }
    }
    c->set_output(0, shape);
    return Status::OK();
  };
}

// The shape function of a SparseApply* op: the op's dense inputs with the
// gradient's rows selected by `indices` (the input after the gradient): grad
// is [N] + var.shape[1:], indices is [N]; the other non-variable inputs are
// scalars.
ShapeFn SparseApplyShapeFn(ApplyInputs inputs) {
  return [inputs](InferenceContext* c) -> Status {
    PartialShape shape = c->input(0);
    const int indices_index = inputs.grad_index + 1;
    for (int i = 1; i < c->num_inputs(); ++i) {
      if (i < inputs.num_vars) {
        PartialShape merged;
        if (!shape.Merge(c->input(i), &merged).ok()) {
          return errors::InvalidArgument(
              inputs.names[0], " and ", inputs.names[i],
              " must have the same shape: ", inputs.names[0], " is ",
              c->input(0).ToString(), ", ", inputs.names[i], " is ",
              c->input(i).ToString());
        }
        shape = merged;
      } else if (i != inputs.grad_index && i != indices_index) {
        PartialShape unused;
        if (!c->WithRank(i, 0, &unused).ok()) {
          return errors::InvalidArgument(inputs.names[i],
                                         " must be a scalar, got shape ",
                                         c->input(i).ToString());
        }
      }
    }
    PartialShape indices;
    if (!c->WithRank(indices_index, 1, &indices).ok()) {
      return errors::InvalidArgument("indices must be a vector, got shape ",
                                     c->input(indices_index).ToString());
    }
    const PartialShape& grad = c->input(inputs.grad_index);
    if (shape.known_rank() && shape.rank() == 0) {
      return errors::InvalidArgument(inputs.names[0],
                                     " must be at least 1-D, got a scalar");
    }
    if (shape.known_rank() && grad.known_rank()) {
      bool ok = grad.rank() == shape.rank();
      for (int d = 1; ok && d < shape.rank(); ++d) {
        ok = grad.dim(d) < 0 || shape.dim(d) < 0 || grad.dim(d) == shape.dim(d);
      }
      if (ok && grad.dim(0) >= 0 && indices.dim(0) >= 0) {
        ok = grad.dim(0) == indices.dim(0);
      }
      if (!ok) {
        return errors::InvalidArgument(
            "grad must be [len(indices)] + ", inputs.names[0],
            ".shape[1:]: ", inputs.names[0], " is ", shape.ToString(),
            ", grad is ", grad.ToString(), ", indices is ", indices.ToString());
      }
    }
    c->set_output(0, shape);
    return Status::OK();
  };
}

// var: [m, n], alpha: scalar, op(a): [m, k], op(b): [k, n].
Status FusedMatMulApplyShape(InferenceContext* c) {
  PartialShape var, alpha, product;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &var));
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &alpha));
  TW_RETURN_IF_ERROR(shape_fns::MatMulProduct(c, 2, 3, &product));
  PartialShape merged;
  if (!var.Merge(product, &merged).ok()) {
    return errors::InvalidArgument(
        "var and the product of a and b must have the same shape: var is ",
        var.ToString(), ", the product is ", product.ToString());
  }
  c->set_output(0, merged);
  return Status::OK();
}

}  // namespace

REGISTER_OP("FusedMatMulApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("a: T")
    .Input("b: T")
    .Output("out: Ref(T)")
    .Attr("T: {float32, float64}")
    .Attr("transpose_a: bool = false")
    .Attr("transpose_b: bool = false")
    .Attr("use_locking: bool = false")
    .SetShapeFn(FusedMatMulApplyShape)
    .Doc(
        "var -= alpha * matmul(a, b, transpose_a, transpose_b), in place: "
        "ApplyGradientDescent of a gradient that is a matrix product, in one "
        "GEMM accumulating into the variable. GradientDescentOptimizer emits "
        "it for the kernels of dense layers.");

REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "alpha", "delta"}, 1, 2}))
    .Doc(
        "var -= alpha * delta, in place. The variable is always updated under "
        "its lock (use_locking is accepted for TensorFlow compatibility).");

REGISTER_OP("ApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(
        ApplyShapeFn({{"var", "accum", "lr", "grad", "momentum"}, 2, 3}))
    .Doc(
        "accum = accum * momentum + grad; var -= lr * accum, or with "
        "use_nesterov var -= grad * lr + accum * momentum * lr.");

REGISTER_OP("ApplyAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn(ApplyShapeFn({{"var", "accum", "lr", "grad"}, 2, 3}))
    .Doc(
        "accum += grad * grad (when update_slots); var -= lr * grad / "
        "sqrt(accum).");

REGISTER_OP("ApplyRMSProp")
    .Input("var: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "ms", "mom", "lr", "rho", "momentum",
                               "epsilon", "grad"},
                              3,
                              7}))
    .Doc(
        "ms += (grad^2 - ms) * (1 - rho); mom = mom * momentum + lr * grad / "
        "sqrt(ms + epsilon); var -= mom.");

REGISTER_OP("ApplyCenteredRMSProp")
    .Input("var: Ref(T)")
    .Input("mg: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "mg", "ms", "mom", "lr", "rho",
                               "momentum", "epsilon", "grad"},
                              4,
                              8}))
    .Doc(
        "ms += (grad^2 - ms) * (1 - rho); mg += (grad - mg) * (1 - rho); "
        "mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon); "
        "var -= mom.");

REGISTER_OP("SparseApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(SparseApplyShapeFn(
        {{"var", "accum", "lr", "grad", "indices", "momentum"}, 2, 3}))
    .Doc(
        "ApplyMomentum on the rows indices[i] of var and accum, with grad[i] "
        "their gradient; the other rows are left as they are.");

REGISTER_OP("SparseApplyAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn(
        SparseApplyShapeFn({{"var", "accum", "lr", "grad", "indices"}, 2, 3}))
    .Doc(
        "ApplyAdagrad on the rows indices[i] of var and accum, with grad[i] "
        "their gradient; the other rows are left as they are.");

REGISTER_OP("SparseApplyRMSProp")
    .Input("var: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(SparseApplyShapeFn({{"var", "ms", "mom", "lr", "rho",
                                     "momentum", "epsilon", "grad", "indices"},
                                    3,
                                    7}))
    .Doc(
        "ApplyRMSProp on the rows indices[i] of var, ms and mom, with grad[i] "
        "their gradient; the other rows are left as they are.");

REGISTER_OP("SparseApplyCenteredRMSProp")
    .Input("var: Ref(T)")
    .Input("mg: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(SparseApplyShapeFn({{"var", "mg", "ms", "mom", "lr", "rho",
                                     "momentum", "epsilon", "grad", "indices"},
                                    4,
                                    8}))
    .Doc(
        "ApplyCenteredRMSProp on the rows indices[i] of var, mg, ms and mom, "
        "with grad[i] their gradient; the other rows are left as they are.");

REGISTER_OP("ApplyAdam")
    .Input("var: Ref(T)")
    .Input("m: Ref(T)")
    .Input("v: Ref(T)")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "m", "v", "beta1_power", "beta2_power",
                               "lr", "beta1", "beta2", "epsilon", "grad"},
                              3,
                              9}))
    .Doc(
        "alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power); m += (grad - "
        "m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2); var -= alpha * m "
        "/ (sqrt(v) + epsilon) (with use_nesterov, m is replaced by "
        "grad * (1 - beta1) + beta1 * m).");

// Adadelta, FTRL and the proximal methods, dense and sparse (the sparse form
// updates only the rows `indices` names, with grad holding those rows).
REGISTER_OP("ApplyAdadelta")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("accum_update: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "accum", "accum_update", "lr", "rho",
                               "epsilon", "grad"},
                              3,
                              6}))
    .Doc(
        "accum = rho * accum + (1 - rho) * grad^2; update = sqrt(accum_update "
        "+ epsilon) / sqrt(accum + epsilon) * grad; var -= lr * update; "
        "accum_update = rho * accum_update + (1 - rho) * update^2.");

REGISTER_OP("SparseApplyAdadelta")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("accum_update: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(SparseApplyShapeFn({{"var", "accum", "accum_update", "lr",
                                     "rho", "epsilon", "grad", "indices"},
                                    3,
                                    6}))
    .Doc(
        "ApplyAdadelta on the rows indices[i] of var and its slots, with "
        "grad[i] their gradient; the other rows are left as they are.");

REGISTER_OP("ApplyFtrl")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "accum", "linear", "grad", "lr", "l1",
                               "l2", "lr_power"},
                              3,
                              3}))
    .Doc(
        "FTRL-proximal: new_accum = accum + grad^2; linear += grad - "
        "(new_accum^-lr_power - accum^-lr_power) / lr * var; var = "
        "(sign(linear) * l1 - linear) / (new_accum^-lr_power / lr + 2 * l2) "
        "where |linear| > l1, else 0; accum = new_accum.");

REGISTER_OP("SparseApplyFtrl")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn(SparseApplyShapeFn({{"var", "accum", "linear", "grad",
                                     "indices", "lr", "l1", "l2", "lr_power"},
                                    3,
                                    3}))
    .Doc(
        "ApplyFtrl on the rows indices[i] of var and its slots, with grad[i] "
        "their gradient; the other rows are left as they are.");

REGISTER_OP("ApplyFtrlV2")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("l2_shrinkage: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "accum", "linear", "grad", "lr", "l1",
                               "l2", "l2_shrinkage", "lr_power"},
                              3,
                              3}))
    .Doc(
        "ApplyFtrl with online L2 shrinkage: linear takes grad + 2 * "
        "l2_shrinkage * var in place of grad (accum still adds grad^2).");

REGISTER_OP("SparseApplyFtrlV2")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("linear: Ref(T)")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("l2_shrinkage: T")
    .Input("lr_power: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .Attr("multiply_linear_by_lr: bool = false")
    .SetShapeFn(SparseApplyShapeFn({{"var", "accum", "linear", "grad",
                                     "indices", "lr", "l1", "l2",
                                     "l2_shrinkage", "lr_power"},
                                    3,
                                    3}))
    .Doc(
        "ApplyFtrlV2 on the rows indices[i] of var and its slots, with "
        "grad[i] their gradient; the other rows are left as they are.");

REGISTER_OP("ApplyProximalGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "alpha", "l1", "l2", "delta"}, 1, 4}))
    .Doc(
        "prox_v = var - alpha * delta; var = sign(prox_v) * max(|prox_v| - "
        "alpha * l1, 0) / (1 + alpha * l2).");

REGISTER_OP("SparseApplyProximalGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(SparseApplyShapeFn(
        {{"var", "alpha", "l1", "l2", "grad", "indices"}, 1, 4}))
    .Doc(
        "ApplyProximalGradientDescent on the rows indices[i] of var, with "
        "grad[i] their gradient; the other rows are left as they are.");

REGISTER_OP("ApplyProximalAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(
        ApplyShapeFn({{"var", "accum", "lr", "l1", "l2", "grad"}, 2, 5}))
    .Doc(
        "accum += grad^2; rate = lr / sqrt(accum); prox_v = var - rate * "
        "grad; var = sign(prox_v) * max(|prox_v| - rate * l1, 0) / (1 + rate "
        "* l2).");

REGISTER_OP("SparseApplyProximalAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(SparseApplyShapeFn(
        {{"var", "accum", "lr", "l1", "l2", "grad", "indices"}, 2, 5}))
    .Doc(
        "ApplyProximalAdagrad on the rows indices[i] of var and its slot, "
        "with grad[i] their gradient; the other rows are left as they are.");

REGISTER_OP("ApplyAdagradDA")
    .Input("var: Ref(T)")
    .Input("gradient_accumulator: Ref(T)")
    .Input("gradient_squared_accumulator: Ref(T)")
    .Input("grad: T")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("global_step: int64")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "gradient_accumulator",
                               "gradient_squared_accumulator", "grad", "lr",
                               "l1", "l2", "global_step"},
                              3,
                              3}))
    .Doc(
        "Adagrad dual averaging: g += grad; gg += grad^2; var = lr * "
        "sign(-g) * max(|g| - l1 * global_step, 0) / (l2 * global_step * lr "
        "+ sqrt(gg)) (without the l1 shrinkage when l1 is 0).");

REGISTER_OP("SparseApplyAdagradDA")
    .Input("var: Ref(T)")
    .Input("gradient_accumulator: Ref(T)")
    .Input("gradient_squared_accumulator: Ref(T)")
    .Input("grad: T")
    .Input("indices: Tindices")
    .Input("lr: T")
    .Input("l1: T")
    .Input("l2: T")
    .Input("global_step: int64")
    .Output("out: Ref(T)")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(SparseApplyShapeFn(
        {{"var", "gradient_accumulator", "gradient_squared_accumulator", "grad",
          "indices", "lr", "l1", "l2", "global_step"},
         3,
         3}))
    .Doc(
        "ApplyAdagradDA on the rows indices[i] of var and its slots, with "
        "grad[i] their gradient; the other rows are left as they are.");

// Learning-rate schedules (tw.train.exponential_decay, piecewise_constant):
// small dedicated ops so that schedules need no general math ops.
REGISTER_OP("ExponentialDecay")
    .Input("learning_rate: T")
    .Input("global_step: Tstep")
    .Input("decay_steps: T")
    .Input("decay_rate: T")
    .Output("decayed_learning_rate: T")
    .Attr("T: {float16, bfloat16, float32, float64}")
    .Attr("Tstep: {int32, int64, float32, float64}")
    .Attr("staircase: bool = false")
    .SetShapeFn([](InferenceContext* c) {
      static const char* names[] = {"learning_rate", "global_step",
                                    "decay_steps", "decay_rate"};
      for (int i = 0; i < 4; ++i) {
        PartialShape unused;
        if (!c->WithRank(i, 0, &unused).ok()) {
          return errors::InvalidArgument(names[i],
                                         " must be a scalar, got shape ",
                                         c->input(i).ToString());
        }
      }
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "learning_rate * decay_rate ^ (global_step / decay_steps), the "
        "exponent floored when staircase; computed in T like TensorFlow's "
        "exponential_decay. decay_steps must be positive.");

REGISTER_OP("PiecewiseConstant")
    .Input("x: Tx")
    .Input("boundaries: Tx")
    .Input("values: T")
    .Output("output: T")
    .Attr("T: {float32, float64, int32, int64}")
    .Attr("Tx: {int32, int64, float32, float64}")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape unused;
      if (!c->WithRank(0, 0, &unused).ok()) {
        return errors::InvalidArgument("x must be a scalar, got shape ",
                                       c->input(0).ToString());
      }
      PartialShape boundaries, values;
      if (!c->WithRank(1, 1, &boundaries).ok() ||
          !c->WithRank(2, 1, &values).ok()) {
        return errors::InvalidArgument(
            "boundaries and values must be vectors, got shapes ",
            c->input(1).ToString(), " and ", c->input(2).ToString());
      }
      if (boundaries.dim(0) >= 0 && values.dim(0) >= 0 &&
          values.dim(0) != boundaries.dim(0) + 1) {
        return errors::InvalidArgument(
            "values must have one more element than boundaries, got ",
            values.dim(0), " values and ", boundaries.dim(0), " boundaries");
      }
      c->set_output(0, PartialShape({}));
      return Status::OK();
    })
    .Doc(
        "values[i] for the first i with x <= boundaries[i], values[n] when x "
        "is above every boundary. Boundaries must be increasing.");

}  // namespace tensorweave
