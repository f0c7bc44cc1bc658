"""TensorFlow's tf.signal beyond the FFT ops: framing (frame, overlap_and_add), windows (hann, hamming, vorbis,
kaiser, kaiser-bessel-derived), short-time Fourier transforms (stft, inverse_stft, inverse_stft_window_fn), the
DCT types I-IV (dct, idct), MDCT (mdct, inverse_mdct), mel filterbanks and MFCCs, fftshift/ifftshift and the
N-d FFTs (fftnd, ifftnd, rfftnd, irfftnd).

Everything is composed of graph ops (Gather, UnsortedSegmentSum, RFFT/IRFFT, ...), so gradients come from
theirs. Static arguments (Python ints, known shapes) give static output shapes, as TensorFlow's do."""

import math

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_nd_ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import special_math_ops
from tensorweave._src.ops import spectral_ops


def _scope(name, default):
    return ops.get_default_graph().name_scope(name or default)


def _static_int(value):
    """The Python int value of a scalar int (or constant tensor), else None."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, ops.Tensor):
        v = array_ops.constant_value(value)
        if v is not None and np.ndim(v) == 0:
            return int(v)
    return None


def _scalar_int(value, name):
    t = ops.convert_to_tensor(value, dtype=dtypes.int32, name=name)
    if t.shape.ndims not in (None, 0):
        raise ValueError(f"{name} must be a scalar, got shape {t.shape}")
    return t


def _float_dtype(dtype, what):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{what}: dtype must be a floating point type, got {dtype.name}")
    return dtype


def _dim(t, axis):
    """The size of t's dim `axis`: a Python int when static, else an int32 scalar tensor."""
    d = t.shape[axis] if t.shape.ndims is not None else None
    d = getattr(d, "value", d)
    return int(d) if d is not None else array_ops.shape(t)[axis]


