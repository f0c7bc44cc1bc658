"""The bulk kernels of benchmarks/kernel_ops.py (resize_bilinear, top_k, gather_nd, unsorted_segment_sum, cumsum)
bit for bit against TensorFlow 1 (tol=0) at sizes that run them on several intra-op threads: TF's bilinear
rounding (no fused multiply-add), top_k's order of ties, GatherNd's int32 and int64 index rows. The large results
are compared by their shape, dtype and a digest of their bytes (reference.json stays small); their first
elements ride along so that a difference shows values."""

import hashlib

import numpy as np

from tests.fidelity.harness import case

RNG = np.random.RandomState(1616)
IMAGES = RNG.uniform(0, 1, [3, 40, 36, 3]).astype(np.float32)
TIES = RNG.randint(0, 6, [64, 1000]).astype(np.float32)
NORMAL = RNG.standard_normal([64, 1000]).astype(np.float32)
PARAMS = RNG.standard_normal([100, 100, 8]).astype(np.float32)
ND_INDICES = RNG.randint(0, 100, [20000, 2])
SEG_DATA = RNG.standard_normal([20000, 16]).astype(np.float32)
SEG_IDS = RNG.randint(0, 300, [20000]).astype(np.int32)
SQUARE = RNG.standard_normal([300, 200]).astype(np.float32)


def _bits(values):
    """[shape, dtype, sha256 of the bytes, first 8 elements] of each array in a (nested) list."""
    if isinstance(values, (list, tuple)):
        return [_bits(v) for v in values]
    a = np.ascontiguousarray(values)
    return [list(a.shape), str(a.dtype), hashlib.sha256(a.tobytes()).hexdigest(), a.reshape(-1)[:8]]


@case(tol=0)
def resize_bilinear_bits(tf, sess):
    out = []
    for size in ([53, 47], [299, 299], [17, 29], [20, 18]):
        for align, half in [(False, False), (True, False), (False, True)]:
            y = tf.image.resize_bilinear(IMAGES, size, align_corners=align, half_pixel_centers=half)
            out.append(sess.run(y))
    return _bits(out)


@case(tol=0)
def top_k_ties_and_sizes(tf, sess):
    out = []
    for x in (TIES, NORMAL):
        for k in (1, 5, 100, 1000):
            out.append(list(sess.run(tf.nn.top_k(x, k, sorted=True))))
    return _bits(out)


@case(tol=0)
def gather_nd_index_dtypes(tf, sess):
    return _bits(
        [
            sess.run(tf.gather_nd(PARAMS, ND_INDICES.astype(np.int32))),
            sess.run(tf.gather_nd(PARAMS, ND_INDICES[:, :1].astype(np.int64))),
        ]
    )


@case(tol=0)
def unsorted_segment_sum_and_cumsum_bits(tf, sess):
    out = [sess.run(tf.math.unsorted_segment_sum(SEG_DATA, SEG_IDS, 300))]
    for axis in (0, 1):
        for exclusive, reverse in [(False, False), (True, True)]:
            out.append(sess.run(tf.cumsum(SQUARE, axis=axis, exclusive=exclusive, reverse=reverse)))
    return _bits(out)
