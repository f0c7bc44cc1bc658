"""The tf.keras engine for TF1 graph mode: `Input`/`InputLayer`, the Keras `Layer` base for subclassing, `Model`
(functional and subclassed) with compile/fit/evaluate/predict on the backend session, and `Sequential`."""

import collections
import copy
import json
import sys
import time
import weakref

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.keras import backend
from tensorweave._src.layers import base
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import variables as variables_lib


def _tw():
    import tensorweave

    return tensorweave


_UIDS = weakref.WeakKeyDictionary()  # graph -> prefix -> count


def _unique_name(prefix, zero_based=True):
    """Keras's unique object names: 'model', 'model_1', ... (zero_based) or 'input_1', 'input_2', ..."""
    counts = _UIDS.setdefault(ops.get_default_graph(), collections.Counter())
    n = counts[prefix]
    counts[prefix] += 1
    if zero_based:
        return prefix if n == 0 else f"{prefix}_{n}"
    return f"{prefix}_{n + 1}"


def _to_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _map_structure(fn, structure):
    if isinstance(structure, (list, tuple)):
        return type(structure)(_map_structure(fn, s) for s in structure)
    if isinstance(structure, dict):
        return {k: _map_structure(fn, v) for k, v in structure.items()}
    return fn(structure)


def _shape_tuple(tensor):
    shape = tensor.shape
    return None if shape.ndims is None else tuple(shape.as_list())


# --- inputs ---


def _batch_size(batch_size):
    """`batch_size`, 32 when None; a ValueError for one that is no positive integer (0 was taken as 32)."""
    if batch_size is None:
        return 32
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
    return int(batch_size)


class InputLayer(base.Layer):
    """The layer of an `Input`: it owns the placeholder a functional model is fed through."""

    def __init__(
        self,
        input_shape=None,
        batch_size=None,
        dtype=None,
        input_tensor=None,
        sparse=False,
        name=None,
        ragged=False,
        batch_input_shape=None,
        optional=False,
        **kwargs,
    ):
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)}")
        if optional:  # tf_keras 2.15+: an input that may be fed None
            raise NotImplementedError(f"Input {name!r} with optional=True (an input that may be None)")
        name = name or _unique_name("input", zero_based=False)
        base.Layer.__init__(self, name=name, dtype=dtype)
        if input_tensor is None:
            if batch_input_shape is None:
                if input_shape is None:
                    raise ValueError("Please provide to Input either a `shape` or a `tensor` argument.")
                batch_input_shape = [batch_size] + list(input_shape)
            with ops.name_scope(None):
                input_tensor = array_ops.placeholder(
                    dtypes.as_dtype(dtype or backend.floatx()), list(batch_input_shape), name=name
                )
        self._batch_input_shape = _shape_tuple(input_tensor)
        self.dtype = input_tensor.dtype.name
        self.sparse = sparse
        self.built = True
        self._scope_name = name
        base.Node(self, [], [input_tensor])

    @property
    def input(self):
        return self._inbound_nodes[0].output_tensors[0]

    output = input

    def __call__(self, inputs, *args, **kwargs):
        """Called on a tensor, the identity (an InputLayer only names a model's input)."""
        return inputs

    @property
    def output_shape(self):
        return [self._batch_input_shape]

    def count_params(self):
        return 0

    def get_config(self):
        return {
            "batch_input_shape": self._batch_input_shape,
            "dtype": self.dtype,
            "sparse": self.sparse,
            "ragged": False,
            "name": self.name,
            "optional": False,
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config.pop("ragged", None)
        return cls(**config)


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=False, tensor=None, batch_shape=None, **kwargs):
    """A placeholder of shape `[batch_size] + shape` carrying Keras history, as `tf.keras.Input` in TF1 graphs.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.keras.Input(shape=(3,))
      ...     print(x.name, x.shape)
      input_1:0 (?, 3)
    """
    if shape is None and tensor is None and batch_shape is None:
        raise ValueError(
            "Please provide to Input a `shape` or a `tensor` or a `type_spec` argument. Note that `shape` does not "
            "include the batch dimension."
        )
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {list(kwargs)}")
    layer = InputLayer(
        input_shape=shape,
        batch_size=batch_size,
        dtype=dtype,
        input_tensor=tensor,
        sparse=sparse,
        name=name,
        batch_input_shape=batch_shape,
    )
    return layer.input


# --- the Keras Layer base ---


def _get_initializer(identifier):
    if identifier is None or not isinstance(identifier, (str, dict)):
        return identifier
    try:
        from tensorweave._src.keras import initializers
    except ImportError:
        initializers = None
    if initializers is not None:
        return initializers.get(identifier)
    tw = _tw()
    table = {
        "glorot_uniform": tw.glorot_uniform_initializer(),
        "glorot_normal": tw.glorot_normal_initializer(),
        "zeros": tw.zeros_initializer(),
        "ones": tw.ones_initializer(),
    }
    if identifier not in table:
        raise ValueError(f"Unknown initializer: {identifier}")
    return table[identifier]


def _get_regularizer(identifier):
    if identifier is None or not isinstance(identifier, (str, dict)):
        return identifier
    from tensorweave._src.keras import regularizers

    return regularizers.get(identifier)


class Layer(base.Layer):
    """The base class of Keras layers: subclass it with `build(input_shape)` (weights from `add_weight`) and
    `call(inputs)`; layers assigned as attributes are tracked.

    Example:
      >>> import tensorweave as tw
      >>> class Scale(tw.keras.layers.Layer):
      ...     def build(self, input_shape):
      ...         self.k = self.add_weight("k", shape=(), initializer="ones")
      ...     def call(self, inputs):
      ...         return inputs * self.k
      >>> with tw.Graph().as_default():
      ...     layer = Scale()
      ...     y = layer(tw.keras.Input((2,)))
      ...     print([w.name for w in layer.weights])
      ['scale/k:0']
    """

    _weights_follow_name_scope = True  # as tf_keras's v1 layers: weights named in the layer's name scope

    def __init__(self, trainable=True, name=None, dtype=None, dynamic=False, **kwargs):
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        batch_size = kwargs.pop("batch_size", None)
        kwargs.pop("autocast", None)
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is None and input_shape is not None:
            batch_input_shape = (batch_size,) + tuple(input_shape)
        if batch_input_shape is not None:
            self._batch_input_shape = tuple(batch_input_shape)
            self._keras_input_shape = tuple(batch_input_shape[1:])
        super().__init__(trainable=trainable, name=name, dtype=dtype, **kwargs)
        self._extra_losses = []
        self._extra_updates = []

    def __setattr__(self, name, value):
        values = value if isinstance(value, (list, tuple)) else [value]
        if not name.startswith("__") and any(isinstance(v, base.Layer) for v in values):
            tracked = self.__dict__.setdefault("_tracked_layers", [])
            for v in values:
                if isinstance(v, base.Layer) and v is not self and all(v is not t for t in tracked):
                    tracked.append(v)
        super().__setattr__(name, value)

    def add_weight(
        self,
        name=None,
        shape=None,
        dtype=None,
        initializer=None,
        regularizer=None,
        trainable=None,
        constraint=None,
        **kwargs,
    ):
        """A variable of this layer; `initializer` and `regularizer` may be Keras names ('glorot_uniform', 'l2')."""
        dtype = dtypes.as_dtype(dtype or self.dtype or backend.floatx())
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        if trainable is None:
            trainable = True
        var = super().add_weight(
            name,
            list(shape or ()),
            dtype=dtype,
            initializer=_get_initializer(initializer),
            regularizer=_get_regularizer(regularizer),
            trainable=trainable,
        )
        if constraint is not None:
            from tensorweave._src.keras import constraints

            var._constraint = constraints.get(constraint)
        return var

    def add_loss(self, losses, inputs=None):
        for loss in _to_list(losses):
            self._extra_losses.append(loss() if callable(loss) else ops.convert_to_tensor(loss))

    def add_update(self, updates, inputs=None):
        self._extra_updates.extend(_to_list(updates))

    @property
    def losses(self):
        return list(self._losses) + list(getattr(self, "_extra_losses", []))

    @property
    def updates(self):
        return list(self._updates) + list(getattr(self, "_extra_updates", []))

    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype or backend.floatx()}
        if hasattr(self, "_batch_input_shape"):
            config["batch_input_shape"] = self._batch_input_shape
        return config

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(
            f"Please run in eager mode or implement compute_output_shape on {type(self).__name__}"
        )

    def count_params(self):
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on {self.name}, but the layer isn't built. You can build it "
                f"manually via: `{self.name}.build(batch_input_shape)`."
            )
        return _count(self.weights)

    def set_weights(self, weights):
        _set_weights(self.weights, weights, self.name)

    def get_weights(self):
        return _get_values(self.weights)


def _count(weights):
    return int(sum(np.prod(w.shape.as_list()) for w in _unique(weights)))


def _unique(items):
    seen, out = set(), []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


def _get_values(weights):
    """Variable values, initializing the session's new variables first (as Keras's get_session)."""
    if not weights:
        return []
    _initialize_new_variables()
    return backend.batch_get_value(weights)


def _set_weights(weights, values, name):
    if len(values) != len(weights):
        raise ValueError(
            f'You called `set_weights(weights)` on layer "{name}" with a weight list of length {len(values)}, but '
            f"the layer was expecting {len(weights)} weights. Provided weights: {str(values)[:50]}..."
        )
    _initialize_new_variables()
    sess = backend.get_session()
    for w, value in zip(weights, values):
        value = np.asarray(value)
        if tuple(w.shape.as_list()) != value.shape:
            raise ValueError(
                f"Layer weight shape {tuple(w.shape.as_list())} not compatible with provided weight shape {value.shape}"
            )
        w.load(value, sess)


