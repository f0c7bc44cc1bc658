"""tf.keras recurrent layers (Keras 2): SimpleRNN/LSTM/GRU and their cells, RNN(cell), StackedRNNCells,
Bidirectional and TimeDistributed, with Keras's weight names (`lstm/lstm_cell/kernel`), gate orders (LSTM i, f, c, o;
GRU z, r, h), masks, dropout and initial states. The time loop is a `tw.while_loop` (or unrolled with
`unroll=True`)."""

import functools
import inspect

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import backend, constraints, initializers, regularizers
from tensorweave._src.keras.layers import _get_mask, _Layer, _set_mask, bind_positional, get_activation
from tensorweave._src.layers import core
from tensorweave._src.layers.base import _snake

__all__ = [
    "CuDNNGRU",
    "CuDNNLSTM",
    "GRU",
    "LSTM",
    "RNN",
    "Bidirectional",
    "GRUCell",
    "LSTMCell",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
    "TimeDistributed",
]  # fmt: skip


def _as_list(value):
    return value if isinstance(value, (list, tuple)) else [value]


def _dim(shape, i):
    d = shape[i]
    return d if d is None or isinstance(d, int) else d.value


_COMMON = ("kernel_initializer", "recurrent_initializer", "bias_initializer")
_REGULARIZE = ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer")
_CONSTRAIN = ("kernel_constraint", "recurrent_constraint", "bias_constraint")
# Keras' order of the recurrent layers' and cells' arguments after `units`, which may be given by position.
_KERAS_ORDER = {
    "SimpleRNNCell": ("activation", "use_bias", *_COMMON, *_REGULARIZE, *_CONSTRAIN, "dropout", "recurrent_dropout"),
    "LSTMCell": ("activation", "recurrent_activation", "use_bias", *_COMMON, "unit_forget_bias", *_REGULARIZE,
                 *_CONSTRAIN, "dropout", "recurrent_dropout"),
    "GRUCell": ("activation", "recurrent_activation", "use_bias", *_COMMON, *_REGULARIZE, *_CONSTRAIN, "dropout",
                "recurrent_dropout", "reset_after"),
    "SimpleRNN": ("activation", "use_bias", *_COMMON, *_REGULARIZE, "activity_regularizer", *_CONSTRAIN, "dropout",
                  "recurrent_dropout", "return_sequences", "return_state", "go_backwards", "stateful", "unroll"),
    "LSTM": ("activation", "recurrent_activation", "use_bias", *_COMMON, "unit_forget_bias", *_REGULARIZE,
             "activity_regularizer", *_CONSTRAIN, "dropout", "recurrent_dropout", "return_sequences", "return_state",
             "go_backwards", "stateful", "time_major", "unroll"),
    "GRU": ("activation", "recurrent_activation", "use_bias", *_COMMON, *_REGULARIZE, "activity_regularizer",
            *_CONSTRAIN, "dropout", "recurrent_dropout", "return_sequences", "return_state", "go_backwards", "stateful",
            "unroll", "time_major", "reset_after"),
}  # fmt: skip


def _keras_positional(class_name):
    """Wraps an __init__(self, units, **kwargs) so that the arguments after `units` may also be given by position,
    in Keras' order for `class_name` (LSTM(32, "relu"))."""
    names = _KERAS_ORDER[class_name]

    def wrap(init):
        @functools.wraps(init)
        def __init__(self, units, *args, **kwargs):
            init(self, units, **bind_positional(class_name, names, args, kwargs))

        return __init__

    return wrap


