"""Candidate sampling (TensorFlow 1's `tf.nn.*_candidate_sampler`, `compute_accidental_hits`) and the sampled
losses built on it, `nce_loss` and `sampled_softmax_loss` (TF's `_compute_sampled_logits` composite)."""

from tensorweave._src.framework import dtypes, ops, random_seed
from tensorweave._src.ops import array_ops, gen_ops, math_ops


def _seeds(seed):
    seed1, seed2 = random_seed.get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


def _true_classes(true_classes):
    return math_ops.cast(ops.convert_to_tensor(true_classes, name="true_classes"), dtypes.int64)


@gen_ops.doc_from("UniformCandidateSampler")
def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Returns (sampled_candidates, true_expected_count, sampled_expected_count).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     s, t, e = sess.run(tw.nn.uniform_candidate_sampler([[0]], 1, 4, True, 4, seed=1))
      ...     print(sorted(s.tolist()), t.shape, e.shape)
      [0, 1, 2, 3] (1, 1) (4,)
    """
    out = gen_ops.uniform_candidate_sampler(
        _true_classes(true_classes), num_true=num_true, num_sampled=num_sampled, unique=bool(unique),
        range_max=range_max, name=name, **_seeds(seed),
    )  # fmt: skip
    return tuple(out)


@gen_ops.doc_from("LogUniformCandidateSampler")
def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Returns (sampled_candidates, true_expected_count, sampled_expected_count).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     s, t, e = sess.run(tw.nn.log_uniform_candidate_sampler([[0]], 1, 3, True, 10, seed=1))
      ...     print(len(set(s)), round(float(t[0, 0]), 2) > 0)
      3 True
    """
    out = gen_ops.log_uniform_candidate_sampler(
        _true_classes(true_classes), num_true=num_true, num_sampled=num_sampled, unique=bool(unique),
        range_max=range_max, name=name, **_seeds(seed),
    )  # fmt: skip
    return tuple(out)


@gen_ops.doc_from("LearnedUnigramCandidateSampler")
def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Returns (sampled_candidates, true_expected_count, sampled_expected_count).

    The sampler's counts live in its op: every class starts at 1 and each run adds 1 for each of that run's
    true classes, after the run's draw (TensorFlow's LearnedUnigramCandidateSampler).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     s, t, e = sess.run(tw.nn.learned_unigram_candidate_sampler([[0]], 1, 4, True, 4, seed=1))
      ...     print(sorted(s.tolist()), t.shape, e.shape)
      [0, 1, 2, 3] (1, 1) (4,)
    """
    out = gen_ops.learned_unigram_candidate_sampler(
        _true_classes(true_classes), num_true=num_true, num_sampled=num_sampled, unique=bool(unique),
        range_max=range_max, name=name, **_seeds(seed),
    )  # fmt: skip
    return tuple(out)


@gen_ops.doc_from("FixedUnigramCandidateSampler")
def fixed_unigram_candidate_sampler(
    true_classes,
    num_true,
    num_sampled,
    unique,
    range_max,
    vocab_file="",
    distortion=1.0,
    num_reserved_ids=0,
    num_shards=1,
    shard=0,
    unigrams=(),
    seed=None,
    name=None,
):
    """Returns (sampled_candidates, true_expected_count, sampled_expected_count).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     s, t, e = sess.run(tw.nn.fixed_unigram_candidate_sampler([[1]], 1, 2, True, 3, unigrams=[0, 1, 1]))
      ...     print(sorted(s.tolist()))
      [1, 2]
    """
    if num_shards != 1:
        raise NotImplementedError("fixed_unigram_candidate_sampler with num_shards > 1 is not supported by tensorweave")
    out = gen_ops.fixed_unigram_candidate_sampler(
        _true_classes(true_classes), num_true=num_true, num_sampled=num_sampled, unique=bool(unique),
        range_max=range_max, vocab_file=vocab_file, distortion=float(distortion),
        num_reserved_ids=num_reserved_ids, num_shards=num_shards, shard=shard,
        unigrams=[float(u) for u in unigrams], name=name, **_seeds(seed),
    )  # fmt: skip
    return tuple(out)


@gen_ops.doc_from("AllCandidateSampler")
def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Returns (sampled_candidates, true_expected_count, sampled_expected_count).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.all_candidate_sampler([[2]], 1, 3, True)[0]))
      [0 1 2]
    """
    out = gen_ops.all_candidate_sampler(
        _true_classes(true_classes), num_true=num_true, num_sampled=num_sampled, unique=bool(unique), name=name,
        **_seeds(seed),
    )  # fmt: skip
    return tuple(out)


