"""Text and record parsing as TF1 input code did it: decode_csv with defaults and select_cols, string_split and
strings.split into SparseTensors, substr, regex_replace, string_join, strings.length/lower/upper/strip,
string_to_number, as_string with formatting, reduce_join, tf.io parse_single_example with FixedLen, VarLen and
SparseFeature specs, sparse ops on the results (sparse_tensor_to_dense, sparse_reduce_sum, sparse_concat,
sparse_reorder, sparse_retain, sparse_fill_empty_rows), and tf.data TextLineDataset + map(decode_csv)."""

import os

import numpy as np


def main(tf, workdir):
    tf.reset_default_graph()
    out = {}
    lines = tf.constant(["1,foo,2.5", "2,,3.5", "3,bar,"])
    a, b, c = tf.decode_csv(lines, record_defaults=[[0], ["none"], [0.0]])
    out["csv"] = [a, b, c]
    sel = tf.decode_csv(lines, record_defaults=[[0], [1.5]], select_cols=[0, 2])
    out["csv_select"] = sel
    words = tf.string_split(tf.constant(["hello big world", "a b", ""]))
    out["split"] = [words.indices, words.values, words.dense_shape]
    chars = tf.string_split(["ab,c", "d"], delimiter=",", skip_empty=False)
    out["split_delim"] = [chars.values, chars.dense_shape]
    s = tf.constant(["  Hello World ", "TensorFlow", "abc123"])
    out["substr"] = tf.substr(s, 1, 4)
    out["regex"] = tf.regex_replace(s, "[aeiou]", "_")
    out["join"] = tf.string_join([s, tf.constant("!")], separator="|")
    out["length"] = tf.strings.length(s)
    out["lower_strip"] = tf.strings.strip(tf.strings.lower(s))
    out["upper"] = tf.strings.upper(s)
    out["to_number"] = tf.string_to_number(tf.constant(["1.5", "-2", "3e2"]))
    out["as_string"] = tf.as_string(tf.constant([3.14159, 2.0]), precision=2)
    out["as_string_w"] = tf.as_string(tf.constant([7, 42]), width=4, fill="0")
    out["reduce_join"] = tf.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1, separator="-")
    example = tf.train.Example(
        features=tf.train.Features(
            feature={
                "age": tf.train.Feature(int64_list=tf.train.Int64List(value=[29])),
                "tags": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"x", b"yy"])),
                "idx": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 4])),
                "val": tf.train.Feature(float_list=tf.train.FloatList(value=[0.5, -1.0])),
            }
        )
    ).SerializeToString()
    parsed = tf.parse_single_example(
        example,
        {
            "age": tf.FixedLenFeature([], tf.int64),
            "height": tf.FixedLenFeature([1], tf.float32, default_value=[1.8]),
            "tags": tf.VarLenFeature(tf.string),
            "sp": tf.SparseFeature("idx", "val", tf.float32, 6),
        },
    )
    out["parsed"] = [parsed["age"], parsed["height"], parsed["tags"].values, tf.sparse_tensor_to_dense(parsed["sp"])]
    st = tf.SparseTensor([[0, 2], [1, 0], [1, 3]], [1.0, 2.0, 3.0], [3, 4])
    st2 = tf.SparseTensor([[0, 1], [2, 2]], [10.0, 20.0], [3, 4])
    out["sp_sum"] = [tf.sparse_reduce_sum(st), tf.sparse_reduce_sum(st, axis=1)]
    cat = tf.sparse_concat(1, [st, st2])
    out["sp_concat"] = [cat.indices, cat.values, cat.dense_shape]
    retained = tf.sparse_retain(st, tf.constant([True, False, True]))
    out["sp_retain"] = [retained.indices, retained.values]
    filled, empty = tf.sparse_fill_empty_rows(st, -1.0)
    out["sp_fill"] = [filled.indices, filled.values, empty]
    reordered = tf.sparse_reorder(tf.SparseTensor([[1, 0], [0, 1]], [5, 6], [2, 2]))
    out["sp_reorder"] = [reordered.indices, reordered.values]
    path = os.path.join(workdir, "data.csv")
    with open(path, "w") as f:
        f.write("x,y\n1,2.5\n3,4.5\n5,6.5\n")
    ds = tf.data.TextLineDataset(path).skip(1).map(lambda l: tf.decode_csv(l, [[0], [0.0]])).batch(2)
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        got = sess.run(out)
        got["dataset"] = [sess.run(nxt), sess.run(nxt)]
    got["split_static"] = words.indices.shape.as_list()
    return got
