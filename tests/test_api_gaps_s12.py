"""TF1 names added to close gaps in the API (issue 16): timestamp, guarantee_const, required_space_to_batch_paddings,
create_partitioned_variables, container, variable_creator_scope, conv, conv2d_backprop_{filter,input}_v2,
recompute_grad, vectorized_map, nn.raw_rnn and nn.static_state_saving_rnn. Each is compared with TensorFlow
(tf.compat.v1 in a graph, skipped where TF is not installed) or numpy, failure paths included."""

import glob
import os
import time

import numpy as np
import pytest
import tensorweave as tw


@pytest.fixture(autouse=True)
def graph():
    with tw.Graph().as_default() as g:
        yield g


def _run(fetches, feed=None):
    with tw.Session() as sess:
        sess.run(tw.global_variables_initializer())
        return sess.run(fetches, feed)


_TF1 = None


def _tf1():
    """tensorflow.compat.v1 in graph mode, or a skip."""
    global _TF1
    if _TF1 is None:
        tf1 = pytest.importorskip("tensorflow.compat.v1")
        tf1.disable_eager_execution()
        _TF1 = tf1
    return _TF1


def _tf_run(build, feed=None):
    """build(tf1) -> fetches, run in a fresh TF graph and session (feed: names -> values)."""
    tf1 = _tf1()
    with tf1.Graph().as_default() as g, tf1.Session(graph=g) as sess:
        fetches = build(tf1)
        sess.run(tf1.global_variables_initializer())
        return sess.run(fetches, feed)


def _tf_raises(build):
    """The exception class TF raises while building (None when it builds)."""
    tf1 = _tf1()
    with tf1.Graph().as_default():
        try:
            build(tf1)
        except Exception as e:
            return type(e)
    return None


def _rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# --- timestamp, guarantee_const ----------------------------------------------------------------------------------
def test_timestamp_reads_the_clock_at_each_run():
    t = tw.timestamp(name="now")
    assert t.op.type == "Timestamp" and t.op.name == "now" and t.dtype == tw.float64 and t.shape.ndims == 0
    with tw.Session() as sess:
        before = time.time()
        first = sess.run(t)
        time.sleep(0.01)
        second = sess.run(t)
        after = time.time()
    assert before - 1e-3 <= first < second <= after + 1e-3


def test_guarantee_const_passes_through_and_has_no_gradient_as_tf():
    x = tw.constant([1.0, 2.0])
    y = tw.guarantee_const(x, name="gc")
    assert y.op.type == "GuaranteeConst" and y.op.name == "gc" and y.shape.as_list() == [2]
    np.testing.assert_array_equal(_run(y), [1.0, 2.0])
    with pytest.raises(LookupError, match="GuaranteeConst"):
        tw.gradients(y, x)

    def build(tf):
        x = tf.constant([1.0])
        return tf.gradients(tf.guarantee_const(x), x)

    assert _tf_raises(build) is LookupError


# --- required_space_to_batch_paddings ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "input_shape,block_shape,base",
    [([5, 7], [2, 3], [[1, 0], [0, 0]]), ([4, 9, 3], [2, 2, 4], None), ([1], [5], [[2, 3]]), ([6], [3], None)],
)
def test_required_space_to_batch_paddings_matches_tf_static_and_fed(input_shape, block_shape, base):
    want = _tf_run(lambda tf: tf.required_space_to_batch_paddings(input_shape, block_shape, base))
    got_static = _run(tw.required_space_to_batch_paddings(input_shape, block_shape, base))
    shape_ph = tw.placeholder(tw.int32, [len(input_shape)])
    fed = tw.required_space_to_batch_paddings(shape_ph, block_shape, base)
    got_fed = _run(fed, {shape_ph: input_shape})
    for w, s, f in zip(want, got_static, got_fed):
        np.testing.assert_array_equal(s, w)
        np.testing.assert_array_equal(f, w)
        assert s.dtype == np.int32


