"""TF1's remaining ordinary top-level names against TensorFlow 1: Assert / Print and the tf.assert_* checks (run-time
InvalidArgumentError, build-time errors when the values are static), the in-place variable scatters and
count_up_to, batch_scatter_update / batch_gather, tensor protos, get_static_value, tuple and the deprecated
aliases."""

import numpy as np

from tests.fidelity.harness import case


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
def assert_op_runs_and_fails(tf, sess):
    x = tf.placeholder(tf.float32, [None])
    ok = tf.Assert(tf.reduce_all(x > 0), ["x must be positive", x], summarize=2)
    with tf.control_dependencies([ok]):
        y = tf.identity(x * 2)
    good = sess.run(y, {x: [1.0, 2.0]})
    bad = _error(lambda: sess.run(y, {x: [1.0, -2.0]}))
    # (TF1 guards a non-string Assert in a cond and returns its Merge op; the type is not compared.)
    return [good, bad, isinstance(ok, tf.Operation), y.shape]


@case
def print_passes_input_through(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.Print(x, [x, tf.constant("s")], message="value: ", first_n=1, summarize=2)
    return [sess.run(y), sess.run(y), y.shape, y.dtype, y.op.type]


@case
def binary_asserts_at_run_time(tf, sess):
    a = tf.placeholder(tf.int32, [3])
    b = tf.placeholder(tf.int32, [3])
    out = []
    for fn in [
        tf.assert_equal,
        tf.assert_none_equal,
        tf.assert_less,
        tf.assert_less_equal,
        tf.assert_greater,
        tf.assert_greater_equal,
    ]:
        op = fn(a, b, message="check")
        for av, bv in [([1, 2, 3], [1, 2, 3]), ([0, 1, 2], [1, 2, 3]), ([2, 3, 4], [1, 2, 3])]:
            out.append(_error(lambda op=op, av=av, bv=bv: sess.run(op, {a: av, b: bv})))
    return out


@case
def binary_asserts_static(tf, sess):
    out = []
    out.append(_error(lambda: tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]))))
    out.append(_error(lambda: tf.assert_less(tf.constant(3.0), tf.constant(2.0))))
    out.append(_error(lambda: tf.assert_positive(tf.constant([1, -1]))))
    out.append(_error(lambda: tf.assert_non_negative(tf.constant([0, -1]))))
    out.append(_error(lambda: tf.assert_negative(tf.constant([1]))))
    out.append(_error(lambda: tf.assert_non_positive(tf.constant([1]))))
    ok = tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 2]))
    out.append(_error(lambda: sess.run(ok)))
    return out


@case
def sign_asserts_at_run_time(tf, sess):
    x = tf.placeholder(tf.float32, [None])
    out = []
    for fn in [tf.assert_positive, tf.assert_negative, tf.assert_non_negative, tf.assert_non_positive]:
        op = fn(x)
        for v in [[1.0, 2.0], [-1.0, -2.0], [0.0, 0.0]]:
            out.append(_error(lambda op=op, v=v: sess.run(op, {x: v})))
    return out


@case
def assert_near_and_rank(tf, sess):
    x = tf.placeholder(tf.float32, [2])
    near = tf.assert_near(x, tf.constant([1.0, 2.0]), rtol=1e-3, atol=1e-3)
    out = [_error(lambda: sess.run(near, {x: [1.0, 2.0005]})), _error(lambda: sess.run(near, {x: [1.0, 2.1]}))]
    out.append(_error(lambda: tf.assert_rank(tf.zeros([2, 3]), 1)))
    out.append(_error(lambda: tf.assert_rank(tf.zeros([2, 3]), 2).type))
    out.append(_error(lambda: tf.assert_rank_at_least(tf.zeros([2]), 2)))
    out.append(tf.assert_rank_at_least(tf.zeros([2, 3]), 1).type)
    out.append(_error(lambda: tf.assert_rank_in(tf.zeros([2]), [0, 2])))
    out.append(tf.assert_rank_in(tf.zeros([2]), [1, 2]).type)
    u = tf.placeholder(tf.float32)
    dyn = tf.assert_rank(u, 2)
    out.append(_error(lambda: sess.run(dyn, {u: np.zeros([2, 2])})))
    out.append(_error(lambda: sess.run(dyn, {u: np.zeros([2])})))
    dyn_least = tf.assert_rank_at_least(u, 2)
    out.append(_error(lambda: sess.run(dyn_least, {u: np.zeros([2, 2, 2])})))
    out.append(_error(lambda: sess.run(dyn_least, {u: np.zeros([2])})))
    dyn_in = tf.assert_rank_in(u, [0, 3])
    out.append(_error(lambda: sess.run(dyn_in, {u: 1.0})))
    out.append(_error(lambda: sess.run(dyn_in, {u: np.zeros([2])})))
    return out