# ---------------------------------------------------------------------------------------------------------------
# Framing.


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Expands `axis` of `signal` into frames of `frame_length` taken every `frame_step` samples: the output has
    shape signal.shape[:axis] + [num_frames, frame_length] + signal.shape[axis+1:]. Without `pad_end`, only whole
    frames are kept; with it, the end is padded with `pad_value` so that ceil(length / frame_step) frames fit.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.signal.frame([1, 2, 3, 4, 5], 3, 2)))
      [[1 2 3]
       [3 4 5]]
    """
    with _scope(name, "frame"):
        signal = ops.convert_to_tensor(signal, name="signal")
        rank = signal.shape.ndims
        if rank is None:
            raise ValueError("frame: signal must have a known rank")
        if rank < 1:
            raise ValueError(f"frame: signal must have rank at least 1, got {rank}")
        if not -rank <= axis < rank:
            raise ValueError(f"frame: axis {axis} is out of range for a signal of rank {rank}")
        axis %= rank
        length = _dim(signal, axis)
        flen, fstep = _static_int(frame_length), _static_int(frame_step)
        for what, v in (("frame_length", flen), ("frame_step", fstep)):
            if v is not None and v <= 0:
                raise ValueError(f"frame: {what} must be positive, got {v}")
        if isinstance(length, int) and flen is not None and fstep is not None:
            if pad_end:
                frames = -(-length // fstep)
                padding = max(0, flen + fstep * (frames - 1) - length)
            else:
                frames = max(0, 1 + (length - flen) // fstep)
                padding = 0
            indices = ops.convert_to_tensor(
                (fstep * np.arange(frames)[:, None] + np.arange(flen)[None, :]).astype(np.int32).reshape(frames, flen)
            )
        else:
            flen_t, fstep_t = _scalar_int(frame_length, "frame_length"), _scalar_int(frame_step, "frame_step")
            length_t = ops.convert_to_tensor(length, dtype=dtypes.int32)
            if pad_end:
                frames = -math_ops.floordiv(-length_t, fstep_t)
                padding = math_ops.maximum(0, flen_t + fstep_t * (frames - 1) - length_t)
            else:
                frames = math_ops.maximum(0, 1 + math_ops.floordiv(length_t - flen_t, fstep_t))
                padding = 0
            indices = fstep_t * array_ops.expand_dims(array_ops.range(frames), 1) + array_ops.expand_dims(
                array_ops.range(flen_t), 0
            )
        if pad_end:
            paddings = [[0, padding if i == axis else 0] for i in range(rank)]
            if not isinstance(padding, int):
                paddings = array_ops.stack([array_ops.stack(p) for p in paddings])
            pad_value = ops.convert_to_tensor(pad_value, dtype=signal.dtype, name="pad_value")
            signal = array_ops.pad(signal, paddings, constant_values=pad_value)
        return array_ops.gather(signal, indices, axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """Adds the frames of `signal` ([..., frames, frame_length]) back together, each `frame_step` samples after
    the previous one: the output has shape [..., (frames - 1) * frame_step + frame_length].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.signal.overlap_and_add([[1, 1, 1], [1, 1, 1]], 2)))
      [1 1 2 1 1]
    """
    with _scope(name, "overlap_and_add"):
        signal = ops.convert_to_tensor(signal, name="signal")
        rank = signal.shape.ndims
        if rank is None or rank < 2:
            raise ValueError(f"overlap_and_add: signal must have rank at least 2, got {rank}")
        step = _static_int(frame_step)
        if step is not None and step <= 0:
            raise ValueError(f"overlap_and_add: frame_step must be positive, got {step}")
        step_t = _scalar_int(frame_step, "frame_step")
        frames, flen = _dim(signal, -2), _dim(signal, -1)
        outer = array_ops.shape(signal)[:-2]
        static_outer = signal.shape.as_list()[:-2]
        out_len = (frames - 1) * step_t + flen
        if isinstance(frames, int) and isinstance(flen, int) and step is not None:
            out_len = max(0, (frames - 1) * step + flen)
        # [..., F, L] -> [F * L, B]; sample (f, l) lands at f * step + l.
        flat = array_ops.reshape(signal, array_ops.concat([[-1], array_ops.shape(signal)[-2:]], 0))
        flat = array_ops.reshape(array_ops.transpose(flat, [1, 2, 0]), array_ops.stack([-1, array_ops.shape(flat)[0]]))
        ids = array_ops.reshape(
            step_t * array_ops.expand_dims(array_ops.range(frames), 1)
            + array_ops.expand_dims(array_ops.range(flen), 0),
            [-1],
        )
        summed = array_ops.unsorted_segment_sum(flat, ids, out_len)
        out = array_ops.reshape(array_ops.transpose(summed), array_ops.concat([outer, [out_len]], 0))
        if isinstance(out_len, int):
            out.set_shape(static_outer + [out_len])
        return out


# ---------------------------------------------------------------------------------------------------------------
# Windows.


def _window(what, window_length, dtype, fn):
    """A window of `window_length` samples: fn(n, length) over n = 0..length-1 in `dtype` (length 1 gives [1])."""
    dtype = _float_dtype(dtype, what)
    length = _static_int(window_length)
    if length is not None:
        if length < 0:
            raise ValueError(f"{what}: window_length must be non-negative, got {length}")
        if length == 1:
            return array_ops.ones([1], dtype=dtype)
        n = math_ops.cast(array_ops.range(length), dtype)
        return fn(n, math_ops.cast(length, dtype), length)
    length_t = _scalar_int(window_length, "window_length")
    n = math_ops.cast(array_ops.range(length_t), dtype)
    values = fn(n, math_ops.cast(length_t, dtype), None)
    return math_ops.where(math_ops.equal(length_t, 1), array_ops.ones_like(values), values)


def _raised_cosine(what, window_length, periodic, dtype, a, b):
    def fn(n, length, static_length):
        if static_length is not None:
            denom = static_length - 1 + (1 if periodic and static_length % 2 == 0 else 0)
            denom = math_ops.cast(denom, n.dtype)
        else:
            length_i = math_ops.cast(length, dtypes.int32)
            even = 1 - length_i % 2
            periodic_i = math_ops.cast(ops.convert_to_tensor(periodic, dtype=dtypes.bool), dtypes.int32)
            denom = math_ops.cast(length_i + periodic_i * even - 1, n.dtype)
        return a - b * special_math_ops.cos(2.0 * math.pi * n / denom)

    with ops.get_default_graph().name_scope(what):
        return _window(what, window_length, dtype, fn)


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """0.5 - 0.5 cos(2 pi n / N): N = window_length for a periodic window of even length, else window_length - 1
    (TensorFlow's rule).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.signal.hann_window(4)))
      [0.  0.5 1.  0.5]
    """
    return _raised_cosine(name or "hann_window", window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """0.54 - 0.46 cos(2 pi n / N), with N as for hann_window."""
    return _raised_cosine(name or "hamming_window", window_length, periodic, dtype, 0.54, 0.46)


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """sin(pi / 2 * sin^2(pi (n + 0.5) / window_length))."""
    with _scope(name, "vorbis_window"):

        def fn(n, length, _):
            s = special_math_ops.sin(math.pi * (n + 0.5) / length)
            return special_math_ops.sin(0.5 * math.pi * s * s)

        return _window("vorbis_window", window_length, dtype, fn)


def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta), N = window_length (symmetric, as numpy's kaiser)."""
    with _scope(name, "kaiser_window"):
        dtype = _float_dtype(dtype, "kaiser_window")
        beta_t = ops.convert_to_tensor(beta, dtype=dtype, name="beta")

        def fn(n, length, _):
            half = (length - 1.0) / 2.0
            ratio = (n - half) / half
            arg = beta_t * math_ops.sqrt(math_ops.maximum(1.0 - ratio * ratio, 0.0))
            # I0(arg) / I0(beta) through the scaled i0e, which does not overflow for large beta.
            return math_ops.exp(
                math_ops.log(special_math_ops.bessel_i0e(arg))
                - math_ops.log(special_math_ops.bessel_i0e(beta_t))
                + arg
                - beta_t
            )

        return _window("kaiser_window", window_length, dtype, fn)


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window (for MDCTs): the square root of the normalized running sum of a Kaiser
    window of window_length // 2 + 1 samples, mirrored."""
    with _scope(name, "kaiser_bessel_derived_window"):
        length = _static_int(window_length)
        half = length // 2 if length is not None else math_ops.floordiv(_scalar_int(window_length, "window_length"), 2)
        kaiser = kaiser_window(half + 1, beta, dtype)
        csum = special_math_ops.cumsum(kaiser)
        halfw = math_ops.sqrt(csum[:-1] / csum[-1])
        return array_ops.concat([halfw, array_nd_ops.reverse(halfw, [0])], 0)


# ---------------------------------------------------------------------------------------------------------------
# Short-time Fourier transforms.


def _enclosing_power_of_two(value):
    v = _static_int(value)
    if v is not None:
        return int(2 ** math.ceil(math.log2(max(v, 1))))
    v = math_ops.cast(value, dtypes.float64)
    return math_ops.cast(2.0 ** math_ops.ceil(math_ops.log(v) / math.log(2.0)), dtypes.int32)


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform of real `signals` [..., samples]: frames of `frame_length` every
    `frame_step` samples, each multiplied by window_fn(frame_length) and transformed by an RFFT of `fft_length`
    (default: the smallest power of 2 >= frame_length). Output: [..., frames, fft_length // 2 + 1], complex."""
    with _scope(name, "stft"):
        signals = ops.convert_to_tensor(signals, name="signals")
        if signals.shape.ndims is not None and signals.shape.ndims < 1:
            raise ValueError(f"stft: signals must have rank at least 1, got {signals.shape.ndims}")
        if not signals.dtype.is_floating:
            raise ValueError(f"stft: signals must be float32 or float64, got {signals.dtype.name}")
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed = framed * window_fn(frame_length, dtype=framed.dtype)
        return spectral_ops.rfft(framed, _length_vector(fft_length))


def _length_vector(length):
    """[length] as an FFT's fft_length: a constant when length is static (the FFT gradients need one)."""
    static = _static_int(length)
    if static is not None:
        return [static]
    return array_ops.reshape(ops.convert_to_tensor(length, dtypes.int32), [1])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function for inverse_stft that undoes `forward_window_fn` at `frame_step`: the forward window
    divided by the sum of the squared, overlapping forward windows."""

    def inverse_window_fn(frame_length, dtype):
        with _scope(name, "inverse_stft_window_fn"):
            forward = forward_window_fn(frame_length, dtype=dtype)
            denom = math_ops.square(forward)
            flen, step = _static_int(frame_length), _static_int(frame_step)
            if flen is not None and step is not None:
                overlaps = -(-flen // step)
                denom = array_ops.pad(denom, [[0, overlaps * step - flen]])
                denom = array_ops.reshape(denom, [overlaps, step])
                multiples = [overlaps, 1]
            else:
                flen = _scalar_int(frame_length, "frame_length")
                step = _scalar_int(frame_step, "frame_step")
                overlaps = -math_ops.floordiv(-flen, step)
                denom = array_ops.pad(denom, array_ops.stack([array_ops.stack([0, overlaps * step - flen])]))
                denom = array_ops.reshape(denom, array_ops.stack([overlaps, step]))
                multiples = array_ops.stack([overlaps, 1])
            denom = math_ops.reduce_sum(denom, 0, keepdims=True)
            denom = array_ops.reshape(array_ops.tile(denom, multiples), [-1])
            return forward / denom[:flen]

    return inverse_window_fn


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """The inverse of stft: an IRFFT of each frame, cut (or zero-padded) to `frame_length`, multiplied by
    window_fn(frame_length) and overlap-added every `frame_step` samples. With
    window_fn=inverse_stft_window_fn(frame_step) it reconstructs stft's input (away from the ends)."""
    with _scope(name, "inverse_stft"):
        stfts = ops.convert_to_tensor(
            stfts, name="stfts", dtype=None if isinstance(stfts, ops.Tensor) else dtypes.complex64
        )
        if not stfts.dtype.is_complex:
            raise ValueError(f"inverse_stft: stfts must be complex64 or complex128, got {stfts.dtype.name}")
        if stfts.shape.ndims is not None and stfts.shape.ndims < 2:
            raise ValueError(f"inverse_stft: stfts must have rank at least 2, got {stfts.shape.ndims}")
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        real_frames = spectral_ops.irfft(stfts, _length_vector(fft_length))
        flen, flen_fft = _static_int(frame_length), _static_int(fft_length)
        real_frames = real_frames[..., : ops.convert_to_tensor(frame_length, dtypes.int32)]
        if flen is not None and flen_fft is not None and flen > flen_fft:
            rank = real_frames.shape.ndims
            real_frames = array_ops.pad(real_frames, [[0, 0]] * (rank - 1) + [[0, flen - flen_fft]])
        elif flen is None or flen_fft is None:
            extra = math_ops.maximum(
                0, _scalar_int(frame_length, "frame_length") - ops.convert_to_tensor(fft_length, dtypes.int32)
            )
            rank = array_ops.rank(real_frames)
            paddings = array_ops.concat(
                [array_ops.zeros([rank - 1, 2], dtypes.int32), array_ops.reshape(array_ops.stack([0, extra]), [1, 2])],
                0,
            )
            real_frames = array_ops.pad(real_frames, paddings)
        if window_fn is not None:
            real_frames = real_frames * window_fn(frame_length, dtype=stfts.dtype.real_dtype)
        return overlap_and_add(real_frames, frame_step)


# ---------------------------------------------------------------------------------------------------------------
# Discrete cosine transforms.


def _check_dct_args(what, type, n, axis, norm):  # noqa: A002
    if type not in (1, 2, 3, 4):
        raise ValueError(f"{what}: only Types I, II, III and IV (I)DCT are supported, got type {type}")
    if axis != -1:
        raise NotImplementedError(f"{what}: axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError(f"{what}: invalid number of data points (n = {n}): it must be at least 1")
    if norm not in (None, "ortho"):
        raise ValueError(f"{what}: unknown normalization. Expected None or 'ortho', got: {norm}")
    if type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")


def _fit_last(t, n):
    """t cut or zero-padded to n samples in its last dim."""
    length = _dim(t, -1)
    if isinstance(length, int) and length >= n:
        return t[..., :n]
    if isinstance(length, int):
        rank = t.shape.ndims
        return array_ops.pad(t, [[0, 0]] * (rank - 1) + [[0, n - length]])
    t = t[..., :n]
    rank = array_ops.rank(t)
    extra = math_ops.maximum(0, n - array_ops.shape(t)[-1])
    paddings = array_ops.concat(
        [array_ops.zeros([rank - 1, 2], dtypes.int32), array_ops.reshape(array_ops.stack([0, extra]), [1, 2])], 0
    )
    return array_ops.pad(t, paddings)


def _phase(count, n_float, sign, dtype):
    """2 exp(sign * i pi k / (2N)) for k = 0..count-1 (complex)."""
    k = math_ops.cast(array_ops.range(count), dtype)
    angle = sign * math.pi * 0.5 * k / n_float
    return spectral_ops.complex(2.0 * special_math_ops.cos(angle), 2.0 * special_math_ops.sin(angle))


def _ortho_weights(n, first, rest):
    """[first, rest, rest, ...] of n values."""
    return array_ops.concat([array_ops.reshape(first, [1]), array_ops.fill(array_ops.reshape(n - 1, [1]), rest)], 0)


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The discrete cosine transform of types I-IV over the last axis, with scipy.fftpack's definitions
    (norm=None unnormalized; "ortho" orthonormal for types II-IV). `n` cuts or zero-pads the input first."""
    _check_dct_args("dct", type, n, axis, norm)
    with _scope(name, "dct"):
        x = ops.convert_to_tensor(input, name="input")
        if x.dtype not in (dtypes.float32, dtypes.float64):
            raise ValueError(f"dct: input must be float32 or float64, got {x.dtype.name}")
        if n is not None:
            x = _fit_last(x, n)
        size = _dim(x, -1)
        size_f = math_ops.cast(size, x.dtype)
        if type == 1:
            ext = array_ops.concat([x, array_nd_ops.reverse(x, [-1])[..., 1:-1]], -1)
            return spectral_ops.real(spectral_ops.rfft(ext))
        if type == 2:
            spectrum = spectral_ops.rfft(x, _length_vector(2 * size))[..., :size]
            out = spectral_ops.real(spectrum * _phase(size, size_f, -1.0, x.dtype))
            if norm == "ortho":
                n1 = 0.5 * math_ops.rsqrt(size_f)
                out = out * _ortho_weights(size, n1, n1 * math.sqrt(2.0))
            return out
        if type == 3:
            if norm == "ortho":
                n1 = math_ops.sqrt(size_f)
                x = x * _ortho_weights(size, n1, n1 * math.sqrt(0.5))
            else:
                x = x * size_f
            spectrum = _phase(size, size_f, 1.0, x.dtype) * spectral_ops.complex(x, array_ops.zeros_like(x))
            return spectral_ops.irfft(spectrum, _length_vector(2 * size))[..., :size]
        # Type IV: the odd-indexed outputs of the DCT-II of x zero-padded to 2N samples.
        out = dct(array_ops.concat([x, array_ops.zeros_like(x)], -1), type=2)[..., 1::2]
        if norm == "ortho":
            out = out * math_ops.sqrt(0.5 / size_f)
        return out


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse DCT: dct of type 1->1, 2->3, 3->2, 4->4 (so idct(dct(x, norm="ortho"), norm="ortho") == x; the
    unnormalized forms scale by 2N, or 2(N - 1) for type I, as scipy's)."""
    _check_dct_args("idct", type, n, axis, norm)
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm, name=name or "idct")


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified DCT of frames of `frame_length` (a multiple of 4) every frame_length // 2 samples: [...,
    frames, frame_length // 2]."""
    with _scope(name, "mdct"):
        signals = ops.convert_to_tensor(signals, name="signals")
        flen = _static_int(frame_length)
        if flen is None:
            raise ValueError("mdct: frame_length must be a Python int")
        if flen % 4 != 0:
            raise ValueError(f"mdct: the frame length must be a multiple of 4, got {flen}")
        if norm not in (None, "ortho"):
            raise ValueError(f"mdct: unknown normalization {norm!r}; expected None or 'ortho'")
        framed = frame(signals, flen, flen // 2, pad_end=pad_end)
        if window_fn is not None:
            framed = framed * window_fn(flen, dtype=framed.dtype)
        else:
            framed = framed * (1.0 / math.sqrt(2.0))
        a, b, c, d = array_ops.split(framed, 4, axis=-1)
        folded = array_ops.concat([-array_nd_ops.reverse(c, [-1]) - d, a - array_nd_ops.reverse(b, [-1])], -1)
        return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The inverse of mdct (time-domain alias cancellation by overlap-add): [..., frames, N] -> [...,
    (frames + 1) * N]."""
    with _scope(name, "inverse_mdct"):
        mdcts = ops.convert_to_tensor(mdcts, name="mdcts")
        half = _dim(mdcts, -1)
        if not isinstance(half, int):
            raise ValueError("inverse_mdct: the last dim of mdcts must be known")
        if norm not in (None, "ortho"):
            raise ValueError(f"inverse_mdct: unknown normalization {norm!r}; expected None or 'ortho'")
        if norm is None:
            out = dct(mdcts, type=4) * (0.5 / half)
        else:
            out = dct(mdcts, type=4, norm="ortho")
        a, b = array_ops.split(out, 2, axis=-1)
        unfolded = array_ops.concat([b, -array_nd_ops.reverse(b, [-1]), -array_nd_ops.reverse(a, [-1]), -a], -1)
        if window_fn is not None:
            unfolded = unfolded * window_fn(2 * half, dtype=unfolded.dtype)
        else:
            unfolded = unfolded * (1.0 / math.sqrt(2.0))
        return overlap_and_add(unfolded, half)


# ---------------------------------------------------------------------------------------------------------------
# Mel filterbanks and MFCCs.


def _hertz_to_mel(hz):
    return 1127.0 * np.log(1.0 + hz / 700.0)


def linear_to_mel_weight_matrix(
    num_mel_bins=20,
    num_spectrogram_bins=129,
    sample_rate=8000,
    lower_edge_hertz=125.0,
    upper_edge_hertz=3800.0,
    dtype=dtypes.float32,
    name=None,
):
    """A [num_spectrogram_bins, num_mel_bins] matrix of triangular mel filters (HTK's mel scale, 1127 ln(1 +
    f / 700)) that maps a linear-frequency magnitude spectrogram to mel bands; row 0 (DC) is all zeros."""
    dtype = _float_dtype(dtype, "linear_to_mel_weight_matrix")
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz} >= upper_edge_hertz {upper_edge_hertz}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(
            f"upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). Got "
            f"{upper_edge_hertz} for sample_rate: {sample_rate}"
        )
    if num_spectrogram_bins <= 1:
        raise ValueError(f"num_spectrogram_bins must be greater than 1. Got: {num_spectrogram_bins}")
    np_dtype = dtype.as_numpy_dtype
    linear = np.linspace(0.0, sample_rate / 2.0, num_spectrogram_bins, dtype=np_dtype)[1:]
    spec_mel = _hertz_to_mel(linear.astype(np_dtype))[:, None]
    edges = np.linspace(
        _hertz_to_mel(np_dtype(lower_edge_hertz)), _hertz_to_mel(np_dtype(upper_edge_hertz)), num_mel_bins + 2
    ).astype(np_dtype)
    lower, center, upper = edges[:-2][None, :], edges[1:-1][None, :], edges[2:][None, :]
    lower_slopes = (spec_mel - lower) / (center - lower)
    upper_slopes = (upper - spec_mel) / (upper - center)
    weights = np.maximum(0.0, np.minimum(lower_slopes, upper_slopes)).astype(np_dtype)
    weights = np.pad(weights, [[1, 0], [0, 0]])
    with _scope(name, "linear_to_mel_weight_matrix"):
        return ops.convert_to_tensor(weights, dtype=dtype)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients: the orthonormal-scaled DCT-II of log-mel spectrograms over their last
    axis (dct(x) / sqrt(2 * num_mel_bins))."""
    with _scope(name, "mfccs_from_log_mel_spectrograms"):
        x = ops.convert_to_tensor(log_mel_spectrograms, name="log_mel_spectrograms", dtype=None)
        if x.shape.ndims is not None and x.shape.ndims < 1:
            raise ValueError("mfccs_from_log_mel_spectrograms: the input must have rank at least 1")
        bins = _dim(x, -1)
        if isinstance(bins, int) and bins < 1:
            raise ValueError(f"mfccs_from_log_mel_spectrograms: num_mel_bins must be positive, got {bins}")
        return dct(x, type=2) * math_ops.rsqrt(math_ops.cast(bins, x.dtype) * 2.0)


# ---------------------------------------------------------------------------------------------------------------
# fftshift and the N-d FFTs.


def _shift(what, x, axes, name, sign):
    with _scope(name, what):
        x = ops.convert_to_tensor(x, name="x")
        rank = x.shape.ndims
        if axes is None:
            if rank is None:
                raise ValueError(f"{what}: x must have a known rank when axes is None")
            axes = list(range(rank))
        elif isinstance(axes, int):
            axes = [axes]
        shifts = []
        for a in axes:
            d = _dim(x, a)
            shifts.append(sign * (d // 2) if isinstance(d, int) else sign * math_ops.floordiv(d, 2))
        if all(isinstance(s, int) for s in shifts):
            return array_nd_ops.roll(x, shifts, list(axes))
        return array_nd_ops.roll(x, array_ops.stack(shifts), list(axes))


def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency term to the centre (numpy.fft.fftshift)."""
    return _shift("fftshift", x, axes, name, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift (numpy.fft.ifftshift)."""
    return _shift("ifftshift", x, axes, name, -1)


def _nd_axes(t, fft_length, axes, what):
    rank = t.shape.ndims
    if rank is None:
        raise ValueError(f"{what}: input_tensor must have a known rank")
    if axes is None:
        count = rank if fft_length is None else len(fft_length)
        axes = list(range(rank - count, rank))
    axes = [a % rank if -rank <= a < rank else _bad_axis(what, a, rank) for a in axes]
    if fft_length is not None and len(fft_length) != len(axes):
        raise ValueError(f"{what}: fft_length has {len(fft_length)} entries but axes has {len(axes)}")
    return axes


def _bad_axis(what, axis, rank):
    raise ValueError(f"{what}: axis {axis} is out of range for a tensor of rank {rank}")


def _along(t, axis, fn):
    """fn applied to t with `axis` moved innermost, then moved back."""
    rank = t.shape.ndims
    if axis == rank - 1:
        return fn(t)
    perm = [i for i in range(rank) if i != axis] + [axis]
    inverse = [0] * rank
    for i, p in enumerate(perm):
        inverse[p] = i
    return array_ops.transpose(fn(array_ops.transpose(t, perm)), inverse)


def _norm_scale(what, norm, sizes, dtype, inverse):
    if norm not in (None, "backward", "ortho", "forward"):
        raise ValueError(f"{what}: unknown norm {norm!r}; expected 'backward', 'ortho' or 'forward'")
    total = 1
    for s in sizes:
        total = total * s
    total = math_ops.cast(total, dtype)
    if norm == "ortho":
        return math_ops.sqrt(total) if inverse else math_ops.rsqrt(total)
    if norm == "forward":
        return total if inverse else 1.0 / total
    return None


def _nd(what, inverse, real_in, real_out):
    def fn(input_tensor, fft_length=None, axes=None, norm=None, name=None):
        with _scope(name, what):
            dtype = None if isinstance(input_tensor, ops.Tensor) else (dtypes.float32 if real_in else dtypes.complex64)
            t = ops.convert_to_tensor(input_tensor, name="input_tensor", dtype=dtype)
            lengths = None if fft_length is None else [int(v) for v in np.asarray(fft_length).reshape(-1)]
            nd_axes = _nd_axes(t, lengths, axes, what)
            if lengths is None:
                lengths = [_dim(t, a) for a in nd_axes]
                if real_out and isinstance(lengths[-1], int):
                    lengths[-1] = 2 * (lengths[-1] - 1)
            if any(not isinstance(v, int) for v in lengths):
                raise ValueError(f"{what}: the transformed dims must be known when fft_length is not given")
            complex_axes = nd_axes[:-1] if (real_in or real_out) else nd_axes
            if real_out:
                for a, n in zip(complex_axes, lengths):
                    t = _along(t, a, lambda u, n=n: spectral_ops.ifft(_fit_last(u, n)))
                t = _along(t, nd_axes[-1], lambda u: spectral_ops.irfft(u, [lengths[-1]]))
            else:
                if real_in:
                    t = _along(t, nd_axes[-1], lambda u: spectral_ops.rfft(u, [lengths[-1]]))
                op = spectral_ops.ifft if inverse else spectral_ops.fft
                for a, n in zip(complex_axes, lengths):
                    t = _along(t, a, lambda u, n=n: op(_fit_last(u, n)))
            scale = _norm_scale(what, norm, lengths, t.dtype.real_dtype if t.dtype.is_complex else t.dtype, inverse)
            if scale is not None:
                t = t * math_ops.cast(scale, t.dtype)
            return t

    fn.__name__ = what
    fn.__doc__ = f"tf.signal.{what}: the {'inverse ' if inverse else ''}DFT over `axes` (default: the last len(fft_length) dims, or all)."
    return fn


fftnd = _nd("fftnd", inverse=False, real_in=False, real_out=False)
ifftnd = _nd("ifftnd", inverse=True, real_in=False, real_out=False)
rfftnd = _nd("rfftnd", inverse=False, real_in=True, real_out=False)
irfftnd = _nd("irfftnd", inverse=True, real_in=False, real_out=True)


def _raw_nd(fn, what):
    """TF1's top-level tf.<what>(input, fft_length, axes): the raw op's form, both arguments required."""

    def raw(input, fft_length, axes, name=None, **dtype_attr):  # noqa: A002
        del dtype_attr  # Tcomplex / Treal: the output dtype follows the input's, as TensorFlow's defaults.
        lengths = [int(v) for v in np.asarray(fft_length).reshape(-1)]
        return fn(input, fft_length=lengths, axes=[int(a) for a in np.asarray(axes).reshape(-1)], name=name or what)

    raw.__name__ = what
    raw.__doc__ = f"TensorFlow's tf.{what}(input, fft_length, axes): tf.signal.{what} with both given."
    return raw


raw_fftnd = _raw_nd(fftnd, "fftnd")
raw_ifftnd = _raw_nd(ifftnd, "ifftnd")
raw_rfftnd = _raw_nd(rfftnd, "rfftnd")
raw_irfftnd = _raw_nd(irfftnd, "irfftnd")
