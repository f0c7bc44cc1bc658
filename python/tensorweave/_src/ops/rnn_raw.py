"""TF1's `tf.nn.raw_rnn` (an RNN whose inputs, emits and stopping come from a user's `loop_fn`, run in a
while_loop over TensorArrays) and `tf.nn.static_state_saving_rnn` (static_rnn whose state lives in a state
saver between calls)."""

from tensorweave._src.framework import dtypes, ops, tensor_shape
from tensorweave._src.ops import array_ops, control_flow_ops, math_ops, rnn, tensor_array_ops
from tensorweave._src.ops import variables as variables_lib
from tensorweave._src.util import nest


def _assert_like_rnncell(cell_name, cell):
    """TypeError unless `cell` has what an RNNCell has (TF's rnn_cell_impl.assert_like_rnncell)."""
    problems = [f"'{attr}' property is missing" for attr in ("output_size", "state_size") if not hasattr(cell, attr)]
    if not hasattr(cell, "zero_state") or not callable(cell.zero_state):
        problems.append("'zero_state' method is required")
    if not callable(cell):
        problems.append("is not callable")
    if problems:
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: {', '.join(problems)}.")


def _size_shape(size):
    """A static TensorShape of an emit size (an int, a TensorShape or a list)."""
    if isinstance(size, ops.Tensor):
        return tensor_shape.TensorShape(None)
    return tensor_shape.as_shape([size] if isinstance(size, int) else size)


def _zeros(batch_size, size, dtype):
    if isinstance(size, ops.Tensor):
        shape = array_ops.concat([array_ops.reshape(batch_size, [1]), size], 0)
    else:
        shape = [batch_size] + _size_shape(size).as_list()
        if isinstance(batch_size, ops.Tensor):
            shape = array_ops.stack(shape)
    return array_ops.zeros(shape, dtype)


def raw_rnn(cell, loop_fn, parallel_iterations=None, swap_memory=False, scope=None):
    """An RNN driven by `loop_fn(time, cell_output, cell_state, loop_state)`, which returns `(finished,
    next_input, next_cell_state, emit_output, next_loop_state)`: called once at time 0 with outputs, state and
    loop state None (it gives the first input, the initial state and optionally an emit structure and loop
    state), then after each step of `cell`. The loop runs until every batch entry is finished; finished
    entries emit zeros and keep their state. Returns `(emit_ta, final_state, final_loop_state)`, emit_ta a
    (nest of) TensorArray of the emits over time (`emit_ta.stack()` is [time, batch, ...]).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> inputs = np.ones([3, 2, 1], np.float32)  # [time, batch, depth]
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     cell = tw.nn.rnn_cell.BasicRNNCell(2, activation=tw.identity)
      ...     lengths = tw.constant([3, 2])
      ...     def loop_fn(time, cell_output, cell_state, loop_state):
      ...         emit = cell_output
      ...         state = cell.zero_state(2, tw.float32) if cell_output is None else cell_state
      ...         finished = time >= lengths
      ...         x = tw.cond(tw.reduce_all(finished), lambda: tw.zeros([2, 1]), lambda: tw.constant(inputs)[time])
      ...         return finished, x, state, emit, None
      ...     emit_ta, final_state, _ = tw.nn.raw_rnn(cell, loop_fn)
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(emit_ta.stack()).shape)
      (3, 2, 2)
    """
    _assert_like_rnncell("cell", cell)
    if not callable(loop_fn):
        raise TypeError(f"Argument `loop_fn` must be a callable. Received: {loop_fn}.")
    parallel_iterations = parallel_iterations or 32
    with variables_lib.variable_scope(scope or "rnn"):
        time = ops.convert_to_tensor(0, dtype=dtypes.int32)
        elements_finished, next_input, initial_state, emit_structure, init_loop_state = loop_fn(time, None, None, None)
        elements_finished = ops.convert_to_tensor(elements_finished, dtype=dtypes.bool)
        flat_input = [ops.convert_to_tensor(x) for x in nest.flatten(next_input)]
        next_input = nest.pack_sequence_as(next_input, flat_input)
        loop_state = init_loop_state if init_loop_state is not None else ops.convert_to_tensor(0, dtypes.int32)
        static_batch = tensor_shape.dimension_at_index(flat_input[0].shape, 0)
        for x in flat_input:
            static_batch.assert_is_compatible_with(tensor_shape.dimension_at_index(x.shape, 0))
        const_batch_size = tensor_shape.dimension_value(static_batch)
        batch_size = const_batch_size if const_batch_size is not None else array_ops.shape(flat_input[0])[0]
        nest.assert_same_structure(initial_state, cell.state_size)
        flat_state = [ops.convert_to_tensor(s) for s in nest.flatten(initial_state)]
        state = nest.pack_sequence_as(initial_state, flat_state)
        if emit_structure is not None:
            flat_emit = [ops.convert_to_tensor(e) for e in nest.flatten(emit_structure)]
            flat_emit_size = [e.shape if e.shape.is_fully_defined() else array_ops.shape(e) for e in flat_emit]
            flat_emit_dtypes = [e.dtype for e in flat_emit]
        else:
            emit_structure = cell.output_size
            flat_emit_size = nest.flatten(emit_structure)
            flat_emit_dtypes = [flat_state[0].dtype] * len(flat_emit_size)
        flat_emit_ta = [
            tensor_array_ops.TensorArray(
                dtype=dtype_i,
                dynamic_size=True,
                element_shape=tensor_shape.TensorShape([const_batch_size]).concatenate(_size_shape(size_i)),
                size=0,
                name=f"rnn_output_{i}",
            )
            for i, (dtype_i, size_i) in enumerate(zip(flat_emit_dtypes, flat_emit_size))
        ]
        emit_ta = nest.pack_sequence_as(emit_structure, flat_emit_ta)
        flat_zero_emit = [_zeros(batch_size, s, d) for s, d in zip(flat_emit_size, flat_emit_dtypes)]
        zero_emit = nest.pack_sequence_as(emit_structure, flat_zero_emit)

        def condition(unused_time, elements_finished, *_):
            return math_ops.logical_not(math_ops.reduce_all(elements_finished))

        def body(time, elements_finished, current_input, emit_ta, state, loop_state):
            next_output, cell_state = cell(current_input, state)
            nest.assert_same_structure(state, cell_state)
            nest.assert_same_structure(cell.output_size, next_output)
            next_time = time + 1
            next_finished, next_input, next_state, emit_output, next_loop_state = loop_fn(
                next_time, next_output, cell_state, loop_state
            )
            nest.assert_same_structure(state, next_state)
            nest.assert_same_structure(current_input, next_input)
            nest.assert_same_structure(emit_ta, emit_output)
            loop_state = loop_state if next_loop_state is None else next_loop_state

            def copy_some_through(current, candidate):
                def copy_fn(cur, cand):
                    if isinstance(cur, tensor_array_ops.TensorArray) or cur.shape.ndims == 0:
                        return cand
                    return rnn._copy_through(elements_finished, ops.convert_to_tensor(cand), cur)

                return nest.map_structure(copy_fn, current, candidate)

            emit_output = copy_some_through(zero_emit, emit_output)
            next_state = copy_some_through(state, next_state)
            emit_ta = nest.map_structure(lambda ta, emit: ta.write(time, emit), emit_ta, emit_output)
            elements_finished = math_ops.logical_or(elements_finished, next_finished)
            return next_time, elements_finished, next_input, emit_ta, next_state, loop_state

        returned = control_flow_ops.while_loop(
            condition,
            body,
            loop_vars=[time, elements_finished, next_input, emit_ta, state, loop_state],
            parallel_iterations=parallel_iterations,
            swap_memory=swap_memory,
        )
        emit_ta, final_state, final_loop_state = returned[-3:]
        if init_loop_state is None:
            final_loop_state = None
        return emit_ta, final_state, final_loop_state


