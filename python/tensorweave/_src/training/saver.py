"""Checkpoints: `Saver` (TensorFlow v1's tf.train.Saver) and the "checkpoint"
state file that names the latest ones.

A checkpoint with prefix P is P.safetensors (the tensors, in the
safetensors layout) and P.manifest.json (dtypes, shapes and CRC32C
checksums); see core/util/checkpoint_format.h. Saving and restoring are ops
in the graph (SaveV2, RestoreV2), run with the prefix fed.

A sharded checkpoint (`Saver(sharded=True)`) is one such file pair per device
holding variables (on a cluster, per parameter-server task: each shard is
written by a SaveV2 on the variables' device), named
P.shard-<save id>-<i>-of-<n>, and P.shards.json, written last and atomically,
which commits them: it names each shard, its tensors and the SHA-256 of its
manifest. Shards no commit names (an interrupted save) are ignored; a named
shard that is missing or altered is an error.
"""

import hashlib
import itertools
import json
import logging
import numbers
import os
import re
import stat
import time
import uuid

from tensorweave._src import compat
from tensorweave._src.framework import dtypes
from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import io_ops
from tensorweave._src.ops import state_ops
from tensorweave._src.ops import variables
from tensorweave._src.training import training_util
from tensorweave._src.training import tf_checkpoint

DATA_SUFFIX = ".safetensors"
MANIFEST_SUFFIX = ".manifest.json"
SHARDS_SUFFIX = ".shards.json"
SHARDS_FORMAT = "tensorweave-sharded-checkpoint"
META_SUFFIX = ".meta"
STATE_FILENAME = "checkpoint"

_logger = logging.getLogger("tensorweave")


class _NotACheckpointError(errors.NotFoundError, ValueError):
    """No checkpoint at a restore's save_path: TF1's NotFoundError, also the ValueError TF 2.x's
    `tf.compat.v1.train.Saver.restore` raises."""


# --- the checkpoint state file -------------------------------------------------
class CheckpointState:
    """The contents of a "checkpoint" state file."""

    def __init__(self, model_checkpoint_path, all_model_checkpoint_paths=None):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths or [])

    def __repr__(self):
        return (
            f"CheckpointState(model_checkpoint_path={self.model_checkpoint_path!r}, "
            f"all_model_checkpoint_paths={self.all_model_checkpoint_paths!r})"
        )


# Escapes of TensorFlow's text format (what its "checkpoint" files hold):
# a prefix with a newline, tab or quote round-trips like it does in TF.
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", '"': '\\"', "'": "\\'", "\\": "\\\\"}
_UNESCAPES = {"n": b"\n", "r": b"\r", "t": b"\t", '"': b'"', "'": b"'", "\\": b"\\"}


def _quote(path):
    out = []
    for ch in path:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):03o}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _unquote(text):
    """The string of a quoted text-format value ("a\\nb" -> a, newline, b)."""
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        raise ValueError(f"expected a quoted string, got {text!r}")
    body, out, i = text[1:-1], bytearray(), 0
    while i < len(body):
        ch = body[i]
        if ch == '"':
            raise ValueError(f"unescaped quote in {text!r}")
        if ch != "\\":
            out += ch.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _UNESCAPES:
            out += _UNESCAPES[nxt]
            i += 2
        elif nxt.isdigit() and nxt < "8":
            digits = re.match(r"[0-7]{1,3}", body[i + 1 :]).group()
            out.append(int(digits, 8) & 0xFF)
            i += 1 + len(digits)
        elif nxt == "x" and re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :]):
            digits = re.match(r"[0-9a-fA-F]{1,2}", body[i + 2 :]).group()
            out.append(int(digits, 16))
            i += 2 + len(digits)
        else:
            raise ValueError(f"bad escape \\{nxt} in {text!r}")
    value = out.decode("utf-8", "surrogateescape")
    if "\0" in value:
        raise ValueError(f"a path cannot contain a NUL character: {text!r}")
    return value


def _check_prefix(prefix):
    """Refuses a checkpoint prefix no file can have (TensorFlow cuts it at
    the NUL and saves under another name)."""
    if not prefix:
        raise ValueError("The checkpoint prefix is empty")
    if "\0" in prefix:
        raise ValueError(f"Checkpoint prefix {prefix!r} contains a NUL character; no file can have that name")


