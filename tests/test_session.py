"""Session.run: fetch structures, feeds, pruning, callables, default sessions."""

import collections
import os

import numpy as np
import pytest

import tensorweave as tw

Pair = collections.namedtuple("Pair", ["first", "second"])
OtherPair = collections.namedtuple("OtherPair", ["a", "b"])


@pytest.fixture
def abc(graph):
    a = tw.constant(np.array([1.0, 2.0], np.float32), name="a")
    b = tw.constant(3.0, name="b")
    c = tw.multiply(a, b, name="c")
    return a, b, c


def test_fetch_single_tensor(sess, abc):
    a, b, c = abc
    out = sess.run(c)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, [3.0, 6.0])
    scalar = sess.run(b)
    assert np.ndim(scalar) == 0 and scalar.dtype == np.float32 and scalar == 3.0


def test_fetch_operation_gives_none(sess, abc):
    _, _, c = abc
    assert sess.run(c.op) is None
    assert sess.run(tw.no_op()) is None


def test_fetch_by_names(sess, abc):
    a, _, c = abc
    np.testing.assert_allclose(sess.run("c:0"), [3.0, 6.0])
    np.testing.assert_allclose(sess.run("a:0"), [1.0, 2.0])
    assert sess.run("c") is None
    out = sess.run(["c:0", "c", c])
    assert out[1] is None
    np.testing.assert_allclose(out[0], out[2])


def test_fetch_list_tuple_namedtuple_dict(sess, abc):
    a, b, c = abc
    lst = sess.run([a, b, c])
    assert isinstance(lst, list) and len(lst) == 3
    np.testing.assert_allclose(lst[2], [3.0, 6.0])
    tup = sess.run((a, c))
    assert type(tup) is tuple and len(tup) == 2
    nt = sess.run(Pair(first=a, second=c))
    assert type(nt) is Pair
    np.testing.assert_allclose(nt.first, [1.0, 2.0])
    np.testing.assert_allclose(nt.second, [3.0, 6.0])
    d = sess.run({"x": a, "y": c, "op": c.op})
    assert set(d) == {"x", "y", "op"} and d["op"] is None
    np.testing.assert_allclose(d["y"], [3.0, 6.0])
    od = sess.run(collections.OrderedDict([("z", b), ("w", a)]))
    assert isinstance(od, collections.OrderedDict) and list(od) == ["z", "w"]
    assert sess.run([]) == []
    assert sess.run(()) == ()


def test_fetch_nested(sess, abc):
    a, b, c = abc
    out = sess.run({"p": Pair(a, [b, (c, {"q": c.op})]), "l": [[a], []]})
    assert type(out["p"]) is Pair
    np.testing.assert_allclose(out["p"].first, [1.0, 2.0])
    inner = out["p"].second
    assert isinstance(inner, list) and inner[0] == 3.0
    assert isinstance(inner[1], tuple)
    np.testing.assert_allclose(inner[1][0], [3.0, 6.0])
    assert inner[1][1] == {"q": None}
    assert isinstance(out["l"], list) and out["l"][1] == []


def test_fetch_duplicates(sess, abc):
    a, _, c = abc
    out = sess.run([c, c, "c:0", a, c])
    for i in (0, 1, 2, 4):
        np.testing.assert_allclose(out[i], [3.0, 6.0])
    # Distinct arrays are fine, but their values must match.
    out[0][0] = 100.0
    assert sess.run(c)[0] == 3.0


def test_same_elements_in_different_structures_keep_their_type(sess, abc):
    """The callable cache must not confuse structures that compare equal."""
    a, _, c = abc
    t = sess.run((a, c))
    assert type(t) is tuple
    p = sess.run(Pair(a, c))
    assert type(p) is Pair
    o = sess.run(OtherPair(a, c))
    assert type(o) is OtherPair
    assert type(sess.run((a, c))) is tuple
    assert type(sess.run(Pair(a, c))) is Pair


