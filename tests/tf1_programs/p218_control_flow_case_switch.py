"""Control flow of TF1 model code: tf.case with a list and a dict of (predicate, fn), exclusive=True, a default,
and the run-time error when exclusive predicates overlap; tf.switch_case with a default branch; tf.cond returning
nested tuples/dicts and a side effect (assign_add) that runs only in the taken branch; tf.while_loop with
maximum_iterations and a namedtuple loop variable; foldr; scan with a tuple initializer and reverse=True; map_fn
with dtype for a structure; tf.group / tf.tuple; and gradients through cond and while_loop."""

import collections

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [])
    counter = tf.Variable(0, name="counter")
    case_list = tf.case([(x < 0, lambda: tf.constant(-1.0)), (x < 10, lambda: x * 2.0)], default=lambda: x)
    case_excl = tf.case([(x < 0, lambda: tf.constant(1)), (x > 5, lambda: tf.constant(2))],
                        default=lambda: tf.constant(0), exclusive=True)  # fmt: skip
    case_overlap = tf.case([(x > 0, lambda: tf.constant(1)), (x > 5, lambda: tf.constant(2))],
                           default=lambda: tf.constant(0), exclusive=True)  # fmt: skip
    branch = tf.placeholder(tf.int32, [])
    switched = tf.switch_case(branch, [lambda: tf.constant(10.0), lambda: x * x, lambda: -x], default=lambda: 99.0)
    nested = tf.cond(
        x > 1.0,
        lambda: {"a": (x, x + 1.0), "b": tf.assign_add(counter, 1)},
        lambda: {"a": (-x, x - 1.0), "b": tf.assign_add(counter, 100)},
    )
    State = collections.namedtuple("State", ["i", "acc"])
    loop = tf.while_loop(lambda s: s.acc < 1000.0, lambda s: State(s.i + 1, s.acc * 2.0 + x),
                         [State(tf.constant(0), x)], maximum_iterations=6)  # fmt: skip
    elems = tf.constant([1.0, 2.0, 3.0, 4.0])
    fold = tf.foldr(lambda acc, e: acc * 0.5 + e, elems, initializer=tf.constant(0.0))
    scanned = tf.scan(lambda acc, e: (acc[0] + e, acc[1] * e), elems, initializer=(tf.constant(0.0), tf.constant(1.0)),
                      reverse=True)  # fmt: skip
    mapped = tf.map_fn(lambda e: (e * 2.0, tf.cast(e, tf.int32)), elems, dtype=(tf.float32, tf.int32))
    grouped = tf.group(tf.assign_add(counter, 1000), tf.no_op())
    tupled = tf.tuple([x * 3.0, x + 3.0])
    grads = tf.gradients([tf.cond(x > 0, lambda: x * x, lambda: -x), loop.acc], x)
    out = {
        "types": [type(nested["a"]).__name__, type(loop).__name__],
        "shapes": [case_list.shape.as_list(), switched.shape.as_list(), fold.shape.as_list()],
        "grouped_type": grouped.type,
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["case"] = [sess.run([case_list, case_excl], {x: v}) for v in (-3.0, 2.0, 20.0)]
        out["switch"] = [sess.run(switched, {x: 3.0, branch: b}) for b in (0, 1, 2, 7, -1)]
        out["nested"] = [sess.run(nested, {x: v}) for v in (2.0, 0.5)]
        out["counter"] = sess.run(counter)
        out["loop"] = [sess.run(loop, {x: v}) for v in (1.0, 300.0)]
        out["fold_scan_map"] = sess.run([fold, scanned, mapped])
        sess.run(grouped)
        out["after_group"] = sess.run(counter)
        out["tupled"] = sess.run(tupled, {x: 2.0})
        out["grads"] = [sess.run(grads, {x: v}) for v in (1.5, -2.0)]
        out["no_overlap"] = sess.run(case_overlap, {x: 3.0})
        try:
            sess.run(case_overlap, {x: 7.0})
            out["overlap"] = None
        except tf.errors.InvalidArgumentError as e:
            out["overlap"] = [type(e).__name__, "exclusive" in str(e).lower() or "more than one" in str(e).lower()]
    out["np"] = np.float32(out.pop("counter")).tolist()
    return out
