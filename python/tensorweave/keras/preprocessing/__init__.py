"""tf.keras.preprocessing: `image`, `sequence` and `text`."""

from tensorweave.keras.preprocessing import image, sequence, text  # noqa: F401
