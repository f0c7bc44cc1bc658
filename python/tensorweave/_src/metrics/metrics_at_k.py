"""TF1's streaming top-k metrics: `precision_at_k`, `recall_at_k` (from logits) and `precision_at_top_k`,
`recall_at_top_k` (from top-k class ids), as tf.compat.v1.metrics computes them: per example, the true
positives are the labels among the top k ids (set intersection), false positives the top-k ids that are no
label, false negatives the labels not in the top k; their sums accumulate in float64 local variables and the
metric is tp / (tp + fp) or tp / (tp + fn) (NaN before anything counted). `class_id` keeps only that class.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     logits = tw.constant([[0.1, 0.7, 0.2], [0.6, 0.3, 0.1]])
  ...     prec, update = tw.metrics.precision_at_k(tw.constant([1, 2], tw.int64), logits, k=2)
  ...     sess.run(tw.local_variables_initializer())
  ...     print(sess.run(update), prec.dtype.name)
  0.25 float64
"""

from tensorweave._src.framework import dtypes, ops, sparse_tensor
from tensorweave._src.metrics.metrics_impl import (
    _add_collections,
    _broadcast_weights,
    _check_graph_mode,
    _div_no_nan,
    metric_variable,
)
from tensorweave._src.ops import array_ops, math_ops, selection_ops, sets_ops, state_ops

__all__ = [
    "average_precision_at_k",
    "precision_at_k",
    "precision_at_top_k",
    "recall_at_k",
    "recall_at_top_k",
    "sparse_average_precision_at_k",
    "sparse_precision_at_k",
]


def _at_k_name(name, k=None, class_id=None):
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    if class_id is not None:
        name = f"{name}_class{class_id}"
    return name


def _maybe_expand_labels(labels, predictions):
    """Dense labels of one rank less than the predictions get a trailing dimension of 1 (one label each)."""
    if isinstance(labels, sparse_tensor.SparseTensor):
        return labels
    labels = ops.convert_to_tensor(labels)
    if labels.shape.ndims is not None and predictions.shape.ndims is not None:
        if labels.shape.ndims == predictions.shape.ndims - 1:
            return array_ops.expand_dims(labels, -1)
    return labels


def _select_class_id(ids, selected_id):
    """Only the entries of `ids` (a dense [..., n] or SparseTensor of ids) equal to `selected_id`, as a sparse
    set per row."""
    if isinstance(ids, sparse_tensor.SparseTensor):
        from tensorweave._src.ops import sparse_ops

        return sparse_ops.sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids = math_ops.cast(ids, dtypes.int64)
    one_per_row = array_ops.concat([array_ops.shape(ids, out_type=dtypes.int64)[:-1], [1]], 0)
    chosen = array_ops.fill(one_per_row, math_ops.cast(selected_id, dtypes.int64))
    result = sets_ops.set_intersection(chosen, ids)
    return sparse_tensor.SparseTensor(result.indices, result.values, array_ops.shape(ids, out_type=dtypes.int64))


def _labels_as_int64(labels):
    if isinstance(labels, sparse_tensor.SparseTensor):
        if labels.values.dtype != dtypes.int64:
            return sparse_tensor.SparseTensor(
                labels.indices, math_ops.cast(labels.values, dtypes.int64), labels.dense_shape
            )
        return labels
    return math_ops.cast(labels, dtypes.int64)


def _streaming_count(kind, labels, predictions_idx, k, class_id, weights):
    """A float64 local variable summing one count over the updates, and its update op."""
    with ops.name_scope(None, _at_k_name(kind, k, class_id), (predictions_idx, labels, weights)) as scope:
        if class_id is not None:
            labels = _select_class_id(labels, class_id)
            predictions_idx = _select_class_id(predictions_idx, class_id)
        if kind == "true_positive":
            per_row = sets_ops.set_size(sets_ops.set_intersection(predictions_idx, labels))
        elif kind == "false_positive":
            per_row = sets_ops.set_size(sets_ops.set_difference(predictions_idx, labels, aminusb=True))
        else:
            per_row = sets_ops.set_size(sets_ops.set_difference(labels, predictions_idx, aminusb=True))
        per_row = math_ops.cast(per_row, dtypes.float64)
        if weights is not None:
            per_row = math_ops.multiply(per_row, math_ops.cast(weights, dtypes.float64))
        batch_total = math_ops.reduce_sum(per_row)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, batch_total, name="update")


