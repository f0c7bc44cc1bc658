"""tw.data: datasets, iterators and from_generator in TF1 graph programs. Oracles: numpy and Python (what each
pipeline must produce), TensorFlow's static shapes and error classes (checked against TF1 itself in
tests/fidelity/cases_data.py). Structure-only tests need no kernel; the rest run the C++ dataset ops."""

import collections
import os
import threading

import numpy as np
import pytest
import tensorweave as tw
from tensorweave import _pywrap_tensorweave as _pywrap
from tensorweave._src.data import structure

_KERNELS = set(_pywrap.registered_kernels())


def _registered(op_type):
    return op_type in _KERNELS


def needs(*op_types):
    """Skips a test until the C++ dataset kernels it runs are registered (they land op family by op family)."""
    missing = [t for t in op_types if not _registered(t)]
    return pytest.mark.skipif(bool(missing), reason=f"ops not registered in this build: {missing}")


_CORE = ("TensorSliceDataset", "RangeDataset", "BatchDatasetV2", "OneShotIterator", "IteratorGetNext")
_FN = ("MapDataset",)


def _drain(sess, nxt, limit=10000):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(nxt))
        except tw.errors.OutOfRangeError:
            return out
    raise AssertionError("the iterator did not end")


# --- structure helpers (no kernels) ------------------------------------------------------------------------------


def test_structure_lists_are_values_tuples_and_dicts_nest():
    P = collections.namedtuple("P", "x y")
    s = {"b": 1, "a": (2, [3, 4]), "c": P(5, 6)}
    assert structure.flatten(s) == [2, [3, 4], 1, 5, 6]
    packed = structure.pack_sequence_as(s, [10, 11, 12, 13, 14])
    assert list(packed) == ["b", "a", "c"] and packed["a"] == (10, 11) and packed["c"] == P(13, 14)
    assert structure.same_structure((1, {"k": 2}), (3, {"k": 4}))
    assert not structure.same_structure((1, 2), P(1, 2))
    assert not structure.same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="Structure had 2 elements"):
        structure.pack_sequence_as((1, 2), [1])


def test_shapes_from_structure_follows_types():
    types = (tw.int64, {"a": tw.float32})
    shapes = structure.shapes_from_structure(([], {"a": [None, 3]}), types)
    assert shapes[0].as_list() == [] and shapes[1]["a"].as_list() == [None, 3]
    assert structure.shapes_from_structure(None, types)[1]["a"].ndims is None
    with pytest.raises(TypeError):
        structure.shapes_from_structure([], types)


# --- static structure of datasets ---------------------------------------------------------------------------------


@needs(*_CORE)
def test_from_tensor_slices_converts_as_tensorflow(graph):
    D = tw.data.Dataset
    first = D.from_tensor_slices(([1, 2], [3, 4]))
    assert [t.op.name for t in first._variant_tensor.op.inputs] == [
        "normalize_element/component_0",
        "normalize_element/component_1",
    ]
    assert D.from_tensor_slices([1, 2]).output_types == tw.int32
    assert D.from_tensor_slices(np.arange(3, dtype=np.int64)).output_types == tw.int64
    assert D.from_tensor_slices([1.5]).output_types == tw.float32
    assert D.from_tensor_slices(["a"]).output_types == tw.string
    d = D.from_tensor_slices((np.zeros((4, 3)), np.arange(4)))
    assert d.output_types == (tw.float64, tw.int64)
    assert [s.as_list() for s in d.output_shapes] == [[3], []]
    assert d.output_classes == (tw.Tensor, tw.Tensor)
    assert d._variant_tensor.op.type == "TensorSliceDataset"
    with pytest.raises(ValueError):
        D.from_tensor_slices(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError):
        D.from_tensor_slices(1)


