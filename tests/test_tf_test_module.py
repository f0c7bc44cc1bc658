"""tw.test as TF1's tf.test: a TF1-style TestCase run through pytest, the assertions failing when they should,
and compute_gradient(_error) against analytic Jacobians and TF's own tf.test.compute_gradient."""

import collections
import os
import unittest

import numpy as np
import pytest

import tensorweave as tw


class SquareTest(tw.test.TestCase):
    """Written as a TF1 user writes a test (only `tf` -> `tw`)."""

    def testEvalInCachedSession(self):
        with self.cached_session():
            x = tw.constant([1.0, 2.0, 3.0])
            self.assertAllClose(tw.square(x).eval(), [1.0, 4.0, 9.0])

    def testSessionIsDefaultAndClosed(self):
        with self.session() as sess:
            self.assertIs(tw.get_default_session(), sess)
            self.assertIs(tw.get_default_graph(), sess.graph)
            self.assertEqual(self.evaluate(tw.constant(2) * 3), 6)
        self.assertIsNone(tw.get_default_session())
        with pytest.raises(RuntimeError):
            sess.run(tw.constant(1))

    def testCachedSessionIsReused(self):
        with self.cached_session() as s1:
            pass
        with self.cached_session() as s2:
            pass
        self.assertIs(s1, s2)
        with self.test_session() as s3:
            self.assertIs(s1, s3)
        with (
            self.assertRaisesRegex(ValueError, "config used to get the cached session"),
            self.cached_session(config=tw.ConfigProto()),
        ):
            pass

    def testSessionWithGraph(self):
        g = tw.Graph()
        with g.as_default():
            c = tw.constant(5.0)
        with self.session(graph=g) as sess:
            self.assertIs(sess.graph, g)
            self.assertEqual(c.eval(), 5.0)

    def testEvaluateNestedWithoutSession(self):
        a = tw.constant([1, 2])
        out = self.evaluate({"a": a, "pair": (a + 1, [a * 2])})
        self.assertAllEqual(out["a"], [1, 2])
        self.assertAllEqual(out["pair"][0], [2, 3])
        self.assertAllEqual(out["pair"][1][0], [2, 4])
        self.assertIsInstance(out["pair"], tuple)

    def testVariableAndOperationRun(self):
        v = tw.Variable([1.0, 2.0])
        with self.cached_session():
            tw.global_variables_initializer().run()
            v.assign_add([1.0, 1.0]).op.run()
            self.assertAllClose(v, [2.0, 3.0])

    def testFreshGraphPerTest_a(self):
        self.assertEqual(tw.get_default_graph().get_operations(), [])
        tw.constant(1.0, name="leftover")

    def testFreshGraphPerTest_b(self):
        self.assertEqual(tw.get_default_graph().get_operations(), [])
        tw.constant(1.0, name="leftover")
        self.assertEqual(tw.get_default_graph().seed, 87654321)

    def testAssertAllCloseStructures(self):
        pair = collections.namedtuple("pair", ["x", "y"])
        self.assertAllClose({"a": [1.0, 2.0], "b": pair(np.ones(2), 3.0)}, {"a": (1.0, 2.0), "b": pair([1, 1], 3)})
        self.assertAllClose([[1.0], [2.0, 3.0]], [[1.0], [2.0, 3.0 + 1e-7]])  # ragged: item by item
        self.assertAllClose(tw.constant([1.0, 2.0]), tw.constant([1.0, 2.0 + 1e-7]))  # two tensors
        self.assertNotAllClose([1.0, 2.0], [1.0, 2.1])

    def testAssertions(self):
        x = tw.constant([[1, 2], [3, 4]])
        self.assertAllEqual(x, [[1, 2], [3, 4]])
        self.assertNotAllEqual(x, [[1, 2], [3, 5]])
        self.assertAllEqual([np.nan, 1.0], [np.nan, 1.0])
        self.assertAllEqual([b"a", b"b"], ["a", "b"])
        self.assertAllGreater(x, 0)
        self.assertAllGreaterEqual(x, 1)
        self.assertAllLess(x, 5)
        self.assertAllLessEqual(x, 4)
        self.assertAllInRange(x, 1, 4)
        self.assertAllInRange(x, 0, 5, open_lower_bound=True, open_upper_bound=True)
        self.assertAllInSet(x, {1, 2, 3, 4})
        self.assertArrayNear([1.0, 2.0], [1.05, 1.95], 0.1)
        self.assertNear(1.0, 1.0 + 1e-3, 1e-2)
        self.assertShapeEqual(np.zeros((2, 2)), x)
        self.assertDTypeEqual(x, np.int32)
        self.assertDeviceEqual("/cpu:0", "/device:CPU:0")
        self.assertStartsWith("tensorweave", "tensor")
        self.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0005]))
        self.assertAllCloseAccordingToType(np.float64([1.0]), np.float64([1.0 + 1e-7]))

    def testAssertRaisesOpError(self):
        with self.cached_session():
            bad = tw.reshape(tw.placeholder(tw.float32), [2, 2])
            with self.assertRaisesOpError("Input to reshape"):
                bad.eval(feed_dict={bad.op.inputs[0]: np.zeros(3, np.float32)})

    def testCheckedThread(self):
        results = []
        t = self.checkedThread(target=results.append, args=(1,))
        t.start()
        t.join()
        self.assertEqual(results, [1])

    def testGetTempDir(self):
        d = self.get_temp_dir()
        self.assertEqual(d, self.get_temp_dir())
        self.assertTrue(os.path.isdir(d))
        self.assertStartsWith(d, tw.test.get_temp_dir())

    def testProtoEquals(self):
        g = tw.Graph()
        with g.as_default():
            tw.constant(1.5, name="c")
        node = g.as_graph_def().node[0]
        self.assertProtoEquals(node, node)
        text = 'name: "c" op: "Const"'
        with self.assertRaises(AssertionError):
            self.assertProtoEquals(text, node)  # attrs missing from the text

    def testDevicePinning(self):
        with self.session(use_gpu=False):
            c = tw.constant(1.0) + 1.0
            self.assertDeviceEqual(c.device, "/cpu:0")
            self.assertEqual(c.eval(), 2.0)
        if tw.test.is_gpu_available():
            return
        with self.session(force_gpu=True):  # no soft placement: no GPU is an error, as in TF
            c = tw.constant(1.0) + 1.0
            self.assertDeviceEqual(c.device, "/gpu:0")
            with self.assertRaisesOpError("Cannot assign a device for operation"):
                c.eval()

    def testComputeGradientOfConstant(self):
        # TF1 kernel tests differentiate with respect to a constant, which compute_gradient feeds.
        x_np = np.array([0.2, 0.5, -0.3])
        with self.cached_session():
            x = tw.constant(x_np, shape=[3])
            jacob_t, jacob_n = tw.test.compute_gradient(x, [3], tw.tanh(x), [3], x_init_value=x_np)
        self.assertAllClose(jacob_t, np.diag(1 - np.tanh(x_np) ** 2), rtol=1e-12, atol=1e-12)
        self.assertAllClose(jacob_n, jacob_t, rtol=1e-6, atol=1e-6)

    def testComputeGradientError(self):
        x = tw.placeholder(tw.float64, [2, 3])
        y = tw.reduce_sum(tw.tanh(x) * x, axis=1)
        with self.cached_session():
            err = tw.test.compute_gradient_error(x, [2, 3], y, [2])
        self.assertLess(err, 1e-6)


