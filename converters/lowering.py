"""What the converters share, written once.

The two conversions of a frozen GraphDef -- tf_to_twl.py (to .twl) and
onnx_export.py (to ONNX) -- build on `GraphLowering` (the graph, the
consumers of each tensor, the nodes fused away, constant inputs, bias
fusion) and run the same driver steps (`nodes_to_convert`, `convert_all`,
`placeholder`, `signature_keys`). TensorFlow's NHWC attributes (`check_nhwc`,
`padding`, `spatial_pair`) are read here, and the ONNX importer shares the
layout and padding arithmetic (`same_pads`, `TO_NHWC`, `rank4_constant`,
`reduction_axes_in_layout`) and the lite-op choices (`lite_pow_opcode`).

Example:
  >>> from converters import lowering
  >>> lowering.same_pads(in_size=5, kernel=3, stride=2, dilation=1)
  (1, 1)
  >>> lowering.reduction_axes_in_layout([1, 2], False, lowering.NHWC_TO_NCHW_AXIS)
  [2, 3]
"""

import numpy as np

from converters.errors import ConversionError, NodeError, convert_nodes, unsupported_ops_error
from converters.graph_util import GraphView, attr, data_inputs, parse_input, tensor_name

# Permutations between TensorFlow's NHWC and ONNX's NCHW, and where each axis
# of one layout lands in the other.
TO_NCHW, TO_NHWC = (0, 3, 1, 2), (0, 2, 3, 1)
NHWC_TO_NCHW_AXIS = {0: 0, 1: 2, 2: 3, 3: 1}
NCHW_TO_NHWC_AXIS = {0: 0, 1: 3, 2: 1, 3: 2}
# The TF ops that add a bias a MatMul / Conv2D can absorb.
BIAS_ADDS = ("BiasAdd", "Add", "AddV2")
# SELU's fixed alpha and gamma (Klambauer et al. 2017), as TensorFlow and ONNX define them.
SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875
# The static size a model input's run-time spatial dim (height, width, length) is given while shapes are inferred
# under convolutions and pools (1 would be smaller than their windows), by both converters.
SPATIAL_FILL = 32
# Frozen-graph nodes that are no op to convert: constants are added where
# they are read, placeholders are the model's inputs.
LEAVES = ("Const", "Placeholder")


def require_const(value, i, what):
    """`value` (the constant at input `i`), or a NodeError saying that `what`
    must be a constant."""
    if value is None:
        raise NodeError(f"{what} (input {i}) must be a constant")
    return value


class GraphLowering:
    """What a conversion of a frozen GraphDef sees: the graph, the consumers
    of each tensor, the model outputs and the nodes absorbed (fused) into an
    earlier one."""

    def __init__(self, graph_def, outputs):
        self.view = GraphView(graph_def)
        self.consumers = self.view.consumers()
        self.outputs = set(outputs)
        self.absorbed = set()  # names of nodes fused into an earlier op

    def const(self, node, i):
        """The value of data input `i` of `node` if a Const makes it, else None."""
        return self.view.const_value(data_inputs(node)[i])

    def require_const(self, node, i, what):
        return require_const(self.const(node, i), i, what)

    def sole_consumer(self, tensor, op_types):
        """The one consumer of `tensor` if its op is in `op_types` and the
        tensor is not a model output; else None."""
        tensor = tensor_name(tensor)
        users = self.consumers.get(tensor, [])
        if tensor in self.outputs or len(users) != 1 or users[0][0].op not in op_types:
            return None
        return users[0][0]

    def fuse_bias(self, tensor, channels):
        """(bias values [channels] or None, TF tensor after the bias add): the
        sole consumer of `tensor` when it adds a constant of `channels` values
        along the last dim, marked absorbed."""
        node = self.sole_consumer(tensor, BIAS_ADDS)
        if node is None:
            return None, tensor
        other = 1 - [tensor_name(i) for i in node.input].index(tensor_name(tensor))
        value = self.view.const_value(node.input[other])
        if value is None or value.ndim > 1 and any(d != 1 for d in value.shape[:-1]):
            return None, tensor
        if value.size != channels:
            return None, tensor
        self.absorbed.add(node.name)
        return value.reshape(-1), f"{node.name}:0"


# --- the driver's steps -----------------------------------------------------------------
def nodes_to_convert(view, table, target):
    """The nodes of `view` to convert, in topological order (no leaves); a
    ConversionError naming every one whose op type `table` lacks."""
    nodes = [view.nodes[name] for name in view.topological_order() if view.nodes[name].op not in LEAVES]
    unsupported = [(node.name, node.op) for node in nodes if node.op not in table]
    if unsupported:
        raise unsupported_ops_error(unsupported, target)
    return nodes


