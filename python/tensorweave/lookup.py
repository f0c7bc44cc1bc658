"""tensorweave.lookup: TF's `tf.lookup` hash tables (StaticHashTable, StaticVocabularyTable) and their
initializers; `tw.lookup.experimental.MutableHashTable` and `DenseHashTable`, tables changed by insert and
remove and saved by a Saver. Also TF1's index_table_from_tensor, index_table_from_file,
index_to_string_table_from_tensor and index_to_string_table_from_file: TF1 programs reach them as
tf.contrib.lookup.* or tensorflow.python.ops.lookup_ops.*, neither of which TF 2.21 has under tf.lookup;
they are extra names here.

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
from tensorweave._src.ops.lookup_ops import index_table_from_file
from tensorweave._src.ops.lookup_ops import index_table_from_tensor
from tensorweave._src.ops.lookup_ops import index_to_string_table_from_file
from tensorweave._src.ops.lookup_ops import index_to_string_table_from_tensor

experimental = types.SimpleNamespace(DenseHashTable=DenseHashTable, MutableHashTable=MutableHashTable)

__all__ = [
    "KeyValueTensorInitializer",
    "StaticHashTable",
    "StaticVocabularyTable",
    "TextFileIndex",
    "TextFileInitializer",
    "experimental",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
]
