"""tf.keras.metrics (Keras 2): IoU, BinaryIoU, OneHotIoU, OneHotMeanIoU, FBetaScore, F1Score, R2Score,
MeanRelativeError, MeanTensor and the focal cross-entropy functions."""

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import backend
from tensorweave._src.keras.losses import binary_focal_crossentropy, categorical_focal_crossentropy
from tensorweave._src.keras.metrics import Mean, Metric, _broadcast_weights

__all__ = [
    "BinaryIoU",
    "F1Score",
    "FBetaScore",
    "IoU",
    "MeanRelativeError",
    "MeanTensor",
    "OneHotIoU",
    "OneHotMeanIoU",
    "R2Score",
    "binary_focal_crossentropy",
    "categorical_focal_crossentropy",
]


class _IoUBase(Metric):
    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True,
                 axis=-1):  # fmt: skip
        super().__init__(name=name, dtype=dtype)
        self.num_classes, self.ignore_class, self.axis = num_classes, ignore_class, axis
        self.sparse_y_true, self.sparse_y_pred = sparse_y_true, sparse_y_pred
        self.total_cm = self.add_weight("total_confusion_matrix", shape=(num_classes, num_classes), dtype="float64")

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.sparse_y_true:
            y_true = tw.argmax(y_true, axis=self.axis)
        if not self.sparse_y_pred:
            y_pred = tw.argmax(y_pred, axis=self.axis)
        y_true = tw.reshape(tw.cast(y_true, self._dtype), [-1])
        y_pred = tw.reshape(tw.cast(y_pred, self._dtype), [-1])
        if sample_weight is not None:
            sample_weight = tw.reshape(tw.cast(sample_weight, self._dtype), [-1])
        if self.ignore_class is not None:
            keep = tw.not_equal(y_true, tw.cast(self.ignore_class, self._dtype))
            y_true, y_pred = tw.boolean_mask(y_true, keep), tw.boolean_mask(y_pred, keep)
            if sample_weight is not None:
                sample_weight = tw.boolean_mask(sample_weight, keep)
        cm = tw.math.confusion_matrix(tw.cast(y_true, tw.int64), tw.cast(y_pred, tw.int64), self.num_classes,
                                      weights=sample_weight, dtype=tw.float64)  # fmt: skip
        return tw.assign_add(self.total_cm, cm).op

    def _iou(self, class_ids):
        cm = self.total_cm.read_value()
        sum_over_row = tw.cast(tw.reduce_sum(cm, axis=0), self._dtype)
        sum_over_col = tw.cast(tw.reduce_sum(cm, axis=1), self._dtype)
        true_positives = tw.cast(tw.linalg.diag_part(cm), self._dtype)
        denominator = sum_over_row + sum_over_col - true_positives
        ids = tw.constant(list(class_ids), tw.int32)
        true_positives, denominator = tw.gather(true_positives, ids), tw.gather(denominator, ids)
        num_valid = tw.reduce_sum(tw.cast(tw.greater(denominator, 1e-9), self._dtype))
        iou = tw.math.divide_no_nan(true_positives, denominator)
        return tw.math.divide_no_nan(tw.reduce_sum(iou), num_valid)

    def reset_state(self):
        backend.set_value(self.total_cm, np.zeros((self.num_classes, self.num_classes)))


