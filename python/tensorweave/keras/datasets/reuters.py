"""tw.keras.datasets.reuters."""

from tensorweave._src.keras.datasets import REUTERS_LABELS as _LABELS
from tensorweave._src.keras.datasets import load_reuters as load_data
from tensorweave._src.keras.datasets import reuters_word_index as get_word_index


def get_label_names():
    """The names of the 46 topics, by label."""
    return _LABELS
