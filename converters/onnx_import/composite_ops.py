"""Importers of ops lowered to several existing lite ops (no lite op of
their own): RotaryEmbedding, DFT, STFT, CenterCropPad, AffineGrid,
CausalConvWithState, LinearAttention (unrolled over its time steps),
Col2Im (a TRANSPOSE_CONV with one-hot filters), DeformConv (GRID_SAMPLE
per kernel tap, then a grouped BATCH_MATMUL) and Det (small matrices, by
the Leibniz formula).

RotaryEmbedding is linear along the head dim: out = x * C + x[perm] * S with
per-position tables C, S built from the (constant) cos/sin caches, and
perm the constant index swap of the rotated halves (or pairs); a GATHER of
the tables by position_ids, a GATHER of x by perm, two MULs and an ADD.
DFT of a static length is a product with constant cosine and sine matrices
(FULLY_CONNECTED), and STFT that after a GATHER of the frames, with the
window folded into the matrix; CenterCropPad is a STRIDED_SLICE and/or a
PAD; AffineGrid a BATCH_MATMUL of a constant base grid with theta.
"""

import itertools

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.onnx_import.context import attrs, imports


def _reshape(ctx, src, shape, name, like, dtype=np.float32):
    """A RESHAPE of twl tensor `src` to `shape` (the batch inferred when the
    ONNX tensor `like`'s first dim is symbolic)."""
    sig = ctx.batch_signature(like, shape)
    target = [-1] + list(shape[1:]) if sig else list(shape)
    out = ctx.builder.add_tensor(name, list(shape), dtype, sig)
    dims = ctx.constant(f"{name}/shape", np.array(target, np.int32))
    ctx.builder.add_op("RESHAPE", [src, dims], [out])
    return out


def _rotary_tables(cos, sin, head, rot, interleaved):
    """(perm [head], C [..., head], S [..., head]) of caches [..., rot/2]."""
    half = rot // 2
    j = np.arange(head)
    perm = j.copy()
    lead = cos.shape[:-1]
    c = np.ones(lead + (head,), np.float32)
    s = np.zeros(lead + (head,), np.float32)
    if interleaved:
        perm[0:rot:2], perm[1:rot:2] = j[1:rot:2], j[0:rot:2]
        c[..., 0:rot:2] = c[..., 1:rot:2] = cos
        s[..., 0:rot:2], s[..., 1:rot:2] = -sin, sin
    else:
        perm[:half], perm[half:rot] = j[half:rot], j[:half]
        c[..., :half] = c[..., half:rot] = cos
        s[..., :half], s[..., half:rot] = -sin, sin
    return perm.astype(np.int32), c, s


