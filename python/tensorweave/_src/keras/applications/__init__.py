"""The Keras applications (`tf.keras.applications`): ImageNet classification models built from tw.keras layers
with Keras' layer names, so Keras' .h5 weight files load into them (by topology or by name)."""

from tensorweave._src.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from tensorweave._src.keras.applications.mobilenet import MobileNet, MobileNetV2
from tensorweave._src.keras.applications.mobilenet_v3 import MobileNetV3Large, MobileNetV3Small
from tensorweave._src.keras.applications.resnet import (
    VGG16,
    VGG19,
    ResNet50,
    ResNet50V2,
    ResNet101,
    ResNet101V2,
    ResNet152,
    ResNet152V2,
)

__all__ = [
    "VGG16",
    "VGG19",
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "MobileNet",
    "MobileNetV2",
    "MobileNetV3Large",
    "MobileNetV3Small",
    "ResNet50",
    "ResNet50V2",
    "ResNet101",
    "ResNet101V2",
    "ResNet152",
    "ResNet152V2",
]
