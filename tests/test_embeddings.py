"""Very large sparse models: partitioned variables, partitioned embedding lookups ("mod"/"div"), IndexedSlices
gradients and the optimizers' sparse updates (no dense copy of a table), the SparseApply* kernels, sampled losses
and samplers, bad ids, and the example. Oracles: numpy (TF1's formulas written out), the dense kernels, and
sampling statistics. TF1 itself is compared in tests/fidelity/cases_embeddings.py."""

import os
import re
import sys

import numpy as np
import pytest

import tensorweave as tw
from tensorweave._src.ops import training_ops

HERE = os.path.dirname(os.path.abspath(__file__))


def _slice_sizes(rows, n):
    """TF's _iter_slices: the first rows % n slices one row longer."""
    return [rows // n + (1 if i < rows % n else 0) for i in range(n)]


def _fill(sess, var, rng):
    parts = [rng.standard_normal(p.shape.as_list()).astype(np.float32) for p in var]
    sess.run([p.assign(v) for p, v in zip(var, parts)])
    return parts


@pytest.mark.parametrize("rows,n", [(10, 3), (11, 4), (7, 2), (5, 5), (1000, 7)])
def test_fixed_size_partitioner_slices_as_tf(rows, n):
    with tw.Graph().as_default():
        v = tw.get_variable("emb", [rows, 3], partitioner=tw.fixed_size_partitioner(n))
        assert [p.op.name for p in v] == [f"emb/part_{i}" for i in range(n)]
        assert [p.shape.as_list()[0] for p in v] == _slice_sizes(rows, n)
        assert v.get_shape().as_list() == [rows, 3] and len(v) == n
        assert all(p in tw.trainable_variables() for p in v)


def test_partitioner_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="one dimension"):
            tw.get_variable("a", [4, 4], partitioner=lambda shape, dtype: [2, 2])
        with pytest.raises(ValueError, match="rank"):
            tw.get_variable("b", [4, 4], partitioner=lambda shape, dtype: [2])
        with pytest.raises(ValueError, match="slices"):
            tw.get_variable("c", [2, 4], partitioner=lambda shape, dtype: [3, 1])


