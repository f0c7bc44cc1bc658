"""Connectionist temporal classification with dense labels (TensorFlow's `ctc_loss_v2` / `ctc_loss_dense`) and
`collapse_repeated`.

The forward (alpha) recursion runs in log space over the labels with blanks between them, unrolled over the
statically known number of time steps (tensorweave has no while_loop yet); its gradient is that of the unrolled
graph. With SparseTensor labels `ctc_loss_v2` uses the CTCLoss kernel, as TensorFlow does.

The sparse-label forms (`ctc_loss`, `ctc_greedy_decoder`, `ctc_beam_search_decoder`) and `edit_distance` wrap the
C++ ops CTCLoss, CTCGreedyDecoder, CTCBeamSearchDecoder and EditDistance (TensorFlow's algorithms; the blank is
the last class)."""

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl, math_ops, nn_ops, special_math_ops

# Log of an impossible path: finite, so that the sums and their gradients stay free of inf - inf.
_LOG_ZERO = -1e30


def _logsumexp(*terms):
    m = terms[0]
    for t in terms[1:]:
        m = math_ops.maximum(m, t)
    total = math_ops.exp(terms[0] - m)
    for t in terms[1:]:
        total = total + math_ops.exp(t - m)
    return m + math_ops.log(total)


def _shift_right(t, n, fill):
    """t [B, S] shifted n places right along S, `fill` coming in."""
    pad = array_ops.fill(array_ops.stack([array_ops.shape(t)[0], n]), ops.convert_to_tensor(fill, dtype=t.dtype))
    return array_ops.concat([pad, t[:, :-n]], 1)


def ctc_loss_v2(
    labels,
    logits,
    label_length,
    logit_length,
    logits_time_major=True,
    unique=None,
    blank_index=None,
    name=None,
):
    """-log p(labels | logits) per example, for dense labels [batch, max_label_length] (padded; `label_length`
    of each) and logits [time, batch, classes] (or [batch, time, classes] when not `logits_time_major`), over
    `logit_length` steps of each example. `blank_index` (default 0) is the blank class.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     logits = tw.zeros([2, 1, 3])  # two steps, uniform over 3 classes
      ...     loss = tw.nn.ctc_loss_v2([[1]], logits, [1], [2])
      ...     print(round(float(sess.run(loss)[0]), 4))  # paths "1 1", "b 1", "1 b" of 9
      1.0986
    """
    if isinstance(labels, (SparseTensor, SparseTensorValue)):
        return _ctc_loss_v2_sparse(labels, logits, logit_length, logits_time_major, blank_index, name)
    if unique is not None:
        # An optimization hint in TensorFlow; the result is the same without it.
        pass
    with ops.get_default_graph().name_scope(name or "ctc_loss_dense"):
        logits = nn_ops._float_tensor(logits)
        if not logits_time_major:
            logits = array_ops.transpose(logits, [1, 0, 2])
        if logits.shape.ndims != 3:
            raise ValueError(f"logits must be 3-D [time, batch, classes], got shape {logits.shape}")
        steps = logits.shape[0].value
        num_classes = logits.shape[2].value
        if steps is None or num_classes is None:
            raise NotImplementedError(
                "ctc_loss_v2 needs the number of time steps and classes known statically in tensorweave (it "
                f"unrolls the recursion; while_loop is not there yet), got logits of shape {logits.shape}"
            )
        labels = math_ops.cast(ops.convert_to_tensor(labels, name="labels"), dtypes.int32)
        if labels.shape.ndims != 2:
            raise ValueError(f"labels must be 2-D [batch, max_label_length] (dense), got shape {labels.shape}")
        max_label = labels.shape[1].value
        if max_label is None:
            raise NotImplementedError("ctc_loss_v2 needs max_label_length known statically in tensorweave")
        blank = 0 if blank_index is None else int(blank_index)
        if blank < 0:
            blank += num_classes
        label_length = math_ops.cast(ops.convert_to_tensor(label_length, name="label_length"), dtypes.int32)
        logit_length = math_ops.cast(ops.convert_to_tensor(logit_length, name="logit_length"), dtypes.int32)
        dtype = logits.dtype
        s_len = 2 * max_label + 1

        log_probs = nn_ops.log_softmax(logits)  # [T, B, K]
        # The extended labels: blank, l1, blank, l2, ..., blank.
        batch = array_ops.shape(labels)[0]
        blanks = array_ops.fill(array_ops.stack([batch, max_label]), blank)
        ext = array_ops.reshape(array_ops.stack([blanks, labels], axis=2), array_ops.stack([batch, 2 * max_label]))
        ext = array_ops.concat([ext, array_ops.fill(array_ops.stack([batch, 1]), blank)], 1)  # [B, S]
        # emit[t, b, s] = log_probs[t, b, ext[b, s]], by a one-hot product (exact: one term per sum).
        onehot = array_ops.one_hot(ext, num_classes, dtype=dtype)  # [B, S, K]
        emit = math_ops.matmul(array_ops.transpose(log_probs, [1, 0, 2]), onehot, transpose_b=True)  # [B, T, S]
        emit = array_ops.unstack(emit, num=steps, axis=1)
        # The skip s-2 -> s is allowed onto a label that differs from the label before the blank between them.
        ext_prev2 = _shift_right(ext, 2, blank)
        positions = np.arange(s_len)
        is_label = constant_bool(positions % 2 == 1)
        can_skip = math_ops.logical_and(
            array_ops.reshape(is_label, [1, s_len]), math_ops.not_equal(ext, ext_prev2)
        )  # fmt: skip
        log_zero = array_ops.fill(array_ops.shape(emit[0]), ops.convert_to_tensor(_LOG_ZERO, dtype=dtype))
        start = array_ops.reshape(constant_bool(positions < 2), [1, s_len])
        alpha = math_ops.where(math_ops.logical_and(start, array_ops.ones_like(can_skip)), emit[0], log_zero)
        for t in range(1, steps):
            stay = alpha
            step = _shift_right(alpha, 1, _LOG_ZERO)
            skip = math_ops.where(can_skip, _shift_right(alpha, 2, _LOG_ZERO), log_zero)
            new_alpha = _logsumexp(stay, step, skip) + emit[t]
            running = array_ops.reshape(math_ops.less(t, logit_length), [-1, 1])
            alpha = math_ops.where(math_ops.logical_and(running, array_ops.ones_like(can_skip)), new_alpha, alpha)
        # The paths end on the last label or the blank after it: s = 2 * label_length (- 1).
        s_index = array_ops.reshape(array_ops.range(s_len), [1, s_len])
        last = array_ops.reshape(2 * label_length, [-1, 1])
        ends = math_ops.logical_or(math_ops.equal(s_index, last), math_ops.equal(s_index, last - 1))
        final = math_ops.where(ends, alpha, log_zero)
        m = math_ops.reduce_max(final, 1, keepdims=True)
        total = array_ops.squeeze(m, [1]) + math_ops.log(math_ops.reduce_sum(math_ops.exp(final - m), 1))
        return math_ops.negative(total)


