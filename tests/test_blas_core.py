"""The core extension loads OpenBLAS with the kernels of this CPU (not the SSE3 fallback an OpenBLAS older than
the CPU picks), and leaves the environment as it found it."""

import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest
import tensorweave as tw
from tensorweave._src.platform import blas_core


def test_core_for_flags():
    avx512 = {"sse2", "avx", "avx2", "fma", "avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"}
    assert blas_core.openblas_core(avx512) == "SkylakeX"
    assert blas_core.openblas_core({"sse2", "avx", "avx2", "fma", "avx512f"}) == "Haswell"
    assert blas_core.openblas_core({"sse2", "avx", "avx2"}) is None
    assert blas_core.openblas_core(set()) is None


def test_cpu_flags_of_a_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: X\nflags\t\t: fpu sse2 avx2 fma\n\nprocessor\t: 1\nflags\t: fpu\n")
    assert blas_core.cpu_flags(str(info)) == {"fpu", "sse2", "avx2", "fma"}
    assert blas_core.cpu_flags(str(tmp_path / "missing")) == set()


def _openblas_corename():
    try:
        lib = ctypes.CDLL("libopenblas.so.0")  # the one the extension loaded: dlopen hands back the same library
        lib.openblas_get_corename.restype = ctypes.c_char_p
    except (OSError, AttributeError):
        pytest.skip("no system OpenBLAS with openblas_get_corename")
    return lib.openblas_get_corename().decode()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/cpuinfo")
def test_extension_loaded_openblas_with_the_cpus_kernels():
    expected = blas_core.openblas_core(blas_core.cpu_flags())
    if expected is None or "OPENBLAS_CORETYPE" in os.environ:
        pytest.skip("no AVX2/AVX-512 kernel family to ask for, or the user chose one")
    assert _openblas_corename() == expected
    assert "OPENBLAS_CORETYPE" not in os.environ


def test_a_users_coretype_is_kept():
    code = (
        "import ctypes, os, tensorweave; lib = ctypes.CDLL('libopenblas.so.0'); "
        "lib.openblas_get_corename.restype = ctypes.c_char_p; "
        "print(lib.openblas_get_corename().decode(), os.environ['OPENBLAS_CORETYPE'])"
    )
    env = dict(os.environ, OPENBLAS_CORETYPE="Haswell")
    out = subprocess.run(
        [sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["Haswell", "Haswell"]


def test_matmul_agrees_with_numpy_at_lstm_sizes():
    rng = np.random.RandomState(0)
    cases = [((32, 384), (384, 1024), False, False), ((32, 1024), (384, 1024), False, True)]
    cases.append(((32, 384), (32, 1024), True, False))
    with tw.Graph().as_default(), tw.Session() as sess:
        for sa, sb, ta, tb in cases:
            a = rng.standard_normal(sa).astype(np.float32)
            b = rng.standard_normal(sb).astype(np.float32)
            got = sess.run(tw.matmul(a, b, transpose_a=ta, transpose_b=tb))
            want = (a.T if ta else a).astype(np.float64) @ (b.T if tb else b).astype(np.float64)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
