"""tw.estimator: the Estimator's train/evaluate/predict/export cycle checked against numpy (gradient descent,
cross-entropies, least squares), the canned estimators' TF1 variable names, predictions and metric keys, the
input functions, train_and_evaluate, warm starting, and TF1's errors for misuse. (TensorFlow 2.21 has no
tf.estimator to compare with.)"""

import os

import numpy as np
import pytest
import tensorweave as tw

fc = tw.feature_column


def _linear_model_fn(features, labels, mode, params):
    """y = w * x + b, squared error, gradient descent at params["lr"] (w, b start at 0)."""
    w = tw.get_variable("w", [1, 1], initializer=tw.zeros_initializer())
    b = tw.get_variable("b", [1], initializer=tw.zeros_initializer())
    y = tw.matmul(features["x"], w) + b
    if mode == tw.estimator.ModeKeys.PREDICT:
        return tw.estimator.EstimatorSpec(mode, predictions={"y": y, "twice": 2 * y})
    loss = tw.reduce_mean(tw.square(y - labels))
    if mode == tw.estimator.ModeKeys.EVAL:
        metrics = {"mae": tw.metrics.mean_absolute_error(labels, y)}
        return tw.estimator.EstimatorSpec(mode, predictions={"y": y}, loss=loss, eval_metric_ops=metrics)
    train = tw.train.GradientDescentOptimizer(params["lr"]).minimize(loss, tw.train.get_global_step())
    return tw.estimator.EstimatorSpec(mode, loss=loss, train_op=train)


X = np.linspace(-1, 1, 10, dtype=np.float32)[:, None]
Y = 3 * X - 0.5