def constant_bool(values):
    from tensorweave._src.ops import constant_op

    return constant_op.constant(np.asarray(values, dtype=bool))


def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of a repeated label in each row of `labels` [batch, max_length] (within `seq_length`); returns
    (collapsed labels padded with 0 to the longest result, new lengths).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     labels, lengths = sess.run(tw.nn.collapse_repeated([[1, 1, 2, 2, 3]], [5]))
      ...     print(labels, lengths)
      [[1 2 3]] [3]
    """
    with ops.get_default_graph().name_scope(name or "collapse_repeated_labels"):
        labels = ops.convert_to_tensor(labels, name="labels")
        seq_length = math_ops.cast(ops.convert_to_tensor(seq_length, name="seq_length"), dtypes.int32)
        if labels.shape.ndims != 2 or labels.shape[1].value is None:
            raise ValueError(f"labels must be 2-D with a known max length, got shape {labels.shape}")
        maxlen = labels.shape[1].value
        # A label is kept when it differs from the one before it (the first always).
        label_mask = array_ops.concat(
            [array_ops.ones_like(labels[:, :1], dtype=dtypes.bool), math_ops.not_equal(labels[:, 1:], labels[:, :-1])],
            axis=1,
        )
        seq_mask = math_ops.less(
            array_ops.reshape(array_ops.range(maxlen), [1, maxlen]), array_ops.reshape(seq_length, [-1, 1])
        )
        label_mask = math_ops.logical_and(label_mask, seq_mask)
        new_seq_len = math_ops.reduce_sum(math_ops.cast(label_mask, dtypes.int32), axis=1)
        new_maxlen = math_ops.reduce_max(new_seq_len)
        # Each kept label's new position is the count of kept labels before it; a one-hot scatter places it.
        position = special_math_ops.cumsum(math_ops.cast(label_mask, dtypes.int32), axis=1) - 1
        position = math_ops.where(label_mask, position, array_ops.fill(array_ops.shape(position), maxlen))
        onehot = array_ops.one_hot(position, maxlen, dtype=labels.dtype)  # [B, maxlen(src), maxlen(dst)]
        placed = math_ops.reduce_sum(onehot * array_ops.expand_dims(labels, 2), axis=1)  # [B, maxlen]
        collapsed = placed[:, :new_maxlen]
        return collapsed, new_seq_len


def _ctc_loss_v2_sparse(labels, logits, logit_length, logits_time_major, blank_index, name):
    """TensorFlow's ctc_loss_v2 with SparseTensor labels: the blank class moved last, then the CTCLoss kernel."""
    if blank_index is None:
        raise ValueError("blank_index must be given when using SparseTensor labels.")
    with ops.get_default_graph().name_scope(name or "ctc_loss_dense"):
        labels = SparseTensor.from_value(labels)
        logits = ops.convert_to_tensor(logits, name="logits")
        num_classes = logits.shape[2].value if logits.shape.ndims == 3 else None
        if blank_index < 0:
            if num_classes is None:
                raise ValueError("a negative blank_index needs the number of classes known statically")
            blank_index += num_classes
        if num_classes is None or blank_index != num_classes - 1:
            logits = array_ops.concat(
                [
                    logits[:, :, :blank_index],
                    logits[:, :, blank_index + 1 :],
                    logits[:, :, blank_index : blank_index + 1],
                ],
                axis=2,
            )
            values = math_ops.cast(labels.values, dtypes.int32)
            values = math_ops.where(math_ops.less(values, blank_index), values, values - 1)
            labels = SparseTensor(labels.indices, values, labels.dense_shape)
        return ctc_loss(labels, logits, logit_length, time_major=logits_time_major)


