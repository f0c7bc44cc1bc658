"""tw.estimator.inputs: input functions over numpy arrays and pandas DataFrames."""

from tensorweave._src.estimator.inputs import numpy_input_fn
from tensorweave._src.estimator.inputs import pandas_input_fn
