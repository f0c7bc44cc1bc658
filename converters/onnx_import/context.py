"""What an importer sees: the model's constants, shapes and consumers, the
.twl model being built, and each ONNX tensor's lite tensor with its layout.

Layout: ONNX is NCHW, the lite runtime's Conv/Pool are NHWC. Each tensor
remembers whether its lite tensor is the ONNX tensor or its NHWC transpose
(`value`); `plain` and `nhwc` give it in the layout an op needs, adding one
TRANSPOSE per tensor and layout at most.
"""

import numpy as np
import onnx
from onnx import helper, numpy_helper

from converters import tables
from converters.errors import ConversionError
from converters.errors import NodeError as _NodeError
from converters.lowering import TO_NCHW, TO_NHWC, require_const
from converters.onnx_import.shapes import TensorShapes, run_time_value_error
from converters.twl_writer import TENSOR_TYPES, TwlModelBuilder

IMPORTERS = {}  # ONNX op type -> importer(ctx, node), filled by @imports
imports = tables.registrar(IMPORTERS)
# The op domains the importers know: ONNX's default one.
DEFAULT_DOMAINS = ("", "ai.onnx")


def attrs(node):
    """{name: Python value} of an ONNX node's attributes."""
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def is_lite_type(dtype):
    """Whether the lite runtime has element type `dtype`."""
    return np.dtype(dtype) in TENSOR_TYPES


def nhwc_shape(shape):
    """An NCHW shape (or signature) in NHWC order."""
    return [shape[i] for i in TO_NHWC]


def _initializer_array(tensor):
    """The initializer's value; a ConversionError naming it when its data type or data is bad (external data
    that onnx refuses to read: outside the model's directory, missing, short)."""
    try:
        return numpy_helper.to_array(tensor)
    except (KeyError, ValueError, TypeError, OSError, onnx.checker.ValidationError) as e:
        raise ConversionError(
            f"initializer '{tensor.name}' (data_type {tensor.data_type}) is malformed: {e!r}"
        ) from None


