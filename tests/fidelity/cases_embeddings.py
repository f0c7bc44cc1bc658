"""Very large sparse models as a TF1 program sees them: partitioned variables (get_variable with a
partitioner), embedding_lookup over them with "mod" and "div" on uneven partitions, gathers whose gradients
are IndexedSlices, every optimizer's sparse update over a few steps, clip_by_global_norm of IndexedSlices,
embedding_lookup_sparse / safe_embedding_lookup_sparse over a PartitionedVariable, sampled losses with given
samples, and bad ids."""

import numpy as np

from tests.fidelity.harness import case


def _filled_partitioned(tf, sess, name, rows, dim, partitioner):
    """A PartitionedVariable whose part p holds 100 * p + its local row-major count."""
    var = tf.get_variable(name, [rows, dim], initializer=tf.zeros_initializer(), partitioner=partitioner)
    sess.run(tf.global_variables_initializer())
    for p, part in enumerate(var):
        n = part.get_shape().as_list()[0]
        sess.run(part.assign(np.arange(n * dim, dtype=np.float32).reshape(n, dim) + 100.0 * p))
    return var


@case
def partitioned_variable_names_and_shapes(tf, sess):
    out = []
    for name, shape, partitioner in [
        ("a", [10, 4], tf.fixed_size_partitioner(3)),
        ("b", [7, 2], tf.fixed_size_partitioner(5)),
        ("c", [3, 2], tf.fixed_size_partitioner(1)),
        ("d", [1000, 64], tf.min_max_variable_partitioner(max_partitions=6, min_slice_size=32 << 10)),
        ("e", [1000, 64], tf.variable_axis_size_partitioner(max_shard_bytes=70000)),
        ("f", [4, 9], tf.fixed_size_partitioner(2, axis=1)),
    ]:
        v = tf.get_variable(name, shape, partitioner=partitioner)
        out.append([[p.op.name for p in v], [p.get_shape() for p in v], v.get_shape(), len(list(v))])
    return out


@case
def partitioned_variable_reuse_and_value(tf, sess):
    with tf.variable_scope("s"):
        v = tf.get_variable("t", [5, 2], initializer=tf.ones_initializer(), partitioner=tf.fixed_size_partitioner(2))
    with tf.variable_scope("s", reuse=True):
        again = tf.get_variable("t", [5, 2], partitioner=tf.fixed_size_partitioner(2))
    sess.run(tf.global_variables_initializer())
    return [again is v, tf.convert_to_tensor(v), [p.op.name for p in tf.global_variables()]]


@case
def embedding_lookup_partitioned_mod_and_div(tf, sess):
    out = []
    for i, (parts, rows) in enumerate([(3, 10), (4, 11), (2, 7), (5, 5), (3, 3)]):
        v = _filled_partitioned(tf, sess, f"emb{i}", rows, 2, tf.fixed_size_partitioner(parts))
        ids = np.array([[rows - 1, 0, 1], [2, rows // 2, rows - 1]], np.int64)
        for strategy in ("mod", "div"):
            out.append(tf.nn.embedding_lookup(v, ids, partition_strategy=strategy))
    return out


@case
def embedding_lookup_list_of_tensors_uneven(tf, sess):
    shards = [tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2) + 10 * p) for p in range(3)]
    shards[2] = tf.constant(np.array([[90.0, 91.0], [92.0, 93.0]], np.float32))
    ids = tf.constant([7, 0, 3, 4, 5, 6, 2], tf.int32)
    r_mod = tf.nn.embedding_lookup(shards, ids, partition_strategy="mod")
    r_div = tf.nn.embedding_lookup(shards, ids, partition_strategy="div")
    return [r_mod, r_div, r_mod.shape, r_div.shape]


@case
def embedding_lookup_max_norm(tf, sess):
    v = _filled_partitioned(tf, sess, "emb", 9, 3, tf.fixed_size_partitioner(2))
    single = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    return [
        tf.nn.embedding_lookup(v, [[0, 8], [4, 5]], partition_strategy="div", max_norm=5.0),
        tf.nn.embedding_lookup(v, [0, 8, 4], partition_strategy="mod", max_norm=50.0),
        tf.nn.embedding_lookup(single, [3, 0, 1], max_norm=4.0),
    ]


def _sorted_slices(value):
    """An IndexedSlicesValue's rows ordered by index (the order of concatenated gradients is traversal order)."""
    order = np.argsort(value.indices, kind="stable")
    return [value.values[order], value.indices[order], value.dense_shape]


@case
def gather_gradient_is_indexed_slices(tf, sess):
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3))
    ids = tf.constant([[1, 3], [1, 0]])
    emb = tf.gather(table, ids)
    (g,) = tf.gradients(tf.reduce_sum(emb * emb), [table])
    (g2,) = tf.gradients(tf.reduce_sum(tf.gather(table, [2, 2])) + tf.reduce_sum(tf.gather(table, [0])), [table])
    (g3,) = tf.gradients(tf.reduce_sum(tf.gather(table, [1])) + tf.reduce_sum(table), [table])
    (g4,) = tf.gradients(tf.reduce_sum(tf.gather(table, [2, 0], axis=1)), [table])
    sess.run(tf.global_variables_initializer())
    return [
        isinstance(g, tf.IndexedSlices),
        sess.run(g),
        isinstance(g2, tf.IndexedSlices),
        _sorted_slices(sess.run(g2)),
        isinstance(g3, tf.IndexedSlices),
        g3,
        isinstance(g4, tf.IndexedSlices),
        g4,
    ]


