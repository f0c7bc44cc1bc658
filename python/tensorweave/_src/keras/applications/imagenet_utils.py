"""What every Keras application shares (`tf.keras.applications.imagenet_utils` and the model builder): input
preprocessing in the caffe / tf / torch modes, `decode_predictions`, the input-shape rules, the classifier top or
pooling head, and the `weights` argument (None, 'imagenet' from the Keras cache, or a file path).

Nothing is downloaded: 'imagenet' weights and `imagenet_class_index.json` are read from the Keras cache
(`$KERAS_HOME/models` or `~/.keras/models`) under the file names Keras uses; a missing file is an OSError saying
which file to put where.

Example:
  >>> import numpy as np, tensorweave as tw
  >>> tw.keras.applications.imagenet_utils.preprocess_input(np.full((1, 2, 2, 3), 255.0), mode="tf")[0, 0, 0]
  array([1., 1., 1.])
"""

import json
import os
import warnings

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import activations, backend, backend_ops, engine, layers
from tensorweave._src.keras.utils import get_file
from tensorweave._src.keras.utils_more import get_source_inputs

STORAGE = "https://storage.googleapis.com/tensorflow/keras-applications/"
CLASS_INDEX_ORIGIN = "https://storage.googleapis.com/download.tensorflow.org/data/imagenet_class_index.json"
_CLASS_INDEX = None

# mode -> (mean, std) applied after the mode's scaling; caffe also turns RGB into BGR.
_MODES = {
    "caffe": ([103.939, 116.779, 123.68], None),
    "tf": (None, None),
    "torch": ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
}


def _data_format(data_format):
    if data_format is None:
        return backend_ops.image_data_format()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(
            "Expected data_format to be one of `channels_first` or `channels_last`. "
            f"Received: data_format={data_format}"
        )
    return data_format


def channel_axis():
    return 1 if backend_ops.image_data_format() == "channels_first" else -1


def preprocess_input(x, data_format=None, mode="caffe"):
    """Scales a batch of images (numpy array or tensor, 3-D or 4-D) as the ImageNet models expect: mode 'caffe'
    (RGB -> BGR, minus the ImageNet mean pixel), 'tf' (to [-1, 1]) or 'torch' (to [0, 1], then per-channel
    mean/std). Float numpy arrays are scaled in place, as Keras does."""
    if mode not in _MODES:
        raise ValueError(f"Expected mode to be one of `caffe`, `tf` or `torch`. Received: mode={mode}")
    data_format = _data_format(data_format)
    first = data_format == "channels_first"
    if isinstance(x, np.ndarray):
        if not issubclass(x.dtype.type, np.floating):
            x = x.astype(backend.floatx(), copy=False)
    else:
        x = tw.convert_to_tensor(x)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    if mode == "torch":
        x /= 255.0
    elif first:  # caffe: 'RGB' -> 'BGR'
        x = x[::-1, ...] if len(x.shape) == 3 else x[:, ::-1, ...]
    else:
        x = x[..., ::-1]
    mean, std = _MODES[mode]
    shape = (-1, 1, 1) if first else (-1,)
    dtype = x.dtype if isinstance(x, np.ndarray) else x.dtype.as_numpy_dtype
    mean = np.reshape(mean, shape).astype(dtype)
    if isinstance(x, np.ndarray):
        x -= mean
        if std is not None:
            x /= np.reshape(std, shape).astype(dtype)
        return x
    x = x - mean
    return x / np.reshape(std, shape).astype(dtype) if std is not None else x


def decode_predictions(preds, top=5):
    """The `top` ImageNet classes of each row of `preds` (shape (samples, 1000)) as lists of
    `(class_name, class_description, score)`, best first; the class index is Keras' `imagenet_class_index.json`."""
    global _CLASS_INDEX
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError(
            "`decode_predictions` expects a batch of predictions (i.e. a 2D array of shape (samples, 1000)). "
            f"Found array with shape: {preds.shape}"
        )
    if _CLASS_INDEX is None:
        with open(get_file("imagenet_class_index.json", CLASS_INDEX_ORIGIN, cache_subdir="models")) as f:
            _CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        best = pred.argsort()[-top:][::-1]
        results.append(sorted((tuple(_CLASS_INDEX[str(i)]) + (pred[i],) for i in best), key=lambda r: -r[2]))
    return results


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten, weights=None):
    """Keras' input-shape rules: the default shape when none is given, and ValueErrors for a shape the model or
    its ImageNet weights cannot take."""
    first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if first else input_shape[-1]
        if channels not in (1, 3):
            warnings.warn(
                "This model usually expects 1 or 3 input channels. However, it was passed an input_shape with "
                f"{channels} input channels.",
                stacklevel=2,
            )
    else:
        channels = 3
    default_shape = (channels, default_size, default_size) if first else (default_size, default_size, channels)
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError(
                "When setting `include_top=True` and loading `imagenet` weights, `input_shape` should be "
                f"{default_shape}.  Received: input_shape={input_shape}"
            )
        return default_shape
    if input_shape:
        input_shape = tuple(input_shape)
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels, spatial = (input_shape[0], input_shape[1:]) if first else (input_shape[-1], input_shape[:2])
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received `input_shape={input_shape}`")
        if any(s is not None and s < min_size for s in spatial):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: input_shape={input_shape}")
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError(
            f"If `include_top` is True, you should specify a static `input_shape`. Received: input_shape={input_shape}"
        )
    return input_shape


