"""Saver(sharded=True): one shard per device holding variables, committed by one file written last. Oracles: the
values saved (numpy), the files on disk, and the failure classes a user catches."""

import json
import os

import numpy as np
import pytest
import tensorweave as tw

CONFIG = tw.ConfigProto(device_count={"CPU": 2})


def _model():
    with tw.device("/cpu:0"):
        a = tw.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="a")
        step = tw.train.get_or_create_global_step()
    with tw.device("/cpu:1"):
        b = tw.Variable(np.array([1.5, -2.0]), name="b")
        c = tw.Variable(np.int32(7), name="c")
    return a, b, c, step


def _shard_files(directory):
    return sorted(f for f in os.listdir(directory) if ".shard-" in f)


def test_one_shard_per_device_and_restore(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    with tw.Graph().as_default():
        a, b, c, step = _model()
        saver = tw.train.Saver(sharded=True)
        with tw.Session(config=CONFIG) as sess:
            sess.run(tw.global_variables_initializer())
            sess.run(tw.assign(c, 11))
            path = saver.save(sess, prefix, global_step=3)
            want = sess.run([a, b, c, step])
    assert path == prefix + "-3" and tw.train.checkpoint_exists(path)
    with open(path + ".shards.json") as f:
        commit = json.load(f)
    devices = [s["device"] for s in commit["shards"]]
    assert devices == ["/device:CPU:0", "/device:CPU:1"]
    assert [sorted(s["tensors"]) for s in commit["shards"]] == [["a", "global_step"], ["b", "c"]]
    files = _shard_files(tmp_path)
    assert len(files) == 4 and all(f.endswith((".safetensors", ".manifest.json")) for f in files)
    assert not os.path.exists(path + ".safetensors")  # no unsharded file pair
    # Each shard holds exactly its device's variables.
    shard = str(tmp_path / commit["shards"][1]["prefix"])
    assert sorted(n for n, _ in tw.train.list_variables(shard)) == ["b", "c"]
    with tw.Graph().as_default():
        a, b, c, step = _model()
        saver = tw.train.Saver(sharded=True)
        with tw.Session(config=CONFIG) as sess:
            saver.restore(sess, tw.train.latest_checkpoint(str(tmp_path)))
            got = sess.run([a, b, c, step])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert got[2] == 11


def _saved(tmp_path, steps=(1,)):
    prefix = str(tmp_path / "m")
    with tw.Graph().as_default():
        _a, _b, _c, _step = _model()
        saver = tw.train.Saver(sharded=True, max_to_keep=2)
        with tw.Session(config=CONFIG) as sess:
            sess.run(tw.global_variables_initializer())
            paths = [saver.save(sess, prefix, global_step=s) for s in steps]
    return paths


def _restore(path):
    with tw.Graph().as_default():
        a, b, _c, _step = _model()
        saver = tw.train.Saver(sharded=True)
        with tw.Session(config=CONFIG) as sess:
            saver.restore(sess, path)
            return sess.run([a, b])


def test_a_missing_or_altered_shard_is_a_clear_error_and_nothing_is_restored(tmp_path):
    (path,) = _saved(tmp_path)
    with open(path + ".shards.json") as f:
        shards = [str(tmp_path / s["prefix"]) for s in json.load(f)["shards"]]
    manifest = shards[1] + ".manifest.json"
    with open(manifest) as f:
        text = f.read()
    with open(manifest, "w") as f:
        f.write(text.replace('"b"', '"B"'))
    with pytest.raises(tw.errors.DataLossError, match="is not the one its commit names"):
        _restore(path)
    os.remove(manifest)
    with pytest.raises(tw.errors.NotFoundError, match=r"shard .*-00001-of-00002 is missing"):
        _restore(path)
    with open(path + ".shards.json", "w") as f:
        f.write("{not json")
    with pytest.raises(tw.errors.DataLossError, match="unreadable"):
        _restore(path)


def test_a_corrupt_shard_tensor_fails_the_restore(tmp_path):
    (path,) = _saved(tmp_path)
    with open(path + ".shards.json") as f:
        shard = str(tmp_path / json.load(f)["shards"][0]["prefix"])
    with open(shard + ".safetensors", "rb") as f:
        data = bytearray(f.read())
    data[-1] ^= 0xFF
    with open(shard + ".safetensors", "wb") as f:
        f.write(data)
    with pytest.raises(tw.errors.DataLossError):
        _restore(path)


def test_shards_no_commit_names_are_ignored_and_old_ones_deleted(tmp_path):
    paths = _saved(tmp_path, steps=(1, 2, 3))
    # max_to_keep=2: the first checkpoint's commit and shards are gone.
    assert not tw.train.checkpoint_exists(paths[0])
    assert len(_shard_files(tmp_path)) == 8
    # A stray shard of an interrupted save (no commit names it) changes nothing.
    stray = str(tmp_path / "m-3.shard-deadbeef0000-00000-of-00002")
    for suffix in (".safetensors", ".manifest.json"):
        with open(stray + suffix, "w") as f:
            f.write("garbage")
    got = _restore(paths[2])
    np.testing.assert_array_equal(got[0], np.arange(6, dtype=np.float32).reshape(2, 3))
    # An interrupted save (shards written, no commit) is not a checkpoint.
    assert not tw.train.checkpoint_exists(str(tmp_path / "m-4"))


def test_unsharded_and_sharded_checkpoints_cross_restore(tmp_path):
    prefix = str(tmp_path / "plain")
    with tw.Graph().as_default():
        a, b, _c, _step = _model()
        with tw.Session(config=CONFIG) as sess:
            sess.run(tw.global_variables_initializer())
            tw.train.Saver().save(sess, prefix)
            want = sess.run([a, b])
    got = _restore(prefix)  # a sharded saver reads an unsharded checkpoint
    np.testing.assert_array_equal(got[1], want[1])
    (path,) = _saved(tmp_path, steps=(5,))
    with tw.Graph().as_default():
        _model()
        with (
            tw.Session(config=CONFIG) as sess,
            pytest.raises(tw.errors.InvalidArgumentError, match="lie in several shards"),
        ):
            tw.train.Saver().restore(sess, path)  # one restore op for all: the shards do not fit it


def test_sharded_checkpoints_through_readers_meta_graphs_and_init_from_checkpoint(tmp_path):
    (path,) = _saved(tmp_path, steps=(2,))
    # The checkpoint readers see every shard's tensors, as TF's do.
    reader = tw.train.NewCheckpointReader(path)
    assert sorted(reader.get_variable_to_shape_map()) == ["a", "b", "c", "global_step"]
    np.testing.assert_array_equal(reader.get_tensor("b"), [1.5, -2.0])
    assert sorted(n for n, _ in tw.train.list_variables(str(tmp_path))) == ["a", "b", "c", "global_step"]
    assert tw.train.load_variable(str(tmp_path), "c") == 7
    # A sharded saver rebuilt from its meta graph restores and saves shard by shard.
    with tw.Graph().as_default(), tw.Session(config=CONFIG) as sess:
        saver = tw.train.import_meta_graph(path + ".meta")
        saver.restore(sess, path)
        np.testing.assert_array_equal(sess.run("b:0"), [1.5, -2.0])
        again = saver.save(sess, str(tmp_path / "again"))
    assert os.path.exists(again + ".shards.json") and tw.train.load_variable(again, "a").shape == (2, 3)
    # init_from_checkpoint reads each variable from its shard.
    with tw.Graph().as_default(), tw.Session() as sess:
        b = tw.get_variable("b", [2], tw.float64)
        tw.train.init_from_checkpoint(path, {"b": "b"})
        sess.run(tw.global_variables_initializer())
        np.testing.assert_array_equal(sess.run(b), [1.5, -2.0])