def _run_case(case_cls, name):
    """Runs one test of a TestCase class in unittest; returns the unittest result."""
    result = unittest.TestResult()
    case_cls(name).run(result)
    return result


class _Failing(tw.test.TestCase):
    __test__ = False  # run one by one by the tests below, which expect each to fail

    def testNotClose(self):
        self.assertAllClose([1.0, 2.0, 3.0], [1.0, 2.5, 3.0])

    def testNotEqual(self):
        self.assertAllEqual([[1, 2], [3, 4]], [[1, 2], [3, 5]])

    def testShape(self):
        self.assertAllEqual([1, 2], [1, 2, 3])

    def testStructure(self):
        self.assertAllClose({"a": 1.0}, [1.0])

    def testRange(self):
        self.assertAllInRange([0.5, 1.5, np.nan], 0.0, 1.0)

    def testOpErrorNotRaised(self):
        with self.assertRaisesOpError("anything"):
            pass

    def testOpErrorWrongMessage(self):
        with self.cached_session():
            bad = tw.reshape(tw.placeholder(tw.float32), [2, 2])
            with self.assertRaisesOpError("no such message"):
                bad.eval(feed_dict={bad.op.inputs[0]: np.zeros(3, np.float32)})

    def testUnjoinedThread(self):
        self.checkedThread(target=lambda: None).start()

    def testThreadRaises(self):
        def boom():
            raise RuntimeError("boom in thread")

        t = self.checkedThread(target=boom)
        t.start()
        t.join()


