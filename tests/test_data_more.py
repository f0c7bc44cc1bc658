"""The tf.data.Dataset methods beyond the core transformations (take_while, unique, scan, reduce,
get_single_element, counter, window, ...), each pipeline built the same way with tensorweave and with
TensorFlow 2.21's compat.v1 in graph mode and compared: values, dtypes, static shapes, and the error cases.
ignore_errors and Dataset.random run the "IgnoreErrorsDataset" and "RandomDataset" ops."""

import numpy as np
import pytest
import tensorweave as tw

tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1


def _drain(lib, make):
    """(static shapes, dtypes, values) of the dataset `make(lib)` read to its end through a one-shot iterator."""
    with lib.Graph().as_default():
        ds = make(lib)
        nxt = lib.data.make_one_shot_iterator(ds).get_next()
        flat = lib.nest.flatten(nxt)
        shapes = [t.shape.as_list() if t.shape.rank is not None else None for t in flat]
        dtypes = [t.dtype.name for t in flat]
        out = []
        with lib.Session() as sess:
            for _ in range(10000):
                try:
                    out.append(sess.run(flat))
                except lib.errors.OutOfRangeError:
                    return shapes, dtypes, out
    raise AssertionError("the iterator did not end")


def _same(make):
    got = _drain(tw, make)
    want = _drain(v1, make)
    assert got[0] == want[0], (got[0], want[0])
    assert got[1] == want[1], (got[1], want[1])
    assert len(got[2]) == len(want[2]), (got[2], want[2])
    for g, w in zip(got[2], want[2]):
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)
            assert np.asarray(a).dtype == np.asarray(b).dtype
    return got[2]


def _run(lib, make):
    with lib.Graph().as_default():
        t = make(lib)
        with lib.Session() as sess:
            return sess.run(t)


def _run_error(lib, make):
    with pytest.raises(Exception) as info:
        _run(lib, make)
    return info.value


# --- take_while ----------------------------------------------------------------------------------------------


def test_take_while():
    _same(lambda lib: lib.data.Dataset.range(10).take_while(lambda x: x < 4))
    _same(lambda lib: lib.data.Dataset.range(10).take_while(lambda x: x > 4))
    # an infinite input ends
    _same(lambda lib: lib.data.Dataset.range(3).repeat().take_while(lambda x: x < 2))
    pairs = lambda lib: lib.data.Dataset.from_tensor_slices(([1, 2, 3, 0, 5], [[1.0], [2.0], [3.0], [4.0], [5.0]]))
    _same(lambda lib: pairs(lib).take_while(lambda a, b: a > 0))


def test_take_while_predicate_must_return_bool_scalar():
    for lib in (tw, v1):
        with (
            lib.Graph().as_default(),
            pytest.raises(ValueError, match="`predicate` must return a `tf.bool` scalar tensor"),
        ):
            lib.data.Dataset.range(3).take_while(lambda x: x)


# --- unique --------------------------------------------------------------------------------------------------


def test_unique():
    _same(lambda lib: lib.data.Dataset.from_tensor_slices([1, 2, 1, 3, 2, 5, 5]).unique())
    _same(lambda lib: lib.data.Dataset.from_tensor_slices([b"a", b"b", b"a", b""]).unique())
    # each pass starts afresh
    _same(lambda lib: lib.data.Dataset.from_tensor_slices([1, 1, 2]).unique().repeat(2))


def test_unique_rejects_other_types():
    for lib in (tw, v1):
        with (
            lib.Graph().as_default(),
            pytest.raises(TypeError, match=r"`tf.data.Dataset.unique` does not support type <dtype: .float32.>"),
        ):
            lib.data.Dataset.from_tensor_slices([1.0, 2.0]).unique()


# --- scan ----------------------------------------------------------------------------------------------------


def test_scan():
    _same(lambda lib: lib.data.Dataset.range(6).scan(np.int64(0), lambda s, x: (s + x, s * 10)))
    # a tuple state and a tuple element (passed whole as the second argument)
    _same(
        lambda lib: lib.data.Dataset.from_tensor_slices(([1, 2, 3], [1.0, 0.5, 0.25])).scan(
            (np.int32(0), np.float32(1.0)), lambda s, e: ((s[0] + e[0], s[1] * e[1]), s[0] + 1)
        )
    )
    # each iterator starts from the initial state
    _same(lambda lib: lib.data.Dataset.range(3).scan(np.int64(5), lambda s, x: (s + x, s)).repeat(2))


