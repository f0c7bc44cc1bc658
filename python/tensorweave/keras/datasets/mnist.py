"""tw.keras.datasets.mnist."""

from tensorweave._src.keras.datasets import load_mnist as load_data
