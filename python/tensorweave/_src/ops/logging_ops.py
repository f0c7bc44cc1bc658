"""TF1's Assert, Print and the check_ops asserts (tf.assert_*), as TF1 builds them in a graph."""

import collections.abc

import numpy as np

from tensorweave._src.framework import dtypes, errors, ops
from tensorweave._src.ops import array_ops, gen_ops, math_ops


def _as_data(data):
    return [ops.convert_to_tensor(d) for d in data]


@gen_ops.doc_from("Assert")
def Assert(condition, data, summarize=None, name=None):
    """TF1's tf.Assert: returns the Assert operation (run it, or make it a control dependency)."""
    with ops.name_scope(name, "Assert"):
        data = _as_data(data)
        summarize = 3 if summarize is None else summarize
        if all(d.dtype in (dtypes.string, dtypes.int32) for d in data):
            condition = ops.convert_to_tensor(condition, dtype=dtypes.bool, name="Condition")
            return gen_ops.wrapper("Assert")(condition, data, summarize=summarize, name="Assert")
        # As TF: other data is guarded by a cond ("AssertGuard"), and the cond's Merge op returned.
        from tensorweave._src.ops import control_flow_ops

        condition = ops.convert_to_tensor(condition, dtype=dtypes.bool, name="Condition")

        def true_assert():
            return gen_ops.wrapper("Assert")(condition, data, summarize=summarize, name="Assert")

        def no_op():
            return gen_ops.no_op(name="NoOp")

        return control_flow_ops.cond(condition, no_op, true_assert, name="AssertGuard").op


@gen_ops.doc_from("Print")
def Print(input_, data, message=None, first_n=None, summarize=None, name=None):
    """TF1's tf.Print: returns `input_` unchanged, printing `message` and `data` to stderr when it runs."""
    input_ = ops.convert_to_tensor(input_)
    attrs = {}
    if message is not None:
        attrs["message"] = message
    if first_n is not None:
        attrs["first_n"] = first_n
    if summarize is not None:
        attrs["summarize"] = summarize
    return gen_ops.wrapper("Print")(input_, _as_data(data), **attrs, name=name or "Print")


def _assert_static(condition, data):
    if not condition:
        parts = []
        for d in data:
            value = array_ops.constant_value(d) if isinstance(d, ops.Tensor) else d
            if isinstance(value, np.ndarray) and value.dtype.kind in "SO" and value.ndim == 0:
                value = value.item()
            if isinstance(value, bytes):
                value = value.decode("utf-8", "replace")
            parts.append(str(value if value is not None else d))
        raise errors.InvalidArgumentError(None, None, "\n".join(parts))


def _binary_assert(sym, opname, op_func, static_func, x, y, data, summarize, message, name):
    with ops.name_scope(name, opname):
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y")
        if data is None:
            data = [f"Condition x {sym} y did not hold element-wise:", f"x ({x.name}) = ", x, f"y ({y.name}) = ", y]
        if message is not None:
            data = [message] + list(data)
        condition = math_ops.reduce_all(op_func(x, y))
        x_static = array_ops.constant_value(x)
        y_static = array_ops.constant_value(y)
        if x_static is not None and y_static is not None:
            _assert_static(bool(np.all(static_func(x_static, y_static))), data)
        return Assert(condition, data, summarize=summarize)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts x == y element-wise (an InvalidArgumentError when run, or at once when both are constants)."""
    with ops.name_scope(name, "assert_equal"):
        # As TF: a scope opened for the same-tensor shortcut (so the assert itself is under "assert_equal_1").
        if x is y:
            return gen_ops.no_op(name="NoOp")
    return _binary_assert("==", "assert_equal", math_ops.equal, np.equal, x, y, data, summarize, message, name)


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts x != y element-wise."""
    return _binary_assert(
        "!=", "assert_none_equal", math_ops.not_equal, np.not_equal, x, y, data, summarize, message, name
    )


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts x < y element-wise."""
    return _binary_assert("<", "assert_less", math_ops.less, np.less, x, y, data, summarize, message, name)


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts x <= y element-wise."""
    return _binary_assert(
        "<=", "assert_less_equal", math_ops.less_equal, np.less_equal, x, y, data, summarize, message, name
    )


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts x > y element-wise."""
    return _binary_assert(">", "assert_greater", math_ops.greater, np.greater, x, y, data, summarize, message, name)


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Asserts x >= y element-wise."""
    return _binary_assert(
        ">=", "assert_greater_equal", math_ops.greater_equal, np.greater_equal, x, y, data, summarize, message, name
    )


