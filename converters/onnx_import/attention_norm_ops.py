"""Importers of attention, the normalizations, the losses and Einsum, the
layer and RMS norms on the fused LAYER_NORM kernel, the others decomposed
onto existing lite ops (MEAN, BATCH_MATMUL, SOFTMAX, SELECT, ...):

  Attention                 one ATTENTION op (the fused kernel) when there is
                            no cache, softcap or qk output (and
                            fusion.ATTENTION); else scores = (Q * scale) K^T
                            in one BATCH_MATMUL per head group (grouped-query
                            heads share their K/V without copies), softcap, an additive bias built
                            at conversion from the static shapes (causal,
                            sliding window; a table GATHERed by
                            nonpad_kv_seqlen), SOFTMAX, a guard zeroing rows
                            with every key masked, then P V
  LayerNormalization,       LAYER_NORM (RMSNormalization: its rms option);
  RMSNormalization          Mean and InvStdDev, and an RMS norm whose computed
                            scale only broadcasts, MEAN-based as below
  Instance-, Group-,        MEAN-based: (x - MEAN(x)) * RSQRT(MEAN((x -
  MeanVariance-, Lp-        mean)^2) + eps); LRN's window sum over channels
  Normalization, LRN        is a FULLY_CONNECTED with a band matrix in NHWC
  NegativeLogLikelihoodLoss, the target class picked with EQUAL against a
  SoftmaxCrossEntropyLoss   constant iota of the classes + SELECT, weights
                            GATHERed, sums as MEAN times the count
  Einsum                    TRANSPOSE / RESHAPE / BATCH_MATMUL / MEAN * n, a
                            diagonal as a GATHER of the flattened pair

There are no SUM or MAX reductions among the lite ops yet: a sum is MEAN
times the number of elements, and a row "fully masked" is one whose mean
of (bias != -inf) is 0.
"""

import numpy as np

from converters.errors import NodeError as _NodeError
from converters.onnx_import import fusion
from converters.onnx_import import run_time as run_time_ops
from converters.onnx_import.context import attrs, imports

_F32 = np.dtype(np.float32)


def _text(value):
    return value.decode() if isinstance(value, bytes) else value


def _padded(names, count):
    """ONNX input or output names padded with "" (absent) to `count`."""
    return list(names) + [""] * (count - len(names))