def test_required_space_to_batch_paddings_bad_shapes_are_value_errors_as_tf():
    def bad_base(tf):
        return tf.required_space_to_batch_paddings([5, 7], [2, 3], [[1, 0], [0, 0], [0, 0]])

    def unknown_block(tf):
        return tf.required_space_to_batch_paddings([5, 7], tf.placeholder(tf.int32))

    for build in (bad_base, unknown_block):
        with pytest.raises(ValueError):
            build(tw)
        assert _tf_raises(build) is ValueError


# --- create_partitioned_variables --------------------------------------------------------------------------------
def test_create_partitioned_variables_names_shapes_and_values_match_tf():
    value = np.arange(14, dtype=np.float32).reshape(7, 2)

    def build(tf):
        ones = tf.create_partitioned_variables([5, 2], [2, 1], tf.ones_initializer())
        sliced = tf.create_partitioned_variables([7, 2], [3, 1], tf.constant(value), name="from_value")
        cols = tf.create_partitioned_variables([3, 4], [1, 2], tf.constant_initializer(2.0), dtype=tf.float64)
        return [v.name for v in ones + sliced + cols], ones + sliced + cols

    tf1 = _tf1()
    with tf1.Graph().as_default(), tf1.Session() as sess:
        want_names, tf_variables = build(tf1)
        sess.run(tf1.global_variables_initializer())
        want_values = sess.run(tf_variables)
    names, variables = build(tw)
    got_values = _run(variables)
    assert names == want_names
    for g, w in zip(got_values, want_values):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype
    assert all(v in tw.trainable_variables() for v in variables)


def test_create_partitioned_variables_reuse_and_errors():
    parts = tw.create_partitioned_variables([4], [2], tw.zeros_initializer(), name="p")
    again = tw.create_partitioned_variables([4], [2], tw.zeros_initializer(), name="p", reuse=True)
    assert [v.name for v in again] == [v.name for v in parts] and again[0] is parts[0]
    cases = [
        lambda tf: tf.create_partitioned_variables([5, 2], [2], tf.ones_initializer()),  # lengths differ
        lambda tf: tf.create_partitioned_variables([5, 2], [2, 2], tf.ones_initializer()),  # two cut axes
        lambda tf: tf.create_partitioned_variables([2, 2], [3, 1], tf.ones_initializer()),  # too many parts
        lambda tf: [tf.create_partitioned_variables([5], [2], tf.ones_initializer(), name="q") for _ in range(2)],
    ]
    for build in cases:
        with tw.Graph().as_default(), pytest.raises(ValueError):
            build(tw)
        assert _tf_raises(build) is ValueError


# --- container ---------------------------------------------------------------------------------------------------
def test_container_sets_the_attr_of_stateful_ops_inside_as_tf():
    def build(tf):
        with tf.container("c1"):
            v = tf.Variable(1.0)
            q = tf.FIFOQueue(2, tf.float32)
            with tf.container("c2"):
                v2 = tf.Variable(2.0)
            v3 = tf.Variable(3.0)
            c = tf.constant(1.0)
        v4 = tf.Variable(4.0)
        return [x.op.get_attr("container") for x in (v, v2, v3, v4)] + [q.queue_ref.op.get_attr("container")], c

    got, c = build(tw)
    tf1 = _tf1()
    with tf1.Graph().as_default():
        want, _ = build(tf1)
    assert got == want == [b"c1", b"c2", b"c1", b"", b"c1"]
    with pytest.raises(ValueError):  # a stateless op has no container attr
        c.op.get_attr("container")


