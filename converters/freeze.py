"""Freezing: a trained graph plus its variable values becomes a self-contained
inference GraphDef that still runs in the core.

Steps (each a function below, run in this order by `freeze_graph_def`):
1. inputs become Placeholders, outputs are kept by name;
2. prune to what the outputs need given the inputs (training-only nodes --
   Assign, NoOp, savers, optimizer and gradient subgraphs -- fall away by
   reachability; control edges are dropped);
3. variables become constants holding their values;
4. Identity chains are removed;
5. constant folding: every subgraph whose inputs are all constants is
   evaluated by the core runtime itself and replaced by Const nodes;
6. batch norm folding: inference FusedBatchNorm becomes a per-channel
   multiply and add, the multiply is folded into the weights of the
   preceding Conv2D / DepthwiseConv2dNative / MatMul (through a bias add),
   and adjacent constant bias adds are merged.
Fusing bias adds and activations into one FULLY_CONNECTED / CONV_2D is done
when lowering to .twl (converters/tf_to_twl.py), since the core has no fused
ops and the frozen graph must still run in it.

Example:
  >>> import numpy as np
  >>> import tensorweave as tw
  >>> from converters import freeze
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     w = tw.Variable([[1.0], [2.0]], name="w")
  ...     y = tw.identity(tw.matmul(x, w), name="y")
  ...     sess.run(tw.global_variables_initializer())
  ...     frozen = freeze.freeze_session(sess, ["x"], ["y"])
  >>> sorted(n.op for n in frozen.node)
  ['Const', 'Identity', 'MatMul', 'Placeholder']
"""

import collections

import numpy as np

from converters import graph_util
from converters.errors import ConversionError
from converters.graph_util import GraphView, attr, make_const, make_node, parse_input, tensor_name
from converters.lowering import SPATIAL_FILL

VARIABLE_OPS = ("VariableV2", "Variable")
IDENTITY_OPS = ("Identity", "Snapshot", "StopGradient", "PreventGradient")
PLACEHOLDER_OPS = ("Placeholder", "PlaceholderWithDefault")
# Ops producing per-output-channel results whose weights a scale folds into:
# op -> (weights input index, function giving the output-channel axis of the
# weights and the weights reshaped so that axis is last).
_BN_FOLD_OPS = ("Conv2D", "DepthwiseConv2dNative", "MatMul")
_BIAS_ADD_OPS = ("BiasAdd", "Add", "AddV2")
_MAX_FOLDED_ELEMENTS = 1 << 26


def _op_defs():
    from tensorweave._src.framework import ops

    return ops._op_defs()


def _is_stateful(op_type):
    info = _op_defs().get(op_type)
    return info is None or info["is_stateful"]


# --- tensor specs from the core's shape inference -----------------------------------
def _imported(graph_def, batch_size):
    """A fresh core graph holding `graph_def` (with `batch_size`, unknown
    dims of Placeholder shapes set to it), shapes inferred by the core."""
    import tensorweave as tw

    if batch_size is not None:
        graph_def = _with_placeholder_batch(graph_def, batch_size)
    known = _op_defs()
    unknown = next((n for n in graph_def.node if n.op not in known), None)
    if unknown is not None:  # (named before the import trips on what surrounds it, e.g. a loop's variant Enter)
        raise ConversionError(
            f"the graph does not import into the core: Op type not registered '{unknown.op}' for node '{unknown.name}'"
        )
    with tw.Graph().as_default() as g:
        try:
            tw.import_graph_def(graph_def, name="")
        except (tw.errors.OpError, ValueError) as e:
            raise ConversionError(f"the graph does not import into the core: {getattr(e, 'message', e)}") from None
    return g


def _spec(t):
    return t.dtype.as_datatype_enum, t.shape.as_list() if t.shape.ndims is not None else None


def tensor_specs(graph_def, names, batch_size=None):
    """{name: (DataType enum, shape list with None for unknown dims)} of the
    tensors `names`, from importing `graph_def` into a fresh core graph.
    With `batch_size`, unknown dims of Placeholder shapes are made static
    (_with_placeholder_batch)."""
    g = _imported(graph_def, batch_size)
    return {name: _spec(g.get_tensor_by_name(tensor_name(name))) for name in names}


def all_tensor_specs(graph_def, batch_size=None):
    """{'node:i': (DataType enum, shape list or None)} of every tensor."""
    g = _imported(graph_def, batch_size)
    return {t.name: _spec(t) for op in g.get_operations() for t in op.outputs}


# Ops with a window over spatial dims: under them a run-time H or W (or length) is given lowering.SPATIAL_FILL
# when shapes are inferred.
_WINDOW_OPS = frozenset(
    {"Conv2D", "DepthwiseConv2dNative", "Conv2DBackpropInput", "Conv3D", "MaxPool", "MaxPoolV2", "AvgPool",
     "MaxPool3D", "AvgPool3D"}
)  # fmt: skip


