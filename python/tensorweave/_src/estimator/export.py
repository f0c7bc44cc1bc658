"""Exporting an Estimator's model for serving (TensorFlow 1's `tf.estimator.export`): what a serving input
function returns (`ServingInputReceiver`), two builders of such functions, and the outputs a model_fn names
for the SavedModel's signatures (`PredictOutput`, `ClassificationOutput`, `RegressionOutput`)."""

import collections

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops

SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"


def _as_dict(value, default_name, what):
    if value is None:
        raise ValueError(f"{what} must be defined.")
    if not isinstance(value, dict):
        value = {default_name: value}
    for name, tensor in value.items():
        if not isinstance(name, str):
            raise ValueError(f"{what} keys must be strings: {name}.")
        if not isinstance(tensor, ops.Tensor) and not hasattr(tensor, "dense_shape"):
            raise ValueError(f"{what} must be a Tensor, SparseTensor, or dict of them: {name}: {tensor}.")
    return value


class ServingInputReceiver(
    collections.namedtuple("ServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"])
):
    """What a serving input function returns: the `features` given to the model_fn (a tensor or a dict of them)
    and the `receiver_tensors` a serving request feeds (a tensor or a dict)."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = _as_dict(features, SINGLE_FEATURE_DEFAULT_NAME, "feature")
        receiver_tensors = _as_dict(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME, "receiver_tensor")
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(
    collections.namedtuple(
        "TensorServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"]
    )
):
    """A ServingInputReceiver whose `features` is one tensor, given to the model_fn as is."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        receiver_tensors = _as_dict(receiver_tensors, SINGLE_RECEIVER_DEFAULT_NAME, "receiver_tensor")
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving input function that feeds the model a placeholder shaped as each of `features` (a dict of
    tensors, or one tensor) with the batch dimension `default_batch_size`."""

    def serving_input_receiver_fn():
        from tensorweave._src.ops import array_ops

        single = not isinstance(features, dict)
        receivers = {}
        for name, t in ({"feature": features} if single else features).items():
            t = ops.convert_to_tensor(t)
            shape = t.get_shape().as_list() if t.get_shape().ndims is not None else None
            if shape:
                shape[0] = default_batch_size
            receivers[name] = array_ops.placeholder(t.dtype, shape, name=name)
        if single:
            return TensorServingInputReceiver(receivers["feature"], receivers)
        return ServingInputReceiver(receivers, receivers.copy())

    return serving_input_receiver_fn


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A serving input function that takes serialized `tf.Example` protos ("examples") and parses them with
    `feature_spec` (what `tw.parse_example` takes) into the model's features."""

    def serving_input_receiver_fn():
        from tensorweave._src.ops import array_ops
        from tensorweave._src.ops import parsing_ops

        serialized = array_ops.placeholder(dtypes.string, [default_batch_size], name="input_example_tensor")
        features = parsing_ops.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


class ExportOutput:
    """An output of a model for serving; `as_signature_def(receiver_tensors)` builds its SignatureDef."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


def _single_string_input(receiver_tensors, what):
    if len(receiver_tensors) != 1:
        raise ValueError(f"{what} input must be a single string Tensor; got {receiver_tensors}")
    ((_, examples),) = receiver_tensors.items()
    if examples.dtype != dtypes.string:
        raise ValueError(f"{what} input must be a single string Tensor; got {receiver_tensors}")
    return examples


class ClassificationOutput(ExportOutput):
    """Classification scores (float [batch, classes]) and/or class names (string [batch, classes]); its
    signature takes one string tensor of serialized examples."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, ops.Tensor) and scores.dtype.is_floating):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, ops.Tensor) and classes.dtype == dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self.scores, self.classes = scores, classes

    def as_signature_def(self, receiver_tensors):
        from tensorweave._src.saved_model import signature_def_utils

        examples = _single_string_input(receiver_tensors, "Classification")
        return signature_def_utils.classification_signature_def(examples, self.classes, self.scores)


class RegressionOutput(ExportOutput):
    """Regression values (a float tensor); its signature takes one string tensor of serialized examples."""

    def __init__(self, value):
        if not (isinstance(value, ops.Tensor) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self.value = value

    def as_signature_def(self, receiver_tensors):
        from tensorweave._src.saved_model import signature_def_utils

        examples = _single_string_input(receiver_tensors, "Regression")
        return signature_def_utils.regression_signature_def(examples, self.value)


class PredictOutput(ExportOutput):
    """Any outputs (a tensor, or a dict of them by name) for a Predict signature."""

    def __init__(self, outputs):
        if not isinstance(outputs, dict):
            outputs = {"output": outputs}
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError(f"Prediction output key must be a string; got {key}.")
            if not isinstance(value, ops.Tensor):
                raise ValueError(f"Prediction output value must be a Tensor; got {value}.")
        self.outputs = outputs

    def as_signature_def(self, receiver_tensors):
        from tensorweave._src.saved_model import signature_def_utils

        return signature_def_utils.predict_signature_def(receiver_tensors, self.outputs)
