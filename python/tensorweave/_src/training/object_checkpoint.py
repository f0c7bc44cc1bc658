"""TF1's object-based checkpoints in a graph: `tf.train.Checkpoint`, `CheckpointManager` and
`CheckpointOptions`.

A Checkpoint names each variable by the path of attributes that leads to it from the checkpoint's keyword
arguments, as TF's object graph does ("model/kernel/.ATTRIBUTES/VARIABLE_VALUE"; an optimizer's slot of a
variable is "<variable's path>/.OPTIMIZER_SLOT/<optimizer's path>/<slot>"), and writes them with a Saver under
those names: restoring matches by path, so a model rebuilt with other variable names restores. The files are
tensorweave's checkpoints (safetensors + manifest), not TensorFlow's."""

import os

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import state_ops
from tensorweave._src.ops import variables as variables_lib
from tensorweave._src.ops.partitioned_variables import PartitionedVariable
from tensorweave._src.training import checkpoint_utils
from tensorweave._src.training import saver as saver_lib
from tensorweave._src.training.optimizer import Optimizer

_VALUE = ".ATTRIBUTES/VARIABLE_VALUE"
_SAVE_COUNTER = "save_counter/" + _VALUE


def _layer_class():
    from tensorweave._src.layers.base import Layer

    return Layer


def _is_trackable(value):
    return isinstance(
        value, (variables_lib.Variable, PartitionedVariable, Optimizer, Checkpoint, list, tuple, dict)
    ) or isinstance(value, _layer_class())


def _children(obj):
    """(name, value) of the trackable things an object holds, sorted by name."""
    if isinstance(obj, Checkpoint):
        return sorted(obj._dependencies.items())
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        return sorted((str(k), v) for k, v in obj.items())
    return sorted((k, v) for k, v in vars(obj).items() if not k.startswith("_") and _is_trackable(v))


def _named_variables(dependencies):
    """{checkpoint key: Variable} of everything reachable from `dependencies`: breadth first, so that an
    object reachable along several paths is named by its shortest one (as TF's object graph)."""
    out = {}
    by_variable = {}  # id(variable) -> (its path, the variable), for the optimizers' slots
    optimizers = []
    seen = set()
    level = sorted(dependencies.items())
    while level:
        next_level = []
        for path, obj in level:
            if isinstance(obj, variables_lib.Variable):
                if id(obj) not in by_variable:
                    by_variable[id(obj)] = (path, obj)
                    out[f"{path}/{_VALUE}"] = obj
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, PartitionedVariable):
                next_level.extend((f"{path}/part_{i}", part) for i, part in enumerate(obj))
            elif isinstance(obj, Optimizer):
                optimizers.append((obj, path))
            else:
                next_level.extend((f"{path}/{name}", child) for name, child in _children(obj))
        level = next_level
    for optimizer, path in optimizers:
        slots = {}
        for owner_path, owner in by_variable.values():
            for slot_name in optimizer.get_slot_names():
                slot = optimizer.get_slot(owner, slot_name)
                if slot is not None:
                    slots[id(slot)] = f"{owner_path}/.OPTIMIZER_SLOT/{path}/{slot_name}"
        for var in optimizer.variables():
            if id(var) in slots:
                out[f"{slots[id(var)]}/{_VALUE}"] = var
            elif id(var) not in by_variable:
                # A non-slot variable (beta1_power, ...): by its name in the optimizer.
                out[f"{path}/{var.op.name.split('/')[-1]}/{_VALUE}"] = var
    return out


def _session(session):
    session = session or ops.get_default_session()
    if session is None:
        raise ValueError(
            "A session is needed to save or restore a Checkpoint in a graph: pass session= or run inside a "
            "`with tf.Session():` block."
        )
    return session


class CheckpointOptions:
    """Options of Checkpoint.save / write / restore (TF's tf.train.CheckpointOptions). tensorweave writes on
    the host and synchronously, so the options are kept but change nothing."""

    def __init__(
        self,
        experimental_io_device=None,
        experimental_enable_async_checkpoint=False,
        experimental_write_callbacks=None,
        enable_async=False,
        experimental_skip_slot_variables=False,
        experimental_sharding_callback=None,
    ):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint or enable_async
        self.enable_async = self.experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


