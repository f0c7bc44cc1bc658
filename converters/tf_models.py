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

import contextlib
import inspect
import math
import os

import numpy as np

from converters import tf_rnn_loops
from converters.errors import ConversionError

KERAS_SUFFIXES = (".h5", ".hdf5", ".keras")


def is_tf_saved_model(path):
    """A directory TensorFlow wrote (saved_model.pb, variables in TF's
    checkpoint format), not a tensorweave saved model (signature.json,
    variables in safetensors)."""
    ours = ("signature.json", os.path.join("variables", "variables.safetensors"))
    return has_meta_graph_file(path) and not any(os.path.exists(os.path.join(path, f)) for f in ours)


def has_meta_graph_file(path):
    """A directory holding a SavedModel's meta graphs (saved_model.pb or .pbtxt): TensorFlow's or tensorweave's."""
    return os.path.isdir(path) and any(
        os.path.exists(os.path.join(path, f)) for f in ("saved_model.pb", "saved_model.pbtxt")
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


def _application_layers(module):
    """{name: class} of the layers Keras' own application models define without registering them (ConvNeXt's
    LayerScale and StochasticDepth, InceptionResNetV2's CustomScaleLayer): Keras cannot load a saved ConvNeXt
    unless it is given them."""
    import importlib
    import inspect
    import pkgutil

    try:
        keras = importlib.import_module(module)
        package = importlib.import_module(f"{module}.src.applications")
    except ImportError:
        return {}
    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        try:
            submodule = importlib.import_module(f"{package.__name__}.{info.name}")
        except Exception:  # noqa: BLE001 - an application module Keras cannot import here is not needed
            continue
        for name, obj in vars(submodule).items():
            if inspect.isclass(obj) and issubclass(obj, keras.layers.Layer) and obj.__module__ == submodule.__name__:
                found[name] = obj
    return found


def _load_keras_model(keras, module, path, safe_mode):
    # (Keras reads safe_mode for a .keras file only; an .h5 file's Lambda loads without it.)
    options = {"safe_mode": False} if not safe_mode and path.lower().endswith(".keras") else {}
    try:
        return keras.models.load_model(path, compile=False, **options)
    except Exception as e:  # (each Keras raises its own types; re-raised below unless a layer is unknown)
        if "Unknown layer" not in str(e):
            raise
        layers = _application_layers(module)
        if not layers:
            raise
        return keras.models.load_model(path, compile=False, custom_objects=layers, **options)


def _keras_model(path, safe_mode=True):
    """(the Keras module that loaded it, the model) of the Keras model at `path`: tf_keras first, then Keras 3."""
    errors = []
    for module in ("tf_keras", "keras"):
        try:
            keras = __import__(module)
            return keras, _load_keras_model(keras, module, path, safe_mode)
        except ImportError:
            continue
        except Exception as e:  # noqa: BLE001 - each Keras raises its own types
            errors.append(f"{module}: {type(e).__name__}: {e}")
    advice = ""
    if safe_mode and any("safe_mode" in e for e in errors):
        advice = (
            "; the file holds a Lambda layer's Python code, which Keras loads only outside its safe mode: if you "
            "trust the file, convert it with --no-keras-safe-mode (or save the model as .h5)"
        )
    raise ConversionError(
        f"{path}: no Keras could load the model ({'; '.join(errors) or 'Keras is not installed'}){advice}"
    )


def _unrolled_serving(tf, keras, model, path):
    """(model with its recurrent layers unrolled, its concrete function), or None when they cannot be."""
    rebuilt = _unrolled(keras, model, path)
    if rebuilt is model:
        return None
    try:
        with _backward_masks_zeroed_in_order(tf, keras):
            return rebuilt, _serving_of(tf, rebuilt)
    except Exception:  # noqa: BLE001 - Keras 3 refuses to unroll a run-time length only here
        return None


def _serving_of(tf, model):
    """The concrete function of a Keras model's forward pass, its outputs keyed by the model's output names (as
    Keras' own serving signature is)."""
    specs = [tf.TensorSpec(t.shape, t.dtype, name=t.name.split(":")[0]) for t in model.inputs]
    single = len(specs) == 1
    names = list(getattr(model, "output_names", None) or [])

    @tf.function(input_signature=specs)
    def serve(*args):
        out = model(args[0] if single else list(args), training=False)
        flat = out if isinstance(out, (list, tuple)) else [out]
        return dict(zip(names, flat)) if len(names) == len(flat) else out

    return serve.get_concrete_function()


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


def _same_model_scope(keras):
    """Keras' safe mode off while the loaded model is rebuilt from its own config: Keras refuses to deserialize a
    Lambda layer's code in safe mode, but this model's Lambda was already loaded (an .h5 file's, which Keras loads
    without that check)."""
    import contextlib
    import importlib

    for module in ("src.saving.serialization_lib", "saving.serialization_lib"):
        try:
            return importlib.import_module(f"{keras.__name__}.{module}").SafeModeScope(False)
        except (ImportError, AttributeError):
            continue
    return contextlib.nullcontext()


def _unrolled(keras, model, path):
    """`model` with its recurrent layers unrolled (the same layers and weights, unroll=True), or `model` when
    they cannot be (a run-time sequence length): a Keras RNN otherwise runs a TF2 while loop over TensorLists,
    which only tf_rnn_loops takes (without masks)."""
    config = model.get_config()
    if not _set_unroll(config):
        return model
    try:
        with _same_model_scope(keras):
            rebuilt = model.__class__.from_config(config)
        rebuilt.set_weights(model.get_weights())
    except Exception:  # noqa: BLE001 - Keras' error for an undefined time dimension, among others
        return model  # (its loops are left for tf_rnn_loops)
    return rebuilt


@contextlib.contextmanager
def _backward_masks_zeroed_in_order(tf, keras):
    """Keras' unrolled RNN (backend.rnn with unroll=True) zeroes the masked steps of a go_backwards layer's
    sequence output (zero_output_for_mask: a Bidirectional layer's, with return_sequences) by the mask in input
    order, while that output is in reversed order: its loop, which the model was saved with, reverses the mask.
    While the unrolled model is traced, backend.rnn runs without that zeroing and the outputs are zeroed here by
    the reversed mask, as the loop does."""
    import importlib

    backend = importlib.import_module(f"{keras.__name__}.src.backend")
    rnn = backend.rnn
    parameters = inspect.signature(rnn).parameters

    def rnn_in_order(*args, **kwargs):
        bound = inspect.signature(rnn).bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        if not (a["unroll"] and a["go_backwards"] and a["zero_output_for_mask"] and a["mask"] is not None):
            return rnn(*args, **kwargs)
        a["zero_output_for_mask"] = False
        last, outputs, states = rnn(**a)
        time_axis = 0 if a["time_major"] else 1
        mask = tf.reverse(tf.cast(a["mask"], tf.bool), [time_axis])  # (in the order the steps ran)
        while mask.shape.rank < outputs.shape.rank:
            mask = mask[..., None]
        last_mask = mask[-1] if a["time_major"] else mask[:, -1]
        last = tf.where(last_mask, last, tf.zeros_like(last))
        if outputs.shape[time_axis] == mask.shape[time_axis]:
            outputs = tf.where(mask, outputs, tf.zeros_like(outputs))
        else:  # (return_all_outputs=False: the last output alone)
            outputs = tf.expand_dims(last, time_axis)
        return last, outputs, states

    if not {"unroll", "go_backwards", "zero_output_for_mask", "mask", "time_major"} <= set(parameters):
        yield  # (a Keras whose backend.rnn takes other arguments)
        return
    backend.rnn = rnn_in_order
    try:
        yield
    finally:
        backend.rnn = rnn


def freeze(path, inputs=None, outputs=None, signature_key=None, keras_safe_mode=True):
    """(frozen GraphDef bytes, input tensor names, output tensor names, input
    keys, output keys) of the TensorFlow model at `path`. `inputs`/`outputs`
    (tensor names of the frozen graph) override the signature's. A .keras file
    loads in Keras' safe mode unless keras_safe_mode is False."""
    keras = is_keras_file(path) and signature_key is None
    tf = _tensorflow("a Keras model file" if keras else "a TensorFlow SavedModel")
    from tensorflow.python.eager import context

    with context.eager_mode():  # (whatever mode the calling program set: loading needs eager)
        keras_module = None
        try:
            if keras:
                keras_module, owner = _keras_model(path, keras_safe_mode)
                fn = _serving_of(tf, owner)
            else:
                owner, fn = _serving_function(tf, path, signature_key)
        except ConversionError:
            if not (keras and os.path.isdir(path)):
                raise
            # A Keras SavedModel whose layers Keras cannot rebuild here (custom objects): its serving signature.
            keras_module, (owner, fn) = None, _serving_function(tf, path, signature_key)
        frozen, rewrite, left = _frozen_with_rnn_loops_fused(tf, fn, path)
        unrolled = _unrolled_serving(tf, keras_module, owner, path) if left and keras_module else None
        if unrolled is not None:
            # A recurrent layer whose loop is not plain (a mask): the same model, its RNNs unrolled.
            owner, fn = unrolled
            frozen, rewrite, left = _frozen_with_rnn_loops_fused(tf, fn, path)
        lists = [n for n in rewrite.graph_def.node if n.op.startswith("TensorList") or "While" in n.op]
        if lists:
            why = "".join(f"; the loop {frame!r} is not one: {reason}" for frame, reason in left)
            raise ConversionError(
                f"{path}: node {lists[0].name!r} ({lists[0].op}) belongs to a TF2 while loop over TensorLists, "
                "which the converter takes only as a recurrent layer (an LSTM, GRU or SimpleRNN with sigmoid, hard sigmoid, tanh or relu "
                f"activations, no mask){why}. Build such layers with unroll=True over a fixed sequence length, or "
                "export the model to ONNX"
            )
        lowerings = (_lower_einsums, _lower_keras_layer_norms, _lower_tensordots, _lower_grouped_convs, _lower_spectra)
        for lowering in lowerings:
            rewrite.replace(lowering(rewrite))
        graph_def = rewrite.graph_def
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


def _frozen_with_rnn_loops_fused(tf, fn, path):
    """(TF's frozen function, its _Rewrite with each Keras recurrent layer's loop made one _TwlRnn node, [(frame,
    why)] of the loops left)."""
    from tensorflow.python.framework import convert_to_constants

    try:
        frozen = convert_to_constants.convert_variables_to_constants_v2(fn)
    except Exception as e:  # noqa: BLE001
        raise ConversionError(f"{path}: TensorFlow could not freeze the model: {type(e).__name__}: {e}") from None
    rewrite = _Rewrite(tf, frozen.graph, path)
    outputs = [t.name for t in frozen.outputs]
    fused, left = tf_rnn_loops.fuse_rnn_loops(tf, rewrite.graph_def, rewrite.static_shape, outputs)
    if fused:
        rewrite.replace(fused)
        rewrite.prune(outputs)
    return frozen, rewrite, left


# --- function calls left in a frozen GraphDef, inlined -----------------------------------------------------------

_CALL_OPS = ("PartitionedCall", "StatefulPartitionedCall")
_MAX_CALL_DEPTH = 32
_MAX_INLINED_NODES = 1_000_000  # (a function that calls itself twice would double the graph per level)


def inline_function_calls(graph_def, source):
    """`graph_def` (tensorweave's GraphDef) with its function calls (PartitionedCall / StatefulPartitionedCall of
    a function in its library) inlined; `graph_def` itself when it has none. TensorFlow's freezing inlines calls
    but keeps a function marked for XLA (Keras' grouped Conv2D runs its convolution as a tf.function with
    jit_compile=True, e.g. RegNet's), and a frozen .pb written from TF2 may keep calls too."""
    if not any(n.op in _CALL_OPS for n in graph_def.node):
        return graph_def
    tf = _tensorflow(f"{source} (its function calls)")
    inlined = _inline_calls(tf.compat.v1.GraphDef.FromString(graph_def.SerializeToString()), source)
    return type(graph_def).FromString(inlined.SerializeToString())


def lower_einsums(graph_def, source):
    """`graph_def` (tensorweave's GraphDef, a frozen .pb) with its Einsums (Keras' MultiHeadAttention and
    EinsumDense; the core has no Einsum) and spectra (|RFFT|) lowered as a Keras model's are (_lower_einsums,
    _lower_spectra), from the static shapes TensorFlow infers for the graph; `graph_def` itself when it has
    none."""
    if not any(n.op in ("Einsum", "RFFT") for n in graph_def.node):
        return graph_def
    tf = _tensorflow(f"{source} (its Einsum or RFFT ops)")
    with tf.Graph().as_default() as graph:
        try:
            tf.graph_util.import_graph_def(tf.compat.v1.GraphDef.FromString(graph_def.SerializeToString()), name="")
        except (ValueError, TypeError) as e:
            raise ConversionError(f"{source}: TensorFlow cannot read the graph for its Einsum ops: {e}") from None
    rewrite = _Rewrite(tf, graph, source)
    rewrite.replace(_lower_einsums(rewrite))
    rewrite.replace(_lower_spectra(rewrite))
    return type(graph_def).FromString(rewrite.graph_def.SerializeToString())


def lower_ops_the_core_lacks(graph_def):
    """`graph_def` (tensorweave's GraphDef) with the TensorFlow ops that the core does not define, and that Keras
    models hold, written as ops it does: Softsign (Keras' activation="softsign") as x / (1 + |x|), Bucketize
    (Keras' Discretization) as the count of boundaries <= x, DenseBincount without weights (Keras'
    CategoryEncoding, count or multi_hot) as a sum of one-hot rows."""
    lowered = ("Softsign", "Bucketize", "DenseBincount")
    if not any(n.op in lowered for n in graph_def.node):
        return graph_def
    from converters.graph_util import attr, make_const, make_node, numpy_dtype

    nodes = []
    for node in graph_def.node:
        if node.op not in lowered:
            nodes.append(node)
            continue
        dtype = numpy_dtype(node.attr["T"].type)
        x, name = node.input[0], node.name
        if node.op == "DenseBincount":
            nodes += _bincount_nodes(node, graph_def, dtype)
        elif node.op == "Softsign":
            nodes += [
                make_const(f"{name}/one", np.ones([], dtype)),
                make_node("Abs", f"{name}/abs", [x], T=dtype),
                make_node("AddV2", f"{name}/one_plus_abs", [f"{name}/one", f"{name}/abs"], T=dtype),
                make_node("RealDiv", name, [x, f"{name}/one_plus_abs"], T=dtype),
            ]
        else:
            boundaries = np.asarray(attr(node, "boundaries", []), dtype)
            if boundaries.size == 0:
                raise ConversionError(f"Bucketize node {name!r} has no boundaries")
            nodes += [
                make_const(f"{name}/last_axis", np.array(-1, np.int32)),
                make_node("ExpandDims", f"{name}/expanded", [x, f"{name}/last_axis"], T=dtype, Tdim=np.int32),
                make_const(f"{name}/boundaries", boundaries),
                make_node("GreaterEqual", f"{name}/at_or_past", [f"{name}/expanded", f"{name}/boundaries"], T=dtype),
                make_node("Cast", f"{name}/counted", [f"{name}/at_or_past"], SrcT=np.dtype(np.bool_), DstT=np.int32),
                make_node("Sum", name, [f"{name}/counted", f"{name}/last_axis"], T=np.int32, Tidx=np.int32),
            ]
            nodes[-1].attr["keep_dims"].b = False
        nodes[-1].input.extend(i for i in node.input if i.startswith("^"))
    out = type(graph_def)()
    out.CopyFrom(graph_def)
    del out.node[:]
    out.node.extend(nodes)
    return out


def _bincount_nodes(node, graph_def, dtype):
    """DenseBincount(values, size, weights) of empty weights: OneHot(values, size) summed over the values' last
    axis (at most 1 with binary_output)."""
    from converters.graph_util import attr, make_const, make_node, numpy_dtype, parse_input

    weights = next((n for n in graph_def.node if n.op == "Const" and n.name == parse_input(node.input[2])[0]), None)
    shape = None if weights is None else [d.size for d in weights.attr["value"].tensor.tensor_shape.dim]
    if shape is None or int(np.prod(shape)) != 0:
        raise ConversionError(f"DenseBincount node {node.name!r}: only counts without weights are supported")
    values, size, name = node.input[0], node.input[1], node.name
    index = numpy_dtype(node.attr["Tidx"].type)
    made = [make_const(f"{name}/on", np.ones([], dtype)), make_const(f"{name}/off", np.zeros([], dtype))]
    fixed = _clipped_to_one_value(graph_def, size)
    if fixed is None:
        made.append(make_node("Cast", f"{name}/depth", [size], SrcT=index, DstT=np.int32))
    else:  # (tf.math.bincount's size clipped to minlength == maxlength: Keras' num_tokens)
        made.append(make_const(f"{name}/depth", np.array(fixed, np.int32)))
    made += [
        make_node(
            "OneHot", f"{name}/one_hot", [values, f"{name}/depth", f"{name}/on", f"{name}/off"], T=dtype, TI=index
        ),
        make_const(f"{name}/axis", np.array(-2, np.int32)),
    ]
    made[3].attr["axis"].i = -1
    counts = f"{name}/counts" if attr(node, "binary_output", False) else name
    made.append(make_node("Sum", counts, [f"{name}/one_hot", f"{name}/axis"], T=dtype, Tidx=np.int32))
    made[-1].attr["keep_dims"].b = False
    if counts != name:
        made.append(make_node("Minimum", name, [counts, f"{name}/on"], T=dtype))
    return made


def _clipped_to_one_value(graph_def, tensor):
    """v when `tensor` is Minimum(v, Maximum(v, x)) (or Maximum(v, Minimum(v, x))) of one constant v, else None."""
    from converters.graph_util import parse_input, tensor_proto_to_numpy

    nodes = {n.name: n for n in graph_def.node}

    def split(name, op):
        node = nodes.get(parse_input(name)[0])
        if node is None or node.op != op:
            return None, None
        for c, other in ((0, 1), (1, 0)):
            const = nodes.get(parse_input(node.input[c])[0])
            if const is not None and const.op == "Const":
                return tensor_proto_to_numpy(const.attr["value"].tensor), node.input[other]
        return None, None

    for outer, inner in (("Minimum", "Maximum"), ("Maximum", "Minimum")):
        a, rest = split(tensor, outer)
        b, _ = split(rest, inner) if rest is not None else (None, None)
        if a is not None and b is not None and np.size(a) == 1 and np.array_equal(a, b):
            return int(np.reshape(a, []))
    return None


def _inline_calls(graph_def, source):
    """graph_def (TF's proto) with its calls inlined, nested calls too. Each call's body goes under the call's
    name (call/node); its arguments become Identity nodes of the call's inputs and its consumers read the body's
    results."""
    from tensorflow.python.framework import function_def_to_graph

    library = {f.signature.name: f for f in graph_def.library.function}
    for _ in range(_MAX_CALL_DEPTH):
        if not any(n.op in _CALL_OPS for n in graph_def.node):
            return graph_def
        results = {}  # call name -> the body's result tensors, in output order
        nodes = []
        for node in graph_def.node:
            if node.op not in _CALL_OPS:
                nodes.append(node)
                continue
            fdef = library.get(node.attr["f"].func.name)
            if fdef is None:
                raise ConversionError(
                    f"{source}: node {node.name!r} ({node.op}) calls {node.attr['f'].func.name!r}, which is not in "
                    "the GraphDef's function library"
                )
            try:
                body, flat = function_def_to_graph.function_def_to_graph_def(fdef)
            except Exception as e:  # noqa: BLE001 - TF raises several types for a malformed function
                raise ConversionError(
                    f"{source}: node {node.name!r} calls {fdef.signature.name!r}, which TensorFlow cannot read: "
                    f"{type(e).__name__}: {e}"
                ) from None
            prefix = node.name + "/"
            data_inputs = [i for i in node.input if not i.startswith("^")]
            control = [i for i in node.input if i.startswith("^")]
            args = {a.name: k for k, a in enumerate(fdef.signature.input_arg)}
            if len(args) != len(data_inputs):
                raise ConversionError(
                    f"{source}: node {node.name!r} calls {fdef.signature.name!r} with {len(data_inputs)} inputs; "
                    f"it takes {len(args)}"
                )
            for inner in body.node:
                new = type(inner)()
                new.CopyFrom(inner)
                new.name = prefix + inner.name
                del new.input[:]
                if inner.op == "Placeholder" and inner.name in args:
                    new.op = "Identity"
                    new.attr.clear()
                    new.attr["T"].type = inner.attr["dtype"].type
                    new.input.extend([data_inputs[args[inner.name]], *control])
                else:
                    new.input.extend(("^" + prefix + i[1:]) if i.startswith("^") else prefix + i for i in inner.input)
                    if not inner.input:
                        new.input.extend(control)  # (runs after the call's control inputs, as the call did)
                nodes.append(new)
            results[node.name] = [
                prefix + flat.get(fdef.ret[a.name], fdef.ret[a.name]) for a in fdef.signature.output_arg
            ]
        for node in nodes:
            inputs = []
            for i in node.input:
                name = i[1:] if i.startswith("^") else i.rsplit(":", 1)[0] if ":" in i else i
                if name not in results:
                    inputs.append(i)
                elif i.startswith("^"):
                    inputs.extend(sorted({"^" + r.rsplit(":", 1)[0] for r in results[name]}))
                else:
                    index = int(i.rsplit(":", 1)[1]) if ":" in i else 0
                    inputs.append(results[name][index])
            del node.input[:]
            node.input.extend(inputs)
        if len(nodes) > _MAX_INLINED_NODES:
            raise ConversionError(f"{source}: inlining its function calls makes more than {_MAX_INLINED_NODES} nodes")
        del graph_def.node[:]
        graph_def.node.extend(nodes)
    raise ConversionError(f"{source}: function calls nested deeper than {_MAX_CALL_DEPTH} levels")


# --- rewrites of TensorFlow's frozen GraphDef before conversion --------------------------------------------------


class _Rewrite:
    """TensorFlow's frozen GraphDef being rewritten, with the TF graph it came from (for the static shapes TF
    inferred). Each lowering below returns {node name: the nodes that replace it} (the last of them named as the
    replaced node, so that its consumers need no change); `replace` splices them in."""

    def __init__(self, tf, graph, source):
        self.tf, self.graph = tf, graph
        self.graph_def = graph.as_graph_def()
        if any(n.op in _CALL_OPS for n in self.graph_def.node):
            # TF knows no static shape past a call: the inlined graph, imported anew, has them.
            self.graph_def = _inline_calls(self.graph_def, source)
            with tf.Graph().as_default() as self.graph:
                tf.graph_util.import_graph_def(self.graph_def, name="")
        self._by_name = {n.name: n for n in self.graph_def.node}

    def producer(self, name):
        """The node whose output (or control output) `name` is, or None."""
        return self._by_name.get(name.split(":")[0].lstrip("^"))

    def const_value(self, name):
        node = self.producer(name)
        if node is None or node.op != "Const":
            return None
        return self.tf.make_ndarray(node.attr["value"].tensor)

    def shape(self, name):
        """The static shape TF inferred for tensor `name` ("x" is "x:0")."""
        return self.graph.get_tensor_by_name(name if ":" in name else name + ":0").shape

    def node(self, name, op, inputs, **attrs):
        node = self.tf.compat.v1.NodeDef(name=name, op=op, input=inputs)
        for k, v in attrs.items():
            node.attr[k].CopyFrom(v)
        return node

    def int32_const(self, name, values):
        tf = self.tf
        value = tf.compat.v1.AttrValue(tensor=tf.make_tensor_proto(values, tf.int32))
        return self.node(name, "Const", [], value=value, dtype=tf.compat.v1.AttrValue(type=tf.int32.as_datatype_enum))

    def static_shape(self, name):
        """TF's static shape of tensor `name` as a list (None for unknown dims), or None; None for a tensor the
        graph lacks."""
        try:
            shape = self.shape(name)
        except (KeyError, ValueError):
            return None
        return shape.as_list() if shape.rank is not None else None

    def prune(self, outputs):
        """Drops the nodes that `outputs` (tensor names) do not need."""
        needed, todo = set(), [o.split(":")[0] for o in outputs]
        while todo:
            name = todo.pop().lstrip("^").split(":")[0]
            if name not in needed and name in self._by_name:
                needed.add(name)
                todo.extend(self._by_name[name].input)
        kept = [n for n in self.graph_def.node if n.name in needed]
        del self.graph_def.node[:]
        self.graph_def.node.extend(kept)
        self._by_name = {n.name: n for n in self.graph_def.node}

    def replace(self, replacements):
        if not replacements:
            return
        nodes = []
        for node in self.graph_def.node:
            nodes.extend(replacements.get(node.name, [node]))
        del self.graph_def.node[:]
        self.graph_def.node.extend(nodes)
        self._by_name = {n.name: n for n in self.graph_def.node}


class _Nodes:
    """Nodes made under one name prefix: `add` returns the new node's name, `made` lists them in order."""

    def __init__(self, rewrite, prefix):
        self.rewrite, self.prefix, self.made = rewrite, prefix, []

    def _name(self, suffix):
        return f"{self.prefix}/{suffix}" if suffix else self.prefix

    def add(self, op, suffix, inputs, **attrs):
        self.made.append(self.rewrite.node(self._name(suffix), op, inputs, **attrs))
        return self.made[-1].name

    def int32_const(self, suffix, values):
        self.made.append(self.rewrite.int32_const(self._name(suffix), values))
        return self.made[-1].name


# --- Einsum, lowered to the primitive ops the converter knows ---------------------------------------------------


def _lower_einsums(rewrite):
    """Every two-operand Einsum (Keras' MultiHeadAttention and EinsumDense make them) as Transpose / Reshape /
    BatchMatMulV2 (and Sum for a label only one operand has), from the static shapes TF inferred; at most one
    dimension of each reshape may be unknown (the batch)."""
    return {
        node.name: _einsum_nodes(rewrite, node, [rewrite.shape(i).as_list() for i in node.input[:2]])
        for node in rewrite.graph_def.node
        if node.op == "Einsum"
    }


def _without_ellipsis(equation, ranks):
    """`equation` with each "..." spelled out as labels of its own (right-aligned across the operands, as einsum
    broadcasts them); `equation` itself when an operand's rank does not fit its term."""
    lhs, arrow, out = equation.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        return equation
    counts = [rank - len(term.replace("...", "")) if "..." in term else 0 for term, rank in zip(terms, ranks)]
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in equation]
    if min(counts) < 0 or max(counts) > len(spare):
        return equation
    labels = "".join(spare[: max(counts)])
    terms = [t.replace("...", labels[len(labels) - c :]) for t, c in zip(terms, counts)]
    if not arrow:  # (implicit output: the broadcast dims, then the labels seen once, sorted)
        once = sorted(c for c in "".join(terms) if "".join(terms).count(c) == 1 and c not in labels)
        out = labels + "".join(once)
    return ",".join(terms) + "->" + out.replace("...", labels)