@needs(*_CORE)
def test_batch_shapes_and_element_spec(graph):
    d = tw.data.Dataset.from_tensor_slices({"x": np.ones((5, 2), np.float32), "y": [1, 2, 3, 4, 5]})
    b = d.batch(2)
    assert b.output_shapes["x"].as_list() == [None, 2]
    assert d.batch(2, drop_remainder=True).output_shapes["y"].as_list() == [2]
    n = tw.placeholder(tw.int64, [])
    assert d.batch(n, drop_remainder=True).output_shapes["y"].as_list() == [None]
    spec = b.element_spec
    assert spec["x"].dtype == tw.float32 and spec["x"].shape.as_list() == [None, 2]
    assert repr(d.element_spec["y"]) == "TensorSpec(shape=(), dtype=tf.int32, name=None)"


@needs(*_CORE)
def test_iter_raises_in_graph_mode(graph):
    with pytest.raises(RuntimeError, match="only supports Python-style iteration"):
        iter(tw.data.Dataset.range(3))


def test_public_names():
    for name in (
        "AUTOTUNE",
        "Dataset",
        "FixedLengthRecordDataset",
        "INFINITE_CARDINALITY",
        "Iterator",
        "TFRecordDataset",
        "TextLineDataset",
        "UNKNOWN_CARDINALITY",
        "get_output_classes",
        "get_output_shapes",
        "get_output_types",
        "make_initializable_iterator",
        "make_one_shot_iterator",
    ):
        assert hasattr(tw.data, name), name
    assert tw.data.experimental.AUTOTUNE == tw.data.AUTOTUNE == -1
    assert (tw.data.INFINITE_CARDINALITY, tw.data.UNKNOWN_CARDINALITY) == (-1, -2)


# --- running pipelines ----------------------------------------------------------------------------------------------


@needs(*_CORE, *_FN, "TakeDataset")
def test_one_shot_map_batch_matches_numpy(sess):
    ds = tw.data.Dataset.range(11).map(lambda x: x * x + 1).batch(4)
    got = _drain(sess, tw.data.make_one_shot_iterator(ds).get_next())
    want = np.arange(11) ** 2 + 1
    assert [g.tolist() for g in got] == [want[i : i + 4].tolist() for i in range(0, 11, 4)]
    with pytest.raises(tw.errors.OutOfRangeError):  # stays at the end
        sess.run(tw.data.make_one_shot_iterator(ds.take(0)).get_next())


@needs(*_CORE, *_FN, "IteratorV2", "MakeIterator")
def test_initializable_iterator_refeeds(sess):
    x = tw.placeholder(tw.float32, [None, 3])
    it = tw.data.Dataset.from_tensor_slices(x).map(lambda r: tw.reduce_sum(r)).make_initializable_iterator()
    nxt = it.get_next()
    assert tw.get_collection("table_initializer") == []
    for data in (np.arange(6.0).reshape(2, 3), np.ones((4, 3))):
        sess.run(it.initializer, {x: data})
        np.testing.assert_allclose(_drain(sess, nxt), data.sum(axis=1))
    sess.run(tw.tables_initializer())  # unaffected by iterators


@needs(*_CORE, "IteratorV2", "MakeIterator")
def test_uninitialized_iterator_is_failed_precondition(sess):
    it = tw.data.Dataset.range(3).make_initializable_iterator()
    with pytest.raises(tw.errors.FailedPreconditionError, match="has not been initialized"):
        sess.run(it.get_next())