def _with_placeholder_batch(graph_def, batch_size):
    """graph_def with its Placeholders' unknown dims made static: the first (the batch) `batch_size`, the others
    too, or SPATIAL_FILL in a graph with window ops (a fully convolutional model's run-time height and width)."""
    from tensorweave._src.framework import graph_pb2

    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    windowed = any(n.op in _WINDOW_OPS for n in out.node)
    for node in out.node:
        if node.op == "Placeholder" and "shape" in node.attr:
            for axis, d in enumerate(node.attr["shape"].shape.dim):
                if d.size < 0:
                    d.size = SPATIAL_FILL if windowed and axis > 0 else batch_size
    return out


# --- the steps ----------------------------------------------------------------------------
def _install_inputs(view, inputs, specs):
    """Makes each input tensor the output of a Placeholder; returns the
    placeholders' tensor names in order."""
    names = []
    for name in inputs:
        node_name, index = parse_input(name)
        if node_name not in view.nodes:
            raise ConversionError(f"input '{name}' is not in the graph")
        node = view.nodes[node_name]
        if node.op == "Placeholder" and index == 0:
            names.append(f"{node_name}:0")
            continue
        if node.op == "PlaceholderWithDefault" and index == 0:
            dtype = attr(node, "dtype")
            shape = attr(node, "shape")
        else:
            dtype, shape = specs[name]
        ph_name = node_name if index == 0 else f"{node_name}_{index}"
        if ph_name in view.nodes and view.nodes[ph_name] is not node:
            ph_name = f"{node_name}/placeholder_{index}"
        placeholder = make_node("Placeholder", ph_name, [])
        placeholder.attr["dtype"].type = dtype
        shape_attr = placeholder.attr["shape"].shape
        if shape is None:
            shape_attr.unknown_rank = True
        else:
            for d in shape:
                shape_attr.dim.add().size = -1 if d is None else d
        if ph_name == node_name:
            view.nodes[node_name] = placeholder  # the original node is cut off
        else:
            view.redirect(name, f"{ph_name}:0")
            view.nodes[ph_name] = placeholder
        names.append(f"{ph_name}:0")
    return names


def _prune(view, outputs):
    """Keeps only the nodes the outputs need over data edges; drops control
    inputs."""
    keep, stack = set(), [parse_input(o)[0] for o in outputs]
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        if name not in view.nodes:
            raise ConversionError(f"'{name}' is not in the graph")
        keep.add(name)
        node = view.nodes[name]
        if node.op == "Placeholder":
            continue
        if node.op == "PlaceholderWithDefault":
            # Not an input: at inference it takes its default value.
            dtype = node.attr["dtype"].type
            node.op = "Identity"
            node.attr.clear()
            node.attr["T"].type = dtype
        stack.extend(parse_input(i)[0] for i in graph_util.data_inputs(node))
    for name in list(view.nodes):
        if name not in keep:
            del view.nodes[name]
    for node in view.nodes.values():
        data = graph_util.data_inputs(node)
        del node.input[:]
        node.input.extend(data)


def _variables_to_constants(view, values):
    missing = []
    for name, node in list(view.nodes.items()):
        if node.op not in VARIABLE_OPS:
            continue
        if name not in values:
            missing.append(name)
            continue
        view.nodes[name] = make_const(name, np.asarray(values[name]))
    if missing:
        raise ConversionError(f"no values for the variables {missing}")


def _remove_identities(view, outputs):
    keep = {parse_input(o)[0] for o in outputs}
    for name, node in list(view.nodes.items()):
        if node.op in IDENTITY_OPS and name not in keep:
            view.redirect(f"{name}:0", node.input[0])
            del view.nodes[name]


def fold_constants(view, outputs):
    """Evaluates every non-stateful node whose inputs are all constants (with
    the core runtime) and replaces what the rest of the graph reads of them by
    Const nodes."""
    import tensorweave as tw
    from tensorweave._src.framework import graph_pb2

    foldable = set()
    for name in view.topological_order():
        node = view.nodes[name]
        if node.op in ("Const",) + PLACEHOLDER_OPS or _is_stateful(node.op) or not node.input:
            continue
        if all(parse_input(i)[0] in foldable or view.nodes[parse_input(i)[0]].op == "Const" for i in node.input):
            foldable.add(name)
    if not foldable:
        return
    wanted = [tensor_name(o) for o in outputs if parse_input(o)[0] in foldable]
    for node in view.nodes.values():
        if node.name not in foldable:
            wanted += [tensor_name(i) for i in node.input if parse_input(i)[0] in foldable]
    wanted = list(dict.fromkeys(wanted))
    if not wanted:
        return
    sub = graph_pb2.GraphDef()
    for name in view.topological_order():
        node = view.nodes[name]
        if name in foldable or (node.op == "Const"):
            sub.node.add().CopyFrom(node)
    with tw.Graph().as_default() as g:
        tw.import_graph_def(sub, name="")
        with tw.Session(graph=g) as sess:
            try:
                values = sess.run(wanted)
            except tw.errors.OpError as e:
                raise ConversionError(f"constant folding failed: {e.message}") from None
    for name, value in zip(wanted, values):
        value = np.asarray(value)
        if value.size > _MAX_FOLDED_ELEMENTS:
            raise ConversionError(f"folding '{name}' gives {value.size} elements, too many")
        node_name, index = parse_input(name)
        const_name = node_name if index == 0 else f"{node_name}/output_{index}"
        view.redirect(name, f"{const_name}:0")
        if const_name != node_name and const_name in view.nodes:
            raise ConversionError(f"cannot name the folded constant '{const_name}': taken")
        view.nodes[const_name] = make_const(const_name, value)
    outputs_nodes = {parse_input(o)[0] for o in outputs}
    for name in foldable:
        node = view.nodes.get(name)
        if node is not None and node.op != "Const" and name not in outputs_nodes:
            del view.nodes[name]


