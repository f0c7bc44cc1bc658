"""Checkpoints against hostile names and files: prefixes with newlines,
quotes or NUL, corrupt "checkpoint" state files, and FIFOs, directories or
sockets in place of checkpoint files. Nothing may crash, hang or make the
directory unusable; every refusal is the right error class and names the
file or the node.

Anything that could block (a FIFO) runs in a subprocess with a timeout, so
a regression fails the test instead of hanging the suite."""

import logging
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorweave as tw


def _save(directory, name, value=1.0):
    with tw.Graph().as_default():
        w = tw.Variable([value, 2.0], name="w")
        saver = tw.train.Saver()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            return saver.save(sess, os.path.join(str(directory), name))


def _restore(path):
    with tw.Graph().as_default():
        w = tw.Variable([0.0, 0.0], name="w")
        saver = tw.train.Saver()
        with tw.Session() as sess:
            saver.restore(sess, path)
            return sess.run(w)


@pytest.mark.parametrize("name", ["a\nb", "tab\there", 'q"uote', "back\\slash", "ctl\x01x", "ünï"])
def test_prefix_with_special_characters_round_trips_like_tf(tmp_path, name):
    # TensorFlow 1 saves these and finds them again (its state file escapes
    # them in text format); so does tensorweave.
    path = _save(tmp_path, name, value=5.0)
    assert path == str(tmp_path / name)
    assert tw.train.latest_checkpoint(str(tmp_path)) == path
    state = tw.train.get_checkpoint_state(str(tmp_path))
    assert state.all_model_checkpoint_paths == [path]
    np.testing.assert_array_equal(_restore(tw.train.latest_checkpoint(str(tmp_path))), [5.0, 2.0])
    # One line per entry: the newline is escaped, not written.
    assert len((tmp_path / "checkpoint").read_text(encoding="utf-8").splitlines()) == 2


def test_state_file_escapes_are_tensorflows(tmp_path):
    with tw.Graph().as_default():
        tw.Variable([1.0], name="w")
        saver = tw.train.Saver()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            for name in ["a\nb", 'q"x', "ctl\x01x"]:
                saver.save(sess, str(tmp_path / name))
    text = (tmp_path / "checkpoint").read_text(encoding="utf-8")
    d = str(tmp_path)
    # What TensorFlow 1.x writes for the same saves (text_format escapes).
    assert text == (
        f'model_checkpoint_path: "{d}/ctl\\001x"\n'
        f'all_model_checkpoint_paths: "{d}/a\\nb"\n'
        f'all_model_checkpoint_paths: "{d}/q\\"x"\n'
        f'all_model_checkpoint_paths: "{d}/ctl\\001x"\n'
    )


def test_reads_a_state_file_written_by_tensorflow(tmp_path):
    # Escapes exactly as TensorFlow 2.21's compat.v1 Saver wrote them.
    (tmp_path / "checkpoint").write_text(
        'model_checkpoint_path: "tab\\tx"\n'
        'all_model_checkpoint_paths: "a\\nb"\n'
        'all_model_checkpoint_paths: "q\\"x"\n'
        'all_model_checkpoint_paths: "oct\\101\\x42"\n'
        'all_model_checkpoint_paths: "tab\\tx"\n',
        encoding="utf-8",
    )
    state = tw.train.get_checkpoint_state(str(tmp_path))
    d = str(tmp_path)
    assert state.model_checkpoint_path == os.path.join(d, "tab\tx")
    assert state.all_model_checkpoint_paths == [os.path.join(d, p) for p in ["a\nb", 'q"x', "octAB", "tab\tx"]]


