"""Sessions: run graph fragments, keeping variables between steps."""

import collections
import threading
import weakref

import numpy as np

from tensorweave import _pywrap_tensorweave as _pywrap
from tensorweave._src.client import context_config
from tensorweave._src.client.session_config import ConfigProto
from tensorweave._src.client.session_config import GPUOptions
from tensorweave._src.client.session_config import GraphOptions
from tensorweave._src.client.session_config import OptimizerOptions
from tensorweave._src.client.session_config import RunMetadata
from tensorweave._src.client.session_config import RunOptions
from tensorweave._src.client.session_config import graph_optimizer_options
from tensorweave._src.framework import errors
from tensorweave._src.framework import nest
from tensorweave._src.framework import ops
from tensorweave._src.ops import constant_op
from tensorweave._src.ops import session_ops

__all__ = [
    "BaseSession",
    "ConfigProto",
    "GPUOptions",
    "GraphOptions",
    "InteractiveSession",
    "OptimizerOptions",
    "RunMetadata",
    "RunOptions",
    "Session",
]


class InaccessibleTensorError(ValueError):
    """A fetch of an operation marked not fetchable (Graph.prevent_fetching), TF's class of that error."""


class _FetchPlan:
    """Flattens a nested fetch structure into tensor names and targets, and
    rebuilds the structure from the fetched values."""

    def __init__(self, graph, fetches, session=None):
        self.tensors = []  # unique Tensors to fetch
        self.targets = []  # unique Operations to run
        self._index = {}
        # Weak: the plan is cached in the session (a handle fetched later holds the session itself).
        self._session = weakref.ref(session) if session is not None else None
        self.build = self._compile(graph, fetches)

    def _add_tensor(self, t):
        key = id(t)
        if key not in self._index:
            self._index[key] = len(self.tensors)
            self.tensors.append(t)
        return self._index[key]

    def _compile(self, graph, fetch):
        if fetch is None:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}")
        if hasattr(fetch, "_tw_fetch_components"):  # a composite such as SparseTensor
            parts = [self._compile(graph, f) for f in fetch._tw_fetch_components()]
            rebuild = fetch._tw_from_fetched
            return lambda values: rebuild(*[p(values) for p in parts])
        if isinstance(fetch, (list, tuple)):
            parts = [self._compile(graph, f) for f in fetch]
            if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):
                cls = type(fetch)
                return lambda values: cls(*[p(values) for p in parts])
            cls = type(fetch)
            return lambda values: cls(p(values) for p in parts)
        if isinstance(fetch, collections.abc.Mapping):
            keys = list(fetch.keys())
            parts = [self._compile(graph, fetch[k]) for k in keys]
            cls = type(fetch) if not isinstance(fetch, collections.defaultdict) else dict
            return lambda values: cls(zip(keys, [p(values) for p in parts]))
        try:
            element = graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(
                f"Argument `fetch` = {fetch!r} has invalid type {type(fetch).__name__!r}, must be a string or "
                f"Tensor. ({e})"
            ) from None
        except (ValueError, KeyError) as e:
            # An unknown name is a ValueError here, as in TensorFlow (the graph's lookup raises KeyError).
            raise ValueError(f"Argument `fetch` = {fetch!r} cannot be interpreted as a Tensor. ({e})") from None
        if isinstance(element, ops.Operation):
            if element not in self.targets:
                self.targets.append(element)
            return lambda values: None
        index = self._add_tensor(element)
        handle_dtype = session_ops._handle_fetch_dtype(element) if self._session is not None else None
        if handle_dtype is not None:  # a tw.get_session_handle: its value is a TensorHandle, as in TF
            session_ref = self._session
            return lambda values: session_ops.TensorHandle(values[index], handle_dtype, session_ref())
        return lambda values: values[index]


_local_sessions = weakref.WeakSet()  # open in-process sessions: what Session.reset("") closes
_local_sessions_lock = threading.Lock()


