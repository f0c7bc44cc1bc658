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
