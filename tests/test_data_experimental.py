"""tf.data.experimental's readers and transformations (CsvDataset, make_csv_dataset, parse_example_dataset,
make_batched_features_dataset, assert_cardinality, from_list, TFRecordWriter, group_by_reducer, the table
initializers, Optional, ...): each pipeline built the same way, over the same files, with tensorweave and with
TensorFlow 2.21's compat.v1 in graph mode and compared (values, dtypes, static shapes, element structure), and the
error cases (class and the words of TF's message)."""

import collections
import os

import numpy as np
import pytest
import tensorweave as tw

tf = pytest.importorskip("tensorflow")
v1 = tf.compat.v1


def _drain(lib, make, limit=1000):
    """(structure, static shapes, dtypes, values) of the dataset `make(lib)` read through a one-shot iterator
    (`limit` elements at most)."""
    with lib.Graph().as_default():
        ds = make(lib)
        nxt = lib.data.make_one_shot_iterator(ds).get_next()
        flat = lib.nest.flatten(nxt)
        shapes = [t.shape.as_list() if t.shape.rank is not None else None for t in flat]
        dtypes = [t.dtype.name for t in flat]
        out = []
        with lib.Session() as sess:
            for _ in range(limit):
                try:
                    out.append(sess.run(flat))
                except lib.errors.OutOfRangeError:
                    break
    return _shape_of(nxt), shapes, dtypes, out


def _shape_of(nest):
    """The nest's structure with its leaves blanked: containers, their types and keys."""
    if isinstance(nest, dict):
        return (type(nest).__name__, [(k, _shape_of(v)) for k, v in nest.items()])
    if isinstance(nest, (tuple, list)):
        return (type(nest).__name__, [_shape_of(v) for v in nest])
    return "leaf"


def _same(make, limit=1000):
    got = _drain(tw, make, limit)
    want = _drain(v1, make, limit)
    assert got[0] == want[0], (got[0], want[0])
    assert got[1] == want[1], (got[1], want[1])
    assert got[2] == want[2], (got[2], want[2])
    assert len(got[3]) == len(want[3]), (got[3], want[3])
    for g, w in zip(got[3], want[3]):
        for a, b in zip(g, w):
            np.testing.assert_array_equal(a, b)
            assert np.asarray(a).dtype == np.asarray(b).dtype
    return got[3]


def _drain_error(lib, make):
    """The values read before the first error, and the error."""
    with lib.Graph().as_default():
        nxt = lib.data.make_one_shot_iterator(make(lib)).get_next()
        out = []
        with lib.Session() as sess:
            for _ in range(1000):
                try:
                    out.append(sess.run(nxt))
                except lib.errors.OutOfRangeError:
                    return out, None
                except lib.errors.OpError as e:
                    return out, e
    raise AssertionError("no end")


def _write(tmp_path, name, text):
    path = os.path.join(tmp_path, name)
    with open(path, "w") as f:
        f.write(text)
    return path


CSV = 'a,b,c,d\n1,2.5,x,7\n2,,"y,z",8\n3,1e3,w,9\n4,2,q,10\n5,3,r,11\n'


# --- CsvDataset ----------------------------------------------------------------------------------------------


def test_csv_dataset_values_defaults_and_quotes(tmp_path):
    path = _write(tmp_path, "a.csv", CSV)
    values = _same(lambda lib: lib.data.experimental.CsvDataset(path, [lib.int32, [0.0], ["d"], [0]], header=True))
    assert values[1][2] == b"y,z" and values[1][1] == 0.0
    _same(lambda lib: lib.data.experimental.CsvDataset([path, path], [[0], ["s"]], header=True, select_cols=[0, 2]))
    _same(lambda lib: lib.data.experimental.CsvDataset(path, [["s"]] * 4))  # the header is a record
    _same(lambda lib: lib.data.experimental.CsvDataset(path, [[0], [0.0], ["s"], [0]], header=True, na_value="3"))


