"""The tensorweave demo: train a CNN on the handwritten digits that ship
with scikit-learn (8x8 images, 10 classes; no download), checkpoint it,
restore it in a fresh process, and (when the converters are installed)
convert it to .twl and .onnx and check that the lite runtime and
onnxruntime reproduce the test accuracy.

  python examples/train_digits.py [--out DIR] [--steps N]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

import tensorweave as tw

BATCH = 64


def load_digits():
    from sklearn.datasets import load_digits as sk_load_digits

    digits = sk_load_digits()
    x = (digits.images.astype(np.float32) / 16.0).reshape(-1, 8, 8, 1)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(x))
    x, y = x[order], y[order]
    split = int(0.8 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def build_model(graph):
    """The CNN, its loss, accuracy and train op, in `graph`."""
    with graph.as_default():
        tw.set_random_seed(1234)
        images = tw.placeholder(tw.float32, [None, 8, 8, 1], name="images")
        labels = tw.placeholder(tw.int64, [None], name="labels")
        training = tw.placeholder_with_default(False, [], name="training")
        h = tw.layers.conv2d(images, 32, 3, padding="same", activation=tw.nn.relu)
        h = tw.layers.max_pooling2d(h, 2, 2)
        h = tw.layers.conv2d(h, 64, 3, padding="same", activation=tw.nn.relu)
        h = tw.layers.max_pooling2d(h, 2, 2)
        h = tw.layers.flatten(h)
        h = tw.layers.dense(h, 128, activation=tw.nn.relu)
        h = tw.layers.dropout(h, rate=0.3, training=training)
        logits = tw.layers.dense(h, 10)
        probabilities = tw.nn.softmax(logits, name="probabilities")
        loss = tw.losses.sparse_softmax_cross_entropy(labels, logits)
        correct = tw.equal(tw.argmax(logits, 1), labels)
        accuracy = tw.reduce_mean(tw.cast(correct, tw.float32), name="accuracy")
        global_step = tw.train.get_or_create_global_step()
        train_op = tw.train.AdamOptimizer(0.003).minimize(loss, global_step=global_step)
        init = tw.global_variables_initializer()
        saver = tw.train.Saver()
    return dict(
        images=images,
        labels=labels,
        training=training,
        probabilities=probabilities,
        loss=loss,
        accuracy=accuracy,
        train_op=train_op,
        init=init,
        saver=saver,
        global_step=global_step,
    )


def evaluate(sess, model, x, y):
    return float(sess.run(model["accuracy"], {model["images"]: x, model["labels"]: y}))


def train(out_dir, steps):
    (x_train, y_train), (x_test, y_test) = load_digits()
    graph = tw.Graph()
    model = build_model(graph)
    rng = np.random.default_rng(0)
    config = tw.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
    with tw.Session(graph=graph, config=config) as sess:
        sess.run(model["init"])
        start = time.perf_counter()
        seen = 0
        for step in range(1, steps + 1):
            idx = rng.integers(0, len(x_train), BATCH)
            feed = {model["images"]: x_train[idx], model["labels"]: y_train[idx], model["training"]: True}
            loss, _ = sess.run([model["loss"], model["train_op"]], feed)
            seen += BATCH
            if step % 100 == 0 or step == steps:
                rate = seen / (time.perf_counter() - start)
                acc = evaluate(sess, model, x_train, y_train)
                print(f"step {step:4d}  loss {loss:.4f}  train accuracy {acc:.4f}  {rate:,.0f} examples/s")
        test_accuracy = evaluate(sess, model, x_test, y_test)
        print(f"test accuracy: {test_accuracy:.4f} ({len(x_test)} images)")
        os.makedirs(out_dir, exist_ok=True)
        path = model["saver"].save(sess, os.path.join(out_dir, "digits.ckpt"), global_step=model["global_step"])
        print(f"checkpoint: {path}")
        export = os.path.join(out_dir, "saved_model")
        shutil.rmtree(export, ignore_errors=True)  # a previous run's export
        tw.saved_model.simple_save(
            sess, export, inputs={"images": model["images"]}, outputs={"probabilities": model["probabilities"]}
        )
        print(f"saved model: {export}")
    return test_accuracy


def restore_and_evaluate(out_dir):
    """Runs in a fresh process: rebuild the graph, restore, evaluate."""
    _, (x_test, y_test) = load_digits()
    graph = tw.Graph()
    model = build_model(graph)
    with tw.Session(graph=graph) as sess:
        path = tw.train.latest_checkpoint(out_dir)
        model["saver"].restore(sess, path)
        accuracy = evaluate(sess, model, x_test, y_test)
    print(json.dumps({"checkpoint": path, "test_accuracy": accuracy}))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=os.path.join("demo_output"))
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--restore-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.restore_only:
        restore_and_evaluate(args.out)
        return
    accuracy = train(args.out, args.steps)
    if accuracy < 0.97:
        sys.exit(f"test accuracy {accuracy:.4f} is below the 0.97 goal")
    print("restoring the checkpoint in a fresh process ...")
    result = subprocess.run(
        [sys.executable, __file__, "--out", args.out, "--restore-only"], check=True, capture_output=True, text=True
    )
    restored = json.loads(result.stdout.strip().splitlines()[-1])
    print(f"restored test accuracy: {restored['test_accuracy']:.4f} (from {restored['checkpoint']})")
    if restored["test_accuracy"] != accuracy:
        sys.exit("the restored model does not reproduce the accuracy")
    convert_and_check(args.out, accuracy)


def convert_and_check(out_dir, accuracy):
    """Converts the saved model to .twl and .onnx with tensorweave-convert,
    then checks that the lite runtime and onnxruntime reproduce the core's
    test accuracy."""
    _, (x_test, y_test) = load_digits()
    export = os.path.join(out_dir, "saved_model")
    results = {}
    for ext in ("twl", "onnx"):
        target = os.path.join(out_dir, f"digits.{ext}")
        subprocess.run([sys.executable, "-m", "converters.cli", "--input", export, "--output", target], check=True)
        print(f"converted: {target} ({os.path.getsize(target):,} bytes)")
    try:
        import tensorweave_lite
    except ImportError:
        print("tensorweave_lite is not installed (tools/build_lite_python.sh); skipping the lite check")
    else:
        interpreter = tensorweave_lite.Interpreter(model_path=os.path.join(out_dir, "digits.twl"), num_threads=2)
        runner = interpreter.get_signature_runner()
        interpreter.resize_tensor_input(interpreter.get_input_details()[0]["index"], list(x_test.shape))
        interpreter.allocate_tensors()
        probabilities = runner(images=x_test)["probabilities"]
        results["tensorweave-lite (.twl)"] = int(np.sum(np.argmax(probabilities, 1) == y_test))
    import onnxruntime

    session = onnxruntime.InferenceSession(os.path.join(out_dir, "digits.onnx"), providers=["CPUExecutionProvider"])
    (probabilities,) = session.run(None, {session.get_inputs()[0].name: x_test})
    results["onnxruntime (.onnx)"] = int(np.sum(np.argmax(probabilities, 1) == y_test))
    core_correct = int(round(accuracy * len(y_test)))
    for runtime, correct in results.items():
        verdict = "same as the core" if correct == core_correct else "DIFFERS from the core"
        print(f"{runtime}: test accuracy {correct / len(y_test):.4f}, {correct}/{len(y_test)} ({verdict})")
    if any(correct != core_correct for correct in results.values()):
        sys.exit("a converted model does not reproduce the core's accuracy")


if __name__ == "__main__":
    main()
