"""tf.nest: nested structures of lists, tuples, namedtuples and dicts (dict values in sorted key order).

tf.data's structure helper (_src/data/structure.py) treats lists as leaves, as tf.data does; tf.nest treats them as
structures, hence this module.
"""

import collections.abc as _abc

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def is_nested(seq):
    """True for lists, tuples (namedtuples too) and mappings; strings and everything else are leaves."""
    return isinstance(seq, (list, tuple, _abc.Mapping))


def _sorted(keys):
    try:
        return sorted(keys)
    except TypeError:
        return list(keys)


def _children(seq):
    if isinstance(seq, _abc.Mapping):
        return [seq[k] for k in _sorted(seq)]
    return list(seq)


def flatten(structure, expand_composites=False):
    """The leaves of `structure`, depth first; a leaf gives [leaf]; None is a leaf."""
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _rebuild(instance, values):
    if isinstance(instance, _abc.Mapping):
        by_key = dict(zip(_sorted(instance), values))
        return type(instance)((k, by_key[k]) for k in instance)
    if isinstance(instance, tuple) and hasattr(instance, "_fields"):
        return type(instance)(*values)
    return type(instance)(values)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """`flat_sequence` packed into the nesting of `structure`."""
    if not is_nested(flat_sequence):
        raise TypeError(
            f"Attempted to pack value:\n  {flat_sequence}\ninto a structure, but found incompatible type `{type(flat_sequence)}` instead."
        )
    flat_sequence = list(flat_sequence)
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"The target structure is of type `{type(structure)}`\n  {structure}\nHowever the input is a sequence ({type(flat_sequence)}) of length {len(flat_sequence)}.\n  {flat_sequence}\nnest cannot guarantee that it is safe to map one to the other."
            )
        return flat_sequence[0]
    expected = len(flatten(structure))
    if expected != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {expected} atoms, but flat_sequence had {len(flat_sequence)} items. "
            f"Structure: {structure}, flat_sequence: {flat_sequence}."
        )
    it = iter(flat_sequence)

    def build(s):
        if not is_nested(s):
            return next(it)
        return _rebuild(s, [build(c) for c in _children(s)])

    return build(structure)


def _check(a, b, check_types):
    if is_nested(a) != is_nested(b):
        raise ValueError(
            f"The two structures don't have the same nested structure.\n\nFirst structure: {a}\n\nSecond structure: {b}"
        )
    if not is_nested(a):
        return
    if check_types:
        ta, tb = type(a), type(b)
        if ta is not tb and not (isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping)):
            raise TypeError(
                f"The two structures don't have the same sequence type. Input structure has type {ta}, while "
                f"shallow structure has type {tb}."
            )
    if isinstance(a, _abc.Mapping) and set(a) != set(b):
        raise ValueError(
            f"The two dictionaries don't have the same set of keys. First structure has keys {list(a)}, while second structure has keys {list(b)}."
        )
    if len(a) != len(b):
        raise ValueError(
            f"The two structures don't have the same nested structure.\n\nFirst structure: {a}\n\nSecond structure: {b}"
        )
    for x, y in zip(_children(a), _children(b)):
        _check(x, y, check_types)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """ValueError when the nestings differ, TypeError when (with check_types) the sequence types differ."""
    _check(nest1, nest2, check_types)


def map_structure(func, *structure, **kwargs):
    """func applied to the leaves of the structures (which must match), packed as the first."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: `{kwargs}`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)])
