"""tw.strings: string ops with TensorFlow 1's tf.strings names (host only).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.strings.join(["a", "b"], separator="+")))
  b'a+b'
"""

from tensorweave._src.ops.string_extra_ops import ngrams, unicode_encode, unicode_transcode, unsorted_segment_join
from tensorweave._src.ops.string_extra_ops import string_format as format
from tensorweave._src.ops.string_extra_ops import string_to_hash_bucket as to_hash_bucket
from tensorweave._src.ops.ragged_string_ops import (
    bytes_split,
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_script,
    unicode_split,
    unicode_split_with_offsets,
)
from tensorweave._src.ops.string_ops import (
    as_string,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    substr,
    upper,
)
from tensorweave._src.ops.string_ops import string_join as join
from tensorweave._src.ops.string_ops import string_length as length
from tensorweave._src.ops.string_ops import string_strip as strip
from tensorweave._src.ops.string_ops import string_to_hash_bucket_fast as to_hash_bucket_fast
from tensorweave._src.ops.string_ops import string_to_hash_bucket_strong as to_hash_bucket_strong
from tensorweave._src.ops.string_ops import string_to_number as to_number
from tensorweave._src.ops.string_ops import strings_split_v1 as split

__all__ = [
    "as_string",
    "bytes_split",
    "format",
    "join",
    "length",
    "lower",
    "ngrams",
    "reduce_join",
    "regex_full_match",
    "regex_replace",
    "split",
    "strip",
    "substr",
    "to_hash_bucket",
    "to_hash_bucket_fast",
    "to_hash_bucket_strong",
    "to_number",
    "unicode_decode",
    "unicode_decode_with_offsets",
    "unicode_encode",
    "unicode_script",
    "unicode_split",
    "unicode_split_with_offsets",
    "unicode_transcode",
    "unsorted_segment_join",
    "upper",
]
