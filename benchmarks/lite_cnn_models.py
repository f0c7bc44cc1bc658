"""Batch-1 latency of CNNs on tensorweave-lite against onnxruntime, the same
ONNX model, 1 and 2 threads, in interleaved rounds.

  python benchmarks/lite_cnn_models.py [--models resnet18,mobilenetv2]
        [--rounds 5]
        [--runs 20] [--size 224] [--threads 1,2]

Models (defined here in PyTorch, random weights, BatchNorm in eval mode with
random statistics, exported by torch.onnx.export(dynamo=False)):
  resnet18  ResNet-18 (He et al. 2016) as torchvision defines it: 7x7/2 conv,
            3x3/2 max pool, BasicBlock x [2, 2, 2, 2] at 64-512 channels
            (1x1/2 projection shortcuts), global average pool, Linear(512,
            1000); input [1, 3, size, size]

The ONNX model is converted by converters.onnx_import; tensorweave-lite runs
the .twl through the C API (converters.lite_runner over $TWL_LITE_LIBRARY,
else bazel-bin/lite/c/libtensorweave_lite.so): per call, input copied in,
invoke, output copied out. onnxruntime runs with intra_op_num_threads =
threads, inter 1, all graph optimizations. Outputs are compared first
(max |a - b| <= 1e-3 * max(1, RMS of onnxruntime's output)). Each time is
the median of single-call times within a round, each system's best over
the rounds; the ratio is tensorweave-lite / onnxruntime. The fastest single
call of each is printed too.

The lite runtime runs ResNet's 3x3 stride-1 convolutions on its Winograd
path; TWL_LITE_CONV_WINOGRAD=0 in the environment turns that path off (the
im2col path then runs them), for a before/after comparison.

Skips (exit 0, a message) when torch, onnx or onnxruntime is missing.
"""

import argparse
import io
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def _missing_modules():
    missing = []
    for name in ("torch", "onnx", "onnxruntime"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    return missing


def resnet18(size=224, seed=0):
    """(onnx.ModelProto, feeds) of a random-weight ResNet-18, batch 1."""
    import torch
    from torch import nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + identity)

    class ResNet18(nn.Module):
        def __init__(self, num_classes=1000):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            layers, cin = [], 64
            for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                layers.append(nn.Sequential(BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)))
                cin = cout
            self.layer1, self.layer2, self.layer3, self.layer4 = layers
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    torch.manual_seed(seed)
    model = ResNet18()
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
    _randomize_batch_norm(model)
    return _export(model, size, "logits")


def _randomize_batch_norm(model):
    """Random BatchNorm statistics, so that folding them into the filters is
    exercised; a gamma around 0.5 keeps the activations' scale from growing
    through the residual blocks."""
    import torch
    from torch import nn

    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.weight.uniform_(0.3, 0.7)
                m.bias.uniform_(-0.1, 0.1)
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)


def _export(model, size, output_name):
    import onnx
    import torch

    model.eval()
    x = torch.randn(1, 3, size, size)
    buffer = io.BytesIO()
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy exporter's deprecation
        torch.onnx.export(
            model, (x,), buffer, input_names=["input"], output_names=[output_name], opset_version=17, dynamo=False
        )
    return onnx.load_from_string(buffer.getvalue()), {"input": x.numpy()}


def mobilenetv2(size=224, seed=0):
    """(onnx.ModelProto, feeds) of a random-weight MobileNetV2, batch 1."""
    import torch
    from torch import nn

    def conv_bn_relu6(cin, cout, kernel, stride, groups=1):
        return nn.Sequential(
            nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU6(inplace=True),
        )

    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, expand_ratio):
            super().__init__()
            hidden = cin * expand_ratio
            self.use_residual = stride == 1 and cin == cout
            layers = [] if expand_ratio == 1 else [conv_bn_relu6(cin, hidden, 1, 1)]
            layers += [
                conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),
                nn.Conv2d(hidden, cout, 1, 1, 0, bias=False),
                nn.BatchNorm2d(cout),
            ]
            self.conv = nn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_residual else self.conv(x)

    class MobileNetV2(nn.Module):
        # (expansion t, channels c, repeats n, first stride s), Table 2.
        SETTINGS = (
            (1, 16, 1, 1),
            (6, 24, 2, 2),
            (6, 32, 3, 2),
            (6, 64, 4, 2),
            (6, 96, 3, 1),
            (6, 160, 3, 2),
            (6, 320, 1, 1),
        )

        def __init__(self, num_classes=1000):
            super().__init__()
            layers, cin = [conv_bn_relu6(3, 32, 3, 2)], 32
            for t, c, n, s in self.SETTINGS:
                for i in range(n):
                    layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                    cin = c
            layers.append(conv_bn_relu6(cin, 1280, 1, 1))
            self.features = nn.Sequential(*layers)
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))

        def forward(self, x):
            x = nn.functional.adaptive_avg_pool2d(self.features(x), 1)
            return self.classifier(torch.flatten(x, 1))

    torch.manual_seed(seed)
    model = MobileNetV2()
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out")
        elif isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, 0, 0.01)
            nn.init.zeros_(m.bias)
    _randomize_batch_norm(model)
    return _export(model, size, "logits")


MODELS = {"resnet18": resnet18, "mobilenetv2": mobilenetv2}


def _times_ms(fn, runs):
    """(median, fastest) single-call time in ms."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times)), 1e3 * float(np.min(times))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="resnet18")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--size", type=int, default=224)
    p.add_argument("--threads", default="1,2")
    args = p.parse_args()
    missing = _missing_modules()
    if missing:
        print(f"skipped: {', '.join(missing)} not installed")
        return
    import onnxruntime as ort

    from converters import lite_runner, onnx_import

    winograd = os.environ.get("TWL_LITE_CONV_WINOGRAD", "") != "0"
    print(
        f"batch 1, {args.size}x{args.size}; lite 3x3 convs: {'winograd' if winograd else 'im2col (winograd off)'}; "
        f"library {lite_runner.library_path()}"
    )
    print("| model | threads | onnxruntime ms | tensorweave-lite ms | tw/ort | fastest call: ort / tw ms, tw/ort |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in args.models.split(","):
        model, feeds = MODELS[name](args.size)
        data = onnx_import.convert(model)
        for threads in [int(t) for t in args.threads.split(",")]:
            so = ort.SessionOptions()
            so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
            lite = lite_runner.LiteRunner(data, num_threads=threads)
            want = sess.run(None, feeds)[0]
            call = lite.prepared(feeds)
            got = call()[0]
            err = float(np.abs(got - want).max())
            scale = max(1.0, float(np.sqrt(np.mean(want.astype(np.float64) ** 2))))
            assert err <= 1e-3 * scale, f"{name}: outputs differ by {err} (scale {scale})"
            best = {"ort": (np.inf, np.inf), "tw": (np.inf, np.inf)}
            for _ in range(args.rounds):
                for key, fn in (("ort", lambda s=sess, f=feeds: s.run(None, f)), ("tw", call)):
                    best[key] = tuple(min(a, b) for a, b in zip(best[key], _times_ms(fn, args.runs)))
            (ort_ms, ort_min), (tw_ms, tw_min) = best["ort"], best["tw"]
            print(
                f"| {name} | {threads} | {ort_ms:.3f} | {tw_ms:.3f} | {tw_ms / ort_ms:.2f} "
                f"| {ort_min:.3f} / {tw_min:.3f}, {tw_min / ort_min:.2f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