class _Cell(_Layer):
    """The weights and arguments every Keras cell shares; `_dropout_masks` are drawn once per sequence."""

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        **kwargs,
    ):
        if not isinstance(units, int) or units <= 0:
            raise ValueError(
                f"Received an invalid value for argument `units`, expected a positive integer, got {units}."
            )
        super().__init__(**kwargs)
        self.units = units
        self.activation = get_activation(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self._masks = None

    @property
    def state_size(self):
        return [self.units]

    @property
    def output_size(self):
        return self.units

    def _weights(self, input_dim, gates, bias_shape, bias_initializer=None):
        self.kernel = self.add_weight(
            "kernel", [input_dim, gates * self.units], None, self.kernel_initializer, self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )  # fmt: skip
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel", [self.units, gates * self.units], None, self.recurrent_initializer,
            self.recurrent_regularizer, constraint=self.recurrent_constraint,
        )  # fmt: skip
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", bias_shape, None, bias_initializer or self.bias_initializer, self.bias_regularizer,
                constraint=self.bias_constraint,
            )  # fmt: skip
        self.built = True

    def build(self, input_shape):
        raise NotImplementedError

    def _make_dropout_masks(self, inputs, states, training):
        """Per-sequence dropout masks of the step inputs and the first state (Keras's DropoutRNNCellMixin)."""

        def mask(like, rate):
            if not rate:
                return None
            ones = tw.ones_like(like)
            return core._select_training(training, lambda: tw.nn.dropout(ones, rate=rate), lambda: ones)

        self._masks = (mask(inputs, self.dropout), mask(states[0], self.recurrent_dropout))

    def _dropped(self, inputs, h):
        dp, rec_dp = self._masks if self._masks is not None else (None, None)
        return (inputs if dp is None else inputs * dp), (h if rec_dp is None else h * rec_dp)

    def __call__(self, inputs, states=None, training=None, **kwargs):
        if states is None:
            raise ValueError(f"Cell {self.name} must be called with `states`.")
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        return super().__call__(inputs, states, training=training, **kwargs)


class SimpleRNNCell(_Cell):
    """h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)."""

    def build(self, input_shape):
        self._weights(_dim(input_shape, -1), 1, [self.units])

    def call(self, inputs, states, training=None):
        x, h = self._dropped(inputs, states[0])
        out = tw.matmul(x, self.kernel)
        if self.bias is not None:
            out = tw.nn.bias_add(out, self.bias)
        out = out + tw.matmul(h, self.recurrent_kernel)
        if self.activation is not None:
            out = self.activation(out)
        return out, [out]