@needs(*_CORE, *_FN, "IteratorV2", "MakeIterator", "IteratorFromStringHandleV2", "RepeatDataset", "ZipDataset")
def test_reinitializable_and_feedable_iterators(sess):
    a = tw.data.Dataset.range(3)
    b = tw.data.Dataset.range(10, 12)
    it = tw.data.Iterator.from_structure(a.output_types, a.output_shapes)
    nxt = it.get_next()
    ia, ib = it.make_initializer(a), it.make_initializer(b)
    sess.run(ib)
    assert _drain(sess, nxt) == [10, 11]
    sess.run(ia)
    assert _drain(sess, nxt) == [0, 1, 2]
    with pytest.raises(TypeError, match="Expected output types"):
        it.make_initializer(a.map(lambda v: tw.cast(v, tw.int32)))
    with pytest.raises(TypeError, match="Expected output shapes"):
        it.make_initializer(a.batch(2))
    with pytest.raises(ValueError):
        it.make_initializer(tw.data.Dataset.zip((a, a)))

    h = tw.placeholder(tw.string, [])
    feed = tw.data.Iterator.from_string_handle(h, tw.int64, [])
    fnext = feed.get_next()
    one_a = a.repeat().make_one_shot_iterator()
    ha = sess.run(one_a.string_handle())
    hb = sess.run(it.string_handle())
    sess.run(ib)
    assert [sess.run(fnext, {h: ha}) for _ in range(4)] == [0, 1, 2, 0]
    assert sess.run(fnext, {h: hb}) == 10
    assert sess.run(nxt) == 11  # the same iterator through its own get_next


@needs(*_CORE, "ShuffleDataset", "RepeatDataset")
def test_shuffle_is_seeded_and_a_permutation(graph):
    tw.set_random_seed(1)
    ds = tw.data.Dataset.range(50).shuffle(50, seed=2).repeat(2)
    nxt = ds.make_one_shot_iterator().get_next()
    runs = []
    for _ in range(2):
        with tw.Session(graph=graph) as s:
            runs.append(_drain(s, nxt))
    assert runs[0] == runs[1]  # same seeds, same order in a fresh session
    first, second = runs[0][:50], runs[0][50:]
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != list(range(50)) and first != second  # shuffled, and reshuffled each epoch


@needs(*_CORE, "ShuffleDataset")
def test_unseeded_shuffles_differ_between_sessions(graph):
    nxt = tw.data.Dataset.range(100).shuffle(100).make_one_shot_iterator().get_next()
    orders = []
    for _ in range(2):
        with tw.Session(graph=graph) as s:
            orders.append(_drain(s, nxt))
    assert sorted(orders[0]) == list(range(100)) and orders[0] != orders[1]


@needs(*_CORE, *_FN, "PaddedBatchDatasetV2")
def test_padded_batch_matches_numpy(sess):
    lengths = [3, 1, 4, 2, 5]
    ds = tw.data.Dataset.from_tensor_slices(np.array(lengths, np.int32)).map(lambda n: tw.fill([n], n))
    got = _drain(sess, ds.padded_batch(2, padding_values=-1).make_one_shot_iterator().get_next())
    for i, batch in enumerate(got):
        chunk = lengths[2 * i : 2 * i + 2]
        want = np.full((len(chunk), max(chunk)), -1, np.int32)
        for r, n in enumerate(chunk):
            want[r, :n] = n
        np.testing.assert_array_equal(batch, want)


@needs(*_CORE, *_FN, "FilterDataset", "ZipDataset")
def test_dict_map_filter_and_zip(sess):
    ds = tw.data.Dataset.from_tensor_slices({"v": np.arange(10, dtype=np.float32), "k": np.arange(10) % 3})
    ds = ds.filter(lambda e: tw.equal(e["k"], 1)).map(lambda e: {"v2": e["v"] * 2.0, "k": e["k"]})
    got = _drain(sess, tw.data.Dataset.zip((ds, tw.data.Dataset.range(100))).make_one_shot_iterator().get_next())
    assert [(g[0]["v2"], g[1]) for g in got] == [(2.0, 0), (8.0, 1), (14.0, 2)]


