"""tf.feature_column: input_layer / linear_model outputs, variable names and
training against TensorFlow's compat.v1 feature columns on the same features."""

import numpy as np
import pytest
import tensorweave.compat.v1 as tw


def _tf():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    return tf


def _features(t):
    return {
        "age": t.constant([[10.0], [35.0], [60.0], [30.0]]),
        "color": t.constant([["red"], ["blue"], ["pink"], [""]]),
        "cat": t.constant([[1], [3], [7], [0]]),
        "city": t.SparseTensor([[0, 0], [0, 1], [2, 0], [3, 0]], ["a", "b", "a", "zz"], [4, 2]),
        "tags": t.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]], [2, 0, 1, 1], [4, 2]),
        "tag_w": t.SparseTensor([[0, 0], [1, 0], [1, 1], [3, 0]], [0.5, 2.0, 1.0, 3.0], [4, 2]),
        "size": t.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),
        "kind": t.constant([4, 9, 4, 5], dtype=t.int64),
    }


def _columns(t, vocab_file):
    fc = t.feature_column
    age = fc.numeric_column("age")
    ageb = fc.bucketized_column(age, [18, 30, 50])
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"], num_oov_buckets=2)
    ident = fc.categorical_column_with_identity("cat", num_buckets=4, default_value=0)
    city = fc.categorical_column_with_hash_bucket("city", 7)
    tags = fc.weighted_categorical_column(fc.categorical_column_with_identity("tags", 3), "tag_w")
    kind = fc.categorical_column_with_vocabulary_file("kind", vocab_file, dtype=t.int64)
    shared = fc.shared_embedding_columns(
        [ident, fc.categorical_column_with_identity("tags", 4)],
        2,
        combiner="sqrtn",
        initializer=t.constant_initializer(0.25),
    )
    dense = [
        age,
        ageb,
        fc.numeric_column("size", shape=(2,), normalizer_fn=lambda x: x / 2.0),
        fc.indicator_column(color),
        fc.indicator_column(ident),
        fc.indicator_column(city),
        fc.indicator_column(tags),
        fc.indicator_column(kind),
        fc.embedding_column(color, 3, initializer=t.constant_initializer(0.5)),
        fc.embedding_column(city, 2, combiner="sum", initializer=t.constant_initializer(np.arange(14.0).reshape(7, 2))),
        fc.indicator_column(fc.crossed_column([ageb, "color"], 11)),
        *shared,
    ]
    linear = [age, ageb, color, city, tags, fc.crossed_column(["color", "city"], 5)]
    return dense, linear


def _program(t, vocab_file):
    with t.Graph().as_default():
        dense, linear = _columns(t, vocab_file)
        net = t.feature_column.input_layer(_features(t), dense)
        logits = t.feature_column.linear_model(_features(t), linear, units=2)
        labels = t.constant([0, 1, 1, 0])
        loss = t.losses.sparse_softmax_cross_entropy(labels, logits)
        train = t.train.GradientDescentOptimizer(0.5).minimize(loss)
        names = sorted(v.op.name for v in t.global_variables())
        with t.Session() as sess:
            sess.run([t.global_variables_initializer(), t.tables_initializer()])
            out = sess.run(net)
            losses = [sess.run([loss, train])[0] for _ in range(4)]
            final = sess.run(logits)
    return names, out, losses, final, [c.name for c in dense]


@pytest.fixture
def vocab_file(tmp_path):
    path = tmp_path / "kinds.txt"
    path.write_text("4\n5\n6\n")
    return str(path)


def test_matches_tensorflow(vocab_file):
    tf = _tf()
    want = _program(tf, vocab_file)
    got = _program(tw, vocab_file)
    assert got[0] == want[0]  # variable names
    assert got[4] == want[4]  # column names
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5)
    np.testing.assert_allclose(got[3], want[3], rtol=1e-5, atol=1e-6)


def test_values_by_hand(vocab_file):
    fc = tw.feature_column
    with tw.Graph().as_default():
        color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
        age = fc.bucketized_column(fc.numeric_column("age"), [18, 30, 50])
        kind = fc.categorical_column_with_vocabulary_file("kind", vocab_file, dtype=tw.int64, default_value=2)
        net = fc.input_layer(_features(tw), [fc.indicator_column(color), age, fc.indicator_column(kind)])
        with tw.Session() as sess:
            with pytest.raises(tw.errors.FailedPreconditionError, match="Table not initialized"):
                sess.run(net)  # as in TF: the vocabularies are lookup tables
            sess.run(tw.tables_initializer())
            out = sess.run(net)
    # columns by name: age_bucketized (4), color_indicator (3), kind_indicator (3)
    np.testing.assert_array_equal(out[:, :4], [[1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 1, 0]])
    np.testing.assert_array_equal(out[:, 4:7], [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])  # pink, '' dropped
    np.testing.assert_array_equal(out[:, 7:], [[1, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]])  # 9 -> default 2


def test_parse_example_spec_and_pipeline():
    fc = tw.feature_column
    cols = [
        fc.numeric_column("x", shape=2, default_value=0.0),
        fc.indicator_column(fc.categorical_column_with_hash_bucket("w", 5)),
    ]
    spec = fc.make_parse_example_spec(cols)
    assert spec["x"] == tw.io.FixedLenFeature((2,), tw.float32, (0.0, 0.0))
    assert spec["w"] == tw.io.VarLenFeature(tw.string)
    ex = tw.train.Example(
        features=tw.train.Features(
            feature={
                "x": tw.train.Feature(float_list=tw.train.FloatList(value=[1.0, 2.0])),
                "w": tw.train.Feature(bytes_list=tw.train.BytesList(value=[b"a", b"b"])),
            }
        )
    ).SerializeToString()
    with tw.Graph().as_default():
        parsed = tw.parse_example(tw.constant([ex, ex]), spec)
        net = fc.input_layer(parsed, cols)
        with tw.Session() as sess:
            out = sess.run(net)
    assert out.shape == (2, 7) and out[0, 5:].tolist() == [1.0, 2.0] and out[:, :5].sum() == 4


def test_errors():
    fc = tw.feature_column
    with pytest.raises(ValueError, match="must be a _DenseColumn"):
        with tw.Graph().as_default():
            fc.input_layer({"c": [[1]]}, [fc.categorical_column_with_identity("c", 3)])
    with pytest.raises(ValueError, match="boundaries must be a sorted list"):
        fc.bucketized_column(fc.numeric_column("a"), [3, 1])
    with pytest.raises(ValueError, match="Duplicate keys"):
        fc.categorical_column_with_vocabulary_list("c", ["a", "a"])
    with pytest.raises(ValueError, match="both num_oov_buckets and default_value"):
        fc.categorical_column_with_vocabulary_list("c", ["a"], default_value=0, num_oov_buckets=1)
    with pytest.raises(ValueError, match="not in features dictionary"):
        with tw.Graph().as_default():
            fc.input_layer({"b": [[1.0]]}, [fc.numeric_column("a")])
    with pytest.raises(ValueError, match="SparseTensor is not supported"):
        with tw.Graph().as_default():
            fc.input_layer({"a": tw.SparseTensor([[0, 0]], [1.0], [1, 1])}, [fc.numeric_column("a")])
    with tw.Graph().as_default():
        net = fc.input_layer({"c": [[1], [5]]}, [fc.indicator_column(fc.categorical_column_with_identity("c", 3))])
        with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match=r"ids must be in \[0, 3\)"):
            sess.run(net)
