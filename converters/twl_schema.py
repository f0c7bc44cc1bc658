"""The `twl.schema` Python package, generated from lite/schema/twl.fbs by
`flatc --python` on first use into a cache directory keyed by the schema's
hash. The generated code is never checked in or edited.

Where the schema is: $TWL_SCHEMA, else the copy setup.py installs beside
this package, else lite/schema/twl.fbs in the source tree. Where the code goes: $TWL_SCHEMA_CACHE, else
~/.cache/tensorweave/twl_py/<sha256 of the schema>/.
"""

import hashlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile

from converters.errors import ConversionError

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_schema = None


def schema_path():
    """$TWL_SCHEMA, else the copy installed beside this package, else the
    source tree's lite/schema/twl.fbs."""
    if os.environ.get("TWL_SCHEMA"):
        return os.environ["TWL_SCHEMA"]
    installed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "twl.fbs")
    if os.path.exists(installed):
        return installed
    return os.path.join(_ROOT, "lite", "schema", "twl.fbs")


def _generate(schema, out_dir):
    flatc = shutil.which("flatc")
    if flatc is None:
        raise ConversionError("flatc is needed to generate the .twl schema code (apt-get install flatbuffers-compiler)")
    parent = os.path.dirname(out_dir)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent)
    try:
        subprocess.run([flatc, "--python", "-o", tmp, schema], check=True, capture_output=True)
        open(os.path.join(tmp, "twl", "__init__.py"), "a").close()
        try:
            os.rename(tmp, out_dir)  # atomic: concurrent generators agree
        except OSError:
            if not os.path.isdir(out_dir):
                raise
    except subprocess.CalledProcessError as e:
        raise ConversionError(f"flatc failed on {schema}: {e.stderr.decode(errors='replace')}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def load():
    """The generated `twl.schema` package (generating it if needed)."""
    global _schema
    if _schema is not None:
        return _schema
    schema = schema_path()
    if not os.path.exists(schema):
        raise ConversionError(f"the .twl schema is missing: {schema} (set TWL_SCHEMA)")
    with open(schema, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    cache = os.environ.get("TWL_SCHEMA_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "tensorweave", "twl_py"
    )
    out_dir = os.path.join(cache, digest)
    if not os.path.isdir(os.path.join(out_dir, "twl", "schema")):
        _generate(schema, out_dir)
    if out_dir not in sys.path:
        sys.path.insert(0, out_dir)
    _schema = importlib.import_module("twl.schema")
    for name in os.listdir(os.path.join(out_dir, "twl", "schema")):
        if name.endswith(".py") and name != "__init__.py":
            importlib.import_module("twl.schema." + name[:-3])
    return _schema


def module(name):
    """One generated module, e.g. module('Conv2DOptions')."""
    load()
    return sys.modules["twl.schema." + name]


def enum(name):
    """A generated enum class, e.g. enum('BuiltinOperator').RELU."""
    return getattr(module(name), name)
