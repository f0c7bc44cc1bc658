// Fused optimizer updates: each op updates a variable (and its slots, such
// as momentum accumulators) in place, with TensorFlow's names and formulas.
// The first inputs are the variables (Ref), the others are scalar
// hyperparameters and the gradient, which has the variable's shape.
#include <string>
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

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
    .Attr("T: {float32, float64}")
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
    .Attr("T: {float32, float64}")
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
    .Attr("T: {float32, float64}")
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
    .Attr("T: {float32, float64}")
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
    .Attr("T: {float32, float64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyShapeFn({{"var", "mg", "ms", "mom", "lr", "rho",
                               "momentum", "epsilon", "grad"},
                              4,
                              8}))
    .Doc(
        "ms += (grad^2 - ms) * (1 - rho); mg += (grad - mg) * (1 - rho); "
        "mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon); "
        "var -= mom.");

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
    .Attr("T: {float32, float64}")
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

// Learning-rate schedules (tw.train.exponential_decay, piecewise_constant):
// small dedicated ops so that schedules need no general math ops.
REGISTER_OP("ExponentialDecay")
    .Input("learning_rate: T")
    .Input("global_step: Tstep")
    .Input("decay_steps: T")
    .Input("decay_rate: T")
    .Output("decayed_learning_rate: T")
    .Attr("T: {float32, float64}")
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