_SHAPE_PICKS = ("StridedSlice", "Slice", "GatherV2", "SplitV")


def _fold_static_dims(view, outputs):
    """The static dims of a tensor whose other dims are known only at run time (a run-time batch), read through
    its Shape, become constants: a Shape of a fully static tensor, and a StridedSlice/Slice/GatherV2 (constant
    bounds or indices) of a Shape that picks static dims only (Keras' tf.shape(x)[1:3], e.g. a Lambda resizing to
    another tensor's size, or CenterCrop's cond on the image size). The core evaluates each pick on the dim
    indices."""
    import tensorweave as tw
    from tensorweave._src.framework import graph_pb2

    keep = {parse_input(o)[0] for o in outputs}
    shapes = {name: node for name, node in view.nodes.items() if node.op == "Shape" and name not in keep}
    if not shapes:
        return False
    specs = all_tensor_specs(view.to_graph_def())
    changed = False
    dims = {name: (specs.get(tensor_name(node.input[0])) or (None, None))[1] for name, node in shapes.items()}
    picks, run_time = [], {}  # run_time: pick -> (the tensor, the run-time dim it reads, dtype)
    for name, node in view.nodes.items():
        source = parse_input(node.input[0])[0] if node.input else None
        if node.op not in _SHAPE_PICKS or name in keep or dims.get(source) is None:
            continue
        if all(view.const_value(i) is not None for i in graph_util.data_inputs(node)[1:]):
            picks.append((name, node, source))
    for name, node, source in picks:
        shape_node, rank = shapes[source], len(dims[source])
        out_type = (
            graph_util.numpy_dtype(shape_node.attr["out_type"].type) if "out_type" in shape_node.attr else np.int32
        )
        sub = graph_pb2.GraphDef()
        sub.node.add().CopyFrom(make_const(source, np.arange(rank, dtype=out_type)))
        for const in dict.fromkeys(parse_input(i)[0] for i in graph_util.data_inputs(node)[1:]):
            sub.node.add().CopyFrom(view.nodes[const])
        pick = sub.node.add()
        pick.CopyFrom(node)
        del pick.input[:]
        pick.input.extend(graph_util.data_inputs(node))
        count = attr(node, "num_split", 1) if node.op == "SplitV" else 1
        with tw.Graph().as_default() as g:
            try:
                tw.import_graph_def(sub, name="")
                with tw.Session(graph=g) as sess:
                    picks_made = [np.asarray(v) for v in sess.run([f"{name}:{k}" for k in range(count)])]
            except (tw.errors.OpError, ValueError):
                continue  # (e.g. out of range: left for the converter to report)
        for k, picked in enumerate(picks_made):
            values = [dims[source][int(i)] for i in picked.reshape(-1)]
            if None not in values and count == 1:
                view.nodes[name] = make_const(name, np.array(values, out_type).reshape(picked.shape))
                changed = True
            elif None not in values and f"{name}/output_{k}" not in view.nodes:
                # (one output of a SplitV: its consumers read a constant)
                view.nodes[f"{name}/output_{k}"] = make_const(f"{name}/output_{k}", np.array(values, out_type))
                view.redirect(f"{name}:{k}", f"{name}/output_{k}:0")
                changed = True
            elif picked.ndim == 0 and count == 1:
                run_time[name] = (tensor_name(shape_node.input[0]), int(picked), out_type)
    changed |= _full_extents_as_minus_one(view, run_time)
    for name, node in shapes.items():
        if dims[name] is not None and None not in dims[name] and name in view.nodes:
            out_type = graph_util.numpy_dtype(node.attr["out_type"].type) if "out_type" in node.attr else np.int32
            view.nodes[name] = make_const(name, np.array(dims[name], out_type))
            changed = True
    return changed


def _fold(view, outputs):
    """Constant folding, and static dims read through Shapes folded (each round can give the next constants)."""
    fold_constants(view, outputs)
    for _ in range(4):
        if not _fold_static_dims(view, outputs) | _one_unknown_reshape_dim(view) | _whole_dims_sliced(view):
            return
        fold_constants(view, outputs)


