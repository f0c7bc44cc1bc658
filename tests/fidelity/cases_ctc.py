"""CTC against TensorFlow 1: tf.nn.ctc_loss (sparse labels; collapse/merge/ignore-longer attrs, batch-major,
float64, gradients), ctc_loss_v2 with SparseTensor labels, ctc_greedy_decoder, ctc_beam_search_decoder (+ v2),
ctc_unique_labels, tf.edit_distance, and the errors of bad input."""

import numpy as np

from tests.fidelity.harness import case


def _logits(t, b, c, seed=0, dtype=np.float32):
    return np.random.RandomState(seed).uniform(-2, 2, size=(t, b, c)).astype(dtype)


def _labels(tf, rows, batch=None):
    """A SparseTensor of int32 label sequences, one per batch entry."""
    indices = [[b, i] for b, row in enumerate(rows) for i in range(len(row))]
    values = [v for row in rows for v in row]
    width = max([len(r) for r in rows] + [1])
    return tf.SparseTensor(
        np.array(indices, np.int64).reshape(-1, 2),
        tf.constant(values, tf.int32),
        np.array([batch or len(rows), width], np.int64),
    )


@case
def ctc_loss_and_gradient(tf, sess):
    x = tf.constant(_logits(6, 3, 5))
    loss = tf.nn.ctc_loss(_labels(tf, [[1, 1, 2], [3, 0], [2]]), x, [6, 5, 3])
    grad = tf.gradients(tf.reduce_sum(loss * tf.constant([1.0, 2.0, 3.0])), x)[0]
    return [loss, grad, loss.shape, loss.dtype, grad.shape]


@case
def ctc_loss_attrs(tf, sess):
    x = tf.constant(_logits(5, 2, 4, seed=1))
    labels = _labels(tf, [[1, 1, 0], [2, 2]])
    out = []
    for collapse in (False, True):
        for merge in (False, True):
            loss = tf.nn.ctc_loss(labels, x, [5, 4], preprocess_collapse_repeated=collapse, ctc_merge_repeated=merge)
            out.append([loss, tf.gradients(tf.reduce_sum(loss), x)[0]])
    return out


@case
def ctc_loss_ignore_longer_and_empty(tf, sess):
    x = tf.constant(_logits(4, 3, 3, seed=2))
    loss = tf.nn.ctc_loss(
        _labels(tf, [[0, 1, 0, 1, 0], [1, 1], [1]]), x, [4, 3, 0], ignore_longer_outputs_than_inputs=True
    )
    return [loss, tf.gradients(tf.reduce_sum(loss), x)[0]]


@case
def ctc_loss_impossible_path_is_inf(tf, sess):
    # "1 1" needs a blank between the two: 3 steps, only 2 given.
    x = tf.constant(_logits(2, 1, 3, seed=3))
    loss = tf.nn.ctc_loss(_labels(tf, [[1, 1]]), x, [2])
    return [loss, tf.gradients(tf.reduce_sum(loss), x)[0]]


@case
def ctc_loss_batch_major_float64_and_logits_arg(tf, sess):
    x = tf.constant(np.transpose(_logits(5, 2, 4, seed=4, dtype=np.float64), [1, 0, 2]))
    loss = tf.nn.ctc_loss(_labels(tf, [[0, 2], [1]]), logits=x, sequence_length=[5, 3], time_major=False)
    return [loss, loss.dtype, tf.gradients(tf.reduce_sum(loss), x)[0]]


@case
def ctc_loss_unknown_shapes(tf, sess):
    x = tf.placeholder(tf.float32, [None, None, 4])
    seq = tf.placeholder(tf.int32, [None])
    loss = tf.nn.ctc_loss(_labels(tf, [[0, 2], [1]]), x, seq)
    return [loss.shape, sess.run(loss, {x: _logits(3, 2, 4, seed=5), seq: [3, 2]})]


@case
def ctc_loss_v2_sparse_labels(tf, sess):
    x = tf.constant(_logits(5, 2, 4, seed=6))
    labels = _labels(tf, [[1, 2], [2]])
    first = tf.nn.ctc_loss_v2(labels, x, None, [5, 4], blank_index=0)
    last = tf.nn.ctc_loss_v2(labels, x, None, [5, 4], blank_index=-1)
    return [first, last, tf.gradients(tf.reduce_sum(first), x)[0]]