# --- variable_creator_scope --------------------------------------------------------------------------------------
def test_variable_creator_scope_chains_innermost_first_and_sees_tf1_kwargs():
    def build(tf):
        calls = []

        def outer(next_creator, **kwargs):
            calls.append(("outer", kwargs["name"]))
            return next_creator(**kwargs)

        def inner(next_creator, **kwargs):
            calls.append(("inner", kwargs["name"], kwargs["trainable"], sorted(kwargs)))
            kwargs["trainable"] = False
            kwargs["initial_value"] = 5.0
            return next_creator(**kwargs)

        with tf.variable_creator_scope(outer), tf.variable_creator_scope(inner):
            tf.Variable(1.0, name="a")
        v = tf.Variable(2.0, name="b")
        return calls, [x.name for x in tf.trainable_variables()], v

    calls, trainable, _ = build(tw)
    tf1 = _tf1()
    with tf1.Graph().as_default():
        tf_calls, tf_trainable, _ = build(tf1)
    assert calls == tf_calls
    assert trainable == tf_trainable == ["b:0"]
    with tw.variable_creator_scope(lambda next_creator, **kw: next_creator(**kw)):
        got = _run(tw.Variable(3.0))
        with pytest.raises(TypeError):
            tw.Variable(1.0, no_such_argument=1)
    assert got == 3.0


def test_variable_creator_scope_applies_to_get_variable():
    seen = []

    def creator(next_creator, **kwargs):
        seen.append(kwargs["name"])
        return next_creator(**kwargs)

    with tw.variable_scope("layer"), tw.variable_creator_scope(creator):
        tw.get_variable("w", [2])
    assert seen == ["layer/w"]


# --- conv and the V2 backprops -----------------------------------------------------------------------------------
_CONV_CASES = [
    dict(x=(2, 6, 6, 4), w=(3, 3, 4, 5), strides=[1, 1, 1, 1], padding="SAME"),
    dict(x=(2, 7, 6, 3), w=(2, 3, 3, 2), strides=[1, 2, 1, 1], padding="VALID", dilations=[1, 1, 2, 1]),
    dict(
        x=(1, 5, 5, 2),
        w=(3, 3, 2, 2),
        strides=[1, 2, 2, 1],
        padding="EXPLICIT",
        explicit_paddings=[0, 0, 1, 2, 0, 1, 0, 0],
    ),  # fmt: skip
    dict(x=(2, 3, 5, 5, 2), w=(3, 3, 2, 4), strides=[1, 1, 1, 1], padding="SAME", batch_dims=2),
    dict(x=(1, 4, 5, 6, 2), w=(2, 2, 2, 2, 3), strides=[1, 1, 2, 1, 1], padding="VALID"),
]


@pytest.mark.parametrize("case", _CONV_CASES)
def test_conv_matches_tf(case):
    case = dict(case)
    x, w = _rand(*case.pop("x"), seed=1), _rand(*case.pop("w"), seed=2)
    want = _tf_run(lambda tf: tf.conv(x, w, **case))
    y = tw.conv(x, w, **case)
    assert y.op.name == "Conv" and y.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(_run(y), want, rtol=1e-5, atol=1e-5)


def test_conv_groups_channels_first_and_int32_match_per_group_tf_convolutions():
    x, w = _rand(2, 6, 6, 4, seed=3), _rand(3, 3, 2, 6, seed=4)
    # TF's CPU kernel refuses groups > 1 and CHANNELS_FIRST: the oracle is its grouped result built by hand.
    want = _tf_run(
        lambda tf: tf.concat(
            [tf.conv(x[..., 2 * g : 2 * g + 2], w[..., 3 * g : 3 * g + 3], [1, 1, 1, 1], "SAME") for g in range(2)],
            -1,
        )
    )
    np.testing.assert_allclose(_run(tw.conv(x, w, [1, 1, 1, 1], "SAME", groups=2)), want, rtol=1e-5, atol=1e-5)
    x_nchw = x.transpose(0, 3, 1, 2)
    w_full = _rand(3, 3, 4, 5, seed=5)
    want = _tf_run(lambda tf: tf.conv(x, w_full, [1, 1, 2, 1], "SAME"))
    got = _run(tw.conv(x_nchw, w_full, [1, 1, 1, 2], "SAME", data_format="CHANNELS_FIRST"))
    np.testing.assert_allclose(got, want.transpose(0, 3, 1, 2), rtol=1e-5, atol=1e-5)
    xi, wi = np.arange(2 * 4 * 4 * 2, dtype=np.int32).reshape(2, 4, 4, 2) % 7, np.ones([2, 2, 2, 3], np.int32)
    want = _tf_run(lambda tf: tf.conv(xi, wi, [1, 1, 1, 1], "VALID"))
    got = _run(tw.conv(xi, wi, [1, 1, 1, 1], "VALID"))
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)


