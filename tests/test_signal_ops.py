"""tw.signal beyond the FFT ops (frame, overlap_and_add, windows, stft/inverse_stft, dct/idct, mdct, mel
matrices, MFCCs, fftshift, N-d FFTs), checked against TensorFlow's tf.signal (graph mode) and numpy/scipy."""

import numpy as np
import pytest

import tensorweave as tw

tf1 = pytest.importorskip("tensorflow.compat.v1")


def _tw(fn, *args):
    with tw.Graph().as_default(), tw.Session() as sess:
        return sess.run(fn(*[tw.constant(a) if isinstance(a, np.ndarray) else a for a in args]))


def _tf(fn, *args):
    with tf1.Graph().as_default(), tf1.Session() as sess:
        return sess.run(fn(*[tf1.constant(a) if isinstance(a, np.ndarray) else a for a in args]))


def _both(name, *args, rtol=1e-5, atol=1e-5, **kwargs):
    ours = _tw(lambda *a: getattr(tw.signal, name)(*a, **kwargs), *args)
    theirs = _tf(lambda *a: getattr(tf1.signal, name)(*a, **kwargs), *args)
    assert ours.shape == theirs.shape, name
    np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=name)
    return ours


RNG = np.random.default_rng(0)
SIGNAL = RNG.standard_normal((2, 3, 37)).astype(np.float32)


@pytest.mark.parametrize("frame_length,frame_step,pad_end", [(8, 4, False), (8, 4, True), (5, 3, True), (40, 4, False)])
def test_frame_matches_tensorflow(frame_length, frame_step, pad_end):
    _both("frame", SIGNAL, frame_length, frame_step, pad_end=pad_end, pad_value=0.5)


def test_frame_inner_axis_and_dynamic_length():
    _both("frame", SIGNAL, 4, 2, axis=1, pad_end=True)
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float32, [None])
        framed = tw.signal.frame(x, 4, 3, pad_end=True)
        got = sess.run(framed, {x: np.arange(10, dtype=np.float32)})
    np.testing.assert_array_equal(got, [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9], [9, 0, 0, 0]])


def test_overlap_and_add_matches_tensorflow():
    frames = RNG.standard_normal((2, 5, 8)).astype(np.float32)
    for step in (2, 3, 8, 10):
        _both("overlap_and_add", frames, step)


@pytest.mark.parametrize("length", [1, 4, 5, 16])
@pytest.mark.parametrize("periodic", [True, False])
def test_raised_cosine_windows_match_tensorflow(length, periodic):
    _both("hann_window", length, periodic=periodic, atol=1e-6)
    _both("hamming_window", length, periodic=periodic, atol=1e-6)


@pytest.mark.parametrize("length", [1, 6, 7])
def test_other_windows_match_tensorflow(length):
    _both("vorbis_window", length, atol=1e-6)
    _both("kaiser_window", length, beta=5.0, atol=1e-6)
    _both("kaiser_bessel_derived_window", 2 * length, beta=4.0, atol=1e-6)


def test_window_rejects_integer_dtype():
    with tw.Graph().as_default(), pytest.raises(ValueError, match="floating point"):
        tw.signal.hann_window(4, dtype=tw.int32)


@pytest.mark.parametrize("pad_end", [False, True])
def test_stft_and_inverse_stft_match_tensorflow(pad_end):
    signal = RNG.standard_normal((2, 100)).astype(np.float32)
    spec = _both("stft", signal, 16, 4, pad_end=pad_end, rtol=1e-4, atol=1e-4)
    assert spec.dtype == np.complex64 and spec.shape[-1] == 9
    _both("stft", signal, 12, 5, 32, rtol=1e-4, atol=1e-4)
    _both("inverse_stft", spec, 16, 4, rtol=1e-4, atol=1e-4)


def test_inverse_stft_with_its_window_reconstructs_the_signal():
    signal = RNG.standard_normal(256).astype(np.float32)
    with tw.Graph().as_default(), tw.Session() as sess:
        spec = tw.signal.stft(signal, 64, 16)
        back = tw.signal.inverse_stft(spec, 64, 16, window_fn=tw.signal.inverse_stft_window_fn(16))
        got = sess.run(back)
    # Away from the ends (where fewer windows overlap) the signal comes back.
    np.testing.assert_allclose(got[64:-64], signal[64 : len(got) - 64], atol=1e-4)
    ours = _tw(lambda: tw.signal.inverse_stft_window_fn(16)(64, tw.float32))
    theirs = _tf(lambda: tf1.signal.inverse_stft_window_fn(16)(64, tf1.float32))
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_stft_gradient_matches_finite_differences():
    x0 = RNG.standard_normal(40)
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.placeholder(tw.float64, [40])
        loss = tw.reduce_sum(tw.abs(tw.signal.stft(x, 8, 4)) ** 2)
        (grad,) = tw.gradients(loss, [x])
        analytic = sess.run(tw.convert_to_tensor(grad), {x: x0})  # IndexedSlices from the frames gather
        eye = np.eye(40) * 1e-6
        numeric = [(sess.run(loss, {x: x0 + e}) - sess.run(loss, {x: x0 - e})) / 2e-6 for e in eye]
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dct_type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_and_idct_match_tensorflow(dct_type, norm):
    if dct_type == 1 and norm == "ortho":
        with tw.Graph().as_default(), pytest.raises(ValueError, match="Type-I"):
            tw.signal.dct(SIGNAL, type=1, norm="ortho")
        return
    x = RNG.standard_normal((3, 12)).astype(np.float32)
    _both("dct", x, type=dct_type, norm=norm, rtol=1e-4, atol=1e-4)
    _both("idct", x, type=dct_type, norm=norm, rtol=1e-4, atol=1e-4)
    _both("dct", x, type=dct_type, norm=norm, n=7, rtol=1e-4, atol=1e-4)
    _both("dct", x, type=dct_type, norm=norm, n=20, rtol=1e-4, atol=1e-4)
    if norm == "ortho":
        back = _tw(lambda: tw.signal.idct(tw.signal.dct(x, type=dct_type, norm="ortho"), type=dct_type, norm="ortho"))
        np.testing.assert_allclose(back, x, atol=1e-5)