@case
def static_type_asserts(tf, sess):
    out = []
    out.append(_error(lambda: tf.assert_integer(tf.constant([1.0]))))
    out.append(tf.assert_integer(tf.constant([1])).type)
    out.append(_error(lambda: tf.assert_type(tf.constant([1.0]), tf.int32)))
    out.append(tf.assert_type(tf.constant([1.0]), tf.float32).type)
    out.append(_error(lambda: tf.assert_scalar(tf.constant([1.0]))))
    s = tf.constant(2.0)
    out.append(tf.assert_scalar(s) is s)
    out.append(tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(2.0)]))
    out.append(tf.assert_same_float_dtype(None, tf.float64))
    out.append(tf.assert_same_float_dtype())
    out.append(_error(lambda: tf.assert_same_float_dtype([tf.constant(1.0), tf.constant(1.0, tf.float64)])))
    out.append(_error(lambda: tf.assert_same_float_dtype([tf.constant(1)])))
    out.append(_error(lambda: tf.assert_proper_iterable([1, 2])))
    out.append(_error(lambda: tf.assert_proper_iterable("ab")))
    out.append(_error(lambda: tf.assert_proper_iterable(np.zeros(2))))
    out.append(_error(lambda: tf.assert_proper_iterable(3)))
    return out


@case
def assert_variables_initialized_case(tf, sess):
    tf.Variable([1.0, 2.0])
    tf.Variable(3)
    check = tf.assert_variables_initialized()
    before = _error(lambda: sess.run(check))
    sess.run(tf.global_variables_initializer())
    return [before, sess.run(check), check.shape]


@case
def scatter_ops_on_variables(tf, sess):
    base = np.arange(12, dtype=np.float32).reshape(4, 3) + 1
    v = tf.Variable(base)
    sess.run(v.initializer)
    out = []
    upd = np.array([[10, 20, 30], [1, 2, 3]], np.float32)
    for fn in [
        tf.scatter_update,
        tf.scatter_add,
        tf.scatter_sub,
        tf.scatter_mul,
        tf.scatter_div,
        tf.scatter_min,
        tf.scatter_max,
    ]:
        sess.run(tf.assign(v, base))
        r = fn(v, [2, 0], upd)
        out.append([sess.run(r), r.shape, r.dtype.base_dtype])
    sess.run(tf.assign(v, base))
    out.append(sess.run(tf.scatter_add(v, [1, 1, 3], np.ones([3, 3], np.float32))))
    out.append(sess.run(tf.scatter_update(v, tf.constant([0], tf.int64), [[7.0, 7.0, 7.0]])))
    out.append(sess.run(tf.scatter_update(v, 2, [5.0, 5.0, 5.0])))
    out.append(sess.run(v))
    out.append(_error(lambda: sess.run(tf.scatter_update(v, [4], [[1.0, 1.0, 1.0]]))))
    out.append(_error(lambda: sess.run(tf.scatter_add(v, [-1], [[1.0, 1.0, 1.0]]))))
    out.append(_error(lambda: tf.scatter_update(v, [0, 1], [[1.0, 1.0, 1.0]])))
    i = tf.Variable([5, 6, 7])
    sess.run(i.initializer)
    out.append(sess.run(tf.scatter_div(i, [0, 2], [2, -3])))
    out.append(sess.run(tf.scatter_mul(i, [1], [3])))
    return out