def test_conv_gradients_match_tf_conv2d_gradients():
    x, w = _rand(2, 3, 5, 5, 2, seed=30), _rand(3, 3, 2, 4, seed=31)
    dy = _rand(2, 3, 3, 3, 4, seed=32)

    def build(tf):  # TF's Conv has no gradient: the oracle is conv2d over the merged batch dims
        xt, wt = tf.constant(x), tf.constant(w)
        y = tf.reshape(tf.nn.conv2d(tf.reshape(xt, [6, 5, 5, 2]), wt, [1, 2, 2, 1], "SAME"), [2, 3, 3, 3, 4])
        return tf.gradients(y, [xt, wt], grad_ys=tf.constant(dy))

    want = _tf_run(build)
    xt, wt = tw.constant(x), tw.constant(w)
    got = _run(tw.gradients(tw.conv(xt, wt, [1, 2, 2, 1], "SAME", batch_dims=2), [xt, wt], grad_ys=tw.constant(dy)))
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "args",
    [
        dict(x=(2, 6, 6, 4), w=(3, 3, 4, 6), strides=[1, 2, 2, 1], padding="FOO"),
        dict(x=(2, 6, 6, 4), w=(3, 3, 4, 6), strides=[1, 2, 2], padding="SAME"),
        dict(x=(2, 6, 6, 4), w=(3, 3, 4), strides=[1, 1, 1, 1], padding="SAME"),
        dict(x=(2, 7, 3), w=(3, 3, 4), strides=[1, 1, 1], padding="VALID"),
        dict(x=(2, 6, 6, 4), w=(3, 3, 3, 6), strides=[1, 1, 1, 1], padding="SAME"),
        dict(x=(2, 6, 6, 4), w=(3, 3, 2, 6), strides=[1, 1, 1, 1], padding="SAME"),
    ],
)
def test_conv_bad_arguments_are_value_errors_as_tf(args):
    args = dict(args)
    x, w = _rand(*args.pop("x")), _rand(*args.pop("w"))
    assert _tf_raises(lambda tf: tf.conv(x, w, **args)) is ValueError
    with pytest.raises(ValueError):
        tw.conv(x, w, **args)


@pytest.mark.parametrize("padding,explicit", [("SAME", []), ("VALID", []), ("EXPLICIT", [0, 0, 1, 0, 2, 1, 0, 0])])
def test_conv2d_backprop_v2_match_tf(padding, explicit):
    x, w = _rand(2, 7, 6, 3, seed=6), _rand(3, 2, 3, 4, seed=7)
    strides = [1, 2, 1, 1]
    dy_shape = _tf_run(lambda tf: tf.conv(x, w, strides, padding, explicit_paddings=explicit)).shape
    dy = _rand(*dy_shape, seed=8)
    kw = dict(explicit_paddings=explicit)
    # TF's CPU build has no kernel for the V2 ops: the oracle is their V1 forms, given the shapes.
    tf_padding = [explicit[i : i + 2] for i in range(0, 8, 2)] if padding == "EXPLICIT" else padding

    def build(tf):
        return [
            tf.nn.conv2d_backprop_filter(x, list(w.shape), dy, strides, tf_padding),
            tf.nn.conv2d_backprop_input(list(x.shape), w, dy, strides, tf_padding),
        ]

    want = _tf_run(build)
    x_ph = tw.placeholder(tw.float32, [None, 7, 6, 3])  # the input's shape known only when it runs
    got = _run(
        [
            tw.conv2d_backprop_filter_v2(x, w, dy, strides, padding, **kw),
            tw.conv2d_backprop_input_v2(x_ph, w, dy, strides, padding, **kw),
        ],
        {x_ph: x},
    )
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-4, atol=1e-4)