class LSTMCell(_Cell):
    """Keras's LSTM cell: gates i, f, c, o in the kernels' columns; the forget bias starts at 1
    (`unit_forget_bias`). The defaults are TF1's `tf.keras` (recurrent_activation="hard_sigmoid")."""

    @_keras_positional("LSTMCell")
    def __init__(self, units, recurrent_activation="hard_sigmoid", unit_forget_bias=True, implementation=1, **kwargs):
        super().__init__(units, **kwargs)
        self.recurrent_activation = get_activation(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias
        self.implementation = implementation

    @property
    def state_size(self):
        return [self.units, self.units]

    def build(self, input_shape):
        bias_initializer = None
        if self.unit_forget_bias:
            base_init, units = self.bias_initializer, self.units

            def bias_initializer(shape, dtype=None, **kwargs):
                before = (4 * self._bias_parts - 3) * units  # the forget gate's slice of the last bias
                return tw.concat(
                    [base_init([before], dtype), tw.ones([units], dtype), base_init([2 * units], dtype)], 0
                )

        self._weights(_dim(input_shape, -1), 4, [self._bias_parts * 4 * self.units], bias_initializer)

    _bias_parts = 1  # CuDNN's LSTM keeps an input and a recurrent bias

    def _gate_bias(self):
        return self.bias

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states[0], states[1]
        x, h = self._dropped(inputs, h_prev)
        z = tw.matmul(x, self.kernel) + tw.matmul(h, self.recurrent_kernel)
        if self.bias is not None:
            z = tw.nn.bias_add(z, self._gate_bias())
        z_i, z_f, z_c, z_o = tw.split(z, 4, axis=1)
        act = self.activation or (lambda t: t)
        rec = self.recurrent_activation or (lambda t: t)
        c = rec(z_f) * c_prev + rec(z_i) * act(z_c)
        h = rec(z_o) * act(c)
        return h, [h, c]


class GRUCell(_Cell):
    """Keras's GRU cell: gates z, r, h in the kernels' columns; with `reset_after` (TF2's default, not TF1's) the
    reset gate is applied after the recurrent matmul and the bias is [2, 3 * units] (input and recurrent biases).
    The defaults are TF1's `tf.keras` (recurrent_activation="hard_sigmoid", reset_after=False)."""

    @_keras_positional("GRUCell")
    def __init__(self, units, recurrent_activation="hard_sigmoid", reset_after=False, implementation=1, **kwargs):
        super().__init__(units, **kwargs)
        self.recurrent_activation = get_activation(recurrent_activation)
        self.reset_after = reset_after
        self.implementation = implementation

    _flat_bias = False  # CuDNN's GRU keeps its two biases as one [6 * units] vector

    def build(self, input_shape):
        bias_shape = [3 * self.units]
        if self.reset_after:
            bias_shape = [6 * self.units] if self._flat_bias else [2, 3 * self.units]
        self._weights(_dim(input_shape, -1), 3, bias_shape)

    def call(self, inputs, states, training=None):
        h_prev = states[0]
        x, h = self._dropped(inputs, h_prev)
        u = self.units
        input_bias = recurrent_bias = None
        if self.bias is not None:
            if self.reset_after:
                input_bias, recurrent_bias = tw.unstack(tw.reshape(self.bias, [2, 3 * u]))
            else:
                input_bias = self.bias
        matrix_x = tw.matmul(x, self.kernel)
        if input_bias is not None:
            matrix_x = tw.nn.bias_add(matrix_x, input_bias)
        x_z, x_r, x_h = tw.split(matrix_x, 3, axis=-1)
        rec = self.recurrent_activation or (lambda t: t)
        act = self.activation or (lambda t: t)
        if self.reset_after:
            inner = tw.matmul(h, self.recurrent_kernel)
            if recurrent_bias is not None:
                inner = tw.nn.bias_add(inner, recurrent_bias)
            r_z, r_r, r_h = tw.split(inner, 3, axis=-1)
            z = rec(x_z + r_z)
            r = rec(x_r + r_r)
            hh = act(x_h + r * r_h)
        else:
            inner = tw.matmul(h, self.recurrent_kernel[:, : 2 * u])
            r_z, r_r = tw.split(inner, 2, axis=-1)
            z = rec(x_z + r_z)
            r = rec(x_r + r_r)
            hh = act(x_h + tw.matmul(r * h, self.recurrent_kernel[:, 2 * u :]))
        out = z * h_prev + (1.0 - z) * hh
        return out, [out]


class StackedRNNCells(_Layer):
    """Cells run one after another at each step; the states are the cells' states in order."""

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        self.cells = list(cells)
        seen = {}
        for cell in self.cells:
            base = cell._name or _snake(type(cell).__name__)
            n = seen.get(base, 0)
            seen[base] = n + 1
            cell._name = base if n == 0 else f"{base}_{n}"

    @property
    def state_size(self):
        return [s for cell in self.cells for s in cell.state_size]

    @property
    def output_size(self):
        return self.cells[-1].output_size

    def build(self, input_shape):
        dim = _dim(input_shape, -1)
        for cell in self.cells:
            with core._scope(cell.name, None, None):
                cell.build(tw.TensorShape([None, dim]))
            cell.built = True
            dim = cell.output_size
        self.built = True

    def _make_dropout_masks(self, inputs, states, training):
        for cell in self.cells:
            if isinstance(cell, _Cell):
                cell._make_dropout_masks(tw.zeros([tw.shape(inputs)[0], 1]) if cell is not self.cells[0] else inputs,
                                         states, training)  # fmt: skip
                if cell is not self.cells[0] and cell.dropout:
                    raise NotImplementedError("dropout on a cell after the first of StackedRNNCells is not supported")

    def call(self, inputs, states, training=None):
        new_states, i = [], 0
        for cell in self.cells:
            n = len(cell.state_size)
            inputs, cell_states = cell.call(inputs, states[i : i + n], training=training)
            new_states += list(cell_states)
            i += n
        return inputs, new_states


class RNN(_Layer):
    """Runs `cell` (or a list of cells, stacked) over the time axis of [batch, time, features] inputs."""

    def __init__(
        self,
        cell,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        time_major=False,
        **kwargs,
    ):
        self.zero_output_for_mask = kwargs.pop("zero_output_for_mask", False)
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(
                f"Argument `cell` should have a `call` method and a `state_size` attribute. Received: cell={cell}"
            )
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll, self.time_major = go_backwards, stateful, unroll, time_major
        self.supports_masking = True
        self._state_variables = None

    @property
    def states(self):
        if self._state_variables is not None:
            return list(self._state_variables)
        return [None] * len(self._state_sizes())

    def _make_state_variables(self, x):
        """A stateful layer's states: non-trainable variables [batch, size] (not among its weights), carried from
        one batch to the next by the ops in `updates`."""
        batch = _dim(x.shape, 0) or (self._batch_input_shape or (None,))[0]
        if batch is None:
            raise ValueError(
                "If a RNN is stateful, it needs to know its batch size. Specify the batch size of your input "
                "tensors: - If using a Sequential model, specify the batch size by passing a `batch_input_shape` "
                "argument to your first layer. - If using the functional API, specify the batch size by passing a "
                "`batch_shape` argument to your Input layer."
            )
        self._state_variables = [
            tw.Variable(tw.zeros([batch, size], x.dtype), trainable=False, name=f"state_{i}")
            for i, size in enumerate(self._state_sizes())
        ]

    def reset_states(self, states=None):
        """Zeroes the states of a stateful layer (or sets them to `states`) in the Keras session."""
        if not self.stateful:
            raise AttributeError("Layer must be stateful.")
        if self._state_variables is None:
            raise ValueError("The layer has never been called and thus has no states.")
        values = [None] * len(self._state_variables) if states is None else list(_as_list(states))
        if len(values) != len(self._state_variables):
            raise ValueError(
                f"Layer {self.name} expects {len(self._state_variables)} states, but it received {len(values)} state "
                f"values. States received: {states}"
            )
        sess = backend.get_session()
        for var, value in zip(self._state_variables, values):
            var.load(np.zeros(var.shape.as_list(), np.float32) if value is None else np.asarray(value), sess)

    def build(self, input_shape):
        shape = tw.TensorShape(input_shape)
        step_shape = tw.TensorShape([None, _dim(shape, -1)])
        if isinstance(self.cell, StackedRNNCells):
            with core._scope(self.cell._name or "stacked_rnn_cells", None, None):
                self.cell.build(step_shape)
        else:
            with core._scope(getattr(self.cell, "_name", None) or _snake(type(self.cell).__name__), None, None):
                self.cell.build(step_shape)
        self.cell.built = True
        self.built = True

    def compute_mask(self, inputs, mask=None):
        return mask if self.return_sequences else None

    def _state_sizes(self):
        size = self.cell.state_size
        return list(size) if isinstance(size, (list, tuple)) else [size]

    def _step(self, x_t, states, training):
        call_states = list(states)  # a Keras cell gets its states as a list, one state or several
        if "training" in inspect.signature(self.cell.call).parameters:
            out, new_states = self.cell.call(x_t, call_states, training=training)
        else:
            out, new_states = self.cell.call(x_t, call_states)
        return out, list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]

    def call(self, inputs, mask=None, training=None, initial_state=None):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, ndim=3)
        if self.time_major:
            x = tw.transpose(x, [1, 0, 2])
        if mask is not None:
            mask = tw.cast(mask, tw.bool)
        if training is None:
            training = backend.learning_phase()
        batch = tw.shape(x)[0]
        sizes = self._state_sizes()
        if self.stateful and initial_state is None:
            if self._state_variables is None:
                self._make_state_variables(x)
            states = [v.value() for v in self._state_variables]
        elif initial_state is None:
            states = [tw.zeros(tw.stack([batch, s]), x.dtype) for s in sizes]
        else:
            states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [initial_state]
            if len(states) != len(sizes):
                raise ValueError(
                    f"Layer {self.name} expects {len(sizes)} state(s), but it received {len(states)} initial "
                    f"state(s). Input received: {initial_state}"
                )
            states = [tw.convert_to_tensor(s, x.dtype) for s in states]
        if hasattr(self.cell, "_make_dropout_masks"):
            self.cell._make_dropout_masks(x[:, 0, :], states, training)
        if self.go_backwards:
            x = tw.reverse(x, [1])
            if mask is not None:
                mask = tw.reverse(mask, [1])
        xs = tw.transpose(x, [1, 0, 2])
        ms = None if mask is None else tw.transpose(mask)
        out_size = getattr(self.cell, "output_size", None) or sizes[0]
        zero_out = tw.zeros(tw.stack([batch, out_size]), x.dtype)
        steps = _dim(xs.shape, 0)

        def step(x_t, m_t, prev_out, states):
            out, new_states = self._step(x_t, states, training)
            if m_t is not None:
                out = tw.where(m_t, out, tw.zeros_like(out) if self.zero_output_for_mask else prev_out)
                new_states = [tw.where(m_t, n, s) for n, s in zip(new_states, states)]
            return out, new_states

        if self.unroll or steps == 1:
            if steps is None:
                raise ValueError(
                    "Cannot unroll a RNN if the time dimension is undefined. Set `unroll=False` or give the inputs "
                    "a fixed number of timesteps."
                )
            outs, prev = [], zero_out
            for t in range(steps):
                prev, states = step(xs[t], None if ms is None else ms[t], prev, states)
                outs.append(prev)
            last, sequence = prev, tw.stack(outs, axis=1)
        else:
            n = tw.shape(xs)[0]
            x_ta = tw.TensorArray(x.dtype, size=n).unstack(xs)
            m_ta = None if ms is None else tw.TensorArray(tw.bool, size=n).unstack(ms)
            out_ta = tw.TensorArray(x.dtype, size=n)

            def body(t, prev, out_ta, *states):
                out, new_states = step(x_ta.read(t), None if m_ta is None else m_ta.read(t), prev, list(states))
                for s, new in zip(states, new_states):
                    new.set_shape(s.shape)
                out.set_shape(prev.shape)
                return (t + 1, out, out_ta.write(t, out), *new_states)

            loop = tw.while_loop(
                lambda t, *_: t < n, body, [tw.constant(0), zero_out, out_ta, *states], swap_memory=False
            )
            last, out_ta, states = loop[1], loop[2], list(loop[3:])
            sequence = tw.transpose(out_ta.stack(), [1, 0, 2])
            sequence.set_shape([_dim(x.shape, 0), steps, out_size])
        last.set_shape([_dim(x.shape, 0), out_size])
        if self.stateful and self._state_variables is not None:
            for var, new in zip(self._state_variables, states):
                tw.add_to_collection(tw.GraphKeys.UPDATE_OPS, tw.assign(var, new).op)
        output = sequence if self.return_sequences else last
        if self.return_sequences and self.time_major:
            output = tw.transpose(output, [1, 0, 2])
        if self.return_state:
            if isinstance(self.cell, StackedRNNCells):
                # Keras nests the states per cell: a cell of one state gives a tensor, an LSTM cell a list.
                nested, i = [], 0
                for cell in self.cell.cells:
                    n = len(cell.state_size)
                    nested.append(states[i] if n == 1 else list(states[i : i + n]))
                    i += n
                states = nested
            return [output] + list(states)
        return output

    def __call__(self, inputs, initial_state=None, mask=None, training=None, **kwargs):
        if isinstance(inputs, (list, tuple)) and initial_state is None:
            inputs, initial_state = inputs[0], list(inputs[1:]) or None
        if mask is None:
            mask = _get_mask(inputs)
        out = super().__call__(inputs, mask=mask, training=training, initial_state=initial_state, **kwargs)
        if self._state_variables is not None:  # the states are no weights of the layer
            state_ids = {id(v) for v in self._state_variables}
            self._variables = [v for v in self._variables if id(v) not in state_ids]
        if self.return_state and self.return_sequences and mask is not None:
            _set_mask(out[0], mask)
        return out


