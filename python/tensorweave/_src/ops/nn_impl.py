"""TensorFlow 1's Python-composite nn functions (tf.nn names built from other ops, as TF builds them, with TF's
scope names): the sigmoid losses, batch_normalization, the moments helpers, crelu/swish/softsign, xw_plus_b,
relu_layer, zero_fraction, log_poisson_loss, embedding_lookup, the average-loss helpers."""

import math

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.ops import array_ops, constant_op, math_ops, nn_ops


def _scope(name, default):
    return ops.get_default_graph().name_scope(name or default)


def _merge_shapes(a, b, what):
    try:
        a.shape.merge_with(b.shape)
    except ValueError:
        raise ValueError(f"{what} must have the same shape ({a.shape} vs {b.shape})") from None


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """max(x, 0) - x * z + log(1 + exp(-|x|)), element-wise, for logits x and labels z of one shape.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     loss = tw.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[0.0, 0.0])
      ...     print(sess.run(loss))
      [0.6931472 0.6931472]
    """
    with _scope(name, "logistic_loss") as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, dtype=logits.dtype, name="labels")
        _merge_shapes(labels, logits, "logits and labels")
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        cond = math_ops.greater_equal(logits, zeros)
        relu_logits = math_ops.where(cond, logits, zeros)
        neg_abs_logits = math_ops.where(cond, math_ops.negative(logits), logits)
        return math_ops.add(relu_logits - logits * labels, math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None, targets=None):
    """The sigmoid cross entropy with the positive term weighted by `pos_weight`:
    (1 - z) * x + (1 + (pos_weight - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0)).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     loss = tw.nn.weighted_cross_entropy_with_logits(labels=[1.0], logits=[0.0], pos_weight=2.0)
      ...     print(sess.run(loss))
      [1.3862944]
    """
    if labels is None:
        labels = targets
    with _scope(name, "logistic_loss") as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, dtype=logits.dtype, name="targets")
        _merge_shapes(labels, logits, "logits and targets")
        log_weight = 1 + (pos_weight - 1) * labels
        return math_ops.add(
            (1 - labels) * logits,
            log_weight * (math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + nn_ops.relu(-logits)),
            name=scope,
        )


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(c) - z * c for log-rate c and targets z; with `compute_full_loss`, plus Stirling's approximation of
    log(z!) where z > 1.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.log_poisson_loss([1.0], [0.0])))
      [1.]
    """
    with _scope(name, "log_poisson_loss") as scope:
        log_input = ops.convert_to_tensor(log_input, name="log_input")
        targets = ops.convert_to_tensor(targets, dtype=log_input.dtype, name="targets")
        _merge_shapes(log_input, targets, "log_input and targets")
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant_op.constant(0.5, dtype=targets.dtype)
            two_pi = constant_op.constant(2 * math.pi, dtype=targets.dtype)
            stirling = targets * math_ops.log(targets) - targets + point_five * math_ops.log(two_pi * targets)
            zeros = array_ops.zeros_like(targets, dtype=targets.dtype)
            ones = array_ops.ones_like(targets, dtype=targets.dtype)
            cond = math_ops.logical_and(math_ops.greater_equal(targets, zeros), math_ops.less_equal(targets, ones))
            result += math_ops.where(cond, zeros, stirling)
        return array_ops.identity(result, name=scope) if compute_full_loss else result


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset; `offset` and `scale` may be None.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.batch_normalization([1.0, 3.0], 2.0, 1.0, None, None, 0.0)))
      [-1.  1.]
    """
    with _scope(name, "batchnorm"):
        x = ops.convert_to_tensor(x)
        mean = ops.convert_to_tensor(mean, dtype=x.dtype)
        variance = ops.convert_to_tensor(variance, dtype=x.dtype)
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= ops.convert_to_tensor(scale, dtype=x.dtype)
        shift = (ops.convert_to_tensor(offset, dtype=x.dtype) - mean * inv) if offset is not None else -mean * inv
        return x * math_ops.cast(inv, x.dtype) + math_ops.cast(shift, x.dtype)