@case
def scatter_nd_ops_on_variables(tf, sess):
    base = np.arange(8, dtype=np.int32).reshape(2, 4)
    v = tf.Variable(base)
    sess.run(v.initializer)
    out = []
    for fn in [tf.scatter_nd_update, tf.scatter_nd_add, tf.scatter_nd_sub]:
        sess.run(tf.assign(v, base))
        r = fn(v, [[0, 1], [1, 3]], [100, 200])
        out.append([sess.run(r), r.shape])
    sess.run(tf.assign(v, base))
    out.append(sess.run(tf.scatter_nd_update(v, [[1]], [[9, 9, 9, 9]])))
    out.append(sess.run(tf.scatter_nd_add(v, [[0], [0]], [[1, 1, 1, 1], [2, 2, 2, 2]])))
    out.append(_error(lambda: sess.run(tf.scatter_nd_update(v, [[2, 0]], [1]))))
    out.append(_error(lambda: tf.scatter_nd_update(v, [[0, 0]], [1, 2])))
    return out


@case
def count_up_to_case(tf, sess):
    v = tf.Variable(0, name="counter")
    c = tf.count_up_to(v, 2)
    sess.run(v.initializer)
    first, second = sess.run(c), sess.run(c)
    return [first, second, _error(lambda: sess.run(c)), sess.run(v), c.shape, c.dtype, c.op.type]


