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
    "RandomStandardNormal",
    "TruncatedNormal",
    "_Send",
    "_Recv",
):
    gradients_impl.NotDifferentiable(_op)
