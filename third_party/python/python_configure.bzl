"""Repository rule exposing the Python and pybind11 headers of one interpreter.

The interpreter is $PYTHON_BIN_PATH when set (setup.py sets it to the
interpreter running the build), else the first python3 on PATH.
"""

_QUERY = """
import sysconfig, pybind11
print(sysconfig.get_paths()["include"])
print(pybind11.get_include())
"""

def _python_configure_impl(ctx):
    python = ctx.os.environ.get("PYTHON_BIN_PATH") or ctx.which("python3")
    if not python:
        fail("python3 not found: install it, or set PYTHON_BIN_PATH")
    result = ctx.execute([python, "-c", _QUERY])
    if result.return_code != 0:
        fail("asking %s for its headers failed (is pybind11 installed? " % python +
             "`python3 -m pip install pybind11`):\n" + result.stderr)
    python_include, pybind11_include = result.stdout.strip().split("\n")
    ctx.symlink(python_include, "python_include")
    ctx.symlink(pybind11_include, "pybind11_include")
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["python_include/**/*.h"]),
    includes = ["python_include"],
)

cc_library(
    name = "pybind11",
    hdrs = glob(["pybind11_include/**/*.h"]),
    includes = ["pybind11_include"],
    deps = [":python_headers"],
)
""")

python_configure = repository_rule(
    implementation = _python_configure_impl,
    environ = ["PYTHON_BIN_PATH", "PATH"],
    local = True,
)