def _einsum_nodes(rewrite, node, shapes):
    tf = rewrite.tf
    equation = node.attr["equation"].s.decode().replace(" ", "")
    if "..." in equation and len(shapes) == 2 and all(s is not None for s in shapes):
        equation = _without_ellipsis(equation, [len(s) for s in shapes])
    lhs, arrow, out = equation.partition("->")
    terms = lhs.split(",")
    if "." in equation or len(terms) != 2 or len(shapes) != 2 or not arrow:
        raise ConversionError(
            f"Einsum node {node.name!r}: equation {equation!r} is not supported (two operands, explicit output, "
            "no ellipsis)"
        )
    dtype = node.attr["T"]
    nodes = _Nodes(rewrite, node.name)
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
            dims.append(None if None in sizes else math.prod(sizes))
        if dims.count(None) > 1:
            raise ConversionError(
                f"Einsum node {node.name!r}: more than one unknown dimension in a reshape of {equation!r}"
            )
        target = nodes.int32_const(f"{name}/shape", [-1 if d is None else d for d in dims])
        return nodes.add("Reshape", name, [x, target], T=dtype, Tshape=int32)

    def transpose(name, x, have, want):
        if list(have) == list(want):
            return x
        perm = nodes.int32_const(f"{name}/perm", [have.index(label) for label in want])
        return nodes.add("Transpose", name, [x, perm], T=dtype, Tperm=int32)

    operands = list(node.input[:2])
    for i, (term, other) in enumerate(((terms[0], terms[1]), (terms[1], terms[0]))):
        summed = [label for label in term if label not in other and label not in out]
        if summed:
            axes = nodes.int32_const(f"sum{i}/axes", [term.index(label) for label in summed])
            keep = tf.compat.v1.AttrValue(b=False)
            operands[i] = nodes.add("Sum", f"sum{i}", [operands[i], axes], T=dtype, Tidx=int32, keep_dims=keep)
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
    z = nodes.add("BatchMatMulV2", "matmul", [x, y], T=dtype, adj_x=false, adj_y=false)
    z = reshape("out", z, [[label] for label in batch + a_free + b_free])
    z = transpose("out/order", z, batch + a_free + b_free, list(out))
    # The Einsum's own name now names its result, so that its consumers need no change.
    nodes.add("Identity", "", [z], T=dtype)
    return nodes.made


