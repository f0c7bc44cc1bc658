"""The errors TF1 users met with tf.keras and tf.layers and pasted into questions, compared by class and first
line: fitting a model on data of the wrong feature size, a target of the wrong shape for the loss, a Dense layer
on an input whose last dimension is unknown, calling fit before compile, an unknown loss / optimizer / activation
string, a Sequential whose first layer has no input shape asked for its summary-free weights, tf.layers.dense
on a rank-1 input, tf.layers.conv2d on a rank-3 input (the layer named, as TF's default name counts differently), Concatenate of mismatched shapes, Reshape to an
impossible target size, and Input with a batch_size and shape given twice."""

import numpy as np


def _err(fn):
    try:
        fn()
        return None
    except Exception as e:  # noqa: BLE001 - the class and first line are compared
        return [type(e).__name__, str(e).strip().split("\n")[0][:120]]


def main(tf, workdir):
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    K = tf.keras
    out = {}

    def model():
        m = K.Sequential([K.layers.Dense(4, activation="relu", input_shape=(3,)), K.layers.Dense(2)])
        m.compile("sgd", "mse")
        return m

    m = model()
    out["fit_wrong_features"] = _err(lambda: m.fit(np.zeros([4, 5]), np.zeros([4, 2]), verbose=0))
    out["fit_wrong_target"] = _err(lambda: m.fit(np.zeros([4, 3]), np.zeros([4, 3]), verbose=0))
    out["predict_wrong_rank"] = _err(lambda: m.predict(np.zeros([3])))
    unknown = tf.placeholder(tf.float32, [None, None])
    out["dense_unknown_last"] = _err(lambda: K.layers.Dense(2)(unknown))
    out["tf_layers_dense_unknown"] = _err(lambda: tf.layers.dense(unknown, 2))
    out["fit_before_compile"] = _err(
        lambda: K.Sequential([K.layers.Dense(1, input_shape=(2,))]).fit(np.zeros([2, 2]), np.zeros([2, 1]), verbose=0)
    )
    out["unknown_loss"] = _err(lambda: K.Sequential([K.layers.Dense(1, input_shape=(2,))]).compile("sgd", "msee"))
    out["unknown_optimizer"] = _err(lambda: K.Sequential([K.layers.Dense(1, input_shape=(2,))]).compile("sgdd", "mse"))
    out["unknown_activation"] = _err(lambda: K.layers.Dense(1, activation="relu7"))
    out["no_input_shape_weights"] = _err(lambda: K.Sequential([K.layers.Dense(2)]).count_params())
    out["conv2d_rank3"] = _err(lambda: tf.layers.conv2d(tf.zeros([2, 5, 5]), 2, 3, name="conv1"))
    out["concat_mismatch"] = _err(
        lambda: K.layers.Concatenate()([K.layers.Input(shape=(3, 4)), K.layers.Input(shape=(2, 5))])
    )
    out["reshape_impossible"] = _err(lambda: K.layers.Reshape((4, 4))(K.layers.Input(shape=(10,))))
    out["dense_ok_shape"] = K.layers.Dense(3)(K.layers.Input(shape=(5,))).shape.as_list()
    out["evaluate_ok"] = m.evaluate(np.zeros([4, 3]), np.zeros([4, 2]), verbose=0)
    return out
