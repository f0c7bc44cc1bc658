"""tf.data input pipeline cost: one epoch of sklearn's digits (1797 images of 8x8, as examples/train_digits.py
loads them) through `from_tensor_slices -> map(normalize + cast, num_parallel_calls) -> shuffle -> batch(32) ->
prefetch`, read with an initializable iterator until OutOfRangeError, in tensorweave and TensorFlow's compat.v1
Session, in one run (epochs of the two systems alternate, so that the machine's slow spells fall on both). Also one
pipeline without the parallel map and prefetch, to show what they cost or save.

  python benchmarks/data_pipeline.py [--epochs 15] [--parallel 2]
"""

import argparse
import os
import statistics
import time

import numpy as np


def load_digits():
    from sklearn.datasets import load_digits as sk_load_digits

    digits = sk_load_digits()
    return digits.images.astype(np.uint8), digits.target.astype(np.int64)


def build(tf, images, labels, parallel, fancy, config):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.uint8, [None, 8, 8])
        y = tf.placeholder(tf.int64, [None])

        def normalize(image, label):
            image = tf.cast(image, tf.float32) / 16.0
            return tf.reshape(image, [8, 8, 1]) - 0.5, tf.cast(label, tf.int32)

        ds = tf.data.Dataset.from_tensor_slices((x, y))
        if fancy:
            ds = ds.map(normalize, num_parallel_calls=parallel).shuffle(2000, seed=1).batch(32).prefetch(2)
        else:
            ds = ds.map(normalize).shuffle(2000, seed=1).batch(32)
        it = ds.make_initializable_iterator()
        nxt = it.get_next()
        sess = tf.Session(graph=g, config=config)

    def epoch():
        sess.run(it.initializer, {x: images, y: labels})
        n = 0
        while True:
            try:
                sess.run(nxt)
                n += 1
            except tf.errors.OutOfRangeError:
                return n

    return epoch, sess


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--parallel", type=int, default=2)
    args = parser.parse_args()
    images, labels = load_digits()
    import tensorweave as tw

    systems = {"tensorweave": tw}
    try:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        systems["tensorflow"] = tf
    except ImportError:
        print("tensorflow is not installed: tensorweave alone")
    rows = {}
    for fancy in (True, False):
        case = f"map(par={args.parallel})+shuffle+batch+prefetch" if fancy else "map+shuffle+batch"
        epochs, sessions = {}, []
        for name, mod in systems.items():
            config = mod.ConfigProto(inter_op_parallelism_threads=2, intra_op_parallelism_threads=2)
            epochs[name], sess = build(mod, images, labels, args.parallel, fancy, config)
            sessions.append(sess)
        batches = {name: fn() for name, fn in epochs.items()}  # warm up; also checks both see the same epoch
        assert len(set(batches.values())) == 1, batches
        samples = {name: [] for name in epochs}
        for _ in range(args.epochs):
            for name, fn in epochs.items():
                t0 = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t0)
        rows[case] = {name: statistics.median(s) for name, s in samples.items()}
        for s in sessions:
            s.close()
    print(f"\ndigits epoch ({len(labels)} examples, batch 32; median of {args.epochs} epochs)")
    print(f"{'pipeline':44s}{'tensorweave':>14s}{'tensorflow':>14s}{'tw/tf':>8s}")
    for case, t in rows.items():
        tf_time = t.get("tensorflow")
        ratio = f"{t['tensorweave'] / tf_time:8.2f}" if tf_time else f"{'-':>8s}"
        tf_text = f"{tf_time * 1e3:11.2f} ms" if tf_time else f"{'-':>14s}"
        print(f"{case:44s}{t['tensorweave'] * 1e3:11.2f} ms{tf_text}{ratio}")


if __name__ == "__main__":
    main()