def test_conv2d_backprop_v2_bad_padding_is_a_value_error_as_tf():
    x, w, dy = _rand(1, 4, 4, 1), _rand(2, 2, 1, 1), _rand(1, 3, 3, 1)
    for fn in ("conv2d_backprop_filter_v2", "conv2d_backprop_input_v2"):

        def build(tf, fn=fn):
            return getattr(tf, fn)(x, w, dy, [1, 1, 1, 1], "FOO")

        assert _tf_raises(build) is ValueError
        with pytest.raises(ValueError):
            build(tw)


# --- recompute_grad ----------------------------------------------------------------------------------------------
def test_recompute_grad_gives_the_plain_gradients_and_recomputes_in_the_backward_pass():
    x_value, w_value = _rand(3, 4, seed=9), _rand(4, 4, seed=10)

    def block(tf, x):
        w = tf.get_variable("w", initializer=tf.constant(w_value))
        return tf.tanh(tf.matmul(x, w)) * x

    def build(tf):
        x = tf.constant(x_value)
        y = block(tf, x)
        loss = tf.reduce_sum(y * y)
        return tf.gradients(loss, [x] + tf.trainable_variables())

    want = _tf_run(build)
    x = tw.constant(x_value)
    y = tw.recompute_grad(lambda t: block(tw, t))(x)
    loss = tw.reduce_sum(y * y)
    grads = tw.gradients(loss, [x] + tw.trainable_variables())
    assert len(tw.trainable_variables()) == 1  # the recomputation reuses w
    g = tw.get_default_graph()
    tanh_ops = [op for op in g.get_operations() if op.type == "Tanh"]
    assert len(tanh_ops) == 2 and "recompute_grad" in tanh_ops[1].name
    for got, w in zip(_run(grads), want):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="keywords arguments"):
        tw.recompute_grad(lambda t, scale=1.0: t * scale)(x, scale=2.0)


# --- vectorized_map ----------------------------------------------------------------------------------------------
def test_vectorized_map_matches_tf_with_nested_elems_and_outputs():
    a, b = _rand(4, 3, seed=11), _rand(4, 2, seed=12)

    def build(tf):
        fn = lambda e: (tf.reduce_sum(e[0]) * e[1], tf.cast(tf.argmax(e[0]), tf.int32))
        return tf.vectorized_map(fn, (tf.constant(a), tf.constant(b)))

    want = _tf_run(build)
    got = _run(build(tw))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_array_equal(got[1], want[1])
    assert got[1].dtype == np.int32
    with pytest.raises(ValueError):
        tw.vectorized_map(lambda e: e, tw.constant(1.0))


# --- raw_rnn, static_state_saving_rnn ----------------------------------------------------------------------------
class _Cell:
    """A cell with fixed weights that both TF and tensorweave can run: h' = tanh(x W + h U)."""

    def __init__(self, tf, w, u):
        self.tf, self.w, self.u = tf, w, u

    output_size = 3
    state_size = 3

    def zero_state(self, batch_size, dtype):
        return self.tf.zeros([batch_size, 3], dtype)

    def __call__(self, x, h, scope=None):
        tf = self.tf
        new_h = tf.tanh(tf.matmul(x, tf.constant(self.w)) + tf.matmul(h, tf.constant(self.u)))
        return new_h, new_h