class BaseSession:
    def __init__(self, target="", graph=None, config=None):
        self._graph = graph if graph is not None else ops.get_default_graph()
        self._config = config or context_config.default_config()
        self._target = target or ""
        if self._target:  # "grpc://host:port": the master of a tensorweave server runs the steps
            from tensorweave.distributed import remote_session

            self._c = remote_session.RemoteSession(self._target, self._graph, self._config)
        else:
            self._c = _new_session(self._graph, self._config)
            with _local_sessions_lock:
                _local_sessions.add(self)
        self._closed = False
        self._closed_by_reset = False
        self._callables = {}
        self._lock = threading.Lock()
        self._default_ctx = None
        self._load_ops = {}
        self._dead_handles = []  # of garbage-collected TensorHandles, deleted in batches
        self._dead_handles_lock = threading.RLock()  # re-entrant: a garbage collection may run under it

    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    @property
    def sess_str(self):
        return self._target

    def list_devices(self):
        """The devices this session runs on: objects with `name` (the full name,
        `/job:localhost/replica:0/task:0/device:CPU:0`), `device_type`, `memory_limit_bytes` and
        `incarnation`, as TF's `Session.list_devices`.

        Example:
          >>> import tensorweave as tw
          >>> with tw.Session(config=tw.ConfigProto(device_count={"CPU": 2})) as sess:
          ...     print([d.name for d in sess.list_devices()])
          ['/job:localhost/replica:0/task:0/device:CPU:0', '/job:localhost/replica:0/task:0/device:CPU:1']
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        return [_SessionDevice(*d) for d in self._c.list_devices()]

    def close(self):
        """Frees the session's state (variables); later runs fail."""
        if not self._closed:
            self._closed = True
            self._c.close()

    def as_default(self):
        """Makes this the default session (for `Tensor.eval`) in a `with`."""
        return ops._default_session_stack.get_controller(self)

    def __enter__(self):
        self._default_ctx = self.as_default()
        self._default_ctx.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        ctx, self._default_ctx = self._default_ctx, None
        if ctx is not None:
            ctx.__exit__(exc_type, exc, tb)
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    # --- running ----------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs the ops needed for `fetches` and returns their values.

        Args:
          fetches: a Tensor, Operation, tensor/op name, Variable, or a nested
            list/tuple/namedtuple/dict of them. Operations give None.
          feed_dict: {Tensor or name: value} replacing those tensors' values.
          options: a `RunOptions` (`output_partition_graphs=True` fills
            `run_metadata.partition_graphs`; `trace_level=RunOptions.FULL_TRACE`
            fills `run_metadata.step_stats`).
          run_metadata: a `RunMetadata`, cleared and filled by the step.

        Returns:
          Numpy values in the structure of `fetches`.

        Example:
          >>> import tensorweave as tw
          >>> with tw.Graph().as_default(), tw.Session() as sess:
          ...     a = tw.constant(2.0)
          ...     out = sess.run({"a": a, "pair": (a, a * a)})
          ...     print(float(out["a"]), [float(v) for v in out["pair"]])
          2.0 [2.0, 4.0]
        """
        if self._closed:
            if self._closed_by_reset:  # TF's DirectSession closed under its Python object
                raise errors.CancelledError(None, None, "Session has been closed.")
            raise RuntimeError("Attempted to use a closed Session.")
        if len(self._dead_handles) >= _DEAD_HANDLES_THRESHOLD:
            self._delete_dead_handles()
        feed_keys = tuple(feed_dict) if feed_dict else ()
        if any(isinstance(k, (tuple, list)) for k in feed_keys):
            feed_dict = _flatten_feed_structures(feed_dict)  # an RNN state tuple fed the state it returned
            feed_keys = tuple(feed_dict)
        if feed_keys and any(hasattr(k, "_tw_fetch_components") for k in feed_keys):
            feed_dict = _expand_composite_feeds(feed_dict)  # a SparseTensor fed a SparseTensorValue
            feed_keys = tuple(feed_dict)
        # Structures are keyed with their types: a tuple and a namedtuple of
        # the same tensors compare equal but must be rebuilt differently.
        key = (_structure_key(fetches), feed_keys)
        try:
            entry = self._callables.get(key)
        except TypeError:  # an unhashable leaf; _FetchPlan will reject it
            key, entry = None, None
        if entry is None:
            entry = self._prepare(fetches, feed_keys)
            if key is not None:
                self._callables[key] = entry
        handle, build, feed_specs, fed_fetches = entry
        values = []
        if feed_specs:
            for k, (dtype, enum, tensor, np_dtype, dims) in zip(feed_keys, feed_specs):
                v = feed_dict[k]
                if not (type(v) is np.ndarray and v.dtype == np_dtype and v.flags.c_contiguous):
                    v = _convert_feed(v, dtype, tensor, dims)
                elif dims is not None and v.shape != dims:
                    _check_feed_shape(v, tensor, dims)
                values.append((v, enum))
        try:
            if options is None and run_metadata is None:
                out = self._c.run_callable(handle, values)
            else:
                out = _run_with_metadata(self._c, handle, values, options, run_metadata)
        except errors.OpError as e:
            raise ops._add_node_location(e, self._graph) from None
        return build(_fetched_values(out, values, fed_fetches))

    def _prepare(self, fetches, feed_keys):
        graph = self._graph
        plan = _FetchPlan(graph, fetches, self)
        feed_specs = []
        feed_names = []
        for k in feed_keys:
            if hasattr(k, "_as_graph_element") and not isinstance(k, ops.Tensor):
                k = k.value() if hasattr(k, "value") else k._as_graph_element()
            try:
                t = graph.as_graph_element(k, allow_tensor=True, allow_operation=False)
            except (TypeError, ValueError, KeyError) as e:
                # TF's wording; the lookup's own message (a KeyError's without the quotes str() adds).
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e.args[0] if e.args else e}") from None
            if not graph.is_feedable(t):
                raise ValueError(f"Tensor {t.name} may not be fed.")
            feed_names.append(t.name)
            feed_specs.append((t.dtype, t.dtype.as_datatype_enum, t, t.dtype.as_numpy_dtype, _static_dims(t)))
        for op in [t.op for t in plan.tensors] + list(plan.targets):
            if not graph.is_fetchable(op):
                raise InaccessibleTensorError(
                    f"Operation {op.name} has been marked as not fetchable. Typically this happens when it is "
                    "defined in another function or code block. Use return values, explicit Python locals or "
                    "TensorFlow collections to access it."
                )
        try:
            handle = self._c.make_callable(feed_names, [t.name for t in plan.tensors], [op.name for op in plan.targets])
        except errors.OpError as e:
            raise ops._add_node_location(e, graph) from None
        # A fetched tensor that is also fed gives back the fed value itself, as in TensorFlow.
        fed_fetches = [(i, feed_names.index(t.name)) for i, t in enumerate(plan.tensors) if t.name in feed_names]
        return handle, plan.build, feed_specs, fed_fetches

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function running `fetches`, taking the values of `feed_list` as
        positional arguments (faster than `run` for a fixed signature); with
        `accept_options=True` it also takes `options=` and `run_metadata=`
        keywords, as `run` does."""
        feed_list = list(feed_list or [])
        entry = self._prepare(fetches, tuple(feed_list))
        handle, build, feed_specs, fed_fetches = entry

        def run(args, options, run_metadata):
            if len(args) != len(feed_specs):
                raise TypeError(f"expected {len(feed_specs)} feed values, got {len(args)}")
            values = [(_convert_feed(v, dt, t, dims), enum) for v, (dt, enum, t, _, dims) in zip(args, feed_specs)]
            try:
                if options is None and run_metadata is None:
                    out = self._c.run_callable(handle, values)
                else:
                    out = _run_with_metadata(self._c, handle, values, options, run_metadata)
            except errors.OpError as e:
                raise ops._add_node_location(e, self._graph) from None
            return build(_fetched_values(out, values, fed_fetches))

        if accept_options:

            def call_with_options(*args, options=None, run_metadata=None):
                return run(args, options, run_metadata)

            return call_with_options

        def call(*args):
            return run(args, None, None)

        return call

    def partial_run_setup(self, fetches, feeds=None):
        """Sets up a partial run of `fetches` fed `feeds` (graph elements, values supplied later by
        `partial_run`); returns its handle. Each feed may be fed and each fetch fetched once per handle."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        feeds = [] if feeds is None else feeds if isinstance(feeds, (list, tuple)) else [feeds]
        feed_names = set()
        for feed in feeds:
            parts = feed._tw_fetch_components() if hasattr(feed, "_tw_fetch_components") else [feed]
            for part in parts:
                try:
                    t = self._graph.as_graph_element(part, allow_tensor=True, allow_operation=False)
                except (TypeError, ValueError, KeyError) as e:
                    raise type(e)(f"Cannot interpret argument `feed` key as Tensor: {e}") from None
                feed_names.add(t.name)
        plan = _FetchPlan(self._graph, fetches)
        with self._lock:
            self._partial_run_count = getattr(self, "_partial_run_count", 0) + 1
            handle = f"{','.join(sorted(feed_names))};{self._partial_run_count}"
            runs = self.__dict__.setdefault("_partial_runs", {})
            runs[handle] = {
                "feeds": feed_names,
                "fetches": {t.name for t in plan.tensors} | {op.name for op in plan.targets},
                "fed": {},  # name -> value fed so far
                "fetched": {},  # tensor name -> value fetched so far (fed back to later steps)
                "done": set(),  # names of the tensors and ops fetched so far
            }
        return handle

    def partial_run(self, handle, fetches, feed_dict=None):
        """Continues the partial run `handle`: feeds `feed_dict` and returns `fetches` (as `run` does). Tensors
        fetched by earlier calls are fed back, so their ops run once for the handle."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        state = getattr(self, "_partial_runs", {}).get(handle)
        if state is None:
            raise errors.InvalidArgumentError(None, None, "Must run 'setup' before performing partial runs!")
        fed = {}
        for k, v in (_expand_composite_feeds(feed_dict) if feed_dict else {}).items():
            t = self._graph.as_graph_element(k, allow_tensor=True, allow_operation=False)
            if t.name not in state["feeds"]:
                raise errors.InvalidArgumentError(
                    None, None, f"The feed {t.name} was not specified in partial_run_setup."
                )
            if t.name in state["fed"]:
                raise errors.InvalidArgumentError(None, None, f"The feed {t.name} has already been fed.")
            fed[t.name] = v
        plan = _FetchPlan(self._graph, fetches)
        names = [t.name for t in plan.tensors] + [op.name for op in plan.targets]
        for name in names:
            if name not in state["fetches"]:
                raise errors.InvalidArgumentError(
                    None, None, f"The fetch {name} was not specified in partial_run_setup."
                )
            if name in state["done"]:
                raise errors.InvalidArgumentError(None, None, f"The fetch {name} has already been fetched.")
        values = self.run(
            [t.name for t in plan.tensors] + [op.name for op in plan.targets],
            feed_dict={**state["fed"], **state["fetched"], **fed},
        )
        state["fed"].update(fed)
        state["fetched"].update(zip(names[: len(plan.tensors)], values))
        state["done"].update(names)
        return plan.build(values[: len(plan.tensors)])

    def _register_dead_handle(self, handle):
        """Called by a garbage-collected TensorHandle: its tensor is deleted by the next `run` once
        _DEAD_HANDLES_THRESHOLD handles are dead (TF deletes them from the handle's __del__; here no step runs
        inside a garbage collection)."""
        if not self._closed:
            with self._dead_handles_lock:
                self._dead_handles.append(handle)

    def _delete_dead_handles(self):
        with self._dead_handles_lock:
            handles, self._dead_handles = self._dead_handles, []
        feeds, deleters = {}, []
        for key, handle in enumerate(handles):
            holder, deleter = session_ops._get_handle_deleter(self._graph, key, handle)
            feeds[holder] = handle
            deleters.append(deleter)
        try:
            self.run(deleters, feed_dict=feeds)
        except errors.OpError:  # a handle deleted by hand meanwhile: nothing left to free
            pass

    def _load_variable(self, var, value):
        entry = self._load_ops.get(var)
        if entry is None and self._graph.finalized:
            # As TF's Variable.load: the initializer run with its initial value fed (no new ops in the graph).
            init = var.initializer
            if init.type in ("Assign", "AssignVariableOp") and len(init.inputs) == 2:
                entry = (init.inputs[1], init)
        if entry is None:
            with self._graph.as_default():
                from tensorweave._src.ops import array_ops

                ph = array_ops.placeholder(var.dtype, var.shape, name=var.op.name + "/load_value")
                entry = (ph, var.assign(ph, read_value=False))
            self._load_ops[var] = entry
        ph, op = entry
        self.run(op, {ph: value})


