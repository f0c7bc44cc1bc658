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


def _apply_sparse(op_type, refs, values, indices, grad_position, attrs, name):
    """A SparseApply* op: `values` are the non-variable inputs in order without
    `indices`, which goes right after the gradient (values[grad_position])."""
    refs = [state_ops._ref(r) for r in refs]
    dtype = refs[0].dtype
    values = [ops.convert_to_tensor(v, dtype=dtype) for v in values]
    indices = ops.convert_to_tensor(indices)
    if indices.dtype.name not in ("int32", "int64"):
        raise TypeError(f"{op_type}: indices must be int32 or int64, got {indices.dtype.name}")
    values.insert(grad_position + 1, indices)
    return gen_ops.wrapper(op_type)(*refs, *values, **attrs, name=name or op_type)


def sparse_apply_momentum(var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False, name=None):
    """SparseApplyMomentum: ApplyMomentum on the rows `indices` of var and accum, grad[i] the gradient of row
    indices[i]. Returns the variable (its ref).

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import training_ops
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v, a = tw.Variable([1.0, 2.0]), tw.Variable([0.0, 0.0])
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(training_ops.sparse_apply_momentum(v, a, 0.5, [2.0], [1], 0.9)))
      [1. 1.]
    """
    attrs = {"use_locking": bool(use_locking), "use_nesterov": bool(use_nesterov)}
    return _apply_sparse("SparseApplyMomentum", [var, accum], [lr, grad, momentum], indices, 1, attrs, name)


def sparse_apply_adagrad(var, accum, lr, grad, indices, use_locking=False, update_slots=True, name=None):
    """SparseApplyAdagrad: ApplyAdagrad on the rows `indices` of var and accum, grad[i] the gradient of row
    indices[i]. Returns the variable (its ref).

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import training_ops
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v, a = tw.Variable([1.0, 2.0]), tw.Variable([0.0, 0.0])
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(training_ops.sparse_apply_adagrad(v, a, 0.5, [2.0], [1])))
      [1.  1.5]
    """
    attrs = {"use_locking": bool(use_locking), "update_slots": bool(update_slots)}
    return _apply_sparse("SparseApplyAdagrad", [var, accum], [lr, grad], indices, 1, attrs, name)


def sparse_apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking=False, name=None):
    """SparseApplyRMSProp: ApplyRMSProp on the rows `indices` of var, ms and mom. Returns the variable (its ref)."""
    return _apply_sparse(
        "SparseApplyRMSProp",
        [var, ms, mom],
        [lr, rho, momentum, epsilon, grad],
        indices,
        4,
        {"use_locking": bool(use_locking)},
        name,
    )


def sparse_apply_centered_rms_prop(
    var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking=False, name=None
):
    """SparseApplyCenteredRMSProp: ApplyCenteredRMSProp on the rows `indices` of var, mg, ms and mom. Returns the
    variable (its ref)."""
    return _apply_sparse(
        "SparseApplyCenteredRMSProp",
        [var, mg, ms, mom],
        [lr, rho, momentum, epsilon, grad],
        indices,
        4,
        {"use_locking": bool(use_locking)},
        name,
    )


@gen_ops.doc_from("ApplyAdadelta")
def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False, name=None):
    """Returns the variable (its ref)."""
    return _apply(
        "ApplyAdadelta", [var, accum, accum_update], [lr, rho, epsilon, grad], {"use_locking": bool(use_locking)}, name
    )


@gen_ops.doc_from("SparseApplyAdadelta")
def sparse_apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices, use_locking=False, name=None):
    """Returns the variable (its ref)."""
    return _apply_sparse(
        "SparseApplyAdadelta",
        [var, accum, accum_update],
        [lr, rho, epsilon, grad],
        indices,
        3,
        {"use_locking": bool(use_locking)},
        name,
    )


def _ftrl_values(grad, lr, l1, l2, l2_shrinkage, lr_power):
    if l2_shrinkage is None:
        return "", [grad, lr, l1, l2, lr_power]
    return "V2", [grad, lr, l1, l2, l2_shrinkage, lr_power]


@gen_ops.doc_from("ApplyFtrl")
def apply_ftrl(
    var,
    accum,
    linear,
    grad,
    lr,
    l1,
    l2,
    lr_power,
    use_locking=False,
    multiply_linear_by_lr=False,
    name=None,
    l2_shrinkage=None,
):
    """Returns the variable (its ref). With `l2_shrinkage` given, builds ApplyFtrlV2.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.ops import training_ops
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     v, a, l = tw.Variable([1.0]), tw.Variable([0.1]), tw.Variable([0.0])
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(training_ops.apply_ftrl(v, a, l, [1.0], 1.0, 0.0, 0.0, -0.5)).round(4))
      [-0.255]
    """
    suffix, values = _ftrl_values(grad, lr, l1, l2, l2_shrinkage, lr_power)
    attrs = {"use_locking": bool(use_locking), "multiply_linear_by_lr": bool(multiply_linear_by_lr)}
    return _apply("ApplyFtrl" + suffix, [var, accum, linear], values, attrs, name)


