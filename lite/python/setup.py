"""Builds tensorweave_lite._interpreter with setuptools alone (no Bazel).

Needs g++, flatc (Debian `flatbuffers-compiler`) and the flatbuffers headers
(`libflatbuffers-dev`). The build:
  1. runs `flatc --cpp --scoped-enums` on lite/schema/twl.fbs into the build
     directory, exactly as the Bazel genrule //lite/schema:twl_cpp_gen does;
  2. compiles lite/runtime/*.cc and lite/runtime/kernels/*.cc (not tests or
     testing/) plus src/interpreter_binding.cc with -O2 -fno-exceptions
     -fno-rtti into one extension module.

Environment:
  TWL_NATIVE=1          add -march=native (the wheel then only runs on CPUs
                        like the build machine's)
  TWL_BUILD_JOBS=N      parallel compile jobs (default: min(2, cpus))
  TWL_SOURCE_ROOT=DIR   the monorepo root (default: two levels above here)
"""

import concurrent.futures
import glob
import hashlib
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.environ.get("TWL_SOURCE_ROOT", os.path.join(HERE, os.pardir, os.pardir)))
SCHEMA = os.path.join(ROOT, "lite", "schema", "twl.fbs")


def runtime_sources():
    """The runtime and kernel sources, as //lite/runtime lists them."""
    sources = []
    for pattern in ("lite/runtime/*.cc", "lite/runtime/kernels/*.cc"):
        sources += [path for path in sorted(glob.glob(os.path.join(ROOT, pattern))) if not path.endswith("_test.cc")]
    return sources


def compile_args():
    args = [
        # The Bazel build's (lite/build_defs.bzl): -O2 with the dynamic
        # vectorizer cost model. -O3 made the conv kernels ~8% slower here.
        # Python's own CFLAGS come first and hold -fwrapv (no int-index
        # widening in loops): undo it.
        "-std=c++17",
        "-O2",
        "-fvect-cost-model=dynamic",
        "-g0",
        "-DNDEBUG",
        "-fno-wrapv",
        "-fno-exceptions",
        "-fno-rtti",
        "-fvisibility=hidden",
        "-fvisibility-inlines-hidden",
        "-ffunction-sections",
        "-fdata-sections",
        "-Wno-unused-parameter",
        "-Wno-sign-compare",
        "-Wno-missing-field-initializers",
        # The kernels pass wide vectors only between always-inlined
        # functions; the ABI notes about them do not apply.
        "-Wno-psabi",
    ]
    if os.environ.get("TWL_NATIVE") == "1":
        args.append("-march=native")
    return args


class BuildExt(build_ext):
    """Generates the schema header, uses the C++ driver, compiles in parallel
    and skips objects that are newer than their source and every header."""

    def finalize_options(self):
        super().finalize_options()
        # Objects are reused across builds: keep builds with other flags
        # (native/portable, or a changed compile_args) apart, or a rebuild
        # would link objects compiled with the old ones.
        flavor = "native" if os.environ.get("TWL_NATIVE") == "1" else "portable"
        flags = hashlib.sha1(" ".join(compile_args()).encode()).hexdigest()[:8]
        self.build_temp = os.path.join(self.build_temp, f"{flavor}-{flags}")
        # The linked module's place (build_lib) is shared by the flavors:
        # always relink, or a portable build right after a native one would
        # ship the native module (the objects above are still reused).
        self.force = True

    def build_extensions(self):
        if not os.path.exists(SCHEMA):
            sys.exit(f"tensorweave-lite: {SCHEMA} not found; build from a tensorweave checkout or set TWL_SOURCE_ROOT")
        flatc = shutil.which("flatc")
        if flatc is None:
            sys.exit("tensorweave-lite: flatc not found (apt-get install flatbuffers-compiler libflatbuffers-dev)")
        gen_root = os.path.join(os.path.abspath(self.build_temp), "gen")
        gen_dir = os.path.join(gen_root, "lite", "schema")
        os.makedirs(gen_dir, exist_ok=True)
        header = os.path.join(gen_dir, "twl_generated.h")
        if not os.path.exists(header) or os.path.getmtime(header) < os.path.getmtime(SCHEMA):
            subprocess.check_call([flatc, "--cpp", "--scoped-enums", "-o", gen_dir, SCHEMA])
        headers = [header] + glob.glob(os.path.join(ROOT, "lite", "**", "*.h"), recursive=True)
        self._newest_header = max(os.path.getmtime(h) for h in headers)
        for ext in self.extensions:
            # Added here rather than in setup(): they lie outside this
            # directory, which egg_info/sdist manifests must not list.
            ext.sources = ext.sources + runtime_sources()
            ext.include_dirs = [gen_root, ROOT] + ext.include_dirs
            ext.depends = headers
        if self.compiler.compiler_type == "unix":
            cxx = os.environ.get("CXX", "g++")
            for name in ("compiler_so", "linker_so"):
                command = getattr(self.compiler, name)
                self.compiler.set_executable(name, [cxx] + command[1:])
            self._parallel_compile()
        super().build_extensions()

    def _parallel_compile(self):
        compiler = self.compiler
        serial_compile = compiler.compile
        jobs = int(os.environ.get("TWL_BUILD_JOBS", min(2, os.cpu_count() or 1)))
        newest_header = self._newest_header

        def compile_all(sources, output_dir=None, **kwargs):
            objects = compiler.object_filenames(sources, output_dir=output_dir)

            def one(pair):
                source, obj = pair
                if os.path.exists(obj) and os.path.getmtime(obj) > max(os.path.getmtime(source), newest_header):
                    return obj
                return serial_compile([source], output_dir=output_dir, **kwargs)[0]

            with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
                return list(pool.map(one, zip(sources, objects)))

        compiler.compile = compile_all


os.chdir(HERE)  # sources are relative to this directory
setup(
    ext_modules=[
        Extension(
            "tensorweave_lite._interpreter",
            sources=["src/interpreter_binding.cc"],
            extra_compile_args=compile_args(),
            extra_link_args=["-Wl,--gc-sections", "-Wl,-s", "-pthread"],
            language="c++",
        )
    ],
    cmdclass={"build_ext": BuildExt},
)
