"""The small dtypes (int8, int16, uint16, uint32, uint64, float16) against TensorFlow 1.

Each family runs once per dtype (the case id ends in the dtype's name): constants and feeds keep their dtype,
copies (reshape, transpose, concat, gather, slices, tile, pad, fill) move the bytes unchanged, arithmetic wraps
around as TensorFlow's kernels do, reductions of small integers (mean) accumulate wider, casts between every
pair, comparisons, relu, variables and checkpoints. float16 computes each element in float and rounds it (as
Eigen::half); its sums are accumulated in float here and in half by TensorFlow, hence their tolerance. Ops
TensorFlow has no kernel for on a dtype (Neg of unsigned, MatMul of int8) are errors of the same class.
"""

import os
import tempfile

import numpy as np

from tests.fidelity.harness import case

INTS = ("int8", "int16", "uint16", "uint32", "uint64")
SIGNED = ("int8", "int16", "float16")
ALL = INTS + ("float16",)
# A float16 sum or mean differs by an ulp or two: TensorFlow accumulates in half, tensorweave in float.
HALF_TOL = 2e-3
TILE_UINT16_NOTE = (
    "TensorFlow's CPU Tile has no uint16 kernel (UnimplementedError when the graph runs); tensorweave's Tile copies "
    "any dtype"
)


def per_dtype(dtypes=ALL, tol=1e-5, known=None):
    """Registers `body(tf, sess, dtype)` as one case per dtype, named `<body>_<dtype>`; `known` maps a dtype's
    name to its known_difference note."""

    def register(body):
        for name in dtypes:

            def fn(tf, sess, _name=name):
                return body(tf, sess, getattr(tf, _name))

            fn.__name__ = f"{body.__name__}_{name}"
            fn.__qualname__ = fn.__name__
            fn.__module__ = body.__module__
            case(fn, tol=HALF_TOL if name == "float16" else tol, known_difference=(known or {}).get(name))
        return body

    return register


def _np(dtype):
    return np.dtype(dtype.as_numpy_dtype)


def _values(dtype):
    """A [2, 3] array with values every dtype holds (negatives only for the signed)."""
    if dtype.is_unsigned:
        return np.array([[1, 7, 3], [250, 0, 12]], _np(dtype))
    return np.array([[1, -7, 3], [100, 0, -12]], _np(dtype))


# --- dtypes and constants ------------------------------------------------------------------------------------


@per_dtype()
def dtype_properties(tf, sess, dtype):
    d = tf.as_dtype(dtype.name)
    return [
        d.name,
        d.is_integer,
        d.is_floating,
        d.is_unsigned,
        d.size,
        d.min,
        d.max,
        np.dtype(d.as_numpy_dtype).name,
        d == tf.as_dtype(np.dtype(dtype.name)),
        d.real_dtype.name,
        d.base_dtype.name,
        d.as_datatype_enum,
    ]


@per_dtype()
def numpy_constant_keeps_dtype(tf, sess, dtype):
    c = tf.constant(_values(dtype))
    return c.dtype, c


@per_dtype()
def list_constant_with_dtype(tf, sess, dtype):
    return tf.constant([[1, 2], [3, 4]], dtype)


@per_dtype()
def scalar_constant_fetches_a_numpy_scalar(tf, sess, dtype):
    return sess.run(tf.constant(5, dtype))


@per_dtype()
def constant_broadcasts_a_scalar(tf, sess, dtype):
    return tf.constant(3, dtype, shape=[2, 2])


@per_dtype()
def extremes_round_trip(tf, sess, dtype):
    info = np.finfo(_np(dtype)) if dtype.is_floating else np.iinfo(_np(dtype))
    return tf.constant(np.array([info.min, info.max], _np(dtype)))


@per_dtype()
def zeros_and_ones_of_dtype(tf, sess, dtype):
    return tf.zeros([2, 2], dtype), tf.ones([3], dtype)


@per_dtype()
def placeholder_feed_and_fetch(tf, sess, dtype):
    p = tf.placeholder(dtype, [None, 3])
    return sess.run([p, tf.identity(p)], {p: _values(dtype)})