@imports("RotaryEmbedding")
def _rotary_embedding(ctx, node):
    a = attrs(node)
    x, out = node.input[0], node.output[0]
    if ctx.dtype(x) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(x))}; the lowering computes in float32")
    shape = list(ctx.shape(x))
    if len(shape) == 4:
        batch, heads, seq, head = shape
        view = shape  # [B, H, S, D]; the tables broadcast as [B, 1, S, D]
    elif len(shape) == 3:
        heads = int(a.get("num_heads", 0))
        if heads <= 0 or shape[2] % heads:
            raise _NodeError(f"a 3-D input needs num_heads dividing its hidden size {shape[2]} (num_heads {heads})")
        batch, seq, head = shape[0], shape[1], shape[2] // heads
        view = [batch, seq, heads, head]  # the tables broadcast as [B, S, 1, D]
    else:
        raise _NodeError(f"input of rank {len(shape)}; RotaryEmbedding takes rank 3 or 4")
    rot = int(a.get("rotary_embedding_dim", 0)) or head
    if rot % 2 or rot > head:
        raise _NodeError(f"rotary_embedding_dim {rot} must be even and at most the head size {head}")
    cos = ctx.const(node.input[1])
    sin = ctx.const(node.input[2])
    if cos is None or sin is None:
        raise _NodeError("cos_cache and sin_cache must be constants")
    if cos.shape != sin.shape or cos.shape[-1:] != (rot // 2,):
        raise _NodeError(f"caches {list(cos.shape)} and {list(sin.shape)}: their last dim must be {rot // 2}")
    positions = node.input[3] if len(node.input) > 3 and node.input[3] else None
    if positions is None and (cos.ndim != 3 or list(cos.shape[:2]) != [batch, seq]):
        raise _NodeError(f"without position_ids the caches must be [{batch}, {seq}, {rot // 2}], not {list(cos.shape)}")
    if positions is not None and cos.ndim != 2:
        raise _NodeError(f"with position_ids the caches must be 2-D, not {list(cos.shape)}")
    perm, c, s = _rotary_tables(
        cos.astype(np.float32), sin.astype(np.float32), head, rot, bool(a.get("interleaved", 0))
    )
    table_shape = [batch, 1, seq, head] if len(shape) == 4 else [batch, seq, 1, head]
    pos = ctx.const(positions) if positions is not None else None
    if positions is not None and pos is not None:
        if pos.min() < 0 or pos.max() >= len(c):
            raise _NodeError(f"position_ids outside [0, {len(c)})")
        c, s = c[pos], s[pos]
        positions = None
    if positions is None:
        tables = [
            ctx.constant(f"{out}/{w}", np.ascontiguousarray(t.reshape(table_shape)))
            for w, t in (("cos", c), ("sin", s))
        ]
    else:
        if ctx.dtype(positions) not in (np.int32, np.int64):
            raise _NodeError(f"position_ids are {np.dtype(ctx.dtype(positions))}, not int32 or int64")
        tables = []
        for w, t in (("cos", c), ("sin", s)):
            g = ctx.intermediate(f"{out}/{w}_rows", [batch, seq, head], np.float32, like=x)
            options = ("GatherOptions", {"axis": 0})
            ctx.builder.add_op("GATHER", [ctx.constant(f"{out}/{w}", t), ctx.plain(positions)], [g], options)
            tables.append(_reshape(ctx, g, table_shape, f"{out}/{w}_table", x))
    src = ctx.plain(x)
    if view != shape:
        src = _reshape(ctx, src, view, f"{out}/heads", x)
    swapped = ctx.intermediate(f"{out}/swapped", view, np.float32, like=x)
    idx = ctx.constant(f"{out}/perm", perm)
    ctx.builder.add_op("GATHER", [src, idx], [swapped], ("GatherOptions", {"axis": 3}))
    products = []
    for w, operand, table in (("x_cos", src, tables[0]), ("swapped_sin", swapped, tables[1])):
        p = ctx.intermediate(f"{out}/{w}", view, np.float32, like=x)
        ctx.builder.add_op("MUL", [operand, table], [p], ("ArithmeticOptions", {}))
        products.append(p)
    if view == shape:
        ctx.builder.add_op("ADD", products, [ctx.output(out)], ("ArithmeticOptions", {}))
        return
    rotated = ctx.intermediate(f"{out}/rotated", view, np.float32, like=x)
    ctx.builder.add_op("ADD", products, [rotated], ("ArithmeticOptions", {}))
    sig = ctx.signature_of(out, shape)
    target = [-1] + shape[1:] if sig and sig[0] == -1 else shape
    dims = ctx.constant(f"{out}/shape", np.array(target, np.int32))
    ctx.builder.add_op("RESHAPE", [rotated, dims], [ctx.output(out)])


def _dft_matrix(n_in, comps, length, inverse, onesided):
    """The [comps * n_in, out] float64 matrix that maps the comp-major
    signal [real n_in | imag n_in] to [real K | imag K] (or, for the
    inverse of a one-sided spectrum, the real signal [length])."""
    if inverse and onesided:  # numpy's irfft: Hermitian extension of K bins
        bins = length // 2 + 1
        k = np.arange(min(n_in, bins))[:, None]
        theta = 2 * np.pi * k * np.arange(length)[None, :] / length
        weight = np.where((k == 0) | (2 * k == length), 1.0, 2.0) / length
        w = np.zeros([comps * n_in, length])
        w[: len(k)] = weight * np.cos(theta)
        if comps == 2:
            w[n_in : n_in + len(k)] = -weight * np.sin(theta)
        return w
    bins = length // 2 + 1 if onesided else length
    n = np.arange(min(n_in, length))[:, None]
    theta = 2 * np.pi * n * np.arange(bins)[None, :] / length
    sign, scale = (1.0, 1.0 / length) if inverse else (-1.0, 1.0)
    cos, sin = scale * np.cos(theta), scale * sign * np.sin(theta)
    w = np.zeros([comps * n_in, 2 * bins])
    w[: len(n), :bins], w[: len(n), bins:] = cos, sin  # real part in
    if comps == 2:
        w[n_in : n_in + len(n), :bins], w[n_in : n_in + len(n), bins:] = -sin, cos  # imaginary part in
    return w


@imports("DFT")
def _dft(ctx, node):
    """A DFT over a static axis as one FULLY_CONNECTED with a constant
    [cos | sin] matrix, between TRANSPOSE/RESHAPEs that bring the axis and
    the real/imaginary dim last."""
    a = attrs(node)
    x, out = node.input[0], node.output[0]
    if ctx.dtype(x) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(x))}; the lowering computes in float32")
    shape = list(ctx.shape(x))
    rank = len(shape)
    comps = shape[-1]
    if rank < 2 or comps not in (1, 2):
        raise _NodeError(f"input shape {shape}: the last dim must be 1 (real) or 2 (complex)")
    if ctx.opset >= 20:
        axis = int(ctx.require_const(node, 2, "axis")) if len(node.input) > 2 and node.input[2] else -2
    else:
        axis = int(a.get("axis", 1))
    if not -rank <= axis < rank or axis % rank == rank - 1:
        raise _NodeError(f"axis {axis} of a rank-{rank} input: it must name a signal dim, not the last")
    axis %= rank
    inverse, onesided = bool(a.get("inverse", 0)), bool(a.get("onesided", 0))
    n_in = shape[axis]
    if len(node.input) > 1 and node.input[1]:
        length = int(ctx.require_const(node, 1, "dft_length"))
    else:
        length = 2 * (n_in - 1) if inverse and onesided else n_in
    if length < 1:
        raise _NodeError(f"dft_length {length} is not positive")
    sig = ctx.signature_of(x, shape) or [0] * rank
    if sig[axis] == -1:
        raise _NodeError(f"the signal axis {axis} is dynamic")
    w = _dft_matrix(n_in, comps, length, inverse, onesided)
    others = [d for d in range(rank - 1) if d != axis]
    perm = others + [rank - 1, axis]  # [..., comps, n_in]
    src = ctx.plain(x)
    # [..., n_in, 1] is [..., 1, n_in] already; the others need a TRANSPOSE.
    if comps != 1 or axis != rank - 2:
        t = ctx.intermediate(f"{out}/signal_last", [shape[p] for p in perm], np.float32, like=x)
        ctx.builder.add_op("TRANSPOSE", [src, ctx.constant(f"{out}/perm", np.array(perm, np.int32))], [t])
        src = t
    lead = [shape[d] for d in others]
    rows = int(np.prod(lead, dtype=np.int64))
    batch_like = x if others and others[0] == 0 else None  # the batch leads the rows
    flat = _reshape(ctx, src, [rows, comps * n_in], f"{out}/rows", batch_like)
    weights = ctx.constant(f"{out}/dft_matrix", np.ascontiguousarray(w.T.astype(np.float32)))
    y = ctx.intermediate(f"{out}/spectrum", [rows, w.shape[1]], np.float32, like=batch_like)
    options = ("FullyConnectedOptions", {"fused_activation_function": "NONE", "keep_num_dims": False})
    ctx.builder.add_op("FULLY_CONNECTED", [flat, weights, -1], [y], options)
    out_shape = list(ctx.shape(out))
    out_comps, bins = out_shape[-1], out_shape[axis]
    if out_comps * bins != w.shape[1]:
        raise _NodeError(f"output shape {out_shape} does not match the transform's {out_comps} x {bins}")
    grouped = _reshape(ctx, y, lead + [out_comps, bins], f"{out}/grouped", batch_like)
    back = list(np.argsort(perm))
    if out_comps == 1 and axis == rank - 2:
        back = None  # [..., 1, bins] and [..., bins, 1] have one layout
    if back is None or back == list(range(rank)):
        dims = ctx.constant(f"{out}/shape", np.array(_target(ctx, out, out_shape), np.int32))
        ctx.builder.add_op("RESHAPE", [grouped, dims], [ctx.output(out)])
        return
    p = ctx.constant(f"{out}/perm_back", np.array(back, np.int32))
    ctx.builder.add_op("TRANSPOSE", [grouped, p], [ctx.output(out)])