def batch_norm_with_global_normalization(
    t=None,
    m=None,
    v=None,
    beta=None,
    gamma=None,
    variance_epsilon=None,
    scale_after_normalization=None,
    name=None,
    input=None,
    mean=None,
    variance=None,
):
    """TF1's older batch normalization: `batch_normalization` with gamma used only when
    `scale_after_normalization`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     y = tw.nn.batch_norm_with_global_normalization([1.0, 3.0], 2.0, 1.0, 0.0, 2.0, 0.0, True)
      ...     print(sess.run(y))
      [-2.  2.]
    """
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    return batch_normalization(
        t, m, v, beta, gamma if scale_after_normalization else None, variance_epsilon, name or "batchnorm"
    )


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over `axes`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print([float(v) for v in sess.run(tw.nn.sufficient_statistics([1.0, 3.0], [0])[:3])])
      [2.0, 4.0, 10.0]
    """
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with _scope(name, "sufficient_statistics"):
        x = ops.convert_to_tensor(x, name="x")
        axes = [int(a) for a in axes]
        if x.shape.ndims is not None and all(x.shape[a].value is not None for a in axes):
            counts = 1
            for a in axes:
                counts *= x.shape[a].value
            counts = constant_op.constant(counts, dtype=x.dtype, name="count")
        else:
            sizes = array_ops.gather(array_ops.shape(x), axes)
            counts = math_ops.cast(math_ops.reduce_prod(sizes), x.dtype, name="count")
        if shift is not None:
            shift = ops.convert_to_tensor(shift, dtype=x.dtype, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss, v_ss = x, math_ops.square(x)
        m_ss = math_ops.reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss")
        v_ss = math_ops.reduce_sum(v_ss, axes, keepdims=keep, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print([float(v) for v in sess.run(tw.nn.normalize_moments(2.0, 4.0, 10.0, None))])
      [2.0, 1.0]
    """
    with _scope(name, "normalize"):
        mean_ss = ops.convert_to_tensor(mean_ss)
        counts = ops.convert_to_tensor(counts, dtype=mean_ss.dtype)
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="mean")
            mean = shifted_mean
        variance = math_ops.subtract(
            math_ops.multiply(variance_ss, divisor), math_ops.square(shifted_mean), name="variance"
        )
    return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over `axes` with each element counted `frequency_weights` times (weights broadcast
    to x).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print([float(v) for v in sess.run(tw.nn.weighted_moments([1.0, 3.0], [0], [1.0, 3.0]))])
      [2.5, 0.75]
    """
    keep = bool(keepdims if keepdims is not None else keep_dims)
    with _scope(name, "weighted_moments"):
        x = ops.convert_to_tensor(x, name="x")
        weights = math_ops.cast(ops.convert_to_tensor(frequency_weights, name="frequency_weights"), x.dtype)
        weighted_input_sum = math_ops.reduce_sum(weights * x, axes, name="weighted_input_sum", keepdims=True)
        broadcasted_weights = weights + array_ops.zeros_like(x)
        sum_of_weights = math_ops.reduce_sum(broadcasted_weights, axes, name="sum_of_weights", keepdims=True)
        divisor = math_ops.reciprocal(sum_of_weights, name="inv_weight_sum")
        weighted_mean = math_ops.multiply(weighted_input_sum, divisor)
        weighted_distsq = math_ops.reduce_sum(
            weights * math_ops.squared_difference(x, weighted_mean), axes, name="weighted_distsq", keepdims=True
        )
        weighted_variance = math_ops.multiply(weighted_distsq, divisor)
        if not keep:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        return weighted_mean, weighted_variance


def zero_fraction(value, name=None):
    """The fraction of zeros in `value`, a float32 scalar.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.zero_fraction([0.0, 1.0, 0.0, 2.0])))
      0.5
    """
    with _scope(name, "zero_fraction"):
        value = ops.convert_to_tensor(value, name="value")
        zero = constant_op.constant(0, dtype=value.dtype, name="zero")
        nonzero = math_ops.reduce_sum(
            math_ops.cast(math_ops.not_equal(value, zero), dtypes.int64), name="count_nonzero"
        )
        size = array_ops.size(value, out_type=dtypes.int64)
        # As TF's: (size - nonzero) / size in float32, the result "zero_fraction/fraction".
        with ops.get_default_graph().name_scope("counts_to_fraction"):
            fraction = math_ops.cast(size - nonzero, dtypes.float32) / math_ops.cast(size, dtypes.float32)
        return array_ops.identity(fraction, name="fraction")


def crelu(features, name=None, axis=-1):
    """relu(concat([features, -features], axis)): the positive and negative parts side by side.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.crelu([[1.0, -2.0]])))
      [[1. 0. 0. 2.]]
    """
    with _scope(name, "CRelu") as scope:
        features = ops.convert_to_tensor(features, name="features")
        c = array_ops.concat([features, -features], axis, name="concat")
        return nn_ops.relu(c, name=scope)


def swish(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (also `silu`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.swish([0.0, 2.0])).round(4))
      [0.     1.7616]
    """
    with _scope(name, "swish"):
        features = ops.convert_to_tensor(features, name="features")
        beta = ops.convert_to_tensor(beta, dtype=features.dtype, name="beta")
        return features * math_ops.sigmoid(beta * features)


