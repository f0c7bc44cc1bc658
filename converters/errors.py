"""The one error type of the converters."""


class ConversionError(Exception):
    """A model cannot be converted: unsupported ops (all of them listed, each
    with its node name), a malformed input file, or an unsupported attribute
    value (naming the node)."""


def unsupported_ops_error(nodes, target):
    """One error naming every (node name, op type) in `nodes`."""
    listed = ", ".join(f"'{name}' ({op})" for name, op in nodes)
    count = len(nodes)
    return ConversionError(
        f"{count} op{'s' if count != 1 else ''} cannot be converted to {target}: {listed}"
    )