def test_csv_dataset_delim_and_quote_options(tmp_path):
    path = _write(tmp_path, "a.tsv", '1\t"q"\n2\t"r s"\n')
    _same(
        lambda lib: lib.data.experimental.CsvDataset(
            path, [tw.int64 if lib is tw else tf.int64, [""]], field_delim="\t"
        )
    )
    _same(
        lambda lib: lib.data.experimental.CsvDataset(
            path, [[0], [""]], field_delim="\t", use_quote_delim=False, buffer_size=16
        )
    )


def test_csv_dataset_gzip(tmp_path):
    import gzip

    path = os.path.join(tmp_path, "a.csv.gz")
    with gzip.open(path, "wt") as f:
        f.write(CSV)
    _same(
        lambda lib: lib.data.experimental.CsvDataset(
            path, [[0], [0.0], [""], [0]], header=True, compression_type="GZIP"
        )
    )


def test_csv_dataset_exclude_cols(tmp_path):
    path = _write(tmp_path, "a.csv", CSV)
    got = _drain(tw, lambda lib: lib.data.experimental.CsvDataset(path, [[0], [0]], header=True, exclude_cols=[1, 2]))
    want = _drain(v1, lambda lib: lib.data.experimental.CsvDataset(path, [[0], [0]], header=True, select_cols=[0, 3]))
    assert got[1:3] == want[1:3]
    np.testing.assert_array_equal(np.array(got[3]), np.array(want[3]))


def test_csv_dataset_bad_field_names_the_field(tmp_path):
    path = _write(tmp_path, "a.csv", "1,2.5\n2,bad\n")
    for lib in (tw, v1):
        out, err = _drain_error(lib, lambda lib: lib.data.experimental.CsvDataset(path, [[0], [0.0]]))
        assert len(out) == 1
        assert isinstance(err, lib.errors.InvalidArgumentError)
        assert "Field 1 in record" in err.message and "is not a valid float: bad" in err.message


def test_csv_dataset_missing_required_field_and_wrong_field_count(tmp_path):
    path = _write(tmp_path, "a.csv", "1,2\n,3\n")
    for lib in (tw, v1):
        out, err = _drain_error(lib, lambda lib: lib.data.experimental.CsvDataset(path, [lib.int32, [0]]))
        assert len(out) == 1 and isinstance(err, lib.errors.InvalidArgumentError)
        assert "Field 0 is required but missing in record" in err.message
        out, err = _drain_error(lib, lambda lib: lib.data.experimental.CsvDataset(path, [[0], [0], [0]]))
        assert out == [] and isinstance(err, lib.errors.InvalidArgumentError)
        assert "Expect 3 fields but have 2 in record" in err.message


def test_csv_dataset_bad_record_defaults():
    for lib in (tw, v1):
        with lib.Graph().as_default():
            with pytest.raises(TypeError):
                lib.data.experimental.CsvDataset("x.csv", [lib.bool])
            with pytest.raises(ValueError, match="Shape of a default must be a length-0 or length-1 vector"):
                lib.data.experimental.CsvDataset("x.csv", [[1, 2]])


# --- make_csv_dataset ----------------------------------------------------------------------------------------


def test_make_csv_dataset_infers_names_and_types(tmp_path):
    path = _write(tmp_path, "a.csv", CSV)
    values = _same(lambda lib: lib.data.experimental.make_csv_dataset(path, 2, shuffle=False), limit=4)
    assert len(values) == 4  # num_epochs=None repeats (and drops the partial batch)
    _same(lambda lib: lib.data.experimental.make_csv_dataset(path, 2, shuffle=False, num_epochs=1))


def test_make_csv_dataset_label_select_and_defaults(tmp_path):
    path = _write(tmp_path, "a.csv", CSV)
    pattern = os.path.join(tmp_path, "*.csv")
    _write(tmp_path, "b.csv", CSV.replace("1,2.5", "6,7.5"))
    _same(
        lambda lib: lib.data.experimental.make_csv_dataset(
            pattern, 3, label_name="a", select_columns=["a", "c", 1], shuffle=False, num_epochs=2
        )
    )
    _same(
        lambda lib: lib.data.experimental.make_csv_dataset(
            [path],
            4,
            column_names=["w", "x", "y", "z"],
            column_defaults=[lib.int64, [1.0], [""], [0]],
            label_name="z",
            shuffle=False,
            num_epochs=1,
        )
    )