def _write_atomically(path, text):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None, latest_filename=None):
    """Writes the state file of `save_dir` (TensorFlow's text format):
    model_checkpoint_path: "..." then one all_model_checkpoint_paths line each."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths = [p for p in paths if p != model_checkpoint_path] + [model_checkpoint_path]
    lines = [f"model_checkpoint_path: {_quote(model_checkpoint_path)}"]
    lines += [f"all_model_checkpoint_paths: {_quote(p)}" for p in paths]
    _write_atomically(os.path.join(save_dir, latest_filename or STATE_FILENAME), "\n".join(lines) + "\n")


def _read_state_file(path):
    """The text of a state file, or None (with a warning) when it cannot be
    read: not a regular file (a FIFO would block the reader), unreadable,
    or not UTF-8."""
    try:
        # O_NONBLOCK: opening a FIFO does not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        _logger.warning("%s: cannot open the checkpoint state file (%s); ignored", path, e.strerror)
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            _logger.warning("%s: the checkpoint state file is not a regular file; ignored", path)
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read()
    except OSError as e:
        _logger.warning("%s: cannot read the checkpoint state file (%s); ignored", path, e.strerror)
        return None
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8", "surrogateescape")
    except UnicodeDecodeError:  # pragma: no cover - surrogateescape decodes all bytes
        return None


def _parse_state(path, text):
    """(model_checkpoint_path, [all_model_checkpoint_paths]) from the text
    of a state file; ValueError naming the line when it is malformed."""
    model_path, all_paths = None, []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(":")
        try:
            value = _unquote(value.strip())
        except ValueError as e:
            raise ValueError(f"{path}:{number}: {e}") from None
        key = key.strip()
        if key == "model_checkpoint_path":
            model_path = value
        elif key == "all_model_checkpoint_paths":
            all_paths.append(value)
        else:
            raise ValueError(f"{path}:{number}: unknown field {key!r}")
    if model_path is None:
        raise ValueError(f"{path}: no model_checkpoint_path")
    return model_path, all_paths


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of `checkpoint_dir`, or None without a state file.
    Relative paths in the file are taken relative to the directory.

    As in TensorFlow, a state file that cannot be read or parsed (corrupt,
    not UTF-8, not a regular file) is ignored with a warning naming it and
    the problem, and None is returned: one bad file never makes the whole
    directory unusable."""
    path = os.path.join(checkpoint_dir, latest_filename or STATE_FILENAME)
    if not os.path.lexists(path):
        return None
    text = _read_state_file(path)
    if text is None:
        return None
    try:
        model_path, all_paths = _parse_state(path, text)
    except ValueError as e:
        _logger.warning("%s; checkpoint state file ignored", e)
        return None

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)

    return CheckpointState(absolute(model_path), [absolute(p) for p in all_paths])


def checkpoint_exists(checkpoint_prefix):
    """Whether a complete checkpoint with this prefix exists (its manifest,
    written last, is there; for a sharded one, its commit file; for one that
    TensorFlow wrote, its index)."""
    return (
        os.path.exists(checkpoint_prefix + MANIFEST_SUFFIX)
        or os.path.exists(checkpoint_prefix + SHARDS_SUFFIX)
        or tf_checkpoint.is_tf_checkpoint(checkpoint_prefix)
    )


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in `checkpoint_dir` (from its
    "checkpoint" state file), or None.

    Example:
      >>> import tempfile
      >>> import tensorweave as tw
      >>> print(tw.train.latest_checkpoint(tempfile.mkdtemp()))
      None
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and checkpoint_exists(state.model_checkpoint_path):
        return state.model_checkpoint_path
    return None


def _delete_checkpoint(prefix):
    # The manifest first: a checkpoint without it no longer exists.
    shards = _shard_prefixes(prefix)
    for suffix in (SHARDS_SUFFIX, MANIFEST_SUFFIX, DATA_SUFFIX, META_SUFFIX):
        try:
            os.remove(prefix + suffix)
        except FileNotFoundError:
            pass
    for shard in shards:
        _delete_files(shard)


