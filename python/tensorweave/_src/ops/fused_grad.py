"""The fused ops the graph optimizer creates (`_FusedMatMul`, `_FusedConv2D`) exist only in optimized step
graphs, after gradients are built: like TensorFlow, they register no gradient."""

from tensorweave._src.ops import gradients_impl

for _op in ("_FusedMatMul", "_FusedConv2D"):
    gradients_impl.NotDifferentiable(_op)