def test_scan_state_shape_relaxed():
    _same(
        lambda lib: lib.data.Dataset.range(3).scan(
            lib.constant([], lib.int64), lambda s, x: (lib.concat([s, [x]], 0), lib.size(s))
        )
    )


def test_scan_errors():
    for lib in (tw, v1):
        with lib.Graph().as_default(), pytest.raises(TypeError, match="element types for the new state must match"):
            lib.data.Dataset.range(3).scan(np.int32(0), lambda s, x: (x, x))


# --- reduce --------------------------------------------------------------------------------------------------


def test_reduce():
    make = lambda lib: lib.data.Dataset.range(5).reduce(np.int64(0), lambda s, x: s + x)
    assert _run(tw, make) == _run(v1, make) == 10
    make = lambda lib: lib.data.Dataset.range(0).reduce(np.int64(7), lambda s, x: s + x)
    assert _run(tw, make) == _run(v1, make) == 7
    make = lambda lib: lib.data.Dataset.from_tensor_slices([3.0, 4.0]).reduce(
        (np.float32(0), np.int32(0)), lambda s, x: (s[0] + x, s[1] + 1)
    )
    got, want = _run(tw, make), _run(v1, make)
    assert got == want and got[0].dtype == want[0].dtype


def test_reduce_runs_a_pass_each_run():
    with tw.Graph().as_default():
        total = tw.data.Dataset.range(4).reduce(np.int64(0), lambda s, x: s + x)
        assert total.shape.as_list() == []
        with tw.Session() as sess:
            assert [sess.run(total) for _ in range(3)] == [6, 6, 6]


# --- get_single_element ----------------------------------------------------------------------------------------


def test_get_single_element():
    make = lambda lib: lib.data.Dataset.from_tensors(([1, 2], "x")).get_single_element()
    got, want = _run(tw, make), _run(v1, make)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1] == want[1]
    make = lambda lib: lib.data.Dataset.range(5).filter(lambda x: lib.equal(x, 3)).get_single_element()
    assert _run(tw, make) == _run(v1, make) == 3


@pytest.mark.parametrize(("n", "message"), [(0, "Dataset was empty."), (2, "Dataset had more than one element.")])
def test_get_single_element_errors(n, message):
    make = lambda lib: lib.data.Dataset.range(n).get_single_element()
    for lib in (tw, v1):
        error = _run_error(lib, make)
        assert isinstance(error, lib.errors.InvalidArgumentError)
        assert message in str(error)


# --- counter, as_numpy_iterator ---------------------------------------------------------------------------------


def test_counter():
    _same(lambda lib: lib.data.Dataset.counter().take(3))
    _same(lambda lib: lib.data.Dataset.counter(5, -2).take(4))
    _same(lambda lib: lib.data.Dataset.counter(1, 2, dtype=lib.int32).take(3))


def test_as_numpy_iterator_is_eager_only():
    for lib in (tw, v1):
        with lib.Graph().as_default(), pytest.raises(RuntimeError, match="only supported in eager mode"):
            lib.data.Dataset.range(3).as_numpy_iterator()


# --- window --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "shift", "stride", "drop"),
    [(3, None, 1, False), (3, 2, 1, False), (3, 2, 1, True), (3, 2, 2, False), (2, 3, 1, False), (3, 1, 2, True)],
)
def test_window_flat_map_batch(size, shift, stride, drop):
    _same(lambda lib: lib.data.Dataset.range(7).window(size, shift, stride, drop).flat_map(lambda w: w.batch(size)))


def test_window_of_tuples_zipped():
    def make(lib):
        ds = lib.data.Dataset.from_tensor_slices(([1, 2, 3, 4, 5], [[1.0, 0], [2, 0], [3, 0], [4, 0], [5, 0]]))
        return ds.window(2, 1).flat_map(lambda a, b: lib.data.Dataset.zip((a.batch(2), b.batch(2))))

    _same(make)


