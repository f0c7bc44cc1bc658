"""Connectionist temporal classification with dense labels (TensorFlow's `ctc_loss_v2` / `ctc_loss_dense`) and
`collapse_repeated`.

The forward (alpha) recursion runs in log space over the labels with blanks between them, unrolled over the
statically known number of time steps (tensorweave has no while_loop yet); its gradient is that of the unrolled
graph. The sparse-label forms (`ctc_loss`, the decoders) need SparseTensor, which tensorweave does not have yet."""

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, math_ops, nn_ops, special_math_ops

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
