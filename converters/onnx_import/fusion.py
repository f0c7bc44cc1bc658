"""Pattern fusion before lowering: subgraphs that exporters write out op by
op and the lite runtime has one fused kernel for are rewritten into one
ONNX node, which its importer then lowers.

  GELU       x * 0.5 * (1 + Erf(x / sqrt(2)))  (PyTorch's export of exact
             GELU before opset 20, in any order of the two Muls, with
             x * 0.7071... for the Div)              -> Gelu
  LayerNorm  m = ReduceMean(x); d = x - m; v = ReduceMean(d^2 or d*d);
             y = d / Sqrt(v + eps) [* gamma] [+ beta], over trailing axes
                                                      -> LayerNormalization
  RMSNorm    v = ReduceMean(x^2 or x*x); y = x / Sqrt(v + eps) or
             x * (1 / Sqrt(v + eps)) [* gamma], over trailing axes (LLaMA's
             RMSNorm as torch.onnx.export writes it)  -> RMSNormalization
  Attention  MatMul(Q, K^T) [/ c or * c] [+ mask or masked_fill(m, -inf),
             i.e. Where(m, -inf, .)], Softmax over the keys,
             MatMul(., V) [then Transpose(0, 2, 1, 3)], with Q, K^T and V
             the heads of [B, H, S, D] tensors (their Transposes from
             [B, S, H, D] taken in)           -> TwlFusedAttention (the
             lite ATTENTION kernel; ATTENTION = False keeps the ops)
  RNN zero   an LSTM/GRU/RNN initial state made of zeros at run time
  states     (PyTorch's export with a dynamic batch: ConstantOfShape(
             Concat([L], Shape(x)[0], [H])), Sliced per layer)
                                                      -> the input left out
                                                         (ONNX's zero default)

A pattern is fused only when every intermediate tensor is used inside the
pattern alone (not a graph output, no other consumer) and the constants
are what the formula needs; otherwise the ops are lowered one by one, as
before.
"""

import numpy as np
from onnx import NodeProto, TensorProto, helper, numpy_helper

from converters.errors import NodeError as _NodeError
from converters.onnx_import.context import attrs

_SQRT2 = float(np.sqrt(2.0))

# Whether the attention pattern is fused (False: the decomposed ops, the
# reference the fused kernel is tested against).
ATTENTION = True
# The operand layouts of the lite ATTENTION op (AttentionLayout).
_BHSD, _BSHD, _BHDS = 0, 1, 2


class _Graph:
    """Producers and consumers of the nodes left to import."""

    def __init__(self, ctx, nodes):
        self.ctx = ctx
        self.producer = {o: n for n in nodes for o in n.output if o}
        self.consumers = {}
        for n in nodes:
            for i in n.input:
                if i:
                    self.consumers.setdefault(i, []).append(n)
        self.outputs = {o.name for o in ctx.graph.output}

    def const(self, name):
        return self.ctx.consts.get(name)

    def scalar(self, name):
        """The float value of a one-element constant, else None."""
        v = self.const(name)
        if v is None or v.size != 1 or v.dtype.kind not in "fiu":
            return None
        return float(v.reshape(-1)[0])

    def only_user(self, name, op_type):
        """The one consumer of `name` when it is of `op_type` and `name` is
        no graph output; else None."""
        users = self.consumers.get(name, [])
        if name in self.outputs or len(users) != 1 or users[0].op_type != op_type:
            return None
        return users[0]

    def other_input(self, node, name):
        """The input of binary `node` that is not `name` (None if both are)."""
        a, b = node.input[0], node.input[1]
        if a == name and b != name:
            return b
        if b == name and a != name:
            return a
        return None


def _close(value, target, tol=1e-4):
    return value is not None and abs(value - target) <= tol * max(1.0, abs(target))


