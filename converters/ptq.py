"""Post-training quantization of .twl models (`tensorweave-convert --quantize`).

Works on a converted float .twl, so models from ONNX and from tensorweave
graphs take the same path:

  static (int8): the float model runs on the lite runtime over calibration
    inputs with every float activation made an output, which gives each
    activation's range (min/max, or the mean over batches of a low and high
    percentile). Then, as onnxruntime's QDQ quantizer and LiteRT do:
      - weights: int8, symmetric, one scale per output channel
        (max |w| / 127, zero point 0, values in [-127, 127]);
      - activations: one scale and zero point per tensor, asymmetric,
        uint8 (onnxruntime's default U8S8, the x86 fast path) or int8
        (LiteRT's), over the calibrated range widened to hold 0;
      - biases: int32 at scale input_scale * weight_scale[o].
    CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and BATCH_MATMUL with a
    constant right side become QUANTIZED_CONV_2D / QUANTIZED_BATCH_MATMUL
    requantizing to the output's scale; a fused (or following) RELU/RELU6
    is folded into the output's range (the saturation at the range's ends
    is the clamp). ADD of two tensors of one shape (residual adds) becomes
    QUANTIZED_ADD, its fused RELU/RELU6 folded the same way. MAX_POOL_2D, RESHAPE, SQUEEZE, EXPAND_DIMS and TRANSPOSE
    run on the quantized values with their input's scale; CONCATENATION
    does when its inputs can be given one scale (each is a quantized
    product used only there: they get the output's). Every other op stays
    float, with DEQUANTIZE/QUANTIZE where the float and integer regions
    meet (once per tensor). The inputs and outputs stay float.
  dynamic (weights only): the weights of DEPTHWISE_CONV_2D,
    FULLY_CONNECTED and constant-right BATCH_MATMUL are stored as int8 per
    output channel and dequantized by a DEQUANTIZE op on each run; the
    arithmetic stays float (smaller, not faster). CONV_2D keeps float
    weights: its kernel packs a constant filter once.

Calibration data (`load_calibration`): an .npz, or a directory of .npy
files, each array named after a model input (its signature name, or its
tensor name) and holding samples stacked on axis 0 in the input's layout
(the model's input shape but for the batch dim); a model with one input
also takes any single array, or a directory of .npy batches concatenated in
name order.

Example (needs the built lite library):
  >>> data = quantize(float_twl_bytes, {"x": samples})   # doctest: +SKIP
"""

import json
import os
import zipfile
import zlib

import numpy as np

from converters import twl_reader
from converters.errors import ConversionError
from converters.twl_writer import TwlModelBuilder

_COMPUTE = ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL")
_PASS_THROUGH = ("MAX_POOL_2D", "RESHAPE", "SQUEEZE", "EXPAND_DIMS", "TRANSPOSE")
_DYNAMIC = {"DEPTHWISE_CONV_2D": 3, "FULLY_CONNECTED": 0, "BATCH_MATMUL": 1}  # weight axis per output
_FOLDABLE_ACTIVATIONS = {"RELU": 1, "RELU6": 2}
_ACTIVATION_NONE, _ACTIVATION_RELU, _ACTIVATION_RELU6 = 0, 1, 2
_CALIBRATION_BATCH = 16


def same_pads(in_size, kernel, stride, dilation=1):
    """(before, after) padding under SAME (as converters.lowering's, which
    imports the training package)."""
    out = -(-in_size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - in_size, 0)
    return total // 2, total - total // 2


# --- calibration data -------------------------------------------------------------
# What np.load raises on a damaged or foreign file (a truncated .npy: EOFError; a damaged .npz: BadZipFile
# or a zlib error).
_UNREADABLE = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error)


def load_calibration(path):
    """{name: array} from an .npz file or a directory of .npy files."""
    if os.path.isdir(path):
        files = sorted(f for f in os.listdir(path) if f.endswith(".npy"))
        if not files:
            raise ConversionError(f"calibration directory {path} holds no .npy files")
        try:
            return {f[:-4]: np.load(os.path.join(path, f), allow_pickle=False) for f in files}
        except _UNREADABLE as e:
            raise ConversionError(f"calibration directory {path}: {e}") from None
    if not os.path.exists(path):
        raise ConversionError(f"no such calibration file or directory: {path}")
    try:
        with np.load(path, allow_pickle=False) as z:
            if not hasattr(z, "files"):
                raise ConversionError(f"calibration file {path} is a single .npy; give an .npz or a directory")
            return {k: z[k] for k in z.files}
    except _UNREADABLE as e:
        raise ConversionError(f"calibration file {path}: not an .npz ({e})") from None