def convert_all(ctx, nodes, table, target):
    """Converts each node with its `table` entry, skipping the ones an
    earlier node absorbed; one ConversionError naming every node that fails."""
    convert_nodes(
        nodes,
        lambda node: None if node.name in ctx.absorbed else table[node.op](ctx, node),
        lambda node: f"'{node.name}' ({node.op})",
        target,
    )


def signature_keys(tensors, keys):
    """(tensor, signature key) pairs; the keys default to the node names."""
    return zip(tensors, keys or [parse_input(t)[0] for t in tensors])


def placeholder(view, tensor):
    """The Placeholder node making model input `tensor`."""
    node = view.node(tensor)
    if node.op != "Placeholder":
        raise ConversionError(f"input '{tensor}' is not a Placeholder of the frozen graph")
    return node


# --- TensorFlow's NHWC attributes -------------------------------------------------------
def check_nhwc(node):
    if attr(node, "data_format", "NHWC") != "NHWC":
        raise NodeError(f"data_format {attr(node, 'data_format')} is not supported (NHWC only)")


def padding(node):
    """ "SAME" or "VALID", the node's padding attr."""
    value = attr(node, "padding")
    if value not in ("SAME", "VALID"):
        raise NodeError(f"padding {value!r} is not supported (SAME or VALID)")
    return value


def explicit_pads(node):
    """[(top, bottom), (left, right)] of a convolution with padding "EXPLICIT", else None."""
    if attr(node, "padding") != "EXPLICIT":
        return None
    values = list(attr(node, "explicit_paddings", []))
    if len(values) != 8 or any(values[i] for i in (0, 1, 6, 7)) or min(values) < 0:
        raise NodeError(f"explicit_paddings {values} must be 8 non-negative values, zero on N and C")
    return [(values[2], values[3]), (values[4], values[5])]


def spatial_pair(node, name, default=(1, 1, 1, 1)):
    """[h, w] of an NHWC attr [1, h, w, 1] (strides, dilations, ksize)."""
    values = attr(node, name, list(default))
    if len(values) != 4 or values[0] != 1 or values[3] != 1:
        raise NodeError(f"{name} {values} must be [1, h, w, 1]")
    return values[1:3]


# --- layout and padding arithmetic -----------------------------------------------------------
def same_pads(in_size, kernel, stride, dilation=1):
    """(before, after) padding of one spatial dim under SAME: the output has
    ceil(in_size / stride) elements, the odd element of padding goes after."""
    out = -(-in_size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - in_size, 0)
    return total // 2, total - total // 2


def rank4_constant(value, perm):
    """Constant `value` of rank <= 4 broadcast to rank 4 (leading 1s) and
    transposed by `perm`, for an elementwise op running in the other layout."""
    value = value.reshape((1,) * (4 - value.ndim) + value.shape).transpose(perm)
    return np.ascontiguousarray(value)


def reduction_axes_in_layout(axes, keep_dims, position):
    """The sorted axes of a rank-4 reduction over `axes` run in the other
    layout (`position`: axis -> its place there), or None when the kept dims
    would come out of it in another order."""
    kept = [a for a in range(4) if a not in axes]
    if not keep_dims and sorted(kept, key=lambda a: position[a]) != kept:
        return None
    return sorted(position[a] for a in axes)


def lite_window_options(padding, strides, dilations=None, kernel=None):
    """The lite options of a 2-D window op: `padding` ("SAME"|"VALID"),
    [h, w] `strides`, and the `dilations` of a conv or the `kernel` of a pool."""
    options = {"padding": padding, "stride_h": strides[0], "stride_w": strides[1]}
    if dilations is not None:
        options.update(dilation_h_factor=dilations[0], dilation_w_factor=dilations[1])
    if kernel is not None:
        options.update(filter_height=kernel[0], filter_width=kernel[1])
    return options