def _at_top_k(
    kind, other, labels, predictions_idx, k, class_id, weights, metrics_collections, updates_collections, name
):
    _check_graph_mode(kind)
    predictions_idx = ops.convert_to_tensor(predictions_idx)
    with ops.name_scope(name, _at_k_name(kind, k, class_id), (predictions_idx, labels, weights)) as scope:
        labels = _labels_as_int64(_maybe_expand_labels(labels, predictions_idx))
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count("true_positive", labels, top_k_idx, k, class_id, weights)
        miss, miss_update = _streaming_count(other, labels, top_k_idx, k, class_id, weights)
        metric = math_ops.divide(tp, math_ops.add(tp, miss), name=scope)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, miss_update), name="update")
        _add_collections(metrics_collections, metric)
        _add_collections(updates_collections, update)
        return metric, update


def precision_at_top_k(
    labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
    updates_collections=None, name=None,
):  # fmt: skip
    """Precision of the top-k class ids `predictions_idx` [..., k] against `labels` (ids, dense [...] or
    [..., n], or a SparseTensor): (value, update_op), float64."""
    return _at_top_k(
        "precision", "false_positive", labels, predictions_idx, k, class_id, weights, metrics_collections,
        updates_collections, name,
    )  # fmt: skip


def recall_at_top_k(
    labels, predictions_idx, k=None, class_id=None, weights=None, metrics_collections=None,
    updates_collections=None, name=None,
):  # fmt: skip
    """Recall of the top-k class ids `predictions_idx` [..., k] against `labels`: (value, update_op), float64."""
    return _at_top_k(
        "recall", "false_negative", labels, predictions_idx, k, class_id, weights, metrics_collections,
        updates_collections, name,
    )  # fmt: skip


def _at_k(kind, top_k_fn, labels, predictions, k, class_id, weights, metrics_collections, updates_collections, name):
    _check_graph_mode(kind)
    predictions = ops.convert_to_tensor(predictions)
    with ops.name_scope(name, _at_k_name(kind, k, class_id), (predictions, labels, weights)) as scope:
        _, top_k_idx = selection_ops.top_k(predictions, k)
        return top_k_fn(
            labels, top_k_idx, k=k, class_id=class_id, weights=weights, metrics_collections=metrics_collections,
            updates_collections=updates_collections, name=scope,
        )  # fmt: skip


def precision_at_k(
    labels, predictions, k, class_id=None, weights=None, metrics_collections=None, updates_collections=None,
    name=None,
):  # fmt: skip
    """Precision of the k largest `predictions` (logits [..., num_classes]) against `labels`."""
    return _at_k(
        "precision", precision_at_top_k, labels, predictions, k, class_id, weights, metrics_collections,
        updates_collections, name,
    )  # fmt: skip


def recall_at_k(
    labels, predictions, k, class_id=None, weights=None, metrics_collections=None, updates_collections=None,
    name=None,
):  # fmt: skip
    """Recall of the k largest `predictions` (logits [..., num_classes]) against `labels`."""
    return _at_k(
        "recall", recall_at_top_k, labels, predictions, k, class_id, weights, metrics_collections,
        updates_collections, name,
    )  # fmt: skip


sparse_precision_at_k = precision_at_k


