"""Models written by TensorFlow itself: a SavedModel directory (TF2's
`tf.saved_model.save` or Keras' `model.save(dir)`, and TF1's
`simple_save`/`SavedModelBuilder`) and a Keras model file (.h5, .keras).

TensorFlow's own loader reads them (its checkpoint format, object graph and
function library are TF's), and TensorFlow freezes the serving function:
variables become constants, calls are inlined. The frozen GraphDef then goes
through the same converter as a tensorweave model. So these inputs need
TensorFlow installed, as TensorFlow's own TFLiteConverter does; a frozen
GraphDef (.pb) converts without it.
"""

import os

from converters.errors import ConversionError

KERAS_SUFFIXES = (".h5", ".hdf5", ".keras")


def is_tf_saved_model(path):
    """A directory TensorFlow wrote (saved_model.pb, variables in TF's
    checkpoint format), not a tensorweave saved model (signature.json,
    variables in safetensors)."""
    ours = ("signature.json", os.path.join("variables", "variables.safetensors"))
    return (
        os.path.isdir(path)
        and not any(os.path.exists(os.path.join(path, f)) for f in ours)
        and any(os.path.exists(os.path.join(path, f)) for f in ("saved_model.pb", "saved_model.pbtxt"))
    )


def is_keras_file(path):
    """A Keras model file, or a SavedModel directory that Keras wrote (keras_metadata.pb: Keras can rebuild the
    model from it, which the RNN rewrite below needs)."""
    if os.path.isdir(path):
        return is_tf_saved_model(path) and os.path.exists(os.path.join(path, "keras_metadata.pb"))
    return os.path.isfile(path) and path.lower().endswith(KERAS_SUFFIXES)


def _tensorflow(what):
    try:
        import tensorflow as tf
    except ImportError:
        raise ConversionError(
            f"converting {what} needs TensorFlow to read it (pip install tensorflow-cpu); without it, convert a "
            "frozen GraphDef (.pb) with --inputs and --outputs"
        ) from None
    return tf


def _serving_function(tf, path, signature_key):
    try:
        loaded = tf.saved_model.load(path)
    except Exception as e:  # noqa: BLE001 - TF raises many types for a bad directory
        raise ConversionError(f"{path}: not a saved model TensorFlow can load: {type(e).__name__}: {e}") from None
    signatures = dict(getattr(loaded, "signatures", {}) or {})
    if not signatures:
        raise ConversionError(
            f"{path}: the saved model has no signature to convert (save it with a serving signature, e.g. "
            "tf.saved_model.save(obj, dir, signatures=obj.f.get_concrete_function(tf.TensorSpec(...))))"
        )
    key = signature_key or ("serving_default" if "serving_default" in signatures else sorted(signatures)[0])
    if key not in signatures:
        raise ConversionError(f"{path}: no signature {key!r}; it has {sorted(signatures)}")
    return loaded, signatures[key]


def _keras_function(tf, path):
    errors = []
    for module in ("tf_keras", "keras"):
        try:
            keras = __import__(module)
            model = keras.models.load_model(path, compile=False)
            break
        except ImportError:
            continue
        except Exception as e:  # noqa: BLE001 - each Keras raises its own types
            errors.append(f"{module}: {type(e).__name__}: {e}")
    else:
        raise ConversionError(
            f"{path}: no Keras could load the model ({'; '.join(errors) or 'Keras is not installed'})"
        )
    model = _unrolled(keras, model, path)
    specs = [tf.TensorSpec(t.shape, t.dtype, name=t.name.split(":")[0]) for t in model.inputs]
    single = len(specs) == 1
    names = list(getattr(model, "output_names", None) or [])

    @tf.function(input_signature=specs)
    def serve(*args):
        out = model(args[0] if single else list(args), training=False)
        flat = out if isinstance(out, (list, tuple)) else [out]
        # Keyed by the model's output names, as Keras' own serving signature is.
        return dict(zip(names, flat)) if len(names) == len(flat) else out

    return model, serve.get_concrete_function()


