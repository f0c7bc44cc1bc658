"""tf.keras.preprocessing.image: ImageDataGenerator (numpy arrays and directories of images) and the image
helpers, as tf_keras's (same random draws from numpy's global generator). Transforms need SciPy and image
files need Pillow; both are imported when used."""

import os
import threading
import warnings

import numpy as np

from tensorweave._src.keras import backend
from tensorweave._src.keras.utils import Sequence

_PIL_INTERPOLATION = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pil():
    try:
        from PIL import Image, ImageEnhance
    except ImportError as e:
        raise ImportError("Image files and brightness shifts require Pillow (`pip install pillow`).") from e
    return Image, ImageEnhance


def _image_data_format():
    fmt = getattr(backend, "image_data_format", None)
    return fmt() if callable(fmt) else "channels_last"


def img_to_array(img, data_format=None, dtype=None):
    """A PIL image as a rank-3 array (height, width, channels) (channels first with "channels_first")."""
    data_format = data_format or _image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    x = np.asarray(img, dtype=dtype or backend.floatx())
    if x.ndim == 3:
        if data_format == "channels_first":
            x = x.transpose(2, 0, 1)
    elif x.ndim == 2:
        x = x.reshape((x.shape[0], x.shape[1], 1)) if data_format == "channels_last" else x.reshape((1, *x.shape))
    else:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    return x


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A rank-3 array as a PIL image (scaled to [0, 255] when `scale`)."""
    image, _ = _pil()
    data_format = data_format or _image_data_format()
    x = np.asarray(x, dtype=dtype or backend.floatx())
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array with shape: {x.shape}")
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Invalid data_format: {data_format}")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    if x.shape[2] == 4:
        return image.fromarray(x.astype("uint8"), "RGBA")
    if x.shape[2] == 3:
        return image.fromarray(x.astype("uint8"), "RGB")
    if x.shape[2] == 1:
        if np.max(x) > 255:
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {x.shape[2]}")


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or file_format == "jpeg"):
        warnings.warn("The JPG format does not support RGBA images, converting to RGB.", stacklevel=2)
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


def load_img(
    path, grayscale=False, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False
):
    """An image file as a PIL image in `color_mode` ("grayscale", "rgb", "rgba"), resized to `target_size`
    (height, width)."""
    image, _ = _pil()
    if grayscale:
        warnings.warn("grayscale is deprecated. Please use color_mode = 'grayscale'", stacklevel=2)
        color_mode = "grayscale"
    with open(path, "rb") as f:
        import io

        img = image.open(io.BytesIO(f.read()))
    modes = {"grayscale": "L", "rgba": "RGBA", "rgb": "RGB"}
    if color_mode not in modes:
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    mode = modes[color_mode]
    if color_mode == "grayscale" and img.mode in ("L", "I;16", "I"):
        mode = img.mode
    if img.mode != mode:
        img = img.convert(mode)
    if target_size is not None:
        width_height = (target_size[1], target_size[0])
        if img.size != width_height:
            if interpolation not in _PIL_INTERPOLATION:
                raise ValueError(
                    f"Invalid interpolation method {interpolation} specified. Supported methods are "
                    f"{', '.join(_PIL_INTERPOLATION)}"
                )
            resample = getattr(image.Resampling, interpolation.upper())
            if keep_aspect_ratio:
                width, height = img.size
                target_width, target_height = width_height
                crop_height = (width * target_height) // target_width
                crop_width = (height * target_width) // target_height
                crop_height = min(height, crop_height)
                crop_width = min(width, crop_width)
                crop_box_hstart = (height - crop_height) // 2
                crop_box_wstart = (width - crop_width) // 2
                img = img.crop(
                    (crop_box_wstart, crop_box_hstart, crop_box_wstart + crop_width, crop_box_hstart + crop_height)
                )
            img = img.resize(width_height, resample)
    return img


# --- transforms ---


def flip_axis(x, axis):
    return np.asarray(x).swapaxes(axis, 0)[::-1, ...].swapaxes(0, axis)


def transform_matrix_offset_center(matrix, x, y):
    o_x, o_y = float(x) / 2 - 0.5, float(y) / 2 - 0.5
    offset_matrix = np.array([[1, 0, o_x], [0, 1, o_y], [0, 0, 1]])
    reset_matrix = np.array([[1, 0, -o_x], [0, 1, -o_y], [0, 0, 1]])
    return offset_matrix @ matrix @ reset_matrix


def apply_affine_transform(
    x, theta=0, tx=0, ty=0, shear=0, zx=1, zy=1, row_axis=1, col_axis=2, channel_axis=0, fill_mode="nearest", cval=0.0,
    order=1,
):  # fmt: skip
    """Rotation (degrees), shift, shear (degrees) and zoom of a rank-3 image about its center (SciPy)."""
    if {row_axis, col_axis, channel_axis} != {0, 1, 2}:
        raise ValueError("'row_axis', 'col_axis', and 'channel_axis' must be distinct")
    if x.ndim != 3:
        raise ValueError("Input arrays must be multi-channel 2D images.")
    if channel_axis not in (0, 2):
        raise ValueError("Channels are allowed and the first and last dimensions.")
    matrices = []
    if theta != 0:
        t = np.deg2rad(theta)
        matrices.append(np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]]))
    if tx != 0 or ty != 0:
        matrices.append(np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]]))
    if shear != 0:
        s = np.deg2rad(shear)
        matrices.append(np.array([[1, -np.sin(s), 0], [0, np.cos(s), 0], [0, 0, 1]]))
    if zx != 1 or zy != 1:
        matrices.append(np.array([[zx, 0, 0], [0, zy, 0], [0, 0, 1]]))
    if not matrices:
        return x
    try:
        from scipy import ndimage
    except ImportError as e:
        raise ImportError("Image transformations require SciPy. Install SciPy.") from e
    transform = matrices[0]
    for m in matrices[1:]:
        transform = np.dot(transform, m)
    h, w = x.shape[row_axis], x.shape[col_axis]
    transform = transform_matrix_offset_center(transform, h, w)
    x = np.rollaxis(x, channel_axis, 0)
    if col_axis > row_axis:
        transform[:, [0, 1]] = transform[:, [1, 0]]
        transform[[0, 1]] = transform[[1, 0]]
    channels = [
        ndimage.affine_transform(c, transform[:2, :2], transform[:2, 2], order=order, mode=fill_mode, cval=cval)
        for c in x
    ]
    return np.rollaxis(np.stack(channels, axis=0), 0, channel_axis + 1)


def apply_channel_shift(x, intensity, channel_axis=0):
    x = np.rollaxis(x, channel_axis, 0)
    min_x, max_x = np.min(x), np.max(x)
    x = np.stack([np.clip(c + intensity, min_x, max_x) for c in x], axis=0)
    return np.rollaxis(x, 0, channel_axis + 1)


def apply_brightness_shift(x, brightness, scale=True):
    _, image_enhance = _pil()
    x_min, x_max = np.min(x), np.max(x)
    local_scale = (x_min < 0) or (x_max > 255)
    img = image_enhance.Brightness(array_to_img(x, scale=local_scale or scale)).enhance(brightness)
    x = img_to_array(img)
    if not scale and local_scale:
        x = x / 255 * (x_max - x_min) + x_min
    return x


# --- iterators ---


class Iterator(Sequence):
    """Batches of indices over `n` samples (shuffled each epoch when `shuffle`); `next()` or `[i]`."""

    white_list_formats = ("png", "jpg", "jpeg", "bmp", "ppm", "tif", "tiff")

    def __init__(self, n, batch_size, shuffle, seed):
        self.n = n
        self.batch_size = batch_size
        self.seed = seed
        self.shuffle = shuffle
        self.batch_index = 0
        self.total_batches_seen = 0
        self.lock = threading.Lock()
        self.index_array = None
        self.index_generator = self._flow_index()

    def _set_index_array(self):
        self.index_array = np.random.permutation(self.n) if self.shuffle else np.arange(self.n)

    def __getitem__(self, idx):
        if idx >= len(self):
            raise ValueError(f"Asked to retrieve element {idx}, but the Sequence has length {len(self)}")
        if self.seed is not None:
            np.random.seed(self.seed + self.total_batches_seen)
        self.total_batches_seen += 1
        if self.index_array is None:
            self._set_index_array()
        index_array = self.index_array[self.batch_size * idx : self.batch_size * (idx + 1)]
        return self._get_batches_of_transformed_samples(index_array)

    def __len__(self):
        return (self.n + self.batch_size - 1) // self.batch_size

    def on_epoch_end(self):
        self._set_index_array()

    def reset(self):
        self.batch_index = 0

    def _flow_index(self):
        self.reset()
        while 1:
            if self.seed is not None:
                np.random.seed(self.seed + self.total_batches_seen)
            if self.batch_index == 0:
                self._set_index_array()
            current_index = 0 if self.n == 0 else (self.batch_index * self.batch_size) % self.n
            if self.n > current_index + self.batch_size:
                self.batch_index += 1
            else:
                self.batch_index = 0
            self.total_batches_seen += 1
            yield self.index_array[current_index : current_index + self.batch_size]

    def __iter__(self):
        return self

    def __next__(self):
        return self.next()

    def next(self):
        with self.lock:
            index_array = next(self.index_generator)
        return self._get_batches_of_transformed_samples(index_array)

    def _get_batches_of_transformed_samples(self, index_array):
        raise NotImplementedError


class NumpyArrayIterator(Iterator):
    """Batches `(x, y[, sample_weight])` of transformed images from rank-4 arrays."""

    def __init__(
        self,
        x,
        y,
        image_data_generator,
        batch_size=32,
        shuffle=False,
        sample_weight=None,
        seed=None,
        data_format=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        subset=None,
        ignore_class_split=False,
        dtype=None,
    ):
        data_format = data_format or _image_data_format()
        self.dtype = dtype or backend.floatx()
        x_misc = []
        if isinstance(x, (tuple, list)):
            x_misc = [np.asarray(x[1])] if not isinstance(x[1], list) else [np.asarray(xx) for xx in x[1]]
            x = x[0]
            for xx in x_misc:
                if len(x) != len(xx):
                    raise ValueError(
                        "All of the arrays in `x` should have the same length. "
                        f"Found a pair with: len(x[0]) = {len(x)}, len(x[?]) = {len(xx)}"
                    )
        if y is not None and len(x) != len(y):
            raise ValueError(
                "`x` (images tensor) and `y` (labels) should have the same length. "
                f"Found: x.shape = {np.asarray(x).shape}, y.shape = {np.asarray(y).shape}"
            )
        if sample_weight is not None and len(x) != len(sample_weight):
            raise ValueError(
                "`x` (images tensor) and `sample_weight` should have the same length. "
                f"Found: x.shape = {np.asarray(x).shape}, sample_weight.shape = {np.asarray(sample_weight).shape}"
            )
        if subset is not None:
            if subset not in {"training", "validation"}:
                raise ValueError(f'Invalid subset name: {subset}; expected "training" or "validation".')
            split_idx = int(len(x) * image_data_generator._validation_split)
            if (
                y is not None
                and not ignore_class_split
                and not np.array_equal(np.unique(y[:split_idx]), np.unique(y[split_idx:]))
            ):
                raise ValueError(
                    "Training and validation subsets have different number of classes after the split. "
                    "If your numpy arrays are sorted by the label, you might want to shuffle them."
                )
            part = slice(None, split_idx) if subset == "validation" else slice(split_idx, None)
            x = x[part]
            x_misc = [np.asarray(xx[part]) for xx in x_misc]
            if y is not None:
                y = y[part]
        self.x = np.asarray(x, dtype=self.dtype)
        self.x_misc = x_misc
        if self.x.ndim != 4:
            raise ValueError(
                f"Input data in `NumpyArrayIterator` should have rank 4. You passed an array with shape {self.x.shape}"
            )
        channels_axis = 3 if data_format == "channels_last" else 1
        if self.x.shape[channels_axis] not in {1, 3, 4}:
            warnings.warn(
                f'NumpyArrayIterator is set to use the data format convention "{data_format}" (channels on axis '
                f"{channels_axis}), i.e. expected either 1, 3, or 4 channels on axis {channels_axis}. However, it "
                f"was passed an array with shape {self.x.shape} ({self.x.shape[channels_axis]} channels).",
                stacklevel=2,
            )
        self.y = None if y is None else np.asarray(y)
        self.sample_weight = None if sample_weight is None else np.asarray(sample_weight)
        self.image_data_generator = image_data_generator
        self.data_format = data_format
        self.save_to_dir = save_to_dir
        self.save_prefix = save_prefix
        self.save_format = save_format
        super().__init__(self.x.shape[0], batch_size, shuffle, seed)

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array), *self.x.shape[1:]), dtype=self.dtype)
        for i, j in enumerate(index_array):
            x = self.x[j]
            params = self.image_data_generator.get_random_transform(x.shape)
            x = self.image_data_generator.apply_transform(x.astype(self.dtype), params)
            batch_x[i] = self.image_data_generator.standardize(x)
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                img = array_to_img(batch_x[i], self.data_format, scale=True)
                fname = f"{self.save_prefix}_{j}_{np.random.randint(1e4)}.{self.save_format}"
                img.save(os.path.join(self.save_to_dir, fname))
        miscs = [xx[index_array] for xx in self.x_misc]
        output = (batch_x if not miscs else [batch_x, *miscs],)
        if self.y is None:
            return output[0]
        output += (self.y[index_array],)
        if self.sample_weight is not None:
            output += (self.sample_weight[index_array],)
        return output


def _iter_valid_files(directory, white_list_formats, follow_links):
    for root, _, files in sorted(os.walk(directory, followlinks=follow_links), key=lambda x: x[0]):
        for fname in sorted(files):
            if fname.lower().endswith(white_list_formats):
                yield root, fname


class DirectoryIterator(Iterator):
    """Batches of images read from `directory/<class>/...` with labels by `class_mode`."""

    allowed_class_modes = frozenset({"categorical", "binary", "sparse", "input", None})

    def __init__(
        self,
        directory,
        image_data_generator,
        target_size=(256, 256),
        color_mode="rgb",
        classes=None,
        class_mode="categorical",
        batch_size=32,
        shuffle=True,
        seed=None,
        data_format=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        follow_links=False,
        subset=None,
        interpolation="nearest",
        keep_aspect_ratio=False,
        dtype=None,
    ):
        data_format = data_format or _image_data_format()
        self.dtype = dtype or backend.floatx()
        if color_mode not in {"rgb", "rgba", "grayscale"}:
            raise ValueError(f'Invalid color mode: {color_mode}; expected "rgb", "rgba", or "grayscale".')
        if class_mode not in self.allowed_class_modes:
            raise ValueError(f"Invalid class_mode: {class_mode}; expected one of: {self.allowed_class_modes}")
        self.image_data_generator = image_data_generator
        self.target_size = tuple(target_size)
        self.color_mode = color_mode
        self.data_format = data_format
        channels = {"rgba": 4, "rgb": 3, "grayscale": 1}[color_mode]
        self.image_shape = (
            (*self.target_size, channels) if data_format == "channels_last" else (channels, *self.target_size)
        )
        self.save_to_dir, self.save_prefix, self.save_format = save_to_dir, save_prefix, save_format
        self.interpolation = interpolation
        self.keep_aspect_ratio = keep_aspect_ratio
        split = None
        if subset is not None:
            validation_split = image_data_generator._validation_split
            if subset == "validation":
                split = (0, validation_split)
            elif subset == "training":
                split = (validation_split, 1)
            else:
                raise ValueError(f'Invalid subset name: {subset};expected "training" or "validation"')
        self.split, self.subset = split, subset
        self.directory = directory
        self.class_mode = class_mode
        if not classes:
            classes = [d for d in sorted(os.listdir(directory)) if os.path.isdir(os.path.join(directory, d))]
        self.num_classes = len(classes)
        self.class_indices = dict(zip(classes, range(len(classes))))
        self.filenames, labels = [], []
        for subdir in classes:
            dirpath = os.path.join(directory, subdir)
            files = list(_iter_valid_files(dirpath, self.white_list_formats, follow_links))
            if split:
                files = files[int(split[0] * len(files)) : int(split[1] * len(files))]
            for root, fname in files:
                labels.append(self.class_indices[subdir])
                self.filenames.append(os.path.join(subdir, os.path.relpath(os.path.join(root, fname), dirpath)))
        self.samples = len(self.filenames)
        self.classes = np.array(labels, dtype="int32")
        print(f"Found {self.samples} images belonging to {self.num_classes} classes.")
        self._filepaths = [os.path.join(directory, f) for f in self.filenames]
        super().__init__(self.samples, batch_size, shuffle, seed)

    @property
    def filepaths(self):
        return self._filepaths

    @property
    def labels(self):
        return self.classes

    def _get_batches_of_transformed_samples(self, index_array):
        batch_x = np.zeros((len(index_array), *self.image_shape), dtype=self.dtype)
        for i, j in enumerate(index_array):
            img = load_img(
                self._filepaths[j],
                color_mode=self.color_mode,
                target_size=self.target_size,
                interpolation=self.interpolation,
                keep_aspect_ratio=self.keep_aspect_ratio,
            )
            x = img_to_array(img, data_format=self.data_format)
            img.close()
            if self.image_data_generator:
                params = self.image_data_generator.get_random_transform(x.shape)
                x = self.image_data_generator.apply_transform(x, params)
                x = self.image_data_generator.standardize(x)
            batch_x[i] = x
        if self.save_to_dir:
            for i, j in enumerate(index_array):
                img = array_to_img(batch_x[i], self.data_format, scale=True)
                img.save(
                    os.path.join(
                        self.save_to_dir, f"{self.save_prefix}_{j}_{np.random.randint(1e7)}.{self.save_format}"
                    )
                )
        if self.class_mode == "input":
            return batch_x, batch_x.copy()
        if self.class_mode in {"binary", "sparse"}:
            return batch_x, self.classes[index_array].astype(self.dtype)
        if self.class_mode == "categorical":
            batch_y = np.zeros((len(batch_x), len(self.class_indices)), dtype=self.dtype)
            batch_y[np.arange(len(index_array)), self.classes[index_array]] = 1.0
            return batch_x, batch_y
        return batch_x


class ImageDataGenerator:
    """Real-time image augmentation and standardization, yielding batches from arrays (`flow`) or
    directories (`flow_from_directory`)."""

    def __init__(
        self,
        featurewise_center=False,
        samplewise_center=False,
        featurewise_std_normalization=False,
        samplewise_std_normalization=False,
        zca_whitening=False,
        zca_epsilon=1e-6,
        rotation_range=0,
        width_shift_range=0.0,
        height_shift_range=0.0,
        brightness_range=None,
        shear_range=0.0,
        zoom_range=0.0,
        channel_shift_range=0.0,
        fill_mode="nearest",
        cval=0.0,
        horizontal_flip=False,
        vertical_flip=False,
        rescale=None,
        preprocessing_function=None,
        data_format=None,
        validation_split=0.0,
        interpolation_order=1,
        dtype=None,
    ):
        data_format = data_format or _image_data_format()
        self.featurewise_center = featurewise_center
        self.samplewise_center = samplewise_center
        self.featurewise_std_normalization = featurewise_std_normalization
        self.samplewise_std_normalization = samplewise_std_normalization
        self.zca_whitening = zca_whitening
        self.zca_epsilon = zca_epsilon
        self.rotation_range = rotation_range
        self.width_shift_range = width_shift_range
        self.height_shift_range = height_shift_range
        self.shear_range = shear_range
        self.channel_shift_range = channel_shift_range
        self.fill_mode = fill_mode
        self.cval = cval
        self.horizontal_flip = horizontal_flip
        self.vertical_flip = vertical_flip
        self.rescale = rescale
        self.preprocessing_function = preprocessing_function
        self.dtype = dtype or backend.floatx()
        self.interpolation_order = interpolation_order
        if data_format not in {"channels_last", "channels_first"}:
            raise ValueError(
                '`data_format` should be `"channels_last"` (channel after row and column) or `"channels_first"` '
                f"(channel before row and column). Received: {data_format}"
            )
        self.data_format = data_format
        self.channel_axis, self.row_axis, self.col_axis = (1, 2, 3) if data_format == "channels_first" else (3, 1, 2)
        if validation_split and not 0 < validation_split < 1:
            raise ValueError(f"`validation_split` must be strictly between 0 and 1.  Received: {validation_split}")
        self._validation_split = validation_split
        self.mean = self.std = self.zca_whitening_matrix = None
        if isinstance(zoom_range, (float, int)):
            self.zoom_range = [1 - zoom_range, 1 + zoom_range]
        elif len(zoom_range) == 2 and all(isinstance(v, (float, int)) for v in zoom_range):
            self.zoom_range = [zoom_range[0], zoom_range[1]]
        else:
            raise ValueError(f"`zoom_range` should be a float or a tuple or list of two floats. Received: {zoom_range}")
        if zca_whitening:
            self.featurewise_center = True
            self.featurewise_std_normalization = False
        if featurewise_std_normalization:
            self.featurewise_center = True
        if samplewise_std_normalization:
            self.samplewise_center = True
        if brightness_range is not None and (
            not isinstance(brightness_range, (tuple, list)) or len(brightness_range) != 2
        ):
            raise ValueError(f"`brightness_range should be tuple or list of two floats. Received: {brightness_range}")
        self.brightness_range = brightness_range

    def flow(
        self,
        x,
        y=None,
        batch_size=32,
        shuffle=True,
        sample_weight=None,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        ignore_class_split=False,
        subset=None,
    ):
        return NumpyArrayIterator(
            x,
            y,
            self,
            batch_size=batch_size,
            shuffle=shuffle,
            sample_weight=sample_weight,
            seed=seed,
            data_format=self.data_format,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            ignore_class_split=ignore_class_split,
            subset=subset,
            dtype=self.dtype,
        )

    def flow_from_directory(
        self,
        directory,
        target_size=(256, 256),
        color_mode="rgb",
        classes=None,
        class_mode="categorical",
        batch_size=32,
        shuffle=True,
        seed=None,
        save_to_dir=None,
        save_prefix="",
        save_format="png",
        follow_links=False,
        subset=None,
        interpolation="nearest",
        keep_aspect_ratio=False,
    ):
        return DirectoryIterator(
            directory,
            self,
            target_size=target_size,
            color_mode=color_mode,
            keep_aspect_ratio=keep_aspect_ratio,
            classes=classes,
            class_mode=class_mode,
            data_format=self.data_format,
            batch_size=batch_size,
            shuffle=shuffle,
            seed=seed,
            save_to_dir=save_to_dir,
            save_prefix=save_prefix,
            save_format=save_format,
            follow_links=follow_links,
            subset=subset,
            interpolation=interpolation,
            dtype=self.dtype,
        )

    def standardize(self, x):
        """Applies `preprocessing_function`, `rescale` and the centering/normalization to `x` (in place)."""
        if self.preprocessing_function:
            x = self.preprocessing_function(x)
        if self.rescale:
            x *= self.rescale
        if self.samplewise_center:
            x -= np.mean(x, keepdims=True)
        if self.samplewise_std_normalization:
            x /= np.std(x, keepdims=True) + 1e-6
        for flag, stat, what in (
            (self.featurewise_center, self.mean, "featurewise_center"),
            (self.featurewise_std_normalization, self.std, "featurewise_std_normalization"),
            (self.zca_whitening, self.zca_whitening_matrix, "zca_whitening"),
        ):
            if flag and stat is None:
                warnings.warn(
                    f"This ImageDataGenerator specifies `{what}`, but it hasn't been fit on any training data. "
                    "Fit it first by calling `.fit(numpy_data)`.",
                    stacklevel=2,
                )
        if self.featurewise_center and self.mean is not None:
            x -= self.mean
        if self.featurewise_std_normalization and self.std is not None:
            x /= self.std + 1e-6
        if self.zca_whitening and self.zca_whitening_matrix is not None:
            flat_x = x.reshape(-1, np.prod(x.shape[-3:]))
            x = np.reshape(flat_x @ self.zca_whitening_matrix, x.shape)
        return x

    def get_random_transform(self, img_shape, seed=None):
        """The random transformation parameters for one image (numpy's global generator, as tf_keras)."""
        img_row_axis, img_col_axis = self.row_axis - 1, self.col_axis - 1
        if seed is not None:
            np.random.seed(seed)
        theta = np.random.uniform(-self.rotation_range, self.rotation_range) if self.rotation_range else 0

        def shift(value, size):
            if not value:
                return 0
            try:
                t = np.random.choice(value)
                t *= np.random.choice([-1, 1])
            except ValueError:
                t = np.random.uniform(-value, value)
            if np.max(value) < 1:
                t *= size
            return t

        tx = shift(self.height_shift_range, img_shape[img_row_axis])
        ty = shift(self.width_shift_range, img_shape[img_col_axis])
        shear = np.random.uniform(-self.shear_range, self.shear_range) if self.shear_range else 0
        if self.zoom_range[0] == 1 and self.zoom_range[1] == 1:
            zx, zy = 1, 1
        else:
            zx, zy = np.random.uniform(self.zoom_range[0], self.zoom_range[1], 2)
        flip_horizontal = (np.random.random() < 0.5) * self.horizontal_flip
        flip_vertical = (np.random.random() < 0.5) * self.vertical_flip
        channel_shift_intensity = None
        if self.channel_shift_range != 0:
            channel_shift_intensity = np.random.uniform(-self.channel_shift_range, self.channel_shift_range)
        brightness = None
        if self.brightness_range is not None:
            brightness = np.random.uniform(self.brightness_range[0], self.brightness_range[1])
        return {
            "theta": theta,
            "tx": tx,
            "ty": ty,
            "shear": shear,
            "zx": zx,
            "zy": zy,
            "flip_horizontal": flip_horizontal,
            "flip_vertical": flip_vertical,
            "channel_shift_intensity": channel_shift_intensity,
            "brightness": brightness,
        }

    def apply_transform(self, x, transform_parameters):
        """Applies the parameters of `get_random_transform` to one image."""
        p = transform_parameters
        row, col, channel = self.row_axis - 1, self.col_axis - 1, self.channel_axis - 1
        x = apply_affine_transform(
            x,
            p.get("theta", 0),
            p.get("tx", 0),
            p.get("ty", 0),
            p.get("shear", 0),
            p.get("zx", 1),
            p.get("zy", 1),
            row_axis=row,
            col_axis=col,
            channel_axis=channel,
            fill_mode=self.fill_mode,
            cval=self.cval,
            order=self.interpolation_order,
        )
        if p.get("channel_shift_intensity") is not None:
            x = apply_channel_shift(x, p["channel_shift_intensity"], channel)
        if p.get("flip_horizontal", False):
            x = flip_axis(x, col)
        if p.get("flip_vertical", False):
            x = flip_axis(x, row)
        if p.get("brightness") is not None:
            x = apply_brightness_shift(x, p["brightness"], False)
        return x

    def random_transform(self, x, seed=None):
        return self.apply_transform(x, self.get_random_transform(x.shape, seed))

    def fit(self, x, augment=False, rounds=1, seed=None):
        """Computes the featurewise mean/std (and ZCA matrix) of the rank-4 array `x`."""
        x = np.asarray(x, dtype=self.dtype)
        if x.ndim != 4:
            raise ValueError(f"Input to `.fit()` should have rank 4. Got array with shape: {x.shape}")
        if seed is not None:
            np.random.seed(seed)
        x = np.copy(x)
        if self.rescale:
            x *= self.rescale
        if augment:
            ax = np.zeros((rounds * x.shape[0], *x.shape[1:]), dtype=self.dtype)
            for r in range(rounds):
                for i in range(x.shape[0]):
                    ax[i + r * x.shape[0]] = self.random_transform(x[i])
            x = ax
        broadcast_shape = [1, 1, 1]
        broadcast_shape[self.channel_axis - 1] = x.shape[self.channel_axis]
        if self.featurewise_center:
            self.mean = np.reshape(np.mean(x, axis=(0, self.row_axis, self.col_axis)), broadcast_shape)
            x -= self.mean
        if self.featurewise_std_normalization:
            self.std = np.reshape(np.std(x, axis=(0, self.row_axis, self.col_axis)), broadcast_shape)
            x /= self.std + 1e-6
        if self.zca_whitening:
            n = len(x)
            u, s, _ = np.linalg.svd(np.reshape(x, (n, -1)).T, full_matrices=False)
            s_inv = np.sqrt(n) / (s + self.zca_epsilon)
            self.zca_whitening_matrix = (u * s_inv).dot(u.T)