def _rnn_layer(cell_class, cell_name, doc):
    class Layer(RNN):
        def __init__(
            self,
            units,
            *,
            return_sequences=False,
            return_state=False,
            go_backwards=False,
            stateful=False,
            unroll=False,
            time_major=False,
            name=None,
            trainable=True,
            dtype=None,
            activity_regularizer=None,
            **kwargs,
        ):
            layer_kwargs = {
                k: kwargs.pop(k) for k in ("input_shape", "input_dim", "batch_input_shape", "batch_size")
                if k in kwargs
            }  # fmt: skip
            self._config = dict(
                kwargs, units=units, return_sequences=return_sequences, return_state=return_state,
                go_backwards=go_backwards, stateful=stateful, unroll=unroll, time_major=time_major,
                trainable=trainable, dtype=dtype, activity_regularizer=activity_regularizer,
            )  # fmt: skip
            cell = cell_class(units, name=cell_name, trainable=trainable, dtype=dtype, **kwargs)
            super().__init__(
                cell, return_sequences=return_sequences, return_state=return_state, go_backwards=go_backwards,
                stateful=stateful, unroll=unroll, time_major=time_major, name=name, trainable=trainable, dtype=dtype,
                activity_regularizer=activity_regularizer, **layer_kwargs,
            )  # fmt: skip

        def get_config(self):
            cell_config = {
                k: v for k, v in self.cell.get_config().items() if k not in ("name", "trainable", "dtype", "units")
            }
            return dict(cell_config, **super().get_config())

        def __getattr__(self, attr):
            if attr != "cell" and "cell" in self.__dict__ and hasattr(self.cell, attr):
                return getattr(self.cell, attr)
            raise AttributeError(attr)

    Layer.__doc__ = doc
    layer_name = cell_class.__name__[: -len("Cell")]
    if layer_name in _KERAS_ORDER:
        Layer.__init__ = _keras_positional(layer_name)(Layer.__init__)
    return Layer


