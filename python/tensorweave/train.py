"""tw.train: optimizers, learning-rate schedules, the global step and
checkpoints (TensorFlow v1's `tf.train`).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     w = tw.Variable([0.0], name="w")
  ...     step = tw.train.get_or_create_global_step()
  ...     train = tw.train.AdamOptimizer(0.1).apply_gradients([([1.0], w)], global_step=step)
  ...     sess.run(tw.global_variables_initializer())
  ...     sess.run(train)
  ...     print(sess.run(step))
  1
"""

from tensorweave._src.training.adadelta import AdadeltaOptimizer
from tensorweave._src.training.adagrad import AdagradOptimizer
from tensorweave._src.training.adagrad_da import AdagradDAOptimizer
from tensorweave._src.training.adam import AdamOptimizer
from tensorweave._src.training.device_setter import GreedyLoadBalancingStrategy
from tensorweave._src.training.device_setter import byte_size_load_fn
from tensorweave._src.training.device_setter import replica_device_setter
from tensorweave.distributed.cluster_spec import ClusterSpec
from tensorweave.distributed.server import Server
from tensorweave.distributed.server import ServerDef
from tensorweave._src.training.graph_io import write_graph
from tensorweave._src.training.gradient_descent import GradientDescentOptimizer
from tensorweave._src.training.learning_rate_decay import cosine_decay
from tensorweave._src.training.learning_rate_decay import cosine_decay_restarts
from tensorweave._src.training.learning_rate_decay import exponential_decay
from tensorweave._src.training.learning_rate_decay import inverse_time_decay
from tensorweave._src.training.learning_rate_decay import linear_cosine_decay
from tensorweave._src.training.learning_rate_decay import natural_exp_decay
from tensorweave._src.training.learning_rate_decay import noisy_linear_cosine_decay
from tensorweave._src.training.learning_rate_decay import piecewise_constant
from tensorweave._src.training.learning_rate_decay import piecewise_constant as piecewise_constant_decay
from tensorweave._src.training.learning_rate_decay import polynomial_decay
from tensorweave._src.ops.file_ops import match_filenames_once
from tensorweave._src.training.basic_session_run_hooks import CheckpointSaverHook
from tensorweave._src.training.basic_session_run_hooks import CheckpointSaverListener
from tensorweave._src.training.basic_session_run_hooks import FeedFnHook
from tensorweave._src.training.basic_session_run_hooks import FinalOpsHook
from tensorweave._src.training.basic_session_run_hooks import GlobalStepWaiterHook
from tensorweave._src.training.basic_session_run_hooks import LoggingTensorHook
from tensorweave._src.training.basic_session_run_hooks import NanLossDuringTrainingError
from tensorweave._src.training.basic_session_run_hooks import NanTensorHook
from tensorweave._src.training.basic_session_run_hooks import SecondOrStepTimer
from tensorweave._src.training.basic_session_run_hooks import StepCounterHook
from tensorweave._src.training.basic_session_run_hooks import StopAtStepHook
from tensorweave._src.training.basic_session_run_hooks import SummarySaverHook
from tensorweave._src.training.basic_session_run_hooks import ProfilerHook
from tensorweave._src.summary.writer import summary_iterator
from tensorweave._src.training.checkpoint_management import VocabInfo
from tensorweave._src.training.checkpoint_management import checkpoints_iterator
from tensorweave._src.training.checkpoint_management import generate_checkpoint_state_proto
from tensorweave._src.training.checkpoint_management import get_checkpoint_mtimes
from tensorweave._src.training.checkpoint_management import remove_checkpoint
from tensorweave._src.training.checkpoint_utils import NewCheckpointReader
from tensorweave._src.training.coordinator import Coordinator
from tensorweave._src.training.object_checkpoint import Checkpoint, CheckpointManager, CheckpointOptions
from tensorweave._src.training.coordinator import LooperThread
from tensorweave._src.training.input import batch
from tensorweave._src.training.input import batch_join
from tensorweave._src.training.input import input_producer
from tensorweave._src.training.input import limit_epochs
from tensorweave._src.training.input import range_input_producer
from tensorweave._src.training.input import shuffle_batch
from tensorweave._src.training.input import shuffle_batch_join
from tensorweave._src.training.input import maybe_batch
from tensorweave._src.training.input import maybe_batch_join
from tensorweave._src.training.input import maybe_shuffle_batch
from tensorweave._src.training.input import maybe_shuffle_batch_join
from tensorweave._src.training.input import slice_input_producer
from tensorweave._src.training.input import string_input_producer
from tensorweave._src.training.queue_runner import QueueRunner
from tensorweave._src.training.queue_runner import add_queue_runner
from tensorweave._src.training.queue_runner import start_queue_runners
from tensorweave._src.training import queue_runner
from tensorweave._src.training.checkpoint_utils import init_from_checkpoint
from tensorweave._src.training.checkpoint_utils import list_variables
from tensorweave._src.training.checkpoint_utils import load_checkpoint
from tensorweave._src.training.checkpoint_utils import load_variable
from tensorweave._src.training.checkpoint_utils import warm_start
from tensorweave._src.training.ftrl import FtrlOptimizer
from tensorweave._src.training.meta_graph import export_meta_graph
from tensorweave._src.training.meta_graph import import_meta_graph
from tensorweave._src.training.momentum import MomentumOptimizer
from tensorweave._src.training.monitored_session import ChiefSessionCreator
from tensorweave._src.training.monitored_session import MonitoredSession
from tensorweave._src.training.monitored_session import MonitoredTrainingSession
from tensorweave._src.training.monitored_session import Scaffold
from tensorweave._src.training.monitored_session import SessionCreator
from tensorweave._src.training.monitored_session import SessionManager
from tensorweave._src.training.monitored_session import SingularMonitoredSession
from tensorweave._src.training.monitored_session import WorkerSessionCreator
from tensorweave._src.training.moving_averages import ExponentialMovingAverage
from tensorweave._src.training.optimizer import Optimizer
from tensorweave._src.training.proximal import ProximalAdagradOptimizer
from tensorweave._src.training.proximal import ProximalGradientDescentOptimizer
from tensorweave._src.training.rmsprop import RMSPropOptimizer
from tensorweave._src.training.saver import Saver
from tensorweave._src.training.session_run_hook import SessionRunArgs
from tensorweave._src.training.supervisor import Supervisor
from tensorweave._src.training.sync_replicas_optimizer import SyncReplicasOptimizer
from tensorweave._src.training.supervisor import basic_train_loop
from tensorweave._src.training.session_run_hook import SessionRunContext
from tensorweave._src.training.session_run_hook import SessionRunHook
from tensorweave._src.training.session_run_hook import SessionRunValues
from tensorweave._src.training.saver import get_checkpoint_state
from tensorweave._src.training.saver import latest_checkpoint
from tensorweave._src.training.saver import update_checkpoint_state
from tensorweave._src.training.saver import checkpoint_exists
from tensorweave._src.training.training_util import assert_global_step
from tensorweave._src.training.training_util import create_global_step
from tensorweave._src.training.training_util import get_global_step
from tensorweave._src.training.training_util import get_or_create_global_step
from tensorweave._src.training.training_util import global_step


