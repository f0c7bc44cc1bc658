"""Linear algebra and signal processing as numerical TF1 code used them: cholesky, cholesky_solve,
matrix_solve, matrix_triangular_solve, matrix_inverse, determinant/log-determinant, qr, svd (values),
self_adjoint_eig, lstsq, band_part, diag/diag_part/set_diag, trace, tensordot, norm with ord, l2_normalize,
and tf.spectral / tf.signal: fft/ifft/rfft/irfft, stft/inverse_stft, frame, hann_window, plus gradients
through cholesky and matrix_inverse."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(42)
    a = rng.randn(4, 4)
    spd = (a @ a.T + 4 * np.eye(4)).astype(np.float64)
    m = tf.constant(spd)
    b = tf.constant(rng.randn(4, 2))
    out = {}
    chol = tf.cholesky(m)
    out["chol"] = chol
    out["chol_solve"] = tf.cholesky_solve(chol, b)
    out["solve"] = tf.matrix_solve(m, b)
    out["tri_solve"] = tf.matrix_triangular_solve(chol, b, lower=True)
    out["inverse"] = tf.matrix_inverse(m)
    out["det"] = tf.matrix_determinant(m)
    out["logdet"] = tf.linalg.logdet(m)
    sign_logdet = tf.linalg.slogdet(m)
    out["slogdet"] = [sign_logdet[0], sign_logdet[1]]
    q, r = tf.qr(m)
    out["qr_recon"] = tf.matmul(q, r)
    out["svd_s"] = tf.svd(m, compute_uv=False)
    e, v = tf.self_adjoint_eig(m)
    out["eigvals"] = e
    out["eig_recon"] = tf.matmul(v * e, v, transpose_b=True)
    out["lstsq"] = tf.matrix_solve_ls(tf.constant(rng.randn(6, 3)), tf.constant(rng.randn(6, 1)), l2_regularizer=0.1)
    out["band"] = tf.matrix_band_part(m, 1, 0)
    out["diag"] = tf.matrix_diag_part(m)
    out["set_diag"] = tf.matrix_set_diag(m, tf.ones([4], tf.float64))
    out["trace"] = tf.trace(m)
    out["tensordot"] = tf.tensordot(m, tf.reshape(tf.range(8, dtype=tf.float64), [4, 2]), axes=[[1], [0]])
    out["norm_fro"] = tf.norm(m)
    out["norm_1"] = tf.norm(b, ord=1, axis=0)
    out["norm_inf"] = tf.norm(m, ord=np.inf, axis=[0, 1])
    out["l2n"] = tf.nn.l2_normalize(b, axis=0)
    signal = tf.constant(np.sin(np.arange(64) * 0.3).astype(np.float32) + rng.randn(64).astype(np.float32) * 0.1)
    out["rfft"] = tf.abs(tf.spectral.rfft(signal))
    out["fft_roundtrip"] = tf.real(tf.ifft(tf.fft(tf.complex(signal, tf.zeros_like(signal)))))
    out["irfft"] = tf.spectral.irfft(tf.spectral.rfft(signal))
    stft = tf.signal.stft(signal[None], frame_length=16, frame_step=8, fft_length=16)
    out["stft_mag"] = tf.abs(stft)
    out["istft"] = tf.signal.inverse_stft(stft, 16, 8, 16, window_fn=tf.signal.inverse_stft_window_fn(8))
    out["frame"] = tf.signal.frame(tf.range(10), 4, 3, pad_end=True, pad_value=-1)
    out["hann"] = tf.signal.hann_window(8)
    loss = tf.reduce_sum(tf.cholesky(m)) + tf.reduce_sum(tf.matrix_inverse(m))
    out["grad"] = tf.gradients(loss, m)[0]
    with tf.Session() as sess:
        got = sess.run(out)
    got["stft_shape"] = stft.shape.as_list()
    got["dtypes"] = {k: v.dtype.name for k, v in out.items() if hasattr(v, "dtype")}
    return got
