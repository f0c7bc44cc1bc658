"""einsum and tensordot as compositions of existing ops (one batch matmul for two operands of known shapes): values,
static shapes and gradients agree with TensorFlow's; TensorFlow builds one Einsum op (tensordot: its own
transpose/reshape/matmul composite), so op names differ."""

import string

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_ops, linalg_ops, math_ops


# --- einsum ---------------------------------------------------------------------------------------------------------
def _parse_einsum(equation, tensors):
    """(input subscripts, output subscripts), each ellipsis spelled out as letters the equation does not use
    (right-aligned across operands, as numpy broadcasts them)."""
    equation = equation.replace(" ", "")
    lhs, arrow, out = equation.partition("->")
    specs = lhs.split(",")
    if len(specs) != len(tensors):
        raise ValueError(f"einsum: equation {equation!r} names {len(specs)} inputs, got {len(tensors)}")
    spare = [c for c in string.ascii_letters if c not in equation]
    ellipsis_rank = 0
    for i, (spec, x) in enumerate(zip(specs, tensors)):
        if "..." in spec:
            if x.shape.ndims is None:
                raise ValueError(f"einsum: an ellipsis needs the rank of input {i}, which is unknown")
            rank = x.shape.ndims - (len(spec) - 3)
            if rank < 0:
                raise ValueError(f"einsum: input of shape {x.shape} does not match subscripts {spec!r}")
            ellipsis_rank = max(ellipsis_rank, rank)
            specs[i] = spec.replace("...", "".join(spare[ellipsis_rank - rank : ellipsis_rank]) if rank else "", 1)
    dots = "".join(spare[:ellipsis_rank])
    if arrow:
        out = out.replace("...", dots, 1)
    else:
        counts = {}
        for c in "".join(specs):
            counts[c] = counts.get(c, 0) + 1
        out = dots + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in dots))
    for spec in specs + [out]:
        if not all(c in string.ascii_letters for c in spec):
            raise ValueError(f"einsum: invalid subscripts in {equation!r}")
    if len(set(out)) != len(out):
        # (TensorFlow refuses it too)
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    for c in out:
        if not any(c in s for s in specs):
            raise ValueError(f"einsum: output subscript {c!r} does not appear in the inputs of {equation!r}")
    return specs, out


def _diagonals(x, spec):
    """x with each label repeated in its subscripts reduced to the diagonal: ("ii", x) -> ("i", diag(x))."""
    while len(set(spec)) != len(spec):
        c = next(c for c in spec if spec.count(c) > 1)
        first, second = spec.index(c), spec.index(c, spec.index(c) + 1)
        rest = [i for i in range(len(spec)) if i not in (first, second)]
        x = linalg_ops.matrix_diag_part(array_ops.transpose(x, rest + [first, second]))
        spec = "".join(spec[i] for i in rest) + c
    return x, spec


def _align(x, spec, labels):
    """x (subscripts `spec`) transposed to the order of `labels`, with size-1 dims for the labels it lacks."""
    present = [c for c in labels if c in spec]
    perm = [spec.index(c) for c in present]
    if perm != list(range(len(perm))):
        x = array_ops.transpose(x, perm)
    for axis, c in enumerate(labels):
        if c not in spec:
            x = array_ops.expand_dims(x, axis)
    return x


def _einsum_matmul(a, b, sa, sb, out):
    """Two operands of fully known shapes through one (batch) matmul."""
    size = {}
    for x, s in ((a, sa), (b, sb)):
        for c, d in zip(s, x.shape.as_list()):
            if size.setdefault(c, d) != d and 1 not in (size[c], d):
                raise ValueError(f"einsum: dimension {c!r} has sizes {size[c]} and {d}")
    # Labels only in one operand and not in the output are summed there first.
    only_a = [c for c in sa if c not in sb and c not in out]
    only_b = [c for c in sb if c not in sa and c not in out]
    if only_a:
        a = math_ops.reduce_sum(a, [sa.index(c) for c in only_a])
        sa = "".join(c for c in sa if c not in only_a)
    if only_b:
        b = math_ops.reduce_sum(b, [sb.index(c) for c in only_b])
        sb = "".join(c for c in sb if c not in only_b)
    if any(a.shape.as_list()[sa.index(c)] != b.shape.as_list()[sb.index(c)] for c in sa if c in sb):
        return None  # broadcast along a shared label: the general path
    batch = [c for c in out if c in sa and c in sb]
    free_a = [c for c in out if c in sa and c not in sb]
    free_b = [c for c in out if c in sb and c not in sa]
    contracted = [c for c in sa if c in sb and c not in out]

    def prod(labels):
        p = 1
        for c in labels:
            p *= size[c]
        return p

    a = _align(a, sa, batch + free_a + contracted)
    b = _align(b, sb, batch + contracted + free_b)
    a = array_ops.reshape(a, [prod(batch), prod(free_a), prod(contracted)])
    b = array_ops.reshape(b, [prod(batch), prod(contracted), prod(free_b)])
    product = math_ops.matmul(a, b)
    labels = batch + free_a + free_b
    product = array_ops.reshape(product, [size[c] for c in labels])
    perm = [labels.index(c) for c in out]
    return product if perm == list(range(len(perm))) else array_ops.transpose(product, perm)


