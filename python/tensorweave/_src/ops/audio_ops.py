"""tw.audio: WAV files to tensors and back (TF's tf.audio), on the DecodeWav and EncodeWav kernels.

Example:
  >>> import numpy as np, tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     wav = tw.audio.encode_wav(np.array([[0.5], [-0.25]], np.float32), 16000)
  ...     audio, rate = sess.run(tw.audio.decode_wav(wav))
  >>> audio.ravel().tolist(), int(rate)
  ([0.5, -0.25], 16000)
"""

import collections

from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import gradients_impl

DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])

for _op in ("DecodeWav", "EncodeWav", "AudioSpectrogram", "Mfcc"):
    gradients_impl.NotDifferentiable(_op)


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """A 16-bit PCM WAV file (a string scalar) as (audio [samples, channels]
    float32 in [-1, 1), sample_rate int32). `desired_channels` /
    `desired_samples` (-1: the file's) repeat the last channel, or pad with
    zeros / truncate."""
    audio, rate = gen_ops.decode_wav(
        contents, desired_channels=desired_channels, desired_samples=desired_samples, name=name
    )
    return DecodeWav(audio, rate)


def encode_wav(audio, sample_rate, name=None):
    """[frames, channels] float32 audio (clipped to [-1, 1]) as a 16-bit PCM WAV file (a string scalar)."""
    return gen_ops.encode_wav(audio, sample_rate, name=name)
