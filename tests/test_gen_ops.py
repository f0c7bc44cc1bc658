"""The generated op wrappers (`gen_ops`, `tw.raw_ops`) against the registry: every registered op has both, with
the signature its definition implies, the registry's defaults and a docstring built from its doc, so that adding
an op needs no hand-written Python. The checks are functions returning problems, also run on a tampered
definition to show that they can fail. Attr checks and their error classes are compared with TensorFlow 1 in
tests/fidelity/cases_raw_ops.py."""

import inspect

import numpy as np
import pytest

import tensorweave as tw
from tensorweave import _pywrap_tensorweave as pywrap
from tensorweave._src.ops import gen_ops


def _expected_parameters(op):
    """(name, default or None, has default) per argument, read off the raw definition: inputs, attrs that no
    input implies (without a default first), name."""
    implied = {a[k] for a in op["inputs"] for k in ("type_attr", "number_attr", "type_list_attr") if a[k]}
    attrs = [a for a in op["attrs"] if a["name"] not in implied]
    params = [(a["name"], None, False) for a in op["inputs"]]
    params += [(a["name"], None, False) for a in attrs if not a["has_default"]]
    params += [(a["name"], a["default"], True) for a in attrs if a["has_default"]]
    return params + [("name", None, True)]


def _same_default(ours, registry):
    if isinstance(registry, bytes):
        registry = registry.decode()
    if isinstance(ours, tw.DType):
        return ours.as_datatype_enum == registry
    if isinstance(ours, float):
        return ours == pytest.approx(registry, rel=1e-6)
    return ours == registry


def wrapper_problems(op, function, keyword_only):
    """What is wrong with `function` as the wrapper of the raw op definition `op` (a dict of op_defs())."""
    problems = []
    kind = inspect.Parameter.KEYWORD_ONLY if keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
    got = list(inspect.signature(function).parameters.values())
    want = _expected_parameters(op)
    if [p.name for p in got] != [w[0] for w in want]:
        return [f"{op['name']}: arguments {[p.name for p in got]}, the registry implies {[w[0] for w in want]}"]
    for p, (name, default, has_default) in zip(got, want):
        if p.kind != kind:
            problems.append(f"{op['name']}: {name} is {p.kind.description}")
        if has_default != (p.default is not inspect.Parameter.empty):
            problems.append(f"{op['name']}: {name} {'lacks' if has_default else 'has'} a default")
        elif has_default and name != "name" and not _same_default(p.default, default):
            problems.append(f"{op['name']}: {name} defaults to {p.default!r}, the registry to {default!r}")
    doc = function.__doc__ or ""
    if not doc.startswith(op["doc"]):
        problems.append(f"{op['name']}: the docstring does not start with the registry's doc")
    for name, _, _ in want:
        if f"  {name}: " not in doc:
            problems.append(f"{op['name']}: the docstring does not describe {name}")
    return problems


def registry_problems(op_defs, lookup, keyword_only):
    """Every op of `op_defs` must have a correct wrapper under `lookup(op_name)`."""
    problems = []
    for op in op_defs:
        try:
            function = lookup(op["name"])
        except (AttributeError, KeyError) as e:
            problems.append(f"{op['name']}: no wrapper ({e})")
            continue
        problems += wrapper_problems(op, function, keyword_only)
    return problems


def test_every_registered_op_has_a_generated_wrapper():
    problems = registry_problems(pywrap.op_defs(), gen_ops.wrapper, keyword_only=False)
    assert not problems, "\n".join(problems)


def test_every_registered_op_is_in_raw_ops_keyword_only():
    problems = registry_problems(pywrap.op_defs(), lambda n: getattr(tw.raw_ops, n), keyword_only=True)
    assert not problems, "\n".join(problems)
    assert sorted(dir(tw.raw_ops)) == sorted(d["name"] for d in pywrap.op_defs())