@case
def partitioned_lookup_gradients_per_shard(tf, sess):
    v = _filled_partitioned(tf, sess, "emb", 10, 2, tf.fixed_size_partitioner(3))
    out = []
    for strategy in ("mod", "div"):
        emb = tf.nn.embedding_lookup(v, [[9, 1], [1, 4]], partition_strategy=strategy)
        grads = tf.gradients(tf.reduce_sum(emb * 3.0), list(v))
        out.append([type(g).__name__ for g in grads])
        out.append([tf.convert_to_tensor(g) for g in grads])
    return out


def _sparse_steps(tf, sess, make_opt, partitioned):
    """Three steps of make_opt() on a lookup with repeated ids; the table's parts and every slot after."""
    full = np.linspace(-1.0, 1.0, 21).reshape(7, 3).astype(np.float32)
    if partitioned:
        table = tf.get_variable(
            "table", [7, 3], initializer=tf.zeros_initializer(), partitioner=tf.fixed_size_partitioner(2)
        )
        variables = list(table)
    else:
        table = tf.Variable(full, name="table")
        variables = [table]
    ids = tf.placeholder(tf.int64, [None])
    emb = tf.nn.embedding_lookup(table, ids, partition_strategy="div")
    loss = tf.reduce_sum(
        tf.square(emb - 0.25) * tf.reshape(tf.range(1.0, 1.0 + tf.cast(tf.size(ids), tf.float32)), [-1, 1])
    )
    opt = make_opt()
    step = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
    sess.run(tf.global_variables_initializer())
    if partitioned:
        sess.run([variables[0].assign(full[:4]), variables[1].assign(full[4:])])
    for batch in ([0, 2, 2, 6], [1, 2], [6, 6, 5, 0]):
        sess.run(step, {ids: batch})
    slots = [opt.get_slot(v, n) for v in variables for n in sorted(opt.get_slot_names())]
    return [variables, slots]


def _optimizer_cases():
    makers = {
        "sgd": lambda tf: tf.train.GradientDescentOptimizer(0.1),
        "momentum": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9),
        "nesterov": lambda tf: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=True),
        "adagrad": lambda tf: tf.train.AdagradOptimizer(0.3),
        "adam": lambda tf: tf.train.AdamOptimizer(0.1),
        "rmsprop": lambda tf: tf.train.RMSPropOptimizer(0.1, momentum=0.5),
        "centered_rmsprop": lambda tf: tf.train.RMSPropOptimizer(0.1, momentum=0.5, centered=True),
        "adadelta": lambda tf: tf.train.AdadeltaOptimizer(1.0),
        "ftrl": lambda tf: tf.train.FtrlOptimizer(0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.1),
        "proximal_adagrad": lambda tf: tf.train.ProximalAdagradOptimizer(0.3, l1_regularization_strength=0.01),
        "proximal_gd": lambda tf: tf.train.ProximalGradientDescentOptimizer(0.3, l1_regularization_strength=0.01),
        "adagrad_da": lambda tf: tf.train.AdagradDAOptimizer(0.3, tf.train.get_or_create_global_step()),
    }
    for opt_name, make in makers.items():
        for partitioned in (False, True):
            suffix = "partitioned" if partitioned else "table"

            def fn(tf, sess, make=make, partitioned=partitioned):
                return _sparse_steps(tf, sess, lambda: make(tf), partitioned)

            fn.__name__ = f"sparse_steps_{opt_name}_{suffix}"
            fn.__qualname__ = fn.__name__
            fn.__module__ = __name__
            case(fn, tol=2e-5)