def _whole_dims_sliced(view):
    """A StridedSlice of x whose end is a ConcatV2 (axis 0) of constants and x's own dims a .. b (an output of a
    SplitV of Shape(x), as tf.signal.frame slices its signal), from begin 0 with stride 1 there, takes those dims
    whole: they get end_mask bits and the piece a constant. Returns whether it rewrote any."""
    changed = False
    for name, node in list(view.nodes.items()):
        if node.op != "StridedSlice" or any(attr(node, m, 0) for m in ("ellipsis_mask", "new_axis_mask")):
            continue
        begin, strides = view.const_value(node.input[1]), view.const_value(node.input[3])
        concat = view.nodes.get(parse_input(node.input[2])[0])
        if begin is None or strides is None or concat is None or concat.op != "ConcatV2":
            continue
        if len(view.consumers().get(tensor_name(node.input[2]), [])) != 1:
            continue  # (the end is read elsewhere too)
        pieces, axis = graph_util.data_inputs(concat)[:-1], view.const_value(graph_util.data_inputs(concat)[-1])
        if axis is None or int(np.asarray(axis)) != 0:
            continue
        computed = [i for i, piece in enumerate(pieces) if view.const_value(piece) is None]
        if len(computed) != 1:
            continue
        piece_name, piece_index = parse_input(pieces[computed[0]])
        split = view.nodes.get(piece_name)
        shape = view.nodes.get(parse_input(split.input[0])[0]) if split is not None and split.op == "SplitV" else None
        sizes = view.const_value(split.input[1]) if shape is not None else None
        if (
            shape is None
            or shape.op != "Shape"
            or sizes is None
            or tensor_name(shape.input[0]) != tensor_name(node.input[0])
        ):
            continue
        sizes = [int(v) for v in np.asarray(sizes).reshape(-1)]
        first = sum(sizes[:piece_index])
        offset = sum(np.asarray(view.const_value(p)).size for p in pieces[: computed[0]])
        dims = range(first, first + sizes[piece_index])
        if offset != first or any(int(begin[d]) != 0 or int(strides[d]) != 1 for d in dims):
            continue
        whole = f"{name}/whole_dims"
        view.nodes[whole] = make_const(whole, np.zeros([len(dims)], np.asarray(begin).dtype))
        concat.input[list(concat.input).index(pieces[computed[0]])] = f"{whole}:0"
        for d in dims:
            node.attr["end_mask"].i |= 1 << d
        changed = True
    return changed


def _one_unknown_reshape_dim(view):
    """A Reshape whose target is a ConcatV2 (axis 0) of constants and one computed piece of one element (a
    run-time batch read through its Shape, as tf.signal.frame builds it) takes -1 there: the other dims fix that
    one. Returns whether it rewrote any."""
    changed = False
    for name, node in list(view.nodes.items()):
        if node.op != "Reshape" or len(node.input) < 2:
            continue
        concat = view.nodes.get(parse_input(node.input[1])[0])
        if concat is None or concat.op != "ConcatV2":
            continue
        if len(view.consumers().get(tensor_name(node.input[1]), [])) != 1:
            continue  # (the target is read elsewhere too)
        pieces = graph_util.data_inputs(concat)[:-1]
        axis = view.const_value(graph_util.data_inputs(concat)[-1])
        if axis is None or int(np.asarray(axis)) != 0:
            continue
        computed = [i for i, piece in enumerate(pieces) if view.const_value(piece) is None]
        if len(computed) != 1 or any(
            -1 in np.asarray(view.const_value(p)).reshape(-1) for p in pieces if p != pieces[computed[0]]
        ):
            continue
        producer = view.nodes.get(parse_input(pieces[computed[0]])[0])
        if producer is None or producer.op not in ("SplitV", "StridedSlice", "Slice", "GatherV2", "Pack"):
            continue
        specs = all_tensor_specs(view.to_graph_def())
        spec = specs.get(tensor_name(pieces[computed[0]]))
        if spec is None or spec[1] is None or int(np.prod(spec[1])) != 1:
            continue
        minus_one = f"{name}/unknown_dim"
        view.nodes[minus_one] = make_const(minus_one, np.full(spec[1], -1, graph_util.numpy_dtype(spec[0])))
        concat.input[list(concat.input).index(pieces[computed[0]])] = f"{minus_one}:0"
        changed = True
    return changed


def _full_extents_as_minus_one(view, run_time):
    """A Slice of x whose size is a Pack holding x's own run-time dim k (tf.shape(x)[k]) at position k, from begin
    0 there, takes the whole of dim k: that size is -1, a constant (tf.image.crop_to_bounding_box's batch).
    Returns whether it rewrote any."""
    changed = False
    for name, node in list(view.nodes.items()):
        if node.op != "Slice" or len(node.input) < 3:
            continue
        x, begin, size = (tensor_name(i) for i in node.input[:3])
        pack = view.nodes.get(parse_input(size)[0])
        if pack is None or pack.op != "Pack" or attr(pack, "axis", 0) != 0:
            continue
        begin_pack = view.nodes.get(parse_input(begin)[0])
        for k, element in enumerate(list(pack.input)):
            read = run_time.get(parse_input(element)[0])
            if read is None or read[:2] != (x, k):
                continue
            if begin_pack is not None and begin_pack.op == "Pack":
                start = view.const_value(begin_pack.input[k]) if k < len(begin_pack.input) else None
            else:
                start = view.const_value(begin)
                start = None if start is None or np.ndim(start) != 1 else start[k]
            if start is None or int(np.asarray(start)) != 0:
                continue
            whole = f"{name}/whole_dim_{k}"
            view.nodes[whole] = make_const(whole, np.array(-1, read[2]))
            pack.input[k] = f"{whole}:0"
            changed = True
    return changed


