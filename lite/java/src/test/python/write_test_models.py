"""Writes the Java tests' models and expected values into a directory.

    python3 lite/java/src/test/python/write_test_models.py OUT_DIR

Models are written with the lite Python tests' writer (lite/python/tests/
twl_writer.py; needs flatc, flatbuffers and numpy). Expected values are
computed here with numpy, independently of the runtime, and written as raw
little-endian arrays:

  mlp.twl            x [batch, 4] -> FC 8 + relu -> FC 3 -> softmax -> probs
                     (dynamic batch, built with batch 1)
  mlp_x.f32          3 x 4 inputs;  mlp_probs.f32: the 3 x 3 expected probs
  add_sub_f32.twl    a, b [2, 3] -> sum_relu = relu(a + b), diff = a - b
  add_sub_i32.twl    the same in int32 (sum without relu)
  add_sub_i64.twl    the same in int64
  reshape_<type>.twl x [2, 3] of <type> -> RESHAPE [3, 2] -> y, for every
                     element type (the bytes pass through unchanged)
"""

import os
import sys

import numpy as np

_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))
sys.path.insert(0, os.path.join(_ROOT, "lite", "python", "tests"))

import twl_writer  # after the path insert above

# Element types by their .twl codes (c_api.h: TwlType), named as the Java
# DataType enum names them.
TYPES = {
    "float32": (np.float32, 0),
    "int32": (np.int32, 1),
    "int64": (np.int64, 2),
    "uint8": (np.uint8, 3),
    "int8": (np.int8, 4),
    "bool": (np.bool_, 5),
    "float64": (np.float64, 6),
    "int16": (np.int16, 7),
    "uint16": (np.uint16, 8),
    "uint32": (np.uint32, 9),
    "uint64": (np.uint64, 10),
    "float16": (np.float16, 11),
}
for _dtype, _code in TYPES.values():
    twl_writer._DTYPE_CODES.setdefault(np.dtype(_dtype), _code)


def reshape_model(dtype):
    w = twl_writer.ModelWriter()
    x = w.add_tensor("x", dtype, [2, 3])
    shape = w.add_constant("shape", np.array([3, 2], np.int32))
    y = w.add_tensor("y", dtype, [3, 2])
    w.add_operator("RESHAPE", [x, shape], [y])
    w.set_io([x], [y])
    return w.finish()


def main(out):
    os.makedirs(out, exist_ok=True)

    def write(name, data):
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)

    model, params = twl_writer.mlp(sizes=(4, 8, 3), batch=1, seed=7)
    write("mlp.twl", model)
    x = np.random.default_rng(3).uniform(-2, 2, (3, 4)).astype(np.float32)
    write("mlp_x.f32", x.astype("<f4").tobytes())
    write("mlp_probs.f32", twl_writer.mlp_reference(x, params).astype("<f4").tobytes())
    for dtype, suffix in ((np.float32, "f32"), (np.int32, "i32"), (np.int64, "i64")):
        write(f"add_sub_{suffix}.twl", twl_writer.two_outputs(dtype))
    for name, (dtype, _) in TYPES.items():
        write(f"reshape_{name}.twl", reshape_model(dtype))
    print(f"wrote {len(os.listdir(out))} files to {out}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
