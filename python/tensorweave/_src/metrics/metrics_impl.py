"""TensorFlow 1's streaming metrics (tf.compat.v1.metrics), with TF1's graph semantics.

Each metric returns `(value, update_op)`: `update_op` adds the batch's statistics to variables in the
LOCAL_VARIABLES and METRIC_VARIABLES collections (reset by `local_variables_initializer()`) and returns the
updated value; `value` reads the accumulated state. Variables and ops are named as TF1 names them
("accuracy/total:0", "accuracy/count:0", "accuracy/value:0", "accuracy/update_op:0").
"""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import (
    array_nd_ops,
    array_ops,
    logging_ops,
    math_ops,
    scatter_var_ops,
    selection_ops,
    special_math_ops,
    state_ops,
    variables,
)

__all__ = [
    "accuracy",
    "auc",
    "false_negatives",
    "false_negatives_at_thresholds",
    "false_positives",
    "false_positives_at_thresholds",
    "mean",
    "mean_absolute_error",
    "mean_cosine_distance",
    "mean_iou",
    "mean_per_class_accuracy",
    "mean_relative_error",
    "mean_squared_error",
    "mean_tensor",
    "percentage_below",
    "precision",
    "precision_at_thresholds",
    "recall",
    "recall_at_thresholds",
    "root_mean_squared_error",
    "sensitivity_at_specificity",
    "specificity_at_sensitivity",
    "true_negatives",
    "true_negatives_at_thresholds",
    "true_positives",
    "true_positives_at_thresholds",
]