def _fold_constant_selects(view, outputs):
    """Select/SelectV2 whose condition is a constant, all true or all false
    (e.g. a `training` flag that defaults to False), becomes the branch it
    picks; the other branch is then pruned."""
    keep = {parse_input(o)[0] for o in outputs}
    for name, node in list(view.nodes.items()):
        if node.op not in ("Select", "SelectV2") or name in keep:
            continue
        cond = view.nodes.get(parse_input(node.input[0])[0])
        if cond is None or cond.op != "Const":
            continue
        value = np.asarray(graph_util.tensor_proto_to_numpy(cond.attr["value"].tensor))
        if value.size and value.all():
            view.redirect(f"{name}:0", node.input[1])
        elif not value.any():
            view.redirect(f"{name}:0", node.input[2])
        else:
            continue
        del view.nodes[name]


def _fold_constant_switches(view, outputs):
    """A cond on a constant predicate (e.g. `tf.layers.dropout(training=...)` on a flag that defaults to False)
    becomes its taken branch: each Switch passes its data to the live side, every node fed by the dead side is
    dropped, and each Merge left with one live input becomes that input."""
    keep = {parse_input(o)[0] for o in outputs}
    live, dead_tensors = {}, set()
    for name, node in view.nodes.items():
        if node.op not in ("Switch", "RefSwitch") or name in keep:
            continue
        pred = view.const_value(node.input[1])
        if pred is None or pred.size != 1:
            continue
        taken = int(bool(pred.reshape(-1)[0]))
        live[name] = taken
        dead_tensors.add(tensor_name(f"{name}:{1 - taken}"))
    if not live:
        return
    consumers = view.consumers()
    dead_nodes, merges = set(), set()
    queue = collections.deque(dead_tensors)
    while queue:
        for node, _ in consumers.get(queue.popleft(), []):
            if node.op == "Merge":
                merges.add(node.name)
            elif node.name not in dead_nodes and node.name not in keep:
                dead_nodes.add(node.name)
                queue.extend(t for t in consumers if parse_input(t)[0] == node.name)

    def is_dead(tensor):
        return tensor_name(tensor) in dead_tensors or parse_input(tensor)[0] in dead_nodes

    for name in merges:
        node = view.nodes[name]
        alive = [i for i in graph_util.data_inputs(node) if not is_dead(i)]
        if len(alive) == 1 and not consumers.get(tensor_name(f"{name}:1")):
            view.redirect(f"{name}:0", alive[0])
            dead_nodes.add(name)
    for name, taken in live.items():
        view.redirect(f"{name}:{taken}", view.nodes[name].input[0])
        dead_nodes.add(name)
    for name in dead_nodes:
        view.nodes.pop(name, None)


# --- batch norm folding ---------------------------------------------------------------------
def _single_consumer(consumers, tensor):
    users = consumers.get(tensor_name(tensor), [])
    return users[0][0] if len(users) == 1 else None


def _channel_vector(value, channels):
    """`value` as a per-channel [channels] vector if it broadcasts along the
    last axis only (shape [C], [1, C], [1, 1, 1, C] or a scalar), else None."""
    if value is None or value.dtype.kind != "f":
        return None
    if value.ndim and any(d != 1 for d in value.shape[:-1]):
        return None
    flat = value.reshape(-1)
    if flat.size == 1:
        return np.full([channels], flat[0], value.dtype)
    return flat if flat.size == channels else None


def _decompose_batch_norms(view, outputs):
    """Inference FusedBatchNorm with constant parameters -> Mul(x, s) + Add(b)."""
    consumers = view.consumers()
    for name, node in list(view.nodes.items()):
        if node.op not in ("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"):
            continue
        if attr(node, "is_training", True) or attr(node, "data_format", "NHWC") != "NHWC":
            continue
        params = [view.const_value(i) for i in node.input[1:5]]
        if any(p is None for p in params):
            continue
        if any(tensor_name(f"{name}:{k}") in consumers for k in range(1, 6)):
            continue  # batch statistics are read: leave it alone
        scale, offset, mean, variance = (p.astype(np.float64) for p in params)
        epsilon = attr(node, "epsilon", 1e-4)
        dtype = params[0].dtype
        s = scale / np.sqrt(variance + epsilon)
        bias = offset - mean * s
        view.nodes[f"{name}/scale"] = make_const(f"{name}/scale", s.astype(dtype))
        view.nodes[f"{name}/offset"] = make_const(f"{name}/offset", bias.astype(dtype))
        mul = make_node("Mul", f"{name}/mul", [node.input[0], f"{name}/scale:0"])
        mul.attr["T"].type = node.attr["T"].type
        add = make_node("Add", name, [f"{name}/mul:0", f"{name}/offset:0"])
        add.attr["T"].type = node.attr["T"].type
        view.nodes[f"{name}/mul"] = mul
        view.nodes[name] = add


