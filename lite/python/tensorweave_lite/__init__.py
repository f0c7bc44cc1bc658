"""tensorweave-lite: run .twl models from Python.

The API follows TensorFlow Lite's ``tf.lite.Interpreter``::

    >>> import numpy as np, tensorweave_lite as twl          # doctest: +SKIP
    >>> interpreter = twl.Interpreter(model_path="mlp.twl")  # doctest: +SKIP
    >>> interpreter.allocate_tensors()                       # doctest: +SKIP
    >>> x = interpreter.get_input_details()[0]               # doctest: +SKIP
    >>> interpreter.set_tensor(x["index"], np.zeros(x["shape"], x["dtype"]))
    >>> interpreter.invoke()                                 # doctest: +SKIP
    >>> y = interpreter.get_output_details()[0]              # doctest: +SKIP
    >>> probs = interpreter.get_tensor(y["index"])           # doctest: +SKIP

Importing this package loads numpy and one small extension module, nothing
else.
"""

from tensorweave_lite._src.interpreter import Interpreter, SignatureRunner

__all__ = ["Interpreter", "SignatureRunner"]
__version__ = "0.1.0"
