"""Regression tests for the differences the s24 sweep of TF1 programs (tests/tf1_programs/p197..) found, each
checked against TensorFlow's compat.v1 behaviour (the expected names and messages are TensorFlow 2.21's; values
are checked against numpy / scipy-free closed forms)."""

import math

import numpy as np
import pytest
import tensorweave as tw

tfd = tw.distributions


def _normal_cdf(x, loc, scale):
    return 0.5 * math.erfc(-(x - loc) / (scale * math.sqrt(2.0)))


def test_distribution_kl_cross_entropy_survival_quantile_methods():
    """Distribution.kl_divergence / cross_entropy / survival_function / log_survival_function / quantile /
    is_scalar_batch / is_scalar_event, Categorical.event_size and Exponential.concentration (p197: the methods were
    missing, AttributeError)."""
    with tw.Graph().as_default():
        p, q = tfd.Normal(0.0, 1.0), tfd.Normal([0.5, -1.0], [2.0, 0.3])
        c1, c2 = tfd.Categorical(logits=[1.0, 2.0, 0.5]), tfd.Categorical(probs=[0.2, 0.2, 0.6])
        fetch = {
            "kl": p.kl_divergence(q),
            "ce": p.cross_entropy(q),
            "ce_cat": c1.cross_entropy(c2),
            "sf": q.survival_function(0.5),
            "lsf": q.log_survival_function(0.5),
            "quantile": q.quantile([0.1, 0.975]),
            "scalar": [p.is_scalar_batch(), q.is_scalar_batch(), q.is_scalar_event()],
            "event_size": c1.event_size,
            "concentration": tfd.Exponential([0.5, 2.0]).concentration,
        }
        with tw.Session() as sess:
            r = sess.run(fetch)
    loc, scale = np.array([0.5, -1.0]), np.array([2.0, 0.3])
    kl = np.log(scale) + (1.0 + loc**2) / (2 * scale**2) - 0.5
    np.testing.assert_allclose(r["kl"], kl, rtol=1e-5)
    np.testing.assert_allclose(r["ce"], 0.5 * np.log(2 * np.pi * np.e) + kl, rtol=1e-5)
    pa = np.exp([1.0, 2.0, 0.5]) / np.exp([1.0, 2.0, 0.5]).sum()
    np.testing.assert_allclose(r["ce_cat"], -(pa * np.log([0.2, 0.2, 0.6])).sum(), rtol=1e-5)
    sf = np.array([1.0 - _normal_cdf(0.5, m, s) for m, s in zip(loc, scale)])
    np.testing.assert_allclose(r["sf"], sf, rtol=1e-5)
    np.testing.assert_allclose(r["lsf"], np.log(sf), rtol=1e-5)
    for i, pr in enumerate([0.1, 0.975]):
        np.testing.assert_allclose(_normal_cdf(r["quantile"][i], loc[i], scale[i]), pr, rtol=1e-5)
    assert [bool(x) for x in r["scalar"]] == [True, False, True]
    assert r["event_size"] == 3 and r["concentration"] == 1.0
    with tw.Graph().as_default(), pytest.raises(NotImplementedError, match="quantile is not implemented: Gamma"):
        tfd.Gamma(1.0, 1.0).quantile(0.5)


@pytest.mark.parametrize(
    "build",
    [
        lambda: tfd.Normal(0.0, -1.0, validate_args=True).sample(),
        lambda: tfd.Laplace(0.0, 0.0, validate_args=True).mean(),
        lambda: tfd.Bernoulli(probs=1.5, validate_args=True).mean(),
        lambda: tfd.Categorical(probs=[0.5, 0.6], validate_args=True).entropy(),
        lambda: tfd.Uniform(2.0, 1.0, validate_args=True).mean(),
        lambda: tfd.Gamma(1.0, 0.0, validate_args=True).mean(),
        lambda: tfd.Exponential(-1.0, validate_args=True).mean(),
    ],
    ids=["normal_scale", "laplace_scale", "bernoulli_probs", "categorical_sum", "uniform_order", "gamma", "exp"],
)
def test_validate_args_checks_parameters(build):
    """validate_args=True checks the parameters when run, as TF's: positive scales and rates, probabilities in
    [0, 1] summing to 1, low < high (p197: Normal, Bernoulli and others accepted bad ones silently). Constant
    parameters fail when the graph is built, as TF's static checks do; others when run."""
    with tw.Graph().as_default(), tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError):
        sess.run(build())


