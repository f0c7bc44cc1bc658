"""tw.keras.applications: the Keras application models and their per-family modules (`mobilenet_v2`, `resnet50`,
`vgg16`, `imagenet_utils`, ...), each with the family's models, `preprocess_input` and `decode_predictions`
(python/tensorweave/_src/keras/applications/).

Example:
  >>> import numpy as np, tensorweave as tw
  >>> from tensorweave.keras.applications import mobilenet_v2
  >>> with tw.Graph().as_default():
  ...     model = mobilenet_v2.MobileNetV2(input_shape=(96, 96, 3), weights=None, classes=10)
  ...     print(model.count_params())
  2270794
"""

import functools as _functools
import sys as _sys
import types as _types

from tensorweave._src.keras.applications import *  # the models
from tensorweave._src.keras.applications import imagenet_utils as _iu
from tensorweave._src.keras.applications.imagenet_utils import decode_predictions as _decode

# Keras' modules: name -> (its models, the preprocess_input mode of the family; None: the models rescale their
# input themselves and preprocess_input returns it unchanged).
_MODULES = {
    "densenet": (["DenseNet121", "DenseNet169", "DenseNet201"], "torch"),
    "efficientnet": ([f"EfficientNetB{i}" for i in range(8)], None),
    "inception_v3": (["InceptionV3"], "tf"),
    "mobilenet": (["MobileNet"], "tf"),
    "mobilenet_v2": (["MobileNetV2"], "tf"),
    "mobilenet_v3": (["MobileNetV3Small", "MobileNetV3Large"], None),
    "resnet": (["ResNet50", "ResNet101", "ResNet152"], "caffe"),
    "resnet50": (["ResNet50"], "caffe"),
    "resnet_v2": (["ResNet50V2", "ResNet101V2", "ResNet152V2"], "tf"),
    "vgg16": (["VGG16"], "caffe"),
    "vgg19": (["VGG19"], "caffe"),
    "xception": (["Xception"], "tf"),
}


def _family_module(name, models, mode):
    module = _types.ModuleType(f"{__name__}.{name}", f"tw.keras.applications.{name} (tf.keras.applications.{name}).")

    def preprocess_input(x, data_format=None):
        return x if mode is None else _iu.preprocess_input(x, data_format=data_format, mode=mode)

    preprocess_input.__doc__ = (
        f"`x` unchanged: Keras' {name} models rescale their input themselves."
        if mode is None
        else f"`imagenet_utils.preprocess_input` in mode '{mode}', as Keras' {name} models expect."
    )
    module.preprocess_input = preprocess_input
    module.decode_predictions = _functools.wraps(_decode)(lambda preds, top=5: _decode(preds, top=top))
    for model in models:
        setattr(module, model, globals()[model])
    return module


imagenet_utils = _types.ModuleType(f"{__name__}.imagenet_utils", _iu.__doc__)
imagenet_utils.preprocess_input = _iu.preprocess_input
imagenet_utils.decode_predictions = _iu.decode_predictions
_sys.modules.setdefault(imagenet_utils.__name__, imagenet_utils)
for _name, (_models, _mode) in _MODULES.items():
    globals()[_name] = _sys.modules.setdefault(f"{__name__}.{_name}", _family_module(_name, _models, _mode))
del _name, _models, _mode