# --- Keras' LayerNormalization, as plain normalization over its axes -------------------------------------------


def _lower_keras_layer_norms(rewrite):
    """tf_keras' LayerNormalization computes through a batch norm: x reshaped to [1, rows, columns, 1] by shapes
    computed at run time (Shape, StridedSlice, Prod, Pack; scale and offset made by Fill), FusedBatchNormV3 in
    training mode, reshaped back to Shape(x). That is the mean and variance of x over its axes from the split
    point on (x's rank is static: TF inferred it): rewritten as exactly that (Mean, Sub, Square, Mean, AddV2,
    Rsqrt, Mul), which needs no shape arithmetic and which the converter knows."""
    producer, const_value = rewrite.producer, rewrite.const_value
    replaced = {}
    for norm in rewrite.graph_def.node:
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
        rank = rewrite.shape(x).rank
        if rank is None:
            continue
        axes = list(range(int(begin.reshape(-1)[0]), rank))
        for back in rewrite.graph_def.node:
            if back.op != "Reshape" or len(back.input) != 2 or back.input[0] not in (norm.name, norm.name + ":0"):
                continue
            shape = producer(back.input[1])
            if shape is not None and shape.op == "Shape" and shape.input[0] == x:
                replaced[back.name] = _normalization_nodes(
                    rewrite, back.name, x, axes, norm.attr["epsilon"].f, norm.attr["T"]
                )
    return replaced