def _match_gelu(g, erf):
    """(nodes, x, out) of the exact-GELU pattern around `erf`, or None."""
    scaled = erf.input[0]
    head = g.producer.get(scaled)
    if head is None or g.only_user(scaled, "Erf") is None or len(head.input) != 2:
        return None
    if (
        head.op_type == "Div"
        and _close(g.scalar(head.input[1]), _SQRT2)
        or head.op_type == "Mul"
        and _close(g.scalar(head.input[1]), 1 / _SQRT2)
    ):
        x = head.input[0]
    elif head.op_type == "Mul" and _close(g.scalar(head.input[0]), 1 / _SQRT2):
        x = head.input[1]
    else:
        return None
    if g.const(x) is not None:
        return None
    add = g.only_user(erf.output[0], "Add")
    if add is None or not _close(g.scalar(g.other_input(add, erf.output[0])), 1.0):
        return None
    mul = g.only_user(add.output[0], "Mul")
    if mul is None:
        return None
    other = g.other_input(mul, add.output[0])
    if other == x:
        # (x * (1 + erf)) * 0.5
        half = g.only_user(mul.output[0], "Mul")
        if half is None or not _close(g.scalar(g.other_input(half, mul.output[0])), 0.5):
            return None
        return [head, erf, add, mul, half], x, half.output[0]
    # (x * 0.5) * (1 + erf), the half computed first
    pre = g.producer.get(other)
    if pre is None or pre.op_type != "Mul" or g.only_user(other, "Mul") is not mul:
        return None
    if g.other_input(pre, x) is None or not _close(g.scalar(g.other_input(pre, x)), 0.5):
        return None
    return [pre, head, erf, add, mul], x, mul.output[0]


def _reduce_axes(g, node):
    """The sorted, non-negative axes of a ReduceMean with keepdims, or None."""
    a = attrs(node)
    if not a.get("keepdims", 1):
        return None
    if len(node.input) > 1 and node.input[1]:
        axes = g.const(node.input[1])
        if axes is None:
            return None
    else:
        axes = a.get("axes")
    rank = g.ctx.rank(node.input[0])
    if axes is None or len(axes) == 0:
        return None
    return sorted({int(v) % rank for v in np.asarray(axes).reshape(-1)}), rank


def _match_layer_norm(g, mean):
    """(nodes, x, out, axis, epsilon, scale, bias) of the ReduceMean chain
    starting at `mean`, or None."""
    found = _reduce_axes(g, mean)
    if found is None:
        return None
    axes, rank = found
    if axes != list(range(axes[0], rank)):
        return None
    x = mean.input[0]
    sub = g.only_user(mean.output[0], "Sub")
    if sub is None or sub.input[0] != x or sub.input[1] != mean.output[0]:
        return None
    d = sub.output[0]
    users = list({id(u): u for u in g.consumers.get(d, [])}.values())
    if d in g.outputs or len(users) != 2:
        return None
    square = next((u for u in users if u.op_type in ("Pow", "Mul")), None)
    div = next((u for u in users if u.op_type == "Div" and u.input[0] == d), None)
    if square is None or div is None or square is div:
        return None
    if square.op_type == "Pow" and (square.input[0] != d or not _close(g.scalar(square.input[1]), 2.0)):
        return None
    if square.op_type == "Mul" and list(square.input) != [d, d]:
        return None
    var = g.only_user(square.output[0], "ReduceMean")
    if var is None or _reduce_axes(g, var) != found:
        return None
    add = g.only_user(var.output[0], "Add")
    eps = g.scalar(g.other_input(add, var.output[0])) if add is not None else None
    if eps is None or eps < 0:
        return None
    sqrt = g.only_user(add.output[0], "Sqrt")
    if sqrt is None or div.input[1] != sqrt.output[0] or g.only_user(sqrt.output[0], "Div") is not div:
        return None
    nodes, out = [mean, sub, square, var, add, sqrt, div], div.output[0]
    normalized = g.ctx.shape(x)[axes[0] :]
    scale = bias = None
    mul = g.only_user(out, "Mul")
    if mul is not None:
        gamma = g.const(g.other_input(mul, out))
        if gamma is not None and _broadcasts_to(gamma, normalized):
            nodes.append(mul)
            out, scale = mul.output[0], gamma
    beta_add = g.only_user(out, "Add")
    if beta_add is not None:
        beta = g.const(g.other_input(beta_add, out))
        if beta is not None and _broadcasts_to(beta, normalized):
            if scale is None:
                scale = np.ones(normalized, np.float32)
            nodes.append(beta_add)
            out, bias = beta_add.output[0], beta
    if scale is None:
        scale = np.ones(normalized, np.float32)
    return nodes, x, out, axes[0], eps, scale, bias


