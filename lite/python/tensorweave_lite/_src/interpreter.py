"""The tf.lite.Interpreter-style API over the runtime binding."""

import numpy as np

from tensorweave_lite import _interpreter

# Indexed by the schema's TensorType value.
_DTYPES = (
    np.float32,
    np.int32,
    np.int64,
    np.uint8,
    np.int8,
    np.bool_,
    np.float64,
    np.int16,
    np.uint16,
    np.uint32,
    np.uint64,
    np.float16,
)


def _dtype_name(dtype):
    return np.dtype(dtype).name


class Interpreter:
    """Runs a .twl model.

    Give exactly one of ``model_path`` (the file is mapped, not read) or
    ``model_content`` (a bytes-like object). The bytes verified are the bytes
    used: a ``bytes`` object (or a read-only memoryview of one) is immutable
    and is used in place, kept alive by the interpreter; any other buffer
    (bytearray, numpy array, mmap, writable memoryview) is copied once, so
    changing it afterwards changes nothing. ``num_threads`` (default 1) is
    the number of threads large kernels may use, counting the caller.

    A model whose file carries an integrity trailer (``tensorweave-convert``
    writes one) is checked against its CRC-32 on load; a corrupt file raises
    ``ValueError`` ("model is corrupt: ... checksum mismatch (expected ...,
    got ...)"). ``verify_checksum=False`` skips that pass over the bytes
    (the structural verification still runs).

    Example::

        interpreter = Interpreter(model_path="mlp.twl", num_threads=2)
        interpreter.allocate_tensors()
        runner = interpreter.get_signature_runner()
        probs = runner(x=np.zeros((1, 784), np.float32))["probs"]
    """

    def __init__(self, model_path=None, model_content=None, num_threads=None, verify_checksum=True):
        if num_threads is None:
            num_threads = 1
        if not isinstance(num_threads, int) or isinstance(num_threads, bool):
            raise ValueError(f"num_threads must be an int, got {num_threads!r}")
        if model_path is not None and not isinstance(model_path, (str, bytes)):
            model_path = str(model_path)  # os.PathLike
        self._impl = _interpreter.Interpreter(model_path, model_content, num_threads, bool(verify_checksum))
        self._inputs = self._impl.inputs()
        self._outputs = self._impl.outputs()
        # Numpy views of tensors get_tensor() copied from, by index. They pin
        # the arena (the binding refuses to re-plan under a live view), so
        # they are dropped before anything that may re-plan.
        self._views = {}

    # -- lifecycle ----------------------------------------------------------

    def allocate_tensors(self):
        """Prepares every op and plans all tensors into one arena.

        Needed before the first invoke() and after resize_tensor_input().
        """
        self._views.clear()
        self._impl.allocate_tensors()

    def invoke(self):
        """Runs the model on the inputs set with set_tensor()."""
        self._impl.invoke()

    def profile_ops(self, runs=100):
        """Invokes ``runs`` times and returns each op's time, as LiteRT's op
        profiling: a list of ``{"op", "count", "us", "share"}`` (time per
        invoke summed over the op's nodes, share of all ops' time), slowest
        first.

        >>> rows = interpreter.profile_ops(10)  # doctest: +SKIP
        >>> rows[0]["op"], rows[0]["count"]  # doctest: +SKIP
        ('FULLY_CONNECTED', 24)
        """
        per_node = self._impl.profile_invoke(int(runs))
        totals = {}
        for (op, *_), us in zip(self._impl.nodes(), per_node):
            row = totals.setdefault(op, {"op": op, "count": 0, "us": 0.0})
            row["count"] += 1
            row["us"] += us / runs
        total = sum(r["us"] for r in totals.values()) or 1.0
        rows = sorted(totals.values(), key=lambda r: -r["us"])
        for r in rows:
            r["share"] = r["us"] / total
        return rows

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        """Sets the shape of graph input ``input_index`` (a tensor index).

        With ``strict=True`` only dimensions marked -1 in the tensor's
        shape_signature may change. Call allocate_tensors() afterwards.
        """
        position = self._input_position(input_index)
        self._views.clear()
        shape = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
        if strict:
            info = self._impl.tensor_info(input_index)
            signature = info[3] if info[3] is not None else info[2]
            if len(shape) == len(signature):
                for axis, (new, old) in enumerate(zip(shape, signature)):
                    if old != -1 and new != old:
                        raise ValueError(
                            f"cannot resize input '{info[0]}' (index "
                            f"{input_index}): dimension {axis} is {old} in the "
                            f"model's shape_signature, not dynamic"
                        )
        self._impl.resize_input(position, shape)

    # -- details ------------------------------------------------------------

    def _details(self, index):
        name, type_code, shape, signature, _, _, _ = self._impl.tensor_info(index)
        shape = np.array(shape, dtype=np.int32)
        return {
            "name": name,
            "index": index,
            "shape": shape,
            "shape_signature": (np.array(signature, dtype=np.int32) if signature is not None else shape.copy()),
            "dtype": _DTYPES[type_code],
            "quantization": (0.0, 0),
            "quantization_parameters": {
                "scales": np.zeros(0, dtype=np.float32),
                "zero_points": np.zeros(0, dtype=np.int32),
                "quantized_dimension": 0,
            },
            "sparsity_parameters": {},
        }

    def get_input_details(self):
        """One dict per graph input: name, index, shape, shape_signature,
        dtype, quantization, quantization_parameters."""
        return [self._details(i) for i in self._inputs]

    def get_output_details(self):
        """One dict per graph output (same keys as get_input_details)."""
        return [self._details(i) for i in self._outputs]

    def get_tensor_details(self):
        """Details of every tensor of the model."""
        return [self._details(i) for i in range(self._impl.num_tensors())]

    # -- data ---------------------------------------------------------------

    def set_tensor(self, tensor_index, value):
        """Copies ``value`` into a tensor; its dtype and shape must match the
        tensor's exactly (ValueError otherwise)."""
        if self._impl.set_tensor_fast(tensor_index, value):
            return
        name, type_code, shape, _, _, _, _ = self._impl.tensor_info(tensor_index)
        value = np.asarray(value)
        expected = np.dtype(_DTYPES[type_code])
        if value.dtype != expected:
            raise ValueError(
                f"Cannot set tensor '{name}' (index {tensor_index}): got dtype "
                f"{value.dtype.name}, expected {expected.name}"
            )
        if value.shape != shape:
            raise ValueError(
                f"Cannot set tensor '{name}' (index {tensor_index}): got shape "
                f"{list(value.shape)}, expected {list(shape)} (use "
                f"resize_tensor_input() to change an input's shape)"
            )
        self._impl.set_tensor_bytes(tensor_index, np.ascontiguousarray(value))

    def get_tensor(self, tensor_index):
        """A copy of a tensor's current value."""
        view = self._views.get(tensor_index)
        if view is None:
            dynamic = self._impl.num_dynamic_views()
            view = np.asarray(self._impl.tensor_buffer(tensor_index))
            if self._impl.num_dynamic_views() > dynamic:
                # A dynamic tensor (NON_ZERO, NON_MAX_SUPPRESSION, what reads
                # them): invoke may move it, so its view is not kept.
                value = view.copy()
                del view
                return value
            self._views[tensor_index] = view
        return view.copy()

    def tensor(self, tensor_index):
        """A function returning a numpy view of the tensor's memory (no copy).

        As in TFLite, do not keep the view across allocate_tensors(): the
        interpreter refuses to re-plan memory while a view is alive.
        """
        impl = self._impl
        self._impl.tensor_info(tensor_index)  # validates the index now

        def view():
            return np.asarray(impl.tensor_buffer(tensor_index))

        return view

    # -- signatures ---------------------------------------------------------

    def _signatures(self):
        return {key: (dict(inputs), dict(outputs)) for key, inputs, outputs, _ in self._impl.signatures()}

    def get_signature_list(self):
        """``{signature_key: {"inputs": [names], "outputs": [names]}}``."""
        return {
            key: {"inputs": [name for name, _ in inputs], "outputs": [name for name, _ in outputs]}
            for key, inputs, outputs, _ in self._impl.signatures()
        }

    def get_signature_runner(self, signature_key=None):
        """A callable running signature ``signature_key`` (the only one when
        None): inputs by name as keyword arguments, outputs as a dict."""
        signatures = self._signatures()
        if signature_key is None:
            if len(signatures) != 1:
                raise ValueError(
                    f"the model has {len(signatures)} signatures ({sorted(signatures)}); pass signature_key"
                )
            signature_key = next(iter(signatures))
        if signature_key not in signatures:
            raise ValueError(f"no signature '{signature_key}' in the model (it has {sorted(signatures)})")
        inputs, outputs = signatures[signature_key]
        return SignatureRunner(self, signature_key, inputs, outputs)

    # -- tools (not in TFLite) ------------------------------------------------

    def arena_size(self):
        """Bytes of the runtime's planned arena (0 before allocate_tensors)."""
        return self._impl.arena_size()

    def _input_position(self, tensor_index):
        try:
            return self._inputs.index(tensor_index)
        except ValueError:
            raise ValueError(f"tensor {tensor_index} is not a graph input (inputs are {self._inputs})") from None


