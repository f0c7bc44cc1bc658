"""Training on the GPU: the digits CNN of examples/train_digits.py reaches the CPU's accuracy in the same number
of steps; a small MLP's losses under gradient descent follow the CPU's to 1e-4 relative from the same initial
values; checkpoints move between a GPU-placed and a CPU-placed graph; a step replayed as a CUDA graph gives
the numbers of the same step run op by op. Skips without a GPU.

Every test also checks that the ops under test really ran on the GPU (RunMetadata.partition_graphs): with soft
placement a missing GPU kernel would otherwise quietly compare the CPU with itself. The assertion messages
name the ops that ran on the CPU, so one run on the GPU machine says what is missing."""

import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorweave as tw

from tests.gpu.gpu_util import requires_gpu

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLUMBING = {"_Send", "_Recv", "_HostSend", "_HostRecv", "_Arg", "_Retval", "NoOp", "Placeholder", "Const"}


def ops_by_device(metadata):
    """({op types run on a GPU}, {op types run on the CPU, less the plumbing})."""
    gpu, cpu = set(), set()
    for g in metadata.partition_graphs:
        for node in g.node:
            (gpu if "GPU" in node.device.upper() else cpu).add(node.op)
    return gpu, cpu - PLUMBING


def run_with_metadata(sess, fetches, feed_dict):
    metadata = tw.RunMetadata()
    out = sess.run(
        fetches, feed_dict=feed_dict, options=tw.RunOptions(output_partition_graphs=True), run_metadata=metadata
    )
    return out, ops_by_device(metadata)


def assert_ran_on_gpu(placement, required, what):
    gpu, cpu = placement
    missing = {r for r in required if not (r & gpu)}
    assert not missing, (
        f"{what}: not run on the GPU: {[sorted(r) for r in missing]}; GPU ran {sorted(gpu)}; the CPU ran {sorted(cpu)}"
    )


def session(graph):
    return tw.Session(graph=graph, config=tw.ConfigProto(allow_soft_placement=True))


# --- the digits CNN ----------------------------------------------------------------------------------------------


