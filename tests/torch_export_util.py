"""Shared by the real-export tests: a seeded PyTorch module, its ONNX export by either exporter, and the check
that the lite runtime agrees with onnxruntime on it."""

import io
import warnings

import numpy as np
import pytest

from converters import lite_runner, onnx_import


def seeded_module(cls):
    """cls() in eval mode from torch seed 0, its batch norms given statistics other than the identity."""
    import torch

    torch.manual_seed(0)
    m = cls().eval()
    for mod in m.modules():
        if isinstance(mod, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            mod.running_mean.uniform_(-0.5, 0.5)
            mod.running_var.uniform_(0.5, 2.0)
            mod.weight.data.uniform_(0.5, 1.5)
            mod.bias.data.uniform_(-0.3, 0.3)
    return m


def export(module, args, input_names, output_names, dynamo, opset, dynamic, batch_axes=None):
    """The ONNX model torch.onnx.export writes of `module` called on `args` (dynamic: a run-time batch, on axis 0
    of each input and output unless `batch_axes` {name: axis} says another)."""
    batch_axes = batch_axes or {}
    import onnx
    import torch

    kw = {"input_names": input_names, "output_names": output_names, "opset_version": opset, "dynamo": dynamo}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            pytest.importorskip("onnxscript")
            if dynamic:
                batch = torch.export.Dim("batch", min=1, max=64)
                kw["dynamic_shapes"] = tuple({batch_axes.get(n, 0): batch} for n in input_names)
            return torch.onnx.export(module, args, verbose=False, **kw).model_proto
        if dynamic:
            kw["dynamic_axes"] = {n: {batch_axes.get(n, 0): "batch"} for n in input_names + output_names}
        # nn.MultiheadAttention's fast path (eval, no grad) has no TorchScript export.
        fastpath = torch.backends.mha.get_fastpath_enabled()
        torch.backends.mha.set_fastpath_enabled(False)
        try:
            buffer = io.BytesIO()
            torch.onnx.export(module, args, buffer, **kw)
        finally:
            torch.backends.mha.set_fastpath_enabled(fastpath)
        return onnx.load_from_string(buffer.getvalue())


def check_agrees(model, inputs, batches, rtol, atol, check_dtype=True):
    """Converts `model`, runs it on the lite runtime (1 and 2 threads) on inputs(batch, batch) at each batch size
    and compares with onnxruntime; returns the largest absolute difference."""
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runners = [lite_runner.LiteRunner(onnx_import.convert(model), num_threads=n) for n in (1, 2)]
    worst = 0.0
    for batch in batches:
        feeds = {i.name: a.numpy() for i, a in zip(model.graph.input, inputs(batch, batch))}
        want = session.run(None, feeds)
        for runner in runners:
            got = runner.run(feeds)
            for out, w in zip(model.graph.output, want):
                assert got[out.name].shape == w.shape, (out.name, batch)
                if check_dtype:
                    assert got[out.name].dtype == w.dtype, (out.name, batch)
                np.testing.assert_allclose(got[out.name], w, rtol=rtol, atol=atol, err_msg=f"{out.name}, batch {batch}")
                worst = max(worst, float(np.max(np.abs(got[out.name].astype(np.float64) - w), initial=0.0)))
    return worst