def _set_unroll(config):
    """Sets unroll on every RNN layer's config in a Keras model config (nested: Bidirectional, TimeDistributed)."""
    found = 0
    if isinstance(config, dict):
        inner = config.get("config")
        if isinstance(inner, dict) and "unroll" in inner and not inner["unroll"]:
            inner["unroll"] = True
            found += 1
        for value in config.values():
            found += _set_unroll(value)
    elif isinstance(config, list):
        for value in config:
            found += _set_unroll(value)
    return found


def _unrolled(keras, model, path):
    """`model` with its recurrent layers unrolled (the same layers and weights, unroll=True): a Keras RNN
    otherwise runs a TF2 while loop over TensorLists, which the converter does not take. Unrolling needs the
    sequence length to be static."""
    config = model.get_config()
    if not _set_unroll(config):
        return model
    try:
        rebuilt = model.__class__.from_config(config)
        rebuilt.set_weights(model.get_weights())
    except Exception as e:  # noqa: BLE001 - Keras' error for an undefined time dimension, among others
        raise ConversionError(
            f"{path}: the model's recurrent layers run a TF2 while loop, which the .twl converter does not take, "
            f"and they could not be unrolled ({type(e).__name__}: {e}); give the model a fixed sequence length, "
            "or export it to ONNX"
        ) from None
    return rebuilt


def freeze(path, inputs=None, outputs=None, signature_key=None):
    """(frozen GraphDef bytes, input tensor names, output tensor names, input
    keys, output keys) of the TensorFlow model at `path`. `inputs`/`outputs`
    (tensor names of the frozen graph) override the signature's."""
    keras = is_keras_file(path) and signature_key is None
    tf = _tensorflow("a Keras model file" if keras else "a TensorFlow SavedModel")
    from tensorflow.python.eager import context
    from tensorflow.python.framework import convert_to_constants

    with context.eager_mode():  # (whatever mode the calling program set: loading needs eager)
        try:
            owner, fn = _keras_function(tf, path) if keras else _serving_function(tf, path, signature_key)
        except ConversionError:
            if not (keras and os.path.isdir(path)):
                raise
            # A Keras SavedModel whose layers Keras cannot rebuild here (custom objects): its serving signature.
            owner, fn = _serving_function(tf, path, signature_key)
        try:
            frozen = convert_to_constants.convert_variables_to_constants_v2(fn)
        except Exception as e:  # noqa: BLE001
            raise ConversionError(f"{path}: TensorFlow could not freeze the model: {type(e).__name__}: {e}") from None
        lists = [n for n in frozen.graph.as_graph_def().node if n.op.startswith("TensorList") or "While" in n.op]
        if lists:
            raise ConversionError(
                f"{path}: node {lists[0].name!r} ({lists[0].op}) belongs to a TF2 while loop over TensorLists (as "
                "Keras' LSTM, GRU and SimpleRNN layers write it), which the .twl converter does not take: build "
                "those layers with unroll=True (a fixed sequence length), or export the model to ONNX"
            )
        graph_def = _lower_keras_layer_norms(tf, _lower_einsums(tf, frozen.graph), frozen.graph)
        graph_def = _lower_tensordots(tf, graph_def, frozen.graph)
        input_names = [t.name for t in frozen.inputs if t.dtype != tf.resource]
        output_names = [t.name for t in frozen.outputs]
        # The signature's names: its arguments (the placeholders' names) and its output keys, which TF flattens in
        # sorted order (a Keras model's single output has none: its tensor's name then).
        keywords = list(getattr(fn, "_arg_keywords", None) or [])  # (a signature's argument names, in order)
        input_keys = keywords if len(keywords) == len(input_names) else [n.split(":")[0] for n in input_names]
        structured = fn.structured_outputs
        if isinstance(structured, dict) and len(structured) == len(output_names):
            output_keys = sorted(structured)
        else:
            output_keys = [n.split(":")[0] for n in output_names]
        del owner
    if inputs is not None:
        input_names, input_keys = inputs, [i.split(":")[0] for i in inputs]
    if outputs is not None:
        output_names, output_keys = outputs, [o.split(":")[0] for o in outputs]
    return graph_def.SerializeToString(), input_names, output_names, input_keys, output_keys


