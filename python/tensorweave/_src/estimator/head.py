"""The heads of the canned estimators (TensorFlow 1's `tf.estimator` heads): from a model's logits, the
loss, the predictions, the evaluation metrics, the export outputs and the training op, for multi-class
(softmax cross-entropy), binary (sigmoid cross-entropy) classification and regression (squared error)."""

from tensorweave._src.estimator.export import ClassificationOutput
from tensorweave._src.estimator.export import PredictOutput
from tensorweave._src.estimator.export import RegressionOutput
from tensorweave._src.estimator.model_fn import EstimatorSpec
from tensorweave._src.estimator.model_fn import ModeKeys
from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops


def _tw():
    import tensorweave

    return tensorweave


def _weights(features, weight_column):
    """The example weights [batch, 1] from `features`, or 1."""
    tw = _tw()
    if weight_column is None:
        return 1.0
    key = weight_column if isinstance(weight_column, str) else weight_column.key
    if key not in features:
        raise ValueError(f"Weight column {key} is not in features: {sorted(features)}")
    weights = tw.cast(features[key], tw.float32)
    return tw.reshape(weights, [-1, 1])


def _labels_column(labels, expected_dim):
    """`labels` as [batch, expected_dim] (a [batch] vector becomes a column)."""
    tw = _tw()
    if labels is None:
        raise ValueError(
            "You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: Check "
            "that your data contain your label feature. Check that your input_fn properly parses and "
            "returns labels."
        )
    if isinstance(labels, dict):
        raise ValueError(f"labels must be a Tensor (not a dict) for a canned estimator head, given: {labels}")
    labels = tw.convert_to_tensor(labels)
    if labels.get_shape().ndims == 1:
        labels = tw.expand_dims(labels, -1)
    rank = labels.get_shape().ndims
    if rank is not None and rank != 2:
        raise ValueError(
            f"labels shape must be [D0, D1, ... DN, {expected_dim}]. Suggested Fix: check your "
            f"n_classes argument to the estimator and/or the shape of your label. Given: {labels}"
        )
    last = labels.get_shape().as_list()[-1] if rank else None
    if last is not None and last != expected_dim:
        raise ValueError(
            f"Mismatched label shape. Expected labels dimension={expected_dim}.  Received {last}. "
            f"Suggested Fix:If your classifier expects one-hot encoding label, check your n_classes "
            "argument to the estimator and/or the shape of your label. Otherwise, check the shape of "
            "your label."
        )
    return labels


class _Head:
    """What a canned estimator's model_fn hands its logits to."""

    logits_dimension = 1

    def create_estimator_spec(self, features, mode, logits, labels=None, train_op_fn=None, regularization_losses=None):
        tw = _tw()
        predictions = self._predictions(logits)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions, export_outputs=self._export_outputs(predictions))
        weights = _weights(features, self._weight_column)
        label_ids, label_values = self._labels(labels)
        unreduced = self._unreduced_loss(logits, label_ids)
        loss = tw.losses.compute_weighted_loss(unreduced, weights, reduction=self._loss_reduction)
        if regularization_losses:
            loss = tw.add_n([loss] + list(regularization_losses))
        if mode == ModeKeys.EVAL:
            metrics = {"average_loss": tw.metrics.mean(unreduced, weights)}
            metrics.update(self._metrics(predictions, label_ids, label_values, weights))
            return EstimatorSpec(mode, predictions=predictions, loss=loss, eval_metric_ops=metrics)
        with ops.name_scope(""):
            tw.summary.scalar("loss", loss)
            tw.summary.scalar("average_loss", tw.losses.compute_weighted_loss(unreduced, weights))
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op_fn(loss))