def test_make_csv_dataset_na_value_and_ignore_errors(tmp_path):
    path = _write(tmp_path, "a.csv", "a,b\n1,NA\n2,oops\n3,4.5\n")
    _same(
        lambda lib: lib.data.experimental.make_csv_dataset(
            path, 2, column_defaults=[[0], [-1.0]], na_value="NA", ignore_errors=True, shuffle=False, num_epochs=1
        )
    )


def test_make_csv_dataset_shuffle_keeps_the_records(tmp_path):
    path = _write(tmp_path, "a.csv", CSV)
    got = _drain(tw, lambda lib: lib.data.experimental.make_csv_dataset(path, 5, shuffle_seed=3, num_epochs=1))
    want = _drain(v1, lambda lib: lib.data.experimental.make_csv_dataset(path, 5, shuffle_seed=3, num_epochs=1))
    assert got[:3] == want[:3]
    for g, w in zip(got[3][0], want[3][0]):
        assert sorted(g.tolist()) == sorted(w.tolist())


def test_make_csv_dataset_errors(tmp_path):
    path = _write(tmp_path, "a.csv", CSV)
    cases = [
        ({"label_name": "nope"}, "`label_name` provided must be one of the columns"),
        ({"header": False}, "Expected `column_names` or `header` arguments"),
        ({"column_names": ["a", "a", "b", "c"]}, "contains duplicate column names"),
        ({"select_columns": ["a", "zz"]}, "specified in `select_columns` must be of one of the columns"),
        ({"select_columns": ["a", "b"], "column_defaults": [[0]]}, "must have the same length"),
    ]
    for lib in (tw, v1):
        with lib.Graph().as_default():
            for kwargs, message in cases:
                with pytest.raises(ValueError, match=message):
                    lib.data.experimental.make_csv_dataset(path, 2, **kwargs)
            with pytest.raises(ValueError, match="No files match `file_pattern`"):
                lib.data.experimental.make_csv_dataset(os.path.join(tmp_path, "none*.csv"), 2)
    bad = _write(tmp_path, "bad.csv", "a,b\n1,2\n3\n")
    for lib in (tw, v1):
        with lib.Graph().as_default(), pytest.raises(ValueError, match="CSV row 3 has 1 number of fields"):
            lib.data.experimental.make_csv_dataset(bad, 2)


# --- tf.Example ----------------------------------------------------------------------------------------------


def _example(i):
    return tf.train.Example(
        features=tf.train.Features(
            feature={
                "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i])),
                "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"n%d" % i])),
            }
        )
    ).SerializeToString()


def _records(tmp_path, name, ids):
    path = os.path.join(tmp_path, name)
    with tf.io.TFRecordWriter(path) as w:
        for i in ids:
            w.write(_example(i))
    return path


def _features(lib):
    return {
        "id": lib.io.FixedLenFeature([], lib.int64),
        "x": lib.io.FixedLenFeature([2], lib.float32),
        "name": lib.io.FixedLenFeature([], lib.string),
        "missing": lib.io.FixedLenFeature([1], lib.int64, default_value=[7]),
    }


def test_parse_example_dataset(tmp_path):
    path = _records(tmp_path, "a.tfrecord", range(5))
    _same(
        lambda lib: (
            lib.data.TFRecordDataset(path).batch(2).apply(lib.data.experimental.parse_example_dataset(_features(lib)))
        )
    )
    for lib in (tw, v1):
        with lib.Graph().as_default(), pytest.raises((TypeError, ValueError)):
            lib.data.Dataset.range(3).apply(lib.data.experimental.parse_example_dataset(_features(lib)))


