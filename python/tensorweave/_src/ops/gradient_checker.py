"""TF1's `tf.test.compute_gradient` / `compute_gradient_error`: a graph's symbolic Jacobian (from
`tw.gradients`) beside a central-difference one, both run in the default session.

Each Jacobian has one row per element of x and one column per element of y (row-major order). A complex x or
y (where the build has complex dtypes) counts its real and imaginary parts as separate elements, as TF does.
"""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import indexed_slices
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import gradients_impl

__all__ = ["compute_gradient", "compute_gradient_error"]

_ALLOWED = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _size(shape):
    return int(np.prod(shape, dtype=np.int64)) if not isinstance(shape, int) else shape


def _feeds(extra_feed_dict, new_feeds):
    feeds = dict(extra_feed_dict or {})
    feeds.update(new_feeds)
    return feeds


def _real_np(dtype):
    return np.dtype(dtype.real_dtype.as_numpy_dtype)


def _session():
    sess = ops.get_default_session()
    if sess is None:
        raise ValueError(
            "compute_gradient needs a default session: run it inside `with tw.Session():` "
            "(or `with self.session():` in a tw.test.TestCase)"
        )
    return sess


def _theoretical_jacobian(x, x_shape, x_data, dy, dy_shape, dx, extra_feed_dict):
    """Column j is dx when the upstream gradient dy is the j-th unit vector."""
    if x.dtype.is_complex:
        x_shape = tuple(x_shape) + (2,)
    x_size = _size(x_shape)
    row_size = _size(tuple(x_shape)[1:])  # one row of x, for IndexedSlices gradients
    dy_size = _size(dy_shape) * (2 if dy.dtype.is_complex else 1)
    jacobian = np.zeros((x_size, dy_size), dtype=_real_np(x.dtype))
    dy_data = np.zeros(dy_shape, dtype=dy.dtype.as_numpy_dtype)
    dy_flat = dy_data.ravel().view(_real_np(dy.dtype))
    sess = _session()
    for col in range(dy_size):
        dy_flat[col] = 1
        feeds = _feeds(extra_feed_dict, {x: x_data, dy: dy_data})
        if isinstance(dx, indexed_slices.IndexedSlices):
            indices, values = sess.run([dx.indices, dx.values], feed_dict=feeds)
            for i, v in zip(indices, values):
                jacobian[i * row_size : (i + 1) * row_size, col] += v.ravel().view(jacobian.dtype)
        else:
            jacobian[:, col] = np.asarray(sess.run(dx, feed_dict=feeds)).ravel().view(jacobian.dtype)
        dy_flat[col] = 0
    if not dy_size:
        backprop = np.asarray(sess.run(dx, feed_dict=_feeds(extra_feed_dict, {x: x_data, dy: dy_data})))
        if backprop.shape != x_data.shape:
            raise ValueError(f"Empty gradient has wrong shape: expected {x_data.shape}, got {backprop.shape}")
        if np.any(backprop):
            raise ValueError("Empty tensor with nonzero gradients")
    return jacobian


def _numeric_jacobian(x, x_shape, x_data, y, y_shape, delta, extra_feed_dict):
    """Row i is (y(x + delta e_i) - y(x - delta e_i)) / (2 delta)."""
    x_real, y_real = _real_np(x.dtype), _real_np(y.dtype)
    x_size = _size(x_shape) * (2 if x.dtype.is_complex else 1)
    y_size = _size(y_shape) * (2 if y.dtype.is_complex else 1)
    x_data = np.asarray(x_data, dtype=x.dtype.as_numpy_dtype)
    scale = np.asarray(2 * delta, dtype=y_real)[()]
    jacobian = np.zeros((x_size, y_size), dtype=x_real)
    sess = _session()
    for row in range(x_size):
        x_pos, x_neg = x_data.copy(), x_data.copy()
        x_pos.ravel().view(x_real)[row] += delta
        x_neg.ravel().view(x_real)[row] -= delta
        y_pos = np.asarray(sess.run(y, feed_dict=_feeds(extra_feed_dict, {x: x_pos})))
        y_neg = np.asarray(sess.run(y, feed_dict=_feeds(extra_feed_dict, {x: x_neg})))
        jacobian[row, :] = ((y_pos - y_neg) / scale).ravel().view(y_real)
    return jacobian