def _numpy_descent(steps, batch=4, lr=0.1):
    """What `_linear_model_fn` trains to over unshuffled batches of X, Y cycling through the data."""
    w, b = 0.0, 0.0
    rows = np.concatenate([np.arange(len(X))] * (steps * batch // len(X) + 2))
    for s in range(steps):
        idx = rows[s * batch : (s + 1) * batch]
        x, y = X[idx, 0].astype(np.float64), Y[idx, 0].astype(np.float64)
        err = w * x + b - y
        w, b = w - lr * np.mean(2 * err * x), b - lr * np.mean(2 * err)
    return w, b


def _input(num_epochs=None, batch=4, shuffle=False):
    return tw.estimator.inputs.numpy_input_fn({"x": X}, Y, batch_size=batch, num_epochs=num_epochs, shuffle=shuffle)


def test_train_matches_numpy_gradient_descent_and_resumes(tmp_path):
    est = tw.estimator.Estimator(_linear_model_fn, str(tmp_path), params={"lr": 0.1})
    est.train(_input(), steps=5)
    w, b = _numpy_descent(5)
    np.testing.assert_allclose(est.get_variable_value("w")[0, 0], w, rtol=1e-5)
    np.testing.assert_allclose(est.get_variable_value("b")[0], b, rtol=1e-5)
    # Resumes from the checkpoint (the input function starts over, as in TF).
    est.train(_input(), steps=3)
    assert est.get_variable_value("global_step") == 8
    est.train(_input(), max_steps=8)  # already there: skipped
    assert est.get_variable_value("global_step") == 8
    est.train(_input(), max_steps=11)
    assert est.get_variable_value("global_step") == 11
    assert os.path.exists(os.path.join(str(tmp_path), "graph.pbtxt"))
    assert est.latest_checkpoint().endswith("model.ckpt-11")


def test_training_ends_with_the_input(tmp_path):
    est = tw.estimator.Estimator(_linear_model_fn, str(tmp_path), params={"lr": 0.1})
    est.train(_input(num_epochs=2))  # 20 rows in batches of 4
    assert est.get_variable_value("global_step") == 5


def test_evaluate_predict_and_their_summaries(tmp_path):
    est = tw.estimator.Estimator(_linear_model_fn, str(tmp_path), params={"lr": 0.1})
    est.train(_input(), steps=20)
    w, b = est.get_variable_value("w")[0, 0], est.get_variable_value("b")[0]
    result = est.evaluate(_input(num_epochs=1, batch=5))
    assert sorted(result) == ["global_step", "loss", "mae"]
    assert result["global_step"] == 20
    err = w * X[:, 0] + b - Y[:, 0]
    # "loss" is the mean of the two batches' losses; "mae" the streaming mean absolute error.
    np.testing.assert_allclose(result["loss"], np.mean([np.mean(err[:5] ** 2), np.mean(err[5:] ** 2)]), rtol=1e-5)
    np.testing.assert_allclose(result["mae"], np.mean(np.abs(err)), rtol=1e-5)
    assert est.evaluate(_input(), steps=1, name="one")["global_step"] == 20
    events = [e for d in ("eval", "eval_one") for e in os.listdir(os.path.join(str(tmp_path), d))]
    assert len(events) == 2 and all(e.startswith("events.out.tfevents") for e in events)
    path = os.path.join(str(tmp_path), "eval", os.listdir(os.path.join(str(tmp_path), "eval"))[0])
    tags = {v.tag: v.simple_value for e in tw.train.summary_iterator(path) for v in e.summary.value}
    np.testing.assert_allclose(tags["mae"], result["mae"], rtol=1e-6)

    preds = list(est.predict(tw.estimator.inputs.numpy_input_fn({"x": X}, batch_size=4, shuffle=False)))
    assert len(preds) == 10 and sorted(preds[0]) == ["twice", "y"]
    np.testing.assert_allclose([p["y"][0] for p in preds], w * X[:, 0] + b, rtol=1e-5)
    only = list(est.predict(_input(num_epochs=1), predict_keys=["twice"]))
    assert sorted(only[0]) == ["twice"]
    batches = list(est.predict(_input(num_epochs=1), yield_single_examples=False))
    assert [len(b["y"]) for b in batches] == [4, 4, 2]
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        next(est.predict(_input(num_epochs=1), predict_keys=["nope"]))


def test_evaluate_without_a_checkpoint_initializes(tmp_path):
    est = tw.estimator.Estimator(_linear_model_fn, str(tmp_path), params={"lr": 0.1})
    result = est.evaluate(_input(num_epochs=1))
    np.testing.assert_allclose(result["mae"], np.mean(np.abs(Y)), rtol=1e-5)
    assert result["global_step"] == 0


def test_input_fn_may_return_a_dataset_and_take_params(tmp_path):
    def input_fn(params):
        ds = tw.data.Dataset.from_tensor_slices(({"x": X}, Y))
        return ds.repeat().batch(params["batch"])

    def model_fn(features, labels, mode, params):
        return _linear_model_fn(features, labels, mode, params)

    est = tw.estimator.Estimator(model_fn, str(tmp_path), params={"lr": 0.1, "batch": 4})
    est.train(input_fn, steps=5)
    np.testing.assert_allclose(est.get_variable_value("w")[0, 0], _numpy_descent(5)[0], rtol=1e-5)


def test_misuse_is_refused_as_tf1_refuses_it(tmp_path):
    d = str(tmp_path)
    est = tw.estimator.Estimator(_linear_model_fn, d, params={"lr": 0.1})
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        est.train(_input(), steps=1, max_steps=2)
    with pytest.raises(ValueError, match="Must specify steps > 0, given: 0"):
        est.train(_input(), steps=0)
    with pytest.raises(ValueError, match="Must specify steps > 0"):
        est.evaluate(_input(), steps=-1)
    with pytest.raises(ValueError, match="must include features argument"):
        tw.estimator.Estimator(lambda x, labels: None, d)
    with pytest.raises(ValueError, match="does not include params argument"):
        tw.estimator.Estimator(lambda features, labels: None, d, params={"a": 1})
    with pytest.raises(ValueError, match="model_dir are set both in constructor and `RunConfig`"):
        tw.estimator.Estimator(_linear_model_fn, d, config=tw.estimator.RunConfig(model_dir=d + "x"))
    no_labels = tw.estimator.Estimator(lambda features, mode: None, d)
    with pytest.raises(ValueError, match="model_fn does not take labels, but input_fn returns labels"):
        no_labels.train(_input(), steps=1)
    bad = tw.estimator.Estimator(lambda features, labels, mode: "spec", d)
    with pytest.raises(ValueError, match="model_fn should return an EstimatorSpec"):
        bad.train(_input(), steps=1)
    with pytest.raises(ValueError, match="Can not specify both save_checkpoints_steps and save_checkpoints_secs"):
        tw.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
    with pytest.raises(ValueError, match="Couldn't find trained model"):
        tw.estimator.Estimator(_linear_model_fn, str(tmp_path / "empty"), params={"lr": 0.1}).export_saved_model(
            str(tmp_path / "export"), lambda: None
        )


def test_estimator_spec_is_checked():
    modes = tw.estimator.ModeKeys
    assert (modes.TRAIN, modes.EVAL, modes.PREDICT) == ("train", "eval", "infer")
    with tw.Graph().as_default():
        loss = tw.constant(1.0)
        with pytest.raises(ValueError, match="Missing train_op"):
            tw.estimator.EstimatorSpec(modes.TRAIN, loss=loss)
        with pytest.raises(ValueError, match="Missing loss"):
            tw.estimator.EstimatorSpec(modes.EVAL)
        with pytest.raises(ValueError, match="Missing predictions"):
            tw.estimator.EstimatorSpec(modes.PREDICT)
        with pytest.raises(ValueError, match="Loss must be scalar"):
            tw.estimator.EstimatorSpec(modes.EVAL, loss=tw.constant([1.0, 2.0]))
        with pytest.raises(TypeError, match=r"\(metric_value, update_op\) tuples"):
            tw.estimator.EstimatorSpec(modes.EVAL, loss=loss, eval_metric_ops={"m": loss})
        with pytest.raises(ValueError, match="mode=fit unrecognized"):
            tw.estimator.EstimatorSpec("fit", loss=loss)
        spec = tw.estimator.EstimatorSpec(modes.EVAL, loss=tw.reshape(loss, [1, 1]))
        assert spec.loss.get_shape().ndims == 0 and isinstance(spec.scaffold, tw.train.Scaffold)


def test_numpy_input_fn_batches_and_errors():
    x = {"a": np.arange(7), "b": np.arange(7) * 10.0}
    fn = tw.estimator.inputs.numpy_input_fn(x, np.arange(7) % 2, batch_size=3, num_epochs=2, shuffle=False)
    with tw.Graph().as_default(), tw.Session() as sess:
        features, labels = fn()
        assert features["b"].dtype == tw.float64 and labels.dtype == tw.int64
        got = []
        with pytest.raises(tw.errors.OutOfRangeError):
            while True:
                got.append(sess.run(features["a"]).tolist())
    # Batches span the epochs, the last one short.
    assert got == [[0, 1, 2], [3, 4, 5], [6, 0, 1], [2, 3, 4], [5, 6]]
    shuffled = tw.estimator.inputs.numpy_input_fn({"a": np.arange(50)}, batch_size=50, shuffle=True)
    with tw.Graph().as_default(), tw.Session() as sess:
        values = sess.run(shuffled())["a"]
    assert sorted(values.tolist()) == list(range(50)) and values.tolist() != list(range(50))
    array_fn = tw.estimator.inputs.numpy_input_fn(np.ones([4, 2], np.float32), batch_size=2, shuffle=False)
    with tw.Graph().as_default():
        assert isinstance(array_fn(), tw.Tensor)
    with pytest.raises(ValueError, match="shuffle must be provided explicitly as a bool"):
        tw.estimator.inputs.numpy_input_fn(x)
    mismatched = tw.estimator.inputs.numpy_input_fn(x, np.arange(6), shuffle=False)
    with tw.Graph().as_default(), pytest.raises(ValueError, match="Length of tensors in x and y is mismatched"):
        mismatched()
    duplicated = tw.estimator.inputs.numpy_input_fn(x, {"a": np.arange(7)}, shuffle=False)
    with tw.Graph().as_default(), pytest.raises(ValueError, match="duplicate keys are found in both x and y"):
        duplicated()


def _blobs(n=240, classes=3, seed=0):
    rng = np.random.RandomState(seed)
    y = rng.randint(0, classes, n)
    centers = rng.randn(classes, 4) * 3
    x = (centers[y] + rng.randn(n, 4)).astype(np.float32)
    return {"f": x}, y


def _softmax(z):
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_dnn_classifier_trains_and_its_outputs_agree_with_numpy(tmp_path):
    x, y = _blobs()
    columns = [fc.numeric_column("f", shape=[4])]
    config = tw.estimator.RunConfig(tf_random_seed=1)
    clf = tw.estimator.DNNClassifier([16, 8], columns, str(tmp_path), n_classes=3, config=config)
    clf.train(tw.estimator.inputs.numpy_input_fn(x, y, batch_size=32, num_epochs=None, shuffle=True), steps=200)
    assert sorted(clf.get_variable_names()) == sorted(
        [
            f"dnn/{layer}/{p}{slot}"
            for layer in ("hiddenlayer_0", "hiddenlayer_1", "logits")
            for p in ("kernel", "bias")
            for slot in ("", "/Adagrad")
        ]
        + ["global_step"]
    )
    eval_fn = tw.estimator.inputs.numpy_input_fn(x, y, batch_size=1000, shuffle=False)
    result = clf.evaluate(eval_fn)
    assert sorted(result) == ["accuracy", "average_loss", "global_step", "loss"]
    assert result["accuracy"] > 0.9
    preds = list(clf.predict(eval_fn))
    assert sorted(preds[0]) == ["all_class_ids", "all_classes", "class_ids", "classes", "logits", "probabilities"]
    logits = np.stack([p["logits"] for p in preds])
    np.testing.assert_allclose(np.stack([p["probabilities"] for p in preds]), _softmax(logits), rtol=1e-5, atol=1e-6)
    ids = np.array([p["class_ids"][0] for p in preds])
    np.testing.assert_array_equal(ids, logits.argmax(1))
    assert preds[0]["classes"][0] == str(ids[0]).encode() and preds[0]["all_classes"].tolist() == [b"0", b"1", b"2"]
    np.testing.assert_allclose(result["accuracy"], np.mean(ids == y), rtol=1e-6)
    cross_entropy = -np.log(_softmax(logits)[np.arange(len(y)), y])
    np.testing.assert_allclose(result["average_loss"], cross_entropy.mean(), rtol=1e-4)
    np.testing.assert_allclose(result["loss"], cross_entropy.sum(), rtol=1e-4)  # TF1's SUM reduction


def test_binary_linear_classifier_metrics_and_vocabulary(tmp_path):
    rng = np.random.RandomState(3)
    x = rng.randn(200, 2).astype(np.float32)
    y = np.where(x[:, 0] - x[:, 1] > 0, "yes", "no")
    columns = [fc.numeric_column("x", shape=[2])]
    clf = tw.estimator.LinearClassifier(columns, str(tmp_path), label_vocabulary=["no", "yes"])
    clf.train(tw.estimator.inputs.numpy_input_fn({"x": x}, y, num_epochs=None, shuffle=True, batch_size=20), steps=150)
    assert sorted(clf.get_variable_names())[:2] == ["global_step", "linear/linear_model/bias_weights"]
    result = clf.evaluate(tw.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=200, shuffle=False))
    assert sorted(result) == sorted(
        [
            "accuracy",
            "accuracy_baseline",
            "auc",
            "auc_precision_recall",
            "average_loss",
            "global_step",
            "label/mean",
            "loss",
            "precision",
            "prediction/mean",
            "recall",
        ]
    )
    assert result["accuracy"] > 0.9 and result["auc"] > 0.95
    np.testing.assert_allclose(result["label/mean"], np.mean(y == "yes"), rtol=1e-6)
    np.testing.assert_allclose(result["accuracy_baseline"], max(np.mean(y == "yes"), np.mean(y == "no")), rtol=1e-6)
    preds = list(clf.predict(tw.estimator.inputs.numpy_input_fn({"x": x[:5]}, shuffle=False)))
    for p in preds:
        np.testing.assert_allclose(p["logistic"][0], 1 / (1 + np.exp(-p["logits"][0])), rtol=1e-5)
        assert p["classes"][0] == (b"yes" if p["logits"][0] > 0 else b"no")


def test_regressors_fit_least_squares_and_baselines_fit_the_labels(tmp_path):
    rng = np.random.RandomState(5)
    x = rng.randn(100, 3).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5]) + 0.3).astype(np.float32)
    cols = [fc.numeric_column("x", shape=[3])]
    reg = tw.estimator.LinearRegressor(cols, str(tmp_path / "lin"), optimizer=tw.train.GradientDescentOptimizer(0.002))
    reg.train(
        tw.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=100, num_epochs=None, shuffle=False), steps=300
    )
    weights = reg.get_variable_value("linear/linear_model/x/weights")[:, 0]
    np.testing.assert_allclose(weights, np.linalg.lstsq(np.c_[x, np.ones(100)], y, rcond=None)[0][:3], atol=0.02)
    result = reg.evaluate(tw.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=100, shuffle=False))
    assert sorted(result) == ["average_loss", "global_step", "label/mean", "loss", "prediction/mean"]
    np.testing.assert_allclose(result["label/mean"], y.mean(), rtol=1e-5)

    base = tw.estimator.BaselineRegressor(str(tmp_path / "base"), optimizer=tw.train.GradientDescentOptimizer(0.004))
    base.train(
        tw.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=100, num_epochs=None, shuffle=False), steps=100
    )
    np.testing.assert_allclose(base.get_variable_value("baseline/bias"), [y.mean()], atol=0.01)
    labels = np.array([0] * 10 + [1] * 30 + [2] * 60)
    clf = tw.estimator.BaselineClassifier(str(tmp_path / "basec"), n_classes=3, optimizer="Adam")
    clf.train(
        tw.estimator.inputs.numpy_input_fn({"x": x}, labels, batch_size=100, num_epochs=None, shuffle=True), steps=300
    )
    p = next(clf.predict(tw.estimator.inputs.numpy_input_fn({"x": x[:1]}, shuffle=False)))["probabilities"]
    np.testing.assert_allclose(p, [0.1, 0.3, 0.6], atol=0.03)


