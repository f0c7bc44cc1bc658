"""tw.lite: TensorFlow 1's `tf.lite` — `TFLiteConverter` writes a lite model of a session's graph, a frozen
GraphDef, a SavedModel or a Keras model file, and `Interpreter` runs it on tensorweave's lite runtime.

The converted model is a `.twl` file (tensorweave's flatbuffer, the format of `tensorweave-convert`), not a
TensorFlow Lite flatbuffer: `tw.lite.Interpreter`, the lite runtime's C, Java and Python APIs run it.

Example:
  >>> import numpy as np, tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     x = tw.placeholder(tw.float32, [None, 2], name="x")
  ...     y = tw.identity(2.0 * x, name="y")
  ...     model = tw.lite.TFLiteConverter.from_session(sess, [x], [y]).convert()
  >>> interpreter = tw.lite.Interpreter(model_content=model)  # doctest: +SKIP
  >>> interpreter.allocate_tensors()  # doctest: +SKIP
  >>> interpreter.set_tensor(interpreter.get_input_details()[0]["index"], np.ones((1, 2), np.float32))
  ... # doctest: +SKIP
  >>> interpreter.invoke()  # doctest: +SKIP
  >>> interpreter.get_tensor(interpreter.get_output_details()[0]["index"])  # doctest: +SKIP
  array([[2., 2.]], dtype=float32)
"""

from tensorweave._src.lite import (
    Interpreter,
    OpsSet,
    Optimize,
    RepresentativeDataset,
    TargetSpec,
    TFLiteConverter,
    TocoConverter,
    toco_convert,
)
from tensorweave.lite import constants, experimental

__all__ = [
    "Interpreter",
    "OpsSet",
    "Optimize",
    "RepresentativeDataset",
    "TFLiteConverter",
    "TargetSpec",
    "TocoConverter",
    "constants",
    "experimental",
    "toco_convert",
]
