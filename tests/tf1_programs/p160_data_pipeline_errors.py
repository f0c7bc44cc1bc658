"""tf.data mistakes TF1 users met and the errors they read, compared by class and first line: from_tensor_slices
of components whose first dimensions differ, batch of elements of different shapes at run time, a one-shot
iterator over a dataset that captures a placeholder, get_next past the end (OutOfRangeError) and after
reinitializing, padded_batch with padded_shapes of the wrong rank, shuffle with buffer_size 0, map returning a
Python list of tensors (a tuple element), iterating a dataset in graph mode (TypeError / RuntimeError), an
initializable iterator not initialized (FailedPreconditionError), and Iterator.from_structure with types that
differ from a dataset's (TypeError)."""

import numpy as np


def _err(tf, fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - compared by class and first line
        msg = e.message if isinstance(e, tf.errors.OpError) else str(e)
        return [type(e).__name__, msg.strip().split("\n")[0].split(" for '{{node")[0][:100]]


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    out["slices_mismatch"] = _err(tf, lambda: tf.data.Dataset.from_tensor_slices((np.zeros([3, 2]), np.zeros([4]))))
    ragged = tf.data.Dataset.from_generator(lambda: iter([[1, 2], [3]]), tf.int32, tf.TensorShape([None])).batch(2)
    nxt = ragged.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        try:
            sess.run(nxt)
            out["batch_ragged"] = None
        except tf.errors.InvalidArgumentError as e:
            out["batch_ragged"] = [type(e).__name__, "shape" in e.message.lower()]
    p = tf.placeholder(tf.float32, [None])
    captured = tf.data.Dataset.from_tensor_slices(p)
    out["one_shot_placeholder"] = _err(tf, lambda: captured.make_one_shot_iterator())
    ds = tf.data.Dataset.range(2)
    it = ds.make_initializable_iterator()
    get = it.get_next()
    with tf.Session() as sess:
        out["not_initialized"] = _err(tf, lambda: sess.run(get))[0]
        sess.run(it.initializer)
        out["values"] = [sess.run(get), sess.run(get)]
        out["past_end"] = _err(tf, lambda: sess.run(get))[0]
        sess.run(it.initializer)
        out["after_reinit"] = sess.run(get)
    out["padded_wrong_rank"] = _err(
        tf,
        lambda: tf.data.Dataset.from_tensor_slices(np.zeros([4, 3])).padded_batch(2, padded_shapes=[3, 2]),
    )
    out["list_map"] = [
        str(t) for t in tf.nest.flatten(tf.data.Dataset.range(3).map(lambda i: [i, i * 2]).output_types)
    ]  # fmt: skip
    out["iterate_graph"] = _err(tf, lambda: [x for x in tf.data.Dataset.range(2)])
    out["structure_mismatch"] = _err(
        tf,
        lambda: tf.data.Iterator.from_structure(tf.float32, tf.TensorShape([])).make_initializer(
            tf.data.Dataset.range(3)
        ),
    )
    return out