def test_raw_rnn_matches_tf_with_emit_structure_and_loop_state():
    inputs, lengths = _rand(5, 2, 2, seed=13), np.array([5, 3], np.int32)
    w, u = _rand(2, 3, seed=14), _rand(3, 3, seed=15)

    def build(tf):
        cell = _Cell(tf, w, u)
        x_all, seq = tf.constant(inputs), tf.constant(lengths)

        def loop_fn(time, cell_output, cell_state, loop_state):
            if cell_output is None:
                emit, state, loop_state = tf.zeros([4], tf.float32), cell.zero_state(2, tf.float32), tf.constant(0.0)
            else:
                emit = tf.concat([cell_output, tf.reduce_sum(cell_output, 1, keepdims=True)], 1)
                state, loop_state = cell_state, loop_state + 1.0
            finished = time >= seq
            x = tf.cond(tf.reduce_all(finished), lambda: tf.zeros([2, 2]), lambda: x_all[time])
            return finished, x, state, emit, loop_state

        emit_ta, final_state, final_loop = tf.nn.raw_rnn(cell, loop_fn)
        return emit_ta.stack(), final_state, final_loop

    want = _tf_run(build)
    got = _run(build(tw))
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-5, atol=1e-6)
    assert got[0].shape == (5, 2, 4) and not got[0][3:, 1].any()
    with pytest.raises(TypeError, match="loop_fn"):
        tw.nn.raw_rnn(_Cell(tw, w, u), 3)
    with pytest.raises(TypeError, match="not an RNNCell"):
        tw.nn.raw_rnn(object(), lambda *a: None)


def test_static_state_saving_rnn_saves_the_final_state_as_tf():
    inputs = [_rand(2, 2, seed=16 + t) for t in range(3)]
    w, u = _rand(2, 3, seed=20), _rand(3, 3, seed=21)

    class Saver:
        def __init__(self, tf):
            self.tf = tf
            self.v = tf.Variable(np.full([2, 3], 0.5, np.float32), name="saved")

        def state(self, name):
            assert name == "h"
            return self.v.value() if hasattr(self.v, "value") else self.v

        def save_state(self, name, value):
            return self.tf.assign(self.v, value)

    def build(tf):
        saver = Saver(tf)
        outputs, state = tf.nn.static_state_saving_rnn(_Cell(tf, w, u), [tf.constant(x) for x in inputs], saver, "h")
        return outputs, state, saver

    def run(tf, sess_cls):
        outputs, state, saver = build(tf)
        with sess_cls() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run([outputs, state])
            return first, sess.run(saver.v)

    tf1 = _tf1()
    with tf1.Graph().as_default():
        want = run(tf1, tf1.Session)
    got = run(tw, tw.Session)
    np.testing.assert_allclose(np.array(got[0][0]), np.array(want[0][0]), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0][1], want[0][1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[1], got[0][1], rtol=1e-6)  # the final state was saved
    with pytest.raises(ValueError, match="state_name"):
        tw.nn.static_state_saving_rnn(_Cell(tw, w, u), [tw.constant(inputs[0])], Saver(tw), ("h", "c"))


# --- sparse.bincount ---------------------------------------------------------------------------------------------
_BINCOUNT_VALUES = np.array([[1, 1, 3, 7], [2, 2, 2, 0]], np.int32)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(axis=-1),
        dict(axis=-1, minlength=10),
        dict(axis=-1, maxlength=3),
        dict(minlength=4, maxlength=3),
        dict(axis=-1, weights=np.arange(8, dtype=np.float64).reshape(2, 4) / 4),
        dict(axis=-1, binary_output=True),
    ],
)
def test_sparse_bincount_of_a_dense_tensor_matches_tf(kwargs):
    want = _tf_run(lambda tf: tf.sparse.bincount(_BINCOUNT_VALUES, **kwargs))
    got = _run(tw.sparse.bincount(_BINCOUNT_VALUES, **kwargs))
    for field in ("indices", "values", "dense_shape"):
        np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
    assert got.values.dtype == want.values.dtype