def _match_rms_norm(g, var):
    """(nodes, x, out, axis, epsilon, scale, None) of the RMSNorm chain
    around ReduceMean `var`, or None."""
    found = _reduce_axes(g, var)
    if found is None:
        return None
    axes, rank = found
    square = g.producer.get(var.input[0])
    if axes != list(range(axes[0], rank)) or square is None or g.only_user(var.input[0], "ReduceMean") is not var:
        return None
    x = square.input[0]
    is_pow = square.op_type == "Pow" and _close(g.scalar(square.input[1]), 2.0)
    if not is_pow and not (square.op_type == "Mul" and square.input[1] == x):
        return None
    add = g.only_user(var.output[0], "Add")
    eps = g.scalar(g.other_input(add, var.output[0])) if add is not None else None
    sqrt = g.only_user(add.output[0], "Sqrt") if eps is not None and eps >= 0 else None
    users = g.consumers.get(sqrt.output[0], []) if sqrt is not None else []
    if len(users) != 1 or sqrt.output[0] in g.outputs or users[0].input[-1] != sqrt.output[0]:
        return None
    nodes, inverse = [square, var, add, sqrt, users[0]], users[0]
    if inverse.op_type == "Div" and inverse.input[0] == x:
        out = inverse.output[0]
    elif inverse.op_type == "Reciprocal" or inverse.op_type == "Div" and _close(g.scalar(inverse.input[0]), 1.0):
        mul = g.only_user(inverse.output[0], "Mul")
        if mul is None or g.other_input(mul, inverse.output[0]) != x:
            return None
        nodes.append(mul)
        out = mul.output[0]
    else:
        return None
    normalized = g.ctx.shape(x)[axes[0] :]
    scale = np.ones(normalized, np.float32)
    mul = g.only_user(out, "Mul")
    gamma = g.const(g.other_input(mul, out)) if mul is not None else None
    if gamma is not None and _broadcasts_to(gamma, normalized):
        nodes.append(mul)
        out, scale = mul.output[0], gamma
    return nodes, x, out, axes[0], eps, scale, None


def _fused_norm(ctx, op_type, x, out, axis, eps, scale, bias):
    """A LayerNormalization or RMSNormalization node for a matched pattern,
    its scale and bias broadcast to the normalized dims as constants."""
    normalized = ctx.shape(x)[axis:]
    inputs = [x]
    for what, value in (("scale", scale), ("bias", bias)):
        if value is not None:
            name = f"{out}/fused_{what}"
            ctx.consts[name] = np.ascontiguousarray(np.broadcast_to(value, normalized), np.float32)
            inputs.append(name)
    ctx.fused[op_type] = ctx.fused.get(op_type, 0) + 1
    return helper.make_node(op_type, inputs, [out], name=f"{out}/fused_{op_type}", axis=axis, epsilon=eps)


def _broadcasts_to(value, shape):
    """Whether a constant broadcasts to `shape` without growing past it."""
    if value.dtype != np.float32 or value.ndim > len(shape):
        return False
    try:
        return list(np.broadcast_shapes(value.shape, tuple(shape))) == list(shape)
    except ValueError:
        return False


def _static4(g, name):
    """The static rank-4 shape of float32 tensor `name`, else None."""
    try:
        shape = g.ctx.shape(name)
        dtype = g.ctx.dtype(name)
    except _NodeError:
        return None
    return shape if len(shape) == 4 and dtype == np.float32 else None


def _heads_source(g, name, user, perms):
    """(tensor, layout, transpose node or None) to read 4-D `name` from:
    the input of its Transpose when the perm is in `perms` ({perm: layout})
    and `user` is its only consumer; else (name, None, None)."""
    node = g.producer.get(name)
    if node is not None and node.op_type == "Transpose" and g.only_user(name, user.op_type) is user:
        perm = tuple(attrs(node).get("perm", ()))
        if perm in perms and _static4(g, node.input[0]) is not None:
            return node.input[0], perms[perm], node
    return name, None, None


