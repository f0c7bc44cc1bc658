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
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        return (
            cls.NONE,
            cls.SUM,
            cls.SUM_OVER_BATCH_SIZE,
            cls.MEAN,
            cls.SUM_BY_NONZERO_WEIGHTS,
            cls.SUM_OVER_NONZERO_WEIGHTS,
        )

    @classmethod
    def validate(cls, key):
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}.")


def _compute_weighted_loss(losses, weights, reduction, loss_collection, scope):
    from tensorweave._src.ops import array_ops, math_ops

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
            from tensorweave._src.ops import array_ops, math_ops

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
    """Cross-entropy between integer class labels and softmax(logits), reduced. As in TF1, labels of the
    logits' rank ([batch, 1]) lose their last dimension, and so do weights of one more rank than the labels."""
    from tensorweave._src.ops import array_ops
    from tensorweave._src.ops import nn_ops

    labels, logits = ops.convert_to_tensor(labels), ops.convert_to_tensor(logits)
    labels_rank, logits_rank = labels.get_shape().ndims, logits.get_shape().ndims
    if labels_rank is not None and labels_rank == logits_rank and labels_rank > 0:
        labels = array_ops.squeeze(labels, [-1])
        labels_rank -= 1
    if not isinstance(weights, (int, float)):
        weights = ops.convert_to_tensor(weights)
        weights_rank = weights.get_shape().ndims
        if weights_rank and labels_rank is not None and weights_rank - labels_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
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
    from tensorweave._src.ops import constant_op, math_ops

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


def compute_weighted_loss(
    losses, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS
):
    """`losses` times `weights`, reduced as `reduction` says and added to `loss_collection`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(float(sess.run(tw.losses.compute_weighted_loss([1.0, 3.0], [1.0, 0.0]))))
      1.0
    """
    Reduction.validate(reduction)
    return _compute_weighted_loss(losses, weights, reduction, loss_collection, scope or "weighted_loss")


def add_loss(loss, loss_collection=ops.GraphKeys.LOSSES):
    """Adds `loss` to `loss_collection` (nothing when the collection is None).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     tw.losses.add_loss(tw.constant(1.0))
      ...     print(len(tw.losses.get_losses()))
      1
    """
    if loss_collection:
        ops.add_to_collection(loss_collection, loss)


def _pair(labels, predictions, what="predictions"):
    """(labels, predictions) as tensors of one dtype and compatible shapes (else ValueError, as TF1)."""
    predictions = ops.convert_to_tensor(predictions, name=what)
    labels = ops.convert_to_tensor(labels, name="labels")
    if labels.dtype != predictions.dtype:
        from tensorweave._src.ops import math_ops

        labels = math_ops.cast(labels, predictions.dtype)
    predictions.shape.assert_is_compatible_with(labels.shape)
    return labels, predictions


def _check_not_none(**named):
    for key, value in named.items():
        if value is None:
            raise ValueError(f"{key} must not be None.")


