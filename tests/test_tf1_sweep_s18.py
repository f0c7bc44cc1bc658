"""Regression tests for the differences the s18 sweep of TF1 programs (tests/tf1_programs/p51..) found, each
checked against TensorFlow's compat.v1 behaviour."""

import numpy as np
import pytest

import tensorweave as tw


def test_cast_sparse_tensor_casts_values():
    """tf.cast of a SparseTensor (a CTC decoding cast to int32 for edit_distance, p51) casts its values."""
    with tw.Graph().as_default():
        st = tw.SparseTensor([[0, 1], [1, 0]], tw.constant([1, 2], tw.int64), [2, 3])
        cast = tw.cast(st, tw.int32)
        assert isinstance(cast, tw.SparseTensor)
        assert cast.values.dtype == tw.int32 and cast.values.op.name == "Cast"
        sl = tw.IndexedSlices(tw.constant([[1.5, 2.5]]), tw.constant([1]), tw.constant([3, 2]))
        sl_cast = tw.cast(sl, tw.int32)
        assert isinstance(sl_cast, tw.IndexedSlices) and sl_cast.values.dtype == tw.int32
        with tw.Session() as sess:
            got = sess.run(cast)
            assert got.values.tolist() == [1, 2] and got.values.dtype == np.int32
            assert got.indices.tolist() == [[0, 1], [1, 0]] and got.dense_shape.tolist() == [2, 3]
            assert sess.run(sl_cast.values).tolist() == [[1, 2]]


def test_partial_run_feeds_in_stages():
    """sess.partial_run_setup / partial_run (p52): feeds given in stages, each fetch computed once, and TF's
    InvalidArgumentError for a feed or fetch not set up, or fetched twice."""
    with tw.Graph().as_default():
        a = tw.placeholder(tw.float32, [])
        b = tw.placeholder(tw.float32, [])
        c = tw.placeholder(tw.float32, [])
        r1 = a + b
        noise = tw.random_uniform([])
        r1n = r1 + noise
        r2 = r1n * c
        with tw.Session() as sess:
            h = sess.partial_run_setup([r1, r1n, r2], [a, b, c])
            assert sess.partial_run(h, r1, feed_dict={a: 1.0, b: 2.0}) == 3.0
            v1 = sess.partial_run(h, r1n)
            # r2 uses the same draw of `noise` as the r1n already fetched (one step for the handle)
            assert sess.partial_run(h, r2, feed_dict={c: 2.0}) == pytest.approx(v1 * 2.0)
            with pytest.raises(tw.errors.InvalidArgumentError, match="has already been fetched"):
                sess.partial_run(h, r1)
            h2 = sess.partial_run_setup([r1], [a, b])
            with pytest.raises(tw.errors.InvalidArgumentError, match="was not specified in partial_run_setup"):
                sess.partial_run(h2, r1, feed_dict={c: 1.0})
            with pytest.raises(tw.errors.InvalidArgumentError, match="was not specified in partial_run_setup"):
                sess.partial_run(h2, r2, feed_dict={a: 1.0, b: 1.0})
            sess.partial_run(h2, r1, feed_dict={a: 1.0, b: 1.0})
            with pytest.raises(tw.errors.InvalidArgumentError, match="has already been fed"):
                h3 = sess.partial_run_setup([r1, r2], [a, b, c])
                sess.partial_run(h3, r1, feed_dict={a: 1.0, b: 1.0})
                sess.partial_run(h3, r2, feed_dict={a: 1.0, c: 1.0})


def test_partial_run_matches_tensorflow():
    tf = pytest.importorskip("tensorflow").compat.v1
    results = []
    for mod in (tf, tw):
        with mod.Graph().as_default():
            a = mod.placeholder(mod.float32, [])
            b = mod.placeholder(mod.float32, [])
            r1 = a * 2.0
            r2 = r1 + b
            with mod.Session() as sess:
                h = sess.partial_run_setup([r1, r2], [a, b])
                got = [sess.partial_run(h, r1, {a: 3.0}), sess.partial_run(h, [r2], {b: 1.0})]
                results.append(got)
    assert results[0] == results[1] == [6.0, [7.0]]
