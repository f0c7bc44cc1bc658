"""tw.train.Saver and the SaveV2/RestoreV2 ops: round trips, the file format
(read by the safetensors package), the state file, max_to_keep, subsets,
every failure path, and bit-identical resumption of training."""

import json
import os

import numpy as np
import pytest

import tensorweave as tw


def _model():
    w = tw.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    b = tw.Variable(np.array([1.5, -2.5]), name="b")  # float64
    n = tw.Variable(np.array(7, np.int64), name="n")
    return w, b, n


def _save(tmp_path, name="model.ckpt", **kwargs):
    with tw.Graph().as_default():
        variables = _model()
        saver = tw.train.Saver(**kwargs)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            return saver.save(sess, str(tmp_path / name)), variables


def test_save_restore_in_fresh_session(tmp_path):
    with tw.Graph().as_default():
        w, b, n = _model()
        saver = tw.train.Saver()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            sess.run(w.assign(w * 2.0))
            want = sess.run([w, b, n])
            path = saver.save(sess, str(tmp_path / "ckpt"))
        assert path == str(tmp_path / "ckpt")
        with tw.Session() as sess:
            saver.restore(sess, path)
            got = sess.run([w, b, n])
    for g, e in zip(got, want):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_files_are_safetensors_with_manifest(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path, _ = _save(tmp_path)
    loaded = safetensors_numpy.load_file(path + ".safetensors")
    assert sorted(loaded) == ["b", "n", "w"]
    np.testing.assert_array_equal(loaded["w"], np.arange(6, dtype=np.float32).reshape(2, 3))
    assert loaded["b"].dtype == np.float64 and loaded["n"].dtype == np.int64
    with open(path + ".manifest.json", encoding="utf-8") as f:
        manifest = json.load(f)
    assert manifest["data_file"] == "model.ckpt.safetensors"
    assert manifest["data_bytes"] == os.path.getsize(path + ".safetensors")
    assert manifest["tensors"]["w"] == {"dtype": "F32", "shape": [2, 3], "crc32c": manifest["tensors"]["w"]["crc32c"]}
    # No temporary files are left.
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint",
        "model.ckpt.manifest.json",
        "model.ckpt.meta",
        "model.ckpt.safetensors",
    ]


def test_state_file_latest_checkpoint_and_max_to_keep(tmp_path):
    with tw.Graph().as_default():
        _model()
        step = tw.train.get_or_create_global_step()
        saver = tw.train.Saver(max_to_keep=2)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            assert tw.train.latest_checkpoint(str(tmp_path)) is None
            paths = []
            for _ in range(3):
                sess.run(step.assign_add(5))
                paths.append(saver.save(sess, str(tmp_path / "model.ckpt"), global_step=step))
    assert [os.path.basename(p) for p in paths] == ["model.ckpt-5", "model.ckpt-10", "model.ckpt-15"]
    assert tw.train.latest_checkpoint(str(tmp_path)) == paths[-1]
    assert saver.last_checkpoints == paths[1:]
    assert not tw.train.checkpoint_exists(paths[0])
    assert not os.path.exists(paths[0] + ".safetensors")
    with open(tmp_path / "checkpoint", encoding="utf-8") as f:
        assert f.read() == (
            f'model_checkpoint_path: "{paths[2]}"\n'
            f'all_model_checkpoint_paths: "{paths[1]}"\n'
            f'all_model_checkpoint_paths: "{paths[2]}"\n'
        )
    state = tw.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == paths[1:]


def test_relative_paths_in_state_file(tmp_path):
    with tw.Graph().as_default():
        _model()
        saver = tw.train.Saver(save_relative_paths=True)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "sub" / "m"), global_step=3)
    assert 'model_checkpoint_path: "m-3"' in (tmp_path / "sub" / "checkpoint").read_text()
    assert tw.train.latest_checkpoint(str(tmp_path / "sub")) == path


def test_var_list_dict_restores_a_subset_under_other_names(tmp_path):
    path, _ = _save(tmp_path)
    with tw.Graph().as_default():
        other = tw.Variable(np.zeros((2, 3), np.float32), name="other")
        untouched = tw.Variable(np.array(9, np.int64), name="untouched")
        saver = tw.train.Saver({"w": other})
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(other), np.arange(6, dtype=np.float32).reshape(2, 3))
            assert sess.run(untouched) == 9
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="same name"):
            v = tw.Variable(1.0, name="v")
            tw.train.Saver([v, v])


def _restore_expecting(tmp_path, path, make_vars, error, match):
    """Restoring fails with `error` and leaves every variable as it was."""
    with tw.Graph().as_default():
        variables = make_vars()
        saver = tw.train.Saver()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            before = sess.run(variables)
            with pytest.raises(error, match=match):
                saver.restore(sess, path)
            after = sess.run(variables)
    for x, y in zip(before, after):
        np.testing.assert_array_equal(x, y)


def _fresh_model():
    w = tw.Variable(np.full((2, 3), -1.0, np.float32), name="w")
    b = tw.Variable(np.array([0.0, 0.0]), name="b")
    n = tw.Variable(np.array(0, np.int64), name="n")
    return [w, b, n]


def test_truncated_file_is_data_loss(tmp_path):
    path, _ = _save(tmp_path)
    data = open(path + ".safetensors", "rb").read()
    open(path + ".safetensors", "wb").write(data[:-5])
    _restore_expecting(tmp_path, path, _fresh_model, tw.errors.DataLossError, r"model\.ckpt\.safetensors is truncated")


