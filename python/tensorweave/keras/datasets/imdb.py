"""tw.keras.datasets.imdb."""

from tensorweave._src.keras.datasets import imdb_word_index as get_word_index
from tensorweave._src.keras.datasets import load_imdb as load_data
