"""Importers of Cast, CastLike, BitCast, Dropout, Resize, Upsample,
GridSample and RoiAlign.

Cast and CastLike are CAST between any two lite element types, BitCast is
BITCAST between two of one size. Dropout at inference is its input (and an
all-true mask). Resize (opsets 10-19) and Upsample are RESIZE, which resizes
the lite tensor as it is: the NHWC output of a Conv is resized on H and W in
NHWC, with no transposes. GridSample is GRID_SAMPLE and RoiAlign ROI_ALIGN,
in ONNX's layout.
"""

import numpy as np
import onnx
from onnx import helper

from converters.errors import NodeError as _NodeError
from converters.lowering import TO_NHWC
from converters.onnx_import.context import attrs, imports, is_lite_type
from converters.onnx_import.shapes import PROBE_DIM


def _cast_to(ctx, node, to):
    src = ctx.dtype(node.input[0])
    if not is_lite_type(to) or not is_lite_type(src):
        raise _NodeError(f"cast from {np.dtype(src)} to {np.dtype(to)}: the lite runtime lacks the type")
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op("CAST", [index], [ctx.output(node.output[0], nhwc=nhwc, dtype=to)])


@imports("Cast")
def _cast(ctx, node):
    to = attrs(node)["to"]
    if to not in onnx.TensorProto.DataType.values():
        raise _NodeError(f"to={to} is not an ONNX tensor data type")
    _cast_to(ctx, node, helper.tensor_dtype_to_np_dtype(to))


@imports("CastLike")
def _cast_like(ctx, node):
    """CAST to the type of the second input (only its type is read)."""
    _cast_to(ctx, node, ctx.dtype(node.input[1]))


@imports("Dropout")
def _dropout(ctx, node):
    """Inference: the output is the input; the ratio is not read."""
    if len(node.input) > 2 and node.input[2]:
        training = ctx.const(node.input[2])
        if training is None:
            raise _NodeError("training_mode is a model input; the lite runtime runs inference only (make it false)")
        if bool(training):
            raise _NodeError("training mode dropout: the lite runtime runs inference only")
    ctx.tensors[node.output[0]] = ctx.value(node.input[0])
    if len(node.output) > 1 and node.output[1]:
        mask = node.output[1]
        shape = ctx.shape(mask)
        if ctx.signature_of(mask, shape) and -1 in ctx.signature_of(mask, shape):
            raise _NodeError("the mask of a dynamic-shaped Dropout is not supported")
        ctx.tensors[mask] = (ctx.constant(mask, np.ones(shape, ctx.dtype(mask))), False)


_INTERPOLATION = {"nearest": "NEAREST", "linear": "LINEAR", "bilinear": "LINEAR", "cubic": "CUBIC"}
_COORDINATES = {
    "half_pixel": "HALF_PIXEL",
    "pytorch_half_pixel": "PYTORCH_HALF_PIXEL",
    "align_corners": "ALIGN_CORNERS",
    "asymmetric": "ASYMMETRIC",
    "tf_crop_and_resize": "TF_CROP_AND_RESIZE",
    "half_pixel_symmetric": "HALF_PIXEL_SYMMETRIC",
    "tf_half_pixel_for_nn": "TF_HALF_PIXEL_FOR_NN",
}
_ROUNDING = {
    "round_prefer_floor": "ROUND_PREFER_FLOOR",
    "round_prefer_ceil": "ROUND_PREFER_CEIL",
    "floor": "FLOOR",
    "ceil": "CEIL",
}


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _choice(table, what, value):
    if value not in table:
        raise _NodeError(f"{what} '{value}' is not supported (one of {', '.join(table)})")
    return table[value]


def _optional_const(ctx, node, i, what):
    """Constant input i, or None when absent or empty."""
    if len(node.input) <= i or not node.input[i]:
        return None
    value = ctx.require_const(node, i, what)
    return value if value.size else None