def _target(ctx, name, shape):
    """A RESHAPE's target for ONNX tensor `name` (-1 for a dynamic batch)."""
    sig = ctx.signature_of(name, shape)
    return [-1] + list(shape[1:]) if sig and sig[0] == -1 else list(shape)


@imports("CenterCropPad")
def _center_crop_pad(ctx, node):
    """A centered crop (STRIDED_SLICE) and/or a zero PAD to the constant
    target shape, per axis as ONNX rounds: the crop starts at floor((dim -
    size) / 2), the odd pad pixel goes to the end."""
    x, out = node.input[0], node.output[0]
    shape = list(ctx.shape(x))
    rank = len(shape)
    sizes = [int(v) for v in np.asarray(ctx.require_const(node, 1, "shape")).reshape(-1)]
    axes = [int(v) for v in attrs(node).get("axes", range(rank))]
    if len(axes) != len(sizes) or any(not -rank <= v < rank for v in axes):
        raise _NodeError(f"axes {axes} do not match the {len(sizes)} target sizes of a rank-{rank} input")
    axes = [v % rank for v in axes]
    if len(set(axes)) != len(axes) or any(s < 1 for s in sizes):
        raise _NodeError(f"axes {axes} repeat or sizes {sizes} are not positive")
    sig = ctx.signature_of(x, shape) or [0] * rank
    begin, end, paddings = [0] * rank, list(shape), np.zeros([rank, 2], np.int32)
    for axis, size in zip(axes, sizes):
        dim = shape[axis]
        if size != dim and sig[axis] == -1:
            raise _NodeError(f"axis {axis} is dynamic")
        if dim > size:
            begin[axis] = (dim - size) // 2
            end[axis] = begin[axis] + size
        elif dim < size:
            paddings[axis] = ((size - dim) // 2, size - dim - (size - dim) // 2)
    src = ctx.plain(x)
    cropped = [e - b for b, e in zip(begin, end)]
    steps = []
    if cropped != shape:
        steps.append(("crop", cropped))
    if paddings.any() or not steps:
        steps.append(("pad", list(ctx.shape(out))))
    for k, (what, step_shape) in enumerate(steps):
        dst = (
            ctx.output(out)
            if k == len(steps) - 1
            else ctx.intermediate(f"{out}/{what}", step_shape, ctx.dtype(x), like=x)
        )
        if what == "crop":
            bounds = [
                ctx.constant(f"{out}/{w}", np.array(v, np.int32))
                for w, v in (("begin", begin), ("end", end), ("strides", [1] * rank))
            ]
            ctx.builder.add_op("STRIDED_SLICE", [src] + bounds, [dst], ("StridedSliceOptions", {}))
        else:
            ctx.builder.add_op("PAD", [src, ctx.constant(f"{out}/paddings", paddings)], [dst])
        src = dst


@imports("STFT")
def _stft(ctx, node):
    """The frames as one GATHER of a constant [frames, frame_length] index
    matrix, then their DFTs as one FULLY_CONNECTED whose constant matrix has
    the (constant) window folded in; TRANSPOSE/RESHAPEs around it."""
    a = attrs(node)
    x, out = node.input[0], node.output[0]
    if ctx.dtype(x) != np.float32:
        raise _NodeError(f"signal is {np.dtype(ctx.dtype(x))}; the lowering computes in float32")
    shape = list(ctx.shape(x))
    if len(shape) == 2:  # [batch, length]: a real signal (onnxruntime and PyTorch's export)
        shape.append(1)
    if len(shape) != 3 or shape[2] not in (1, 2):
        raise _NodeError(f"signal shape {shape} is not [batch, length, 1 or 2]")
    batch, n, comps = shape
    step = int(ctx.require_const(node, 1, "frame_step"))
    window = None
    if len(node.input) > 2 and node.input[2]:
        window = ctx.require_const(node, 2, "window").astype(np.float64).reshape(-1)
    if len(node.input) > 3 and node.input[3]:
        length = int(ctx.require_const(node, 3, "frame_length"))
    else:
        length = len(window) if window is not None else n
    if window is not None and len(window) != length:
        raise _NodeError(f"window of {len(window)} values for frames of {length}")
    if step < 1 or not 1 <= length <= n:
        raise _NodeError(f"frame_step {step} and frame_length {length} do not frame a signal of {n}")
    frames = (n - length) // step + 1
    indices = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).astype(np.int32)
    framed_shape = [batch, frames, length] + ([comps] if ctx.rank(x) == 3 else [])
    framed = ctx.intermediate(f"{out}/frames", framed_shape, np.float32, like=x)
    idx = ctx.constant(f"{out}/frame_indices", indices)
    ctx.builder.add_op("GATHER", [ctx.plain(x), idx], [framed], ("GatherOptions", {"axis": 1}))
    if comps == 2:  # [.., length, 2] -> [.., 2, length]: the real part, then the imaginary
        t = ctx.intermediate(f"{out}/frames_by_part", [batch, frames, 2, length], np.float32, like=x)
        perm = ctx.constant(f"{out}/perm", np.array([0, 1, 3, 2], np.int32))
        ctx.builder.add_op("TRANSPOSE", [framed, perm], [t])
        framed = t
    onesided = bool(a.get("onesided", 1))
    w = _dft_matrix(length, comps, length, False, onesided)
    if window is not None:
        w *= np.tile(window, comps)[:, None]
    rows = _reshape(ctx, framed, [batch * frames, comps * length], f"{out}/rows", x)
    weights = ctx.constant(f"{out}/dft_matrix", np.ascontiguousarray(w.T.astype(np.float32)))
    y = ctx.intermediate(f"{out}/spectrum", [batch * frames, w.shape[1]], np.float32, like=x)
    options = ("FullyConnectedOptions", {"fused_activation_function": "NONE", "keep_num_dims": False})
    ctx.builder.add_op("FULLY_CONNECTED", [rows, weights, -1], [y], options)
    bins = w.shape[1] // 2
    if list(ctx.shape(out)) != [batch, frames, bins, 2]:
        raise _NodeError(f"output shape {list(ctx.shape(out))} is not [{batch}, {frames}, {bins}, 2]")
    grouped = _reshape(ctx, y, [batch, frames, 2, bins], f"{out}/grouped", x)
    perm = ctx.constant(f"{out}/perm_back", np.array([0, 1, 3, 2], np.int32))
    ctx.builder.add_op("TRANSPOSE", [grouped, perm], [ctx.output(out)])


