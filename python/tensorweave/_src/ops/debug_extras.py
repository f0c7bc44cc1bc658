"""tf.debugging's graph-building switches and assert_shapes.

enable_check_numerics (as TF's in graph mode): every op created afterwards through an op wrapper has each of
its floating-point outputs passed through CheckNumerics, so a step that computes a NaN or an Inf fails with
InvalidArgumentError naming the op. Ops created before the call are not instrumented.
"""

import collections

from tensorweave._src.framework import errors
from tensorweave._src.framework import ops
from tensorweave._src.ops import gen_ops

_state = {"log_device_placement": False, "traceback_filtering": True}

# Ops whose outputs are not instrumented: variables and their reads, constants, the check itself, and the
# control-flow primitives (cond and while_loop rewire their outputs after creation).
_UNCHECKED_OPS = frozenset(
    (
        "CheckNumerics",
        "CheckNumericsV2",
        "Const",
        "Identity",
        "VariableV2",
        "Variable",
        "VarHandleOp",
        "ReadVariableOp",
        "Assign",
        "AssignAdd",
        "AssignSub",
        "ScatterUpdate",
        "ScatterAdd",
        "ScatterSub",
        "Enter",
        "RefEnter",
        "Exit",
        "RefExit",
        "Merge",
        "RefMerge",
        "Switch",
        "RefSwitch",
        "NextIteration",
        "RefNextIteration",
        "LoopCond",
    )
)


