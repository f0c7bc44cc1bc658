"""Reading checkpoints from Python (TensorFlow v1's `checkpoint_utils` and `NewCheckpointReader`) and
initializing variables from them (`init_from_checkpoint`, `warm_start`).

The listing comes from the checkpoint's manifest (or, for a checkpoint TensorFlow wrote, its index); tensor values are read by the core's checkpoint reader (a
RestoreV2 op in a private graph), so sizes and checksums are verified before any value is returned.
"""

import json
import os

import numpy as np

from tensorweave._src.framework import dtypes, errors, ops, tensor_shape
from tensorweave._src.ops import io_ops, variables
from tensorweave._src.training import saver as saver_lib
from tensorweave._src.training import tf_checkpoint

_SAFETENSORS_DTYPES = {
    "F16": dtypes.float16,
    "BF16": dtypes.bfloat16,
    "F32": dtypes.float32,
    "F64": dtypes.float64,
    "I8": dtypes.int8,
    "I16": dtypes.int16,
    "I32": dtypes.int32,
    "I64": dtypes.int64,
    "U8": dtypes.uint8,
    "U16": dtypes.uint16,
    "U32": dtypes.uint32,
    "U64": dtypes.uint64,
    "BOOL": dtypes.bool,
}


class CheckpointReader:
    """The tensors of one checkpoint, by name (what `tw.train.NewCheckpointReader` returns).

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([[1.0, 2.0]], name="dense/w")
      ...     sess.run(w.initializer)
      ...     _ = tw.train.Saver().save(sess, prefix)
      >>> reader = tw.train.NewCheckpointReader(prefix)
      >>> print(reader.get_variable_to_shape_map(), reader.get_tensor("dense/w"))
      {'dense/w': [1, 2]} [[1. 2.]]
    """

    def __init__(self, filepattern):
        prefix = os.fspath(filepattern)
        self._prefix = prefix
        manifest_path = prefix + saver_lib.MANIFEST_SUFFIX
        if not os.path.isfile(manifest_path) and tf_checkpoint.is_tf_checkpoint(prefix):
            listing = tf_checkpoint.list_tensors(prefix)
            self._shapes = {name: shape for name, (_, shape) in listing.items()}
            self._dtypes = {name: dtype for name, (dtype, _) in listing.items()}
            self._shard_of = {}
            return
        if not os.path.isfile(manifest_path) and os.path.isfile(prefix):
            # A file that is no checkpoint (TF reads it as a V1 table and finds no magic number).
            raise errors.DataLossError(
                None,
                None,
                f"Unable to open table file {prefix}: DATA_LOSS: not an sstable (bad magic number): perhaps your "
                "file is in a different file format and you need to use a different restore operator?",
            )
        if not os.path.isfile(manifest_path) and os.path.isdir(prefix):
            # As TF: a directory is a file it cannot open as a table (a checkpoint is named by its prefix).
            raise errors.DataLossError(
                None,
                None,
                f"Unable to open table file {prefix}: FAILED_PRECONDITION: {prefix}; Is a directory: perhaps your "
                "file is in a different file format and you need to use a different restore operator?",
            )
        shards = [prefix]
        if not os.path.isfile(manifest_path) and os.path.isfile(prefix + saver_lib.SHARDS_SUFFIX):
            shards = [shard for shard, _ in saver_lib._read_shards(prefix)]  # (Saver(sharded=True))
        elif not os.path.isfile(manifest_path):
            raise errors.NotFoundError(
                None,
                None,
                f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {prefix}",
            )
        self._shapes, self._dtypes, self._shard_of = {}, {}, {}
        for shard in shards:
            self._read_manifest(shard)

    def _read_manifest(self, shard):
        try:
            with open(shard + saver_lib.MANIFEST_SUFFIX, encoding="utf-8") as f:
                manifest = json.load(f)
            for key, entry in manifest["tensors"].items():
                # A slice of a partitioned variable is listed as the whole, as TF lists it.
                name = entry.get("slice_of", key)
                if name == key:
                    shape = entry["shape"]
                else:
                    shape = entry["shape_and_slice"].split()[:-1]
                self._shapes[name] = [int(d) for d in shape]
                self._dtypes[name] = _SAFETENSORS_DTYPES[entry["dtype"]]
                self._shard_of[name] = shard
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise errors.DataLossError(
                None, None, f"Unable to read the manifest of checkpoint {self._prefix}: {e!r}"
            ) from None

    def prefix_of(self, tensor_str):
        """The checkpoint prefix that holds `tensor_str`: its shard's in a sharded checkpoint."""
        return self._shard_of.get(tensor_str, self._prefix)

    def has_tensor(self, tensor_str):
        """Whether the checkpoint holds a tensor named `tensor_str`."""
        return tensor_str in self._shapes

    def get_variable_to_shape_map(self):
        """{tensor name: shape as a list of ints}."""
        return {name: list(shape) for name, shape in self._shapes.items()}

    def get_variable_to_dtype_map(self):
        """{tensor name: DType}."""
        return dict(self._dtypes)

    def get_tensor(self, tensor_str):
        """The value of tensor `tensor_str` as a numpy array (a numpy scalar for a 0-d tensor).

        Raises NotFoundError when there is no such tensor, DataLossError when the files are corrupted."""
        if tensor_str not in self._shapes:
            raise errors.NotFoundError(None, None, f"Key {tensor_str} not found in checkpoint")
        return self._read([tensor_str])[0]

    def _read(self, names):
        from tensorweave._src.client import session as session_lib

        by_shard = {}
        for name in names:
            by_shard.setdefault(self.prefix_of(name), []).append(name)
        values = {}
        with ops.Graph().as_default() as graph:
            reads = {
                shard: io_ops.restore_v2(shard, group, [""] * len(group), [self._dtypes[n] for n in group], name="read")
                for shard, group in by_shard.items()
            }
            with session_lib.Session(graph=graph) as sess:
                for shard, tensors in sess.run(reads).items():
                    values.update(zip(by_shard[shard], tensors))
        return [np.asarray(values[n]) if np.ndim(values[n]) else values[n] for n in names]

    def debug_string(self):
        """One line per tensor: "name (dtype) [shape]", sorted by name, as bytes."""
        lines = [f"{n} ({self._dtypes[n].name}) {self._shapes[n]}" for n in sorted(self._shapes)]
        return ("\n".join(lines) + "\n").encode()


