"""CTC ops against independent oracles: the CTC loss by enumerating every alignment (numpy), its gradient by
finite differences, the greedy decoder by argmax, edit_distance by a plain dynamic program; and hostile input to
the kernels (malformed label indices, sizes, attrs) gives clear errors, never a crash. TensorFlow comparisons are
in tests/fidelity/cases_ctc.py."""

import itertools

import numpy as np
import pytest
import tensorweave as tw


def _collapse(path, blank):
    out = []
    prev = None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def _brute_force_ctc(logits, label):
    """-log of the summed probability of every alignment of `label` (blank last), by enumeration."""
    steps, classes = logits.shape
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        if _collapse(path, classes - 1) == list(label):
            total += np.prod([p[t, c] for t, c in enumerate(path)])
    return -np.log(total)


def _sparse(rows):
    indices = [[b, i] for b, row in enumerate(rows) for i in range(len(row))]
    values = [v for row in rows for v in row]
    return tw.SparseTensor(
        np.array(indices, np.int64).reshape(-1, 2),
        tw.constant(values, tw.int32),
        np.array([len(rows), max(len(r) for r in rows)], np.int64),
    )


def test_ctc_loss_matches_enumeration_of_alignments():
    rng = np.random.RandomState(0)
    logits = rng.randn(5, 3, 4)
    rows = [[0, 1], [2, 2], [1]]
    lengths = [5, 4, 3]
    with tw.Graph().as_default(), tw.Session() as sess:
        loss = sess.run(tw.nn.ctc_loss(_sparse(rows), tw.constant(logits), lengths))
    expected = [_brute_force_ctc(logits[: lengths[b], b], rows[b]) for b in range(3)]
    np.testing.assert_allclose(loss, expected, rtol=1e-10)


def test_ctc_loss_gradient_matches_finite_differences():
    rng = np.random.RandomState(1)
    x0 = rng.randn(4, 2, 3)
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float64, x0.shape)
        loss = tw.reduce_sum(tw.nn.ctc_loss(_sparse([[0, 1], [1]]), x, [4, 3]) * tw.constant([1.0, 3.0], tw.float64))
        grad = sess.run(tw.gradients(loss, x)[0], {x: x0})
        numeric = np.zeros_like(x0)
        eps = 1e-6
        for i in np.ndindex(x0.shape):
            d = np.zeros_like(x0)
            d[i] = eps
            numeric[i] = (sess.run(loss, {x: x0 + d}) - sess.run(loss, {x: x0 - d})) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, atol=1e-6)
    assert np.all(grad[3, 1] == 0)  # past the second entry's length


def test_greedy_decoder_is_argmax_collapsed():
    rng = np.random.RandomState(2)
    logits = rng.randn(9, 2, 5).astype(np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        (decoded,), log_prob = sess.run(tw.nn.ctc_greedy_decoder(logits, [9, 6]))
    for b, n in enumerate([9, 6]):
        best = logits[:n, b].argmax(1)
        got = decoded.values[decoded.indices[:, 0] == b].tolist()
        assert got == _collapse(best.tolist(), 4)
        np.testing.assert_allclose(log_prob[b, 0], -logits[:n, b].max(1).sum(), rtol=1e-6)


def test_beam_search_with_wide_beam_finds_the_most_probable_labelling():
    rng = np.random.RandomState(3)
    logits = rng.randn(4, 1, 3)
    p = np.exp(logits[:, 0]) / np.exp(logits[:, 0]).sum(1, keepdims=True)
    scores = {}
    for path in itertools.product(range(3), repeat=4):
        key = tuple(_collapse(path, 2))
        scores[key] = scores.get(key, 0.0) + np.prod([p[t, c] for t, c in enumerate(path)])
    best = max(scores, key=scores.get)
    with tw.Graph().as_default(), tw.Session() as sess:
        (decoded,), log_prob = sess.run(tw.nn.ctc_beam_search_decoder(logits, [4], beam_width=50))
    assert tuple(decoded.values.tolist()) == best
    np.testing.assert_allclose(log_prob[0, 0], np.log(scores[best]), rtol=1e-9)


def _levenshtein(a, b):
    d = np.arange(len(b) + 1)
    for i, x in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, y in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (x != y))
    return d[-1]


