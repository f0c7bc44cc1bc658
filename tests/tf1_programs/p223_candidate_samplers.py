"""Candidate sampling of word2vec / sampled-softmax code: log_uniform_candidate_sampler, uniform_candidate_sampler,
fixed_unigram_candidate_sampler (unigrams with distortion) and learned_unigram_candidate_sampler with unique=True,
their static shapes and dtypes, the analytic expected counts of the true classes, the sampled ids in range and
unique, compute_accidental_hits, and sampled_softmax_loss / nce_loss with a sampler's output passed as
sampled_values (the loss values are deterministic given the sampled ids)."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    true = tf.constant([[1, 5], [7, 2], [0, 9]], tf.int64)
    kinds = {
        "log_uniform": tf.nn.log_uniform_candidate_sampler(true, 2, 4, True, 20, seed=1),
        "uniform": tf.nn.uniform_candidate_sampler(true, 2, 4, True, 20, seed=2),
        "fixed": tf.nn.fixed_unigram_candidate_sampler(
            true, 2, 4, True, 20, distortion=0.75, unigrams=list(range(1, 21)), seed=3
        ),
        "learned": tf.nn.learned_unigram_candidate_sampler(true, 2, 4, True, 20, seed=4),
    }
    out = {"static": {k: [s.shape.as_list() for s in v] + [s.dtype.name for s in v] for k, v in kinds.items()}}
    weights = tf.constant(np.linspace(-1, 1, 60, dtype=np.float32).reshape(20, 3))
    biases = tf.constant(np.linspace(0, 0.5, 20, dtype=np.float32))
    inputs = tf.constant(np.linspace(0.5, -0.5, 9, dtype=np.float32).reshape(3, 3))
    fixed_sample = (tf.constant([3, 1, 8, 12], tf.int64), tf.constant([[0.2, 0.3]] * 3), tf.constant([0.2] * 4))
    sampled = tf.nn.sampled_softmax_loss(weights, biases, true, inputs, 4, 20, num_true=2, sampled_values=fixed_sample,
                                         remove_accidental_hits=True)  # fmt: skip
    nce = tf.nn.nce_loss(weights, biases, true, inputs, 4, 20, num_true=2, sampled_values=fixed_sample)
    hits = tf.nn.compute_accidental_hits(true, tf.constant([5, 3, 7, 1], tf.int64), num_true=2)
    with tf.Session() as sess:
        values = sess.run(kinds)
        out["log_uniform_true_expected"] = values["log_uniform"][1]
        out["uniform_expected"] = [values["uniform"][1], values["uniform"][2]]
        out["in_range_unique"] = {
            k: [bool(np.all((v[0] >= 0) & (v[0] < 20))), len(set(v[0].tolist())) == 4] for k, v in values.items()
        }
        out["losses"] = sess.run([sampled, nce])
        out["hits"] = sess.run(hits)
    return out
