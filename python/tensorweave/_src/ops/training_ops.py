"""The fused optimizer update ops (ApplyGradientDescent, ApplyMomentum, ...).

Each updates a variable and its slots in place, under their locks, and
returns the variable. Optimizers in `tw.train` build these; they are public
for users writing their own optimizers.
"""

from tensorweave._src.framework import ops
from tensorweave._src.ops import state_ops


def _apply(op_type, refs, values, attrs, name):
    refs = [state_ops._ref(r) for r in refs]
    dtype = refs[0].dtype
    values = [ops.convert_to_tensor(v, dtype=dtype) for v in values]
    graph = ops.get_default_graph()
    return graph._create_op(op_type, refs + values, attrs, name=name or op_type).outputs[0]


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """var -= alpha * delta, in place; returns the variable.

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


def fused_matmul_apply_gradient_descent(
    var, alpha, a, b, transpose_a=False, transpose_b=False, use_locking=False, name=None
):
    """var -= alpha * matmul(a, b, transpose_a, transpose_b), in place, in one
    GEMM that accumulates into the variable; returns the variable.

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


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, name=None):
    """accum = accum * momentum + grad; var -= lr * accum (Nesterov:
    var -= grad * lr + accum * momentum * lr)."""
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    return _apply("ApplyMomentum", [var, accum], [lr, grad, momentum], attrs, name)


def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True, name=None):
    """accum += grad^2 (when update_slots); var -= lr * grad / sqrt(accum)."""
    attrs = {"use_locking": bool(use_locking), "update_slots": bool(update_slots)}
    return _apply("ApplyAdagrad", [var, accum], [lr, grad], attrs, name)


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, name=None):
    """ms += (grad^2 - ms)(1 - rho); mom = mom * momentum + lr * grad /
    sqrt(ms + epsilon); var -= mom."""
    return _apply(
        "ApplyRMSProp", [var, ms, mom], [lr, rho, momentum, epsilon, grad], {"use_locking": bool(use_locking)}, name
    )


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, name=None):
    """RMSProp normalized by the centered second moment ms - mg^2."""
    return _apply(
        "ApplyCenteredRMSProp",
        [var, mg, ms, mom],
        [lr, rho, momentum, epsilon, grad],
        {"use_locking": bool(use_locking)},
        name,
    )


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
    """The Adam update: m, v moving moments; var -= lr_t * m / (sqrt(v) + epsilon)
    with lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)."""
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    return _apply("ApplyAdam", [var, m, v], [beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad], attrs, name)