# base.Layer (tw.layers and every keras layer) get Keras's layer API too.
def _layer_input(self):
    nodes = getattr(self, "_inbound_nodes", [])
    if not nodes:
        raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
    tensors = nodes[0].input_tensors
    return tensors[0] if len(tensors) == 1 else tensors


def _layer_output(self):
    nodes = getattr(self, "_inbound_nodes", [])
    if not nodes:
        raise AttributeError(f"Layer {self.name} has no inbound nodes.")
    tensors = nodes[0].output_tensors
    return tensors[0] if len(tensors) == 1 else tensors


def _shapes_of(tensors):
    if isinstance(tensors, list):
        return [_shape_tuple(t) for t in tensors]
    return _shape_tuple(tensors)


def _layer_output_shape(self):
    nodes = getattr(self, "_inbound_nodes", [])
    if not nodes:
        raise AttributeError(f'The layer "{self.name}" has never been called and thus has no defined output shape.')
    shapes = {str(_shapes_of(_layer_output_of(n))) for n in nodes}
    if len(shapes) > 1:
        raise AttributeError(
            f'The layer "{self.name}" has multiple inbound nodes, with different output shapes. Hence the notion of '
            '"output shape" is ill-defined for the layer.'
        )
    return _shapes_of(_layer_output_of(nodes[0]))


def _layer_output_of(node):
    return node.output_tensors[0] if len(node.output_tensors) == 1 else list(node.output_tensors)


def _layer_input_shape(self):
    x = _layer_input(self)
    return _shapes_of(x)


def _node_at(self, node_index, attr):
    nodes = getattr(self, "_inbound_nodes", [])
    if not nodes:
        raise RuntimeError(f"The layer has never been called and thus has no defined {attr}.")
    if not len(nodes) > node_index:
        raise ValueError(
            f"Asked to get {attr} at node {node_index}, but the layer has only {len(nodes)} inbound nodes."
        )
    return nodes[node_index]


def _get_input_at(self, node_index):
    """The input tensor(s) of the layer's call number `node_index` (tf_keras)."""
    tensors = _node_at(self, node_index, "input").input_tensors
    return tensors[0] if len(tensors) == 1 else list(tensors)


def _get_output_at(self, node_index):
    """The output tensor(s) of the layer's call number `node_index` (tf_keras)."""
    return _layer_output_of(_node_at(self, node_index, "output"))


for _name, _fn in (
    ("get_input_at", _get_input_at),
    ("get_output_at", _get_output_at),
    ("get_input_shape_at", lambda self, i: _shapes_of(_get_input_at(self, i))),
    ("get_output_shape_at", lambda self, i: _shapes_of(_get_output_at(self, i))),
):
    if not hasattr(base.Layer, _name):
        setattr(base.Layer, _name, _fn)

for _name, _fn in (
    ("input", _layer_input),
    ("output", _layer_output),
    ("output_shape", _layer_output_shape),
    ("input_shape", _layer_input_shape),
):
    if not hasattr(base.Layer, _name):
        setattr(base.Layer, _name, property(_fn))
if not hasattr(base.Layer, "count_params"):
    base.Layer.count_params = lambda self: _count(self.weights)
if not hasattr(base.Layer, "set_weights"):
    base.Layer.set_weights = lambda self, weights: _set_weights(self.weights, weights, self.name)
base.Layer.get_weights = lambda self: _get_values(self.weights)


# --- the graph of a functional model ---


def _build_map(outputs):
    """Nodes reachable from `outputs` in decreasing depth and the order layers were found (as tf_keras)."""
    finished, in_progress, nodes, layer_indices = set(), set(), [], {}

    def visit(tensor):
        history = base.keras_history(tensor)
        if history is None and isinstance(tensor, ops.Tensor):
            history = _wrap_tf_ops(tensor)
        if history is None:
            raise ValueError(
                f"Output tensors of a Functional model must be the output of a Keras `Layer` (thus holding past "
                f"layer metadata). Found: {tensor}"
            )
        layer, node_index, _ = history
        node = layer._inbound_nodes[node_index]
        if id(node) in finished:
            return
        if id(node) in in_progress:
            raise ValueError(f"Tensor {tensor} from layer {layer.name} is part of a cycle.")
        if layer not in layer_indices:
            layer_indices[layer] = len(layer_indices)
        in_progress.add(id(node))
        for t in node.input_tensors:
            visit(t)
        finished.add(id(node))
        in_progress.discard(id(node))
        nodes.append(node)

    for t in outputs:
        visit(t)
    return nodes, layer_indices


class TensorFlowOpLayer(base.Layer):
    """The TensorFlow ops between Keras tensors and a tensor a functional model outputs (or a layer takes), as
    TF 1.15's Keras records them; the model runs them in its graph but cannot replay them on new inputs."""

    def __init__(self, node_def_name, **kwargs):
        super().__init__(name=f"tf_op_layer_{node_def_name}", **kwargs)
        self.built = True

    def __call__(self, inputs, *args, **kwargs):
        raise NotImplementedError(
            f"The TensorFlow ops of {self.name} cannot be run on new inputs: wrap them in a "
            "`tf.keras.layers.Lambda` layer to call the model on other tensors."
        )

    def count_params(self):
        return 0


def _fed_by_keras(tensor):
    """Whether a Keras tensor is upstream of `tensor` in the graph."""
    seen, stack = set(), list(tensor.op.inputs)
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if base.keras_history(t) is not None:
            return True
        stack.extend(t.op.inputs)
    return False


def _wrap_tf_ops(tensor):
    """Keras history for a tensor computed by plain TensorFlow ops from Keras tensors (one TensorFlowOpLayer per
    op, as TF 1.15), or None if no Keras tensor feeds it."""
    if not _fed_by_keras(tensor):
        return None
    inputs = [t for t in tensor.op.inputs if base.keras_history(t) is not None or _wrap_tf_ops(t) is not None]
    base.Node(TensorFlowOpLayer(tensor.op.name), inputs, list(tensor.op.outputs))
    return base.keras_history(tensor)


def _map_graph_network(inputs, outputs):
    nodes, layer_indices = _build_map(outputs)
    node_depths, layer_depths = {}, {}
    node_by_id = {}
    for node in reversed(nodes):
        node_by_id[id(node)] = node
        depth = node_depths.setdefault(id(node), 0)
        depth = max(depth, layer_depths.get(node.layer, 0))
        layer_depths[node.layer] = depth
        node_depths[id(node)] = depth
        for parent in node.parent_nodes:
            node_depths[id(parent)] = max(depth + 1, node_depths.get(id(parent), 0))
            node_by_id[id(parent)] = parent
    for t in inputs:
        layer = base.keras_history(t)[0]
        if layer not in layer_depths:
            layer_depths[layer] = 0
            layer_indices[layer] = -1
            node_depths[id(layer._inbound_nodes[0])] = 0
            node_by_id[id(layer._inbound_nodes[0])] = layer._inbound_nodes[0]
    nodes_by_depth = collections.defaultdict(list)
    for node_id, depth in node_depths.items():
        nodes_by_depth[depth].append(node_by_id[node_id])
    layers_by_depth = collections.defaultdict(list)
    for layer, depth in layer_depths.items():
        layers_by_depth[depth].append(layer)
    layers = []
    for depth in sorted(layers_by_depth, reverse=True):
        layers.extend(sorted(layers_by_depth[depth], key=lambda layer: layer_indices[layer]))
    # Every tensor a node needs must be computable from the inputs.
    computable = {id(t) for t in inputs}
    for depth in sorted(nodes_by_depth, reverse=True):
        for node in nodes_by_depth[depth]:
            if node.is_input:
                continue
            for t in node.input_tensors:
                if id(t) not in computable:
                    raise ValueError(
                        f"Graph disconnected: cannot obtain value for tensor {t} at layer "
                        f'"{node.layer.name}". The following previous layers were accessed without issue: '
                        f"{[layer.name for layer in layers if layer_depths[layer] > depth][:10]}"
                    )
            computable.update(id(t) for t in node.output_tensors)
    return dict(nodes_by_depth), layers


# --- Model ---


class _CallContext:
    pass


