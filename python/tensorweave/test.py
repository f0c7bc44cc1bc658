"""TF1's `tf.test`: `TestCase` (graph mode, on tensorweave's Session), `main`, gradient checking by central
differences, `Benchmark`, whether this build has a GPU device, and `create_local_cluster` (in-process servers of a
cluster on free loopback ports).

Example:
  >>> import tensorweave as tw
  >>> tw.test.gpu_device_name() in ("", "/device:GPU:0")
  True
  >>> issubclass(tw.test.TestCase, __import__("unittest").TestCase)
  True
"""

import os as _os
import platform as _platform
from unittest import mock

from tensorweave._src.client.device_lib import gpu_device_name, is_gpu_available
from tensorweave._src.framework.testing import (
    TestCase,
    assert_equal_graph_def,
    get_temp_dir,
    is_built_with_cuda,
    is_built_with_gpu_support,
    is_built_with_rocm,
    is_built_with_xla,
    main,
)
from tensorweave._src.ops.gradient_checker import compute_gradient, compute_gradient_error
from tensorweave._src.platform.benchmark import Benchmark
from tensorweave._src.platform.gpu_loader import gpu_unavailable_reason

__all__ = [
    "Benchmark",
    "TestCase",
    "assert_equal_graph_def",
    "benchmark_config",
    "compute_gradient",
    "compute_gradient_error",
    "create_local_cluster",
    "get_temp_dir",
    "gpu_device_name",
    "gpu_unavailable_reason",
    "is_built_with_cuda",
    "is_built_with_gpu_support",
    "is_built_with_rocm",
    "is_built_with_xla",
    "is_cpu_target_available",
    "is_gpu_available",
    "main",
    "mock",
    "test_src_dir_path",
]


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """Starts `num_workers` worker and `num_ps` ps servers in this process, on free loopback ports, as one cluster
    ("worker" and "ps" jobs); returns (workers, ps_servers), lists of started `train.Server`s: a session on
    `workers[0].target` runs graphs placed on "/job:ps/task:0" and "/job:worker/task:1"."""
    from tensorweave.distributed import launch
    from tensorweave.distributed.server import Server

    if num_workers < 1 or num_ps < 0:
        raise ValueError(f"create_local_cluster needs at least one worker and no negative ps count, got "
                         f"num_workers={num_workers}, num_ps={num_ps}")  # fmt: skip
    cluster = launch.make_cluster(num_ps, num_workers)
    workers = [Server(cluster, "worker", i, protocol, worker_config, start=True) for i in range(num_workers)]
    ps_servers = [Server(cluster, "ps", i, protocol, ps_config, start=True) for i in range(num_ps)]
    return workers, ps_servers


def benchmark_config():
    """A ConfigProto with the dependency optimizer (Identity/NoOp removal) off, for benchmarks of graphs whose
    timed ops would otherwise be pruned."""
    from tensorweave._src.client.session_config import ConfigProto, RewriterConfig

    config = ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = RewriterConfig.OFF
    return config


def is_cpu_target_available(target):
    """Whether this build can compile for CPU `target` ("x86", "aarch64", ...): the host's architecture."""
    host = _platform.machine().lower()
    aliases = {"x86": ("x86_64", "amd64", "i386", "i686"), "aarch64": ("aarch64", "arm64"), "arm": ("armv7l",)}
    return host in aliases.get(target.lower(), (target.lower(),))


def test_src_dir_path(relative_path):
    """The absolute path of `relative_path` in the tensorweave source tree (TF's is relative to its root)."""
    root = _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))
    return _os.path.join(root, relative_path)