def _affine_base_grid(spatial, align_corners):
    """The homogeneous [prod(spatial), rank + 1] positions (x first, then y,
    z, then 1) of onnx's AffineGrid, from -1 to 1 along each dim."""

    def positions(n):
        if align_corners:
            return np.linspace(-1.0, 1.0, n) if n > 1 else np.array([-1.0])
        return (2.0 * np.arange(n) + 1.0) / n - 1.0

    mesh = np.meshgrid(*[positions(n) for n in spatial], indexing="ij")
    coords = [m.reshape(-1) for m in reversed(mesh)]  # x (the last dim) first
    return np.stack(coords + [np.ones(int(np.prod(spatial)))], axis=1)


def _affine_grid_size(ctx, node):
    """AffineGrid's size when only its N is a run-time value (x.shape of a
    dynamic batch, as torch exports F.affine_grid(theta, x.size())): the
    static size, N read from theta at run time; else None."""
    if len(node.input) < 2 or node.input[1] not in ctx.symbolic:
        return None
    static, probe, _ = ctx.symbolic[node.input[1]]
    static = [int(v) for v in np.asarray(static).reshape(-1)]
    if probe is None or len(static) < 2:
        return None
    probe = [int(v) for v in np.asarray(probe).reshape(-1)]
    theta_sig = ctx.signature_of(node.input[0], ctx.shape(node.input[0]))
    if len(probe) != len(static) or probe[1:] != static[1:] or not theta_sig or theta_sig[0] != -1:
        return None
    return static


@imports("AffineGrid")
def _affine_grid(ctx, node):
    """The constant homogeneous base grid times theta transposed (one
    BATCH_MATMUL with adj_y), reshaped to [N, (D,) H, W, 2 or 3]."""
    theta, out = node.input[0], node.output[0]
    if ctx.dtype(theta) != np.float32:
        raise _NodeError(f"theta is {np.dtype(ctx.dtype(theta))}; the lowering computes in float32")
    size, run_time_batch = _affine_grid_size(ctx, node), False
    if size is None:
        size = [int(v) for v in np.asarray(ctx.require_const(node, 1, "size")).reshape(-1)]
    else:
        run_time_batch = True
    if len(size) not in (4, 5) or min(size) < 1:
        raise _NodeError(f"size {size} is not a positive (N, C, H, W) or (N, C, D, H, W)")
    spatial = size[2:]
    rank = len(spatial)
    if list(ctx.shape(theta)) != [size[0], rank, rank + 1]:
        raise _NodeError(f"theta {list(ctx.shape(theta))} is not [{size[0]}, {rank}, {rank + 1}] for size {size}")
    base = _affine_base_grid(spatial, bool(attrs(node).get("align_corners", 0)))
    grid = ctx.intermediate(f"{out}/flat", [size[0], len(base), rank], np.float32, like=theta)
    b = ctx.constant(f"{out}/base_grid", base.astype(np.float32))
    ctx.builder.add_op("BATCH_MATMUL", [b, ctx.plain(theta)], [grid], ("BatchMatMulOptions", {"adj_y": True}))
    batch = -1 if run_time_batch else size[0]
    dims = ctx.constant(f"{out}/shape", np.array([batch] + spatial + [rank], np.int32))
    ctx.builder.add_op("RESHAPE", [grid, dims], [ctx.output(out)])


