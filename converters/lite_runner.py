"""Runs .twl models on the lite runtime through its C API (ctypes over
libtensorweave_lite.so). Kept to this one module so the tests can switch to
the `tensorweave_lite` Python binding once it exists.

The library is $TWL_LITE_LIBRARY, else bazel-bin/lite/c/libtensorweave_lite.so
in the source tree (`bazel build //lite/c:libtensorweave_lite.so`).

Example (needs the built library):
  >>> runner = LiteRunner(model_bytes)              # doctest: +SKIP
  >>> outputs = runner.run({"x": np.ones((1, 784), np.float32)})  # doctest: +SKIP
"""

import ctypes
import os

import numpy as np

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_OF_TYPE = {
    0: np.float32,
    1: np.int32,
    2: np.int64,
    3: np.uint8,
    4: np.int8,
    5: np.bool_,
    6: np.float64,
    7: np.int16,
    8: np.uint16,
    9: np.uint32,
    10: np.uint64,
    11: np.float16,
}
_lib = None


class LiteError(RuntimeError):
    """A failure reported by the lite runtime (its message)."""


def library_path():
    return os.environ.get("TWL_LITE_LIBRARY") or os.path.join(_ROOT, "bazel-bin", "lite", "c", "libtensorweave_lite.so")


def available():
    return os.path.exists(library_path())