class Model(Layer):
    """A Keras model: functional (`Model(inputs, outputs)`) or subclassed (`call(inputs, training=None)`), with
    `compile`, `fit`, `evaluate`, `predict`, `summary` and weight saving.

    Example:
      >>> import numpy as np, tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.keras.Input((3,))
      ...     model = tw.keras.Model(x, tw.keras.layers.Dense(2)(x))
      ...     print([layer.name for layer in model.layers], model.count_params())
      ['input_1', 'dense'] 8
    """

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if len(args) > 0 else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        name = kwargs.pop("name", None)
        trainable = kwargs.pop("trainable", True)
        self._is_graph_network = inputs is not None and outputs is not None
        prefix = base._snake(type(self).__name__)
        if type(self) in (Model, Functional):
            prefix = "model"
        Layer.__init__(self, name=name or _unique_name(prefix), trainable=trainable, **kwargs)
        self.stop_training = False
        self.optimizer = None
        self._compiled = False
        self._compiled_graph = None
        self.history = None
        self.inputs, self.outputs = None, None
        if self._is_graph_network:
            self._init_graph_network(inputs, outputs)

    # --- structure ---

    def _init_graph_network(self, inputs, outputs):
        self._nested_inputs, self._nested_outputs = inputs, outputs
        if isinstance(inputs, dict):
            inputs = list(inputs.values())
        flat_inputs = []
        for t in _to_list(inputs):
            history = base.keras_history(t)
            if history is None or not isinstance(history[0], InputLayer):
                if history is None and isinstance(t, ops.Tensor) and t.op.type in ("Placeholder", "PlaceholderV2"):
                    t = InputLayer(input_tensor=t, name=t.op.name).input
                elif history is None:
                    raise ValueError(
                        "Input tensors to a Functional model must come from `tf.keras.Input`. Received: "
                        f"{t} (missing previous layer metadata)."
                    )
            flat_inputs.append(t)
        flat_outputs = _to_list(outputs) if not isinstance(outputs, dict) else list(outputs.values())
        self.inputs, self.outputs = flat_inputs, flat_outputs
        self._nodes_by_depth, self._layers = _map_graph_network(flat_inputs, flat_outputs)
        self._input_layers = [base.keras_history(t)[0] for t in flat_inputs]
        self._output_layers = [base.keras_history(t)[0] for t in flat_outputs]
        self.input_names = [layer.name for layer in self._input_layers]
        self.output_names = _output_names(self._output_layers)
        self.built = True

    @property
    def layers(self):
        if self._is_graph_network:
            return list(self._layers)
        return [layer for layer in self.__dict__.get("_tracked_layers", [])]

    def get_layer(self, name=None, index=None):
        """A layer by `name` or by `index` in `layers`."""
        if index is not None and name is not None:
            raise ValueError(f"Provide only a layer name or a layer index. Received: index={index}, name={name}.")
        if index is not None:
            if len(self.layers) <= index:
                raise ValueError(
                    f"Was asked to retrieve layer at index {index} but model only has {len(self.layers)} layers."
                )
            return self.layers[index]
        if name is not None:
            for layer in self.layers:
                if layer.name == name:
                    return layer
            raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")
        raise ValueError("Provide either a layer name or layer index at `get_layer`.")

    @property
    def weights(self):
        if self._is_graph_network or not self._variables:
            return _unique([w for layer in self.layers for w in layer.weights] + list(self._variables))
        return list(self._variables)

    variables = weights

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        if self._is_graph_network or not self._variables:
            return _unique([w for layer in self.layers for w in layer.trainable_weights])
        trainable = {id(v) for v in variables_lib.trainable_variables()}
        frozen = {id(w) for layer in self._all_sublayers() if not layer.trainable for w in layer.weights}
        return [v for v in self._variables if id(v) in trainable and id(v) not in frozen]

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self):
        trainable = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in trainable]

    non_trainable_variables = non_trainable_weights

    def _all_sublayers(self):
        out = []
        for layer in self.layers:
            out.append(layer)
            if isinstance(layer, Model):
                out.extend(layer._all_sublayers())
        return out

    @property
    def losses(self):
        out = list(self._losses) + list(self._extra_losses)
        for layer in self.layers:
            out += layer.losses
        return _unique(out)

    @property
    def updates(self):
        out = list(self._updates) + list(self._extra_updates)
        for layer in self.layers:
            if layer.trainable or isinstance(layer, Model):
                out += layer.updates
        return _unique(out)

    def count_params(self):
        if not self.built:
            raise ValueError(
                "You tried to call `count_params` on " + self.name + ", but the layer isn't built. You can "
                "build it manually via: `" + self.name + ".build(batch_input_shape)`."
            )
        return _count(self.weights)

    def get_weights(self):
        return _get_values(self.weights)

    def set_weights(self, weights):
        _set_weights(self.weights, weights, self.name)

    # --- calling ---

    def call(self, inputs, training=None, mask=None):
        if not self._is_graph_network:
            raise NotImplementedError("When subclassing the `Model` class, you should implement a `call()` method.")
        return self._run_internal_graph(inputs, training)

    def _run_internal_graph(self, inputs, training=None):
        if isinstance(inputs, dict):
            inputs = [inputs[name] for name in self.input_names]
        new_inputs = _to_list(inputs)
        if len(new_inputs) != len(self.inputs):
            raise ValueError(
                f'Layer "{self.name}" expects {len(self.inputs)} input(s), but it received {len(new_inputs)} input '
                f"tensors. Inputs received: {new_inputs}"
            )
        mapping = {}
        for t, new in zip(self.inputs, new_inputs):
            mapping[id(t)] = ops.convert_to_tensor(new)

        def look_up(x):
            return mapping.get(id(x), x) if isinstance(x, ops.Tensor) else x

        for depth in sorted(self._nodes_by_depth, reverse=True):
            for node in self._nodes_by_depth[depth]:
                if node.is_input or isinstance(node.layer, InputLayer):
                    continue
                if not all(id(t) in mapping for t in node.input_tensors):
                    continue
                args = _map_structure(look_up, node.call_inputs)
                call_args = _map_structure(look_up, list(node.call_args))
                call_kwargs = _map_structure(look_up, dict(node.call_kwargs))
                if training is not None and "training" in call_kwargs and call_kwargs["training"] is None:
                    call_kwargs["training"] = training
                out = node.layer(args, *call_args, **call_kwargs)
                for t, new in zip(node.output_tensors, [o for o in base._flatten(out) if isinstance(o, ops.Tensor)]):
                    mapping[id(t)] = new
        outs = [mapping[id(t)] for t in self.outputs]
        if isinstance(self._nested_outputs, dict):
            return dict(zip(self._nested_outputs, outs))
        if isinstance(self._nested_outputs, (list, tuple)):
            return outs
        return outs[0]

    def __call__(self, inputs, *args, **kwargs):
        if self._is_graph_network:
            out = self._run_internal_graph(inputs, kwargs.get("training"))
            base.Node(self, inputs, out, args, kwargs)
            return out
        out = super().__call__(inputs, *args, **kwargs)
        flat = _to_list(inputs)
        if self.inputs is None and not self._building and flat and all(isinstance(t, ops.Tensor) for t in flat):
            # As tf_keras's v1 layers: a subclassed model's first call on graph tensors makes them (and what the
            # call gave, with its `training` argument) the model's inputs and outputs, which fit/evaluate/predict
            # then feed and fetch.
            self.inputs = flat
            self.outputs = _to_list(out)
            self._nested_outputs = out
            self.input_names = [f"input_{i + 1}" for i in range(len(flat))]
            self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]
        return out

    _building = False

    def _apply(self, inputs, scope_name, reuse, *args, **kwargs):
        from tensorweave._src.layers import core

        with core._scope(scope_name, None, reuse):
            self.built = True
            return self.call(inputs, *args, **kwargs)

    def build(self, input_shape):
        if self._is_graph_network:
            self.built = True
            return
        if input_shape is None:
            raise ValueError("Input shape must be defined when calling `build()` on a `Model` subclass.")
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        placeholders = [
            array_ops.placeholder(dtypes.float32, list(s.as_list() if hasattr(s, "as_list") else s)) for s in shapes
        ]
        if not self.built:
            self.built = True
            self._building = True
            try:
                self(placeholders if isinstance(input_shape, list) else placeholders[0])
            finally:
                self._building = False

    @property
    def input_shape(self):
        if self.inputs is None:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined input shape.")
        shapes = [_shape_tuple(t) for t in self.inputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_shape(self):
        if self.outputs is None:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined output shape.")
        shapes = [_shape_tuple(t) for t in self.outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def input(self):
        if self.inputs is None:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
        return self.inputs[0] if len(self.inputs) == 1 else list(self.inputs)

    @property
    def output(self):
        if self.outputs is None:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        return self.outputs[0] if len(self.outputs) == 1 else list(self.outputs)

    # --- building on data (subclassed and deferred Sequential models) ---

    def _ensure_built_on(self, x):
        """Builds the inputs/outputs of a model that has none yet from numpy inputs `x`: a list, or a dict of named
        features (a model whose first layer takes a dict, such as DenseFeatures), called with a dict of
        placeholders of those names."""
        if self.inputs is not None:
            return
        names = list(x) if isinstance(x, dict) else [f"input_{i + 1}" for i in range(len(x))]
        placeholders = []
        for name, a in zip(names, x.values() if isinstance(x, dict) else x):
            a = np.asarray(a)
            if isinstance(x, dict) and a.ndim == 1:
                a = a[:, None]  # as tf_keras: a feature's 1-D array is a column
            kind = a.dtype.kind
            dtype = dtypes.string if kind in "USO" else dtypes.as_dtype(backend.floatx() if kind == "f" else a.dtype)
            with ops.name_scope(None):
                placeholders.append(array_ops.placeholder(dtype, [None] + list(a.shape[1:]), name=name))
        self._building = True
        try:
            if isinstance(x, dict):
                outputs = self(dict(zip(names, placeholders)))
            else:
                outputs = self(placeholders if len(placeholders) > 1 else placeholders[0])
        finally:
            self._building = False
        self.inputs = placeholders
        self.outputs = _to_list(outputs)
        self._nested_outputs = outputs
        self.input_names = names
        self.output_names = [f"output_{i + 1}" for i in range(len(self.outputs))]

    # --- training ---

    def compile(
        self,
        optimizer="rmsprop",
        loss=None,
        metrics=None,
        loss_weights=None,
        sample_weight_mode=None,
        weighted_metrics=None,
        target_tensors=None,
        **kwargs,
    ):
        """Configures training: optimizer, loss(es) per output, metrics, loss weights."""
        from tensorweave._src.keras import losses as losses_mod
        from tensorweave._src.keras import optimizers

        kwargs.pop("run_eagerly", None)
        kwargs.pop("experimental_run_tf_function", None)
        if kwargs:
            raise TypeError(f"Invalid keyword argument(s) in `compile()`: {tuple(kwargs)}")
        self.optimizer = optimizers.get(optimizer)
        self.loss = loss
        self._loss_spec = loss
        self._losses_get = losses_mod.get
        for identifier in _flat_spec(loss):
            if identifier is not None:
                losses_mod.get(identifier)  # unknown names fail here, as in tf_keras
        self._metrics_spec = metrics
        self._weighted_metrics_spec = weighted_metrics
        self.loss_weights = loss_weights
        self.sample_weight_mode = sample_weight_mode
        if getattr(self, "output_names", None) and self.outputs is not None:
            _per_output(loss, self.output_names, "loss")
            _per_output(loss_weights, self.output_names, "loss_weights")
            _per_output(metrics, self.output_names, "metrics", nested=True)
        self._compiled = True
        self._train_function = self._test_function = self._predict_function = None
        self._compiled_graph = None
        if self.inputs is not None and self.outputs is not None:
            self._build_training_graph()  # as TF1 Keras: metrics_names, total_loss exist after compile

    def _build_training_graph(self):
        if self._compiled_graph is not None:
            return
        if not self._compiled:
            raise RuntimeError(
                "You must compile your model before training/testing. Use `model.compile(optimizer, loss)`."
            )
        from tensorweave._src.keras import losses as losses_mod
        from tensorweave._src.keras import metrics as metrics_mod
        from tensorweave._src.keras import optimizers

        tw = _tw()
        names = self.output_names
        loss_fns = _per_output(self._loss_spec, names, "loss")
        weights = _per_output(self.loss_weights, names, "loss_weights", default=1.0)
        metric_specs = _per_output(self._metrics_spec, names, "metrics", default=None, nested=True)
        weighted_specs = _per_output(self._weighted_metrics_spec, names, "weighted_metrics", default=None, nested=True)
        targets, sample_weights, output_losses, metric_tensors = [], [], [], []
        self._stateful_metrics = []
        self._loss_names = ["loss"]
        for i, (out, name) in enumerate(zip(self.outputs, names)):
            fn = loss_fns[i]
            if fn is None:
                targets.append(None)
                sample_weights.append(None)
                continue
            fn = losses_mod.get(fn)
            with ops.name_scope(None):
                shape = [None] * out.shape.ndims
                if _is_sparse_loss(fn):
                    shape[-1] = 1
                target = array_ops.placeholder(out.dtype.base_dtype, shape, name=f"{name}_target")
                sw = array_ops.placeholder(dtypes.float32, [None], name=f"{name}_sample_weights")
            targets.append(target)
            sample_weights.append(sw)
            # An output's Keras mask (Embedding(mask_zero=True) and the layers after it) weights its loss as
            # tf_keras's does (the mean over the unmasked steps) and its metrics (the mask as their sample weights).
            mask = losses_mod.get_keras_mask(out)
            masked_sw = _mask_weights(sw, mask, out) if mask is not None else None
            with ops.name_scope(f"loss/{name}_loss"):
                if hasattr(fn, "reduction") and hasattr(fn, "call"):
                    value = fn(target, out, sample_weight=sw)
                elif mask is not None:
                    per_sample = tw.cast(fn(target, out), tw.float32)
                    w = losses_mod._apply_valid_mask(per_sample, sw, mask, losses_mod.ReductionV2.SUM_OVER_BATCH_SIZE)
                    value = losses_mod.compute_weighted_loss(per_sample, w)
                else:
                    per_sample = fn(target, out)
                    w = sw
                    for _ in range(max(per_sample.shape.ndims or 1, 1) - 1):
                        w = tw.expand_dims(w, -1)
                    weighted = tw.cast(per_sample, tw.float32) * w
                    value = tw.reduce_sum(weighted) / tw.cast(tw.size(weighted), tw.float32)
            output_losses.append((name, value, weights[i]))
            prefix = f"{name}_" if len(self.outputs) > 1 else ""
            for spec, weighted in [(m, False) for m in metric_specs[i] or []] + [
                (m, True) for m in weighted_specs[i] or []
            ]:
                metric_fn, metric_name = _resolve_metric(spec, fn, out, metrics_mod)
                metric_name = ("weighted_" if weighted else "") + metric_name
                if isinstance(metric_fn, metrics_mod.Metric):
                    # A stateful metric: its result after each batch's update; the epoch's value is the last.
                    self._stateful_metrics.append(metric_fn)
                    metric_sw = sw if weighted else None
                    if mask is not None:
                        metric_sw = masked_sw if weighted else _mask_weights(None, mask, out)
                    result = metric_fn(target, out, sample_weight=metric_sw)
                    metric_tensors.append((prefix + metric_name, tw.cast(result, tw.float32), "last"))
                    continue
                with ops.name_scope(f"metrics/{metric_name}"):
                    values = tw.cast(metric_fn(target, out), tw.float32)
                    if weighted or mask is not None:
                        w = (masked_sw if weighted else _mask_weights(None, mask, out)) if mask is not None else sw
                        for _ in range(max(values.shape.ndims or 1, 1) - max(w.shape.ndims or 1, 1)):
                            w = tw.expand_dims(w, -1)
                        w = tw.cast(w, tw.float32) * tw.ones_like(values)
                        value = (tw.reduce_sum(values * w), tw.reduce_sum(w))
                    else:  # as Keras' MeanMetricWrapper: a function returning a scalar counts once per batch
                        value = (tw.reduce_sum(values), tw.cast(tw.size(values), tw.float32))
                metric_tensors.append((prefix + metric_name, value, "ratio"))
        if not output_losses:
            raise ValueError("The model cannot be compiled because it has no loss to optimize.")
        with ops.name_scope("loss"):
            total = tw.add_n([value * w if w != 1.0 else value for _, value, w in output_losses])
            extra = [tw.cast(loss, tw.float32) for loss in self.losses]
            if extra:
                total = total + tw.add_n(extra)
        self.total_loss = total
        # How each value aggregates over an epoch, as tf_keras's v1 loops: the loss by batch size, per-output
        # losses as the plain mean of batches, metrics over all the values their functions gave (weighted ones over
        # all weights).
        self._fetch_names, self._fetch_tensors, self._fetch_kinds = ["loss"], [total], ["size"]
        if len(output_losses) > 1:
            for name, value, _ in output_losses:
                self._fetch_names.append(f"{name}_loss")
                self._fetch_tensors.append(value)
                self._fetch_kinds.append("batch")
        self._first_metric = len(self._fetch_names)
        for name, tensor, kind in metric_tensors:
            self._fetch_names.append(name)
            self._fetch_tensors.append(tensor)
            self._fetch_kinds.append(kind)
        self.metrics_names = list(self._fetch_names)
        self._targets, self._sample_weights = targets, sample_weights
        params = self.trainable_weights
        with ops.name_scope("training"):
            if isinstance(self.optimizer, optimizers.Optimizer):
                updates = self.optimizer.get_updates(total, params)
            else:
                updates = [self.optimizer.minimize(total, var_list=params)]
            train_op = tw.group(*(list(updates) + list(self.updates)))
            constrained = [v for v in params if getattr(v, "constraint", None) is not None]
            if constrained:
                with ops.control_dependencies([train_op]):
                    train_op = tw.group(*[v.assign(v.constraint(v)) for v in constrained])
            self._train_op = train_op
        _initialize_new_variables()
        self._compiled_graph = ops.get_default_graph()

    # --- data ---

    def _standardize_x(self, x):
        if x is None:
            raise ValueError("Please provide data as numpy arrays (`x`).")
        if isinstance(x, dict):
            self._ensure_built_on(x)
            missing = [n for n in self.input_names if n not in x]
            if missing:
                raise ValueError(f'No data provided for "{missing[0]}". Need data for each key in: {self.input_names}')
            x = [x[n] for n in self.input_names]
        x = [np.asarray(a) for a in _to_list(x)] if isinstance(x, (list, tuple)) else [np.asarray(x)]
        if self.inputs is not None and len(x) == len(self.inputs):
            # As tf_keras: a 1-D array is a column (n, 1) unless the input is 1-D itself.
            x = [a[:, None] if a.ndim == 1 and t.shape.ndims != 1 else a for a, t in zip(x, self.inputs)]
        self._ensure_built_on(x)
        _check_arrays(x, self.inputs, self.input_names, "input")
        return x

    def _standardize_y(self, y):
        if y is None:
            raise ValueError("Please provide data as numpy arrays (`y`).")
        if isinstance(y, dict):
            y = [y.get(n) for n in self.output_names]
        ys = (
            [np.asarray(a) if a is not None else None for a in _to_list(y)]
            if isinstance(y, (list, tuple))
            else [np.asarray(y)]
        )
        if len(ys) != len(self.outputs):
            raise ValueError(
                f"Error when checking model target: the list of Numpy arrays that you are passing to your model is "
                f"not the size the model expected. Expected to see {len(self.outputs)} array(s), but instead got "
                f"{len(ys)} arrays."
            )
        out = []
        loss_specs = _per_output(self._loss_spec, self.output_names, "loss")
        for a, target, t, name, spec in zip(ys, self._targets, self.outputs, self.output_names, loss_specs):
            if target is None or a is None:
                out.append(None)
                continue
            if a.ndim == t.shape.ndims - 1:
                a = a[..., None]
            sparse = t.shape.as_list()[-1:] != [1] and a.shape[-1:] == (1,)
            shape_checked_loss = _shape_checked_loss_name(spec)
            if shape_checked_loss is not None and t.shape.ndims is not None:
                _check_loss_target(a, t, shape_checked_loss)
            elif not sparse:
                _check_arrays([a], [t], [name], "target")
            out.append(a)
        return out

    def _sample_weight_arrays(self, ys, sample_weight, class_weight):
        n = len(next(a for a in ys if a is not None))
        out = []
        sws = sample_weight if isinstance(sample_weight, (list, tuple)) else [sample_weight] * len(ys)
        if isinstance(sample_weight, dict):
            sws = [sample_weight.get(n) for n in self.output_names]
        cws = class_weight if isinstance(class_weight, (list, tuple)) else [class_weight] * len(ys)
        if isinstance(class_weight, dict) and any(n in class_weight for n in self.output_names):
            cws = [class_weight.get(n) for n in self.output_names]
        for a, sw, cw in zip(ys, sws, cws):
            w = np.ones(n, np.float32) if sw is None else np.asarray(sw, np.float32).reshape(-1)
            if sw is not None and len(w) != n:
                raise ValueError(
                    f"Found a sample_weight array with shape {np.shape(sw)} for an input with shape {np.shape(a)}. sample_weight cannot be broadcast."
                )
            if cw and a is not None:
                classes = np.argmax(a, axis=-1) if a.shape[-1] > 1 else a.reshape(n, -1)[:, 0].astype(int)
                missing = {int(c) for c in classes.reshape(-1)} - set(cw)
                if missing:
                    raise ValueError(
                        "`class_weight` must contain all classes in the data. The classes "
                        f"{missing} exist in the data but not in `class_weight`."
                    )
                w = w * np.asarray([cw[int(c)] for c in classes.reshape(-1)], np.float32)
            out.append(w)
        return out

    def _feed(self, xs, ys, sws, idx, training):
        phase = backend.learning_phase()
        feed = {phase: training} if phase.op.type.startswith("Placeholder") else {}
        for t, a in zip(self.inputs, xs):
            feed[t] = a[idx]
        if ys is not None:
            for target, sw, a, w in zip(self._targets, self._sample_weights, ys, sws):
                if target is not None:
                    feed[target] = a[idx]
                    feed[sw] = w[idx]
        return feed

    def _run_batches(self, xs, ys, sws, batch_size, training, shuffle=False, callbacks=None, carry=None):
        n = len(xs[0])
        order = np.arange(n)
        if shuffle == "batch":
            blocks = [order[i : i + batch_size] for i in range(0, n, batch_size)]
            np.random.shuffle(blocks)
            order = np.concatenate(blocks) if blocks else order
        elif shuffle:
            order = np.random.permutation(n)
        feeds = (
            (
                self._feed(xs, ys, sws, order[start : start + batch_size], training),
                len(order[start : start + batch_size]),
            )
            for start in range(0, n, batch_size)
        )
        return self._run_loop(feeds, training, callbacks, carry)

    def _run_loop(self, feeds, training, callbacks=None, carry=None):
        """Runs the train (or test) step on each (feed, batch size); the epoch's logs aggregated as tf_keras's.

        The compiled metrics' totals are left in `_metric_totals` (tf_keras's v1 metrics keep their state after
        fit / evaluate until reset); `carry=True` starts from them, as train_on_batch / test_on_batch do."""
        sess = backend.get_session()
        mode = "train" if training else "test"
        for metric in getattr(self, "_stateful_metrics", []):
            metric.reset_states()
        sums = counts = fetches = None
        for b, (feed, size) in enumerate(feeds):
            if fetches is None:
                fetches = list(self._fetch_tensors) + ([self._train_op] if training else [])
                sums, counts = np.zeros(len(fetches)), np.zeros(len(fetches))
                left = getattr(self, "_metric_totals", None) if carry else None
                if left is not None and len(left[0]) == len(self._fetch_kinds):
                    for i in range(self._first_metric, len(self._fetch_kinds)):
                        if self._fetch_kinds[i] in ("size", "ratio"):
                            sums[i], counts[i] = left[0][i], left[1][i]
            logs = {"batch": b, "size": size}
            if callbacks is not None:
                callbacks._call_batch("begin", mode, b, logs)
            values = sess.run(fetches, feed)
            for i, (kind, value) in enumerate(zip(self._fetch_kinds, values)):
                if kind == "ratio":
                    sums[i] += value[0]
                    counts[i] += value[1]
                    logs[self._fetch_names[i]] = float(value[0] / max(value[1], 1e-12))
                elif kind == "last":
                    sums[i], counts[i] = float(value), 1
                    logs[self._fetch_names[i]] = float(value)
                else:
                    weight = 1 if kind == "batch" else size
                    sums[i] += float(value) * weight
                    counts[i] += weight
                    logs[self._fetch_names[i]] = float(value)
            if callbacks is not None:
                callbacks._call_batch("end", mode, b, logs)
            if training and self.stop_training:
                break
        if fetches is None:
            raise ValueError("No data to run on: the inputs (or the generator) gave no batch.")
        self._metric_totals = (sums[: len(self._fetch_kinds)].copy(), counts[: len(self._fetch_kinds)].copy())
        return {k: float(v / max(c, 1e-12)) for k, v, c in zip(self._fetch_names, sums, counts)}

    def _generator_feeds(self, generator, steps, training, class_weight=None):
        """(feed, size) for each batch a generator or keras.utils.Sequence gives: (x, y) or (x, y, sample_weight)."""
        if isinstance(generator, _DatasetBatches):
            batches = generator.batches(restart=steps is None)
            generator = _Steps(batches)
            steps = steps if steps is not None else sys.maxsize
        if steps is None:
            if not hasattr(generator, "__len__") or not hasattr(generator, "__getitem__"):
                raise ValueError(
                    "`steps_per_epoch=None` is only valid for a generator based on the `keras.utils.Sequence` class. "
                    "Please specify `steps_per_epoch` or use the `keras.utils.Sequence` class."
                )
            steps = len(generator)
        if hasattr(generator, "__getitem__") and hasattr(generator, "__len__"):
            batches = (generator[i % len(generator)] for i in range(steps))
        else:
            batches = iter(generator)
        for _ in range(steps):
            try:
                batch = next(batches)
            except StopIteration:
                return
            if isinstance(batch, tuple) and len(batch) == 1:
                raise ValueError("Please provide model targets: the dataset gives only inputs.")
            if not isinstance(batch, tuple) or len(batch) not in (2, 3):
                raise ValueError(
                    "Output of generator should be a tuple `(x, y, sample_weight)` or `(x, y)`. Found: "
                    + str(batch)[:100]
                )
            x, y = batch[0], batch[1]
            xs = self._standardize_x(x)
            self._build_training_graph()
            ys = self._standardize_y(y)
            _check_sample_counts(xs, ys)
            sws = self._sample_weight_arrays(ys, batch[2] if len(batch) == 3 else None, class_weight)
            yield self._feed(xs, ys, sws, slice(None), training), len(xs[0])

    def fit_generator(
        self,
        generator,
        steps_per_epoch=None,
        epochs=1,
        verbose=1,
        callbacks=None,
        validation_data=None,
        validation_steps=None,
        validation_freq=1,
        class_weight=None,
        max_queue_size=10,
        workers=1,
        use_multiprocessing=False,
        shuffle=True,
        initial_epoch=0,
    ):
        """Trains on the batches a Python generator (or `keras.utils.Sequence`) gives, `steps_per_epoch` a epoch."""
        from tensorweave._src.keras import callbacks as callbacks_mod

        if _is_dataset(validation_data):  # a tw.data Dataset, read with validation_steps as tf_keras does
            validation_data = _DatasetBatches(validation_data)
        val_is_generator = validation_data is not None and not isinstance(validation_data, (tuple, list))
        self.history = callbacks_mod.History()
        cbs = callbacks_mod.CallbackList(
            _to_list(callbacks) + [self.history],
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=epochs,
            steps=steps_per_epoch,
        )
        cbs.params["metrics"] = None
        self.stop_training = False
        cbs.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            cbs.on_epoch_begin(epoch)
            logs = self._run_loop(self._generator_feeds(generator, steps_per_epoch, True, class_weight), True, cbs)
            cbs.params["metrics"] = list(self._fetch_names)
            if validation_data is not None and (epoch + 1) % validation_freq == 0:
                if val_is_generator:
                    val_logs = self._run_loop(self._generator_feeds(validation_data, validation_steps, False), False)
                else:
                    vxs, vys = self._standardize_x(validation_data[0]), self._standardize_y(validation_data[1])
                    vsw = validation_data[2] if len(validation_data) > 2 else None
                    val_logs = self._run_batches(vxs, vys, self._sample_weight_arrays(vys, vsw, None), 32, False)
                logs.update({"val_" + k: v for k, v in val_logs.items()})
            if hasattr(generator, "on_epoch_end"):
                generator.on_epoch_end()
            cbs.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        cbs.on_train_end()
        return self.history

    def evaluate_generator(
        self, generator, steps=None, callbacks=None, max_queue_size=10, workers=1, use_multiprocessing=False, verbose=0
    ):
        """The loss (and metrics) over the batches of a generator, as `evaluate`."""
        logs = self._run_loop(self._generator_feeds(generator, steps, False), False)
        values = [logs[k] for k in self._fetch_names]
        return values[0] if len(values) == 1 else values

    def predict_generator(
        self, generator, steps=None, callbacks=None, max_queue_size=10, workers=1, use_multiprocessing=False, verbose=0
    ):
        """The outputs for the inputs a generator gives (batches of x, or (x, ...) tuples)."""
        if steps is None:
            if not hasattr(generator, "__len__"):
                raise ValueError(
                    "`steps=None` is only valid for a generator based on the `keras.utils.Sequence` class."
                )
            steps = len(generator)
        it = (generator[i] for i in range(steps)) if hasattr(generator, "__getitem__") else iter(generator)
        parts = []
        for _ in range(steps):
            try:
                batch = next(it)
            except StopIteration:
                break
            x = batch[0] if isinstance(batch, tuple) else batch
            out = self.predict(x, batch_size=len(_to_list(x)[0]) if not isinstance(x, dict) else None)
            parts.append(_to_list(out) if isinstance(out, list) else [out])
        outs = [np.concatenate([p[i] for p in parts]) for i in range(len(parts[0]))]
        return outs[0] if len(outs) == 1 else outs

    def fit(
        self,
        x=None,
        y=None,
        batch_size=None,
        epochs=1,
        verbose=1,
        callbacks=None,
        validation_split=0.0,
        validation_data=None,
        shuffle=True,
        class_weight=None,
        sample_weight=None,
        initial_epoch=0,
        steps_per_epoch=None,
        validation_steps=None,
        validation_freq=1,
        **kwargs,
    ):
        """Trains the model on numpy data for `epochs` epochs; returns a `History`."""
        from tensorweave._src.keras import callbacks as callbacks_mod

        if kwargs:
            raise TypeError(f"Invalid keyword argument(s) in `fit()`: {tuple(kwargs)}")
        if _is_dataset(x):
            _unpack_dataset(x, y)
            x = _DatasetBatches(x)
        if _is_generator(x) or isinstance(x, _DatasetBatches):
            return self.fit_generator(
                x,
                steps_per_epoch,
                epochs,
                verbose,
                callbacks,
                validation_data,
                validation_steps,
                validation_freq,
                class_weight,
                initial_epoch=initial_epoch,
            )
        x, y = _unpack_dataset(x, y)
        xs = self._standardize_x(x)
        self._build_training_graph()
        ys = self._standardize_y(y)
        _check_sample_counts(xs, ys)
        sws = self._sample_weight_arrays(ys, sample_weight, class_weight)
        batch_size = _batch_size(batch_size)
        val = val_batches = None
        if _is_dataset(validation_data):  # read with validation_steps, as tf_keras does
            val_batches = _DatasetBatches(validation_data)
        elif validation_data is not None:
            vx, vy = validation_data[0], validation_data[1]
            vsw = validation_data[2] if len(validation_data) > 2 else None
            vxs, vys = self._standardize_x(vx), self._standardize_y(vy)
            val = (vxs, vys, self._sample_weight_arrays(vys, vsw, None))
        elif validation_split and 0.0 < validation_split < 1.0:
            split = int(len(xs[0]) * (1.0 - validation_split))
            val = (
                [a[split:] for a in xs],
                [a[split:] if a is not None else None for a in ys],
                [w[split:] for w in sws],
            )
            xs, ys, sws = (
                [a[:split] for a in xs],
                [a[:split] if a is not None else None for a in ys],
                [w[:split] for w in sws],
            )
        validating = val is not None or val_batches is not None
        metric_names = list(self._fetch_names) + (["val_" + n for n in self._fetch_names] if validating else [])
        self.history = callbacks_mod.History()
        cbs = callbacks_mod.CallbackList(
            _to_list(callbacks) + [self.history],
            add_progbar=verbose != 0,
            model=self,
            verbose=verbose,
            epochs=epochs,
            steps=steps_per_epoch,
            samples=len(xs[0]),
            batch_size=batch_size,
            do_validation=validating,
            metrics=metric_names,
        )
        if verbose == 1 or verbose == 2:
            message = f"Train on {len(xs[0])} samples"
            if val is not None:
                message += f", validate on {len(val[0][0])} samples"
            elif val_batches is not None:
                message += f", validate on {validation_steps} steps"
            print(message)
        self.stop_training = False
        cbs.on_train_begin()
        for epoch in range(initial_epoch, epochs):
            cbs.on_epoch_begin(epoch)
            logs = self._run_batches(xs, ys, sws, batch_size, True, shuffle, cbs)
            if (
                validating and (epoch + 1) % validation_freq == 0
                if isinstance(validation_freq, int)
                else epoch + 1 in validation_freq
            ):
                if val_batches is not None:
                    val_logs = self._run_loop(self._generator_feeds(val_batches, validation_steps, False), False)
                else:
                    val_logs = self._run_batches(*val, batch_size, False)
                logs.update({"val_" + k: v for k, v in val_logs.items()})
            cbs.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        cbs.on_train_end()
        return self.history

    def evaluate(
        self,
        x=None,
        y=None,
        batch_size=None,
        verbose=1,
        sample_weight=None,
        steps=None,
        callbacks=None,
        return_dict=False,
        **kwargs,
    ):
        """The loss (and metrics) on `x`, `y`: a scalar, or a list in the order of `metrics_names`."""
        x, y = _unpack_dataset(x, y)
        if _is_dataset(x) or _is_generator(x):
            return self.evaluate_generator(_DatasetBatches(x) if _is_dataset(x) else x, steps)
        xs = self._standardize_x(x)
        self._build_training_graph()
        ys = self._standardize_y(y)
        _check_sample_counts(xs, ys)
        sws = self._sample_weight_arrays(ys, sample_weight, None)
        logs = self._run_batches(xs, ys, sws, _batch_size(batch_size), False)
        if return_dict:
            return logs
        values = [logs[k] for k in self._fetch_names]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose=0, steps=None, callbacks=None, **kwargs):
        """The outputs for numpy inputs `x`, computed in batches of `batch_size` (32)."""
        if _is_dataset(x):
            return self.predict_generator(_Steps(_DatasetBatches(x).batches(True)), steps or sys.maxsize)
        if _is_generator(x):
            return self.predict_generator(x, steps)
        xs = self._standardize_x(x)
        batch_size = _batch_size(batch_size)
        sess = backend.get_session()
        _initialize_new_variables()
        parts = [[] for _ in self.outputs]
        n = len(xs[0])
        for start in range(0, n, batch_size):
            idx = np.arange(start, min(start + batch_size, n))
            values = sess.run(self.outputs, self._feed(xs, None, None, idx, False))
            for p, v in zip(parts, values):
                p.append(v)
        outs = [np.concatenate(p, axis=0) if p else np.zeros((0,)) for p in parts]
        return outs[0] if len(outs) == 1 else outs

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, reset_metrics=True, return_dict=False):
        xs = self._standardize_x(x)
        self._build_training_graph()
        ys = self._standardize_y(y)
        _check_sample_counts(xs, ys)
        sws = self._sample_weight_arrays(ys, sample_weight, class_weight)
        logs = self._run_batches(xs, ys, sws, len(xs[0]), True, carry=True)
        if reset_metrics:
            self._metric_totals = None
        return _batch_result(logs, self._fetch_names, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, reset_metrics=True, return_dict=False):
        xs = self._standardize_x(x)
        self._build_training_graph()
        ys = self._standardize_y(y)
        _check_sample_counts(xs, ys)
        sws = self._sample_weight_arrays(ys, sample_weight, None)
        logs = self._run_batches(xs, ys, sws, len(xs[0]), False, carry=True)
        if reset_metrics:
            self._metric_totals = None
        return _batch_result(logs, self._fetch_names, return_dict)

    def predict_on_batch(self, x):
        return self.predict(x, batch_size=len(_to_list(x)[0]) if not isinstance(x, dict) else None)

    # --- summary, config, saving ---

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False):
        """Prints a table of the layers, their output shapes and parameter counts, as tf_keras."""
        if not self.built or self.outputs is None and not self.layers:
            raise ValueError(
                "This model has not yet been built. Build the model first by calling `build()` or by calling the "
                "model on a batch of data."
            )
        _print_summary(self, line_length, positions, print_fn or print)

    def get_config(self):
        from tensorweave._src.keras import saving

        return saving.functional_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorweave._src.keras import saving

        return saving.functional_from_config(config, custom_objects, cls)

    def to_json(self, **kwargs):
        from tensorweave._src.keras import saving

        return json.dumps(saving.model_config(self), default=saving.json_default, **kwargs)

    def save_weights(self, filepath, overwrite=True, save_format=None):
        from tensorweave._src.keras import saving

        saving.save_weights(self, filepath, save_format)

    def load_weights(self, filepath, by_name=False, skip_mismatch=False):
        from tensorweave._src.keras import saving

        return saving.load_weights(self, filepath, by_name, skip_mismatch)

    def save(self, filepath, overwrite=True, include_optimizer=True, save_format=None):
        from tensorweave._src.keras import saving

        saving.save_model(self, filepath, overwrite, include_optimizer, save_format)

    def reset_metrics(self):
        """Clears the compiled metrics' totals left by the last fit / evaluate / *_on_batch call."""
        self._metric_totals = None

    def reset_states(self):
        """Resets the states of the stateful layers (stateful RNNs) of the model."""
        for layer in self.layers:
            if hasattr(layer, "reset_states") and getattr(layer, "stateful", False):
                layer.reset_states()

    @property
    def metrics(self):
        return []

    @property
    def run_eagerly(self):
        return False