# --- Einsum, lowered to the primitive ops the converter knows ---------------------------------------------------


def _lower_einsums(tf, graph):
    """`graph`'s GraphDef with every two-operand Einsum (Keras' MultiHeadAttention and EinsumDense make them)
    written as Transpose / Reshape / BatchMatMulV2 (and Sum for a label only one operand has), from the static
    shapes TF inferred; at most one dimension of each reshape may be unknown (the batch)."""
    graph_def = graph.as_graph_def()
    nodes = []
    for node in graph_def.node:
        if node.op != "Einsum":
            nodes.append(node)
            continue
        op = graph.get_operation_by_name(node.name)
        nodes.extend(_einsum_nodes(tf, node, [t.shape.as_list() for t in op.inputs]))
    del graph_def.node[:]
    graph_def.node.extend(nodes)
    return graph_def


def _einsum_nodes(tf, node, shapes):
    equation = node.attr["equation"].s.decode().replace(" ", "")
    lhs, arrow, out = equation.partition("->")
    terms = lhs.split(",")
    if "." in equation or len(terms) != 2 or len(shapes) != 2 or not arrow:
        raise ConversionError(
            f"Einsum node {node.name!r}: equation {equation!r} is not supported (two operands, explicit output, "
            "no ellipsis)"
        )
    dtype = node.attr["T"]
    made = []

    def add(op, name, inputs, **attrs):
        n = tf.compat.v1.NodeDef(name=f"{node.name}/{name}", op=op, input=inputs)
        for k, v in attrs.items():
            n.attr[k].CopyFrom(v)
        made.append(n)
        return n.name

    def const(name, values):
        value = tf.compat.v1.AttrValue(tensor=tf.make_tensor_proto(values, tf.int32))
        return add("Const", name, [], value=value, dtype=tf.compat.v1.AttrValue(type=tf.int32.as_datatype_enum))

    int32 = tf.compat.v1.AttrValue(type=tf.int32.as_datatype_enum)
    size = {}
    for term, shape in zip(terms, shapes):
        if shape is None or len(shape) != len(term):
            raise ConversionError(f"Einsum node {node.name!r}: operand {term!r} has shape {shape}")
        for label, d in zip(term, shape):
            size[label] = d if size.get(label) is None else size[label]

    def reshape(name, x, labels_groups):
        dims = []
        for group in labels_groups:
            sizes = [size[label] for label in group]
            dims.append(None if None in sizes else int(_prod(sizes)))
        if dims.count(None) > 1:
            raise ConversionError(
                f"Einsum node {node.name!r}: more than one unknown dimension in a reshape of {equation!r}"
            )
        target = const(f"{name}/shape", [-1 if d is None else d for d in dims])
        return add("Reshape", name, [x, target], T=dtype, Tshape=int32)

    def transpose(name, x, have, want):
        if list(have) == list(want):
            return x
        perm = const(f"{name}/perm", [have.index(label) for label in want])
        return add("Transpose", name, [x, perm], T=dtype, Tperm=int32)

    operands = list(node.input[:2])
    for i, (term, other) in enumerate(((terms[0], terms[1]), (terms[1], terms[0]))):
        summed = [label for label in term if label not in other and label not in out]
        if summed:
            axes = const(f"sum{i}/axes", [term.index(label) for label in summed])
            keep = tf.compat.v1.AttrValue(b=False)
            operands[i] = add("Sum", f"sum{i}", [operands[i], axes], T=dtype, Tidx=int32, keep_dims=keep)
            terms[i] = "".join(label for label in term if label not in summed)
    a, b = terms
    batch = [label for label in out if label in a and label in b]
    contracted = [label for label in a if label in b and label not in out]
    a_free = [label for label in a if label not in b]
    b_free = [label for label in b if label not in a]
    x = transpose("a", operands[0], a, batch + a_free + contracted)
    y = transpose("b", operands[1], b, batch + contracted + b_free)
    x = reshape("a/3d", x, [[label] for label in batch] + [a_free, contracted])
    y = reshape("b/3d", y, [[label] for label in batch] + [contracted, b_free])
    false = tf.compat.v1.AttrValue(b=False)
    z = add("BatchMatMulV2", "matmul", [x, y], T=dtype, adj_x=false, adj_y=false)
    z = reshape("out", z, [[label] for label in batch + a_free + b_free])
    z = transpose("out/order", z, batch + a_free + b_free, list(out))
    # The Einsum's own name now names its result, so that its consumers need no change.
    result = tf.compat.v1.NodeDef(name=node.name, op="Identity", input=[z])
    result.attr["T"].CopyFrom(dtype)
    return made + [result]


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p


