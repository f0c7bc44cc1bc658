"""tw.spectral: TensorFlow 1's tf.spectral (the same as tf.signal's) FFT family (fft, ifft, rfft, irfft and their 2-D and 3-D forms).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.abs(tw.spectral.fft(tw.constant([1, 1, 1, 1], dtype=tw.complex64)))))
  [4. 0. 0. 0.]
"""

from tensorweave._src.ops.spectral_ops import (
    fft,
    fft2d,
    fft3d,
    ifft,
    ifft2d,
    ifft3d,
    irfft,
    irfft2d,
    irfft3d,
    rfft,
    rfft2d,
    rfft3d,
)

from tensorweave._src.ops.signal_ops import dct, idct

__all__ = [
    "dct",
    "idct",
    "fft",
    "fft2d",
    "fft3d",
    "ifft",
    "ifft2d",
    "ifft3d",
    "irfft",
    "irfft2d",
    "irfft3d",
    "rfft",
    "rfft2d",
    "rfft3d",
]
