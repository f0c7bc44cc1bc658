"""tw.keras.callbacks in Model.fit against tf_keras 2 in TF1 graph mode: same data, same initial weights."""

import csv
import os

import numpy as np
import pytest
import tensorweave as tw

RNG = np.random.RandomState(0)
X = RNG.randn(32, 3).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5]], np.float32)).astype(np.float32)
W0 = [np.full((3, 1), 0.1, np.float32), np.zeros(1, np.float32)]


def _oracle():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    tf_keras = pytest.importorskip("tf_keras")
    tf1.disable_v2_behavior()
    return tf1, tf_keras


def _fit(keras, opt, callbacks, epochs=8, **kwargs):
    m = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    m.compile(opt, "mse")
    m.set_weights(W0)
    h = m.fit(X, Y, batch_size=8, epochs=epochs, verbose=0, shuffle=False, callbacks=callbacks, **kwargs)
    return m, h


def _both(make_callbacks, lr=0.01, **kwargs):
    tf1, tf_keras = _oracle()
    with tw.Graph().as_default(), tw.Session().as_default():
        cbs = make_callbacks(tw.keras)
        m, h = _fit(tw.keras, tw.keras.optimizers.SGD(lr), cbs, **kwargs)
        ours = (h.history, h.epoch, cbs, m.get_weights())
    with tf1.Graph().as_default(), tf1.Session().as_default():
        cbs = make_callbacks(tf_keras)
        m, h = _fit(tf_keras, tf_keras.optimizers.legacy.SGD(lr), cbs, **kwargs)
        theirs = (h.history, h.epoch, cbs, m.get_weights())
    return ours, theirs


def _assert_history(ours, theirs):
    assert list(ours) == list(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6, err_msg=key)


def test_early_stopping_stops_at_the_same_epoch_and_restores_best_weights():
    def make(keras):
        return [keras.callbacks.EarlyStopping(monitor="loss", min_delta=0.3, patience=2, restore_best_weights=True)]

    ours, theirs = _both(make, lr=0.02, epochs=30)
    _assert_history(ours[0], theirs[0])
    assert ours[1] == theirs[1] and len(ours[1]) < 30
    assert ours[2][0].stopped_epoch == theirs[2][0].stopped_epoch > 0
    assert ours[2][0].best_epoch == theirs[2][0].best_epoch
    for a, b in zip(ours[3], theirs[3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_early_stopping_on_validation_metric_in_max_mode_with_baseline():
    def make(keras):
        return [keras.callbacks.EarlyStopping(monitor="val_loss", mode="max", patience=1, baseline=100.0)]

    ours, theirs = _both(make, epochs=10, validation_split=0.25)
    _assert_history(ours[0], theirs[0])
    assert ours[2][0].stopped_epoch == theirs[2][0].stopped_epoch


def test_learning_rate_scheduler_and_reduce_lr_on_plateau_log_lr_as_tf_keras():
    def make(keras):
        return [
            keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch % 2 else lr),
            keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=0.5, min_lr=1e-4),
        ]

    ours, theirs = _both(make, lr=0.05, epochs=6)
    _assert_history(ours[0], theirs[0])
    assert "lr" in ours[0]


def test_lambda_callback_sees_the_same_events_and_logs():
    def make(keras):
        events = []
        cb = keras.callbacks.LambdaCallback(
            on_train_begin=lambda logs: events.append(("train_begin",)),
            on_epoch_begin=lambda epoch, logs: events.append(("epoch_begin", epoch)),
            on_batch_begin=lambda batch, logs: events.append(("batch_begin", batch, logs.get("size"))),
            on_batch_end=lambda batch, logs: events.append(("batch_end", batch, sorted(logs))),
            on_epoch_end=lambda epoch, logs: events.append(("epoch_end", epoch, sorted(logs))),
            on_train_end=lambda logs: events.append(("train_end",)),
        )
        cb.events = events
        return [cb]

    ours, theirs = _both(make, epochs=2)
    assert ours[2][0].events == theirs[2][0].events


def test_custom_callback_stop_training_params_and_terminate_on_nan():
    def make(keras):
        class Stop(keras.callbacks.Callback):
            def on_epoch_end(self, epoch, logs=None):
                self.seen_params = dict(self.params)
                if epoch == 2:
                    self.model.stop_training = True

        return [Stop()]

    ours, theirs = _both(make, epochs=10)
    _assert_history(ours[0], theirs[0])
    assert ours[1] == theirs[1] == [0, 1, 2]
    keys = ("batch_size", "epochs", "samples", "verbose", "do_validation", "metrics")
    assert {k: ours[2][0].seen_params.get(k) for k in keys} == {k: theirs[2][0].seen_params.get(k) for k in keys}

    def make_nan(keras):
        return [keras.callbacks.TerminateOnNaN()]

    ours, theirs = _both(make_nan, lr=1e30, epochs=5)
    assert ours[1] == theirs[1] == [0]


