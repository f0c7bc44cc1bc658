"""Conditional accumulators (tf.ConditionalAccumulator, tf.SparseConditionalAccumulator) and
tf.train.SyncReplicasOptimizer: what a TF1 program observes (aggregated values, staleness, the global step, error
classes and the kernels' messages, names).

TensorFlow 2's tf.compat.v1.ConditionalAccumulator builds the Resource* variants of the dense ops
(ResourceConditionalAccumulator, ...) and the sparse one the Ref(string) ops; tensorweave's ops are those of
the non-resource names with a string handle, so the cases compare behaviour, not dense op types. TF's sparse
kernel merges indices only when each gradient's indices are sorted and unique; the cases use such gradients
(tensorweave sums any indices)."""

import re

import numpy as np

from tests.fidelity.harness import case


def _message(error):
    """The kernel's own message (TF1 adds node and traceback lines around it)."""
    lines = [line.strip() for line in str(getattr(error, "message", error)).splitlines() if line.strip()]
    for line in lines:
        if re.search(r"Shape mismatch|non-empty|should be vector|num_required|cancelled", line):
            return line
    return None


def _run_error(tf, sess, fetch, feed=None, options=None):
    try:
        sess.run(fetch, feed, options=options)
        return None
    except tf.errors.OpError as e:
        return type(e).__name__, _message(e)


@case
def dense_mean_sum_staleness_and_global_step(tf, sess):
    mean = tf.ConditionalAccumulator(tf.float32, shape=[2])
    total = tf.ConditionalAccumulator(tf.float32, shape=[2], reduction_type="SUM")
    step = tf.placeholder(tf.int64, [])
    grad = tf.placeholder(tf.float32, [2])
    out = []
    for acc in (mean, total):
        apply = acc.apply_grad(grad, local_step=step)
        sess.run(apply, {grad: [1.0, 2.0], step: 0})
        sess.run(apply, {grad: [3.0, 7.0], step: 0})
        out.append(sess.run(acc.num_accumulated()))
        out.append(sess.run(acc.take_grad(2)))
        sess.run(apply, {grad: [5.0, 5.0], step: 0})  # stale now (global step 1)
        out.append(sess.run(acc.num_accumulated()))
        sess.run(apply, {grad: [5.0, 5.0], step: 3})
        out.append(sess.run(acc.num_accumulated()))
        sess.run(acc.set_global_step(10))
        sess.run(apply, {grad: [1.0, 1.0], step: 9})
        out.append(sess.run(acc.num_accumulated()))
        out.append(sess.run(acc.take_grad(1)))
    return out, mean.take_grad(1).shape.as_list(), mean.dtype.name, mean.name, total.name


@case
def dense_float64_and_unknown_shape(tf, sess):
    acc = tf.ConditionalAccumulator(tf.float64, shape=None)
    sess.run(acc.apply_grad(np.array([[1.0, 2.0]])))
    sess.run(acc.apply_grad(np.array([[2.0, 4.0]])))
    value = sess.run(acc.take_grad(2))
    return value, acc.take_grad(1).shape.ndims


@case
def dense_error_messages(tf, sess):
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    g = tf.placeholder(tf.float32)
    errors = [
        _run_error(tf, sess, acc.apply_grad(g), {g: [1.0, 2.0, 3.0]}),
        _run_error(tf, sess, acc.take_grad(0)),
        _run_error(tf, sess, acc.take_grad(1), options=tf.RunOptions(timeout_in_ms=100)),
    ]
    free = tf.ConditionalAccumulator(tf.float32)
    sess.run(free.apply_grad(g), {g: [1.0, 2.0, 3.0]})
    errors.append(_run_error(tf, sess, free.apply_grad(g), {g: [1.0, 2.0]}))
    try:
        acc.apply_grad([1.0, 2.0, 3.0])
        errors.append(None)
    except ValueError:
        errors.append("ValueError")
    return errors, sess.run(acc.num_accumulated()), sess.run(free.num_accumulated())