def _sign_assert(opname, sym, x, data, summarize, message, name, build):
    with ops.name_scope(name, opname):
        x = ops.convert_to_tensor(x, name="x")
        if data is None:
            data = [f"Condition x {sym} 0 did not hold element-wise:", f"x ({x.name}) = ", x]
        if message is not None:
            data = [message] + list(data)
        zero = array_ops.zeros([], dtype=x.dtype)
        return build(x, zero, data=data, summarize=summarize)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """Asserts x < 0 element-wise."""
    return _sign_assert("assert_negative", "<", x, data, summarize, message, name, assert_less)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """Asserts x > 0 element-wise."""
    return _sign_assert(
        "assert_positive", ">", x, data, summarize, message, name, lambda x, z, **k: assert_less(z, x, **k)
    )


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """Asserts x >= 0 element-wise."""
    return _sign_assert(
        "assert_non_negative", ">=", x, data, summarize, message, name, lambda x, z, **k: assert_less_equal(z, x, **k)
    )


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """Asserts x <= 0 element-wise."""
    return _sign_assert("assert_non_positive", "<=", x, data, summarize, message, name, assert_less_equal)


def assert_near(x, y, rtol=None, atol=None, data=None, summarize=None, message=None, name=None):
    """Asserts |x - y| <= atol + rtol * |y| element-wise (default tolerances 10 * eps of the dtype)."""
    with ops.name_scope(name, "assert_near"):
        x = ops.convert_to_tensor(x, name="x")
        y = ops.convert_to_tensor(y, name="y", dtype=x.dtype)
        eps = np.finfo(x.dtype.as_numpy_dtype).eps
        rtol = ops.convert_to_tensor(10 * eps if rtol is None else rtol, name="rtol", dtype=x.dtype)
        atol = ops.convert_to_tensor(10 * eps if atol is None else atol, name="atol", dtype=x.dtype)
        if data is None:
            data = [
                f"x and y not equal to tolerance rtol = {rtol}, atol = {atol}",
                f"x ({x.name}) = ",
                x,
                f"y ({y.name}) = ",
                y,
            ]
        if message is not None:
            data = [message] + list(data)
        tol = atol + rtol * math_ops.abs(y)
        diff = math_ops.abs(x - y)
        condition = math_ops.reduce_all(math_ops.less(diff, tol))
        return Assert(condition, data, summarize=summarize)


def _rank_assert(x, rank, opname, static_ok, dynamic_cond, describe, data, summarize, message, name):
    with ops.name_scope(name, opname):
        x = ops.convert_to_tensor(x, name="x")
        rank = ops.convert_to_tensor(rank, name="rank")
        message = message or ""
        if rank.dtype != dtypes.int32:
            raise TypeError(f"{message}{rank.name} must be of type tf.int32; got {rank.dtype.name}")
        rank_static = array_ops.constant_value(rank)
        if data is None:
            data = [message, f"Tensor {x.name} must have rank {describe}", rank, "Received shape: ", array_ops.shape(x)]
        if rank_static is not None:
            x_rank = x.shape.ndims
            if x_rank is not None:
                if not static_ok(x_rank, rank_static):
                    raise ValueError(
                        f"{message}.  Tensor {x.name} must have rank {describe} {rank_static}.  "
                        f"Received shape: {x.shape}"
                    )
                return gen_ops.no_op(name="static_checks_determined_all_ok")
        condition = dynamic_cond(array_ops.rank(x), rank)
        return Assert(condition, data, summarize=summarize)


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts that x has rank `rank` (a ValueError at once when the static rank disagrees)."""
    return _rank_assert(
        x, rank, "assert_rank", lambda a, r: a == int(r), math_ops.equal, "", data, summarize, message, name
    )


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Asserts that x has rank `rank` or more."""
    return _rank_assert(
        x,
        rank,
        "assert_rank_at_least",
        lambda a, r: a >= int(r),
        math_ops.greater_equal,
        "at least",
        data,
        summarize,
        message,
        name,
    )


