"""The whole step as one CUDA graph: after two runs of a (feeds, fetches, targets) signature with
the same feed shapes, the session records the GPU partition's work and replays it. A replayed step
must give the numbers an uncaptured one gives, take new feed values and variable values, and fall
back to running its kernels when shapes or host-read values change."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import tensorweave as tw
from tensorweave import _pywrap_tensorweave as _pywrap

from tests.gpu.gpu_util import requires_gpu

pytestmark = requires_gpu


def _counters():
    captures, replays, fallbacks = _pywrap.step_capture_counters()
    return dict(captures=captures, replays=replays, fallbacks=fallbacks)


def _delta(before, after):
    return {k: after[k] - before[k] for k in before}


_TRAIN = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorweave as tw
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((64, 32)).astype(np.float32) * 0.1
    w2 = rng.standard_normal((32, 10)).astype(np.float32) * 0.1
    x = rng.standard_normal((16, 64)).astype(np.float32)
    y = rng.integers(0, 10, 16).astype(np.int64)
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        xp = tw.placeholder(tw.float32, [None, 64])
        yp = tw.placeholder(tw.int64, [None])
        v1 = tw.Variable(w1)
        v2 = tw.Variable(w2)
        logits = tw.matmul(tw.nn.relu(tw.matmul(xp, v1)), v2)
        loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=yp, logits=logits))
        train = tw.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        init = tw.global_variables_initializer()
    losses = []
    with tw.Session(graph=g) as sess:
        sess.run(init)
        for step in range(8):
            _, l = sess.run([train, loss], {xp: x + step, yp: y})
            losses.append(float(l))
        final = sess.run(v2)
    from tensorweave import _pywrap_tensorweave as p
    print(json.dumps(dict(losses=losses, w2=final.tolist(), counters=list(p.step_capture_counters()))))
    """
)


def _train(env_extra):
    env = dict(os.environ, **env_extra)
    out = subprocess.run(
        [sys.executable, "-c", _TRAIN], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert out.returncode == 0, out.stderr[-3000:]
    import json

    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["stderr"] = out.stderr[-3000:]
    return result


def test_captured_training_gives_the_uncaptured_numbers():
    captured = _train({"TW_CUDA_GRAPHS_VERBOSE": "1"})
    plain = _train({"TW_CUDA_GRAPHS": "0"})
    assert plain["counters"] == [0, 0, 0]
    assert captured["counters"][0] >= 1, (captured["counters"], captured["stderr"])  # a capture happened
    assert captured["counters"][1] >= 4, captured["counters"]  # and later steps replayed it
    np.testing.assert_array_equal(np.array(captured["losses"]), np.array(plain["losses"]))
    np.testing.assert_array_equal(np.array(captured["w2"]), np.array(plain["w2"]))


def test_replay_takes_new_feeds_and_falls_back_on_new_shapes():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((8, 4)).astype(np.float32)
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        x = tw.placeholder(tw.float32, [None, 8])
        y = tw.nn.relu(tw.matmul(x, tw.constant(w)) + 1.0)
    before = _counters()
    with tw.Session(graph=g) as sess:
        for batch in [5, 5, 5, 5, 5, 3, 5, 3, 3, 3, 3]:
            xs = rng.standard_normal((batch, 8)).astype(np.float32)
            np.testing.assert_allclose(sess.run(y, {x: xs}), np.maximum(xs @ w + 1.0, 0), rtol=1e-5, atol=1e-5)
    d = _delta(before, _counters())
    # [5]: runs 1-2 plain, 3 captured, 4-5 replayed; a new shape drops the recording.
    assert d["captures"] >= 2 and d["replays"] >= 3, d


def test_replay_sees_variable_updates_made_by_other_steps():
    g = tw.Graph()
    with g.as_default(), tw.device("/gpu:0"):
        x = tw.placeholder(tw.float32, [4])
        v = tw.Variable(np.ones(4, np.float32))
        y = v * x
        new_value = tw.placeholder(tw.float32, [4])
        assign = tw.assign(v, new_value)
        init = tw.global_variables_initializer()
    xs = np.arange(4, dtype=np.float32)
    with tw.Session(graph=g) as sess:
        sess.run(init)
        for _ in range(5):
            np.testing.assert_array_equal(sess.run(y, {x: xs}), xs)
        sess.run(assign, {new_value: np.full(4, 3.0, np.float32)})
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(y, {x: xs}), 3 * xs)