@gen_ops.doc_from("ComputeAccidentalHits")
def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Returns (indices, ids, weights).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.nn.compute_accidental_hits([[1], [4]], tw.constant([4, 2, 1], tw.int64), 1)[:2]))
      (array([0, 1], dtype=int32), array([2, 0]))
    """
    sampled = math_ops.cast(ops.convert_to_tensor(sampled_candidates, name="sampled_candidates"), dtypes.int64)
    out = gen_ops.compute_accidental_hits(
        _true_classes(true_classes), sampled, num_true=num_true, name=name, **_seeds(seed)
    )
    return tuple(out)


def _sum_rows(x):
    cols = array_ops.shape(x)[1]
    ones = array_ops.ones(array_ops.stack([cols, 1]), x.dtype)
    return array_ops.reshape(math_ops.matmul(x, ones), [-1])


def _compute_sampled_logits(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    subtract_log_q=True,
    remove_accidental_hits=False,
    partition_strategy="mod",
    name=None,
    seed=None,
):
    from tensorweave._src.ops import array_nd_ops, nn_impl

    weights = nn_impl._shard_list(weights)  # a PartitionedVariable's parts, read shard by shard
    with ops.get_default_graph().name_scope(name or "compute_sampled_logits"):
        inputs = ops.convert_to_tensor(inputs, name="inputs")
        labels = math_ops.cast(ops.convert_to_tensor(labels, name="labels"), dtypes.int64)
        labels_flat = array_ops.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(
                labels, num_true, num_sampled, True, num_classes, seed=seed
            )  # fmt: skip
        sampled, true_expected_count, sampled_expected_count = (
            array_ops.stop_gradient(ops.convert_to_tensor(s)) for s in sampled_values
        )
        sampled = math_ops.cast(sampled, dtypes.int64)
        all_ids = array_ops.concat([labels_flat, sampled], 0)
        all_w = nn_impl.embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
        if all_w.dtype != inputs.dtype:
            all_w = math_ops.cast(all_w, inputs.dtype)
        n_true = array_ops.shape(labels_flat)[0]
        true_w = array_ops.slice(all_w, [0, 0], array_ops.stack([n_true, -1]))
        sampled_w = array_ops.slice(all_w, array_ops.stack([n_true, 0]), [-1, -1])
        sampled_logits = math_ops.matmul(inputs, sampled_w, transpose_b=True)
        all_b = nn_impl.embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        if all_b.dtype != inputs.dtype:
            all_b = math_ops.cast(all_b, inputs.dtype)
        true_b = array_ops.slice(all_b, [0], array_ops.shape(labels_flat))
        sampled_b = array_ops.slice(all_b, array_ops.shape(labels_flat), [-1])
        dim = array_ops.shape(true_w)[1:2]
        new_true_w_shape = array_ops.concat([[-1, num_true], dim], 0)
        row_wise_dots = math_ops.multiply(
            array_ops.expand_dims(inputs, 1), array_ops.reshape(true_w, new_true_w_shape)
        )  # fmt: skip
        dots_as_matrix = array_ops.reshape(row_wise_dots, array_ops.concat([[-1], dim], 0))
        true_logits = array_ops.reshape(_sum_rows(dots_as_matrix), [-1, num_true])
        true_logits += array_ops.reshape(true_b, [-1, num_true])
        sampled_logits += sampled_b
        if remove_accidental_hits:
            acc_indices, acc_ids, acc_weights = compute_accidental_hits(labels, sampled, num_true=num_true)
            sparse_indices = array_ops.concat(
                [
                    array_ops.reshape(acc_indices, [-1, 1]),
                    array_ops.reshape(math_ops.cast(acc_ids, dtypes.int32), [-1, 1]),
                ],
                1,
            )
            shape = array_ops.concat([array_ops.shape(labels)[:1], [num_sampled]], 0)
            sampled_logits += array_nd_ops.scatter_nd(
                sparse_indices, math_ops.cast(acc_weights, sampled_logits.dtype), shape
            )
        if subtract_log_q:
            true_logits -= math_ops.log(math_ops.cast(true_expected_count, true_logits.dtype))
            sampled_logits -= math_ops.log(math_ops.cast(sampled_expected_count, sampled_logits.dtype))
        out_logits = array_ops.concat([true_logits, sampled_logits], 1)
        out_labels = array_ops.concat(
            [array_ops.ones_like(true_logits) / num_true, array_ops.zeros_like(sampled_logits)], 1
        )
        return out_logits, out_labels


def nce_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=False,
    partition_strategy="mod",
    name="nce_loss",
):
    """Noise-contrastive estimation loss per example: logistic losses of the true classes against `num_sampled`
    sampled ones (log-uniform unless `sampled_values` is given).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w, b = tw.zeros([10, 4]), tw.zeros([10])
      ...     loss = tw.nn.nce_loss(w, b, [[1], [2]], tw.ones([2, 4]), 3, 10)
      ...     print(sess.run(loss).shape)
      (2,)
    """
    from tensorweave._src.ops import nn_impl

    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True, remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name,
    )  # fmt: skip
    sampled_losses = nn_impl.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return _sum_rows(sampled_losses)


def sampled_softmax_loss(
    weights,
    biases,
    labels,
    inputs,
    num_sampled,
    num_classes,
    num_true=1,
    sampled_values=None,
    remove_accidental_hits=True,
    partition_strategy="mod",
    name="sampled_softmax_loss",
    seed=None,
):
    """Softmax cross entropy over the true classes and `num_sampled` sampled ones, per example.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w, b = tw.zeros([10, 4]), tw.zeros([10])
      ...     loss = tw.nn.sampled_softmax_loss(w, b, [[1], [2]], tw.ones([2, 4]), 3, 10)
      ...     print(sess.run(loss).shape)
      (2,)
    """
    from tensorweave._src.ops import nn_ops

    logits, labels = _compute_sampled_logits(
        weights, biases, labels, inputs, num_sampled, num_classes, num_true=num_true,
        sampled_values=sampled_values, subtract_log_q=True, remove_accidental_hits=remove_accidental_hits,
        partition_strategy=partition_strategy, name=name, seed=seed,
    )  # fmt: skip
    labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
