"""tw.examples: the helpers TensorFlow 1's tutorials import (`tensorflow.examples.tutorials.mnist.input_data`)."""