SimpleRNN = _rnn_layer(SimpleRNNCell, "simple_rnn_cell", "A fully connected RNN: `RNN(SimpleRNNCell(units, ...))`.")
SimpleRNN.__name__ = SimpleRNN.__qualname__ = "SimpleRNN"
LSTM = _rnn_layer(LSTMCell, "lstm_cell", "Long short-term memory: `RNN(LSTMCell(units, ...))`.")
LSTM.__name__ = LSTM.__qualname__ = "LSTM"
GRU = _rnn_layer(
    GRUCell, "gru_cell", "Gated recurrent unit (reset_after=False by default, as TF1's): `RNN(GRUCell(units, ...))`."
)
GRU.__name__ = GRU.__qualname__ = "GRU"


class _CuDNNLSTMCell(LSTMCell):
    """CuDNNLSTM's cell: an LSTM with sigmoid gates and two biases (input and recurrent, [8 * units]) that add."""

    _bias_parts = 2

    def __init__(self, units, **kwargs):
        super().__init__(units, recurrent_activation="sigmoid", **kwargs)

    def _gate_bias(self):
        return self.bias[: 4 * self.units] + self.bias[4 * self.units :]


class _CuDNNGRUCell(GRUCell):
    """CuDNNGRU's cell: a GRU with sigmoid gates, the reset gate applied after the recurrent matmul, and its input
    and recurrent biases in one [6 * units] vector."""

    _flat_bias = True

    def __init__(self, units, **kwargs):
        super().__init__(units, recurrent_activation="sigmoid", reset_after=True, **kwargs)


