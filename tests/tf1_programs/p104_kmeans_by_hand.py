"""k-means clustering as TF1 tutorials wrote it before tf.contrib.factorization: pairwise squared distances by
broadcasting (expand_dims), assignments by tf.argmin, new centroids with tf.unsorted_segment_sum / counts,
tf.assign in a Python loop until the assignments stop changing, the same iteration inside one tf.while_loop,
k-means++-free initialisation from tf.slice of the data, tf.histogram_fixed_width of the assignments' distances,
and the inertia per step."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    rng = np.random.RandomState(104)
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]], np.float32)
    data = np.concatenate([c + rng.randn(20, 2).astype(np.float32) * 0.7 for c in centers])
    data = data[rng.permutation(len(data))]
    k = 3
    points = tf.constant(data, name="points")
    centroids = tf.Variable(tf.slice(points, [0, 0], [k, -1]), name="centroids")
    expanded_points = tf.expand_dims(points, 0)
    expanded_centroids = tf.expand_dims(centroids, 1)
    distances = tf.reduce_sum(tf.square(tf.subtract(expanded_points, expanded_centroids)), 2)
    assignments = tf.argmin(distances, 0)
    sums = tf.unsorted_segment_sum(points, assignments, k)
    counts = tf.unsorted_segment_sum(tf.ones_like(points[:, :1]), assignments, k)
    means = sums / tf.maximum(counts, 1.0)
    update = tf.assign(centroids, means)
    inertia = tf.reduce_sum(tf.reduce_min(distances, 0))
    hist = tf.histogram_fixed_width(tf.reduce_min(distances, 0), [0.0, 4.0], nbins=8)

    def body(i, c, changed):
        d = tf.reduce_sum(tf.square(tf.expand_dims(points, 0) - tf.expand_dims(c, 1)), 2)
        assign = tf.argmin(d, 0, output_type=tf.int32)
        new_c = tf.unsorted_segment_sum(points, assign, k) / tf.maximum(
            tf.unsorted_segment_sum(tf.ones([tf.shape(points)[0], 1]), assign, k), 1.0
        )
        return i + 1, new_c, tf.reduce_any(tf.not_equal(new_c, c))

    iters, final_c, _ = tf.while_loop(
        lambda i, c, changed: tf.logical_and(changed, i < 20), body, [0, points[:k], True]
    )
    out = {
        "shapes": [t.shape.as_list() for t in (distances, assignments, sums, counts, final_c)],
        "dtypes": [assignments.dtype.name, hist.dtype.name],
        "inertia": [],
    }
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        previous = None
        for step in range(20):
            a, inert, _ = sess.run([assignments, inertia, update])
            out["inertia"].append(inert)
            if previous is not None and (a == previous).all():
                break
            previous = a
        out["steps"] = step
        out["centroids"] = sorted(sess.run(centroids).tolist())
        out["counts"] = sorted(sess.run(counts).ravel().tolist())
        out["hist"] = sess.run(hist)
        n_iter, c = sess.run([iters, final_c])
        out["loop"] = [n_iter, sorted(c.tolist())]
    return out