def test_validate_args_accepts_good_parameters():
    with tw.Graph().as_default():
        ts = [
            tfd.Normal(0.0, 1.0, validate_args=True).mean(),
            tfd.Bernoulli(probs=0.25, validate_args=True).mean(),
            tfd.Categorical(probs=[0.25, 0.75], validate_args=True).entropy(),
            tfd.Uniform(1.0, 2.0, validate_args=True).mean(),
        ]
        with tw.Session() as sess:
            r = sess.run(ts)
    np.testing.assert_allclose(r[:2] + r[3:], [0.0, 0.25, 1.5])
    np.testing.assert_allclose(r[2], -(0.25 * np.log(0.25) + 0.75 * np.log(0.75)), rtol=1e-5)


@pytest.mark.parametrize("max_to_keep", [None, 0])
def test_saver_without_max_to_keep_records_no_checkpoints(tmp_path, max_to_keep):
    """Saver(max_to_keep=None or 0) deletes nothing and, as TF's, records nothing: last_checkpoints stays empty and
    the state file lists only the latest (p207: every checkpoint was recorded)."""
    with tw.Graph().as_default():
        v = tw.Variable(1.0, name="v")
        saver = tw.train.Saver(max_to_keep=max_to_keep)
        with tw.Session() as sess:
            sess.run(v.initializer)
            for step in range(3):
                saver.save(sess, str(tmp_path / "model"), global_step=step)
    assert saver.last_checkpoints == []
    state = tw.train.get_checkpoint_state(str(tmp_path))
    assert [p.rsplit("/", 1)[-1] for p in state.all_model_checkpoint_paths] == ["model-2"]
    assert all(tw.train.checkpoint_exists(str(tmp_path / f"model-{s}")) for s in range(3))


def test_piecewise_constant_takes_tensors_and_checks_dtypes_as_tf():
    """piecewise_constant takes scalar Tensors as boundaries and values; int32 boundaries are promoted for an
    int64 x; any other dtype mismatch is TF's ValueError (p205: Tensors were refused with a TypeError, float
    boundaries for an integer step and mixed value dtypes were accepted)."""
    with tw.Graph().as_default():
        step = tw.placeholder(tw.int64, [])
        lr = tw.train.piecewise_constant(step, [tw.constant(2, tw.int64), 5], [1.0, tw.constant(0.5), 0.1])
        with tw.Session() as sess:
            got = [float(sess.run(lr, {step: s})) for s in (0, 2, 3, 5, 6)]
        np.testing.assert_allclose(got, [1.0, 1.0, 0.5, 0.5, 0.1])
        with pytest.raises(ValueError, match=r"^Boundaries \(<dtype: 'float32'>\) must have the same dtype as x"):
            tw.train.piecewise_constant(step, [2.0], [1.0, 0.5])
        with pytest.raises(ValueError, match=r"^Boundaries \(<dtype: 'int32'>\) must have the same dtype as x"):
            tw.train.piecewise_constant(tw.constant(1.0), [2], [1.0, 0.5])
        with pytest.raises(ValueError, match=r"^Values must have elements all with the same dtype"):
            tw.train.piecewise_constant(step, [2], [1, 0.5])