def _match_attention(g, softmax):
    """(nodes, fused node) of the attention pattern around `softmax`, or
    None."""
    scores = softmax.input[0]
    shape = _static4(g, scores)
    if shape is None:
        return None
    axis = attrs(softmax).get("axis", -1 if g.ctx.opset >= 13 else 1)
    if axis not in (-1, 3):
        return None
    pattern, bias, scale, where_mask = [softmax], "", 1.0, None
    node = g.producer.get(scores)
    if node is not None and node.op_type == "Where" and g.only_user(scores, "Softmax") is softmax:
        # masked_fill(mask, -inf): scores + (mask ? -inf : 0)
        cond = node.input[0]
        try:
            cond_shape, cond_type = g.ctx.shape(cond), g.ctx.dtype(cond)
        except _NodeError:
            return None
        if g.scalar(node.input[1]) != -np.inf or cond_type != np.bool_ or len(cond_shape) > 4:
            return None
        try:
            if list(np.broadcast_shapes(tuple(cond_shape), tuple(shape))) != shape:
                return None
        except ValueError:
            return None
        pattern.append(node)
        where_mask = (cond, node.input[1], cond_shape)
        scores, node = node.input[2], g.producer.get(node.input[2])
        if g.only_user(scores, "Where") is not pattern[-1]:
            return None
    elif node is not None and node.op_type == "Add" and g.only_user(scores, "Softmax") is softmax:
        for i in (0, 1):
            prev = g.producer.get(node.input[i])
            if prev is not None and prev.op_type in ("Div", "Mul", "MatMul"):
                mask = node.input[1 - i]
                try:
                    mask_shape, mask_type = g.ctx.shape(mask), g.ctx.dtype(mask)
                except _NodeError:
                    return None
                if mask_type != np.float32 or len(mask_shape) > 4:
                    return None
                try:
                    if list(np.broadcast_shapes(tuple(mask_shape), tuple(shape))) != shape:
                        return None
                except ValueError:
                    return None
                pattern.append(node)
                bias, scores, node = mask, node.input[i], prev
                if g.only_user(scores, "Add") is not pattern[-1]:
                    return None
                break
        else:
            return None
    if node is not None and node.op_type in ("Div", "Mul") and g.only_user(scores, pattern[-1].op_type):
        c = g.scalar(node.input[1])
        if c is None or not np.isfinite(c) or c == 0 or g.producer.get(node.input[0]) is None:
            return None
        scale = 1.0 / c if node.op_type == "Div" else c
        pattern.append(node)
        scores, node = node.input[0], g.producer.get(node.input[0])
    if node is None or node.op_type != "MatMul" or not g.only_user(scores, pattern[-1].op_type):
        return None
    qk = node
    pattern.append(qk)
    probs_user = g.only_user(softmax.output[0], "MatMul")
    if probs_user is None or probs_user.input[0] != softmax.output[0]:
        return None
    pv = probs_user
    pattern.append(pv)
    q4, k4t, v4 = qk.input[0], qk.input[1], pv.input[1]
    qs, kts, vs = (_static4(g, t) for t in (q4, k4t, v4))
    if qs is None or kts is None or vs is None or qs[3] != kts[2] or kts[3] != vs[2]:
        return None
    if qs[0] != kts[0] or kts[:2] != vs[:2] or kts[1] == 0 or qs[1] % kts[1]:
        return None
    q, q_layout, t = _heads_source(g, q4, qk, {(0, 2, 1, 3): _BSHD})
    pattern += [t] if t is not None else []
    k, k_layout, t = _heads_source(g, k4t, qk, {(0, 2, 3, 1): _BSHD, (0, 1, 3, 2): _BHSD})
    pattern += [t] if t is not None else []
    v, v_layout, t = _heads_source(g, v4, pv, {(0, 2, 1, 3): _BSHD})
    pattern += [t] if t is not None else []
    out, y_layout = pv.output[0], _BHSD
    last = g.only_user(out, "Transpose")
    if last is not None and tuple(attrs(last).get("perm", ())) == (0, 2, 1, 3):
        pattern.append(last)
        out, y_layout = last.output[0], _BSHD
    made = []
    if where_mask is not None:  # the additive mask the Where was
        cond, neg_inf, cond_shape = where_mask
        bias, zero = f"{out}/mask_bias", f"{out}/mask_zero"
        g.ctx.consts[zero] = np.zeros([], np.float32)
        g.ctx.specs[bias] = (TensorProto.FLOAT, list(cond_shape))
        made.append(helper.make_node("Where", [cond, neg_inf, zero], [bias], name=f"{bias}/where"))
    fused = helper.make_node(
        "TwlFusedAttention",
        [q, k, v, bias],
        [out],
        name=f"{out}/fused_attention",
        scale=float(scale),
        q_layout=_BHSD if q_layout is None else q_layout,
        k_layout=_BHDS if k_layout is None else k_layout,
        v_layout=_BHSD if v_layout is None else v_layout,
        y_layout=y_layout,
    )
    return pattern, made + [fused]


