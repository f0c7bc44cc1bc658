"""tensorweave imported into a process that imported TensorFlow first (as a program comparing the two does):
TensorFlow's libraries export their own protobuf, which the core extension must not bind to (it crashed with
a segmentation fault on the first op)."""

import importlib.util
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow is not installed")

_PROGRAM = """
import numpy as np
import tensorflow.compat.v1 as tf
import tensorweave as tw

with tw.Graph().as_default(), tw.Session() as sess:
    x = tw.placeholder(tw.float32, [2])
    y = tw.reduce_sum(tw.constant([1.0, 2.0]) * x)
    print("tw", sess.run(y, {x: np.array([3.0, 4.0], np.float32)}))
with tf.Graph().as_default(), tf.Session() as sess:
    print("tf", sess.run(tf.reduce_sum(tf.constant([1.0, 2.0]) * 2.0)))
"""


def test_tensorweave_after_tensorflow_in_one_process():
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    done = subprocess.run(
        [sys.executable, "-c", _PROGRAM], check=False, capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert "tw 11.0" in lines and "tf 6.0" in lines, done.stdout