def test_corrupted_byte_is_data_loss_naming_the_tensor(tmp_path):
    path, _ = _save(tmp_path)
    data = bytearray(open(path + ".safetensors", "rb").read())
    data[-1] ^= 0x01  # the last byte belongs to "w" (tensors sorted by name)
    open(path + ".safetensors", "wb").write(bytes(data))
    _restore_expecting(tmp_path, path, _fresh_model, tw.errors.DataLossError, "checksum mismatch for tensor 'w'")


def test_corrupted_manifest_is_data_loss(tmp_path):
    path, _ = _save(tmp_path)
    with open(path + ".manifest.json", "w") as f:
        f.write('{"format": "tensorweave.checkpoint", "vers')
    _restore_expecting(tmp_path, path, _fresh_model, tw.errors.DataLossError, r"manifest\.json is corrupt")


def test_missing_checkpoint_is_value_error_and_missing_tensor_not_found(tmp_path):
    # As TF1's Saver.restore: no checkpoint at the path is a ValueError.
    _restore_expecting(tmp_path, str(tmp_path / "nope"), _fresh_model, ValueError, "not a valid checkpoint")
    path, _ = _save(tmp_path)

    def with_extra():
        return _fresh_model() + [tw.Variable(1.0, name="extra")]

    _restore_expecting(tmp_path, path, with_extra, tw.errors.NotFoundError, "tensor 'extra' not found in checkpoint")


def test_shape_and_dtype_mismatch_are_invalid_argument(tmp_path):
    path, _ = _save(tmp_path)

    def wrong_shape():
        return [tw.Variable(np.zeros((3, 2), np.float32), name="w"), tw.Variable(np.zeros(2), name="b")]

    _restore_expecting(tmp_path, path, wrong_shape, tw.errors.InvalidArgumentError, r"'w'.*\[2,3\].*\[3,2\]")

    def wrong_dtype():
        return [tw.Variable(np.zeros((2, 3), np.float32), name="w"), tw.Variable(np.zeros(2, np.float32), name="b")]

    _restore_expecting(tmp_path, path, wrong_dtype, tw.errors.InvalidArgumentError, "'b'.*float64, but float32")


def test_raw_save_and_restore_ops(tmp_path):
    from tensorweave._src.ops import io_ops

    prefix = str(tmp_path / "raw")
    with tw.Graph().as_default(), tw.Session() as sess:
        save = io_ops.save_v2(prefix, ["a", "b"], ["", ""], [tw.constant([1, 2]), tw.constant(3.0)])
        assert save.type == "SaveV2"
        sess.run(save)
        a, b = io_ops.restore_v2(prefix, ["a", "b"], ["", ""], [tw.int32, tw.float32])
        assert a.op.type == "RestoreV2"
        np.testing.assert_array_equal(sess.run(a), [1, 2])
        assert sess.run(b) == 3.0
        # A slice must have the shape its shape_and_slice gives (partitioned variables are saved in slices).
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"shape \[2\], not that of its slice '2 0,1'"):
            sess.run(io_ops.save_v2(prefix, ["a"], ["2 0,1"], [tw.constant([1, 2])]))
        with pytest.raises(tw.errors.InvalidArgumentError, match="bad shape_and_slice '2 0,3'"):
            sess.run(io_ops.save_v2(prefix, ["a"], ["2 0,3"], [tw.constant([1, 2])]))
        with pytest.raises(tw.errors.InvalidArgumentError, match="expected 2 tensor_names"):
            sess.run(io_ops.save_v2(prefix, ["a"], [""], [tw.constant(1), tw.constant(2)]))


def _adam_model():
    rng = np.random.default_rng(0)
    x_np = rng.normal(size=(16, 3)).astype(np.float32)
    y_np = x_np @ np.array([[1.0], [-1.0], [2.0]], np.float32)
    x, y = tw.constant(x_np), tw.constant(y_np)
    w = tw.Variable(tw.zeros([3, 1]), name="w")
    pred = tw.matmul(x, w)
    step = tw.train.get_or_create_global_step()
    train = tw.train.AdamOptimizer(0.05).minimize(pred, global_step=step, grad_loss=(pred - y) * (2.0 / 16))
    return train


def _all_values(sess):
    return {v.op.name: sess.run(v) for v in tw.global_variables()}


def test_resumed_training_is_bit_identical(tmp_path):
    # 10 uninterrupted steps of Adam.
    with tw.Graph().as_default():
        train = _adam_model()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for _ in range(10):
                sess.run(train)
            want = _all_values(sess)
    assert set(want) == {"w", "w/Adam", "w/Adam_1", "beta1_power", "beta2_power", "global_step"}
    # 5 steps, save, then restore in a new graph and session and run 5 more.
    with tw.Graph().as_default():
        train = _adam_model()
        saver = tw.train.Saver()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for _ in range(5):
                sess.run(train)
            saver.save(sess, str(tmp_path / "model.ckpt"), global_step=tw.train.get_global_step())
    with tw.Graph().as_default():
        train = _adam_model()
        saver = tw.train.Saver()
        with tw.Session() as sess:
            saver.restore(sess, tw.train.latest_checkpoint(str(tmp_path)))
            assert sess.run(tw.train.get_global_step()) == 5
            for _ in range(5):
                sess.run(train)
            got = _all_values(sess)
    for name in want:
        assert got[name].dtype == want[name].dtype
        assert got[name].tobytes() == want[name].tobytes(), name


def test_latest_checkpoint_of_a_relative_save_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with tw.Graph().as_default():
        _model()
        saver = tw.train.Saver()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            path = saver.save(sess, os.path.join("out", "m"), global_step=1)
    assert path == os.path.join("out", "m-1")
    latest = tw.train.latest_checkpoint("out")
    assert latest is not None and os.path.samefile(latest + ".safetensors", path + ".safetensors")