METRIC_VARIABLES = ops.GraphKeys.METRIC_VARIABLES


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialized, non-trainable variable in LOCAL_VARIABLES and METRIC_VARIABLES."""
    return variables.Variable(
        lambda: array_ops.zeros(shape, dtype),
        trainable=False,
        collections=[ops.GraphKeys.LOCAL_VARIABLES, METRIC_VARIABLES],
        validate_shape=validate_shape,
        name=name,
    )


def _div_no_nan(x, y, name=None):
    return special_math_ops.div_no_nan(x, y, name=name)


def remove_squeezable_dimensions(labels, predictions, expected_rank_diff=0, name=None):
    """Squeezes a trailing size-1 dimension of labels or predictions so that their ranks differ by
    `expected_rank_diff` (TF's confusion_matrix.remove_squeezable_dimensions, static ranks)."""
    with ops.name_scope(name or "remove_squeezable_dimensions"):
        predictions = ops.convert_to_tensor(predictions)
        labels = ops.convert_to_tensor(labels)
        predictions_shape = predictions.get_shape()
        labels_shape = labels.get_shape()
        if predictions_shape.ndims is not None and labels_shape.ndims is not None:
            rank_diff = predictions_shape.ndims - labels_shape.ndims
            if rank_diff == expected_rank_diff + 1 and predictions_shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and labels_shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
        return labels, predictions


def _remove_squeezable_dimensions(predictions, labels, weights):
    predictions = ops.convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if weights is None:
        return predictions, labels, None
    weights = ops.convert_to_tensor(weights)
    weights_rank = weights.get_shape().ndims
    if weights_rank == 0:
        return predictions, labels, weights
    predictions_rank = predictions.get_shape().ndims
    if predictions_rank is not None and weights_rank is not None:
        if weights_rank - predictions_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif predictions_rank - weights_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
    return predictions, labels, weights


def _broadcast_weights(weights, values):
    """weights broadcast to values' shape (TF's weights_broadcast_ops.broadcast_weights): weights must be a
    scalar or have values' rank with each dimension 1 or values' dimension."""
    with ops.name_scope("broadcast_weights"):
        weights = ops.convert_to_tensor(weights, name="weights")
        values = ops.convert_to_tensor(values, name="values")
        w_shape, v_shape = weights.get_shape(), values.get_shape()
        if w_shape.is_fully_defined() and v_shape.is_fully_defined() and w_shape.as_list() == v_shape.as_list():
            return weights
        if w_shape.ndims is not None and v_shape.ndims is not None and w_shape.ndims != 0:
            bad = w_shape.ndims != v_shape.ndims or any(
                w is not None and v is not None and w != 1 and w != v
                for w, v in zip(w_shape.as_list(), v_shape.as_list())
            )
            if bad:
                raise ValueError(
                    f"weights can not be broadcast to values. values.rank={v_shape.ndims}. "
                    f"weights.rank={w_shape.ndims}. values.shape={v_shape}. weights.shape={w_shape}."
                )
        return math_ops.multiply(weights, array_ops.ones_like(values), name="broadcast_weights")


def _add_collections(collections, value):
    if collections:
        ops.add_to_collections(collections, value)


def _read(variable, collections):
    value = array_ops.identity(variable)
    _add_collections(collections, value)
    return value


def _check_graph_mode(name):
    from tensorweave._src.framework import behavior

    if behavior.executing_eagerly():
        raise RuntimeError(f"tf.metrics.{name} is not supported when eager execution is enabled.")


def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of `values` over every update: total / count."""
    _check_graph_mode("mean")
    with variables.variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = _remove_squeezable_dimensions(predictions=values, labels=None, weights=weights)
            weights = _broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, math_ops.reduce_sum(values))
        with ops.control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = _div_no_nan(total, math_ops.maximum(count, 0), name="value")
        _add_collections(metrics_collections, mean_t)
        update_op = _div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0), name="update_op")
        _add_collections(updates_collections, update_op)
        return mean_t, update_op


def accuracy(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """How often `predictions` equals `labels` (predictions are cast to labels' dtype)."""
    _check_graph_mode("accuracy")
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None, includes=None):
    all_includes = ("tp", "fn", "tn", "fp")
    if includes is None:
        includes = all_includes
    else:
        for include in includes:
            if include not in all_includes:
                raise ValueError(f"Invalid key: {include}")
    predictions = ops.convert_to_tensor(predictions)
    with ops.control_dependencies(
        [
            logging_ops.assert_greater_equal(
                predictions, math_ops.cast(0.0, predictions.dtype), message="predictions must be in [0, 1]"
            ),
            logging_ops.assert_less_equal(
                predictions, math_ops.cast(1.0, predictions.dtype), message="predictions must be in [0, 1]"
            ),
        ]
    ):
        predictions, labels, weights = _remove_squeezable_dimensions(
            predictions=math_ops.cast(predictions, dtypes.float32),
            labels=math_ops.cast(labels, dtypes.bool),
            weights=weights,
        )
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtypes.bool), [1, -1])
    num_predictions = predictions_2d.get_shape().as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(
        array_ops.expand_dims(ops.convert_to_tensor(thresholds, dtype=dtypes.float32), [1]),
        array_ops.stack([1, num_predictions]),
    )
    pred_is_pos = math_ops.greater(
        array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]), thresh_tiled
    )
    if "fn" in includes or "tn" in includes:
        pred_is_neg = math_ops.logical_not(pred_is_pos)
    label_is_pos = array_ops.tile(labels_2d, [num_thresholds, 1])
    if "fp" in includes or "tn" in includes:
        label_is_neg = math_ops.logical_not(label_is_pos)
    if weights is not None:
        weights = _broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.get_shape().assert_is_compatible_with(weights_tiled.get_shape())
    else:
        weights_tiled = None
    values, update_ops = {}, {}
    spec = {
        "tp": ("true_positives", lambda: (label_is_pos, pred_is_pos)),
        "fn": ("false_negatives", lambda: (label_is_pos, pred_is_neg)),
        "tn": ("true_negatives", lambda: (label_is_neg, pred_is_neg)),
        "fp": ("false_positives", lambda: (label_is_neg, pred_is_pos)),
    }
    for key in all_includes:
        if key not in includes:
            continue
        var_name, operands = spec[key]
        var = metric_variable([num_thresholds], dtypes.float32, name=var_name)
        is_case = math_ops.cast(math_ops.logical_and(*operands()), dtypes.float32)
        if weights_tiled is not None:
            is_case *= weights_tiled
        update_ops[key] = state_ops.assign_add(var, math_ops.reduce_sum(is_case, 1))
        values[key] = var
    return values, update_ops