def _cudnn_layer(cell_class, cell_name, class_name, lstm):
    """CuDNNLSTM / CuDNNGRU: TF1's cuDNN layers (GPU-only in TensorFlow), run here on any device with the same
    weights, so that models trained with them (and their .h5 files) load and run."""
    base = _rnn_layer(cell_class, cell_name, "")

    def __init__(self, units, kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, return_sequences=False, return_state=False, go_backwards=False, stateful=False,
                 **kwargs):  # fmt: skip
        cell_kwargs = {
            "kernel_initializer": kernel_initializer, "recurrent_initializer": recurrent_initializer,
            "bias_initializer": bias_initializer, "kernel_regularizer": kernel_regularizer,
            "recurrent_regularizer": recurrent_regularizer, "bias_regularizer": bias_regularizer,
            "kernel_constraint": kernel_constraint, "recurrent_constraint": recurrent_constraint,
            "bias_constraint": bias_constraint,
        }  # fmt: skip
        unknown = set(kwargs) - {"name", "trainable", "dtype", "input_shape", "input_dim", "batch_input_shape",
                                 "batch_size"}  # fmt: skip
        if unknown:  # the cuDNN layers have fixed activations, no dropout and a bias
            raise TypeError(f"Keyword argument not understood: {sorted(unknown)}")
        if lstm:
            cell_kwargs["unit_forget_bias"] = unit_forget_bias
        base.__init__(self, units, return_sequences=return_sequences, return_state=return_state,
                      go_backwards=go_backwards, stateful=stateful, activity_regularizer=activity_regularizer,
                      **cell_kwargs, **kwargs)  # fmt: skip

    layer = type(class_name, (base,), {"__init__": __init__, "__doc__": cell_class.__doc__})
    layer.__qualname__ = class_name
    return layer


CuDNNLSTM = _cudnn_layer(_CuDNNLSTMCell, "cu_dnnlstm_cell", "CuDNNLSTM", lstm=True)
CuDNNGRU = _cudnn_layer(_CuDNNGRUCell, "cu_dnngru_cell", "CuDNNGRU", lstm=False)


def _copy_rnn(layer, **overrides):
    if not hasattr(layer, "_config"):
        raise ValueError(
            f"Bidirectional needs a SimpleRNN, LSTM or GRU layer (or a `backward_layer`). Received: {layer}"
        )
    config = dict(layer._config, **overrides)
    return type(layer)(**config)


