"""`tensorflow.python.client` paths: `device_lib`, `timeline`."""