def test_prefix_with_nul_is_refused_before_writing(tmp_path):
    good = _save(tmp_path, "good")
    with tw.Graph().as_default():
        tw.Variable([1.0], name="w")
        saver = tw.train.Saver()
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            with pytest.raises(ValueError, match="NUL character"):
                saver.save(sess, str(tmp_path / "bad\x00name"))
    assert sorted(os.listdir(tmp_path)) == sorted(["checkpoint", "good.manifest.json", "good.meta", "good.safetensors"])
    assert tw.train.latest_checkpoint(str(tmp_path)) == good


@pytest.mark.parametrize("op_name", ["SaveV2", "RestoreV2"])
def test_io_ops_refuse_a_prefix_with_nul(tmp_path, op_name):
    # The ops themselves (a prefix fed past the Saver): InvalidArgument
    # naming the node, and no file written under the truncated name.
    with tw.Graph().as_default():
        tw.Variable([1.0], name="w")
        saver = tw.train.Saver()
        op = saver._save_op if op_name == "SaveV2" else saver._restore_op
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            with pytest.raises(tw.errors.InvalidArgumentError, match="prefix contains a NUL") as info:
                sess.run(op, {saver._filename_tensor: str(tmp_path / "x\x00y")})
    assert f"save/{op_name}" in str(info.value)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "content",
    [
        b"garbage\n",
        b'model_checkpoint_path: "unterminated\n',
        b'model_checkpoint_path: "bad \\q escape"\n',
        b'model_checkpoint_path: "nul\\000inside"\n',
        b'all_model_checkpoint_paths: "no model path"\n',
        b'model_checkpoint_path: "x"\nunknown_field: "y"\n',
        b"\xff\xfe\x00\x01",
        b"",
    ],
)
def test_corrupt_state_file_is_ignored_with_a_warning(tmp_path, caplog, content):
    # TensorFlow 1 logs "Checkpoint ignored" and returns None; so do we.
    (tmp_path / "checkpoint").write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="tensorweave"):
        assert tw.train.get_checkpoint_state(str(tmp_path)) is None
        assert tw.train.latest_checkpoint(str(tmp_path)) is None
    assert str(tmp_path / "checkpoint") in caplog.text
    # The directory stays usable: the next save rewrites the state file.
    path = _save(tmp_path, "next")
    assert tw.train.latest_checkpoint(str(tmp_path)) == path


def test_state_file_that_is_a_directory_is_ignored(tmp_path, caplog):
    (tmp_path / "checkpoint").mkdir()
    with caplog.at_level(logging.WARNING, logger="tensorweave"):
        assert tw.train.latest_checkpoint(str(tmp_path)) is None
    assert "not a regular file" in caplog.text


def _run_isolated(code, timeout=120):
    """Runs `code` in a fresh interpreter; a hang fails instead of blocking."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"blocked for over {timeout} s (a FIFO was opened for reading)")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_state_file_that_is_a_fifo_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "checkpoint")
    out = _run_isolated(
        f"""
        import tensorweave as tw
        print(tw.train.latest_checkpoint({str(tmp_path)!r}))
        """
    )
    assert out.strip() == "None"


@pytest.mark.parametrize("suffix", [".safetensors", ".manifest.json"])
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_restore_refuses_a_non_regular_checkpoint_file(tmp_path, suffix, kind):
    path = _save(tmp_path, "model.ckpt")
    target = path + suffix
    os.remove(target)
    if kind == "fifo":
        os.mkfifo(target)
    else:
        os.mkdir(target)
    out = _run_isolated(
        f"""
        import tensorweave as tw
        with tw.Graph().as_default():
            w = tw.Variable([0.0, 0.0], name="w")
            saver = tw.train.Saver()
            with tw.Session() as sess:
                try:
                    saver.restore(sess, {path!r})
                except tw.errors.DataLossError as e:
                    print("DataLossError:", e)
                else:
                    print("restored", sess.run(w))
        """
    )
    described = "a FIFO" if kind == "fifo" else "a directory"
    assert out.startswith("DataLossError:"), out
    assert f"{target} is not a regular file (it is {described})" in out
    assert "save/RestoreV2" in out
