"""Conversion tables: one entry per op type, filled by decorators."""


def registrar(table):
    """A decorator factory filling `table`: `@registers("Relu", "Relu6")`
    maps each op type to the decorated function."""

    def registers(*op_types):
        def register(fn):
            for op in op_types:
                table[op] = fn
            return fn

        return register

    return registers