@imports("CausalConvWithState")
def _causal_conv_with_state(ctx, node):
    """CONCAT of the carry state (or zeros) before the input on the length
    axis; the depthwise causal conv as k STRIDED_SLICE x MUL (by a constant
    weight column) summed by ADDs, then the bias ADD and SWISH for silu; the
    present state is the last k - 1 positions of the concatenation."""
    x, out = node.input[0], node.output[0]
    if ctx.dtype(x) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(x))}; the lowering computes in float32")
    shape = list(ctx.shape(x))
    if len(shape) != 3:
        raise _NodeError(f"input shape {shape} is not [batch, channels, length]")
    batch, channels, length = shape
    weight = ctx.require_const(node, 1, "weight").astype(np.float32)
    if weight.ndim != 3 or weight.shape[:2] != (channels, 1):
        raise _NodeError(f"weight {list(weight.shape)} is not [{channels}, 1, k]")
    k = weight.shape[2]
    bias = None
    if len(node.input) > 2 and node.input[2]:
        bias = ctx.const(node.input[2])
        if bias is None or bias.shape != (channels,):
            raise _NodeError(f"bias must be a constant [{channels}]")
    activation = attrs(node).get("activation", "none")
    activation = activation.decode() if isinstance(activation, bytes) else activation
    if activation not in ("none", "silu", "swish"):
        raise _NodeError(f"activation '{activation}' is not 'silu', 'swish' or 'none'")
    past = node.input[3] if len(node.input) > 3 and node.input[3] else None
    if past is not None and list(ctx.shape(past)) != [batch, channels, k - 1]:
        raise _NodeError(f"past_state {list(ctx.shape(past))} is not [{batch}, {channels}, {k - 1}]")
    want_state = len(node.output) > 1 and node.output[1]
    if want_state and k == 1:
        raise _NodeError("kernel size 1: present_state has no elements (an empty tensor)")
    sig = ctx.signature_of(x, shape) or [0] * 3
    if sig[2] == -1:
        raise _NodeError("the length axis is dynamic")
    if past is None and sig[0] == -1 and k > 1:
        raise _NodeError("a dynamic batch needs past_state (the zero state has the batch's size)")
    padded = ctx.plain(x)
    if k > 1:
        zeros = np.zeros([batch, channels, k - 1], np.float32)
        state = ctx.plain(past) if past is not None else ctx.constant(f"{out}/zero_state", zeros)
        t = ctx.intermediate(f"{out}/padded", [batch, channels, k - 1 + length], np.float32, like=x)
        ctx.builder.add_op("CONCATENATION", [state, padded], [t], ("ConcatenationOptions", {"axis": 2}))
        padded = t
    # The ops after the taps: each writes a new tensor, the last the output.
    steps = ["MUL"] + ["ADD"] * (k - 1) + (["BIAS"] if bias is not None else [])
    steps += ["SWISH"] if activation != "none" else []
    made = [0]

    def dst(what):
        made[0] += 1
        if made[0] == len(steps):
            return ctx.output(out)
        return ctx.intermediate(f"{out}/{what}{made[0]}", shape, np.float32, like=x)

    total = None
    for j in range(k):
        window = padded
        if k > 1:
            window = ctx.intermediate(f"{out}/tap{j}", shape, np.float32, like=x)
            _length_slice(ctx, padded, j, j + length, window)
        column = ctx.constant(f"{out}/w{j}", np.ascontiguousarray(weight[:, 0, j].reshape(channels, 1)))
        product = dst("product") if j == 0 else ctx.intermediate(f"{out}/p{j}", shape, np.float32, like=x)
        ctx.builder.add_op("MUL", [window, column], [product], ("ArithmeticOptions", {}))
        if total is not None:
            acc = dst("sum")
            ctx.builder.add_op("ADD", [total, product], [acc], ("ArithmeticOptions", {}))
            product = acc
        total = product
    if bias is not None:
        b = ctx.constant(f"{out}/bias", np.ascontiguousarray(bias.astype(np.float32).reshape(channels, 1)))
        biased = dst("biased")
        ctx.builder.add_op("ADD", [total, b], [biased], ("ArithmeticOptions", {}))
        total = biased
    if activation != "none":
        ctx.builder.add_op("SWISH", [total], [dst("swish")], ("ActivationParamsOptions", {"alpha": 1.0}))
    if want_state:
        _length_slice(ctx, padded, length, length + k - 1, ctx.output(node.output[1]))


def _length_slice(ctx, src, begin, end, dst):
    """dst = src[:, :, begin:end] (a STRIDED_SLICE of a rank-3 tensor)."""
    bounds = [
        ctx.constant(f"{ctx.builder.tensor(dst).name}/{w}", np.array(v, np.int32))
        for w, v in (("begin", [0, 0, begin]), ("end", [0, 0, end]), ("strides", [1, 1, 1]))
    ]
    options = ("StridedSliceOptions", {"begin_mask": 3, "end_mask": 3})
    ctx.builder.add_op("STRIDED_SLICE", [src] + bounds, [dst], options)


# The most time steps LinearAttention is unrolled over (about 20 lite ops each).
MAX_LINEAR_ATTENTION_STEPS = 64