def load_train_digits():
    spec = importlib.util.spec_from_file_location("train_digits", os.path.join(ROOT, "examples", "train_digits.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def train_digits_on(device, steps, module, data):
    (x_train, y_train), (x_test, y_test) = data
    graph = tw.Graph()
    with graph.as_default(), tw.device(device):
        model = module.build_model(graph)
    rng = np.random.default_rng(0)
    losses = []
    with session(graph) as sess:
        sess.run(model["init"])
        placement = None
        for step in range(steps):
            idx = rng.integers(0, len(x_train), module.BATCH)
            feed = {model["images"]: x_train[idx], model["labels"]: y_train[idx], model["training"]: True}
            if step == 0:
                (loss, _), placement = run_with_metadata(sess, [model["loss"], model["train_op"]], feed)
            else:
                loss, _ = sess.run([model["loss"], model["train_op"]], feed)
            losses.append(float(loss))
        accuracy = float(sess.run(model["accuracy"], {model["images"]: x_test, model["labels"]: y_test}))
    return accuracy, losses, placement


@requires_gpu
def test_digits_cnn_trains_on_the_gpu_to_the_cpu_accuracy():
    pytest.importorskip("sklearn")
    module = load_train_digits()
    data = module.load_digits()
    steps = 300
    cpu_accuracy, cpu_losses, _ = train_digits_on("/cpu:0", steps, module, data)
    gpu_accuracy, gpu_losses, placement = train_digits_on("/gpu:0", steps, module, data)
    assert_ran_on_gpu(
        placement,
        [
            {"Conv2D", "_FusedConv2D"},
            {"Conv2DBackpropFilter"},
            {"Conv2DBackpropInput"},
            {"MaxPool"},
            {"MaxPoolGrad"},
            {"MatMul", "_FusedMatMul"},
            {"Relu", "_FusedConv2D", "_FusedMatMul"},
            {"ReluGrad"},
            {"SparseSoftmaxCrossEntropyWithLogits"},
            {"ApplyAdam", "ResourceApplyAdam"},
        ],
        "digits CNN",
    )
    assert np.isfinite(gpu_losses).all(), gpu_losses[-10:]
    # The seeded initializers and dropout draw on the device the variables live on: the CPU's and the GPU's
    # random streams may differ, so the losses are compared by trend and the result by accuracy.
    assert np.mean(gpu_losses[-30:]) < 0.5 * np.mean(gpu_losses[:10]), (gpu_losses[:10], gpu_losses[-30:])
    assert cpu_accuracy > 0.9, cpu_accuracy
    assert abs(gpu_accuracy - cpu_accuracy) <= 0.02, (
        f"GPU test accuracy {gpu_accuracy:.4f} vs CPU {cpu_accuracy:.4f} after {steps} steps"
    )


# --- an MLP under gradient descent: the same numbers on both ------------------------------------------------


def mlp_init(seed=0):
    rng = np.random.default_rng(seed)
    sizes = [64, 48, 32, 10]
    return [
        (
            rng.uniform(-0.3, 0.3, (a, b)).astype(np.float32),
            rng.uniform(-0.1, 0.1, (b,)).astype(np.float32),
        )
        for a, b in zip(sizes[:-1], sizes[1:])
    ]


def build_mlp(device, init):
    graph = tw.Graph()
    with graph.as_default(), tw.device(device):
        x = tw.placeholder(tw.float32, [None, 64], name="x")
        y = tw.placeholder(tw.int32, [None], name="y")
        h = x
        variables = []
        for i, (w0, b0) in enumerate(init):
            w = tw.Variable(w0, name=f"w{i}")
            b = tw.Variable(b0, name=f"b{i}")
            variables += [w, b]
            h = tw.nn.bias_add(tw.matmul(h, w), b)
            if i < len(init) - 1:
                h = tw.nn.tanh(h) if i == 0 else tw.nn.relu(h)
        loss = tw.reduce_mean(tw.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        train_op = tw.train.GradientDescentOptimizer(0.2).minimize(loss)
        init_op = tw.global_variables_initializer()
        saver = tw.train.Saver()
    return graph, dict(x=x, y=y, loss=loss, train_op=train_op, init=init_op, variables=variables, saver=saver)


def mlp_batches(steps, batch=32, seed=1):
    """`steps` batches cycling over 4 fixed ones (so that the loss goes down)."""
    rng = np.random.default_rng(seed)
    distinct = [
        (rng.standard_normal((batch, 64)).astype(np.float32), rng.integers(0, 10, batch).astype(np.int32))
        for _ in range(4)
    ]
    return [distinct[i % 4] for i in range(steps)]


def train_mlp(device, steps, init, batches):
    graph, m = build_mlp(device, init)
    losses = []
    with session(graph) as sess:
        sess.run(m["init"])
        placement = None
        for i, (x, y) in enumerate(batches[:steps]):
            if i == 0:
                (loss, _), placement = run_with_metadata(sess, [m["loss"], m["train_op"]], {m["x"]: x, m["y"]: y})
            else:
                loss, _ = sess.run([m["loss"], m["train_op"]], {m["x"]: x, m["y"]: y})
            losses.append(loss)
        weights = sess.run(m["variables"])
    return np.array(losses), weights, placement


@requires_gpu
def test_mlp_gradient_descent_matches_the_cpu():
    init = mlp_init()
    batches = mlp_batches(40)
    cpu_losses, cpu_weights, _ = train_mlp("/cpu:0", 40, init, batches)
    gpu_losses, gpu_weights, placement = train_mlp("/gpu:0", 40, init, batches)
    assert_ran_on_gpu(
        placement,
        [
            {"MatMul", "_FusedMatMul"},
            {"BiasAdd", "_FusedMatMul"},
            {"Tanh", "_FusedMatMul"},
            {"TanhGrad"},
            {"Relu", "_FusedMatMul"},
            {"ReluGrad"},
            {"SparseSoftmaxCrossEntropyWithLogits"},
            {"ApplyGradientDescent", "ResourceApplyGradientDescent", "FusedMatMulApplyGradientDescent"},
        ],
        "MLP",
    )
    # The same initial values, so the first loss agrees to rounding, and the whole trajectory to 1e-4.
    np.testing.assert_allclose(gpu_losses, cpu_losses, rtol=1e-4, atol=0)
    assert cpu_losses[-4:].mean() < 0.7 * cpu_losses[:4].mean(), cpu_losses
    for c, g in zip(cpu_weights, gpu_weights, strict=True):
        np.testing.assert_allclose(g, c, rtol=1e-3, atol=1e-5)


# --- checkpoints across devices -----------------------------------------------------------------------------


@requires_gpu
@pytest.mark.parametrize("src,dst", [("/gpu:0", "/cpu:0"), ("/cpu:0", "/gpu:0")])
def test_checkpoint_moves_between_gpu_and_cpu(tmp_path, src, dst):
    init = mlp_init(seed=3)
    batches = mlp_batches(6, seed=4)
    graph, m = build_mlp(src, init)
    with session(graph) as sess:
        sess.run(m["init"])
        for x, y in batches[:5]:
            sess.run(m["train_op"], {m["x"]: x, m["y"]: y})
        (saved, _), placement = run_with_metadata(sess, [m["variables"], m["loss"]], {m["x"]: x, m["y"]: y})
        path = m["saver"].save(sess, str(tmp_path / "mlp.ckpt"))
        x, y = batches[5]
        src_loss = sess.run(m["loss"], {m["x"]: x, m["y"]: y})
    if src == "/gpu:0":
        assert "VariableV2" in placement[0] or "VarHandleOp" in placement[0], placement

    graph2, m2 = build_mlp(dst, mlp_init(seed=99))  # other initial values: the restore must replace them
    with session(graph2) as sess:
        m2["saver"].restore(sess, path)
        (restored, dst_loss), placement2 = run_with_metadata(
            sess, [m2["variables"], m2["loss"]], {m2["x"]: x, m2["y"]: y}
        )
    if dst == "/gpu:0":
        assert "VariableV2" in placement2[0] or "VarHandleOp" in placement2[0], placement2
    for a, b in zip(saved, restored, strict=True):
        np.testing.assert_array_equal(b, a)  # a checkpoint holds the exact bits
    np.testing.assert_allclose(dst_loss, src_loss, rtol=1e-5)


# --- a captured step gives the numbers of the uncaptured one ------------------------------------------------

CAPTURE_SCRIPT = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[1])
    from tests.gpu.test_gpu_training import mlp_batches, mlp_init, train_mlp
    from tensorweave import _pywrap_tensorweave as pywrap
    losses, weights, _ = train_mlp("/gpu:0", 30, mlp_init(seed=5), mlp_batches(30, seed=6))
    captures, replays, fallbacks = pywrap.step_capture_counters()
    print(json.dumps({"losses": [float(v) for v in losses], "w0": weights[0].ravel()[:50].tolist(),
                      "replays": replays}))
    """
)


@requires_gpu
def test_captured_steps_give_the_uncaptured_numbers():
    import json

    runs = {}
    for graphs in ("1", "0"):
        env = dict(os.environ, TW_CUDA_GRAPHS=graphs)
        proc = subprocess.run(
            [sys.executable, "-c", CAPTURE_SCRIPT, ROOT], env=env, capture_output=True, text=True, timeout=300
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        runs[graphs] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert runs["1"]["replays"] > 0, "no step was replayed as a CUDA graph: the comparison would be vacuous"
    assert runs["0"]["replays"] == 0, "TW_CUDA_GRAPHS=0 still replayed steps"
    # The same kernels in the same order: the same bits, captured or not.
    assert runs["1"]["losses"] == runs["0"]["losses"]
    assert runs["1"]["w0"] == runs["0"]["w0"]