@case
def ctc_loss_empty_labels_of_an_entry(tf, sess):
    return tf.nn.ctc_loss(_labels(tf, [[1], []]), tf.constant(_logits(3, 2, 4)), [3, 3])


@case
def ctc_loss_collapse_counts_labels_before_collapsing(tf, sess):
    x = tf.constant(_logits(3, 1, 4))
    return tf.nn.ctc_loss(_labels(tf, [[1, 1, 1]]), x, [2], preprocess_collapse_repeated=True)


@case
def ctc_loss_negative_sequence_length(tf, sess):
    return tf.nn.ctc_loss(_labels(tf, [[0]]), tf.constant(_logits(3, 1, 4)), [-1])


@case(
    known_difference="TensorFlow's kernel does not reject a label >= num_classes: it reads the softmax past the "
    "label's range and returns some loss; tensorweave raises InvalidArgument ('No label may be greater than "
    "num_classes')"
)
def ctc_loss_label_out_of_range(tf, sess):
    return tf.nn.ctc_loss(_labels(tf, [[4]]), tf.constant(_logits(3, 1, 4)), [3])


@case
def ctc_loss_negative_label(tf, sess):
    return tf.nn.ctc_loss(_labels(tf, [[-1]]), tf.constant(_logits(3, 1, 4)), [3])


@case
def ctc_loss_labels_longer_than_sequence(tf, sess):
    return tf.nn.ctc_loss(_labels(tf, [[0, 1, 2]]), tf.constant(_logits(3, 1, 4)), [2])


@case
def ctc_loss_sequence_length_over_max_time(tf, sess):
    return tf.nn.ctc_loss(_labels(tf, [[0]]), tf.constant(_logits(3, 1, 4)), [4])


@case
def ctc_loss_unsorted_label_indices(tf, sess):
    labels = tf.SparseTensor(np.array([[0, 1], [0, 0]], np.int64), tf.constant([1, 2]), np.array([1, 2], np.int64))
    return tf.nn.ctc_loss(labels, tf.constant(_logits(3, 1, 4)), [3])


@case
def ctc_loss_label_batch_out_of_range(tf, sess):
    labels = tf.SparseTensor(np.array([[1, 0]], np.int64), tf.constant([1]), np.array([2, 1], np.int64))
    return tf.nn.ctc_loss(labels, tf.constant(_logits(3, 1, 4)), [3])


@case
def ctc_loss_batch_mismatch(tf, sess):
    return tf.nn.ctc_loss(_labels(tf, [[0]]), tf.constant(_logits(3, 1, 4)), [3, 3])


@case
def ctc_loss_dense_labels_type_error(tf, sess):
    return tf.nn.ctc_loss(tf.constant([[0]]), tf.constant(_logits(3, 1, 4)), [3])


@case
def ctc_loss_second_derivative_is_an_error(tf, sess):
    x = tf.constant(_logits(3, 1, 4))
    loss = tf.nn.ctc_loss(_labels(tf, [[0]]), x, [3])
    g = tf.gradients(tf.reduce_sum(loss), x)[0]
    return tf.gradients(tf.reduce_sum(g * g), x)


@case
def ctc_greedy_decoder_merge_and_blank(tf, sess):
    x = tf.constant(_logits(8, 3, 4, seed=7))
    out = []
    for merge in (True, False):
        for blank in (None, 0, -2):
            (decoded,), log_prob = tf.nn.ctc_greedy_decoder(x, [8, 5, 0], merge_repeated=merge, blank_index=blank)
            out.append([decoded, log_prob])
    return [out, log_prob.shape, decoded.indices.shape, decoded.values.dtype]


@case
def ctc_greedy_decoder_repeats(tf, sess):
    # Steps of class 1, 1, blank, 1, 2, 2: merged "1 1 2"; unmerged "1 1 1 2 2".
    onehot = np.eye(3, dtype=np.float64)[[1, 1, 2, 1, 0, 0]] * 5.0
    x = tf.constant(onehot[:, None, :])
    return [tf.nn.ctc_greedy_decoder(x, [6]), tf.nn.ctc_greedy_decoder(x, [6], merge_repeated=False)]


