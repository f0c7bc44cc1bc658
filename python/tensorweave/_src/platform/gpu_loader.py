"""Loads the CUDA GPU device, `libtensorweave_gpu.so`, at import when it is there (DESIGN.md decision 9).

The GPU device is its own library, built only when CUDA is asked for (`tools/build_gpu.sh`, `TW_CUDA=1 pip
install .`) and placed next to the core extension. `load()` (run once, by `import tensorweave`, right after the
core extension has loaded) dlopens it through the extension's `load_gpu_plugin`, whose static initializers
register the GPU device factory and the GPU kernels, and asks it how many GPUs it sees.

Nothing here may break `import tensorweave`: a library that is absent, that cannot be loaded (no CUDA driver,
missing symbols, a file that is not a library) or that sees no GPU leaves tensorweave CPU-only, and the reason is
kept: `tw.test.gpu_unavailable_reason()` returns it, and `TW_GPU_VERBOSE=1` prints it as a warning.

Environment:
  TW_GPU=0                  do not load the GPU library (CPU only).
  CUDA_VISIBLE_DEVICES      "" or "-1": no GPU is visible; the library is not loaded.
  TW_GPU_LIBRARY            the GPU library's path (default: libtensorweave_gpu.so next to the extension).
  TW_NVIDIA_LIB_DIRS        where the GPU library looks for cuBLAS/cuDNN from pip's nvidia packages; set here,
                            when not set already, to every sys.path dir that holds `nvidia/` followed by each
                            of their `nvidia/*/lib` dirs (the loaders accept either form).
  TW_GPU_VERBOSE=1          warn when the GPU library is not used, and say so when it is.
"""

import glob
import os
import sys
import warnings

LIBRARY_NAME = "libtensorweave_gpu.so"

# What load() found: whether the library is loaded, how many GPUs it reported, and why no GPU is used (None
# when one is).
_state = {"attempted": False, "loaded": False, "gpu_count": 0, "reason": "the GPU library was not loaded yet"}


def disabled_reason(environ=None):
    """Why the environment asks for no GPU (TW_GPU=0, an empty or "-1" CUDA_VISIBLE_DEVICES), or None."""
    env = os.environ if environ is None else environ
    if env.get("TW_GPU", "").strip() in ("0", "false", "False", "no", "off"):
        return "disabled by TW_GPU=" + env["TW_GPU"]
    if "CUDA_VISIBLE_DEVICES" in env:
        visible = env["CUDA_VISIBLE_DEVICES"].strip()
        if visible == "" or visible.split(",")[0].strip() == "-1":
            return f'no GPU is visible (CUDA_VISIBLE_DEVICES="{env["CUDA_VISIBLE_DEVICES"]}")'
    return None


def nvidia_lib_dirs(path=None):
    """The dirs of pip's nvidia packages (nvidia-cublas, nvidia-cudnn-cu13, torch's dependencies) under the
    `path` entries (default sys.path): first each entry that holds `nvidia/`, then every `nvidia/*/lib` dir in
    them, without repeats, in path order."""
    roots, libs = [], []
    for entry in sys.path if path is None else path:
        if not entry or not os.path.isdir(os.path.join(entry, "nvidia")):
            continue
        root = os.path.abspath(entry)
        if root in roots:
            continue
        roots.append(root)
        for lib in sorted(glob.glob(os.path.join(root, "nvidia", "*", "lib"))):
            if os.path.isdir(lib) and lib not in libs:
                libs.append(lib)
    return roots + libs


def stale_in_checkout(path):
    """In a source checkout (the package under python/ of a git tree, as `pip install -e .` leaves it), why the
    GPU library at `path` must not be loaded: it is older than the core extension, so it was compiled against
    core headers that may have changed since (a changed class layout would not show as a missing symbol, and
    its registrations run at load). None when it is newer, or outside a checkout."""
    from tensorweave import _pywrap_tensorweave as pywrap

    ext = os.path.abspath(pywrap.__file__)
    package = os.path.dirname(ext)
    if not os.path.isdir(os.path.join(package, os.pardir, os.pardir, ".git")):
        return None
    try:
        if os.path.getmtime(path) < os.path.getmtime(ext):
            return (
                f"{path} is older than the core extension {os.path.basename(ext)} in this source checkout: "
                "rebuild it (tools/build_gpu.sh), or set TW_GPU_LIBRARY to load it anyway"
            )
    except OSError:
        return None
    return None


def default_library_path():
    """libtensorweave_gpu.so next to the core extension (TW_GPU_LIBRARY overrides it)."""
    override = os.environ.get("TW_GPU_LIBRARY")
    if override:
        return override
    from tensorweave import _pywrap_tensorweave as pywrap

    return os.path.join(os.path.dirname(os.path.abspath(pywrap.__file__)), LIBRARY_NAME)


def load_library(path):
    """Loads the GPU library at `path` into the process (the core extension's symbols are made global first)
    and runs its init: returns (loaded, GPU count or -1 when CUDA is not usable, message). `loaded` is False,
    with the reason in the message, for a library that is absent or cannot be loaded. Never raises for a bad
    library."""
    from tensorweave import _pywrap_tensorweave as pywrap

    if not os.path.exists(path):
        return False, -1, f"{path} does not exist"
    try:
        loaded, count, message = pywrap.load_gpu_plugin(os.fspath(path))
    except Exception as e:  # noqa: BLE001 - a broken plug-in must not break the import
        return False, -1, f"loading {path} raised {type(e).__name__}: {e}"
    return bool(loaded), int(count), str(message)


def load(force=False):
    """Loads the GPU library once (unless disabled or absent) and records the outcome; returns the number of
    GPUs it reported (0 when none is used). `force` tries again."""
    if _state["attempted"] and not force:
        return _state["gpu_count"]
    _state.update(attempted=True, loaded=False, gpu_count=0)
    reason = disabled_reason()
    if reason is None:
        path = default_library_path()
        stale = None if os.environ.get("TW_GPU_LIBRARY") else stale_in_checkout(path)
        if not os.path.exists(path):
            reason = f"tensorweave was built without the GPU library ({path} does not exist)"
        elif stale is not None:
            reason = stale
        else:
            if "TW_NVIDIA_LIB_DIRS" not in os.environ:
                dirs = nvidia_lib_dirs()
                if dirs:
                    os.environ["TW_NVIDIA_LIB_DIRS"] = ":".join(dirs)
            loaded, count, message = load_library(path)
            _state["loaded"] = loaded
            if not loaded:
                reason = f"the GPU library could not be loaded: {message}"
            elif count < 0:
                reason = f"the GPU library is loaded, but {message}"
            elif count == 0:
                reason = f"the GPU library is loaded, but sees no GPU: {message}"
            else:
                _state["gpu_count"] = count
                if os.environ.get("TW_GPU_VERBOSE") == "1":
                    print(f"tensorweave: GPU library loaded from {path}: {message}", file=sys.stderr)
    _state["reason"] = reason
    if reason is not None and os.environ.get("TW_GPU_VERBOSE") == "1":
        warnings.warn(f"tensorweave runs CPU-only: {reason}", RuntimeWarning, stacklevel=2)
    return _state["gpu_count"]


def is_loaded():
    """Whether the GPU library is loaded into the process (it may still see no GPU)."""
    return _state["loaded"]


def gpu_unavailable_reason():
    """Why tensorweave uses no GPU (a sentence), or None when the GPU library is loaded and sees a GPU."""
    return _state["reason"]


load()