def _match_calibration(m, calibration):
    """[(signature name, tensor index, array)] for the model's inputs,
    checked against their dtypes and shapes."""
    inputs = [(key, index) for key, index in m.signature_inputs]
    if isinstance(calibration, np.ndarray):
        calibration = {inputs[0][0]: calibration} if len(inputs) == 1 else calibration
    if not isinstance(calibration, dict) or not calibration:
        raise ConversionError("calibration data must be a non-empty {input name: array} mapping")
    calibration = dict(calibration)
    if len(inputs) == 1 and inputs[0][0] not in calibration:
        if len(calibration) == 1:
            calibration = {inputs[0][0]: next(iter(calibration.values()))}
        else:  # a directory of batches of the one input
            calibration = {inputs[0][0]: np.concatenate([np.asarray(v) for _, v in sorted(calibration.items())])}
    names = {key: index for key, index in inputs}
    for key, index in inputs:
        names.setdefault(m.tensors[index].name, index)
    wanted = [key for key, _ in inputs]
    unknown = sorted(set(calibration) - set(names))
    missing = [k for k, i in inputs if k not in calibration and m.tensors[i].name not in calibration]
    if unknown or missing:
        raise ConversionError(f"calibration data has arrays {sorted(calibration)}; the model's inputs are {wanted}")
    matched, count = [], None
    for key, index in inputs:
        t = m.tensors[index]
        value = calibration[key] if key in calibration else calibration[t.name]
        arr = np.asarray(value)
        if t.dtype.kind == "f":
            ok = arr.dtype.kind == "f"
        else:
            ok = arr.dtype == t.dtype
        if not ok:
            raise ConversionError(f"calibration data for input '{key}' is {arr.dtype}; the input is {t.dtype}")
        arr = arr.astype(t.dtype, copy=False)
        signature = t.signature or t.shape
        if arr.ndim != len(t.shape) or any(s != -1 and d != s for d, s in zip(arr.shape[1:], signature[1:])):
            raise ConversionError(
                f"calibration data for input '{key}' has shape {list(arr.shape)}; the input takes "
                f"{['N'] + list(signature[1:]) if signature else []} (samples on axis 0)"
            )
        if t.shape and signature[0] != -1 and arr.shape[0] % t.shape[0]:
            raise ConversionError(
                f"calibration data for input '{key}' has {arr.shape[0]} samples; the input's batch is fixed at "
                f"{t.shape[0]}, so give a multiple of it"
            )
        if arr.shape and arr.shape[0] == 0:
            raise ConversionError(f"calibration data for input '{key}' has no samples")
        if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
            raise ConversionError(f"calibration data for input '{key}' holds NaN or infinity")
        if count is not None and arr.shape[0] != count:
            raise ConversionError(f"calibration arrays have different sample counts ({count} and {arr.shape[0]})")
        count = arr.shape[0]
        matched.append((key, index, arr))
    return matched


def _batches(m, matched):
    """Feeds (lists in input order) of at most _CALIBRATION_BATCH samples."""
    count = matched[0][2].shape[0]
    t = m.tensors[matched[0][1]]
    dynamic = (t.signature or t.shape)[0] == -1
    step = _CALIBRATION_BATCH if dynamic else t.shape[0]
    for start in range(0, count, step):
        yield [arr[start : start + step] for _, _, arr in matched]


# --- calibration -------------------------------------------------------------------
def _consumers(m):
    users = {}
    for i, (_, ins, _, _, _) in enumerate(m.operators):
        for t in ins:
            if t >= 0:
                users.setdefault(t, []).append(i)
    return users


