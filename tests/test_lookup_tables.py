"""tf.lookup hash tables (HashTableV2, InitializeTableV2, InitializeTableFromTextFileV2, LookupTableFindV2,
LookupTableSizeV2, LookupTableExportV2, LookupTableImportV2) against TensorFlow: ids, OOV buckets, text-file
vocabularies, SparseTensor keys, tables in tf.data, and the errors."""

import numpy as np
import pytest

import tensorweave.compat.v1 as tw


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("the\t10\ncat\t20\nsat\t30\n")
    return str(path)


def _program(t, vocab):
    with t.Graph().as_default(), t.Session() as sess:
        kv = t.lookup.StaticHashTable(t.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1.5, 2.5, 3.5]), -1.0)
        ints = t.lookup.StaticHashTable(
            t.lookup.KeyValueTensorInitializer(np.array([3, 7], np.int64), np.array([30, 70], np.int64)), 0
        )
        words = t.lookup.StaticVocabularyTable(
            t.lookup.TextFileInitializer(vocab, t.string, 0, t.int64, t.lookup.TextFileIndex.LINE_NUMBER),
            num_oov_buckets=3,
        )
        first = t.lookup.StaticHashTable(t.lookup.TextFileInitializer(vocab, t.string, 0, t.int64, 1), -1)
        tokens = t.constant([["the", "dog"], ["sat", "zebra"]])
        sparse = t.SparseTensor([[0, 0], [1, 2]], ["cat", "mouse"], [2, 3])
        out = [
            kv.lookup(t.constant(["c", "zz", "a"])),
            ints.lookup(t.constant([7, 1], t.int64)),
            words.lookup(tokens),
            words.lookup(sparse).values,
            first.lookup(tokens),
            kv.size(),
            words.size(),
        ]
        sess.run(t.tables_initializer())
        return sess.run(out)


def test_values(vocab):
    kv, ints, words, sparse, first, size, vocab_size = _program(tw, vocab)
    np.testing.assert_array_equal(kv, [3.5, -1.0, 1.5])
    np.testing.assert_array_equal(ints, [70, 0])
    assert words[0, 0] == 0 and words[1, 0] == 2 and 3 <= words[0, 1] < 6 and 3 <= words[1, 1] < 6
    assert sparse[0] == 1 and 3 <= sparse[1] < 6
    np.testing.assert_array_equal(first, [[10, -1], [30, -1]])
    assert (size, vocab_size) == (3, 6)


def test_matches_tensorflow(vocab):
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    for got, want in zip(_program(tw, vocab), _program(tf, vocab)):
        np.testing.assert_array_equal(got, want)  # the OOV buckets hash as TF's


def test_export_import_and_reinitialize():
    with tw.Graph().as_default(), tw.Session() as sess:
        table = tw.lookup.StaticHashTable(tw.lookup.KeyValueTensorInitializer(["x", "y"], [1, 2]), -1)
        keys, values = table.export()
        sess.run(tw.tables_initializer())
        sess.run(tw.tables_initializer())  # again with the same data: nothing happens
        got = dict(zip(sess.run(keys).tolist(), sess.run(values).tolist()))
        assert got == {b"x": 1, b"y": 2}
        sess.run(tw.raw_ops.LookupTableImportV2(table_handle=table.resource_handle, keys=["z"], values=[9]))
        assert sess.run(table.lookup(tw.constant(["z", "x"]))).tolist() == [9, -1]


def test_in_a_dataset():
    with tw.Graph().as_default(), tw.Session() as sess:
        table = tw.lookup.StaticHashTable(
            tw.lookup.KeyValueTensorInitializer(["lo", "hi"], np.array([0, 1], np.int64)), np.int64(-1)
        )
        ds = tw.data.Dataset.from_tensor_slices(["hi", "lo", "??"]).map(table.lookup)
        nxt = tw.data.make_initializable_iterator(ds)
        sess.run([tw.tables_initializer(), nxt.initializer])
        assert [sess.run(nxt.get_next()) for _ in range(3)] == [1, 0, -1]