Functional = Model


def _output_names(layers):
    names, counts = [], collections.Counter(layer.name for layer in layers)
    seen = collections.Counter()
    for layer in layers:
        name = layer.name
        if counts[name] > 1:
            seen[name] += 1
            name = f"{name}_{seen[name]}"
        names.append(name)
    return names


def _flat_spec(spec):
    if isinstance(spec, dict):
        return list(spec.values())
    if isinstance(spec, (list, tuple)):
        return list(spec)
    return [spec]


def _per_output(spec, names, what, default=None, nested=False):
    n = len(names)
    if spec is None:
        return [default] * n
    if isinstance(spec, dict):
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError(f"Unknown entries in {what} dictionary: {unknown}. Only expected following keys: {names}")
        return [spec.get(name, default) for name in names]
    if nested:
        if isinstance(spec, (list, tuple)) and spec and all(isinstance(s, (list, tuple)) or s is None for s in spec):
            if len(spec) != n:
                raise ValueError(f"When passing a list of lists as `{what}`, it should have one entry per output.")
            return list(spec)
        return [list(_to_list(spec))] * n
    if isinstance(spec, (list, tuple)):
        if len(spec) != n:
            raise ValueError(
                f"When passing a list as {what}, it should have one entry per model output. The model has {n} "
                f"outputs, but you passed {what}={spec}"
            )
        return list(spec)
    return [spec] * n