silu = swish


def softsign(features, name=None):
    """features / (|features| + 1), element-wise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.softsign([-1.0, 3.0])))
      [-0.5   0.75]
    """
    with _scope(name, "Softsign") as scope:
        features = nn_ops._float_tensor(features)
        return math_ops.truediv(features, math_ops.abs(features) + 1, name=scope)


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.xw_plus_b([[1.0, 2.0]], [[1.0], [1.0]], [0.5])))
      [[3.5]]
    """
    with _scope(name, "xw_plus_b") as scope:
        x = ops.convert_to_tensor(x, name="x")
        weights = ops.convert_to_tensor(weights, dtype=x.dtype, name="weights")
        biases = ops.convert_to_tensor(biases, dtype=x.dtype, name="biases")
        mm = math_ops.matmul(x, weights)
        return nn_ops.bias_add(mm, biases, name=scope)


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.relu_layer([[1.0, -2.0]], [[1.0], [1.0]], [0.5])))
      [[0.]]
    """
    with _scope(name, "relu_layer") as scope:
        x = ops.convert_to_tensor(x, name="x")
        weights = ops.convert_to_tensor(weights, dtype=x.dtype, name="weights")
        biases = ops.convert_to_tensor(biases, dtype=x.dtype, name="biases")
        xw_b = nn_ops.bias_add(math_ops.matmul(x, weights), biases)
        return nn_ops.relu(xw_b, name=scope)


def _clip(params, ids, max_norm):
    """TF's embedding _clip: each embedding (over the dimensions past ids' rank) clipped to L2 norm max_norm."""
    if max_norm is None:
        return params
    from tensorweave._src.ops import special_math_ops

    ids_rank, params_rank = ids.shape.ndims, params.shape.ndims
    if ids_rank and params_rank:
        axes = list(range(ids_rank, params_rank))
    else:
        axes = array_ops.range(array_ops.rank(ids), array_ops.rank(params))
    return special_math_ops.clip_by_norm(params, max_norm, axes=axes)


def _shard_list(params):
    """The shards of `params`: a PartitionedVariable's parts, a list as it is, anything else one shard."""
    from tensorweave._src.ops.partitioned_variables import PartitionedVariable

    if isinstance(params, PartitionedVariable):
        return list(params)
    if isinstance(params, (list, tuple)):
        return list(params)
    return [params]


