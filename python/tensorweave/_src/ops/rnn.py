"""TensorFlow 1's RNN drivers: static_rnn, static_bidirectional_rnn, dynamic_rnn and bidirectional_dynamic_rnn.

dynamic_rnn unrolls over a statically known number of time steps (the values, final states and gradients are
TensorFlow's; the graph is the unrolled one); when the time dimension is not known statically it runs the cell in
a `while_loop` over TensorArrays of the inputs and outputs, as TF1's `_dynamic_rnn_loop`. Past an example's
`sequence_length` the outputs are zeros and the state is carried through, as TF1 defines it."""

import contextlib

from tensorweave._src.framework import dtypes, ops, random_seed
from tensorweave._src.ops import array_ops, math_ops, rnn_cell_impl
from tensorweave._src.ops import variables as variables_lib


def _initial_state(cell, initial_state, batch_size, dtype):
    if initial_state is not None:
        return initial_state
    if dtype is None:
        raise ValueError("If no initial_state is provided, dtype must be specified")
    return cell.zero_state(batch_size, dtype)


def _batch_size(x):
    n = x.shape[0].value if x.shape.ndims else None
    return n if n is not None else array_ops.shape(x)[0]


def _copy_through(done, new, old):
    """new where the example is still running, old where it has finished (done: bool [batch])."""
    return math_ops.where(done, old, new)


def _masked_step(cell, x, state, t, sequence_length, zero_output):
    output, new_state = cell(x, state)
    if sequence_length is None:
        return output, new_state
    done = math_ops.greater_equal(t, sequence_length)
    output = _copy_through(done, output, zero_output)
    flat_new = rnn_cell_impl._flatten(new_state)
    flat_old = rnn_cell_impl._flatten(state)
    new_state = rnn_cell_impl._pack_as(new_state, [_copy_through(done, n, o) for n, o in zip(flat_new, flat_old)])
    return output, new_state