def _replace(nodes, pattern, fused):
    """`nodes` without those of `pattern`, `fused` (a node or a list of
    them) at the last one's place."""
    ids = {id(n) for n in pattern}
    last = max(i for i, n in enumerate(nodes) if id(n) in ids)
    fused = fused if isinstance(fused, list) else [fused]
    out = []
    for i, n in enumerate(nodes):
        if i == last:
            out += fused
        elif id(n) not in ids:
            out.append(n)
    return out


# The initial-state inputs of the recurrent ops.
_STATE_INPUTS = {"LSTM": (5, 6), "GRU": (5,), "RNN": (5,)}


def _is_runtime_zeros(g, name):
    """Whether non-constant tensor `name` is all zeros by construction: a
    ConstantOfShape of 0 or a constant of zeros, Sliced/Expanded (to a
    shape known at run time)."""
    while g.const(name) is None:
        node = g.producer.get(name)
        if node is None:
            return False
        if node.op_type in ("Slice", "Expand"):
            name = node.input[0]
            continue
        if node.op_type == "ConstantOfShape":
            value = attrs(node).get("value")
            return value is None or not np.any(numpy_helper.to_array(value))
        return False
    return g.const(name).size > 0 and not np.any(g.const(name))


def _without_dead_producers(ctx, nodes, roots):
    """`nodes` less the producers of tensors `roots` (and, transitively, of
    their inputs) that nothing uses any more."""
    outputs = {o.name for o in ctx.graph.output}
    candidates = set(roots)
    while True:
        used = {i for n in nodes for i in n.input if i} | outputs
        dead = {
            id(n) for n in nodes if any(o in candidates for o in n.output) and not any(o in used for o in n.output if o)
        }
        if not dead:
            return nodes
        candidates.update(i for n in nodes if id(n) in dead for i in n.input if i)
        nodes = [n for n in nodes if id(n) not in dead]


def _drop_zero_initial_states(ctx, nodes):
    """`nodes` with the recurrent ops' run-time zero initial states left out
    (absent means zeros in ONNX) and the ops that made them dropped."""
    g = _Graph(ctx, nodes)
    dropped, out = [], []
    for node in nodes:
        slots = [
            i
            for i in _STATE_INPUTS.get(node.op_type, ())
            if i < len(node.input) and node.input[i] and _is_runtime_zeros(g, node.input[i])
        ]
        if slots:
            copy = NodeProto()
            copy.CopyFrom(node)
            for i in slots:
                dropped.append(copy.input[i])
                copy.input[i] = ""
            node = copy
        out.append(node)
    return _without_dead_producers(ctx, out, dropped) if dropped else nodes


def fuse_patterns(ctx, nodes):
    """`nodes` with every GELU, LayerNorm, RMSNorm and attention pattern replaced by one node and
    the recurrent ops' run-time zero initial states left out; the fused
    ops' counts are in ctx.fused ({op type: count})."""
    ctx.fused = {}
    nodes = _drop_zero_initial_states(ctx, nodes)
    changed = True
    while changed:
        changed = False
        g = _Graph(ctx, nodes)
        for node in nodes:
            if node.op_type == "Softmax" and ATTENTION:
                m = _match_attention(g, node)
                if m is not None:
                    nodes = _replace(nodes, *m)
                    ctx.fused["Attention"] = ctx.fused.get("Attention", 0) + 1
                    changed = True
                    break
            if node.op_type == "Erf":
                m = _match_gelu(g, node)
                if m is not None:
                    pattern, x, out = m
                    fused = helper.make_node("Gelu", [x], [out], name=f"{out}/fused_gelu", approximate="none")
                    nodes = _replace(nodes, pattern, fused)
                    ctx.fused["Gelu"] = ctx.fused.get("Gelu", 0) + 1
                    changed = True
                    break
            elif node.op_type == "ReduceMean" and node.input[0] in ctx.specs and ctx.dtype(node.input[0]) == np.float32:
                for op_type, match in (
                    ("LayerNormalization", _match_layer_norm),
                    ("RMSNormalization", _match_rms_norm),
                ):
                    m = match(g, node)
                    if m is not None:
                        pattern, fused = m[0], _fused_norm(ctx, op_type, *m[1:])
                        nodes = _replace(nodes, pattern, fused)
                        changed = True
                        break
                if changed:
                    break
    return nodes
