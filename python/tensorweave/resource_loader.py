"""tw.resource_loader (TF1's tf.resource_loader): paths of data files next to the calling module.

Example:
  >>> import os, tensorweave as tw
  >>> os.path.isabs(tw.resource_loader.get_data_files_path())
  True
"""

import inspect as _inspect
import os as _os
import sys as _sys


def _caller_dir():
    frame = _inspect.currentframe().f_back.f_back
    return _os.path.dirname(_os.path.abspath(frame.f_globals.get("__file__", _sys.argv[0] or ".")))


def get_data_files_path():
    """The directory of the calling module's file."""
    return _caller_dir()


def get_root_dir_with_all_resources():
    """The root of the resources: the directory of the main script (TF's answer outside a Bazel runfiles tree)."""
    main = getattr(_sys.modules.get("__main__"), "__file__", None)
    return _os.path.dirname(_os.path.abspath(main)) if main else _os.getcwd()


def get_path_to_datafile(path):
    """`path` relative to the calling module's directory (an absolute path is returned as is)."""
    return _os.path.join(_caller_dir(), path)


def load_resource(path):
    """The bytes of `path`, relative to the calling module's directory; OSError (FileNotFoundError) naming it
    when it cannot be read."""
    with open(_os.path.join(_caller_dir(), path), "rb") as f:
        return f.read()


def readahead_file_path(path, readahead="128M"):
    """Returns `path` (readahead is a hint for TF's remote file systems)."""
    del readahead
    return path


__all__ = [
    "get_data_files_path",
    "get_path_to_datafile",
    "get_root_dir_with_all_resources",
    "load_resource",
    "readahead_file_path",
]