def einsum(equation, *inputs, **kwargs):
    """Einstein summation: the product of the inputs summed over the subscripts missing from the output.

    Two operands of known shapes contract with one matmul; otherwise the operands are broadcast, multiplied and
    summed (TensorFlow has one Einsum op; values, shapes and gradients agree). Ellipses broadcast; a subscript
    repeated in an input takes its diagonal ("ii->i"); one repeated in the output is a ValueError, as in TF.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.einsum("ij,jk->ik", [[1.0, 2.0]], [[3.0], [4.0]])))
      [[11.]]
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"einsum: unexpected keyword arguments {sorted(kwargs)}")
    graph = ops.get_default_graph()
    with graph.name_scope(name or "einsum"):
        tensors = [ops.convert_to_tensor(x, name="inputs") for x in inputs]
        specs, out = _parse_einsum(equation, tensors)
        for i, (x, spec) in enumerate(zip(tensors, specs)):
            if x.shape.ndims is not None and x.shape.ndims != len(spec):
                raise ValueError(f"einsum: input of shape {x.shape} does not match subscripts {spec!r}")
            tensors[i], specs[i] = _diagonals(x, spec)
        if len(tensors) == 2 and all(t.shape.is_fully_defined() for t in tensors):
            result = _einsum_matmul(tensors[0], tensors[1], specs[0], specs[1], out)
            if result is not None:
                return result
        labels = list(out)
        for spec in specs:
            labels += [c for c in spec if c not in labels]
        product = _align(tensors[0], specs[0], labels)
        for x, spec in zip(tensors[1:], specs[1:]):
            product = product * _align(x, spec, labels)
        summed = list(range(len(out), len(labels)))
        result = math_ops.reduce_sum(product, summed) if summed else product
        # A label's size is known when any operand knows it (an unknown dim broadcast against a known one is not).
        sizes = {}
        for x, spec in zip(tensors, specs):
            if x.shape.ndims is not None:
                for c, d in zip(spec, x.shape.as_list()):
                    if d is not None:
                        sizes.setdefault(c, d)
        result.set_shape([sizes.get(c) for c in out])
        return result


def tensordot(a, b, axes, name=None):
    """Sums the products of a's and b's elements over the given axes (an int n: a's last n with b's first n; or
    two lists of axes). Built as einsum (one matmul when shapes are known).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.tensordot([[1.0, 2.0]], [[3.0], [4.0]], 1)))
      [[11.]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Tensordot"):
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b")
        ra, rb = a.shape.ndims, b.shape.ndims
        if ra is None or rb is None:
            raise ValueError("tensordot: the ranks of a and b must be known")
        if isinstance(axes, int):
            if axes < 0 or axes > ra:
                raise ValueError(f"'axes' must not be larger than the number of dimensions of tensor {a}, got {axes}")
            if axes > rb:  # TensorFlow's composite indexes b's shape past its end
                raise IndexError(f"tensordot: axes={axes} is larger than the rank of b, {rb}")
            axes_a, axes_b = list(range(ra - axes, ra)), list(range(axes))
        else:
            if len(axes) != 2:
                raise ValueError(f"'axes' must be an integer or have length 2, got {axes!r}")
            axes_a, axes_b = axes
            axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
            axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
            if len(axes_a) != len(axes_b):
                raise ValueError(f"Different number of contraction axes 'a' and 'b', {len(axes_a)} != {len(axes_b)}")
        for which, axes_x, rank in (("a", axes_a, ra), ("b", axes_b, rb)):
            bad = [x for x in axes_x if not -rank <= x < rank]
            if bad:  # TensorFlow's composite indexes the shape with it: IndexError
                raise IndexError(f"tensordot: axis {bad[0]} of {which} is out of range for a tensor of rank {rank}")
        axes_a = [x % ra for x in axes_a]
        axes_b = [x % rb for x in axes_b]
        letters = iter(string.ascii_letters)
        sa = [next(letters) for _ in range(ra)]
        sb = [next(letters) for _ in range(rb)]
        for i, j in zip(axes_a, axes_b):
            sb[j] = sa[i]
        out = [c for i, c in enumerate(sa) if i not in axes_a] + [c for j, c in enumerate(sb) if j not in axes_b]
        return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)