class _Emitter:
    """Emits one node's decomposition: tensors named after the node's first
    output, shapes worked out here (numpy broadcasting), constants added on
    use. `out=` binds a result to an ONNX output name."""

    def __init__(self, ctx, node):
        self.ctx = ctx
        self.prefix = node.output[0] or node.name
        self.count = 0
        self.made = set()  # tensors this emitter computed
        # A symbolic dim 0 of the first input (1 in the static shapes) is the
        # batch: RESHAPEs keep it as -1, so the model runs at any batch.
        x = node.input[0] if node.input else ""
        sig = ctx.signature_of(x, ctx.shape(x)) if x and _has_static_shape(ctx, x) else None
        self.dynamic_batch = bool(sig) and sig[0] == -1

    def shape(self, t):
        return list(self.ctx.builder.tensor(t).shape)

    def dtype(self, t):
        return self.ctx.builder.tensor(t).dtype

    def _name(self, what):
        self.count += 1
        return f"{self.prefix}/{what}{self.count}"

    def const(self, value, dtype=np.float32):
        return self.ctx.constant(self._name("c"), np.asarray(value, dtype))

    def op(self, opcode, inputs, shape, dtype, options=None, out=None):
        if out:
            t = self.ctx.output(out, dtype=dtype)
        else:
            t = self.ctx.intermediate(self._name(opcode.lower()), shape, dtype)
        self.ctx.builder.add_op(opcode, inputs, [t], options)
        self.made.add(t)
        return t

    def bind(self, t, out, nhwc=False):
        """Makes lite tensor `t` (the NHWC transpose of it when `nhwc`) ONNX
        output `out` (a copy when `t` is not this node's own result, e.g. a
        graph input passed through)."""
        if not out:
            return
        if t in self.made:
            self.ctx.tensors[out] = (t, nhwc)
        else:
            self.reshape(t, self.shape(t), out=out)

    def binary(self, opcode, a, b, out=None):
        shape = list(np.broadcast_shapes(tuple(self.shape(a)), tuple(self.shape(b))))
        options = None if opcode in ("MAXIMUM", "MINIMUM") else ("ArithmeticOptions", {})
        return self.op(opcode, [a, b], shape, self.dtype(a), options, out)

    def unary(self, opcode, a, out=None):
        return self.op(opcode, [a], self.shape(a), self.dtype(a), None, out)

    def scaled(self, a, factor, out=None):
        if factor == 1 and not out:
            return a
        return self.binary("MUL", a, self.const(factor, self.dtype(a)), out)

    def mean(self, a, axes, keep=True, out=None):
        shape = self.shape(a)
        axes = sorted({int(x) % len(shape) for x in axes})
        if keep:
            new = [1 if i in axes else d for i, d in enumerate(shape)]
        else:
            new = [d for i, d in enumerate(shape) if i not in axes]
        options = ("ReducerOptions", {"keep_dims": keep})
        return self.op("MEAN", [a, self.const(axes, np.int32)], new, self.dtype(a), options, out)

    def sum(self, a, axes, keep=True, out=None):
        """REDUCE_SUM (exact at any run-time size of the axes)."""
        shape = self.shape(a)
        axes = sorted({int(x) % len(shape) for x in axes})
        if keep:
            new = [1 if i in axes else d for i, d in enumerate(shape)]
        else:
            new = [d for i, d in enumerate(shape) if i not in axes]
        options = ("ReducerOptions", {"keep_dims": keep})
        return self.op("REDUCE_SUM", [a, self.const(axes, np.int32)], new, self.dtype(a), options, out)

    def reshape(self, a, shape, out=None):
        if not shape:  # to a scalar: a constant shape cannot be empty
            return self.op("SQUEEZE", [a], [], self.dtype(a), ("SqueezeOptions", {}), out)
        target = list(shape)
        if self.dynamic_batch and target[0] == 1 and self.shape(a)[:1] == [1] and -1 not in target:
            target[0] = -1
        return self.op("RESHAPE", [a, self.const(target, np.int32)], list(shape), self.dtype(a), None, out)

    def transpose(self, a, perm, out=None):
        if list(perm) == list(range(len(perm))):
            self.bind(a, out)
            return a
        shape = [self.shape(a)[p] for p in perm]
        return self.op("TRANSPOSE", [a, self.const(perm, np.int32)], shape, self.dtype(a), None, out)

    def matmul(self, a, b, adj_y=False, out=None):
        sa, sb = self.shape(a), self.shape(b)
        batch = list(np.broadcast_shapes(tuple(sa[:-2]), tuple(sb[:-2])))
        shape = batch + [sa[-2], sb[-2] if adj_y else sb[-1]]
        options = ("BatchMatMulOptions", {"adj_y": adj_y})
        return self.op("BATCH_MATMUL", [a, b], shape, self.dtype(a), options, out)

    def concat(self, items, axis, out=None):
        shape = self.shape(items[0])
        shape[axis] = sum(self.shape(t)[axis] for t in items)
        options = ("ConcatenationOptions", {"axis": axis})
        return self.op("CONCATENATION", items, shape, self.dtype(items[0]), options, out)

    def softmax(self, a, log=False, out=None):
        """SOFTMAX / LOG_SOFTMAX over the last axis."""
        options = ("SoftmaxOptions", {"beta": 1.0})
        return self.op("LOG_SOFTMAX" if log else "SOFTMAX", [a], self.shape(a), self.dtype(a), options, out)

    def select(self, cond, x, y, out=None):
        shape = np.broadcast_shapes(*(tuple(self.shape(t)) for t in (cond, x, y)))
        return self.op("SELECT", [cond, x, y], list(shape), self.dtype(x), None, out)

    def equal(self, a, b):
        shape = list(np.broadcast_shapes(tuple(self.shape(a)), tuple(self.shape(b))))
        return self.op("EQUAL", [a, b], shape, np.bool_)

    def gather(self, params, indices, axis=0):
        sp = self.shape(params)
        shape = sp[:axis] + self.shape(indices) + sp[axis + 1 :]
        return self.op("GATHER", [params, indices], shape, self.dtype(params), ("GatherOptions", {"axis": axis}))

    def cast(self, a, dtype, out=None):
        if np.dtype(dtype) == self.dtype(a) and not out:
            return a
        return self.op("CAST", [a], self.shape(a), np.dtype(dtype), None, out)

    def finish(self, t, out, dtype):
        """Binds float32 result `t` to ONNX output `out` of `dtype`."""
        if out:
            if np.dtype(dtype) != self.dtype(t):
                self.cast(t, dtype, out=out)
            else:
                self.bind(t, out)

    def moments(self, x, axes, epsilon):
        """(x - mean, mean, 1 / sqrt(variance + epsilon)) over `axes`."""
        mean = self.mean(x, axes)
        centered = self.binary("SUB", x, mean)
        variance = self.mean(self.unary("SQUARE", centered), axes)
        inv_std = self.unary("RSQRT", self.binary("ADD", variance, self.const(epsilon)))
        return centered, mean, inv_std

    def normalized(self, x, axes, epsilon):
        """(x - mean) / sqrt(variance + epsilon) over `axes`."""
        centered, _, inv_std = self.moments(x, axes, epsilon)
        return self.binary("MUL", centered, inv_std)


def _has_static_shape(ctx, name):
    """Whether shape inference gave tensor `name` a static shape (needed
    where a result stays NHWC: its ONNX layout is made on use)."""
    try:
        ctx.shape(name)
    except _NodeError:
        return False
    return True


def _float_input(ctx, e, name, what="input"):
    """The float32 lite tensor of ONNX float tensor `name` (a CAST from
    float16: the lite runtime stores float16 but computes in float32)."""
    dtype = np.dtype(ctx.dtype(name))
    if dtype not in (_F32, np.dtype(np.float16)):
        raise _NodeError(f"{what} is {dtype}; the lite decomposition computes in float32")
    return e.cast(ctx.plain(name), np.float32)


# --- Attention ------------------------------------------------------------------


