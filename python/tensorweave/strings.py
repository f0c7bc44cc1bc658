"""tw.strings: string ops with TensorFlow 1's tf.strings names (host only).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.strings.join(["a", "b"], separator="+")))
  b'a+b'
"""

from tensorweave._src.ops.string_ops import as_string
from tensorweave._src.ops.string_ops import lower
from tensorweave._src.ops.string_ops import reduce_join
from tensorweave._src.ops.string_ops import regex_full_match
from tensorweave._src.ops.string_ops import regex_replace
from tensorweave._src.ops.string_ops import string_join as join
from tensorweave._src.ops.string_ops import string_length as length
from tensorweave._src.ops.string_ops import string_strip as strip
from tensorweave._src.ops.string_ops import string_to_hash_bucket_fast as to_hash_bucket_fast
from tensorweave._src.ops.string_ops import string_to_hash_bucket_strong as to_hash_bucket_strong
from tensorweave._src.ops.string_ops import string_to_number as to_number
from tensorweave._src.ops.string_ops import strings_split_v1 as split
from tensorweave._src.ops.string_ops import substr
from tensorweave._src.ops.string_ops import upper

__all__ = [
    "as_string",
    "join",
    "length",
    "lower",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "split",
    "strip",
    "substr",
    "to_hash_bucket_fast",
    "to_hash_bucket_strong",
    "to_number",
    "upper",
]