def _load():
    global _lib
    if _lib is not None:
        return _lib
    lib = ctypes.CDLL(library_path())
    p, i, c = ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p
    sigs = {
        "twl_last_error_message": ([], c),
        "twl_model_create_from_buffer": ([p, ctypes.c_size_t], p),
        "twl_model_delete": ([p], None),
        "twl_interpreter_options_create": ([], p),
        "twl_interpreter_options_set_num_threads": ([p, i], None),
        "twl_interpreter_options_delete": ([p], None),
        "twl_interpreter_create": ([p, p], p),
        "twl_interpreter_delete": ([p], None),
        "twl_interpreter_allocate_tensors": ([p], i),
        "twl_interpreter_resize_input_tensor": ([p, i, ctypes.POINTER(i), i], i),
        "twl_interpreter_invoke": ([p], i),
        "twl_interpreter_error_message": ([p], c),
        "twl_interpreter_get_input_count": ([p], i),
        "twl_interpreter_get_output_count": ([p], i),
        "twl_interpreter_get_input_tensor": ([p, i], p),
        "twl_interpreter_get_output_tensor": ([p, i], p),
        "twl_tensor_type": ([p], i),
        "twl_tensor_num_dims": ([p], i),
        "twl_tensor_dim": ([p, i], i),
        "twl_tensor_byte_size": ([p], ctypes.c_size_t),
        "twl_tensor_name": ([p], c),
        "twl_tensor_copy_from_buffer": ([p, p, ctypes.c_size_t], i),
        "twl_tensor_copy_to_buffer": ([p, p, ctypes.c_size_t], i),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    _lib = lib
    return lib


class LiteRunner:
    """One interpreter over a .twl model (bytes or a path)."""

    def __init__(self, model, num_threads=1):
        lib = _load()
        if isinstance(model, (str, os.PathLike)):
            with open(model, "rb") as f:
                model = f.read()
        # The model reads the bytes in place: keep them alive, 64-byte aligned.
        self._storage = np.zeros(len(model) + 64, np.uint8)
        offset = (-self._storage.ctypes.data) % 64
        self._storage[offset : offset + len(model)] = np.frombuffer(model, np.uint8)
        self._lib = lib
        self._model = lib.twl_model_create_from_buffer(self._storage.ctypes.data + offset, len(model))
        if not self._model:
            raise LiteError(lib.twl_last_error_message().decode())
        options = lib.twl_interpreter_options_create()
        lib.twl_interpreter_options_set_num_threads(options, num_threads)
        self._interpreter = lib.twl_interpreter_create(self._model, options)
        lib.twl_interpreter_options_delete(options)
        if not self._interpreter:
            message = lib.twl_last_error_message().decode()
            lib.twl_model_delete(self._model)
            self._model = None
            raise LiteError(message)
        self._check(lib.twl_interpreter_allocate_tensors(self._interpreter))
        self._shapes = [self._shape(t) for t in self._inputs()]
        self._signature = _signature_names(model)

    def __del__(self):
        lib = getattr(self, "_lib", None)
        if lib is None:
            return
        if getattr(self, "_interpreter", None):
            lib.twl_interpreter_delete(self._interpreter)
            self._interpreter = None
        if getattr(self, "_model", None):
            lib.twl_model_delete(self._model)
            self._model = None

    def _check(self, status):
        if status != 0:
            raise LiteError(self._lib.twl_interpreter_error_message(self._interpreter).decode())

    def _inputs(self):
        n = self._lib.twl_interpreter_get_input_count(self._interpreter)
        return [self._lib.twl_interpreter_get_input_tensor(self._interpreter, i) for i in range(n)]

    def _outputs(self):
        n = self._lib.twl_interpreter_get_output_count(self._interpreter)
        return [self._lib.twl_interpreter_get_output_tensor(self._interpreter, i) for i in range(n)]

    def _shape(self, t):
        return tuple(self._lib.twl_tensor_dim(t, d) for d in range(self._lib.twl_tensor_num_dims(t)))

    def _name(self, t):
        return self._lib.twl_tensor_name(t).decode()

    @property
    def input_names(self):
        """Names of the inputs in the "serving_default" signature (tensor
        names when the model has no signature), in input order."""
        return self._signature[0] or [self._name(t) for t in self._inputs()]

    @property
    def output_names(self):
        return self._signature[1] or [self._name(t) for t in self._outputs()]

    def run(self, feeds):
        """`feeds`: {input tensor name: array} or a list in input order.
        Returns {output tensor name: array}. Inputs of a new shape resize
        the interpreter (allocate_tensors again)."""
        lib = self._lib
        tensors = self._inputs()
        names = self.input_names
        if isinstance(feeds, dict):
            missing = [n for n in names if n not in feeds]
            extra = [n for n in feeds if n not in names]
            if missing or extra:
                raise LiteError(f"feeds {sorted(feeds)} do not match the model's inputs {names}")
            values = [feeds[n] for n in names]
        else:
            values = list(feeds)
        arrays = []
        resized = False
        for i, (t, v) in enumerate(zip(tensors, values)):
            # (np.ascontiguousarray would make a 0-d feed 1-d.)
            arr = np.require(v, dtype=_NUMPY_OF_TYPE[lib.twl_tensor_type(t)], requirements="C")
            if arr.shape != self._shapes[i]:
                dims = (ctypes.c_int * arr.ndim)(*arr.shape)
                self._check(lib.twl_interpreter_resize_input_tensor(self._interpreter, i, dims, arr.ndim))
                self._shapes[i] = arr.shape
                resized = True
            arrays.append(arr)
        if resized:
            self._check(lib.twl_interpreter_allocate_tensors(self._interpreter))
            tensors = self._inputs()
        for t, arr in zip(tensors, arrays):
            self._check(lib.twl_tensor_copy_from_buffer(t, arr.ctypes.data, arr.nbytes))
        self._check(lib.twl_interpreter_invoke(self._interpreter))
        out = {}
        for name, t in zip(self.output_names, self._outputs()):
            arr = np.empty(self._shape(t), _NUMPY_OF_TYPE[lib.twl_tensor_type(t)])
            self._check(lib.twl_tensor_copy_to_buffer(t, arr.ctypes.data, arr.nbytes))
            out[name] = arr
        return out

    def prepared(self, feeds):
        """A no-argument callable that copies `feeds` (as `run` takes them)
        into the inputs, invokes, and copies the outputs into arrays it
        returns (the same arrays every call): `run` without its per-call
        name lookups, for timing loops."""
        first = self.run(feeds)
        values = [feeds[n] for n in self.input_names] if isinstance(feeds, dict) else list(feeds)
        lib, interpreter = self._lib, self._interpreter
        ins = [
            (t, np.ascontiguousarray(v, dtype=_NUMPY_OF_TYPE[lib.twl_tensor_type(t)]))
            for t, v in zip(self._inputs(), values)
        ]
        outs = [(t, np.empty_like(first[n])) for n, t in zip(self.output_names, self._outputs())]
        copy_in, copy_out, invoke = (
            lib.twl_tensor_copy_from_buffer,
            lib.twl_tensor_copy_to_buffer,
            lib.twl_interpreter_invoke,
        )

        def call():
            for t, arr in ins:
                self._check(copy_in(t, arr.ctypes.data, arr.nbytes))
            self._check(invoke(interpreter))
            for t, arr in outs:
                self._check(copy_out(t, arr.ctypes.data, arr.nbytes))
            return [arr for _, arr in outs]

        return call


def _signature_names(model):
    """([input names], [output names]) of the model's first signature, in
    the order of the subgraph's inputs/outputs (None when it has none)."""
    from converters import twl_writer

    m = twl_writer.read_model(model)
    if m.SignatureDefsLength() == 0 or m.SubgraphsLength() == 0:
        return None, None
    sig, graph = m.SignatureDefs(0), m.Subgraphs(0)
    ins = {sig.Inputs(i).TensorIndex(): sig.Inputs(i).Name().decode() for i in range(sig.InputsLength())}
    outs = {sig.Outputs(i).TensorIndex(): sig.Outputs(i).Name().decode() for i in range(sig.OutputsLength())}
    in_order = [graph.Inputs(i) for i in range(graph.InputsLength())]
    out_order = [graph.Outputs(i) for i in range(graph.OutputsLength())]
    if set(in_order) != set(ins) or set(out_order) != set(outs) or len(outs) != len(out_order):
        return None, None
    return [ins[i] for i in in_order], [outs[i] for i in out_order]