def test_sparse_bincount_of_sparse_ragged_int64_and_empty_inputs_matches_tf():
    indices, values = [[0, 1], [0, 3], [1, 0], [1, 2]], [4, 4, 2, 9]

    def build(tf):
        x = tf.SparseTensor(indices, values, [2, 5])
        w = tf.SparseTensor(indices, [1.0, 2.0, 3.0, 4.0], [2, 5])
        ragged = tf.RaggedTensor.from_row_splits(tf.constant([1, 1, 5, 2, 0]), tf.constant([0, 3, 5], tf.int64))
        return [
            tf.sparse.bincount(x, axis=-1, weights=w),
            tf.sparse.bincount(x),
            tf.sparse.bincount(ragged, axis=-1),
            tf.sparse.bincount(np.array([5, 1, 5], np.int64), axis=-1),
            tf.sparse.bincount(np.zeros([0], np.int32)),
        ]

    for got, want in zip(_run(build(tw)), _tf_run(build)):
        for field in ("indices", "values", "dense_shape"):
            np.testing.assert_array_equal(getattr(got, field), getattr(want, field))
        assert got.values.dtype == want.values.dtype


def test_sparse_bincount_errors_as_tf():
    v = _BINCOUNT_VALUES
    cases = [
        (ValueError, lambda tf: tf.sparse.bincount(v, axis=1)),
        (ValueError, lambda tf: tf.sparse.bincount(v, weights=np.ones(v.shape, np.float32), binary_output=True)),
        (ValueError, lambda tf: tf.sparse.bincount(v, weights=np.ones([3], np.float32))),
        (TypeError, lambda tf: tf.sparse.bincount(np.array([1.0, 2.0]))),
    ]
    for error, build in cases:
        assert _tf_raises(build) is error
        with pytest.raises(error):
            build(tw)
    negative = tw.sparse.bincount(np.array([5, -1, 5]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="negative"):
        _run(negative.values)


# --- train.ClusterDef / JobDef -----------------------------------------------------------------------------------
def test_cluster_def_is_byte_compatible_with_tf_and_round_trips_through_cluster_spec():
    tf1 = _tf1()
    spec = {"worker": {0: "w0:2222", 3: "w3:2222"}, "ps": ["p0:2222", "p1:2222"]}
    ours = tw.train.ClusterSpec(spec).as_cluster_def()
    theirs = tf1.train.ClusterSpec(spec).as_cluster_def()
    assert isinstance(ours, tw.train.ClusterDef)
    assert [j.name for j in ours.job] == [j.name for j in theirs.job] == ["ps", "worker"]
    assert tf1.train.ClusterDef.FromString(ours.SerializeToString()) == theirs
    assert tw.train.ClusterDef.FromString(theirs.SerializeToString()) == ours
    # A ClusterSpec from a ClusterDef, ours or TF's, is the same cluster.
    assert tw.train.ClusterSpec(ours) == tw.train.ClusterSpec(theirs) == tw.train.ClusterSpec(spec)
    assert tw.train.ClusterSpec(ours).task_address("worker", 3) == "w3:2222"
    job = tw.train.JobDef(name="chief", tasks={0: "c:1"})
    cluster = tw.train.ClusterDef(job=[job])
    assert tf1.train.ClusterDef.FromString(cluster.SerializeToString()).job[0].tasks[0] == "c:1"
    for bad in ("worker:2222", 42):
        with pytest.raises(TypeError):
            tw.train.ClusterSpec(bad)
        with pytest.raises(TypeError):
            tf1.train.ClusterSpec(bad)
    with pytest.raises(TypeError):
        tw.train.JobDef(name="w", tasks={0: 5})


def test_sparse_module_has_tf1s_sparse_conditional_accumulator():
    assert tw.sparse.SparseConditionalAccumulator is tw.SparseConditionalAccumulator
    acc = tw.sparse.SparseConditionalAccumulator(tw.float32, shape=[3, 2])
    apply = acc.apply_indexed_slices_grad(
        tw.IndexedSlices(tw.constant([[1.0, 2.0]]), tw.constant([1], tw.int64), tw.constant([3, 2], tw.int64))
    )
    with tw.Session() as sess:
        sess.run(apply)
        assert sess.run(acc.num_accumulated()) == 1


# --- train.Checkpoint / CheckpointManager (graph mode) -----------------------------------------------------------
def _checkpoint_program(tf, directory):
    """Variables, a list holding one of them again, an Adam optimizer: saved by Checkpoint and a manager."""
    v = tf.Variable([1.0, 2.0], name="v")
    w = tf.Variable([[3.0]], name="w")
    loss = tf.reduce_sum(v * v) + tf.reduce_sum(w)
    opt = tf.train.AdamOptimizer(0.1)
    train = opt.minimize(loss)
    ckpt = tf.train.Checkpoint(v=v, opt=opt, lst=[v, w])
    return ckpt, train, v, w


def test_checkpoint_keys_state_file_and_manager_numbering_match_tf(tmp_path):
    results = {}
    for label, tf in (("tf", _tf1()), ("tw", tw)):
        directory = str(tmp_path / label)
        with tf.Graph().as_default(), tf.Session() as sess:
            ckpt, train, _, _ = _checkpoint_program(tf, directory)
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = ckpt.save(os.path.join(directory, "ck"))
            keys = sorted(n for n, _ in tf.train.list_variables(path) if n != "_CHECKPOINTABLE_OBJECT_GRAPH")
            state = open(os.path.join(directory, "checkpoint")).read()
            manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=2)
            saved = [manager.save(), manager.save(checkpoint_number=10), manager.save()]
            results[label] = (
                os.path.basename(path),
                keys,
                state,
                [os.path.basename(p) for p in saved],
                [os.path.basename(p) for p in manager.checkpoints],
                sess.run(ckpt.save_counter),
                sorted({os.path.basename(f).split(".")[0] for f in glob.glob(os.path.join(directory, "ckpt-*"))}),
            )
    assert results["tw"][:6] == results["tf"][:6]
    assert results["tw"][6] == ["ckpt-10", "ckpt-4"]  # the manager deleted ckpt-2 (file names differ from TF's)


