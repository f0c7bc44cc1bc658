"""A wide-and-deep style input layer with tf.feature_column as TF1 tabular code wrote it (without Estimator):
numeric_column with a normalizer_fn, bucketized_column, categorical_column_with_vocabulary_list and
_with_hash_bucket, categorical_column_with_identity, crossed_column, indicator_column and embedding_column
(initializer seeded by constant), tf.feature_column.input_layer and linear_model over a features dict of
tensors, with tables_initializer, then a few training steps of a logistic model on top."""


def main(tf, workdir):
    tf.reset_default_graph()
    fc = tf.feature_column
    age = fc.numeric_column("age", normalizer_fn=lambda x: (x - 40.0) / 10.0)
    age_b = fc.bucketized_column(fc.numeric_column("age"), boundaries=[25, 35, 50])
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"], num_oov_buckets=1)
    city = fc.categorical_column_with_hash_bucket("city", 5)
    slot = fc.categorical_column_with_identity("slot", 4, default_value=0)
    cross = fc.crossed_column([age_b, "color"], hash_bucket_size=7)
    emb = fc.embedding_column(color, 3, initializer=tf.constant_initializer(0.1), combiner="mean")
    deep_cols = [age, fc.indicator_column(age_b), fc.indicator_column(color), emb, fc.indicator_column(slot)]
    wide_cols = [age_b, color, city, cross]
    features = {
        "age": tf.constant([[22.0], [37.0], [61.0], [45.0]]),
        "color": tf.constant([["red"], ["blue"], ["purple"], ["green"]]),
        "city": tf.constant([["paris"], ["tokyo"], ["lima"], ["paris"]]),
        "slot": tf.constant([[1], [3], [7], [0]], tf.int64),
    }
    labels = tf.constant([[1.0], [0.0], [1.0], [0.0]])
    deep = fc.input_layer(features, deep_cols)
    wide_logits = fc.linear_model(features, wide_cols)
    logits = tf.layers.dense(deep, 1, kernel_initializer=tf.constant_initializer(0.05), name="deep_out") + wide_logits
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits))
    train = tf.train.FtrlOptimizer(0.5).minimize(loss)
    out = {
        "deep_shape": deep.shape.as_list(),
        "wide_shape": wide_logits.shape.as_list(),
        "names": [c.name for c in deep_cols + wide_cols],
        "vars": sorted(v.op.name for v in tf.global_variables()),
    }
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        out["deep"] = sess.run(deep)
        losses = []
        for _ in range(5):
            losses.append(sess.run([loss, train])[0])
        out["losses"] = losses
    return out
