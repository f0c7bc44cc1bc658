"""tf.keras.preprocessing.image."""

from tensorweave._src.keras.image import (  # noqa: F401
    DirectoryIterator,
    ImageDataGenerator,
    Iterator,
    NumpyArrayIterator,
    apply_affine_transform,
    apply_brightness_shift,
    apply_channel_shift,
    array_to_img,
    img_to_array,
    load_img,
    save_img,
)