_optimizer_cases()


@case
def clip_by_global_norm_indexed_slices(tf, sess):
    table = tf.Variable(np.ones((5, 2), np.float32))
    dense = tf.Variable([1.0, -2.0])
    loss = tf.reduce_sum(tf.gather(table, [1, 1, 3]) * 3.0) + tf.reduce_sum(dense * dense)
    g_table, g_dense = tf.gradients(loss, [table, dense])
    clipped, norm = tf.clip_by_global_norm([g_table, g_dense, None], 2.0)
    sess.run(tf.global_variables_initializer())
    return [type(clipped[0]).__name__, sess.run(clipped[0]), clipped[1], clipped[2], norm, tf.global_norm([g_table])]


@case
def embedding_lookup_sparse_partitioned(tf, sess):
    v = _filled_partitioned(tf, sess, "emb", 11, 2, tf.fixed_size_partitioner(3))
    sp_ids = tf.SparseTensor(
        [[0, 0], [0, 1], [1, 0], [3, 0], [3, 1], [3, 2]], np.array([1, 10, 4, 4, 0, 4], np.int64), [4, 3]
    )
    sp_w = tf.SparseTensor(sp_ids.indices, np.array([1.0, 2.0, 0.5, 1.0, 3.0, 1.0], np.float32), [4, 3])
    out = []
    for combiner in ("sum", "mean", "sqrtn"):
        for strategy in ("mod", "div"):
            out.append(tf.nn.embedding_lookup_sparse(v, sp_ids, None, combiner=combiner, partition_strategy=strategy))
            out.append(tf.nn.embedding_lookup_sparse(v, sp_ids, sp_w, combiner=combiner, partition_strategy=strategy))
    return out


@case
def safe_embedding_lookup_sparse_partitioned(tf, sess):
    v = _filled_partitioned(tf, sess, "emb", 7, 2, tf.fixed_size_partitioner(2))
    sp_ids = tf.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 0]], np.array([1, -1, 6, -3], np.int64), [4, 2])
    sp_w = tf.SparseTensor(sp_ids.indices, np.array([2.0, 1.0, 0.0, 1.0], np.float32), [4, 2])
    return [
        tf.nn.safe_embedding_lookup_sparse(v, sp_ids),
        tf.nn.safe_embedding_lookup_sparse(v, sp_ids, sp_w, combiner="sum", default_id=3),
        tf.nn.safe_embedding_lookup_sparse(list(v), sp_ids, None, combiner="sqrtn", partition_strategy="mod"),
    ]


@case
def embedding_lookup_bad_ids(tf, sess):
    v = _filled_partitioned(tf, sess, "emb", 10, 2, tf.fixed_size_partitioner(3))
    table = tf.constant(np.ones((4, 2), np.float32))
    out = []
    for params, ids, strategy in [
        (table, [0, 4], "mod"),
        (table, [-1], "mod"),
        (v, [10], "mod"),
        (v, [10], "div"),
        (v, [-1], "mod"),
        (v, [12, 0], "div"),
    ]:
        try:
            out.append(sess.run(tf.nn.embedding_lookup(params, ids, partition_strategy=strategy)))
        except tf.errors.OpError as e:
            out.append(type(e).__name__)
    return out


