"""TF1 top-level names for custom-op libraries, wrap_function and tensor kinds.

tensorweave runs its own kernels, so TensorFlow custom-op libraries (`.so` files built against TF's C++ API)
cannot be loaded: load_op_library / load_file_system_library raise NotFoundError for a missing file (TF's) and
NotImplementedError naming the file otherwise. wrap_function traces `fn` once into its own graph; calling the
result imports that graph into the default graph with the arguments as its inputs (TF1 calls it the same way).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     f = tw.wrap_function(lambda x: x * 2.0, [tw.TensorSpec([None], tw.float32)])
  ...     print(tw.Session().run(f(tw.constant([1.0, 2.0]))))
  [2. 4.]
"""

import os as _os
import re as _re

from tensorweave._src.framework import errors
from tensorweave._src.framework import nest
from tensorweave._src.framework import ops


def _check_library(library_filename, what):
    path = _os.fspath(library_filename)
    if not _os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path}: cannot open shared object file: No such file or directory")
    raise NotImplementedError(
        f"{what}({path!r}): tensorweave cannot load TensorFlow custom-op libraries (they are built against "
        "TensorFlow's C++ runtime); register the op's kernel in tensorweave's core instead"
    )


def load_op_library(library_filename):
    """TF's load_op_library: NotFoundError for a missing file, else NotImplementedError (see the module doc)."""
    _check_library(library_filename, "load_op_library")


def load_file_system_library(library_filename):
    """TF's deprecated load_file_system_library: as load_op_library."""
    _check_library(library_filename, "load_file_system_library")


def load_library(library_location):
    """TF's load_library (a file or a folder of libraries): FileNotFoundError when it does not exist, else
    NotImplementedError naming it."""
    path = _os.fspath(library_location)
    if not _os.path.exists(path):
        raise FileNotFoundError(2, "The file or folder to load kernel libraries from does not exist.", path)
    _check_library(path, "load_library")


for _fn in (load_op_library, load_file_system_library, load_library):
    _fn._tw_unsupported = True  # they always raise: not counted by tools/api_coverage.py
del _fn


def executing_eagerly_outside_functions():
    """False: tensorweave builds graphs (TF1's graph mode)."""
    return False


def is_symbolic_tensor(tensor):
    """Whether `tensor` is a graph Tensor (not a variable, numpy array or Python value)."""
    return isinstance(tensor, ops.Tensor)


class WrappedFunction:
    """What wrap_function returns: `graph`, `inputs`, `outputs`, `structured_outputs`, and a call that imports
    the traced graph into the default graph with the arguments fed to its inputs."""

    def __init__(self, fn, signature, name=None):
        from tensorweave._src.framework.type_spec import TypeSpec

        self._name = name or getattr(fn, "__name__", "wrapped_function")
        scope = _re.sub(r"[^A-Za-z0-9_.\-]", "_", self._name).lstrip("_-")
        self._scope = scope or "wrapped_function"
        self._signature = list(signature or [])
        for spec in nest.flatten(self._signature):
            if not isinstance(spec, TypeSpec) or not hasattr(spec, "shape"):
                raise TypeError(f"wrap_function: signature must hold TensorSpecs, got {spec!r}")
        self.graph = ops.Graph()
        with self.graph.as_default():
            from tensorweave._src.ops.array_ops import placeholder

            placeholders = [placeholder(s.dtype, s.shape, name=s.name) for s in nest.flatten(self._signature)]
            args = nest.pack_sequence_as(self._signature, placeholders)
            self.structured_outputs = fn(*args)
            self.inputs = placeholders
            self.outputs = [ops.convert_to_tensor(t) for t in nest.flatten(self.structured_outputs) if t is not None]
            variables = self.graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
        if variables:
            raise NotImplementedError(
                f"wrap_function({self._name}): the function creates variables "
                f"({', '.join(v.op.name for v in variables)}); tensorweave's wrap_function traces stateless functions"
            )
        self.structured_input_signature = (tuple(self._signature), {})

    @property
    def name(self):
        return self._name

    def __call__(self, *args):
        flat_args = nest.flatten(list(args))
        if len(flat_args) != len(self.inputs):
            raise TypeError(f"{self._name}: expected {len(self.inputs)} argument tensors, got {len(flat_args)}")
        from tensorweave._src.framework.importer import import_graph_def

        input_map = {}
        for inp, arg in zip(self.inputs, flat_args):
            tensor = ops.convert_to_tensor(arg, dtype=inp.dtype)
            if not inp.shape.is_compatible_with(tensor.shape):
                raise ValueError(f"{self._name}: argument {tensor} is not compatible with the shape {inp.shape}")
            input_map[inp.name] = tensor
        results = import_graph_def(
            self.graph.as_graph_def(),
            input_map=input_map,
            return_elements=[t.name for t in self.outputs],
            name=self._scope,
        )
        if self.structured_outputs is None:
            return None
        it = iter(results or [])
        flat = [None if t is None else next(it) for t in nest.flatten(self.structured_outputs)]
        return nest.pack_sequence_as(self.structured_outputs, flat)


def wrap_function(fn, signature, name=None):
    """TF1's wrap_function(fn, signature): traces `fn` on placeholders of the signature's TensorSpecs; the
    result, called on tensors, adds that computation to the default graph (as TF's call op would)."""
    return WrappedFunction(fn, signature, name)


__all__ = [
    "executing_eagerly_outside_functions",
    "is_symbolic_tensor",
    "load_file_system_library",
    "load_library",
    "load_op_library",
    "wrap_function",
]
