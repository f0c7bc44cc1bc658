"""Sparse tensors and the sparse ops against TensorFlow 1: SparseTensor values fetched as SparseTensorValue,
sparse_placeholder feeds, conversions, reorder/reshape/transpose, slicing and splitting, elementwise
combinations, reductions, softmax, products, the sparse segment ops (with gradients) and bad indices."""

import numpy as np

from tests.fidelity.harness import case

_IDX = [[0, 1], [1, 0], [1, 2], [3, 3]]
_VAL = [1.0, -2.0, 3.0, 4.0]
_SHAPE = [4, 5]


def _sp(tf, idx=_IDX, val=_VAL, shape=_SHAPE, dtype=np.float32):
    return tf.SparseTensor(idx, np.array(val, dtype), shape)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        for cls in type(e).__mro__:
            if cls.__name__.endswith("Error"):
                return cls.__name__
        return type(e).__name__
    return "no error"


@case
def sparse_tensor_fetch_and_static_shape(tf, sess):
    sp = _sp(tf)
    return [sp, sp.shape, sp.dtype, sp.indices.dtype, sp.dense_shape.dtype, sess.run(sp).dense_shape]


@case
def sparse_placeholder_feeds(tf, sess):
    ph = tf.sparse_placeholder(tf.float32, shape=[3, 4])
    ph2 = tf.sparse_placeholder(tf.int32)
    d = tf.sparse_tensor_to_dense(ph)
    value = tf.SparseTensorValue(np.array([[0, 1], [2, 3]], np.int64), np.array([5.0, 6.0], np.float32), [3, 4])
    out1 = sess.run(d, {ph: value})
    out2 = sess.run(tf.sparse.to_dense(ph2), {ph2: ([[1, 0]], [7], [2, 2])})
    out3 = sess.run(ph2, {ph2: ([[1, 0]], [7], [2, 2])})
    return [ph.shape, ph2.shape, d.shape, out1, out2, out3]


@case
def to_dense_and_from_dense(tf, sess):
    sp = _sp(tf)
    d = tf.sparse_tensor_to_dense(sp, default_value=-1.0)
    d2 = tf.sparse.to_dense(sp)
    fd = tf.sparse.from_dense([[0, 3, 0], [4, 0, 5]])
    s2d = tf.sparse_to_dense([[0, 0], [1, 2]], [2, 3], [9, 8], default_value=1)
    s2d1 = tf.sparse_to_dense([1, 3], [5], 2.0)
    return [d, d.shape, d2, fd, fd.shape, s2d, s2d.shape, s2d1]


@case
def reorder_reshape_transpose(tf, sess):
    sp = tf.SparseTensor([[2, 1], [0, 3], [1, 0], [0, 0]], np.array([1, 2, 3, 4], np.int32), [3, 4])
    r = tf.sparse_reorder(sp)
    rs = tf.sparse_reshape(r, [2, -1])
    rs3 = tf.sparse.reshape(r, [4, 3, 1])
    t = tf.sparse_transpose(r)
    t2 = tf.sparse.transpose(_sp(tf), [1, 0])
    return [r, r.shape, rs, rs.shape, rs3, rs3.shape, t, t2]


@case
def retain_slice_split(tf, sess):
    sp = _sp(tf)
    ret = tf.sparse_retain(sp, [True, False, True, False])
    sl = tf.sparse_slice(sp, [1, 0], [3, 3])
    sl2 = tf.sparse.slice(sp, [3, 2], [5, 5])
    sp3 = tf.sparse_split(sp_input=sp, num_split=3, axis=1)
    sp2 = tf.sparse.split(sp_input=sp, num_split=2, axis=0)
    return [ret, sl, sl2, sp3, sp2]


@case
def fill_empty_rows_and_reset_shape(tf, sess):
    sp = tf.SparseTensor([[1, 0], [1, 2], [3, 1]], np.array([1.0, 2.0, 3.0], np.float32), [5, 3])
    filled, empty = tf.sparse_fill_empty_rows(sp, -1.0)
    reset = tf.sparse_reset_shape(sp)
    reset2 = tf.sparse.reset_shape(sp, [6, 4])
    return [filled, empty, reset, reset2]


@case
def add_maximum_minimum(tf, sess):
    a = _sp(tf)
    b = tf.SparseTensor([[0, 1], [0, 4], [3, 3]], np.array([-1.0, 2.0, 0.5], np.float32), _SHAPE)
    s = tf.sparse_add(a, b)
    s_thresh = tf.sparse.add(a, b, threshold=1.5)
    dense = tf.sparse_add(a, tf.ones(_SHAPE))
    mx = tf.sparse_maximum(a, b)
    mn = tf.sparse.minimum(a, b)
    return [s, s_thresh, dense, dense.shape, mx, mn]


