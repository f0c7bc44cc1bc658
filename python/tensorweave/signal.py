"""tw.signal: TensorFlow's tf.signal: the FFT family (1-3-D and N-d), framing, windows, STFT, DCT/MDCT, mel
filterbanks and MFCCs.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(sess.run(tw.abs(tw.signal.fft(tw.constant([1, 1, 1, 1], dtype=tw.complex64)))))
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

from tensorweave._src.ops.signal_ops import (
    dct,
    fftnd,
    fftshift,
    frame,
    hamming_window,
    hann_window,
    idct,
    ifftnd,
    ifftshift,
    inverse_mdct,
    inverse_stft,
    inverse_stft_window_fn,
    irfftnd,
    kaiser_bessel_derived_window,
    kaiser_window,
    linear_to_mel_weight_matrix,
    mdct,
    mfccs_from_log_mel_spectrograms,
    overlap_and_add,
    rfftnd,
    stft,
    vorbis_window,
)

__all__ = [
    "dct",
    "fft",
    "fft2d",
    "fft3d",
    "fftnd",
    "fftshift",
    "frame",
    "hamming_window",
    "hann_window",
    "idct",
    "ifft",
    "ifft2d",
    "ifft3d",
    "ifftnd",
    "ifftshift",
    "inverse_mdct",
    "inverse_stft",
    "inverse_stft_window_fn",
    "irfft",
    "irfft2d",
    "irfft3d",
    "irfftnd",
    "kaiser_bessel_derived_window",
    "kaiser_window",
    "linear_to_mel_weight_matrix",
    "mdct",
    "mfccs_from_log_mel_spectrograms",
    "overlap_and_add",
    "rfft",
    "rfft2d",
    "rfft3d",
    "rfftnd",
    "stft",
    "vorbis_window",
]
