"""The attrs TensorFlow's op definitions carry that a TF-written GraphDef names, with TF's semantics, against
TensorFlow 1: Equal/NotEqual `incompatible_shape_error=False` (a scalar instead of an error for shapes that do not
broadcast), `bad_indices_policy` of GatherNd/ScatterNd/TensorScatter* ("IGNORE" skips an index outside the tensor,
"ERROR"/"DEFAULT"/"" fail), FusedBatchNorm's `exponential_avg_factor` (training blends the running statistics),
TopKV2's `Tk`/`index_type`, MatMul/BatchMatMulV2's gradient hints, MaxPool's `explicit_paddings` and
NonMaxSuppressionV4's `T_threshold`."""

import numpy as np

from tests.fidelity.harness import case

RNG = np.random.RandomState(71)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@case
def equal_not_equal_incompatible_shapes_give_a_scalar(tf, sess):
    a = tf.constant([1, 2, 3])
    b = tf.constant([1, 5])
    eq = tf.raw_ops.Equal(x=a, y=b, incompatible_shape_error=False)
    ne = tf.raw_ops.NotEqual(x=a, y=b, incompatible_shape_error=False)
    ok = tf.raw_ops.Equal(x=a, y=tf.constant([[3], [2]]), incompatible_shape_error=False)
    ok_ne = tf.raw_ops.NotEqual(x=a, y=tf.constant(2), incompatible_shape_error=False)
    p = tf.placeholder(tf.int32, [None])
    eq_fed = tf.raw_ops.Equal(x=a, y=p, incompatible_shape_error=False)
    return [
        eq.shape.as_list(),
        ne.shape.as_list(),
        ok.shape.as_list(),
        eq_fed.shape.ndims,
        eq.op.get_attr("incompatible_shape_error"),
        sess.run([eq, ne, ok, ok_ne]),
        sess.run(eq_fed, {p: [1, 2]}),
        sess.run(eq_fed, {p: [1, 0, 3]}),
    ]


@case
def equal_incompatible_shape_error_true_is_an_error(tf, sess):
    p = tf.placeholder(tf.int32, [None])
    eq = tf.raw_ops.Equal(x=tf.constant([1, 2, 3]), y=p)
    try:
        sess.run(eq, {p: [1, 2]})
    except tf.errors.InvalidArgumentError:
        return "InvalidArgumentError"
    return "no error"


_BAD = [[0, 1], [5, 0], [-1, 0], [1, 1]]


@case
def bad_indices_policy_ignore(tf, sess):
    params = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    ind = tf.constant(_BAD)
    gather = tf.raw_ops.GatherNd(params=params, indices=ind, bad_indices_policy="IGNORE")
    gather_rows = tf.raw_ops.GatherNd(params=params, indices=tf.constant([[1], [2], [0]]), bad_indices_policy="IGNORE")
    upd = tf.constant([10.0, 20.0, 30.0, 40.0])
    scatter = tf.raw_ops.ScatterNd(indices=ind, updates=upd, shape=tf.constant([2, 2]), bad_indices_policy="IGNORE")
    outs = [gather, gather_rows, scatter]
    for op in (
        tf.raw_ops.TensorScatterUpdate,
        tf.raw_ops.TensorScatterAdd,
        tf.raw_ops.TensorScatterSub,
        tf.raw_ops.TensorScatterMax,
        tf.raw_ops.TensorScatterMin,
    ):
        outs.append(op(tensor=params, indices=ind, updates=upd, bad_indices_policy="IGNORE"))
    return [gather.op.get_attr("bad_indices_policy"), sess.run(outs)]


@case
def bad_indices_policy_error_default_and_empty_fail(tf, sess):
    params = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    p = tf.placeholder(tf.int32, [None, 2])
    results = []
    for policy in ("", "DEFAULT", "ERROR"):
        for make in (
            lambda policy=policy: tf.raw_ops.GatherNd(params=params, indices=p, bad_indices_policy=policy),
            lambda policy=policy: tf.raw_ops.ScatterNd(
                indices=p, updates=tf.ones([2]), shape=tf.constant([2, 2]), bad_indices_policy=policy
            ),
            lambda policy=policy: tf.raw_ops.TensorScatterUpdate(
                tensor=params, indices=p, updates=tf.ones([2]), bad_indices_policy=policy
            ),
        ):
            try:
                sess.run(make(), {p: [[0, 0], [2, 0]]})
                results.append("no error")
            except tf.errors.InvalidArgumentError:
                results.append("InvalidArgumentError")
    return results


@case
def scatter_nd_variable_ops_ignore_bad_indices(tf, sess):
    v = tf.Variable([1.0, 2.0, 3.0, 4.0])
    ind = tf.constant([[1], [7], [-2], [3]])
    upd = tf.constant([10.0, 20.0, 30.0, 40.0])
    add = tf.raw_ops.ScatterNdAdd(ref=v, indices=ind, updates=upd, bad_indices_policy="IGNORE")
    sess.run(tf.global_variables_initializer())
    after_add = sess.run(add)
    sub = tf.raw_ops.ScatterNdSub(ref=v, indices=ind, updates=upd, bad_indices_policy="IGNORE")
    after_sub = sess.run(sub)
    upd_op = tf.raw_ops.ScatterNdUpdate(ref=v, indices=ind, updates=upd, bad_indices_policy="IGNORE")
    after_update = sess.run(upd_op)
    err = tf.raw_ops.ScatterNdUpdate(ref=v, indices=ind, updates=upd, bad_indices_policy="ERROR")
    try:
        sess.run(err)
        error = "no error"
    except tf.errors.InvalidArgumentError:
        error = "InvalidArgumentError"
    return [after_add, after_sub, after_update, error, sess.run(v)]