def _weights_channels(node, weights):
    """(weights with the output-channel axis last, function undoing that)."""
    if node.op == "Conv2D":  # HWIO
        return weights, lambda w: w
    if node.op == "DepthwiseConv2dNative":  # HWIM; output channel c * M + m
        h, w_, c, m = weights.shape
        return weights.reshape(h, w_, c * m), lambda w: w.reshape(h, w_, c, m)
    if attr(node, "transpose_b", False):  # [out, in]
        return weights.T, lambda w: np.ascontiguousarray(w.T)
    return weights, lambda w: w


def _fold_scales(view, outputs):
    """Mul(producer(x, W) [+ bias], per-channel const s) -> producer(x, W*s)
    [+ bias*s], for producers in _BN_FOLD_OPS with constant weights."""
    output_nodes = {parse_input(o)[0] for o in outputs}
    changed = True
    while changed:
        changed = False
        consumers = view.consumers()
        for name, node in list(view.nodes.items()):
            if node.op != "Mul" or name in output_nodes:
                continue
            for pos in (0, 1):
                source, scale_name = node.input[pos], node.input[1 - pos]
                producer = view.node(source)
                chain = []  # bias adds between the producer and the Mul
                while producer.op in _BIAS_ADD_OPS and _single_consumer(consumers, source) is not None:
                    consts = [view.const_value(i) is not None for i in producer.input]
                    if consts.count(True) != 1:
                        break
                    bias_pos = consts.index(True)
                    chain.append((producer, bias_pos))
                    source = producer.input[1 - bias_pos]
                    producer = view.node(source)
                if producer.op not in _BN_FOLD_OPS or _single_consumer(consumers, source) is None:
                    continue
                weights = view.const_value(producer.input[1])
                if weights is None or parse_input(source)[0] in output_nodes:
                    continue
                flat, restore = _weights_channels(producer, weights)
                s = _channel_vector(view.const_value(scale_name), flat.shape[-1])
                if s is None or any(p.name in output_nodes for p, _ in chain):
                    continue
                biases = [_channel_vector(view.const_value(p.input[b]), flat.shape[-1]) for p, b in chain]
                if any(b is None for b in biases):
                    continue
                w_name = f"{producer.name}/folded_weights"
                view.nodes[w_name] = make_const(w_name, restore(flat * s).astype(weights.dtype))
                producer.input[1] = f"{w_name}:0"
                for (p, b), bias in zip(chain, biases):
                    b_name = f"{p.name}/folded_bias"
                    view.nodes[b_name] = make_const(b_name, (bias * s).astype(bias.dtype))
                    p.input[b] = f"{b_name}:0"
                view.redirect(f"{name}:0", node.input[pos])
                del view.nodes[name]
                changed = True
                break
            if changed:
                break
    _prune(view, outputs)


def _merge_bias_adds(view, outputs):
    """Add(Add(x, c1), c2) with per-channel constants -> Add(x, c1 + c2)."""
    output_nodes = {parse_input(o)[0] for o in outputs}
    consumers = view.consumers()
    for name in view.topological_order():
        node = view.nodes.get(name)
        if node is None or node.op not in _BIAS_ADD_OPS or len(node.input) != 2:
            continue
        c2 = view.const_value(node.input[1])
        inner = view.nodes.get(parse_input(node.input[0])[0])
        if c2 is None or inner is None or inner.op not in _BIAS_ADD_OPS or inner.name in output_nodes:
            continue
        if _single_consumer(consumers, node.input[0]) is None:
            continue
        c1 = view.const_value(inner.input[1])
        if c1 is None or c1.shape != c2.shape or c1.ndim != 1:
            continue
        merged = f"{name}/merged_bias"
        view.nodes[merged] = make_const(merged, (c1 + c2).astype(c1.dtype))
        node.input[0] = inner.input[0]
        node.input[1] = f"{merged}:0"
        consumers = view.consumers()
    _prune(view, outputs)


# --- entry points ---------------------------------------------------------------------------
def _core_batch_norms(graph_def):
    """`graph_def` with TensorFlow's FusedBatchNormV2/V3 (what tf.keras
    writes; the core has FusedBatchNorm only) as FusedBatchNorm: the same
    computation and first five outputs, without the type attr U. A graph
    reading V3's sixth output (reserve_space_3, training only) is refused."""
    graph_def = _volume_batch_norms(graph_def)
    if not any(n.op in ("FusedBatchNormV2", "FusedBatchNormV3") for n in graph_def.node) or (
        "FusedBatchNormV3" in _op_defs()
    ):
        return graph_def
    renamed = {n.name for n in graph_def.node if n.op in ("FusedBatchNormV2", "FusedBatchNormV3")}
    for n in graph_def.node:
        for i in n.input:
            name, index = parse_input(i)
            if name in renamed and index == 5:
                raise ConversionError(f"'{n.name}' reads '{i}', the training-only reserve_space_3 of FusedBatchNormV3")
    copy = type(graph_def)()
    copy.CopyFrom(graph_def)
    for n in copy.node:
        if n.name in renamed:
            n.op = "FusedBatchNorm"
            if "U" in n.attr:
                del n.attr["U"]
    return copy