def _div_assignments(params, flat_ids):
    """(shard, row within it) of each id under "div": the first (total % n) shards hold one id more."""
    n = len(params)
    dims = [p.shape[0].value if p.shape.ndims else None for p in params]
    if all(d is not None for d in dims):
        num_total_ids = constant_op.constant(sum(dims), flat_ids.dtype)
    else:
        sizes = []
        for p, d in zip(params, dims):
            if d is not None:
                sizes.append(constant_op.constant(d, dtypes.int32))
            else:
                with ops.get_default_graph().colocate_with(p):
                    sizes.append(array_ops.shape(p)[0])
        num_total_ids = math_ops.reduce_sum(math_ops.cast(array_ops.stack(sizes), flat_ids.dtype))
    ids_per_partition = num_total_ids // n
    extras = num_total_ids % n
    assignments = math_ops.maximum(flat_ids // (ids_per_partition + 1), (flat_ids - extras) // ids_per_partition)
    new_ids = math_ops.where(
        assignments < extras, flat_ids % (ids_per_partition + 1), (flat_ids - extras) % ids_per_partition
    )
    return assignments, new_ids


def embedding_lookup(params, ids, partition_strategy="mod", name=None, validate_indices=True, max_norm=None):
    """Rows `ids` of `params`: one tensor or variable, a list of shards or a PartitionedVariable, split as TF1
    splits them: "mod" puts id i in shard i % n at row i // n; "div" gives each shard a contiguous range, the first
    (total % n) shards one id more. Each shard is gathered on its own and the rows stitched back in order, so the
    gradient of each shard is an IndexedSlices of the rows it gave. An id outside the table is an
    InvalidArgumentError of the gather that reads it.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.embedding_lookup(tw.constant([[1.0], [2.0], [3.0]]), [2, 0])))
      [[3.]
       [1.]]
    """
    params = _shard_list(params)
    if not params:
        raise ValueError("Need at least one param")
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"Unrecognized partition_strategy: {partition_strategy}")
    graph = ops.get_default_graph()
    with _scope(name, "embedding_lookup") as scope:
        n = len(params)
        params = [p if isinstance(p, ops.Tensor) else ops.convert_to_tensor(p, name="params") for p in params]
        ids = ops.convert_to_tensor(ids, name="ids")
        if n == 1:
            with graph.colocate_with(params[0]):
                result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
            # As TF: the result free of the params' colocation ("embedding_lookup/Identity").
            return array_ops.identity(result)
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = array_ops.range(array_ops.size(flat_ids))
        if partition_strategy == "mod":
            p_assignments = flat_ids % n
            new_ids = flat_ids // n
        else:
            p_assignments, new_ids = _div_assignments(params, flat_ids)
        p_assignments = math_ops.cast(p_assignments, dtypes.int32)
        from tensorweave._src.ops import data_flow_ops

        gather_ids = data_flow_ops.dynamic_partition(new_ids, p_assignments, n)
        pindices = data_flow_ops.dynamic_partition(original_indices, p_assignments, n)
        partitioned_result = []
        for p in range(n):
            with graph.colocate_with(params[p]):
                partitioned_result.append(array_ops.gather(params[p], gather_ids[p]))
        ret = data_flow_ops.dynamic_stitch(pindices, partitioned_result, name=scope)
        element_shape_s = params[0].shape[1:]
        for p in params[1:]:
            element_shape_s = element_shape_s.merge_with(p.shape[1:])
        if element_shape_s.is_fully_defined():
            element_shape_d = constant_op.constant(element_shape_s.as_list(), dtypes.int32)
        else:
            with graph.colocate_with(params[0]):
                element_shape_d = array_ops.shape(params[0])[1:]
        ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_shape_d], 0))
        ret.set_shape(ids.shape.concatenate(element_shape_s))
        return _clip(ret, ids, max_norm)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (the batch size when not given).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.compute_average_loss([1.0, 3.0])))
      2.0
    """
    per_example_loss = ops.convert_to_tensor(per_example_loss)
    if not per_example_loss.dtype.is_floating:
        raise TypeError(f"per_example_loss must be floating point, got {per_example_loss.dtype.name}")
    with _scope(None, "weighted_loss"):
        if sample_weight is not None:
            per_example_loss = per_example_loss * ops.convert_to_tensor(sample_weight, dtype=per_example_loss.dtype)
        if global_batch_size is None:
            global_batch_size = array_ops.shape(per_example_loss)[0] if per_example_loss.shape.ndims else 1
        total = math_ops.reduce_sum(per_example_loss)
        return math_ops.truediv(total, math_ops.cast(global_batch_size, per_example_loss.dtype))


def scale_regularization_loss(regularization_loss):
    """The sum of `regularization_loss`, divided by the number of replicas (one here).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.scale_regularization_loss([1.0, 2.0])))
      3.0
    """
    return math_ops.reduce_sum(ops.convert_to_tensor(regularization_loss))
