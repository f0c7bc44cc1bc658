"""tf.keras.backend (Keras 2): local_conv1d / local_conv2d (unshared-weight convolutions), ctc_decode and rnn."""

import itertools

import tensorweave as tw

__all__ = ["ctc_decode", "local_conv1d", "local_conv2d", "rnn"]


def _local_conv(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """tf_keras's local_conv: each output position's patch (flattened) times its own [features, filters] kernel."""
    data_format = data_format or "channels_last"
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Unknown data_format: {data_format}")
    feature_dim, channels_out = kernel.shape[1].value, kernel.shape[-1].value
    ndims = len(output_shape)
    patches = []
    for position in itertools.product(*[range(n) for n in output_shape]):
        slices = [slice(None)] + ([slice(None)] if data_format == "channels_first" else [])
        slices += [slice(position[d] * strides[d], position[d] * strides[d] + kernel_size[d]) for d in range(ndims)]
        slices += [slice(None)] if data_format == "channels_last" else []
        patches.append(tw.reshape(inputs[tuple(slices)], [1, -1, feature_dim]))
    output = tw.matmul(tw.concat(patches, axis=0), kernel)  # [positions, batch, filters]
    output = tw.reshape(output, list(output_shape) + [-1, channels_out])
    spatial = list(range(ndims))
    permutation = [ndims, ndims + 1] + spatial if data_format == "channels_first" else [ndims] + spatial + [ndims + 1]
    return tw.transpose(output, permutation)


def local_conv1d(inputs, kernel, kernel_size, strides, data_format=None):
    """A 1D convolution with unshared weights: kernel [output_length, kernel_size * channels, filters]."""
    return _local_conv(inputs, kernel, kernel_size, strides, (kernel.shape[0].value,), data_format)


def local_conv2d(inputs, kernel, kernel_size, strides, output_shape, data_format=None):
    """A 2D convolution with unshared weights: kernel [rows * cols, kh * kw * channels, filters]."""
    return _local_conv(inputs, kernel, kernel_size, strides, tuple(output_shape), data_format)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Best paths of softmax outputs [batch, time, classes] (greedy or beam search): a list of dense [batch, time]
    label tensors (-1 padded) and their log probabilities."""
    y_pred = tw.convert_to_tensor(y_pred)
    shape = tw.shape(y_pred)
    from tensorweave._src.keras import backend

    logits = tw.log(tw.transpose(y_pred, [1, 0, 2]) + backend.epsilon())
    input_length = tw.cast(input_length, tw.int32)
    if greedy:
        decoded, log_prob = tw.nn.ctc_greedy_decoder(logits, input_length)
    else:
        decoded, log_prob = tw.nn.ctc_beam_search_decoder(logits, input_length, beam_width=beam_width,
                                                          top_paths=top_paths)  # fmt: skip
    dense = []
    for st in decoded:
        st = tw.SparseTensor(st.indices, st.values, tw.cast(tw.stack([shape[0], shape[1]]), tw.int64))
        dense.append(tw.sparse.to_dense(st, default_value=-1))
    return dense, log_prob


def rnn(step_function, inputs, initial_states, go_backwards=False, mask=None, constants=None, unroll=False,
        input_length=None, time_major=False, zero_output_for_mask=False, return_all_outputs=True):  # fmt: skip
    """Runs `step_function(input_t, states [+ constants]) -> (output_t, new_states)` over the time axis of
    [batch, time, ...] inputs: (last_output, outputs [batch, time, ...], new_states)."""
    x = tw.convert_to_tensor(inputs)
    if x.shape.ndims is not None and x.shape.ndims < 3:
        raise ValueError("Input should be at least 3D.")
    if not time_major:
        x = tw.transpose(x, [1, 0] + list(range(2, x.shape.ndims)))
    if mask is not None:
        mask = tw.cast(mask, tw.bool)
        if mask.shape.ndims == 2:
            mask = tw.expand_dims(mask, -1)
        if not time_major:
            mask = tw.transpose(mask, [1, 0] + list(range(2, mask.shape.ndims)))
    if go_backwards:
        x = tw.reverse(x, [0])
        mask = None if mask is None else tw.reverse(mask, [0])
    constants = list(constants or [])
    states = list(initial_states)

    def step(t_input, t_mask, prev_output, states):
        output, new_states = step_function(t_input, tuple(states) + tuple(constants))
        new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [new_states]
        if t_mask is not None:

            def keep(new, old):
                m = tw.cast(t_mask, tw.bool)
                for _ in range(new.shape.ndims - m.shape.ndims):
                    m = tw.expand_dims(m, -1)
                return tw.where_v2(m, new, old)

            output = keep(output, tw.zeros_like(output) if zero_output_for_mask else prev_output)
            new_states = [keep(n, s) for n, s in zip(new_states, states)]
        return output, new_states

    first_output, _ = step_function(x[0], tuple(states) + tuple(constants))
    zero_output = tw.zeros_like(first_output)
    steps = x.shape[0].value
    if unroll:
        if steps is None:
            raise ValueError("Unrolling requires a fixed number of timesteps.")
        outputs, prev = [], zero_output
        for t in range(steps):
            prev, states = step(x[t], None if mask is None else mask[t], prev, states)
            outputs.append(prev)
        stacked = tw.stack(outputs)
        last = prev
    else:
        n = tw.shape(x)[0]
        x_ta = tw.TensorArray(x.dtype, size=n).unstack(x)
        m_ta = None if mask is None else tw.TensorArray(tw.bool, size=n).unstack(mask)
        out_ta = tw.TensorArray(first_output.dtype, size=n)

        def body(t, prev, out_ta, *states):
            out, new_states = step(x_ta.read(t), None if m_ta is None else m_ta.read(t), prev, list(states))
            out.set_shape(prev.shape)
            for s, new in zip(states, new_states):
                new.set_shape(s.shape)
            return (t + 1, out, out_ta.write(t, out), *new_states)

        loop = tw.while_loop(lambda t, *_: t < n, body, [tw.constant(0), zero_output, out_ta, *states])
        last, stacked, states = loop[1], loop[2].stack(), list(loop[3:])
    if not return_all_outputs:
        stacked = tw.expand_dims(last, 0)
    outputs = stacked if time_major else tw.transpose(stacked, [1, 0] + list(range(2, stacked.shape.ndims)))
    return last, outputs, states