def _delete_files(prefix):
    for suffix in (MANIFEST_SUFFIX, DATA_SUFFIX):
        try:
            os.remove(prefix + suffix)
        except FileNotFoundError:
            pass


# --- sharded checkpoints -------------------------------------------------------
def _sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _read_shards(prefix):
    """The commit of sharded checkpoint `prefix`: [(shard prefix, tensor names)], each shard checked to be there
    and unaltered (its manifest's SHA-256). NotFoundError for a missing shard, DataLossError for an altered one or
    an unreadable commit."""
    path = prefix + SHARDS_SUFFIX
    try:
        with open(path, encoding="utf-8") as f:
            commit = json.load(f)
        if commit.get("format") != SHARDS_FORMAT or not isinstance(commit.get("shards"), list):
            raise ValueError("not a sharded checkpoint commit")
        shards = [(s["prefix"], list(s["tensors"]), s["manifest_sha256"]) for s in commit["shards"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise errors.DataLossError(None, None, f"Sharded checkpoint {prefix}: unreadable {path}: {e}") from None
    out = []
    directory = os.path.dirname(prefix)
    for name, tensors, digest in shards:
        if os.path.basename(name) != name:
            raise errors.DataLossError(None, None, f"Sharded checkpoint {prefix}: bad shard name {name!r}")
        shard = os.path.join(directory, name)
        manifest = shard + MANIFEST_SUFFIX
        if not (os.path.exists(manifest) and os.path.exists(shard + DATA_SUFFIX)):
            raise errors.NotFoundError(None, None, f"Sharded checkpoint {prefix}: shard {shard} is missing")
        if _sha256_of(manifest) != digest:
            raise errors.DataLossError(
                None, None, f"Sharded checkpoint {prefix}: shard {shard} is not the one its commit names (altered)"
            )
        out.append((shard, tensors))
    return out


def _shard_prefixes(prefix):
    """The shard prefixes the commit of `prefix` names (none when it has no readable commit)."""
    try:
        with open(prefix + SHARDS_SUFFIX, encoding="utf-8") as f:
            commit = json.load(f)
        directory = os.path.dirname(prefix)
        return [os.path.join(directory, os.path.basename(s["prefix"])) for s in commit["shards"]]
    except (OSError, ValueError, KeyError, TypeError):
        return []


# --- Saver ---------------------------------------------------------------------
class SaveSpec:
    """One tensor a SaveableObject saves: `tensor` under checkpoint name `name` (slice_spec "": all of it)."""

    def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
        self.tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        self.dtype = dtype or tensor.dtype
        self.device = device if device is not None else tensor.device


class SaveableObject:
    """What a Saver saves besides variables (TF's BaseSaverBuilder.SaveableObject): the tensors of `specs`,
    put back by `restore(restored_tensors, restored_shapes)`, which returns an op. Objects in the
    SAVEABLE_OBJECTS collection are saved by a Saver built without a var_list."""

    def __init__(self, op, specs, name):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self):
        return self.specs[0].device

    def restore(self, restored_tensors, restored_shapes):
        raise NotImplementedError


class _SpecEntry:
    """One spec of a SaveableObject, as the Saver handles a variable (dtype, shape, device, _ref)."""

    def __init__(self, saveable, index):
        self.saveable, self.index = saveable, index
        spec = saveable.specs[index]
        self.dtype, self.device, self._tensor = spec.dtype, spec.device, spec.tensor
        self.shape = spec.tensor.shape
        self.name = spec.name

    def _ref(self):
        return self._tensor


def _restore_ops(items, restored):
    """The ops that put restored tensors back: an assign per variable, a restore per SaveableObject."""
    out, saveables = [], {}
    for (_, v), value in zip(items, restored):
        if isinstance(v, _SpecEntry):
            saveables.setdefault(id(v.saveable), (v.saveable, {}))[1][v.index] = value
        else:
            out.append(state_ops.assign(v._ref(), value, validate_shape=v.shape.is_fully_defined()).op)
    for saveable, values in saveables.values():
        tensors = [values[i] for i in range(len(saveable.specs))]
        restore = saveable.restore(tensors, [None] * len(tensors))
        out.append(restore if isinstance(restore, ops.Operation) else restore.op)
    return out


def _restore_shape(v):
    """The shape RestoreV2 checks a tensor against (None: any; a table's size is not known in advance)."""
    if isinstance(v, _SpecEntry) or v.shape.ndims is None:
        return None
    return v.shape.as_list()


class _Slice:
    """A part of a partitioned variable as the Saver handles it: saved as slice `slice_spec` (TF's
    shape_and_slice string) of checkpoint tensor `name`, as TF saves partitioned variables."""

    def __init__(self, variable, slice_spec):
        self.variable, self.slice_spec = variable, slice_spec
        self.dtype, self.device, self.shape, self.name = variable.dtype, variable.device, variable.shape, variable.name

    def _ref(self):
        return self.variable._ref()


def _slices_of(name, parts):
    """[(name, _Slice)] of the parts of one partitioned variable (a PartitionedVariable or a list of its parts)."""
    out, full_name = [], None
    for part in parts:
        info = getattr(part, "_save_slice_info", None)
        if not isinstance(part, variables.Variable) or info is None:
            raise ValueError(f"Slices must all be slices: {part!r}")
        if full_name is not None and info.full_name != full_name:
            raise ValueError(f"Slices must all be from the same tensor: {full_name} != {info.full_name}")
        full_name = info.full_name
        out.append((name or full_name, _Slice(part, info.spec)))
    return out


def _entry_key(name, entry):
    """What names one saved tensor: its name, and for a slice also its spec."""
    return f"{name}:{entry.slice_spec}" if isinstance(entry, _Slice) else name


def _slice_spec(entry):
    return entry.slice_spec if isinstance(entry, _Slice) else ""


def _saveables(var_list):
    """[(name in the checkpoint, Variable, _Slice or _SpecEntry)] sorted by name; a SaveableObject (or a table)
    gives one entry per spec, named by the spec; a partitioned variable one _Slice per part, named by the whole
    (TF's saving of partitioned variables: a part in a list is saved as its slice of the whole; in a dict, a list
    of parts or a PartitionedVariable is, a single part is saved whole under its key)."""
    from tensorweave._src.ops.partitioned_variables import PartitionedVariable

    if var_list is None:
        var_list = variables.global_variables() + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS)
    if not var_list:  # (an empty list too, as TF)
        raise ValueError("No variables to save")
    if isinstance(var_list, dict):
        items = list(var_list.items())
    else:
        items = []
        for v in var_list:
            if isinstance(v, (list, tuple)):
                raise TypeError("var_list entries must be Variables")
            if isinstance(v, variables.Variable) and getattr(v, "_save_slice_info", None) is not None:
                items.append((v._save_slice_info.full_name, [v]))
            else:
                items.append((v.op.name if isinstance(v, variables.Variable) else None, v))
    seen, keys = {}, set()  # {name: saved in slices}, the names and slices saved
    saved = {}  # id of a whole Variable: its name (TF's error for one variable under two names)
    out = []
    for name, v in items:
        if isinstance(v, variables.Variable) and getattr(v, "_save_slice_info", None) is None:
            if saved.setdefault(id(v), name) != name:
                raise ValueError(f"The same saveable will be restored with two names: {saved[id(v)]} and {name}")
        saveable = v if isinstance(v, SaveableObject) else None
        if hasattr(v, "_saveable_named"):  # a table: named by its dict key; in a list, "" (as TF's)
            saveable = v._saveable_named(name or "")
        if saveable is not None:
            entries = [(spec.name, _SpecEntry(saveable, i)) for i, spec in enumerate(saveable.specs)]
        elif isinstance(v, (PartitionedVariable, list, tuple)):
            entries = _slices_of(name, v)
        elif isinstance(v, variables.Variable):
            entries = [(name, v)]
        else:
            raise TypeError(f"Variable to save is not a Variable: {v}")  # TF's wording
        for entry_name, entry in entries:
            if not isinstance(entry_name, str) or not entry_name:
                raise ValueError(f"Bad checkpoint name {entry_name!r} for {entry.name}")
            # A name is saved once, or in slices (which the core checks do not overlap).
            sliced, key = isinstance(entry, _Slice), _entry_key(entry_name, entry)
            if seen.setdefault(entry_name, sliced) != sliced or key in keys:
                raise ValueError(f"At least two variables have the same name: {entry_name}")
            keys.add(key)
            out.append((entry_name, entry))
    return sorted(out, key=lambda item: item[0])