class IoU(_IoUBase):
    """The mean over `target_class_ids` of tp / (tp + fp + fn), from the confusion matrix of class ids."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):  # fmt: skip
        super().__init__(num_classes, name, dtype, ignore_class, sparse_y_true, sparse_y_pred, axis)
        if max(target_class_ids) >= num_classes:
            raise ValueError(f"Target class id {max(target_class_ids)} is out of range, which is [{0}, "
                             f"{num_classes}).")  # fmt: skip
        self.target_class_ids = list(target_class_ids)

    def result(self):
        return self._iou(self.target_class_ids)

    def get_config(self):
        return dict(Metric.get_config(self), num_classes=self.num_classes, target_class_ids=self.target_class_ids,
                    ignore_class=self.ignore_class, sparse_y_true=self.sparse_y_true,
                    sparse_y_pred=self.sparse_y_pred, axis=self.axis)  # fmt: skip


class BinaryIoU(IoU):
    """IoU of predictions thresholded at `threshold` (class 1 at or above it)."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(num_classes=2, target_class_ids=target_class_ids, name=name, dtype=dtype)
        self.threshold = threshold

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tw.cast(tw.greater_equal(tw.cast(y_pred, self._dtype), self.threshold), self._dtype)
        return super().update_state(y_true, y_pred, sample_weight)

    def get_config(self):
        return dict(Metric.get_config(self), target_class_ids=self.target_class_ids, threshold=self.threshold)


class OneHotIoU(IoU):
    """IoU of one-hot labels (and probabilities / one-hot predictions)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):  # fmt: skip
        super().__init__(num_classes, target_class_ids, name, dtype, ignore_class, False, sparse_y_pred, axis)

    def get_config(self):
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(_IoUBase):
    """MeanIoU of one-hot labels (and probabilities / one-hot predictions)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name, dtype, ignore_class, False, sparse_y_pred, axis)

    def result(self):
        return self._iou(range(self.num_classes))

    def get_config(self):
        return dict(Metric.get_config(self), num_classes=self.num_classes, ignore_class=self.ignore_class,
                    sparse_y_pred=self.sparse_y_pred, axis=self.axis)  # fmt: skip


class FBetaScore(Metric):
    """F-beta of multi-label / multi-class predictions (thresholded at `threshold`, or the row's maximum), per class
    or averaged ('micro', 'macro', 'weighted')."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: {None, 'micro', 'macro', "
                             f"'weighted'}}. Received: average={average}")  # fmt: skip
        if not isinstance(beta, float):
            raise TypeError(f"Invalid `beta` argument value. It should be a Python float. Received: beta={beta} of "
                            f"type '{type(beta)}'")  # fmt: skip
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None:
            if not isinstance(threshold, float):
                raise TypeError(f"Invalid `threshold` argument value. It should be a Python float. Received: "
                                f"threshold={threshold} of type '{type(threshold)}'")  # fmt: skip
            if threshold > 1.0 or threshold <= 0.0:
                raise ValueError(f"Invalid `threshold` argument value. It should verify 0 < threshold <= 1. "
                                 f"Received: threshold={threshold}")  # fmt: skip
        self.average, self.beta, self.threshold = average, beta, threshold
        self.axis = None if average == "micro" else 0
        self._built = False

    def _build(self, y_pred_shape):
        num_classes = y_pred_shape[-1].value
        if num_classes is None:
            raise ValueError(f"{type(self).__name__} needs a known number of classes (the last axis of y_pred). "
                             f"Received: y_pred.shape={y_pred_shape}")  # fmt: skip
        shape = [] if self.average == "micro" else [num_classes]
        self.true_positives = self.add_weight("true_positives", shape)
        self.false_positives = self.add_weight("false_positives", shape)
        self.false_negatives = self.add_weight("false_negatives", shape)
        self.intermediate_weights = self.add_weight("intermediate_weights", shape)
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tw.cast(y_true, self._dtype)
        y_pred = tw.cast(y_pred, self._dtype)
        if not self._built:
            self._build(y_pred.shape)
        if self.threshold is None:
            top = tw.reduce_max(y_pred, axis=-1, keepdims=True)
            hit = tw.logical_and(tw.greater_equal(y_pred, top), tw.greater(tw.abs(y_pred), 1e-9))
        else:
            hit = tw.greater(y_pred, self.threshold)
        y_pred = tw.cast(hit, self._dtype)
        if sample_weight is not None:
            sample_weight = tw.expand_dims(tw.cast(sample_weight, self._dtype), 1)

        def weighted_sum(value):
            if sample_weight is not None:
                value = value * sample_weight
            return tw.reduce_sum(value, axis=self.axis)

        return tw.group(
            tw.assign_add(self.true_positives, weighted_sum(y_pred * y_true)),
            tw.assign_add(self.false_positives, weighted_sum(y_pred * (1 - y_true))),
            tw.assign_add(self.false_negatives, weighted_sum((1 - y_pred) * y_true)),
            tw.assign_add(self.intermediate_weights, weighted_sum(y_true)),
        )

    def result(self):
        eps = backend.epsilon()
        tp = self.true_positives.read_value()
        precision = tp / (tp + self.false_positives.read_value() + eps)
        recall = tp / (tp + self.false_negatives.read_value() + eps)
        beta2 = self.beta**2
        score = precision * recall / (beta2 * precision + recall + eps) * (1 + beta2)
        if self.average == "weighted":
            weights = self.intermediate_weights.read_value()
            score = tw.reduce_sum(score * weights / (tw.reduce_sum(weights) + eps))
        elif self.average is not None:
            score = tw.reduce_mean(score)
        return score

    def reset_state(self):
        for v in self._weights:
            backend.set_value(v, np.zeros(v.shape.as_list()))

    def get_config(self):
        return dict(Metric.get_config(self), average=self.average, beta=self.beta, threshold=self.threshold)


class F1Score(FBetaScore):
    """FBetaScore with beta = 1."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average, 1.0, threshold, name, dtype)

    def get_config(self):
        config = super().get_config()
        del config["beta"]
        return config