class _RestoreStatus:
    """What Checkpoint.restore returns: runs the restore in a session and checks what matched."""

    def __init__(self, checkpoint, save_path):
        self._checkpoint = checkpoint
        self._save_path = save_path
        self._keys = set(dict(checkpoint_utils.list_variables(save_path))) if save_path else set()

    def _match(self):
        """({key: variable} to restore, {key: variable} of the objects), the save counter restored too."""
        wanted = self._checkpoint._variables()
        matched = {k: v for k, v in wanted.items() if k in self._keys}
        if _SAVE_COUNTER in self._keys:
            matched[_SAVE_COUNTER] = self._checkpoint.save_counter
        return matched, wanted

    def assert_consumed(self):
        """AssertionError unless every value in the checkpoint and every variable of the objects matched."""
        matched, wanted = self._match()
        unused = sorted(self._keys - set(matched))
        if unused:
            raise AssertionError(f"Unresolved object in checkpoint {self._save_path}: {unused}")
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self):
        """AssertionError unless every variable of the objects has a value in the checkpoint."""
        matched, wanted = self._match()
        missing = sorted(set(wanted) - set(matched))  # the save counter is not among `wanted`
        if missing:
            raise AssertionError(f"Some objects had no value in checkpoint {self._save_path}: {missing}")
        return self

    def assert_nontrivial_match(self):
        """AssertionError when nothing but the save counter matched."""
        matched, _ = self._match()
        if not set(matched) - {_SAVE_COUNTER}:
            raise AssertionError(f"Nothing except the root object matched a checkpointed value ({self._save_path})")
        return self

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Assigns the checkpoint's values to the variables that match (by path) in `session`."""
        if not self._save_path:
            return
        matched, _ = self._match()
        if matched:
            saver_lib.Saver(var_list=matched).restore(_session(session), self._save_path)

    def initialize_or_restore(self, session=None):
        """Restores the variables that match; initializes the others (all of them when nothing was restored)."""
        session = _session(session)
        matched, wanted = self._match()
        others = [v for k, v in wanted.items() if k not in matched]
        if others:
            session.run(variables_lib.variables_initializer(others))
        self.run_restore_ops(session)