def test_the_checks_fail_on_an_op_without_or_with_a_wrong_wrapper():
    conv = pywrap.op_def("Conv2D")
    unregistered = dict(conv, name="Conv2DWithoutAWrapper")
    assert registry_problems([unregistered], gen_ops.wrapper, keyword_only=False) == [
        "Conv2DWithoutAWrapper: no wrapper (\"no op named 'Conv2DWithoutAWrapper' is registered\")"
    ]
    extra_attr = dict(conv, attrs=conv["attrs"] + [dict(conv["attrs"][1], name="rate")])
    assert registry_problems([extra_attr], gen_ops.wrapper, keyword_only=False)
    other_default = dict(
        conv, attrs=[dict(a, default=b"NCHW") if a["name"] == "data_format" else a for a in conv["attrs"]]
    )
    assert registry_problems([other_default], gen_ops.wrapper, keyword_only=False) == [
        "Conv2D: data_format defaults to 'NHWC', the registry to b'NCHW'"
    ]
    assert registry_problems([conv], gen_ops.wrapper, keyword_only=True)  # not keyword-only
    assert not registry_problems([conv], gen_ops.wrapper, keyword_only=False)


def test_conv2d_signature_is_tensorflows():
    # TF's gen_nn_ops.conv2d (tf.raw_ops.Conv2D).
    assert str(inspect.signature(gen_ops.conv2d)) == (
        "(input, filter, strides, padding, use_cudnn_on_gpu=True, explicit_paddings=[], data_format='NHWC', "
        "dilations=[1, 1, 1, 1], name=None)"
    )
    assert str(inspect.signature(gen_ops.fused_batch_norm)) == (
        "(x, scale, offset, mean, variance, epsilon=0.0001, exponential_avg_factor=1.0, data_format='NHWC', "
        "is_training=True, name=None)"
    )


@pytest.mark.parametrize(
    "op_type, name",
    [
        ("Conv2D", "conv2d"),
        ("Conv2DBackpropInput", "conv2d_backprop_input"),
        ("DepthwiseConv2dNative", "depthwise_conv2d_native"),
        ("ApplyRMSProp", "apply_rms_prop"),
        ("Relu6Grad", "relu6_grad"),
        ("L2Loss", "l2_loss"),
        ("BatchMatMulV2", "batch_mat_mul_v2"),
        ("AddN", "add_n"),
        ("Log1p", "log1p"),
    ],
)
def test_function_names_are_tensorflows(op_type, name):
    assert gen_ops.function_name(op_type) == name
    assert gen_ops.wrapper(op_type) is getattr(gen_ops, name)


def test_generated_wrapper_computes_the_op():
    with tw.Graph().as_default(), tw.Session() as sess:
        x = np.arange(16, dtype=np.float32).reshape([1, 4, 4, 1])
        y = gen_ops.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
        assert y.name == "MaxPool:0"
        np.testing.assert_array_equal(sess.run(y)[0, :, :, 0], [[5, 7], [13, 15]])


def test_same_attrs_reads_the_shared_attrs_by_the_registrys_names():
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [1, 4, 4, 1])
        y = tw.nn.conv2d(x, np.ones([2, 2, 1, 1], np.float32), [1, 2, 2, 1], "SAME", dilations=[1, 1, 1, 1])
        assert gen_ops.same_attrs(y.op, "Conv2DBackpropInput") == {
            "strides": [1, 2, 2, 1],
            "padding": b"SAME",
            "use_cudnn_on_gpu": True,
            "explicit_paddings": [],
            "data_format": b"NHWC",
            "dilations": [1, 1, 1, 1],
        }
        z = tw.nn.leaky_relu(x, alpha=0.25)
        assert gen_ops.same_attrs(z.op, "LeakyReluGrad") == {"alpha": 0.25}


def test_public_wrappers_take_their_doc_from_the_registry():
    for fn, op_type in ((tw.nn.conv2d, "Conv2D"), (tw.nn.max_pool, "MaxPool"), (tw.nn.relu, "Relu")):
        assert fn.__doc__.startswith(pywrap.op_def(op_type)["doc"])


def test_wrappers_are_built_on_first_use_only():
    # Importing tensorweave builds no wrapper (generation costs nothing until an op is used).
    import subprocess
    import sys

    code = "import tensorweave; from tensorweave._src.ops import gen_ops; print(len(gen_ops._RAW))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0"
