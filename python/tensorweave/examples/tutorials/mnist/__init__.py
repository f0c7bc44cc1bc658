"""tw.examples.tutorials.mnist: `input_data.read_data_sets`, as TensorFlow 1's MNIST tutorials use it."""