def _volume_batch_norms(graph_def):
    """`graph_def` with each inference FusedBatchNorm/V2/V3 of a 5-D NDHWC input (Keras' BatchNormalization after a
    Conv3D; the core's batch norm takes 4-D NHWC/NCHW only) as x * s + (offset - mean * s), s = scale *
    rsqrt(variance + epsilon), channels last. Reading its other outputs is refused."""
    norms = {
        n.name: n
        for n in graph_def.node
        if n.op.startswith("FusedBatchNorm") and attr(n, "data_format") == "NDHWC" and not attr(n, "is_training", True)
    }
    if not norms:
        return graph_def
    for n in graph_def.node:
        for i in graph_util.data_inputs(n):
            name, index = parse_input(i)
            if name in norms and index != 0:
                raise ConversionError(f"'{n.name}' reads '{i}', an output of a 5-D batch norm other than its result")
    nodes = []
    for n in graph_def.node:
        if n.name not in norms:
            nodes.append(n)
            continue
        x, scale, offset, mean, variance = n.input[:5]
        dtype = graph_util.numpy_dtype(n.attr["T"].type)
        name = n.name
        nodes += [
            make_const(f"{name}/epsilon", np.array(attr(n, "epsilon", 1e-3), np.float32)),
            make_node("AddV2", f"{name}/shifted", [variance, f"{name}/epsilon"], T=np.float32),
            make_node("Rsqrt", f"{name}/rsqrt", [f"{name}/shifted"], T=np.float32),
            make_node("Mul", f"{name}/s", [f"{name}/rsqrt", scale], T=np.float32),
            make_node("Mul", f"{name}/mean_s", [mean, f"{name}/s"], T=np.float32),
            make_node("Sub", f"{name}/shift", [offset, f"{name}/mean_s"], T=np.float32),
            make_node("Mul", f"{name}/scaled", [x, f"{name}/s"], T=dtype),
            make_node("AddV2", name, [f"{name}/scaled", f"{name}/shift"], T=dtype),
        ]
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    del out.node[:]
    out.node.extend(nodes)
    return out


def freeze_graph_def(graph_def, variable_values, inputs, outputs, fold_batch_norms=True):
    """A frozen inference GraphDef.

    Args:
      graph_def: the trained graph (GraphDef).
      variable_values: {variable node name: numpy value}.
      inputs: tensor names ("x" or "x:0") fed at inference.
      outputs: tensor names computed at inference.
    """
    if not outputs:
        raise ConversionError("no outputs given: name the tensors the model computes")
    inputs = [tensor_name(i) for i in inputs]
    outputs = [tensor_name(o) for o in outputs]
    graph_def = _core_batch_norms(graph_def)
    _tensor_array_handles_as_strings(graph_def)
    view = GraphView(graph_def)
    for name in inputs + outputs:
        if parse_input(name)[0] not in view.nodes:
            raise ConversionError(f"'{name}' is not a tensor of the graph")
    specs = tensor_specs(graph_def, inputs)
    placeholder_names = _install_inputs(view, inputs, specs)
    _prune(view, outputs)
    _variables_to_constants(view, variable_values)
    if any(n.op == "Enter" for n in view.nodes.values()):
        view = _rnn_loops_fused(view, outputs + placeholder_names)
    _remove_identities(view, outputs)
    stray = [n.name for n in view.nodes.values() if n.op in PLACEHOLDER_OPS and f"{n.name}:0" not in placeholder_names]
    if stray:
        raise ConversionError(f"the outputs need placeholders that are not inputs: {sorted(stray)}")
    _fold(view, outputs)
    _fold_constant_selects(view, outputs)
    if any(n.op in ("Switch", "RefSwitch") for n in view.nodes.values()):
        _fold_constant_switches(view, outputs)
        # A cond's branch (CenterCrop's) reads the Shape of the Switch's data: again now that it is the data.
        _fold(view, outputs)
    if fold_batch_norms:
        _decompose_batch_norms(view, outputs)
        _fold_scales(view, outputs)
        _merge_bias_adds(view, outputs)
        fold_constants(view, outputs)
    _prune(view, outputs + placeholder_names)
    return view.to_graph_def()


_DT_STRING, _DT_RESOURCE = 7, 20
_PASS_THROUGH = frozenset({"Identity", "Enter", "Exit", "Switch", "Merge", "NextIteration"})


def _tensor_array_handles_as_strings(graph_def):
    """A TensorArray's handle as the core has it: TensorFlow 2 writes TF1 graphs (dynamic_rnn's) with the handle
    a resource, which the core's TensorArray ops take as a string; the Identity/Enter/Switch/... nodes that pass
    it on say T = DT_RESOURCE. Those become DT_STRING, in place."""
    consumers = {}
    for node in graph_def.node:
        for i in node.input:
            consumers.setdefault(parse_input(i.lstrip("^"))[0], []).append(node)
    todo = [n.name for n in graph_def.node if n.op in ("TensorArrayV3", "TensorArrayGradV3")]
    seen = set(todo)
    while todo:
        for node in consumers.get(todo.pop(), []):
            if node.op in _PASS_THROUGH and node.attr["T"].type == _DT_RESOURCE and node.name not in seen:
                node.attr["T"].type = _DT_STRING
                seen.add(node.name)
                todo.append(node.name)


