"""TF1's program scaffolding against TensorFlow 1: tf.compat helpers, tf.logging levels and verbosity, tf.flags
parsing, tf.print's output (to a file), tf.py_function, tf.debugging aliases, tf.dtypes, tf.nest."""

import os
import tempfile

import numpy as np

from tests.fidelity.harness import case


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is the observation
        return type(e).__name__
    return "no error"


@case
def compat_conversions(tf, sess):
    c = tf.compat
    return [
        c.as_bytes("héllo"),
        c.as_bytes(b"x"),
        c.as_bytes(bytearray(b"ba")),
        c.as_text(b"h\xc3\xa9"),
        c.as_str("s"),
        c.as_str_any(b"b"),
        c.as_str_any(12),
        c.path_to_str("p/q"),
        _error(lambda: c.as_bytes(3)),
        _error(lambda: c.as_text(3)),
        isinstance(np.int8(3), c.integral_types),
        isinstance(2.5, c.real_types),
        isinstance(1j, c.complex_types),
        isinstance("s", c.bytes_or_text_types),
        c.forward_compatible(2019, 1, 1),
        c.forward_compatible(2099, 1, 1),
        c.dimension_value(tf.TensorShape([None, 3])[1]),
        c.dimension_at_index(tf.TensorShape([2, 5]), 1).value,
        c.v1.placeholder is tf.placeholder,
    ]


@case
def compat_forward_compatibility_horizon(tf, sess):
    with tf.compat.forward_compatibility_horizon(2099, 6, 1):
        inside = [tf.compat.forward_compatible(2099, 5, 31), tf.compat.forward_compatible(2099, 6, 1)]
    return [inside, tf.compat.forward_compatible(2099, 5, 31)]


@case
def logging_levels_and_verbosity(tf, sess):
    lg = tf.logging
    before = lg.get_verbosity()
    lg.set_verbosity(lg.ERROR)
    after = lg.get_verbosity()
    lg.set_verbosity(before)
    return [lg.DEBUG, lg.INFO, lg.WARN, lg.ERROR, lg.FATAL, after, callable(lg.log_every_n), callable(lg.vlog)]


def _flag_values(tf):
    fv = tf.flags.FlagValues()
    tf.flags.DEFINE_string("name", "anon", "a string", flag_values=fv)
    tf.flags.DEFINE_integer("steps", 10, "an int", flag_values=fv)
    tf.flags.DEFINE_float("lr", 0.5, "a float", flag_values=fv)
    tf.flags.DEFINE_boolean("fast", False, "a bool", flag_values=fv)
    tf.flags.DEFINE_bool("verbose", True, "a bool", flag_values=fv)
    tf.flags.DEFINE_enum("mode", "train", ["train", "eval"], "an enum", flag_values=fv)
    tf.flags.DEFINE_list("tags", "a,b", "a list", flag_values=fv)
    tf.flags.DEFINE_multi_string("inc", [], "repeated", flag_values=fv)
    return fv


@case
def flags_parse(tf, sess):
    fv = _flag_values(tf)
    unparsed = _error(lambda: fv.steps)
    rest = fv(
        [
            "prog",
            "--name=bob",
            "--steps",
            "3",
            "--lr=0.25",
            "--fast",
            "--noverbose",
            "--mode=eval",
            "--tags=x,y",
            "--inc=a",
            "--inc",
            "b",
            "pos",
            "--",
            "--steps=9",
        ]
    )
    return [
        unparsed,
        rest,
        fv.name,
        fv.steps,
        fv.lr,
        fv.fast,
        fv.verbose,
        fv.mode,
        fv.tags,
        fv.inc,
        fv["steps"].default,
        sorted(fv.flag_values_dict().items()),
    ]