def test_tf1_style_class_passes_and_skips_test_session():
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(SquareTest).run(result)
    assert result.errors == [] and result.failures == [], result.errors + result.failures
    assert [t.id().rsplit(".", 1)[1] for t, _ in result.skipped] == ["test_session"]
    assert result.testsRun == len(unittest.defaultTestLoader.getTestCaseNames(SquareTest))


def test_assert_all_close_failure_names_the_mismatch():
    result = _run_case(_Failing, "testNotClose")
    ((_, trace),) = result.failures
    assert "not close where = (array([1]),)" in trace
    assert "not close lhs = [2.]" in trace and "not close rhs = [2.5]" in trace


def test_assert_all_equal_failure_names_the_mismatch():
    ((_, trace),) = _run_case(_Failing, "testNotEqual").failures
    assert "not equal where = (array([1]), array([1]))" in trace and "not equal rhs = array([5])" in trace
    ((_, trace),) = _run_case(_Failing, "testShape").failures
    assert "Shape mismatch: expected (2,), got (3,)" in trace


def test_structure_mismatch_and_range_failures():
    ((_, trace),) = _run_case(_Failing, "testStructure").errors
    assert "ValueError: Can't compare dict to non-dict" in trace
    ((_, trace),) = _run_case(_Failing, "testRange").failures
    assert "1 of the 3 element(s) are NaN" in trace


def test_assert_raises_op_error_fails_when_it_should():
    ((_, trace),) = _run_case(_Failing, "testOpErrorNotRaised").failures
    assert "OpError not raised" in trace
    ((_, trace),) = _run_case(_Failing, "testOpErrorWrongMessage").failures
    assert "InvalidArgumentError" in trace and "Input to reshape" in trace


def test_checked_thread_failures():
    ((_, trace),) = _run_case(_Failing, "testUnjoinedThread").failures
    assert "A checked thread was not joined" in trace
    ((_, trace),) = _run_case(_Failing, "testThreadRaises").failures
    assert "Error in checkedThread: boom in thread" in trace


def test_assert_proto_equals_relative_tolerance():
    case = tw.test.TestCase()
    g = tw.Graph()
    with g.as_default():
        tw.constant(1.0, name="c")
    expected = g.as_graph_def()
    actual = g.as_graph_def()
    actual.node[0].attr["f"].f = 1.0 + 1e-7
    expected.node[0].attr["f"].f = 1.0
    with pytest.raises(AssertionError):
        case.assertProtoEquals(expected, actual)
    case.assertProtoEquals(expected, actual, relative_tolerance=1e-5)
    actual.node[0].attr["f"].f = 1.1
    with pytest.raises(AssertionError):
        case.assertProtoEquals(expected, actual, relative_tolerance=1e-5)