@case(tol=1e-5)
def fused_batch_norm_exponential_avg_factor(tf, sess):
    # x fed: TF's constant folding of an all-constant inference FusedBatchNorm fails ("does not have output 1").
    x_value = _f32(2, 3, 4, 5)
    x = tf.placeholder(tf.float32, [2, 3, 4, 5])
    scale = tf.constant(_f32(5))
    offset = tf.constant(_f32(5))
    mean = tf.constant(_f32(5))
    var = tf.constant(np.abs(_f32(5)) + 0.5)
    outs = []
    for factor in (1.0, 0.3, 0.0):
        r = tf.raw_ops.FusedBatchNorm(
            x=x,
            scale=scale,
            offset=offset,
            mean=mean,
            variance=var,
            epsilon=0.001,
            exponential_avg_factor=factor,
            is_training=True,
        )
        outs.append([r.y, r.batch_mean, r.batch_variance])
    inference = tf.raw_ops.FusedBatchNorm(
        x=x, scale=scale, offset=offset, mean=mean, variance=var, exponential_avg_factor=0.3, is_training=False
    )
    # (only y: TF's grappler rewrites an inference FusedBatchNorm into Mul/Add, and fetching its other outputs
    # then fails with "does not have output 1")
    outs.append([inference.y])
    # TF1's training form: empty mean and variance (factor 1).
    empty = tf.raw_ops.FusedBatchNorm(
        x=x, scale=scale, offset=offset, mean=tf.zeros([0]), variance=tf.zeros([0]), is_training=True
    )
    outs.append([empty.y, empty.batch_mean, empty.batch_variance])
    return sess.run(outs, {x: x_value})


@case
def top_k_index_type_and_k_type(tf, sess):
    x = tf.constant([[3.0, 1.0, 4.0, 1.0, 5.0], [9.0, 2.0, 6.0, 5.0, 3.0]])
    outs = []
    for k_dtype in (tf.int32, tf.int64, tf.int16):
        for index_type in (tf.int16, tf.int32, tf.int64):
            r = tf.raw_ops.TopKV2(input=x, k=tf.constant(3, k_dtype), index_type=index_type)
            outs.append([r.indices.dtype.name, r.values.shape.as_list(), r.values, r.indices])
    return [[o[0], o[1]] for o in outs], sess.run([[o[2], o[3]] for o in outs])


@case
def matmul_gradient_hints_are_accepted(tf, sess):
    a = tf.constant(_f32(2, 3))
    b = tf.constant(_f32(3, 4))
    m = tf.raw_ops.MatMul(a=a, b=b, grad_a=True, grad_b=False)
    bm = tf.raw_ops.BatchMatMulV2(x=tf.reshape(a, [1, 2, 3]), y=b, grad_x=False, grad_y=True)
    return [m.op.get_attr("grad_a"), bm.op.get_attr("grad_y"), sess.run([m, bm])]


@case
def max_pool_explicit_paddings_must_be_empty(tf, sess):
    x = tf.constant(_f32(1, 4, 4, 2))
    y = tf.raw_ops.MaxPool(input=x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID", explicit_paddings=[])
    try:
        tf.raw_ops.MaxPool(
            input=x,
            ksize=[1, 2, 2, 1],
            strides=[1, 2, 2, 1],
            padding="SAME",
            explicit_paddings=[0, 0, 1, 1, 1, 1, 0, 0],
        )
        error = "no error"
    except (ValueError, tf.errors.InvalidArgumentError) as e:
        error = type(e).__name__
    return [y.op.get_attr("explicit_paddings"), sess.run(y), error]


@case
def non_max_suppression_v4_threshold_dtype(tf, sess):
    boxes = tf.constant([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]], tf.float16)
    scores = tf.constant([0.9, 0.8, 0.7], tf.float16)
    r = tf.raw_ops.NonMaxSuppressionV4(
        boxes=boxes,
        scores=scores,
        max_output_size=3,
        iou_threshold=tf.constant(0.5),
        score_threshold=tf.constant(0.0),
        pad_to_max_output_size=True,
    )
    return [r.selected_indices.op.get_attr("T_threshold").name, sess.run(r)]


@case
def sparse_segment_sum_sparse_gradient_attr(tf, sess):
    data = tf.constant(_f32(4, 3))
    out = tf.raw_ops.SparseSegmentSum(
        data=data, indices=tf.constant([0, 2, 3]), segment_ids=tf.constant([0, 0, 1]), sparse_gradient=False
    )
    (g,) = tf.gradients(out, [data], grad_ys=tf.constant(_f32(2, 3)))
    return [out.op.get_attr("sparse_gradient"), sess.run([out, tf.convert_to_tensor(g)])]
