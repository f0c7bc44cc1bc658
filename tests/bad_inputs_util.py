"""Shared by tests/test_bad_inputs_*.py: run the same program on tensorweave and (when installed) on
tensorflow.compat.v1, and compare the errors they raise."""

import pytest

try:  # TensorFlow is the oracle for error classes where it has the API; the tests skip that half without it
    import tensorflow.compat.v1 as tf1
except ImportError:  # pragma: no cover - TF is a test dependency
    tf1 = None


def error_of(tf, build, feed=None):
    """The exception `build(tf)` raises while building, or its fetches while running (None when neither
    raises). Runs in a fresh graph and session of `tf`; `feed(fetches)` gives the feed_dict."""
    with tf.Graph().as_default() as graph:
        sess = tf.Session(graph=graph)
        try:
            fetches = build(tf)
            sess.run(fetches, feed(fetches) if feed else None)
        except Exception as error:  # noqa: BLE001 - the error is the result
            return error
        finally:
            sess.close()
    return None


def expect_error(tw, build, error_class, *fragments, feed=None, tf_class=None, oracle=True):
    """Asserts that tensorweave raises `error_class` with each fragment in its message; with TF installed,
    that TF raises `tf_class` (a class, or the name of a class in tf.errors; default: `error_class`'s name).
    oracle=False skips TF where it is too slow to ask (its allocator retries a failed allocation for ~10 s)."""
    error = error_of(tw, build, feed)
    assert isinstance(error, error_class), repr(error)
    for fragment in fragments:
        assert fragment in str(error), str(error)
    if tf1 is not None and oracle:
        expected = tf_class or (error_class if error_class.__module__ == "builtins" else error_class.__name__)
        if isinstance(expected, str):
            expected = getattr(tf1.errors, expected)
        tf_error = error_of(tf1, build, feed)
        assert isinstance(tf_error, expected), f"TF raised {tf_error!r}, not {expected}"
    return error


def need_tf():
    if tf1 is None:
        pytest.skip("tensorflow is not installed")
    return tf1
