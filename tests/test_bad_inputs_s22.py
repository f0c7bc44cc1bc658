"""Defects the third round of tools/bad_input_sweep.py (--set s22: huge sizes, damaged checkpoints, Keras and
feature-column misuse, lookup tables, concurrency misuse, the lite C API and CLI, malformed RPCs to a
tensorweave server) found, checked against tensorflow.compat.v1 2.21 where TF has the API."""

import os
import subprocess
import sys

import grpc
import numpy as np
import pytest
import tensorweave as tw

from tests.bad_inputs_util import need_tf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _values(build):
    """[tensorweave's value, TF's value] of the fetches `build(lib)` makes (variables initialized)."""
    tf1 = need_tf()
    results = []
    for lib in (tw, tf1):
        with lib.Graph().as_default(), lib.Session() as sess:
            fetches = build(lib)
            sess.run(lib.global_variables_initializer())
            results.append(sess.run(fetches))
    return results


def test_numpy_array_on_the_left_of_a_variable_gives_a_tensor():
    # Variable had no __array_priority__: numpy broadcast `np_array * v` itself, giving an object array of
    # Tensors (an Estimator's model_fn fed numpy features then failed far away, "Expected string").
    a = np.array([1.0, 2.0], np.float32)

    def build(tf):
        v = tf.Variable([3.0, 4.0])
        return [a * v, a - v, a + v, a / v]

    ours, theirs = _values(build)
    for o, t in zip(ours, theirs):
        assert isinstance(o, np.ndarray) and o.dtype == np.float32, repr(o)
        np.testing.assert_allclose(o, t)


def test_variable_reflected_mod_and_bitwise_operators():
    # __rmod__, __rand__, __ror__, __xor__ and __rxor__ were missing on Variable: `5 % v` raised TypeError.
    def build(tf):
        i, b = tf.Variable(3), tf.Variable([True, False])
        return [5 % i, True & b, False | b, b ^ True, np.array([True, True]) ^ b]

    ours, theirs = _values(build)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)


@pytest.mark.parametrize("ex", ["not an exception", (1, 2)])
def test_coordinator_request_stop_with_a_non_exception_is_type_error(ex):
    # Was AttributeError ("'str' object has no attribute '__traceback__'"); TF raises TypeError (formatting
    # its message). The coordinator is not stopped.
    for lib, fragment in ((tw, "ex must be an exception or an exc_info tuple"), (need_tf(), None)):
        coord = lib.train.Coordinator()
        with pytest.raises(TypeError, match=fragment):
            coord.request_stop(ex)
        assert not coord.should_stop()


def test_coordinator_request_stop_with_a_non_exception_while_handling_one_reports_that_one():
    for lib in (tw, need_tf()):
        coord = lib.train.Coordinator()
        try:
            raise KeyError("handled")
        except KeyError:
            coord.request_stop("not an exception")
        with pytest.raises(KeyError, match="handled"):
            coord.join([])


def test_coordinator_request_stop_with_an_exception_unchanged():
    coord = tw.train.Coordinator()
    coord.request_stop(KeyError("k"))
    with pytest.raises(KeyError, match="k"):
        coord.join([])


def test_estimator_evaluate_in_a_fresh_process_writes_its_summary(tmp_path):
    # evaluate imported summary_pb2 directly: "No module named 'graph_pb2'" unless a summary had been written
    # before in the process (its import of graph.proto is resolved by tensorweave's summary protos module).
    code = (
        "import glob, sys\nimport tensorweave as tf\n"
        "def model_fn(features, labels, mode):\n"
        "    w = tf.get_variable('w', [], initializer=tf.zeros_initializer())\n"
        "    loss = tf.reduce_mean(tf.square(features['x'] * w - labels))\n"
        "    return tf.estimator.EstimatorSpec(mode, loss=loss)\n"
        "e = tf.estimator.Estimator(model_fn, model_dir=sys.argv[1])\n"
        "print(e.evaluate(lambda: ({'x': tf.ones([4])}, tf.ones([4])), steps=1)['loss'])\n"
        "print(len(glob.glob(sys.argv[1] + '/eval/events.out*')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["1.0", "1"], proc.stdout


@pytest.fixture(scope="module")
def worker_address():
    server = tw.train.Server.create_local_server()
    yield server.target[len("grpc://") :]
    server.stop()


def _call(address, method, request):
    from tensorweave.distributed import rpc

    with grpc.insecure_channel(address) as channel:
        try:
            channel.unary_unary(f"/{rpc.WORKER}/{method}")(request, timeout=20)
        except grpc.RpcError as e:
            return e.code(), e.details()
    return grpc.StatusCode.OK, ""


@pytest.mark.parametrize(
    "method,header",
    [
        ("CleanupStep", {"step_id": 2**70}),
        ("AbortStep", {"step_id": -(2**64)}),
        ("RunGraph", {"handle": 1, "step_id": 2**63}),
        ("PushTensor", {"step_id": 2**80, "key": "k", "tensors": [{"dtype": 1, "shape": [], "nbytes": 4}]}),
    ],
)
def test_rpc_with_a_step_id_beyond_int64_is_invalid_argument(worker_address, method, header):
    # Was INTERNAL ("TypeError: cleanup_step(): incompatible function arguments") from the runtime's binding.
    from tensorweave.distributed import wire

    code, details = _call(worker_address, method, wire.encode(header, [b"\0" * 4]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, (code, details)
    assert "out of the int64 range" in details, details


def test_batched_push_with_a_step_id_beyond_int64_is_invalid_argument(worker_address):
    from tensorweave.distributed import wire

    request = wire.encode_tensors({"pushes": [{"step_id": 2**64, "key": "k"}]}, [np.ones(2, np.float32)])
    code, details = _call(worker_address, "PushTensors", request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "step id 18446744073709551616" in details, details


def test_tensor_meta_whose_shape_overflows_is_invalid_argument(worker_address):
    # A shape of [2**32, 2**32, 0] (0 elements, 0 bytes) passed the byte count check and failed in numpy's
    # reshape: INTERNAL "ValueError: cannot reshape array of size 0".
    from tensorweave.distributed import wire

    meta = {"dtype": 1, "shape": [2**32, 2**32, 0], "nbytes": 0}
    with pytest.raises(tw.errors.InvalidArgumentError, match="more than 2"):
        wire.check_meta(meta)
    request = wire.encode({"step_id": 1, "key": "k", "tensors": [meta]})
    code, details = _call(worker_address, "PushTensor", request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "malformed tensor shape" in details, details
    # An empty tensor of a shape numpy can hold still decodes.
    assert wire.tensor_from({"dtype": 1, "shape": [2**20, 0], "nbytes": 0}, b"").shape == (2**20, 0)