def calibrate(m, calibration, method="minmax", percentile=99.99):
    """{tensor index: (low, high)} of every float activation (op outputs
    and inputs) of builder `m` over the calibration data."""
    from converters import lite_runner

    if method not in ("minmax", "percentile"):
        raise ConversionError(f"calibration method must be 'minmax' or 'percentile', got {method!r}")
    if not 50 < percentile <= 100:
        raise ConversionError(f"percentile must be in (50, 100], got {percentile}")
    if not lite_runner.available():
        raise ConversionError(f"calibration runs the lite runtime; build it first ({lite_runner.library_path()})")
    matched = _match_calibration(m, calibration)
    observed = [o for _, _, outs, _, _ in m.operators for o in outs if m.tensors[o].dtype == np.float32]
    probe = _copy(m)
    probe.outputs = list(dict.fromkeys(observed))
    probe.signature_outputs = [(f"t{i}", i) for i in probe.outputs]
    runner = lite_runner.LiteRunner(probe.serialize(checksum=False))
    lows, highs = {}, {}

    def observe(index, value):
        if value.size == 0:
            return
        if method == "minmax":
            lo, hi = float(value.min()), float(value.max())
            lows[index] = min(lows.get(index, lo), lo)
            highs[index] = max(highs.get(index, hi), hi)
        else:
            lo, hi = np.percentile(value, [100 - percentile, percentile])
            lows.setdefault(index, []).append(float(lo))
            highs.setdefault(index, []).append(float(hi))

    for feeds in _batches(m, matched):
        try:
            outputs = runner.run(feeds)
        except lite_runner.LiteError as e:
            raise ConversionError(f"the float model failed on the calibration data: {e}") from None
        for (_, index, _), value in zip(matched, feeds):
            if value.dtype == np.float32:
                observe(index, value)
        for index in probe.outputs:
            observe(index, outputs[f"t{index}"])
    if method == "percentile":
        lows = {k: float(np.mean(v)) for k, v in lows.items()}
        highs = {k: float(np.mean(v)) for k, v in highs.items()}
    return {k: (lows[k], highs[k]) for k in lows}


def quant_params(low, high, dtype=np.uint8):
    """(scale, zero point) of an activation over [low, high] widened to hold
    0, asymmetric in `dtype`'s range (zero point rounded half to even)."""
    info = np.iinfo(dtype)
    low, high = min(float(low), 0.0), max(float(high), 0.0)
    if high == low:
        return np.float32(1.0), dtype(0)
    scale = np.float32((high - low) / (info.max - info.min))
    zp = int(np.clip(np.round(info.min - low / float(scale)), info.min, info.max))
    return scale, dtype(zp)


def weight_params(w, axis):
    """(int8 weights, float32 scales) symmetric per slice on `axis`."""
    moved = np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    scale = (np.abs(moved).max(axis=1) / 127.0).astype(np.float32)
    scale[scale == 0] = 1.0
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale


# --- model editing ---------------------------------------------------------------------
def _copy(m):
    c = TwlModelBuilder(m.description, m.subgraph_name)
    c.tensors, c.buffers = list(m.tensors), list(m.buffers)
    c.operators = list(m.operators)
    c.inputs, c.outputs = list(m.inputs), list(m.outputs)
    c.signature_inputs, c.signature_outputs = list(m.signature_inputs), list(m.signature_outputs)
    c.metadata = dict(m.metadata)
    c._names = set(m._names)
    return c


def _activation(options):
    return int(options[1].get("fused_activation_function", 0)) if options else 0


def _fold_activations(m):
    """Folds a RELU/RELU6 op into the CONV_2D/DEPTHWISE_CONV_2D/
    FULLY_CONNECTED before it (when that op's output is used only there)."""
    users = _consumers(m)
    producer = {o: i for i, op in enumerate(m.operators) for o in op[2]}
    dropped = set()
    for i, (opcode, ins, outs, _, _) in enumerate(m.operators):
        if opcode not in _FOLDABLE_ACTIVATIONS or ins[0] not in producer or ins[0] in m.outputs:
            continue
        p = producer[ins[0]]
        p_opcode, p_ins, _, p_options, p_version = m.operators[p]
        if p_opcode not in _COMPUTE[:3] or len(users.get(ins[0], [])) != 1 or _activation(p_options):
            continue
        table, fields = p_options
        fields = dict(fields, fused_activation_function=_FOLDABLE_ACTIVATIONS[opcode])
        m.operators[p] = (p_opcode, p_ins, [outs[0]], (table, fields), p_version)
        dropped.add(i)
    m.operators = [op for i, op in enumerate(m.operators) if i not in dropped]


