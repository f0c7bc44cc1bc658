"""TensorFlow's `tensorflow.python` paths that TF1 programs import directly (`client.device_lib`, `client.timeline`)."""