def _mask_weights(sample_weight, mask, output):
    """`sample_weight` (None, or one per example) times an output's Keras `mask`, as tf_keras's v1 training
    combines them (the weights expanded to the mask's rank)."""
    tw = _tw()
    mask = tw.cast(mask, output.dtype.base_dtype)
    if sample_weight is None:
        return mask
    from tensorweave._src.keras import losses as losses_mod

    mask, _, sample_weight = losses_mod._squeeze_or_expand(mask, None, tw.cast(sample_weight, mask.dtype))
    return sample_weight * mask


def _is_sparse_loss(fn):
    name = getattr(getattr(fn, "fn", fn), "__name__", "") or type(fn).__name__
    return name in ("sparse_categorical_crossentropy", "SparseCategoricalCrossentropy") or (
        type(fn).__name__ == "SparseCategoricalCrossentropy"
    )


def _resolve_metric(spec, loss_fn, output, metrics_mod):
    """The function of a compile() metric and its name as TF1 Keras gives it ('acc', 'ce', the function's name)."""
    if spec in ("accuracy", "acc"):
        return metrics_mod.engine_accuracy(loss_fn, output.shape.as_list()), "acc"
    if spec in ("crossentropy", "ce"):
        from tensorweave._src.keras import losses as losses_mod

        name = getattr(getattr(loss_fn, "fn", loss_fn), "__name__", "")
        fn = {
            "sparse_categorical_crossentropy": losses_mod.sparse_categorical_crossentropy,
            "binary_crossentropy": losses_mod.binary_crossentropy,
        }.get(name, losses_mod.categorical_crossentropy)
        return fn, "ce"
    fn = metrics_mod.get(spec)
    return fn, getattr(fn, "name", None) or getattr(fn, "__name__", "metric")