class MultiClassHead(_Head):
    """Softmax cross-entropy over `n_classes` > 2 classes (labels: ids, or strings of `label_vocabulary`)."""

    def __init__(self, n_classes, weight_column=None, label_vocabulary=None, loss_reduction="weighted_sum"):
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        if label_vocabulary is not None and len(label_vocabulary) != n_classes:
            raise ValueError(f"label_vocabulary must be a list or tuple of {n_classes} strings: {label_vocabulary}")
        self.logits_dimension = n_classes
        self._n_classes, self._weight_column, self._vocabulary = n_classes, weight_column, label_vocabulary
        self._loss_reduction = loss_reduction

    def _labels(self, labels):
        tw = _tw()
        labels = _labels_column(labels, 1)
        if self._vocabulary is not None:
            if labels.dtype != dtypes.string:
                raise ValueError(f"Labels dtype should be string if there is a vocabulary. Given: {labels.dtype}")
            table = tw.lookup.index_table_from_tensor(self._vocabulary, name="class_id_lookup")
            return table.lookup(labels), labels
        if not labels.dtype.is_integer:
            raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
        labels = tw.cast(labels, tw.int64)
        checks = [
            tw.assert_less(labels, tw.constant(self._n_classes, tw.int64), message="Labels must <= n_classes - 1"),
            tw.assert_non_negative(labels, message="Labels must >= 0"),
        ]
        with tw.control_dependencies(checks):
            labels = tw.identity(labels)
        return labels, labels

    def _unreduced_loss(self, logits, label_ids):
        tw = _tw()
        loss = tw.losses.sparse_softmax_cross_entropy(label_ids, logits, reduction=tw.losses.Reduction.NONE)
        return tw.expand_dims(loss, -1)

    def _class_strings(self, class_ids):
        tw = _tw()
        if self._vocabulary is not None:
            return tw.gather(tw.constant(list(self._vocabulary)), class_ids)
        return tw.as_string(class_ids)

    def _predictions(self, logits):
        tw = _tw()
        with ops.name_scope("predictions"):
            class_ids = tw.expand_dims(tw.argmax(logits, axis=1), -1, name="class_ids")
            batch = tw.shape(logits)[:1]
            all_ids = tw.tile(tw.expand_dims(tw.range(self._n_classes), 0), tw.concat([batch, [1]], 0))
            return {
                "logits": logits,
                "probabilities": tw.nn.softmax(logits, name="probabilities"),
                "class_ids": class_ids,
                "classes": self._class_strings(class_ids),
                "all_class_ids": all_ids,
                "all_classes": self._class_strings(all_ids),
            }

    def _export_outputs(self, predictions):
        classify = ClassificationOutput(scores=predictions["probabilities"], classes=predictions["all_classes"])
        return {"serving_default": classify, "classification": classify, "predict": PredictOutput(predictions)}

    def _metrics(self, predictions, label_ids, label_values, weights):
        tw = _tw()
        return {"accuracy": tw.metrics.accuracy(label_ids, predictions["class_ids"], weights, name="accuracy")}