def _run_time_sizes(ctx, node, axes, in_shape):
    """The static value of sizes computed from run-time shapes (PyTorch's
    F.interpolate(size=...) with a dynamic batch: Concat(Shape(x)[:2],
    [h, w]), or F.interpolate(scale_factor=2) of dynamic H and W):
    accepted where each run-time entry is a constant multiple of the
    input's own dynamic dim (the same ratio at the static shapes and at the
    probe dims)."""
    x = node.input[0]
    static, probe, _ = ctx.symbolic[node.input[3]]
    sig = ctx.signature_of(x, in_shape) or [0] * len(in_shape)
    at_probe = ctx.probe_specs.get(x, (0, []))[1]
    if len(at_probe) != len(in_shape) or any(d is None for d in at_probe):
        at_probe = [PROBE_DIM * d if s == -1 else d for s, d in zip(sig, in_shape)]
    static = np.asarray(static, np.int64).reshape(-1)
    if probe is not None and static.shape == np.shape(probe) and len(axes) == static.size:
        probe = np.asarray(probe).reshape(-1)
        if all(
            sig[axes[k]] == -1 and static[k] * at_probe[axes[k]] == probe[k] * in_shape[axes[k]]
            for k in np.flatnonzero(static != probe)
        ):
            return static
    return ctx.require_const(node, 3, "sizes")  # the error naming the run-time value


# RESIZE's size of an axis whose output is floor(input size x scale), known at run time.
RESIZE_SIZE_FROM_SCALE = -2


def _scaled_at_run_time(ctx, node, axis, in_shape, scales, sizes):
    """Whether run-time axis `axis` is resized by its scale at every size:
    a constant scale, or sizes computed as that multiple of the dim (equal
    ratios at the static shapes and at the probe dims)."""
    uses_sizes = len(node.input) > 3 and node.input[3] and node.op_type == "Resize" and ctx.opset >= 11
    if not uses_sizes:
        return np.floor(in_shape[axis] * scales[axis]) == sizes[axis]
    if node.input[3] not in ctx.symbolic:
        return False
    static, probe, _ = ctx.symbolic[node.input[3]]
    at_probe = ctx.probe_specs.get(node.input[0], (0, []))[1]
    a = attrs(node).get("axes")
    k = list(a).index(axis) if a is not None else axis
    if probe is None or len(at_probe) != len(in_shape) or at_probe[axis] is None:
        return False
    static, probe = np.asarray(static).reshape(-1), np.asarray(probe).reshape(-1)
    return (
        static[k] == sizes[axis]
        and np.floor(at_probe[axis] * scales[axis]) == probe[k]
        and np.floor(in_shape[axis] * scales[axis]) == static[k]
    )


def _resize_geometry(ctx, node, a, rank, in_shape):
    """(scales, output sizes, roi) over every axis, as ONNX's reference
    computes them (scales in double: given, or output / input size)."""
    if node.op_type == "Upsample" or ctx.opset < 11:
        given = (
            a.get("scales") if node.op_type == "Upsample" and ctx.opset < 9 else ctx.require_const(node, 1, "scales")
        )
        scales = np.asarray(given, np.float32).astype(np.float64)
        if scales.shape != (rank,):
            raise _NodeError(f"scales has {scales.size} values for a rank-{rank} input")
        return scales, (scales * np.array(in_shape)).astype(np.int64), None
    axes = [int(v) + rank if v < 0 else int(v) for v in a.get("axes", range(rank))]
    if sorted(set(axes)) != sorted(axes) or any(not 0 <= v < rank for v in axes):
        raise _NodeError(f"axes {a.get('axes')} are not distinct axes of a rank-{rank} input")
    roi = _optional_const(ctx, node, 1, "roi")
    given_scales = _optional_const(ctx, node, 2, "scales")
    given_sizes = (
        _run_time_sizes(ctx, node, axes, in_shape)
        if len(node.input) > 3 and node.input[3] in ctx.symbolic
        else _optional_const(ctx, node, 3, "sizes")
    )
    if (given_scales is None) == (given_sizes is None):
        raise _NodeError("exactly one of scales and sizes must be given")
    full_roi = None
    if roi is not None:
        if roi.size != 2 * len(axes):
            raise _NodeError(f"roi has {roi.size} values for {len(axes)} axes")
        full_roi = np.array([0.0] * rank + [1.0] * rank)
        for i, d in enumerate(axes):
            full_roi[d], full_roi[rank + d] = roi[i], roi[len(axes) + i]
    if given_scales is not None:
        if given_scales.size != len(axes):
            raise _NodeError(f"scales has {given_scales.size} values for {len(axes)} axes")
        scales = np.ones(rank)
        scales[axes] = given_scales.astype(np.float64)
        return scales, (scales * np.array(in_shape)).astype(np.int64), full_roi
    if given_sizes.size != len(axes):
        raise _NodeError(f"sizes has {given_sizes.size} values for {len(axes)} axes")
    sizes = np.array(in_shape, np.int64)
    sizes[axes] = given_sizes
    scales = sizes / np.array(in_shape, np.float64)
    policy = _text(a.get("keep_aspect_ratio_policy", "stretch"))
    if policy != "stretch":
        if policy not in ("not_larger", "not_smaller"):
            raise _NodeError(f"keep_aspect_ratio_policy '{policy}' is not supported")
        scale = scales[axes].min() if policy == "not_larger" else scales[axes].max()
        scales = np.array([scale if i in axes else 1.0 for i in range(rank)])
        sizes = np.array([int(scale * in_shape[i] + 0.5) if i in axes else in_shape[i] for i in range(rank)])
    return scales, sizes, full_roi