def test_edit_distance_matches_dynamic_program():
    rng = np.random.RandomState(4)
    hyp_rows = [rng.randint(0, 3, size=rng.randint(1, 6)).tolist() for _ in range(5)]
    truth_rows = [rng.randint(0, 3, size=rng.randint(1, 6)).tolist() for _ in range(5)]
    with tw.Graph().as_default(), tw.Session() as sess:
        h, t = _sparse(hyp_rows), _sparse(truth_rows)
        raw, norm = sess.run([tw.edit_distance(h, t, normalize=False), tw.edit_distance(h, t)])
    expected = np.array([_levenshtein(a, b) for a, b in zip(hyp_rows, truth_rows)], np.float32)
    np.testing.assert_array_equal(raw, expected)
    np.testing.assert_allclose(norm, expected / [len(r) for r in truth_rows], rtol=1e-6)


def _raw(op, **kwargs):
    with tw.Graph().as_default(), tw.Session() as sess:
        return sess.run(getattr(tw.raw_ops, op)(**kwargs))


@pytest.mark.parametrize(
    "indices, values, match",
    [
        ([[0, 0, 0]], [1], "second dimension"),
        ([[0, -1]], [1], "out of bounds"),
        ([[5, 0]], [1], "out of bounds"),
        ([[0, 2**62], [0, 0]], [1, 1], "out of order"),
        ([[0, 0], [0, 0]], [1, 1], "repeated"),
    ],
)
def test_ctc_loss_rejects_malformed_labels(indices, values, match):
    with pytest.raises(tw.errors.InvalidArgumentError, match=match):
        _raw(
            "CTCLoss",
            inputs=np.zeros([3, 1, 4], np.float32),
            labels_indices=np.array(indices, np.int64).reshape(-1, len(indices[0])),
            labels_values=np.array(values, np.int32),
            sequence_length=np.array([3], np.int32),
        )


def test_ctc_kernels_reject_bad_shapes_and_attrs():
    with pytest.raises(tw.errors.InvalidArgumentError, match="Max time"):
        _raw(
            "CTCLoss",
            inputs=np.zeros([0, 1, 4], np.float32),
            labels_indices=np.zeros([0, 2], np.int64),
            labels_values=np.zeros([0], np.int32),
            sequence_length=np.array([0], np.int32),
        )
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_classes"):
        _raw(
            "CTCLoss",
            inputs=np.zeros([2, 1, 0], np.float32),
            labels_indices=np.array([[0, 0]], np.int64),
            labels_values=np.array([0], np.int32),
            sequence_length=np.array([2], np.int32),
        )
    with pytest.raises(tw.errors.InvalidArgumentError, match="at least 1"):
        _raw(
            "CTCBeamSearchDecoder",
            inputs=np.zeros([2, 1, 0], np.float32),
            sequence_length=np.array([2], np.int32),
            beam_width=2,
            top_paths=1,
        )
    with pytest.raises(tw.errors.InvalidArgumentError, match="blank_index"):
        _raw("CTCGreedyDecoder", inputs=np.zeros([2, 1, 0], np.float32), sequence_length=np.array([2], np.int32))


@pytest.mark.parametrize(
    "h_shape, t_shape, error",
    [
        ([-1, 2], [1, 2], tw.errors.InvalidArgumentError),
        ([0, 2], [0, 2], tw.errors.InvalidArgumentError),
        ([2**40, 2**40], [1, 2], tw.errors.InvalidArgumentError),
        ([2**31, 2**20, 2], [1, 1, 2], tw.errors.ResourceExhaustedError),
    ],
)
def test_edit_distance_rejects_bad_dense_shapes(h_shape, t_shape, error):
    with tw.Graph().as_default(), tw.Session() as sess:
        hs = tw.placeholder(tw.int64, [len(h_shape)])
        d = tw.raw_ops.EditDistance(
            hypothesis_indices=np.zeros([0, len(h_shape)], np.int64),
            hypothesis_values=np.zeros([0], np.int32),
            hypothesis_shape=hs,
            truth_indices=np.zeros([0, len(t_shape)], np.int64),
            truth_values=np.zeros([0], np.int32),
            truth_shape=np.array(t_shape, np.int64),
        )
        assert d.op.type == "EditDistance"
        with pytest.raises(error):
            sess.run(d, {hs: h_shape})


def test_edit_distance_index_outside_the_output_is_an_error():
    with tw.Graph().as_default(), tw.Session() as sess:
        h = tw.SparseTensor([[7, 0]], [1], [2, 1])
        with pytest.raises(tw.errors.InternalError, match="outside"):
            sess.run(tw.edit_distance(h, tw.SparseTensor([[0, 0]], [1], [2, 1])))