def test_dynamic_rnn_steps_take_one_loop_bodys_graph_seed_offsets():
    """With a graph seed and no op seeds, a DropoutWrapper inside dynamic_rnn takes graph-seed offsets once per
    random op, as TF's while_loop body does, not once per unrolled step: the ops after the RNN get the seeds they
    would get in TF, and the steps' masks still differ (p208: the dense layer after a bidirectional RNN had other
    initial values than TF's)."""

    def kernel_after_rnn(steps):
        with tw.Graph().as_default() as g:
            tw.set_random_seed(5)
            keep = tw.placeholder_with_default(0.5, [])
            cell = tw.nn.rnn_cell.DropoutWrapper(tw.nn.rnn_cell.BasicRNNCell(3), input_keep_prob=keep)
            outputs, _ = tw.nn.dynamic_rnn(cell, tw.ones([2, steps, 3]), dtype=tw.float32)
            dense = tw.layers.Dense(2, name="after")
            dense(outputs)
            seeds = [op.get_attr("seed2") for op in g.get_operations() if op.type == "RandomUniform"]
            with tw.Session() as sess:
                sess.run(tw.global_variables_initializer())
                return sess.run(dense.kernel), seeds

    one, _ = kernel_after_rnn(1)
    five, seeds = kernel_after_rnn(5)
    np.testing.assert_array_equal(one, five)
    # the cell's and the dense layer's kernel initializers and the 5 steps' masks, all with seeds of their own, of
    # which only the kernels' and the first step's come from the graph's count (0, 1, 2), as in TF
    assert len(seeds) == 7 and len(set(seeds)) == 7
    assert sorted(seeds)[:3] == [0, 1, 2] and min(sorted(seeds)[3:]) >= 2**30


def test_py_function_body_runs_eagerly():
    """tf.py_function's body gets tensors with .numpy() (a scalar for a 0-d one: bytes for a string) and the tw ops
    it applies to them give values, as TF's eager body (p211: a tw op inside returned a graph Tensor, an
    InternalError when run); in a Dataset.map too."""
    with tw.Graph().as_default():
        y = tw.py_function(lambda a, b: a * 2 + tw.reduce_sum(b), [tw.constant([1.0, 2.0]), tw.constant([3.0])],
                           tw.float32)  # fmt: skip
        upper = tw.py_function(lambda s: s.numpy().decode().upper(), [tw.constant("abc")], tw.string)
        pair = tw.py_function(lambda x: [tw.shape(x), x.numpy().sum()], [tw.ones([2, 3])], [tw.int32, tw.float32])
        words = tw.data.Dataset.from_tensor_slices(["a b", "c d e"]).map(
            lambda t: tw.py_function(lambda s: len(s.numpy().split()), [t], tw.int64)
        )
        n = words.make_one_shot_iterator().get_next()
        with tw.Session() as sess:
            assert sess.run(y).tolist() == [5.0, 7.0]
            assert sess.run(upper) == b"ABC"
            shape, total = sess.run(pair)
            assert shape.tolist() == [2, 3] and total == 6.0
            assert [sess.run(n), sess.run(n)] == [2, 3]


def test_clip_by_norm_and_value_keep_indexed_slices():
    """clip_by_norm and clip_by_value of an IndexedSlices (an embedding's gradient) clip its values and return an
    IndexedSlices, as TF's (p215: clip_by_norm densified it, so .indices was missing)."""
    with tw.Graph().as_default():
        emb = tw.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
        grad = tw.gradients(tw.reduce_sum(tw.nn.embedding_lookup(emb, [3, 1, 3]) * 4.0), emb)[0]
        by_norm = tw.clip_by_norm(grad, 1.0, axes=[1])
        by_value = tw.clip_by_value(grad, -1.0, 2.0)
        assert isinstance(by_norm, tw.IndexedSlices) and isinstance(by_value, tw.IndexedSlices)
        with tw.Session() as sess:
            sess.run(emb.initializer)
            idx, values, clipped = sess.run([by_norm.indices, by_norm.values, by_value.values])
    assert idx.tolist() == [3, 1, 3]
    np.testing.assert_allclose(values, np.full([3, 3], 1.0 / np.sqrt(3.0)), rtol=1e-6)
    np.testing.assert_array_equal(clipped, np.full([3, 3], 2.0))


