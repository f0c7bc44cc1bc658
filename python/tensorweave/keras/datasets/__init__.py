"""tw.keras.datasets: the Keras datasets, read from the Keras cache (python/tensorweave/_src/keras/datasets.py)."""

from tensorweave.keras.datasets import boston_housing
from tensorweave.keras.datasets import cifar10
from tensorweave.keras.datasets import cifar100
from tensorweave.keras.datasets import fashion_mnist
from tensorweave.keras.datasets import imdb
from tensorweave.keras.datasets import mnist
from tensorweave.keras.datasets import reuters
