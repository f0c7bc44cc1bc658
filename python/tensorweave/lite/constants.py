"""tw.lite.constants: the dtypes and output formats of TensorFlow 1's `tf.lite.constants`."""

from tensorweave._src.lite import (
    FLOAT,
    FLOAT16,
    GRAPHVIZ_DOT,
    INT8,
    INT16,
    INT32,
    INT64,
    QUANTIZED_UINT8,
    STRING,
    TFLITE,
)

__all__ = ["FLOAT", "FLOAT16", "GRAPHVIZ_DOT", "INT8", "INT16", "INT32", "INT64", "QUANTIZED_UINT8", "STRING", "TFLITE"]
