"""tw.audio (DecodeWav, EncodeWav) and the speech front end (AudioSpectrogram,
Mfcc): against Python's `wave` module, numpy's FFT and TensorFlow; hostile WAV
files are errors that say what is wrong."""

import io
import struct
import wave

import numpy as np
import pytest

import tensorweave.compat.v1 as tw


def _wav_bytes(samples, rate=8000):
    """A 16-bit PCM WAV file written by Python's own `wave` module."""
    buf = io.BytesIO()
    with wave.open(buf, "wb") as w:
        w.setnchannels(samples.shape[1])
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.astype("<i2").tobytes())
    return buf.getvalue()


def _run(fetch, feeds=None):
    with tw.Session() as sess:
        return sess.run(fetch, feeds)


def test_decode_matches_the_wave_module():
    ints = np.array([[0, 100], [-32768, 32767], [1234, -1234]], np.int16)
    with tw.Graph().as_default():
        audio, rate = tw.audio.decode_wav(_wav_bytes(ints, 22050))
        more, _ = tw.audio.decode_wav(_wav_bytes(ints[:, :1]), desired_channels=2, desired_samples=5)
        assert audio.shape.as_list() == [None, None] and more.shape.as_list() == [5, 2]
        got, got_rate, got_more = _run([audio, rate, more])
    np.testing.assert_array_equal(got, ints / 32768.0)
    assert got_rate == 22050
    mono = ints[:, :1] / 32768.0
    np.testing.assert_array_equal(got_more, np.vstack([np.hstack([mono, mono]), np.zeros([2, 2])]))


def test_encode_round_trip_and_bytes():
    audio = np.array([[0.5, -1.5], [0.25, np.nan], [1.0, -1.0]], np.float32)
    with tw.Graph().as_default():
        contents = _run(tw.audio.encode_wav(audio, 44100))
    with wave.open(io.BytesIO(contents)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (2, 2, 44100, 3)
        frames = np.frombuffer(w.readframes(3), "<i2").reshape(3, 2)
    np.testing.assert_array_equal(frames, [[16384, -32768], [8192, 0], [32767, -32768]])


def test_spectrogram_against_numpy():
    rng = np.random.RandomState(1)
    x = rng.randn(1000, 2).astype(np.float32)
    with tw.Graph().as_default():
        spec = _run(tw.raw_ops.AudioSpectrogram(input=x, window_size=300, stride=128, magnitude_squared=True))
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(300) / 300)
    frames = 1 + (1000 - 300) // 128
    assert spec.shape == (2, frames, 257)
    for c in range(2):
        for f in range(frames):
            want = np.abs(np.fft.rfft(x[f * 128 : f * 128 + 300, c] * window, 512)) ** 2
            np.testing.assert_allclose(spec[c, f], want, rtol=1e-4, atol=1e-3)