class Context(TensorShapes):
    """One conversion's state: the model, its constants (initializers, then
    what folding adds), the consumers of each tensor, the builder, and each
    converted tensor's (twl index, is_nhwc)."""

    def __init__(self, model):
        super().__init__({i.name: _initializer_array(i) for i in model.graph.initializer})
        self.model = model
        self.graph = model.graph
        self.opset = next((o.version for o in model.opset_import if o.domain in DEFAULT_DOMAINS), 1)
        self.builder = TwlModelBuilder(description=model.doc_string)
        self.tensors = {}  # onnx name -> (twl index, is_nhwc)
        self.absorbed = set()
        self.consumers = {}
        for node in self.graph.node:
            for name in node.input:
                if name:
                    self.consumers.setdefault(name, []).append(node)
        self.outputs = {o.name for o in self.graph.output}
        self._converted = {}
        self.unfolded = {}  # id(node) -> elements its fold would make (None: unknown)
        # Tensors downstream of NonZero/NonMaxSuppression (lite dynamic tensors).
        self.data_dependent = set()

    # --- tensors ------------------------------------------------------------------
    def const(self, name):
        return self.consts.get(name) if name else None

    def require_const(self, node, i, what):
        if i < len(node.input) and node.input[i] in self.symbolic:
            raise _NodeError(f"{what} (input {i}): {run_time_value_error(self, node.input[i])}")
        return require_const(self.const(node.input[i]) if i < len(node.input) else None, i, what)

    def constant(self, name, value, dtype=None):
        value = np.asarray(value, dtype=dtype)
        if value.dtype == np.float64:
            raise _NodeError(f"'{name}' is float64; the lite runtime computes in float32")
        return self.builder.add_constant(name, value)

    def value(self, name):
        """(twl index, is_nhwc) of an ONNX tensor (constants added on use)."""
        if name not in self.tensors:
            if name in self.symbolic:
                from converters.onnx_import import run_time

                return run_time.materialize(self, name)
            if name not in self.consts:
                raise _NodeError(f"'{name}' has not been computed")
            self.tensors[name] = (self.constant(name, self.consts[name]), False)
        return self.tensors[name]

    def _transposed(self, name, perm, shape):
        index, _ = self.value(name)
        key = (index, perm)
        if key not in self._converted:
            out = self.builder.add_tensor(
                f"{name}/{'nhwc' if perm == TO_NHWC else 'nchw'}",
                shape,
                self.builder.tensor(index).dtype,
                self.batch_signature(name, shape),
            )
            p = self.constant(f"{name}/perm", np.array(perm, np.int32))
            self.builder.add_op("TRANSPOSE", [index, p], [out])
            self._converted[key] = out
        return self._converted[key]

    def plain(self, name):
        """The twl tensor of `name` in ONNX's layout."""
        index, nhwc = self.value(name)
        if not nhwc:
            return index
        return self._transposed(name, TO_NCHW, self.shape(name))

    def nhwc(self, name):
        """The twl tensor of rank-4 `name` in NHWC."""
        index, nhwc = self.value(name)
        if nhwc:
            return index
        if name in self.consts:
            return self.constant(f"{name}/nhwc", np.ascontiguousarray(self.consts[name].transpose(TO_NHWC)))
        return self._transposed(name, TO_NHWC, nhwc_shape(self.shape(name)))

    def is_nhwc(self, name):
        return name in self.tensors and self.tensors[name][1]

    def output(self, name, nhwc=False, dtype=None):
        """A new twl tensor for ONNX tensor `name`."""
        shape = self.shape(name)
        sig = self.signature_of(name, shape)
        if nhwc:
            shape = nhwc_shape(shape)
            sig = nhwc_shape(sig) if sig else None
        twl_name = f"{name}/nhwc" if nhwc else name
        index = self.builder.add_tensor(twl_name, shape, dtype or self.dtype(name), sig)
        self.tensors[name] = (index, nhwc)
        return index

    def intermediate(self, name, shape, dtype, like=None):
        sig = self.batch_signature(like, shape) if like else None
        return self.builder.add_tensor(name, shape, dtype, sig)

    # --- fusion -------------------------------------------------------------------
    def sole_consumer(self, name, op_types):
        users = self.consumers.get(name, [])
        if name in self.outputs or len(users) != 1 or users[0].op_type not in op_types:
            return None
        return users[0]

    def fuse_activation(self, name, gelu=False):
        """(fused activation, ONNX tensor after it). `gelu`: a float32 Gelu
        (exact or tanh) is fused too, as GELU or GELU_TANH (FULLY_CONNECTED
        alone supports them)."""
        ops = ("Relu", "Sigmoid", "Tanh", "Clip") + (("Gelu",) if gelu else ())
        node = self.sole_consumer(name, ops)
        if node is None:
            return "NONE", name
        if node.op_type == "Gelu":
            approximate = attrs(node).get("approximate", "none")
            approximate = approximate.decode() if isinstance(approximate, bytes) else approximate
            if approximate not in ("none", "tanh") or self.dtype(name) != np.float32:
                return "NONE", name  # lowered (or rejected) on its own
            act = "GELU_TANH" if approximate == "tanh" else "GELU"
        elif node.op_type == "Clip":
            act = clip_activation(self, node)
            if act is None:
                return "NONE", name
        else:
            act = {"Relu": "RELU", "Sigmoid": "SIGMOID", "Tanh": "TANH"}[node.op_type]
        self.absorbed.add(id(node))
        return act, node.output[0]


def clip_bounds(ctx, node):
    """(low, high) of a Clip: attributes before opset 11, constant inputs
    after (absent: unbounded)."""
    a = attrs(node)
    if ctx.opset < 11:
        return a.get("min", -np.inf), a.get("max", np.inf)
    bounds = []
    for i, default in ((1, -np.inf), (2, np.inf)):
        if len(node.input) > i and node.input[i]:
            if node.input[i] not in ctx.consts:
                raise _NodeError("Clip bounds must be constants")
            bounds.append(float(ctx.consts[node.input[i]]))
        else:
            bounds.append(default)
    return bounds


def clip_activation(ctx, node):
    """The fused activation a Clip is (RELU6 for [0, 6], RELU for [0, inf)),
    or None."""
    try:
        low, high = clip_bounds(ctx, node)
    except _NodeError:
        return None
    if low == 0 and high == 6:
        return "RELU6"
    if low == 0 and high == np.inf:
        return "RELU"
    return None