def test_checkpoint_restores_by_object_path_into_renamed_variables(tmp_path):
    prefix = str(tmp_path / "ck")
    with tw.Graph().as_default(), tw.Session() as sess:
        ckpt, train, v, w = _checkpoint_program(tw, None)
        sess.run(tw.global_variables_initializer())
        sess.run(train)
        want = sess.run([v, w, ckpt.opt.get_slot(v, "m")])
        path = ckpt.save(prefix)
    with tw.Graph().as_default(), tw.Session() as sess:
        with tw.variable_scope("renamed"):
            ckpt, train, v, w = _checkpoint_program(tw, None)
        status = ckpt.restore(path)
        status.assert_consumed()
        status.run_restore_ops()
        got = sess.run([v, w, ckpt.opt.get_slot(v, "m")])
        assert v.name == "renamed/v:0" and sess.run(ckpt.save_counter) == 1
        for g, w_ in zip(got, want):
            np.testing.assert_array_equal(g, w_)
        with pytest.raises(AssertionError):  # w has no value in a checkpoint of v alone
            only_v = tw.train.Checkpoint(v=v).save(str(tmp_path / "only_v"))
            tw.train.Checkpoint(v=v, w=w).restore(only_v).assert_consumed()
        partial = tw.train.Checkpoint(v=v).restore(path)
        with pytest.raises(AssertionError):  # the checkpoint has values nothing took
            partial.assert_consumed()
        partial.assert_existing_objects_matched()


def test_checkpoint_errors_as_tf(tmp_path):
    tf1 = _tf1()
    for tf in (tf1, tw):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="trackable"):
                tf.train.Checkpoint(x=3)
            ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
            with pytest.raises(ValueError, match="max_to_keep"):
                tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=0)
            with pytest.raises(tf1.errors.NotFoundError if tf is tf1 else tw.errors.NotFoundError):
                ckpt.restore(str(tmp_path / "missing")).run_restore_ops(tf.Session())