def _normalization_nodes(rewrite, name, x, axes, epsilon, dtype):
    """(x - mean) * rsqrt(variance + epsilon) over x's `axes`, its result named `name`."""
    tf = rewrite.tf
    nodes = _Nodes(rewrite, name)
    int32 = tf.compat.v1.AttrValue(type=tf.int32.as_datatype_enum)
    keep = tf.compat.v1.AttrValue(b=True)
    axes = nodes.int32_const("axes", axes)
    mean = nodes.add("Mean", "mean", [x, axes], T=dtype, Tidx=int32, keep_dims=keep)
    centered = nodes.add("Sub", "centered", [x, mean], T=dtype)
    squared = nodes.add("Square", "squared", [centered], T=dtype)
    variance = nodes.add("Mean", "variance", [squared, axes], T=dtype, Tidx=int32, keep_dims=keep)
    eps_value = tf.make_tensor_proto(epsilon, tf.as_dtype(dtype.type))
    eps = nodes.add("Const", "epsilon", [], value=tf.compat.v1.AttrValue(tensor=eps_value), dtype=dtype)
    shifted = nodes.add("AddV2", "shifted", [variance, eps], T=dtype)
    inverse = nodes.add("Rsqrt", "rsqrt", [shifted], T=dtype)
    nodes.add("Mul", "", [centered, inverse], T=dtype)
    return nodes.made