class _Rewriter:
    """Builds the quantized model op by op from the float one."""

    def __init__(self, m, ranges, dtype):
        self.m, self.ranges, self.dtype = m, ranges, np.dtype(dtype).type
        self.out = TwlModelBuilder(m.description, m.subgraph_name)
        self.new = {}  # old tensor index -> new index (float or as it was)
        self.q = {}  # old tensor index -> new quantized tensor index
        self.params = {}  # new quantized tensor index -> (scale, zero point)
        self.counts = {}

    # Tensors.
    def tensor(self, old):
        """The new index of old tensor `old` as it was (float)."""
        if old < 0:
            return old
        if old not in self.new:
            t = self.m.tensors[old]
            value = twl_reader.constant(self.m, old)
            if value is not None:
                self.new[old] = self.out.add_constant(t.name, value)
            else:
                self.new[old] = self.out.add_tensor(t.name, t.shape, t.dtype, t.signature)
        return self.new[old]

    def quantized_tensor(self, old, params):
        t = self.m.tensors[old]
        index = self.out.add_tensor(f"{t.name}/quantized", t.shape, self.dtype, t.signature)
        self.params[index] = params
        self.q[old] = index
        return index

    def constant(self, name, value):
        return self.out.add_constant(name, value)

    def emit(self, opcode, inputs, outputs, options=None, version=1):
        self.counts[opcode] = self.counts.get(opcode, 0) + 1
        self.out.add_op(opcode, inputs, outputs, options, version)

    def qparam_inputs(self, name, params):
        scale, zp = params
        return [self.constant(f"{name}/scale", np.float32(scale)), self.constant(f"{name}/zero_point", zp)]

    def as_quantized(self, old):
        """The quantized tensor of old float tensor `old` (a QUANTIZE when it
        is float), or None when it has no calibrated range."""
        if old in self.q:
            return self.q[old]
        if old not in self.ranges or self.m.tensors[old].dtype != np.float32:
            return None
        params = quant_params(*self.ranges[old], self.dtype)
        index = self.quantized_tensor(old, params)
        name = self.m.tensors[old].name
        self.emit("QUANTIZE", [self.as_float(old), *self.qparam_inputs(name, params)], [index], ("QuantizeOptions", {}))
        return index

    def as_float(self, old):
        """The float tensor of old tensor `old` (a DEQUANTIZE when it is only
        quantized so far)."""
        if old < 0 or old in self.new or old not in self.q:
            return self.tensor(old)
        q = self.q[old]
        index = self.tensor(old)
        name = self.m.tensors[old].name
        self.emit("DEQUANTIZE", [q, *self.qparam_inputs(name, self.params[q])], [index], ("QuantizeOptions", {}))
        return index

    # Ops.
    def output_params(self, out, activation):
        if out not in self.ranges:
            return None
        low, high = self.ranges[out]
        if activation in (_ACTIVATION_RELU, _ACTIVATION_RELU6):
            low = 0.0
        if activation == _ACTIVATION_RELU6:
            high = min(high, 6.0)
        return quant_params(low, high, self.dtype)

    def product(self, op, out_params):
        """Emits the quantized form of a CONV_2D/DEPTHWISE_CONV_2D/
        FULLY_CONNECTED/BATCH_MATMUL op; False when it must stay float."""
        opcode, ins, outs, options, _ = op
        m = self.m
        if len(outs) != 1 or m.tensors[ins[0]].dtype != np.float32 or out_params is None:
            return False
        activation = _activation(options)
        if activation not in (_ACTIVATION_NONE, _ACTIVATION_RELU, _ACTIVATION_RELU6):
            return False
        w = twl_reader.constant(m, ins[1])
        bias = twl_reader.constant(m, ins[2]) if len(ins) > 2 and ins[2] >= 0 else None
        if w is None or w.dtype != np.float32 or (len(ins) > 2 and ins[2] >= 0 and bias is None):
            return False
        x_shape = m.tensors[ins[0]].shape
        x_sig = m.tensors[ins[0]].signature or x_shape
        fields = options[1] if options else {}
        if opcode in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            if w.ndim != 4 or len(x_shape) != 4 or -1 in x_sig[1:3]:
                return False
            if opcode == "CONV_2D":
                filt = w  # OHWI
            else:
                filt = w.transpose(3, 1, 2, 0)  # [1, H, W, C*dm] -> [C*dm, H, W, 1]
            strides = int(fields.get("stride_h", 1)), int(fields.get("stride_w", 1))
            dilations = int(fields.get("dilation_h_factor", 1)), int(fields.get("dilation_w_factor", 1))
            padding = int(fields.get("padding", 0))
            if padding == 0:  # SAME
                (top, bottom), (left, right) = (
                    same_pads(x_shape[1 + i], filt.shape[1 + i], strides[i], dilations[i]) for i in (0, 1)
                )
            elif padding == 1:  # VALID
                top = bottom = left = right = 0
            else:
                top, bottom = int(fields.get("pad_top", 0)), int(fields.get("pad_bottom", 0))
                left, right = int(fields.get("pad_left", 0)), int(fields.get("pad_right", 0))
            conv_options = {
                "stride_h": strides[0],
                "stride_w": strides[1],
                "dilation_h": dilations[0],
                "dilation_w": dilations[1],
                "pad_top": top,
                "pad_left": left,
                "pad_bottom": bottom,
                "pad_right": right,
            }
            wq, w_scale = weight_params(filt, 0)
            new_opcode, op_options = "QUANTIZED_CONV_2D", ("QuantizedConv2DOptions", conv_options)
        else:
            if w.ndim != 2 or len(x_shape) < 2:
                return False
            if opcode == "FULLY_CONNECTED":
                if len(x_shape) != 2 and not fields.get("keep_num_dims", False):
                    return False
                rhs = w.T  # [out, in] -> [in, out]
            else:
                if fields.get("adj_x", False) or (len(ins) > 2 and ins[2] >= 0):
                    return False
                rhs = w.T if fields.get("adj_y", False) else w
            wq, w_scale = weight_params(np.ascontiguousarray(rhs), 1)
            new_opcode, op_options = "QUANTIZED_BATCH_MATMUL", None
        x = self.as_quantized(ins[0])
        if x is None:
            return False
        x_scale, x_zp = self.params[x]
        y_scale, y_zp = out_params
        name = m.tensors[outs[0]].name
        inputs = [
            x,
            self.constant(f"{name}/weights_int8", np.ascontiguousarray(wq)),
            self.constant(f"{name}/input_zero_point", x_zp),
            self.constant(f"{name}/weights_zero_point", np.int8(0)),
            self.constant(
                f"{name}/multiplier", (np.float64(x_scale) * w_scale / np.float64(y_scale)).astype(np.float32)
            ),
            self.constant(f"{name}/output_zero_point", y_zp),
        ]
        if bias is not None:
            b = np.round(bias.astype(np.float64) / (np.float64(x_scale) * w_scale.astype(np.float64)))
            inputs.append(self.constant(f"{name}/bias_int32", np.clip(b, -(2**31), 2**31 - 1).astype(np.int32)))
        y = self.quantized_tensor(outs[0], out_params)
        self.emit(new_opcode, inputs, [y], op_options)
        return True

    def pass_through(self, op):
        """A data-movement op on quantized values (input's scale); False
        when its input is not quantized."""
        opcode, ins, outs, options, version = op
        if ins[0] not in self.q or len(outs) != 1:
            return False
        if opcode == "MAX_POOL_2D" and _activation(options):
            return False
        x = self.q[ins[0]]
        y = self.quantized_tensor(outs[0], self.params[x])
        self.emit(opcode, [x] + [self.tensor(i) for i in ins[1:]], [y], options, version)
        return True

    def add(self, op):
        """ADD of two float tensors of one shape as QUANTIZED_ADD
        requantizing to the output's scale (a fused RELU/RELU6 is in the
        output's range); False when it must stay float."""
        _, ins, outs, options, _ = op
        m = self.m
        activation = _activation(options)
        if len(ins) != 2 or len(outs) != 1 or activation not in (_ACTIVATION_NONE, _ACTIVATION_RELU, _ACTIVATION_RELU6):
            return False
        out_params = self.output_params(outs[0], activation)
        if out_params is None:
            return False
        a_t, b_t = m.tensors[ins[0]], m.tensors[ins[1]]
        # One shape, dynamic dims alike (QUANTIZED_ADD does not broadcast).
        same = list(a_t.shape) == list(b_t.shape) and list(a_t.signature or a_t.shape) == list(
            b_t.signature or b_t.shape
        )
        if a_t.dtype != np.float32 or b_t.dtype != np.float32 or not same:
            return False
        if ins[0] not in self.ranges and ins[0] not in self.q or ins[1] not in self.ranges and ins[1] not in self.q:
            return False
        a, b = self.as_quantized(ins[0]), self.as_quantized(ins[1])
        (a_scale, a_zp), (b_scale, b_zp) = self.params[a], self.params[b]
        y_scale, y_zp = out_params
        name = m.tensors[outs[0]].name
        inputs = [
            a,
            b,
            self.constant(f"{name}/a_zero_point", a_zp),
            self.constant(f"{name}/b_zero_point", b_zp),
            self.constant(f"{name}/a_multiplier", np.float32(np.float64(a_scale) / np.float64(y_scale))),
            self.constant(f"{name}/b_multiplier", np.float32(np.float64(b_scale) / np.float64(y_scale))),
            self.constant(f"{name}/output_zero_point", y_zp),
        ]
        y = self.quantized_tensor(outs[0], out_params)
        self.emit("QUANTIZED_ADD", inputs, [y])
        return True

    def concatenation(self, op):
        opcode, ins, outs, options, version = op
        if _activation(options) or not all(i in self.q for i in ins):
            return False
        params = {tuple(map(float, self.params[self.q[i]])) for i in ins}
        if len(params) != 1:
            return False
        y = self.quantized_tensor(outs[0], self.params[self.q[ins[0]]])
        self.emit(opcode, [self.q[i] for i in ins], [y], options, version)
        return True

    def run(self, overrides):
        m = self.m
        for key, old in m.signature_inputs:
            t = m.tensors[old]
            index = self.out.add_tensor(t.name, t.shape, t.dtype, t.signature)
            self.new[old] = index
            self.out.inputs.append(index)
            self.out.signature_inputs.append((key, index))
        for op in m.operators:
            opcode, ins, outs, options, version = op
            if opcode in _COMPUTE:
                params = overrides.get(outs[0]) or self.output_params(outs[0], _activation(options))
                if self.product(op, params):
                    continue
            elif opcode in _PASS_THROUGH:
                if self.pass_through(op):
                    continue
            elif (opcode == "CONCATENATION" and self.concatenation(op)) or (opcode == "ADD" and self.add(op)):
                continue
            inputs = [self.as_float(i) for i in ins]
            self.emit(opcode, inputs, [self.tensor(o) for o in outs], options, version)
        for key, old in m.signature_outputs:
            self.out.outputs.append(self.as_float(old))
            self.out.signature_outputs.append((key, self.new[old]))
        self.out.metadata = dict(m.metadata)
        return self.out