_SHAPE_CHECKED_LOSSES = {
    "mse": "mean_squared_error",
    "mean_squared_error": "mean_squared_error",
    "binary_crossentropy": "binary_crossentropy",
    "categorical_crossentropy": "categorical_crossentropy",
}


def _shape_checked_loss_name(spec):
    """The name tf_keras' check_loss_and_target_compatibility gives the loss when it checks targets against it (the
    mean squared error and the binary / categorical cross entropies), else None."""
    from tensorweave._src.keras import losses as losses_mod

    if isinstance(spec, str):
        return _SHAPE_CHECKED_LOSSES.get(spec)
    if getattr(spec, "__name__", None) in ("mean_squared_error", "binary_crossentropy", "categorical_crossentropy"):
        return spec.__name__
    for cls in ("MeanSquaredError", "BinaryCrossentropy", "CategoricalCrossentropy"):
        if isinstance(spec, getattr(losses_mod, cls, ())):
            return cls
    return None


def _check_loss_target(array, output, loss_name):
    shape = tuple(output.shape.as_list())
    if loss_name == "categorical_crossentropy" and array.shape[-1] == 1 and shape[-1] != 1:
        raise ValueError(
            f"You are passing a target array of shape {array.shape} while using as loss `categorical_crossentropy`. "
            "`categorical_crossentropy` expects targets to be binary matrices (1s and 0s) of shape (samples, "
            "classes). If your targets are integer classes, you can convert them to the expected format via:\n"
            "```\nfrom keras.utils import to_categorical\ny_binary = to_categorical(y_int)\n```\n\nAlternatively, you "
            "can use the loss function `sparse_categorical_crossentropy` instead, which does expect integer targets."
        )
    for target_dim, out_dim in zip(array.shape[1:], shape[1:]):
        if out_dim is not None and target_dim != out_dim:
            raise ValueError(
                f"A target array with shape {array.shape} was passed for an output of shape {shape} while using as "
                f"loss `{loss_name}`. This loss expects targets to have the same shape as the output."
            )