def _rnn_loops_fused(view, outputs):
    """`view` with each while loop that is a recurrent layer (dynamic_rnn of LSTMCell, BasicLSTMCell, GRUCell,
    BasicRNNCell or a MultiRNNCell of them; a Keras LSTM, GRU or SimpleRNN) made _TwlRnn nodes
    (converters/tf_rnn_loops.py), pruned to `outputs`; any other loop is a ConversionError with the reason (the
    lite runtime has no loops)."""
    import tensorweave as tw

    from converters import tf_rnn_loops

    graph_def = view.to_graph_def(ordered=False)
    core = _imported(graph_def, None)

    def static_shape(name):
        try:
            shape = core.get_tensor_by_name(tensor_name(name)).shape
        except (KeyError, ValueError):
            return None
        return shape.as_list() if shape.ndims is not None else None

    replaced, left = tf_rnn_loops.fuse_rnn_loops(tw, graph_def, static_shape, outputs)
    nodes = [m for n in graph_def.node for m in replaced.get(n.name, [n])]
    del graph_def.node[:]
    graph_def.node.extend(nodes)
    view = GraphView(graph_def)
    _prune(view, outputs)
    loop = next((n for n in view.nodes.values() if n.op == "Enter"), None)
    if loop is not None:
        why = "".join(f"; the loop {frame!r} is not one: {reason}" for frame, reason in left)
        raise ConversionError(
            f"node '{loop.name}' belongs to a while loop, which the converter takes only as a recurrent layer (an "
            f"LSTM, GRU or basic RNN cell over a sequence, with or without dynamic_rnn's sequence_length, without masks){why}"
        )
    return view


def freeze_session(sess, inputs, outputs, **kwargs):
    """Freezes the graph of a live session: variable values are read from it.
    `inputs`/`outputs` are Tensors or tensor names."""
    graph = sess.graph
    inputs = [t if isinstance(t, str) else t.name for t in inputs]
    outputs = [t if isinstance(t, str) else t.name for t in outputs]
    graph_def = graph.as_graph_def()
    view = GraphView(graph_def)
    needed = _needed_variables(view, inputs, outputs)
    values = {}
    if needed:
        fetched = sess.run([graph.get_operation_by_name(n).outputs[0] for n in needed])
        values = dict(zip(needed, fetched))
    return freeze_graph_def(graph_def, values, inputs, outputs, **kwargs)


def _needed_variables(view, inputs, outputs):
    stops = {parse_input(i)[0] for i in inputs}
    seen, stack, found = set(), [parse_input(o)[0] for o in outputs], []
    while stack:
        name = stack.pop()
        if name in seen or name in stops or name not in view.nodes:
            continue
        seen.add(name)
        node = view.nodes[name]
        if node.op in VARIABLE_OPS:
            found.append(name)
        stack.extend(parse_input(i)[0] for i in graph_util.data_inputs(node))
    return sorted(found)


# --- saved models -----------------------------------------------------------------------------
def load_saved_model(export_dir):
    """(graph_def, {variable name: value}, signature) of a directory written by
    `tw.saved_model.simple_save`; the variables are read (and their checksums
    verified) by the core's RestoreV2."""
    import tensorweave as tw
    from tensorweave._src.ops import io_ops
    from tensorweave._src.saved_model import simple_save

    try:
        signature = simple_save.read_signature(export_dir)
        graph_def = simple_save.read_graph_def(export_dir)
    except tw.errors.OpError as e:
        raise ConversionError(f"not a saved model: {e.message}") from None
    variables = [n for n in graph_def.node if n.op in VARIABLE_OPS]
    values = {}
    if variables:
        prefix = f"{export_dir}/{simple_save.VARIABLES_PREFIX}"
        with tw.Graph().as_default() as g, tw.Session(graph=g) as sess:
            restored = io_ops.restore_v2(
                prefix,
                [n.name for n in variables],
                [""] * len(variables),
                [tw.as_dtype(attr(n, "dtype")) for n in variables],
            )
            try:
                fetched = sess.run(restored)
            except tw.errors.OpError as e:
                raise ConversionError(f"cannot read the variables of {export_dir}: {e.message}") from None
        values = {n.name: v for n, v in zip(variables, fetched)}
    return graph_def, values, signature


def freeze_saved_model(export_dir, inputs=None, outputs=None, **kwargs):
    """(frozen GraphDef, input tensor names, output tensor names, input keys,
    output keys) of a saved model. `inputs`/`outputs` (tensor names) override
    its signature."""
    graph_def, values, signature = load_saved_model(export_dir)
    if inputs is None:
        input_keys, inputs = zip(*signature["inputs"].items()) if signature["inputs"] else ((), ())
    else:
        input_keys = [parse_input(i)[0] for i in inputs]
    if outputs is None:
        output_keys, outputs = zip(*signature["outputs"].items())
    else:
        output_keys = [parse_input(o)[0] for o in outputs]
    frozen = freeze_graph_def(graph_def, values, list(inputs), list(outputs), **kwargs)
    return frozen, list(inputs), list(outputs), list(input_keys), list(output_keys)