_EXAMPLE_PROTOS = (
    "BytesList",
    "Example",
    "Feature",
    "FeatureList",
    "FeatureLists",
    "Features",
    "FloatList",
    "Int64List",
    "SequenceExample",
)


def _experimental_namespace():
    """`train.experimental`: the mixed-precision loss scaling of TF 1.14+."""
    import sys
    import types

    from tensorweave._src.training import loss_scale

    module = types.ModuleType(__name__ + ".experimental", "tf.train.experimental: mixed-precision loss scaling.")
    for name in loss_scale.__all__:
        setattr(module, name, getattr(loss_scale, name))
    sys.modules.setdefault(module.__name__, module)
    return module


experimental = _experimental_namespace()


def __getattr__(name):
    # The protobuf classes (SaverDef; ClusterDef and JobDef; Example and its parts, byte-compatible with
    # TensorFlow's) are loaded on first use, so that `import tensorweave` does not load protobuf.
    if name == "SaverDef":
        from tensorweave._src.framework.meta_graph_pb2 import SaverDef

        return SaverDef
    if name in ("ClusterDef", "JobDef"):
        from tensorweave._src.framework import cluster_pb2

        return getattr(cluster_pb2, name)
    if name in _EXAMPLE_PROTOS:
        from tensorweave._src.framework import example_pb2

        return getattr(example_pb2, name)
    raise AttributeError(f"module 'tensorweave.train' has no attribute {name!r}")