class Checkpoint:
    """Saves and restores the variables of objects (variables, layers, optimizers, other Checkpoints, lists
    and dicts of them) by where they sit among those objects (TF1's `tf.train.Checkpoint` in a graph).

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> prefix = os.path.join(tempfile.mkdtemp(), "ckpt")
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable([1.0, 2.0])
      ...     ckpt = tw.train.Checkpoint(weights=w)
      ...     sess.run(w.initializer)
      ...     path = ckpt.save(prefix)
      ...     _ = sess.run(w.assign([0.0, 0.0]))
      ...     ckpt.restore(path).run_restore_ops()
      ...     print(os.path.basename(path), sess.run(w))
      ckpt-1 [1. 2.]
    """

    def __init__(self, root=None, **kwargs):
        dependencies = dict(kwargs)
        if root is not None:
            dependencies["root"] = root
        for name, value in dependencies.items():
            if name == "save_counter":
                raise ValueError("'save_counter' is reserved for the Checkpoint's own counter")
            if not _is_trackable(value):
                raise ValueError(
                    "`Checkpoint` was expecting a trackable object (an object derived from `Trackable`), got "
                    f"{value}. If you believe this object should be trackable (i.e. it is part of the TensorFlow "
                    "Python API and manages state), please open an issue."
                )
        self._dependencies = dependencies
        self._save_counter = None
        self._increment = None
        self._counter_check = None
        self._savers = {}  # the variables' keys and ids -> the Saver that writes them
        self._graph = ops.get_default_graph()

    def __getattr__(self, name):
        dependencies = self.__dict__.get("_dependencies", {})
        if name in dependencies:
            return dependencies[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    @property
    def save_counter(self):
        """An int64 variable: how many times `save` ran (made on first use, a global variable as in TF)."""
        if self._save_counter is None:
            with self._graph.as_default(), self._graph.name_scope(""), ops.control_dependencies(None):
                self._save_counter = variables_lib.Variable(0, dtype=dtypes.int64, trainable=False, name="save_counter")
        return self._save_counter

    def _variables(self):
        return _named_variables(self._dependencies)

    def _ensure_counter_initialized(self, session):
        counter = self.save_counter
        if self._counter_check is None:
            with self._graph.as_default():
                self._counter_check = state_ops.is_variable_initialized(counter)
        if not session.run(self._counter_check):
            session.run(counter.initializer)

    def _next_number(self, session):
        self._ensure_counter_initialized(session)
        if self._increment is None:
            with self._graph.as_default(), self._graph.name_scope(""):
                self._increment = state_ops.assign_add(self.save_counter, 1)
        return int(session.run(self._increment))

    def _write(self, file_prefix, session):
        named = self._variables()
        named[_SAVE_COUNTER] = self.save_counter
        key = tuple(sorted((k, id(v)) for k, v in named.items()))
        saver = self._savers.get(key)
        if saver is None:
            with self._graph.as_default():
                saver = self._savers[key] = saver_lib.Saver(var_list=named, max_to_keep=None)
        return saver.save(session, file_prefix, write_meta_graph=False, write_state=False)

    def write(self, file_prefix, session=None, options=None):
        """Writes the checkpoint at `file_prefix` itself (no counter, no "checkpoint" state file); returns it."""
        del options
        session = _session(session)
        self._ensure_counter_initialized(session)
        return self._write(os.fspath(file_prefix), session)

    def save(self, file_prefix, session=None, options=None):
        """Adds 1 to `save_counter`, writes "<file_prefix>-<counter>" and records it as the latest checkpoint
        of its directory; returns that path."""
        del options
        session = _session(session)
        path = self._write(f"{os.fspath(file_prefix)}-{self._next_number(session)}", session)
        directory = os.path.dirname(path) or "."
        state = saver_lib.get_checkpoint_state(directory)
        previous = list(state.all_model_checkpoint_paths) if state is not None else []
        kept = [p for p in previous if os.path.abspath(p) != os.path.abspath(path)] + [path]
        # As TF: the state file names the checkpoints relative to its directory.
        saver_lib.update_checkpoint_state(
            directory, os.path.relpath(path, directory), [os.path.relpath(p, directory) for p in kept]
        )
        return path

    def read(self, save_path, options=None):
        """restore() without the save counter's bookkeeping (TF's read)."""
        return self.restore(save_path, options)

    def restore(self, save_path, options=None):
        """A status whose `run_restore_ops(session)` assigns the values of checkpoint `save_path` to the
        variables with the same paths (those that exist when it runs); `assert_consumed()` checks that
        everything matched. save_path None restores nothing (`initialize_or_restore` initializes)."""
        del options
        if save_path is not None and not saver_lib.checkpoint_exists(os.fspath(save_path)):
            from tensorweave._src.framework import errors

            raise errors.NotFoundError(None, None, f"Failed to restore from checkpoint: {save_path} does not exist")
        return _RestoreStatus(self, None if save_path is None else os.fspath(save_path))


class CheckpointManager:
    """Numbers, keeps and deletes the checkpoints of a Checkpoint in one directory (TF's
    tf.train.CheckpointManager): `save()` writes "<directory>/<checkpoint_name>-<n>" and keeps the latest
    `max_to_keep` (None: all).

    Example:
      >>> import tempfile
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable(3.0)
      ...     manager = tw.train.CheckpointManager(tw.train.Checkpoint(w=w), tempfile.mkdtemp(), max_to_keep=2)
      ...     sess.run(w.initializer)
      ...     paths = [manager.save() for _ in range(3)]
      ...     print([p.rsplit("/", 1)[1] for p in manager.checkpoints])
      ['ckpt-2', 'ckpt-3']
    """

    def __init__(
        self,
        checkpoint,
        directory,
        max_to_keep,
        keep_checkpoint_every_n_hours=None,
        checkpoint_name="ckpt",
        step_counter=None,
        checkpoint_interval=None,
        init_fn=None,
    ):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"Expected a tf.train.Checkpoint, got {type(checkpoint).__name__}.")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = None
        state = saver_lib.get_checkpoint_state(self._directory)
        self._checkpoints = list(state.all_model_checkpoint_paths) if state is not None else []
        self._checkpoints = [p for p in self._checkpoints if saver_lib.checkpoint_exists(p)]

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoints(self):
        """The kept checkpoints' paths, oldest first."""
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self):
        return self._checkpoints[-1] if self._checkpoints else None

    @property
    def checkpoint_interval(self):
        return self._interval

    def save(self, checkpoint_number=None, check_interval=True, options=None, session=None):
        """Writes the next checkpoint (numbered `checkpoint_number`, else by the checkpoint's save counter,
        which goes up by one either way), deletes the ones beyond max_to_keep; returns its path, or None when
        `checkpoint_interval` steps have not passed since the last save."""
        del options
        session = _session(session)
        if self._interval is not None and check_interval:
            step = int(session.run(self._step_counter))
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        number = self._checkpoint._next_number(session)
        if checkpoint_number is not None:
            number = int(session.run(checkpoint_number)) if hasattr(checkpoint_number, "op") else int(checkpoint_number)
        path = os.path.abspath(self._checkpoint._write(f"{self._prefix}-{number}", session))
        self._checkpoints = [p for p in self._checkpoints if p != path] + [path]
        while self._max_to_keep is not None and len(self._checkpoints) > self._max_to_keep:
            saver_lib._delete_checkpoint(self._checkpoints.pop(0))
        saver_lib.update_checkpoint_state(
            self._directory,
            os.path.relpath(path, self._directory),
            [os.path.relpath(p, self._directory) for p in self._checkpoints],
        )
        return path

    def restore_or_initialize(self, session=None):
        """Restores the latest checkpoint and returns its path; without one, runs `init_fn` (if any) and
        returns None."""
        session = _session(session)
        if self.latest_checkpoint is not None:
            self._checkpoint.restore(self.latest_checkpoint).run_restore_ops(session)
            return self.latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None