# --- tf.tensordot (Keras' Dense on a rank-3+ input), as one batch matmul ----------------------------------------


def _lower_tensordots(rewrite):
    """tf.tensordot(x, w, [[last], [0]]) reshapes x to 2-D by shapes computed at run time (Shape, GatherV2, Prod,
    Pack), multiplies, and reshapes back (ConcatV2 of the free dims and w's columns): with a run-time batch none
    of those shapes is static. It is x' @ w for a 2-D w, x' being x transposed so that the contracted axis is
    last: one BatchMatMulV2, which broadcasts w over x's leading dims; the shape arithmetic is left dead."""
    producer, false = rewrite.producer, rewrite.tf.compat.v1.AttrValue(b=False)
    replaced = {}
    for back in rewrite.graph_def.node:
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
        source = _untransposed(rewrite, flat.input[0])
        x, w, out = rewrite.shape(source), rewrite.shape(matmul.input[1]), rewrite.shape(back.name)
        if w.rank != 2 or x.rank is None or x.rank < 2 or out.rank != x.rank:
            continue
        if x[-1] is None or x[-1] != w[0]:
            continue  # (the contracted axes must be x's last one, of w's rows)
        inputs = [source, matmul.input[1]]
        attrs = {"T": matmul.attr["T"], "adj_x": false, "adj_y": false}
        replaced[back.name] = [rewrite.node(back.name, "BatchMatMulV2", inputs, **attrs)]
    return replaced