def _split_heads(e, t, heads):
    """[B, S, heads * D] -> [B, heads, S, D]."""
    b, s, hidden = e.shape(t)
    if hidden % heads:
        raise _NodeError(f"hidden size {hidden} is not a multiple of {heads} heads")
    return e.transpose(e.reshape(t, [b, s, heads, hidden // heads]), [0, 2, 1, 3])


def _allowed_keys(q_len, kv_len, offset, causal, left, right):
    """[q_len, kv_len] bool: key j is visible to query i (absolute position
    offset + i) under the causal and sliding-window rules."""
    diff = (np.arange(q_len)[:, None] + offset) - np.arange(kv_len)[None, :]
    allowed = np.ones([q_len, kv_len], bool)
    if causal:
        allowed &= diff >= 0
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    return allowed


def _additive(allowed):
    return np.where(allowed, np.float32(0), np.float32(-np.inf))


def _attention_mask_part(ctx, e, name, kv_len):
    """The attn_mask input as an additive float32 bias, its last dim padded
    to kv_len (-inf): a numpy array when constant, else a lite tensor."""
    dtype = np.dtype(ctx.dtype(name))
    value = ctx.const(name)
    width = ctx.shape(name)[-1]
    if width > kv_len:
        raise _NodeError(f"attn_mask has {width} keys, more than the {kv_len} of K")
    if value is not None:
        bias = _additive(value) if dtype == np.bool_ else value.astype(np.float32)
        pad = [(0, 0)] * (bias.ndim - 1) + [(0, kv_len - width)]
        return np.pad(bias, pad, constant_values=-np.inf)
    if dtype == np.bool_:
        bias = e.select(ctx.plain(name), e.const(0.0), e.const(-np.inf))
    else:
        bias = _float_input(ctx, e, name, "attn_mask")
    if width < kv_len:
        shape = e.shape(bias)
        paddings = np.zeros([len(shape), 2], np.int32)
        paddings[-1, 1] = kv_len - width
        shape[-1] = kv_len
        bias = e.op("PAD", [bias, e.const(paddings, np.int32), e.const(-np.inf)], shape, _F32)
    return bias


def _external_cache_bias(ctx, e, name, batch, q_len, kv_len, causal, left, right):
    """The bias [B, 1, q_len, kv_len] of an external cache, nonpad_kv_seqlen
    `name` (n[b] valid keys): keys j >= n[b] are padding, and query i sits
    at position i + n[b] - q_len for the causal and window rules. Each rule
    is a function of n[b] minus a constant index (n - j; n - (j - i +
    q_len) = the query's distance to key j), so it is a GATHER from a 1-D
    table by that difference: memory O(kv_len), and an n[b] outside [0,
    kv_len] indexes past a table (a GATHER error, not a read out of
    bounds)."""
    n = e.reshape(ctx.plain(name), [batch, 1, 1])
    dtype = e.dtype(n)
    keys = np.arange(kv_len)
    # Padding: n - j + kv_len in [1, 2 kv_len]; visible where n - j >= 1.
    steps = np.arange(2 * kv_len + 1) - kv_len
    index = e.binary("SUB", n, e.const(keys - kv_len, dtype))
    bias = e.gather(e.const(_additive(steps >= 1)), index)  # [B, 1, kv_len]
    if causal or left >= 0 or right >= 0:
        # distance = n - (j - i + q_len), shifted by kv_len + q_len - 1 to
        # index [0, 2 kv_len + q_len - 2].
        shift = kv_len + q_len - 1
        relative = keys[None, :] - np.arange(q_len)[:, None] + q_len
        distance = np.arange(2 * kv_len + q_len - 1) - shift
        visible = np.ones_like(distance, bool)
        if causal:
            visible &= distance >= 0
        if left >= 0:
            visible &= distance <= left
        if right >= 0:
            visible &= -distance <= right
        index = e.binary("SUB", n, e.const(relative - shift, dtype))
        bias = e.binary("ADD", e.gather(e.const(_additive(visible)), index), bias)  # [B, q_len, kv_len]
    return e.reshape(bias, [batch, 1, e.shape(bias)[1], kv_len])


def _attention_bias(ctx, e, node, a, batch, q_len, kv_len, past_len, guard=True):
    """(additive bias tensor or None, "row fully masked" bool tensor or
    None; None unless `guard`) for scores [B, H, q_len, kv_len]."""
    names = _padded(node.input, 7)
    causal = bool(a.get("is_causal", 0))
    left, right = a.get("left_window_size", -1), a.get("right_window_size", -1)
    static, runtime = None, []
    if names[6]:
        runtime.append(_external_cache_bias(ctx, e, names[6], batch, q_len, kv_len, causal, left, right))
    elif causal or left >= 0 or right >= 0:
        static = _additive(_allowed_keys(q_len, kv_len, past_len, causal, left, right))
    if names[3]:
        mask = _attention_mask_part(ctx, e, names[3], kv_len)
        if isinstance(mask, np.ndarray):
            static = mask if static is None else static + mask
        else:
            runtime.append(mask)
    if static is None and not runtime:
        return None, None
    if not guard:
        bias = runtime[0] if runtime else None
        for t in runtime[1:] + ([e.const(static)] if static is not None else []):
            bias = e.binary("ADD", bias, t) if bias is not None else t
        return bias, None
    if not runtime:
        fully_masked = np.all(np.isneginf(static), axis=-1, keepdims=True)
        guard = e.const(fully_masked, np.bool_) if fully_masked.any() else None
        return e.const(static), guard
    bias = runtime[0]
    for t in runtime[1:] + ([e.const(static)] if static is not None else []):
        bias = e.binary("ADD", bias, t)
    # A row is fully masked when the mean of (bias != -inf) over it is 0.
    visible = e.select(e.equal(bias, e.const(-np.inf)), e.const(0.0), e.const(1.0))
    guard = e.equal(e.mean(visible, [-1]), e.const(0.0))
    return bias, guard


@imports("Attention")
def _attention(ctx, node):
    a = attrs(node)
    e = _Emitter(ctx, node)
    q_name, k_name, v_name, _, past_k, past_v, _ = _padded(node.input, 7)
    y_out, key_out, value_out, qk_out = _padded(node.output, 4)
    dtype = np.dtype(ctx.dtype(q_name))
    if bool(past_k) != bool(past_v):
        raise _NodeError("past_key and past_value must be given together")
    if len(node.input) > 6 and node.input[6] and past_k:
        raise _NodeError("nonpad_kv_seqlen cannot be combined with past_key/past_value")
    if dtype not in (_F32, np.dtype(np.float16)):
        raise _NodeError(f"Q is {dtype}; the lite decomposition computes in float32")
    mode = a.get("qk_matmul_output_mode", 0)
    if mode not in (0, 1, 2, 3):
        raise _NodeError(f"qk_matmul_output_mode {mode} is not 0..3")
    q, k, v = (ctx.plain(n) for n in (q_name, k_name, v_name))
    rank = ctx.rank(q_name)
    if fusion.ATTENTION and not (past_k or key_out or value_out or qk_out or a.get("softcap", 0.0) > 0):
        return _fused_attention_op(ctx, e, node, a, q, k, v, rank, y_out, dtype)
    if rank == 3:
        if "q_num_heads" not in a or "kv_num_heads" not in a:
            raise _NodeError("3-D inputs need the q_num_heads and kv_num_heads attributes")
        q = _split_heads(e, q, a["q_num_heads"])
        k = _split_heads(e, k, a["kv_num_heads"])
        v = _split_heads(e, v, a["kv_num_heads"])
    elif rank != 4:
        raise _NodeError(f"Q has rank {rank}; Attention takes 3-D or 4-D inputs")
    past_len = ctx.shape(past_k)[2] if past_k else 0
    if past_k:  # the cache is concatenated in its own type, before any CAST
        k = e.concat([ctx.plain(past_k), k], 2)
        v = e.concat([ctx.plain(past_v), v], 2)
    e.bind(k, key_out)
    e.bind(v, value_out)
    q, k, v = (e.cast(t, np.float32) for t in (q, k, v))
    batch, q_heads, q_len, head_size = e.shape(q)
    kv_heads, kv_len = e.shape(k)[1], e.shape(k)[2]
    if q_heads % kv_heads or e.shape(v)[1] != kv_heads:
        raise _NodeError(f"{q_heads} query heads cannot share {kv_heads} key/value heads")
    group = q_heads // kv_heads
    scale = a.get("scale", 1.0 / np.sqrt(head_size))
    # Query head h reads key/value head h // group: the heads of one group
    # are consecutive, so Q as [B, kv_heads, group * q_len, D] meets K as is.
    q = e.scaled(q, scale)
    if group > 1:
        q = e.reshape(q, [batch, kv_heads, group * q_len, head_size])
    scores = e.matmul(q, k, adj_y=True)
    if group > 1:
        scores = e.reshape(scores, [batch, q_heads, q_len, kv_len])
    raw = scores
    softcap = a.get("softcap", 0.0)
    if softcap > 0:
        scores = e.scaled(e.unary("TANH", e.scaled(scores, 1.0 / softcap)), softcap)
    capped = scores
    bias, guard = _attention_bias(ctx, e, node, a, batch, q_len, kv_len, past_len)
    if bias is not None:
        scores = e.binary("ADD", scores, bias)
    probs = e.softmax(scores)
    if guard is not None:  # a row with every key masked attends to nothing
        probs = e.select(guard, e.const(0.0), probs)
    if qk_out:
        e.finish({0: raw, 1: capped, 2: scores, 3: probs}[mode], qk_out, dtype)
    if group > 1:
        probs = e.reshape(probs, [batch, kv_heads, group * q_len, kv_len])
    y = e.matmul(probs, v)
    v_size = e.shape(v)[3]
    if rank == 3:
        y = e.reshape(y, [batch, q_heads, q_len, v_size]) if group > 1 else y
        y = e.reshape(e.transpose(y, [0, 2, 1, 3]), [batch, q_len, q_heads * v_size])
    elif group > 1:
        y = e.reshape(y, [batch, q_heads, q_len, v_size])
    e.finish(y, y_out, dtype)


def _fused_attention_op(ctx, e, node, a, q, k, v, rank, y_out, dtype):
    """Attention without a cache, softcap or the qk output as one ATTENTION
    op: 3-D inputs reshaped to [B, S, heads, D] (its BSHD layout, no
    transposes), the mask and causal/window rules as its bias, rows with
    every key masked giving zeros (zero_masked_rows)."""
    q, k, v = (e.cast(t, np.float32) for t in (q, k, v))
    layout = 0
    if rank == 3:
        if "q_num_heads" not in a or "kv_num_heads" not in a:
            raise _NodeError("3-D inputs need the q_num_heads and kv_num_heads attributes")
        split = []
        for t, h in ((q, a["q_num_heads"]), (k, a["kv_num_heads"]), (v, a["kv_num_heads"])):
            b, s, hidden = e.shape(t)
            if h <= 0 or hidden % h:
                raise _NodeError(f"hidden size {hidden} is not a multiple of {h} heads")
            split.append(e.reshape(t, [b, s, h, hidden // h]))
        q, k, v = split
        layout = 1  # BSHD
    elif rank != 4:
        raise _NodeError(f"Q has rank {rank}; Attention takes 3-D or 4-D inputs")
    (batch, q_len, q_heads, head_size), (kv_len, kv_heads) = e.shape(q), e.shape(k)[1:3]
    if layout == 0:
        q_heads, q_len = q_len, q_heads
        kv_heads, kv_len = kv_len, kv_heads
    v_heads = e.shape(v)[2 if layout else 1]
    if kv_heads == 0 or q_heads % kv_heads or v_heads != kv_heads:
        raise _NodeError(f"{q_heads} query heads cannot share {kv_heads} key/value heads")
    scale = a.get("scale", 1.0 / np.sqrt(head_size))
    bias, _ = _attention_bias(ctx, e, node, a, batch, q_len, kv_len, 0, guard=False)
    v_size = e.shape(v)[3]
    shape = [batch, q_len, q_heads, v_size] if layout else [batch, q_heads, q_len, v_size]
    options = {"scale": float(scale), "zero_masked_rows": True}
    options.update({f"{x}_layout": layout for x in "qkvy"})
    y = e.op("ATTENTION", [q, k, v, -1 if bias is None else bias], shape, _F32, ("AttentionOptions", options))
    if rank == 3:
        y = e.reshape(y, [batch, q_len, q_heads * v_size])
    e.finish(y, y_out, dtype)


@imports("TwlFusedAttention")
def _fused_attention(ctx, node):
    """The attention pattern fusion.py found: one ATTENTION op (its
    attributes are the op's options)."""
    a = attrs(node)
    inputs = [ctx.plain(n) for n in node.input[:3]]
    inputs.append(ctx.plain(node.input[3]) if len(node.input) > 3 and node.input[3] else -1)
    options = {f: a[f] for f in ("scale", "q_layout", "k_layout", "v_layout", "y_layout")}
    ctx.builder.add_op("ATTENTION", inputs, [ctx.output(node.output[0])], ("AttentionOptions", options))


# --- Normalizations -----------------------------------------------------------


def _axis(ctx, node, name, default):
    rank = ctx.rank(name)
    axis = attrs(node).get("axis", default)
    if not -rank <= axis < rank:
        raise _NodeError(f"axis {axis} is out of range for rank {rank}")
    return axis % rank


def _check_stash_type(node):
    stash = attrs(node).get("stash_type", 1)
    if stash != 1:
        raise _NodeError(f"stash_type {stash} is not supported (float32 only)")


def _lite_layer_norm_params(ctx, node, normalized):
    """[scale, bias or -1] as LAYER_NORM takes them (of the normalized dims'
    shape: constants broadcast at conversion), or None when a computed one
    has another shape."""
    params = []
    for i, what in ((1, "scale"), (2, "bias")):
        if i >= len(node.input) or not node.input[i]:
            params.append(-1)
            continue
        value = ctx.const(node.input[i])
        if value is not None:
            try:
                value = np.ascontiguousarray(np.broadcast_to(value, normalized), np.float32)
            except ValueError:
                raise _NodeError(f"{what} of shape {list(value.shape)} does not broadcast to {normalized}") from None
            params.append(ctx.constant(f"{node.output[0]}/{what}", value))
        elif ctx.shape(node.input[i]) == normalized and ctx.dtype(node.input[i]) == _F32:
            params.append(ctx.plain(node.input[i]))
        else:
            return None
    return params


def _lite_layer_norm(ctx, node, rms):
    """LAYER_NORM over dims [axis, rank) (`rms`: RMS normalization); None,
    or why it cannot take the node."""
    x = node.input[0]
    shape = ctx.shape(x)
    axis = _axis(ctx, node, x, -1)
    sig = ctx.signature_of(x, shape)
    if ctx.dtype(x) != _F32:
        return f"input is {np.dtype(ctx.dtype(x))}; LAYER_NORM computes in float32"
    if sig and any(d == -1 for d in sig[axis:]):
        return "the normalized dims must be static"
    params = _lite_layer_norm_params(ctx, node, shape[axis:])
    if params is None:
        return f"a computed scale or bias must have the normalized shape {shape[axis:]}"
    options = {"axis": axis, "epsilon": float(attrs(node).get("epsilon", 1e-5)), "rms": rms}
    ctx.builder.add_op(
        "LAYER_NORM", [ctx.plain(x)] + params, [ctx.output(node.output[0])], ("LayerNormOptions", options)
    )
    return None


@imports("LayerNormalization")
def _layer_norm(ctx, node):
    """LAYER_NORM for Y; the optional Mean and InvStdDev outputs (over dims
    [axis, rank), kept as 1s) decomposed beside it."""
    _check_stash_type(node)
    x = node.input[0]
    refusal = _lite_layer_norm(ctx, node, rms=False)
    if refusal:
        raise _NodeError(refusal)
    outs = _padded(node.output, 3)
    if outs[1] or outs[2]:
        e = _Emitter(ctx, node)
        axes = list(range(_axis(ctx, node, x, -1), ctx.rank(x)))
        _, mean, inv_std = e.moments(ctx.plain(x), axes, attrs(node).get("epsilon", 1e-5))
        e.bind(mean, outs[1])
        e.bind(inv_std, outs[2])


@imports("RMSNormalization")
def _rms_norm(ctx, node):
    """LAYER_NORM with rms; else (a computed scale that broadcasts) the
    decomposition y = x * RSQRT(MEAN(x^2 over dims [axis, rank)) + eps) * scale."""
    _check_stash_type(node)
    if _lite_layer_norm(ctx, node, rms=True) is None:
        return
    e = _Emitter(ctx, node)
    x_name = node.input[0]
    dtype = ctx.dtype(x_name)
    x = _float_input(ctx, e, x_name)
    axes = list(range(_axis(ctx, node, x_name, -1), ctx.rank(x_name)))
    power = e.mean(e.unary("SQUARE", x), axes)
    inv_rms = e.unary("RSQRT", e.binary("ADD", power, e.const(attrs(node).get("epsilon", 1e-5))))
    y = e.binary("MUL", e.binary("MUL", x, inv_rms), _float_input(ctx, e, node.input[1], "scale"))
    e.finish(y, node.output[0], dtype)


def _channel_param(ctx, e, name, rank):
    """Per-channel scale or bias [C] as [C, 1, ...] against [N, C, ...]."""
    t = _float_input(ctx, e, name, "scale and bias")
    return e.reshape(t, [e.shape(t)[0]] + [1] * (rank - 2))


@imports("InstanceNormalization")
def _instance_norm(ctx, node):
    """Normalized over the spatial dims; after a Conv (NHWC) in NHWC, with
    no TRANSPOSE."""
    e = _Emitter(ctx, node)
    x_name, out = node.input[0], node.output[0]
    rank = ctx.rank(x_name)
    epsilon = attrs(node).get("epsilon", 1e-5)
    if rank == 4 and ctx.is_nhwc(x_name) and ctx.dtype(x_name) == _F32 and _has_static_shape(ctx, out):
        y = e.normalized(ctx.nhwc(x_name), [1, 2], epsilon)
        scale, bias = (_float_input(ctx, e, node.input[i], "scale and bias") for i in (1, 2))
        ctx.builder.add_op("ADD", [e.binary("MUL", y, scale), bias], [ctx.output(out, nhwc=True)])
        return
    y = e.normalized(_float_input(ctx, e, x_name), list(range(2, rank)), epsilon)
    y = e.binary("MUL", y, _channel_param(ctx, e, node.input[1], rank))
    y = e.binary("ADD", y, _channel_param(ctx, e, node.input[2], rank))
    e.finish(y, out, ctx.dtype(x_name))


@imports("GroupNormalization")
def _group_norm(ctx, node):
    """Normalized over [N, groups, C / groups * spatial] ([N, H * W, groups,
    C / groups] after a Conv, in NHWC); scale and bias are per channel
    (opset 21) or per group (opset 18)."""
    _check_stash_type(node)
    a = attrs(node)
    e = _Emitter(ctx, node)
    x_name = node.input[0]
    shape = ctx.shape(x_name)
    groups = a["num_groups"]
    if groups <= 0 or shape[1] % groups:
        raise _NodeError(f"{shape[1]} channels do not split into {groups} groups")
    # Spatial or time dims known only at run time: the RESHAPEs take shapes
    # computed when the model runs ([N, groups, -1], then the input's).
    run_time = -1 in (ctx.signature_of(x_name, shape) or shape)[1:]
    nhwc = (
        len(shape) == 4
        and not run_time
        and ctx.is_nhwc(x_name)
        and ctx.dtype(x_name) == _F32
        and _has_static_shape(ctx, node.output[0])
    )
    if nhwc:
        n, c, h, w = shape
        x, layout = ctx.nhwc(x_name), [n, h, w, c]
        grouped, axes = [n, h * w, groups, c // groups], [1, 3]
    else:
        x, layout = _float_input(ctx, e, x_name), shape
        grouped, axes = [shape[0], groups, int(np.prod(shape[1:])) // groups], [2]

    def to_layout(t):
        if not run_time:
            return e.reshape(t, layout)
        return e.op("RESHAPE", [t, run_time_ops.shape_of(ctx, x_name)], layout, _F32)

    if run_time:
        target = e.concat([run_time_ops.shape_of(ctx, x_name, [0]), e.const([groups, -1], np.int64)], 0)
        x = e.op("RESHAPE", [x, target], grouped, _F32)
    else:
        x = e.reshape(x, grouped)
    y = e.normalized(x, axes, a.get("epsilon", 1e-5))
    params = [_float_input(ctx, e, node.input[i], "scale and bias") for i in (1, 2)]
    if ctx.opset >= 21:
        y = to_layout(y)
        if not nhwc:
            params = [e.reshape(t, [shape[1]] + [1] * (len(shape) - 2)) for t in params]
    else:
        params = [e.reshape(t, [groups, 1]) for t in params]
    y = e.binary("ADD", e.binary("MUL", y, params[0]), params[1])
    if ctx.opset < 21:
        y = to_layout(y)
    if nhwc:
        e.bind(y, node.output[0], nhwc=True)
    else:
        e.finish(y, node.output[0], ctx.dtype(x_name))


@imports("MeanVarianceNormalization")
def _mean_variance_norm(ctx, node):
    """(x - mean) / (sqrt(variance) + 1e-9), ONNX's function body."""
    e = _Emitter(ctx, node)
    x_name = node.input[0]
    x = _float_input(ctx, e, x_name)
    axes = attrs(node).get("axes", [0, 2, 3])
    mean = e.mean(x, axes)
    centered = e.binary("SUB", x, mean)
    std = e.unary("SQRT", e.mean(e.unary("SQUARE", centered), axes))
    y = e.binary("DIV", centered, e.binary("ADD", std, e.const(1e-9)))
    e.finish(y, node.output[0], ctx.dtype(x_name))


@imports("LpNormalization")
def _lp_norm(ctx, node):
    """x / ||x||_p along axis (p 1 or 2); a zero norm gives 0."""
    a = attrs(node)
    p = a.get("p", 2)
    if p not in (1, 2):
        raise _NodeError(f"p {p} is not 1 or 2")
    e = _Emitter(ctx, node)
    x_name = node.input[0]
    x = _float_input(ctx, e, x_name)
    axis = _axis(ctx, node, x_name, -1)
    if p == 1:
        norm = e.sum(e.unary("ABS", x), [axis])
    else:
        norm = e.unary("SQRT", e.sum(e.unary("SQUARE", x), [axis]))
    # Where the norm is 0 every x is 0: dividing by the smallest normal
    # float instead gives that 0.
    norm = e.binary("MAXIMUM", norm, e.const(np.finfo(np.float32).tiny))
    e.finish(e.binary("DIV", x, norm), node.output[0], ctx.dtype(x_name))


@imports("LRN")
def _lrn(ctx, node):
    """y = x / (bias + alpha / size * window sum of x^2 over channels)^beta,
    in NHWC: the window sum is a FULLY_CONNECTED with a 0/1 band matrix,
    the power EXP(-beta * LOG(.))."""
    a = attrs(node)
    x_name = node.input[0]
    if ctx.rank(x_name) != 4 or ctx.dtype(x_name) != _F32:
        raise _NodeError("LRN takes a float32 [N, C, H, W] input")
    size = a["size"]
    if size < 1:
        raise _NodeError(f"size {size} must be positive")
    alpha, beta, bias = a.get("alpha", 1e-4), a.get("beta", 0.75), a.get("bias", 1.0)
    e = _Emitter(ctx, node)
    x = ctx.nhwc(x_name)
    channels = ctx.shape(x_name)[1]
    before, after = (size - 1) // 2, -(-(size - 1) // 2)
    c = np.arange(channels)
    band = ((c[None, :] >= c[:, None] - before) & (c[None, :] <= c[:, None] + after)).astype(np.float32)
    options = ("FullyConnectedOptions", {"keep_num_dims": True})
    square = e.unary("SQUARE", x)
    window = e.op("FULLY_CONNECTED", [square, e.const(band), -1], e.shape(x), _F32, options)
    base = e.binary("ADD", e.scaled(window, alpha / size), e.const(bias))
    factor = e.unary("EXP", e.scaled(e.unary("LOG", base), -beta))
    y = ctx.output(node.output[0], nhwc=True)
    ctx.builder.add_op("MUL", [x, factor], [y], ("ArithmeticOptions", {}))


# --- Losses ---------------------------------------------------------------------


def _nll_loss(ctx, e, node, log_prob, target_name, weight_name, loss_out):
    """NegativeLogLikelihoodLoss of float32 log-probabilities [N, C, d...]."""
    a = attrs(node)
    reduction = _text(a.get("reduction", "mean"))
    if reduction not in ("none", "sum", "mean"):
        raise _NodeError(f"reduction {reduction!r} is not none, sum or mean")
    shape = e.shape(log_prob)
    classes = shape[1]
    target = ctx.plain(target_name)
    t_type = np.dtype(ctx.dtype(target_name))
    ignore = a.get("ignore_index")
    # The target's class: EQUAL against the class iota [1, C, 1, ...].
    iota = np.arange(classes, dtype=t_type).reshape([1, classes] + [1] * (len(shape) - 2))
    picked_shape = [shape[0], 1] + shape[2:]
    hit = e.equal(e.reshape(target, picked_shape), e.const(iota, t_type))
    picked = e.sum(e.select(hit, log_prob, e.const(0.0)), [1])  # [N, 1, d...]
    picked = e.reshape(picked, [shape[0]] + shape[2:])
    ignored = e.equal(target, e.const(ignore, t_type)) if ignore is not None else None
    weight = None  # per element, 0 where ignored; None: 1 everywhere
    if weight_name:
        index = target if ignored is None else e.select(ignored, e.const(0, t_type), target)
        weight = e.gather(_float_input(ctx, e, weight_name, "weight"), index)
    if ignored is not None:
        weight = e.select(ignored, e.const(0.0), weight if weight is not None else e.const(1.0))
    loss = e.unary("NEG", picked)
    if weight is not None:
        loss = e.binary("MUL", loss, weight)
    axes = list(range(len(shape) - 1))
    if reduction == "none":
        return e.bind(loss, loss_out)
    if reduction == "sum":
        return e.sum(loss, axes, keep=False, out=loss_out)
    if weight is None:
        return e.mean(loss, axes, keep=False, out=loss_out)
    # The mean over the weights of the targets taken (ignored ones weigh 0).
    total = e.mean(loss, axes, keep=False)
    ctx.builder.add_op(
        "DIV", [total, e.mean(weight, axes, keep=False)], [ctx.output(loss_out)], ("ArithmeticOptions", {})
    )


def _check_loss_types(ctx, node):
    if np.dtype(ctx.dtype(node.input[0])) != _F32:
        raise _NodeError(f"input is {np.dtype(ctx.dtype(node.input[0]))}; the losses compute in float32")
    if np.dtype(ctx.dtype(node.input[1])) not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise _NodeError("target must be int32 or int64")


@imports("NegativeLogLikelihoodLoss")
def _negative_log_likelihood_loss(ctx, node):
    _check_loss_types(ctx, node)
    e = _Emitter(ctx, node)
    names = _padded(node.input, 3)
    _nll_loss(ctx, e, node, ctx.plain(names[0]), names[1], names[2], node.output[0])


@imports("SoftmaxCrossEntropyLoss")
def _softmax_cross_entropy_loss(ctx, node):
    """NLL of LOG_SOFTMAX over the classes (axis 1, moved last and back)."""
    _check_loss_types(ctx, node)
    e = _Emitter(ctx, node)
    names, outs = _padded(node.input, 3), _padded(node.output, 2)
    rank = ctx.rank(names[0])
    perm = [0] + list(range(2, rank)) + [1]
    back = [0, rank - 1] + list(range(1, rank - 1))
    scores = e.transpose(ctx.plain(names[0]), perm)
    log_prob = e.transpose(e.softmax(scores, log=True), back)
    e.bind(log_prob, outs[1])
    _nll_loss(ctx, e, node, log_prob, names[1], names[2], outs[0])


# --- Einsum ---------------------------------------------------------------------


def _einsum_terms(equation, ranks):
    """([letters of each operand], output letters) with "..." spelled out
    as upper-case letters (the equation's own are lower-case)."""
    equation = equation.replace(" ", "")
    lhs, arrow, rhs = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise _NodeError(f"equation {equation!r} has {len(terms)} operands, the node {len(ranks)}")
    ellipsis_rank = 0
    for term, rank in zip(terms, ranks):
        if "..." in term:
            ellipsis_rank = max(ellipsis_rank, rank - len(term.replace("...", "")))
    filler = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:ellipsis_rank]

    def spelled(term, rank):
        if "..." not in term:
            return term
        return term.replace("...", filler[ellipsis_rank - (rank - len(term.replace("...", ""))) :])

    terms = [spelled(t, r) for t, r in zip(terms, ranks)]
    if arrow:
        out = spelled(rhs, ellipsis_rank + len(rhs.replace("...", "")))
    else:  # implicit: "..." then the letters used once, in order
        letters = "".join(terms)
        out = filler + "".join(sorted(c for c in set(letters) if c.islower() and letters.count(c) == 1))
    for term, rank in zip(terms, ranks):
        if len(term) != rank:
            raise _NodeError(f"operand term {term!r} does not match its rank {rank}")
    return terms, out


def _einsum_diagonal(e, t, term, run_time):
    """Takes the diagonal of each letter repeated in `term` (moved last as a
    pair, flattened, GATHERed every n + 1); the dim of a letter in
    `run_time` (a dynamic batch) is left to RESHAPE (-1)."""
    while len(set(term)) != len(term):
        letter = next(c for c in term if term.count(c) > 1)
        i = term.index(letter)
        j = term.index(letter, i + 1)
        rest = [k for k in range(len(term)) if k not in (i, j)]
        t = e.transpose(t, rest + [i, j])
        shape = e.shape(t)
        n = shape[-1]
        target = [-1 if term[k] in run_time else d for k, d in zip(rest, shape)] + [n * n]
        flat = e.op("RESHAPE", [t, e.const(target, np.int32)], shape[:-2] + [n * n], e.dtype(t))
        t = e.gather(flat, e.const(np.arange(n) * (n + 1), np.int32), axis=len(shape) - 2)
        term = "".join(term[k] for k in rest) + letter
    return t, term


@imports("Einsum")
def _einsum(ctx, node):
    """One or two operands: diagonals, sums over the letters the other
    operand and the output lack (MEAN * n), then BATCH_MATMUL over
    [batch, free, contracted] x [batch, contracted, free], then the
    output's order (TRANSPOSE)."""
    e = _Emitter(ctx, node)
    # The operands' groups are reshaped by their static sizes, but for the
    # group of the one letter whose dim is known only at run time (a
    # dynamic batch), whose size RESHAPE infers (-1).
    e.dynamic_batch = False
    names = [n for n in node.input if n]
    if len(names) not in (1, 2):
        raise _NodeError(f"{len(names)} operands; Einsum takes 1 or 2 here")
    dtype = np.dtype(ctx.dtype(names[0]))
    terms, out = _einsum_terms(_text(attrs(node)["equation"]), [ctx.rank(n) for n in names])
    run_time = {
        c
        for name, term in zip(names, terms)
        for c, d in zip(term, ctx.signature_of(name, ctx.shape(name)) or [])
        if d == -1
    }
    if len(run_time) > 1:
        raise _NodeError(f"indices {sorted(run_time)} have sizes known only at run time; at most one may")
    operands = []
    for k, (name, term) in enumerate(zip(names, terms)):
        if any(term.count(c) > 1 for c in run_time):
            raise _NodeError(f"the diagonal of index {min(run_time)!r}, whose size is known only at run time")
        t, term = _einsum_diagonal(e, ctx.plain(name), term, run_time)
        others = "".join(terms[:k] + terms[k + 1 :]) + out
        lone = [k for k, c in enumerate(term) if c not in others]
        if any(term[k] in run_time for k in lone):
            raise _NodeError(f"a sum over index {min(run_time)!r}, whose size is known only at run time")
        if lone:  # summed: the lite runtime computes sums in float32
            t = e.sum(e.cast(t, np.float32), lone, keep=False)
            term = "".join(c for k, c in enumerate(term) if k not in lone)
        operands.append((t, term))
    if len(operands) == 1:
        t, term = operands[0]
        if sorted(term) != sorted(out):
            raise _NodeError(f"output {out!r} is not a reordering of {term!r}")
        result = e.transpose(t, [term.index(c) for c in out])
        return e.finish(result, node.output[0], dtype)
    (a, ta), (b, tb) = operands
    size = {c: e.shape(a)[k] for k, c in enumerate(ta)}
    for k, c in enumerate(tb):
        if size.setdefault(c, e.shape(b)[k]) != e.shape(b)[k]:
            raise _NodeError(f"index {c!r} has sizes {size[c]} and {e.shape(b)[k]} (no broadcasting here)")
    batch = [c for c in ta if c in tb and c in out]
    summed = [c for c in ta if c in tb and c not in out]
    free_a = [c for c in ta if c not in tb]
    free_b = [c for c in tb if c not in ta]

    def reshape(t, groups):
        shape = [int(np.prod([size[c] for c in g])) for g in groups]
        if not shape:
            return e.reshape(t, [])
        target = [-1 if run_time & set(g) else d for d, g in zip(shape, groups)]
        return e.op("RESHAPE", [t, e.const(target, np.int32)], shape, e.dtype(t))

    def grouped(t, term, groups):
        letters = [c for g in groups for c in g]
        return reshape(e.transpose(e.cast(t, np.float32), [term.index(c) for c in letters]), groups)

    product = e.matmul(grouped(a, ta, [batch, free_a, summed]), grouped(b, tb, [batch, summed, free_b]))
    letters = batch + free_a + free_b
    product = reshape(product, letters)
    e.finish(e.transpose(product, [letters.index(c) for c in out]), node.output[0], dtype)
