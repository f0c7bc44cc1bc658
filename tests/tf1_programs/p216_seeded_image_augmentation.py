"""Seeded image augmentation as reproducible training scripts set it up: tf.set_random_seed plus op seeds on
random_flip_left_right / random_flip_up_down, random_brightness, random_contrast, random_saturation, random_hue,
random_crop, tf.random_shuffle of a batch, and the same ops with only the graph seed; two runs in one session
(new draws) and a new session (the same first draw); the shapes kept or lost by each op."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    tf.set_random_seed(216)
    image = tf.constant(np.random.RandomState(216).rand(6, 5, 3).astype(np.float32))
    ops = {
        "flip_lr": tf.image.random_flip_left_right(image, seed=1),
        "flip_ud": tf.image.random_flip_up_down(image, seed=2),
        "brightness": tf.image.random_brightness(image, 0.3, seed=3),
        "contrast": tf.image.random_contrast(image, 0.5, 1.5, seed=4),
        "saturation": tf.image.random_saturation(image, 0.5, 1.5, seed=5),
        "hue": tf.image.random_hue(image, 0.2, seed=6),
        "crop": tf.image.random_crop(image, [4, 3, 3], seed=7),
        "shuffle": tf.random_shuffle(tf.range(6), seed=8),
        "graph_seed_only_flip": tf.image.random_flip_left_right(image),
        "graph_seed_only_crop": tf.random_crop(image, [3, 3, 3]),
        "graph_seed_only_brightness": tf.image.random_brightness(image, 0.5),
    }
    out = {"shapes": {k: v.shape.as_list() for k, v in ops.items()}}
    with tf.Session() as sess:
        out["first"] = sess.run(ops)
        out["second"] = sess.run(ops)
    with tf.Session() as sess:
        out["new_session"] = sess.run(ops)
    return out
