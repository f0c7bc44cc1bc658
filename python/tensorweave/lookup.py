"""tensorweave.lookup: TF's `tf.lookup` hash tables (StaticHashTable, StaticVocabularyTable) and their
initializers; `tw.lookup.experimental.MutableHashTable` and `DenseHashTable`, tables changed by insert and
remove and saved by a Saver.

Example:
  >>> import tensorweave as tw
  >>> tw.lookup.TextFileIndex.WHOLE_LINE, tw.lookup.TextFileIndex.LINE_NUMBER
  (-2, -1)
"""

import types

from tensorweave._src.ops.lookup_ops import DenseHashTable
from tensorweave._src.ops.lookup_ops import KeyValueTensorInitializer
from tensorweave._src.ops.lookup_ops import MutableHashTable
from tensorweave._src.ops.lookup_ops import StaticHashTable
from tensorweave._src.ops.lookup_ops import StaticVocabularyTable
from tensorweave._src.ops.lookup_ops import TextFileIndex
from tensorweave._src.ops.lookup_ops import TextFileInitializer

experimental = types.SimpleNamespace(DenseHashTable=DenseHashTable, MutableHashTable=MutableHashTable)

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
    "experimental",
]