class SignatureRunner:
    """Runs one signature of an Interpreter; made by get_signature_runner().

    Example::

        outputs = interpreter.get_signature_runner("serving_default")(x=batch)
    """

    def __init__(self, interpreter, signature_key, inputs, outputs):
        self._interpreter = interpreter
        self._key = signature_key
        self._inputs = inputs  # name -> tensor index
        self._outputs = outputs

    def get_input_details(self):
        return {name: self._interpreter._details(i) for name, i in self._inputs.items()}

    def get_output_details(self):
        return {name: self._interpreter._details(i) for name, i in self._outputs.items()}

    def __call__(self, **kwargs):
        unknown = sorted(set(kwargs) - set(self._inputs))
        missing = sorted(set(self._inputs) - set(kwargs))
        if unknown or missing:
            raise ValueError(
                f"signature '{self._key}' takes inputs {sorted(self._inputs)}; unknown: {unknown}, missing: {missing}"
            )
        interpreter = self._interpreter
        values = {name: np.asarray(value) for name, value in kwargs.items()}
        resized = False
        for name, value in values.items():
            index = self._inputs[name]
            current = interpreter._impl.tensor_info(index)[2]
            if tuple(value.shape) != current:
                interpreter.resize_tensor_input(index, value.shape)
                resized = True
        if resized or not interpreter._impl.tensors_allocated():
            interpreter.allocate_tensors()
        for name, value in values.items():
            interpreter.set_tensor(self._inputs[name], value)
        interpreter.invoke()
        return {name: interpreter.get_tensor(index) for name, index in self._outputs.items()}
