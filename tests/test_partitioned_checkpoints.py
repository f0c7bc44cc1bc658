"""Partitioned variables in checkpoints, as TensorFlow saves them: each part is a slice (TF's shape_and_slice
spec) of one tensor named by the whole, listed whole, and restored into any partitioning (or none), by Saver,
init_from_checkpoint and warm_start; Saver's var_list forms for parts (TF's `op_list_to_dict`), sharded saves
and the errors. TensorFlow's own partitioned checkpoints are read in tests/test_tf_checkpoints.py."""

import numpy as np
import pytest
import tensorweave as tw

FULL = np.arange(40, dtype=np.float32).reshape(10, 4) / 7


def _save(tmp_path, parts, var_list=None, **saver_args):
    with tw.Graph().as_default():
        emb = tw.get_variable("emb", initializer=tw.constant(FULL), partitioner=tw.fixed_size_partitioner(parts))
        w = tw.get_variable("w", initializer=tw.constant([1.0, 2.0, 3.0]))
        saver = tw.train.Saver(var_list(emb, w) if var_list else None, **saver_args)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            return saver.save(sess, str(tmp_path / "model.ckpt"))


def _restored(prefix, parts):
    with tw.Graph().as_default():
        if parts:
            emb = tw.get_variable("emb", shape=[10, 4], partitioner=tw.fixed_size_partitioner(parts))
        else:
            emb = tw.get_variable("emb", shape=[10, 4])
        with tw.Session() as sess:
            tw.train.Saver([emb]).restore(sess, prefix)
            return sess.run(emb.as_tensor() if parts else emb)


def test_slice_specs_are_tensorflows():
    with tw.Graph().as_default():
        emb = tw.get_variable("emb", shape=[10, 4], partitioner=tw.fixed_size_partitioner(3))
        infos = [p._save_slice_info for p in emb]
    # TF: fixed_size_partitioner(3) of 10 rows gives 4, 3, 3; SaveSliceInfo.spec is "<full shape> <off,len:...>".
    assert [i.spec for i in infos] == ["10 4 0,4:0,4", "10 4 4,3:0,4", "10 4 7,3:0,4"]
    assert {i.full_name for i in infos} == {"emb"} and infos[1].var_offset == [4, 0]
    assert isinstance(infos[0], tw.Variable.SaveSliceInfo)


def test_listed_whole_and_restored_into_any_partitioning(tmp_path):
    prefix = _save(tmp_path, 3)
    assert tw.train.list_variables(prefix) == [("emb", [10, 4]), ("w", [3])]
    np.testing.assert_array_equal(tw.train.load_variable(prefix, "emb"), FULL)
    for parts in (3, 2, 5, 1, None):
        np.testing.assert_array_equal(_restored(prefix, parts), FULL)
    # A whole variable saved is restored into parts.
    (tmp_path / "whole").mkdir()
    with tw.Graph().as_default():
        emb = tw.get_variable("emb", initializer=tw.constant(FULL))
        with tw.Session() as sess:
            sess.run(emb.initializer)
            prefix = tw.train.Saver([emb]).save(sess, str(tmp_path / "whole" / "m"))
    np.testing.assert_array_equal(_restored(prefix, 3), FULL)


def test_var_list_forms(tmp_path):
    # A dict value that is a PartitionedVariable or a list of parts is saved in slices under its key.
    prefix = _save(tmp_path, 3, var_list=lambda emb, w: {"table": emb, "w": w})
    assert tw.train.list_variables(prefix) == [("table", [10, 4]), ("w", [3])]
    np.testing.assert_array_equal(tw.train.load_variable(prefix, "table"), FULL)
    # A single part in a list is saved as its slice: the rest of the whole is missing on restore.
    (tmp_path / "one").mkdir()
    prefix = _save(tmp_path / "one", 3, var_list=lambda emb, w: [list(emb)[0]])
    assert tw.train.list_variables(prefix) == [("emb", [10, 4])]
    with pytest.raises(tw.errors.InvalidArgumentError, match="saved slices hold 16 of the 40 values"):
        _restored(prefix, None)
    with tw.Graph().as_default():
        emb = tw.get_variable("emb", shape=[10, 4], partitioner=tw.fixed_size_partitioner(2))
        other = tw.get_variable("other", shape=[10, 4], partitioner=tw.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="Slices must all be from the same tensor: emb != other"):
            tw.train.Saver({"emb": [list(emb)[0], list(other)[1]]})
        with pytest.raises(ValueError, match="same name: emb"):
            tw.train.Saver([emb, emb])


def test_sharded_save_of_parts_on_two_devices(tmp_path):
    config = tw.ConfigProto(device_count={"CPU": 2})
    with tw.Graph().as_default():
        parts = []
        for i in range(2):
            with tw.device(f"/cpu:{i}"):
                part = tw.get_variable(f"emb/part_{i}", initializer=tw.constant(FULL[5 * i : 5 * i + 5]))
            part._save_slice_info = tw.Variable.SaveSliceInfo("emb", [10, 4], [5 * i, 0], [5, 4])
            parts.append(part)
        saver = tw.train.Saver(parts, sharded=True)
        with tw.Session(config=config) as sess:
            sess.run(tw.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "sharded"))
            sess.run([p.assign(tw.zeros_like(p)) for p in parts])
            saver.restore(sess, prefix)
            np.testing.assert_array_equal(np.concatenate(sess.run(parts)), FULL)


def test_init_from_checkpoint_and_warm_start_across_partitionings(tmp_path):
    prefix = _save(tmp_path, 3)
    for assignment in ({"emb": "new_emb"}, {"/": "other/"}):
        with tw.Graph().as_default():
            name = "new_emb" if "emb" in assignment else "other/emb"
            emb = tw.get_variable(name, shape=[10, 4], partitioner=tw.fixed_size_partitioner(2))
            if "/" in assignment:
                tw.get_variable("other/w", shape=[3])
            tw.train.init_from_checkpoint(prefix, assignment)
            with tw.Session() as sess:
                sess.run(tw.global_variables_initializer())
                np.testing.assert_array_equal(sess.run(emb.as_tensor()), FULL)
    with tw.Graph().as_default():
        emb = tw.get_variable("emb", shape=[10, 4], partitioner=tw.fixed_size_partitioner(4))
        tw.train.warm_start(prefix, ["emb"])
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(emb.as_tensor()), FULL)
    with tw.Graph().as_default():
        tw.get_variable("emb", shape=[12, 4], partitioner=tw.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match=r"doesn't match with shape of tensor emb \(\[10, 4\]\)"):
            tw.train.init_from_checkpoint(prefix, {"emb": "emb"})