def test_errors(tmp_path):
    with tw.Graph().as_default(), tw.Session() as sess:
        table = tw.lookup.StaticHashTable(tw.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
        with pytest.raises(tw.errors.FailedPreconditionError, match="Table not initialized"):
            sess.run(table.lookup(tw.constant(["a"])))
        with pytest.raises(TypeError, match="Keys must be dtype"):
            table.lookup(tw.constant([1]))
        dup = tw.lookup.StaticHashTable(tw.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2]), -1)
        with pytest.raises(tw.errors.FailedPreconditionError, match="different value for same key"):
            sess.run(dup.initializer)
        missing = tw.lookup.StaticHashTable(
            tw.lookup.TextFileInitializer(str(tmp_path / "none.txt"), tw.string, -2, tw.int64, -1), -1
        )
        with pytest.raises(tw.errors.NotFoundError):
            sess.run(missing.initializer)
        bad = tmp_path / "bad.txt"
        bad.write_text("a\tx\n")
        numbers = tw.lookup.StaticHashTable(tw.lookup.TextFileInitializer(str(bad), tw.string, 0, tw.int64, 1), -1)
        with pytest.raises(tw.errors.InvalidArgumentError, match="not a valid int64"):
            sess.run(numbers.initializer)
        short = tw.lookup.StaticHashTable(tw.lookup.TextFileInitializer(str(bad), tw.string, 0, tw.int64, 5), -1)
        with pytest.raises(tw.errors.InvalidArgumentError, match="Invalid number of columns"):
            sess.run(short.initializer)
    with pytest.raises(ValueError, match="num_oov_buckets"):
        tw.lookup.StaticVocabularyTable(tw.lookup.KeyValueTensorInitializer(["a"], np.array([0], np.int64)), 0)


def test_op_types():
    with tw.Graph().as_default() as g:
        table = tw.lookup.StaticHashTable(tw.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
        table.lookup(tw.constant(["a"]))
        table.size()
        table.export()
        tw.raw_ops.LookupTableImportV2(table_handle=table.resource_handle, keys=["b"], values=[2])
        tw.lookup.StaticHashTable(tw.lookup.TextFileInitializer("v.txt", tw.string, -2, tw.int64, -1), -1)
        types = {op.type for op in g.get_operations()}
    assert {
        "HashTableV2",
        "InitializeTableV2",
        "LookupTableImportV2",
        "InitializeTableFromTextFileV2",
        "LookupTableFindV2",
        "LookupTableSizeV2",
        "LookupTableExportV2",
    } <= types


def test_monitored_session_initializes_tables():
    """As TF's Scaffold: the default local_init_op runs tables_initializer."""
    with tw.Graph().as_default():
        table = tw.lookup.StaticHashTable(tw.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2]), -1)
        ids = table.lookup(tw.constant(["b", "q"]))
        tw.train.get_or_create_global_step()
        with tw.train.MonitoredTrainingSession() as sess:
            assert sess.run(ids).tolist() == [2, -1]


# --- mutable tables ---------------------------------------------------------------------------------------


def _mutable_program(t):
    """Insert, remove, lookup, size and export on MutableHashTable (scalar and vector values) and
    DenseHashTable; the exports sorted by key (their order is the table's)."""
    with t.Graph().as_default(), t.Session() as sess:
        words = t.lookup.experimental.MutableHashTable(t.string, t.int64, -1, name="words")
        vectors = t.lookup.experimental.MutableHashTable(t.int64, t.float32, [0.0, -1.0], name="vectors")
        dense = t.lookup.experimental.DenseHashTable(
            t.int64, t.float64, -1.0, empty_key=0, deleted_key=-1, initial_num_buckets=4, name="dense"
        )
        sess.run(words.insert(["a", "b", "c"], np.array([1, 2, 3], np.int64)))
        sess.run(words.insert(["b"], np.array([20], np.int64)))  # replaces
        sess.run(words.remove(t.constant(["c", "absent"])))
        sess.run(vectors.insert(t.constant([7, 8], t.int64), [[1.0, 2.0], [3.0, 4.0]]))
        sess.run(dense.insert(t.constant(np.arange(1, 20), t.int64), np.arange(1, 20) / 2))  # grows from 4
        sess.run(dense.remove(t.constant([3, 50], t.int64)))
        keys, values = sess.run(words.export())
        order = np.argsort(keys)
        vkeys, vvalues = sess.run(vectors.export())
        dense_keys, dense_values = sess.run(dense.export())
        return [
            sess.run(words.lookup(t.constant([["a", "c"], ["b", "zz"]]))),
            sess.run(words.lookup(["a", "q"], dynamic_default_values=np.array([7, 8], np.int64))),
            sess.run(words.size()),
            keys[order],
            values[order],
            sess.run(vectors.lookup(t.constant([[8, 9]], t.int64))),
            vvalues[np.argsort(vkeys)],
            sess.run(dense.lookup(t.constant([1, 3, 19, 40], t.int64))),
            sess.run(dense.size()),
            dense_keys.shape,
            dense_values.shape,
            sorted(k for k in dense_keys.ravel() if k > 0),
            [words.name, dense.name, str(vectors.lookup(t.constant([1], t.int64)).shape)],
        ]


