"""tw.keras.datasets.cifar100."""

from tensorweave._src.keras.datasets import load_cifar100 as load_data