def test_assert_equal_graph_def():
    def build(order, extra=False):
        g = tw.Graph()
        with g.as_default():
            made = {}
            for name in order:
                made[name] = tw.constant(1.0, name=name)
            tw.add(made["a"], made["b"], name="sum")
            if extra:
                tw.constant(2.0, name="extra")
        return g.as_graph_def()

    tw.test.assert_equal_graph_def(build("ab"), build("ba"))  # node order does not matter
    with pytest.raises(AssertionError, match="Found unexpected node 'extra"):
        tw.test.assert_equal_graph_def(build("ab", extra=True), build("ab"))
    with pytest.raises(AssertionError, match="Did not find expected node 'extra"):
        tw.test.assert_equal_graph_def(build("ab"), build("ab", extra=True))
    changed = build("ab")
    changed.node[0].attr["value"].tensor.float_val[:] = [3.0]
    with pytest.raises(AssertionError, match="Node named 'a' has attr 'value'"):
        tw.test.assert_equal_graph_def(changed, build("ab"))
    with pytest.raises(TypeError, match="Expected tf.GraphDef for actual"):
        tw.test.assert_equal_graph_def("x", build("ab"))


def test_build_flags_are_truthful():
    from tensorweave._src.platform import gpu_loader

    built = os.path.exists(gpu_loader.default_library_path())
    assert tw.test.is_built_with_cuda() == built
    assert tw.test.is_built_with_gpu_support() == built
    assert tw.test.is_built_with_rocm() is False
    assert tw.test.is_built_with_xla() is False
    if tw.test.is_gpu_available():
        assert tw.test.is_built_with_cuda()


def test_compute_gradient_matches_analytic_jacobian():
    x_value = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    w_value = np.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]])
    with tw.Graph().as_default(), tw.Session():
        x = tw.placeholder(tw.float64, [2, 3])
        w = tw.placeholder(tw.float64, [3, 2])
        y = tw.matmul(x, w)  # y[i, k] = sum_j x[i, j] w[j, k]
        (jx_t, jx_n), (jw_t, jw_n) = tw.test.compute_gradient(
            [x, w],
            [[2, 3], [3, 2]],
            y,
            [2, 2],
            x_init_value=[x_value, w_value],
            extra_feed_dict={x: x_value, w: w_value},
        )
    # d y[i, k] / d x[i', j] = delta(i, i') w[j, k]
    expected_jx = np.einsum("ab,jk->ajbk", np.eye(2), w_value).reshape(6, 4)
    # d y[i, k] / d w[j, k'] = x[i, j] delta(k, k')
    expected_jw = np.einsum("ij,ck->jcik", x_value, np.eye(2)).reshape(6, 4)
    np.testing.assert_allclose(jx_t, expected_jx, atol=1e-12)
    np.testing.assert_allclose(jx_n, expected_jx, atol=1e-9)
    np.testing.assert_allclose(jw_t, expected_jw, atol=1e-12)
    np.testing.assert_allclose(jw_n, expected_jw, atol=1e-9)


def test_compute_gradient_error_sees_a_wrong_gradient_and_extra_feeds():
    with tw.Graph().as_default(), tw.Session():
        x = tw.placeholder(tw.float64, [3])
        scale = tw.placeholder(tw.float64, [])

        @tw.custom_gradient
        def wrong_square(t):
            return t * t, lambda dy: dy * t  # should be 2 t dy

        err = tw.test.compute_gradient_error(
            x, [3], wrong_square(x) * scale, [3], x_init_value=np.array([1.0, 2.0, 3.0]), extra_feed_dict={scale: 1.0}
        )
        assert abs(err - 3.0) < 1e-6  # the largest |2 x - x| over x = 1, 2, 3
        good = tw.test.compute_gradient_error(x, [3], tw.square(x) * scale, [3], extra_feed_dict={scale: 2.0})
        assert good < 1e-6


def test_compute_gradient_indexed_slices_and_variable_init():
    params = np.arange(6.0).reshape(3, 2)
    with tw.Graph().as_default(), tw.Session():
        v = tw.Variable(params)
        x = tw.placeholder(tw.float64, [3, 2])
        y = tw.gather(x, [2, 0, 2]) * v[0]  # the gradient of gather is IndexedSlices
        jt, jn = tw.test.compute_gradient(x, [3, 2], y, [3, 2], init_targets=[v.initializer])
    np.testing.assert_allclose(jt, jn, atol=1e-9)
    assert jt.shape == (6, 6) and jt[4, 0] == params[0, 0] and jt[5, 5] == params[0, 1]


