"""Loads the core extension with OpenBLAS's kernels for this CPU.

The core links the system OpenBLAS (a DYNAMIC_ARCH build), which picks its kernels once, when the library is
loaded, from the CPU's model number. A release older than the CPU does not know the model and falls back to
its slowest kernels ("Prescott", SSE3): OpenBLAS 0.3.21 on a Sapphire Rapids Xeon multiplies a [32, 384] by a
[384, 1024] matrix in ~2 ms instead of ~0.4 ms. OpenBLAS reads the environment variable OPENBLAS_CORETYPE at
that moment, so `load_extension` names the kernels the CPU's instruction set runs (AVX-512 -> SkylakeX,
AVX2 + FMA -> Haswell) while the extension (and the OpenBLAS it links) loads, and restores the environment
afterwards (numpy's own OpenBLAS, loaded later, makes its own choice). A user's OPENBLAS_CORETYPE is kept.

Importing this module loads the extension (tensorweave/__init__.py imports it before anything else).
"""

import os
import sys

_AVX512 = ("avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl")


def cpu_flags(cpuinfo="/proc/cpuinfo"):
    """The instruction-set flags of the first processor in cpuinfo (an empty set where it cannot be read)."""
    try:
        with open(cpuinfo) as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def openblas_core(flags):
    """The OpenBLAS kernel family (an OPENBLAS_CORETYPE value) for a CPU with these flags, or None to leave the
    choice to OpenBLAS."""
    if all(f in flags for f in _AVX512):
        return "SkylakeX"
    if "avx2" in flags and "fma" in flags:
        return "Haswell"
    return None


def load_extension():
    """Imports tensorweave's core extension (once) with OPENBLAS_CORETYPE set for this CPU while it loads."""
    core = None if "OPENBLAS_CORETYPE" in os.environ else openblas_core(cpu_flags())
    if core is not None:
        os.environ["OPENBLAS_CORETYPE"] = core
    flags = sys.getdlopenflags()
    if _tensorflow_loaded():
        # TensorFlow's libraries, loaded first, export their own copy of protobuf; the extension's calls into
        # protobuf (and libprotobuf's into itself) would bind to it and crash on the first op made. With
        # RTLD_DEEPBIND the extension and the libraries it loads look up their own symbols first.
        sys.setdlopenflags(flags | os.RTLD_DEEPBIND)
    try:
        from tensorweave import _pywrap_tensorweave  # noqa: F401
    finally:
        sys.setdlopenflags(flags)
        if core is not None:
            os.environ.pop("OPENBLAS_CORETYPE", None)


def _tensorflow_loaded():
    return any(name == "tensorflow" or name.startswith("tensorflow.") for name in sys.modules)


load_extension()