@gen_ops.doc_from("SparseApplyFtrl")
def sparse_apply_ftrl(
    var,
    accum,
    linear,
    grad,
    indices,
    lr,
    l1,
    l2,
    lr_power,
    use_locking=False,
    multiply_linear_by_lr=False,
    name=None,
    l2_shrinkage=None,
):
    """Returns the variable (its ref). With `l2_shrinkage` given, builds SparseApplyFtrlV2."""
    suffix, values = _ftrl_values(grad, lr, l1, l2, l2_shrinkage, lr_power)
    attrs = {"use_locking": bool(use_locking), "multiply_linear_by_lr": bool(multiply_linear_by_lr)}
    return _apply_sparse("SparseApplyFtrl" + suffix, [var, accum, linear], values, indices, 0, attrs, name)


@gen_ops.doc_from("ApplyProximalGradientDescent")
def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking=False, name=None):
    """Returns the variable (its ref)."""
    return _apply(
        "ApplyProximalGradientDescent", [var], [alpha, l1, l2, delta], {"use_locking": bool(use_locking)}, name
    )


@gen_ops.doc_from("SparseApplyProximalGradientDescent")
def sparse_apply_proximal_gradient_descent(var, alpha, l1, l2, grad, indices, use_locking=False, name=None):
    """Returns the variable (its ref)."""
    return _apply_sparse(
        "SparseApplyProximalGradientDescent",
        [var],
        [alpha, l1, l2, grad],
        indices,
        3,
        {"use_locking": bool(use_locking)},
        name,
    )


@gen_ops.doc_from("ApplyProximalAdagrad")
def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking=False, name=None):
    """Returns the variable (its ref)."""
    return _apply("ApplyProximalAdagrad", [var, accum], [lr, l1, l2, grad], {"use_locking": bool(use_locking)}, name)


@gen_ops.doc_from("SparseApplyProximalAdagrad")
def sparse_apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False, name=None):
    """Returns the variable (its ref)."""
    return _apply_sparse(
        "SparseApplyProximalAdagrad",
        [var, accum],
        [lr, l1, l2, grad],
        indices,
        3,
        {"use_locking": bool(use_locking)},
        name,
    )


def _global_step_input(global_step):
    from tensorweave._src.framework import dtypes
    from tensorweave._src.ops import math_ops

    global_step = ops.convert_to_tensor(global_step)
    return global_step if global_step.dtype == dtypes.int64 else math_ops.cast(global_step, dtypes.int64)


@gen_ops.doc_from("ApplyAdagradDA")
def apply_adagrad_da(
    var,
    gradient_accumulator,
    gradient_squared_accumulator,
    grad,
    lr,
    l1,
    l2,
    global_step,
    use_locking=False,
    name=None,
):
    """Returns the variable (its ref); `global_step` is an int64 scalar."""
    refs = [state_ops._ref(r) for r in (var, gradient_accumulator, gradient_squared_accumulator)]
    dtype = refs[0].dtype
    values = [ops.convert_to_tensor(v, dtype=dtype) for v in (grad, lr, l1, l2)]
    return gen_ops.wrapper("ApplyAdagradDA")(
        *refs, *values, _global_step_input(global_step), use_locking=bool(use_locking), name=name or "ApplyAdagradDA"
    )


@gen_ops.doc_from("SparseApplyAdagradDA")
def sparse_apply_adagrad_da(
    var,
    gradient_accumulator,
    gradient_squared_accumulator,
    grad,
    indices,
    lr,
    l1,
    l2,
    global_step,
    use_locking=False,
    name=None,
):
    """Returns the variable (its ref); `global_step` is an int64 scalar."""
    refs = [state_ops._ref(r) for r in (var, gradient_accumulator, gradient_squared_accumulator)]
    dtype = refs[0].dtype
    grad = ops.convert_to_tensor(grad, dtype=dtype)
    lr, l1, l2 = [ops.convert_to_tensor(v, dtype=dtype) for v in (lr, l1, l2)]
    indices = ops.convert_to_tensor(indices)
    return gen_ops.wrapper("SparseApplyAdagradDA")(
        *refs,
        grad,
        indices,
        lr,
        l1,
        l2,
        _global_step_input(global_step),
        use_locking=bool(use_locking),
        name=name or "SparseApplyAdagradDA",
    )