def test_random_crop_draws_offsets_as_tf():
    """random_crop's offsets are an int32 draw in [0, 2**31 - 1) modulo the room left, as TF's: with a seed the
    crop is the one TF picks, i.e. the slice at random_uniform(int32, maxval=int32.max, same seed) % limit (p216:
    a floored float draw picked other crops)."""
    image = np.arange(6 * 5 * 3, dtype=np.float32).reshape(6, 5, 3)
    with tw.Graph().as_default():
        tw.set_random_seed(3)
        crop = tw.random_crop(image, [4, 3, 3], seed=7)
        with tw.Session() as sess:
            got = sess.run(crop)
    with tw.Graph().as_default():
        tw.set_random_seed(3)
        draw = tw.random_uniform([3], maxval=tw.int32.max, dtype=tw.int32, seed=7)
        with tw.Session() as sess:
            offset = sess.run(draw) % np.array([3, 3, 1])
    np.testing.assert_array_equal(got, image[offset[0] : offset[0] + 4, offset[1] : offset[1] + 3])
    # TF 2.21 with tf.set_random_seed(3) and seed=7 crops at (1, 0, 0) here (its first element is 15.0)
    assert offset.tolist() == [1, 0, 0] and got[0, 0, 0] == 15.0


def test_batch_renormalization_matches_its_definition():
    """tf.layers.batch_normalization(renorm=True) as TF's: batch moments corrected by r = stddev / renorm_stddev
    (clipped to rmax) and d = (mean - renorm_mean) / renorm_stddev, the renorm averages updated each training step
    with renorm_momentum, and UPDATE_OPS updating moving_mean and moving_stddev (moving_variance its square less
    epsilon); invalid clipping keys are TF's ValueError (p224: renorm raised NotImplementedError)."""
    x_np = np.array([[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0], [2.5, 1.0]], np.float32)
    eps, clip = 1e-3, 1.2
    with tw.Graph().as_default():
        y = tw.layers.batch_normalization(
            tw.constant(x_np), training=True, renorm=True, momentum=0.5, renorm_momentum=0.5,
            renorm_clipping={"rmax": clip}, epsilon=eps, name="bn",
        )  # fmt: skip
        updates = tw.get_collection(tw.GraphKeys.UPDATE_OPS)
        names = sorted(v.op.name for v in tw.global_variables())
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            steps = [sess.run([y] + updates)[0] for _ in range(2)]
            final = {v.op.name: sess.run(v) for v in tw.global_variables()}
        with pytest.raises(ValueError, match="Received invalid keys for `renorm_clipping` argument"):
            tw.layers.batch_normalization(tw.constant(x_np), renorm=True, renorm_clipping={"r_max": 2.0})
    assert names == [f"bn/{n}" for n in ("beta", "gamma", "moving_mean", "moving_stddev", "moving_variance",
                                         "renorm_mean", "renorm_stddev")]  # fmt: skip
    mean, var = x_np.mean(0), x_np.var(0)
    stddev = np.sqrt(var + eps)
    renorm_mean, renorm_stddev = np.zeros(2), np.ones(2)
    moving_mean, moving_stddev = np.zeros(2), np.ones(2)
    for got in steps:
        floor = np.maximum(renorm_stddev, np.sqrt(eps))
        r = np.minimum(stddev / floor, clip)
        d = (mean - renorm_mean) / floor
        np.testing.assert_allclose(got, (x_np - mean) / stddev * r + d, rtol=1e-5, atol=1e-6)
        renorm_mean, renorm_stddev = (
            renorm_mean - (renorm_mean - mean) * 0.5,
            renorm_stddev - (renorm_stddev - stddev) * 0.5,
        )
        moving_mean, moving_stddev = (
            moving_mean - (moving_mean - mean) * 0.5,
            moving_stddev - (moving_stddev - stddev) * 0.5,
        )
    for name, want in (("renorm_mean", renorm_mean), ("renorm_stddev", renorm_stddev), ("moving_mean", moving_mean),
                       ("moving_stddev", moving_stddev), ("moving_variance", moving_stddev**2 - eps)):  # fmt: skip
        np.testing.assert_allclose(final[f"bn/{name}"], want, rtol=1e-5, err_msg=name)
