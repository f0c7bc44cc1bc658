"""`tf.keras.estimator.model_to_estimator`: a compiled Keras model as a `tf.estimator.Estimator`.

The Estimator's model_fn rebuilds the model from its config in the Estimator's graph, calls it on the features
(a tensor, or a dict keyed by the model's input names), and, as TF1 does, trains with the model's loss and
optimizer, evaluates its loss and metrics (`tf.metrics` of the same names) and predicts its outputs (keyed by
the model's output names). The first run starts from the Keras model's current weights; later runs restore the
Estimator's checkpoints in `model_dir`.
"""

import copy
import tempfile

import numpy as np

__all__ = ["model_to_estimator"]


def _tw():
    import tensorweave as tw

    return tw


def _metric_ops(tw, name, labels, output, loss_name):
    """The tf.metrics op pair of a compiled Keras metric name, or None where there is none."""
    key = name if isinstance(name, str) else getattr(name, "__name__", "")
    if key in ("acc", "accuracy"):
        if loss_name in ("sparse_categorical_crossentropy",):
            return tw.metrics.accuracy(tw.reshape(labels, [-1]), tw.argmax(output, -1))
        if loss_name in ("binary_crossentropy",) or output.shape[-1].value == 1:
            return tw.metrics.accuracy(labels, tw.cast(output > 0.5, labels.dtype))
        return tw.metrics.accuracy(tw.argmax(labels, -1), tw.argmax(output, -1))
    table = {"mae": tw.metrics.mean_absolute_error, "mean_absolute_error": tw.metrics.mean_absolute_error,
             "mse": tw.metrics.mean_squared_error, "mean_squared_error": tw.metrics.mean_squared_error}  # fmt: skip
    return table[key](labels, output) if key in table else None


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None, model_dir=None, config=None,
                       checkpoint_format="saver", metric_names_map=None, export_outputs=None):  # fmt: skip
    """An Estimator that trains, evaluates and predicts with a compiled Keras model (see the module's docstring).

    Args:
      keras_model: a compiled tw.keras Model (functional or Sequential).
      keras_model_path: or the path of one saved with `model.save` (compiled).
      custom_objects: for rebuilding the model.
      model_dir: the Estimator's directory (a new temporary one by default).
      config: a RunConfig.
    """
    tw = _tw()
    from tensorweave._src.keras import losses, models, optimizers

    if (keras_model is None) == (keras_model_path is None):
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if checkpoint_format not in ("saver", "checkpoint"):
        raise ValueError(f"Unknown checkpoint format: {checkpoint_format!r}")
    if keras_model_path is not None:
        with tw.Graph().as_default():
            keras_model = models.load_model(keras_model_path, custom_objects)
            return model_to_estimator(keras_model, None, custom_objects, model_dir, config)
    if getattr(keras_model, "optimizer", None) is None or getattr(keras_model, "loss", None) is None:
        raise ValueError(
            "The given keras model has not been compiled yet. Please compile the model with `model.compile()` "
            "before calling `model_to_estimator()`."
        )
    model_json = keras_model.to_json()
    weights = keras_model.get_weights()
    loss = keras_model.loss
    keras_optimizer = isinstance(keras_model.optimizer, optimizers.Optimizer)
    optimizer_config = optimizers.serialize(keras_model.optimizer) if keras_optimizer else None
    metrics = getattr(keras_model, "_metrics_spec", None) or []
    metric_names = list(metrics) if isinstance(metrics, (list, tuple)) else []
    input_names, output_names = list(keras_model.input_names), list(keras_model.output_names)

    def model_fn(features, labels, mode):
        model = models.model_from_json(model_json, custom_objects)
        if isinstance(features, dict):
            missing = [n for n in input_names if n not in features]
            if missing:
                raise KeyError(f"The dictionary passed into features does not have the expected inputs keys "
                               f"defined in the keras model. Expected keys: {input_names}, features keys: "
                               f"{list(features)}")  # fmt: skip
            inputs = [features[n] for n in input_names]
        else:
            inputs = features if isinstance(features, (list, tuple)) else [features]
        inputs = [tw.cast(x, t.dtype) for x, t in zip(inputs, model.inputs)]
        output = model(inputs[0] if len(inputs) == 1 else inputs)
        outputs = list(output) if isinstance(output, (list, tuple)) else [output]
        predictions = dict(zip(output_names, outputs))

        def load_keras_weights(scaffold, sess):
            del scaffold
            for var, value in zip(model.weights, weights):
                var.load(np.asarray(value), sess)

        scaffold = tw.train.Scaffold(init_fn=load_keras_weights)
        if mode == tw.estimator.ModeKeys.PREDICT:
            return tw.estimator.EstimatorSpec(mode, predictions=predictions, scaffold=scaffold)
        target = tw.cast(labels, outputs[0].dtype)
        loss_fn = losses.get(loss if not isinstance(loss, (list, dict)) else loss[0])
        total = tw.reduce_mean(loss_fn(target, outputs[0]))
        if model.losses:
            total = total + tw.add_n([tw.cast(x, tw.float32) for x in model.losses])
        if mode == tw.estimator.ModeKeys.EVAL:
            loss_name = loss if isinstance(loss, str) else getattr(loss, "__name__", "")
            metric_ops = {}
            for name in metric_names:
                ops_pair = _metric_ops(tw, name, target, outputs[0], loss_name)
                if ops_pair is not None:
                    metric_ops[name if isinstance(name, str) else name.__name__] = ops_pair
            return tw.estimator.EstimatorSpec(mode, loss=total, eval_metric_ops=metric_ops, scaffold=scaffold)
        if keras_optimizer:
            optimizer = optimizers.deserialize(copy.deepcopy(optimizer_config))
            updates = optimizer.get_updates(total, model.trainable_weights) + list(model.updates)
        else:  # a tw.train optimizer given to compile (TF1's TFOptimizer): used as it is
            updates = [keras_model.optimizer.minimize(total, var_list=model.trainable_weights), *model.updates]
        with tw.control_dependencies(updates):
            train_op = tw.assign_add(tw.train.get_or_create_global_step(), 1).op
        return tw.estimator.EstimatorSpec(mode, loss=total, train_op=train_op, scaffold=scaffold)

    return tw.estimator.Estimator(model_fn, model_dir=model_dir or tempfile.mkdtemp(), config=config)
