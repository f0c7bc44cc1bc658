"""Unique names in a model being written (.twl tensors, ONNX values): no
dependencies, so that every writer can use it."""


def unique_name(taken, name):
    """`name`, or the first of name_1, name_2, ... not in the set `taken`;
    added to `taken`.

      >>> taken = {"x"}
      >>> unique_name(taken, "x"), unique_name(taken, "x"), sorted(taken)
      ('x_1', 'x_2', ['x', 'x_1', 'x_2'])
    """
    base, n = name, 1
    while name in taken:
        name = f"{base}_{n}"
        n += 1
    taken.add(name)
    return name
