"""tw.signal: TensorFlow's tf.signal FFT family (fft, ifft, rfft, irfft and their 2-D and 3-D forms).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.signal.fft(tw.constant([1, 1j, -1, -1j], dtype=tw.complex64))))
  [0.+0.j 4.+0.j 0.+0.j 0.+0.j]
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

__all__ = [
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