def _sparse_labels(labels, what):
    if isinstance(labels, SparseTensorValue):
        return SparseTensor.from_value(labels)
    if not isinstance(labels, SparseTensor):
        raise TypeError(f"Expected {what} to be a SparseTensor")
    return labels


def ctc_loss(
    labels,
    inputs=None,
    sequence_length=None,
    preprocess_collapse_repeated=False,
    ctc_merge_repeated=True,
    ignore_longer_outputs_than_inputs=False,
    time_major=True,
    logits=None,
):
    """The CTC loss -log p(labels | inputs) per batch entry (TF1's `tf.nn.ctc_loss`).

    `labels` is a SparseTensor [batch, max_label] of int32 classes in [0, num_classes - 1) (the last class is the
    blank), `inputs` (or `logits`) the unnormalized logits [max_time, batch, num_classes] ([batch, max_time,
    num_classes] when not `time_major`), `sequence_length` [batch] the steps of each entry.

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     labels = tw.SparseTensor([[0, 0]], tw.constant([0], tw.int32), [1, 1])
      ...     loss = tw.nn.ctc_loss(labels, tw.zeros([2, 1, 2]), [2])  # paths "0 0", "b 0", "0 b" of 4
      ...     print(round(float(sess.run(loss)[0]), 4))
      0.2877
    """
    labels = _sparse_labels(labels, "labels (first argument)")
    if inputs is not None and logits is not None:
        raise ValueError("Cannot specify both 'logits' and 'inputs'")
    inputs = logits if inputs is None else inputs
    with ops.get_default_graph().name_scope("CTCLoss"):
        inputs = ops.convert_to_tensor(inputs, name="logits")
        if not time_major:
            inputs = array_ops.transpose(inputs, [1, 0, 2])
        loss, _ = gen_ops.ctc_loss(
            inputs,
            labels.indices,
            math_ops.cast(labels.values, dtypes.int32) if labels.values.dtype != dtypes.int32 else labels.values,
            sequence_length,
            preprocess_collapse_repeated=preprocess_collapse_repeated,
            ctc_merge_repeated=ctc_merge_repeated,
            ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs,
        )
        return loss


@gradients_impl.RegisterGradient("CTCLoss")
def _ctc_loss_grad(op, grad_loss, grad_gradient=None):
    """TensorFlow's _CTCLossGrad: the kernel's gradient output scaled by the loss's gradient. The gradient output
    has no gradient itself (TF wraps it in PreventGradient): a second derivative is a LookupError."""
    if grad_gradient is not None:
        raise LookupError(
            "Currently there is no way to take the second derivative of ctc_loss due to the fused "
            "implementation's interaction with tf.gradients()"
        )
    gradient = op.outputs[1]
    if grad_loss is None:
        return [None, None, None, None]
    return [array_ops.expand_dims(grad_loss, -1) * gradient, None, None, None]


