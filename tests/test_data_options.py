"""tf.data.Options, Dataset.with_options / options() and the threading options' dataset ops
(PrivateThreadPoolDataset, MaxIntraOpParallelismDataset), against TensorFlow where it applies."""

import threading
import time

import numpy as np
import pytest
import tensorweave as tw


def tf1():
    tf = pytest.importorskip("tensorflow")
    tf.compat.v1.disable_eager_execution()
    return tf.compat.v1


def _public(obj):
    return sorted(a for a in dir(obj) if not a.startswith("_"))


def _values(options):
    """A comparable snapshot of every option (nested groups as dicts)."""
    out = {}
    for name in _public(options):
        if name in ("merge", "experimental_service") or name.startswith("experimental_threading"):
            continue
        value = getattr(options, name)
        if callable(value):
            continue
        if hasattr(value, "_options"):
            value = {k: getattr(value, k) for k in _public(value) if not callable(getattr(value, k))}
            value = {k: (v.name if hasattr(v, "name") else v) for k, v in value.items()}
        elif hasattr(value, "name"):
            value = value.name
        out[name] = value
    return out


def test_fields_and_defaults_match_tensorflow():
    tf = tf1()
    for tw_cls, tf_cls in [
        (tw.data.ThreadingOptions, tf.data.ThreadingOptions),
        (tw.data.experimental.OptimizationOptions, tf.data.experimental.OptimizationOptions),
        (tw.data.experimental.AutotuneOptions, tf.data.experimental.AutotuneOptions),
        (tw.data.experimental.DistributeOptions, tf.data.experimental.DistributeOptions),
    ]:
        assert _public(tw_cls()) == _public(tf_cls())
        assert _values(tw_cls()) == _values(tf_cls())
    tw_names = set(_public(tw.data.Options()))
    tf_names = set(_public(tf.data.Options())) - {"experimental_service"}
    assert tw_names == tf_names
    assert _values(tw.data.Options()) == {k: v for k, v in _values(tf.data.Options()).items() if k in tw_names}


def test_round_trip_and_aliases():
    o = tw.data.Options()
    o.threading.private_threadpool_size = 3
    o.experimental_threading.max_intra_op_parallelism = 1
    o.experimental_deterministic = False
    o.experimental_optimization.map_fusion = True
    o.autotune.enabled = False
    assert o.threading.private_threadpool_size == 3
    assert o.threading.max_intra_op_parallelism == 1
    assert o.experimental_threading is o.threading
    assert o.deterministic is False and o.experimental_deterministic is False
    assert o.experimental_optimization.map_fusion is True and o.experimental_optimization.map_and_batch_fusion is None
    t = tw.data.experimental.ThreadingOptions()
    assert tw.data.experimental.ThreadingOptions is tw.data.ThreadingOptions
    t.private_threadpool_size = 5
    o.threading = t
    assert o.experimental_threading.private_threadpool_size == 5
    assert tw.data.Options() == tw.data.Options() and o != tw.data.Options()


def test_type_and_name_errors_match_tensorflow():
    tf = tf1()
    for opts in (tw.data.Options(), tf.data.Options()):
        with pytest.raises(TypeError, match='Property "private_threadpool_size" must be of type'):
            opts.threading.private_threadpool_size = 1.5
        with pytest.raises(TypeError, match='Property "deterministic" must be of type'):
            opts.experimental_deterministic = 1
        with pytest.raises(TypeError, match='Property "threading" must be of type'):
            opts.threading = 3
        with pytest.raises(AttributeError, match="Cannot set the property foo on Options"):
            opts.foo = 1
        with pytest.raises(AttributeError, match="Cannot set the property bogus on OptimizationOptions"):
            opts.experimental_optimization.bogus = True
        with pytest.raises(TypeError, match="Could not merge incompatible options"):
            opts.merge(3)


def _set(opts, spec):
    for path, value in spec.items():
        obj = opts
        parts = path.split(".")
        for p in parts[:-1]:
            obj = getattr(obj, p)
        setattr(obj, parts[-1], value)
    return opts


MERGES = [
    ({"threading.private_threadpool_size": 2, "deterministic": False},
     {"threading.private_threadpool_size": 3, "threading.max_intra_op_parallelism": 1}),
    ({"deterministic": True}, {"deterministic": False}),
    ({"experimental_optimization.map_fusion": True}, {"experimental_optimization.noop_elimination": False}),
    ({}, {"autotune.ram_budget": 7}),
]  # fmt: skip


@pytest.mark.parametrize("a,b", MERGES)
def test_merge_matches_tensorflow(a, b):
    tf = tf1()
    for x, y in ((a, b), (b, a)):
        want = _values(_set(tf.data.Options(), x).merge(_set(tf.data.Options(), y)))
        got = _values(_set(tw.data.Options(), x).merge(_set(tw.data.Options(), y)))
        assert got == {k: v for k, v in want.items() if k in got}


def test_dataset_options_merge_as_tensorflow():
    tf = tf1()
    a = {"threading.private_threadpool_size": 2, "deterministic": True}
    b = {"threading.private_threadpool_size": 3, "threading.max_intra_op_parallelism": 1, "deterministic": False}

    def pipelines(lib, graph_cls):
        with graph_cls().as_default():
            oa, ob = _set(lib.data.Options(), a), _set(lib.data.Options(), b)
            d = lib.data.Dataset.range(3)
            da, db = d.with_options(oa), d.with_options(ob)
            return [
                _values(d.options()),
                _values(da.with_options(ob).options()),
                _values(da.map(lambda x: x + 1).batch(2).options()),
                _values(lib.data.Dataset.zip((da, db)).options()),
                _values(lib.data.Dataset.zip((db, da)).options()),
                _values(da.concatenate(db).options()),
                _values(db.concatenate(da).options()),
            ]

    want = pipelines(tf, tf.Graph)
    got = pipelines(tw, tw.Graph)
    for w, g in zip(want, got):
        assert g == {k: v for k, v in w.items() if k in g}