def test_dct_matches_scipy_in_float64():
    fftpack = pytest.importorskip("scipy.fftpack")
    x = RNG.standard_normal((2, 9))
    for t in (1, 2, 3, 4):
        np.testing.assert_allclose(
            _tw(lambda: tw.signal.dct(x, type=t)), fftpack.dct(x, type=t), rtol=1e-10, atol=1e-10
        )


def test_dct_argument_errors():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="type"):
            tw.signal.dct(SIGNAL, type=5)
        with pytest.raises(NotImplementedError, match="axis must be -1"):
            tw.signal.dct(SIGNAL, axis=0)
        with pytest.raises(ValueError, match="normalization"):
            tw.signal.dct(SIGNAL, norm="forward")
        with pytest.raises(ValueError, match="n = 0"):
            tw.signal.dct(SIGNAL, n=0)


def test_mdct_and_inverse_mdct_match_tensorflow():
    signal = RNG.standard_normal((2, 64)).astype(np.float32)
    for norm in (None, "ortho"):
        spec = _both("mdct", signal, 16, norm=norm, rtol=1e-4, atol=1e-4)
        _both("inverse_mdct", spec, norm=norm, rtol=1e-4, atol=1e-4)
    _both("mdct", signal, 8, window_fn=None, pad_end=True, rtol=1e-4, atol=1e-4)
    with tw.Graph().as_default(), pytest.raises(ValueError, match="multiple of 4"):
        tw.signal.mdct(signal, 10)


def test_mel_weight_matrix_and_mfccs_match_tensorflow():
    _both("linear_to_mel_weight_matrix", 40, 257, 16000, 20.0, 7600.0, rtol=1e-4, atol=1e-5)
    _both("linear_to_mel_weight_matrix", rtol=1e-4, atol=1e-5)
    log_mel = RNG.standard_normal((4, 5, 40)).astype(np.float32)
    _both("mfccs_from_log_mel_spectrograms", log_mel, rtol=1e-4, atol=1e-5)
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="Nyquist"):
            tw.signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
        with pytest.raises(ValueError, match="num_mel_bins"):
            tw.signal.linear_to_mel_weight_matrix(num_mel_bins=0)


def test_fftshift_matches_numpy():
    x = np.arange(30).reshape(5, 6)
    np.testing.assert_array_equal(_tw(lambda: tw.signal.fftshift(x)), np.fft.fftshift(x))
    np.testing.assert_array_equal(_tw(lambda: tw.signal.ifftshift(x, axes=1)), np.fft.ifftshift(x, axes=1))
    np.testing.assert_array_equal(_tw(lambda: tw.signal.ifftshift(tw.signal.fftshift(x))), x)


def test_nd_ffts_match_numpy():
    x = (RNG.standard_normal((3, 4, 6)) + 1j * RNG.standard_normal((3, 4, 6))).astype(np.complex64)
    r = RNG.standard_normal((3, 4, 6)).astype(np.float32)
    np.testing.assert_allclose(_tw(lambda: tw.signal.fftnd(x)), np.fft.fftn(x), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(
        _tw(lambda: tw.signal.ifftnd(x, axes=[0, 2], norm="ortho")),
        np.fft.ifftn(x, axes=[0, 2], norm="ortho"),
        rtol=1e-4,
        atol=1e-5,
    )
    np.testing.assert_allclose(
        _tw(lambda: tw.signal.fftnd(x, fft_length=[5, 4], axes=[0, 2])),
        np.fft.fftn(x, s=[5, 4], axes=[0, 2]),
        atol=1e-4,
    )
    np.testing.assert_allclose(_tw(lambda: tw.signal.rfftnd(r)), np.fft.rfftn(r), rtol=1e-4, atol=1e-4)
    spec = np.fft.rfftn(r).astype(np.complex64)
    np.testing.assert_allclose(_tw(lambda: tw.signal.irfftnd(spec, fft_length=[3, 4, 6])), r, atol=1e-5)
    # TF1's top-level forms take fft_length and axes as required arguments.
    np.testing.assert_allclose(_tw(lambda: tw.fftnd(x, [4, 6], [1, 2])), np.fft.fftn(x, axes=[1, 2]), atol=1e-4)
    np.testing.assert_allclose(_tw(lambda: tw.irfftnd(spec, [3, 4, 6], [0, 1, 2])), r, atol=1e-5)
    with tw.Graph().as_default(), pytest.raises(ValueError, match="norm"):
        tw.signal.fftnd(x, norm="bogus")


def test_to_complex():
    got = _tw(lambda: tw.to_complex64([1.0, 2.0]))
    assert got.dtype == np.complex64
    np.testing.assert_array_equal(got, [1 + 0j, 2 + 0j])
    assert _tw(lambda: tw.to_complex128(tw.constant([3], tw.int32))).dtype == np.complex128
