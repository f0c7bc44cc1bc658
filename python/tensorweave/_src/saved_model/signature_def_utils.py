"""Building SignatureDefs, the named inputs and outputs of a SavedModel (`tf.saved_model.signature_def_utils`)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.saved_model import signature_constants
from tensorweave._src.saved_model import utils


def build_signature_def(inputs=None, outputs=None, method_name=None):
    """A SignatureDef from {key: TensorInfo} inputs and outputs and a method name.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.placeholder(tw.float32, [None], name="x")
      ...     sig = tw.saved_model.signature_def_utils.build_signature_def(
      ...         {"x": tw.saved_model.utils.build_tensor_info(x)},
      ...         {"y": tw.saved_model.utils.build_tensor_info(x * 2.0)},
      ...         tw.saved_model.signature_constants.PREDICT_METHOD_NAME)
      ...     print(sig.inputs["x"].name, sig.outputs["y"].name, sig.method_name)
      x:0 mul:0 tensorflow/serving/predict
    """
    from tensorweave._src.framework import meta_graph_pb2

    signature_def = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        signature_def.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature_def.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature_def.method_name = method_name
    return signature_def


def predict_signature_def(inputs, outputs):
    """A predict SignatureDef from {key: Tensor} inputs and outputs (neither empty)."""
    if inputs is None or not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def(
        {key: utils.build_tensor_info(t) for key, t in inputs.items()},
        {key: utils.build_tensor_info(t) for key, t in outputs.items()},
        signature_constants.PREDICT_METHOD_NAME,
    )


def _string_examples(examples, what):
    if examples is None:
        raise ValueError(f"{what} examples cannot be None.")
    if not hasattr(examples, "dtype") or examples.dtype != dtypes.string:
        raise ValueError(f"{what} examples must be a string Tensor.")


def classification_signature_def(examples, classes, scores):
    """A classify SignatureDef: serialized examples in, classes (strings) and/or scores (floats) out."""
    _string_examples(examples, "Classification")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    outputs = {}
    if classes is not None:
        if classes.dtype != dtypes.string:
            raise ValueError("Classification classes must be a string Tensor.")
        outputs[signature_constants.CLASSIFY_OUTPUT_CLASSES] = utils.build_tensor_info(classes)
    if scores is not None:
        if not scores.dtype.is_floating:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[signature_constants.CLASSIFY_OUTPUT_SCORES] = utils.build_tensor_info(scores)
    return build_signature_def(
        {signature_constants.CLASSIFY_INPUTS: utils.build_tensor_info(examples)},
        outputs,
        signature_constants.CLASSIFY_METHOD_NAME,
    )


def regression_signature_def(examples, predictions):
    """A regress SignatureDef: serialized examples in, float predictions out."""
    _string_examples(examples, "Regression")
    if predictions is None:
        raise ValueError("Regression predictions cannot be None.")
    if not predictions.dtype.is_floating:
        raise ValueError("Regression output must be a float Tensor.")
    return build_signature_def(
        {signature_constants.REGRESS_INPUTS: utils.build_tensor_info(examples)},
        {signature_constants.REGRESS_OUTPUTS: utils.build_tensor_info(predictions)},
        signature_constants.REGRESS_METHOD_NAME,
    )


def is_valid_signature(signature_def):
    """Whether a SignatureDef is a well-formed predict, classify or regress signature."""
    if signature_def is None or not signature_def.method_name:
        return False
    if signature_def.method_name == signature_constants.PREDICT_METHOD_NAME:
        return bool(signature_def.inputs) and bool(signature_def.outputs)
    if signature_def.method_name == signature_constants.CLASSIFY_METHOD_NAME:
        inputs = signature_def.inputs
        return (
            set(inputs) == {signature_constants.CLASSIFY_INPUTS}
            and utils.tensor_info_dtype(inputs[signature_constants.CLASSIFY_INPUTS]) == dtypes.string
            and bool(signature_def.outputs)
            and set(signature_def.outputs)
            <= {signature_constants.CLASSIFY_OUTPUT_CLASSES, signature_constants.CLASSIFY_OUTPUT_SCORES}
        )
    if signature_def.method_name == signature_constants.REGRESS_METHOD_NAME:
        return set(signature_def.inputs) == {signature_constants.REGRESS_INPUTS} and set(signature_def.outputs) == {
            signature_constants.REGRESS_OUTPUTS
        }
    return False