def _new_session(graph, config):
    """The C++ session for `graph` under `config` (its threads, devices and placement options)."""
    args = (graph._c, config.inter_op_parallelism_threads, config.intra_op_parallelism_threads)
    placement = (dict(config.device_count), config.allow_soft_placement, config.log_device_placement)
    session = _pywrap.Session(*args, *placement, operation_timeout_in_ms=config.operation_timeout_in_ms)
    session.set_graph_optimizer({name: int(value) for name, value in graph_optimizer_options(config).items()})
    return session


class _SessionDevice:
    """One device of a session, as TF's `Session.list_devices` gives it."""

    __slots__ = ("device_type", "incarnation", "memory_limit_bytes", "name", "physical_device_desc")

    def __init__(self, name, device_type, memory_limit, incarnation, physical_device_desc=""):
        self.name = name
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit
        self.incarnation = incarnation
        self.physical_device_desc = physical_device_desc

    def __repr__(self):
        return f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, {self.incarnation})"


def _run_with_metadata(session_c, handle, values, options, run_metadata):
    """One step with TF's `options` / `run_metadata`: the metadata is cleared, then filled with the
    partition graphs when the options ask for them."""
    if options is not None and not isinstance(options, RunOptions):
        raise TypeError(f"options must be a tw.RunOptions, got {type(options).__name__}")
    if run_metadata is not None and not isinstance(run_metadata, RunMetadata):
        raise TypeError(f"run_metadata must be a tw.RunMetadata, got {type(run_metadata).__name__}")
    want_partitions = options is not None and options.output_partition_graphs
    trace_level = options.trace_level if options is not None else RunOptions.NO_TRACE
    timeout_in_ms = options.timeout_in_ms if options is not None else 0
    if run_metadata is None or not (want_partitions or trace_level > RunOptions.NO_TRACE):
        if timeout_in_ms > 0:  # a step that is cancelled (DeadlineExceededError) once it takes longer
            out, _ = session_c.run_callable_with_metadata(handle, values, False, 0, timeout_in_ms)
        else:
            out = session_c.run_callable(handle, values)
        if run_metadata is not None:
            run_metadata.Clear()
        return out
    out, metadata = session_c.run_callable_with_metadata(handle, values, want_partitions, trace_level, timeout_in_ms)
    run_metadata.Clear()
    if want_partitions:
        run_metadata._set_partition_graphs(metadata.get("partition_graphs", []))
    if trace_level > RunOptions.NO_TRACE:
        run_metadata._set_step_stats(metadata["step_stats"])
    return out


