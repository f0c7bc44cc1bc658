"""A small saved-model format: what `tensorweave-convert` reads.

An export directory holds
  graph.pb          the GraphDef (serialized `Graph.as_graph_def()`);
  variables/        a checkpoint with prefix variables/variables written by
                    `tw.train.Saver` (safetensors + manifest, and its
                    "checkpoint" state file);
  signature.json    {"format": "tensorweave.saved_model", "version": 1,
                     "signature_key": "serving_default",
                     "inputs": {key: tensor name}, "outputs": {key: tensor name}};
  saved_model.pb    the same model as a SavedModel proto (meta graph tagged
                    "serve" with its "serving_default" predict signature),
                    what `tw.saved_model.loader.load` reads.
"""

import json
import os

from tensorweave._src.framework import errors
from tensorweave._src.framework import ops

GRAPH_FILENAME = "graph.pb"
SIGNATURE_FILENAME = "signature.json"
VARIABLES_DIRECTORY = "variables"
VARIABLES_PREFIX = os.path.join(VARIABLES_DIRECTORY, "variables")
FORMAT = "tensorweave.saved_model"
VERSION = 1
SERVING_KEY = "serving_default"


def _tensor_names(mapping, what):
    if not isinstance(mapping, dict) or not mapping:
        raise ValueError(f"{what} must be a non-empty dict {{name: Tensor}}")
    out = {}
    for key, tensor in mapping.items():
        if not isinstance(key, str) or not key:
            raise ValueError(f"{what}: keys must be non-empty strings, got {key!r}")
        if not isinstance(tensor, ops.Tensor):
            raise TypeError(f"{what}[{key!r}] must be a tw.Tensor, got {tensor!r}")
        out[key] = tensor.name
    return out


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Saves the session's graph, its variables and a serving signature to
    `export_dir` (which must not exist or be empty).

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> export_dir = os.path.join(tempfile.mkdtemp(), "model")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
      ...     w = tw.Variable([[1.0], [2.0]], name="w")
      ...     sess.run(tw.global_variables_initializer())
      ...     tw.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": tw.matmul(x, w)})
      >>> sorted(os.listdir(export_dir))
      ['graph.pb', 'saved_model.pb', 'signature.json', 'variables']
    """
    from tensorweave._src.ops import variables
    from tensorweave._src.training import saver as saver_lib

    if legacy_init_op is not None:
        raise NotImplementedError("legacy_init_op is not supported")
    if os.path.exists(export_dir) and (not os.path.isdir(export_dir) or os.listdir(export_dir)):
        raise errors.AlreadyExistsError(None, None, f"Export directory already exists, and isn't empty: {export_dir}")
    signature = {
        "format": FORMAT,
        "version": VERSION,
        "signature_key": SERVING_KEY,
        "inputs": _tensor_names(inputs, "inputs"),
        "outputs": _tensor_names(outputs, "outputs"),
    }
    from tensorweave._src.framework import meta_graph_pb2
    from tensorweave._src.saved_model import constants
    from tensorweave._src.saved_model import signature_def_utils
    from tensorweave._src.saved_model import tag_constants
    from tensorweave._src.training import meta_graph

    graph = session.graph
    os.makedirs(os.path.join(export_dir, VARIABLES_DIRECTORY), exist_ok=True)
    graph_def = graph.as_graph_def()
    with graph.as_default():
        var_list = graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
        var_list = [v for v in var_list if isinstance(v, variables.Variable)]
        if var_list:
            saver = saver_lib.Saver(var_list=var_list, max_to_keep=None)
            saver.save(session, os.path.join(export_dir, VARIABLES_PREFIX), write_meta_graph=False)
            meta_graph_def = saver.export_meta_graph()
        else:
            meta_graph_def = meta_graph.export_meta_graph(graph=graph)
        # The same model as a SavedModel (saved_model.pb), for tw.saved_model.loader.load.
        meta_graph_def.meta_info_def.tags.append(tag_constants.SERVING)
        meta_graph_def.signature_def[SERVING_KEY].CopyFrom(signature_def_utils.predict_signature_def(inputs, outputs))
    saved_model = meta_graph_pb2.SavedModel(saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
    saved_model.meta_graphs.add().CopyFrom(meta_graph_def)
    _write(os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB), saved_model.SerializeToString(), "wb")
    _write(os.path.join(export_dir, GRAPH_FILENAME), graph_def.SerializeToString(), "wb")
    _write(
        os.path.join(export_dir, SIGNATURE_FILENAME),
        json.dumps(signature, indent=2, sort_keys=True) + "\n",
        "w",
    )


def _write(path, data, mode):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, mode) as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_signature(export_dir):
    """The parsed signature.json of `export_dir` (checked)."""
    path = os.path.join(export_dir, SIGNATURE_FILENAME)
    if not os.path.isdir(export_dir):
        raise errors.NotFoundError(None, None, f"SavedModel directory not found: {export_dir}")
    try:
        with open(path, encoding="utf-8") as f:
            signature = json.load(f)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}: no signature file") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise errors.DataLossError(None, None, f"{path}: not valid JSON: {e}") from None
    if not isinstance(signature, dict) or signature.get("format") != FORMAT:
        raise errors.DataLossError(None, None, f"{path}: not a {FORMAT} signature")
    if signature.get("version") != VERSION:
        raise errors.UnimplementedError(
            None, None, f"{path}: version {signature.get('version')!r}, this reader knows {VERSION}"
        )
    for field in ("inputs", "outputs"):
        value = signature.get(field)
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
            raise errors.DataLossError(None, None, f"{path}: '{field}' must map names to tensor names")
    return signature


def read_graph_def(export_dir):
    """The GraphDef of `export_dir`."""
    from tensorweave._src.framework import graph_pb2

    path = os.path.join(export_dir, GRAPH_FILENAME)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}: no graph file") from None
    try:
        return graph_pb2.GraphDef.FromString(data)
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
        raise errors.DataLossError(None, None, f"{path}: not a GraphDef: {e}") from None


def load(sess, tags, export_dir, import_scope=None):
    """Imports `export_dir`'s graph into `sess.graph`, restores its variables
    and returns the signature as {"inputs": {key: Tensor}, "outputs": {...}}.
    (`tags` is accepted for TensorFlow compatibility and ignored.)"""
    from tensorweave._src.framework import importer
    from tensorweave._src.ops import io_ops
    from tensorweave._src.ops import state_ops

    del tags
    signature = read_signature(export_dir)
    graph_def = read_graph_def(export_dir)
    scope = import_scope or ""
    with sess.graph.as_default():
        importer.import_graph_def(graph_def, name=scope)
        prefix = f"{scope}/" if scope else ""
        graph = sess.graph
        variables = [n for n in graph_def.node if n.op in ("VariableV2", "Variable")]
        if variables:
            refs = [graph.get_operation_by_name(prefix + n.name).outputs[0] for n in variables]
            restored = io_ops.restore_v2(
                os.path.join(export_dir, VARIABLES_PREFIX),
                [n.name for n in variables],
                [""] * len(variables),
                [r.dtype for r in refs],
            )
            assigns = [state_ops.assign(r, v) for r, v in zip(refs, restored)]
            sess.run(assigns)

        def tensors(mapping):
            return {k: graph.get_tensor_by_name(prefix + v) for k, v in mapping.items()}

        return {"inputs": tensors(signature["inputs"]), "outputs": tensors(signature["outputs"])}
