"""tensorweave.audio: TF's `tf.audio` (decode_wav, encode_wav).

Example:
  >>> import tensorweave as tw
  >>> tw.audio.decode_wav.__name__
  'decode_wav'
"""

from tensorweave._src.ops.audio_ops import decode_wav
from tensorweave._src.ops.audio_ops import encode_wav

__all__ = ["decode_wav", "encode_wav"]
