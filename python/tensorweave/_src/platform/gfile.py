"""File access (TensorFlow v1's `tf.gfile`, `tf.io.gfile`) on the local file system, with TensorFlow's error
classes: NotFoundError for a missing file or directory, AlreadyExistsError where a target must not exist."""

import collections
import glob as _glob
import os
import shutil

from tensorweave._src.framework import errors


def _path(name):
    name = os.fspath(name)
    return name.decode() if isinstance(name, bytes) else name


def _not_found(path, what="No such file or directory"):
    return errors.NotFoundError(None, None, f"{path}; {what}")


class GFile:
    """A file, as TF1's `tf.gfile.GFile(name, mode)`: read/readline/readlines/write/seek/tell/size/flush/close,
    iteration over lines and `with`. Text modes give str, "b" modes bytes. Reading a missing file raises
    NotFoundError.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
      >>> with tw.gfile.GFile(path, "w") as f:
      ...     _ = f.write("one\\ntwo\\n")
      >>> with tw.gfile.GFile(path) as f:
      ...     print(f.readlines(), f.size())
      ['one\\n', 'two\\n'] 8
    """

    def __init__(self, name, mode="r"):
        self._name = _path(name)
        if mode not in ("r", "rb", "w", "wb", "a", "ab", "r+", "rb+", "w+", "wb+", "a+", "ab+"):
            raise errors.InvalidArgumentError(None, None, f"mode is not 'r' or 'w' or 'a': {mode!r}")
        self._mode = mode
        self._file = None

    def _open(self):
        if self._file is None:
            try:
                self._file = open(self._name, self._mode)  # noqa: SIM115 - closed by close()
            except FileNotFoundError:
                raise _not_found(self._name) from None
            except IsADirectoryError:
                raise errors.FailedPreconditionError(None, None, f"{self._name}; Is a directory") from None
            except PermissionError as e:
                raise errors.PermissionDeniedError(None, None, f"{self._name}; {e.strerror}") from None
        return self._file

    @property
    def name(self):
        return self._name

    @property
    def mode(self):
        return self._mode

    def size(self):
        """The file's length in bytes."""
        return os.stat(self._name).st_size

    def _check_mode(self, reading):
        # TensorFlow's classes and messages for a read of a write-only file and the reverse.
        if reading and self._mode[0] in "wa" and "+" not in self._mode:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        if not reading and self._mode[0] == "r" and "+" not in self._mode:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")

    def read(self, n=-1):
        self._check_mode(reading=True)
        if n is not None and n < -1:
            raise errors.InvalidArgumentError(None, None, f"Can't read a negative number of bytes: {n}")
        return self._open().read(n)

    def readline(self):
        self._check_mode(reading=True)
        return self._open().readline()

    def readlines(self):
        self._check_mode(reading=True)
        return self._open().readlines()

    def write(self, file_content):
        self._check_mode(reading=False)
        f = self._open()
        if "b" in self._mode and isinstance(file_content, str):
            file_content = file_content.encode()
        elif "b" not in self._mode and isinstance(file_content, bytes):
            file_content = file_content.decode()
        return f.write(file_content)

    def seek(self, offset=None, whence=0, position=None):
        if position is not None:
            offset = position
        if whence == 0 and offset < 0:
            raise errors.InvalidArgumentError(None, None, f"Seeking to a negative position: {offset}")
        self._open().seek(offset, whence)

    def tell(self):
        return self._open().tell()

    def flush(self):
        if self._file is not None:
            self._file.flush()

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def seekable(self):
        return True

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()


FastGFile = GFile
Open = GFile


def exists(path):
    """Whether `path` exists."""
    return os.path.exists(_path(path))


def isdir(path):
    """Whether `path` is a directory."""
    return os.path.isdir(_path(path))


def makedirs(path):
    """Creates `path` and its parents; an existing directory is fine."""
    path = _path(path)
    try:
        os.makedirs(path, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise errors.FailedPreconditionError(None, None, f"{path}; Not a directory") from None


def mkdir(path):
    """Creates directory `path` (an existing directory is fine, as in TensorFlow); NotFoundError without its
    parent, AlreadyExistsError when a file has that name."""
    path = _path(path)
    try:
        os.mkdir(path)
    except FileExistsError:
        if os.path.isdir(path):
            return
        raise errors.AlreadyExistsError(None, None, f"{path}; File exists") from None
    except FileNotFoundError:
        raise _not_found(path) from None
    except NotADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Not a directory") from None


def listdir(path):
    """The names in directory `path`; NotFoundError when it does not exist."""
    path = _path(path)
    if not os.path.isdir(path):
        raise _not_found(path, "Could not find directory")
    return os.listdir(path)


def glob(pattern):
    """The paths matching `pattern` (a string or a list of them)."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    out = []
    for p in patterns:
        out.extend(_glob.glob(_path(p)))
    return out


def remove(path):
    """Deletes file `path`; NotFoundError when it does not exist."""
    path = _path(path)
    try:
        os.remove(path)
    except FileNotFoundError:
        raise _not_found(path) from None


def rmtree(path):
    """Deletes directory `path` and everything under it; NotFoundError when it does not exist."""
    path = _path(path)
    if not os.path.exists(path):
        raise _not_found(path)
    if os.path.isdir(path):
        shutil.rmtree(path)
    else:
        os.remove(path)


def rename(oldname, newname, overwrite=False):
    """Renames a file; AlreadyExistsError when `newname` exists and not `overwrite`."""
    oldname, newname = _path(oldname), _path(newname)
    if not overwrite and os.path.exists(newname):
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newname}")
    if not os.path.exists(oldname):
        raise _not_found(oldname)
    os.replace(oldname, newname)


def copy(oldpath, newpath, overwrite=False):
    """Copies a file; AlreadyExistsError when `newpath` exists and not `overwrite`."""
    oldpath, newpath = _path(oldpath), _path(newpath)
    if not overwrite and os.path.exists(newpath):
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newpath}")
    if not os.path.isfile(oldpath):
        raise _not_found(oldpath)
    shutil.copyfile(oldpath, newpath)


FileStatistics = collections.namedtuple("FileStatistics", ["length", "mtime_nsec", "is_directory"])


def stat(path):
    """FileStatistics(length, mtime_nsec, is_directory) of `path`; NotFoundError when it does not exist."""
    path = _path(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise _not_found(path) from None
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(path))


def walk(top, in_order=True):
    """Yields (directory, subdirectories, files) under `top` (top-down when `in_order`), as os.walk."""
    top = _path(top)
    if not os.path.isdir(top):
        return
    yield from os.walk(top, topdown=in_order)


# TF1's tf.gfile names.
Copy = copy
DeleteRecursively = rmtree
Exists = exists
Glob = glob
IsDirectory = isdir
ListDirectory = listdir
MakeDirs = makedirs
MkDir = mkdir
Remove = remove
Rename = rename
Stat = stat
Walk = walk
