"""`Estimator`: a model_fn trained, evaluated, used for prediction and exported, each in a graph of its own,
with checkpoints in `model_dir` (TensorFlow 1's `tf.estimator.Estimator`).

Example:
  >>> import numpy as np, tempfile
  >>> import tensorweave as tw
  >>> def model_fn(features, labels, mode):
  ...     y = tw.layers.dense(features["x"], 1)
  ...     if mode == tw.estimator.ModeKeys.PREDICT:
  ...         return tw.estimator.EstimatorSpec(mode, predictions=y)
  ...     loss = tw.losses.mean_squared_error(labels, y)
  ...     train = tw.train.GradientDescentOptimizer(0.1).minimize(loss, tw.train.get_global_step())
  ...     return tw.estimator.EstimatorSpec(mode, loss=loss, train_op=train)
  >>> x = np.linspace(-1, 1, 64, dtype=np.float32)[:, None]
  >>> est = tw.estimator.Estimator(model_fn, tempfile.mkdtemp())
  >>> fn = tw.estimator.inputs.numpy_input_fn({"x": x}, 3 * x, batch_size=16, num_epochs=None, shuffle=True)
  >>> _ = est.train(fn, steps=200)
  >>> print(est.get_variable_value("global_step"), round(float(est.get_variable_value("dense/kernel")[0, 0]), 1))
  200 3.0
"""

import contextlib
import copy
import inspect
import logging
import os
import shutil
import tempfile
import time

import numpy as np

from tensorweave._src.estimator import model_fn as model_fn_lib
from tensorweave._src.estimator.model_fn import ModeKeys
from tensorweave._src.estimator.run_config import RunConfig
from tensorweave._src.framework import ops
from tensorweave._src.training.session_run_hook import SessionRunHook

_logger = logging.getLogger("tensorweave")


def _fn_args(fn):
    if hasattr(fn, "func") and hasattr(fn, "keywords"):  # functools.partial
        bound = set(fn.keywords or {})
        return tuple(a for a in _fn_args(fn.func)[len(fn.args) :] if a not in bound)
    target = fn if inspect.isfunction(fn) or inspect.ismethod(fn) or not callable(fn) else fn.__call__
    return tuple(inspect.signature(target).parameters)


def _check_hooks(hooks):
    return model_fn_lib.check_hooks(hooks, "Hooks must be a SessionRunHook")


class _DatasetInitializerHook(SessionRunHook):
    """Initializes the iterator of a Dataset an input_fn returned, when the session is created."""

    def __init__(self, iterator):
        self._iterator = iterator

    def begin(self):
        self._initializer = self._iterator.initializer

    def after_create_session(self, session, coord):
        del coord
        session.run(self._initializer)


class _StopAfterNEvalsHook(SessionRunHook):
    """Asks to stop after `num_evals` runs."""

    def __init__(self, num_evals):
        self._num_evals, self._evals = num_evals, 0

    def begin(self):
        self._evals = 0

    def after_run(self, run_context, run_values):
        self._evals += 1
        if self._evals >= self._num_evals:
            run_context.request_stop()


def _parse_input_fn_result(result):
    """(features, labels, hooks) of what an input_fn returned: a Dataset (its iterator initialized by a hook), a
    (features, labels) tuple, or features."""
    from tensorweave._src.data.dataset_ops import Dataset

    hooks = []
    if isinstance(result, Dataset):
        iterator = result.make_initializable_iterator()
        hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(f"input_fn should return (features, labels) as a len 2 tuple, given: {result}")
        return result[0], result[1], hooks
    return result, None, hooks


def _global_step_of(checkpoint_dir):
    from tensorweave._src.training import checkpoint_utils

    try:
        return int(checkpoint_utils.load_variable(checkpoint_dir, "global_step"))
    except Exception:  # noqa: BLE001 - no checkpoint, or one without a global step
        return 0


