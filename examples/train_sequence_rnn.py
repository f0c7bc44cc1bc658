"""A recurrent model trained with a while_loop, then run on the lite runtime and onnxruntime.

Each handwritten digit that ships with scikit-learn (8x8) is read as a sequence of its rows: 8 steps of 8
features. The model is TF1's: `tw.nn.dynamic_rnn` over an LSTMCell, whose steps run in a `while_loop` over a
run-time number of steps with TensorArrays (and whose gradients go back through the loop, BPTT), then a dense
layer on the last output. After training it is frozen and converted: the loop becomes the lite runtime's LSTM
operator (converters/tf_rnn_loops.py) and ONNX's, which must reproduce the core's test accuracy. The converted
model takes any sequence length, as the loop did: the columns of the images (a sequence the model never saw)
are run through the core and the lite runtime too, and must agree.

  python examples/train_sequence_rnn.py [--steps 400] [--out DIR]

With the defaults it trains in about a second (2 cores) to a test accuracy of 0.98.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

import tensorweave as tw

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
BATCH, HIDDEN = 64, 48


def load_sequences():
    """((x_train, y_train), (x_test, y_test)): digits as [batch, 8 steps, 8 features] in [0, 1]."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x, y = (digits.images / 16.0).astype(np.float32), digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def build(graph):
    with graph.as_default():
        tw.set_random_seed(7)
        rows = tw.placeholder(tw.float32, [None, None, 8], name="rows")
        labels = tw.placeholder(tw.int64, [None], name="labels")
        outputs, _ = tw.nn.dynamic_rnn(tw.nn.rnn_cell.LSTMCell(HIDDEN), rows, dtype=tw.float32)
        logits = tw.layers.dense(outputs[:, -1], 10)
        probabilities = tw.nn.softmax(logits, name="probabilities")
        loss = tw.losses.sparse_softmax_cross_entropy(labels, logits)
        accuracy = tw.reduce_mean(tw.cast(tw.equal(tw.argmax(logits, 1), labels), tw.float32))
        train_op = tw.train.AdamOptimizer(0.01).minimize(loss)
        init = tw.global_variables_initializer()
    return rows, labels, probabilities, loss, accuracy, train_op, init


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--out", default=None, help="where the converted models go (default: a temporary dir)")
    args = parser.parse_args(argv)
    (x_train, y_train), (x_test, y_test) = load_sequences()
    graph = tw.Graph()
    rows, labels, probabilities, loss, accuracy, train_op, init = build(graph)
    rng = np.random.default_rng(1)
    with tw.Session(graph=graph) as sess:
        sess.run(init)
        start = time.time()
        print(f"training an LSTM({HIDDEN}) over the digits' rows (dynamic_rnn: a while_loop), {args.steps} steps")
        for step in range(args.steps + 1):
            batch = rng.integers(0, len(x_train), BATCH)
            value, _ = sess.run([loss, train_op], {rows: x_train[batch], labels: y_train[batch]})
            if step % 100 == 0:
                print(f"  step {step:4d}  loss {value:.4f}")
        test_accuracy = sess.run(accuracy, {rows: x_test, labels: y_test})
        print(f"trained in {time.time() - start:.1f} s; test accuracy {test_accuracy:.4f}")
        columns = np.ascontiguousarray(x_test[:16].transpose(0, 2, 1)[:, :5])  # 5 steps: a length never trained on
        core_columns = sess.run(probabilities, {rows: columns})
        from converters import freeze

        frozen = freeze.freeze_session(sess, ["rows"], ["probabilities"])
    return convert_and_check(frozen, x_test, y_test, test_accuracy, columns, core_columns, args.out)


def convert_and_check(frozen, x_test, y_test, accuracy, columns, core_columns, out_dir):
    """Writes .twl and .onnx; each must reproduce the core's test accuracy and its outputs on 5-step inputs."""
    from converters import lite_runner, onnx_export, tf_to_twl

    out_dir = out_dir or tempfile.mkdtemp(prefix="twl_rnn_")
    loops = [n.op for n in frozen.node if n.op in ("Enter", "_TwlRnn")]
    print(f"frozen: {len(frozen.node)} nodes; the while loop became {loops}")
    twl = os.path.join(out_dir, "digits_rnn.twl")
    with open(twl, "wb") as f:
        f.write(tf_to_twl.convert(frozen, ["rows"], ["probabilities"]))
    print(f"converted: {twl} ({os.path.getsize(twl):,} bytes)")
    onnx_model = onnx_export.export(frozen, ["rows"], ["probabilities"])
    runs = {}
    if lite_runner.available():
        runner = lite_runner.LiteRunner(twl)
        runs["tensorweave-lite (.twl)"] = lambda x: runner.run([x])["probabilities"]
    else:
        print("the lite library is not built (bazel build //lite/c:libtensorweave_lite.so): skipping it")
    try:
        import onnxruntime
    except ImportError:
        print("onnxruntime is not installed: skipping it")
    else:
        session = onnxruntime.InferenceSession(onnx_model.SerializeToString(), providers=["CPUExecutionProvider"])
        runs["onnxruntime (.onnx)"] = lambda x: session.run(None, {session.get_inputs()[0].name: x})[0]
    core_correct = int(round(accuracy * len(y_test)))
    failed = False
    for name, run in runs.items():
        correct = int(np.sum(np.argmax(run(x_test), 1) == y_test))
        drift = float(np.abs(run(columns) - core_columns).max())
        same = correct == core_correct and drift < 1e-4
        failed |= not same
        print(
            f"{name}: test accuracy {correct / len(y_test):.4f} ({'same as' if correct == core_correct else 'DIFFERS from'}"
            f" the core); 5-step inputs: largest difference from the core {drift:.1e}"
        )
    if failed:
        sys.exit("a converted model does not reproduce the core")
    return accuracy


if __name__ == "__main__":
    main()
