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


# Op types that one of the two TensorFlow-graph tables converts and the other
# does not -- the tf->twl lowerings (tf_to_twl.LOWERINGS) and the ONNX
# exporters (onnx_export.EXPORTERS) -- each with the reason.
# tests/test_registry.py checks the tables against these lists.
ONLY_TO_TWL = {}
ONLY_TO_ONNX = {}


def table_differences(lowerings, exporters, only_to_twl=None, only_to_onnx=None):
    """Problems (strings) with two tables that should cover the same op types:
    an op type in one table only and not listed with a reason, and a listed
    difference that is no longer one."""
    only_to_twl = ONLY_TO_TWL if only_to_twl is None else only_to_twl
    only_to_onnx = ONLY_TO_ONNX if only_to_onnx is None else only_to_onnx
    problems = []
    for op in sorted(set(lowerings) - set(exporters)):
        if not only_to_twl.get(op):
            problems.append(f"{op}: lowered to .twl but not exported to ONNX, and not in ONLY_TO_TWL with a reason")
    for op in sorted(set(exporters) - set(lowerings)):
        if not only_to_onnx.get(op):
            problems.append(f"{op}: exported to ONNX but not lowered to .twl, and not in ONLY_TO_ONNX with a reason")
    for op in sorted(set(only_to_twl) - (set(lowerings) - set(exporters))):
        problems.append(f"{op}: listed in ONLY_TO_TWL but it is not a .twl-only op type (stale entry)")
    for op in sorted(set(only_to_onnx) - (set(exporters) - set(lowerings))):
        problems.append(f"{op}: listed in ONLY_TO_ONNX but it is not an ONNX-only op type (stale entry)")
    return problems