def test_compute_gradient_bad_input():
    with tw.Graph().as_default(), tw.Session():
        x = tw.placeholder(tw.int32, [2])
        with pytest.raises(TypeError, match="Don't support type int32 for x"):
            tw.test.compute_gradient(x, [2], tw.cast(x, tw.float32) * 2.0, [2])
        xf = tw.placeholder(tw.float64, [2])
        with pytest.raises(ValueError, match="init_data shape"):
            tw.test.compute_gradient(xf, [2], xf * 2.0, [2], x_init_value=np.zeros(3))
    with tw.Graph().as_default():
        xf = tw.placeholder(tw.float64, [2])
        with pytest.raises(ValueError, match="default session"):
            tw.test.compute_gradient(xf, [2], xf * 2.0, [2])


def test_compute_gradient_matches_tensorflow():
    tf1 = pytest.importorskip("tensorflow.compat.v1")
    x_value = np.array([[0.3, -0.7], [1.2, 0.4]])

    def fn(lib, x):
        return lib.reduce_sum(lib.sigmoid(x) * lib.exp(x), axis=0)

    with tw.Graph().as_default(), tw.Session():
        x = tw.placeholder(tw.float64, [2, 2])
        ours = tw.test.compute_gradient(x, [2, 2], fn(tw, x), [2], x_init_value=x_value)
    with tf1.Graph().as_default(), tf1.Session():
        x = tf1.placeholder(tf1.float64, [2, 2])
        theirs = tf1.test.compute_gradient(x, [2, 2], fn(tf1, x), [2], x_init_value=x_value)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-9)


def test_benchmark_reports(tmp_path, monkeypatch):
    import json

    class MatmulBenchmark(tw.test.Benchmark):
        def benchmarkMatmul(self):
            with tw.Graph().as_default(), tw.Session() as sess:
                a = tw.ones([8, 8])
                return self.run_op_benchmark(sess, tw.matmul(a, a), min_iters=3, mbs=1)

    monkeypatch.setenv("TEST_REPORT_FILE_PREFIX", str(tmp_path) + "/")
    values = MatmulBenchmark().benchmarkMatmul()
    assert values["name"] == "MatmulBenchmark.benchmarkMatmul" and values["iters"] == 3
    assert values["wall_time"] > 0 and values["throughput"] == pytest.approx(1 / values["wall_time"])
    (entry,) = json.loads((tmp_path / "MatmulBenchmark.benchmarkMatmul").read_text())["entry"]
    assert entry["iters"] == 3 and entry["wall_time"] == values["wall_time"]
    with pytest.raises(TypeError, match="extras must be a dict"):
        MatmulBenchmark().report_benchmark(name="x", extras=[1])


_SCRIPT = """
import tensorweave as tw


class MainTest(tw.test.TestCase):
    def testPasses(self):
        self.assertAllEqual(self.evaluate(tw.constant([1, 2]) + 1), [2, 3])

    def testFails(self):
        self.assertAllClose(self.evaluate(tw.constant(1.0)), 2.0)


if __name__ == "__main__":
    tw.test.main()
"""


def test_main_runs_the_calling_module(tmp_path):
    import subprocess
    import sys

    script = tmp_path / "main_script_test.py"
    script.write_text(_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 1, run.stderr
    assert "Ran 3 tests" in run.stderr  # two tests and the skipped test_session helper
    assert "FAILED (failures=1, skipped=1)" in run.stderr and "not close lhs = 1.0" in run.stderr


def test_main_benchmarks_flag_runs_matching_benchmarks():
    from tensorweave._src.platform import benchmark

    calls = []

    class FlagBenchmark(tw.test.Benchmark):
        def benchmarkOne(self):
            calls.append("one")

        def benchmarkTwo(self):
            calls.append("two")

    argv = ["prog", "--benchmarks=FlagBenchmark.benchmarkTw"]
    assert benchmark.run_benchmarks_from_argv(argv) and argv == ["prog"]
    assert calls == ["two"]
    assert not benchmark.run_benchmarks_from_argv(["prog"])