def _decoded(indices, values, shapes):
    return [SparseTensor(i, v, s) for i, v, s in zip(indices, values, shapes)]


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """Best-path decoding of logits [max_time, batch, num_classes] (TF1's `tf.nn.ctc_greedy_decoder`): returns
    ([SparseTensor of the decoded classes [batch, max_decoded]], log_probabilities [batch, 1]), the latter minus the
    sum of each step's largest logit. The blank is `blank_index` (default the last class).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     logits = np.log(np.array([[[0.1, 0.9]], [[0.8, 0.2]], [[0.9, 0.1]]], np.float32))
      ...     (decoded,), _ = tw.nn.ctc_greedy_decoder(logits, [3])
      ...     print(sess.run(decoded).values)
      [0]
    """
    with ops.get_default_graph().name_scope("CTCGreedyDecoder"):
        inputs = ops.convert_to_tensor(inputs, name="inputs")
        outputs = gen_ops.ctc_greedy_decoder(
            inputs,
            sequence_length,
            merge_repeated=merge_repeated,
            blank_index=-1 if blank_index is None else int(blank_index),
        )
        indices, values, shape, log_probability = outputs
        return [SparseTensor(indices, values, shape)], log_probability


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True):
    """Prefix beam search over logits [max_time, batch, num_classes] (TF1's `tf.nn.ctc_beam_search_decoder`; the
    blank is the last class): returns ([top_paths SparseTensors, best first], log_probabilities [batch,
    top_paths]).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     logits = np.log(np.array([[[0.1, 0.9]], [[0.8, 0.2]], [[0.9, 0.1]]], np.float32))
      ...     (decoded,), _ = tw.nn.ctc_beam_search_decoder(logits, [3], beam_width=4)
      ...     print(sess.run(decoded).values)
      [0]
    """
    with ops.get_default_graph().name_scope("CTCBeamSearchDecoder"):
        inputs = ops.convert_to_tensor(inputs, name="inputs")
        outputs = gen_ops.ctc_beam_search_decoder(
            inputs, sequence_length, beam_width=beam_width, top_paths=top_paths, merge_repeated=merge_repeated
        )
        n = int(top_paths)
        flat = list(outputs)
        if len(flat) == 4 and isinstance(flat[0], (list, tuple)):
            indices, values, shapes, log_probability = flat
        else:
            indices, values, shapes, log_probability = flat[:n], flat[n : 2 * n], flat[2 * n : 3 * n], flat[3 * n]
        return _decoded(indices, values, shapes), log_probability


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """`ctc_beam_search_decoder` without merging repeated classes (TensorFlow 2's `tf.nn.ctc_beam_search_decoder`).

    Example:
      >>> import numpy as np
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     logits = np.log(np.array([[[0.9, 0.1]], [[0.9, 0.1]]], np.float32))
      ...     (decoded,), _ = tw.nn.ctc_beam_search_decoder_v2(logits, [2], beam_width=4)
      ...     print(sess.run(decoded).values)
      [0]
    """
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated=False)


def ctc_unique_labels(labels, name=None):
    """For each row of dense labels [batch, max_length]: its distinct labels in order of first appearance, padded
    with 0 to max_length (int64), and each label's index into them (TF's `tf.nn.ctc_unique_labels`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     y, idx = sess.run(tw.nn.ctc_unique_labels([[3, 4, 4, 3]]))
      ...     print(y, idx)
      [[3 4 0 0]] [[0 1 1 0]]
    """
    from tensorweave._src.ops import functional_ops, selection_ops

    with ops.get_default_graph().name_scope(name or "ctc_unique_labels"):
        labels = ops.convert_to_tensor(labels, name="labels")

        def _unique(x):
            u = selection_ops.unique(x)
            pad = array_ops.shape(u.idx)[0] - array_ops.shape(u.y)[0]
            y = array_ops.pad(u.y, array_ops.reshape(array_ops.stack([0, pad]), [1, 2]))
            return [math_ops.cast(y, dtypes.int64), u.idx]

        return functional_ops.map_fn(_unique, labels, dtype=[dtypes.int64, dtypes.int32])


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """The Levenshtein distance between the sequences (last dimension) of two SparseTensors, one per position of
    the other dimensions; divided by the truth's length when `normalize` (TF1's `tf.edit_distance`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     h = tw.SparseTensor([[0, 0], [0, 1]], ["a", "b"], [1, 2])
      ...     t = tw.SparseTensor([[0, 0], [0, 1], [0, 2]], ["a", "c", "b"], [1, 3])
      ...     print(sess.run(tw.edit_distance(h, t, normalize=False)))
      [1.]
    """
    if not isinstance(hypothesis, (SparseTensor, SparseTensorValue)):
        raise TypeError("Hypothesis must be a SparseTensor.")
    if not isinstance(truth, (SparseTensor, SparseTensorValue)):
        raise TypeError("Truth must be a SparseTensor.")
    hypothesis = SparseTensor.from_value(hypothesis)
    truth = SparseTensor.from_value(truth)
    return gen_ops.edit_distance(
        hypothesis.indices,
        hypothesis.values,
        hypothesis.dense_shape,
        truth.indices,
        truth.values,
        truth.dense_shape,
        normalize=normalize,
        name=name,
    )


for _op_type in ("CTCGreedyDecoder", "CTCBeamSearchDecoder", "EditDistance"):
    gradients_impl.NotDifferentiable(_op_type)
