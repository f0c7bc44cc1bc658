"""tf.compat.v1.metrics: streaming metrics whose state lives in local variables."""