def test_window_elements_and_repeat():
    _same(lambda lib: lib.data.Dataset.range(5).window(2).flat_map(lambda w: w.map(lambda x: x * 2)))
    # each pass windows afresh; take/repeat keep the windows
    _same(lambda lib: lib.data.Dataset.range(5).window(2).take(2).repeat(2).flat_map(lambda w: w))
    _same(
        lambda lib: lib.data.Dataset.from_tensor_slices({"a": [1, 2, 3]}).window(2).flat_map(lambda d: d["a"].batch(2))
    )


def test_window_spec():
    for lib in (tw, v1):
        with lib.Graph().as_default():
            spec = lib.data.Dataset.from_tensor_slices(([1, 2], [[1.0], [2.0]])).window(2).element_spec
            assert "DatasetSpec(TensorSpec(shape=(), dtype=tf.int32" in repr(spec[0])
            assert spec[1].element_spec.shape.as_list() == [1]


@pytest.mark.parametrize(("args", "what"), [((0,), "size"), ((2, 0), "shift"), ((2, 1, 0), "stride")])
def test_window_arguments_must_be_positive(args, what):
    def make(lib):
        ds = lib.data.Dataset.range(3).window(*args).flat_map(lambda w: w)
        return lib.data.make_one_shot_iterator(ds).get_next()

    for lib in (tw, v1):
        error = _run_error(lib, make)
        assert isinstance(error, lib.errors.InvalidArgumentError)
        assert f"Window {what} must be greater than zero" in str(error)


def test_window_of_ragged_elements():
    def make(lib):
        seqs = [[1], [2, 2], [3, 3, 3], [4]]
        ds = lib.data.Dataset.from_generator(lambda: iter(seqs), lib.int32, [None])
        return ds.window(2, 1).flat_map(lambda w: w.padded_batch(2, [None]))

    _same(make)


# --- group_by_window, bucket_by_sequence_length -----------------------------------------------------------------


def test_group_by_window():
    _same(lambda lib: lib.data.Dataset.range(10).group_by_window(lambda x: 3 - x % 3, lambda k, w: w.batch(2), 2))
    _same(
        lambda lib: lib.data.Dataset.range(10).group_by_window(
            lambda x: x % 2, lambda k, w: w.batch(5).map(lambda b: (k, b)), window_size_func=lambda k: k + 2
        )
    )
    _same(
        lambda lib: lib.data.Dataset.from_tensor_slices(([1, 2, 3, 4], [b"a", b"b", b"c", b"d"])).group_by_window(
            lambda a, b: lib.cast(a % 2, lib.int64), lambda k, w: w.batch(3), 3
        )
    )


def test_group_by_window_errors():
    for lib in (tw, v1):
        with lib.Graph().as_default():
            ds = lib.data.Dataset.range(4)
            with pytest.raises(ValueError, match="Either the `window_size` argument or the `window_size_func`"):
                ds.group_by_window(lambda x: x, lambda k, w: w)
            with pytest.raises(TypeError, match="`reduce_func` must return a single `tf.data.Dataset` object"):
                ds.group_by_window(lambda x: x, lambda k, w: k, 2)


@pytest.mark.parametrize(
    "kwargs", [{}, {"pad_to_bucket_boundary": True}, {"drop_remainder": True}, {"padding_values": -1}]
)
def test_bucket_by_sequence_length(kwargs):
    seqs = [[1], [2, 2], [3, 3, 3], [1], [4, 4, 4, 4], [5] * 5, [2, 2], [3, 3, 3]]

    def make(lib):
        ds = lib.data.Dataset.from_generator(lambda: iter(seqs), lib.int32, [None])
        return ds.bucket_by_sequence_length(lambda x: lib.size(x), [3, 6], [2, 2, 2], **kwargs)

    _same(make)


def test_bucket_by_sequence_length_no_padding_and_errors():
    _same(
        lambda lib: lib.data.Dataset.range(10).bucket_by_sequence_length(
            lambda x: lib.cast(x % 4, lib.int32), [2], [3, 2], no_padding=True
        )
    )
    for lib in (tw, v1):
        with lib.Graph().as_default(), pytest.raises(ValueError, match=r"`len\(bucket_batch_sizes\)` must equal"):
            lib.data.Dataset.range(3).bucket_by_sequence_length(lambda x: x, [3], [2, 2, 3])


# --- choose_from_datasets, sample_from_datasets -----------------------------------------------------------------