def _average_precision_per_row(labels, top_k_idx, k):
    """Per example: the sum over the top k positions i that hold a label of
    precision@i, over min(number of labels, k) (NaN for a row without labels, as TF)."""
    relevant = array_ops.stack(
        [
            math_ops.cast(
                sets_ops.set_size(sets_ops.set_intersection(top_k_idx[..., i : i + 1], labels)), dtypes.float64
            )
            for i in range(k)
        ],
        axis=-1,
    )
    from tensorweave._src.ops import special_math_ops

    positions = math_ops.cast(array_ops.range(1, k + 1), dtypes.float64)
    precision = special_math_ops.cumsum(relevant, axis=-1) / positions
    if isinstance(labels, sparse_tensor.SparseTensor):
        count = sets_ops.set_size(labels)
    else:
        # TF's _num_relevant: the labels that are ids (>= 0; -1 marks none, or an id out of range)
        count = math_ops.reduce_sum(math_ops.cast(math_ops.greater_equal(labels, 0), labels.dtype), axis=-1)
    count = math_ops.cast(math_ops.minimum(count, k), dtypes.float64)
    average = math_ops.divide(math_ops.reduce_sum(precision * relevant, axis=-1), count)
    average.set_shape(top_k_idx.shape[:-1])
    return average


def _clean_out_of_range_indices(labels, num_classes):
    """TF's: label ids >= num_classes become -1 (no class), inside a cond that only runs when there are any."""
    from tensorweave._src.ops import control_flow_ops

    def clean(values):
        return math_ops.where_v2(math_ops.greater_equal(values, num_classes), -1 * array_ops.ones_like(values), values)

    if isinstance(labels, (sparse_tensor.SparseTensor, sparse_tensor.SparseTensorValue)):
        labels = sparse_tensor.SparseTensor.from_value(labels)
        values = math_ops.cast(labels.values, dtypes.int64)
        out_of_range = math_ops.greater_equal(math_ops.reduce_max(values), num_classes)
        values = control_flow_ops.cond(out_of_range, lambda: clean(values), lambda: values)
        return sparse_tensor.SparseTensor(labels.indices, values, labels.dense_shape)
    labels = math_ops.cast(ops.convert_to_tensor(labels), dtypes.int64)
    out_of_range = math_ops.greater_equal(math_ops.reduce_max(labels), num_classes)
    return control_flow_ops.cond(out_of_range, lambda: clean(labels), lambda: labels)


def average_precision_at_k(
    labels, predictions, k, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Mean average precision@k of `predictions` (logits [..., num_classes])
    against `labels` (ids, dense or a SparseTensor): each example's average
    precision weighted, summed in a float64 `total` and divided by the summed
    weights (`max`); (value, update_op)."""
    _check_graph_mode("average_precision_at_k")
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"Invalid k={k}.")
    predictions = ops.convert_to_tensor(predictions)
    with ops.name_scope(name, _at_k_name("average_precision", k), (predictions, labels, weights)) as scope:
        _, top_k_idx = selection_ops.top_k(predictions, k)
        labels = _clean_out_of_range_indices(labels, math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64))
        labels = _labels_as_int64(_maybe_expand_labels(labels, predictions))
        average = _average_precision_per_row(labels, math_ops.cast(top_k_idx, dtypes.int64), k)
        if weights is not None:
            weights = _broadcast_weights(math_ops.cast(weights, dtypes.float64), average)
            average = average * weights
        with ops.name_scope(None, "max", (average,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            batch_max = (
                math_ops.cast(array_ops.size(average), dtypes.float64)
                if weights is None
                else math_ops.reduce_sum(weights)
            )
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with ops.name_scope(None, "total", (average,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            total_update = state_ops.assign_add(total_var, math_ops.reduce_sum(average), name="update")
        metric = _div_no_nan(total_var, max_var, name="mean")
        update = _div_no_nan(total_update, max_update, name=scope)
        _add_collections(metrics_collections, metric)
        _add_collections(updates_collections, update)
        return metric, update


sparse_average_precision_at_k = average_precision_at_k
