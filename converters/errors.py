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


def convert_nodes(items, convert, describe, target):
    """Calls convert(item) for every item, then raises one ConversionError
    listing every node that failed ("'name' (Op): reason"), not just the
    first. `describe(item)` gives "'name' (Op)"."""
    problems = []
    for item in items:
        try:
            convert(item)
        except (NodeError, ConversionError) as e:
            problems.append(f"{describe(item)}: {e}")
        except OverflowError as e:  # a hostile number that no int32/int64 field holds: named, not a traceback
            problems.append(f"{describe(item)}: {e}")
    if problems:
        raise ConversionError(f"{len(problems)} ops cannot be converted to {target}: " + "; ".join(problems))
