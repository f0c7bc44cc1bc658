"""Importers of the ops whose output shapes hang on input values: NonZero
and NonMaxSuppression (and the window functions and MelWeightMatrix, which
convert only as the constants they fold to). Their lite outputs are dynamic tensors (sized by
the kernel in eval); what reads them is prepared at run time, so a
detector's tail (Gather of the selected indices, Slice, Cast, ...)
converts as usual. Each unknown dim gets 1 in the .twl shape and -1 in
its signature (`shapes.mark_data_dependent`).
"""

from converters.errors import NodeError as _NodeError
from converters.onnx_import.context import attrs, imports
from converters.onnx_import.folding import FOLDABLE_LIMIT


@imports("NonZero")
def _non_zero(ctx, node):
    ctx.builder.add_op("NON_ZERO", [ctx.plain(node.input[0])], [ctx.output(node.output[0])])


@imports("NonMaxSuppression")
def _non_max_suppression(ctx, node):
    center_point_box = attrs(node).get("center_point_box", 0)
    if center_point_box not in (0, 1):
        raise _NodeError(f"center_point_box must be 0 or 1, got {center_point_box}")
    inputs = [ctx.plain(node.input[0]), ctx.plain(node.input[1])]
    inputs += [ctx.plain(name) if name else -1 for name in node.input[2:5]]
    while inputs[-1] == -1:
        inputs.pop()
    options = ("NonMaxSuppressionOptions", {"center_point_box": bool(center_point_box)})
    ctx.builder.add_op("NON_MAX_SUPPRESSION", inputs, [ctx.output(node.output[0])], options)


@imports("HannWindow", "HammingWindow", "BlackmanWindow", "MelWeightMatrix")
def _folded_only(ctx, node):
    """Reached only when folding did not make the node a constant."""
    size = ctx.unfolded.get(id(node))
    if size is not None:
        raise _NodeError(f"not folded: it would make {size} elements, over the limit of {FOLDABLE_LIMIT}")
    computed = [i for i in node.input if i and i not in ctx.consts]
    raise _NodeError(
        f"its inputs must be constants (it converts as the constant it folds to); {', '.join(map(repr, computed))} "
        "is computed, so its output shape would depend on values known only at run time"
    )
