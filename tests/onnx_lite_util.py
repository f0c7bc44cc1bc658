"""Helpers shared by the tests that convert ONNX models to the lite runtime
(tests/test_converters_*_ops.py): building a one-graph ONNX model, running
the converted model on the lite runtime and counting its lite ops."""

import collections

import numpy as np
from onnx import helper, numpy_helper

from converters import lite_runner, onnx_import, twl_writer


def make_model(nodes, inputs, outputs, initializers=(), opset=18, ir_version=None):
    """A model of `nodes`; inputs/outputs are (name, numpy dtype, shape)
    (shape None: unknown), initializers (name, array-like)."""

    def info(name, dtype, shape):
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), shape)

    graph = helper.make_graph(
        nodes,
        "g",
        [info(*i) for i in inputs],
        [info(*o) for o in outputs],
        [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    if ir_version is not None:
        model.ir_version = ir_version
    return model


def lite_op_counts(data):
    """{lite builtin op name: count} of the .twl bytes' first subgraph."""
    g = twl_writer.read_model(data).Subgraphs(0)
    names = {v: k for k, v in vars(twl_writer.twl_schema.enum("BuiltinOperator")).items() if not k.startswith("_")}
    return collections.Counter(names[g.Operators(i).Opcode()] for i in range(g.OperatorsLength()))


def run_lite(model, feeds, threads):
    """The lite runtime's outputs for `model` (checked equal across the
    thread counts in `threads`) and the .twl's op counts."""
    data = onnx_import.convert(model)
    runs = [lite_runner.LiteRunner(data, num_threads=n).run(feeds) for n in threads]
    for other in runs[1:]:
        for name in runs[0]:
            np.testing.assert_array_equal(other[name], runs[0][name])
    return runs[0], lite_op_counts(data)