def test_fetch_variable(sess):
    v = tw.Variable([1, 2, 3])
    sess.run(v.initializer)
    np.testing.assert_array_equal(sess.run(v), [1, 2, 3])
    np.testing.assert_array_equal(sess.run([v, v.value()])[1], [1, 2, 3])


def test_fetch_none_is_type_error(sess, abc):
    with pytest.raises(TypeError):
        sess.run(None)
    with pytest.raises(TypeError):
        sess.run([abc[0], None])


def test_fetch_bad_type(sess):
    with pytest.raises(TypeError):
        sess.run(1.5)


def test_feed_numpy_scalars_and_lists(sess):
    x = tw.placeholder(tw.float32, [None], name="x")
    s = tw.placeholder(tw.int32, [], name="s")
    y = x * 2.0
    z = s + 1
    np.testing.assert_allclose(sess.run(y, {x: np.array([1.0, 2.0], np.float32)}), [2.0, 4.0])
    np.testing.assert_allclose(sess.run(y, {x: np.array([1.0, 2.0], np.float64)}), [2.0, 4.0])
    np.testing.assert_allclose(sess.run(y, feed_dict={x: [0.5, 1.5, 2.5]}), [1.0, 3.0, 5.0])
    assert sess.run(z, {s: 41}) == 42
    assert sess.run(z, {s: np.int64(6)}) == 7
    out = sess.run(y, {"x:0": [3.0]})
    np.testing.assert_allclose(out, [6.0])
    assert out.dtype == np.float32


def test_feed_list_into_matrix(sess):
    x = tw.placeholder(tw.float64, [None, 2])
    w = tw.constant([[1.0], [2.0]], dtype=tw.float64)
    out = sess.run(tw.matmul(x, w), {x: [[3.0, 4.0], [1.0, 1.0]]})
    np.testing.assert_allclose(out, [[11.0], [3.0]])


def test_feed_intermediate_tensor(sess):
    x = tw.placeholder(tw.float32, [], name="x")
    mid = x * 2.0
    out = mid + 1.0
    # `x` is not needed once `mid` is fed.
    assert sess.run(out, {mid: 10.0}) == 11.0
    assert sess.run(out, {x: 10.0}) == 21.0
    # A fed tensor is returned as fed.
    assert sess.run(mid, {mid: 5.0}) == 5.0


def test_feed_constant_overrides(sess):
    c = tw.constant(1.0)
    d = c + 1.0
    assert sess.run(d, {c: 5.0}) == 6.0
    assert sess.run(d) == 2.0


def test_feed_tensor_value_is_error(sess):
    x = tw.placeholder(tw.float32, [])
    with pytest.raises(TypeError, match="cannot be a tw.Tensor"):
        sess.run(x, {x: tw.constant(1.0)})


def test_feed_key_not_in_graph(sess):
    x = tw.placeholder(tw.float32, [])
    with tw.Graph().as_default():
        other = tw.placeholder(tw.float32, [])
    with pytest.raises((TypeError, ValueError)):
        sess.run(x, {other: 1.0, x: 1.0})
    with pytest.raises((TypeError, KeyError)):
        sess.run(x, {"nope:0": 1.0, x: 1.0})


def test_make_callable(sess):
    x = tw.placeholder(tw.float32, [None], name="x")
    y = tw.placeholder(tw.float32, [None], name="y")
    s = x + y
    f = sess.make_callable([s, s.op], feed_list=[x, y])
    out = f([1.0, 2.0], np.array([10.0, 20.0], np.float32))
    np.testing.assert_allclose(out[0], [11.0, 22.0])
    assert out[1] is None
    np.testing.assert_allclose(f([0.0], [1.0])[0], [1.0])
    with pytest.raises(TypeError):
        f([1.0])
    g = sess.make_callable(s * 2.0, [x, y])
    np.testing.assert_allclose(g([1.0], [2.0]), [6.0])
    h = sess.make_callable(tw.constant(7))
    assert h() == 7