@imports("LinearAttention")
def _linear_attention(ctx, node):
    """The recurrence unrolled over the (static) time steps: per step,
    STRIDED_SLICEs of q/k/v (and decay/beta) reshaped to heads, the state
    decayed by EXP(decay) (gated), the delta correction as a BATCH_MATMUL
    k^T S (delta), the outer product k v as a broadcast MUL added to the
    state, and the output a BATCH_MATMUL of the (pre-scaled) query heads,
    grouped per KV head, with the state; the steps' outputs concatenated."""
    a = attrs(node)
    rule = a.get("update_rule", "gated_delta")
    rule = rule.decode() if isinstance(rule, bytes) else rule
    if rule not in ("linear", "gated", "delta", "gated_delta"):
        raise _NodeError(f"update_rule '{rule}' is not linear, gated, delta or gated_delta")
    hq, hkv = int(a.get("q_num_heads", 0)), int(a.get("kv_num_heads", 0))
    if hq <= 0 or hkv <= 0 or hq % hkv:
        raise _NodeError(f"q_num_heads {hq} must be a positive multiple of kv_num_heads {hkv}")

    def opt(i):
        return node.input[i] if len(node.input) > i and node.input[i] else None

    q, k, v, past, decay, beta = (opt(i) for i in range(6))
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    if gating != (decay is not None) or delta != (beta is not None):
        raise _NodeError(
            f"update_rule '{rule}' {'needs' if gating else 'forbids'} decay and {'needs' if delta else 'forbids'} beta"
        )
    names = [n for n in (q, k, v, past, decay, beta) if n]
    for name in names:
        if ctx.dtype(name) != np.float32:
            raise _NodeError(f"'{name}' is {np.dtype(ctx.dtype(name))}; the lowering computes in float32")
    qs, ks, vs = (list(ctx.shape(n)) for n in (q, k, v))
    if any(len(s) != 3 for s in (qs, ks, vs)) or qs[2] % hq or ks[2] % hkv or vs[2] % hkv:
        raise _NodeError(f"query {qs}, key {ks}, value {vs} are not [B, T, heads * dim]")
    batch, steps = qs[0], qs[1]
    dk, dv, group = qs[2] // hq, vs[2] // hkv, hq // hkv
    if ks[2] != hkv * dk or ks[:2] != qs[:2] or vs[:2] != qs[:2]:
        raise _NodeError(f"query {qs}, key {ks}, value {vs} do not agree on B, T and d_k")
    sig = ctx.signature_of(q, qs) or [0, 0, 0]
    if sig[1] == -1 or steps > MAX_LINEAR_ATTENTION_STEPS:
        raise _NodeError(
            f"{'a dynamic' if sig[1] == -1 else steps} time steps: the lowering unrolls at most "
            f"{MAX_LINEAR_ATTENTION_STEPS}"
        )
    if past is not None and list(ctx.shape(past)) != [batch, hkv, dk, dv]:
        raise _NodeError(f"past_state {list(ctx.shape(past))} is not [{batch}, {hkv}, {dk}, {dv}]")
    decay_heads = None
    if decay is not None:
        ds = list(ctx.shape(decay))
        if ds[:2] != qs[:2] or ds[2] not in (hkv, hkv * dk):
            raise _NodeError(f"decay {ds} is not [B, T, {hkv}] or [B, T, {hkv * dk}]")
        decay_heads = [hkv, dk, 1] if ds[2] == hkv * dk else [hkv, 1, 1]
    if beta is not None:
        bs = list(ctx.shape(beta))
        if bs[:2] != qs[:2] or bs[2] not in (hkv, 1):
            raise _NodeError(f"beta {bs} is not [B, T, {hkv}] or [B, T, 1]")
        beta_heads = [bs[2], 1, 1]
    scale = float(a.get("scale", 0.0)) or 1.0 / np.sqrt(dk)
    out = node.output[0]
    count = [0]

    def op(opcode, inputs, shape, options=None):
        count[0] += 1
        t = ctx.intermediate(f"{out}/la{count[0]}", shape, np.float32, like=q)
        ctx.builder.add_op(opcode, inputs, [t], options)
        return t

    def step_of(src, width, i, heads):
        """Time step i of [B, T, width] twl tensor `src` as [B] + heads."""
        bounds = [
            ctx.constant(f"{out}/la{count[0]}/{w}", np.array(b, np.int32))
            for w, b in (("begin", [0, i, 0]), ("end", [0, i + 1, 0]), ("strides", [1, 1, 1]))
        ]
        options = ("StridedSliceOptions", {"begin_mask": 5, "end_mask": 5})
        sliced = op("STRIDED_SLICE", [src] + bounds, [batch, 1, width], options)
        count[0] += 1
        return _reshape(ctx, sliced, [batch] + heads, f"{out}/la{count[0]}", q)

    def input_step(name, i, heads):
        return step_of(ctx.plain(name), ctx.shape(name)[2], i, heads)

    arith = ("ArithmeticOptions", {})
    state_shape = [batch, hkv, dk, dv]
    state = ctx.plain(past) if past is not None else None
    q_scaled = op("MUL", [ctx.plain(q), ctx.constant(f"{out}/scale", np.float32(scale))], qs, arith)
    outputs = []
    for i in range(steps):
        k_row = input_step(k, i, [hkv, 1, dk])
        v_t = input_step(v, i, [hkv, 1, dv])
        if state is not None and gating:
            g = op("EXP", [input_step(decay, i, decay_heads)], [batch] + decay_heads)
            state = op("MUL", [state, g], state_shape, arith)
        if delta:
            if state is not None:
                retrieved = op("BATCH_MATMUL", [k_row, state], [batch, hkv, 1, dv], ("BatchMatMulOptions", {}))
                v_t = op("SUB", [v_t, retrieved], [batch, hkv, 1, dv], arith)
            v_t = op("MUL", [v_t, input_step(beta, i, beta_heads)], [batch, hkv, 1, dv], arith)
        count[0] += 1
        k_col = _reshape(ctx, k_row, [batch, hkv, dk, 1], f"{out}/la{count[0]}", q)
        outer = op("MUL", [k_col, v_t], state_shape, arith)
        state = outer if state is None else op("ADD", [state, outer], state_shape, arith)
        q_t = step_of(q_scaled, qs[2], i, [hkv, group, dk])
        read = op("BATCH_MATMUL", [q_t, state], [batch, hkv, group, dv], ("BatchMatMulOptions", {}))
        count[0] += 1
        outputs.append(_reshape(ctx, read, [batch, 1, hq * dv], f"{out}/la{count[0]}", q))
    if steps == 1:
        dims = ctx.constant(f"{out}/shape", np.array(_target(ctx, out, [batch, 1, hq * dv]), np.int32))
        ctx.builder.add_op("RESHAPE", [outputs[0], dims], [ctx.output(out)])
    else:
        ctx.builder.add_op("CONCATENATION", outputs, [ctx.output(out)], ("ConcatenationOptions", {"axis": 1}))
    if len(node.output) > 1 and node.output[1]:
        dims = ctx.constant(f"{out}/state_shape", np.array(_target(ctx, node.output[1], state_shape), np.int32))
        ctx.builder.add_op("RESHAPE", [state, dims], [ctx.output(node.output[1])])