def _check_arrays(arrays, tensors, names, kind):
    if len(arrays) != len(tensors):
        raise ValueError(
            f"Error when checking model {kind}: the list of Numpy arrays that you are passing to your model is not "
            f"the size the model expected. Expected to see {len(tensors)} array(s), but instead got "
            f"{len(arrays)} arrays."
        )
    for a, t, name in zip(arrays, tensors, names):
        shape = t.shape.as_list() if t.shape.ndims is not None else None
        if shape is None:
            continue
        if a.ndim != len(shape):
            raise ValueError(
                f"Error when checking {kind}: expected {name} to have {len(shape)} dimensions, but got array with "
                f"shape {a.shape}"
            )
        for dim, ref in zip(a.shape[1:], shape[1:]):
            if ref is not None and dim != ref:
                expected = tuple(shape[1:])
                raise ValueError(
                    f"Error when checking {kind}: expected {name} to have shape {expected} but got array with shape "
                    f"{a.shape[1:]}"
                )


def _check_sample_counts(xs, ys):
    nx = {len(a) for a in xs}
    ny = {len(a) for a in ys if a is not None}
    if len(nx) > 1:
        raise ValueError(
            f"All input arrays (x) should have the same number of samples. Got array shapes: {[a.shape for a in xs]}"
        )
    if nx and ny and nx != ny:
        raise ValueError(
            f"Input arrays should have the same number of samples as target arrays. Found {nx.pop()} input samples "
            f"and {ny.pop()} target samples."
        )


def _batch_result(logs, names, return_dict):
    if return_dict:
        return logs
    values = [logs[k] for k in names]
    return values[0] if len(values) == 1 else values


def _is_generator(x):
    import types

    from tensorweave._src.keras import utils

    return isinstance(x, (types.GeneratorType, utils.Sequence, _DatasetBatches))


class _Steps:
    """An iterator wrapper (no len, no indexing) for the generator loop."""

    def __init__(self, it):
        self._it = it

    def __iter__(self):
        return self._it


class _DatasetBatches:
    """The batches of a tw.data Dataset as numpy values, for the generator loop: with `steps` a run continues where
    the last one stopped (as tf_keras with steps_per_epoch); without, each pass starts the dataset again."""

    def __init__(self, dataset):
        tw = _tw()
        self._iterator = tw.data.make_initializable_iterator(dataset)
        self._next = self._iterator.get_next()
        self._started = False

    def _pull(self):
        tw = _tw()
        try:
            value = backend.get_session().run(self._next)
        except tw.errors.OutOfRangeError:
            return None
        return tuple(value) if isinstance(value, (tuple, list)) else (value,)

    def batches(self, restart):
        if restart or not self._started:
            backend.get_session().run(self._iterator.initializer)
            self._started = True
        while True:
            value = self._pull()
            if value is None:
                self._started = False
                return
            yield value


def _is_dataset(x):
    tw = _tw()
    dataset_cls = getattr(getattr(tw, "data", None), "Dataset", None)
    return dataset_cls is not None and isinstance(x, dataset_cls)


def _unpack_dataset(x, y):
    """`x` itself (numpy inputs); a tw.data Dataset goes through the generator loop instead."""
    if _is_dataset(x) and y is not None:
        raise ValueError("`y` argument is not supported when using dataset as input.")
    return x, y


_REPORT_OPS = weakref.WeakKeyDictionary()  # graph -> (number of variables, report_uninitialized_variables op)


def _initialize_new_variables():
    """Initializes the variables (and lookup tables) of the default graph the Keras session has not initialized
    yet."""
    tw = _tw()
    graph = ops.get_default_graph()
    sess = backend.get_session()
    done = sess.__dict__.setdefault("_keras_tables_initialized", set())
    tables = [op for op in graph.get_collection(tw.GraphKeys.TABLE_INITIALIZERS) if op not in done]
    if tables:
        sess.run(tables)
        done.update(tables)
    all_vars = tw.global_variables() + tw.local_variables()
    if not all_vars:
        return
    cached = _REPORT_OPS.get(graph)
    if cached is None or cached[0] != len(all_vars):
        cached = (len(all_vars), tw.report_uninitialized_variables(all_vars))
        _REPORT_OPS[graph] = cached
    names = set(sess.run(cached[1]).tolist())
    if names:
        sess.run(tw.variables_initializer([v for v in all_vars if v.op.name.encode() in names]))


# --- summary ---


