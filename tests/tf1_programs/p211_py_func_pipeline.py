"""Python code inside graphs as TF1 users wrote it: tf.py_func with several outputs and a Tout list, stateful=False,
set_shape afterwards, a numpy function over strings (bytes in, bytes out), tf.py_function with tensors inside,
Dataset.map over a py_func (with num_parallel_calls), gradients through py_func being None, a RegisterGradient'ed
py_func via gradient_override_map, exceptions raised by the Python function (ValueError -> InvalidArgumentError,
StopIteration -> OutOfRangeError) and a wrong output dtype."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()

    def stats(x):
        return x.mean(axis=1).astype(np.float32), np.argmax(x, axis=1).astype(np.int64)

    def shout(s):
        return np.array([w.upper() + b"!" for w in s])

    x = tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4) % 5)
    mean, arg = tf.py_func(stats, [x], [tf.float32, tf.int64], stateful=False, name="stats")
    before = [mean.shape.as_list() if mean.shape.ndims is not None else None, arg.dtype.name]
    mean.set_shape([3])
    shouted = tf.py_func(shout, [tf.constant(["ab", "cd"])], tf.string)
    pyfn = tf.py_function(lambda a, b: a * 2 + tf.reduce_sum(b), [tf.constant([1.0, 2.0]), tf.constant([3.0])],
                          tf.float32)  # fmt: skip
    ds = tf.data.Dataset.range(5).map(
        lambda i: tf.py_func(lambda v: np.int64(v * v), [i], tf.int64), num_parallel_calls=2
    )
    squares = ds.make_one_shot_iterator().get_next()
    v = tf.Variable([1.0, 2.0])
    no_grad = tf.gradients(tf.reduce_sum(tf.py_func(np.square, [v], tf.float32)), v)

    @tf.RegisterGradient("SW6SquareGrad")
    def _square_grad(op, grad):
        return [grad * 2.0 * op.inputs[0]]

    with tf.get_default_graph().gradient_override_map({"PyFunc": "SW6SquareGrad"}):
        sq = tf.py_func(np.square, [v], tf.float32)
    sq.set_shape([2])
    with_grad = tf.gradients(tf.reduce_sum(sq), v)[0]

    def fails(kind):
        def fn(a):
            if kind == "value":
                raise ValueError("bad value in python")
            if kind == "stop":
                raise StopIteration()
            return a.astype(np.int32)

        return fn

    out = {"before_set_shape": before, "after": mean.shape.as_list(), "no_grad": no_grad == [None]}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["stats"] = sess.run([mean, arg])
        out["shouted"] = sess.run(shouted)
        out["pyfn"] = sess.run(pyfn)
        out["squares"] = [sess.run(squares) for _ in range(5)]
        out["with_grad"] = sess.run(with_grad)
        errors = {}
        for kind, tout in (("value", tf.float32), ("stop", tf.float32), ("dtype", tf.float32)):
            try:
                sess.run(tf.py_func(fails(kind), [tf.constant([1.0])], tout))
                errors[kind] = None
            except tf.errors.OpError as e:
                errors[kind] = type(e).__name__
        out["errors"] = errors
    return out
