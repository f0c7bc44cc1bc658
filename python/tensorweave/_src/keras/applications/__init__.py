"""The Keras applications (`tf.keras.applications`): ImageNet classification models built from tw.keras layers
with Keras' layer names, so Keras' .h5 weight files load into them (by topology or by name)."""

from tensorweave._src.keras.applications.densenet import DenseNet121, DenseNet169, DenseNet201
from tensorweave._src.keras.applications.efficientnet import (
    EfficientNetB0,
    EfficientNetB1,
    EfficientNetB2,
    EfficientNetB3,
    EfficientNetB4,
    EfficientNetB5,
    EfficientNetB6,
    EfficientNetB7,
)
from tensorweave._src.keras.applications.inception_v3 import InceptionV3
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
from tensorweave._src.keras.applications.xception import Xception

__all__ = [
    "VGG16",
    "VGG19",
    "DenseNet121",
    "DenseNet169",
    "DenseNet201",
    "EfficientNetB0",
    "EfficientNetB1",
    "EfficientNetB2",
    "EfficientNetB3",
    "EfficientNetB4",
    "EfficientNetB5",
    "EfficientNetB6",
    "EfficientNetB7",
    "InceptionV3",
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
    "Xception",
]
