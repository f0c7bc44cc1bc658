"""Python code inside TF1 graphs: tf.py_func with several outputs and stateful=False, tf.numpy_function in a
tf.data map (with set_shape afterwards, the usual fix for unknown shapes), a py_func returning a string, a
py_func raising an exception (the error class the session gives), tf.print to sys.stdout-like output_stream
(captured by a tf.print to a file path), tf.Print's passthrough value, and a gradient override with
gradient_override_map for a py_func (the TF1 recipe: RegisterGradient)."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}

    def stats(a):
        return a.mean(axis=1).astype(np.float32), np.argmax(a, axis=1).astype(np.int64)

    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) % 5)
    mean, arg = tf.py_func(stats, [x], [tf.float32, tf.int64], stateful=False, name="stats")
    out["py_func_shapes"] = [str(mean.shape), str(arg.shape), mean.dtype.name, arg.dtype.name]

    def label(i):
        return f"item-{i}".encode()

    s = tf.py_func(label, [tf.constant(7)], tf.string)

    def augment(v):
        return (v[::-1] * 2).astype(np.float32)

    ds = tf.data.Dataset.from_tensor_slices(np.arange(12, dtype=np.float32).reshape(4, 3))
    ds = ds.map(lambda v: tf.numpy_function(augment, [v], tf.float32))
    out["ds_shape_before"] = str(tf.data.get_output_shapes(ds)) if hasattr(tf.data, "get_output_shapes") else None

    def fix(v):
        v.set_shape([3])
        return v

    ds = ds.map(fix).batch(2)
    out["ds_shape_after"] = str(ds.output_shapes)
    nxt = ds.make_one_shot_iterator().get_next()

    def bad(v):
        raise ValueError(f"bad value {v}")

    failing = tf.py_func(bad, [tf.constant(1.0)], tf.float32)
    log_path = os.path.join(workdir, "log.txt")
    t = tf.constant([1.5, 2.5])
    print_op = tf.print("values:", t, "sum:", tf.reduce_sum(t), output_stream="file://" + log_path)
    passthrough = tf.Print(t * 2.0, [t], message="t=")

    @tf.RegisterGradient("SwSquareGrad")
    def _square_grad(op, grad):
        return grad * 2.0 * op.inputs[0] + 100.0

    g = tf.get_default_graph()
    inp = tf.constant([1.0, 2.0, 3.0])
    with g.gradient_override_map({"Square": "SwSquareGrad"}):
        sq = tf.square(inp)
    grad = tf.gradients(tf.reduce_sum(sq), inp)[0]
    with tf.Session() as sess:
        out["py_func"] = sess.run([mean, arg])
        out["string"] = sess.run(s)
        out["batches"] = [sess.run(nxt), sess.run(nxt)]
        try:
            sess.run(nxt)
            out["end"] = None
        except tf.errors.OutOfRangeError as e:
            out["end"] = type(e).__name__
        try:
            sess.run(failing)
            out["failing"] = None
        except Exception as e:  # noqa: BLE001 - the error class is the result
            out["failing"] = [type(e).__name__, "bad value 1.0" in str(e)]
        sess.run(print_op)
        out["passthrough"] = sess.run(passthrough)
        out["override_grad"] = sess.run(grad)
    with open(log_path) as f:
        out["log"] = f.read()
    return out
