"""The CUDA GPU device itself (core/gpu/gpu_device.cc): the attributes it reports, values crossing
host<->GPU through the partitioner's _Send/_Recv (pinned staging and the pageable path for large
values, reused staging buffers across many steps), its memory limit and TensorFlow's OOM message, and
one allocator shared by several sessions. Skips without a GPU.

The transfers are exercised with Identity on the GPU between a fed CPU placeholder and a CPU
consumer, so these tests need the GPU Identity kernel besides the device's own _Send/_Recv."""

import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw
from tensorweave.python.client import device_lib

from tests.gpu.gpu_util import requires_gpu, run_recorded

pytestmark = requires_gpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_gpu_device_attributes_are_tensorflows():
    gpus = [d for d in device_lib.list_local_devices() if d.device_type == "GPU"]
    assert gpus, "no GPU device listed"
    assert gpus[0].name == "/device:GPU:0"
    desc = gpus[0].physical_device_desc
    assert re.fullmatch(
        r"device: 0, name: .+, pci bus id: [0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f], "
        r"compute capability: \d+\.\d+",
        desc,
    ), desc
    # The free memory less a reserve: at least a GiB on any GPU the tests run on.
    assert gpus[0].memory_limit > (1 << 30), gpus[0].memory_limit


def _round_trip_graph(dtype, shape):
    graph = tw.Graph()
    with graph.as_default():
        with tw.device("/cpu:0"):
            x = tw.placeholder(tw.as_dtype(dtype), shape)
        with tw.device("/gpu:0"):
            y = tw.identity(x)
        with tw.device("/cpu:0"):
            z = tw.identity(y)
    return graph, x, z


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape",
    [(), (0,), (3,), (2, 0, 5), (1000, 257), (4, 1 << 20), (21 << 20,)],
    ids=["scalar", "empty", "small", "empty3d", "odd", "16MiB", "84MiB-pageable"],
)
def test_values_cross_host_gpu_host_exactly(dtype, shape):
    graph, x, z = _round_trip_graph(dtype, shape)
    rng = np.random.default_rng(0)
    with tw.Session(graph=graph) as sess:
        for step in range(3):
            value = rng.standard_normal(shape).astype(dtype)
            out, ran = run_recorded(sess, z, {x: value})
            assert out.dtype == value.dtype and out.shape == value.shape
            np.testing.assert_array_equal(out, value, err_msg=f"step {step}")
            assert {"_Recv", "Identity", "_Send"} <= ran, sorted(ran)


def test_staging_buffers_are_not_reused_too_early():
    # Many steps with different values and sizes in quick succession: a staging block reused
    # before its copy ran would deliver another step's bytes.
    graph, x, z = _round_trip_graph(np.float32, None)
    rng = np.random.default_rng(1)
    with tw.Session(graph=graph) as sess:
        for step in range(200):
            n = int(rng.integers(1, 300_000))
            value = np.full(n, step, np.float32) + np.arange(n, dtype=np.float32) * 1e-3
            out = sess.run(z, feed_dict={x: value})
            np.testing.assert_array_equal(out, value, err_msg=f"step {step}, {n} elements")


def test_sessions_share_the_device():
    # Two sessions (each with its own GpuDevice objects) run interleaved on one GPU state.
    graph, x, z = _round_trip_graph(np.float32, (1024,))
    a = np.arange(1024, dtype=np.float32)
    with tw.Session(graph=graph) as s1, tw.Session(graph=graph) as s2:
        for i in range(20):
            np.testing.assert_array_equal(s1.run(z, {x: a + i}), a + i)
            np.testing.assert_array_equal(s2.run(z, {x: a - i}), a - i)


def _run_script(code, env_extra):
    env = dict(os.environ, **env_extra)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_memory_limit_and_tensorflows_oom_message():
    # TW_GPU_MEMORY_LIMIT_MB is read when the process first uses the GPU: a fresh process.
    code = """
        import numpy as np, tensorweave as tw
        from tensorweave.python.client import device_lib
        gpu = [d for d in device_lib.list_local_devices() if d.device_type == "GPU"][0]
        print("LIMIT", gpu.memory_limit)
        graph = tw.Graph()
        with graph.as_default():
            with tw.device("/cpu:0"):
                x = tw.placeholder(tw.float32, None)
            with tw.device("/gpu:0"):
                y = tw.identity(x)
            with tw.device("/cpu:0"):
                z = tw.identity(y)
        with tw.Session(graph=graph) as sess:
            try:
                sess.run(z, {x: np.zeros(32 << 20, np.float32)})  # 128 MiB
                print("NO ERROR")
            except tw.errors.ResourceExhaustedError as e:
                print("OOM", e.message)
            # The device still works after an OOM.
            small = np.arange(10, dtype=np.float32)
            print("AFTER", np.array_equal(sess.run(z, {x: small}), small))
    """
    r = _run_script(code, {"TW_GPU_MEMORY_LIMIT_MB": "64"})
    assert r.returncode == 0, r.stderr[-3000:]
    out = r.stdout
    assert f"LIMIT {64 << 20}" in out, out
    assert "OOM" in out, out
    assert re.search(
        r"OOM when allocating tensor with shape \[33554432\] and type float on "
        r"/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc",
        out,
    ), out
    assert "AFTER True" in out, out
