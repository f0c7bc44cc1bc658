"""tw.estimator: TensorFlow 1's high-level training API — `Estimator` over a model_fn, the canned DNN,
linear, combined and baseline classifiers and regressors over feature columns, `train_and_evaluate`, input
functions over numpy arrays (`tw.estimator.inputs`) and exporting for serving (`tw.estimator.export`).

Example:
  >>> import numpy as np, tempfile
  >>> import tensorweave as tw
  >>> x = np.random.RandomState(0).randn(200, 2).astype(np.float32)
  >>> y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
  >>> est = tw.estimator.LinearClassifier([tw.feature_column.numeric_column("x", shape=[2])],
  ...                                     model_dir=tempfile.mkdtemp())
  >>> _ = est.train(tw.estimator.inputs.numpy_input_fn({"x": x}, y, num_epochs=None, shuffle=True), steps=100)
  >>> result = est.evaluate(tw.estimator.inputs.numpy_input_fn({"x": x}, y, shuffle=False))
  >>> print(bool(result["accuracy"] > 0.9), result["global_step"])
  True 100
"""

from tensorweave._src.estimator.canned import BaselineClassifier
from tensorweave._src.estimator.canned import BaselineRegressor
from tensorweave._src.estimator.canned import DNNClassifier
from tensorweave._src.estimator.canned import DNNLinearCombinedClassifier
from tensorweave._src.estimator.canned import DNNLinearCombinedRegressor
from tensorweave._src.estimator.canned import DNNRegressor
from tensorweave._src.estimator.canned import LinearClassifier
from tensorweave._src.estimator.canned import LinearRegressor
from tensorweave._src.estimator.estimator import Estimator
from tensorweave._src.estimator.model_fn import EstimatorSpec
from tensorweave._src.estimator.model_fn import ModeKeys
from tensorweave._src.estimator.run_config import RunConfig
from tensorweave._src.estimator.training import EvalSpec
from tensorweave._src.estimator.training import Exporter
from tensorweave._src.estimator.training import FinalExporter
from tensorweave._src.estimator.training import LatestExporter
from tensorweave._src.estimator.training import TrainSpec
from tensorweave._src.estimator.training import train_and_evaluate
from tensorweave._src.estimator.warm_starting import WarmStartSettings
from tensorweave.estimator import export
from tensorweave.estimator import inputs
