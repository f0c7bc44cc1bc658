"""Variables, random and control ops carry no gradient."""

from tensorweave._src.ops import gradients_impl

for _op in (
    "VariableV2",
    "Assign",
    "AssignAdd",
    "AssignSub",
    "IsVariableInitialized",
    "NoOp",
    "RandomUniform",
    "RandomStandardNormal",
    "TruncatedNormal",
):
    gradients_impl.NotDifferentiable(_op)