@needs(*_CORE, *_FN, "TensorDataset", "FlatMapDataset", "RepeatDataset", "IteratorV2", "MakeIterator")
def test_from_generator_restarts_per_initializer_and_checks_values(sess):
    calls = []

    def gen(n):
        calls.append(int(n))
        for i in range(int(n)):
            yield np.full([i], i, np.float32)

    n = tw.placeholder(tw.int64, [])
    ds = tw.data.Dataset.from_generator(gen, tw.float32, [None], args=(n,))
    it = ds.make_initializable_iterator()
    nxt = it.get_next()
    assert nxt.shape.as_list() == [None]
    sess.run(it.initializer, {n: 3})
    assert [v.tolist() for v in _drain(sess, nxt)] == [[], [1.0], [2.0, 2.0]]
    sess.run(it.initializer, {n: 2})
    assert [v.tolist() for v in _drain(sess, nxt)] == [[], [1.0]]
    assert calls == [3, 2]

    def bad():
        yield "not a number"

    bad_next = tw.data.Dataset.from_generator(bad, tw.int64).make_one_shot_iterator().get_next()
    with pytest.raises(tw.errors.InvalidArgumentError, match="could not be converted to the expected type"):
        sess.run(bad_next)

    def wrong_shape():
        yield [1, 2, 3]

    ws = tw.data.Dataset.from_generator(wrong_shape, tw.int64, [2]).make_one_shot_iterator().get_next()
    with pytest.raises(tw.errors.InvalidArgumentError, match="where an element of shape"):
        sess.run(ws)
    with pytest.raises(TypeError, match="must be a Python callable"):
        tw.data.Dataset.from_generator(5, tw.int64)


@needs(*_CORE, *_FN, "TensorDataset", "FlatMapDataset", "RepeatDataset")
def test_from_generator_error_in_generator_surfaces(sess):
    def gen():
        yield 1
        raise KeyError("boom")

    nxt = tw.data.Dataset.from_generator(gen, tw.int32).make_one_shot_iterator().get_next()
    assert sess.run(nxt) == 1
    with pytest.raises(tw.errors.UnknownError, match="boom"):
        sess.run(nxt)


@needs(*_CORE, "ParallelMapDatasetV2", "PrefetchDataset")
def test_concurrent_get_next_hands_out_each_element_once(sess):
    nxt = tw.data.Dataset.range(400).map(lambda x: x + 1, num_parallel_calls=4).prefetch(8)
    nxt = nxt.make_one_shot_iterator().get_next()
    got, lock = [], threading.Lock()

    def worker():
        try:
            while True:
                v = sess.run(nxt)
                with lock:
                    got.append(int(v))
        except tw.errors.OutOfRangeError:
            pass

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(got) == list(range(1, 401))


@needs(*_CORE, *_FN, "TextLineDataset", "TFRecordDataset")
def test_text_and_tfrecord_datasets(sess, tmp_path):
    text = tmp_path / "a.txt"
    text.write_text("x\ny y\nz")
    rec = str(tmp_path / "r.tfrecord")
    with tw.io.TFRecordWriter(rec) as w:
        for s in (b"1", b"22", b"333"):
            w.write(s)
    lines = _drain(sess, tw.data.TextLineDataset(str(text)).make_one_shot_iterator().get_next())
    recs = _drain(sess, tw.data.TFRecordDataset([rec]).map(tw.strings.length).make_one_shot_iterator().get_next())
    assert lines == [b"x", b"y y", b"z"] and recs == [1, 2, 3]
    missing = tw.data.TextLineDataset(os.path.join(str(tmp_path), "none")).make_one_shot_iterator().get_next()
    with pytest.raises(tw.errors.NotFoundError):
        sess.run(missing)


@needs(*_CORE, *_FN, "FilterDataset", "RepeatDataset", "DatasetCardinality")
def test_cardinality(sess):
    r = tw.data.Dataset.range(10)
    card = tw.data.experimental.cardinality
    assert sess.run([card(r), card(r.batch(3)), card(r.repeat()), card(r.filter(lambda x: x > 1))]) == [
        10,
        4,
        tw.data.INFINITE_CARDINALITY,
        tw.data.UNKNOWN_CARDINALITY,
    ]