@imports("Col2Im")
def _col2im(ctx, node):
    """Col2Im (2-D) as a TRANSPOSE_CONV: the columns [N, C*K, L] are an NHWC
    image [N, lh, lw, C*K] of the blocks, and a grouped (per channel)
    transposed convolution with one-hot K-tap filters adds each column
    entry at its block position; its output stays NHWC."""
    a = attrs(node)
    x, out = node.input[0], node.output[0]
    if ctx.dtype(x) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(x))}; TRANSPOSE_CONV takes float32")
    image = [int(v) for v in np.asarray(ctx.require_const(node, 1, "image_shape")).reshape(-1)]
    block = [int(v) for v in np.asarray(ctx.require_const(node, 2, "block_shape")).reshape(-1)]
    if len(image) != 2 or len(block) != 2:
        raise _NodeError(f"{len(image)} spatial dims: TRANSPOSE_CONV is 2-D")
    dilations = list(a.get("dilations", [1, 1]))
    pads = list(a.get("pads", [0, 0, 0, 0]))
    strides = list(a.get("strides", [1, 1]))
    n, ck, length = ctx.shape(x)
    k = block[0] * block[1]
    blocks = [
        (image[i] + pads[i] + pads[i + 2] - dilations[i] * (block[i] - 1) - 1) // strides[i] + 1 for i in range(2)
    ]
    if min(block) < 1 or ck % k or min(blocks) < 1 or blocks[0] * blocks[1] != length:
        raise _NodeError(
            f"input [{n}, {ck}, {length}] does not hold {blocks[0]} x {blocks[1]} blocks of {block} for image {image}"
        )
    channels = ck // k
    cols = ctx.intermediate(f"{out}/columns", [n, length, ck], np.float32, like=x)
    perm = ctx.constant(f"{out}/perm", np.array([0, 2, 1], np.int32))
    ctx.builder.add_op("TRANSPOSE", [ctx.plain(x), perm], [cols])
    grid = _reshape(ctx, cols, [n] + blocks + [ck], f"{out}/blocks", x)
    filt = np.zeros([channels, k, block[0], block[1], 1], np.float32)
    taps = np.arange(k)
    filt[:, taps, taps // block[1], taps % block[1], 0] = 1
    options = {
        "stride_h": strides[0],
        "stride_w": strides[1],
        "dilation_h_factor": dilations[0],
        "dilation_w_factor": dilations[1],
        "pad_top": pads[0],
        "pad_left": pads[1],
        "out_h": image[0],
        "out_w": image[1],
        "group": channels,
        "fused_activation_function": "NONE",
    }
    inputs = [grid, ctx.constant(f"{out}/filter", filt), ctx.constant(f"{out}/bias", np.zeros([channels], np.float32))]
    ctx.builder.add_op("TRANSPOSE_CONV", inputs, [ctx.output(out, nhwc=True)], ("TransposeConvOptions", options))


@imports("DeformConv")
def _deform_conv(ctx, node):
    """DeformConv (2-D) as onnx defines it: each kernel tap samples X by
    GRID_SAMPLE (bilinear, zeros, align_corners) at its offset position, per
    offset group; the samples times the mask, and the (constant) weights
    applied to them as one grouped BATCH_MATMUL, then the bias."""
    a = attrs(node)
    x, out = node.input[0], node.output[0]
    offset = node.input[2]
    bias = node.input[3] if len(node.input) > 3 and node.input[3] else None
    mask = node.input[4] if len(node.input) > 4 and node.input[4] else None
    for name in [x, offset] + ([mask] if mask else []):
        if ctx.dtype(name) != np.float32:
            raise _NodeError(f"'{name}' is {np.dtype(ctx.dtype(name))}; the lowering computes in float32")
    shape = list(ctx.shape(x))
    if len(shape) != 4:
        raise _NodeError(f"X of rank {len(shape)}: only 2-D DeformConv is supported")
    n, c, h, w = shape
    weight = ctx.require_const(node, 1, "W").astype(np.float32)
    o, cpg, kh, kw = weight.shape
    group, groups_off = int(a.get("group", 1)), int(a.get("offset_group", 1))
    if group < 1 or c != cpg * group or o % group or groups_off < 1 or c % groups_off:
        raise _NodeError(f"W {list(weight.shape)}, group {group} and offset_group {groups_off} do not fit {c} channels")
    if h < 2 or w < 2:
        raise _NodeError(f"X of {h}x{w}: sampling needs at least 2 pixels on each axis")
    strides = list(a.get("strides", [1, 1]))
    dilations = list(a.get("dilations", [1, 1]))
    pads = list(a.get("pads", [0, 0, 0, 0]))
    k = kh * kw
    oh, ow = ctx.shape(offset)[2:]
    if list(ctx.shape(offset)) != [n, groups_off * 2 * k, oh, ow] or list(ctx.shape(out)) != [n, o, oh, ow]:
        raise _NodeError(f"offset {list(ctx.shape(offset))} is not [{n}, {groups_off * 2 * k}, out_h, out_w]")
    if -1 in (ctx.signature_of(x, shape) or []):
        raise _NodeError("dynamic dims: the lowering's shapes are static")
    count = [0]
    arith = ("ArithmeticOptions", {})

    def op(opcode, inputs, out_shape, options=None):
        count[0] += 1
        t = ctx.intermediate(f"{out}/dc{count[0]}", out_shape, np.float32)
        ctx.builder.add_op(opcode, inputs, [t], options)
        return t

    def reshape(src, out_shape):
        return op("RESHAPE", [src, ctx.constant(f"{out}/dc{count[0]}/shape", np.array(out_shape, np.int32))], out_shape)

    def channels(src, src_shape, begin, size):
        if size == src_shape[1]:
            return src
        bounds = [
            ctx.constant(f"{out}/dc{count[0]}/{what}", np.array(v, np.int32))
            for what, v in (("begin", [0, begin, 0, 0]), ("end", [0, begin + size, 0, 0]), ("strides", [1] * 4))
        ]
        options = ("StridedSliceOptions", {"begin_mask": 13, "end_mask": 13})
        return op("STRIDED_SLICE", [src] + bounds, [src_shape[0], size] + src_shape[2:], options)

    # The tap positions (x, y) of each output pixel before the offsets, and
    # the scale that normalizes positions to GridSample's [-1, 1].
    ki, kj = np.divmod(np.arange(k), kw)
    base = np.zeros([k, 2, oh, ow], np.float32)
    base[:, 0] = (-pads[1] + strides[1] * np.arange(ow))[None, None, :] + (kj * dilations[1])[:, None, None]
    base[:, 1] = (-pads[0] + strides[0] * np.arange(oh))[None, :, None] + (ki * dilations[0])[:, None, None]
    scale = np.array([2.0 / (w - 1), 2.0 / (h - 1)], np.float32).reshape(1, 1, 2, 1, 1)
    x_src, offsets = ctx.plain(x), ctx.plain(offset)
    masks = ctx.plain(mask) if mask else None
    cg = c // groups_off
    sampled = []
    for g in range(groups_off):
        off = reshape(channels(offsets, [n, groups_off * 2 * k, oh, ow], g * 2 * k, 2 * k), [n, k, 2, oh, ow])
        swap = ctx.constant(f"{out}/dc{count[0]}/xy", np.array([1, 0], np.int32))
        xy = op("GATHER", [off, swap], [n, k, 2, oh, ow], ("GatherOptions", {"axis": 2}))
        pos = op("ADD", [xy, ctx.constant(f"{out}/base{g}", base[None])], [n, k, 2, oh, ow], arith)
        norm = op("MUL", [pos, ctx.constant(f"{out}/scale{g}", scale)], [n, k, 2, oh, ow], arith)
        norm = op("SUB", [norm, ctx.constant(f"{out}/one{g}", np.float32(1))], [n, k, 2, oh, ow], arith)
        perm = ctx.constant(f"{out}/dc{count[0]}/perm", np.array([0, 1, 3, 4, 2], np.int32))
        grid = reshape(op("TRANSPOSE", [norm, perm], [n, k, oh, ow, 2]), [n, k * oh, ow, 2])
        xg = channels(x_src, shape, g * cg, cg)
        options = ("GridSampleOptions", {"interpolation": "LINEAR", "padding_mode": "ZEROS", "align_corners": True})
        s = reshape(op("GRID_SAMPLE", [xg, grid], [n, cg, k * oh, ow], options), [n, cg, k, oh, ow])
        if masks is not None:
            m = reshape(channels(masks, [n, groups_off * k, oh, ow], g * k, k), [n, 1, k, oh, ow])
            s = op("MUL", [s, m], [n, cg, k, oh, ow], arith)
        sampled.append(s)
    if len(sampled) > 1:
        options = ("ConcatenationOptions", {"axis": 1})
        sampled = [op("CONCATENATION", sampled, [n, c, k, oh, ow], options)]
    cols = reshape(sampled[0], [n, group, cpg * k, oh * ow])
    wmat = ctx.constant(f"{out}/weights", np.ascontiguousarray(weight.reshape(group, o // group, cpg * k)))
    y = op("BATCH_MATMUL", [wmat, cols], [n, group, o // group, oh * ow], ("BatchMatMulOptions", {}))
    dims = ctx.constant(f"{out}/shape", np.array([n, o, oh, ow], np.int32))
    if bias is None:
        ctx.builder.add_op("RESHAPE", [y, dims], [ctx.output(out)])
        return
    b = ctx.const(bias)
    if b is None or b.shape != (o,):
        raise _NodeError(f"B must be a constant [{o}]")
    y = op("RESHAPE", [y, dims], [n, o, oh, ow])
    b_t = ctx.constant(f"{out}/bias", b.astype(np.float32).reshape(o, 1, 1))
    ctx.builder.add_op("ADD", [y, b_t], [ctx.output(out)], arith)


# The largest matrices Det expands (Leibniz: n! products of n entries).
MAX_DET_SIZE = 5


@imports("Det")
def _det(ctx, node):
    """Det of [..., n, n] matrices, n <= MAX_DET_SIZE, by the Leibniz
    formula: a GATHER of every permutation's n entries, REDUCE_PROD over
    them, MUL by the permutations' signs and REDUCE_SUM."""
    x, out = node.input[0], node.output[0]
    if ctx.dtype(x) != np.float32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(x))}; the lowering computes in float32")
    shape = list(ctx.shape(x))
    if len(shape) < 2 or shape[-1] != shape[-2] or not 1 <= shape[-1] <= MAX_DET_SIZE:
        raise _NodeError(f"input {shape}: Det takes [..., n, n] with 1 <= n <= {MAX_DET_SIZE}")
    n, lead = shape[-1], shape[:-2]
    perms = np.array(list(itertools.permutations(range(n))), np.int32)
    signs = np.array([np.linalg.det(np.eye(n)[p]) for p in perms], np.float32).round()
    flat = _reshape(ctx, ctx.plain(x), lead + [n * n], f"{out}/flat", x)
    idx = ctx.constant(f"{out}/entries", (np.arange(n) * n + perms).astype(np.int32))
    entries = ctx.intermediate(f"{out}/terms", lead + [len(perms), n], np.float32, like=x)
    ctx.builder.add_op("GATHER", [flat, idx], [entries], ("GatherOptions", {"axis": len(lead)}))
    axis = len(lead) + 1
    prods = ctx.intermediate(f"{out}/products", lead + [len(perms)], np.float32, like=x)
    last = ctx.constant(f"{out}/last", np.array([axis], np.int32))
    ctx.builder.add_op("REDUCE_PROD", [entries, last], [prods], ("ReducerOptions", {"keep_dims": False}))
    signed = ctx.intermediate(f"{out}/signed", lead + [len(perms)], np.float32, like=x)
    ctx.builder.add_op("MUL", [prods, ctx.constant(f"{out}/signs", signs)], [signed], ("ArithmeticOptions", {}))
    summed = ctx.constant(f"{out}/terms_axis", np.array([len(lead)], np.int32))
    ctx.builder.add_op("REDUCE_SUM", [signed, summed], [ctx.output(out)], ("ReducerOptions", {"keep_dims": False}))