def _concat_overrides(m, ranges, dtype):
    """{product output: params}: the inputs of a CONCATENATION that are each
    a quantizable product's output used only there get the concatenation's
    output scale, so that it can run on quantized values."""
    users = _consumers(m)
    producer = {o: op for op in m.operators for o in op[2]}
    overrides = {}
    for opcode, ins, outs, options, _ in m.operators:
        if opcode != "CONCATENATION" or outs[0] not in ranges or _activation(options):
            continue
        if all(
            i in producer
            and producer[i][0] in _COMPUTE
            and len(users.get(i, [])) == 1
            and i not in m.outputs
            and _activation(producer[i][3]) == _ACTIVATION_NONE
            for i in ins
        ):
            for i in ins:
                overrides[i] = quant_params(*ranges[outs[0]], dtype)
    return overrides


def _dynamic(m):
    """Weights-only quantization: int8 weights + DEQUANTIZE per run."""
    out = _copy(m)
    operators, counts = [], {}
    for opcode, ins, outs, options, version in m.operators:
        # CONV_2D packs its filter once and needs it constant.
        w = twl_reader.constant(m, ins[1]) if opcode in _DYNAMIC and len(ins) > 1 and ins[1] >= 0 else None
        if w is not None and w.dtype == np.float32 and w.ndim in (2, 4) and w.size >= 64:
            axis = _DYNAMIC[opcode]
            if opcode == "BATCH_MATMUL" and options and options[1].get("adj_y", False):
                axis = 0
            wq, scale = weight_params(w, axis)
            name = m.tensors[ins[1]].name
            q = out.add_constant(f"{name}/int8", wq)
            s = out.add_constant(f"{name}/scale", scale)
            z = out.add_constant(f"{name}/zero_point", np.zeros(scale.shape, np.int8))
            f = out.add_tensor(f"{name}/dequantized", w.shape, np.float32)
            operators.append(("DEQUANTIZE", [q, s, z], [f], ("QuantizeOptions", {"axis": axis}), 1))
            ins = [ins[0], f, *ins[2:]]
            counts["DEQUANTIZE"] = counts.get("DEQUANTIZE", 0) + 1
        operators.append((opcode, ins, outs, options, version))
    out.operators = operators
    return out, counts