def test_make_callable_errors_like_run(sess):
    x = tw.placeholder(tw.float32, [2], name="x")
    f = sess.make_callable(x * 1.0, [x])
    with pytest.raises(ValueError, match="Cannot feed value of shape"):
        f([1.0, 2.0, 3.0])


def test_tensor_eval_and_op_run_with_default_session(graph):
    v = tw.Variable(1.0)
    inc = tw.assign_add(v, 1.0)
    x = tw.placeholder(tw.float32, [])
    with pytest.raises(ValueError, match="No default session"):
        v.value().eval()
    with tw.Session() as sess:
        assert tw.get_default_session() is sess
        v.initializer.run()
        assert v.value().eval() == 1.0
        inc.op.run()
        assert v.eval() == 2.0
        assert (x * 3.0).eval(feed_dict={x: 2.0}) == 6.0
    assert tw.get_default_session() is None


def test_eval_with_explicit_session(sess):
    c = tw.constant([1, 2])
    np.testing.assert_array_equal(c.eval(session=sess), [1, 2])
    c.op.run(session=sess)


def test_as_default_nesting(graph):
    c = tw.constant(3)
    s1 = tw.Session()
    s2 = tw.Session()
    with s1.as_default():
        with s2.as_default():
            assert tw.get_default_session() is s2
        assert tw.get_default_session() is s1
        assert c.eval() == 3
    assert tw.get_default_session() is None
    s1.close()
    s2.close()


def test_interactive_session(graph):
    c = tw.constant([2.0, 4.0])
    sess = tw.InteractiveSession()
    try:
        assert tw.get_default_session() is sess
        np.testing.assert_allclose(c.eval(), [2.0, 4.0])
        v = tw.Variable(5)
        v.initializer.run()
        assert v.eval() == 5
    finally:
        sess.close()
    assert tw.get_default_session() is None


def test_session_with_config(graph):
    config = tw.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
    a = tw.constant(np.arange(12, dtype=np.float32).reshape(3, 4))
    b = tw.constant(np.ones((4, 2), np.float32))
    parts = [tw.matmul(a, b) * float(i) for i in range(10)]
    with tw.Session(config=config) as sess:
        out = sess.run(parts)
    base = np.arange(12, dtype=np.float32).reshape(3, 4) @ np.ones((4, 2), np.float32)
    for i, o in enumerate(out):
        np.testing.assert_allclose(o, base * i)


def test_session_on_explicit_graph():
    g = tw.Graph()
    with g.as_default():
        c = tw.constant(9)
    with tw.Session(graph=g) as sess:
        assert sess.graph is g
        assert sess.run(c) == 9


def test_closed_session_raises(graph):
    c = tw.constant(1)
    sess = tw.Session()
    assert sess.run(c) == 1
    sess.close()
    with pytest.raises(RuntimeError, match="closed"):
        sess.run(c)
    sess.close()  # idempotent
    with tw.Session() as s2:
        pass
    with pytest.raises(RuntimeError):
        s2.run(c)


def test_closed_session_make_callable_raises(graph):
    c = tw.constant(1)
    sess = tw.Session()
    f = sess.make_callable(c)
    sess.close()
    with pytest.raises((RuntimeError, tw.errors.OpError)):
        f()


def test_variables_are_per_session(graph):
    v = tw.Variable(0)
    inc = tw.assign_add(v, 5)
    with tw.Session() as s1, tw.Session() as s2:
        s1.run(v.initializer)
        s2.run(v.initializer)
        s1.run(inc)
        s1.run(inc)
        assert s1.run(v) == 10
        assert s2.run(v) == 0


def test_ops_added_after_session_creation(sess):
    a = tw.constant(2)
    assert sess.run(a) == 2
    b = a * 5
    assert sess.run(b) == 10


# --- pruning ------------------------------------------------------------------


def test_pruning_skips_unneeded_placeholder(sess):
    x = tw.placeholder(tw.float32, [], name="x")
    c = tw.constant(4.0)
    _ = x + c  # uses x, not fetched
    d = c * 2.0
    assert sess.run(d) == 8.0