def _mod_reference(parts, ids):
    n = len(parts)
    return np.stack([parts[i % n][i // n] for i in ids.reshape(-1)]).reshape(ids.shape + parts[0].shape[1:])


@pytest.mark.parametrize("rows,n", [(10, 3), (11, 4), (13, 5)])
def test_embedding_lookup_partitioned_mod_and_div(rows, n):
    rng = np.random.default_rng(0)
    ids = rng.integers(0, rows, size=(4, 6))
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.get_variable("emb", [rows, 5], partitioner=tw.fixed_size_partitioner(n))
        sess.run(tw.global_variables_initializer())
        parts = _fill(sess, v, rng)
        div = sess.run(tw.nn.embedding_lookup(v, ids, partition_strategy="div"))
        np.testing.assert_array_equal(div, np.concatenate(parts)[ids])  # "div": contiguous ranges in order
        # "mod" over shards shaped for "mod" (TF's rule: id i in shard i % n at row i // n).
        mod_parts = [np.concatenate(parts)[i::n] for i in range(n)]
        mod = sess.run(tw.nn.embedding_lookup([tw.constant(p) for p in mod_parts], ids, partition_strategy="mod"))
        np.testing.assert_array_equal(mod, _mod_reference(mod_parts, ids))


def test_embedding_lookup_max_norm_matches_numpy():
    rng = np.random.default_rng(1)
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.get_variable("emb", [9, 4], partitioner=tw.fixed_size_partitioner(2))
        sess.run(tw.global_variables_initializer())
        full = np.concatenate(_fill(sess, v, rng)) * 3.0
        sess.run([p.assign(p * 3.0) for p in v])
        ids = np.array([[0, 8], [4, 5]])
        got = sess.run(tw.nn.embedding_lookup(v, ids, partition_strategy="div", max_norm=1.5))
        rows = full[ids]
        norms = np.linalg.norm(rows, axis=-1, keepdims=True)
        np.testing.assert_allclose(got, rows * 1.5 / np.maximum(norms, 1.5), rtol=1e-5)


def test_gather_gradient_is_indexed_slices_and_sums_to_dense():
    with tw.Graph().as_default(), tw.Session() as sess:
        table = tw.Variable(np.arange(12, dtype=np.float64).reshape(4, 3))
        ids = np.array([[1, 3], [1, 0]])
        (g,) = tw.gradients(tw.reduce_sum(tw.gather(table, ids) * 2.0), [table])
        assert isinstance(g, tw.IndexedSlices)
        sess.run(table.initializer)
        value = sess.run(g)
        np.testing.assert_array_equal(value.indices, ids.reshape(-1))
        np.testing.assert_array_equal(value.dense_shape, [4, 3])
        dense = np.zeros((4, 3))
        np.add.at(dense, ids.reshape(-1), 2.0)
        np.testing.assert_array_equal(sess.run(tw.convert_to_tensor(g)), dense)
        # A dense use of the same variable makes the sum dense.
        (g2,) = tw.gradients(tw.reduce_sum(tw.gather(table, [1])) + tw.reduce_sum(table), [table])
        assert isinstance(g2, tw.Tensor)


def _train_step_op_types(make_opt, rows=50):
    graph = tw.Graph()
    with graph.as_default():
        v = tw.get_variable("emb", [rows, 4], partitioner=tw.fixed_size_partitioner(2))
        ids = tw.placeholder(tw.int64, [None])
        loss = tw.reduce_sum(tw.square(tw.nn.embedding_lookup(v, ids)))
        train = make_opt().minimize(loss)
    # Every op the step needs, by walking inputs from the train op.
    seen, stack = set(), [train]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


OPTIMIZERS = {
    "sgd": (lambda: tw.train.GradientDescentOptimizer(0.1), "ScatterSub"),
    "momentum": (lambda: tw.train.MomentumOptimizer(0.1, 0.9), "SparseApplyMomentum"),
    "adagrad": (lambda: tw.train.AdagradOptimizer(0.1), "SparseApplyAdagrad"),
    "rmsprop": (lambda: tw.train.RMSPropOptimizer(0.1), "SparseApplyRMSProp"),
    "centered_rmsprop": (lambda: tw.train.RMSPropOptimizer(0.1, centered=True), "SparseApplyCenteredRMSProp"),
    "adadelta": (lambda: tw.train.AdadeltaOptimizer(0.1), "SparseApplyAdadelta"),
    "ftrl": (lambda: tw.train.FtrlOptimizer(0.1), "SparseApplyFtrl"),
    "proximal_adagrad": (lambda: tw.train.ProximalAdagradOptimizer(0.1), "SparseApplyProximalAdagrad"),
    "proximal_gd": (lambda: tw.train.ProximalGradientDescentOptimizer(0.1), "SparseApplyProximalGradientDescent"),
    "adagrad_da": (
        lambda: tw.train.AdagradDAOptimizer(0.1, tw.train.get_or_create_global_step()),
        "SparseApplyAdagradDA",
    ),
    "adam": (lambda: tw.train.AdamOptimizer(0.1), "ScatterAdd"),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizers_apply_sparse_updates_without_densifying(name):
    make, update_type = OPTIMIZERS[name]
    ops_in_step = _train_step_op_types(make)
    types = {op.type for op in ops_in_step}
    assert update_type in types, sorted(types)
    # No op of the step writes a dense [rows, ...] gradient (TF's IndexedSlices-to-dense conversion).
    dense_makers = {"UnsortedSegmentSum", "ScatterNd"}
    for op in ops_in_step:
        if op.type in dense_makers:
            assert op.outputs[0].shape.as_list()[:1] != [25], f"{op.name} ({op.type}) densifies a shard"
    assert not any(op.type.startswith("Apply") for op in ops_in_step), sorted(types)


def _sparse_rows_against_dense(op_name, sparse_fn, dense_fn, slots, scalars):
    """A SparseApply* op on rows `idx` equals the dense Apply* op run on those rows alone; other rows unchanged."""
    rng = np.random.default_rng(3)
    rows, dim = 6, 3
    idx = np.array([4, 1, 3])
    var0 = rng.standard_normal((rows, dim))
    slot0 = [np.abs(rng.standard_normal((rows, dim))) + 0.5 for _ in range(slots)]
    grad = rng.standard_normal((len(idx), dim))
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable(var0)
        s = [tw.Variable(x) for x in slot0]
        vd = tw.Variable(var0[idx])
        sd = [tw.Variable(x[idx]) for x in slot0]
        sess.run(tw.global_variables_initializer())
        sess.run(sparse_fn(v, *s, *scalars, grad, idx))
        sess.run(dense_fn(vd, *sd, *scalars, grad))
        got = sess.run([v, *s])
        want = sess.run([vd, *sd])
    for g, w, orig in zip(got, want, [var0, *slot0]):
        np.testing.assert_allclose(g[idx], w, rtol=1e-12, err_msg=op_name)
        untouched = np.setdiff1d(np.arange(rows), idx)
        np.testing.assert_array_equal(g[untouched], orig[untouched], err_msg=op_name)


def test_sparse_apply_momentum_adagrad_rmsprop_match_dense_kernels():
    _sparse_rows_against_dense(
        "SparseApplyMomentum",
        lambda v, a, lr, m, g, i: training_ops.sparse_apply_momentum(v, a, lr, g, i, m, use_nesterov=True),
        lambda v, a, lr, m, g: training_ops.apply_momentum(v, a, lr, g, m, use_nesterov=True),
        1,
        [0.1, 0.9],
    )
    _sparse_rows_against_dense(
        "SparseApplyAdagrad",
        lambda v, a, lr, g, i: training_ops.sparse_apply_adagrad(v, a, lr, g, i),
        lambda v, a, lr, g: training_ops.apply_adagrad(v, a, lr, g),
        1,
        [0.3],
    )
    _sparse_rows_against_dense(
        "SparseApplyRMSProp",
        lambda v, ms, mom, lr, rho, m, e, g, i: training_ops.sparse_apply_rms_prop(v, ms, mom, lr, rho, m, e, g, i),
        training_ops.apply_rms_prop,
        2,
        [0.1, 0.9, 0.5, 1e-3],
    )
    _sparse_rows_against_dense(
        "SparseApplyCenteredRMSProp",
        lambda v, mg, ms, mom, lr, rho, m, e, g, i: training_ops.sparse_apply_centered_rms_prop(
            v, mg, ms, mom, lr, rho, m, e, g, i
        ),
        training_ops.apply_centered_rms_prop,
        3,
        [0.1, 0.9, 0.5, 1.0],
    )


def test_sparse_apply_adagrad_numpy_and_bad_index():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.Variable([[1.0, 2.0], [3.0, 4.0]])
        a = tw.Variable([[1.0, 1.0], [1.0, 1.0]])
        sess.run(tw.global_variables_initializer())
        sess.run(training_ops.sparse_apply_adagrad(v, a, 0.5, [[1.0, 2.0]], [1]))
        np.testing.assert_allclose(sess.run(a), [[1, 1], [2, 5]])
        np.testing.assert_allclose(sess.run(v), [[1, 2], [3 - 0.5 / np.sqrt(2), 4 - 1.0 / np.sqrt(5)]], rtol=1e-6)
        bad = training_ops.sparse_apply_adagrad(v, a, 0.5, [[1.0, 2.0]], [2], name="bad_adagrad")
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"(?s)Index 2 .*out of range.*node bad_adagrad"):
            sess.run(bad)
        with pytest.raises(ValueError):
            training_ops.sparse_apply_momentum(v, a, 0.5, [[1.0, 2.0]], [[1]], 0.9)


def test_adam_sparse_is_tf1_non_lazy():
    """TF1's AdamOptimizer._apply_sparse: m and v decay on every row, and every row of var moves."""
    rng = np.random.default_rng(4)
    table0 = rng.standard_normal((5, 2))
    lr, b1, b2, eps = 0.1, 0.9, 0.999, 1e-8
    with tw.Graph().as_default(), tw.Session() as sess:
        table = tw.Variable(table0)
        ids = tw.placeholder(tw.int32, [None])
        loss = tw.reduce_sum(tw.gather(table, ids) * tw.constant([1.0, -2.0], tw.float64))
        step = tw.train.AdamOptimizer(lr, b1, b2, eps).minimize(loss)
        sess.run(tw.global_variables_initializer())
        var, m, v = table0.copy(), np.zeros_like(table0), np.zeros_like(table0)
        for t, batch in enumerate(([0, 2, 2], [1], [4, 0]), start=1):
            sess.run(step, {ids: batch})
            g = np.zeros_like(table0)
            np.add.at(g, batch, [1.0, -2.0])
            m = b1 * m + (1 - b1) * g
            v = b2 * v + (1 - b2) * g * g
            var = var - lr * np.sqrt(1 - b2**t) / (1 - b1**t) * m / (np.sqrt(v) + eps)
        # beta1_power and beta2_power are float32 variables (as TF), hence the tolerance.
        np.testing.assert_allclose(sess.run(table), var, rtol=1e-4, atol=1e-6)


def test_clip_by_global_norm_indexed_slices():
    with tw.Graph().as_default(), tw.Session() as sess:
        table = tw.Variable(np.ones((5, 2)))
        (g,) = tw.gradients(tw.reduce_sum(tw.gather(table, [1, 1, 3]) * 3.0), [table])
        (clipped,), norm = tw.clip_by_global_norm([g], 2.0)
        assert isinstance(clipped, tw.IndexedSlices)
        sess.run(table.initializer)
        value, n = sess.run([clipped, norm])
        assert n == pytest.approx(np.sqrt(6 * 9.0))
        np.testing.assert_allclose(value.values, np.full((3, 2), 3.0 * 2.0 / np.sqrt(54.0)))


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_embedding_lookup_sparse_partitioned_matches_numpy(combiner):
    rng = np.random.default_rng(5)
    indices = np.array([[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]])
    ids = np.array([1, 10, 4, 4, 0, 4])
    weights = np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0], np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.get_variable("emb", [11, 3], partitioner=tw.fixed_size_partitioner(3))
        sess.run(tw.global_variables_initializer())
        full = np.concatenate(_fill(sess, v, rng))
        sp_ids = tw.SparseTensor(indices, ids.astype(np.int64), [4, 3])
        sp_w = tw.SparseTensor(indices, weights, [4, 3])
        got = sess.run(tw.nn.embedding_lookup_sparse(v, sp_ids, sp_w, combiner=combiner, partition_strategy="div"))
    want = np.zeros((4, 3), np.float32)
    for row in range(4):
        sel = indices[:, 0] == row
        if not sel.any():
            continue
        total = (full[ids[sel]] * weights[sel, None]).sum(0)
        denom = {"sum": 1.0, "mean": weights[sel].sum(), "sqrtn": np.sqrt((weights[sel] ** 2).sum())}[combiner]
        want[row] = total / denom
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_bad_ids_are_invalid_argument_naming_the_node_and_index():
    with tw.Graph().as_default(), tw.Session() as sess:
        v = tw.get_variable("emb", [10, 2], partitioner=tw.fixed_size_partitioner(3))
        sess.run(tw.global_variables_initializer())
        table = tw.constant(np.ones((4, 2), np.float32))
        for params, ids, strategy in [(table, [0, 4], "mod"), (table, [-1], "mod"), (v, [10], "mod"),
                                      (v, [10], "div"), (v, [-3], "div"), (v, [12, 0], "div")]:  # fmt: skip
            with pytest.raises(tw.errors.InvalidArgumentError) as info:
                sess.run(tw.nn.embedding_lookup(params, ids, partition_strategy=strategy, name="lookup"))
            message = str(info.value)
            # As TF: the gather (or, for an id past a "div" table, the DynamicPartition) names the index and range.
            assert "node lookup" in message, message
            assert re.search(r"(indices|partitions)\[\d+\] = -?\d+ is not in \[0, \d+\)", message), message


def test_sampled_losses_train_partitioned_weights_sparsely():
    with tw.Graph().as_default(), tw.Session() as sess:
        tw.set_random_seed(7)
        w = tw.get_variable("w", [40, 4], partitioner=tw.fixed_size_partitioner(4))
        b = tw.get_variable("b", [40], initializer=tw.zeros_initializer())
        inputs = tw.constant(np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))
        labels = tw.constant(np.arange(8).reshape(8, 1) * 5, tw.int64)
        for fn in (tw.nn.sampled_softmax_loss, tw.nn.nce_loss):
            loss = tw.reduce_mean(fn(w, b, labels, inputs, 6, 40, partition_strategy="div"))
            grads = tw.gradients(loss, list(w))
            assert all(isinstance(g, tw.IndexedSlices) for g in grads)
        step = tw.train.AdagradOptimizer(0.5).minimize(loss)
        sess.run(tw.global_variables_initializer())
        # The loss draws new negatives each run: compare means over many draws, not one draw before and after.
        first = np.mean([sess.run(loss) for _ in range(50)])
        for _ in range(30):
            sess.run(step)
        assert np.mean([sess.run(loss) for _ in range(50)]) < first


def test_sampler_frequencies_match_expected_counts():
    """Without `unique`, each sampled class's expected count is num_sampled * P(class); the empirical frequency of
    the draws over many runs matches TF's distributions (log-uniform, uniform, distorted unigram)."""
    range_max, num_sampled, runs = 8, 16, 400
    log_p = (np.log(np.arange(2, range_max + 2)) - np.log(np.arange(1, range_max + 1))) / np.log(range_max + 1)
    unigrams = np.arange(1.0, range_max + 1)
    uni_p = unigrams**0.5 / (unigrams**0.5).sum()
    with tw.Graph().as_default(), tw.Session() as sess:
        true = tw.constant([[0]], tw.int64)
        samplers = {
            "log_uniform": (tw.nn.log_uniform_candidate_sampler(true, 1, num_sampled, False, range_max, seed=3), log_p),
            "uniform": (
                tw.nn.uniform_candidate_sampler(true, 1, num_sampled, False, range_max, seed=3),
                np.full(range_max, 1.0 / range_max),
            ),  # fmt: skip
            "unigram": (
                tw.nn.fixed_unigram_candidate_sampler(
                    true, 1, num_sampled, False, range_max, unigrams=list(unigrams), distortion=0.5, seed=3
                ),
                uni_p,
            ),
        }
        for name, ((sampled, true_count, sampled_count), p) in samplers.items():
            counts = np.zeros(range_max)
            for _ in range(runs):
                s, t, e = sess.run([sampled, true_count, sampled_count])
                np.add.at(counts, s, 1)
                np.testing.assert_allclose(e, num_sampled * p[s], rtol=1e-5, err_msg=name)
                np.testing.assert_allclose(t, [[num_sampled * p[0]]], rtol=1e-5, err_msg=name)
            freq = counts / counts.sum()
            # 6400 draws: a standard error of at most 0.0063 per class.
            np.testing.assert_allclose(freq, p, atol=0.03, err_msg=name)


def test_unique_sampler_expected_counts_follow_tries_formula():
    """With `unique`, TF's expected count is -expm1(tries * log1p(-p)) for the number of draws it took (p *
    num_sampled when no draw repeated): one integer `tries` must explain every count of a run."""
    p = lambda k: (np.log(k + 2.0) - np.log(k + 1.0)) / np.log(11.0)  # noqa: E731
    with tw.Graph().as_default(), tw.Session() as sess:
        sampled, true_count, sampled_count = tw.nn.log_uniform_candidate_sampler(
            tw.constant([[0, 5]], tw.int64), 2, 6, True, 10, seed=11
        )
        repeated = 0
        for _ in range(20):
            s, t, e = sess.run([sampled, true_count, sampled_count])
            assert len(set(s.tolist())) == 6
            probs = np.concatenate([p(s), p(np.array([0.0, 5.0]))])
            counts = np.concatenate([e, t.reshape(-1)])
            fits = [
                tries
                for tries in range(6, 500)
                if np.allclose(counts, probs * 6 if tries == 6 else -np.expm1(tries * np.log1p(-probs)), rtol=1e-5)
            ]
            assert len(fits) == 1, (s, e, t)
            repeated += fits[0] > 6
        assert repeated > 0  # some runs needed extra draws (P(class 0) is 0.29)


def test_example_trains_to_stated_accuracy():
    sys.path.insert(0, os.path.join(HERE, "..", "examples"))
    try:
        import embedding_sampled_softmax as example
    finally:
        sys.path.pop(0)
    result = example.main(steps=300, seed=0, verbose=False)
    assert result["accuracy_before"] < 0.05
    assert result["loss"] < result["loss_before"]
    assert result["accuracy"] > 0.6, result
