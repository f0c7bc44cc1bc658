"""`train_and_evaluate` with its `TrainSpec` and `EvalSpec`, and exporters that export the model as it trains
(TensorFlow 1's `tf.estimator`), in one local process: training stops at each checkpoint to evaluate (at most
once every `throttle_secs`) and once more at the end."""

import collections
import os
import shutil
import time

from tensorweave._src.training.basic_session_run_hooks import CheckpointSaverListener


def _check_input_fn(input_fn):
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"])):
    """What `train_and_evaluate` trains on: `input_fn`, up to `max_steps` (None: until the input ends)."""

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _check_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn, max_steps, tuple(hooks or ()), tuple(saving_listeners or ()))


class EvalSpec(
    collections.namedtuple(
        "EvalSpec", ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"]
    )
):
    """What `train_and_evaluate` evaluates on: `input_fn` for `steps` batches (None: until the input ends),
    at most once every `throttle_secs` seconds; `exporters` export the model after each evaluation."""

    def __new__(
        cls, input_fn, steps=100, name=None, hooks=None, exporters=None, start_delay_secs=120, throttle_secs=600
    ):
        _check_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        if exporters is None:
            exporters = ()
        elif isinstance(exporters, Exporter):
            exporters = (exporters,)
        else:
            exporters = tuple(exporters)
            for e in exporters:
                if not isinstance(e, Exporter):
                    raise TypeError(f"`exporters` must be an Exporter, an iterable of Exporter, or `None`, found {e}.")
            names = [e.name for e in exporters]
            if len(set(names)) != len(names):
                raise ValueError(f"`exporters` must have unique names. Such a name cannot be `None`: {names}.")
        return super().__new__(
            cls, input_fn, steps, name, tuple(hooks or ()), exporters, start_delay_secs, throttle_secs
        )


class Exporter:
    """Exports the model after an evaluation: `export(estimator, export_path, checkpoint_path, eval_result,
    is_the_final_export)` returns the export's path or None."""

    @property
    def name(self):
        raise NotImplementedError

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        raise NotImplementedError


class FinalExporter(Exporter):
    """Exports once, after the final evaluation, under export/<name>/<timestamp>."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        self._name, self._fn, self._assets, self._as_text = name, serving_input_receiver_fn, assets_extra, as_text

    name = property(lambda self: self._name)

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        return estimator.export_saved_model(
            export_path, self._fn, assets_extra=self._assets, as_text=self._as_text, checkpoint_path=checkpoint_path
        )


class LatestExporter(FinalExporter):
    """Exports after every evaluation, keeping the `exports_to_keep` newest exports."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be a positive number. Got %s" % exports_to_keep)
        self._keep = exports_to_keep

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        path = estimator.export_saved_model(
            export_path, self._fn, assets_extra=self._assets, as_text=self._as_text, checkpoint_path=checkpoint_path
        )
        if self._keep is not None:
            exports = sorted(d for d in os.listdir(export_path) if d.isdigit())
            for old in exports[: -self._keep]:
                shutil.rmtree(os.path.join(export_path, old), ignore_errors=True)
        return path


def _loss_smaller(best_eval_result, current_eval_result):
    """Whether the current evaluation's loss is below the best one's (BestExporter's default compare_fn)."""
    for result, what in ((best_eval_result, "best_eval_result"), (current_eval_result, "current_eval_result")):
        if not result or "loss" not in result:
            raise ValueError(f"{what} cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


class BestExporter(LatestExporter):
    """Exports after an evaluation that is the best so far by `compare_fn(best_eval_result,
    current_eval_result)` (default: a smaller loss), keeping the `exports_to_keep` newest exports."""

    def __init__(
        self,
        name="best_exporter",
        serving_input_receiver_fn=None,
        event_file_pattern="eval/*.tfevents.*",
        compare_fn=_loss_smaller,
        assets_extra=None,
        as_text=False,
        exports_to_keep=5,
    ):
        if not callable(compare_fn):
            raise ValueError("`compare_fn` must be callable.")
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text, exports_to_keep)
        self._compare, self._best = compare_fn, None
        del event_file_pattern  # (TF reads earlier runs' best from the event files; here it starts afresh)

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if self._best is not None and not self._compare(best_eval_result=self._best, current_eval_result=eval_result):
            return None
        self._best = eval_result
        return super().export(estimator, export_path, checkpoint_path, eval_result, is_the_final_export)


class _EvaluateAtSaves(CheckpointSaverListener):
    """Evaluates after a checkpoint is saved (not the first one, at most every `throttle_secs`) and at the end."""

    def __init__(self, estimator, eval_spec):
        self._estimator, self._spec = estimator, eval_spec
        self.eval_result, self.export_results = None, []
        self._last_step, self._last_time, self._first = None, 0.0, True

    def begin(self):
        self._first = True

    def after_save(self, session, global_step_value):
        if self._first:
            self._first = False
            return
        if time.time() - self._last_time >= self._spec.throttle_secs:
            self._evaluate(global_step_value, final=False)

    def end(self, session, global_step_value):
        if global_step_value != self._last_step:
            self._evaluate(global_step_value, final=True)

    def _evaluate(self, step, final):
        spec, estimator = self._spec, self._estimator
        self._last_step, self._last_time = step, time.time()
        self.eval_result = estimator.evaluate(spec.input_fn, steps=spec.steps, hooks=list(spec.hooks), name=spec.name)
        checkpoint = estimator.latest_checkpoint()
        for exporter in spec.exporters:
            path = os.path.join(estimator.model_dir, "export", exporter.name)
            self.export_results.append(exporter.export(estimator, path, checkpoint, self.eval_result, final))


def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains `estimator` as `train_spec` says, evaluating it as `eval_spec` says whenever a checkpoint is saved
    (at most every `throttle_secs`) and at the end; returns (the last evaluation's results, the exporters'
    results)."""
    from tensorweave._src.estimator.estimator import Estimator

    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: {type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {type(eval_spec)}")
    config = estimator.config
    if not (config.save_checkpoints_secs or config.save_checkpoints_steps):
        raise ValueError(
            "Train-and-evaluate needs checkpoints to evaluate: set one of RunConfig.save_checkpoints_steps or "
            "RunConfig.save_checkpoints_secs."
        )
    listener = _EvaluateAtSaves(estimator, eval_spec)
    estimator.train(
        train_spec.input_fn,
        hooks=list(train_spec.hooks),
        max_steps=train_spec.max_steps,
        saving_listeners=list(train_spec.saving_listeners) + [listener],
    )
    if listener.eval_result is None:  # training was skipped: max_steps already reached
        listener._evaluate(estimator.get_variable_value("global_step"), final=True)
    return listener.eval_result, listener.export_results
