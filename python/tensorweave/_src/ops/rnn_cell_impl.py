"""TensorFlow 1's RNN cells (`tf.nn.rnn_cell`): BasicRNNCell, BasicLSTMCell, LSTMCell (peepholes, clipping,
projection), GRUCell, MultiRNNCell and the Dropout/Residual wrappers, as layers whose variables live in a scope
of the cell's name ("rnn/basic_lstm_cell/kernel") and are reused at every time step."""

import collections

from tensorweave._src.framework import ops
from tensorweave._src.layers import base
from tensorweave._src.ops import array_ops, init_ops, math_ops, nn_ops


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """(c, h): an LSTM cell's memory and output.

    Example:
      >>> import tensorweave as tw
      >>> print(tw.nn.rnn_cell.LSTMStateTuple(1, 2).h)
      2
    """

    __slots__ = ()

    @property
    def dtype(self):
        if self.c.dtype != self.h.dtype:
            raise TypeError(f"Inconsistent internal state: {self.c.dtype} vs {self.h.dtype}")
        return self.c.dtype


def _flatten(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in _flatten(item)]
    return [structure]


def _pack_as(structure, flat):
    """`flat` leaves in the nesting of `structure` (tuples, lists and LSTMStateTuples)."""
    flat = list(flat)

    def build(s):
        if isinstance(s, LSTMStateTuple):
            return LSTMStateTuple(build(s.c), build(s.h))
        if isinstance(s, (list, tuple)):
            return type(s)(build(item) for item in s)
        return flat.pop(0)

    return build(structure)


def _zeros(batch_size, size, dtype):
    if isinstance(size, LSTMStateTuple):
        return LSTMStateTuple(_zeros(batch_size, size.c, dtype), _zeros(batch_size, size.h, dtype))
    if isinstance(size, (list, tuple)):
        return tuple(_zeros(batch_size, s, dtype) for s in size)
    if isinstance(batch_size, ops.Tensor):
        return array_ops.zeros(array_ops.stack([batch_size, size]), dtype=dtype)
    return array_ops.zeros([int(batch_size), int(size)], dtype=dtype)


class RNNCell(base.Layer):
    """The base of the cells: `call(inputs, state)` returns (output, new_state); `state_size` and `output_size`
    describe them.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     cell = tw.nn.rnn_cell.BasicRNNCell(3)
      ...     print(cell.state_size, cell.zero_state(2, tw.float32).shape)
      3 (2, 3)
    """

    @property
    def state_size(self):
        raise NotImplementedError

    @property
    def output_size(self):
        raise NotImplementedError

    def zero_state(self, batch_size, dtype):
        with ops.get_default_graph().name_scope(type(self).__name__ + "ZeroState"):
            return _zeros(batch_size, self.state_size, dtype)

    def get_initial_state(self, inputs=None, batch_size=None, dtype=None):
        if inputs is not None:
            inputs = ops.convert_to_tensor(inputs)
            batch_size = inputs.shape[0].value
            if batch_size is None:
                batch_size = array_ops.shape(inputs)[0]
            dtype = dtype or inputs.dtype
        return self.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        if scope is not None:
            from tensorweave._src.ops import variables as variables_lib

            with variables_lib.variable_scope(scope):
                return super().__call__(inputs, state)
        return super().__call__(inputs, state)

    def _input_depth(self, inputs_shape):
        depth = inputs_shape[-1].value if inputs_shape.ndims else None
        if depth is None:
            raise ValueError(f"Expected inputs.shape[-1] to be known, saw shape: {inputs_shape}")
        return depth

    def _linear(self, args, kernel, bias):
        return nn_ops.bias_add(math_ops.matmul(array_ops.concat(args, 1), kernel), bias)