def assert_rank_in(x, ranks, data=None, summarize=None, message=None, name=None):
    """Asserts that the rank of x is one of `ranks`."""
    with ops.name_scope(name, "assert_rank_in"):
        x = ops.convert_to_tensor(x, name="x")
        ranks = [ops.convert_to_tensor(r, name="rank") for r in ranks]
        message = message or ""
        statics = [array_ops.constant_value(r) for r in ranks]
        if data is None:
            data = (
                [message, f"Tensor {x.name} must have rank in"] + list(ranks) + ["Received shape: ", array_ops.shape(x)]
            )
        if all(s is not None for s in statics) and x.shape.ndims is not None:
            if x.shape.ndims not in [int(s) for s in statics]:
                raise ValueError(
                    f"{message}.  Tensor {x.name} must have rank in {tuple(int(s) for s in statics)}.  "
                    f"Received shape: {x.shape}"
                )
            return gen_ops.no_op(name="static_checks_determined_all_ok")
        x_rank = array_ops.rank(x)
        condition = math_ops.reduce_any(array_ops.stack([math_ops.equal(x_rank, r) for r in ranks]))
        return Assert(condition, data, summarize=summarize)


def assert_integer(x, message=None, name=None):
    """A TypeError unless x has an integer dtype; else a no-op (the check is static)."""
    with ops.name_scope(name, "assert_integer"):
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_integer:
            prefix = f"{message}: " if message else ""
            raise TypeError(f"{prefix}Expected {x.name} to be integer type, got {x.dtype.name}.")
        return gen_ops.no_op(name="statically_determined_was_integer")


def assert_type(tensor, tf_type, message=None, name=None):
    """A TypeError unless tensor's dtype is tf_type; else a no-op (the check is static)."""
    with ops.name_scope(name, "assert_type"):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        tf_type = dtypes.as_dtype(tf_type)
        if tensor.dtype != tf_type:
            prefix = f"{message}: " if message else ""
            raise TypeError(f"{prefix}{tensor.name} must be of type {tf_type!r}; got {tensor.dtype!r}")
        return gen_ops.no_op(name="statically_determined_correct_type")


def assert_scalar(tensor, name=None, message=None):
    """Returns tensor when its static rank is 0; a ValueError otherwise."""
    with ops.name_scope(name, "assert_scalar"):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        shape = tensor.shape
        if shape.ndims != 0:
            prefix = f"{message}: " if message else ""
            raise ValueError(f"{prefix}Expected scalar shape for {tensor.name}, saw shape: {shape}.")
        return tensor


def assert_same_float_dtype(tensors=None, dtype=None):
    """The common floating dtype of `tensors` (and `dtype`), float32 when neither gives one; ValueError otherwise."""
    if tensors:
        for t in tensors:
            t_dtype = t.dtype.base_dtype if hasattr(t.dtype, "base_dtype") else t.dtype
            if dtype is None:
                dtype = t_dtype
            elif dtype != t_dtype:
                raise ValueError(f"{t!r}, type={t_dtype!r}: expected type {dtype!r}.")
    if not dtype:
        dtype = dtypes.float32
    elif not dtypes.as_dtype(dtype).is_floating:
        raise ValueError(f"Expected floating point type, got {dtype!r}.")
    return dtype


def assert_proper_iterable(values):
    """A TypeError when values is a Tensor, an ndarray, a string, or not iterable."""
    unintentional_iterables = (ops.Tensor, np.ndarray, bytes, str)
    if isinstance(values, unintentional_iterables):
        raise TypeError(f"Expected argument 'values' to be a 'proper' iterable.  Found: {type(values)}")
    if not isinstance(values, collections.abc.Iterable):
        raise TypeError(f"Expected argument 'values' to be iterable.  Found: {type(values)}")