def _compact(m):
    """A copy of `m` keeping only the tensors and buffers its ops, inputs and
    outputs use."""
    used = set(m.inputs) | set(m.outputs)
    for _, ins, outs, _, _ in m.operators:
        used.update(i for i in ins + outs if i >= 0)
    order = sorted(used)
    remap = {old: new for new, old in enumerate(order)}
    out = _copy(m)
    out.tensors, out.buffers = [], [b""]
    buffer_map = {}
    for old in order:
        t = m.tensors[old]
        buffer = 0
        if t.buffer:
            if t.buffer not in buffer_map:
                out.buffers.append(m.buffers[t.buffer])
                buffer_map[t.buffer] = len(out.buffers) - 1
            buffer = buffer_map[t.buffer]
        out.tensors.append(type(t)(t.name, t.shape, t.dtype, buffer, t.signature))
    out.operators = [
        (opcode, [remap[i] if i >= 0 else i for i in ins], [remap[o] for o in outs], options, version)
        for opcode, ins, outs, options, version in m.operators
    ]
    out.inputs = [remap[i] for i in m.inputs]
    out.outputs = [remap[o] for o in m.outputs]
    out.signature_inputs = [(k, remap[i]) for k, i in m.signature_inputs]
    out.signature_outputs = [(k, remap[i]) for k, i in m.signature_outputs]
    return out


