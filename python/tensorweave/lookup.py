"""tensorweave.lookup: TF's `tf.lookup` hash tables (StaticHashTable, StaticVocabularyTable) and their
initializers.

Example:
  >>> import tensorweave as tw
  >>> tw.lookup.TextFileIndex.WHOLE_LINE, tw.lookup.TextFileIndex.LINE_NUMBER
  (-2, -1)
"""

from tensorweave._src.ops.lookup_ops import KeyValueTensorInitializer
from tensorweave._src.ops.lookup_ops import StaticHashTable
from tensorweave._src.ops.lookup_ops import StaticVocabularyTable
from tensorweave._src.ops.lookup_ops import TextFileIndex
from tensorweave._src.ops.lookup_ops import TextFileInitializer

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
]