def test_mutable_tables():
    got = _mutable_program(tw)
    assert got[0].tolist() == [[1, -1], [20, -1]]
    assert got[1].tolist() == [1, 8]
    assert got[2] == 2 and got[3].tolist() == [b"a", b"b"] and got[4].tolist() == [1, 20]
    np.testing.assert_array_equal(got[5], [[[3.0, 4.0], [0.0, -1.0]]])
    assert got[8] == 18 and got[9] == (32, 1) and got[10] == (32, 1)
    assert got[11] == [k for k in range(1, 20) if k != 3]


def test_mutable_tables_match_tensorflow():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    for got, want in zip(_mutable_program(tw), _mutable_program(tf)):
        np.testing.assert_array_equal(got, want)


def _mutable_error(t, case):
    """The error (class name, message) a bad program meets, None if it runs."""
    E = t.lookup.experimental
    try:
        with t.Graph().as_default(), t.Session() as sess:
            if case == "value_shape":
                table = E.MutableHashTable(t.int64, t.float32, [0.0, 0.0])
                sess.run(table.insert(t.constant([1, 2], t.int64), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
            elif case == "value_count":
                table = E.MutableHashTable(t.int64, t.float32, 0.0)
                sess.run(table.insert(t.constant([1, 2], t.int64), [1.0]))
            elif case == "remove_dtype":
                E.MutableHashTable(t.int64, t.float32, 0.0).remove(t.constant([1]))
            elif case == "equal_keys":
                sess.run(E.DenseHashTable(t.int64, t.int64, -1, empty_key=0, deleted_key=0).size())
            elif case == "insert_empty":
                table = E.DenseHashTable(t.int64, t.int64, -1, empty_key=0, deleted_key=-1, initial_num_buckets=8)
                sess.run(table.insert(t.constant([0], t.int64), t.constant([1], t.int64)))
            elif case == "lookup_deleted":
                table = E.DenseHashTable(t.string, t.int64, -1, empty_key="", deleted_key="$", initial_num_buckets=8)
                sess.run(table.lookup(["a", "$"]))
            elif case == "buckets":
                sess.run(E.DenseHashTable(t.int64, t.int64, -1, 0, -1, initial_num_buckets=6).size())
            elif case == "static_insert":
                table = t.lookup.StaticHashTable(t.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
                sess.run(table.initializer)
                sess.run(t.raw_ops.LookupTableInsertV2(table_handle=table.resource_handle, keys=["b"], values=[2]))
            elif case == "static_remove":
                table = t.lookup.StaticHashTable(t.lookup.KeyValueTensorInitializer(["a"], [1]), -1)
                sess.run(table.initializer)
                sess.run(t.raw_ops.LookupTableRemoveV2(table_handle=table.resource_handle, keys=["b"]))
            elif case == "import_lengths":
                table = E.MutableHashTable(t.string, t.int32, -1)
                t.raw_ops.LookupTableImportV2(table_handle=table.resource_handle, keys=["a", "b"], values=[1])
        return None
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return type(e).__name__, str(e)


@pytest.mark.parametrize(
    "case, error, message",
    [
        ("value_shape", "InvalidArgumentError", r"Expected shape \[2,2\] for value, got \[2,3\]"),
        ("value_count", "InvalidArgumentError", r"Expected shape \[2\] for value, got \[1\]"),
        ("remove_dtype", "TypeError", "Dtype of argument `keys` must be"),
        ("equal_keys", "InvalidArgumentError", "Empty and deleted keys cannot be equal"),
        ("insert_empty", "InvalidArgumentError", "Using the empty_key as a table key is not allowed"),
        ("lookup_deleted", "InvalidArgumentError", "Using the deleted_key as a table key is not allowed"),
        ("buckets", "InvalidArgumentError", "Number of buckets must be at least 4 and a power of 2, got: 6"),
        ("static_insert", "UnimplementedError", "Insert not supported by InitializableLookupTable"),
        ("static_remove", "UnimplementedError", "Remove not supported by InitializableLookupTable"),
        ("import_lengths", "ValueError", "Dimensions must be equal, but are 2 and 1"),
    ],
)
def test_mutable_table_errors(case, error, message):
    import re

    got = _mutable_error(tw, case)
    assert got is not None and got[0] == error and re.search(message, got[1]), got
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    want = _mutable_error(tf, case)
    assert want is not None and want[0] == error and re.search(message, want[1]), want


def test_bad_dense_attrs_are_bounded():
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="initial_num_buckets must be at most 2\\^22"):
            tw.lookup.experimental.DenseHashTable(tw.int64, tw.int64, -1, 0, -1, initial_num_buckets=1 << 40)
        with pytest.raises(ValueError, match="value_shape must be fully defined"):
            tw.raw_ops.MutableHashTableOfTensorsV2(key_dtype=tw.int64, value_dtype=tw.float32, value_shape=[1 << 30])
        bad = tw.raw_ops.MutableDenseHashTableV2(
            empty_key=tw.constant(0, tw.int64),
            deleted_key=tw.constant(-1, tw.int64),
            value_dtype=tw.int64,
            max_load_factor=1.5,
        )
        with tw.Session() as sess, pytest.raises(tw.errors.InvalidArgumentError, match="max_load_factor"):
            sess.run(bad)


def _checkpoint_program(t, path, save):
    """Saves (or restores and reads) a string table, a vector-valued table, a dense table and a variable."""
    with t.Graph().as_default():
        words = t.lookup.experimental.MutableHashTable(t.string, t.int64, -1, name="words")
        labels = t.lookup.experimental.MutableHashTable(t.int64, t.string, "?", name="labels")
        vectors = t.lookup.experimental.MutableHashTable(t.int64, t.float32, [0.0, 0.0], name="vectors")
        dense = t.lookup.experimental.DenseHashTable(
            t.int64, t.int32, -1, empty_key=-1, deleted_key=-2, initial_num_buckets=8, name="dense"
        )
        step = t.Variable(3, name="step")
        unsaved = t.lookup.experimental.MutableHashTable(t.int64, t.int64, -1, name="unsaved", checkpoint=False)
        saver = t.train.Saver()
        with t.Session() as sess:
            if save:
                sess.run(t.global_variables_initializer())
                sess.run(words.insert(["a", "b\x00c"], t.constant([1, 2], t.int64)))
                sess.run(labels.insert(t.constant([1, 2], t.int64), ["x", "y\xff"]))
                sess.run(vectors.insert(t.constant([5], t.int64), [[1.5, 2.5]]))
                sess.run(dense.insert(t.constant([1, 2, 3], t.int64), t.constant([10, 20, 30])))
                sess.run(dense.remove(t.constant([2], t.int64)))
                sess.run(unsaved.insert(t.constant([1], t.int64), t.constant([1], t.int64)))
                return saver.save(sess, path)
            saver.restore(sess, path)
            return sess.run(
                [
                    words.lookup(["b\x00c", "a", "z"]),
                    labels.lookup(t.constant([2, 1, 0], t.int64)),
                    vectors.lookup(t.constant([5, 6], t.int64)),
                    dense.lookup(t.constant([1, 2, 3], t.int64)),
                    [words.size(), dense.size(), unsaved.size()],
                    step,
                ]
            )


def test_tables_in_checkpoints(tmp_path):
    path = _checkpoint_program(tw, str(tmp_path / "tw" / "model"), save=True)
    words, labels, vectors, dense, sizes, step = _checkpoint_program(tw, path, save=False)
    assert words.tolist() == [2, 1, -1] and labels.tolist() == ["y\xff".encode(), b"x", b"?"]
    np.testing.assert_array_equal(vectors, [[1.5, 2.5], [0.0, 0.0]])
    assert dense.tolist() == [10, -1, 30] and sizes == [3 - 1, 2, 0] and step == 3
    names = {name for name, _ in tw.train.list_variables(path)}
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()
    tf_path = _checkpoint_program(tf, str(tmp_path / "tf" / "model"), save=True)
    assert names == {name for name, _ in tf.train.list_variables(tf_path)}  # the tables' names, as TF's
    got = [words, labels, vectors, dense, sizes, step]
    for got, want in zip(got, _checkpoint_program(tf, tf_path, save=False)):
        np.testing.assert_array_equal(got, want)


def test_saver_takes_a_table_in_its_var_list(tmp_path):
    with tw.Graph().as_default():
        table = tw.lookup.experimental.MutableHashTable(tw.int64, tw.int64, -1)
        saver = tw.train.Saver([table])
        with tw.Session() as sess:
            sess.run(table.insert(tw.constant([4], tw.int64), tw.constant([44], tw.int64)))
            path = saver.save(sess, str(tmp_path / "m"))
        with tw.Session() as sess:
            saver.restore(sess, path)
            assert sess.run(table.lookup(tw.constant([4, 5], tw.int64))).tolist() == [44, -1]
        step = tw.Variable(1, name="step")
        named = tw.train.Saver({"tab": table, "vv": step})
        with tw.Session() as sess:
            sess.run(step.initializer)
            named_path = named.save(sess, str(tmp_path / "named"))
        # Names as TF's: a dict key names the table's tensors; in a list a table's are "-keys", "-values".
        assert sorted(n for n, _ in tw.train.list_variables(named_path)) == ["tab-keys", "tab-values", "vv"]
        assert sorted(n for n, _ in tw.train.list_variables(path)) == ["-keys", "-values"]
        with pytest.raises(TypeError, match="Variable to save is not a Variable"):
            tw.train.Saver([tw.constant(1)])


def test_concurrent_inserts_and_lookups():
    """Lookups share the table's lock, inserts take it alone: every lookup sees whole inserts."""
    import threading

    with tw.Graph().as_default(), tw.Session() as sess:
        for table in (
            tw.lookup.experimental.MutableHashTable(tw.int64, tw.int64, [-1, -1], name="m"),
            tw.lookup.experimental.DenseHashTable(tw.int64, tw.int64, [-1, -1], 0, -1, initial_num_buckets=4),
        ):
            keys = tw.placeholder(tw.int64, [None])
            insert = table.insert(keys, tw.stack([keys, keys * 2], axis=1))
            found = table.lookup(tw.range(1, 201, dtype=tw.int64))
            seen, errors = [], []

            def write():
                for start in range(1, 201, 20):
                    sess.run(insert, {keys: np.arange(start, start + 20)})

            def read():
                try:
                    for _ in range(20):
                        seen.append(sess.run(found))
                except Exception as e:  # noqa: BLE001
                    errors.append(e)

            threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(3)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            assert not errors
            for values in seen:
                hit = values[:, 0] >= 0
                np.testing.assert_array_equal(values[hit, 1], 2 * values[hit, 0])
                assert (np.flatnonzero(hit) == np.arange(hit.sum())).all()  # whole inserts, in order
            assert sess.run(table.size()) == 200


def test_mutable_op_types():
    with tw.Graph().as_default() as g:
        scalars = tw.lookup.experimental.MutableHashTable(tw.string, tw.int64, -1)
        tw.lookup.experimental.MutableHashTable(tw.string, tw.int64, [-1, -1], name="vec")
        tw.lookup.experimental.DenseHashTable(tw.int64, tw.int64, -1, 0, -1, initial_num_buckets=4)
        scalars.insert(["a"], tw.constant([1], tw.int64))
        scalars.remove(tw.constant(["a"]))
        types = {op.type for op in g.get_operations()}
    assert {
        "MutableHashTableV2",
        "MutableHashTableOfTensorsV2",
        "MutableDenseHashTableV2",
        "LookupTableInsertV2",
        "LookupTableRemoveV2",
    } <= types


# --- index_table_from_* (TF1's lookup_ops / tf.contrib.lookup; extra names under tw.lookup) -------------


def _index_program(t, lookup, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("the\ncat\nsat\n")
    numbers = tmp_path / "numbers.txt"
    numbers.write_text("5\n7\n9\n")
    with t.Graph().as_default(), t.Session() as sess:
        plain = lookup.index_table_from_tensor(["a", "b", "c"])
        oov = lookup.index_table_from_tensor(["a", "b", "c"], num_oov_buckets=3)
        ints = lookup.index_table_from_tensor(np.array([10, 20], np.int64), num_oov_buckets=2, dtype=t.int64)
        from_file = lookup.index_table_from_file(str(words), default_value=-5)
        file_oov = lookup.index_table_from_file(str(words), num_oov_buckets=2, vocab_size=2)
        file_ints = lookup.index_table_from_file(str(numbers), key_dtype=t.int64)
        names = lookup.index_to_string_table_from_tensor(["x", "y"])
        names_file = lookup.index_to_string_table_from_file(str(words), default_value="??")
        out = [
            plain.lookup(t.constant(["c", "z"])),
            oov.lookup(t.constant(["c", "zz", "q"])),
            ints.lookup(t.constant([20, 3, 99], t.int64)),
            from_file.lookup(t.constant(["sat", "dog"])),
            file_oov.lookup(t.constant(["cat", "sat"])),
            file_ints.lookup(t.constant([9, 6], t.int64)),
            names.lookup(t.constant([1, 5], t.int64)),
            names_file.lookup(t.constant([0, 2, 3], t.int64)),
            oov.size(),
            file_oov.size(),
        ]
        sess.run(t.tables_initializer())
        return sess.run(out)


def test_index_tables(tmp_path):
    got = _index_program(tw, tw.lookup, tmp_path)
    assert got[0].tolist() == [2, -1] and got[1][0] == 2 and all(3 <= i < 6 for i in got[1][1:])
    assert got[3].tolist() == [2, -5] and got[5].tolist() == [2, -1]
    assert got[6].tolist() == [b"y", b"UNK"] and got[7].tolist() == [b"the", b"sat", b"??"]
    assert (got[8], got[9]) == (6, 4)
    pytest.importorskip("tensorflow")
    from tensorflow.python.ops import lookup_ops as tf_lookup_ops

    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    for ours, theirs in zip(got, _index_program(tf, tf_lookup_ops, tmp_path)):
        np.testing.assert_array_equal(ours, theirs)  # the OOV buckets too


def test_index_table_errors():
    lookup = tw.lookup
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="`vocabulary_list` must be specified"):
            lookup.index_table_from_tensor(None)
        with pytest.raises(ValueError, match="greater or equal than 0, got -1"):
            lookup.index_table_from_tensor(["a"], num_oov_buckets=-1)
        with pytest.raises(TypeError, match="integer or string"):
            lookup.index_table_from_tensor(["a"], dtype=tw.float32)
        with pytest.raises(ValueError, match="Invalid `dtype`: Expected integer"):
            lookup.index_table_from_tensor(["a"], dtype=tw.int64)
        with pytest.raises(ValueError, match="must be specified and must not be empty"):
            lookup.index_table_from_file("")
        with pytest.raises(ValueError, match="`vocab_size` must be greater than 0, got 0"):
            lookup.index_table_from_file("v.txt", vocab_size=0)
        with pytest.raises(ValueError, match="`vocabulary_list` argument must be specified"):
            lookup.index_to_string_table_from_tensor(None)
        with pytest.raises(ValueError, match="must be specified and must not be empty"):
            lookup.index_to_string_table_from_file(None)


def test_dense_table_reuses_removed_buckets():
    """Insert/remove cycles leave deleted buckets; inserts rehash them away instead of filling the table."""
    with tw.Graph().as_default(), tw.Session() as sess:
        table = tw.lookup.experimental.DenseHashTable(tw.int64, tw.int64, -1, 0, -1, initial_num_buckets=4)
        keys = tw.placeholder(tw.int64, [None])
        insert, remove = table.insert(keys, keys * 10), table.remove(keys)
        for start in range(1, 400, 3):
            sess.run(insert, {keys: [start, start + 1, start + 2]})
            sess.run(remove, {keys: [start, start + 1]})
        kept = np.arange(3, 402, 3)
        assert sess.run(table.size()) == len(kept)
        np.testing.assert_array_equal(sess.run(table.lookup(kept)), kept * 10)
        assert sess.run(table.export()[0]).shape[0] <= 512


def test_value_shape_bound_without_overflow():
    """A kernel-fuzzer finding: value_shape [2^63 - 1, 3, 0, 3] overflowed the element count in the shape
    function; it is now rejected as any value_shape over 2^24 elements is."""
    from tensorweave._src.ops import gen_ops

    with tw.Graph().as_default():
        for shape in ([2**63 - 1, 3, 0, 3], [2**24 + 1], [4096, 4097]):
            with pytest.raises(ValueError, match="at most 2\\^24 elements"):
                gen_ops.mutable_hash_table_of_tensors_v2(key_dtype=tw.string, value_dtype=tw.string, value_shape=shape)
        gen_ops.mutable_hash_table_of_tensors_v2(key_dtype=tw.string, value_dtype=tw.float32, value_shape=[4096, 4096])
