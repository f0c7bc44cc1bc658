"""Nested structures as TensorFlow's `nest` treats them: lists, tuples, namedtuples and dicts (in key order) are
sequences, everything else a leaf. cond and while_loop flatten their results and loop variables with these and
check that two structures match, with nest's error classes and messages.

Example:
  >>> from tensorweave._src.framework import nest
  >>> nest.flatten({"b": 1, "a": (2, [3])})
  [2, 3, 1]
"""


def _is_sequence(x):
    return isinstance(x, (list, tuple, dict))


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def flatten(structure, is_sequence=_is_sequence):
    """The leaves of a nested structure, depth first (dict values in key order). `is_sequence` says what nests
    (tf.data's structures do not nest lists)."""
    if not is_sequence(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child, is_sequence))
    return out


def _sequence_like(instance, values):
    if isinstance(instance, dict):
        result = dict(zip(_sorted_keys(instance), values))
        return type(instance)((k, result[k]) for k in instance)
    if isinstance(instance, tuple) and hasattr(instance, "_fields"):
        return type(instance)(*values)
    return type(instance)(values)


def pack_sequence_as(structure, flat_sequence, is_sequence=_is_sequence):
    """`flat_sequence` packed into the nesting of `structure`."""
    flat_sequence = list(flat_sequence)

    def pack(s, index):
        if not is_sequence(s):
            return flat_sequence[index], index + 1
        packed = []
        for child in _children(s):
            value, index = pack(child, index)
            packed.append(value)
        return _sequence_like(s, packed), index

    if len(flatten(structure, is_sequence)) != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {len(flatten(structure, is_sequence))} elements, but flat_sequence had "
            f"{len(flat_sequence)} elements."
        )
    return pack(structure, 0)[0]


def map_structure(fn, *structures):
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*xs) for xs in zip(*flats)])


def assert_same_structure(first, second, check_types=True):
    """ValueError when the nestings differ, TypeError when sequence types differ (TF's nest messages)."""
    header = "The two structures don't have the same nested structure.\n\n"
    both = f"First structure: type={type(first).__name__} str={first}\n\nSecond structure: type={type(second).__name__} str={second}\n\n"

    def check(a, b):
        if _is_sequence(a) != _is_sequence(b):
            seq, other = (a, b) if _is_sequence(a) else (b, a)
            raise ValueError(
                header + both + f'More specifically: Substructure "type={type(seq).__name__} str={seq}" is a '
                f'sequence, while substructure "type={type(other).__name__} str={other}" is not'
            )
        if not _is_sequence(a):
            return
        if check_types and type(a) is not type(b):
            raise TypeError(
                header + both + f"More specifically: The two namedtuples don't have the same sequence type. "
                f"First structure type={type(a).__name__} str={a} has type {type(a).__name__}, while second "
                f"structure type={type(b).__name__} str={b} has type {type(b).__name__}"
            )
        if isinstance(a, dict) and set(a) != set(b):
            raise ValueError(
                header + both + "More specifically: The two dictionaries don't have the same set of keys. First "
                f"structure has keys type=list str={_sorted_keys(a)}, while second structure has keys type=list "
                f"str={_sorted_keys(b)}"
            )
        if len(a) != len(b):
            raise ValueError(
                header + both + f'More specifically: Substructure "type={type(a).__name__} str={a}" has length '
                f'{len(a)}, while substructure "type={type(b).__name__} str={b}" has length {len(b)}'
            )
        for x, y in zip(_children(a), _children(b)):
            check(x, y)

    check(first, second)
