"""Builds the tensorweave pip package: the C++ core with Bazel, the Python
package around it. `pip install .` or, for development, `pip install -e .`;
`TW_CUDA=1 pip install .` also builds the CUDA GPU device
(libtensorweave_gpu.so, with tools/build_gpu.sh; needs nvcc)."""

import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension
from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))

# What a fresh Debian/Ubuntu machine needs; tools/install_deps.sh installs it.
_PREREQUISITES = {
    "bazel": "apt-get install -y bazel-bootstrap",
    "g++": "apt-get install -y g++",
    "protoc": "apt-get install -y protobuf-compiler libprotobuf-dev",
}


def _check_prerequisites():
    missing = [f"  {tool}: {cmd}" for tool, cmd in _PREREQUISITES.items() if shutil.which(tool) is None]
    if missing:
        raise SystemExit(
            "tensorweave builds its C++ core from source and these tools are missing:\n"
            + "\n".join(missing)
            + "\n(or run tools/install_deps.sh, which installs everything)"
        )


def _generate_protos():
    out = os.path.join(ROOT, "python", "tensorweave", "_src", "framework")
    for proto in (
        "graph.proto",
        "meta_graph.proto",
        "example.proto",
        "summary.proto",
        "step_stats.proto",
        "run_metadata.proto",
        "control_flow.proto",
        "cluster.proto",
    ):
        subprocess.check_call(
            ["protoc", f"--python_out={out}", "-Icore/framework", f"core/framework/{proto}"], cwd=ROOT
        )
        _relative_imports(os.path.join(out, proto.replace(".proto", "_pb2.py")))


def _relative_imports(path):
    """protoc writes `import graph_pb2 as graph__pb2` for an imported .proto; the modules live in a package."""
    with open(path) as f:
        text = f.read()
    text = re.sub(r"^import (\w+_pb2) as ", r"from . import \1 as ", text, flags=re.M)
    with open(path, "w") as f:
        f.write(text)


class BazelExtension(Extension):
    def __init__(self, name, target):
        super().__init__(name, sources=[])
        self.target = target


class BuildPy(build_py):
    def run(self):
        _check_prerequisites()
        _generate_protos()
        super().run()
        # The converters generate their .twl schema code from this file.
        schema = os.path.join(ROOT, "lite", "schema", "twl.fbs")
        shutil.copyfile(schema, os.path.join(self.build_lib, "converters", "twl.fbs"))


class BazelBuildExt(build_ext):
    def build_extension(self, ext):
        _check_prerequisites()
        _generate_protos()
        env = dict(os.environ, PYTHON_BIN_PATH=sys.executable)
        subprocess.check_call(["bazel", "build", ext.target], cwd=ROOT, env=env)
        package, _, name = ext.target.lstrip("/").partition(":")
        built = os.path.join(ROOT, "bazel-bin", package, name)
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if os.path.exists(dest):
            os.remove(dest)  # the copy in bazel-bin is read-only
        shutil.copyfile(built, dest)
        os.chmod(dest, 0o755)
        if os.environ.get("TW_CUDA") == "1":
            _build_gpu_library(os.path.join(os.path.dirname(dest), "libtensorweave_gpu.so"), env)


def _build_gpu_library(dest, env):
    """TW_CUDA=1: the CUDA GPU device, libtensorweave_gpu.so, next to the extension (tensorweave loads it at
    import when it is there; tools/build_gpu.sh needs nvcc, and cuBLAS/cuDNN are found at run time)."""
    if shutil.which(env.get("NVCC", "nvcc")) is None:
        raise SystemExit("TW_CUDA=1: nvcc is not on PATH (the CUDA toolkit is needed to build the GPU library)")
    env = dict(env, TW_BAZEL_BIN=env.get("TW_BAZEL_BIN", os.path.join(ROOT, "bazel-bin")))
    subprocess.check_call([os.path.join(ROOT, "tools", "build_gpu.sh"), dest], cwd=ROOT, env=env)


def _packages():
    """tensorweave (under python/), its distributed runtime (top-level distributed/, imported as
    tensorweave.distributed) and the converters (top level)."""
    from setuptools import find_packages

    return (
        find_packages("python", include=["tensorweave", "tensorweave.*"])
        + ["tensorweave.distributed"]
        + ["tensorweave.distributed." + p for p in find_packages("distributed")]
        + find_packages(".", include=["converters", "converters.*"])
    )


setup(
    package_dir={"": "python", "converters": "converters", "tensorweave.distributed": "distributed"},
    packages=_packages(),
    ext_modules=[BazelExtension("tensorweave._pywrap_tensorweave", "//python:_pywrap_tensorweave.so")],
    cmdclass={"build_py": BuildPy, "build_ext": BazelBuildExt},
)
