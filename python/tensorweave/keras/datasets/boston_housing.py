"""tw.keras.datasets.boston_housing."""

from tensorweave._src.keras.datasets import load_boston_housing as load_data