@pytest.mark.parametrize("stop", [True, False])
def test_choose_from_datasets(stop):
    def make(lib):
        choice = lib.data.Dataset.from_tensor_slices(np.array([0, 1, 0, 1, 1, 0, 2, 2], np.int64))
        inputs = [lib.data.Dataset.range(3), lib.data.Dataset.range(100, 102), lib.data.Dataset.range(50, 60)]
        return lib.data.Dataset.choose_from_datasets(inputs, choice, stop_on_empty_dataset=stop)

    _same(make)
    # tuples, each pass afresh
    _same(
        lambda lib: lib.data.Dataset.choose_from_datasets(
            [lib.data.Dataset.from_tensors((1, "a")).repeat(2), lib.data.Dataset.from_tensors((2, "b")).repeat(2)],
            lib.data.Dataset.range(2).repeat(2),
        ).repeat(2)
    )


def test_choose_from_datasets_errors():
    for lib in (tw, v1):
        with lib.Graph().as_default():
            ds = [lib.data.Dataset.range(3)]
            with pytest.raises(TypeError, match="Invalid `choice_dataset`. Elements of `choice_dataset` must be"):
                lib.data.Dataset.choose_from_datasets(
                    ds, lib.data.Dataset.range(3).map(lambda x, lib=lib: lib.cast(x, lib.int32))
                )
            with pytest.raises(ValueError, match="Invalid `datasets`. `datasets` should not be empty."):
                lib.data.Dataset.choose_from_datasets([], lib.data.Dataset.range(3))


def test_sample_from_datasets():
    make = lambda lib: lib.data.Dataset.sample_from_datasets(
        [lib.data.Dataset.range(5), lib.data.Dataset.range(100, 103)], seed=3
    )
    got = [int(v[0]) for v in _drain(tw, make)[2]]
    want = [int(v[0]) for v in _drain(v1, make)[2]]
    assert sorted(got) == sorted(want) == [0, 1, 2, 3, 4, 100, 101, 102]
    # each input's order is kept
    assert [v for v in got if v < 100] == [0, 1, 2, 3, 4]
    # seeded: the same draw from graph to graph
    assert got == [int(v[0]) for v in _drain(tw, make)[2]]


def test_sample_from_datasets_weights():
    make = lambda lib: lib.data.Dataset.sample_from_datasets(
        [lib.data.Dataset.from_tensors(0).repeat(), lib.data.Dataset.from_tensors(1).repeat()], [0.8, 0.2], seed=5
    ).take(2000)
    ones = sum(int(v[0]) for v in _drain(tw, make)[2])
    assert 300 < ones < 500
    # an input of weight 0 is never read
    _same(
        lambda lib: lib.data.Dataset.sample_from_datasets(
            [lib.data.Dataset.range(3), lib.data.Dataset.range(100, 103)], [1.0, 0.0], seed=1
        )
    )
    for lib in (tw, v1):
        with (
            lib.Graph().as_default(),
            pytest.raises(ValueError, match="Invalid `weights`. `weights` should have the same length as"),
        ):
            lib.data.Dataset.sample_from_datasets([lib.data.Dataset.range(3)] * 2, [0.5, 0.2, 0.3])


# --- rejection_resample ----------------------------------------------------------------------------------------

_CLASSES = np.random.RandomState(0).choice(2, size=2000, p=[0.8, 0.2]).astype(np.int32)


@pytest.mark.parametrize("initial", [[0.8, 0.2], None])
def test_rejection_resample_reaches_target(initial):
    make = lambda lib: lib.data.Dataset.from_tensor_slices(_CLASSES).rejection_resample(
        lambda x: x, [0.5, 0.5], initial, seed=1
    )
    got, want = _drain(tw, make), _drain(v1, make)
    assert got[:2] == want[:2]  # (class, element): shapes and dtypes
    for shapes, dtypes, out in (got, want):
        classes = np.array([int(c) for c, _ in out])
        assert all(c == d for c, d in out)
        assert abs(classes.mean() - 0.5) < 0.06, classes.mean()


def test_rejection_resample_static_cases():
    # target == initial: every element, with its class
    _same(
        lambda lib: lib.data.Dataset.from_tensor_slices(_CLASSES[:50]).rejection_resample(
            lambda x: x, [0.8, 0.2], [0.8, 0.2]
        )
    )
    # a class of target 0: only the others, all of them
    _same(
        lambda lib: lib.data.Dataset.from_tensor_slices((_CLASSES[:50], np.arange(50))).rejection_resample(
            lambda c, i: c, [1.0, 0.0], [0.8, 0.2]
        )
    )