@case
def flags_errors(tf, sess):
    def parse(args):
        fv = _flag_values(tf)
        return lambda: fv(["prog"] + args)

    fv = _flag_values(tf)
    tf.flags.DEFINE_string("needed", None, "required", flag_values=fv)
    tf.flags.mark_flag_as_required("needed", flag_values=fv)
    return [
        _error(parse(["--unknown=1"])),
        _error(parse(["--steps=abc"])),
        _error(parse(["--mode=test"])),
        _error(parse(["--fast=maybe"])),
        _error(lambda: fv(["prog"])),
        _error(lambda: tf.flags.DEFINE_string("name", "x", "again", flag_values=fv)),
        fv(["prog", "--needed=yes"]),
        issubclass(tf.flags.UnrecognizedFlagError, tf.flags.Error),
        issubclass(tf.flags.IllegalFlagValueError, tf.flags.Error),
    ]


@case
def app_run_calls_main_with_remaining_args(tf, sess):
    seen = []

    def main(argv):
        seen.append(list(argv))
        return 7

    try:
        tf.app.run(main, argv=["prog", "extra", "--undefined_flag_xyz=1"])
    except SystemExit as e:
        return [seen, e.code, tf.app.flags is tf.flags]
    return "no exit"


@case
def print_to_file(tf, sess):
    path = os.path.join(tempfile.mkdtemp(), "out.txt")
    x = tf.constant(np.arange(10, dtype=np.float32) / 4)
    ops = [
        tf.print("x:", x, output_stream="file://" + path),
        tf.print(x, summarize=-1, sep="|", end="!\n", output_stream="file://" + path),
        tf.print(
            {"k": tf.constant(3), "j": [tf.constant("s"), "t"]},
            tf.constant([[True, False]]),
            output_stream="file://" + path,
        ),
        tf.print(tf.constant(np.arange(24).reshape(2, 3, 4)), summarize=1, output_stream="file://" + path),
    ]
    for op in ops:
        sess.run(op)
    with tf.control_dependencies([tf.print("dep", output_stream="file://" + path)]):
        y = tf.identity(3)
    v = sess.run(y)
    with open(path) as f:
        return [f.read(), v, isinstance(ops[0], tf.Operation)]


@case
def py_function_values(tf, sess):
    x = tf.constant([1.0, 2.0])
    one = tf.py_function(lambda a: np.asarray(a) * 2, [x], tf.float32)
    two = tf.py_function(lambda a, b: (np.asarray(a) + 1, np.int32(b)), [x, 3], [tf.float32, tf.int32])
    return [one, two]


@case
def debugging_and_dtypes_and_nest(tf, sess):
    x = tf.constant([1.0, np.nan, np.inf])
    ok = tf.debugging.assert_all_finite(tf.constant([1.0]), "bad")
    bad = tf.debugging.assert_all_finite(x, "bad")
    Pair = __import__("collections").namedtuple("Pair", "a b")
    nested = {"z": [1, (2, 3)], "a": Pair(4, [5])}
    return [
        tf.debugging.is_nan(x),
        tf.debugging.is_inf(x),
        tf.debugging.is_finite(x),
        ok,
        _error(lambda: sess.run(bad)),
        _error(lambda: sess.run(tf.debugging.assert_equal(tf.constant(1), tf.constant(2)))),
        tf.dtypes.as_dtype("int64") == tf.int64,
        tf.dtypes.float32 is tf.float32,
        tf.dtypes.cast(tf.constant([1.7]), tf.dtypes.int32),
        tf.nest.flatten(nested),
        tf.nest.pack_sequence_as(nested, list(range(6))),
        tf.nest.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)]),
        tf.nest.is_nested([1]),
        tf.nest.is_nested("s"),
        _error(lambda: tf.nest.assert_same_structure([1, 2], [1])),
        _error(lambda: tf.nest.assert_same_structure([1, 2], (1, 2))),
        tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False),
        _error(lambda: tf.nest.pack_sequence_as([1, 2], [1])),
        tf.nest.flatten(None),
    ]
