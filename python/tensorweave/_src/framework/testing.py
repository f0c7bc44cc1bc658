"""TF1's `tf.test.TestCase` and friends, in graph mode on tensorweave's Session (TF's test_util.py; named so
that pytest, which collects test_*.py, does not take this module for a test file).

A test class written for TF1 (`class FooTest(tf.test.TestCase)`, `with self.cached_session():`, `x.eval()`,
`self.evaluate(...)`, `self.assertAllClose(...)`) runs unchanged against `tw.test.TestCase`: each test starts
with a fresh default graph and the graph-level seed TF uses, and the sessions it opens are the default session
and graph inside their `with` blocks.
"""

import atexit
import collections.abc
import contextlib
import copy
import math
import os
import random
import re
import shutil
import sys
import tempfile
import threading
import unittest

import numpy as np

from tensorweave._src.client import device_lib
from tensorweave._src.client import session as session_lib
from tensorweave._src.client import session_config
from tensorweave._src.framework import device_spec
from tensorweave._src.framework import errors
from tensorweave._src.framework import misc_api
from tensorweave._src.framework import ops
from tensorweave._src.framework import random_seed
from tensorweave._src.platform import gpu_loader

__all__ = [
    "TestCase",
    "assert_equal_graph_def",
    "get_temp_dir",
    "is_built_with_cuda",
    "is_built_with_gpu_support",
    "is_built_with_rocm",
    "is_built_with_xla",
    "main",
]

_temp_dir = None


def get_temp_dir():
    """A temporary directory for this test process (TF's `tf.test.get_temp_dir`): made once, under
    `$TEST_TMPDIR` when set, and removed at exit.

    Example:
      >>> import os, tensorweave as tw
      >>> os.path.isdir(tw.test.get_temp_dir())
      True
    """
    global _temp_dir
    if _temp_dir is None:
        script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "tensorweave_test"
        prefix = re.sub(r"[^A-Za-z0-9_.]", "", re.sub(r"\.py$", "", script)) + "_"
        root = os.environ.get("TEST_TMPDIR") or tempfile.gettempdir()
        os.makedirs(root, exist_ok=True)
        _temp_dir = tempfile.mkdtemp(prefix=prefix, dir=root)
        atexit.register(shutil.rmtree, _temp_dir, ignore_errors=True)
    return _temp_dir


def main(argv=None):
    """Runs the tests of the `__main__` module with unittest (TF's `tf.test.main`); a `--benchmarks=REGEX`
    argument runs the matching `tw.test.Benchmark` methods instead.

    Example (at the end of a test file):
      if __name__ == "__main__":
          tw.test.main()
    """
    from tensorweave._src.platform import benchmark

    argv = list(sys.argv if argv is None else argv)
    if benchmark.run_benchmarks_from_argv(argv):
        return
    unittest.main(module="__main__", argv=argv)


def is_built_with_cuda():
    """Whether this tensorweave has its CUDA GPU library (`libtensorweave_gpu.so`, built by
    `tools/build_gpu.sh` or `TW_CUDA=1 pip install .`), whether or not a GPU is present.

    Example:
      >>> import tensorweave as tw
      >>> isinstance(tw.test.is_built_with_cuda(), bool)
      True
    """
    return bool(gpu_loader._state["loaded"]) or os.path.exists(gpu_loader.default_library_path())


def is_built_with_rocm():
    """False: tensorweave has no ROCm device."""
    return False


def is_built_with_gpu_support():
    """Whether this tensorweave was built with a GPU device (CUDA or ROCm)."""
    return is_built_with_cuda() or is_built_with_rocm()


def is_built_with_xla():
    """False: tensorweave has no XLA compiler."""
    return False


def _summarize_node(node):
    inputs = ", ".join(node.input)
    return f"{node.name} = {node.op}[{', '.join(sorted(node.attr.keys()))}]({inputs})"


def _split_inputs(node):
    data = [i for i in node.input if not i.startswith("^")]
    control = sorted(i for i in node.input if i.startswith("^"))
    return data, control


