"""The Keras backend in a TF1 graph as 2017 code used it for custom training and visualization: K.placeholder,
K.variable, K.function([inputs, K.learning_phase()], outputs) (a feature extractor with dropout on and off),
K.gradients of a model output (a saliency map), K.get_session / K.set_session, K.set_value / K.get_value /
K.batch_get_value, K.eval, K.int_shape, K.dtype, K.cast_to_floatx, K.epsilon, K.clip, K.categorical_crossentropy
and K.binary_crossentropy against the tf ops, and model.predict on the same weights."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    K = tf.keras.backend
    K.clear_session()
    sess = tf.Session()
    K.set_session(sess)
    rng = np.random.RandomState(124)
    xs = rng.rand(4, 6).astype(np.float32)
    inputs = tf.keras.layers.Input(shape=(6,))
    h = tf.keras.layers.Dense(
        5, activation="relu", kernel_initializer=tf.keras.initializers.Constant(rng.randn(6, 5) * 0.5), name="hidden"
    )(inputs)
    d = tf.keras.layers.Dropout(0.5, seed=1)(h)
    outputs = tf.keras.layers.Dense(
        3, activation="softmax", kernel_initializer=tf.keras.initializers.Constant(rng.randn(5, 3) * 0.5), name="probs"
    )(d)
    model = tf.keras.models.Model(inputs, outputs)
    sess.run(tf.global_variables_initializer())
    features = K.function([model.input, K.learning_phase()], [model.get_layer("hidden").output, model.output])
    f_test = features([xs, 0])
    f_train = features([xs, 1])
    grads = K.gradients(K.max(model.output, axis=1), model.input)[0]
    saliency = K.function([model.input], [grads])([xs])[0]
    v = K.variable(np.array([[1.0, 2.0]]), name="kv")
    p = K.placeholder(shape=(None, 2), name="kp")
    y_true = K.constant([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    y_pred = K.constant([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4]])
    cce = K.categorical_crossentropy(y_true, y_pred)
    bce = K.binary_crossentropy(K.constant([1.0, 0.0]), K.constant([0.8, 0.4]))
    sess.run(v.initializer)
    K.set_value(v, np.array([[3.0, 4.0]]))
    out = {
        "f_test": f_test,
        "dropout_changes": bool(not np.allclose(f_test[1], f_train[1])),
        "saliency": saliency,
        "predict": model.predict(xs),
        "kv": [K.get_value(v), K.batch_get_value([v])[0], K.eval(v * 2)],
        "int_shape": [K.int_shape(p), K.int_shape(v), K.int_shape(model.output)],
        "dtypes": [K.dtype(p), K.dtype(v), K.floatx(), str(K.cast_to_floatx(np.array([1], np.int32)).dtype)],
        "epsilon": K.epsilon(),
        "clip": K.eval(K.clip(K.constant([-1.0, 0.5, 2.0]), 0.0, 1.0)),
        "cce": K.eval(cce),
        "bce": K.eval(bce),
        "same_session": K.get_session() is sess,
        "names": [model.input.name, model.output.name, v.name, p.name],
    }
    sess.close()
    K.clear_session()
    return out
