"""TF1 names that were missing, each against TensorFlow's compat.v1: loss scaling for mixed-precision training
(tf.train.experimental / tf.mixed_precision) and tf.test's create_local_cluster, benchmark_config, mock,
is_cpu_target_available."""

import numpy as np
import pytest
import tensorweave as tw


def _tf1():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf1.disable_v2_behavior()
    return tf1


X = np.random.RandomState(0).randn(8, 3).astype(np.float32)
Y = X @ np.array([[1.0], [-2.0], [0.5]], np.float32)
# Step 3 feeds a non-finite input: its gradients are not finite, so a dynamic loss scale skips it and halves.
SCALES = [1.0, 1.0, 1.0, np.inf, 1.0, 1.0, 1.0]


def _train(g, loss_scale, wrap):
    with g.Graph().as_default():
        x = g.placeholder(g.float32, [None, 3])
        scale = g.placeholder(g.float32, [])
        w = g.Variable(np.full([3, 1], 0.1, np.float32))
        loss = g.reduce_mean(g.square(g.matmul(x * scale, w) - Y))
        step = g.train.get_or_create_global_step()
        base = g.train.MomentumOptimizer(0.05, 0.9)
        loss_scale = loss_scale(g) if callable(loss_scale) else loss_scale
        # TF's enable_mixed_precision_graph_rewrite also sets a process-wide optimizer option that other tests
        # compare; it returns the wrapper of the else branch, which stands in for it on TF's side.
        if wrap == "rewrite" and g is tw:
            opt = g.train.experimental.enable_mixed_precision_graph_rewrite(base, loss_scale)
            g.train.experimental.disable_mixed_precision_graph_rewrite()
        else:
            opt = g.train.experimental.MixedPrecisionLossScaleOptimizer(base, loss_scale)
        train = opt.minimize(loss, global_step=step)
        current = [v for v in g.global_variables() if "current_loss_scale" in v.name]  # a dynamic scale's state
        out = []
        with g.Session() as sess:
            sess.run(g.global_variables_initializer())
            for s in SCALES:
                sess.run(train, {x: X, scale: s})
                out.append(sess.run([w, step, current[0] if current else g.constant(0.0)]))
        return out


@pytest.mark.parametrize(
    "loss_scale",
    ["dynamic", 64.0, "dynamic_small"],
)
@pytest.mark.parametrize("wrap", ["optimizer", "rewrite"])
def test_loss_scale_optimizer_steps_as_tensorflows(loss_scale, wrap):
    """The weights, the global step and the loss scale after each step are TF's: a fixed scale trains as the wrapped
    optimizer; a dynamic one skips the step with non-finite gradients (weights and global step unchanged), halves,
    and doubles after `increment_period` finite steps."""
    tf1 = _tf1()
    results = []
    for g in (tw, tf1):
        ls = loss_scale
        if loss_scale == "dynamic_small":  # made in the training graph, where its variables go

            def ls(g):
                return g.train.experimental.DynamicLossScale(initial_loss_scale=8.0, increment_period=2, multiplier=4.0)

        results.append(_train(g, ls, wrap))
    for (w, step, scale), (tf_w, tf_step, tf_scale) in zip(*results):
        np.testing.assert_allclose(w, tf_w, rtol=1e-5, atol=1e-6)
        assert step == tf_step
        assert scale == tf_scale
    if loss_scale != 64.0:
        assert results[0][3][1] == results[0][2][1]  # the non-finite step applied nothing


def test_loss_scale_arguments_are_checked_as_tensorflow_does():
    tf1 = _tf1()
    for g in (tw, tf1):
        exp = g.train.experimental
        with pytest.raises(ValueError, match="must be at least 1"):
            exp.FixedLossScale(0.5)
        with pytest.raises(ValueError, match="Could not interpret loss scale identifier"):
            exp.MixedPrecisionLossScaleOptimizer(g.train.GradientDescentOptimizer(0.1), "not a scale")
        if g is tw:  # TF's raises the same before it sets its process-wide option; not called here, to leave it
            with pytest.raises(ValueError, match="must not already be"):
                exp.enable_mixed_precision_graph_rewrite(
                    exp.MixedPrecisionLossScaleOptimizer(g.train.GradientDescentOptimizer(0.1), 2.0)
                )
    assert tw.mixed_precision.experimental.DynamicLossScale is tw.train.experimental.DynamicLossScale
    assert tw.compat.v1.mixed_precision.enable_mixed_precision_graph_rewrite is not None


def test_create_local_cluster_runs_a_step_across_its_tasks():
    """tf.test.create_local_cluster(2, 1): started in-process servers; a session on the first worker runs a graph
    with a variable on the ps and ops on both workers."""
    workers, ps = tw.test.create_local_cluster(num_workers=2, num_ps=1)
    assert len(workers) == 2 and len(ps) == 1
    assert all(s.target.startswith("grpc://127.0.0.1:") for s in workers + ps)
    with tw.Graph().as_default():
        with tw.device("/job:ps/task:0"):
            v = tw.Variable([1.0, 2.0])
        with tw.device("/job:worker/task:1"):
            y = tw.reduce_sum(v * 3.0)
        with tw.Session(workers[0].target) as sess:
            sess.run(tw.global_variables_initializer())
            assert sess.run(y) == 9.0
    with pytest.raises(ValueError):
        tw.test.create_local_cluster(0, 1)


def test_tf_test_helpers():
    tf1 = _tf1()
    import platform
    import unittest.mock

    assert tw.test.mock is unittest.mock
    config = tw.test.benchmark_config()
    assert config.graph_options.rewrite_options.dependency_optimization == 2  # OFF, as TF's
    assert tf1.test.benchmark_config().graph_options.rewrite_options.dependency_optimization == 2
    host = "x86" if platform.machine() in ("x86_64", "AMD64") else "aarch64"
    assert tw.test.is_cpu_target_available(host) == tf1.test.is_cpu_target_available(host) is True
    assert tw.test.test_src_dir_path("core/framework").endswith("core/framework")