@case
def batch_scatter_update_and_gather(tf, sess):
    v = tf.Variable(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    sess.run(v.initializer)
    r = tf.batch_scatter_update(v, [[2], [0]], [[[-1.0, -1.0]], [[-2.0, -2.0]]])
    params = tf.constant(np.arange(24).reshape(2, 3, 4))
    g = tf.batch_gather(params, [[2, 0], [1, 1]])
    g2 = tf.batch_gather(tf.constant([[1, 2, 3], [4, 5, 6]]), [[2, 1, 0], [0, 0, 2]])
    return [sess.run(r), g, g.shape, g2, g2.shape]


@case
def tensor_protos(tf, sess):
    p = tf.make_tensor_proto([[1.0, 2.0], [3.0, 4.0]])
    q = tf.make_tensor_proto(5, dtype=tf.int64, shape=[2, 3])
    s = tf.make_tensor_proto([b"a", b"bc"])
    arr = tf.make_ndarray(p)
    return [
        p.dtype,
        [d.size for d in p.tensor_shape.dim],
        arr,
        str(arr.dtype),
        tf.make_ndarray(q),
        str(tf.make_ndarray(q).dtype),
        list(tf.make_ndarray(s)),
        tf.make_ndarray(tf.make_tensor_proto(np.arange(6, dtype=np.int16).reshape(2, 3))),
        _error(lambda: tf.make_tensor_proto([1, 2, 3], shape=[2])),
        _error(lambda: tf.make_tensor_proto([1, 2], shape=[3], verify_shape=True)),
        tf.make_tensor_proto(1).dtype,
    ]


@case
def static_values_and_is_tensor(tf, sess):
    x = tf.placeholder(tf.float32, [2, 3])
    c = tf.constant([1, 2])
    v = tf.Variable(1.0)
    return [
        tf.get_static_value(c),
        tf.get_static_value(tf.shape(x)),
        tf.get_static_value(tf.size(x)),
        tf.get_static_value(tf.rank(x)),
        tf.get_static_value(x),
        tf.get_static_value(tf.cast(c, tf.float32)),
        tf.get_static_value(tf.stack([c, c])),
        tf.get_static_value(3),
        tf.is_tensor(c),
        tf.is_tensor(v),
        tf.is_tensor(np.zeros(2)),
        tf.is_tensor(1.0),
        tf.is_tensor(c.op),
    ]


@case
def enums_and_constants(tf, sess):
    return [
        tf.AggregationMethod.ADD_N,
        tf.AggregationMethod.DEFAULT,
        tf.AggregationMethod.EXPERIMENTAL_TREE,
        tf.AggregationMethod.EXPERIMENTAL_ACCUMULATE_N,
        tf.UnconnectedGradients.NONE.value,
        tf.UnconnectedGradients.ZERO.value,
        [m.name for m in tf.VariableAggregation],
        tf.VariableAggregation.ONLY_FIRST_TOWER is tf.VariableAggregation.ONLY_FIRST_REPLICA,
        [m.name for m in tf.VariableSynchronization],
        tf.NoGradient is tf.NotDifferentiable,
        type(tf.GRAPH_DEF_VERSION).__name__,
        isinstance(tf.VERSION, str),
        [type(tf.GraphDef()).__name__, type(tf.NodeDef()).__name__, type(tf.AttrValue()).__name__],
        [type(tf.NameAttrList()).__name__, type(tf.MetaGraphDef()).__name__, type(tf.TensorInfo()).__name__],
    ]


@case
def tuple_and_aliases(tf, sess):
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    t = tf.tuple([a * 2, b + 1, None])
    v = tf.Variable(3, collections=[tf.GraphKeys.LOCAL_VARIABLES])
    with tf.variable_scope("s"):
        loc = tf.get_local_variable("loc", shape=[2], initializer=tf.zeros_initializer())
    sess.run(tf.initialize_all_variables())
    sess.run(tf.initialize_local_variables())
    sess.run(tf.initialize_variables([a]))
    names = [x.op.name for x in tf.all_variables()]
    with tf.op_scope([a], "outer", "default") as scope:
        inside = tf.constant(1.0, name="c")
    with tf.variable_op_scope([a], None, "vscope"):
        w = tf.get_variable("w", [1])
    return [
        sess.run(t[:2]),
        t[2],
        [x.shape for x in t[:2]],
        names,
        sess.run(v),
        loc.name,
        sess.run(loc),
        [x.op.name for x in tf.local_variables()],
        [x.op.name for x in tf.trainable_variables()],
        scope,
        inside.op.name,
        w.op.name,
        tf.no_regularizer(a),
        [x.op.name for x in tf.model_variables()],
        [x.op.name for x in tf.moving_average_variables()],
        tf.tables_initializer().type,
        tf.tables_initializer().name,
        _error(lambda: tf.tuple([a * 1], control_inputs=[1])),
    ]


@case
def init_scope_clears_control_dependencies(tf, sess):
    a = tf.constant(1.0)
    with tf.control_dependencies([a]), tf.name_scope("inner"):
        with tf.init_scope():
            b = tf.constant(2.0, name="b")
        c = tf.constant(3.0, name="c")
    return [len(b.op.control_inputs), len(c.op.control_inputs), b.op.name, c.op.name]


@case
def more_initializers(tf, sess):
    # The random streams differ from TF's: shapes, dtypes and the properties of the values are compared.
    orth = tf.get_variable("orth", [6, 4], initializer=tf.orthogonal_initializer(gain=2.0, seed=1))
    wide = tf.get_variable("wide", [2, 3, 8], initializer=tf.initializers.orthogonal(seed=2))
    ident = tf.get_variable("ident", [3, 4], initializer=tf.initializers.identity(gain=0.5))
    uus = tf.get_variable("uus", [400, 50], initializer=tf.uniform_unit_scaling_initializer(factor=1.5, seed=3))
    ln = tf.get_variable("ln", [300, 200], initializer=tf.initializers.lecun_normal(seed=4))
    lu = tf.get_variable("lu", [300, 200], initializer=tf.initializers.lecun_uniform(seed=5))
    sess.run(tf.initializers.global_variables())
    sess.run(tf.initializers.local_variables())
    o, w, i, u, n, lv = sess.run([orth, wide, ident, uus, ln, lu])
    w2 = w.reshape(6, 8)
    limit = 1.5 * np.sqrt(3 / 400)
    return [
        o.shape,
        bool(np.allclose(o.T @ o, 4 * np.eye(4), atol=1e-4)),
        w.shape,
        bool(np.allclose(w2 @ w2.T, np.eye(6), atol=1e-4)),
        i,
        bool(np.all(np.abs(u) <= limit)),
        bool(np.abs(u).max() > 0.9 * limit),
        bool(abs(n.std() - np.sqrt(1 / 300)) < 0.1 * np.sqrt(1 / 300)),
        bool(np.abs(n).max() <= 2 * np.sqrt(1 / 300) / 0.87962566103423978 + 1e-6),
        bool(abs(lv.std() - np.sqrt(1 / 300)) < 0.1 * np.sqrt(1 / 300)),
        _error(lambda: tf.get_variable("o1", [3], initializer=tf.orthogonal_initializer())),
        _error(lambda: tf.get_variable("i3", [2, 2, 2], initializer=tf.initializers.identity())),
        tf.initializers.variables([orth]).type,
        tf.initializers.tables_initializer().type,
    ]


@case
def partitioners(tf, sess):
    shape = tf.TensorShape([100, 20])
    return [
        tf.fixed_size_partitioner(4)(shape=shape, dtype=tf.float32),
        tf.fixed_size_partitioner(300, axis=1)(shape=shape, dtype=tf.float32),
        tf.variable_axis_size_partitioner(1000)(shape, tf.float32),
        tf.variable_axis_size_partitioner(1000, axis=1, max_shards=3)(shape, tf.float32),
        tf.variable_axis_size_partitioner(100)(shape, tf.string),
        tf.variable_axis_size_partitioner(10)(shape, tf.float64),
        _error(lambda: tf.variable_axis_size_partitioner(0)),
        _error(lambda: tf.variable_axis_size_partitioner(10)(tf.TensorShape([None, 2]), tf.float32)),
        tf.min_max_variable_partitioner(max_partitions=8, min_slice_size=1024)(shape, tf.float32),
        tf.min_max_variable_partitioner(max_partitions=3, min_slice_size=64)(shape, tf.float32),
        tf.min_max_variable_partitioner(max_partitions=8, axis=1, min_slice_size=1 << 20)(shape, tf.float32),
        tf.min_max_variable_partitioner(max_partitions=8, min_slice_size=1000)(shape, tf.string),
        _error(lambda: tf.min_max_variable_partitioner(axis=2)(shape, tf.float32)),
    ]


@case
def custom_gradient_and_pass_through(tf, sess):
    @tf.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.5, 0.5)

        return tf.identity(x * 3.0), grad

    @tf.custom_gradient
    def two_in(a, b):
        def grad(dy):
            return [dy * 10.0, dy * 100.0]

        return a * b, grad

    x = tf.constant([1.0, 2.0])
    y = clip_grad(x)
    [gx] = tf.gradients(y * 2.0, [x])
    a, b = tf.constant(2.0), tf.constant(3.0)
    ab = two_in(a, b)
    ga, gb = tf.gradients(ab, [a, b])
    rounded = tf.grad_pass_through(tf.round)(x * 1.4)
    [gr] = tf.gradients(rounded * 5.0, [x])
    v = tf.Variable([0.0, 0.0])
    assign_through = tf.grad_pass_through(lambda t: tf.assign(v, t))(x)
    [gv] = tf.gradients(tf.reduce_sum(assign_through * x), [x])
    sess.run(v.initializer)
    return [y, y.shape, gx, ab, ga, gb, rounded, gr, gv]


