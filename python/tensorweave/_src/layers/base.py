"""tw.layers' class forms (TensorFlow v1's `tf.layers.Dense`, `Conv2D`, ..., `Layer`): a layer object makes its
variables on its first call, inside a variable scope of its own name ("dense", "dense_1", ...), and reuses them on
every later call; `weights`/`trainable_weights`/`updates`/`losses` list what its calls made."""

import inspect
import re
import weakref

from tensorweave._src.framework import ops
from tensorweave._src.layers import convolutional, core
from tensorweave._src.ops import variables as variables_lib


class InputSpec:
    """What a layer expects of its input: dtype, shape, ndim, max_ndim, min_ndim, axes (as tf.layers.InputSpec).

    Example:
      >>> import tensorweave as tw
      >>> print(tw.layers.InputSpec(ndim=4).ndim)
      4
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None):
        self.dtype = dtype
        self.shape = shape
        self.ndim = len(shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = axes or {}

    def __repr__(self):
        fields = ("dtype", "shape", "ndim", "max_ndim", "min_ndim", "axes")
        return "InputSpec(" + ", ".join(f"{f}={getattr(self, f)}" for f in fields if getattr(self, f)) + ")"


# Keras history of the tensors layers output: tensor -> (layer, node_index, tensor_index).
_KERAS_HISTORY = weakref.WeakKeyDictionary()


def _flatten(structure):
    if isinstance(structure, (list, tuple)):
        return [t for s in structure for t in _flatten(s)]
    if isinstance(structure, dict):
        return [t for k in structure for t in _flatten(structure[k])]
    return [structure]


def _copy_inputs(inputs, out):
    """`out` with each of `inputs` it returns unchanged (a linear Activation's) replaced by an identity of it, as TF's
    layers do: an output must be a tensor of its own, or the layer's node would overwrite the input's history."""
    given = {id(t) for t in _flatten(inputs) if isinstance(t, ops.Tensor)}
    if not given:
        return out
    from tensorweave._src.ops import array_ops

    def copy(t):
        if isinstance(t, tuple) and hasattr(t, "_fields"):  # a namedtuple (LSTMStateTuple)
            return type(t)(*(copy(x) for x in t))
        if isinstance(t, (list, tuple)):
            return type(t)(copy(x) for x in t)
        return array_ops.identity(t) if isinstance(t, ops.Tensor) and id(t) in given else t

    return copy(out)


def keras_history(tensor):
    """(layer, node_index, tensor_index) of a tensor a layer output, or None."""
    try:
        return _KERAS_HISTORY.get(tensor)
    except TypeError:
        return None


class Node:
    """One call of a layer: the inputs as passed (`call_inputs`, `call_args`, `call_kwargs`) and the outputs."""

    def __init__(self, layer, call_inputs, outputs, call_args=(), call_kwargs=None):
        self.layer = layer
        self.call_inputs = call_inputs
        self.call_args = tuple(call_args)
        self.call_kwargs = dict(call_kwargs or {})
        self.input_tensors = [t for t in _flatten(call_inputs) if isinstance(t, ops.Tensor)]
        self.output_tensors = [t for t in _flatten(outputs) if isinstance(t, ops.Tensor)]
        nodes = layer.__dict__.setdefault("_inbound_nodes", [])
        index = len(nodes)
        nodes.append(self)
        for i, t in enumerate(self.output_tensors):
            _KERAS_HISTORY[t] = (layer, index, i)

    @property
    def is_input(self):
        return not self.input_tensors and not self.call_inputs

    def iterate_inbound(self):
        """(layer, node_index, tensor_index, tensor) of each input tensor that has Keras history."""
        for t in self.input_tensors:
            history = keras_history(t)
            if history is not None:
                yield (*history, t)

    @property
    def parent_nodes(self):
        return [layer._inbound_nodes[index] for layer, index, _, _ in self.iterate_inbound()]


def _snake(name):
    """TensorFlow's to_snake_case: "Conv2DTranspose" -> "conv2d_transpose"."""
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    # A name scope cannot start with "_": TF prefixes private class names with "private".
    return "private" + insecure if insecure.startswith("_") else insecure


class Layer:
    """The base of the layer classes: subclass it with `build(input_shape)` (making weights with `add_weight`) and
    `call(inputs)`.

    Example:
      >>> import tensorweave as tw
      >>> class Scale(tw.layers.Layer):
      ...     def build(self, input_shape):
      ...         self.k = self.add_weight("k", [], initializer=tw.ones_initializer())
      ...     def call(self, inputs):
      ...         return inputs * self.k
      >>> with tw.Graph().as_default():
      ...     layer = Scale()
      ...     y = layer(tw.constant([1.0, 2.0]))
      ...     print([v.name for v in layer.trainable_weights])
      ['scale/k:0']
    """

    def __init__(self, trainable=True, name=None, dtype=None, _scope=None, _reuse=None, **kwargs):
        unknown = set(kwargs) - {"input_shape", "batch_input_shape", "batch_size", "weights", "activity_regularizer"}
        if unknown:
            raise TypeError(f"Keyword argument not understood: {sorted(unknown)}")
        self.trainable = trainable
        self._name = name or _scope
        self._explicit_scope = _scope is not None
        self.dtype = dtype
        self._reuse = _reuse
        self._scope_name = None
        self.built = False
        self.input_spec = None
        self._variables = []
        self._updates = []
        self._losses = []
        self._layer_activity_regularizer = kwargs.get("activity_regularizer")  # the Keras layers apply their own

    _weights_follow_name_scope = False  # True for the Keras layers

    _auto_name = None  # a Keras layer's name given when it was made

    @property
    def name(self):
        return self._name or self._auto_name or self._scope_name or _snake(type(self).__name__)

    @property
    def scope_name(self):
        """The full name of the variable scope the layer's first call opened ("caller/dense")."""
        scope = getattr(self, "_first_scope", None)
        if scope is None:
            raise ValueError(
                f'No name available for layer scope because the layer "{self.name}" has not been used yet. The '
                "scope name  is determined the first time the layer instance is called. You must therefore call "
                "the layer before querying `scope_name`."
            )
        return scope.name

    # --- what the calls made ---

    @property
    def weights(self):
        return list(self._variables)

    variables = weights

    @property
    def trainable_weights(self):
        trainable = {id(v) for v in variables_lib.trainable_variables()}
        return [v for v in self._variables if id(v) in trainable] if self.trainable else []

    trainable_variables = trainable_weights

    @property
    def non_trainable_weights(self):
        trainable = {id(v) for v in self.trainable_weights}
        return [v for v in self._variables if id(v) not in trainable]

    non_trainable_variables = non_trainable_weights

    @property
    def updates(self):
        return list(self._updates)

    @property
    def losses(self):
        return list(self._losses)

    def get_weights(self):
        from tensorweave._src.client import session as session_lib

        sess = session_lib.get_default_session()
        if sess is None:
            raise ValueError("get_weights needs a default session (with tw.Session() as sess: ...)")
        return sess.run(self.weights)

    # --- building ---

    def add_weight(
        self,
        name,
        shape,
        dtype=None,
        initializer=None,
        regularizer=None,
        trainable=True,
        constraint=None,
        **kwargs,
    ):
        var = variables_lib.get_variable(
            name,
            shape,
            dtype=dtype or self.dtype,
            initializer=initializer,
            trainable=trainable and self.trainable,
        )
        core._regularize(var, regularizer)
        return var

    add_variable = add_weight

    def add_loss(self, losses, inputs=None):
        """Adds loss tensors (or callables of no arguments returning them) to the layer's `losses` and, as TF1's
        layers do, to the REGULARIZATION_LOSSES collection."""
        del inputs
        for loss in losses if isinstance(losses, (list, tuple)) else [losses]:
            loss = loss() if callable(loss) else loss
            if loss is None:
                continue
            loss = ops.convert_to_tensor(loss)
            ops.add_to_collection(ops.GraphKeys.REGULARIZATION_LOSSES, loss)
            if not self._in_call:
                self._losses.append(loss)

    def add_update(self, updates, inputs=None):
        """Adds update ops (or callables of no arguments returning them) to the layer's `updates` and the
        UPDATE_OPS collection."""
        del inputs
        for update in updates if isinstance(updates, (list, tuple)) else [updates]:
            update = update() if callable(update) else update
            ops.add_to_collection(ops.GraphKeys.UPDATE_OPS, update)
            if not self._in_call:
                self._updates.append(update)

    _in_call = False

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape is not implemented")

    def _apply(self, inputs, scope_name, reuse, *args, **kwargs):
        with core._scope(scope_name, None, reuse):
            if not self.built:
                x = ops.convert_to_tensor(inputs) if not isinstance(inputs, (list, tuple, dict)) else inputs
                first = next((t for t in _flatten(x) if isinstance(t, ops.Tensor)), None)
                if self.dtype is None and first is not None and first.dtype.is_floating:
                    self.dtype = first.dtype.base_dtype.name  # as TF1: the layer's dtype is its first input's
                self.build(x.shape if hasattr(x, "shape") else None)
                self.built = True
            out = _copy_inputs(inputs, self.call(inputs, *args, **kwargs))
            regularizer = getattr(self, "_layer_activity_regularizer", None)
            if regularizer is not None:
                for t in _flatten(out):
                    core._activity_regularize(t, regularizer)
            return out

    def __call__(self, inputs, *args, **kwargs):
        graph = ops.get_default_graph()
        known = {id(v) for v in variables_lib.global_variables()}
        n_updates = len(ops.get_collection(ops.GraphKeys.UPDATE_OPS))
        n_losses = len(ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES))
        self._in_call = True
        try:
            out = self._scoped_apply(graph, inputs, *args, **kwargs)
        finally:
            self._in_call = False
        for v in variables_lib.global_variables():
            if id(v) not in known:
                self._variables.append(v)
                if self._weights_follow_name_scope:  # a Keras layer's: get_session initializes it
                    from tensorweave._src.keras import backend

                    backend.track_variable(v)
                attr = v.op.name.rsplit("/", 1)[-1]
                if not hasattr(type(self), attr):
                    setattr(self, attr, v)
        self._updates += ops.get_collection(ops.GraphKeys.UPDATE_OPS)[n_updates:]
        self._losses += ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES)[n_losses:]
        self.built = True
        if any(isinstance(t, ops.Tensor) for t in _flatten(out)):
            Node(self, inputs, out, args, kwargs)
        return out

    def _scoped_apply(self, graph, inputs, *args, **kwargs):
        if self._scope_name is None:
            # A named layer whose scope is taken (a second model of the same layer names) gets the next free
            # scope ("dense_1/kernel"), as TF's layers do; its name stays.
            # As TF's layers: a layer object's first call opens variable_scope(None, default_name=<its name>), a
            # variable scope unique among those open in the current one ("dense" even where a name scope "dense"
            # exists) with a name scope made unique on its own ("dense_1/").
            # Keras layers instead name their weights after their name scope (a name unique among the graph's
            # names: "dense_1/kernel" where a name scope "dense" exists).
            base = self._name or self._auto_name or _snake(type(self).__name__)
            as_default = not (self._name and (self._reuse or getattr(self, "_explicit_scope", False)))
            if as_default and self._weights_follow_name_scope:
                # (The unique name less the enclosing name scope: a layer name may itself hold "/", as Keras'
                # "expanded_conv/depthwise/BatchNorm", whose weights are "expanded_conv/depthwise/BatchNorm/gamma".)
                unique = graph.unique_name(base, mark_as_used=False)
                base, as_default = unique[len(graph._name_stack) + 1 :] if graph._name_stack else unique, False
            self._first_name_scope = graph.unique_name(base, mark_as_used=False) + "/"
            first = core.LayerScope(base, default=as_default)
            out = self._apply(inputs, first, self._reuse, *args, **kwargs)
            self._scope_name = first.scope.name.split("/")[-1] if first.scope is not None else base
            self._first_scope = first.scope

            if first.scope is not None and first.scope.original_name_scope:
                self._first_name_scope = first.scope.original_name_scope
        else:
            # As TF's layers: later calls re-enter the first call's variable scope and name scope, wherever the
            # call is made ("dense/BiasAdd_1", variables "dense/kernel" even inside another variable scope).
            # Keras layers instead open a new name scope of their name each call ("encoder_1/Tanh").
            name_scope = self.name if self._weights_follow_name_scope else self._first_name_scope
            again = core.LayerScope(name_scope, scope=self._first_scope, reenter=True)
            out = self._apply(inputs, again, True, *args, **kwargs)
        return out

    apply = __call__