def test_options_of_a_dataset_are_read_only(graph):
    o = tw.data.Options()
    o.deterministic = False
    ds = tw.data.Dataset.range(3).with_options(o)
    with pytest.raises(ValueError, match="Mutating `tf.data.Options\\(\\)` returned by"):
        ds.options().deterministic = True
    with pytest.raises(ValueError, match="Mutating"):
        ds.options().threading.private_threadpool_size = 2
    o.deterministic = True  # with_options took a copy
    assert ds.options().deterministic is False
    with pytest.raises(TypeError, match="must be a `tf.data.Options`"):
        ds.with_options({"deterministic": True})


def _read_all(dataset, n=None):
    nxt = tw.data.make_one_shot_iterator(dataset).get_next()
    out = []
    with tw.Session() as sess:
        try:
            while n is None or len(out) < n:
                out.append(sess.run(nxt))
        except tw.errors.OutOfRangeError:
            pass
    return out


def _pipeline():
    ds = tw.data.Dataset.range(50).map(lambda x: (x, tw.cast(x, tw.float32) * 0.5), num_parallel_calls=4)
    ds = ds.filter(lambda x, y: tw.not_equal(x % 7, 3))
    ds = ds.interleave(lambda x, y: tw.data.Dataset.from_tensors(x).repeat(2), cycle_length=2)
    return ds.batch(3)


@pytest.mark.parametrize(
    "spec",
    [
        {"threading.private_threadpool_size": 1},
        {"threading.private_threadpool_size": 3, "threading.max_intra_op_parallelism": 1},
        {"threading.private_threadpool_size": 0, "threading.max_intra_op_parallelism": 2},
        {"threading.max_intra_op_parallelism": 0, "deterministic": False},
    ],
)
def test_with_options_gives_the_same_values(graph, spec):
    plain = _read_all(_pipeline())
    before = {op.name for op in graph.get_operations()}
    with_options = _read_all(_pipeline().with_options(_set(tw.data.Options(), spec)))
    added = sorted(op.type for op in graph.get_operations() if op.name not in before and "ThreadPool" in op.type)
    added += sorted(op.type for op in graph.get_operations() if op.name not in before and "IntraOp" in op.type)
    want = []
    if spec.get("threading.private_threadpool_size") is not None:
        want.append("PrivateThreadPoolDataset")
    if spec.get("threading.max_intra_op_parallelism") is not None:
        want.append("MaxIntraOpParallelismDataset")
    assert added == want
    assert len(plain) == len(with_options) == 29  # 43 elements kept, twice each, in batches of 3
    for a, b in zip(plain, with_options):
        np.testing.assert_array_equal(a, b)


def _threads_used(pool_size, num_parallel_calls=4, n=24):
    """How many distinct threads a parallel map's function ran on, and its results."""
    seen = set()
    lock = threading.Lock()

    def record(x):
        with lock:
            seen.add(threading.get_ident())
        time.sleep(0.002)  # lets the parallel calls overlap
        return x * 3

    with tw.Graph().as_default():
        ds = tw.data.Dataset.range(n).map(
            lambda x: tw.py_func(record, [x], tw.int64), num_parallel_calls=num_parallel_calls
        )
        if pool_size is not None:
            ds = ds.with_options(_set(tw.data.Options(), {"threading.private_threadpool_size": pool_size}))
        out = [int(v) for v in _read_all(ds)]
    return len(seen), out


def test_private_pool_runs_the_parallel_map_on_its_threads():
    threads, out = _threads_used(1)
    assert out == [3 * i for i in range(24)]
    assert threads == 1  # 4 parallel calls, one pool thread: all calls ran there
    threads, out = _threads_used(2)
    assert out == [3 * i for i in range(24)]
    assert threads <= 2
    threads, _ = _threads_used(None)
    assert threads > 1  # without the option, the map's own 4 workers run the calls


def test_private_pool_applies_to_the_whole_pipeline(graph):
    # with_options in the middle of a pipeline sets the options of all of it (as TensorFlow).
    o = _set(tw.data.Options(), {"threading.private_threadpool_size": 1})
    ds = tw.data.Dataset.range(10).with_options(o).map(lambda x: x + 1, num_parallel_calls=3).batch(5)
    assert ds.options().threading.private_threadpool_size == 1
    types = [op.type for op in graph.get_operations()]
    assert "PrivateThreadPoolDataset" not in types
    got = _read_all(ds)
    assert [v.tolist() for v in got] == [[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]
    assert "PrivateThreadPoolDataset" in [op.type for op in graph.get_operations()]


@pytest.mark.parametrize(
    "field,arg",
    [("private_threadpool_size", "num_threads"), ("max_intra_op_parallelism", "max_intra_op_parallelism")],
)
def test_negative_values_raise_tensorflows_error(graph, field, arg):
    ds = tw.data.Dataset.range(3).with_options(_set(tw.data.Options(), {f"threading.{field}": -1}))
    it = tw.data.make_initializable_iterator(ds)
    with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match=f"`{arg}` must be >= 0"):
        sess.run(it.initializer)


def test_negative_values_raise_in_tensorflows_ops_too():
    tf = tf1()
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(3)
        t = tf.raw_ops.PrivateThreadPoolDataset(
            input_dataset=ds._variant_tensor, num_threads=-1, output_types=[tf.int64], output_shapes=[[]]
        )
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="`num_threads` must be >= 0"):
            sess.run(t)
