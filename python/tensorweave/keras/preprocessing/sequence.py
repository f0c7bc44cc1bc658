"""tf.keras.preprocessing.sequence."""

from tensorweave._src.keras.preprocessing import (  # noqa: F401
    TimeseriesGenerator,
    make_sampling_table,
    pad_sequences,
    skipgrams,
)
