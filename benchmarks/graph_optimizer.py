"""Graph optimization on vs off, in one run: the LeNet-5 training step of
benchmarks/train_step.py (batch 64), the MLP 784-512-512-10 training step,
and two inference graphs (an MLP 784-512-512-10 at batch 128 and the LeNet-5
forward pass at batch 64), each in a session with the default ConfigProto
(all passes on) and one with every pass off
(RewriterConfig(disable_meta_optimizer=True) and OptimizerOptions(L0)).
Also prints what the passes did to each graph (node counts of the step's
partition graph, the fused ops). Reports off/on (the gain).

  python benchmarks/graph_optimizer.py [--threads 2] [--rounds 15]
"""

import argparse
import collections

import numpy as np
from harness import report, time_interleaved


def build(tw, kind, batch):
    """(graph, fetch or target, [placeholders]) of one benchmark graph."""
    g = tw.Graph()
    with g.as_default():
        tw.set_random_seed(0)
        cnn = "LeNet" in kind
        x = tw.placeholder(tw.float32, [batch, 28, 28, 1] if cnn else [batch, 784])
        labels = tw.placeholder(tw.int64, [batch])
        if cnn:
            h = tw.layers.conv2d(x, 6, 5, activation=tw.nn.relu)
            h = tw.layers.max_pooling2d(h, 2, 2)
            h = tw.layers.conv2d(h, 16, 5, activation=tw.nn.relu)
            h = tw.layers.max_pooling2d(h, 2, 2)
            h = tw.layers.flatten(h)
            h = tw.layers.dense(h, 120, activation=tw.nn.relu)
            h = tw.layers.dense(h, 84, activation=tw.nn.relu)
        else:
            h = tw.layers.dense(x, 512, activation=tw.nn.relu)
            h = tw.layers.dense(h, 512, activation=tw.nn.relu)
        logits = tw.layers.dense(h, 10)
        if "training" in kind:
            loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
            return g, tw.train.GradientDescentOptimizer(0.01).minimize(loss), [x, labels], tw
        return g, tw.nn.softmax(logits), [x], tw


def sessions(tw, threads, kind, batch, rng):
    g, fetch, inputs, _ = build(tw, kind, batch)
    with g.as_default():
        init = tw.global_variables_initializer()
    base = dict(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    from tensorweave.core.protobuf import rewriter_config_pb2

    off_options = tw.GraphOptions(
        optimizer_options=tw.OptimizerOptions(opt_level=tw.OptimizerOptions.L0),
        rewrite_options=rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True),
    )
    values = [rng.standard_normal(p.shape.as_list()).astype(np.float32) for p in inputs[:1]]
    if len(inputs) > 1:
        values.append(rng.integers(0, 10, size=batch).astype(np.int64))
    steps, shapes = {}, {}
    for name, config in (
        ("optimized", tw.ConfigProto(**base)),
        ("not optimized", tw.ConfigProto(graph_options=off_options, **base)),
    ):
        sess = tw.Session(graph=g, config=config)
        sess.run(init)
        step = sess.make_callable(fetch, inputs)
        steps[name] = lambda step=step: step(*values)
        metadata = tw.RunMetadata()
        sess.run(
            fetch, dict(zip(inputs, values)), options=tw.RunOptions(output_partition_graphs=True), run_metadata=metadata
        )
        ops = collections.Counter(n.op for n in metadata.partition_graphs[0].node)
        shapes[name] = (sum(ops.values()), ops.get("_FusedMatMul", 0) + ops.get("_FusedConv2D", 0), ops.get("Const", 0))
    return steps, shapes


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    import tensorweave as tw

    rng = np.random.default_rng(0)
    rows = {}
    for kind, batch in (
        ("LeNet-5 training step", 64),
        ("MLP 784-512-512-10 training step", 128),
        ("LeNet-5 inference", 64),
        ("MLP 784-512-512-10 inference", 128),
    ):
        steps, shapes = sessions(tw, args.threads, kind, batch, rng)
        for name, (nodes, fused, consts) in shapes.items():
            print(f"{kind}, {name}: {nodes} nodes ({fused} fused, {consts} Const)")
        rows[kind] = time_interleaved(steps, rounds=args.rounds)
    report(
        f"Graph optimization on vs off, {args.threads} threads (median of interleaved rounds)", rows, ["not optimized"]
    )
    for kind, timings in rows.items():
        print(f"{kind}: not optimized / optimized = {timings['not optimized'] / timings['optimized']:.3f}")


if __name__ == "__main__":
    main()