@per_dtype()
def placeholder_with_default_of_dtype(tf, sess, dtype):
    p = tf.placeholder_with_default(tf.constant(_values(dtype)), [None, 3])
    return p, p.dtype


# --- copies --------------------------------------------------------------------------------------------------


@per_dtype()
def reshape_and_transpose(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.reshape(x, [3, 2]), tf.transpose(x), tf.reshape(x, [-1])


@per_dtype()
def concat_stack_unstack(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.concat([x, x], 1), tf.stack([x, x], axis=1), tf.unstack(x)


@per_dtype()
def gather_and_slices(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.gather(x, [1, 0, 1]), tf.gather(x, [2, 0], axis=1), tf.slice(x, [0, 1], [2, 2]), x[1, ::-1], x[:, 1:]


@per_dtype(known={"uint16": TILE_UINT16_NOTE})
def tile_of_dtype(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.tile(x, [2, 1]), tf.tile(x, [1, 2])


@per_dtype()
def pad_and_fill(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.pad(x, [[1, 0], [0, 2]]), tf.fill([2, 2], tf.constant(9, dtype))


@per_dtype()
def zeros_like_ones_like(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.zeros_like(x), tf.ones_like(x)


@per_dtype()
def shape_size_rank(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.shape(x), tf.size(x), tf.rank(x), x.shape.as_list()


@per_dtype()
def split_squeeze_expand(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.split(x, 3, axis=1), tf.expand_dims(x, 0), tf.squeeze(tf.expand_dims(x, 2))


@per_dtype()
def where_selects(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    cond = tf.constant([[True, False, True], [False, True, False]])
    return tf.where(cond, x, tf.zeros_like(x))


@per_dtype()
def one_hot_of_dtype(tf, sess, dtype):
    return tf.one_hot([0, 2, 1], 3, on_value=tf.constant(5, dtype), off_value=tf.constant(1, dtype))


# --- arithmetic ----------------------------------------------------------------------------------------------


@per_dtype()
def add_sub_mul(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    y = tf.constant(np.array([[2, 3, 1], [1, 5, 2]], _np(dtype)))
    return x + y, x - tf.ones_like(x), x * y, tf.add(x, y), tf.multiply(x, 2)


@per_dtype(INTS)
def add_wraps_around(tf, sess, dtype):
    top = np.iinfo(_np(dtype)).max
    return tf.constant(np.array([top, top], _np(dtype))) + tf.constant(np.array([1, 2], _np(dtype)))


@per_dtype(INTS)
def mul_wraps_around(tf, sess, dtype):
    big = np.array([200, 255], _np(dtype)) if dtype.size > 1 else np.array([100, 127], _np(dtype))
    return tf.constant(big) * tf.constant(big)


@per_dtype(INTS)
def sub_below_zero_wraps(tf, sess, dtype):
    low = np.iinfo(_np(dtype)).min
    return tf.constant(np.array([low, 0], _np(dtype))) - tf.constant(np.array([1, 1], _np(dtype)))


@per_dtype(INTS)
def integer_division_floors(tf, sess, dtype):
    if dtype.is_unsigned:
        x, y = [7, 200, 9], [2, 3, 10]
    else:
        x, y = [-7, 7, 9], [2, -2, 10]
    x = tf.constant(np.array(x, _np(dtype)))
    y = tf.constant(np.array(y, _np(dtype)))
    return tf.div(x, y), tf.floordiv(x, y), tf.floormod(x, y), x // y, x % y


@per_dtype(INTS)
def integer_division_by_zero_fails(tf, sess, dtype):
    return tf.floordiv(tf.constant([1, 2], dtype), tf.constant([1, 0], dtype))


@per_dtype(INTS)
def truediv_of_small_ints(tf, sess, dtype):
    r = tf.truediv(tf.constant([7, 1], dtype), tf.constant([2, 3], dtype))
    return r.dtype, r


@per_dtype()
def maximum_minimum(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    y = tf.constant(np.array([[2, 3, 1], [1, 5, 2]], _np(dtype)))
    return tf.maximum(x, y), tf.minimum(x, y), tf.maximum(x, tf.constant(2, dtype))


@per_dtype()
def comparisons(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    y = tf.constant(np.array([[1, 5, 3], [100, 0, 2]], _np(dtype)))
    return x < y, x <= y, x > y, x >= y, tf.equal(x, y), tf.not_equal(x, y)


@per_dtype(SIGNED)
def neg_abs_sign(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return -x, tf.abs(x), tf.sign(x), tf.negative(x)


@per_dtype(("int8", "int16"))
def abs_and_neg_of_the_minimum_wrap(tf, sess, dtype):
    x = tf.constant(np.array([np.iinfo(_np(dtype)).min, 5], _np(dtype)))
    return tf.abs(x), -x


@per_dtype(("uint16", "uint32", "uint64"))
def neg_of_unsigned_is_a_type_error(tf, sess, dtype):
    return tf.negative(tf.constant([1, 2], dtype))


@per_dtype(("uint16", "uint32", "uint64"))
def abs_of_unsigned_is_a_type_error(tf, sess, dtype):
    return tf.abs(tf.constant([1, 2], dtype))


@per_dtype()
def square_of_dtype(tf, sess, dtype):
    return tf.square(tf.constant(np.array([[3, 4], [11, 0]], _np(dtype))))


@per_dtype(SIGNED)
def pow_of_signed(tf, sess, dtype):
    return tf.pow(tf.constant(np.array([2, -3, 5], _np(dtype))), tf.constant(np.array([3, 2, 0], _np(dtype))))


@per_dtype()
def add_n_of_dtype(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.add_n([x, x, tf.ones_like(x)])


@per_dtype(("int8", "int16", "uint16", "float16"))
def clip_by_value_of_dtype(tf, sess, dtype):
    return tf.clip_by_value(tf.constant(_values(dtype)), tf.constant(1, dtype), tf.constant(10, dtype))


@per_dtype()
def python_number_takes_the_tensors_dtype(tf, sess, dtype):
    r = tf.constant(_values(dtype)) + 2
    return r.dtype, r


# --- reductions ----------------------------------------------------------------------------------------------


@per_dtype()
def reduce_sum_max_min(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.reduce_sum(x), tf.reduce_sum(x, 0), tf.reduce_max(x, 1), tf.reduce_min(x), tf.reduce_max(x, keepdims=True)


@per_dtype()
def reduce_mean_of_dtype(tf, sess, dtype):
    x = tf.constant(np.array([[2, 4, 6], [8, 10, 12]], _np(dtype)))
    return tf.reduce_mean(x), tf.reduce_mean(x, 0), tf.reduce_mean(x, 1, keepdims=True)


@per_dtype(("int8", "int16", "uint16", "uint32"))
def reduce_mean_accumulates_wider(tf, sess, dtype):
    top = int(np.iinfo(_np(dtype)).max) - 1
    return tf.reduce_mean(tf.constant(np.array([top, top, top], _np(dtype))))


@per_dtype(INTS)
def reduce_sum_wraps(tf, sess, dtype):
    top = np.iinfo(_np(dtype)).max
    return tf.reduce_sum(tf.constant(np.array([top, top, 3], _np(dtype))))


@per_dtype()
def reduce_prod_of_dtype(tf, sess, dtype):
    return tf.reduce_prod(tf.constant(np.array([[2, 3], [1, 5]], _np(dtype))), 1)


@per_dtype()
def argmax_argmin(tf, sess, dtype):
    x = tf.constant(_values(dtype))
    return tf.argmax(x, 1), tf.argmin(x, 0), tf.argmax(x, 0, output_type=tf.int32)


@per_dtype()
def reduce_of_empty(tf, sess, dtype):
    x = tf.zeros([0, 2], dtype)
    return tf.reduce_sum(x, 0), tf.reduce_prod(x, 0)


# --- casts ---------------------------------------------------------------------------------------------------


@per_dtype()
def cast_to_every_dtype(tf, sess, dtype):
    x = tf.constant(np.array([0, 1, 5, 100], _np(dtype)))
    names = ("float32", "float64", "int32", "int64", "uint8", "bool") + ALL
    return {name: tf.cast(x, getattr(tf, name)) for name in names}


@per_dtype()
def cast_from_every_dtype(tf, sess, dtype):
    names = ("float32", "float64", "int32", "int64", "uint8") + ALL
    return {name: tf.cast(tf.constant([0, 3, 100], getattr(tf, name)), dtype) for name in names}


@per_dtype(INTS)
def cast_of_wider_ints_wraps(tf, sess, dtype):
    return tf.cast(tf.constant([300, -1, 70000, 2**40 + 5], tf.int64), dtype)


@per_dtype()
def cast_of_floats_truncates(tf, sess, dtype):
    return tf.cast(tf.constant([1.9, 2.5, 0.4, 7.99]), dtype)


@per_dtype(SIGNED)
def cast_of_negative_floats_truncates(tf, sess, dtype):
    return tf.cast(tf.constant([-1.9, -2.5, -0.4]), dtype)


@per_dtype()
def cast_to_bool(tf, sess, dtype):
    return tf.cast(tf.constant(np.array([0, 1, 2, 0], _np(dtype))), tf.bool)


@per_dtype()
def cast_from_bool(tf, sess, dtype):
    return tf.cast(tf.constant([True, False]), dtype)


# --- activations ---------------------------------------------------------------------------------------------


@per_dtype()
def relu_keeps_dtype(tf, sess, dtype):
    r = tf.nn.relu(tf.constant(_values(dtype)))
    return r.dtype, r


@per_dtype()
def relu6_keeps_dtype(tf, sess, dtype):
    r = tf.nn.relu6(tf.constant(_values(dtype)))
    return r.dtype, r


# --- what TensorFlow has no kernel for -----------------------------------------------------------------------


@per_dtype(("int8", "int16", "uint16", "uint32", "uint64"))
def exp_of_ints_is_a_type_error(tf, sess, dtype):
    return tf.exp(tf.constant([1, 2], dtype))


@per_dtype(("int8", "int16", "uint16", "uint32", "uint64"))
def softmax_of_ints_is_a_type_error(tf, sess, dtype):
    return tf.nn.softmax(tf.constant([[1, 2]], dtype))


@per_dtype(("int8", "int16"))
def matmul_of_small_ints_is_a_type_error(tf, sess, dtype):
    x = tf.constant([[1, 2], [3, 4]], dtype)
    return tf.matmul(x, x)


@per_dtype(INTS)
def mixing_dtypes_is_a_type_error(tf, sess, dtype):
    return tf.constant([1, 2], dtype) + tf.constant([1, 2], tf.int32)


# --- variables and checkpoints -------------------------------------------------------------------------------


@per_dtype()
def variable_of_dtype(tf, sess, dtype):
    v = tf.Variable(tf.constant(_values(dtype)), name="v")
    sess.run(tf.global_variables_initializer())
    before = sess.run(v)
    sess.run(tf.assign_add(v, tf.ones_like(v)))
    after_add = sess.run(v)
    sess.run(tf.assign(v, tf.zeros_like(v)))
    return v.dtype.base_dtype, before, after_add, sess.run(v)


@per_dtype()
def get_variable_of_dtype(tf, sess, dtype):
    v = tf.get_variable("w", [2, 2], dtype, initializer=tf.zeros_initializer())
    sess.run(tf.global_variables_initializer())
    return v.dtype.base_dtype, sess.run(v)


@per_dtype()
def checkpoint_save_restore(tf, sess, dtype):
    v = tf.Variable(tf.constant(_values(dtype)), name="v")
    saver = tf.train.Saver()
    sess.run(tf.global_variables_initializer())
    with tempfile.TemporaryDirectory() as d:
        path = saver.save(sess, os.path.join(d, "model"))
        sess.run(tf.assign(v, tf.zeros_like(v)))
        zeroed = sess.run(v)
        saver.restore(sess, path)
        return zeroed, sess.run(v)


# --- float16 -------------------------------------------------------------------------------------------------


@case
def half_arithmetic_rounds_each_result(tf, sess):
    a = tf.constant(np.array([2048, 0.1, 60000, 1e-4, 3], np.float16))
    b = tf.constant(np.array([1, 3, 60000, 1e-4, 7], np.float16))
    return a + b, a * b, a - b, a / b


@case
def half_overflow_and_subnormals(tf, sess):
    a = tf.constant(np.array([65504, 6e-8, -65504, 1e-7], np.float16))
    return a * tf.constant(np.float16(2)), a / tf.constant(np.float16(4))


@case
def half_nan_and_inf(tf, sess):
    a = tf.constant(np.array([np.nan, np.inf, -np.inf, 1], np.float16))
    b = tf.constant(np.array([1, 1, 2, np.nan], np.float16))
    return tf.maximum(a, b), tf.minimum(a, b), tf.nn.relu(a), tf.reduce_max(a), a > b, tf.equal(a, a)


@case
def cast_float32_to_half_rounds_to_nearest_even(tf, sess):
    x = np.array([1 + 2**-11, 1 + 3 * 2**-11, 65519.99, 65520, 1e-8, 3e-8, -0.0, 2049, 0.1], np.float32)
    return tf.cast(tf.constant(x), tf.float16)


@case
def cast_float64_to_half_goes_through_float32(tf, sess):
    x = np.array([1 + 2**-11 + 2**-40, 1 + 2**-12, 1e5, -3.3], np.float64)
    return tf.cast(tf.constant(x), tf.float16)


@case
def cast_int_to_half_rounds(tf, sess):
    return tf.cast(tf.constant([2049, 2051, 65505, 70000, -70000], tf.int64), tf.float16)


@case
def cast_half_to_ints_truncates(tf, sess):
    x = tf.constant(np.array([1.5, -2.5, 65504, 300.75], np.float16))
    return tf.cast(x, tf.int32), tf.cast(x, tf.int64), tf.cast(x, tf.float64)


@case(tol=HALF_TOL)
def half_unary_math(tf, sess):
    x = tf.constant(np.array([0.5, 1.0, 2.0, 3.5], np.float16))
    return [
        tf.exp(x),
        tf.log(x),
        tf.sqrt(x),
        tf.rsqrt(x),
        tf.tanh(x),
        tf.sigmoid(x),
        tf.reciprocal(x),
        tf.log1p(x),
        tf.floor(x),
        tf.ceil(x),
        tf.round(x),
    ]


@case
def half_unary_math_dtypes(tf, sess):
    x = tf.constant(np.array([0.5, 1.0], np.float16))
    return [t.dtype for t in (tf.exp(x), tf.sqrt(x), tf.tanh(x), tf.square(x), tf.abs(x))]


@case(tol=HALF_TOL)
def half_sum_of_many(tf, sess):
    x = np.random.RandomState(0).uniform(-3, 3, [1000]).astype(np.float16)
    return tf.reduce_sum(tf.constant(x)), tf.reduce_mean(tf.constant(x))


@case
def half_squared_difference(tf, sess):
    return tf.squared_difference(
        tf.constant(np.array([1.5, -2, 300], np.float16)), tf.constant(np.array([0.5, 2, 0.25], np.float16))
    )


@case
def half_floordiv_and_mod(tf, sess):
    x = tf.constant(np.array([-7, 7, 7.5], np.float16))
    y = tf.constant(np.array([2, -2, 2], np.float16))
    return tf.floordiv(x, y), tf.floormod(x, y)


@case
def half_truediv_stays_half(tf, sess):
    r = tf.truediv(tf.constant(np.array([1, 2], np.float16)), tf.constant(np.array([3, 3], np.float16)))
    return r.dtype, r


@case
def half_feed_of_float32_values(tf, sess):
    p = tf.placeholder(tf.float16, [3])
    return sess.run(p, {p: np.array([0.1, 1e5, 3.0], np.float32)})


@case
def as_dtype_of_half_names(tf, sess):
    return tf.as_dtype("half"), tf.as_dtype("float16"), tf.as_dtype(np.float16), tf.half == tf.float16