def quantize(
    model,
    calibration=None,
    mode="int8",
    activation_type="uint8",
    method="minmax",
    percentile=99.99,
    checksum=True,
    report=None,
):
    """The quantized .twl bytes of float .twl `model` (bytes or a path).

    `mode`: "int8" (static: needs `calibration`, an {input name: samples}
    mapping, an array for a one-input model, or a path that
    `load_calibration` reads) or "dynamic" (weights only).
    `activation_type`: "uint8" or "int8". `method`: "minmax" or
    "percentile" (the mean over calibration batches of the `percentile`th
    and (100 - `percentile`)th percentiles). `report`, a dict, receives
    the counts of the ops written."""
    if isinstance(model, (str, os.PathLike)):
        with open(model, "rb") as f:
            model = f.read()
    m = twl_reader.read_builder(model)
    if mode == "dynamic":
        out, counts = _dynamic(m)
    elif mode == "int8":
        if activation_type not in ("uint8", "int8"):
            raise ConversionError(f"activation_type must be 'uint8' or 'int8', got {activation_type!r}")
        if calibration is None:
            raise ConversionError("static int8 quantization needs calibration data (--calibration)")
        if isinstance(calibration, (str, os.PathLike)):
            calibration = load_calibration(calibration)
        dtype = np.uint8 if activation_type == "uint8" else np.int8
        _fold_activations(m)
        ranges = calibrate(m, calibration, method, percentile)
        rewriter = _Rewriter(m, ranges, dtype)
        out = rewriter.run(_concat_overrides(m, ranges, dtype))
        counts = rewriter.counts
    else:
        raise ConversionError(f"quantization mode must be 'int8' or 'dynamic', got {mode!r}")
    out = _compact(out)
    out.metadata["quantization"] = json.dumps(
        {"mode": mode, "activations": activation_type, "method": method}
        if mode == "int8"
        else {"mode": mode, "weights": "int8"},
        sort_keys=True,
    )
    if report is not None:
        report.update(counts)
    return out.serialize(checksum=checksum)