def test_wide_and_deep_with_categorical_columns(tmp_path):
    rng = np.random.RandomState(7)
    color = rng.choice(["red", "green", "blue"], 300)
    size = rng.randn(300).astype(np.float32)
    y = ((color == "red") ^ (size > 0)).astype(np.int64)
    color_col = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    clf = tw.estimator.DNNLinearCombinedClassifier(
        str(tmp_path),
        linear_feature_columns=[color_col, fc.numeric_column("size")],
        dnn_feature_columns=[fc.embedding_column(color_col, 2), fc.numeric_column("size")],
        dnn_hidden_units=[8],
        dnn_optimizer=tw.train.AdamOptimizer(0.05),
        config=tw.estimator.RunConfig(tf_random_seed=3),
    )
    data = {"color": color, "size": size}
    clf.train(tw.estimator.inputs.numpy_input_fn(data, y, batch_size=50, num_epochs=None, shuffle=True), steps=300)
    names = clf.get_variable_names()
    assert "linear/linear_model/color/weights" in names and "dnn/hiddenlayer_0/kernel" in names
    assert clf.get_variable_value("global_step") == 300  # one increment per step for both optimizers
    result = clf.evaluate(tw.estimator.inputs.numpy_input_fn(data, y, batch_size=300, shuffle=False))
    assert result["accuracy"] > 0.9