def _old_nearest_rounding(interpolation, scales):
    """Upsample and Resize-10 sample asymmetrically and, as onnxruntime
    does, take the floor when upsampling and the ceiling when downsampling."""
    down = [s < 1 for s in scales]
    if interpolation == "NEAREST" and any(down) and not all(down):
        raise _NodeError("nearest Upsample/Resize-10 that downsamples some axes and upsamples others is not supported")
    return "CEIL" if any(down) else "FLOOR"


def _broadcast_of_one_pixel(ctx, node, a, in_shape):
    """A Resize to sizes known only at run time of an input whose resized
    dims are all a static 1 (DeepLab's image-pooling branch, interpolated
    to the feature map's run-time H and W): every mode but crop-and-resize
    samples the one pixel, so it is BROADCAST_TO the computed sizes.
    Returns whether it emitted that."""
    if node.op_type != "Resize" or len(node.input) < 4 or node.input[3] not in ctx.symbolic or "axes" in a:
        return False
    if _text(a.get("coordinate_transformation_mode", "half_pixel")) == "tf_crop_and_resize":
        return False
    if _text(a.get("keep_aspect_ratio_policy", "stretch")) != "stretch":
        return False
    static = np.asarray(ctx.symbolic[node.input[3]][0]).reshape(-1)
    sig = ctx.signature_of(node.input[0], in_shape) or list(in_shape)
    if len(in_shape) < 3 or static.size != len(in_shape):
        return False
    for i, d in enumerate(in_shape):
        one = d == 1 and sig[i] != -1
        if i >= 2 and not one or (not one and static[i] != d):
            return False
    sizes = ctx.value(node.input[3])[0]
    ctx.builder.add_op("BROADCAST_TO", [ctx.plain(node.input[0]), sizes], [ctx.output(node.output[0])])
    return True


