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
    "save_model",
]
