"""Sparse tensors: what the fidelity cases (tests/fidelity/cases_sparse.py, against TF1) cannot see — the error
messages naming the bad index, feeds of the composite, and values against numpy."""

import numpy as np
import pytest
import tensorweave as tw


def test_bad_index_error_names_the_index():
    with tw.Graph().as_default(), tw.Session() as sess:
        sp = tw.SparseTensor([[0, 0], [1, 1], [7, 0]], [1.0, 2.0, 3.0], [2, 2])
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"position \[2\].*\[\[7, 0\]\]"):
            sess.run(tw.sparse_tensor_to_dense(sp))


def test_sparse_segment_bad_index_named():
    with tw.Graph().as_default(), tw.Session() as sess:
        data = tw.constant(np.ones([3, 2], np.float32))
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices\[1\] = 5"):
            sess.run(tw.sparse_segment_sum(data, [0, 5], [0, 0]))
        with pytest.raises(tw.errors.InvalidArgumentError, match="not increasing"):
            sess.run(tw.sparse_segment_sum(data, [0, 1], [1, 0]))


def test_feed_tuple_and_value_and_bad_feed():
    with tw.Graph().as_default(), tw.Session() as sess:
        ph = tw.sparse_placeholder(tw.float32)
        d = tw.sparse.to_dense(ph)
        got = sess.run(d, {ph: ([[1, 2]], [4.0], [2, 3])})
        want = np.zeros([2, 3], np.float32)
        want[1, 2] = 4.0
        np.testing.assert_array_equal(got, want)
        v = sess.run(ph, {ph: tw.SparseTensorValue([[0, 0]], [1.0], [1, 1])})
        assert isinstance(v, tw.SparseTensorValue)
        with pytest.raises(TypeError, match="SparseTensorValue"):
            sess.run(d, {ph: np.ones([2, 3])})


def test_sparse_add_and_matmul_against_numpy():
    rng = np.random.RandomState(0)
    a = rng.randn(6, 5).astype(np.float32) * (rng.rand(6, 5) < 0.4)
    b = rng.randn(6, 5).astype(np.float32) * (rng.rand(6, 5) < 0.4)
    m = rng.randn(5, 3).astype(np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        sa, sb = tw.sparse.from_dense(a), tw.sparse.from_dense(b)
        s = sess.run(tw.sparse.to_dense(tw.sparse_add(sa, sb)))
        mm = sess.run(tw.sparse_tensor_dense_matmul(sa, m))
        mx = sess.run(tw.sparse.to_dense(tw.sparse_maximum(sa, sb)))
    np.testing.assert_allclose(s, a + b, rtol=1e-6)
    np.testing.assert_allclose(mm, a @ m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mx, np.maximum(a, b))