def test_matches_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    rng = np.random.RandomState(0)
    audio = (rng.rand(3000, 2) * 2.2 - 1.1).astype(np.float32)

    def run(t):
        with t.Graph().as_default(), t.Session() as sess:
            wav = t.audio.encode_wav(audio, 16000)
            dec = t.audio.decode_wav(wav, desired_channels=3, desired_samples=3100)
            mono = t.audio.decode_wav(wav, desired_channels=1)
            spec = t.raw_ops.AudioSpectrogram(input=mono.audio, window_size=480, stride=160, magnitude_squared=True)
            plain = t.raw_ops.AudioSpectrogram(input=dec.audio, window_size=256, stride=100)
            mfcc = t.raw_ops.Mfcc(spectrogram=spec, sample_rate=dec.sample_rate, dct_coefficient_count=13)
            mfcc20 = t.raw_ops.Mfcc(
                spectrogram=spec,
                sample_rate=16000,
                upper_frequency_limit=7600.0,
                lower_frequency_limit=60.0,
                filterbank_channel_count=20,
                dct_coefficient_count=20,
            )
            return sess.run([wav, dec.audio, dec.sample_rate, spec, plain, mfcc, mfcc20])

    want, got = run(tf), run(tw)
    assert got[0] == want[0]  # the same WAV bytes
    for a, b in zip(got[1:], want[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def _header(fmt=1, channels=1, rate=8000, bits=16):
    body = struct.pack("<HHIIHH", fmt, channels, rate, rate * channels * 2, channels * 2, bits)
    return b"RIFF" + struct.pack("<I", 36) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + body


@pytest.mark.parametrize(
    "contents, message",
    [
        (b"", "Data too short when trying to read RIFF"),
        (b"RIFX" + b"\0" * 40, r"Expected RIFF but found RIFX"),
        (b"RIFF\x24\0\0\0WAVE" + b"fmt \xff\xff\xff\x7f", "Data too short"),
        (_header(fmt=3), r"Expected 1 \(PCM\), but got 3"),
        (_header(bits=8), "Can only read 16-bit WAV files, but received 8"),
        (_header(channels=0), "Bad number of channels"),
        (_header(rate=0), "Bad sample rate"),
        (_header()[:30], "Data too short"),
        (_header(), "Data too short when trying to read a chunk id"),
        (b"RIFF\x24\0\0\0WAVEdata\x04\0\0\0abcd", "data chunk before its fmt chunk"),
        (_header() + b"LIST" + struct.pack("<I", 0xFFFFFFF0), "chunk 'LIST' declares"),
    ],
)
def test_hostile_wav_files(contents, message):
    with tw.Graph().as_default():
        audio, _ = tw.audio.decode_wav(tw.placeholder(tw.string, []))
        with pytest.raises(tw.errors.InvalidArgumentError, match=message):
            _run(audio, {"Placeholder:0": contents})


def test_truncated_data_chunk_keeps_what_is_there():
    contents = _header() + b"data" + struct.pack("<I", 1000) + struct.pack("<3h", 1, 2, 3) + b"\x07"
    with tw.Graph().as_default():
        audio = _run(tw.audio.decode_wav(contents).audio)
    np.testing.assert_array_equal(audio.ravel(), np.array([1, 2, 3]) / 32768.0)


def test_argument_errors():
    with tw.Graph().as_default():
        with pytest.raises(tw.errors.InvalidArgumentError, match="rank 2|2-dimensional"):
            _run(tw.audio.encode_wav(tw.placeholder(tw.float32), 8000), {"Placeholder:0": np.zeros(3, np.float32)})
        with pytest.raises(tw.errors.InvalidArgumentError, match="sample_rate must be positive"):
            _run(tw.audio.encode_wav(np.zeros([2, 1], np.float32), -5))
        with pytest.raises(tw.errors.InvalidArgumentError, match="desired_channels"):
            _run(tw.audio.decode_wav(_wav_bytes(np.zeros([2, 1], np.int16)), desired_channels=0).audio)
        spec = np.ones([1, 3, 257], np.float32)
        with pytest.raises(tw.errors.InvalidArgumentError, match="dct_coefficient_count"):
            _run(tw.raw_ops.Mfcc(spectrogram=spec, sample_rate=16000, dct_coefficient_count=41))
        with pytest.raises(tw.errors.InvalidArgumentError, match="Nyquist"):
            _run(tw.raw_ops.Mfcc(spectrogram=spec, sample_rate=4000))
        with pytest.raises(ValueError, match=r"window_size in \[2, 2\^24\]"):  # found when the graph is built
            tw.raw_ops.AudioSpectrogram(input=np.zeros([10, 1], np.float32), window_size=1, stride=1)


def test_op_types_and_no_gradients():
    with tw.Graph().as_default() as g:
        x = tw.placeholder(tw.float32, [400, 1])
        wav = tw.audio.encode_wav(x, 8000)
        audio, rate = tw.audio.decode_wav(wav)
        spec = tw.raw_ops.AudioSpectrogram(input=audio, window_size=256, stride=128, magnitude_squared=True)
        mfcc = tw.raw_ops.Mfcc(spectrogram=spec, sample_rate=rate)
        assert {"EncodeWav", "DecodeWav", "AudioSpectrogram", "Mfcc"} <= {op.type for op in g.get_operations()}
        assert spec.shape.as_list() == [None, None, 129] and mfcc.shape.as_list() == [None, None, 13]
        assert tw.gradients(mfcc, x) == [None]
