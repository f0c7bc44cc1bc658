"""tf.keras.preprocessing: `sequence` and `text`."""

from tensorweave.keras.preprocessing import sequence, text  # noqa: F401