@case
def sampled_losses_given_samples(tf, sess):
    rng = np.random.RandomState(3)
    w = tf.get_variable(
        "w", [12, 4], initializer=tf.constant_initializer(rng.randn(12, 4)), partitioner=tf.fixed_size_partitioner(3)
    )
    b = tf.constant(rng.randn(12).astype(np.float32))
    inputs = tf.constant(rng.randn(3, 4).astype(np.float32))
    labels = tf.constant([[1, 5], [5, 11], [0, 2]], tf.int64)
    sampled = (
        tf.constant([5, 3, 7, 0], tf.int64),
        tf.constant([[0.5, 0.25], [0.25, 0.125], [0.75, 0.5]], tf.float32),
        tf.constant([0.25, 0.5, 0.125, 0.75], tf.float32),
    )
    out = []
    for strategy in ("mod", "div"):
        for remove in (True, False):
            out.append(
                tf.nn.sampled_softmax_loss(
                    w,
                    b,
                    labels,
                    inputs,
                    4,
                    12,
                    num_true=2,
                    sampled_values=sampled,
                    remove_accidental_hits=remove,
                    partition_strategy=strategy,
                )  # fmt: skip
            )
            out.append(
                tf.nn.nce_loss(
                    w,
                    b,
                    labels,
                    inputs,
                    4,
                    12,
                    num_true=2,
                    sampled_values=sampled,
                    remove_accidental_hits=remove,
                    partition_strategy=strategy,
                )  # fmt: skip
            )
    loss = tf.reduce_sum(tf.nn.sampled_softmax_loss(w, b, labels, inputs, 4, 12, num_true=2, sampled_values=sampled))
    grads = tf.gradients(loss, list(w))
    sess.run(tf.global_variables_initializer())
    out.append([type(g).__name__ for g in grads])
    out.append([tf.convert_to_tensor(g) for g in grads])
    out.append(tf.nn.compute_accidental_hits(labels, sampled[0], num_true=2))
    return out


def _consistent_tries(expected, probabilities, num_sampled):
    """Whether the unique sampler's expected counts are -expm1(tries * log1p(-p)) for one integer tries >=
    num_sampled (or p * num_sampled when no draw repeated): TF's formula, whatever the random draws were."""
    p = np.asarray(probabilities, np.float64).reshape(-1)
    e = np.asarray(expected, np.float64).reshape(-1)
    for tries in range(num_sampled, 2000):
        model = p * num_sampled if tries == num_sampled else -np.expm1(tries * np.log1p(-p))
        if np.allclose(model, e, rtol=1e-5, atol=1e-7):
            return True
    return False


@case
def sampler_expected_counts(tf, sess):
    true = tf.constant([[0, 3], [9, 1]], tf.int64)
    log_p = (np.log([2.0, 5.0, 11.0, 3.0]) - np.log([1.0, 4.0, 10.0, 2.0])) / np.log(11.0)
    uniform_p = np.full(4, 0.1)
    unigrams = np.arange(1.0, 11.0) ** 0.5
    unigram_p = (unigrams / unigrams.sum())[[0, 3, 9, 1]]
    out = []
    for unique in (False, True):
        _, t_log, _ = tf.nn.log_uniform_candidate_sampler(true, 2, 5, unique, 10, seed=7)
        _, t_uni, _ = tf.nn.uniform_candidate_sampler(true, 2, 5, unique, 10, seed=7)
        _, t_fix, _ = tf.nn.fixed_unigram_candidate_sampler(
            true, 2, 4, unique, 10, unigrams=list(np.arange(1.0, 11.0)), distortion=0.5, seed=7
        )
        t_log, t_uni, t_fix = sess.run([t_log, t_uni, t_fix])
        if not unique:
            out.append([t_log, t_uni, t_fix])
        out.append(
            [
                _consistent_tries(t_log, log_p, 5),
                _consistent_tries(t_uni, uniform_p, 5),
                _consistent_tries(t_fix, unigram_p, 4),
            ]
        )
    return out


@case
def gather_axis_and_batch_dims(tf, sess):
    rng = np.random.RandomState(0)
    p = tf.constant(rng.randn(2, 3, 4, 5).astype(np.float32))
    out = []
    for batch_dims, axis, ishape, hi in [
        (1, 1, (2, 6), 3),
        (1, 2, (2, 3), 4),
        (2, 2, (2, 3, 2), 4),
        (1, 3, (2, 2, 2), 5),
        (-1, None, (2, 3, 4), 4),
        (0, 2, (3,), 4),
        (0, -1, (2, 2), 5),
    ]:
        idx = tf.constant(rng.randint(0, hi, size=ishape))
        r = tf.gather(p, idx, axis=axis, batch_dims=batch_dims)
        out += [r, r.shape, tf.gradients(tf.reduce_sum(r * r), [p])[0]]
    for bad in [
        lambda: tf.gather(p, [[0, 3], [1, 1]], axis=1, batch_dims=1),
        lambda: tf.gather(p, [[0, 1]], axis=0, batch_dims=1),
        lambda: tf.gather(p, [[0, 1], [1, 1]], axis=1, batch_dims=3),
    ]:
        try:
            out.append(sess.run(bad()))
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    return out