@imports("Resize", "Upsample")
def _resize(ctx, node):
    """RESIZE on the lite tensor's layout (NHWC after a Conv: the scales,
    sizes and roi are permuted to it)."""
    a = attrs(node)
    x, out = node.input[0], node.output[0]
    in_shape = ctx.shape(x)
    rank = len(in_shape)
    if _broadcast_of_one_pixel(ctx, node, a, in_shape):
        return
    interpolation = _choice(_INTERPOLATION, "mode", _text(a.get("mode", "nearest")))
    old = node.op_type == "Upsample" or ctx.opset < 11
    coordinates = _choice(
        _COORDINATES,
        "coordinate_transformation_mode",
        "asymmetric" if old else _text(a.get("coordinate_transformation_mode", "half_pixel")),
    )
    rounding = _choice(_ROUNDING, "nearest_mode", _text(a.get("nearest_mode", "round_prefer_floor")))
    # 8-bit linear/cubic (quantize_static's QOperator Resize) interpolates in float32, rounded back.
    eight_bit = interpolation != "NEAREST" and np.dtype(ctx.dtype(x)) in (np.dtype(np.int8), np.dtype(np.uint8))
    if interpolation != "NEAREST" and ctx.dtype(x) != np.float32 and not eight_bit:
        raise _NodeError(f"{interpolation.lower()} interpolation of {np.dtype(ctx.dtype(x))}: RESIZE takes float32")
    if coordinates == "TF_CROP_AND_RESIZE" and ctx.dtype(x) != np.float32:
        raise _NodeError(f"tf_crop_and_resize of {np.dtype(ctx.dtype(x))}: RESIZE takes float32")
    scales, sizes, roi = _resize_geometry(ctx, node, a, rank, in_shape)
    if coordinates == "TF_CROP_AND_RESIZE" and roi is None:
        raise _NodeError("tf_crop_and_resize needs a constant roi")
    if list(sizes) != ctx.shape(out):
        raise _NodeError(f"output shape {list(sizes)} differs from the inferred {ctx.shape(out)}")
    resized = [
        not (np.isclose(scales[i], 1.0) and sizes[i] == in_shape[i])
        or (coordinates == "TF_CROP_AND_RESIZE" and (roi[i] != 0 or roi[rank + i] != 1))
        for i in range(rank)
    ]
    sig = ctx.signature_of(x, in_shape) or [0] * rank
    out_sig = ctx.signature_of(out, ctx.shape(out)) or [0] * rank
    for i in range(rank):
        if sig[i] == -1 and resized[i]:
            # A run-time dim resized by a scale: floor(dim x scale) when the model runs (RESIZE's size -2).
            if not _scaled_at_run_time(ctx, node, i, in_shape, scales, sizes):
                raise _NodeError(f"resizing dynamic axis {i} of '{x}' other than by a constant scale")
            sizes[i] = RESIZE_SIZE_FROM_SCALE
        elif out_sig[i] == -1 and sig[i] != -1:
            raise _NodeError(f"axis {i} of '{out}' is resized to a size known only at run time")
    if old:
        rounding = _old_nearest_rounding(interpolation, [s for s, r in zip(scales, resized) if r])
    option_sizes = [int(s) if r else -1 for s, r in zip(sizes, resized)]
    roi = roi if roi is not None else np.array([0.0] * rank + [1.0] * rank)
    nhwc = rank == 4 and ctx.is_nhwc(x)
    if nhwc:
        option_sizes = [option_sizes[p] for p in TO_NHWC]
        scales = scales[list(TO_NHWC)]
        roi = np.concatenate([roi[:rank][list(TO_NHWC)], roi[rank:][list(TO_NHWC)]])
    options = {
        "interpolation": interpolation,
        "coordinate_transformation": coordinates,
        "nearest_rounding": rounding,
        "cubic_coeff_a": float(a.get("cubic_coeff_a", -0.75)),
        "exclude_outside": bool(a.get("exclude_outside", 0)),
        "extrapolation_value": float(a.get("extrapolation_value", 0.0)),
        "antialias": bool(a.get("antialias", 0)),
        "sizes": option_sizes,
        "scales": np.asarray(scales, np.float64),
        "roi": np.asarray(roi, np.float64),
    }
    src = ctx.value(x)[0] if nhwc else ctx.plain(x)
    if eight_bit:
        _resize_eight_bit(ctx, out, src, nhwc, ("ResizeOptions", options))
        return
    ctx.builder.add_op("RESIZE", [src], [ctx.output(out, nhwc=nhwc)], ("ResizeOptions", options))


def _resize_eight_bit(ctx, out, src, nhwc, options):
    """RESIZE of an int8/uint8 tensor in float32: CAST, RESIZE, ROUND (half
    to even), clamped to the type's range, CAST back."""
    b = ctx.builder
    result = ctx.output(out, nhwc=nhwc)
    dtype = b.tensor(result).dtype
    x, y = b.tensor(src), b.tensor(result)

    def tensor(name, like):
        return b.add_tensor(f"{out}/{name}", like.shape, np.float32, like.signature)

    wide, resized, rounded = tensor("float32", x), tensor("resized", y), tensor("rounded", y)
    b.add_op("CAST", [src], [wide])
    b.add_op("RESIZE", [wide], [resized], options)
    b.add_op("ROUND", [resized], [rounded])
    info = np.iinfo(dtype)
    low, high = tensor("low", y), tensor("clamped", y)
    b.add_op("MAXIMUM", [rounded, ctx.constant(f"{out}/min", np.array(info.min, np.float32))], [low])
    b.add_op("MINIMUM", [low, ctx.constant(f"{out}/max", np.array(info.max, np.float32))], [high])
    b.add_op("CAST", [high], [result])


_GRID_MODES = {"nearest": "NEAREST", "linear": "LINEAR", "bilinear": "LINEAR", "cubic": "CUBIC", "bicubic": "CUBIC"}
_GRID_PADDING = {"zeros": "ZEROS", "border": "BORDER", "reflection": "REFLECTION"}