class R2Score(Metric):
    """The coefficient of determination of [batch, outputs] regressions, per output or averaged (uniformly or by
    variance), adjusted for `num_regressors` when given."""

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        valid = (None, "uniform_average", "variance_weighted_average")
        if class_aggregation not in valid:
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one of {valid}. Received: "
                             f"class_aggregation={class_aggregation}")  # fmt: skip
        if num_regressors < 0:
            raise ValueError(f"Invalid value for argument `num_regressors`. Expected a value >= 0. Received: "
                             f"num_regressors={num_regressors}")  # fmt: skip
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self.add_weight("num_samples", dtype="int32")
        self._built = False

    def _build(self, y_true_shape, y_pred_shape):
        if y_pred_shape.ndims != 2 or y_true_shape.ndims != 2:
            raise ValueError(f"R2Score expects 2D inputs with shape (batch_size, output_dim). Received input shapes: "
                             f"y_pred.shape={y_pred_shape} and y_true.shape={y_true_shape}.")  # fmt: skip
        if y_pred_shape[-1].value is None or y_true_shape[-1].value is None:
            raise ValueError(f"R2Score expects 2D inputs with shape (batch_size, output_dim), with output_dim fully "
                             f"defined (not None). Received input shapes: y_pred.shape={y_pred_shape} and "
                             f"y_true.shape={y_true_shape}.")  # fmt: skip
        n = y_pred_shape[-1].value
        self.squared_sum = self.add_weight("squared_sum", [n])
        self.sum = self.add_weight("sum", [n])
        self.total_mse = self.add_weight("residual", [n])
        self.count = self.add_weight("count", [n])
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tw.cast(y_true, self._dtype)
        y_pred = tw.cast(y_pred, self._dtype)
        if not self._built:
            self._build(y_true.shape, y_pred.shape)
        sample_weight = tw.cast(1 if sample_weight is None else sample_weight, self._dtype)
        if sample_weight.shape.ndims == 1:
            sample_weight = tw.expand_dims(sample_weight, 1)
        sample_weight = tw.broadcast_to(sample_weight, tw.shape(y_true))
        weighted = y_true * sample_weight
        return tw.group(
            tw.assign_add(self.sum, tw.reduce_sum(weighted, axis=0)),
            tw.assign_add(self.squared_sum, tw.reduce_sum(y_true * weighted, axis=0)),
            tw.assign_add(self.total_mse, tw.reduce_sum(tw.square(y_true - y_pred) * sample_weight, axis=0)),
            tw.assign_add(self.count, tw.reduce_sum(sample_weight, axis=0)),
            tw.assign_add(self.num_samples, tw.size(y_true, out_type=tw.int32)),
        )

    def result(self):
        total_sum = self.sum.read_value()
        mean = total_sum / self.count.read_value()
        total = self.squared_sum.read_value() - total_sum * mean
        raw = 1 - self.total_mse.read_value() / total
        raw = tw.where_v2(tw.is_inf(raw), tw.zeros_like(raw), raw)
        if self.class_aggregation == "uniform_average":
            score = tw.reduce_mean(raw)
        elif self.class_aggregation == "variance_weighted_average":
            score = tw.reduce_sum(total * raw) / tw.reduce_sum(total)
        else:
            score = raw
        if self.num_regressors:
            n = tw.cast(self.num_samples.read_value(), self._dtype)
            p = float(self.num_regressors)
            adjusted = 1.0 - (1 - score) * (n - 1) / (n - p - 1)
            score = tw.where_v2(p < n - 1, adjusted, score)  # falls back to R2 with too few samples, as tf_keras
        return score

    def reset_state(self):
        for v in self._weights:
            backend.set_value(v, np.zeros(v.shape.as_list()))

    def get_config(self):
        return dict(Metric.get_config(self), class_aggregation=self.class_aggregation,
                    num_regressors=self.num_regressors)  # fmt: skip