# --- ignore_errors -----------------------------------------------------------------------------------------------


def test_ignore_errors():
    def make(lib):
        ds = lib.data.Dataset.from_tensor_slices([1.0, 2.0, 0.0, 4.0, 0.0, 5.0])
        ds = ds.map(lambda x: lib.debugging.check_numerics(1.0 / x, "error"))
        return ds.ignore_errors()

    assert [v[0] for v in _same(make)] == [1.0, 0.5, 0.25, 0.2]
    # through tf.data.experimental, after a filter and with the errors logged
    _same(
        lambda lib: (
            lib.data.Dataset.from_tensor_slices(["1", "x", "3"])
            .map(lambda s: lib.strings.to_number(s, lib.int32))
            .apply(lib.data.experimental.ignore_errors(log_warning=True))
        )
    )


def test_experimental_transformations():
    _same(lambda lib: lib.data.Dataset.range(6).apply(lib.data.experimental.take_while(lambda x: x < 3)))
    _same(lambda lib: lib.data.Dataset.from_tensor_slices([1, 1, 2]).apply(lib.data.experimental.unique()))
    _same(lambda lib: lib.data.Dataset.range(4).apply(lib.data.experimental.scan(np.int64(0), lambda s, x: (s + x, s))))
    _same(
        lambda lib: lib.data.Dataset.range(6).apply(
            lib.data.experimental.group_by_window(lambda x: x % 2, lambda k, w: w.batch(2), 2)
        )
    )
    _same(lambda lib: lib.data.experimental.Counter(2, 3).take(3))
    _same(
        lambda lib: lib.data.experimental.choose_from_datasets(
            [lib.data.Dataset.range(2), lib.data.Dataset.range(10, 12)], lib.data.Dataset.range(2).repeat(2)
        )
    )
    make = lambda lib: lib.data.experimental.get_single_element(lib.data.Dataset.from_tensors(7))
    assert _run(tw, make) == _run(v1, make) == 7


# --- random ------------------------------------------------------------------------------------------------------


def test_random_seeded_is_tensorflows_stream():
    _same(lambda lib: lib.data.Dataset.random(seed=42).take(9))
    # each iterator starts the stream again
    _same(lambda lib: lib.data.Dataset.random(seed=7).take(3).repeat(2))

    def graph_seed(lib):
        lib.set_random_seed(5)
        return lib.data.Dataset.random(seed=3).take(5)

    _same(graph_seed)


def test_random_unseeded():
    with tw.Graph().as_default():
        ds = tw.data.Dataset.random().take(50)
        assert ds.output_types == tw.int64 and ds.output_shapes.as_list() == []
        values = [v[0] for v in _drain(tw, lambda lib: tw.data.Dataset.random().take(50))[2]]
    assert len(set(values)) == 50 and all(0 <= v < 2**32 for v in values)


def test_pass_state_is_dropped_at_the_end():
    from tensorweave._src.data import dataset_ops

    with tw.Graph().as_default():
        made = []
        original = dataset_ops._IteratorStates.__init__

        def record(self, *args):
            original(self, *args)
            made.append(self)

        dataset_ops._IteratorStates.__init__ = record
        try:
            ds = tw.data.Dataset.from_tensor_slices([1, 2, 1]).unique().repeat(3)
        finally:
            dataset_ops._IteratorStates.__init__ = original
        nxt = tw.data.make_one_shot_iterator(ds).get_next()
        with tw.Session() as sess:
            assert [sess.run(nxt) for _ in range(6)] == [1, 2] * 3
            assert [len(s._states) for s in made] == [1]  # the last pass has not ended yet
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)
        assert [len(s._states) for s in made] == [0]


def test_rebatch_and_legacy_function_spellings():
    _same(lambda lib: lib.data.Dataset.range(10).batch(4).rebatch(3))
    _same(lambda lib: lib.data.Dataset.range(10).batch(4).rebatch(3, drop_remainder=True))
    _same(lambda lib: lib.data.Dataset.range(5).map_with_legacy_function(lambda x: x * 2))
    _same(lambda lib: lib.data.Dataset.range(5).filter_with_legacy_function(lambda x: x > 2))
