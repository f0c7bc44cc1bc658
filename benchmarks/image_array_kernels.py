"""resize_bilinear (legacy and half-pixel), resize_nearest_neighbor, crop_and_resize, gather_nd and reverse:
tensorweave vs TensorFlow's compat.v1 Session (2 intra-op threads), the same graphs on the same arrays in one
process. Each time includes Session.run with the input fed and the result fetched; compare the ratios.

  PYTHONPATH=python python benchmarks/image_array_kernels.py
"""

import os

import numpy as np

from harness import report
from harness import time_call

RNG = np.random.default_rng(0)
IMAGES = RNG.random((32, 64, 64, 3), dtype=np.float32)
PARAMS = RNG.random((1000, 64), dtype=np.float32)
INDICES = RNG.integers(0, 1000, size=(20000, 1))
BOXES = np.sort(RNG.random((256, 4), dtype=np.float32).reshape(256, 2, 2), axis=1).transpose(0, 2, 1).reshape(256, 4)
BOX_IND = RNG.integers(0, 32, size=256).astype(np.int32)


def cases(tf, image_module):
    return {
        "resize_bilinear 32x64x64x3 -> 128x128": (IMAGES, lambda x: image_module.resize_bilinear(x, [128, 128])),
        "resize_bilinear half-pixel -> 100x100": (
            IMAGES,
            lambda x: image_module.resize_bilinear(x, [100, 100], half_pixel_centers=True),
        ),
        "resize_nearest_neighbor -> 128x128": (IMAGES, lambda x: image_module.resize_nearest_neighbor(x, [128, 128])),
        "crop_and_resize 256 boxes -> 24x24": (
            IMAGES,
            lambda x: image_module.crop_and_resize(x, BOXES, BOX_IND, [24, 24]),
        ),
        "gather_nd 20000 rows of 1000x64": (PARAMS, lambda x: tf.gather_nd(x, INDICES)),
        "reverse axis 1 of 32x64x64x3": (IMAGES, lambda x: tf.reverse(x, [1])),
    }


def timings(tf, placeholder, session, image_module):
    out = {}
    for name, (value, build) in cases(tf, image_module).items():
        g = tf.Graph()
        with g.as_default():
            x = placeholder(tf.float32, value.shape)
            y = build(x)
        sess = session(g)
        out[name] = (
            time_call(lambda: sess.run(y, {x: value}), min_time=1.0, repeats=5, warmup=3),
            sess.run(y, {x: value}),
        )
    return out


def main():
    import tensorweave as tw

    ours = timings(tw, tw.placeholder, lambda g: tw.Session(graph=g), tw.image)
    theirs = {}
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    try:
        import tensorflow as tf
    except ImportError:
        tf = None
    if tf is not None:
        tf1 = tf.compat.v1
        config = tf1.ConfigProto(intra_op_parallelism_threads=2, inter_op_parallelism_threads=2)
        theirs = timings(tf1, tf1.placeholder, lambda g: tf1.Session(graph=g, config=config), tf1.image)
    rows = {}
    for name, (seconds, value) in ours.items():
        rows[name] = {"tensorweave": seconds}
        if name in theirs:
            np.testing.assert_allclose(value, theirs[name][1], rtol=1e-5, atol=1e-5)
            rows[name]["tf.compat.v1"] = theirs[name][0]
    report("Image and array kernels (median per Session.run)", rows, ["tf.compat.v1"] if theirs else [])


if __name__ == "__main__":
    main()
