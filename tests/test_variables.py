"""Variables, assignments, variable scopes and initializers."""

import numpy as np
import pytest

import tensorweave as tw


def test_variable_init_and_read(sess):
    v = tw.Variable([[1.0, 2.0], [3.0, 4.0]], name="v")
    assert v.name == "v:0"
    assert v.op.name == "v" and v.op.type == "VariableV2"
    assert v.dtype == tw.float32
    assert v.shape.as_list() == [2, 2]
    assert v.value().name == "v/read:0"
    assert v.initializer.name == "v/Assign"
    sess.run(tw.global_variables_initializer())
    np.testing.assert_allclose(sess.run(v), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(sess.run(v.value()), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(sess.run(v.read_value()), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(sess.run(v + 1.0), [[2.0, 3.0], [4.0, 5.0]])
    np.testing.assert_allclose(sess.run(tw.matmul(v, v)), np.array([[7.0, 10.0], [15.0, 22.0]]))


def test_variable_dtype_and_callable_initial_value(sess):
    v = tw.Variable(lambda: tw.constant([1, 2], dtype=tw.int64))
    w = tw.Variable(np.arange(3, dtype=np.float64))
    u = tw.Variable([1, 2], dtype=tw.float32)
    assert v.dtype == tw.int64 and w.dtype == tw.float64 and u.dtype == tw.float32
    sess.run(tw.global_variables_initializer())
    out = sess.run([v, w, u])
    assert out[0].dtype == np.int64 and out[1].dtype == np.float64 and out[2].dtype == np.float32


def test_variable_names_unique(graph):
    a = tw.Variable(1.0, name="w")
    b = tw.Variable(1.0, name="w")
    c = tw.Variable(1.0)
    d = tw.Variable(1.0)
    assert a.op.name == "w" and b.op.name == "w_1"
    assert c.op.name == "Variable" and d.op.name == "Variable_1"


@pytest.mark.parametrize("style", ["function", "method"])
def test_assign_family(sess, style):
    v = tw.Variable(np.array([10, 20], np.int32))
    if style == "function":
        a = tw.assign(v, [1, 2])
        add = tw.assign_add(v, [5, 5])
        sub = tw.assign_sub(v, [1, 2])
    else:
        a = v.assign([1, 2])
        add = v.assign_add([5, 5])
        sub = v.assign_sub([1, 2])
    sess.run(tw.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(v), [10, 20])
    np.testing.assert_array_equal(sess.run(add), [15, 25])
    np.testing.assert_array_equal(sess.run(sub), [14, 23])
    np.testing.assert_array_equal(sess.run(a), [1, 2])
    np.testing.assert_array_equal(sess.run(v), [1, 2])
    for _ in range(3):
        sess.run(add)
    np.testing.assert_array_equal(sess.run(v), [16, 17])


def test_assign_read_value_false(sess):
    v = tw.Variable(1.0)
    op = v.assign(4.0, read_value=False)
    assert isinstance(op, tw.Operation)
    sess.run(v.initializer)
    assert sess.run(op) is None
    assert sess.run(v) == 4.0


def test_assign_broadcast_scalar_delta(sess):
    v = tw.Variable([1.0, 2.0, 3.0])
    sess.run(v.initializer)
    # The delta must have the variable's shape.
    with pytest.raises(ValueError):
        tw.assign_add(v, 1.0)
    np.testing.assert_allclose(sess.run(tw.assign_add(v, [1.0, 1.0, 1.0])), [2.0, 3.0, 4.0])


def test_assign_uninitialized_then_read(sess):
    v = tw.Variable(0.0)
    sess.run(tw.assign(v, 3.0))  # Assign initializes
    assert sess.run(v) == 3.0


def test_assign_validate_shape_false(sess):
    v = tw.Variable([1.0, 2.0], validate_shape=False)
    sess.run(v.initializer)
    sess.run(tw.assign(v, [1.0, 2.0, 3.0], validate_shape=False))
    np.testing.assert_allclose(sess.run(v), [1.0, 2.0, 3.0])


def test_global_variables_initializer_and_collections(sess):
    a = tw.Variable(1.0, name="a")
    b = tw.Variable(2.0, name="b", trainable=False)
    c = tw.Variable(3.0, name="c", collections=[tw.GraphKeys.LOCAL_VARIABLES], trainable=False)
    assert tw.global_variables() == [a, b]
    assert tw.trainable_variables() == [a]
    assert tw.local_variables() == [c]
    assert tw.get_collection(tw.GraphKeys.GLOBAL_VARIABLES) == [a, b]
    init = tw.global_variables_initializer()
    assert isinstance(init, tw.Operation)
    assert sess.run(init) is None
    assert sess.run([a, b]) == [1.0, 2.0]
    with pytest.raises(tw.errors.FailedPreconditionError):
        sess.run(c)
    sess.run(tw.local_variables_initializer())
    assert sess.run(c) == 3.0


def test_variables_initializer_subset(sess):
    a = tw.Variable(1.0)
    b = tw.Variable(2.0)
    sess.run(tw.variables_initializer([a]))
    assert sess.run(a) == 1.0
    with pytest.raises(tw.errors.FailedPreconditionError):
        sess.run(b)


def test_trainable_variables_scope_filter(graph):
    with tw.variable_scope("enc"):
        e = tw.get_variable("w", [2])
    with tw.variable_scope("dec"):
        d = tw.get_variable("w", [2])
    assert tw.trainable_variables() == [e, d]
    assert tw.trainable_variables("enc") == [e]
    assert tw.global_variables("dec") == [d]


def test_initializer_depends_on_other_variable(sess):
    a = tw.Variable(2.0)
    b = tw.Variable(a.initialized_value() * 3.0)
    sess.run(b.initializer)
    assert sess.run(b) == 6.0
    assert sess.run(a) == 2.0


def test_snapshot_semantics(sess):
    v = tw.Variable(np.array([1.0, 2.0], np.float32))
    sess.run(v.initializer)
    before = sess.run(v)
    before_read = sess.run(v.value())
    sess.run(v.assign_add([10.0, 10.0]))
    np.testing.assert_allclose(before, [1.0, 2.0])
    np.testing.assert_allclose(before_read, [1.0, 2.0])
    np.testing.assert_allclose(sess.run(v), [11.0, 12.0])
    # Mutating a fetched array does not change the variable.
    got = sess.run(v)
    got[:] = -1.0
    np.testing.assert_allclose(sess.run(v), [11.0, 12.0])


def test_snapshot_in_same_run_with_control_dependencies(sess):
    v = tw.Variable(1.0)
    snap = tw.identity(v)
    with tw.control_dependencies([snap]):
        upd = tw.assign(v, 100.0)
    sess.run(v.initializer)
    s, u = sess.run([snap, upd])
    assert s == 1.0 and u == 100.0


def test_variable_load(sess):
    v = tw.Variable([0.0, 0.0], name="lv")
    sess.run(v.initializer)
    v.load([3.0, 4.0], sess)
    np.testing.assert_allclose(sess.run(v), [3.0, 4.0])
    n_ops = len(tw.get_default_graph().get_operations())
    v.load(np.array([5.0, 6.0]), session=sess)
    np.testing.assert_allclose(sess.run(v), [5.0, 6.0])
    assert len(tw.get_default_graph().get_operations()) == n_ops  # no growth
    with sess.as_default():
        v.load([7.0, 8.0])
    np.testing.assert_allclose(sess.run(v), [7.0, 8.0])
    with pytest.raises(ValueError):
        v.load([1.0, 2.0, 3.0], sess)


def test_variable_load_without_session(graph):
    v = tw.Variable(1.0)
    with pytest.raises(ValueError):
        v.load(2.0)


def test_variable_load_initializes(sess):
    v = tw.Variable(0)
    v.load(5, sess)
    assert sess.run(v) == 5


# --- get_variable and variable_scope --------------------------------------------


def test_get_variable_creates_with_scope_name(sess):
    with tw.variable_scope("layer1"):
        w = tw.get_variable("w", [3, 2], initializer=tw.zeros_initializer())
        b = tw.get_variable("b", [2], initializer=tw.ones_initializer())
    assert w.name == "layer1/w:0" and b.name == "layer1/b:0"
    assert w.shape.as_list() == [3, 2] and w.dtype == tw.float32
    sess.run(tw.global_variables_initializer())
    np.testing.assert_array_equal(sess.run(w), np.zeros((3, 2)))
    np.testing.assert_array_equal(sess.run(b), np.ones(2))


def test_get_variable_reuse_true(graph):
    with tw.variable_scope("s"):
        w = tw.get_variable("w", [2])
    with tw.variable_scope("s", reuse=True):
        assert tw.get_variable("w", [2]) is w
        assert tw.get_variable("w") is w
        with tw.variable_scope("inner"):  # reuse is inherited
            with pytest.raises(ValueError, match="does not exist"):
                tw.get_variable("x", [1])


def test_get_variable_reuse_variables_method(graph):
    with tw.variable_scope("s") as scope:
        w = tw.get_variable("w", [2])
        scope.reuse_variables()
        assert tw.get_variable("w", [2]) is w


def test_get_variable_reuse_via_scope_object(graph):
    with tw.variable_scope("outer") as scope:
        w = tw.get_variable("w", [1])
    with tw.variable_scope(scope, reuse=True):
        assert tw.get_variable("w", [1]) is w


def test_get_variable_auto_reuse(graph):
    def layer():
        with tw.variable_scope("shared", reuse=tw.AUTO_REUSE):
            return tw.get_variable("w", [4])

    w1 = layer()
    w2 = layer()
    assert w1 is w2
    assert len(tw.global_variables()) == 1
    with tw.variable_scope("shared", reuse=tw.AUTO_REUSE):
        new = tw.get_variable("v", [1])
    assert new.name == "shared/v:0"


def test_get_variable_reuse_missing_raises(graph):
    with tw.variable_scope("s", reuse=True):
        with pytest.raises(ValueError, match="does not exist"):
            tw.get_variable("nope", [1])


def test_get_variable_recreate_without_reuse_raises(graph):
    with tw.variable_scope("s"):
        tw.get_variable("w", [2])
    with tw.variable_scope("s"):
        with pytest.raises(ValueError, match="already exists"):
            tw.get_variable("w", [2])
    with pytest.raises(ValueError, match="already exists"):
        with tw.variable_scope("s"):
            tw.get_variable("w", [2])


def test_get_variable_shape_and_dtype_mismatch_on_reuse(graph):
    with tw.variable_scope("s"):
        tw.get_variable("w", [2])
    with tw.variable_scope("s", reuse=True):
        with pytest.raises(ValueError, match="shape"):
            tw.get_variable("w", [3])
        with pytest.raises(ValueError, match="dtype"):
            tw.get_variable("w", [2], dtype=tw.float64)


def test_get_variable_needs_shape(graph):
    with pytest.raises(ValueError):
        tw.get_variable("w")
    with pytest.raises(ValueError):
        tw.get_variable("w2", [None, 3])


def test_get_variable_with_tensor_initializer(sess):
    w = tw.get_variable("w", initializer=tw.constant([1, 2, 3]))
    assert w.dtype == tw.int32 and w.shape.as_list() == [3]
    sess.run(w.initializer)
    np.testing.assert_array_equal(sess.run(w), [1, 2, 3])


def test_get_variable_ignores_name_scope(graph):
    with tw.name_scope("ns"):
        w = tw.get_variable("w", [1])
        c = tw.constant(1.0, name="c")
    assert w.name == "w:0"
    assert c.name == "ns/c:0"


def test_variable_scope_names_ops(graph):
    with tw.variable_scope("vs"):
        c = tw.constant(1.0, name="c")
        with tw.variable_scope("inner"):
            d = tw.constant(1.0, name="d")
            w = tw.get_variable("w", [1])
    assert c.op.name == "vs/c"
    assert d.op.name == "vs/inner/d"
    assert w.op.name == "vs/inner/w"


def test_variable_scope_default_initializer(sess):
    with tw.variable_scope("s", initializer=tw.constant_initializer(7.0)):
        w = tw.get_variable("w", [2])
    sess.run(w.initializer)
    np.testing.assert_array_equal(sess.run(w), [7.0, 7.0])


def test_get_variable_default_initializers(sess):
    w = tw.get_variable("w", [100, 100])
    i = tw.get_variable("i", [3], dtype=tw.int32)
    sess.run(tw.global_variables_initializer())
    wv = sess.run(w)
    limit = np.sqrt(6.0 / 200)  # glorot uniform
    assert np.all(np.abs(wv) <= limit) and wv.std() > limit / 3
    np.testing.assert_array_equal(sess.run(i), [0, 0, 0])


# --- initializers ----------------------------------------------------------------


@pytest.mark.parametrize("dtype", [tw.float32, tw.float64, tw.int32, tw.int64])
def test_zeros_ones_constant_initializers(sess, dtype):
    z = tw.get_variable("z", [2, 3], dtype=dtype, initializer=tw.zeros_initializer())
    o = tw.get_variable("o", [2, 3], dtype=dtype, initializer=tw.ones_initializer())
    c = tw.get_variable("c", [2, 3], dtype=dtype, initializer=tw.constant_initializer(5))
    init = tw.constant_initializer([1, 2, 3, 4, 5, 6])
    l = tw.get_variable("l", [2, 3], dtype=dtype, initializer=init)  # noqa: E741
    sess.run(tw.global_variables_initializer())
    np_dtype = dtype.as_numpy_dtype
    zv, ov, cv, lv = sess.run([z, o, c, l])
    for v in (zv, ov, cv, lv):
        assert v.dtype == np_dtype and v.shape == (2, 3)
    np.testing.assert_array_equal(zv, np.zeros((2, 3)))
    np.testing.assert_array_equal(ov, np.ones((2, 3)))
    np.testing.assert_array_equal(cv, np.full((2, 3), 5))
    np.testing.assert_array_equal(lv, np.arange(1, 7).reshape(2, 3))


def test_constant_initializer_wrong_size(graph, sess):
    # As TF1's constant(value, shape): fewer values are padded with the last one; more are a ValueError.
    c = tw.get_variable("c", [2, 3], initializer=tw.constant_initializer([1.0, 2.0]))
    sess.run(c.initializer)
    np.testing.assert_array_equal(sess.run(c), [[1.0, 2.0, 2.0], [2.0, 2.0, 2.0]])
    with pytest.raises(ValueError, match="Too many elements"):
        tw.get_variable("d", [2], initializer=tw.constant_initializer([1.0, 2.0, 3.0]))


N = 10000


def _draw(init, dtype=tw.float32, graph_seed=None, shape=(N,)):
    g = tw.Graph()
    with g.as_default():
        if graph_seed is not None:
            tw.set_random_seed(graph_seed)
        v = tw.get_variable("v", list(shape), dtype=dtype, initializer=init)
        with tw.Session() as s:
            s.run(v.initializer)
            return s.run(v)


@pytest.mark.parametrize("dtype", [tw.float32, tw.float64])
def test_random_uniform_initializer_stats(dtype):
    x = _draw(tw.random_uniform_initializer(-2.0, 4.0, seed=1), dtype)
    assert x.dtype == dtype.as_numpy_dtype
    assert x.min() >= -2.0 and x.max() < 4.0
    assert abs(x.mean() - 1.0) < 0.1
    assert abs(x.std() - 6.0 / np.sqrt(12)) < 0.1
    # Roughly uniform: each sixth of the range holds about 1/6 of the values.
    hist, _ = np.histogram(x, bins=6, range=(-2.0, 4.0))
    assert np.all(np.abs(hist / N - 1 / 6) < 0.03)


@pytest.mark.parametrize("dtype", [tw.float32, tw.float64])
def test_random_normal_initializer_stats(dtype):
    x = _draw(tw.random_normal_initializer(mean=3.0, stddev=2.0, seed=2), dtype)
    assert x.dtype == dtype.as_numpy_dtype
    assert abs(x.mean() - 3.0) < 0.1
    assert abs(x.std() - 2.0) < 0.1
    # Some values beyond 2 stddev (about 4.6% of them).
    frac = np.mean(np.abs(x - 3.0) > 4.0)
    assert 0.03 < frac < 0.065


@pytest.mark.parametrize("dtype", [tw.float32, tw.float64])
def test_truncated_normal_initializer_stats(dtype):
    x = _draw(tw.truncated_normal_initializer(mean=1.0, stddev=0.5, seed=3), dtype)
    assert x.dtype == dtype.as_numpy_dtype
    assert np.all(np.abs(x - 1.0) <= 2 * 0.5 + 1e-6)
    assert abs(x.mean() - 1.0) < 0.05
    # A standard normal truncated at +-2 has stddev 0.8796.
    assert abs(x.std() - 0.5 * 0.8796) < 0.03


def test_random_ops_stats(sess):
    tw.set_random_seed(5)
    u = tw.random_uniform([N])
    n = tw.random_normal([N])
    t = tw.truncated_normal([N])
    uv, nv, tv = sess.run([u, n, t])
    assert 0 <= uv.min() and uv.max() < 1 and abs(uv.mean() - 0.5) < 0.02
    assert abs(nv.mean()) < 0.05 and abs(nv.std() - 1) < 0.05
    assert np.abs(tv).max() <= 2.0 and abs(tv.std() - 0.8796) < 0.03
    assert not np.array_equal(uv[: N // 2], uv[N // 2 :])


@pytest.mark.parametrize(
    "make",
    [
        lambda: tw.random_uniform_initializer(),
        lambda: tw.random_normal_initializer(),
        lambda: tw.truncated_normal_initializer(),
        lambda: tw.glorot_uniform_initializer(),
    ],
    ids=["uniform", "normal", "truncated", "glorot"],
)
def test_graph_seed_reproducible_across_fresh_sessions(make):
    a = _draw(make(), graph_seed=42, shape=(50,))
    b = _draw(make(), graph_seed=42, shape=(50,))
    c = _draw(make(), graph_seed=43, shape=(50,))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_op_seed_reproducible_without_graph_seed():
    a = _draw(tw.random_normal_initializer(seed=7), shape=(50,))
    b = _draw(tw.random_normal_initializer(seed=7), shape=(50,))
    c = _draw(tw.random_normal_initializer(seed=8), shape=(50,))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_seeded_random_op_same_in_each_fresh_session(graph):
    tw.set_random_seed(11)
    r = tw.random_uniform([20])
    r2 = tw.random_uniform([20])
    with tw.Session() as s1:
        first = s1.run(r)
        second = s1.run(r)
        other = s1.run(r2)
    with tw.Session() as s2:
        again = s2.run(r)
    np.testing.assert_array_equal(first, again)
    assert not np.array_equal(first, second)  # a new draw each run
    assert not np.array_equal(first, other)  # each op has its own stream


def test_unseeded_random_differs():
    a = _draw(tw.random_normal_initializer(), shape=(50,))
    b = _draw(tw.random_normal_initializer(), shape=(50,))
    assert not np.array_equal(a, b)


def test_random_normal_of_ints_is_type_error(graph):
    # As TensorFlow: the float mean cannot become an int32 tensor.
    with pytest.raises(TypeError):
        tw.random_normal([2], dtype=tw.int32)


def test_fed_array_not_aliased_by_variable(sess):
    v = tw.Variable(np.zeros(4, np.float32))
    ph = tw.placeholder(tw.float32, [4])
    upd = tw.assign(v, ph)
    sess.run(v.initializer)
    arr = np.ones(4, np.float32)
    sess.run(upd, {ph: arr})
    arr[:] = 5.0
    np.testing.assert_array_equal(sess.run(v), np.ones(4))
    fetched = sess.run(upd, {ph: arr})
    fetched[:] = -1.0
    np.testing.assert_array_equal(sess.run(v), np.full(4, 5.0))


@pytest.mark.parametrize(
    "fn,op_type",
    [
        (tw.random_uniform, "RandomUniform"),
        (tw.random_normal, "RandomStandardNormal"),
        (tw.truncated_normal, "TruncatedNormal"),
    ],
)
def test_random_op_types_and_seeds(sess, fn, op_type):
    t = fn([3, 4], seed=9, dtype=tw.float64)
    random_ops = [op for op in sess.graph.get_operations() if op.type == op_type]
    assert len(random_ops) == 1
    op = random_ops[0]
    assert op.get_attr("seed2") == 9 and op.get_attr("seed") != 0
    assert op.get_attr("dtype") == tw.float64
    assert t.shape.as_list() == [3, 4] and t.dtype == tw.float64
    assert sess.run(t).shape == (3, 4)


def test_get_variable_takes_a_value_initializers_dtype_as_tensorflow():
    # TF1: a value initializer gives the dtype (Python int -> int32, list of floats -> float32, numpy values their
    # own); an explicit dtype that differs is a ValueError naming both.

    with tw.Graph().as_default():
        cases = {"a": 7, "b": [1.0, 2.0], "c": np.float64(1), "d": np.int64(3), "e": True, "f": tw.constant(1.0)}
        got = {k: tw.get_variable(k, initializer=v).dtype for k, v in cases.items()}
        assert got == {"a": tw.int32, "b": tw.float32, "c": tw.float64, "d": tw.int64, "e": tw.bool, "f": tw.float32}
        assert tw.get_variable("g", initializer=np.float32(2), dtype=tw.float32).dtype == tw.float32
        with pytest.raises(
            ValueError, match=r"Initializer type '<dtype: 'int32'>' and explicit dtype '<dtype: 'float32'>'"
        ):
            tw.get_variable("h", initializer=7, dtype=tw.float32)
