"""TF1's `tf.test`: `TestCase` (graph mode, on tensorweave's Session), `main`, gradient checking by central
differences, `Benchmark`, and whether this build has a GPU device.

Example:
  >>> import tensorweave as tw
  >>> tw.test.gpu_device_name() in ("", "/device:GPU:0")
  True
  >>> issubclass(tw.test.TestCase, __import__("unittest").TestCase)
  True
"""

from tensorweave._src.client.device_lib import gpu_device_name
from tensorweave._src.client.device_lib import is_gpu_available
from tensorweave._src.framework.testing import TestCase
from tensorweave._src.framework.testing import assert_equal_graph_def
from tensorweave._src.framework.testing import get_temp_dir
from tensorweave._src.framework.testing import is_built_with_cuda
from tensorweave._src.framework.testing import is_built_with_gpu_support
from tensorweave._src.framework.testing import is_built_with_rocm
from tensorweave._src.framework.testing import is_built_with_xla
from tensorweave._src.framework.testing import main
from tensorweave._src.ops.gradient_checker import compute_gradient
from tensorweave._src.ops.gradient_checker import compute_gradient_error
from tensorweave._src.platform.benchmark import Benchmark
from tensorweave._src.platform.gpu_loader import gpu_unavailable_reason

__all__ = [
    "Benchmark",
    "TestCase",
    "assert_equal_graph_def",
    "compute_gradient",
    "compute_gradient_error",
    "get_temp_dir",
    "gpu_device_name",
    "gpu_unavailable_reason",
    "is_built_with_cuda",
    "is_built_with_gpu_support",
    "is_built_with_rocm",
    "is_built_with_xla",
    "is_gpu_available",
    "main",
]
