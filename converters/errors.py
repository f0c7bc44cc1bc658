"""The one error type of the converters."""


class ConversionError(Exception):
    """A model cannot be converted: unsupported ops (all of them listed, each
    with its node name), a malformed input file, or an unsupported attribute
    value (naming the node)."""


def unsupported_ops_error(nodes, target):
    """One error naming every (node name, op type) in `nodes`."""
    listed = ", ".join(f"'{name}' ({op})" for name, op in nodes)
    count = len(nodes)
    return ConversionError(f"{count} op{'s' if count != 1 else ''} cannot be converted to {target}: {listed}")


class NodeError(Exception):
    """One node's attribute or input that a conversion rule cannot handle;
    collected over the whole graph by `convert_nodes`."""


def convert_nodes(items, convert, describe, target, malformed=()):
    """Calls convert(item) for every item, then raises one ConversionError
    listing every node that failed ("'name' (Op): reason"), not just the
    first. `describe(item)` gives "'name' (Op)". The exception classes in
    `malformed` (what a rule raises on attribute values or constants of a
    shape it does not expect, in a model from an untrusted file) are reported
    as that node's problem too, not as a traceback."""
    problems = []
    for item in items:
        try:
            convert(item)
        except (NodeError, ConversionError) as e:
            problems.append(f"{describe(item)}: {e}")
        except OverflowError as e:  # a hostile number that no int32/int64 field holds: named, not a traceback
            problems.append(f"{describe(item)}: {e}")
        except malformed as e:
            problems.append(f"{describe(item)}: malformed node ({type(e).__name__}: {e})")
    if problems:
        raise ConversionError(f"{len(problems)} ops cannot be converted to {target}: " + "; ".join(problems))