def _uniform_thresholds(num_thresholds, last_epsilon=1e-7):
    kepsilon = 1e-7
    thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon] + thresholds + [1.0 + last_epsilon]


def auc(
    labels,
    predictions,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    curve="ROC",
    name=None,
    summation_method="trapezoidal",
    thresholds=None,
):
    """The area under the ROC or PR curve, by a Riemann sum over `num_thresholds` thresholds in [0, 1]."""
    _check_graph_mode("auc")
    with variables.variable_scope(name, "auc", (labels, predictions, weights)):
        if curve != "ROC" and curve != "PR":
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        kepsilon = 1e-7
        if thresholds is not None:
            thresholds = sorted(thresholds)
            num_thresholds = len(thresholds) + 2
        else:
            if num_thresholds < 2:
                raise ValueError("`num_thresholds` must be > 1.")
            thresholds = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        thresholds = [0.0 - kepsilon] + list(thresholds) + [1.0 + kepsilon]
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights)
        epsilon = 1.0e-6
        n = num_thresholds

        def interpolate_pr_auc(tp, fp, fn):
            dtp = tp[: n - 1] - tp[1:]
            p = tp + fp
            prec_slope = _div_no_nan(dtp, math_ops.maximum(p[: n - 1] - p[1:], 0), name="prec_slope")
            intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
            safe_p_ratio = math_ops.where(
                math_ops.logical_and(p[: n - 1] > 0, p[1:] > 0),
                _div_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0), name="recall_relative_ratio"),
                array_ops.ones_like(p[1:]),
            )
            return math_ops.reduce_sum(
                _div_no_nan(
                    prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                    math_ops.maximum(tp[1:] + fn[1:], 0),
                    name="pr_auc_increment",
                ),
                name="interpolate_pr_auc",
            )

        def compute_auc(tp, fn, tn, fp, name):
            if curve == "PR":
                if summation_method == "trapezoidal":
                    from tensorweave._src.platform import tf_logging

                    tf_logging.warning(
                        "Trapezoidal rule is known to produce incorrect PR-AUCs; "
                        'please switch to "careful_interpolation" instead.'
                    )
                elif summation_method == "careful_interpolation":
                    return interpolate_pr_auc(tp, fp, fn)
            rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x = math_ops.divide(fp, fp + tn + epsilon)
                y = rec
            else:
                x = rec
                y = math_ops.divide(tp + epsilon, tp + fp + epsilon)
            if summation_method in ("trapezoidal", "careful_interpolation"):
                heights = (y[: n - 1] + y[1:]) / 2.0
            elif summation_method == "minoring":
                heights = math_ops.minimum(y[: n - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[: n - 1], y[1:])
            else:
                raise ValueError(
                    f"Invalid summation_method: {summation_method} summation_method should be "
                    "'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'."
                )
            return math_ops.reduce_sum(math_ops.multiply(x[: n - 1] - x[1:], heights), name=name)

        auc_value = compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], "value")
        _add_collections(metrics_collections, auc_value)
        update_op = compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"], update_ops["fp"], "update_op")
        _add_collections(updates_collections, update_op)
        return auc_value, update_op


def mean_absolute_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    _check_graph_mode("mean_absolute_error")
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    absolute_errors = math_ops.abs(predictions - labels)
    return mean(absolute_errors, weights, metrics_collections, updates_collections, name or "mean_absolute_error")


