"""What a model_fn returns to an Estimator: `EstimatorSpec`, and the modes it is called in (`ModeKeys`), as
TensorFlow 1's `tf.estimator` defines them."""

import collections

from tensorweave._src.framework import ops

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"


class ModeKeys:
    """The modes a model_fn is called in."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_MODES = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)


def _is_tensor(x):
    return isinstance(x, (ops.Tensor, ops.Operation)) or hasattr(x, "indices") and hasattr(x, "dense_shape")


def _check_in_graph(value, what):
    graph = ops.get_default_graph()
    g = getattr(value, "graph", None)
    if g is not None and g is not graph:
        raise ValueError(f"{what} must be from the default graph. Given: {value}")


def _as_op(train_op):
    if isinstance(train_op, ops.Operation):
        return train_op
    if isinstance(train_op, ops.Tensor):
        return train_op.op
    raise TypeError(f"train_op must be Operation or Tensor, given: {train_op}")


def check_hooks(hooks, message="All hooks must be SessionRunHook instances"):
    """`hooks` (None: none) as a list; a TypeError with `message` (TensorFlow's, which differs between
    EstimatorSpec and the Estimator's methods) for one that is not a SessionRunHook."""
    from tensorweave._src.training.session_run_hook import SessionRunHook

    hooks = list(hooks or ())
    for h in hooks:
        if not isinstance(h, SessionRunHook):
            raise TypeError(f"{message}, given: {h}")
    return hooks


class EstimatorSpec(
    collections.namedtuple(
        "EstimatorSpec",
        [
            "mode",
            "predictions",
            "loss",
            "train_op",
            "eval_metric_ops",
            "export_outputs",
            "training_chief_hooks",
            "training_hooks",
            "scaffold",
            "evaluation_hooks",
            "prediction_hooks",
        ],
    )
):
    """The ops and objects a model_fn returns, checked as TensorFlow checks them: TRAIN needs `loss` and
    `train_op`, EVAL needs `loss`, PREDICT needs `predictions`; `loss` is a scalar tensor, `predictions` a
    tensor or a dict of them, `eval_metric_ops` a dict of (value, update_op) tuples (or metric objects with
    `result()`/`update_state`)."""

    def __new__(
        cls,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metric_ops=None,
        export_outputs=None,
        training_chief_hooks=None,
        training_hooks=None,
        scaffold=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        from tensorweave._src.training.monitored_session import Scaffold

        if mode not in _MODES:
            raise ValueError(f"mode={mode} unrecognized.")
        if mode == ModeKeys.TRAIN and train_op is None:
            raise ValueError("Missing train_op.")
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL) and loss is None:
            raise ValueError("Missing loss.")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("Missing predictions.")
        if loss is not None:
            if not isinstance(loss, ops.Tensor):
                loss = ops.convert_to_tensor(loss)
            _check_in_graph(loss, "loss")
            shape = loss.get_shape()
            if shape.ndims is not None and shape.num_elements() != 1:
                raise ValueError(f"Loss must be scalar, given: {loss}")
            if shape.ndims not in (None, 0):
                from tensorweave._src.ops import array_ops

                loss = array_ops.reshape(loss, [])
        if predictions is not None:
            values = predictions.values() if isinstance(predictions, dict) else [predictions]
            for v in values:
                if not _is_tensor(v):
                    what = "predictions[...]" if isinstance(predictions, dict) else "predictions"
                    raise TypeError(f"{what} must be Tensor, given: {v}")
                _check_in_graph(v, "predictions")
        if train_op is not None:
            train_op = _as_op(train_op)
            _check_in_graph(train_op, "train_op")
        metrics = dict(eval_metric_ops or {})
        for key, metric in metrics.items():
            if hasattr(metric, "result") and hasattr(metric, "update_state"):
                continue  # a Keras-style metric object
            if not isinstance(metric, tuple) or len(metric) != 2:
                raise TypeError(
                    f"Values of eval_metric_ops must be (metric_value, update_op) tuples, given: {metric} for key: "
                    f"{key}"
                )
        if export_outputs is not None:
            from tensorweave._src.estimator.export import ExportOutput

            if not isinstance(export_outputs, dict):
                raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
            for key, value in export_outputs.items():
                if not isinstance(value, ExportOutput):
                    raise TypeError(f"Values in export_outputs must be ExportOutput objects. Given: {value} at {key}")
        if scaffold is not None and not isinstance(scaffold, Scaffold):
            raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=metrics,
            export_outputs=export_outputs,
            training_chief_hooks=tuple(check_hooks(training_chief_hooks)),
            training_hooks=tuple(check_hooks(training_hooks)),
            scaffold=scaffold or Scaffold(),
            evaluation_hooks=tuple(check_hooks(evaluation_hooks)),
            prediction_hooks=tuple(check_hooks(prediction_hooks)),
        )

    def _replace(self, **kwargs):
        if "mode" in kwargs and self.mode != kwargs["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        return EstimatorSpec(**{**self._asdict(), **kwargs})