@case
def ctc_greedy_decoder_bad_blank_index(tf, sess):
    return tf.nn.ctc_greedy_decoder(tf.constant(_logits(3, 1, 4)), [3], blank_index=4)


@case
def ctc_greedy_decoder_sequence_too_long(tf, sess):
    return tf.nn.ctc_greedy_decoder(tf.constant(_logits(3, 1, 4)), [4])


@case
def ctc_beam_search_decoder_top_paths(tf, sess):
    x = tf.constant(_logits(7, 3, 4, seed=8))
    decoded, log_prob = tf.nn.ctc_beam_search_decoder(x, [7, 4, 2], beam_width=6, top_paths=3)
    return [decoded, log_prob, log_prob.shape, len(decoded)]


@case
def ctc_beam_search_decoder_merge_repeated(tf, sess):
    x = tf.constant(_logits(6, 2, 3, seed=9, dtype=np.float64))
    merged = tf.nn.ctc_beam_search_decoder(x, [6, 6], beam_width=4, top_paths=2)
    unmerged = tf.nn.ctc_beam_search_decoder(x, [6, 6], beam_width=4, top_paths=2, merge_repeated=False)
    return [merged, unmerged]


@case
def ctc_beam_search_decoder_narrow_beam(tf, sess):
    x = tf.constant(_logits(10, 2, 6, seed=10))
    return tf.nn.ctc_beam_search_decoder(x, [10, 7], beam_width=1)


@case
def ctc_beam_search_decoder_v2(tf, sess):
    x = tf.constant(_logits(6, 2, 4, seed=11))
    return tf.nn.ctc_beam_search_decoder_v2(x, [6, 5], beam_width=5, top_paths=2)


@case
def ctc_beam_search_decoder_more_paths_than_beam(tf, sess):
    return tf.nn.ctc_beam_search_decoder(tf.constant(_logits(3, 1, 4)), [3], beam_width=2, top_paths=3)


@case
def ctc_beam_search_decoder_fewer_leaves_than_paths(tf, sess):
    return tf.nn.ctc_beam_search_decoder(tf.constant(_logits(3, 1, 4)), [0], beam_width=4, top_paths=2)


@case
def ctc_unique_labels(tf, sess):
    return tf.nn.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [1, 1, 1, 1], [0, 2, 5, 2]]))


@case
def edit_distance_strings_and_normalize(tf, sess):
    h = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 1]], ["a", "b", "c", "d", "e"], [2, 2, 2])
    t = tf.SparseTensor([[0, 0, 0], [0, 0, 1], [0, 0, 2], [1, 0, 0], [1, 0, 1]], ["a", "c", "b", "d", "x"], [2, 3, 3])
    return [tf.edit_distance(h, t), tf.edit_distance(h, t, normalize=False), tf.edit_distance(h, t).shape]


@case
def edit_distance_ints_and_empty_rows(tf, sess):
    h = tf.SparseTensorValue(np.array([[0, 0], [0, 1], [2, 0]], np.int64), np.array([1, 2, 3]), [4, 2])
    t = tf.SparseTensorValue(np.array([[0, 0], [1, 0], [1, 1]], np.int64), np.array([1, 5, 6]), [3, 2])
    return [tf.edit_distance(h, t), tf.edit_distance(h, t, normalize=False)]


@case
def edit_distance_placeholder_shape(tf, sess):
    sp = tf.sparse_placeholder(tf.int64)
    d = tf.edit_distance(sp, sp)
    return [d.shape, sess.run(d, {sp: ([[0, 0], [1, 2]], [4, 5], [2, 3])})]


@case
def edit_distance_not_sparse(tf, sess):
    return tf.edit_distance(tf.constant([[1]]), tf.constant([[1]]))


@case
def edit_distance_rank_mismatch(tf, sess):
    h = tf.SparseTensor([[0, 0]], [1], [1, 1])
    t = tf.SparseTensor([[0, 0, 0]], [1], [1, 1, 1])
    return tf.edit_distance(h, t)


@case
def edit_distance_rank_one(tf, sess):
    h = tf.SparseTensor([[0]], [1], [1])
    return tf.edit_distance(h, h)