# --- lite ops -----------------------------------------------------------------------------
def area_resize_factors(node, shape, size):
    """(down, up): the whole factor by which ResizeArea `node` shrinks or grows each of the height and width of
    NHWC `shape` to `size` (1 where it does not); NodeError for align_corners, a size that is not a positive
    [height, width] or a fractional factor."""
    if len(size) != 2 or min(size) < 1:
        raise NodeError(f"size {size} is not a positive [height, width]")
    if attr(node, "align_corners", False):
        raise NodeError("align_corners=True is not supported (only align_corners=False)")
    down, up = [], []
    for n, m in zip(shape[1:3], size):
        if n % m and m % n:
            raise NodeError(
                f"resizing {shape[1:3]} to {size}: each axis must shrink or grow by a whole factor (averaging "
                "fractional pixel areas is not supported)"
            )
        down.append(n // m if n % m == 0 else 1)
        up.append(m // n if n % m else 1)
    return down, up


def lite_pow_opcode(exponent):
    """The lite op of x ** `exponent`: only the exponents with one, x^2
    (SQUARE), x^0.5 (SQRT), x^-0.5 (RSQRT)."""
    opcode = {2.0: "SQUARE", 0.5: "SQRT", -0.5: "RSQRT"}.get(float(exponent) if exponent.size == 1 else None)
    if opcode is None:
        raise NodeError(f"exponent {exponent.tolist()} has no lite op (2, 0.5 or -0.5)")
    return opcode


def plane_transpose_conv_options(strides, dilations, begins, out_h, out_w):
    """TransposeConvOptions over the (H, W) planes of a 3-D transposed convolution whose depth is folded into the
    batch; `strides`, `dilations` and `begins` (padding before) are [depth, height, width]."""
    return {
        "stride_h": strides[1],
        "stride_w": strides[2],
        "dilation_h_factor": dilations[1],
        "dilation_w_factor": dilations[2],
        "pad_top": begins[1],
        "pad_left": begins[2],
        "out_h": out_h,
        "out_w": out_w,
    }


def transposed_depth_taps(ctx, prefix, like, taps, n, d, d2, features, stride, dilation, begin):
    """The [n, d2, features] sum over the depth taps of a 3-D transposed convolution whose H and W are done:
    `taps[k]` is [n * d, ...] (features per input depth slice), the TRANSPOSE_CONV of the input's depth slices
    (folded into the batch) by the filter's tap k; input depth j of tap k lands on output depth
    j * stride + k * dilation - begin. Each tap's rows are spread by the stride (PAD), shifted into place
    (STRIDED_SLICE / PAD) and the taps added. `ctx` is a .twl builder context (tf_to_twl's or the ONNX
    importer's); new tensors are named under `prefix`, shaped like `like`'s batch."""

    def tensor(suffix, shape):
        return ctx.intermediate(f"{prefix}/{suffix}", shape, np.float32, like=like)

    def const(suffix, value):
        return ctx.constant(f"{prefix}/{suffix}", np.array(value, np.int32))

    def rows(k, x, begin, end, suffix):
        taken = tensor(f"tap{k}_{suffix}", [n, end - begin, features])
        bounds = [const(f"tap{k}_{suffix}_{what}", v) for what, v in (("begin", [0, begin, 0]), ("end", [0, end, 0]))]
        mask = ("StridedSliceOptions", {"begin_mask": 0b101, "end_mask": 0b101})
        ctx.builder.add_op("STRIDED_SLICE", [x, *bounds, const(f"tap{k}_{suffix}_strides", [1, 1, 1])], [taken], mask)
        return taken

    total = None
    for k, planes in enumerate(taps):
        spread, length = tensor(f"tap{k}_rows", [n, d, features]), d
        ctx.builder.add_op("RESHAPE", [planes, const(f"tap{k}_rows_shape", [-1, d, features])], [spread])
        if stride > 1:  # input depth j at row j * stride
            grouped = tensor(f"tap{k}_grouped", [n, d, 1, features])
            ctx.builder.add_op("RESHAPE", [spread, const(f"tap{k}_grouped_shape", [-1, d, 1, features])], [grouped])
            strided = tensor(f"tap{k}_strided", [n, d, stride, features])
            paddings = const(f"tap{k}_strided_paddings", [[0, 0], [0, 0], [0, stride - 1], [0, 0]])
            ctx.builder.add_op("PAD", [grouped, paddings], [strided])
            length = d * stride
            spread = tensor(f"tap{k}_spread", [n, length, features])
            ctx.builder.add_op("RESHAPE", [strided, const(f"tap{k}_spread_shape", [-1, length, features])], [spread])
        offset = k * dilation - begin  # where row 0 lands in the output depth
        if offset < 0:
            cut = min(-offset, length)
            spread, length = rows(k, spread, cut, length, "after_start"), length - cut
        before = max(offset, 0)
        if before + length > d2:
            keep = max(d2 - before, 0)
            spread, length = rows(k, spread, 0, keep, "before_end"), keep
        if before or before + length < d2:
            placed = tensor(f"tap{k}_placed", [n, d2, features])
            paddings = const(f"tap{k}_placed_paddings", [[0, 0], [before, d2 - before - length], [0, 0]])
            ctx.builder.add_op("PAD", [spread, paddings], [placed])
            spread = placed
        if total is not None:
            summed = tensor(f"taps{k}", [n, d2, features])
            ctx.builder.add_op("ADD", [total, spread], [summed], ("ArithmeticOptions", {}))
            spread = summed
        total = spread
    return total