def _fetched_values(out, feeds, fed_fetches):
    """What `run` returns for each fetched tensor: the binding's value (a numpy scalar for a 0-d value, bytes for
    a string, an array otherwise), and for a tensor that was also fed, a copy of the fed array."""
    for i, k in fed_fetches:
        out[i] = np.array(feeds[k][0])  # a copy: results never alias the caller's arrays
    return out


def _structure_key(fetches):
    if isinstance(fetches, (list, tuple)):
        return (type(fetches),) + tuple(_structure_key(f) for f in fetches)
    if isinstance(fetches, collections.abc.Mapping):
        return (type(fetches),) + tuple((k, _structure_key(v)) for k, v in fetches.items())
    return fetches


def _flatten_feed_structures(feed_dict):
    """TF's nest.flatten_dict_items: a key that is a (nested) tuple or list of tensors feeds each of them the
    matching part of a value of the same structure."""
    flat = {}
    for key, value in feed_dict.items():
        if isinstance(key, (tuple, list)):
            keys, values = nest.flatten(key), nest.flatten(value)
            if len(keys) != len(values):
                raise ValueError(
                    f"Could not flatten dictionary. Key had {len(keys)} elements, but value had {len(values)} "
                    f"elements. Key: {key}, value: {value}."
                )
        else:
            keys, values = [key], [value]
        for k, v in zip(keys, values):
            if k in flat:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {k}")
            flat[k] = v
    return flat


