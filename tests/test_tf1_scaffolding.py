"""TF1 program scaffolding: tw.logging, tw.compat, tw.app/tw.flags (lazy parsing of sys.argv, app.run's exit
status), tw.print, tw.py_function, tw.version, tw.nest. (Values against TensorFlow are in
tests/fidelity/cases_tf1_scaffolding.py.)"""

import io
import logging
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw


def test_compat_v1_is_tensorweave():
    import tensorweave.compat.v1 as tf1

    assert tf1 is tw and tw.compat.v1 is tw
    assert tw.compat.v1.placeholder is tw.placeholder


def test_compat_v2_where_is_where_v2():
    """tf.compat.v2.where broadcasts its three arguments (TF2's where_v2); the rest of compat.v2 is tensorweave's
    (TF's where_v2 and v2.where are one function)."""
    import tensorweave.compat.v2 as tf2

    assert tf2 is tw.compat.v2 and tf2.where is tw.where_v2 and tf2.placeholder is tw.placeholder
    assert "where" in dir(tf2) and "placeholder" in dir(tf2)
    with tw.Graph().as_default(), tw.Session() as sess:
        got = sess.run(tf2.where([[True], [False]], [1.0, 2.0, 3.0], 0.0))
        assert got.tolist() == [[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]
        with pytest.raises(ValueError):
            tw.compat.v1.where([[True], [False]], [1.0, 2.0, 3.0], [0.0])


def test_logging_respects_verbosity(caplog):
    before = tw.logging.get_verbosity()
    try:
        tw.logging.set_verbosity(tw.logging.ERROR)
        with caplog.at_level(logging.DEBUG, logger="tensorweave"):
            tw.logging.set_verbosity(tw.logging.ERROR)
            tw.logging.info("hidden")
            tw.logging.error("shown %d", 1)
            tw.logging.set_verbosity(tw.logging.INFO)
            for i in range(5):
                tw.logging.log_every_n(tw.logging.INFO, "every %d", 2, i)
            for i in range(5):
                tw.logging.log_first_n(tw.logging.INFO, "first %d", 2, i)
            tw.logging.log_if(tw.logging.INFO, "if", False)
            tw.logging.TaskLevelStatusMessage("status")
            tw.logging.flush()
        messages = [r.getMessage() for r in caplog.records]
        assert "hidden" not in messages and "shown 1" in messages
        assert [m for m in messages if m.startswith("every")] == ["every 0", "every 2", "every 4"]
        assert [m for m in messages if m.startswith("first")] == ["first 0", "first 1"]
        assert "if" not in messages and "status" in messages
    finally:
        tw.logging.set_verbosity(before)


def _run_script(body, *args):
    script = "import tensorweave as tf\n" + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_flags_parse_sys_argv_lazily_and_app_run_exits_with_main():
    out = _run_script(
        """
        tf.app.flags.DEFINE_integer("steps", 1, "steps")
        tf.flags.DEFINE_string("name", "x", "name")
        FLAGS = tf.flags.FLAGS
        def main(argv):
            print(FLAGS.steps, FLAGS.name, argv[1:])
            return 3
        tf.app.run()
        """,
        "--steps",
        "4",
        "--name=bob",
        "rest",
    )
    assert out.returncode == 3, out.stderr
    assert out.stdout.strip() == "4 bob ['rest']"


def test_flags_unparsed_access_and_errors():
    fv = tw.flags.FlagValues()
    tw.flags.DEFINE_integer("n", 2, "n", lower_bound=0, flag_values=fv)
    with pytest.raises(tw.flags.UnparsedFlagAccessError):
        _ = fv.n
    with pytest.raises(tw.flags.IllegalFlagValueError):
        fv(["p", "--n=-1"])
    with pytest.raises(tw.flags.UnrecognizedFlagError):
        fv(["p", "--m=1"])
    assert fv(["p", "--n=0x10"]) == ["p"] and fv.n == 16
    fv.n = 5
    assert fv.n == 5


def test_print_writes_stream_and_orders_with_control_dependencies():
    buf = io.StringIO()
    with tw.Graph().as_default(), tw.Session() as sess:
        x = tw.constant([1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0])
        op = tw.print("x:", x, output_stream=buf)
        assert isinstance(op, tw.Operation)
        with tw.control_dependencies([op]):
            y = tw.identity(x)
        sess.run(y)
    assert buf.getvalue() == "x: [1 2.5 3 ... 5 6 7]\n"


def test_print_rejects_bad_stream():
    with tw.Graph().as_default(), pytest.raises(ValueError):
        tw.print("a", output_stream="nowhere")


def test_py_function():
    with tw.Graph().as_default(), tw.Session() as sess:
        y = tw.py_function(lambda a: np.asarray(a) + 1, [tw.constant([1, 2])], tw.int32)
        np.testing.assert_array_equal(sess.run(y), [2, 3])


def test_version_names():
    assert tw.VERSION == tw.__version__ == tw.version.VERSION
    assert isinstance(tw.GIT_VERSION, str) and isinstance(tw.version.COMPILER_VERSION, str)
    assert tw.version.GRAPH_DEF_VERSION == tw.GRAPH_DEF_VERSION


def test_nest_roundtrip():
    s = {"b": [1, (2, 3)], "a": 4}
    flat = tw.nest.flatten(s)
    assert flat == [4, 1, 2, 3]
    assert tw.nest.pack_sequence_as(s, flat) == s
    with pytest.raises(ValueError):
        tw.nest.assert_same_structure([1, [2]], [1, 2])