def _node_diff(actual, expected):
    name = actual.name
    if actual.op != expected.op:
        return f"Node named '{name}' has op '{actual.op}' that is not expected '{expected.op}'"
    if device_spec.canonical_name(actual.device or None) != device_spec.canonical_name(expected.device or None):
        return f"Node named '{name}' has device '{actual.device}' that is not expected '{expected.device}'"
    a_data, a_control = _split_inputs(actual)
    e_data, e_control = _split_inputs(expected)
    if a_data != e_data or a_control != e_control:
        return (
            f"Node named '{name}' has inputs '{', '.join(actual.input)}' that don't match expected "
            f"'{', '.join(expected.input)}'"
        )
    for key in sorted(expected.attr.keys()):
        if key not in actual.attr:
            return f"Node named '{name}' missing expected attr '{key}' with value: {_short(expected.attr[key])}"
        if actual.attr[key] != expected.attr[key]:
            return (
                f"Node named '{name}' has attr '{key}' with value: {_short(actual.attr[key])} that does not "
                f"match expected: {_short(expected.attr[key])}"
            )
    for key in sorted(actual.attr.keys()):
        if key not in expected.attr:
            return f"Node named '{name}' has unexpected attr '{key}' with value: {_short(actual.attr[key])}"
    return None


def _short(message):
    from google.protobuf import text_format

    return text_format.MessageToString(message, as_one_line=True)


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """Asserts that two GraphDefs are the same up to the order of nodes, attrs and control inputs, and
    ignoring versions (TF1's `tf.test.assert_equal_graph_def`); nodes are matched by name. Raises
    AssertionError naming the first difference, TypeError for arguments that are not GraphDefs.

    Example:
      >>> import tensorweave as tw
      >>> g = tw.Graph()
      >>> with g.as_default():
      ...     _ = tw.constant(1.0, name="c")
      >>> tw.test.assert_equal_graph_def(g.as_graph_def(), g.as_graph_def())
    """
    from tensorweave._src.framework import graph_pb2

    del checkpoint_v2, hash_table_shared_name  # tensorweave's saver adds no randomized attrs or table names
    if not isinstance(actual, graph_pb2.GraphDef):
        raise TypeError(f"Expected tf.GraphDef for actual, got {type(actual).__name__}")
    if not isinstance(expected, graph_pb2.GraphDef):
        raise TypeError(f"Expected tf.GraphDef for expected, got {type(expected).__name__}")
    actual_nodes = {}
    for node in actual.node:
        actual_nodes[node.name] = node
    for node in expected.node:
        found = actual_nodes.pop(node.name, None)
        if found is None:
            raise AssertionError(f"Did not find expected node '{_summarize_node(node)}'")
        diff = _node_diff(found, node)
        if diff:
            raise AssertionError(diff)
    if actual_nodes:
        first = next(iter(actual_nodes.values()))
        raise AssertionError(f"Found unexpected node '{_summarize_node(first)}'")


def _is_repeated(field):
    if hasattr(field, "is_repeated"):  # protobuf >= 6 (`label` was removed)
        return field.is_repeated
    return field.label == field.LABEL_REPEATED


def _align_close_floats(expected, actual, rtol):
    """Sets each float field of `actual` that is within `rtol` (relative to the larger magnitude) of the
    same field of `expected` to the expected value, so that a text comparison sees only real differences."""
    from google.protobuf import descriptor

    fd = descriptor.FieldDescriptor
    floats = (fd.CPPTYPE_FLOAT, fd.CPPTYPE_DOUBLE)

    def close(a, b):  # only values that differ are replaced (so no unset oneof member gets set)
        return a != b and abs(a - b) <= rtol * max(abs(a), abs(b))

    for field in expected.DESCRIPTOR.fields:
        e_val, a_val = getattr(expected, field.name), getattr(actual, field.name)
        is_map = field.message_type is not None and field.message_type.GetOptions().map_entry
        if is_map:
            value_field = field.message_type.fields_by_name["value"]
            for key in set(e_val.keys()) & set(a_val.keys()):
                if value_field.cpp_type == fd.CPPTYPE_MESSAGE:
                    _align_close_floats(e_val[key], a_val[key], rtol)
                elif value_field.cpp_type in floats and close(e_val[key], a_val[key]):
                    a_val[key] = e_val[key]
        elif _is_repeated(field):
            for i in range(min(len(e_val), len(a_val))):
                if field.cpp_type == fd.CPPTYPE_MESSAGE:
                    _align_close_floats(e_val[i], a_val[i], rtol)
                elif field.cpp_type in floats and close(e_val[i], a_val[i]):
                    a_val[i] = e_val[i]
        elif field.cpp_type == fd.CPPTYPE_MESSAGE:
            if expected.HasField(field.name) and actual.HasField(field.name):
                _align_close_floats(e_val, a_val, rtol)
        elif (
            field.cpp_type in floats
            and close(e_val, a_val)
            and (field.containing_oneof is None or actual.HasField(field.name))
        ):
            setattr(actual, field.name, e_val)