class Bidirectional(_Layer):
    """Runs `layer` forward and a copy of it backward over the sequence and merges the outputs (`merge_mode`
    'concat', 'sum', 'mul', 'ave' or None for a list)."""

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, RNN):
            raise ValueError(  # noqa: TRY004 - Keras raises a ValueError
                f"Please initialize `Bidirectional` layer with a `tf.keras.layers.Layer` instance. Received: {layer}"
            )
        if merge_mode not in ("sum", "mul", "ave", "concat", None):
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        super().__init__(**kwargs)
        base = layer._name or _snake(type(layer).__name__)
        self.forward_layer = _copy_rnn(layer, name="forward_" + base)
        if backward_layer is None:
            self.backward_layer = _copy_rnn(layer, name="backward_" + base, go_backwards=not layer.go_backwards)
        else:
            self.backward_layer = backward_layer
            backward_layer._name = "backward_" + (backward_layer._name or _snake(type(backward_layer).__name__))
        # As Keras: masked steps give zeros, so the reversed backward sequence lines up with the forward one.
        self.forward_layer.zero_output_for_mask = self.backward_layer.zero_output_for_mask = layer.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self.supports_masking = True

    def build(self, input_shape):
        self.built = True

    def compute_mask(self, inputs, mask=None):
        return mask if self.return_sequences and self.merge_mode is not None else None

    def call(self, inputs, mask=None, training=None, initial_state=None):
        fw_state = bw_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fw_state, bw_state = initial_state[:half], initial_state[half:]
        y = self.forward_layer(inputs, initial_state=fw_state, mask=mask, training=training)
        y_rev = self.backward_layer(inputs, initial_state=bw_state, mask=mask, training=training)
        states = []
        if self.return_state:
            states = list(y[1:]) + list(y_rev[1:])
            y, y_rev = y[0], y_rev[0]
        if self.return_sequences:
            y_rev = tw.reverse(y_rev, [1])
        if self.merge_mode == "concat":
            output = tw.concat([y, y_rev], axis=-1)
        elif self.merge_mode == "sum":
            output = y + y_rev
        elif self.merge_mode == "ave":
            output = (y + y_rev) / 2.0
        elif self.merge_mode == "mul":
            output = y * y_rev
        else:
            output = [y, y_rev]
        if self.return_state:
            return (output if isinstance(output, list) else [output]) + states
        return output

    def __call__(self, inputs, initial_state=None, mask=None, training=None, **kwargs):
        if mask is None:
            mask = _get_mask(inputs)
        return super().__call__(inputs, mask=mask, training=training, initial_state=initial_state, **kwargs)


class TimeDistributed(_Layer):
    """Applies `layer` to every time step of [batch, time, ...] inputs (the layer's weights are named after the
    wrapper: `time_distributed/kernel`)."""

    def __init__(self, layer, **kwargs):
        if not callable(layer) or not hasattr(layer, "build"):
            raise ValueError(
                f"Please initialize `TimeDistributed` layer with a `tf.keras.layers.Layer` instance. Received: {layer}"
            )
        super().__init__(**kwargs)
        self.layer = layer
        self.supports_masking = True

    def _apply(self, inputs, scope_name, reuse, *args, **kwargs):
        x = tw.convert_to_tensor(inputs)
        self._check_ndim(x, min_ndim=3)
        if not self.layer.built:
            self.layer._name = scope_name
        kwargs.pop("mask", None)
        shape = x.shape.as_list()
        dyn = tw.shape(x)
        inner = tw.reshape(x, tw.concat([[-1], dyn[2:]], 0))
        inner.set_shape([None] + shape[2:])
        y = self.layer(inner, *args, **kwargs)
        out_shape = tw.concat([dyn[:2], tw.shape(y)[1:]], 0)
        out = tw.reshape(y, out_shape)
        out.set_shape(shape[:2] + y.shape.as_list()[1:])
        self.built = True
        return out

    def __call__(self, inputs, *args, **kwargs):
        # The wrapped layer makes its weights in a scope of this layer's name.
        graph = tw.get_default_graph()
        if self._scope_name is None:
            name = self._name or graph.unique_name(_snake(type(self).__name__), mark_as_used=False).split("/")[-1]
            self._name = name
        return super().__call__(inputs, *args, **kwargs)