def test_model_checkpoint_filenames_best_only_and_weights(tmp_path):
    def make(keras):
        path = tmp_path / keras.__name__.split(".")[0] / "w.{epoch:02d}-{loss:.2f}.h5"
        return [keras.callbacks.ModelCheckpoint(str(path), monitor="loss", save_best_only=True, save_weights_only=True)]

    _, theirs = _both(make, epochs=4)
    our_files = sorted(os.listdir(tmp_path / "tensorweave"))
    their_files = sorted(os.listdir(tmp_path / "tf_keras"))
    assert our_files == their_files and len(our_files) == 4
    with tw.Graph().as_default(), tw.Session().as_default():
        m = tw.keras.Sequential([tw.keras.layers.Dense(1, input_shape=(3,))])
        m.load_weights(str(tmp_path / "tf_keras" / their_files[-1]))
        for a, b in zip(m.get_weights(), theirs[3]):
            np.testing.assert_allclose(a, b, rtol=1e-5)


def test_model_checkpoint_whole_model_loads_back(tmp_path):
    _oracle()
    path = str(tmp_path / "model.h5")
    with tw.Graph().as_default(), tw.Session().as_default():
        cb = tw.keras.callbacks.ModelCheckpoint(path, monitor="val_loss")
        m, _ = _fit(tw.keras, tw.keras.optimizers.SGD(0.01), [cb], epochs=2, validation_split=0.25)
        want = m.predict(X)
    with tw.Graph().as_default(), tw.Session().as_default():
        m = tw.keras.models.load_model(path)
        np.testing.assert_allclose(m.predict(X), want, rtol=1e-6)
        assert m.loss == "mse"
    with (
        pytest.raises(KeyError, match="Failed to format this callback filepath"),
        tw.Graph().as_default(),
        tw.Session().as_default(),
    ):
        cb = tw.keras.callbacks.ModelCheckpoint(str(tmp_path / "{nope}.h5"))
        _fit(tw.keras, tw.keras.optimizers.SGD(0.01), [cb], epochs=1)


def test_csv_logger_writes_the_same_columns_and_values(tmp_path):
    def make(keras):
        return [keras.callbacks.CSVLogger(str(tmp_path / f"{keras.__name__.split('.')[0]}.csv"))]

    _both(make, epochs=3, validation_split=0.25)
    with open(tmp_path / "tensorweave.csv") as f:
        ours = list(csv.reader(f))
    with open(tmp_path / "tf_keras.csv") as f:
        theirs = list(csv.reader(f))
    assert ours[0] == theirs[0] == ["epoch", "loss", "val_loss"]
    np.testing.assert_allclose(np.array(ours[1:], float), np.array(theirs[1:], float), rtol=1e-5)


def test_tensorboard_writes_epoch_scalars(tmp_path):
    with tw.Graph().as_default(), tw.Session().as_default():
        _fit(tw.keras, tw.keras.optimizers.SGD(0.01), [tw.keras.callbacks.TensorBoard(str(tmp_path))], epochs=2)
    files = [f for f in os.listdir(tmp_path) if "tfevents" in f]
    assert len(files) == 1
    tags = []
    for event in tw.train.summary_iterator(str(tmp_path / files[0])):
        tags += [(event.step, v.tag) for v in event.summary.value]
    assert tags == [(0, "loss"), (1, "loss")]


def test_verbose_output_and_bad_callback_arguments(capsys):
    with tw.Graph().as_default(), tw.Session().as_default():
        m = tw.keras.Sequential([tw.keras.layers.Dense(1, input_shape=(3,))])
        m.compile("sgd", "mse")
        m.fit(X, Y, epochs=2, verbose=2, validation_split=0.25)
        out = capsys.readouterr().out
        assert "Train on 24 samples, validate on 8 samples" in out and "Epoch 2/2" in out and "val_loss:" in out
        with pytest.raises(ValueError, match="does not support a factor >= 1.0"):
            tw.keras.callbacks.ReduceLROnPlateau(factor=2.0)
        with pytest.raises(ValueError, match="Unrecognized save_freq"):
            tw.keras.callbacks.ModelCheckpoint("x.h5", save_freq="daily")
        with pytest.raises(ValueError, match="Unknown `count_mode`"):
            tw.keras.callbacks.ProgbarLogger(count_mode="rows")
