"""Loading a SavedModel into a session (`tf.saved_model.loader`)."""

import os

from tensorweave._src.framework import errors

from tensorweave._src.saved_model import constants


def _read_saved_model(export_dir):
    from google.protobuf import message
    from google.protobuf import text_format

    from tensorweave._src.framework import meta_graph_pb2

    export_dir = os.fspath(export_dir)
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = meta_graph_pb2.SavedModel()
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            saved_model.ParseFromString(data)
        except message.DecodeError as e:
            raise errors._UnparsableFileError(
                None, None, f"Cannot parse file {pb}: it is not a SavedModel: {e}"
            ) from None
    elif os.path.isfile(pbtxt):
        with open(pbtxt, encoding="utf-8", errors="replace") as f:
            try:
                text_format.Merge(f.read(), saved_model)
            except text_format.ParseError as e:
                raise errors._UnparsableFileError(
                    None, None, f"Cannot parse file {pbtxt}: it is not a SavedModel: {e}"
                ) from None
    else:
        raise OSError(
            f"SavedModel file does not exist at: {export_dir}{os.sep}"
            f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}"
        )
    return saved_model


def maybe_saved_model_directory(export_dir):
    """Whether `export_dir` holds a saved_model.pb or saved_model.pbtxt."""
    export_dir = os.fspath(export_dir)
    return any(
        os.path.isfile(os.path.join(export_dir, name))
        for name in (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT)
    )


def _op_of_collection(meta_graph_def, key, graph, import_scope):
    collection = meta_graph_def.collection_def.get(key)
    if collection is None or not collection.node_list.value:
        return None
    if len(collection.node_list.value) != 1:
        raise RuntimeError(f"Expected exactly one {key} op, found {len(collection.node_list.value)}")
    name = collection.node_list.value[0]
    return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the meta graph of `export_dir` tagged exactly `tags` into `sess.graph`, restores its variables,
    runs its main op (or legacy init op) and returns the MetaGraphDef (its `signature_def` names the tensors).

    Raises:
      OSError: no SavedModel in `export_dir`.
      RuntimeError: no meta graph has these tags.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> export_dir = os.path.join(tempfile.mkdtemp(), "model")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None], name="x")
      ...     w = tw.Variable(3.0, name="w")
      ...     sess.run(w.initializer)
      ...     tw.saved_model.simple_save(sess, export_dir, {"x": x}, {"y": x * w})
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     meta = tw.saved_model.loader.load(sess, [tw.saved_model.tag_constants.SERVING], export_dir)
      ...     sig = meta.signature_def["serving_default"]
      ...     print(sess.run(sig.outputs["y"].name, {sig.inputs["x"].name: [1.0, 2.0]}))
      [3. 6.]
    """
    from tensorweave._src.training import meta_graph

    saved_model = _read_saved_model(export_dir)
    wanted = set(tags)
    found = None
    for meta_graph_def in saved_model.meta_graphs:
        if set(meta_graph_def.meta_info_def.tags) == wanted:
            found = meta_graph_def
            break
    if found is None:
        available = [list(m.meta_info_def.tags) for m in saved_model.meta_graphs]
        raise RuntimeError(
            f"MetaGraphDef associated with tags {sorted(wanted)!r} could not be found in SavedModel, with "
            f"available tags '{available}'. To inspect available tag-sets in the SavedModel, please use the "
            "SavedModel CLI: `saved_model_cli`."
        )
    graph = sess.graph
    with graph.as_default():
        saver = meta_graph.import_meta_graph(found, import_scope=import_scope, **saver_kwargs)
        variables_prefix = os.path.join(
            os.fspath(export_dir), constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME
        )
        if saver is not None and found.HasField("saver_def"):
            saver.restore(sess, variables_prefix)
        init_op = _op_of_collection(found, constants.MAIN_OP_KEY, graph, import_scope)
        if init_op is None:
            init_op = _op_of_collection(found, constants.LEGACY_INIT_OP_KEY, graph, import_scope)
        if init_op is not None:
            sess.run(init_op)
    return found


def contains_saved_model(export_dir):
    """Whether `export_dir` holds a SavedModel."""
    return maybe_saved_model_directory(export_dir)