def _write_dict_to_summary(output_dir, dictionary, step):
    """Writes the scalars of `dictionary` (an evaluation's results) to an event file in `output_dir`."""
    from tensorweave._src.summary import protos
    from tensorweave._src.summary.writer import FileWriterCache

    summary = protos.Summary()
    for key, value in dictionary.items():
        if key == "global_step" or value is None:
            continue
        value = np.asarray(value)
        if value.size == 1 and value.dtype.kind in "fiub":
            summary.value.add(tag=key, simple_value=float(value.reshape(-1)[0]))
        else:
            _logger.warning("Skipping summary for %s, must be a float, np.float32, np.int64, np.int32 or int.", key)
    writer = FileWriterCache.get(output_dir)
    writer.add_summary(summary, step)
    writer.flush()


class Estimator:
    """Trains, evaluates and predicts with the model that `model_fn(features, labels, mode, params, config)`
    builds (it takes `features` and any of the others) and returns as an `EstimatorSpec`. Each call builds a
    fresh graph; variables live in checkpoints in `model_dir` (a temporary directory when none is given), so
    `train` resumes from the latest one and `evaluate`/`predict` restore it."""

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        if config is None:
            config = RunConfig()
        elif not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
        if model_dir is not None:
            model_dir = os.fspath(model_dir)
            if config.model_dir is not None and config.model_dir != model_dir:
                raise ValueError(
                    "model_dir are set both in constructor and `RunConfig`, but with different values. In "
                    f"constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' "
                )
        model_dir = model_dir or config.model_dir
        if model_dir is None:
            model_dir = tempfile.mkdtemp()
            _logger.warning("Using temporary folder as model directory: %s", model_dir)
        self._config = config.replace(model_dir=model_dir)
        self._model_dir = model_dir
        self._params = copy.deepcopy(params or {})
        self._verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._warm_start_settings = _warm_start_settings(warm_start_from)

    model_dir = property(lambda self: self._model_dir)
    config = property(lambda self: copy.deepcopy(self._config))
    params = property(lambda self: copy.deepcopy(self._params))
    model_fn = property(lambda self: self._model_fn)

    @staticmethod
    def _verify_model_fn_args(model_fn, params):
        if not callable(model_fn):
            raise TypeError(f"model_fn must be callable, given: {model_fn}")
        args = set(_fn_args(model_fn))
        if "features" not in args:
            raise ValueError(f"model_fn ({model_fn}) must include features argument.")
        if params is not None and "params" not in args:
            raise ValueError(f"model_fn ({model_fn}) does not include params argument, required by params: {params}")

    # --- checkpoints -----------------------------------------------------------------------------------------
    def latest_checkpoint(self):
        """The path of the latest checkpoint in model_dir, or None."""
        from tensorweave._src.training import saver

        return saver.latest_checkpoint(self._model_dir)

    def get_variable_names(self):
        """The names of the variables in the latest checkpoint."""
        from tensorweave._src.training import checkpoint_utils

        return [name for name, _ in checkpoint_utils.list_variables(self._model_dir)]

    def get_variable_value(self, name):
        """The value of variable `name` in the latest checkpoint."""
        from tensorweave._src.training import checkpoint_utils

        return checkpoint_utils.load_variable(self._model_dir, name)

    # --- building a graph ------------------------------------------------------------------------------------
    def _call_input_fn(self, input_fn, mode):
        if not callable(input_fn):
            raise TypeError(f"input_fn must be callable, given: {input_fn}")
        args = _fn_args(input_fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        with ops.device("/cpu:0"):
            return _parse_input_fn_result(input_fn(**kwargs))

    def _call_model_fn(self, features, labels, mode, config):
        args = _fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        spec = self._model_fn(features=features, **kwargs)
        if not isinstance(spec, model_fn_lib.EstimatorSpec):
            raise ValueError(f"model_fn should return an EstimatorSpec, given: {spec}")
        return spec

    @contextlib.contextmanager
    def _graph(self):
        """A fresh default graph with the config's seed and a global step (yielded)."""
        from tensorweave._src.framework import random_seed
        from tensorweave._src.training import training_util

        with ops.Graph().as_default() as graph:
            if self._config.tf_random_seed is not None:
                random_seed.set_random_seed(self._config.tf_random_seed)
            yield training_util.get_or_create_global_step(graph)

    def _session_config(self):
        return self._config.session_config

    # --- train -------------------------------------------------------------------------------------------------
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains the model on what `input_fn` gives for `steps` more steps, or until the global step reaches
        `max_steps`, or until the input ends (`OutOfRangeError`); returns self."""
        from tensorweave._src.training import basic_session_run_hooks as hooks_lib

        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None and max_steps <= _global_step_of(self._model_dir):
            _logger.info("Skipping training since max_steps has already saved.")
            return self
        hooks = _check_hooks(hooks)
        if steps is not None or max_steps is not None:
            hooks.append(hooks_lib.StopAtStepHook(steps, max_steps))
        loss = self._train_model(input_fn, hooks, list(saving_listeners or []))
        _logger.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn, hooks, saving_listeners):
        from tensorweave._src.summary import summary_ops
        from tensorweave._src.training import basic_session_run_hooks as hooks_lib
        from tensorweave._src.training import monitored_session

        with self._graph() as global_step:
            features, labels, input_hooks = self._call_input_fn(input_fn, ModeKeys.TRAIN)
            spec = self._call_model_fn(features, labels, ModeKeys.TRAIN, self.config)
            self._warm_start(spec)
            if not any(s.op.name == "loss" for s in ops.get_collection(ops.GraphKeys.SUMMARIES)):
                summary_ops.scalar("loss", spec.loss)
            ops.add_to_collection(ops.GraphKeys.LOSSES, spec.loss)
            worker_hooks = hooks + input_hooks + [hooks_lib.NanTensorHook(spec.loss)]
            if self._config.log_step_count_steps is not None:
                worker_hooks.append(
                    hooks_lib.LoggingTensorHook(
                        {"loss": spec.loss, "step": global_step}, every_n_iter=self._config.log_step_count_steps
                    )
                )
            worker_hooks.extend(spec.training_hooks)
            scaffold = self._scaffold_with_saver(spec.scaffold)
            chief_hooks = []
            secs, save_steps = self._config.save_checkpoints_secs, self._config.save_checkpoints_steps
            if secs or save_steps:
                chief_hooks.append(
                    hooks_lib.CheckpointSaverHook(
                        self._model_dir,
                        save_secs=secs,
                        save_steps=save_steps,
                        scaffold=scaffold,
                        listeners=saving_listeners,
                    )
                )
            elif saving_listeners:
                raise ValueError(
                    "There should be a CheckpointSaverHook to use saving_listeners. Please set one of the "
                    "RunConfig.save_checkpoints_steps or RunConfig.save_checkpoints_secs."
                )
            loss = None
            with monitored_session.MonitoredTrainingSession(
                checkpoint_dir=self._model_dir,
                scaffold=scaffold,
                hooks=worker_hooks,
                chief_only_hooks=chief_hooks + list(spec.training_chief_hooks),
                save_checkpoint_secs=0,
                save_summaries_steps=self._config.save_summary_steps,
                config=self._session_config(),
                log_step_count_steps=self._config.log_step_count_steps,
            ) as session:
                while not session.should_stop():
                    _, loss = session.run([spec.train_op, spec.loss])
            return loss

    def _scaffold_with_saver(self, scaffold):
        """The scaffold with the Estimator's default Saver (sharded, keeping `keep_checkpoint_max`) unless the
        model_fn made one."""
        from tensorweave._src.training import monitored_session
        from tensorweave._src.training import saver as saver_lib

        if scaffold.saver is not None or ops.get_collection(ops.GraphKeys.SAVERS):
            return scaffold
        saver = saver_lib.Saver(
            sharded=True,
            max_to_keep=self._config.keep_checkpoint_max,
            keep_checkpoint_every_n_hours=self._config.keep_checkpoint_every_n_hours,
            defer_build=True,
            save_relative_paths=True,
        )
        ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
        return monitored_session.Scaffold(copy_from_scaffold=scaffold, saver=saver)

    def _warm_start(self, spec):
        settings = self._warm_start_settings
        if settings is None:
            return
        from tensorweave._src.training import checkpoint_utils

        _logger.info("Warm-starting with WarmStartSettings: %s", settings)
        checkpoint_utils.warm_start(
            settings.ckpt_to_initialize_from, settings.vars_to_warm_start, None, settings.var_name_to_prev_var_name
        )

    # --- evaluate ----------------------------------------------------------------------------------------------
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates the model at the latest checkpoint (or `checkpoint_path`) on what `input_fn` gives, for
        `steps` batches or until the input ends; returns {metric: value}, with "loss" (the mean of the model's
        loss over the batches) and "global_step". The results are also written as summaries to model_dir/eval
        (eval_<name> with `name`)."""
        from tensorweave._src.metrics import metrics_impl as metrics_lib
        from tensorweave._src.training import basic_session_run_hooks as hooks_lib
        from tensorweave._src.training import monitored_session

        hooks = _check_hooks(hooks)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        checkpoint_path = self._checkpoint_or_warn(checkpoint_path, "evaluate")
        with self._graph() as global_step:
            features, labels, input_hooks = self._call_input_fn(input_fn, ModeKeys.EVAL)
            spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
            if model_fn_lib.LOSS_METRIC_KEY in spec.eval_metric_ops:
                raise ValueError(
                    'Metric with name "loss" is not allowed, because Estimator already defines a default metric '
                    "with the same name."
                )
            metrics = {model_fn_lib.LOSS_METRIC_KEY: metrics_lib.mean(spec.loss)}
            metrics.update(spec.eval_metric_ops)
            update_ops, values = [], {}
            for key, metric in metrics.items():
                if isinstance(metric, tuple):
                    values[key], update = metric
                    update_ops.append(update)
                else:  # a metric object
                    values[key] = metric.result()
                    update_ops.extend(metric.updates)
            values["global_step"] = global_step
            update_op = ops.group(*update_ops)
            final = hooks_lib.FinalOpsHook(values)
            all_hooks = input_hooks + hooks + list(spec.evaluation_hooks)
            if steps is not None:
                all_hooks.append(_StopAfterNEvalsHook(steps))
            all_hooks.append(final)
            creator = monitored_session.ChiefSessionCreator(
                scaffold=spec.scaffold, checkpoint_filename_with_path=checkpoint_path, config=self._session_config()
            )
            _logger.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
            with monitored_session.MonitoredSession(session_creator=creator, hooks=all_hooks) as session:
                while not session.should_stop():
                    session.run(update_op)
            results = final.final_ops_values
        _logger.info(
            "Saving dict for global step %d: %s",
            results["global_step"],
            ", ".join(f"{k} = {v}" for k, v in sorted(results.items())),
        )
        _write_dict_to_summary(
            os.path.join(self._model_dir, "eval" if not name else "eval_" + name), results, results["global_step"]
        )
        return results

    def _checkpoint_or_warn(self, checkpoint_path, what):
        if checkpoint_path is None:
            checkpoint_path = self.latest_checkpoint()
        if not checkpoint_path:
            _logger.info(
                "Could not find trained model in model_dir: %s, running initialization to %s.", self._model_dir, what
            )
        return checkpoint_path

    # --- predict -----------------------------------------------------------------------------------------------
    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None, yield_single_examples=True):
        """Yields the model's predictions for what `input_fn` gives (its labels are ignored), at the latest
        checkpoint (or `checkpoint_path`): one example at a time (a dict of the `predict_keys` when the model
        predicts a dict), or whole batches with `yield_single_examples=False`."""
        from tensorweave._src.training import monitored_session

        hooks = _check_hooks(hooks)
        checkpoint_path = self._checkpoint_or_warn(checkpoint_path, "predict")
        with self._graph() as _:
            features, _, input_hooks = self._call_input_fn(input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            predictions = _extract_keys(spec.predictions, predict_keys)
            creator = monitored_session.ChiefSessionCreator(
                scaffold=spec.scaffold, checkpoint_filename_with_path=checkpoint_path, config=self._session_config()
            )
            all_hooks = input_hooks + hooks + list(spec.prediction_hooks)
            with monitored_session.MonitoredSession(session_creator=creator, hooks=all_hooks) as session:
                while not session.should_stop():
                    values = session.run(predictions)
                    if not yield_single_examples:
                        yield values
                    elif not isinstance(values, dict):
                        yield from values
                    else:
                        for i in range(_batch_length(values)):
                            yield {key: value[i] for key, value in values.items()}

    # --- export ------------------------------------------------------------------------------------------------
    def export_saved_model(
        self,
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        experimental_mode=ModeKeys.PREDICT,
    ):
        """Writes a SavedModel of the model in PREDICT mode, fed by what `serving_input_receiver_fn` returns
        (a ServingInputReceiver), with the variables of the latest checkpoint (or `checkpoint_path`), to a new
        timestamped directory under `export_dir_base`; returns its path (bytes)."""
        from tensorweave._src.client import session as session_lib
        from tensorweave._src.saved_model import builder as builder_lib
        from tensorweave._src.saved_model import tag_constants
        from tensorweave._src.training import monitored_session
        from tensorweave._src.training import saver as saver_lib

        if experimental_mode != ModeKeys.PREDICT:
            raise ValueError(f"export_saved_model exports the {ModeKeys.PREDICT} mode only, given: {experimental_mode}")
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        if not checkpoint_path:
            raise ValueError(f"Couldn't find trained model at {self._model_dir}.")
        export_dir_base = os.fspath(export_dir_base)
        export_dir = _timestamped_dir(export_dir_base)
        temp_dir = os.path.join(export_dir_base, "temp-" + os.path.basename(export_dir))
        with self._graph() as _:
            receiver = serving_input_receiver_fn()
            spec = self._call_model_fn(receiver.features, None, ModeKeys.PREDICT, self.config)
            signatures = _signature_defs(receiver, spec)
            saver = spec.scaffold.saver or saver_lib.Saver()
            local_init = spec.scaffold.local_init_op or monitored_session.Scaffold.default_local_init_op()
            builder = builder_lib.SavedModelBuilder(temp_dir)
            with session_lib.Session(config=self._session_config()) as sess:
                saver.restore(sess, checkpoint_path)
                builder.add_meta_graph_and_variables(
                    sess, [tag_constants.SERVING], signature_def_map=signatures, main_op=local_init, saver=saver
                )
            builder.save(as_text)
        for dest, source in (assets_extra or {}).items():
            target = os.path.join(temp_dir, "assets.extra", dest)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        os.rename(temp_dir, export_dir)
        return export_dir.encode()

    export_savedmodel = export_saved_model


def _timestamped_dir(base):
    for _ in range(10):
        path = os.path.join(base, str(int(time.time())))
        if not os.path.exists(path):
            return path
        time.sleep(1)  # (TF waits for the next second as well)
    raise RuntimeError(f"Failed to obtain a unique export directory name after 10 attempts in {base}.")


def _signature_defs(receiver, spec):
    from tensorweave._src.estimator.export import PredictOutput

    outputs = spec.export_outputs or {"serving_default": PredictOutput(spec.predictions)}
    signatures = {}
    for key, output in outputs.items():
        try:
            signatures[key] = output.as_signature_def(receiver.receiver_tensors)
        except ValueError as e:
            _logger.warning("Export: signature %s is left out: %s", key, e)
    if "serving_default" not in signatures:
        _logger.warning("Export includes no default signature!")
    return signatures


def _extract_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    keys = [predict_keys] if isinstance(predict_keys, str) else list(predict_keys)
    existing = list(predictions)
    chosen = {k: v for k, v in predictions.items() if k in keys}
    if not chosen:
        raise ValueError(f"Expected to run at least one output from {existing}, provided {keys}.")
    return chosen


def _batch_length(values):
    lengths = {key: np.shape(value)[0] if np.ndim(value) else None for key, value in values.items()}
    first = next(iter(lengths.values()))
    for key, n in lengths.items():
        if n is None or n != first:
            raise ValueError(
                f"Batch length of predictions should be same. {key} has different batch length than others."
            )
    return first


def _warm_start_settings(warm_start_from):
    if warm_start_from is None:
        return None
    from tensorweave._src.estimator.warm_starting import WarmStartSettings

    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        warm_start_from = WarmStartSettings(os.fsdecode(warm_start_from))
    if not isinstance(warm_start_from, WarmStartSettings):
        raise ValueError(
            f"warm_start_from must be a string or a WarmStartSettings, instead got {type(warm_start_from)}"
        )
    return warm_start_from