@case
def hessians_and_unconnected(tf, sess):
    x = tf.constant([1.0, 2.0, 3.0])
    y = tf.reduce_sum(x**3) + x[0] * x[1]
    [h] = tf.hessians(y, x)
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    [hm] = tf.hessians(tf.reduce_sum(m * m * m), m)
    z = tf.constant(5.0)
    none_grad = tf.gradients(x * 2.0, [z])
    zero_grad = tf.gradients(x * 2.0, [z], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    zero_str = tf.gradients(x * 2.0, [z], unconnected_gradients="zero")
    return [h, hm, hm.shape.as_list() if hm.shape.ndims is not None else None, none_grad, zero_grad, zero_str]


@case
def make_template_shares_variables(tf, sess):
    def dense(x, units):
        w = tf.get_variable("w", [2, units], initializer=tf.ones_initializer())
        return tf.matmul(x, w)

    t = tf.make_template("dense", dense, units=3)
    other = tf.make_template("dense", dense, units=1)
    a = t(tf.constant([[1.0, 2.0]]))
    b = t(tf.constant([[3.0, 4.0]]))
    c = other(tf.constant([[1.0, 1.0]]))
    sess.run(tf.global_variables_initializer())
    return [
        sess.run([a, b, c]),
        [v.op.name for v in tf.global_variables()],
        t.variable_scope.name,
        other.variable_scope.name,
        [v.op.name for v in t.trainable_variables],
    ]


@case
def dynamic_partition_and_stitch(tf, sess):
    data = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
    parts = tf.dynamic_partition(data, [0, 2, 1, 0, 2, 2], 3)
    flat = tf.dynamic_partition(tf.constant([[1, 2], [3, 4]]), [[1, 0], [0, 1]], 2)
    strings = tf.dynamic_partition(tf.constant(["a", "b", "c"]), [1, 1, 0], 2)
    stitched = tf.dynamic_stitch([[0, 3], [1, 2, 3]], [[[1.0, 1.0], [2.0, 2.0]], [[3.0, 3.0], [4.0, 4.0], [5.0, 5.0]]])
    gaps = tf.dynamic_stitch([tf.constant([4]), tf.constant([0, 1])], [tf.constant([7]), tf.constant([8, 9])])
    p = tf.placeholder(tf.int32, [None])
    dyn = tf.dynamic_stitch([p], [tf.constant([1, 2, 3])])
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2))
    px = tf.dynamic_partition(x, [1, 0, 1], 2)
    loss = tf.reduce_sum(px[0] * 2.0) + tf.reduce_sum(px[1] * px[1])
    [gx] = tf.gradients(loss, [x])
    a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0])
    st = tf.dynamic_stitch([[0, 1], [1]], [a, b])
    ga, gb = tf.gradients(st * tf.constant([10.0, 20.0]), [a, b])
    return [
        parts,
        [t.shape for t in parts],
        flat,
        strings,
        stitched,
        stitched.shape,
        gaps,
        gaps.shape,
        sess.run(dyn, {p: [2, 0, 1]}),
        dyn.shape,
        gx,
        ga,
        gb,
        _error(lambda: sess.run(tf.dynamic_partition(data, [0, 3, 1, 0, 2, 2], 3))),
        _error(lambda: tf.dynamic_partition(data, [0, 1], 3)),
        _error(lambda: sess.run(tf.dynamic_stitch([p], [tf.constant([1, 2])]), {p: [0, 1, 2]})),
    ]