def test_make_batched_features_dataset(tmp_path):
    _records(tmp_path, "a.tfrecord", range(5))
    _records(tmp_path, "b.tfrecord", range(10, 13))
    pattern = os.path.join(tmp_path, "*.tfrecord")
    _same(
        lambda lib: lib.data.experimental.make_batched_features_dataset(
            pattern, 3, _features(lib), shuffle=False, num_epochs=1
        )
    )
    _same(
        lambda lib: lib.data.experimental.make_batched_features_dataset(
            pattern, 2, _features(lib), label_key="id", shuffle=False, reader_num_threads=2
        ),
        limit=6,
    )
    for lib in (tw, v1):
        with lib.Graph().as_default(), pytest.raises(ValueError, match="The `label_key` provided"):
            lib.data.experimental.make_batched_features_dataset(pattern, 2, _features(lib), label_key="nope")


# --- assert_cardinality, from_list, RandomDataset ------------------------------------------------------------


def test_assert_cardinality():
    _same(lambda lib: lib.data.Dataset.range(4).apply(lib.data.experimental.assert_cardinality(4)))
    for lib in (tw, v1):
        with lib.Graph().as_default(), lib.Session() as sess:
            ds = lib.data.Dataset.range(4).filter(lambda x: x < 10).apply(lib.data.experimental.assert_cardinality(4))
            assert sess.run(lib.data.experimental.cardinality(ds)) == 4
    for n, want in (
        (3, "expected to contain 3 elements but contained at least 4 elements"),
        (6, "expected to contain 6 elements but contained only 4 elements"),
        (1, "expected to contain 1 element but contained at least 2 elements"),
    ):
        results = []
        for lib in (tw, v1):
            out, err = _drain_error(
                lib, lambda lib, n=n: lib.data.Dataset.range(4).apply(lib.data.experimental.assert_cardinality(n))
            )
            assert isinstance(err, lib.errors.FailedPreconditionError)
            assert f"Input dataset was {want}." in err.message, err.message
            results.append(out)
        assert results[0] == results[1]


def test_assert_cardinality_restarts_with_each_iterator():
    with tw.Graph().as_default(), tw.Session() as sess:
        ds = tw.data.Dataset.range(2).apply(tw.data.experimental.assert_cardinality(2))
        it = tw.data.make_initializable_iterator(ds)
        nxt = it.get_next()
        for _ in range(2):
            sess.run(it.initializer)
            assert [sess.run(nxt), sess.run(nxt)] == [0, 1]
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)


def test_from_list():
    _same(lambda lib: lib.data.experimental.from_list([1, 2, 3]))
    _same(lambda lib: lib.data.experimental.from_list([(1, "a"), (2, "b")]))
    _same(lambda lib: lib.data.experimental.from_list([(1, [1.0]), (2, [2.0, 3.0])]))  # shapes differ: [None]
    _same(lambda lib: lib.data.experimental.from_list([{"x": [1.0, 2.0], "y": 3}, {"x": [4.0, 5.0], "y": 6}]))
    for lib in (tw, v1):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="`elements` should not be empty"):
                lib.data.experimental.from_list([])
            with pytest.raises(ValueError, match="`elements` must be a list"):
                lib.data.experimental.from_list((1, 2))


def test_random_dataset_is_an_int64_stream():
    shapes, dtypes, values = _drain(tw, lambda lib: lib.data.experimental.RandomDataset(seed=4), limit=20)[1:]
    want = _drain(v1, lambda lib: lib.data.experimental.RandomDataset(seed=4), limit=20)[1:3]
    assert (shapes, dtypes) == tuple(want)
    assert len({int(v[0]) for v in values}) == 20


# --- TFRecordWriter ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_tfrecord_writer_writes_what_tf_reads(tmp_path, compression):
    path = os.path.join(tmp_path, "out.tfrecord")
    with tw.Graph().as_default(), tw.Session() as sess:
        ds = tw.data.Dataset.range(5).map(lambda x: tw.strings.as_string(x * 3))
        op = tw.data.experimental.TFRecordWriter(path, compression).write(ds)
        assert isinstance(op, tw.Operation)
        assert not os.path.exists(path)  # nothing written until it runs
        sess.run(op)
        sess.run(op)  # each run writes the whole file anew
    got = list(tf.compat.v1.io.tf_record_iterator(path, tf.io.TFRecordOptions(compression or "")))
    assert got == [b"0", b"3", b"6", b"9", b"12"]


