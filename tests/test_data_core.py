"""The C++ dataset and iterator kernels (core/data) through tw.data, without functions (no map/filter): values
against Python/numpy oracles, end of sequence, the error classes and messages, epochs, shuffle determinism,
caching to a file and the prefetch thread's shutdown. TF1's own behaviour for the same programs is what the
oracles encode (checked by hand against tensorflow.compat.v1: take/skip/repeat accept any negative count as
"all", a re-run initializer restarts a seeded shuffle)."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw

Dataset = tw.data.Dataset


def _drain(sess, nxt, limit=100000):
    out = []
    for _ in range(limit):
        try:
            out.append(sess.run(nxt))
        except tw.errors.OutOfRangeError as e:
            assert "End of sequence" in str(e)
            # It stays ended.
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)
            return out
    raise AssertionError("the iterator did not end")


def _values(dataset):
    with tw.Graph().as_default():
        it = tw.data.make_one_shot_iterator(dataset() if callable(dataset) else dataset)
        nxt = it.get_next()
        with tw.Session() as sess:
            return _drain(sess, nxt)


def _ints(dataset_fn):
    return [int(v) for v in _values(dataset_fn)]


def test_range_and_slices():
    assert _ints(lambda: Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert _ints(lambda: Dataset.range(10, 0, -3)) == [10, 7, 4, 1]
    assert _ints(lambda: Dataset.range(3, 3)) == []
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    got = _values(lambda: Dataset.from_tensor_slices((np.arange(4), x)))
    assert len(got) == 4
    for i, (a, b) in enumerate(got):
        assert a == i
        np.testing.assert_array_equal(b, x[i])
    strings = _values(lambda: Dataset.from_tensor_slices(np.array([b"a", b"bc", b""], dtype=object)))
    assert strings == [b"a", b"bc", b""]
    one = _values(lambda: Dataset.from_tensors(x))
    assert len(one) == 1
    np.testing.assert_array_equal(one[0], x)


def test_slices_with_mismatched_dim0_are_invalid_argument():
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"TensorSliceDataset.*(has 2|0th dimension)"):
        _values(
            lambda: Dataset.from_tensor_slices(
                (tw.placeholder_with_default([1, 2, 3], [None]), tw.placeholder_with_default([1, 2], [None]))
            )
        )


def test_range_step_zero_is_invalid_argument():
    with pytest.raises(tw.errors.InvalidArgumentError, match="step"):
        _values(lambda: Dataset.range(0, 5, 0))


def test_batch_remainder_and_strings():
    got = _values(lambda: Dataset.range(7).batch(3))
    assert [list(b) for b in got] == [[0, 1, 2], [3, 4, 5], [6]]
    got = _values(lambda: Dataset.range(7).batch(3, drop_remainder=True))
    assert [list(b) for b in got] == [[0, 1, 2], [3, 4, 5]]
    words = np.array([b"x", b"yy", b"zzz"], dtype=object)
    got = _values(lambda: Dataset.from_tensor_slices(words).batch(2))
    assert [list(b) for b in got] == [[b"x", b"yy"], [b"zzz"]]
    x = np.random.RandomState(0).rand(10, 2, 3).astype(np.float32)
    got = _values(lambda: Dataset.from_tensor_slices(x).batch(4))
    np.testing.assert_array_equal(np.concatenate(got), x)
    assert [b.shape for b in got] == [(4, 2, 3), (4, 2, 3), (2, 2, 3)]


def test_batch_size_zero_is_invalid_argument():
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"BatchDataset.*got 0"):
        _values(lambda: Dataset.range(5).batch(0))


def _ragged():
    # [0], [0 1], [0 1 2], [0 1 2 3] (unknown length).
    d = None
    for n in range(1, 5):
        t = Dataset.from_tensors(tw.placeholder_with_default(np.arange(n, dtype=np.int64), [None]))
        d = t if d is None else d.concatenate(t)
    return d


def test_batch_error_does_not_kill_the_iterator():
    with tw.Graph().as_default():
        nxt = tw.data.make_one_shot_iterator(_ragged().batch(2)).get_next()
        with tw.Session() as sess:
            for _ in range(2):
                with pytest.raises(tw.errors.InvalidArgumentError, match="different shapes"):
                    sess.run(nxt)
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)


def test_padded_batch():
    got = _values(lambda: _ragged().padded_batch(2, [None], padding_values=tw.constant(-1, tw.int64)))
    np.testing.assert_array_equal(got[0], [[0, -1], [0, 1]])
    np.testing.assert_array_equal(got[1], [[0, 1, 2, -1], [0, 1, 2, 3]])
    got = _values(lambda: _ragged().padded_batch(4, [5]))
    np.testing.assert_array_equal(got[0], [[0, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 1, 2, 0, 0], [0, 1, 2, 3, 0]])
    with tw.Graph().as_default():
        nxt = tw.data.make_one_shot_iterator(_ragged().padded_batch(2, [2])).get_next()
        with tw.Session() as sess:
            sess.run(nxt)
            with pytest.raises(tw.errors.InvalidArgumentError, match="smaller"):
                sess.run(nxt)
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)


def test_unbatch_repeat_take_skip_shard_zip_concatenate():
    assert _ints(lambda: Dataset.range(7).batch(3).unbatch()) == list(range(7))
    assert _ints(lambda: Dataset.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert _ints(lambda: Dataset.range(3).repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert _ints(lambda: Dataset.range(0).repeat()) == []
    assert _ints(lambda: Dataset.range(6).skip(4)) == [4, 5]
    assert _ints(lambda: Dataset.range(6).skip(-1)) == []
    assert _ints(lambda: Dataset.range(6).take(-1)) == list(range(6))
    assert _ints(lambda: Dataset.range(10).shard(3, 1)) == [1, 4, 7]
    assert _ints(lambda: Dataset.range(2).concatenate(Dataset.range(5, 7))) == [0, 1, 5, 6]
    got = _values(lambda: Dataset.zip((Dataset.range(3), Dataset.range(10, 20))))
    assert [(int(a), int(b)) for a, b in got] == [(0, 10), (1, 11), (2, 12)]


@pytest.mark.parametrize("num_shards,index", [(0, 0), (2, 2), (3, -1)])
def test_shard_bad_index_is_invalid_argument(num_shards, index):
    with pytest.raises(tw.errors.InvalidArgumentError, match="ShardDataset"):
        _values(lambda: Dataset.range(10).shard(tw.constant(num_shards, tw.int64), tw.constant(index, tw.int64)))


def _shuffled(seed, reshuffle=True, epochs=1, buffer=100, n=20):
    return _ints(lambda: Dataset.range(n).shuffle(buffer, seed=seed, reshuffle_each_iteration=reshuffle).repeat(epochs))


def test_shuffle_is_a_deterministic_permutation():
    a = _shuffled(7)
    assert sorted(a) == list(range(20))
    assert a != list(range(20))
    assert a == _shuffled(7)
    assert a != _shuffled(8)
    two = _shuffled(7, epochs=2)
    assert two[:20] != two[20:] and sorted(two[20:]) == list(range(20))
    assert two == _shuffled(7, epochs=2)
    fixed = _shuffled(7, reshuffle=False, epochs=2)
    assert fixed[:20] == fixed[20:]
    # A buffer of 2: the first element is one of the first two.
    assert all(_shuffled(s, buffer=2)[0] < 2 for s in range(1, 10))


def test_unseeded_shuffles_differ():
    assert _shuffled(None) != _shuffled(None)


def test_shuffle_restarts_on_reinitialization():
    with tw.Graph().as_default():
        it = tw.data.make_initializable_iterator(Dataset.range(10).shuffle(10, seed=1))
        nxt = it.get_next()
        with tw.Session() as sess:
            sess.run(it.initializer)
            first = _drain(sess, nxt)
            sess.run(it.initializer)
            assert _drain(sess, nxt) == first


def test_cache_in_memory_and_in_a_file(tmp_path):
    got = [int(v) for v in _values(lambda: Dataset.range(10).shuffle(10, seed=3).cache().repeat(3))]
    assert got[:10] == got[10:20] == got[20:]
    path = str(tmp_path / "cache")
    assert _ints(lambda: Dataset.range(5).cache(path)) == list(range(5))
    # The file holds 0..4: a later pipeline reads it instead of its input.
    assert _ints(lambda: Dataset.range(8).cache(path)) == list(range(5))


def test_prefetch_order_and_autotune():
    assert _ints(lambda: Dataset.range(100).prefetch(3)) == list(range(100))
    assert _ints(lambda: Dataset.range(5).prefetch(tw.data.experimental.AUTOTUNE)) == list(range(5))
    assert _ints(lambda: Dataset.range(5).prefetch(0)) == list(range(5))


def test_prefetch_delivers_errors_in_order():
    with tw.Graph().as_default():
        nxt = tw.data.make_one_shot_iterator(_ragged().batch(2).prefetch(4)).get_next()
        with tw.Session() as sess:
            for _ in range(2):
                with pytest.raises(tw.errors.InvalidArgumentError):
                    sess.run(nxt)
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)


def test_prefetch_thread_stops_at_session_close_and_exit():
    # A producer that waits for room in its full buffer; closing the session (and exiting the process without
    # closing another) must not hang.
    script = textwrap.dedent(
        """
        import tensorweave as tw
        d = tw.data.Dataset.range(3).repeat().prefetch(2)
        it = tw.data.make_initializable_iterator(d)
        nxt = it.get_next()
        sess = tw.Session()
        sess.run(it.initializer)
        assert sess.run(nxt) == 0
        sess.run(it.initializer)
        assert sess.run(nxt) == 0
        sess.close()
        del sess
        leaked = tw.Session()
        leaked.run(it.initializer)
        print("ok", leaked.run(nxt))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok 0"