def _untransposed(rewrite, name):
    """The input of Transpose `name` when its permutation is the identity (tf.tensordot transposes by a ConcatV2
    of constants, the identity when it contracts the last axis; TF then knows no static shape after it), else
    `name`."""
    node = rewrite.producer(name)
    if node is None or node.op != "Transpose":
        return name
    perm = rewrite.const_value(node.input[1])
    concat = rewrite.producer(node.input[1])
    if perm is None and concat is not None and concat.op == "ConcatV2":
        parts = [rewrite.const_value(i) for i in concat.input[:-1]]
        if all(p is not None for p in parts):
            perm = np.concatenate([np.reshape(p, [-1]) for p in parts])
    if perm is None or list(np.reshape(perm, [-1])) != list(range(np.size(perm))):
        return name
    return node.input[0]


# --- grouped convolution, one Conv2D per group --------------------------------------------------------------------


def _lower_grouped_convs(rewrite):
    """A grouped Conv2D (the input's channels a multiple of the filter's: Keras' Conv2D(groups=g), which TensorFlow
    runs only under XLA) as a Split of the input's channels and of the filter's output channels into g groups, a
    Conv2D per group and a ConcatV2 of their outputs; with a group per channel, as a depthwise convolution."""
    tf = rewrite.tf
    int32 = tf.compat.v1.AttrValue(type=tf.int32.as_datatype_enum)
    replaced = {}
    for node in rewrite.graph_def.node:
        if node.op != "Conv2D":
            continue
        x, f = rewrite.shape(node.input[0]), rewrite.shape(node.input[1])
        if x.rank != 4 or f.rank != 4:
            continue
        axis = 1 if node.attr["data_format"].s == b"NCHW" else 3
        channels, per_group = x[axis], f[2]
        if channels is None or per_group is None or channels == per_group or channels % per_group:
            continue
        groups = tf.compat.v1.AttrValue(i=channels // per_group)
        nodes = _Nodes(rewrite, node.name)
        if per_group == 1 and f[3] is not None and f[3] % channels == 0:
            # A group per channel (ConvNeXt's 7x7 convolutions): a depthwise convolution, its filter [kh, kw, 1,
            # C * M] read as [kh, kw, C, M].
            shape = nodes.int32_const("depthwise_shape", [f[0], f[1], channels, f[3] // channels])
            filt = nodes.add("Reshape", "depthwise_filter", [node.input[1], shape], T=node.attr["T"], Tshape=int32)
            attrs = {k: v for k, v in node.attr.items() if k != "use_cudnn_on_gpu"}
            nodes.add("DepthwiseConv2dNative", "", [node.input[0], filt], **attrs)
            replaced[node.name] = nodes.made
            continue
        xs = nodes.add("Split", "inputs", [nodes.int32_const("input_axis", axis), node.input[0]], num_split=groups,
                       T=node.attr["T"])  # fmt: skip
        fs = nodes.add("Split", "filters", [nodes.int32_const("filter_axis", 3), node.input[1]], num_split=groups,
                       T=node.attr["T"])  # fmt: skip
        convs = [
            nodes.add("Conv2D", f"group{g}", [f"{xs}:{g}", f"{fs}:{g}"], **dict(node.attr.items()))
            for g in range(groups.i)
        ]
        concat_axis = nodes.int32_const("concat_axis", axis)
        nodes.add("ConcatV2", "", [*convs, concat_axis], N=groups, T=node.attr["T"], Tidx=int32)
        replaced[node.name] = nodes.made
    return replaced


# --- |RFFT| (tf.signal.stft's magnitude), as two matmuls: the lite runtime has no complex numbers ------------------


def _lower_spectra(rewrite):
    """Every ComplexAbs of an RFFT of a constant fft_length n (tf.abs(tf.signal.stft(...)), a spectrogram) as
    sqrt((x @ C)^2 + (x @ S)^2), C and S the cos and sin of 2 pi k t / n over x's last dim t (cropped or padded
    to n, as RFFT does) and the n // 2 + 1 frequencies k."""
    tf, replaced = rewrite.tf, {}
    false = tf.compat.v1.AttrValue(b=False)
    for node in rewrite.graph_def.node:
        rfft = rewrite.producer(node.input[0]) if node.op == "ComplexAbs" else None
        if rfft is None or rfft.op != "RFFT":
            continue
        n = rewrite.const_value(rfft.input[1])
        length = rewrite.shape(rfft.input[0])
        if n is None or np.size(n) != 1 or length.rank is None or length[-1] is None:
            continue
        n, length = int(np.reshape(n, [])), int(length[-1])
        t = np.arange(length)[:, None]
        angle = 2 * np.pi * (t * np.arange(n // 2 + 1)[None, :] % n) / n
        kept = (t < n).astype(np.float64)
        nodes = _Nodes(rewrite, node.name)
        float32 = tf.compat.v1.AttrValue(type=tf.float32.as_datatype_enum)
        parts = []
        for label, basis in (("cos", np.cos(angle) * kept), ("sin", np.sin(angle) * kept)):
            value = tf.compat.v1.AttrValue(tensor=tf.make_tensor_proto(basis.astype(np.float32)))
            matrix = nodes.add("Const", label, [], value=value, dtype=float32)
            product = nodes.add("BatchMatMulV2", f"{label}/matmul", [rfft.input[0], matrix], T=float32, adj_x=false,
                                adj_y=false)  # fmt: skip
            parts.append(nodes.add("Square", f"{label}/squared", [product], T=float32))
        total = nodes.add("AddV2", "power", parts, T=float32)
        nodes.add("Sqrt", "", [total], T=float32)
        replaced[node.name] = nodes.made
    # An RFFT read by those ComplexAbs only goes (the core has no complex FFT to import).
    readers = {}
    for node in rewrite.graph_def.node:
        for i in node.input:
            readers.setdefault(i.lstrip("^").split(":")[0], set()).add(node.name)
    for node in rewrite.graph_def.node:
        if node.op == "RFFT" and readers.get(node.name) and readers[node.name] <= set(replaced):
            replaced[node.name] = []
    return replaced