def _layer_class(class_name, fn, call_args=(), doc=""):
    """A Layer class whose constructor takes `fn`'s configuration arguments (all but inputs, name, reuse and the
    call-time `call_args`) and whose call runs `fn` in the layer's scope."""
    params = inspect.signature(fn).parameters
    skip = {"inputs", "name", "reuse", *call_args}
    config_names = [p for p in params if p not in skip]

    def __init__(self, *args, name=None, **kwargs):
        base_kwargs = {k: kwargs.pop(k) for k in ("dtype", "_scope", "_reuse") if k in kwargs}
        config = {}
        for key, value in zip(config_names, args):
            config[key] = value
        if len(args) > len(config_names):
            raise TypeError(f"{class_name} takes at most {len(config_names)} positional arguments")
        for key in list(kwargs):
            if key in params and key not in skip:
                if key in config:
                    raise TypeError(f"{class_name} got multiple values for argument '{key}'")
                config[key] = kwargs.pop(key)
        required = [p for p in config_names if params[p].default is inspect.Parameter.empty and p not in config]
        if required:
            raise TypeError(f"{class_name}.__init__() missing required arguments: {required}")
        Layer.__init__(self, trainable=config.get("trainable", True), name=name, **base_kwargs, **kwargs)
        self._config = config
        for key, value in config.items():
            if not hasattr(type(self), key):
                setattr(self, key, value)

    def _apply(self, inputs, scope_name, reuse, *args, **kwargs):
        call = {k: v for k, v in zip(call_args, args)}
        call.update(kwargs)
        extra = {"reuse": reuse} if "reuse" in params else {}
        return fn(inputs, name=scope_name, **self._config, **call, **extra)

    def get_config(self):
        return dict(self._config, name=self.name)

    return type(
        class_name,
        (Layer,),
        {"__init__": __init__, "_apply": _apply, "get_config": get_config, "__doc__": doc, "__module__": __name__},
    )


