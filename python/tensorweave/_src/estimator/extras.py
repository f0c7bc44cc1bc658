"""The smaller pieces of TensorFlow 1's `tf.estimator`: `add_metrics`, and the parse-example specs of the canned
classifiers and regressors."""

from tensorweave._src.estimator.estimator import Estimator
from tensorweave._src.estimator.estimator import _fn_args
from tensorweave._src.estimator.model_fn import ModeKeys


def add_metrics(estimator, metric_fn):
    """A copy of `estimator` whose evaluation also reports what `metric_fn` returns: a dict of (value, update_op)
    metrics, the function taking any of `labels`, `predictions`, `features`, `config` by name."""
    if not isinstance(estimator, Estimator):
        raise TypeError(f"estimator should be an Estimator, given: {estimator}")
    args = set(_fn_args(metric_fn))
    unknown = args - {"labels", "predictions", "features", "config"}
    if unknown:
        raise ValueError(
            f"metric_fn ({metric_fn}) has following not expected args: {sorted(unknown)}. metric_fn can only "
            "have following args: ['labels', 'predictions', 'features', 'config']"
        )
    base = estimator

    def model_fn(features, labels, mode, config):
        spec = base._call_model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        given = {"labels": labels, "predictions": spec.predictions, "features": features, "config": config}
        extra = metric_fn(**{k: v for k, v in given.items() if k in args})
        if not isinstance(extra, dict):
            raise TypeError(f"metric_fn should return a dict, given: {extra}")
        metrics = dict(spec.eval_metric_ops)
        metrics.update(extra)
        return spec._replace(eval_metric_ops=metrics)

    return Estimator(model_fn, estimator.model_dir, estimator.config, warm_start_from=estimator._warm_start_settings)


def _label_spec(feature_columns, label_key, shape, label_dtype, label_default, weight_column):
    from tensorweave._src.feature_column import feature_column as fc
    from tensorweave._src.ops import parsing_ops

    spec = fc.make_parse_example_spec(feature_columns)
    if label_key in spec:
        raise ValueError(f"label should not be used as feature. label_key: {label_key}, features: {sorted(spec)}")
    spec[label_key] = parsing_ops.FixedLenFeature(shape, label_dtype, label_default)
    if weight_column is not None:
        column = fc.numeric_column(weight_column) if isinstance(weight_column, str) else weight_column
        spec.update(fc.make_parse_example_spec([column]))
    return spec


def classifier_parse_example_spec(feature_columns, label_key, label_dtype=None, label_default=None, weight_column=None):
    """The parse spec of tf.Examples for a canned classifier: the feature columns' spec, the label (one int64
    value, or a string with a vocabulary) and the weight column's."""
    from tensorweave._src.framework import dtypes

    dtype = dtypes.int64 if label_dtype is None else label_dtype
    return _label_spec(feature_columns, label_key, (1,), dtype, label_default, weight_column)


def regressor_parse_example_spec(
    feature_columns, label_key, label_dtype=None, label_default=None, label_dimension=1, weight_column=None
):
    """The parse spec of tf.Examples for a canned regressor: the feature columns' spec, the label
    (`label_dimension` float32 values) and the weight column's."""
    from tensorweave._src.framework import dtypes

    dtype = dtypes.float32 if label_dtype is None else label_dtype
    return _label_spec(feature_columns, label_key, (label_dimension,), dtype, label_default, weight_column)