def test_tfrecord_writer_checks_the_dataset():
    for lib in (tw, v1):
        with lib.Graph().as_default():
            writer = lib.data.experimental.TFRecordWriter("unused.tfrecord")
            with pytest.raises(TypeError, match="Expected a`dataset` that produces scalar `tf.string` elements"):
                writer.write(lib.data.Dataset.range(3))
            with pytest.raises(TypeError, match="Expected a `tf.data.Dataset` object"):
                writer.write([b"a"])


# --- group_by_reducer ----------------------------------------------------------------------------------------


def test_group_by_reducer():
    def make(lib):
        reducer = lib.data.experimental.Reducer(
            init_func=lambda key: (lib.constant(0, lib.int64), key),
            reduce_func=lambda state, x: (state[0] + x, state[1]),
            finalize_func=lambda s, k: (k, s),
        )
        ds = lib.data.Dataset.range(10).apply(lib.data.experimental.group_by_reducer(lambda x: x % 3, reducer))
        return ds

    got = _drain(tw, make)
    want = _drain(v1, make)
    assert got[:3] == want[:3]
    assert sorted((int(k), int(s)) for k, s in got[3]) == sorted((int(k), int(s)) for k, s in want[3])
    assert sorted((int(k), int(s)) for k, s in got[3]) == [(0, 18), (1, 12), (2, 15)]


# --- tables --------------------------------------------------------------------------------------------------


def _lookup(lib, make_table, keys):
    with lib.Graph().as_default():
        table = make_table(lib)
        out = table.lookup(lib.constant(keys))
        with lib.Session() as sess:
            sess.run(lib.tables_initializer())
            return sess.run(out)


def test_table_from_dataset_and_index_table_from_dataset():
    words = lambda lib: lib.data.Dataset.from_tensor_slices(["a", "b", "c"])
    pairs = lambda lib: lib.data.Dataset.zip((words(lib), lib.data.Dataset.range(10, 13)))
    keys = ["c", "a", "zz"]
    for make in (
        lambda lib: lib.data.experimental.table_from_dataset(pairs(lib), default_value=-5),
        lambda lib: lib.data.experimental.index_table_from_dataset(words(lib)),
        lambda lib: lib.data.experimental.index_table_from_dataset(words(lib), vocab_size=2),
    ):
        np.testing.assert_array_equal(_lookup(tw, make, keys), _lookup(v1, make, keys))
    with tw.Graph().as_default(), tw.Session() as sess:
        init = tw.data.experimental.DatasetInitializer(pairs(tw))
        table = tw.lookup.StaticHashTable(init, -1)
        sess.run(table.initializer)
        assert sess.run(table.lookup(tw.constant(["b", "q"]))).tolist() == [11, -1]


def test_table_from_dataset_errors():
    for lib in (tw, v1):
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="produces 3 components instead of two"):
                lib.data.experimental.table_from_dataset(lib.data.Dataset.from_tensors((1, 2, 3)))
            with pytest.raises(ValueError, match="non-scalar key Tensors of rank 1"):
                lib.data.experimental.table_from_dataset(lib.data.Dataset.from_tensors(([1], 2)))
            with pytest.raises(ValueError, match="`default_value` must be specified"):
                lib.data.experimental.table_from_dataset(lib.data.Dataset.from_tensors(("a", "b")))
            with pytest.raises(ValueError, match="`vocab_size` must be greater than 0"):
                lib.data.experimental.index_table_from_dataset(lib.data.Dataset.from_tensors("a"), vocab_size=0)
    out = _drain_error(
        tw,
        lambda lib: lib.data.Dataset.range(2).apply(lib.data.experimental.assert_cardinality(3)),
    )[1]
    assert "contained only 2 elements" in out.message


# --- Optional, structure, the small ones ---------------------------------------------------------------------