def test_iterator_errors_and_string_handles():
    with tw.Graph().as_default():
        it = tw.data.make_initializable_iterator(Dataset.range(3))
        nxt = it.get_next()
        handle_in = tw.placeholder(tw.string, [])
        feedable = tw.data.Iterator.from_string_handle(handle_in, tw.int64, [])
        via_handle = feedable.get_next()
        with tw.Session() as sess:
            with pytest.raises(tw.errors.FailedPreconditionError, match=r"GetNext\(\) failed because the iterator"):
                sess.run(nxt)
            sess.run(it.initializer)
            assert sess.run(nxt) == 0
            handle = sess.run(it.string_handle())
            assert sess.run(via_handle, {handle_in: handle}) == 1  # the same iterator
            assert sess.run(nxt) == 2
            with pytest.raises(tw.errors.InvalidArgumentError, match="nonsense"):
                sess.run(via_handle, {handle_in: b"nonsense"})


def test_cardinality():
    card = tw.data.experimental.cardinality
    with tw.Graph().as_default(), tw.Session() as sess:
        got = sess.run(
            [
                card(Dataset.range(15).batch(4)),
                card(Dataset.range(15).batch(4, drop_remainder=True)),
                card(Dataset.range(5).repeat()),
                card(Dataset.range(5).repeat(3).take(7)),
                card(Dataset.range(7).shard(3, 1)),
                card(Dataset.range(5).skip(2)),
                card(Dataset.zip((Dataset.range(3), Dataset.range(5).repeat()))),
            ]
        )
        assert [int(v) for v in got] == [4, 3, -1, 7, 2, 3, 3]
