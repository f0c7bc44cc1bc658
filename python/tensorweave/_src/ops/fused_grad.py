"""The fused ops the graph optimizer creates (`_FusedMatMul`, `_FusedConv2D`) exist only in optimized step
graphs, after gradients are built: like TensorFlow, they register no gradient. Nor does the converters'
`_TwlRnn`, which exists only in frozen graphs."""

from tensorweave._src.ops import gradients_impl

for _op in ("_FusedMatMul", "_FusedConv2D"):
    gradients_impl.NotDifferentiable(_op)
gradients_impl.NotDifferentiable("_TwlRnn")