class Saver:
    """Saves and restores variables as checkpoints.

    Args:
      var_list: the variables to save: a list (named by their op names) or a
        {name: Variable} dict (to save under other names, or to restore a
        subset). Default: every global variable (including optimizer slots and
        the global step).
      max_to_keep: how many recent checkpoints to keep; older ones are deleted
        as new ones are saved (None or 0: keep all).
      keep_checkpoint_every_n_hours: additionally keep one checkpoint per this
        many hours.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> ckpt_dir = tempfile.mkdtemp()
      >>> with tw.Graph().as_default():
      ...     w = tw.Variable([1.0, 2.0], name="w")
      ...     saver = tw.train.Saver()
      ...     with tw.Session() as sess:
      ...         sess.run(tw.global_variables_initializer())
      ...         path = saver.save(sess, os.path.join(ckpt_dir, "model.ckpt"), global_step=7)
      ...     with tw.Session() as sess:
      ...         saver.restore(sess, tw.train.latest_checkpoint(ckpt_dir))
      ...         print(os.path.basename(path), sess.run(w))
      model.ckpt-7 [1. 2.]
    """

    def __init__(
        self,
        var_list=None,
        reshape=False,
        sharded=False,
        max_to_keep=5,
        keep_checkpoint_every_n_hours=10000.0,
        name=None,
        restore_sequentially=False,
        saver_def=None,
        builder=None,
        defer_build=False,
        allow_empty=False,
        write_version=2,
        pad_step_number=False,
        save_relative_paths=False,
        filename=None,
    ):
        if reshape:
            raise NotImplementedError("Saver(reshape=True) is not supported")
        if builder is not None:
            raise NotImplementedError("Saver(builder=...) is not supported")
        self._max_to_keep = max_to_keep
        self._keep_every_n_hours = keep_checkpoint_every_n_hours
        self._next_keep_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._last_checkpoints = []  # [(prefix, time saved)]
        self._graph = ops.get_default_graph()
        self._name = name or "save"
        self._sharded = bool(sharded)
        self._shards = []  # sharded: [(device, [names], filename tensor)]
        if saver_def is not None:
            # The ops of a saver that exists in the graph (an imported meta graph's).
            self._saveables = []
            self._from_saver_def(saver_def)
            return
        try:
            self._saveables = _saveables(var_list)
        except ValueError:
            if not allow_empty:
                raise
            self._saveables = []
        self._build()

    def _from_saver_def(self, saver_def):
        graph = self._graph
        try:
            self._filename_tensor = graph.as_graph_element(saver_def.filename_tensor_name)
            self._save_op = graph.as_graph_element(saver_def.save_tensor_name)
            self._restore_op = graph.as_graph_element(saver_def.restore_op_name)
        except (KeyError, ValueError) as e:
            raise ValueError(f"The saver_def names ops that are not in the graph: {e}") from None
        if saver_def.sharded:
            self._shards_from_graph()
        if saver_def.max_to_keep or not self._max_to_keep:
            self._max_to_keep = saver_def.max_to_keep
        if saver_def.keep_checkpoint_every_n_hours:
            self._keep_every_n_hours = saver_def.keep_checkpoint_every_n_hours
            self._next_keep_time = time.time() + self._keep_every_n_hours * 3600

    def _shards_from_graph(self):
        """The shards of an imported sharded saver, from its per-shard constants (`_build_sharded`'s names). A
        sharded saver TensorFlow wrote has none: its graph shards and merges by itself from the filename."""
        graph, scope = self._graph, self._filename_tensor.op.name.rpartition("/")[0]
        for i in itertools.count():
            try:
                filename = graph.as_graph_element(f"{scope}/shard_{i}_filename:0")
                names = graph.get_operation_by_name(f"{scope}/shard_{i}_tensor_names").get_attr("value")
                slices = graph.get_operation_by_name(f"{scope}/shard_{i}_slices").get_attr("value")
            except (KeyError, ValueError):
                return
            keys = [
                compat.as_text(n) + (f":{compat.as_text(c)}" if c else "")
                for n, c in zip(names.ravel(), slices.ravel())
            ]
            self._shards.append((filename.device, keys, filename))
            self._sharded = True

    def _build(self):
        if not self._saveables:
            self._filename_tensor = self._save_op = self._restore_op = None
            return
        if self._sharded:
            self._build_sharded()
            return
        graph = self._graph
        names = [n for n, _ in self._saveables]
        refs = [v._ref() for _, v in self._saveables]
        with graph.name_scope(self._name):
            self._filename_tensor = constant_op.constant(self._filename or "model", dtype=dtypes.string)
            names_t = constant_op.constant(names, dtype=dtypes.string, name="tensor_names")
            slices = [_slice_spec(v) for _, v in self._saveables]
            slices_t = constant_op.constant(slices, dtype=dtypes.string, name="shape_and_slices")
            self._save_op = io_ops.save_v2(self._filename_tensor, names_t, slices_t, refs, name="SaveV2")
            shapes = [_restore_shape(v) for _, v in self._saveables]
            # As TF's BulkSaverBuilder: the tensors are loaded on CPU 0 (under the scopes around the Saver).
            with graph.device("cpu:0"):
                restored = io_ops.restore_v2(
                    self._filename_tensor,
                    names_t,
                    slices_t,
                    [v.dtype for _, v in self._saveables],
                    shapes=shapes,
                    name="RestoreV2",
                )
            # RestoreV2 verifies every tensor (checksums, dtypes, shapes)
            # before producing any, so either all variables are assigned or
            # none is.
            assigns = _restore_ops(self._saveables, restored)
            # One NoOp per device of the assigns (TF's group), the returned one after them.
            self._restore_op = ops.group(*assigns, name="restore_all")

    def _build_sharded(self):
        # One SaveV2 and one RestoreV2 per device holding variables, on that device (TF's sharded saver: on a
        # cluster, each parameter server writes and reads its own variables), each with its own filename.
        graph = self._graph
        by_device = {}
        for name, v in self._saveables:
            by_device.setdefault(v.device or "", []).append((name, v))
        saves, assigns = [], []
        with graph.name_scope(self._name):
            self._filename_tensor = constant_op.constant(self._filename or "model", dtype=dtypes.string)
            for i, device in enumerate(sorted(by_device)):
                items = by_device[device]
                names = [n for n, _ in items]
                refs = [v._ref() for _, v in items]
                with graph.device(device):
                    filename = constant_op.constant("model", dtype=dtypes.string, name=f"shard_{i}_filename")
                    names_t = constant_op.constant(names, dtype=dtypes.string, name=f"shard_{i}_tensor_names")
                    slices = [_slice_spec(v) for _, v in items]
                    slices_t = constant_op.constant(slices, dtype=dtypes.string, name=f"shard_{i}_slices")
                    saves.append(io_ops.save_v2(filename, names_t, slices_t, refs, name=f"SaveV2_{i}"))
                    restored = io_ops.restore_v2(
                        filename,
                        names_t,
                        slices_t,
                        [v.dtype for _, v in items],
                        shapes=[_restore_shape(v) for _, v in items],
                        name=f"RestoreV2_{i}",
                    )
                    assigns.extend(_restore_ops(items, restored))
                self._shards.append((device, [_entry_key(n, v) for n, v in items], filename))
            self._save_op = ops.group(*saves, name="save_all_shards")
            self._restore_op = ops.group(*assigns, name="restore_all")

    def _save_sharded(self, sess, prefix):
        """Writes a shard per device, then commits them with prefix.shards.json (atomically); the shards of an
        earlier checkpoint of the same prefix are deleted once the new one is committed."""
        save_id = uuid.uuid4().hex[:12]
        n = len(self._shards)
        paths = [f"{prefix}.shard-{save_id}-{i:05d}-of-{n:05d}" for i in range(n)]
        sess.run(self._save_op, {filename: path for (_, _, filename), path in zip(self._shards, paths)})
        commit = {
            "format": SHARDS_FORMAT,
            "version": 1,
            "shards": [
                {
                    "prefix": os.path.basename(path),
                    "device": device,
                    "tensors": names,
                    "manifest_sha256": _sha256_of(path + MANIFEST_SUFFIX),
                }
                for (device, names, _), path in zip(self._shards, paths)
            ],
        }
        old = _shard_prefixes(prefix)
        _write_atomically(prefix + SHARDS_SUFFIX, json.dumps(commit, indent=1, sort_keys=True))
        _delete_files(prefix)  # an unsharded checkpoint of the same prefix is replaced too
        for shard in old:
            if shard not in paths:
                _delete_files(shard)

    def _restore_feeds(self, save_path):
        """The feeds that point each restore shard at the file holding its tensors."""
        if os.path.exists(save_path + SHARDS_SUFFIX):
            shards = _read_shards(save_path)
        else:  # an unsharded checkpoint holds every tensor
            shards = [(save_path, None)]
        groups = self._shards or [(None, [_entry_key(n, v) for n, v in self._saveables], self._filename_tensor)]
        feeds = {}
        for _, names, filename in groups:
            holder = [path for path, tensors in shards if tensors is None or set(names) <= set(tensors)]
            if not holder:
                missing = sorted(set(names) - {t for _, tensors in shards for t in tensors})
                if missing:
                    raise errors.NotFoundError(
                        None, None, f"Key {missing[0]} not found in checkpoint {save_path} (in none of its shards)"
                    )
                raise errors.InvalidArgumentError(
                    None,
                    None,
                    f"The variables {names} are read by one restore op but lie in several shards of {save_path}; "
                    "restore it with a Saver(sharded=True) that places them as the one that saved it",
                )
            feeds[filename] = holder[0]
        return feeds

    # --- properties ----------------------------------------------------------
    @property
    def last_checkpoints(self):
        """The prefixes of the checkpoints kept, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Replaces the list of kept checkpoints: [(prefix, timestamp)]."""
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Takes over `checkpoint_paths` (those that exist) as kept checkpoints,
        e.g. from get_checkpoint_state(...).all_model_checkpoint_paths."""
        now = time.time()
        self._last_checkpoints = [(p, now) for p in checkpoint_paths if checkpoint_exists(p)]

    # --- save / restore ---------------------------------------------------------
    def save(
        self,
        sess,
        save_path,
        global_step=None,
        latest_filename=None,
        meta_graph_suffix="meta",
        write_meta_graph=True,
        write_state=True,
        strip_default_attrs=False,
        save_debug_info=False,
    ):
        """Saves the variables as checkpoint `save_path` (with "-<step>"
        appended when `global_step` is given: an int, a Tensor or Variable).

        Updates the "checkpoint" state file of the directory and deletes
        checkpoints beyond max_to_keep (neither with write_state=False). Unless
        write_meta_graph=False the MetaGraphDef (graph, saver definition,
        collections) is written beside it as <prefix>.meta, which
        `tw.train.import_meta_graph` reads back. Returns the prefix.
        """
        if self._save_op is None:
            return None
        if latest_filename and os.path.basename(latest_filename) != latest_filename:
            raise ValueError("'latest_filename' collides with 'save_path': it must be a plain file name")
        if global_step is not None:
            if isinstance(global_step, numbers.Integral):
                global_step = int(global_step)  # Python and numpy integers (a fetched step)
            else:
                global_step = training_util.global_step(sess, global_step)
            step = f"{global_step:08d}" if self._pad_step_number else str(global_step)
            checkpoint_file = f"{save_path}-{step}"
        else:
            checkpoint_file = save_path
        _check_prefix(checkpoint_file)
        save_dir = os.path.dirname(checkpoint_file)
        if not hasattr(sess, "run"):
            raise TypeError("'sess' must be a Session")
        if self._sharded:
            if save_dir and not os.path.isdir(save_dir):
                # TF's sharded save fails merging its shards there (a plain save makes the directory)
                raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.")
            self._save_sharded(sess, checkpoint_file)
        else:
            try:
                sess.run(self._save_op, {self._filename_tensor: checkpoint_file})
            except (errors.FailedPreconditionError, errors.NotFoundError) as e:
                # As TF's: a failed save whose parent directory does not exist (or is a file) is a ValueError.
                if save_dir and not os.path.isdir(save_dir):
                    raise ValueError(f"Parent directory of {save_path} doesn't exist, can't save.") from e
                raise
        if write_meta_graph:
            self.export_meta_graph(checkpoint_file + "." + meta_graph_suffix, strip_default_attrs=strip_default_attrs)
        if write_state:  # as TF's: write_state=False neither records the checkpoint nor deletes old ones
            self._record(checkpoint_file)
            relative = self._save_relative_paths

            def state_path(p):
                # A path relative to the working directory would be read
                # back relative to the state file's directory: store it
                # relative to that directory, or absolute.
                return os.path.relpath(p, save_dir or ".") if relative else os.path.abspath(p)

            update_checkpoint_state(
                save_dir or ".",
                state_path(checkpoint_file),
                [state_path(p) for p in self.last_checkpoints],
                latest_filename,
            )
        return checkpoint_file

    def _record(self, prefix):
        if not self._max_to_keep:  # as TF's: max_to_keep None or 0 keeps every file and records none
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        while len(self._last_checkpoints) > self._max_to_keep:
            oldest, saved_at = self._last_checkpoints.pop(0)
            if saved_at > self._next_keep_time:
                # Kept for keep_checkpoint_every_n_hours; forgotten here.
                self._next_keep_time += self._keep_every_n_hours * 3600
                continue
            _delete_checkpoint(oldest)

    def restore(self, sess, save_path):
        """Restores the variables from checkpoint `save_path`.

        Raises ValueError (TF 2.x; also a NotFoundError, as TF1) when there is no such checkpoint, NotFoundError
        when a variable is missing from it, DataLossError when its files are truncated or
        corrupted, InvalidArgumentError when a tensor's dtype or shape differs
        from its variable's. Nothing is assigned unless everything checks out.
        """
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if self._restore_op is None:
            return
        if not checkpoint_exists(save_path):
            raise _NotACheckpointError(None, None, f"The passed save_path is not a valid checkpoint: {save_path}")
        if self._sharded or os.path.exists(save_path + SHARDS_SUFFIX):
            sess.run(self._restore_op, self._restore_feeds(save_path))
        else:
            sess.run(self._restore_op, {self._filename_tensor: save_path})

    def as_saver_def(self):
        """The SaverDef of this saver: the names of its filename tensor, save op and restore op, and its
        policy of keeping checkpoints (what a meta graph stores to rebuild the saver)."""
        from tensorweave._src.framework import meta_graph_pb2

        saver_def = meta_graph_pb2.SaverDef()
        if self._save_op is not None:
            saver_def.filename_tensor_name = self._filename_tensor.name
            saver_def.save_tensor_name = self._save_op.name
            saver_def.restore_op_name = self._restore_op.name
        saver_def.sharded = self._sharded
        saver_def.max_to_keep = self._max_to_keep or 0
        saver_def.keep_checkpoint_every_n_hours = self._keep_every_n_hours
        saver_def.version = meta_graph_pb2.SaverDef.V2
        return saver_def

    @property
    def saver_def(self):
        return self.as_saver_def()

    def export_meta_graph(
        self,
        filename=None,
        collection_list=None,
        as_text=False,
        export_scope=None,
        clear_devices=False,
        clear_extraneous_savers=False,
        strip_default_attrs=False,
        save_debug_info=False,
    ):
        """Writes (and returns) the MetaGraphDef of this saver's graph with this saver's SaverDef."""
        from tensorweave._src.training import meta_graph

        return meta_graph.export_meta_graph(
            filename=filename,
            graph=self._graph,
            saver_def=self.as_saver_def() if self._save_op is not None else None,
            collection_list=collection_list,
            as_text=as_text,
            export_scope=export_scope,
            clear_devices=clear_devices,
            strip_default_attrs=strip_default_attrs,
        )