Dense = _layer_class("Dense", core.dense, doc="The class form of `tw.layers.dense`.")
Conv1D = _layer_class("Conv1D", convolutional.conv1d, doc="The class form of `tw.layers.conv1d`.")
Conv2D = _layer_class("Conv2D", core.conv2d, doc="The class form of `tw.layers.conv2d`.")
Conv3D = _layer_class("Conv3D", convolutional.conv3d, doc="The class form of `tw.layers.conv3d`.")
Conv2DTranspose = _layer_class(
    "Conv2DTranspose", convolutional.conv2d_transpose, doc="The class form of `tw.layers.conv2d_transpose`."
)
Conv3DTranspose = _layer_class(
    "Conv3DTranspose", convolutional.conv3d_transpose, doc="The class form of `tw.layers.conv3d_transpose`."
)
SeparableConv1D = _layer_class(
    "SeparableConv1D", convolutional.separable_conv1d, doc="The class form of `tw.layers.separable_conv1d`."
)
SeparableConv2D = _layer_class(
    "SeparableConv2D", convolutional.separable_conv2d, doc="The class form of `tw.layers.separable_conv2d`."
)
MaxPooling1D = _layer_class("MaxPooling1D", convolutional.max_pooling1d, doc="tw.layers.max_pooling1d as a class.")
MaxPooling2D = _layer_class("MaxPooling2D", core.max_pooling2d, doc="tw.layers.max_pooling2d as a class.")
MaxPooling3D = _layer_class("MaxPooling3D", convolutional.max_pooling3d, doc="tw.layers.max_pooling3d as a class.")
AveragePooling1D = _layer_class(
    "AveragePooling1D", convolutional.average_pooling1d, doc="tw.layers.average_pooling1d as a class."
)
AveragePooling2D = _layer_class(
    "AveragePooling2D", core.average_pooling2d, doc="tw.layers.average_pooling2d as a class."
)
AveragePooling3D = _layer_class(
    "AveragePooling3D", convolutional.average_pooling3d, doc="tw.layers.average_pooling3d as a class."
)
Flatten = _layer_class("Flatten", core.flatten, doc="The class form of `tw.layers.flatten`.")
Dropout = _layer_class(
    "Dropout", core.dropout, call_args=("training",), doc="tw.layers.dropout as a class; call(inputs, training=False)."
)
BatchNormalization = _layer_class(
    "BatchNormalization",
    core.batch_normalization,
    call_args=("training",),
    doc="tw.layers.batch_normalization as a class; call(inputs, training=False). Its moving-average updates go "
    "to UPDATE_OPS and to `updates`.",
)
