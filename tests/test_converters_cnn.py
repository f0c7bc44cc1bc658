"""CNNs on the lite runtime, against onnxruntime: ResNet-18 (the model of
benchmarks/lite_cnn_models.py, as torch.onnx.export writes it, random
weights, BatchNorm folded by the converter) at 64x64, whose 3x3 stride-1
convolutions run on the lite runtime's Winograd path (16x16x64 ... 4x4x256;
2x2x512 is too small for it), with 1 and 2 threads; MobileNetV2 (same
module) at 96x96: depthwise 3x3 stride 1 and 2, pointwise 1x1, ReLU6,
residual adds, with 1 and 2 threads. A subprocess logs the
paths the lite runtime chose (TWL_LITE_LOG_CONV_PATHS) and runs the same
model with the Winograd path turned off (TWL_LITE_CONV_WINOGRAD=0)."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from converters import lite_runner, onnx_import

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not lite_runner.available(), reason="bazel build //lite/c:libtensorweave_lite.so first")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cnn_models():
    spec = importlib.util.spec_from_file_location(
        "lite_cnn_models", os.path.join(ROOT, "benchmarks", "lite_cnn_models.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def resnet():
    model, feeds = _cnn_models().resnet18(size=64, seed=1)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    return onnx_import.convert(model), feeds, want


@pytest.fixture(scope="module")
def mobilenet():
    model, feeds = _cnn_models().mobilenetv2(size=96, seed=1)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    return onnx_import.convert(model), feeds, want


def _assert_close(got, want, what):
    # Winograd rounds differently from a direct sum: bound the error by the
    # logits' scale (RMS), not by each value.
    assert got.shape == want.shape, what
    scale = float(np.sqrt(np.mean(want.astype(np.float64) ** 2)))
    assert scale > 0, what
    err = float(np.abs(got - want).max())
    assert err <= 1e-4 * scale, f"{what}: max error {err}, logits RMS {scale}"


@pytest.mark.parametrize("threads", [1, 2])
def test_resnet18_matches_onnxruntime(resnet, threads):
    data, feeds, want = resnet
    got = lite_runner.LiteRunner(data, num_threads=threads).run(feeds)["logits"]
    _assert_close(got, want, f"{threads} threads")


@pytest.mark.parametrize("threads", [1, 2])
def test_mobilenetv2_matches_onnxruntime(mobilenet, threads):
    data, feeds, want = mobilenet
    got = lite_runner.LiteRunner(data, num_threads=threads).run(feeds)["logits"]
    _assert_close(got, want, f"{threads} threads")


_CHILD = """
import sys
import numpy as np
from converters import lite_runner
data = open(sys.argv[1], "rb").read()
x = np.load(sys.argv[2])
out = lite_runner.LiteRunner(data, num_threads=2).run({"input": x})["logits"]
np.save(sys.argv[3], out)
"""


def _run_child(tmp_path, data, feeds, winograd):
    model_path, x_path, out_path = (str(tmp_path / n) for n in ("m.twl", "x.npy", "y.npy"))
    with open(model_path, "wb") as f:
        f.write(data)
    np.save(x_path, feeds["input"])
    env = dict(os.environ, TWL_LITE_LOG_CONV_PATHS="1", TWL_LITE_CONV_WINOGRAD="1" if winograd else "0")
    env["PYTHONPATH"] = os.pathsep.join([ROOT, env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, model_path, x_path, out_path],
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    paths = {}
    for line in done.stderr.splitlines():
        if line.startswith("twl: CONV_2D node"):
            shape = line.split("[")[1].split("]")[0]
            stride = line.split("stride ")[1].split(":")[0]
            paths.setdefault(f"{shape} s{stride}", set()).add(line.rsplit(": ", 1)[1])
    return np.load(out_path), paths


def test_resnet18_winograd_path_chosen_and_equal_to_im2col(resnet, tmp_path):
    data, feeds, want = resnet
    got, paths = _run_child(tmp_path, data, feeds, winograd=True)
    _assert_close(got, want, "winograd on")
    # The 3x3 stride-1 layers with an output of at least 3x3: Winograd; the
    # 2x2x512 ones, the strided ones, the 7x7 stem and the 1x1 shortcuts not.
    assert paths["1,16,16,64 s1x1"] == {"winograd"}, json.dumps(sorted(map(str, paths.items())))
    assert paths["1,8,8,128 s1x1"] == {"winograd"}
    assert paths["1,4,4,256 s1x1"] == {"winograd"}
    assert "winograd" not in paths["1,2,2,512 s1x1"]
    for key, chosen in paths.items():
        if not key.endswith("s1x1"):
            assert "winograd" not in chosen, key
    off, off_paths = _run_child(tmp_path, data, feeds, winograd=False)
    _assert_close(off, want, "winograd off")
    assert all("winograd" not in chosen for chosen in off_paths.values()), off_paths