@case
def concat_sparse(tf, sess):
    a = _sp(tf)
    b = tf.SparseTensor([[0, 0], [2, 1]], np.array([7.0, 8.0], np.float32), [4, 2])
    c0 = tf.sparse_concat(1, [a, b])
    c1 = tf.sparse.concat(0, [a, a])
    c2 = tf.sparse_concat(-1, [a, b])
    return [c0, c0.shape, c1, c1.shape, c2]


@case
def reductions(tf, sess):
    sp = _sp(tf)
    return [
        tf.sparse_reduce_sum(sp),
        tf.sparse_reduce_sum(sp, axis=1),
        tf.sparse.reduce_sum(sp, 0, keepdims=True),
        tf.sparse_reduce_max(sp, 1),
        tf.sparse.reduce_max(sp),
        tf.sparse_reduce_sum(sp, axis=1).shape,
    ]


@case
def softmax_sparse(tf, sess):
    sp = tf.SparseTensor(
        [[0, 0, 1], [0, 0, 3], [0, 2, 0], [1, 1, 1], [1, 1, 2]],
        np.array([1.0, 2.0, 5.0, -1.0, 0.5], np.float32),
        [2, 3, 4],
    )
    return [tf.sparse_softmax(sp), tf.sparse.softmax(sp).shape]


@case
def dense_matmul_and_gradient(tf, sess):
    vals = tf.constant(np.array(_VAL, np.float32))
    sp = tf.SparseTensor(_IDX, vals, _SHAPE)
    b = tf.constant(np.arange(15, dtype=np.float32).reshape(5, 3))
    m = tf.sparse_tensor_dense_matmul(sp, b)
    mt = tf.sparse.sparse_dense_matmul(sp, tf.transpose(b), adjoint_b=True)
    ma = tf.sparse_tensor_dense_matmul(sp, np.ones([4, 2], np.float32), adjoint_a=True)
    gv, gb = tf.gradients(tf.reduce_sum(m * m), [vals, b])
    return [m, m.shape, mt, ma, ma.shape, gv, gb]


@case
def indicator_and_merge(tf, sess):
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([3, 1, 0], np.int64), [3, 2])
    weights = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], np.array([0.5, 0.25, 2.0], np.float32), [3, 2])
    ind = tf.sparse_to_indicator(ids, 4)
    merged = tf.sparse_merge(ids, weights, 5)
    return [ind, ind.shape, merged]


@case
def expand_dims_and_eye(tf, sess):
    sp = _sp(tf)
    e0 = tf.sparse.expand_dims(sp, 0)
    e1 = tf.sparse.expand_dims(sp, -1)
    eye = tf.sparse.eye(3)
    eye2 = tf.sparse.eye(2, 4, dtype=tf.int32)
    return [e0, e0.shape, e1, e1.shape, eye, eye2, eye2.dtype]


@case
def sparse_segment_ops_and_gradients(tf, sess):
    data = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    idx = tf.constant([0, 2, 3, 1])
    seg = tf.constant([0, 0, 1, 1])
    s = tf.sparse_segment_sum(data, idx, seg)
    m = tf.sparse_segment_mean(data, idx, seg)
    q = tf.sparse_segment_sqrt_n(data, [0, 2, 3], [0, 0, 2])
    sn = tf.sparse.segment_sum(data, idx, [0, 0, 2, 2], num_segments=4)
    grads = tf.gradients(tf.reduce_sum(s * s) + tf.reduce_sum(m) + tf.reduce_sum(q * 3.0), data)
    return [s, s.shape, m, q, sn, sn.shape, grads]


@case
def sparse_bad_input_errors(tf, sess):
    bad = tf.SparseTensor([[0, 0], [5, 1]], np.array([1.0, 2.0], np.float32), [2, 2])
    a = _sp(tf)
    other = tf.SparseTensor([[0, 0]], np.array([1.0], np.float32), [3, 3])
    return [
        _error(lambda: sess.run(tf.sparse_tensor_to_dense(bad))),
        _error(lambda: sess.run(tf.sparse_to_dense([[3, 0]], [2, 2], [1.0]))),
        _error(lambda: sess.run(tf.sparse_add(a, other))),
        _error(lambda: sess.run(tf.sparse_reshape(a, [3, 3]))),
        _error(lambda: tf.sparse_add(tf.ones([2]), tf.ones([2]))),
    ]


@case
def reductions_of_empty_and_negative_groups(tf, sess):
    sp = tf.SparseTensor([[0, 0], [1, 1], [2, 0], [2, 1]], np.array([-3.0, -1.0, 2.0, -2.0], np.float32), [4, 2])
    return [
        tf.sparse_reduce_max(sp, 1),
        tf.sparse_reduce_max(sp, 0),
        tf.sparse_reduce_max_sparse(sp, 1),
        tf.sparse.reduce_sum_sparse(sp, 1),
        tf.sparse.reduce_max_sparse(sp, 0, keepdims=True),
        tf.sparse_reduce_sum(sp, 1, keepdims=True),
    ]