def test_missing_feed_names_placeholder_and_location(sess):
    x = tw.placeholder(tw.float32, [None], name="x")
    y = x + 1.0
    with pytest.raises(tw.errors.InvalidArgumentError) as info:
        sess.run(y)
    msg = str(info.value)
    assert "You must feed a value for placeholder tensor 'x'" in msg
    assert os.path.basename(__file__) in msg
    assert info.value.error_code == tw.errors.INVALID_ARGUMENT


def test_missing_feed_under_name_scope(sess):
    with tw.name_scope("inputs"):
        x = tw.placeholder(tw.int32, [], name="x")
    with pytest.raises(tw.errors.InvalidArgumentError, match="placeholder tensor 'inputs/x'"):
        sess.run(x * 2)


def test_pruning_with_two_placeholders(sess):
    x = tw.placeholder(tw.float32, [], name="x")
    y = tw.placeholder(tw.float32, [], name="y")
    s = x + y
    assert sess.run(x * 2.0, {x: 1.0}) == 2.0
    with pytest.raises(tw.errors.InvalidArgumentError, match="'y'"):
        sess.run(s, {x: 1.0})
    assert sess.run(s, {x: 1.0, y: 2.0}) == 3.0


def test_pruning_does_not_run_unfetched_updates(sess):
    v = tw.Variable(0)
    inc = tw.assign_add(v, 1)
    sess.run(v.initializer)
    _ = inc + 1
    sess.run(v.value())
    sess.run(v.value() * 2)
    assert sess.run(v) == 0
    sess.run(inc)
    assert sess.run(v) == 1


def test_placeholder_with_default_uses_its_input_unless_fed(sess):
    default = tw.constant([1.0, 2.0])
    x = tw.placeholder_with_default(default, [None], name="maybe_fed")
    assert x.op.type == "PlaceholderWithDefault"
    assert x.shape.as_list() == [None]
    y = x * 2.0
    np.testing.assert_array_equal(sess.run(y), [2.0, 4.0])
    np.testing.assert_array_equal(sess.run(y, {x: [5.0, 6.0, 7.0]}), [10.0, 12.0, 14.0])
    with pytest.raises(ValueError, match="does not match the shape attr"):
        tw.placeholder_with_default(default, [3])


def test_fed_arrays_are_read_in_place_but_never_aliased_by_results():
    # Feeds borrow the caller's memory for the step; nothing the step returns
    # or keeps (fetches, variables) may alias it, and the feed's reference
    # is dropped once the step is over.
    import sys

    g = tw.Graph()
    with g.as_default():
        x = tw.placeholder(tw.float32, [3])
        v = tw.Variable(np.zeros(3, np.float32))
        assign = tw.assign(v, x)
        doubled = x * 2.0
        same = tw.identity(x)
        reshaped = tw.reshape(x, [3, 1])
    with tw.Session(graph=g) as s:
        s.run(v.initializer)
        a = np.array([1, 2, 3], np.float32)
        refs = sys.getrefcount(a)
        step = s.make_callable([doubled, same, reshaped, x, assign], [x])
        got = step(a)
        assert sys.getrefcount(a) == refs
        a[:] = 7  # the caller reuses its buffer
        np.testing.assert_array_equal(got[0], [2, 4, 6])
        for value in got[1:]:
            np.testing.assert_array_equal(value.reshape(-1), [1, 2, 3])
        np.testing.assert_array_equal(s.run(v), [1, 2, 3])
        readonly = np.array([4, 5, 6], np.float32)
        readonly.setflags(write=False)
        np.testing.assert_array_equal(step(readonly)[0], [8, 10, 12])
        strided = np.arange(6, dtype=np.float32)[::2]  # copied, not borrowed
        np.testing.assert_array_equal(step(strided)[0], [0, 4, 8])
        np.testing.assert_array_equal(s.run(v), [0, 2, 4])
