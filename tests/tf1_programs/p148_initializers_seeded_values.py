"""tf.get_variable with the initializers TF1 model code named, their values under a graph-level and op-level seed
(the random stream must equal TensorFlow's): variance_scaling with each mode and distribution ("normal",
"truncated_normal", "untruncated_normal", "uniform"), glorot_uniform / glorot_normal, he_normal / he_uniform,
lecun_normal / lecun_uniform, orthogonal (gain), truncated_normal_initializer, random_normal_initializer,
uniform_unit_scaling, tf.keras.initializers objects used in get_variable, scopes with an initializer default and
reuse=tf.AUTO_REUSE returning the same variable, a partitioned variable's parts, and the dtype handling of
int variables with a zeros initializer."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(148)
    inits = {
        "vs_default": tf.variance_scaling_initializer(seed=1),
        "vs_fan_avg_uniform": tf.variance_scaling_initializer(2.0, mode="fan_avg", distribution="uniform", seed=2),
        "vs_fan_out_trunc": tf.variance_scaling_initializer(mode="fan_out", distribution="truncated_normal", seed=3),
        "vs_untrunc": tf.variance_scaling_initializer(distribution="untruncated_normal", seed=4),
        "vs_normal": tf.variance_scaling_initializer(distribution="normal", seed=5),
        "glorot_uniform": tf.glorot_uniform_initializer(seed=6),
        "glorot_normal": tf.glorot_normal_initializer(seed=7),
        "he_normal": tf.initializers.he_normal(seed=8),
        "he_uniform": tf.initializers.he_uniform(seed=9),
        "lecun_normal": tf.initializers.lecun_normal(seed=10),
        "lecun_uniform": tf.initializers.lecun_uniform(seed=11),
        "orthogonal": tf.orthogonal_initializer(gain=2.0, seed=12),
        "truncated": tf.truncated_normal_initializer(mean=1.0, stddev=0.1, seed=13),
        "normal": tf.random_normal_initializer(stddev=0.5, seed=14),
        "uniform": tf.random_uniform_initializer(-2.0, 2.0, seed=15),
        "unit_scaling": tf.uniform_unit_scaling_initializer(factor=1.5, seed=16),
        "keras_glorot": tf.keras.initializers.glorot_uniform(seed=17),
        "keras_he": tf.keras.initializers.he_normal(seed=18),
    }
    variables = {}
    with tf.variable_scope("init_zoo"):
        for name, init in inits.items():
            variables[name] = tf.get_variable(name, [4, 3], initializer=init)
        variables["conv_he"] = tf.get_variable("conv_he", [3, 3, 2, 4], initializer=tf.initializers.he_normal(seed=19))
    with tf.variable_scope("defaults", initializer=tf.constant_initializer(0.25)):
        variables["scope_default"] = tf.get_variable("w", [2])
        variables["scope_override"] = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
    shared = []
    for _ in range(2):
        with tf.variable_scope("shared", reuse=tf.AUTO_REUSE):
            shared.append(tf.get_variable("v", [3], initializer=tf.random_normal_initializer(seed=20)))
    with tf.variable_scope("part", partitioner=tf.fixed_size_partitioner(3)):
        parts = tf.get_variable("emb", [7, 2], initializer=tf.random_uniform_initializer(seed=21))
    counter = tf.get_variable("counter", [], dtype=tf.int64, initializer=tf.zeros_initializer(), trainable=False)
    no_op_seed = tf.get_variable("no_op_seed", [3], initializer=tf.glorot_uniform_initializer())
    out = {
        "names": sorted(v.name for v in tf.global_variables()),
        "trainable": len(tf.trainable_variables()),
        "same_shared": shared[0] is shared[1],
        "parts": [v.name for v in parts] if hasattr(parts, "__iter__") else parts.name,
        "counter_dtype": counter.dtype.base_dtype.name,
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out["values"] = sess.run(variables)
        out["shared"] = sess.run(shared[0])
        out["parts_value"] = sess.run(
            tf.convert_to_tensor(parts) if not hasattr(parts, "__iter__") else tf.concat(list(parts), 0)
        )
        out["no_op_seed"] = sess.run(no_op_seed)
        ortho = out["values"]["orthogonal"]
        out["ortho_check"] = ortho.T @ ortho
    return out