class MeanRelativeError(Mean):
    """The mean of |y_true - y_pred| / normalizer."""

    def __init__(self, normalizer, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.normalizer = np.asarray(normalizer, np.dtype(self.dtype))

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = tw.cast(y_true, self._dtype), tw.cast(y_pred, self._dtype)
        errors = tw.math.divide_no_nan(tw.abs(y_true - y_pred), tw.constant(self.normalizer, self._dtype))
        return super().update_state(errors, sample_weight=sample_weight)

    def get_config(self):
        return dict(Metric.get_config(self), normalizer=self.normalizer.tolist())


class MeanTensor(Metric):
    """The element-wise (weighted) mean of the tensors seen (all of one shape)."""

    def __init__(self, name="mean_tensor", dtype=None, shape=None):
        super().__init__(name=name, dtype=dtype)
        self._shape = None
        if shape is not None:
            self._build(tw.TensorShape(shape))

    def _build(self, shape):
        self._shape = shape
        self.total = self.add_weight("total", shape.as_list())
        self.count = self.add_weight("count", shape.as_list())

    def update_state(self, values, sample_weight=None):
        values = tw.cast(values, self._dtype)
        if self._shape is None:
            if not values.shape.is_fully_defined():
                raise ValueError(f"MeanTensor needs values of a fully defined shape. Received: {values.shape}")
            self._build(values.shape)
        elif values.shape != self._shape:
            raise ValueError(f"MeanTensor input values must always have the same shape. Expected shape (set during "
                             f"the first call): {self._shape}. Got: {values.shape}.")  # fmt: skip
        count = tw.ones_like(values)
        if sample_weight is not None:
            values, sample_weight = _broadcast_weights(values, tw.cast(sample_weight, self._dtype))
            count = count * sample_weight
            values = values * sample_weight
        return tw.group(tw.assign_add(self.total, values), tw.assign_add(self.count, count))

    def result(self):
        if self._shape is None:
            raise ValueError("MeanTensor does not have any value yet. Please call the MeanTensor instance or use "
                             "`.update_state(value)` before retrieving the result.")  # fmt: skip
        return tw.math.divide_no_nan(self.total.read_value(), self.count.read_value())

    def reset_state(self):
        for v in self._weights:
            backend.set_value(v, np.zeros(v.shape.as_list()))

    def get_config(self):
        return Metric.get_config(self)  # tf_keras's: name and dtype (not the shape)


def _register():
    """Makes the classes and functions here known to metrics.get / deserialize."""
    from tensorweave._src.keras import metrics

    for name in __all__:
        table = metrics._CLASSES if isinstance(globals()[name], type) else metrics._FUNCTIONS
        table[name] = globals()[name]


_register()