@case
def scatter_ops_on_variables(tf, sess):
    out = []
    for fn, updates in [
        (tf.scatter_update, [[1.0, 2.0], [3.0, 4.0]]),
        (tf.scatter_add, [[1.0, 2.0], [3.0, 4.0]]),
        (tf.scatter_sub, [[1.0, 2.0], [3.0, 4.0]]),
        (tf.scatter_mul, [[2.0, 2.0], [3.0, 0.5]]),
        (tf.scatter_div, [[2.0, 4.0], [8.0, 0.5]]),
        (tf.scatter_min, [[0.0, 9.0], [1.0, 1.0]]),
        (tf.scatter_max, [[0.0, 9.0], [1.0, 1.0]]),
    ]:
        v = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2) + 1.0)
        sess.run(v.initializer)
        out.append(sess.run(fn(v, [3, 0], updates)))
    for fn in (tf.scatter_nd_update, tf.scatter_nd_add, tf.scatter_nd_sub):
        v = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
        sess.run(v.initializer)
        out.append(sess.run(fn(v, [[1, 1], [3, 0]], [10.0, 20.0])))
        out.append(sess.run(fn(v, [[2]], [[5.0, 6.0]])))
    v = tf.Variable(np.zeros((3, 2), np.float32))
    sess.run(v.initializer)
    for bad in [lambda: tf.scatter_add(v, [3], [[1.0, 1.0]]), lambda: tf.scatter_nd_update(v, [[0, 2]], [1.0])]:
        try:
            out.append(sess.run(bad()))
        except Exception as e:  # noqa: BLE001 - the class is the observation
            out.append(type(e).__name__)
    return out


@case
def sparse_placeholder_and_dense_matmul(tf, sess):
    sp = tf.sparse_placeholder(tf.float32, name="sp")
    b = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    out = []
    value = tf.SparseTensorValue([[0, 1], [2, 3], [1, 0]], np.array([1.0, -2.0, 0.5], np.float32), [3, 4])
    as_tuple = (np.array([[0, 0], [2, 2]], np.int64), np.array([3.0, 4.0], np.float32), np.array([3, 4], np.int64))
    for feed in (value, as_tuple):
        out.append(sess.run(tf.sparse_tensor_dense_matmul(sp, b), {sp: feed}))
        out.append(sess.run(tf.sparse_tensor_dense_matmul(sp, tf.transpose(b), adjoint_b=True), {sp: feed}))
        out.append(sess.run(tf.sparse_tensor_dense_matmul(sp, np.ones([3, 2], np.float32), adjoint_a=True), {sp: feed}))
        out.append(
            sess.run(
                tf.sparse_tensor_dense_matmul(sp, np.ones([2, 3], np.float32), adjoint_a=True, adjoint_b=True),
                {sp: feed},
            )
        )
    try:
        out.append(sess.run(tf.sparse_tensor_dense_matmul(sp, np.ones([5, 2], np.float32)), {sp: value}))
    except Exception as e:  # noqa: BLE001 - the class is the observation
        out.append(type(e).__name__)
    return out


@case
def embedding_lookup_names_and_static_shapes(tf, sess):
    one = tf.nn.embedding_lookup(tf.constant([[1.0], [2.0]]), [1])
    two = tf.nn.embedding_lookup([tf.constant([[1.0], [2.0]])] * 2, [[1, 0]], name="lookup")
    clipped = tf.nn.embedding_lookup([tf.constant([[3.0, 4.0]])] * 3, [2], max_norm=1.0)
    unknown = tf.nn.embedding_lookup([tf.placeholder(tf.float32, [None, 2]), tf.ones([3, 2])], [0], "div")
    return [one.name, one.op.inputs[0].op.name, two.name, two.shape, clipped, unknown.shape]