@case
def sparse_sum_and_mean_per_index(tf, sess):
    out = []
    for reduction in ("MEAN", "SUM"):
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=[6, 2], reduction_type=reduction)
        sess.run(acc.apply_grad([1, 3], np.float32([[1, 1], [2, 2]]), grad_shape=[6, 2]))
        sess.run(acc.apply_grad([0, 1, 5], np.float32([[10, 10], [20, 20], [7, 8]]), grad_shape=[6, 2]))
        sess.run(acc.apply_grad([3], np.float32([[4, 6]])))
        out.append(list(sess.run(acc.take_grad(3))))
        out.append(sess.run(acc.num_accumulated()))
    return out


@case
def sparse_indexed_slices_staleness_and_names(tf, sess):
    acc = tf.SparseConditionalAccumulator(tf.float64, shape=[None, 3])
    slices = tf.IndexedSlices(
        values=tf.constant(np.ones([2, 3])), indices=tf.constant([0, 4], tf.int64), dense_shape=[9, 3]
    )
    apply = acc.apply_indexed_slices_grad(slices, local_step=2)
    sess.run(apply)
    taken = acc.take_indexed_slices_grad(1)
    value = sess.run([taken.indices, taken.values, taken.dense_shape])
    sess.run(acc.set_global_step(3))
    sess.run(apply)  # stale
    ops = [acc.accumulator_ref.op, apply, taken.indices.op]
    return (
        value,
        sess.run(acc.num_accumulated()),
        [op.type for op in ops],
        [op.name for op in ops],
        acc.num_accumulated().op.name,
    )


@case
def sparse_error_messages(tf, sess):
    acc = tf.SparseConditionalAccumulator(tf.float32, shape=[5, 2])
    i = tf.placeholder(tf.int64)
    v = tf.placeholder(tf.float32)
    s = tf.placeholder(tf.int64)
    apply = acc.apply_grad(i, v, grad_shape=s, local_step=0)
    feeds = [
        ([1], [[1.0, 1.0, 1.0]], [5, 2]),
        ([1, 2, 3], [[1.0, 1.0]], [5, 2]),
        ([[1]], [[1.0, 1.0]], [5, 2]),
        ([1], [[1.0, 1.0]], [6, 2]),
        ([7], [[1.0, 1.0]], [5, 2]),
    ]
    errors = [_run_error(tf, sess, apply, {i: a, v: b, s: c}) for a, b, c in feeds]
    return errors, sess.run(acc.num_accumulated())


@case
def sync_replicas_one_replica_step(tf, sess):
    w = tf.Variable([3.0, -1.0], name="w")
    step = tf.train.get_or_create_global_step()
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.25), replicas_to_aggregate=1)
    train = opt.minimize(tf.reduce_sum(w * w), global_step=step)
    sync_op = opt.get_chief_queue_runner().enqueue_ops[0]
    init_tokens = opt.get_init_tokens_op()
    sess.run(tf.global_variables_initializer())
    sess.run(tf.local_variables_initializer())
    sess.run(opt.chief_init_op)
    sess.run(init_tokens)
    sess.run(train)
    sess.run(sync_op)
    after_one = sess.run([w, step])
    sess.run(train)  # its gradient is stale (local step 0, global step 1): dropped
    stale = sess.run(opt._accumulator_list[0][0].num_accumulated())
    return (
        after_one,
        stale,
        sess.run([w, step, opt._local_step]),
        train.op.type if hasattr(train, "op") else train.type,
        opt.get_slot_names(),
        sorted(v.op.name for v in tf.local_variables()),
    )


@case
def sparse_declared_shape_is_a_lower_bound(tf, sess):
    out = []
    for shape in [(), [None], [None, 2], [None, None, 2]]:
        acc = tf.SparseConditionalAccumulator(tf.float32, shape=shape)
        try:
            sess.run(acc.apply_grad([1, 3], np.float32([[1, 1], [2, 2]]), grad_shape=[5, 2]))
            sess.run(acc.apply_grad([1], np.float32([[3, 5]]), grad_shape=[5, 2]))
            out.append(list(sess.run(acc.take_grad(2))))
        except tf.errors.OpError as e:
            out.append((type(e).__name__, _message(e)))
    return out