@imports("GridSample")
def _grid_sample(ctx, node):
    """GRID_SAMPLE on X in ONNX's layout (N, C, D1..Dr), r = 1 to 3;
    opset 16's names (bilinear, bicubic; 2-D only) and opset 20's."""
    a = attrs(node)
    x, grid, out = node.input[0], node.input[1], node.output[0]
    for name, what in ((x, "X"), (grid, "grid")):
        if ctx.dtype(name) != np.float32:
            raise _NodeError(f"{what} is {np.dtype(ctx.dtype(name))}; GRID_SAMPLE takes float32")
    rank = ctx.rank(x)
    if not 3 <= rank <= 5:
        raise _NodeError(f"X of rank {rank}: GRID_SAMPLE samples 1 to 3 spatial dims")
    if ctx.rank(grid) != rank or ctx.shape(grid)[-1] != rank - 2:
        raise _NodeError(f"grid {list(ctx.shape(grid))} is not [N, O1..O{rank - 2}, {rank - 2}]")
    mode = _text(a.get("mode", "linear" if ctx.opset >= 20 else "bilinear"))
    if ctx.opset < 20 and mode in ("linear", "cubic") or ctx.opset >= 20 and mode in ("bilinear", "bicubic"):
        raise _NodeError(f"mode '{mode}' is not one of opset {ctx.opset}'s GridSample modes")
    options = {
        "interpolation": _choice(_GRID_MODES, "mode", mode),
        "padding_mode": _choice(_GRID_PADDING, "padding_mode", _text(a.get("padding_mode", "zeros"))),
        "align_corners": bool(a.get("align_corners", 0)),
    }
    inputs = [ctx.plain(x), ctx.plain(grid)]
    ctx.builder.add_op("GRID_SAMPLE", inputs, [ctx.output(out)], ("GridSampleOptions", options))


@imports("RoiAlign")
def _roi_align(ctx, node):
    """ROI_ALIGN on X in ONNX's layout; the rois and batch indices may be
    computed (a detector's proposals)."""
    a = attrs(node)
    x, rois, indices, out = node.input[0], node.input[1], node.input[2], node.output[0]
    for name, what in ((x, "X"), (rois, "rois")):
        if ctx.dtype(name) != np.float32:
            raise _NodeError(f"{what} is {np.dtype(ctx.dtype(name))}; ROI_ALIGN takes float32")
    if ctx.dtype(indices) not in (np.int32, np.int64):
        raise _NodeError(f"batch_indices are {np.dtype(ctx.dtype(indices))}, not int32 or int64")
    if ctx.rank(x) != 4:
        raise _NodeError(f"X of rank {ctx.rank(x)}: RoiAlign takes [N, C, H, W]")
    default_mode = "half_pixel" if ctx.opset >= 16 else "output_half_pixel"
    coordinates = _text(a.get("coordinate_transformation_mode", default_mode))
    mode = _text(a.get("mode", "avg"))
    if coordinates not in ("half_pixel", "output_half_pixel") or mode not in ("avg", "max"):
        raise _NodeError(f"mode '{mode}' / coordinate_transformation_mode '{coordinates}' is not supported")
    options = {
        "output_height": int(a.get("output_height", 1)),
        "output_width": int(a.get("output_width", 1)),
        "sampling_ratio": int(a.get("sampling_ratio", 0)),
        "spatial_scale": float(a.get("spatial_scale", 1.0)),
        "half_pixel": coordinates == "half_pixel",
        "max_mode": mode == "max",
    }
    if options["output_height"] < 1 or options["output_width"] < 1 or options["sampling_ratio"] < 0:
        raise _NodeError(
            f"output {options['output_height']}x{options['output_width']} and sampling_ratio "
            f"{options['sampling_ratio']}: the output size must be positive and the ratio >= 0"
        )
    inputs = [ctx.plain(x), ctx.plain(rois), ctx.plain(indices)]
    ctx.builder.add_op("ROI_ALIGN", inputs, [ctx.output(out)], ("RoiAlignOptions", options))


@imports("BitCast")
def _bitcast(ctx, node):
    """BITCAST: the input's bytes as type `to` (one element size), in the
    input's layout."""
    to = helper.tensor_dtype_to_np_dtype(attrs(node)["to"])
    src = ctx.dtype(node.input[0])
    if not is_lite_type(to) or not is_lite_type(src):
        raise _NodeError(f"bitcast from {np.dtype(src)} to {np.dtype(to)}: the lite runtime lacks the type")
    if np.dtype(src).itemsize != np.dtype(to).itemsize:
        raise _NodeError(f"{np.dtype(src)} and {np.dtype(to)} differ in size")
    index, nhwc = ctx.value(node.input[0])
    ctx.builder.add_op("BITCAST", [index], [ctx.output(node.output[0], nhwc=nhwc, dtype=to)])
