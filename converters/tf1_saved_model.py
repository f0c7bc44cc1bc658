"""TensorFlow 1 SavedModels (`simple_save`, `SavedModelBuilder`: a graph of TF ops whose variables are in TF's
checkpoint format) read without TensorFlow: the core imports the meta graph, restores the variables (it reads
TF's checkpoint format, and TensorFlow 2's resource variables as ref variables) and the graph is frozen as a
tensorweave saved model is. A TF2 SavedModel (its graphs are tf.functions) is not one: `tf1_meta_graph` says no and
TensorFlow reads it (converters/tf_models.py)."""

import os

from converters import freeze
from converters.errors import ConversionError

SERVING = "serve"
# Ops of a TF2 SavedModel's top-level graph: the calls of its functions. (Resource variables, which TensorFlow 2
# makes in TF1-style graphs too, the core's meta graph import reads as ref variables.)
_TF2_OPS = ("StatefulPartitionedCall", "PartitionedCall")


def tf1_meta_graph(path):
    """The serving meta graph (else the first) of the SavedModel at `path` if it is a TF1 graph (no function
    calls), else None: not a SavedModel, or one TensorFlow must read."""
    from tensorweave._src.saved_model import loader
    from tensorweave._src.training import meta_graph

    if not os.path.isdir(path):
        return None
    try:
        graphs = list(loader._read_saved_model(path).meta_graphs)
        meta = next((m for m in graphs if SERVING in m.meta_info_def.tags), graphs[0] if graphs else None)
        graph = meta_graph.graph_def_of(meta) if meta is not None else None
    except Exception:  # noqa: BLE001 - an unreadable file: OSError, the loader's or protobuf's parse error
        return None
    if graph is None or any(n.op in _TF2_OPS for n in graph.node):
        return None
    return meta


def freeze_tf1(path, meta, inputs=None, outputs=None, signature_key=None, **options):
    """(frozen GraphDef, input tensor names, output tensor names, input keys, output keys) of the TF1 SavedModel
    at `path` whose meta graph `tf1_meta_graph` gave, through its serving signature (`signature_key`, default
    "serving_default") unless `inputs`/`outputs` (tensor names) are given."""
    import tensorweave as tw
    from tensorweave._src.saved_model import loader

    signatures = dict(meta.signature_def)
    key = signature_key or ("serving_default" if "serving_default" in signatures else min(signatures, default=None))
    if (inputs is None or outputs is None) and key not in signatures:
        raise ConversionError(f"{path}: no signature {key!r}; it has {sorted(signatures)}")
    with tw.Graph().as_default(), tw.Session() as sess:
        try:
            loader.load(sess, list(meta.meta_info_def.tags), path)
        except Exception as e:  # noqa: BLE001 - an op the core lacks, a checkpoint it cannot read
            raise ConversionError(f"{path}: the core could not load the SavedModel: {type(e).__name__}: {e}") from None
        if key in signatures:  # TF orders a signature's inputs and outputs by key
            sig = signatures[key]
            input_keys, input_names = sorted(sig.inputs), [sig.inputs[k].name for k in sorted(sig.inputs)]
            output_keys, output_names = sorted(sig.outputs), [sig.outputs[k].name for k in sorted(sig.outputs)]
        if inputs is not None:
            input_names, input_keys = inputs, [i.split(":")[0] for i in inputs]
        if outputs is not None:
            output_names, output_keys = outputs, [o.split(":")[0] for o in outputs]
        frozen = freeze.freeze_session(sess, list(input_names), list(output_names), **options)
    return frozen, list(input_names), list(output_names), list(input_keys), list(output_keys)
