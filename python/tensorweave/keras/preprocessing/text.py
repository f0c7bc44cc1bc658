"""tf.keras.preprocessing.text."""

from tensorweave._src.keras.preprocessing import (  # noqa: F401
    Tokenizer,
    hashing_trick,
    one_hot,
    text_to_word_sequence,
    tokenizer_from_json,
)