def test_optional_from_value_and_empty():
    for lib in (tw, v1):
        with lib.Graph().as_default(), lib.Session() as sess:
            opt = lib.data.experimental.Optional.from_value((1, lib.constant([2.0, 3.0])))
            has, (a, b) = sess.run((opt.has_value(), opt.get_value()))
            assert has and a == 1 and b.tolist() == [2.0, 3.0]
            for spec in (lib.TensorSpec([2], lib.string), lib.data.experimental.TensorStructure(lib.float32, [])):
                empty = lib.data.experimental.Optional.empty(spec)
                assert not sess.run(empty.has_value())
            assert opt.element_spec[1].shape.as_list() == [2] and opt.element_spec[1].dtype == lib.float32
            with pytest.raises(lib.errors.InvalidArgumentError, match="The given optional does not have a value"):
                sess.run(empty.get_value())


def test_get_structure_and_constants():
    for lib in (tw, v1):
        with lib.Graph().as_default():
            ds = lib.data.Dataset.from_tensors({"a": [1, 2], "b": "s"})
            spec = lib.data.experimental.get_structure(ds)
            assert sorted(spec) == ["a", "b"]
            assert spec["a"].shape.as_list() == [2] and spec["a"].dtype == lib.int32
            assert spec["b"].dtype == lib.string
            it = lib.data.make_one_shot_iterator(ds)
            assert lib.data.experimental.get_structure(it)["a"].shape.as_list() == [2]
            with pytest.raises(TypeError, match="`dataset_or_iterator`"):
                lib.data.experimental.get_structure([1])
            with pytest.raises(ValueError, match="only supported in eager mode"):
                lib.data.experimental.enable_debug_mode()
        assert lib.data.experimental.SHARD_HINT == -1


def test_copy_to_device_snapshot_pad_to_cardinality(tmp_path):
    _same(lambda lib: lib.data.Dataset.range(3).apply(lib.data.experimental.copy_to_device("/cpu:0")))
    _same(
        lambda lib: lib.data.Dataset.from_tensor_slices({"x": [1, 2]}).apply(
            lib.data.experimental.pad_to_cardinality(4)
        )
    )
    snap = os.path.join(tmp_path, "snap")
    with tw.Graph().as_default(), tw.Session() as sess:
        source = tw.data.Dataset.range(4).map(lambda x: x * 2)
        it = tw.data.make_initializable_iterator(source.apply(tw.data.experimental.snapshot(snap)))
        nxt = it.get_next()
        for _ in range(2):
            sess.run(it.initializer)
            assert [sess.run(nxt) for _ in range(4)] == [0, 2, 4, 6]
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)
        assert os.listdir(snap)


def test_structure_aliases():
    e = tw.data.experimental
    with tw.Graph().as_default():
        ds = tw.data.Dataset.range(3)
        assert e.get_structure(ds) == e.TensorStructure(tw.int64, [])
        assert e.DatasetStructure is tw.data.DatasetSpec


def test_ordered_dict_features_keep_column_order(tmp_path):
    path = _write(tmp_path, "a.csv", "z,a,m\n1,2,3\n")
    with tw.Graph().as_default():
        ds = tw.data.experimental.make_csv_dataset(path, 1, shuffle=False, num_epochs=1)
        assert isinstance(ds.output_types, collections.OrderedDict)
        assert list(ds.output_types) == ["z", "a", "m"]


# --- SqlDataset ----------------------------------------------------------------------------------------------


def _db(tmp_path):
    import sqlite3

    path = os.path.join(tmp_path, "db.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (a INTEGER, b TEXT, c REAL)")
    conn.executemany("INSERT INTO t VALUES (?, ?, ?)", [(1, "x", 1.5), (2, "yy", None), (3, None, 2.25), (0, "7z", 3)])
    conn.commit()
    conn.close()
    return path


def test_sql_dataset(tmp_path):
    path = _db(tmp_path)
    sql = lambda lib, q, types: lib.data.experimental.SqlDataset("sqlite", path, q, types)
    _same(lambda lib: sql(lib, "SELECT a, b, c FROM t", (lib.int64, lib.string, lib.float64)))
    _same(lambda lib: sql(lib, "SELECT a FROM t", lib.int32))
    # conversions as SQLite's C API makes them: text to int, int/real to text, to bool
    _same(lambda lib: sql(lib, "SELECT b, c, a, a FROM t", (lib.int64, lib.string, lib.bool, lib.string)))


