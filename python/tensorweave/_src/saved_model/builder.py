"""SavedModelBuilder (`tf.saved_model.builder`): one or more meta graphs (each with tags and signatures) over
one set of variables, written as

  <export_dir>/saved_model.pb (or .pbtxt)   a SavedModel proto (core/framework/meta_graph.proto);
  <export_dir>/variables/variables.*        the checkpoint of the variables (tw.train.Saver's format).
"""

import os

from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.saved_model import constants


class SavedModelBuilder:
    """Builds a SavedModel in `export_dir`, which must not exist or be empty.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> export_dir = os.path.join(tempfile.mkdtemp(), "model")
      >>> builder = tw.saved_model.builder.SavedModelBuilder(export_dir)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     x = tw.placeholder(tw.float32, [None], name="x")
      ...     w = tw.Variable(3.0, name="w")
      ...     sess.run(w.initializer)
      ...     sig = tw.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": x * w})
      ...     builder.add_meta_graph_and_variables(sess, [tw.saved_model.tag_constants.SERVING],
      ...                                          signature_def_map={"serving_default": sig})
      >>> path = builder.save()
      >>> sorted(os.listdir(export_dir))
      ['saved_model.pb', 'variables']
    """

    def __init__(self, export_dir):
        from tensorweave._src.framework import meta_graph_pb2

        export_dir = os.fspath(export_dir)
        if os.path.exists(export_dir):
            if os.path.isdir(export_dir) and os.listdir(export_dir):
                raise AssertionError(
                    "Export directory already exists, and isn't empty. Please choose a different export directory, "
                    f"or delete all the contents of the specified directory: {export_dir}"
                )
        else:
            os.makedirs(export_dir)
        self._export_dir = export_dir
        self._saved_model = meta_graph_pb2.SavedModel(saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False

    def _tag_and_add(self, meta_graph_def, tags, signature_def_map, main_op, legacy_init_op, train_op):
        for tag in tags:
            meta_graph_def.meta_info_def.tags.append(tag)
        for key, signature_def in (signature_def_map or {}).items():
            meta_graph_def.signature_def[key].CopyFrom(signature_def)
        for key, op in (
            (constants.MAIN_OP_KEY, main_op),
            (constants.LEGACY_INIT_OP_KEY, legacy_init_op),
            (constants.TRAIN_OP_KEY, train_op),
        ):
            if op is not None:
                meta_graph_def.collection_def[key].node_list.value.append(op.name)
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    @staticmethod
    def _validate(tags, signature_def_map, main_op, legacy_init_op, train_op):
        if isinstance(tags, str) or not all(isinstance(t, str) for t in tags):
            raise TypeError(f"tags must be a list of strings, got {tags!r}")
        for key, signature_def in (signature_def_map or {}).items():
            if not hasattr(signature_def, "inputs") or not hasattr(signature_def, "outputs"):
                raise TypeError(f"signature_def_map[{key!r}] is not a SignatureDef: {signature_def!r}")
            for what, infos in (("inputs", signature_def.inputs), ("outputs", signature_def.outputs)):
                for name, info in infos.items():
                    if not info.name:
                        raise AttributeError(
                            f"All TensorInfo protos used in the SignatureDefs must have the name and dtype fields "
                            f"set. The {what} {name!r} of signature {key!r} has no name."
                        )
        if main_op is not None and legacy_init_op is not None:
            raise ValueError("main_op and legacy_init_op are mutually exclusive")
        for what, op in (("main_op", main_op), ("legacy_init_op", legacy_init_op), ("train_op", train_op)):
            if op is not None and not isinstance(op, (ops.Operation, ops.Tensor)):
                raise TypeError(f"{what} needs to be an Operation or a Tensor: {op!r}")

    def _saver(self, saver):
        from tensorweave._src.ops import variables
        from tensorweave._src.training import saver as saver_lib

        if saver is not None:
            return saver
        var_list = [v for v in variables.global_variables() if isinstance(v, variables.Variable)]
        return saver_lib.Saver(var_list or None, allow_empty=True, max_to_keep=None)

    def add_meta_graph_and_variables(
        self,
        sess,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
        train_op=None,
    ):
        """Saves the session's variables and adds the graph as a meta graph tagged `tags`, with its signatures
        and the op to run after loading (`main_op`, or `legacy_init_op`). Called once, before `add_meta_graph`.

        Raises:
          AssertionError: called a second time.
        """
        if self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has already been saved. Please invoke "
                "`add_meta_graph()` instead."
            )
        if assets_collection:
            raise NotImplementedError("SavedModel assets are not supported")
        self._validate(tags, signature_def_map, main_op, legacy_init_op, train_op)
        with sess.graph.as_default():
            saver = self._saver(saver)
            variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
            os.makedirs(variables_dir, exist_ok=True)
            saver.save(
                sess,
                os.path.join(variables_dir, constants.VARIABLES_FILENAME),
                write_meta_graph=False,
                write_state=False,
            )
            meta_graph_def = saver.export_meta_graph(
                clear_devices=clear_devices, strip_default_attrs=strip_default_attrs
            )
        self._tag_and_add(meta_graph_def, tags, signature_def_map, main_op, legacy_init_op, train_op)
        self._has_saved_variables = True

    def add_meta_graph(
        self,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
        train_op=None,
    ):
        """Adds the default graph as another meta graph over the variables already saved.

        Raises:
          AssertionError: add_meta_graph_and_variables was not called first.
        """
        if not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. Please invoke "
                "`add_meta_graph_and_variables()` first."
            )
        if assets_collection:
            raise NotImplementedError("SavedModel assets are not supported")
        self._validate(tags, signature_def_map, main_op, legacy_init_op, train_op)
        saver = self._saver(saver)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices, strip_default_attrs=strip_default_attrs)
        self._tag_and_add(meta_graph_def, tags, signature_def_map, main_op, legacy_init_op, train_op)

    def save(self, as_text=False):
        """Writes saved_model.pb (or saved_model.pbtxt with `as_text`); returns its path."""
        from google.protobuf import text_format

        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model).encode()
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString()
        tmp = f"{path}.tmp{os.getpid()}"
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as e:
            raise errors.UnknownError(None, None, f"Failed to write {path}: {e}") from None
        return path.encode()


Builder = SavedModelBuilder
