"""The fused optimizer update ops (ApplyGradientDescent, ApplyMomentum, ...).

Each updates a variable and its slots in place, under their locks, and
returns the variable. Optimizers in `tw.train` build these; they are public
for users writing their own optimizers.
"""

from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import state_ops


def _apply(op_type, refs, values, attrs, name):
    refs = [state_ops._ref(r) for r in refs]
    dtype = refs[0].dtype
    values = [ops.convert_to_tensor(v, dtype=dtype) for v in values]
    return gen_ops.wrapper(op_type)(*refs, *values, **attrs, name=name or op_type)


@gen_ops.doc_from("ApplyGradientDescent")
def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """Returns the variable (its ref).

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import training_ops
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v = tw.Variable([1.0, 2.0])
      ...     sess.run(v.initializer)
      ...     print(sess.run(training_ops.apply_gradient_descent(v, 0.5, [2.0, 2.0])))
      [0. 1.]
    """
    return _apply("ApplyGradientDescent", [var], [alpha, delta], {"use_locking": bool(use_locking)}, name)


@gen_ops.doc_from("FusedMatMulApplyGradientDescent")
def fused_matmul_apply_gradient_descent(
    var, alpha, a, b, transpose_a=False, transpose_b=False, use_locking=False, name=None
):
    """Returns the variable (its ref).

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> from tensorweave._src.ops import training_ops
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v = tw.Variable(np.ones((2, 2), np.float32))
      ...     sess.run(v.initializer)
      ...     x = np.array([[1.0, 2.0]], np.float32)
      ...     print(sess.run(training_ops.fused_matmul_apply_gradient_descent(v, 0.5, x, x, transpose_a=True)))
      [[ 0.5  0. ]
       [ 0.  -1. ]]
    """
    attrs = {"use_locking": bool(use_locking), "transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)}
    return _apply("FusedMatMulApplyGradientDescent", [var], [alpha, a, b], attrs, name)


@gen_ops.doc_from("ApplyMomentum")
def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, name=None):
    """Returns the variable (its ref)."""
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    return _apply("ApplyMomentum", [var, accum], [lr, grad, momentum], attrs, name)


@gen_ops.doc_from("ApplyAdagrad")
def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True, name=None):
    """Returns the variable (its ref)."""
    attrs = {"use_locking": bool(use_locking), "update_slots": bool(update_slots)}
    return _apply("ApplyAdagrad", [var, accum], [lr, grad], attrs, name)


@gen_ops.doc_from("ApplyRMSProp")
def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, name=None):
    """Returns the variable (its ref)."""
    return _apply(
        "ApplyRMSProp", [var, ms, mom], [lr, rho, momentum, epsilon, grad], {"use_locking": bool(use_locking)}, name
    )


@gen_ops.doc_from("ApplyCenteredRMSProp")
def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, name=None):
    """RMSProp normalized by the centered second moment ms - mg^2. Returns the variable (its ref)."""
    return _apply(
        "ApplyCenteredRMSProp",
        [var, mg, ms, mom],
        [lr, rho, momentum, epsilon, grad],
        {"use_locking": bool(use_locking)},
        name,
    )


@gen_ops.doc_from("ApplyAdam")
def apply_adam(
    var,
    m,
    v,
    beta1_power,
    beta2_power,
    lr,
    beta1,
    beta2,
    epsilon,
    grad,
    use_locking=False,
    use_nesterov=False,
    name=None,
):
    """The Adam update (m, v: the moving moments). Returns the variable (its ref)."""
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    return _apply("ApplyAdam", [var, m, v], [beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad], attrs, name)