def _expand_composite_feeds(feed_dict):
    """{SparseTensor: SparseTensorValue or (indices, values, dense_shape)} -> one entry per component tensor (a
    RaggedTensor: its RaggedTensorValue's flat values and row splits)."""
    out = {}
    for k, v in feed_dict.items():
        if hasattr(k, "_tw_feed_values"):  # a composite that reads its own feed value (RaggedTensor)
            out.update(zip(k._tw_fetch_components(), k._tw_feed_values(v)))
        elif hasattr(k, "_tw_fetch_components"):
            parts = k._tw_fetch_components()
            if not (isinstance(v, (tuple, list)) and len(v) == len(parts)):
                raise TypeError(
                    f"The value of a {type(k).__name__} feed must be a {type(k).__name__}Value or a tuple of "
                    f"{len(parts)} values (indices, values, dense_shape), got {type(v).__name__}"
                )
            for t, part in zip(parts, v):
                out[t] = part
        else:
            out[k] = v
    return out


# Garbage-collected TensorHandles whose tensors a session deletes together (TF's threshold).
_DEAD_HANDLES_THRESHOLD = 10


def _convert_feed(value, dtype, tensor, dims):
    if isinstance(value, session_ops.TensorHandle):
        value = session_ops._feed_value(value, tensor)
    if isinstance(value, ops.Tensor):
        raise TypeError(
            f"The value of a feed cannot be a tw.Tensor object (feeding {tensor.name}). "
            "Acceptable feed values include Python scalars, strings, lists, numpy arrays."
        )
    try:
        value = constant_op.to_numpy(value, dtype, what=f"feed value for {tensor.name}", lossy=True)
    except (TypeError, ValueError) as e:
        raise type(e)(f"Cannot feed {tensor.name} (dtype {dtype.name}): {e}") from None
    if dims is not None and value.shape != dims:
        _check_feed_shape(value, tensor, dims)
    return value


