"""Keras backend functions as 2017-2018 custom layers and losses called them (K = tf.keras.backend), values and
static shapes compared: dot / batch_dot (axes), repeat_elements, one_hot, switch, in_top_k, temporal_padding,
spatial_2d_padding, categorical_crossentropy(from_logits), sparse_categorical_crossentropy, binary_crossentropy,
l2_normalize, std / var / logsumexp with keepdims, cumsum / cumprod, resize_images (nearest), squeeze /
expand_dims / permute_dimensions / reshape / flatten / batch_flatten, concatenate, stack, gather, clip, epsilon /
floatx / image_data_format, int_shape / ndim / dtype / count_params, and K.gradients through a custom loss."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras.backend
    rng = np.random.RandomState(167)
    a = K.constant(rng.randn(2, 3, 4))
    b = K.constant(rng.randn(2, 4, 5))
    m = K.constant(rng.randn(3, 4))
    logits = K.constant(rng.randn(3, 5))
    probs = K.softmax(logits)
    ids = K.constant([1, 4, 0], dtype="int32")
    v = K.variable(rng.randn(3, 4), name="kv")
    ops = {
        "dot": K.dot(a, K.constant(rng.randn(4, 2))),
        "batch_dot": K.batch_dot(a, b, axes=[2, 1]),
        "batch_dot_vec": K.batch_dot(K.constant(rng.randn(2, 3)), K.constant(rng.randn(2, 3)), axes=1),
        "repeat": K.repeat_elements(m, 2, axis=0),
        "one_hot": K.one_hot(ids, 5),
        "switch": K.switch(K.greater(m, 0.0), m, K.zeros_like(m)),
        "in_top_k": K.in_top_k(logits, ids, 2),
        "temporal_padding": K.temporal_padding(a, (1, 2)),
        "spatial_padding": K.spatial_2d_padding(K.reshape(a, (2, 3, 2, 2)), ((1, 0), (0, 1))),
        "cce_logits": K.categorical_crossentropy(K.one_hot(ids, 5), logits, from_logits=True),
        "cce_probs": K.categorical_crossentropy(K.one_hot(ids, 5), probs),
        "scce": K.sparse_categorical_crossentropy(ids, probs),
        "bce": K.binary_crossentropy(K.constant([[1.0, 0.0]]), K.constant([[0.8, 0.3]])),
        "l2": K.l2_normalize(m, axis=-1),
        "std": K.std(m, axis=1, keepdims=True),
        "var": K.var(m, axis=0),
        "logsumexp": K.log(K.sum(K.exp(m), axis=1, keepdims=True)),
        "cumsum": K.cumsum(m, axis=1),
        "cumprod": K.cumprod(m, axis=0),
        "resize": K.resize_images(K.reshape(a, (2, 3, 2, 2)), 2, 3, "channels_last"),
        "squeeze": K.squeeze(K.expand_dims(m, 1), 1),
        "permute": K.permute_dimensions(a, (2, 0, 1)),
        "flatten": K.flatten(a),
        "batch_flatten": K.batch_flatten(a),
        "concat": K.concatenate([m, m], axis=0),
        "stack": K.stack([m, m], axis=1),
        "gather": K.gather(m, [2, 0]),
        "clip": K.clip(m, -0.5, 0.5),
        "mean_keep": K.mean(a, axis=[0, 2], keepdims=True),
        "argmax": K.argmax(logits, axis=-1),
    }
    loss = K.mean(K.square(K.dot(v, K.constant(np.ones([4, 1]))) - 1.0))
    grad = K.gradients(loss, [v])[0]
    out = {
        "shapes": {k: K.int_shape(t) for k, t in ops.items()},
        "ndim": [K.ndim(a), K.ndim(m)],
        "dtypes": [K.dtype(ids), K.dtype(a), K.dtype(v)],
        "config": [K.epsilon(), K.floatx(), K.image_data_format()],
        "count_params": K.count_params(v),
    }
    sess = K.get_session()
    sess.run(v.initializer)
    out["values"] = sess.run(ops)
    out["grad"] = sess.run(grad)
    out["get_value"] = K.get_value(v).shape
    return out