def test_export_saved_model_serves_what_predict_gives(tmp_path):
    x, y = _blobs(n=60)
    columns = [fc.numeric_column("f", shape=[4])]
    clf = tw.estimator.DNNClassifier([8], columns, str(tmp_path / "m"), n_classes=3)
    clf.train(tw.estimator.inputs.numpy_input_fn(x, y, num_epochs=None, shuffle=True), steps=20)
    expected = np.stack([p["probabilities"] for p in clf.predict(tw.estimator.inputs.numpy_input_fn(x, shuffle=False))])

    raw = tw.estimator.export.build_raw_serving_input_receiver_fn({"f": tw.placeholder(tw.float32, [None, 4])})
    path = clf.export_saved_model(str(tmp_path / "export"), raw)
    assert isinstance(path, bytes) and os.path.basename(path).isdigit()
    with tw.Graph().as_default(), tw.Session() as sess:
        meta = tw.saved_model.loader.load(sess, [tw.saved_model.tag_constants.SERVING], path.decode())
        signature = meta.signature_def["predict"]  # a raw receiver has no string input for "classification"
        out = sess.run(signature.outputs["probabilities"].name, {signature.inputs["f"].name: x["f"]})
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)

    spec = fc.make_parse_example_spec(columns)
    parsing = tw.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    path = clf.export_saved_model(str(tmp_path / "export2"), parsing)
    examples = [
        tw.train.Example(
            features=tw.train.Features(feature={"f": tw.train.Feature(float_list=tw.train.FloatList(value=row))})
        ).SerializeToString()
        for row in x["f"][:3]
    ]
    with tw.Graph().as_default(), tw.Session() as sess:
        meta = tw.saved_model.loader.load(sess, [tw.saved_model.tag_constants.SERVING], path.decode())
        signature = meta.signature_def["serving_default"]  # classification over serialized examples
        scores = sess.run(signature.outputs["scores"].name, {signature.inputs["inputs"].name: examples})
    np.testing.assert_allclose(scores, expected[:3], rtol=1e-5, atol=1e-6)