def _check_outputs(operation, result):
    if operation.type in _UNCHECKED_OPS or operation.type.startswith(("TensorArray", "Stack")):
        return result

    def check(t, index):
        if not isinstance(t, ops.Tensor) or not t.dtype.is_floating or t.dtype.name.endswith("_ref"):
            return t
        message = f'Detected Infinity or NaN in output {index} of graph op "{operation.type}" ({operation.name})'
        with operation.graph.name_scope(operation.name + "/"):
            return gen_ops.check_numerics(t, message, name="CheckNumerics")

    if isinstance(result, ops.Tensor):
        return check(result, 0)
    if isinstance(result, tuple) and hasattr(result, "_fields"):
        index = 0
        fields = []
        for item in result:
            if isinstance(item, list):
                fields.append([check(t, index + i) for i, t in enumerate(item)])
                index += len(item)
            else:
                fields.append(check(item, index))
                index += 1
        return type(result)(*fields)
    if isinstance(result, list):
        return [check(t, i) for i, t in enumerate(result)]
    return result


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Ops created from now on check their floating-point outputs for NaN and Inf (see the module doc)."""
    del stack_height_limit, path_length_limit
    if _check_outputs not in gen_ops._output_hooks:
        gen_ops._output_hooks.append(_check_outputs)


def disable_check_numerics():
    """Ops created from now on are no longer instrumented (the checks already added stay)."""
    if _check_outputs in gen_ops._output_hooks:
        gen_ops._output_hooks.remove(_check_outputs)


def set_log_device_placement(enabled):
    """Records whether op placements are logged (a session's ConfigProto.log_device_placement does the logging)."""
    _state["log_device_placement"] = bool(enabled)


def get_log_device_placement():
    return _state["log_device_placement"]


def enable_traceback_filtering():
    _state["traceback_filtering"] = True


def disable_traceback_filtering():
    _state["traceback_filtering"] = False


def is_traceback_filtering_enabled():
    return _state["traceback_filtering"]


_Sizes = collections.namedtuple("_Sizes", ["x", "unspecified_dim", "actual_sizes", "symbolic_sizes"])


def _has_known_value(size):
    if size is None:
        return False
    try:
        int(size)
    except (ValueError, TypeError):
        return False
    return True


def _dimension_sizes(x):
    import tensorweave as tw

    rank = x.shape.ndims
    if rank == 0:
        return (1,)
    dynamic = tw.shape(x)
    if rank is not None:
        return [int(s) if s is not None else dynamic[i] for i, s in enumerate(x.shape.as_list())]
    return tw.cond(tw.equal(tw.rank(x), 0), lambda: tw.constant([1]), lambda: dynamic)


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """TF's assert_shapes: `shapes` is a list of (tensor, shape) pairs (or a dict); shape entries are sizes,
    symbols (the same symbol means the same size across tensors), None or '.' (any size), and a first `...`
    or '*' (any number of outer dimensions). A violation known while building is a ValueError; the others
    are checked when the returned op runs (InvalidArgumentError). Returns a no_op when all checks are static."""
    import tensorweave as tw
    from tensorweave._src.framework.sparse_tensor import SparseTensor

    if isinstance(shapes, dict):
        shapes = shapes.items()
    prefix = f"{message}.  " if message else ""
    with ops.name_scope(name, "assert_shapes"):
        constraints = [
            (x if isinstance(x, SparseTensor) else ops.convert_to_tensor(x), s) for x, s in shapes if s is not None
        ]

        def tensor_name(x):
            return f"{x.dtype.name}{list(x.shape)}" if isinstance(x, SparseTensor) else x.name

        all_sizes = []
        for tensor, symbolic in constraints:
            if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
                raise ValueError(
                    f"{prefix}Tensor {tensor_name(tensor)}.  Specified shape must be an iterable.  An iterable has "
                    f"the attribute `__iter__` or `__getitem__`.  Received specified shape: {symbolic}"
                )
            symbolic = tuple(symbolic)
            innermost = False
            for i, symbol in enumerate(symbolic):
                if symbol is Ellipsis or (isinstance(symbol, str) and symbol == "*"):
                    if i != 0:
                        raise ValueError(
                            f"{prefix}Tensor {tensor_name(tensor)} specified shape index {i}.  Symbol `...` or `*` "
                            "for a variable number of unspecified dimensions is only allowed as the first entry"
                        )
                    innermost = True
            symbols = symbolic[1:] if innermost else symbolic
            all_sizes.append(_Sizes(tensor, innermost, _dimension_sizes(tensor), symbols or (1,)))

        rank_assertions = []
        for sizes in all_sizes:
            rank = len(sizes.symbolic_sizes)
            if sizes.unspecified_dim:
                if rank in (0, 1):
                    continue
                check = tw.debugging.assert_rank_at_least(sizes.x, rank, data, summarize, message, name)
            elif rank in (0, 1):
                check = tw.debugging.assert_rank_in(sizes.x, [0, 1], data, summarize, message, name)
            else:
                check = tw.debugging.assert_rank(sizes.x, rank, data, summarize, message, name)
            rank_assertions.append(check)
        rank_assertions = [a for a in rank_assertions if a is not None]

        size_assertions = []
        specified = {}
        for sizes in all_sizes:
            for i, symbol in enumerate(sizes.symbolic_sizes):
                if symbol is None or (isinstance(symbol, str) and symbol == "."):
                    continue
                dim = i - len(sizes.symbolic_sizes) if sizes.unspecified_dim else i
                if _has_known_value(symbol) or symbol in specified:
                    if _has_known_value(symbol):
                        want, how = int(symbol), "Specified explicitly"
                    else:
                        want, by, at = specified[symbol]
                        how = f"Specified by tensor {tensor_name(by)} dimension {at}"
                    with ops.control_dependencies(rank_assertions):
                        actual = sizes.actual_sizes[dim]
                    if _has_known_value(actual) and _has_known_value(want):
                        if int(actual) != int(want):
                            raise ValueError(
                                f"{prefix}{how}.  Tensor {tensor_name(sizes.x)} dimension {dim} must have size "
                                f"{int(want)}.  Received size {int(actual)}, shape {sizes.x.shape}"
                            )
                        continue
                    condition = tw.equal(ops.convert_to_tensor(actual), ops.convert_to_tensor(want))
                    data_ = data
                    if data is None:
                        data_ = [
                            prefix,
                            how,
                            f"Tensor {tensor_name(sizes.x)} dimension",
                            dim,
                            "must have size",
                            want,
                            "Received shape: ",
                            tw.shape(sizes.x),
                        ]
                    size_assertions.append(tw.Assert(condition, data_, summarize=summarize))
                else:
                    with ops.control_dependencies(rank_assertions):
                        specified[symbol] = (sizes.actual_sizes[dim], sizes.x, dim)
    with ops.control_dependencies(rank_assertions):
        return tw.group(*size_assertions)


def error_code_from_exception_type(cls):
    """The error code of an OpError class (TF warns and returns an UnknownError for any other class)."""
    for code, klass in errors._CODE_TO_CLASS.items():
        if klass is cls:
            return code
    import warnings

    warnings.warn("Unknown class exception", stacklevel=2)
    return errors.UnknownError(None, None, "Unknown class exception", None)


class _Status:
    """A status to fill: `code` (0 is OK) and `message`."""

    def __init__(self):
        self.code = 0
        self.message = ""


class raise_exception_on_not_ok_status:
    """Context manager giving a status object; leaving it raises the OpError of its code when not OK."""

    def __enter__(self):
        self.status = _Status()
        return self.status

    def __exit__(self, *exc):
        try:
            if self.status.code != 0:
                raise errors.exception_type_from_error_code(self.status.code)(None, None, self.status.message)
        finally:
            del self.status
        return False
