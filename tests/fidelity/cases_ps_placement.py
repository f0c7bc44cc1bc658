"""Parameter-server placement by tf.train.replica_device_setter: round-robin and greedy by byte size, with
partitioned variables and optimizer slots; what a TF1 program observes (each variable's device).

The greedy strategy and byte_size_load_fn were TF1's tf.contrib.training (absent from TensorFlow 2's compat.v1):
under TensorFlow the case uses `_ContribGreedy` and `_contrib_byte_size_load_fn`, transcriptions of contrib's
code, on TF's own graph; under tensorweave it uses tw.train's."""

import numpy as np

from tests.fidelity.harness import case


class _ContribGreedy:
    # tf.contrib.training.GreedyLoadBalancingStrategy (TF 1.15).
    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op):
        task = np.argmin(self._ps_loads)
        self._ps_loads[task] += self._load_fn(op)
        return task


def _contrib_byte_size_load_fn(op):
    # tf.contrib.training.byte_size_load_fn (TF 1.15).
    import tensorflow.compat.v1 as tf

    if len(op.outputs) != 1:
        raise ValueError(f"Op {op} must have a single output")
    output = op.outputs[0]
    elem_size = output.dtype.size
    shape = output.get_shape()
    if not shape.is_fully_defined():
        shape = tf.TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * elem_size


def _model(tf):
    with tf.variable_scope("model"):
        emb = tf.get_variable(
            "embedding", [40, 8], partitioner=tf.fixed_size_partitioner(3), initializer=tf.zeros_initializer()
        )
        w1 = tf.get_variable("w1", [8, 16], initializer=tf.zeros_initializer())
        b1 = tf.get_variable("b1", [16], dtype=tf.float64, initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [16, 2], initializer=tf.zeros_initializer())
        scale = tf.get_variable("scale", [], initializer=tf.ones_initializer())
        ids = tf.constant([1, 5, 39])
        h = tf.nn.embedding_lookup(emb, ids)
        h = tf.matmul(h, w1) + tf.cast(b1, tf.float32)
        loss = tf.reduce_sum(tf.matmul(h, w2)) * scale
    step = tf.train.get_or_create_global_step()
    train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=step)
    return loss, train


def _devices(tf):
    return sorted((v.op.name, v.device) for v in tf.global_variables())


@case
def round_robin_over_three_ps_tasks(tf, sess):
    with tf.device(tf.train.replica_device_setter(ps_tasks=3)):
        _, train = _model(tf)
    return _devices(tf), train.device


@case
def greedy_by_byte_size_over_three_ps_tasks(tf, sess):
    greedy = getattr(tf.train, "GreedyLoadBalancingStrategy", None) or _ContribGreedy
    load_fn = getattr(tf.train, "byte_size_load_fn", None) or _contrib_byte_size_load_fn
    cluster = {"ps": ["ps0:2222", "ps1:2222", "ps2:2222"], "worker": ["w0:2222", "w1:2222"]}
    setter = tf.train.replica_device_setter(
        cluster=cluster, worker_device="/job:worker/task:1", ps_strategy=greedy(3, load_fn)
    )
    with tf.device(setter):
        loss, train = _model(tf)
    return _devices(tf), loss.device, train.device
