"""Graph optimization against TF1: the ConfigProto switches (GraphOptions.optimizer_options and
rewrite_options, TF's RewriterConfig from `<framework>.core.protobuf.rewriter_config_pb2`) and what a program
observes with the passes on and off: the same values, random ops drawn anew each run, control dependencies
through removed Identity nodes honoured, fed intermediates overriding folded or fused computations, errors
of constant subgraphs raised when run. The optimized graphs themselves differ (TF's Grappler names and
rewrites differ), so no case looks at them."""

import importlib

import numpy as np

from tests.fidelity.harness import case


def _rewriter(tf):
    return importlib.import_module(tf.__name__.split(".")[0] + ".core.protobuf.rewriter_config_pb2").RewriterConfig


def _configs(tf):
    rw = _rewriter(tf)
    l0 = tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0)
    return [
        tf.ConfigProto(),
        tf.ConfigProto(graph_options=tf.GraphOptions(optimizer_options=l0)),
        tf.ConfigProto(
            graph_options=tf.GraphOptions(
                optimizer_options=l0,
                rewrite_options=rw(
                    constant_folding=rw.OFF,
                    arithmetic_optimization=rw.OFF,
                    remapping=rw.OFF,
                    dependency_optimization=rw.OFF,
                    disable_model_pruning=True,
                ),
            )
        ),
        tf.ConfigProto(graph_options=tf.GraphOptions(rewrite_options=rw(disable_meta_optimizer=True))),
    ]


@case
def graph_optimizer_option_fields(tf, sess):
    rw = _rewriter(tf)
    config = tf.ConfigProto(
        graph_options=tf.GraphOptions(
            optimizer_options=tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0, do_constant_folding=True),
            rewrite_options=rw(constant_folding=rw.OFF, remapping="AGGRESSIVE"),
        )
    )
    g = config.graph_options
    default = tf.GraphOptions()
    return [
        tf.OptimizerOptions.L0,
        tf.OptimizerOptions.L1,
        g.optimizer_options.opt_level,
        g.optimizer_options.do_constant_folding,
        g.optimizer_options.do_common_subexpression_elimination,
        g.rewrite_options.constant_folding,
        g.rewrite_options.remapping,
        g.rewrite_options.arithmetic_optimization,
        g.rewrite_options.disable_model_pruning,
        [rw.DEFAULT, rw.ON, rw.OFF, rw.AGGRESSIVE],
        rw.Toggle.Name(rw.OFF),
        default.optimizer_options.opt_level,
        default.rewrite_options.constant_folding,
    ]


@case
def graph_optimizer_unknown_rewriter_field(tf, sess):
    return _rewriter(tf)(constant_foldin=2)


@case(tol=1e-5)
def graph_optimizer_same_values_under_every_config(tf, sess):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    c = tf.exp(tf.constant([1.0, 2.0, 3.0]) * 0.5)
    w = tf.constant(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4))
    h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x * 1.0 + c, w), [0.5, -0.5, 0.25, 0.0]))
    t = tf.transpose(tf.transpose(h, [1, 0]), [1, 0])
    r = tf.reshape(tf.reshape(t, [-1]), [-1, 4])
    y = tf.reduce_sum(tf.tanh(r) + tf.tanh(r), axis=1)
    xv = np.array([[1, -2, 0.5], [3, 0, -1]], np.float32)
    out = []
    for config in _configs(tf):
        with tf.Session(config=config) as s:
            out.append(s.run([y, h], {x: xv}))
    return out


@case
def graph_optimizer_random_and_stateful_ops_run_each_step(tf, sess):
    r = tf.random_uniform([4], seed=3) * 1.0
    v = tf.Variable(0.0)
    inc = tf.assign_add(v, tf.constant(1.0) + tf.constant(1.0))
    out = []
    for config in _configs(tf)[:2]:
        with tf.Session(config=config) as s:
            s.run(v.initializer)
            a, b = s.run(r), s.run(r)
            s.run(inc)
            out.append([bool(np.array_equal(a, b)), s.run(inc)])
    return out


@case
def graph_optimizer_identity_control_dependency_runs(tf, sess):
    v = tf.Variable(0)
    x = tf.placeholder(tf.float32, [])
    bump = tf.assign_add(v, 1)
    with tf.control_dependencies([bump]):
        y = tf.identity(x)
    z = tf.identity(tf.identity(y) * 2.0)
    out = []
    for config in _configs(tf):
        with tf.Session(config=config) as s:
            s.run(v.initializer)
            out.append([s.run(z, {x: 3.0}), s.run(z, {x: 4.0}), s.run(v)])
    return out


@case
def graph_optimizer_fed_intermediates_override(tf, sess):
    x = tf.placeholder(tf.float32, [2, 3])
    c = tf.constant([1.0, 2.0]) * 3.0
    mm = tf.matmul(x, tf.ones([3, 2]))
    out_t = tf.nn.relu(tf.nn.bias_add(mm, c))
    xv = np.array([[1, -2, 0.5], [3, 0, -9]], np.float32)
    fed = np.full([2, 2], -4.0, np.float32)
    out = []
    for config in _configs(tf)[:2]:
        with tf.Session(config=config) as s:
            out.append(
                [
                    s.run(out_t, {x: xv}),
                    s.run(out_t, {mm: fed}),
                    s.run(out_t, {x: xv, c: np.array([10.0, -10.0], np.float32)}),
                    s.run([mm, out_t], {x: xv}),
                ]
            )
    return out


@case
def graph_optimizer_constant_subgraph_error_raised_when_run(tf, sess):
    bad = tf.check_numerics(tf.constant(np.nan, tf.float32) * 2.0, "nan here")
    with tf.Session(config=_configs(tf)[0]) as s:
        return s.run(bad)


@case
def graph_optimizer_broadcasting_mul_by_one_keeps_shape(tf, sess):
    s_ = tf.placeholder(tf.float32, [1])
    b = s_ * tf.ones([3])
    y = tf.placeholder(tf.float32, [None, 1]) + tf.zeros([1, 4])
    with tf.Session(config=_configs(tf)[0]) as s:
        return [s.run(b, {s_: [2.0]}), s.run(y, {"Placeholder_1:0": [[1.0], [2.0]]}).shape, b.shape]