class _CheckedThread:
    """A thread whose exception fails the test when it is joined (see `TestCase.checkedThread`)."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        self._testcase = testcase
        self._target = target
        self._args = () if args is None else args
        self._kwargs = {} if kwargs is None else kwargs
        self._thread = threading.Thread(target=self._protected_run)
        self._exception = None
        self._is_thread_joined = False

    def _protected_run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - reported by join()
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._is_thread_joined = True
        self._thread.join()
        if self._exception is not None:
            self._testcase.fail(f"Error in checkedThread: {self._exception}")

    def is_alive(self):
        return self._thread.is_alive()

    def check_termination(self):
        if self._is_thread_joined:
            if self.is_alive():
                raise RuntimeError(
                    "Thread was not joined with main thread, and is still running when the test finished."
                )
        else:
            self._testcase.fail("A checked thread was not joined.")


def _nd_array(value):
    try:
        return value if isinstance(value, np.ndarray) else np.array(value)
    except ValueError as e:  # a ragged nested list, as TF accepts it
        if "inhomogeneous shape" in str(e):
            return np.array(value, dtype=object)
        raise


class TestCase(unittest.TestCase):
    """TF1's `tf.test.TestCase` in graph mode: a `unittest.TestCase` whose tests each start with a fresh
    default graph (graph seed 87654321, and Python's and numpy's seeds set to it), with `session()`,
    `cached_session()`, `evaluate()` and TF's numeric assertions.

    Example:
      >>> import tensorweave as tw
      >>> class SquareTest(tw.test.TestCase):
      ...     def testSquare(self):
      ...         with self.cached_session():
      ...             self.assertAllEqual(tw.square([2, 3]).eval(), [4, 9])
      >>> import unittest
      >>> unittest.TextTestRunner(stream=open("/dev/null", "w")).run(
      ...     unittest.defaultTestLoader.loadTestsFromTestCase(SquareTest)).wasSuccessful()
      True
    """

    def __init__(self, methodName="runTest"):
        super().__init__(methodName)
        self._threads = []
        self._tempdir = None
        self._cached_session = None
        self._cached_graph = None
        self._cached_config = None
        self._cached_force_gpu = False

    def setUp(self):
        super().setUp()
        self._clear_cached_session()
        random.seed(random_seed.DEFAULT_GRAPH_SEED)
        np.random.seed(random_seed.DEFAULT_GRAPH_SEED)
        # A test that failed inside a `with graph.as_default()` may have left the stack non-empty.
        ops._default_graph_stack.stack.clear()
        ops.reset_default_graph()
        random_seed.set_random_seed(random_seed.DEFAULT_GRAPH_SEED)
        if self.id().endswith(".test_session"):  # the session helper below, not a test
            self.skipTest("Not a test.")

    def tearDown(self):
        for thread in self._threads:
            thread.check_termination()
        self._clear_cached_session()
        super().tearDown()

    def _clear_cached_session(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None

    def get_temp_dir(self):
        """A temporary directory for this test, the same on every call within it."""
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp(dir=get_temp_dir())
        return self._tempdir

    # --- sessions ---------------------------------------------------------------------------------------
    def _create_session(self, graph, config, force_gpu):
        """A session as TF's tests get one: soft placement unless `force_gpu`, and no constant folding (so
        that the kernels under test run, not the folder)."""
        if config is None:
            config = session_config.ConfigProto(allow_soft_placement=not force_gpu)
        else:
            config = copy.deepcopy(config)
            if force_gpu:
                config.allow_soft_placement = False
        config.graph_options.optimizer_options.opt_level = session_config.OptimizerOptions.L0
        config.graph_options.rewrite_options.constant_folding = session_config.RewriterConfig.OFF
        return session_lib.Session(graph=graph, config=config)

    def _get_cached_session(self, graph, config, force_gpu, crash_if_inconsistent_args):
        if self._cached_session is None:
            self._cached_session = self._create_session(graph, config, force_gpu)
            self._cached_graph, self._cached_config, self._cached_force_gpu = graph, config, force_gpu
            return self._cached_session
        if crash_if_inconsistent_args:
            for what, cached, given in (
                ("graph", self._cached_graph, graph),
                ("config", self._cached_config, config),
                ("force_gpu value", self._cached_force_gpu, force_gpu),
            ):
                if cached is not given:
                    raise ValueError(
                        f"The {what} used to get the cached session is different than the one that was used "
                        "to create the session. Maybe create a new session with self.session()"
                    )
        return self._cached_session

    @contextlib.contextmanager
    def _constrain_devices_and_set_default(self, sess, use_gpu, force_gpu):
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device(device_lib.gpu_device_name() or "/device:GPU:0"):
                    yield sess
            elif use_gpu:
                yield sess
            else:
                with sess.graph.device("/device:CPU:0"):
                    yield sess

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """A new session, closed at the end of the `with`, that is the default session and whose graph is
        the default graph inside it. `force_gpu` pins ops to the GPU (no soft placement); `use_gpu=False`
        pins them to the CPU."""
        with (
            self._create_session(graph, config, force_gpu) as sess,
            self._constrain_devices_and_set_default(sess, use_gpu, force_gpu),
        ):
            yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """Like `session()`, but one session per test, closed in tearDown; asking for it again with a
        different graph, config or force_gpu is a ValueError."""
        sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=True)
        with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
            yield cached

    @contextlib.contextmanager
    def test_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """Deprecated: use `cached_session()` (which this is, without the consistency checks), or
        `session()` when `graph` is given."""
        if self.id().endswith(".test_session"):
            self.skipTest(
                'Tests that have the name "test_session" are automatically skipped by TensorFlow test '
                "fixture, as the name is reserved for creating sessions within tests. Please rename your "
                "test if you have a test with this name."
            )
        if graph is None:
            sess = self._get_cached_session(graph, config, force_gpu, crash_if_inconsistent_args=False)
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
                yield cached
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors):
        """The values of `tensors` (a tensor or a nested list/tuple/dict of them) as numpy, run in the default
        session, or in the test's cached session when there is none."""
        sess = ops.get_default_session()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    def checkedThread(self, target, args=None, kwargs=None):
        """A thread wrapper whose `join()` fails the test if `target` raised; every one must be joined
        before the test ends."""
        thread = _CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # --- array assertions -------------------------------------------------------------------------------
    def evaluate_if_both_tensors(self, a, b):
        if misc_api.is_tensor(a) and misc_api.is_tensor(b):
            return self.evaluate((a, b))
        return a, b

    def _GetNdArray(self, a):
        if misc_api.is_tensor(a):
            a = self.evaluate(a)
        return _nd_array(a)

    def _assertArrayLikeAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        a, b = self.evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape} with contents {b}."
        else:
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape}."
        self.assertEqual(a.shape, b.shape, shape_msg)
        if np.allclose(a, b, rtol=rtol, atol=atol):
            return
        msgs = [msg]
        cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
        if a.ndim:
            where = np.where(cond)
            x, y = a[where], b[where]
            msgs.append(f"not close where = {where}")
        else:
            x, y = a, b
        msgs.append(f"not close lhs = {x}")
        msgs.append(f"not close rhs = {y}")
        msgs.append(f"not close dif = {np.abs(x - y)}")
        msgs.append(f"not close tol = {atol + rtol * np.abs(y)}")
        msgs.append(f"dtype = {a.dtype}, shape = {a.shape}")
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(map(str, msgs)), equal_nan=True)

    def _assertAllCloseRecursive(self, a, b, rtol=1e-6, atol=1e-6, path=None, msg=None):
        path = path or []
        path_str = ("[" + "][".join(str(p) for p in path) + "]") if path else ""
        msg = msg if msg else ""
        if hasattr(a, "_asdict"):
            a = a._asdict()
        if hasattr(b, "_asdict"):
            b = b._asdict()
        a_is_dict = isinstance(a, collections.abc.Mapping)
        if a_is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{path_str} vs b{path_str}. {msg}")
        if a_is_dict:
            self.assertCountEqual(
                a.keys(),
                b.keys(),
                msg=f"mismatched keys: a{path_str} has keys {a.keys()}, but b{path_str} has keys {b.keys()}. {msg}",
            )
            for k in a:
                path.append(k)
                self._assertAllCloseRecursive(a[k], b[k], rtol=rtol, atol=atol, path=path, msg=msg)
                del path[-1]
        elif isinstance(a, (list, tuple)):
            # Compare as arrays when both convert to one; else item by item.
            try:
                a, b = self.evaluate_if_both_tensors(a, b)
                a_array, b_array = self._GetNdArray(a), self._GetNdArray(b)
                self._assertArrayLikeAllClose(
                    a_array,
                    b_array,
                    rtol=rtol,
                    atol=atol,
                    msg=f"Mismatched value: a{path_str} is different from b{path_str}. {msg}",
                )
            except (ValueError, TypeError, NotImplementedError):
                if len(a) != len(b):
                    raise ValueError(
                        f"Mismatched length: a{path_str} has {len(a)} items, but b{path_str} has {len(b)} items. {msg}"
                    ) from None
                for idx, (a_ele, b_ele) in enumerate(zip(a, b)):
                    path.append(str(idx))
                    self._assertAllCloseRecursive(a_ele, b_ele, rtol=rtol, atol=atol, path=path, msg=msg)
                    del path[-1]
        else:
            try:
                self._assertArrayLikeAllClose(
                    a,
                    b,
                    rtol=rtol,
                    atol=atol,
                    msg=f"Mismatched value: a{path_str} is different from b{path_str}. {msg}",
                )
            except TypeError as e:
                note = f"Error: a{path_str} has {type(a)}, but b{path_str} has {type(b)}. {msg}"
                e.args = ((str(e.args[0]) if e.args else "") + " : " + note,) + e.args[1:]
                raise

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Asserts that two (possibly nested: dict, namedtuple, tuple, list) structures of arrays or tensors
        are elementwise close: |a - b| <= atol + rtol * |b|. A failure names the mismatched elements; a
        structure mismatch is a ValueError."""
        self._assertAllCloseRecursive(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertAllCloseAccordingToType(
        self,
        a,
        b,
        rtol=1e-6,
        atol=1e-6,
        float_rtol=1e-6,
        float_atol=1e-6,
        half_rtol=1e-3,
        half_atol=1e-3,
        bfloat16_rtol=1e-2,
        bfloat16_atol=1e-2,
        msg=None,
    ):
        """assertAllClose with the tolerance raised to `float_*` for float32/complex64 and to `half_*` for
        float16 (and `bfloat16_*` for bfloat16) arguments."""
        a, b = self.evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        kinds = {a.dtype, b.dtype}
        if kinds & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in kinds:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if any(d.name == "bfloat16" for d in kinds):
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """Asserts that a and b are not close at every element."""
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)
        except AssertionError:
            return
        raise AssertionError(f"The two values are close at all elements. {msg or ''}")

    def assertAllEqual(self, a, b, msg=None):
        """Asserts that two arrays or tensors have the same shape and values (NaN equals NaN)."""
        msg = msg if msg else ""
        a, b = self.evaluate_if_both_tensors(a, b)
        a, b = self._GetNdArray(a), self._GetNdArray(b)
        if b.ndim <= 3 or b.size < 500:
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape}. Contents: {b!r}. \n{msg}."
        else:
            shape_msg = f"Shape mismatch: expected {a.shape}, got {b.shape}. {msg}"
        self.assertEqual(a.shape, b.shape, shape_msg)
        same = a == b
        if np.issubdtype(a.dtype, np.floating):
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if np.all(same):
            return
        msgs = [msg]
        diff = np.logical_not(same)
        if a.ndim:
            where = np.where(diff)
            x, y = a[where], b[where]
            msgs.append(f"not equal where = {where}")
        else:
            x, y = a, b
        msgs.append(f"not equal lhs = {x!r}")
        msgs.append(f"not equal rhs = {y!r}")
        if a.dtype.kind != b.dtype.kind and {a.dtype.kind, b.dtype.kind} <= {"U", "S", "O"}:
            # Compare str and bytes element by element as bytes, as TF does.
            def as_bytes(arr):
                items = [i.encode("utf-8") if isinstance(i, str) else i for i in arr.flat]
                return np.array(items).reshape(arr.shape)

            a, b = as_bytes(a), as_bytes(b)
        np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertNotAllEqual(self, a, b, msg=None):
        """Asserts that a and b differ somewhere."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(f"The two values are equal at all elements. {msg or ''}")

    def assertAllGreater(self, a, comparison_target):
        """Asserts that every element of a is > comparison_target."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):
        """Asserts that every element of a is < comparison_target."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):
        """Asserts that every element of a is >= comparison_target."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):
        """Asserts that every element of a is <= comparison_target."""
        a, comparison_target = self.evaluate_if_both_tensors(a, comparison_target)
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def _format_subscripts(self, subscripts, value, limit=10, indent=2):
        prefix = " " * indent
        if np.ndim(value) == 0:
            return [prefix + "[0] : " + str(value)]
        subscripts = np.transpose(subscripts)
        lines = [prefix + str(s) + " : " + str(value[tuple(s)]) for s in subscripts[:limit]]
        if len(subscripts) > limit:
            lines.append(prefix + "...")
        return lines

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False, open_upper_bound=False):
        """Asserts that every element of target is in [lower_bound, upper_bound] (an end is open when its
        `open_*` is True); NaNs and non-numeric dtypes fail."""
        target = self._GetNdArray(target)
        if not (np.issubdtype(target.dtype, np.floating) or np.issubdtype(target.dtype, np.integer)):
            raise AssertionError(
                f"The value of {target} does not have an ordered numeric type, instead it has type: {target.dtype}"
            )
        nan_subscripts = np.where(np.isnan(target))
        if np.size(nan_subscripts):
            raise AssertionError(
                f"{len(nan_subscripts[0])} of the {np.size(target)} element(s) are NaN. "
                "Subscripts(s) and value(s) of the NaN element(s):\n"
                + "\n".join(self._format_subscripts(nan_subscripts, target))
            )
        range_str = (
            ("(" if open_lower_bound else "[") + f"{lower_bound}, {upper_bound}" + (")" if open_upper_bound else "]")
        )
        below = np.less_equal(target, lower_bound) if open_lower_bound else np.less(target, lower_bound)
        above = np.greater_equal(target, upper_bound) if open_upper_bound else np.greater(target, upper_bound)
        violations = np.where(np.logical_or(below, above))
        if np.size(violations):
            raise AssertionError(
                f"{len(violations[0])} of the {np.size(target)} element(s) are outside the range {range_str}. "
                "Subscript(s) and value(s) of the offending elements:\n"
                + "\n".join(self._format_subscripts(violations, target))
            )

    def assertAllInSet(self, target, expected_set):
        """Asserts that every element of target is in expected_set (a list, tuple or set)."""
        target = self._GetNdArray(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError(f"{np.size(diff)} unique element(s) are not in the set {expected_set}: {diff}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        """Asserts that two float sequences have the same length and each pair is within err."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNear(self, f1, f2, err, msg=None):
        """Asserts that |f1 - f2| <= err (equal infinities pass)."""
        f1, f2 = np.squeeze(f1), np.squeeze(f2)
        if f1 != f2:
            diff = math.fabs(f1 - f2)
            self.assertTrue(
                diff <= err,
                f"{f1:f} != {f2:f} +/- {err:f} (difference: {diff:g})" + (f" ({msg})" if msg is not None else ""),
            )

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):
        """Asserts that two arrays are elementwise within err."""
        self.assertTrue(np.linalg.norm(ndarray1 - ndarray2) < err, msg=msg)

    def assertShapeEqual(self, input_a, input_b, msg=None):
        """Asserts that two numpy arrays or tensors (their static shapes) have the same shape."""
        kinds = (np.ndarray, np.generic, ops.Tensor)
        for name, value in (("input_a", input_a), ("input_b", input_b)):
            if not isinstance(value, kinds):
                raise TypeError(
                    f"{name} must be a Numpy ndarray, Numpy scalar, or a Tensor.Instead received {type(value)}"
                )
        shape_a = input_a.get_shape().as_list() if isinstance(input_a, ops.Tensor) else input_a.shape
        shape_b = input_b.get_shape().as_list() if isinstance(input_b, ops.Tensor) else input_b.shape
        self.assertAllEqual(shape_a, shape_b, msg=msg)

    def assertDTypeEqual(self, target, expected_dtype):
        """Asserts that target's (numpy) dtype is expected_dtype."""
        self.assertEqual(self._GetNdArray(target).dtype, expected_dtype)

    def assertDeviceEqual(self, device1, device2, msg=None):
        """Asserts that two device names or DeviceSpecs name the same device ("/cpu:0" == "/device:CPU:0")."""
        device1 = device_spec.canonical_name(device1)
        device2 = device_spec.canonical_name(device2)
        self.assertEqual(device1, device2, f"Devices {device1} and {device2} are not equal. {msg}")

    def assertStartsWith(self, actual, expected_start, msg=None):
        """Asserts that actual.startswith(expected_start)."""
        if not actual.startswith(expected_start):
            fail_msg = f"{actual!r} does not start with {expected_start!r}"
            fail_msg += f" : {msg!r}" if msg else ""
            self.fail(fail_msg)

    # --- errors ---------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        """A context manager that expects an `exception_type` whose message matches the regex (re.search;
        for an OpError, its message followed by "Caused by: <op name>") or satisfies the predicate."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:

            def predicate(e):
                if isinstance(e, errors.OpError):
                    err_str = e.message
                    if e.op is not None:
                        err_str += "\nCaused by: " + e.op.name
                else:
                    err_str = str(e)
                return re.search(expected_err_re_or_predicate, err_str)

        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:  # noqa: BLE001 - checked against the expectation below
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}") from e

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """A context manager that expects a `tw.errors.OpError` (a failed run) matching the regex or
        predicate."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    # --- protos ---------------------------------------------------------------------------------------
    def assertProtoEquals(self, expected_message_maybe_ascii, validate_message, msg=None, relative_tolerance=None):
        """Asserts that a protobuf message equals the expected one (a message of the same type, or its
        text format); with `relative_tolerance`, float fields need only be that close."""
        from google.protobuf import message as message_lib
        from google.protobuf import text_format

        if not isinstance(validate_message, message_lib.Message):
            raise TypeError(f"Can't compare protos: {type(validate_message).__name__} is not a protobuf message")
        if isinstance(expected_message_maybe_ascii, type(validate_message)):
            expected = expected_message_maybe_ascii
        elif isinstance(expected_message_maybe_ascii, (str, bytes)):
            expected = type(validate_message)()
            text = expected_message_maybe_ascii
            text_format.Merge(text.decode("utf-8") if isinstance(text, bytes) else text, expected)
        else:
            raise AssertionError(
                f"Can't compare protos of type {type(expected_message_maybe_ascii)} and {type(validate_message)}."
            )
        actual = validate_message
        if relative_tolerance is not None:
            actual = copy.deepcopy(validate_message)
            _align_close_floats(expected, actual, relative_tolerance)
        self.assertMultiLineEqual(text_format.MessageToString(expected), text_format.MessageToString(actual), msg=msg)