def test_sql_dataset_errors(tmp_path):
    path = _db(tmp_path)
    cases = [
        (
            ("sqlite", "SELECT a, b FROM t", (tf.int32,)),
            "The number of columns in query (2) must match",
            "InvalidArgumentError",
        ),
        (
            ("mysql", "SELECT a FROM t", (tf.int32,)),
            "The database type, mysql, is not supported",
            "InvalidArgumentError",
        ),
        (("sqlite", "SELECT nope FROM t", (tf.int32,)), "no such column: nope", "UnknownError"),
        (
            ("sqlite", "SELECT c FROM t", (tf.float32,)),
            "Each element of `output_types_` must be one of",
            "InvalidArgumentError",
        ),
    ]
    for (driver, query, types), message, cls in cases:
        for lib in (tw, v1):
            lib_types = tuple(lib.as_dtype(t.name) for t in types)
            make = lambda lib, d=driver, q=query, t=lib_types: lib.data.experimental.SqlDataset(d, path, q, t)
            _, err = _drain_error(lib, make)
            assert type(err).__name__ == cls and message in err.message, (lib, err)


def test_map_and_batch_with_legacy_function():
    _same(
        lambda lib: lib.data.Dataset.range(5).apply(
            lib.data.experimental.map_and_batch_with_legacy_function(lambda x: x * 2, 2)
        )
    )


def test_csv_dataset_quoted_field_spanning_lines(tmp_path):
    text = 'h1,h2,h3\n1,"multi\nline ""q""\n\nend",x\n2,"a",b\n' + "".join(f'{i},"r{i}\n",z\n' for i in range(3, 5000))
    path = _write(tmp_path, "m.csv", text)
    values = _same(lambda lib: lib.data.experimental.CsvDataset(path, [[0], [""], [""]], header=True), limit=6000)
    assert values[0][1] == b'multi\nline "q"\n\nend' and len(values) == 4999
    # without quote handling a line is a record
    plain = _write(tmp_path, "p.csv", '1,"a\nb",c\n')
    _same(lambda lib: lib.data.experimental.CsvDataset(plain, [[""]], use_quote_delim=False, select_cols=[0]))


def _optional_run(t, via_function):
    """Each run of has_value() or get_value() advances the iterator once (TF's graph-mode semantics)."""
    graph = t.Graph()
    with graph.as_default():
        ds = t.data.Dataset.range(3).map(lambda x: (x, t.fill(t.cast(t.expand_dims(x, 0), t.int32), 1.5)))
        it = t.data.make_initializable_iterator(ds)
        opt = t.data.experimental.get_next_as_optional(it) if via_function else it.get_next_as_optional()
        has_value, value = opt.has_value(), opt.get_value()
        specs = [(s.shape.as_list(), s.dtype.name) for s in opt.element_spec]
        out = [has_value.dtype.name, [v.shape.as_list() for v in value], specs]
        with t.Session(graph=graph) as sess:
            sess.run(it.initializer)
            out.append(sess.run([has_value, value]))  # one element: (True, element 0)
            out.append(sess.run(value))  # element 1
            out.append(sess.run(has_value))  # element 2 taken
            out.append(sess.run(has_value))  # past the end: False, no OutOfRangeError
            with pytest.raises(Exception) as err:
                sess.run(value)
            out.append((type(err.value).__name__, "The given optional does not have a value." in str(err.value)))
    return out


@pytest.mark.parametrize("via_function", [True, False])
def test_get_next_as_optional_matches_tf(via_function):
    got, want = _optional_run(tw, via_function), _optional_run(v1, via_function)
    assert repr(got) == repr(want)  # tensorweave's op: "IteratorGetNextOrEnd" (has_value, components)
    assert got[-1] == ("InvalidArgumentError", True)
