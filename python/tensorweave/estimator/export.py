"""tw.estimator.export: serving input receivers and the outputs of an exported model's signatures."""

from tensorweave._src.estimator.export import ClassificationOutput
from tensorweave._src.estimator.export import ExportOutput
from tensorweave._src.estimator.export import PredictOutput
from tensorweave._src.estimator.export import RegressionOutput
from tensorweave._src.estimator.export import ServingInputReceiver
from tensorweave._src.estimator.export import TensorServingInputReceiver
from tensorweave._src.estimator.export import build_parsing_serving_input_receiver_fn
from tensorweave._src.estimator.export import build_raw_serving_input_receiver_fn