def _unroll(cell, inputs, state, sequence_length, one_loop_body=False):
    """Runs `cell` over the list of [batch, depth] inputs; returns (outputs, final state). `one_loop_body`: the
    steps unroll what TF builds once as a while_loop body (dynamic_rnn), so only the first step's unseeded random
    ops take graph-seed offsets from the graph's count (random_seed.unrolled_loop_steps)."""
    outputs = []
    zero_output = None
    if sequence_length is not None:
        sequence_length = math_ops.cast(ops.convert_to_tensor(sequence_length, name="sequence_length"), dtypes.int32)
        if sequence_length.shape.ndims not in (None, 1):
            raise ValueError(f"sequence_length must be a vector of length batch_size, but saw shape: "
                             f"{sequence_length.shape}")  # fmt: skip
    with contextlib.ExitStack() as later_steps:
        for t, x in enumerate(inputs):
            if t > 0:  # as TF1's static_rnn: a cell that calls get_variable itself shares its first step's variables
                variables_lib.get_variable_scope().reuse_variables()
            if t == 1 and one_loop_body:
                later_steps.enter_context(random_seed.unrolled_loop_steps(ops.get_default_graph()))
            if sequence_length is not None and zero_output is None:
                size = cell.output_size
                zero_output = array_ops.zeros(array_ops.stack([_batch_size(x), size]), dtype=x.dtype)
                zero_output.set_shape([x.shape[0].value, size])
            output, state = _masked_step(cell, x, state, t, sequence_length, zero_output)
            outputs.append(output)
    return outputs, state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs `cell` over a list of [batch, depth] inputs; returns (outputs, final state).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     xs = [tw.ones([2, 3])] * 4
      ...     outs, state = tw.nn.static_rnn(tw.nn.rnn_cell.GRUCell(5), xs, dtype=tw.float32)
      ...     print(len(outs), outs[-1].shape, [v.name for v in tw.trainable_variables()][0])
      4 (2, 5) rnn/gru_cell/gates/kernel:0
    """
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with variables_lib.variable_scope(scope or "rnn"):
        inputs = [ops.convert_to_tensor(x) for x in inputs]
        state = _initial_state(cell, initial_state, _batch_size(inputs[0]), dtype)
        return _unroll(cell, inputs, state, sequence_length)


def _time_steps(inputs, time_axis):
    steps = inputs.shape[time_axis].value if inputs.shape.ndims else None
    if steps is None:
        raise NotImplementedError(
            "dynamic_rnn needs a statically known number of time steps in tensorweave (it unrolls the loop; "
            f"while_loop is not there yet), got inputs of shape {inputs.shape}"
        )
    return steps


def dynamic_rnn(
    cell,
    inputs,
    sequence_length=None,
    initial_state=None,
    dtype=None,
    parallel_iterations=None,
    swap_memory=False,
    time_major=False,
    scope=None,
):
    """Runs `cell` over inputs [batch, time, depth] (or [time, batch, depth] when `time_major`); returns (outputs
    of the same layout, final state). A time dimension not known statically runs a while_loop (see the module doc).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.placeholder(tw.float32, [None, 6, 3])
      ...     cell = tw.nn.rnn_cell.BasicLSTMCell(4)
      ...     outputs, state = tw.nn.dynamic_rnn(cell, x, dtype=tw.float32)
      ...     print(outputs.shape, state.h.shape)
      (?, 6, 4) (?, 4)
    """
    with variables_lib.variable_scope(scope or "rnn"):
        inputs = ops.convert_to_tensor(inputs, name="inputs")
        if inputs.shape.ndims is not None and inputs.shape.ndims < 3:
            raise ValueError(f"Input must have rank at least 3 ([batch, time, depth]), got shape {inputs.shape}")
        time_axis = 0 if time_major else 1
        if inputs.shape.ndims is not None and inputs.shape[time_axis].value is None:
            return _dynamic_rnn_loop(
                cell, inputs, sequence_length, initial_state, dtype, time_major, parallel_iterations
            )
        steps = _time_steps(inputs, time_axis)
        per_step = array_ops.unstack(inputs, num=steps, axis=time_axis)
        state = _initial_state(cell, initial_state, _batch_size(per_step[0]), dtype)
        outputs, state = _unroll(cell, per_step, state, sequence_length, one_loop_body=True)
        return array_ops.stack(outputs, axis=time_axis), state


def _dynamic_rnn_loop(cell, inputs, sequence_length, initial_state, dtype, time_major, parallel_iterations):
    """dynamic_rnn over a time dimension known only when the graph runs: a while_loop reads step t of a
    TensorArray of the (time-major) inputs, runs the cell and writes its output into another TensorArray."""
    from tensorweave._src.ops import control_flow_ops, tensor_array_ops

    if not time_major:
        perm = [1, 0] + list(range(2, inputs.shape.ndims))
        inputs = array_ops.transpose(inputs, perm)
    batch_size = inputs.shape[1].value
    batch = batch_size if batch_size is not None else array_ops.shape(inputs)[1]
    state = _initial_state(cell, initial_state, batch, dtype)
    time_steps = array_ops.shape(inputs)[0]
    zero_output = None
    if sequence_length is not None:
        sequence_length = math_ops.cast(ops.convert_to_tensor(sequence_length, name="sequence_length"), dtypes.int32)
        if sequence_length.shape.ndims not in (None, 1):
            raise ValueError(f"sequence_length must be a vector of length batch_size, but saw shape: "
                             f"{sequence_length.shape}")  # fmt: skip
        zero_output = array_ops.zeros(array_ops.stack([batch, cell.output_size]), dtype=inputs.dtype)
        zero_output.set_shape([batch_size, cell.output_size])
    with ops.name_scope("dynamic_rnn"):
        input_ta = tensor_array_ops.TensorArray(
            inputs.dtype, size=time_steps, element_shape=inputs.shape[1:], tensor_array_name="input"
        ).unstack(inputs)
        output_ta = tensor_array_ops.TensorArray(inputs.dtype, size=time_steps, tensor_array_name="output")

    def body(t, state, output_ta):
        x = input_ta.read(t)
        output, new_state = _masked_step(cell, x, state, t, sequence_length, zero_output)
        return t + 1, new_state, output_ta.write(t, output)

    _, state, output_ta = control_flow_ops.while_loop(
        lambda t, *_: t < time_steps,
        body,
        (ops.convert_to_tensor(0, dtype=dtypes.int32), state, output_ta),
        parallel_iterations=parallel_iterations or 32,
        maximum_iterations=time_steps,
    )
    outputs = output_ta.stack()
    outputs.set_shape([None, batch_size, cell.output_size])
    if not time_major:
        outputs = array_ops.transpose(outputs, [1, 0, 2])
    return outputs, state


def _reverse_steps(steps, sequence_length, batch_axis=0):
    """The list of per-step tensors reversed in time, each example within its own length when given."""
    if sequence_length is None:
        return list(reversed(steps))
    from tensorweave._src.ops import array_nd_ops

    stacked = array_ops.stack(steps, axis=0)
    lengths = math_ops.cast(ops.convert_to_tensor(sequence_length), dtypes.int64)
    reversed_ = array_nd_ops.reverse_sequence(stacked, lengths, seq_axis=0, batch_axis=1)
    return array_ops.unstack(reversed_, num=len(steps), axis=0)


def _reverse_time(x, sequence_length, time_axis):
    """`x` reversed along its time axis, each example within its own length when given (as TF: reverse_sequence,
    or reverse without lengths); the time dimension need not be known statically."""
    from tensorweave._src.ops import array_nd_ops

    if sequence_length is None:
        return array_nd_ops.reverse(x, axis=[time_axis])
    return array_nd_ops.reverse_sequence(x, sequence_length, seq_axis=time_axis, batch_axis=1 - time_axis)


def static_bidirectional_rnn(
    cell_fw,
    cell_bw,
    inputs,
    initial_state_fw=None,
    initial_state_bw=None,
    dtype=None,
    sequence_length=None,
    scope=None,
):
    """A forward and a backward RNN over a list of inputs; the outputs are their concatenation per step. Returns
    (outputs, output_state_fw, output_state_bw).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     xs = [tw.ones([2, 3])] * 4
      ...     cells = tw.nn.rnn_cell.GRUCell(5), tw.nn.rnn_cell.GRUCell(2)
      ...     outs, fw, bw = tw.nn.static_bidirectional_rnn(*cells, xs, dtype=tw.float32)
      ...     print(outs[0].shape)
      (2, 7)
    """
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("inputs must be a list")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with variables_lib.variable_scope(scope or "bidirectional_rnn"):
        with variables_lib.variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype, sequence_length, fw_scope)
        with variables_lib.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_steps([ops.convert_to_tensor(x) for x in inputs], sequence_length)
            tmp, state_bw = static_rnn(cell_bw, reversed_inputs, initial_state_bw, dtype, sequence_length, bw_scope)
    output_bw = _reverse_steps(tmp, sequence_length)
    outputs = [array_ops.concat([fw, bw], 1) for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw


def bidirectional_dynamic_rnn(
    cell_fw,
    cell_bw,
    inputs,
    sequence_length=None,
    initial_state_fw=None,
    initial_state_bw=None,
    dtype=None,
    parallel_iterations=None,
    swap_memory=False,
    time_major=False,
    scope=None,
):
    """dynamic_rnn forward and backward in time; returns ((output_fw, output_bw), (state_fw, state_bw)).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     x = tw.placeholder(tw.float32, [None, 6, 3])
      ...     cells = tw.nn.rnn_cell.GRUCell(5), tw.nn.rnn_cell.GRUCell(2)
      ...     (fw, bw), _ = tw.nn.bidirectional_dynamic_rnn(*cells, x, dtype=tw.float32)
      ...     print(fw.shape, bw.shape)
      (?, 6, 5) (?, 6, 2)
    """
    with variables_lib.variable_scope(scope or "bidirectional_rnn"):
        inputs = ops.convert_to_tensor(inputs, name="inputs")
        time_axis = 0 if time_major else 1
        with variables_lib.variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length, initial_state_fw, dtype, time_major=time_major, scope=fw_scope
            )
        with variables_lib.variable_scope("bw") as bw_scope:
            reversed_inputs = _reverse_time(inputs, sequence_length, time_axis)
            tmp, state_bw = dynamic_rnn(
                cell_bw, reversed_inputs, sequence_length, initial_state_bw, dtype, time_major=time_major,
                scope=bw_scope,
            )  # fmt: skip
    output_bw = _reverse_time(tmp, sequence_length, time_axis)
    return (output_fw, output_bw), (state_fw, state_bw)
