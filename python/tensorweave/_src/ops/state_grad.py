"""Variables, random and control ops, and the Send/Recv pairs partitioning adds, carry no gradient."""

from tensorweave._src.ops import gradients_impl

for _op in (
    "VariableV2",
    "Assign",
    "AssignAdd",
    "AssignSub",
    "IsVariableInitialized",
    "NoOp",
    "RandomUniform",
    "RandomUniformInt",
    "RandomStandardNormal",
    "TruncatedNormal",
    "_Send",
    "_Recv",
    # Asserts, printing, summaries and in-place variable updates (TF declares these not differentiable).
    "Assert",
    "Print",
    "ScalarSummary",
    "HistogramSummary",
    "ImageSummary",
    "AudioSummaryV2",
    "TensorSummaryV2",
    "MergeSummary",
    "CountUpTo",
    "ScatterUpdate",
    "ScatterAdd",
    "ScatterSub",
    "ScatterMul",
    "ScatterDiv",
    "ScatterMin",
    "ScatterMax",
    "ScatterNdUpdate",
    "ScatterNdAdd",
    "ScatterNdSub",
):
    gradients_impl.NotDifferentiable(_op)