def static_state_saving_rnn(cell, inputs, state_saver, state_name, sequence_length=None, scope=None):
    """static_rnn whose initial state is `state_saver.state(state_name)` (a nest of names for a nested state)
    and whose final state is saved back with `state_saver.save_state(name, value)` before the last output and
    the state are read (TF1's `tf.nn.static_state_saving_rnn`). Returns (outputs, state) as static_rnn.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> class Saver:
      ...     def __init__(self):
      ...         self.v = tw.Variable(tw.zeros([1, 2]), name="saved")
      ...     def state(self, name):
      ...         return self.v.value()
      ...     def save_state(self, name, value):
      ...         return tw.assign(self.v, value)
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     cell = tw.nn.rnn_cell.BasicRNNCell(2)
      ...     saver = Saver()
      ...     _, state = tw.nn.static_state_saving_rnn(cell, [tw.ones([1, 1])], saver, "h")
      ...     sess.run(tw.global_variables_initializer())
      ...     print(np.allclose(sess.run(state), sess.run(saver.v)))
      True
    """
    state_size = cell.state_size
    state_is_tuple = nest.is_nested(state_size)
    state_name_tuple = nest.is_nested(state_name)
    if state_is_tuple != state_name_tuple:
        raise ValueError(
            "Argument `state_name` should be the same type as `cell.state_size`. Received: "
            f"state_name={state_name!s}, cell.state_size={state_size!s}."
        )
    if state_is_tuple:
        state_name_flat = nest.flatten(state_name)
        state_size_flat = nest.flatten(state_size)
        if len(state_name_flat) != len(state_size_flat):
            raise ValueError(
                "Number of elements in argument `state_name` and `cell.state_size` are mismatched. Received "
                f"state_name={state_name} with {len(state_name_flat)} elements and "
                f"cell.state_size={cell.state_size} with {len(state_size_flat)} elements."
            )
        initial_state = nest.pack_sequence_as(state_size, [state_saver.state(s) for s in state_name_flat])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = rnn.static_rnn(
        cell, inputs, initial_state=initial_state, sequence_length=sequence_length, scope=scope
    )
    outputs = list(outputs)
    if state_is_tuple:
        flat_state = nest.flatten(state)
        save_state = [state_saver.save_state(n, s) for n, s in zip(nest.flatten(state_name), flat_state)]
    else:
        save_state = [state_saver.save_state(state_name, state)]
    with ops.control_dependencies(save_state):
        last_output = outputs[-1]
        outputs[-1] = nest.pack_sequence_as(last_output, [array_ops.identity(o) for o in nest.flatten(last_output)])
        if state_is_tuple:
            state = nest.pack_sequence_as(state, [array_ops.identity(s) for s in flat_state])
        else:
            state = array_ops.identity(state)
    return outputs, state