class BasicRNNCell(RNNCell):
    """output = new_state = activation(W [inputs, state] + b).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     out, state = tw.nn.rnn_cell.BasicRNNCell(4)(tw.ones([2, 3]), tw.zeros([2, 4]))
      ...     print(out.shape, [v.name for v in tw.trainable_variables()])
      (2, 4) ['basic_rnn_cell/kernel:0', 'basic_rnn_cell/bias:0']
    """

    def __init__(self, num_units, activation=None, reuse=None, name=None, dtype=None, **kwargs):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        self._kernel = self.add_weight("kernel", [depth + self._num_units, self._num_units])
        self._bias = self.add_weight("bias", [self._num_units], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        output = self._activation(self._linear([inputs, state], self._kernel, self._bias))
        return output, output


class GRUCell(RNNCell):
    """Gated recurrent unit: r, u = sigmoid(W_g [x, h] + b_g); c = tanh(W_c [x, r * h] + b_c); h' = u * h + (1 - u)
    * c.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     out, state = tw.nn.rnn_cell.GRUCell(4)(tw.ones([2, 3]), tw.zeros([2, 4]))
      ...     print(sorted(v.name for v in tw.trainable_variables())[:2])
      ['gru_cell/candidate/bias:0', 'gru_cell/candidate/kernel:0']
    """

    def __init__(
        self,
        num_units,
        activation=None,
        reuse=None,
        kernel_initializer=None,
        bias_initializer=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    @property
    def state_size(self):
        return self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        from tensorweave._src.ops import variables as variables_lib

        depth = self._input_depth(inputs_shape)
        units = self._num_units
        with variables_lib.variable_scope("gates"):
            self._gate_kernel = self.add_weight(
                "kernel", [depth + units, 2 * units], initializer=self._kernel_initializer
            )
            self._gate_bias = self.add_weight(
                "bias", [2 * units], initializer=self._bias_initializer or init_ops.constant_initializer(1.0)
            )
        with variables_lib.variable_scope("candidate"):
            self._candidate_kernel = self.add_weight(
                "kernel", [depth + units, units], initializer=self._kernel_initializer
            )
            self._candidate_bias = self.add_weight(
                "bias", [units], initializer=self._bias_initializer or init_ops.zeros_initializer()
            )
        self.built = True

    def call(self, inputs, state):
        value = math_ops.sigmoid(self._linear([inputs, state], self._gate_kernel, self._gate_bias))
        r, u = array_ops.split(value, 2, axis=1)
        candidate = self._linear([inputs, r * state], self._candidate_kernel, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class BasicLSTMCell(RNNCell):
    """LSTM without peepholes: i, j, f, o = W [x, h] + b; c' = c * sigmoid(f + forget_bias) + sigmoid(i) *
    tanh(j); h' = tanh(c') * sigmoid(o).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     cell = tw.nn.rnn_cell.BasicLSTMCell(4)
      ...     out, state = cell(tw.ones([2, 3]), cell.zero_state(2, tw.float32))
      ...     print(out.shape, state.c.shape)
      (2, 4) (2, 4)
    """

    def __init__(
        self,
        num_units,
        forget_bias=1.0,
        state_is_tuple=True,
        activation=None,
        reuse=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        if self._state_is_tuple:
            return LSTMStateTuple(self._num_units, self._num_units)
        return 2 * self._num_units

    @property
    def output_size(self):
        return self._num_units

    def build(self, inputs_shape):
        depth = self._input_depth(inputs_shape)
        self._kernel = self.add_weight("kernel", [depth + self._num_units, 4 * self._num_units])
        self._bias = self.add_weight("bias", [4 * self._num_units], initializer=init_ops.zeros_initializer())
        self.built = True

    def call(self, inputs, state):
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(state, 2, axis=1)
        gates = self._linear([inputs, h], self._kernel, self._bias)
        i, j, f, o = array_ops.split(gates, 4, axis=1)
        forget_bias = ops.convert_to_tensor(self._forget_bias, dtype=f.dtype)
        new_c = c * math_ops.sigmoid(f + forget_bias) + math_ops.sigmoid(i) * self._activation(j)
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        new_state = LSTMStateTuple(new_c, new_h) if self._state_is_tuple else array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(RNNCell):
    """LSTM with optional peepholes (`use_peepholes`), cell clipping (`cell_clip`) and an output projection
    (`num_proj`, clipped by `proj_clip`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     cell = tw.nn.rnn_cell.LSTMCell(4, num_proj=2)
      ...     out, state = cell(tw.ones([2, 3]), cell.zero_state(2, tw.float32))
      ...     print(out.shape, state.c.shape, state.h.shape)
      (2, 2) (2, 4) (2, 2)
    """

    def __init__(
        self,
        num_units,
        use_peepholes=False,
        cell_clip=None,
        initializer=None,
        num_proj=None,
        proj_clip=None,
        num_unit_shards=None,
        num_proj_shards=None,
        forget_bias=1.0,
        state_is_tuple=True,
        activation=None,
        reuse=None,
        name=None,
        dtype=None,
        **kwargs,
    ):
        super().__init__(name=name, dtype=dtype, _reuse=reuse, **kwargs)
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self):
        h = self._num_proj or self._num_units
        return LSTMStateTuple(self._num_units, h) if self._state_is_tuple else self._num_units + h

    @property
    def output_size(self):
        return self._num_proj or self._num_units

    def build(self, inputs_shape):
        from tensorweave._src.ops import variables as variables_lib

        depth = self._input_depth(inputs_shape)
        h_depth = self._num_proj or self._num_units
        units = self._num_units
        self._kernel = self.add_weight("kernel", [depth + h_depth, 4 * units], initializer=self._initializer)
        self._bias = self.add_weight("bias", [4 * units], initializer=init_ops.zeros_initializer())
        if self._use_peepholes:
            self._w_f_diag = self.add_weight("w_f_diag", [units], initializer=self._initializer)
            self._w_i_diag = self.add_weight("w_i_diag", [units], initializer=self._initializer)
            self._w_o_diag = self.add_weight("w_o_diag", [units], initializer=self._initializer)
        if self._num_proj is not None:
            with variables_lib.variable_scope("projection"):
                self._proj_kernel = self.add_weight("kernel", [units, self._num_proj], initializer=self._initializer)
        self.built = True

    def call(self, inputs, state):
        units = self._num_units
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, units])
            m_prev = array_ops.slice(state, [0, units], [-1, self._num_proj or units])
        lstm_matrix = self._linear([inputs, m_prev], self._kernel, self._bias)
        i, j, f, o = array_ops.split(lstm_matrix, 4, axis=1)
        sigmoid = math_ops.sigmoid
        if self._use_peepholes:
            c = sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev + sigmoid(
                i + self._w_i_diag * c_prev
            ) * self._activation(j)
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = math_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = math_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = LSTMStateTuple(c, m) if self._state_is_tuple else array_ops.concat([c, m], 1)
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked: the output of cell i is the input of cell i + 1; the state is the tuple of their states
    (variables under "multi_rnn_cell/cell_<i>/").

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     cell = tw.nn.rnn_cell.MultiRNNCell([tw.nn.rnn_cell.GRUCell(3), tw.nn.rnn_cell.GRUCell(2)])
      ...     out, state = cell(tw.ones([1, 4]), cell.zero_state(1, tw.float32))
      ...     print(out.shape, len(state))
      (1, 2) 2
    """

    def __init__(self, cells, state_is_tuple=True):
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        self._cells = list(cells)
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(isinstance(c.state_size, tuple) for c in self._cells):
            raise ValueError("Some cells return tuples of states, but the flag state_is_tuple is not set.")

    @property
    def state_size(self):
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    @property
    def output_size(self):
        return self._cells[-1].output_size

    def zero_state(self, batch_size, dtype):
        with ops.get_default_graph().name_scope("MultiRNNCellZeroState"):
            if not self._state_is_tuple:
                return super().zero_state(batch_size, dtype)
            return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)

    def _apply(self, inputs, scope_name, reuse, state):
        from tensorweave._src.ops import variables as variables_lib

        with variables_lib.variable_scope(scope_name, reuse=reuse):
            current, new_states, start = inputs, [], 0
            for i, cell in enumerate(self._cells):
                with variables_lib.variable_scope(f"cell_{i}"):
                    if self._state_is_tuple:
                        cell_state = state[i]
                    else:
                        cell_state = array_ops.slice(state, [0, start], [-1, cell.state_size])
                        start += cell.state_size
                    current, new_state = cell(current, cell_state)
                    new_states.append(new_state)
        return current, (tuple(new_states) if self._state_is_tuple else array_ops.concat(new_states, 1))


class _Wrapper(RNNCell):
    def __init__(self, cell):
        super().__init__()
        self._cell = cell

    @property
    def state_size(self):
        return self._cell.state_size

    @property
    def output_size(self):
        return self._cell.output_size

    def zero_state(self, batch_size, dtype):
        with ops.get_default_graph().name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)

    def __call__(self, inputs, state, scope=None):
        return self._wrap(inputs, state, scope)


class DropoutWrapper(_Wrapper):
    """Dropout on a cell's inputs, outputs and state (keep probabilities; 1 keeps everything).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     cell = tw.nn.rnn_cell.DropoutWrapper(tw.nn.rnn_cell.GRUCell(3), output_keep_prob=0.5)
      ...     print(cell(tw.ones([2, 4]), tw.zeros([2, 3]))[0].shape)
      (2, 3)
    """

    def __init__(
        self,
        cell,
        input_keep_prob=1.0,
        output_keep_prob=1.0,
        state_keep_prob=1.0,
        variational_recurrent=False,
        input_size=None,
        dtype=None,
        seed=None,
        dropout_state_filter_visitor=None,
    ):
        super().__init__(cell)
        if variational_recurrent:
            raise NotImplementedError("DropoutWrapper(variational_recurrent=True) is not supported by tensorweave")
        for name, p in (("input", input_keep_prob), ("output", output_keep_prob), ("state", state_keep_prob)):
            if isinstance(p, (int, float)) and not 0 < p <= 1:
                raise ValueError(f"Parameter {name}_keep_prob must be between 0 and 1: {p}")
        self._keep = (input_keep_prob, output_keep_prob, state_keep_prob)
        self._seed = seed

    def _dropout(self, x, keep):
        from tensorweave._src.ops import nn_ops_dropout

        if isinstance(keep, (int, float)) and keep == 1:
            return x
        return nn_ops_dropout.dropout(x, keep_prob=keep, seed=self._seed)

    def _wrap(self, inputs, state, scope):
        inputs = self._dropout(inputs, self._keep[0])
        output, new_state = self._cell(inputs, state, scope)
        if not (isinstance(self._keep[2], (int, float)) and self._keep[2] == 1):
            new_state = _pack_as(new_state, [self._dropout(s, self._keep[2]) for s in _flatten(new_state)])
        return self._dropout(output, self._keep[1]), new_state


class ResidualWrapper(_Wrapper):
    """The cell's output plus its input (of the same size).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     cell = tw.nn.rnn_cell.ResidualWrapper(tw.nn.rnn_cell.BasicRNNCell(3))
      ...     print(cell(tw.ones([2, 3]), tw.zeros([2, 3]))[0].shape)
      (2, 3)
    """

    def __init__(self, cell, residual_fn=None):
        super().__init__(cell)
        self._residual_fn = residual_fn or (lambda inputs, outputs: inputs + outputs)

    def _wrap(self, inputs, state, scope):
        output, new_state = self._cell(inputs, state, scope)
        return self._residual_fn(inputs, output), new_state


class DeviceWrapper(_Wrapper):
    """Runs the cell under a device scope.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     cell = tw.nn.rnn_cell.DeviceWrapper(tw.nn.rnn_cell.BasicRNNCell(3), "/cpu:0")
      ...     print(cell(tw.ones([2, 3]), tw.zeros([2, 3]))[0].shape)
      (2, 3)
    """

    def __init__(self, cell, device):
        super().__init__(cell)
        self._device = device

    def zero_state(self, batch_size, dtype):
        with ops.get_default_graph().device(self._device):
            return super().zero_state(batch_size, dtype)

    def _wrap(self, inputs, state, scope):
        with ops.get_default_graph().device(self._device):
            return self._cell(inputs, state, scope)
