"""TensorFlow's `tensorflow.python` paths that TF1 programs import directly (`device_lib`)."""