# --- Keras' LayerNormalization, as plain normalization over its axes -------------------------------------------


def _lower_keras_layer_norms(tf, graph_def, graph):
    """tf_keras' LayerNormalization computes through a batch norm: x reshaped to [1, rows, columns, 1] by shapes
    computed at run time (Shape, StridedSlice, Prod, Pack; scale and offset made by Fill), FusedBatchNormV3 in
    training mode, reshaped back to Shape(x). That is the mean and variance of x over its axes from the split
    point on (x's rank is static: TF inferred it in `graph`): rewritten here as exactly that (Mean, Sub, Square, Mean, AddV2, Rsqrt, Mul), which needs no shape
    arithmetic and which the converter knows."""
    by_name = {n.name: n for n in graph_def.node}

    def producer(name):
        return by_name.get(name.split(":")[0].lstrip("^"))

    def const_value(name):
        node = producer(name)
        if node is None or node.op != "Const":
            return None
        return tf.make_ndarray(node.attr["value"].tensor)

    replaced = {}
    for norm in graph_def.node:
        if norm.op != "FusedBatchNormV3" or not norm.attr["is_training"].b:
            continue
        flat, scale, offset = (producer(i) for i in norm.input[:3])
        if not (flat and flat.op == "Reshape" and scale and scale.op == "Fill" and offset and offset.op == "Fill"):
            continue
        if const_value(scale.input[1]) != 1 or const_value(offset.input[1]) != 0:
            continue
        pack = producer(flat.input[1])
        columns = producer(pack.input[2]) if pack is not None and pack.op == "Pack" and len(pack.input) == 4 else None
        sliced = producer(columns.input[0]) if columns is not None and columns.op == "Prod" else None
        begin = const_value(sliced.input[1]) if sliced is not None and sliced.op == "StridedSlice" else None
        if begin is None or begin.size != 1 or int(begin.reshape(-1)[0]) < 0:
            continue
        x = flat.input[0]
        rank = graph.get_tensor_by_name(x if ":" in x else x + ":0").shape.rank
        if rank is None:
            continue
        axes = list(range(int(begin.reshape(-1)[0]), rank))
        for back in graph_def.node:
            if back.op != "Reshape" or len(back.input) != 2 or back.input[0] not in (norm.name, norm.name + ":0"):
                continue
            shape = producer(back.input[1])
            if shape is not None and shape.op == "Shape" and shape.input[0] == x:
                replaced[back.name] = (x, axes, norm.attr["epsilon"].f, norm.attr["T"])
    if not replaced:
        return graph_def
    nodes = []
    for node in graph_def.node:
        if node.name in replaced:
            nodes.extend(_normalization_nodes(tf, node.name, *replaced[node.name]))
        else:
            nodes.append(node)
    del graph_def.node[:]
    graph_def.node.extend(nodes)
    return graph_def