def _check_dtypes(x, y):
    for t, what in ((x, "x"), (y, "y")):
        if dtypes.as_dtype(t.dtype).base_dtype.name not in _ALLOWED:
            raise TypeError(f"Don't support type {t.dtype.name} for {what} ({t.name}): a floating dtype is needed")


def _dx_and_dy(x, y, y_shape):
    """The gradient of y with respect to x for a fed upstream gradient dy (a constant that is fed)."""
    _check_dtypes(x, y)
    with x.graph.as_default():
        dy = constant_op.constant(1.0, shape=y_shape, dtype=y.dtype)
        grads = gradients_impl.gradients(y, x, array_ops.identity(dy))
    if grads[0] is None:
        raise ValueError(f"{y.name} does not depend on {x.name}: tw.gradients returned None")
    return grads[0], dy


def _one_gradient(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict):
    if x_init_value is not None:
        x_data = np.asarray(x_init_value)
        if list(x_shape) != list(x_data.shape):
            raise ValueError(f"x_shape = {list(x_shape)}, init_data shape = {list(x_data.shape)}")
    else:
        x_data = np.random.random_sample(x_shape).astype(x.dtype.as_numpy_dtype)
        if x.dtype.is_complex:
            x_data.imag = np.random.random_sample(x_shape)
    jacob_t = _theoretical_jacobian(x, x_shape, x_data, dy, y_shape, dx, extra_feed_dict)
    jacob_n = _numeric_jacobian(x, x_shape, x_data, y, y_shape, delta, extra_feed_dict)
    return jacob_t, jacob_n


def _run_init_targets(init_targets):
    if init_targets is not None:
        if not isinstance(init_targets, (list, tuple)):
            raise TypeError(f"init_targets must be a list or tuple, got {type(init_targets).__name__}")
        for init in init_targets:
            _session().run(init)


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None, extra_feed_dict=None):
    """The theoretical and numerical Jacobians of y with respect to x (TF1's `tf.test.compute_gradient`).

    Runs in the default session. x is a tensor (or a list of tensors, with a list of shapes and of initial
    values); each Jacobian has one row per element of x and one column per element of y. Without
    `x_init_value`, x is drawn uniformly from [0, 1). `init_targets` are run first (e.g. variable
    initializers); `extra_feed_dict` feeds other placeholders. Returns `(theoretical, numerical)`, or a list
    of such pairs when x is a list.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> x = tw.placeholder(tw.float64, [2])
      >>> with tw.Session():
      ...     jt, jn = tw.test.compute_gradient(x, [2], x * x, [2], x_init_value=np.array([1.0, 2.0]))
      >>> jt
      array([[2., 0.],
             [0., 4.]])
    """
    if isinstance(x, list):
        dx, dy = zip(*[_dx_and_dy(xi, y, y_shape) for xi in x])
        _run_init_targets(init_targets)
        inits = x_init_value if x_init_value is not None else [None] * len(x)
        return [
            _one_gradient(xi, si, dxi, y, y_shape, dyi, vi, delta, extra_feed_dict)
            for xi, si, dxi, dyi, vi in zip(x, x_shape, dx, dy, inits)
        ]
    _run_init_targets(init_targets)
    dx, dy = _dx_and_dy(x, y, y_shape)
    return _one_gradient(x, x_shape, dx, y, y_shape, dy, x_init_value, delta, extra_feed_dict)


def _max_error(grad):
    if isinstance(grad, tuple):
        grad = [grad]
    error = 0
    for j_t, j_n in grad:
        if j_t.size or j_n.size:  # a zero-size tensor has no error
            error = np.maximum(error, np.fabs(j_t - j_n).max())
    return error


def compute_gradient_error(
    x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None, extra_feed_dict=None
):
    """The largest absolute difference between the theoretical and numerical Jacobians of
    `compute_gradient` (over every x when x is a list), as TF1's `tf.test.compute_gradient_error`.

    Example:
      >>> import tensorweave as tw
      >>> x = tw.placeholder(tw.float64, [3])
      >>> with tw.Session():
      ...     err = tw.test.compute_gradient_error(x, [3], tw.sin(x), [3])
      >>> bool(err < 1e-6)
      True
    """
    grad = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets, extra_feed_dict)
    return _max_error(grad)
