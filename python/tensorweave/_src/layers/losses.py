"""tw.losses: TensorFlow v1's loss functions, weighted and reduced, added to
the LOSSES collection."""

from tensorweave._src.framework import ops


class Reduction:
    """How per-example losses are reduced."""

    NONE = "none"
    SUM = "weighted_sum"
    MEAN = "weighted_mean"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"


def _compute_weighted_loss(losses, weights, reduction, loss_collection, scope):
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import math_ops

    graph = ops.get_default_graph()
    with graph.name_scope(scope):
        losses = ops.convert_to_tensor(losses)
        weights = math_ops.cast(ops.convert_to_tensor(weights, dtype=losses.dtype), losses.dtype)
        weighted = math_ops.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            total = math_ops.reduce_sum(weighted)
            if reduction == Reduction.SUM:
                loss = total
            else:
                full_weights = math_ops.multiply(array_ops.ones_like(losses), weights)
                if reduction == Reduction.MEAN:
                    denom = math_ops.reduce_sum(full_weights)
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    denom = math_ops.cast(array_ops.size(losses), losses.dtype)
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    nonzero = math_ops.not_equal(full_weights, 0.0)
                    denom = math_ops.reduce_sum(math_ops.cast(nonzero, losses.dtype))
                else:
                    raise ValueError(f"unknown reduction {reduction!r}")
                # All-zero weights give 0, not 0/0; named `value`, as TF1's _safe_mean names it.
                loss = math_ops.truediv(total, math_ops.maximum(denom, 1e-12), name="value")
        if loss_collection:
            ops.add_to_collection(loss_collection, loss)
        return loss


def softmax_cross_entropy(
    onehot_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """Cross-entropy between one-hot labels and softmax(logits), reduced.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     loss = tw.losses.softmax_cross_entropy([[0.0, 1.0]], [[0.0, 0.0]])
      ...     print(round(float(sess.run(loss)), 4))
      0.6931
    """
    from tensorweave._src.ops import nn_ops

    logits = ops.convert_to_tensor(logits)
    labels = ops.convert_to_tensor(onehot_labels, dtype=logits.dtype)
    if label_smoothing:
        classes = labels.shape[-1].value if labels.shape.ndims else None
        if classes is None:
            from tensorweave._src.ops import array_ops
            from tensorweave._src.ops import math_ops

            classes = math_ops.cast(array_ops.shape(labels)[-1], logits.dtype)
        labels = labels * (1.0 - label_smoothing) + label_smoothing / classes
    losses = nn_ops.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _compute_weighted_loss(losses, weights, reduction, loss_collection, scope or "softmax_cross_entropy_loss")


def sparse_softmax_cross_entropy(
    labels,
    logits,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """Cross-entropy between integer class labels and softmax(logits), reduced."""
    from tensorweave._src.ops import nn_ops

    losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    return _compute_weighted_loss(
        losses, weights, reduction, loss_collection, scope or "sparse_softmax_cross_entropy_loss"
    )


def mean_squared_error(
    labels,
    predictions,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """(labels - predictions)^2, weighted and reduced."""
    from tensorweave._src.ops import math_ops

    predictions = ops.convert_to_tensor(predictions)
    labels = ops.convert_to_tensor(labels, dtype=predictions.dtype)
    losses = math_ops.squared_difference(predictions, labels)
    return _compute_weighted_loss(losses, weights, reduction, loss_collection, scope or "mean_squared_error")


def get_losses(scope=None, loss_collection=ops.GraphKeys.LOSSES):
    """The losses added to `loss_collection`."""
    return ops.get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The regularization losses of the layers and variables."""
    return ops.get_collection(ops.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """The sum of the regularization losses (0 when there are none)."""
    from tensorweave._src.ops import constant_op
    from tensorweave._src.ops import math_ops

    losses = get_regularization_losses(scope)
    return math_ops.add_n(losses, name=name) if losses else constant_op.constant(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """The sum of the losses (and regularization losses)."""
    from tensorweave._src.ops import math_ops

    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses found")
    return math_ops.add_n(losses, name=name)
