"""Loops over structures as TF1 research code wrote them: tf.while_loop whose loop variables are a dict, a
namedtuple and a tuple of TensorArrays (one per field), written each step and stacked afterwards; tf.map_fn
with dtype=(tf.int32, tf.float32) returning tuples and with dtype as a dict-free nested tuple; tf.foldl / tf.foldr
with a tuple accumulator (running min and max) and with a tensor elems tuple; tf.scan over a tuple of sequences
with a namedtuple state; a nested while_loop (outer over rows, inner over columns) with maximum_iterations;
gradients through the map_fn and scan; the static shapes of every result."""

import collections

import numpy as np

State = collections.namedtuple("State", ["total", "count"])


def main(tf, workdir):
    tf.reset_default_graph()
    xs = tf.constant(np.array([3.0, -1.0, 4.0, 1.5, -5.0, 9.0], np.float32))
    n = tf.size(xs)

    def cond(i, acc, state, tas):
        return i < n

    def body(i, acc, state, tas):
        x = xs[i]
        acc = {"max": tf.maximum(acc["max"], x), "argmax": tf.where(x > acc["max"], i, acc["argmax"])}
        state = State(total=state.total + x, count=state.count + 1)
        tas = (tas[0].write(i, state.total / tf.to_float(state.count)), tas[1].write(i, tf.stack([x, x * x])))
        return i + 1, acc, state, tas

    init = (
        tf.constant(0),
        {"max": tf.constant(-np.inf, tf.float32), "argmax": tf.constant(-1)},
        State(tf.constant(0.0), tf.constant(0)),
        (tf.TensorArray(tf.float32, size=n), tf.TensorArray(tf.float32, size=n, element_shape=[2])),
    )
    _, acc, state, tas = tf.while_loop(cond, body, init)
    running_mean, squares = tas[0].stack(), tas[1].stack()

    ints, floats = tf.map_fn(lambda x: (tf.to_int32(tf.round(x)), x * 2.0), xs, dtype=(tf.int32, tf.float32))
    nested = tf.map_fn(lambda pair: (pair[0] + pair[1], (pair[0] * pair[1], pair[0] - pair[1])), (xs, xs * 0.5),
                       dtype=(tf.float32, (tf.float32, tf.float32)))  # fmt: skip
    mn_mx = tf.foldl(lambda a, x: (tf.minimum(a[0], x), tf.maximum(a[1], x)), xs, initializer=(xs[0], xs[0]))
    right = tf.foldr(lambda a, x: a * 0.5 + x, xs)
    weighted = tf.foldl(lambda a, e: a + e[0] * e[1], (xs, tf.range(6.0)), initializer=tf.constant(0.0))

    scanned = tf.scan(
        lambda st, e: State(total=st.total + e[0] * e[1], count=st.count + 1),
        (xs, tf.ones_like(xs) * 2.0),
        initializer=State(tf.constant(0.0), tf.constant(0)),
    )

    matrix = tf.reshape(tf.range(12.0), [3, 4])

    def outer_body(r, total):
        def inner_body(c, row_total):
            return c + 1, row_total + matrix[r, c] * tf.to_float(c + 1)

        _, row = tf.while_loop(lambda c, _: c < 4, inner_body, (0, 0.0), maximum_iterations=3)
        return r + 1, total + row

    _, nested_total = tf.while_loop(lambda r, _: r < 3, outer_body, [0, 0.0])

    try:  # a list of loop variables with maximum_iterations: the body's tuple no longer matches (TF1's error)
        tf.while_loop(lambda c, _: c < 4, lambda c, t: (c + 1, t + 1.0), [0, 0.0], maximum_iterations=3)
        list_vars_error = None
    except (TypeError, ValueError) as e:
        list_vars_error = type(e).__name__
    grads = tf.gradients(tf.reduce_sum(floats) + tf.reduce_sum(nested[1][0]) + scanned.total[-1], xs)[0]
    results = {
        "acc": acc,
        "state": state,
        "running_mean": running_mean,
        "squares": squares,
        "ints": ints,
        "floats": floats,
        "nested": nested,
        "mn_mx": mn_mx,
        "right": right,
        "weighted": weighted,
        "scanned": scanned,
        "nested_total": nested_total,
        "grads": grads,
    }
    out = {
        "shapes": tf.nest.map_structure(lambda t: t.shape.as_list(), results),
        "types": [type(state).__name__, type(scanned).__name__, type(acc).__name__],
        "list_vars_error": list_vars_error,
    }
    with tf.Session() as sess:
        values = sess.run(results)
    out["values"] = {k: tf.nest.map_structure(lambda v: v, v) for k, v in values.items()}
    out["values"]["state"] = list(values["state"])
    out["values"]["scanned"] = list(values["scanned"])
    out["shapes"]["state"] = list(out["shapes"]["state"])
    out["shapes"]["scanned"] = list(out["shapes"]["scanned"])
    return out
