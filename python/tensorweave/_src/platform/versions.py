"""tf.version's names for tensorweave (its own version, not TensorFlow's)."""

import os as _os
import platform as _platform
import subprocess as _subprocess

from tensorweave._src.framework.misc_api import (
    GRAPH_DEF_VERSION,
    GRAPH_DEF_VERSION_MIN_CONSUMER,
    GRAPH_DEF_VERSION_MIN_PRODUCER,
    VERSION,
)


def _git_version():
    here = _os.path.dirname(_os.path.abspath(__file__))
    try:
        out = _subprocess.run(
            ["git", "-C", here, "describe", "--always", "--long", "--dirty"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, _subprocess.SubprocessError):
        return "unknown"
    return f"v{VERSION}-{out.stdout.strip()}" if out.returncode == 0 and out.stdout.strip() else "unknown"


GIT_VERSION = _git_version()
COMPILER_VERSION = _platform.python_compiler()  # the extension is built with the same toolchain family
CXX11_ABI_FLAG = 1
MONOLITHIC_BUILD = 1

__all__ = [
    "COMPILER_VERSION",
    "CXX11_ABI_FLAG",
    "GIT_VERSION",
    "GRAPH_DEF_VERSION",
    "GRAPH_DEF_VERSION_MIN_CONSUMER",
    "GRAPH_DEF_VERSION_MIN_PRODUCER",
    "MONOLITHIC_BUILD",
    "VERSION",
]
