"""Converts ONNX models to .twl, so models from other frameworks run on the
lite runtime.

Table-driven: `IMPORTERS` maps an ONNX op type to a function emitting lite
operators; adding an op's import is one entry. Layout: ONNX is NCHW, the
lite runtime's Conv/Pool are NHWC. Each tensor remembers whether the lite
tensor is the ONNX tensor or its NHWC transpose; Conv/Pool/BatchNormalization
produce NHWC, layout-agnostic ops keep it, and a TRANSPOSE back is inserted
only where an op needs ONNX's layout (Flatten, Reshape, Softmax over
channels, ...) and at the outputs. The model's inputs and outputs keep their
ONNX shapes.

The modules, in the order a model meets them:
  model.py        loading and validation at the boundary (opset in
                  MIN_OPSET..MAX_OPSET, declared input dims, op domains), and
                  `convert`, the driver
  contrib_ops.py  onnxruntime's quantized com.microsoft ops (QLinearAdd,
                  QGemm, ...) rewritten to DequantizeLinear, the float op,
                  QuantizeLinear
  control_flow.py  If, Loop and Scan inlined into the main graph (a taken
                  branch, or both picked by Where; loops unrolled, bounded)
                  and Compress rewritten to Gather, before anything else
  float16.py      float16 models rewritten to compute in float32 (CASTs
                  at float16 inputs, outputs and the model's own Casts)
  shapes.py       onnx shape inference: static shapes (every symbolic input
                  dim set to 1, or a larger static size where 1 is
                  inconsistent) and shape signatures (-1 for run-time dims)
  run_time.py     values computed from run-time dims (Reshape targets,
                  Expand sizes, Range bounds) replayed as lite ops (SHAPE,
                  GATHER, MUL, CONCATENATION, ...) where they are read
  folding.py      constant folding with onnx's reference evaluator, only when
                  the size of the result is known beforehand and at most
                  FOLDABLE_LIMIT elements
  context.py      what an importer sees: tensors, layouts, fusion; IMPORTERS
  math_ops.py     importers: elementwise arithmetic, activations
  nn_ops.py       importers: Gemm, MatMul, batch norm, softmax
  array_ops.py    importers: reshapes, transpose, concat, pad, gather, slice
  rnn_ops.py      importers: LSTM, GRU, RNN
  logic_reduce_ops.py  importers: comparisons, logic, bitwise ops, reductions,
                  ArgMax/ArgMin
  resize_cast_ops.py  importers: Cast, CastLike, BitCast, Dropout, Resize,
                  Upsample, GridSample, RoiAlign
  attention_norm_ops.py  importers: Attention, the normalizations (layer,
                  RMS, instance, group, mean-variance, Lp, LRN), the NLL
                  and softmax cross-entropy losses, Einsum
  index_ops.py    importers: Split, Tile, Expand, Trilu, CumSum, scatters and
                  gathers by element and by N-d index, OneHot, DepthToSpace,
                  TopK, ReverseSequence, Hardmax, MaxUnpool, TensorScatter
  elementwise_ops.py  importers: trigonometric and rounding functions,
                  IsNaN/IsInf, parameterized activations, PRelu, Pow, Mod,
                  Sum, Mean
  quant_ops.py    importers: QuantizeLinear, DequantizeLinear,
                  DynamicQuantizeLinear, MatMulInteger, QLinearMatMul,
                  ConvInteger, QLinearConv
  composite_ops.py  importers of ops lowered to several lite ops:
                  RotaryEmbedding, DFT, STFT, CenterCropPad, AffineGrid,
                  CausalConvWithState, LinearAttention, Col2Im,
                  DeformConv, Det
  conv_pool_ops.py  importers: Conv, ConvTranspose, MaxPool/AveragePool/
                  LpPool, GlobalAveragePool/GlobalLpPool (1-D as 2-D)
  dynamic_ops.py  importers of ops with data-dependent output shapes (the
                  lite runtime's dynamic tensors): NonZero, NonMaxSuppression;
                  the window functions and MelWeightMatrix (folded only)

Example:
  >>> import numpy as np
  >>> from onnx import TensorProto, helper
  >>> from converters import onnx_import
  >>> g = helper.make_graph(
  ...     [helper.make_node("Relu", ["x"], ["y"])], "g",
  ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
  ...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])])
  >>> data = onnx_import.convert(helper.make_model(g))
  >>> data[4:8]
  b'TWL1'
"""

# The importer modules fill IMPORTERS as they are imported.
from converters.onnx_import import (  # noqa: F401
    array_ops,
    attention_norm_ops,
    composite_ops,
    conv_pool_ops,
    dynamic_ops,
    elementwise_ops,
    index_ops,
    logic_reduce_ops,
    math_ops,
    nn_ops,
    quant_ops,
    resize_cast_ops,
    rnn_ops,
    run_time,
)
from converters.onnx_import.context import IMPORTERS
from converters.onnx_import.folding import FOLDABLE_LIMIT
from converters.onnx_import.model import MAX_OPSET, MIN_OPSET, PRODUCER, convert, load

__all__ = ["FOLDABLE_LIMIT", "IMPORTERS", "MAX_OPSET", "MIN_OPSET", "PRODUCER", "convert", "load"]