def test_train_and_evaluate_evaluates_at_checkpoints_and_exports(tmp_path):
    config = tw.estimator.RunConfig(save_checkpoints_steps=10)
    est = tw.estimator.Estimator(_linear_model_fn, str(tmp_path), config=config, params={"lr": 0.1})
    exporter = tw.estimator.LatestExporter(
        "latest",
        tw.estimator.export.build_raw_serving_input_receiver_fn({"x": tw.placeholder(tw.float32, [None, 1])}),
        exports_to_keep=1,
    )
    train_spec = tw.estimator.TrainSpec(_input(), max_steps=30)
    eval_spec = tw.estimator.EvalSpec(_input(num_epochs=1), steps=None, throttle_secs=0, exporters=exporter)
    metrics, exports = tw.estimator.train_and_evaluate(est, train_spec, eval_spec)
    assert metrics["global_step"] == 30
    assert len(exports) == 3 and len(os.listdir(str(tmp_path / "export" / "latest"))) == 1
    best = tw.estimator.BestExporter(
        serving_input_receiver_fn=exporter._fn,
        compare_fn=lambda best_eval_result, current_eval_result: current_eval_result["global_step"] == 10,
    )  # only the first evaluation is "best"
    est2 = tw.estimator.Estimator(_linear_model_fn, str(tmp_path / "two"), config=config, params={"lr": 0.1})
    eval_spec = tw.estimator.EvalSpec(_input(num_epochs=1), steps=None, throttle_secs=0, exporters=[best])
    _, exports = tw.estimator.train_and_evaluate(est2, train_spec, eval_spec)
    assert [e is not None for e in exports] == [True, False, False]
    smaller = tw.estimator.BestExporter()._compare  # the default: a smaller loss
    assert smaller(best_eval_result={"loss": 2.0}, current_eval_result={"loss": 1.0})
    with pytest.raises(ValueError, match="best_eval_result cannot be empty or no loss is found in it"):
        smaller(best_eval_result={"x": 1}, current_eval_result={"loss": 2})
    with pytest.raises(ValueError, match="Must specify max_steps > 0"):
        tw.estimator.TrainSpec(_input(), max_steps=0)
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        tw.estimator.EvalSpec(None)