@case
def embedding_lookup_sparse_combiners(tf, sess):
    params = tf.constant(np.arange(20, dtype=np.float32).reshape(5, 4))
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], np.array([1, 3, 0, 0, 4], np.int64), [3, 3])
    w = tf.SparseTensor(
        [[0, 0], [0, 1], [2, 0], [2, 1], [2, 2]], np.array([1.0, 2.0, 0.5, 1.0, 3.0], np.float32), [3, 3]
    )
    out = [tf.nn.embedding_lookup_sparse(params, ids, None, combiner=c) for c in ("sum", "mean", "sqrtn")]
    out += [tf.nn.embedding_lookup_sparse(params, ids, w, combiner=c) for c in ("sum", "mean", "sqrtn")]
    grad = tf.convert_to_tensor(tf.gradients(tf.reduce_sum(out[4] * out[1]), params)[0])  # TF: IndexedSlices
    shards = [tf.constant(np.arange(12, dtype=np.float32).reshape(3, 4)), tf.constant(np.ones([2, 4], np.float32))]
    sharded = tf.nn.embedding_lookup_sparse(shards, ids, None, combiner="sum")
    return out + [grad, sharded]


@case
def safe_embedding_lookup_sparse_prunes_and_fills(tf, sess):
    params = tf.constant(np.arange(20, dtype=np.float32).reshape(5, 4))
    ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 0]], np.array([1, -1, 4, 2], np.int64), [4, 2])
    w = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 0]], np.array([2.0, 1.0, 1.0, 0.0], np.float32), [4, 2])
    a = tf.nn.safe_embedding_lookup_sparse(params, ids)
    b = tf.nn.safe_embedding_lookup_sparse(params, ids, w, combiner="sum", default_id=3)
    ids3 = tf.SparseTensor([[0, 0, 0], [1, 1, 1]], np.array([2, 3], np.int64), [2, 2, 2])
    c = tf.nn.safe_embedding_lookup_sparse(params, ids3)
    return [a, b, c, a.shape, c.shape]


@case
def sparse_matmul_and_conversion(tf, sess):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones([2, 3], np.float32)
    m = tf.sparse_matmul(a, b, transpose_b=True, a_is_sparse=True)
    sp = tf.convert_to_tensor_or_sparse_tensor(tf.SparseTensorValue([[0, 0]], np.array([1.0], np.float32), [2, 2]))
    t = tf.convert_to_tensor_or_sparse_tensor([1, 2])
    mm = tf.sparse.matmul(_sp(tf), np.ones([5, 2], np.float32))
    return [m, m.shape, m.dtype, sp, t, mm]


@case
def sparse_segment_kernels_with_num_segments_and_int64(tf, sess):
    data = tf.constant(np.arange(24, dtype=np.float64).reshape(4, 3, 2))
    idx = tf.constant([3, 1, 1, 0], tf.int64)
    seg = tf.constant([0, 2, 2, 3], tf.int64)
    out = [
        tf.sparse.segment_mean(data, idx, seg, num_segments=5),
        tf.sparse.segment_sqrt_n(data, idx, seg, num_segments=4),
        tf.sparse_segment_sum(data, idx, seg),
    ]
    grads = tf.gradients(tf.reduce_sum(out[0] * 2.0) + tf.reduce_sum(out[1] * out[1]) + tf.reduce_sum(out[2]), data)
    return out + [o.shape for o in out] + [tf.convert_to_tensor(grads[0]), [o.op.type for o in out]]


@case
def sparse_segment_bad_ids(tf, sess):
    data = tf.constant(np.ones([3, 2], np.float32))
    return [
        _error(lambda: sess.run(tf.sparse_segment_sum(data, [0, 3], [0, 0]))),
        _error(lambda: sess.run(tf.sparse_segment_mean(data, [0, 1], [1, 0]))),
        _error(lambda: sess.run(tf.sparse.segment_sum(data, [0, 1], [0, 4], num_segments=2))),
        _error(lambda: sess.run(tf.sparse_segment_sqrt_n(data, [0, 1, 2], [0, 0]))),
    ]


@case
def sparse_mask_drops_rows(tf, sess):
    values = tf.constant(np.arange(10, dtype=np.float32).reshape(5, 2))
    a = tf.IndexedSlices(values, tf.constant([12, 26, 37, 45, 50]), tf.constant([60, 2]))
    m = tf.sparse_mask(a, [12, 45])
    m2 = tf.sparse.mask(a, tf.constant([26, 99]))
    return [m.values, m.indices, m.dense_shape, m2.values, m2.indices]
