"""Fidelity cases for the kernel fuzzer's findings (tests/test_fuzz_findings.py has the rest): what a TF1 program
observes for the hostile inputs that crashed tensorweave (UBSan overflows, null vector elements, aborts), where
TensorFlow's own answer is defined."""

from tests.fidelity.harness import case

I64_MAX = 2**63 - 1


@case
def cross_int64_extremes_wrap(tf, sess):
    a = tf.constant([2**62, 3, 2**62], tf.int64)
    b = tf.constant([5, 2**62, 7], tf.int64)
    return tf.linalg.cross(a, b)


@case
def space_to_depth_block_size_beyond_int32(tf, sess):
    return tf.space_to_depth(tf.zeros([1, 0, 0, 1]), 2**40)


@case
def depth_to_space_block_size_beyond_int32(tf, sess):
    return tf.depth_to_space(tf.zeros([1, 1, 1, 0]), 2**40)


@case
def segment_sum_last_id_int64_max(tf, sess):
    return tf.math.segment_sum(tf.zeros([1, 0]), tf.constant([I64_MAX], tf.int64))


@case
def segment_sum_huge_id_of_empty_rows(tf, sess):
    return sess.run(tf.math.segment_sum(tf.zeros([1, 0]), tf.constant([2**40], tf.int64))).shape


@case
def sparse_segment_sum_id_int64_max(tf, sess):
    return tf.sparse.segment_sum(tf.zeros([2, 0]), tf.constant([0]), tf.constant([I64_MAX], tf.int64))


@case
def sparse_segment_negative_num_segments(tf, sess):
    return tf.sparse.segment_sum(tf.zeros([2, 2]), tf.constant([0]), tf.constant([0]), num_segments=-1)


@case
def sparse_segment_unknown_rank_ids(tf, sess):
    indices = tf.placeholder(tf.int32)
    ids = tf.placeholder(tf.int32)
    data = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    out = tf.sparse.segment_mean(data, indices, ids)
    return [out.shape.as_list(), sess.run(out, {indices: [2, 0, 1], ids: [0, 0, 2]})]


@case
def unravel_index_dims_product_overflow(tf, sess):
    return tf.unravel_index(tf.constant(2, tf.int64), tf.constant([2, 2**62, 2**32], tf.int64))


@case
def fixed_unigram_reserved_ids_mismatch(tf, sess):
    true = tf.constant([[1]], tf.int64)
    out = tf.nn.fixed_unigram_candidate_sampler(
        true, 1, 2, False, range_max=2, unigrams=[1.0, 1.0, 1.0], num_reserved_ids=-1
    )
    return out[0]