def _readable_size(size):
    for unit in ["Byte", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return f"{size:.2f} {unit}"
        size /= 1024
    return f"{size:.2f} PB"


def _memory(weights):
    return sum(int(np.prod(w.shape.as_list())) * w.dtype.base_dtype.size for w in _unique(weights))


def _print_summary(model, line_length, positions, print_fn):
    nodes = []
    sequential_like = True
    if isinstance(model, Sequential) or not model._is_graph_network:
        sequential_like = True
    else:
        for v in model._nodes_by_depth.values():
            if len(v) > 1 or (len(v) == 1 and len(v[0].input_tensors) > 1):
                sequential_like = False
                break
            nodes += v
        if sequential_like:
            ids = {id(n) for n in nodes}
            for layer in model.layers:
                if sum(id(n) in ids for n in getattr(layer, "_inbound_nodes", [])) > 1:
                    sequential_like = False
                    break
    if sequential_like:
        line_length = line_length or 65
        positions = positions or [0.45, 0.85, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #"]
    else:
        line_length = line_length or 98
        positions = positions or [0.3, 0.6, 0.70, 1.0]
        to_display = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        relevant = {id(n) for v in model._nodes_by_depth.values() for n in v}
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def print_row(fields):
        left = [str(x) for x in fields]
        while any(left):
            line = ""
            for col in range(len(left)):
                start = positions[col - 1] if col > 0 else 0
                space = 2 if col != len(positions) - 1 else 0
                cutoff = positions[col] - start - space
                if col != len(positions) - 1:
                    cutoff -= 1
                fit = left[col][:cutoff]
                cuts = [fit.find(x) + len(x) for x in ("),", "},", "],", "',") if fit.find(x) >= 0]
                if cuts:
                    cutoff = min(cuts)
                    fit = fit[:cutoff]
                if col == 0:
                    line += " "
                line += fit + (" " * space if space else "")
                left[col] = left[col][cutoff:]
                line += " " * (positions[col] - len(line))
            print_fn(line)

    print_fn(f'Model: "{model.name}"')
    print_fn("_" * line_length)
    print_row(to_display)
    print_fn("=" * line_length)
    for layer in model.layers:
        try:
            output_shape = layer.output_shape
        except (AttributeError, ValueError):
            output_shape = "multiple"
        if not model._is_graph_network and not isinstance(model, Sequential):
            output_shape = "multiple"  # layers called inside a subclassed model's call()
        if not sequential_like:
            output_shape = layer.output_shape
        try:
            params = layer.count_params()
        except ValueError:
            params = "0 (unused)"
        fields = [f"{layer.name} ({type(layer).__name__})", output_shape, params]
        if not sequential_like:
            connections = []
            for node in getattr(layer, "_inbound_nodes", []):
                if id(node) not in relevant:
                    continue
                for inbound, node_index, tensor_index, _ in node.iterate_inbound():
                    connections.append(f"{inbound.name}[{node_index}][{tensor_index}]")
            fields.append(connections)
        print_row(fields)
        print_fn(" " * line_length)
    print_fn("=" * line_length)
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    t_count, n_count = _count(trainable), _count(non_trainable)
    t_mem, n_mem = _memory(trainable), _memory(non_trainable)
    print_fn(f"Total params: {t_count + n_count} ({_readable_size(t_mem + n_mem)})")
    print_fn(f"Trainable params: {t_count} ({_readable_size(t_mem)})")
    print_fn(f"Non-trainable params: {n_count} ({_readable_size(n_mem)})")
    print_fn("_" * line_length)


# --- Sequential ---


def _future_name(layer):
    """The name a layer has, or will take on its first call."""
    if layer._scope_name is not None or layer._name is not None:
        return layer.name
    return ops.get_default_graph().unique_name(base._snake(type(layer).__name__), mark_as_used=False).split("/")[-1]


class Sequential(Model):
    """A linear stack of layers; built on its first layer's `input_shape`, an `Input`, or the first data.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     model = tw.keras.Sequential([tw.keras.layers.Dense(2, input_shape=(3,))])
      ...     print(model.output_shape, model.count_params())
      (None, 2) 8
    """

    def __init__(self, layers=None, name=None):
        Model.__init__(self, name=name)
        self._seq_layers = []
        self._input_layer = None
        self._is_graph_network = False
        for layer in layers or []:
            self.add(layer)

    @property
    def layers(self):
        return list(self._seq_layers)

    def add(self, layer):
        """Appends a layer (or an `Input` tensor, or a model); builds the model when the input shape is known."""
        if isinstance(layer, ops.Tensor):
            history = base.keras_history(layer)
            if history is None or not isinstance(history[0], InputLayer):
                raise TypeError(
                    f"The added layer must be an instance of class Layer. Received: layer={layer} of type {type(layer)}."
                )
            self._input_layer = history[0]
            self._rebuild()
            return
        if not isinstance(layer, base.Layer):
            raise TypeError(
                f"The added layer must be an instance of class Layer. Received: layer={layer} of type {type(layer)}."
            )
        if isinstance(layer, InputLayer):
            self._input_layer = layer
            self._rebuild()
            return
        if any(layer.name == other.name for other in self._seq_layers) and layer._scope_name is not None:
            raise ValueError(
                f'All layers added to a Sequential model should have unique names. Name "{layer.name}" is already '
                "the name of a layer in this model. Update the `name` argument to pass a unique name."
            )
        self._seq_layers.append(layer)
        if len(self._seq_layers) == 1 and self._input_layer is not None:
            layer._keras_input_shape = tuple(self._input_layer._batch_input_shape[1:])
        if self.outputs is not None:
            self._append_output(layer)
        elif len(self._seq_layers) == 1 and self._input_layer is None:
            # A nested Sequential or functional model: its first layer's input shape (tf_keras's
            # get_input_shape_and_dtype).
            probe = layer
            while (isinstance(probe, Sequential) or getattr(probe, "_is_graph_network", False)) and probe.layers:
                probe = probe.layers[0]
            shape = getattr(probe, "_batch_input_shape", None)
            if shape is None and getattr(probe, "_keras_input_shape", None) is not None:
                shape = (None,) + tuple(probe._keras_input_shape)
            if shape is not None:
                dtype = probe.dtype if isinstance(probe.dtype, str) else None
                self._input_layer = InputLayer(
                    batch_input_shape=shape, dtype=dtype, name=f"{_future_name(layer)}_input"
                )
                self._rebuild()
        elif self._input_layer is not None:
            self._rebuild()

    def _append_output(self, layer):
        out = layer(self.outputs[0])
        if len(base._flatten(out)) != 1:
            raise ValueError(
                "All layers in a Sequential model should have a single output tensor. For multi-output layers, use "
                "the functional API."
            )
        self.outputs = [out]
        self._init_graph_network_seq()

    def _rebuild(self):
        if self._input_layer is None:
            return
        y = self._input_layer.input
        self.inputs = [y]
        for layer in self._seq_layers:
            y = layer(y)
        self.outputs = [y]
        self._init_graph_network_seq()

    def _init_graph_network_seq(self):
        self._nodes_by_depth, _ = _map_graph_network(self.inputs, self.outputs)
        self._nested_outputs = self.outputs[0]
        self.input_names = [self._input_layer.name]
        self.output_names = [base.keras_history(self.outputs[0])[0].name]
        self.built = True
        self._compiled_graph = None

    def pop(self):
        if not self._seq_layers:
            raise TypeError("There are no layers in the model.")
        self._seq_layers.pop()
        self.outputs = None
        if self._seq_layers:
            self._rebuild()
        else:
            self.inputs = None

    def _ensure_built_on(self, x):
        if self.inputs is not None:
            return
        if not self._seq_layers:
            raise ValueError("You must add a layer to a Sequential model before using it.")
        if isinstance(x, dict):  # named features for a first layer that takes a dict (DenseFeatures)
            Model._ensure_built_on(self, x)
            self.output_names = [base.keras_history(self.outputs[0])[0].name]
            return
        a = np.asarray(x[0])
        self._input_layer = InputLayer(
            batch_input_shape=(None,) + a.shape[1:],
            dtype=backend.floatx() if a.dtype.kind == "f" else a.dtype.name,
            name=f"{_future_name(self._seq_layers[0])}_input",
        )
        self._rebuild()

    def build(self, input_shape=None):
        if input_shape is None and self.inputs is None:
            raise ValueError("You must provide an `input_shape` argument.")
        if self.inputs is None:
            shape = input_shape.as_list() if hasattr(input_shape, "as_list") else list(input_shape)
            self._input_layer = InputLayer(batch_input_shape=shape, name=f"{_future_name(self._seq_layers[0])}_input")
            self._rebuild()
        self.built = True

    def call(self, inputs, training=None, mask=None):
        y = inputs
        for layer in self._seq_layers:
            y = layer(y)
        return y

    def __call__(self, inputs, *args, **kwargs):
        y = self.call(inputs, **kwargs)
        base.Node(self, inputs, y, args, kwargs)
        return y

    @property
    def weights(self):
        return _unique([w for layer in self._seq_layers for w in layer.weights])

    variables = weights

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        return _unique([w for layer in self._seq_layers for w in layer.trainable_weights])

    trainable_variables = trainable_weights

    @property
    def built(self):
        return self.__dict__.get("_built", False)

    @built.setter
    def built(self, value):
        self.__dict__["_built"] = value

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False, show_trainable=False):
        if self.outputs is None:
            raise ValueError(
                "This model has not yet been built. Build the model first by calling `build()` or by calling the "
                "model on a batch of data."
            )
        _print_summary(self, line_length, positions, print_fn or print)

    def get_config(self):
        from tensorweave._src.keras import saving

        return saving.sequential_config(self)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from tensorweave._src.keras import saving

        return saving.sequential_from_config(config, custom_objects)


del copy, time