def test_warm_start_from_another_model_dir(tmp_path):
    first = tw.estimator.Estimator(_linear_model_fn, str(tmp_path / "a"), params={"lr": 0.1})
    first.train(_input(), steps=10)
    second = tw.estimator.Estimator(
        _linear_model_fn, str(tmp_path / "b"), params={"lr": 0.0}, warm_start_from=str(tmp_path / "a")
    )
    second.train(_input(), steps=1)  # at learning rate 0: the warm-started values are kept
    np.testing.assert_allclose(second.get_variable_value("w"), first.get_variable_value("w"))
    assert second.get_variable_value("global_step") == 1
    settings = tw.estimator.WarmStartSettings(str(tmp_path / "a"), vars_to_warm_start="b")
    third = tw.estimator.Estimator(_linear_model_fn, str(tmp_path / "c"), params={"lr": 0.0}, warm_start_from=settings)
    third.train(_input(), steps=1)
    assert third.get_variable_value("w")[0, 0] == 0 and third.get_variable_value("b") == first.get_variable_value("b")


def test_add_metrics_parse_specs_and_hook_names(tmp_path):
    est = tw.estimator.Estimator(_linear_model_fn, str(tmp_path), params={"lr": 0.1})
    est.train(_input(), steps=5)

    def metric_fn(labels, predictions):
        return {"rmse": tw.metrics.root_mean_squared_error(labels, predictions["y"])}

    with_rmse = tw.estimator.add_metrics(est, metric_fn)
    result = with_rmse.evaluate(_input(num_epochs=1, batch=10))
    w, b = est.get_variable_value("w")[0, 0], est.get_variable_value("b")[0]
    np.testing.assert_allclose(result["rmse"], np.sqrt(np.mean((w * X[:, 0] + b - Y[:, 0]) ** 2)), rtol=1e-5)
    assert sorted(result) == ["global_step", "loss", "mae", "rmse"]
    with pytest.raises(ValueError, match="metric_fn can only have following args"):
        tw.estimator.add_metrics(est, lambda labels, logits: {})

    spec = tw.estimator.classifier_parse_example_spec([fc.numeric_column("a", shape=[2])], "label", weight_column="w")
    assert spec["label"].shape == (1,) and spec["label"].dtype == tw.int64 and spec["w"].dtype == tw.float32
    spec = tw.estimator.regressor_parse_example_spec([fc.numeric_column("a")], "y", label_dimension=3)
    assert spec["y"].shape == (3,) and spec["y"].dtype == tw.float32
    with pytest.raises(ValueError, match="label should not be used as feature"):
        tw.estimator.classifier_parse_example_spec([fc.numeric_column("a")], "a")
    assert tw.estimator.StopAtStepHook is tw.train.StopAtStepHook
    assert tw.estimator.SessionRunHook is tw.train.SessionRunHook
