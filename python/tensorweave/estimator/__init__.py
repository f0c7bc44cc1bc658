"""tw.estimator: TensorFlow 1's high-level training API — `Estimator` over a model_fn, the canned DNN,
linear, combined and baseline classifiers and regressors over feature columns, `train_and_evaluate`, input
functions over numpy arrays (`tw.estimator.inputs`) and exporting for serving (`tw.estimator.export`), and
the session-run hooks under TF1's tf.estimator names.

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
from tensorweave._src.estimator.extras import add_metrics
from tensorweave._src.estimator.extras import classifier_parse_example_spec
from tensorweave._src.estimator.extras import regressor_parse_example_spec
from tensorweave._src.estimator.model_fn import EstimatorSpec
from tensorweave._src.estimator.model_fn import ModeKeys
from tensorweave._src.estimator.run_config import RunConfig
from tensorweave._src.estimator.training import BestExporter
from tensorweave._src.estimator.training import EvalSpec
from tensorweave._src.estimator.training import Exporter
from tensorweave._src.estimator.training import FinalExporter
from tensorweave._src.estimator.training import LatestExporter
from tensorweave._src.estimator.training import TrainSpec
from tensorweave._src.estimator.training import train_and_evaluate
from tensorweave._src.estimator.warm_starting import WarmStartSettings
from tensorweave._src.training.basic_session_run_hooks import CheckpointSaverHook
from tensorweave._src.training.basic_session_run_hooks import CheckpointSaverListener
from tensorweave._src.training.basic_session_run_hooks import FeedFnHook
from tensorweave._src.training.basic_session_run_hooks import FinalOpsHook
from tensorweave._src.training.basic_session_run_hooks import GlobalStepWaiterHook
from tensorweave._src.training.basic_session_run_hooks import LoggingTensorHook
from tensorweave._src.training.basic_session_run_hooks import NanLossDuringTrainingError
from tensorweave._src.training.basic_session_run_hooks import NanTensorHook
from tensorweave._src.training.basic_session_run_hooks import ProfilerHook
from tensorweave._src.training.basic_session_run_hooks import SecondOrStepTimer
from tensorweave._src.training.basic_session_run_hooks import StepCounterHook
from tensorweave._src.training.basic_session_run_hooks import StopAtStepHook
from tensorweave._src.training.basic_session_run_hooks import SummarySaverHook
from tensorweave._src.training.session_run_hook import SessionRunArgs
from tensorweave._src.training.session_run_hook import SessionRunContext
from tensorweave._src.training.session_run_hook import SessionRunHook
from tensorweave._src.training.session_run_hook import SessionRunValues
from tensorweave.estimator import export
from tensorweave.estimator import inputs
