"""tf.keras.backend (Keras 2): local_conv1d / local_conv2d (unshared-weight convolutions) and ctc_decode."""

import itertools

import tensorweave as tw

__all__ = ["ctc_decode", "local_conv1d", "local_conv2d"]


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