class BinaryClassHead(MultiClassHead):
    """Sigmoid cross-entropy over one logit (labels 0/1, or strings of a 2-entry `label_vocabulary`)."""

    def __init__(self, weight_column=None, label_vocabulary=None, loss_reduction="weighted_sum", thresholds=None):
        if label_vocabulary is not None and len(label_vocabulary) != 2:
            raise ValueError(f"label_vocabulary must be a list or tuple of 2 strings: {label_vocabulary}")
        self.logits_dimension = 1
        self._n_classes, self._weight_column, self._vocabulary = 2, weight_column, label_vocabulary
        self._loss_reduction, self._thresholds = loss_reduction, tuple(thresholds or ())

    def _unreduced_loss(self, logits, label_ids):
        tw = _tw()
        return tw.nn.sigmoid_cross_entropy_with_logits(labels=tw.cast(label_ids, tw.float32), logits=logits)

    def _predictions(self, logits):
        tw = _tw()
        with ops.name_scope("predictions"):
            logistic = tw.sigmoid(logits, name="logistic")
            two = tw.concat([tw.zeros_like(logits), logits], axis=1, name="two_class_logits")
            class_ids = tw.expand_dims(tw.argmax(two, axis=1), -1, name="class_ids")
            batch = tw.shape(logits)[:1]
            all_ids = tw.tile(tw.expand_dims(tw.range(2), 0), tw.concat([batch, [1]], 0))
            return {
                "logits": logits,
                "logistic": logistic,
                "probabilities": tw.nn.softmax(two, name="probabilities"),
                "class_ids": class_ids,
                "classes": self._class_strings(class_ids),
                "all_class_ids": all_ids,
                "all_classes": self._class_strings(all_ids),
            }

    def _metrics(self, predictions, label_ids, label_values, weights):
        tw = _tw()
        labels = tw.cast(label_ids, tw.float32)
        logistic = predictions["logistic"]
        label_mean = tw.metrics.mean(labels, weights, name="label/mean")
        metrics = {
            "accuracy": tw.metrics.accuracy(label_ids, predictions["class_ids"], weights, name="accuracy"),
            "prediction/mean": tw.metrics.mean(logistic, weights, name="prediction/mean"),
            "label/mean": label_mean,
            "accuracy_baseline": (
                tw.maximum(label_mean[0], 1.0 - label_mean[0], name="accuracy_baseline/value"),
                tw.maximum(label_mean[1], 1.0 - label_mean[1], name="accuracy_baseline/update_op"),
            ),
            "auc": tw.metrics.auc(
                labels, logistic, weights, curve="ROC", summation_method="careful_interpolation", name="auc"
            ),
            "auc_precision_recall": tw.metrics.auc(
                labels,
                logistic,
                weights,
                curve="PR",
                summation_method="careful_interpolation",
                name="auc_precision_recall",
            ),
            "precision": tw.metrics.precision(label_ids, predictions["class_ids"], weights, name="precision"),
            "recall": tw.metrics.recall(label_ids, predictions["class_ids"], weights, name="recall"),
        }
        for t in self._thresholds:
            above = tw.cast(logistic >= t, tw.int64)
            metrics["accuracy/positive_threshold_%g" % t] = tw.metrics.accuracy(label_ids, above, weights)
            metrics["precision/positive_threshold_%g" % t] = tw.metrics.precision(label_ids, above, weights)
            metrics["recall/positive_threshold_%g" % t] = tw.metrics.recall(label_ids, above, weights)
        return metrics


class RegressionHead(_Head):
    """Squared error over `label_dimension` values per example."""

    def __init__(self, label_dimension=1, weight_column=None, loss_reduction="weighted_sum"):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        self.logits_dimension = label_dimension
        self._weight_column, self._loss_reduction = weight_column, loss_reduction

    def _labels(self, labels):
        tw = _tw()
        labels = tw.cast(_labels_column(labels, self.logits_dimension), tw.float32)
        return labels, labels

    def _unreduced_loss(self, logits, labels):
        tw = _tw()
        return tw.losses.mean_squared_error(labels, logits, reduction=tw.losses.Reduction.NONE)

    def _predictions(self, logits):
        return {"predictions": logits}

    def _export_outputs(self, predictions):
        regress = RegressionOutput(predictions["predictions"])
        return {"serving_default": regress, "regression": regress, "predict": PredictOutput(predictions)}

    def _metrics(self, predictions, label_ids, label_values, weights):
        tw = _tw()
        return {
            "label/mean": tw.metrics.mean(label_values, weights, name="label/mean"),
            "prediction/mean": tw.metrics.mean(predictions["predictions"], weights, name="prediction/mean"),
        }


def classification_head(n_classes, weight_column=None, label_vocabulary=None, loss_reduction="weighted_sum"):
    if n_classes == 2:
        return BinaryClassHead(weight_column, label_vocabulary, loss_reduction)
    return MultiClassHead(n_classes, weight_column, label_vocabulary, loss_reduction)