@case
def base64_round_trip(tf, sess):
    raw = tf.constant([b"", b"a", b"ab", b"abc", b"\xff\xfe\x00hello?>", b"tensorweave"])
    enc = tf.encode_base64(raw)
    enc_pad = tf.encode_base64(raw, pad=True)
    return [
        enc,
        enc_pad,
        tf.decode_base64(enc),
        tf.decode_base64(enc_pad),
        enc.shape,
        tf.decode_base64(tf.constant([["YWJj", "eA"]])),
        _error(lambda: sess.run(tf.decode_base64(tf.constant("ab+c")))),
    ]


@case
def indexed_slices_and_conversion(tf, sess):
    values = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    s = tf.IndexedSlices(values, tf.constant([0, 2, 0]), tf.constant([4, 2]))
    dense = tf.convert_to_tensor(s)
    neg = -s
    same = tf.convert_to_tensor_or_indexed_slices(s)
    t = tf.convert_to_tensor_or_indexed_slices([1, 2])

    class Celsius:
        def __init__(self, deg):
            self.deg = deg

    tf.register_tensor_conversion_function(
        Celsius, lambda value, dtype=None, name=None, as_ref=False: tf.constant(value.deg, dtype=dtype, name=name)
    )
    c = tf.add(Celsius(3.0), 1.0)
    return [
        dense,
        dense.shape,
        s.shape,
        s.dtype,
        sess.run(neg.values),
        same is s,
        t,
        c,
        _error(lambda: tf.convert_to_tensor(tf.IndexedSlices(values, tf.constant([0, 1, 2])))),
        _error(lambda: tf.convert_to_tensor_or_indexed_slices(s, dtype=tf.int32)),
    ]


@case
def op_error_and_logger(tf, sess):
    import logging

    caught = None
    try:
        sess.run(tf.Assert(False, ["no"]))
    except tf.OpError as e:
        caught = [isinstance(e, tf.errors.InvalidArgumentError), tf.OpError is tf.errors.OpError]
    return [caught, isinstance(tf.get_logger(), logging.Logger)]
