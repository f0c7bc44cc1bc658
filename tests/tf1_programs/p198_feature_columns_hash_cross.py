"""Feature columns as the wide & deep census tutorial built them, fed from a dict of numpy arrays:
categorical_column_with_hash_bucket, categorical_column_with_vocabulary_list (num_oov_buckets, default_value),
categorical_column_with_identity, bucketized_column, crossed_column (hash of two columns), indicator_column,
embedding_column (constant initializer, combiner), weighted_categorical_column, shared_embedding_columns, and
tf.feature_column.input_layer / linear_model outputs, their shapes and the variables they created."""

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    fc = tf.feature_column
    features = {
        "age": np.array([[23.0], [41.0], [67.0], [35.0]], np.float32),
        "education": np.array([["Bachelors"], ["Masters"], ["Doctorate"], ["HS-grad"]]),
        "occupation": np.array([["Tech-support"], ["Sales"], ["Exec"], ["Sales"]]),
        "relationship": np.array([["Husband"], ["Wife"], ["Unmarried"], ["Own-child"]]),
        "zip": np.array([[3], [7], [1], [9]], np.int64),
        "zip_weight": np.array([[0.5], [1.0], [2.0], [0.25]], np.float32),
    }
    age = fc.numeric_column("age")
    age_b = fc.bucketized_column(age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    edu = fc.categorical_column_with_vocabulary_list(
        "education", ["Bachelors", "HS-grad", "Masters"], num_oov_buckets=2
    )
    rel = fc.categorical_column_with_vocabulary_list(
        "relationship", ["Husband", "Wife", "Unmarried", "Own-child", "Other"], default_value=0
    )
    occ = fc.categorical_column_with_hash_bucket("occupation", hash_bucket_size=50)
    zipc = fc.categorical_column_with_identity("zip", num_buckets=10)
    zip_w = fc.weighted_categorical_column(zipc, "zip_weight")
    cross = fc.crossed_column(["education", "occupation"], hash_bucket_size=64)
    try:  # hashed columns are refused as cross inputs
        fc.crossed_column([edu, occ], hash_bucket_size=64)
        hashed_cross = None
    except ValueError as e:
        hashed_cross = ["ValueError", "not supported for crossing" in str(e)]
    cross_b = fc.crossed_column([age_b, "education"], hash_bucket_size=32)
    const = tf.constant_initializer(0.1)
    deep = [
        age,
        fc.indicator_column(edu),
        fc.indicator_column(rel),
        fc.indicator_column(cross),
        fc.embedding_column(occ, dimension=3, initializer=const),
        fc.embedding_column(zip_w, dimension=2, combiner="sum", initializer=const),
    ]
    shared = fc.shared_embedding_columns([edu, rel], dimension=2, initializer=const)
    net = fc.input_layer(features, deep + shared)
    idx = fc.input_layer(features, [fc.indicator_column(occ), fc.indicator_column(cross_b)])
    logits = fc.linear_model(features, [age_b, edu, occ, cross, zip_w])
    out = {
        "hashed_cross": hashed_cross,
        "shapes": [net.shape.as_list(), idx.shape.as_list(), logits.shape.as_list()],
        "names": sorted(column.name for column in deep + shared + [cross_b]),
        "vars": sorted((v.op.name, v.shape.as_list()) for v in tf.global_variables()),
    }
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
        out["net"], out["hot"] = sess.run([net, idx])
        out["hot_argmax"] = np.nonzero(out["hot"])[1].tolist()
        out["logits"] = sess.run(logits)
    return out