def correct_pad(inputs, kernel_size):
    """The ((top, bottom), (left, right)) zero padding before a strided 'valid' convolution of `kernel_size`."""
    first = backend_ops.image_data_format() == "channels_first"
    size = inputs.shape.as_list()[2:4] if first else inputs.shape.as_list()[1:3]
    kernel = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    adjust = (1, 1) if size[0] is None else (1 - size[0] % 2, 1 - size[1] % 2)
    return tuple((k // 2 - a, k // 2) for k, a in zip(kernel, adjust))


def validate_activation(classifier_activation, weights):
    if weights is None:
        return
    if activations.get(classifier_activation) not in (activations.get("softmax"), activations.get(None)):
        raise ValueError(
            "Only `None` and `softmax` activations are allowed for the `classifier_activation` argument when "
            f"using pretrained weights, with `include_top=True`; Received: classifier_activation={classifier_activation}"
        )


def check_arguments(weights, include_top, classes, kwargs):
    """The argument errors every application raises before building anything."""
    if kwargs:
        raise ValueError(f"Unknown argument(s): {kwargs}")
    if not (weights in ("imagenet", None) or os.path.exists(weights)):
        raise ValueError(
            "The `weights` argument should be either `None` (random initialization), `imagenet` (pre-training on "
            f"ImageNet), or the path to the weights file to be loaded.  Received `weights={weights}`"
        )
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError(
            'If using `weights` as `"imagenet"` with `include_top` as true, `classes` should be 1000.  '
            f"Received `classes={classes}`"
        )


def image_input(input_tensor, input_shape):
    """The model's input: `input_tensor` itself when it is a Keras tensor, else an Input of `input_shape` (over
    `input_tensor` when one is given)."""
    if input_tensor is None:
        return engine.Input(shape=input_shape)
    if backend_ops.is_keras_tensor(input_tensor):
        return input_tensor
    return engine.Input(tensor=input_tensor, shape=input_shape)


def head(x, include_top, pooling, classes, classifier_activation, weights, pool_names=(None, None), top=None,
         top_pool_name=None):  # fmt: skip
    """The classifier (global average pooling, named `top_pool_name` or else as the include_top=False 'avg' one, and
    a softmax Dense 'predictions'; or the family's `top(x)`) or, with include_top=False, the optional 'avg' / 'max'
    global pooling."""
    if include_top:
        validate_activation(classifier_activation, weights)
        if top is not None:
            return top(x)
        x = layers.GlobalAveragePooling2D(name=top_pool_name or pool_names[0])(x)
        return layers.Dense(classes, activation=classifier_activation, name="predictions")(x)
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=pool_names[0])(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=pool_names[1])(x)
    return x


def finish(img_input, input_tensor, x, name, weights, weights_file=None):
    """The Model from the source inputs to `x`, with `weights` loaded: 'imagenet' from the Keras cache (the file
    `weights_file`, an origin URL, names) or a path."""
    inputs = get_source_inputs(input_tensor) if input_tensor is not None else img_input
    model = engine.Model(inputs, x, name=name)
    if weights == "imagenet":
        model.load_weights(get_file(os.path.basename(weights_file), weights_file, cache_subdir="models"))
    elif weights is not None:
        model.load_weights(weights)
    return model


def public(build, spec, title):
    """The public application `title` with Keras' common signature, calling `build(*spec, <the arguments>)`."""

    def application(
        include_top=True,
        weights="imagenet",
        input_tensor=None,
        input_shape=None,
        pooling=None,
        classes=1000,
        classifier_activation="softmax",
        **kwargs,
    ):
        return build(
            *spec, include_top, weights, input_tensor, input_shape, pooling, classes, classifier_activation, kwargs
        )

    application.__name__ = application.__qualname__ = title
    application.__doc__ = f"{title}, as `tf.keras.applications.{title}` (`weights=None`, 'imagenet' or a path)."
    return application
