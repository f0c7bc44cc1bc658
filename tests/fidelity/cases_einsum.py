"""einsum and tensordot against TensorFlow 1: values, static shapes (known and unknown dims), gradients, and the
errors of bad equations and axes."""

import numpy as np

from tests.fidelity.harness import case

_A = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10.0
_B = (np.arange(40, dtype=np.float32).reshape(2, 4, 5) - 20.0) / 10.0
_C = np.array([1.0, -2.0, 0.5, 3.0, 1.5], np.float32)


@case(tol=1e-5)
def einsum_equations(tf, sess):
    a, b, c = tf.constant(_A), tf.constant(_B), tf.constant(_C)
    out = []
    for eq, args in [
        ("bij,bjk->bik", (a, b)),
        ("bij,bjk->bki", (a, b)),
        ("bij,bjk", (a, b)),
        ("bij->bji", (a,)),
        ("bij->", (a,)),
        ("bij->j", (a,)),
        ("bij,bjk,k->bi", (a, b, c)),
        ("ijk,ijk->i", (a, a)),
        ("bij,k->bijk", (a, c)),
        ("k,k->", (c, c)),
        ("i,j->ij", (c, c)),
    ]:
        y = tf.einsum(eq, *args)
        out.append([y, y.shape])
    return out


@case(tol=1e-5)
def einsum_ellipses_and_diagonals(tf, sess):
    a, b = tf.constant(_A), tf.constant(_B)
    sq = tf.constant(np.arange(9, dtype=np.float32).reshape(3, 3) / 4.0)
    out = []
    for eq, args in [
        ("...ij,...jk->...ik", (a, b)),
        ("b...,b...->b...", (a, a)),
        ("...j,jk", (a, b[0])),
        ("ii->", (sq,)),
        ("ii->i", (sq,)),
        ("ii", (sq,)),
        ("bii->bi", (tf.stack([sq, 2.0 * sq]),)),
        ("ij,jj->i", (sq, sq)),
    ]:
        y = tf.einsum(eq, *args)
        out.append([y, y.shape])
    out.append(tf.gradients(tf.einsum("ii,...i->...", sq, a[:, :, :3]), sq))
    return out


@case
def einsum_with_an_unknown_batch(tf, sess):
    x = tf.placeholder(tf.float32, [None, 3, 4])
    y = tf.einsum("bij,bjk->bik", x, tf.constant(_B[:1]))
    return [y.shape, sess.run(y, {x: _A[:1]})]


@case(tol=1e-5)
def einsum_gradients(tf, sess):
    a, b = tf.constant(_A), tf.constant(_B)
    w = tf.constant(np.arange(30, dtype=np.float32).reshape(2, 3, 5))
    y = tf.einsum("bij,bjk->bik", a, b) * w
    return tf.gradients(y, [a, b])


@case
def einsum_wrong_number_of_inputs(tf, sess):
    return tf.einsum("ij,jk->ik", tf.ones([2, 2]))


@case
def einsum_output_label_not_in_inputs(tf, sess):
    return tf.einsum("ij->k", tf.ones([2, 2]))


@case(tol=1e-5)
def tensordot(tf, sess):
    a, b = tf.constant(_A), tf.constant(_B)
    m = tf.constant(np.ones([4, 5], np.float32))
    out = [
        tf.tensordot(a, m, 1),
        tf.tensordot(a, b, [[2], [1]]),
        tf.tensordot(a, b, [[0, 2], [0, 1]]),
        tf.tensordot(tf.constant(_C), tf.constant(_C), 0),
        tf.tensordot(a, a, 3),
    ]
    return out + [t.shape for t in out]


@case(tol=1e-5)
def tensordot_gradient(tf, sess):
    a, b = tf.constant(_A), tf.constant(_B)
    return tf.gradients(tf.tensordot(a, b, [[0, 2], [0, 1]]), [a, b])


@case
def tensordot_too_many_axes(tf, sess):
    return tf.tensordot(tf.ones([2, 3]), tf.ones([3]), 2)


@case
def tensordot_mismatched_axes_lists(tf, sess):
    return tf.tensordot(tf.ones([2, 3]), tf.ones([3, 2]), [[1], [0, 1]])