def _normalization_nodes(tf, name, x, axes, epsilon, dtype):
    """(x - mean) * rsqrt(variance + epsilon) over x's `axes`, its result named `name`."""
    made = []

    def add(op, suffix, inputs, **attrs):
        node = tf.compat.v1.NodeDef(name=f"{name}/{suffix}" if suffix else name, op=op, input=inputs)
        for k, v in attrs.items():
            node.attr[k].CopyFrom(v)
        made.append(node)
        return node.name

    int32 = tf.compat.v1.AttrValue(type=tf.int32.as_datatype_enum)
    keep = tf.compat.v1.AttrValue(b=True)
    axes = add(
        "Const", "axes", [], value=tf.compat.v1.AttrValue(tensor=tf.make_tensor_proto(axes, tf.int32)), dtype=int32
    )
    mean = add("Mean", "mean", [x, axes], T=dtype, Tidx=int32, keep_dims=keep)
    centered = add("Sub", "centered", [x, mean], T=dtype)
    squared = add("Square", "squared", [centered], T=dtype)
    variance = add("Mean", "variance", [squared, axes], T=dtype, Tidx=int32, keep_dims=keep)
    eps_value = tf.make_tensor_proto(epsilon, tf.as_dtype(dtype.type))
    eps = add("Const", "epsilon", [], value=tf.compat.v1.AttrValue(tensor=eps_value), dtype=dtype)
    shifted = add("AddV2", "shifted", [variance, eps], T=dtype)
    inverse = add("Rsqrt", "rsqrt", [shifted], T=dtype)
    add("Mul", "", [centered, inverse], T=dtype)
    return made


# --- tf.tensordot (Keras' Dense on a rank-3+ input), as one batch matmul ----------------------------------------


def _lower_tensordots(tf, graph_def, graph):
    """tf.tensordot(x, w, [[last], [0]]) reshapes x to 2-D by shapes computed at run time (Shape, GatherV2, Prod,
    Pack), multiplies, and reshapes back (ConcatV2 of the free dims and w's columns): with a run-time batch none
    of those shapes is static. It is x' @ w for a 2-D w, x' being x transposed so that the contracted axis is
    last: one BatchMatMulV2, which broadcasts w over x's leading dims; the shape arithmetic is left dead."""
    by_name = {n.name: n for n in graph_def.node}

    def producer(name):
        return by_name.get(name.split(":")[0])

    replaced = {}
    for back in graph_def.node:
        if back.op != "Reshape" or len(back.input) != 2:
            continue
        matmul = producer(back.input[0])
        if matmul is None or matmul.op != "MatMul" or matmul.attr["transpose_a"].b or matmul.attr["transpose_b"].b:
            continue
        flat, concat = producer(matmul.input[0]), producer(back.input[1])
        if flat is None or flat.op != "Reshape" or concat is None or concat.op != "ConcatV2":
            continue
        pack = producer(flat.input[1])
        if pack is None or pack.op != "Pack":
            continue  # (a static reshape: the converter handles it)
        x = graph.get_tensor_by_name(flat.input[0] if ":" in flat.input[0] else flat.input[0] + ":0")
        w = graph.get_tensor_by_name(matmul.input[1] if ":" in matmul.input[1] else matmul.input[1] + ":0")
        out = graph.get_tensor_by_name(back.name + ":0")
        if w.shape.rank != 2 or x.shape.rank is None or x.shape.rank < 2 or out.shape.rank != x.shape.rank:
            continue
        if x.shape[-1] is None or x.shape[-1] != w.shape[0]:
            continue  # (the contracted axes must be x's last one, of w's rows)
        replaced[back.name] = (flat.input[0], matmul.input[1], matmul.attr["T"])
    if not replaced:
        return graph_def
    nodes = []
    for node in graph_def.node:
        if node.name not in replaced:
            nodes.append(node)
            continue
        x, w, dtype = replaced[node.name]
        matmul = tf.compat.v1.NodeDef(name=node.name, op="BatchMatMulV2", input=[x, w])
        matmul.attr["T"].CopyFrom(dtype)
        matmul.attr["adj_x"].CopyFrom(tf.compat.v1.AttrValue(b=False))
        matmul.attr["adj_y"].CopyFrom(tf.compat.v1.AttrValue(b=False))
        nodes.append(matmul)
    del graph_def.node[:]
    graph_def.node.extend(nodes)
    return graph_def
