"""tw.sysconfig (TF's tf.sysconfig), about tensorweave's own C++ library: where its headers and the core
extension are, and the flags to compile and link against them.

Example:
  >>> import tensorweave as tw
  >>> tw.sysconfig.get_compile_flags()[1:]
  ['-D_GLIBCXX_USE_CXX11_ABI=1', '--std=c++17']
"""

import glob as _glob
import os as _os

from tensorweave._src.platform.versions import CXX11_ABI_FLAG, MONOLITHIC_BUILD

CXX_VERSION = 201703  # the C++ standard the core is built with (C++17)
_PACKAGE = _os.path.dirname(_os.path.abspath(__file__))


def get_include():
    """The directory holding tensorweave's C++ headers (`core/...`): the package's `include` folder when
    installed with headers, else the source tree the package runs from."""
    installed = _os.path.join(_PACKAGE, "include")
    if _os.path.isdir(installed):
        return installed
    return _os.path.dirname(_os.path.dirname(_PACKAGE))


def get_lib():
    """The directory holding the core library (the package directory)."""
    return _PACKAGE


def _core_library():
    found = sorted(_glob.glob(_os.path.join(_PACKAGE, "_pywrap_tensorweave*.so")))
    return _os.path.basename(found[0]) if found else "_pywrap_tensorweave.so"


def get_compile_flags():
    return [f"-I{get_include()}", f"-D_GLIBCXX_USE_CXX11_ABI={CXX11_ABI_FLAG}", "--std=c++17"]


def get_link_flags():
    return [f"-L{get_lib()}", f"-l:{_core_library()}"]


def get_build_info():
    """The build's properties (TF's keys): whether the loaded core has CUDA."""
    from tensorweave._src.platform import gpu_loader

    return {"is_cuda_build": gpu_loader.is_loaded(), "is_rocm_build": False, "is_tensorrt_build": False}


__all__ = [
    "CXX11_ABI_FLAG",
    "CXX_VERSION",
    "MONOLITHIC_BUILD",
    "get_build_info",
    "get_compile_flags",
    "get_include",
    "get_lib",
    "get_link_flags",
]
