"""tw.keras.datasets.cifar10."""

from tensorweave._src.keras.datasets import load_cifar10 as load_data
