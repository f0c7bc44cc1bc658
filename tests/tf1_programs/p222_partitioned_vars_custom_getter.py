"""Large-embedding and mixed-precision variable tricks of TF1 code: get_variable with fixed_size_partitioner,
min_max_variable_partitioner and variable_axis_size_partitioner (the part names, shapes and offsets), embedding_lookup
on a PartitionedVariable with partition_strategy 'mod' and 'div', the concatenated value, a custom_getter that keeps
float32 master weights and returns float16 casts (NVIDIA's mixed-precision recipe), reuse=tf.AUTO_REUSE across
calls, a Saver round trip of the partitioned variable into a differently partitioned graph, and gradients into
each part."""

import os


def main(tf, workdir):
    tf.reset_default_graph()
    init = tf.truncated_normal_initializer(stddev=0.5, seed=5)  # called once per part, with the part's shape
    fixed = tf.get_variable("fixed", [10, 3], initializer=init, partitioner=tf.fixed_size_partitioner(3))
    minmax = tf.get_variable("minmax", [10, 3], initializer=init,
                             partitioner=tf.min_max_variable_partitioner(max_partitions=4, min_slice_size=32))  # fmt: skip
    axis = tf.get_variable("axis_size", [10, 3], initializer=init,
                           partitioner=tf.variable_axis_size_partitioner(max_shard_bytes=40))  # fmt: skip
    ids = tf.constant([0, 4, 9, 3, 3])
    mod = tf.nn.embedding_lookup(fixed, ids, partition_strategy="mod")
    div = tf.nn.embedding_lookup(fixed, ids, partition_strategy="div")

    def fp16_getter(getter, name, shape=None, dtype=None, *args, **kwargs):
        var = getter(name, shape, tf.float32, *args, **kwargs)
        return tf.cast(var, tf.float16) if dtype == tf.float16 else var

    def layer(x):
        with tf.variable_scope("mp", custom_getter=fp16_getter, reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [3, 2], tf.float16, initializer=tf.constant_initializer(0.5))
            return tf.matmul(x, w)

    h1 = layer(tf.ones([1, 3], tf.float16))
    h2 = layer(tf.ones([1, 3], tf.float16) * 2)
    loss = tf.reduce_sum(tf.square(mod)) + tf.reduce_sum(div)
    grads = tf.gradients(loss, list(fixed))
    out = {
        "parts": {
            v._name if hasattr(v, "_name") else k: [p.op.name for p in v]
            for k, v in (("fixed", fixed), ("minmax", minmax), ("axis", axis))
        },
        "part_shapes": [[p.shape.as_list() for p in v] for v in (fixed, minmax, axis)],
        "mp_vars": [(v.op.name, v.dtype.base_dtype.name) for v in tf.global_variables() if v.op.name.startswith("mp")],
        "mp_dtypes": [h1.dtype.name, h2.dtype.name],
        "grad_types": [type(g).__name__ if isinstance(g, tf.IndexedSlices) else "dense" for g in grads],
    }
    path = os.path.join(workdir, "parts")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["mod"], out["div"], out["whole"] = sess.run([mod, div, tf.convert_to_tensor(fixed)])
        out["h"] = sess.run([h1, h2])
        out["grads"] = [sess.run(tf.convert_to_tensor(g)) for g in grads]
        tf.train.Saver({"fixed": fixed}).save(sess, path)
    tf.reset_default_graph()
    regrouped = tf.get_variable("fixed", [10, 3], initializer=tf.zeros_initializer(),
                                partitioner=tf.fixed_size_partitioner(2))  # fmt: skip
    with tf.Session() as sess:
        tf.train.Saver({"fixed": regrouped}).restore(sess, path)
        out["restored"] = sess.run(tf.convert_to_tensor(regrouped))
    return out