def _static_dims(tensor):
    """The tensor's static shape as a tuple with None for unknown dims; None for an unknown rank."""
    return tuple(tensor.shape.as_list()) if tensor.shape.ndims is not None else None


def _check_feed_shape(value, tensor, dims):
    """A fed value must fit the tensor's static shape `dims` (TensorFlow checks this before running: a
    ValueError). Called only when the shapes are not equal, so with unknown dims or a real mismatch."""
    if len(dims) != value.ndim or any(d is not None and d != n for d, n in zip(dims, value.shape)):
        shape = "(" + ", ".join("?" if d is None else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"
        raise ValueError(f"Cannot feed value of shape {value.shape} for Tensor {tensor.name}, which has shape {shape}")


class Session(BaseSession):
    """Runs a graph: `Session(target="", graph=None, config=None)`; a context manager
    that closes itself and is the default session inside. A target `grpc://host:port` runs the steps on the
    cluster of the tensorweave server there (`tw.train.Server`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.placeholder(tw.float32, [None])
      ...     y = x * 3.0
      ...     with tw.Session() as sess:
      ...         print(sess.run(y, feed_dict={x: [1.0, 2.0]}))
      [3. 6.]
    """

    @staticmethod
    def reset(target, containers=None, config=None):
        """Resets the resource containers on `target` and closes the sessions connected to it, as TF's
        `Session.reset`: variables of a reset container become uninitialized, its queues and readers are
        freed, other containers keep theirs. `containers` names them; None or [] is the default container
        ("", stateful ops made outside any `tf.container`), as TF's runtime does. An unknown name frees nothing.

        `target` "" is this process: every open in-process session is closed (each holds its own
        resources). `grpc://host:port` resets every task of that server's cluster (ps included).
        """
        del config  # as TF: only its timeout-free defaults apply
        if isinstance(target, bytes):
            target = target.decode()
        if not isinstance(target, str):
            raise TypeError(f"Session.reset: target must be a string, got {type(target).__name__} {target!r}")
        if containers is None:
            containers = []
        elif isinstance(containers, (str, bytes)) or not all(isinstance(c, (str, bytes)) for c in containers):
            raise TypeError(f"Session.reset: containers must be a list of strings, got {containers!r}")
        containers = [c.decode() if isinstance(c, bytes) else c for c in containers]
        if not target:
            with _local_sessions_lock:
                sessions = list(_local_sessions)
            for sess in sessions:
                if not sess._closed:
                    sess._closed_by_reset = True
                    sess.close()
            return
        if not target.startswith("grpc://"):
            raise errors.NotFoundError(
                None, None, f"No session factory registered for the target {target!r}: it is '' or 'grpc://host:port'"
            )
        from tensorweave.distributed import remote_session

        remote_session.reset(target, containers)


class InteractiveSession(BaseSession):
    """A session that makes itself the default on creation (for shells)."""

    def __init__(self, target="", graph=None, config=None):
        super().__init__(target, graph, config)
        self._interactive_ctx = self.as_default()
        self._interactive_ctx.__enter__()

    def close(self):
        super().close()
        ctx, self._interactive_ctx = getattr(self, "_interactive_ctx", None), None
        if ctx is not None:
            try:
                ctx.__exit__(None, None, None)
            except ValueError:
                pass
