"""tw.keras.datasets.fashion_mnist."""

from tensorweave._src.keras.datasets import load_fashion_mnist as load_data
