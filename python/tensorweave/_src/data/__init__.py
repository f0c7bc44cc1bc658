"""tf.data: datasets, their iterators, and the tracing of dataset functions (`function.py`)."""
