"""Dynamic control flow: tensorweave vs TensorFlow's compat.v1 (v1 control flow: Switch/Merge/Enter/Exit), in
one process.

  python benchmarks/while_loop.py

Cases: a while_loop of 1,000 iterations of a small body (a few scalar ops; issue 11's goal: at most 0.5x
TensorFlow's time); the same loop with a cond in its body; the gradient of a 100-iteration loop (forward loop
pushing its values on stacks, backward loop popping them).
"""

import os

from harness import report, time_call

ITERATIONS = 1000
GRAD_ITERATIONS = 100


def build(tf, v1):
    cases = {}
    g = tf.Graph()
    with g.as_default():
        i0, a0 = tf.constant(0), tf.constant(1.0)
        plain = v1.while_loop(lambda i, a: i < ITERATIONS, lambda i, a: (i + 1, a * 0.999 + 1.0), [i0, a0])

        def body(i, a):
            return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: a * 0.999, lambda: a + 1.0)

        with_cond = v1.while_loop(lambda i, a: i < ITERATIONS, body, [i0, a0])
        x = v1.placeholder(tf.float32, [])
        _, y = v1.while_loop(
            lambda i, a: i < GRAD_ITERATIONS, lambda i, a: (i + 1, tf.sin(a) * x + a), [i0, tf.constant(0.5)]
        )
        grad = v1.gradients(y, [x])[0]
    config = v1.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=1)
    sess = v1.Session(graph=g, config=config)
    cases[f"while_loop, {ITERATIONS} iterations"] = lambda: sess.run(plain)
    cases[f"while_loop + cond, {ITERATIONS} iterations"] = lambda: sess.run(with_cond)
    cases[f"gradient of a {GRAD_ITERATIONS}-iteration loop"] = lambda: sess.run(grad, {x: 0.9})
    return cases


def tensorweave_cases():
    import tensorweave as tw

    return build(tw, tw)


def tensorflow_cases():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        return {}
    tf.compat.v1.disable_control_flow_v2()
    return build(tf, tf.compat.v1)


def main():
    systems = {"tensorweave": tensorweave_cases(), "tf.compat.v1": tensorflow_cases()}
    rows = {}
    for system, cases in systems.items():
        for case, fn in cases.items():
            rows.setdefault(case, {})[system] = time_call(fn)
    report("Dynamic control flow (median time per Session.run)", rows, ["tf.compat.v1"])


if __name__ == "__main__":
    main()
