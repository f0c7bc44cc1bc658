"""tf.keras.preprocessing.sequence."""

from tensorweave._src.keras.preprocessing import pad_sequences  # noqa: F401