def absolute_difference(
    labels,
    predictions,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """|predictions - labels|, weighted and reduced.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(float(sess.run(tw.losses.absolute_difference([1.0, 2.0], [2.0, 4.0]))))
      1.5
    """
    from tensorweave._src.ops import math_ops

    _check_not_none(labels=labels, predictions=predictions)
    graph = ops.get_default_graph()
    with graph.name_scope(scope or "absolute_difference") as sc:
        labels, predictions = _pair(labels, predictions)
        losses = math_ops.abs(math_ops.subtract(predictions, labels))
        return _compute_weighted_loss(losses, weights, reduction, loss_collection, sc)


def cosine_distance(
    labels,
    predictions,
    axis=None,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
    dim=None,
):
    """1 - sum(labels * predictions, axis), for unit-normalized labels and predictions, weighted and reduced.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(float(sess.run(tw.losses.cosine_distance([[1.0, 0.0]], [[0.0, 1.0]], axis=1))))
      1.0
    """
    from tensorweave._src.ops import math_ops

    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'axis' and 'dim'")
        axis = dim
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _check_not_none(labels=labels, predictions=predictions)
    graph = ops.get_default_graph()
    with graph.name_scope(scope or "cosine_distance_loss") as sc:
        labels, predictions = _pair(labels, predictions)
        radial_diffs = math_ops.multiply(predictions, labels)
        losses = 1 - math_ops.reduce_sum(radial_diffs, axis, keepdims=True)
        return _compute_weighted_loss(losses, weights, reduction, loss_collection, sc)


def hinge_loss(
    labels,
    logits,
    weights=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """max(0, 1 - (2 * labels - 1) * logits) for labels in {0, 1}, weighted and reduced.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(float(sess.run(tw.losses.hinge_loss([1.0, 0.0], [0.5, 0.5]))))
      1.0
    """
    from tensorweave._src.ops import array_ops, math_ops, nn_ops

    _check_not_none(labels=labels, logits=logits)
    graph = ops.get_default_graph()
    with graph.name_scope(scope or "hinge_loss") as sc:
        labels, logits = _pair(labels, logits, "logits")
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return _compute_weighted_loss(losses, weights, reduction, loss_collection, sc)


def huber_loss(
    labels,
    predictions,
    weights=1.0,
    delta=1.0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """0.5 * e^2 where |e| <= delta, else delta * (|e| - 0.5 * delta), e = predictions - labels; weighted and
    reduced.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(float(sess.run(tw.losses.huber_loss([0.0, 0.0], [0.5, 3.0]))))
      1.3125
    """
    from tensorweave._src.ops import math_ops

    _check_not_none(labels=labels, predictions=predictions)
    graph = ops.get_default_graph()
    with graph.name_scope(scope or "huber_loss") as sc:
        labels, predictions = _pair(labels, predictions)
        error = math_ops.subtract(predictions, labels)
        abs_error = math_ops.abs(error)
        quadratic = math_ops.minimum(abs_error, delta)
        linear = math_ops.subtract(abs_error, quadratic)
        losses = math_ops.add(
            math_ops.multiply(
                ops.convert_to_tensor(0.5, dtype=quadratic.dtype), math_ops.multiply(quadratic, quadratic)
            ),
            math_ops.multiply(delta, linear),
        )
        return _compute_weighted_loss(losses, weights, reduction, loss_collection, sc)


def log_loss(
    labels,
    predictions,
    weights=1.0,
    epsilon=1e-7,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """-labels * log(predictions + epsilon) - (1 - labels) * log(1 - predictions + epsilon), weighted and reduced.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(round(float(sess.run(tw.losses.log_loss([1.0], [0.5]))), 4))
      0.6931
    """
    from tensorweave._src.ops import math_ops

    _check_not_none(labels=labels, predictions=predictions)
    graph = ops.get_default_graph()
    with graph.name_scope(scope or "log_loss") as sc:
        labels, predictions = _pair(labels, predictions)
        losses = -math_ops.multiply(labels, math_ops.log(predictions + epsilon)) - math_ops.multiply(
            (1 - labels), math_ops.log(1 - predictions + epsilon)
        )
        return _compute_weighted_loss(losses, weights, reduction, loss_collection, sc)


def _num_present_per_batch(losses, weights):
    """TF1's _num_present(per_batch=True): the number of non-zero weights, broadcast over each example."""
    from tensorweave._src.ops import array_ops, math_ops

    weights = math_ops.cast(ops.convert_to_tensor(weights), losses.dtype)
    present = math_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights), array_ops.ones_like(weights))
    present = math_ops.multiply(present, array_ops.ones_like(losses))
    return math_ops.reduce_sum(present, _batch_axes(present), keepdims=True)


def _div_no_nan(x, y, name):
    """x / y, 0 where y is 0."""
    from tensorweave._src.ops import array_ops, math_ops

    zero = math_ops.equal(y, 0.0)
    safe = math_ops.where(zero, array_ops.ones_like(y), y)
    quotient = math_ops.truediv(x, safe)
    return math_ops.where(zero, array_ops.zeros_like(quotient), quotient, name=name)


def _batch_axes(t):
    from tensorweave._src.ops import array_ops

    if t.shape.ndims is not None:
        return list(range(1, t.shape.ndims))
    return array_ops.range(1, array_ops.rank(t))


def mean_pairwise_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES):
    """The mean over pairs of elements of each example of ((p_i - p_j) - (l_i - l_j))^2, weighted and summed.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     loss = tw.losses.mean_pairwise_squared_error([[0.0, 1.0, 2.0]], [[0.0, 0.0, 0.0]])
      ...     print(round(float(sess.run(loss)), 4))
      2.0
    """
    from tensorweave._src.ops import array_ops, math_ops

    _check_not_none(labels=labels, predictions=predictions)
    graph = ops.get_default_graph()
    with graph.name_scope(scope or "mean_pairwise_squared_error"):
        labels, predictions = _pair(labels, predictions)
        weights = math_ops.cast(ops.convert_to_tensor(weights), predictions.dtype)
        diffs = math_ops.subtract(predictions, labels)
        axes = _batch_axes(diffs)
        sum_squares_diff_per_batch = math_ops.reduce_sum(math_ops.square(diffs), axes, keepdims=True)
        num_present_per_batch = _num_present_per_batch(diffs, weights)
        zero = ops.convert_to_tensor(0.0, dtype=diffs.dtype)
        term1 = 2.0 * _div_no_nan(
            sum_squares_diff_per_batch, math_ops.maximum(num_present_per_batch - 1, zero), name="value"
        )
        sum_diff = math_ops.reduce_sum(diffs, axes, keepdims=True)
        term2 = 2.0 * _div_no_nan(
            math_ops.square(sum_diff),
            math_ops.maximum(math_ops.multiply(num_present_per_batch, num_present_per_batch - 1), zero),
            name="value",
        )
        weighted_losses = math_ops.multiply(term1 - term2, weights)
        loss = math_ops.reduce_sum(weighted_losses)
        mean_loss = math_ops.where(
            math_ops.greater(math_ops.reduce_sum(num_present_per_batch), zero),
            loss,
            array_ops.zeros_like(loss),
            name="value",
        )
        add_loss(mean_loss, loss_collection)
        return mean_loss


def sigmoid_cross_entropy(
    multi_class_labels,
    logits,
    weights=1.0,
    label_smoothing=0,
    scope=None,
    loss_collection=ops.GraphKeys.LOSSES,
    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS,
):
    """Sigmoid cross entropy of logits against labels in [0, 1] (smoothed towards 0.5 by `label_smoothing`),
    weighted and reduced.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(round(float(sess.run(tw.losses.sigmoid_cross_entropy([[1.0, 0.0]], [[0.0, 0.0]]))), 4))
      0.6931
    """
    from tensorweave._src.ops import math_ops, nn_impl

    _check_not_none(multi_class_labels=multi_class_labels, logits=logits)
    graph = ops.get_default_graph()
    with graph.name_scope(scope or "sigmoid_cross_entropy_loss") as sc:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = math_ops.cast(ops.convert_to_tensor(multi_class_labels), logits.dtype)
        logits.shape.assert_is_compatible_with(labels.shape)
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return _compute_weighted_loss(losses, weights, reduction, loss_collection, sc)