def mean_cosine_distance(
    labels, predictions, dim, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """1 - the mean of sum(labels * predictions) along `dim` (the inputs are assumed unit-normalized)."""
    _check_graph_mode("mean_cosine_distance")
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    radial_diffs = math_ops.multiply(predictions, labels)
    radial_diffs = math_ops.reduce_sum(radial_diffs, axis=[dim], keepdims=True)
    mean_distance, update_op = mean(radial_diffs, weights, None, None, name or "mean_cosine_distance")
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    _add_collections(metrics_collections, mean_distance)
    _add_collections(updates_collections, update_op)
    return mean_distance, update_op


def mean_per_class_accuracy(
    labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    _check_graph_mode("mean_per_class_accuracy")
    with variables.variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = math_ops.cast(labels, dtypes.int64)
        predictions = ops.convert_to_tensor(predictions)
        if labels.get_shape().ndims > 1:
            labels = array_ops.reshape(labels, [-1])
        if predictions.get_shape().ndims > 1:
            predictions = array_ops.reshape(predictions, [-1])
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones(array_ops.stack([array_ops.size(labels)]), dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = ops.convert_to_tensor(weights)
            if weights.get_shape().ndims > 1:
                weights = array_ops.reshape(weights, [-1])
            weights = math_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = scatter_var_ops.scatter_add(total, labels, ones)
        update_count_op = scatter_var_ops.scatter_add(count, labels, is_correct)
        per_class_accuracy = _div_no_nan(count, math_ops.maximum(total, 0))
        mean_accuracy_v = math_ops.reduce_mean(per_class_accuracy, name="mean_accuracy")
        _add_collections(metrics_collections, mean_accuracy_v)
        update_op = _div_no_nan(update_count_op, math_ops.maximum(update_total_op, 0), name="update_op")
        _add_collections(updates_collections, update_op)
        return mean_accuracy_v, update_op


def _streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    total_cm = metric_variable([num_classes, num_classes], dtypes.float64, name="total_confusion_matrix")
    predictions = math_ops.cast(predictions, dtypes.int64)
    labels = math_ops.cast(labels, dtypes.int64)
    num_classes = math_ops.cast(num_classes, dtypes.int64)
    if predictions.get_shape().ndims > 1:
        predictions = array_ops.reshape(predictions, [-1])
    if labels.get_shape().ndims > 1:
        labels = array_ops.reshape(labels, [-1])
    if weights is not None:
        weights = ops.convert_to_tensor(weights)
        if weights.get_shape().ndims > 1:
            weights = array_ops.reshape(weights, [-1])
    current_cm = selection_ops.confusion_matrix(labels, predictions, num_classes, weights=weights, dtype=dtypes.float64)
    update_op = state_ops.assign_add(total_cm, current_cm)
    return total_cm, update_op


def mean_iou(
    labels, predictions, num_classes, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The mean intersection-over-union over the classes that occur (update_op returns the confusion matrix)."""
    _check_graph_mode("mean_iou")
    with variables.variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions = ops.convert_to_tensor(predictions)
        labels = ops.convert_to_tensor(labels)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes, weights)
        sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), dtypes.float32)
        sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), dtypes.float32)
        cm_diag = math_ops.cast(array_nd_ops.diag_part(total_cm), dtypes.float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid_entries = math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(denominator, 0), dtypes.float32))
        denominator = math_ops.where(math_ops.greater(denominator, 0), denominator, array_ops.ones_like(denominator))
        iou = math_ops.divide(cm_diag, denominator)
        result = math_ops.where(
            math_ops.greater(num_valid_entries, 0),
            math_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries,
            0.0,
        )
        _add_collections(metrics_collections, result)
        _add_collections(updates_collections, update_op)
        return result, update_op


def mean_relative_error(
    labels, predictions, normalizer, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    _check_graph_mode("mean_relative_error")
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    predictions, normalizer = remove_squeezable_dimensions(predictions, normalizer)
    predictions.get_shape().assert_is_compatible_with(normalizer.get_shape())
    relative_errors = math_ops.where(
        math_ops.equal(normalizer, 0.0),
        array_ops.zeros_like(labels),
        math_ops.divide(math_ops.abs(labels - predictions), normalizer),
    )
    return mean(relative_errors, weights, metrics_collections, updates_collections, name or "mean_relative_error")


def mean_squared_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    _check_graph_mode("mean_squared_error")
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(squared_error, weights, metrics_collections, updates_collections, name or "mean_squared_error")


def mean_tensor(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The element-wise (weighted) mean of `values` over every update (values keep their shape)."""
    _check_graph_mode("mean_tensor")
    with variables.variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable(values.get_shape(), dtypes.float32, name="total_tensor")
        count = metric_variable(values.get_shape(), dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = _remove_squeezable_dimensions(predictions=values, labels=None, weights=weights)
            weights = _broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total_op = state_ops.assign_add(total, values)
        with ops.control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = _div_no_nan(total, math_ops.maximum(count, 0), name="value")
        _add_collections(metrics_collections, mean_t)
        update_op = _div_no_nan(update_total_op, math_ops.maximum(update_count_op, 0), name="update_op")
        _add_collections(updates_collections, update_op)
        return mean_t, update_op


def percentage_below(values, threshold, weights=None, metrics_collections=None, updates_collections=None, name=None):
    _check_graph_mode("percentage_below")
    is_below_threshold = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(
        is_below_threshold, weights, metrics_collections, updates_collections, name or "percentage_below_threshold"
    )


def _count_condition(values, weights=None, metrics_collections=None, updates_collections=None):
    logging_ops.assert_type(values, dtypes.bool)
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        weights = ops.convert_to_tensor(weights)
        with ops.control_dependencies((logging_ops.assert_rank_in(weights, (0, array_ops.rank(values))),)):
            weights = math_ops.cast(weights, dtypes.float32)
            values = math_ops.multiply(values, weights)
    value_tensor = _read(count, metrics_collections)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    _add_collections(updates_collections, update_op)
    return value_tensor, update_op


def _count_metric(kind, label_value, prediction_value):
    def metric(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        _check_graph_mode(kind)
        with variables.variable_scope(name, kind, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                predictions=math_ops.cast(predictions, dtypes.bool),
                labels=math_ops.cast(labels, dtypes.bool),
                weights=weights,
            )
            is_case = math_ops.logical_and(
                math_ops.equal(labels, label_value), math_ops.equal(predictions, prediction_value)
            )
            return _count_condition(is_case, weights, metrics_collections, updates_collections)

    metric.__name__ = metric.__qualname__ = kind
    metric.__doc__ = f"The (weighted) number of {kind.replace('_', ' ')} (labels and predictions cast to bool)."
    return metric


def _count_at_thresholds_metric(kind, key):
    def metric(
        labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None, name=None
    ):
        _check_graph_mode(kind + "_at_thresholds")
        with variables.variable_scope(name, kind, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(key,)
            )
            value = _read(values[key], metrics_collections)
            _add_collections(updates_collections, update_ops[key])
            return value, update_ops[key]

    metric.__name__ = metric.__qualname__ = kind + "_at_thresholds"
    metric.__doc__ = f"The (weighted) number of {kind.replace('_', ' ')} at each threshold (prediction > threshold)."
    return metric


true_positives = _count_metric("true_positives", True, True)
false_positives = _count_metric("false_positives", False, True)
true_negatives = _count_metric("true_negatives", False, False)
false_negatives = _count_metric("false_negatives", True, False)
true_positives_at_thresholds = _count_at_thresholds_metric("true_positives", "tp")
false_positives_at_thresholds = _count_at_thresholds_metric("false_positives", "fp")
true_negatives_at_thresholds = _count_at_thresholds_metric("true_negatives", "tn")
false_negatives_at_thresholds = _count_at_thresholds_metric("false_negatives", "fn")


def _ratio_metric(kind, other):
    other_fn = {"false_positives": false_positives, "false_negatives": false_negatives}[other]

    def metric(labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None):
        _check_graph_mode(kind)
        with variables.variable_scope(name, kind, (predictions, labels, weights)):
            predictions, labels, weights = _remove_squeezable_dimensions(
                predictions=math_ops.cast(predictions, dtypes.bool),
                labels=math_ops.cast(labels, dtypes.bool),
                weights=weights,
            )
            true_p, tp_update = true_positives(labels, predictions, weights)
            other_v, other_update = other_fn(labels, predictions, weights)

            def compute(tp, o, name):
                return math_ops.where(math_ops.greater(tp + o, 0), math_ops.divide(tp, tp + o), 0.0, name)

            value = compute(true_p, other_v, "value")
            _add_collections(metrics_collections, value)
            update_op = compute(tp_update, other_update, "update_op")
            _add_collections(updates_collections, update_op)
            return value, update_op

    metric.__name__ = metric.__qualname__ = kind
    return metric


precision = _ratio_metric("precision", "false_positives")
precision.__doc__ = "true_positives / (true_positives + false_positives), 0 when there are none."
recall = _ratio_metric("recall", "false_negatives")
recall.__doc__ = "true_positives / (true_positives + false_negatives), 0 when there are none."


def _ratio_at_thresholds_metric(kind, other_key):
    def metric(
        labels, predictions, thresholds, weights=None, metrics_collections=None, updates_collections=None, name=None
    ):
        _check_graph_mode(kind + "_at_thresholds")
        with variables.variable_scope(name, kind + "_at_thresholds", (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights, includes=("tp", other_key)
            )
            epsilon = 1e-7

            def compute(tp, o, name):
                return math_ops.divide(tp, epsilon + tp + o, name=f"{kind}_{name}")

            value = compute(values["tp"], values[other_key], "value")
            _add_collections(metrics_collections, value)
            update_op = compute(update_ops["tp"], update_ops[other_key], "update_op")
            _add_collections(updates_collections, update_op)
            return value, update_op

    metric.__name__ = metric.__qualname__ = kind + "_at_thresholds"
    metric.__doc__ = f"{kind} at each threshold (prediction > threshold counts as positive)."
    return metric


precision_at_thresholds = _ratio_at_thresholds_metric("precision", "fp")
recall_at_thresholds = _ratio_at_thresholds_metric("recall", "fn")


def root_mean_squared_error(
    labels, predictions, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    _check_graph_mode("root_mean_squared_error")
    predictions, labels, weights = _remove_squeezable_dimensions(
        predictions=predictions, labels=labels, weights=weights
    )
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None, name or "root_mean_squared_error")
    rmse = math_ops.sqrt(mse)
    _add_collections(metrics_collections, rmse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    _add_collections(updates_collections, update_rmse_op)
    return rmse, update_rmse_op


def sensitivity_at_specificity(
    labels,
    predictions,
    specificity,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    _check_graph_mode("sensitivity_at_specificity")
    if specificity < 0 or specificity > 1:
        raise ValueError(f"`specificity` must be in the range [0, 1]. Currently, `specificity` got {specificity}.")
    with variables.variable_scope(name, "sensitivity_at_specificity", (predictions, labels, weights)):
        kepsilon = 1e-7
        thresholds = _uniform_thresholds(num_thresholds)
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights)

        def compute(tp, tn, fp, fn, name):
            specificities = math_ops.divide(tn, tn + fp + kepsilon)
            tf_index = math_ops.argmin(math_ops.abs(specificities - specificity), 0)
            tf_index = math_ops.cast(tf_index, dtypes.int32)
            return math_ops.divide(tp[tf_index], tp[tf_index] + fn[tf_index] + kepsilon, name)

        value = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        _add_collections(metrics_collections, value)
        update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op")
        _add_collections(updates_collections, update_op)
        return value, update_op


def specificity_at_sensitivity(
    labels,
    predictions,
    sensitivity,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    _check_graph_mode("specificity_at_sensitivity")
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(f"`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is {sensitivity}.")
    with variables.variable_scope(name, "specificity_at_sensitivity", (predictions, labels, weights)):
        kepsilon = 1e-7
        # TF1's last threshold is 1 - epsilon here (1 + epsilon in the others).
        thresholds = _uniform_thresholds(num_thresholds, last_epsilon=-kepsilon)
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights)

        def compute(tp, tn, fp, fn, name):
            sensitivities = math_ops.divide(tp, tp + fn + kepsilon)
            min_val = math_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
            indices_at_minval = math_ops.equal(math_ops.abs(sensitivities - sensitivity), min_val)
            indices_at_minval = math_ops.cast(indices_at_minval, dtypes.int64)
            indices_at_minval = special_math_ops.cumsum(indices_at_minval)
            tf_index = math_ops.argmax(indices_at_minval, 0)
            tf_index = math_ops.cast(tf_index, dtypes.int32)
            return math_ops.divide(tn[tf_index], tn[tf_index] + fp[tf_index] + kepsilon, name)

        value = compute(values["tp"], values["tn"], values["fp"], values["fn"], "value")
        _add_collections(metrics_collections, value)
        update_op = compute(update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"], "update_op")
        _add_collections(updates_collections, update_op)
        return value, update_op
