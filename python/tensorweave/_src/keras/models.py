"""tf.keras.models: `Model`, `Sequential`, `load_model`, `model_from_json`/`model_from_config`, `clone_model`."""

from tensorweave._src.keras.engine import Functional, Model, Sequential
from tensorweave._src.keras.saving import clone_model, load_model, model_from_config, model_from_json, save_model

__all__ = [
    "Functional",
    "Model",
    "Sequential",
    "clone_model",
    "load_model",
    "model_from_config",
    "model_from_json",
    "model_from_yaml",
    "save_model",
]


def model_from_yaml(yaml_string, custom_objects=None):
    """Removed, as in tf_keras: a RuntimeError (YAML configs could run arbitrary code)."""
    raise RuntimeError(
        "Method `model_from_yaml()` has been removed due to security risk of arbitrary code execution. Please use "
        "`Model.to_json()` and `model_from_json()` instead."
    )