def NewCheckpointReader(filepattern):  # noqa: N802 - TensorFlow's name
    """A `CheckpointReader` of checkpoint prefix `filepattern`; NotFoundError when there is none."""
    return CheckpointReader(filepattern)


def _checkpoint_file(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        found = saver_lib.latest_checkpoint(path)
        if found is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return found
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader of a checkpoint prefix, or of the latest checkpoint of a directory.

    Raises:
      ValueError: a directory without checkpoints.
      NotFoundError: no checkpoint at the prefix.
    """
    return CheckpointReader(_checkpoint_file(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file, name):
    """The value of variable `name` (":0" suffix allowed) in a checkpoint, as a numpy array.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> d = tempfile.mkdtemp()
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     step = tw.Variable(7, name="step")
      ...     sess.run(step.initializer)
      ...     _ = tw.train.Saver().save(sess, os.path.join(d, "model.ckpt"))
      >>> print(tw.train.load_variable(d, "step:0"), tw.train.list_variables(d))
      7 [('step', [])]
    """
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of the tensors of a checkpoint, sorted by name."""
    reader = load_checkpoint(ckpt_dir_or_file)
    return sorted(reader.get_variable_to_shape_map().items())


# --- initializing variables from a checkpoint ----------------------------------------------------------------


def _store_variables():
    """{name: Variable} of the variables made by get_variable in the default graph."""
    return dict(variables._var_store(ops.get_default_graph()).vars)


def _set_checkpoint_initializer(variable, ckpt_file, tensor_name, slice_spec=""):
    """Makes `variable`'s initializer assign the checkpoint's `tensor_name` (TensorFlow's
    `_set_checkpoint_initializer`): a RestoreV2 op named checkpoint_initializer, of slice `slice_spec` of the
    tensor for a part of a partitioned variable."""
    from tensorweave._src.ops import state_ops

    graph = variable.graph
    with graph.as_default():
        saved = graph._name_stack
        graph._name_stack = variable.op.name + "/"
        try:
            with graph.control_dependencies(None), graph.device(variable.device or None):
                (restored,) = io_ops.restore_v2(
                    ckpt_file,
                    [tensor_name],
                    [slice_spec],
                    [variable.dtype.base_dtype],
                    shapes=[variable.shape.as_list()] if variable.shape.ndims is not None else None,
                    name="checkpoint_initializer",
                )
                init_op = state_ops.assign(variable._ref(), restored, validate_shape=variable.shape.is_fully_defined())
        finally:
            graph._name_stack = saved
    variable._initializer_op = init_op.op if hasattr(init_op, "op") else init_op
    variable._initial_value = restored


def _set_variable_or_list_initializer(var, ckpt_file, tensor_name):
    """A variable from the whole tensor; each part of a partitioned variable (or a list of its parts) from its
    slice, as TF."""
    from tensorweave._src.ops.partitioned_variables import PartitionedVariable

    if not isinstance(var, (list, tuple, PartitionedVariable)):
        _set_checkpoint_initializer(var, ckpt_file, tensor_name)
        return
    for _, part in saver_lib._slices_of(tensor_name, var):  # the Saver's checks of the parts
        _set_checkpoint_initializer(part.variable, ckpt_file, tensor_name, part.slice_spec)


def _full_shape(var):
    """The shape of a variable, or of the whole of a partitioned one."""
    if isinstance(var, (list, tuple)):
        return var[0]._save_slice_info.full_shape
    return var.shape


def _check_shape(var, tensor_name, variable_map):
    shape = _full_shape(var)
    if not tensor_shape.as_shape(shape).is_compatible_with(variable_map[tensor_name]):
        names = ",".join(v.name for v in var) if isinstance(var, list) else var.name
        raise ValueError(
            f"Shape of variable {names} ({tensor_shape.as_shape(shape)}) doesn't match with shape of tensor "
            f"{tensor_name} ({variable_map[tensor_name]}) from checkpoint reader."
        )


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Replaces the initializers of variables by reads of a checkpoint, as TF1's `init_from_checkpoint`:
    running the initializers (e.g. global_variables_initializer) then loads the checkpoint's values.

    `assignment_map` maps checkpoint names to current variables:
      {"ckpt_scope/": "scope/"}: every get_variable variable under scope/ from the tensor with the same suffix
        under ckpt_scope/ ("/" on either side means the root);
      {"ckpt_scope/w": "scope/w"} or {"ckpt_scope/w": variable}: one variable.

    Raises:
      ValueError: a tensor is missing from the checkpoint, a shape differs, or a scope maps to a single name.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> d = tempfile.mkdtemp()
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     with tw.variable_scope("old"):
      ...         w = tw.get_variable("w", initializer=[1.0, 2.0])
      ...     sess.run(w.initializer)
      ...     _ = tw.train.Saver().save(sess, os.path.join(d, "model.ckpt"))
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     with tw.variable_scope("new"):
      ...         w = tw.get_variable("w", shape=[2])
      ...     tw.train.init_from_checkpoint(d, {"old/": "new/"})
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(w))
      [1. 2.]
    """
    ckpt_file = _checkpoint_file(ckpt_dir_or_file)
    reader = CheckpointReader(ckpt_file)
    variable_map = reader.get_variable_to_shape_map()
    store_vars = _store_variables()
    for tensor_name_in_ckpt, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        if isinstance(current, variables.Variable) or (
            isinstance(current, (list, tuple)) and all(isinstance(v, variables.Variable) for v in current)
        ):
            var = current
        else:
            var = store_vars.get(current)
        if var is not None and not isinstance(var, variables.Variable):
            var = list(var)  # a partitioned variable: its parts
        if var is not None:
            if tensor_name_in_ckpt not in variable_map:
                raise ValueError(
                    f"Tensor {tensor_name_in_ckpt} is not found in {ckpt_dir_or_file} checkpoint {variable_map}"
                )
            _check_shape(var, tensor_name_in_ckpt, variable_map)
            _set_variable_or_list_initializer(var, reader.prefix_of(tensor_name_in_ckpt), tensor_name_in_ckpt)
            continue
        scopes = ""
        if "/" in current:
            scopes = current[: current.rindex("/")]
        if not tensor_name_in_ckpt.endswith("/"):
            raise ValueError(
                f"Assignment map with scope only name {scopes} should map to scope only {tensor_name_in_ckpt}. "
                "Should be 'scope/': 'other_scope/'."
            )
        scope_variables = sorted(name for name in store_vars if not scopes or name.startswith(scopes + "/"))
        for var_name in scope_variables:
            full_tensor_name = var_name[len(scopes) :]
            if current != "/":
                full_tensor_name = full_tensor_name[1:]
            if tensor_name_in_ckpt != "/":
                full_tensor_name = tensor_name_in_ckpt + full_tensor_name
            if full_tensor_name.endswith("/"):
                full_tensor_name = full_tensor_name[:-1]
            if full_tensor_name not in variable_map:
                raise ValueError(
                    f"Tensor {full_tensor_name} ({var_name[len(scopes) + 1 :]} in {tensor_name_in_ckpt}) is not "
                    f"found in {ckpt_dir_or_file} checkpoint"
                )
            var = store_vars[var_name]
            if not isinstance(var, variables.Variable):
                var = list(var)
            _check_shape(var, full_tensor_name, variable_map)
            _set_variable_or_list_initializer(var, reader.prefix_of(full_tensor_name), full_tensor_name)


def warm_start(
    ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None, var_name_to_prev_var_name=None
):
    """Initializes variables from a checkpoint (TF1's `tf.train.warm_start`): the trainable variables whose
    names match the regex `vars_to_warm_start` (or the global variables under each name of a list of strings,
    or a list of Variables), each from the checkpoint tensor of the same name, or of the name
    `var_name_to_prev_var_name` gives. Vocabulary remapping (`var_name_to_vocab_info`) is not supported.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> d = tempfile.mkdtemp()
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([3.0], name="w")
      ...     sess.run(w.initializer)
      ...     _ = tw.train.Saver().save(sess, os.path.join(d, "model.ckpt"))
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([0.0], name="w")
      ...     tw.train.warm_start(d)
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(w))
      [3.]
    """
    if var_name_to_vocab_info:
        raise NotImplementedError("warm_start with var_name_to_vocab_info (vocabulary remapping) is not supported")
    var_name_to_prev_var_name = dict(var_name_to_prev_var_name or {})
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        list_of_vars = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            list_of_vars = []
            for v in vars_to_warm_start:
                list_of_vars += ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=v)
        elif all(isinstance(v, variables.Variable) for v in vars_to_warm_start):
            list_of_vars = vars_to_warm_start
        else:
            raise ValueError(
                "If `vars_to_warm_start` is a list, it must be all `Variable` or all `str`.  Given types are "
                f"{[type(v) for v in vars_to_warm_start]}"
            )
    else:
        raise ValueError(f"`vars_to_warm_start must be a `list` or `str`.  Given type is {type(vars_to_warm_start)}")
    ckpt_file = _checkpoint_file(ckpt_to_initialize_from)
    # The parts of a partitioned variable are warm-started together, by the whole's name (TF's grouping).
    grouped, seen = {}, set()
    for var in list_of_vars:
        if id(var) in seen:
            continue
        seen.add(id(var))
        info = getattr(var, "_save_slice_info", None)
        grouped.setdefault(info.full_name if info is not None else var.op.name, []).append(var)
    used = set()
    for name, group in grouped.items():
        prev = var_name_to_prev_var_name.get(name, name)
        if name in var_name_to_prev_var_name:
            used.add(name)
        sliced = getattr(group[0], "_save_slice_info", None) is not None
        init_from_checkpoint(ckpt_file, {prev: group if sliced else group[0]})
    unused = set(var_name_to_prev_var_name) - used
    if unused:
        raise ValueError(
            f"You provided the following variables in var_name_to_prev_var_name that were not used: {sorted(unused)}. "
            "Perhaps you misspelled them?  Here is the list of viable variable names: "
            f"{sorted(v.op.name for v in list_of_vars)}"
        )
