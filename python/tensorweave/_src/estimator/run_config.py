"""`RunConfig`: where and how an Estimator runs (TensorFlow 1's `tf.estimator.RunConfig`)."""

_USE_DEFAULT = object()

_DEFAULTS = {
    "model_dir": None,
    "tf_random_seed": None,
    "save_summary_steps": 100,
    "save_checkpoints_steps": None,
    "save_checkpoints_secs": 600,
    "session_config": None,
    "keep_checkpoint_max": 5,
    "keep_checkpoint_every_n_hours": 10000,
    "log_step_count_steps": 100,
    "train_distribute": None,
    "device_fn": None,
    "protocol": None,
    "eval_distribute": None,
    "experimental_distribute": None,
    "experimental_max_worker_delay_secs": None,
    "session_creation_timeout_secs": 7200,
}


def _check_non_negative(name, value):
    if value is not None and value < 0:
        raise ValueError(f"{name} must be >= 0, given: {value}")


class RunConfig:
    """The run configuration of an Estimator: the model directory, the random seed, how often to save
    summaries and checkpoints (every 600 seconds unless `save_checkpoints_steps` is given; not both), how many
    checkpoints to keep, the session config, and the step-rate logging interval. A single local task: it is
    the chief, with no parameter servers."""

    def __init__(self, **kwargs):
        unknown = set(kwargs) - set(_DEFAULTS)
        if unknown:
            raise TypeError(f"RunConfig got unexpected keyword arguments: {sorted(unknown)}")
        steps = kwargs.get("save_checkpoints_steps")
        secs = kwargs.get("save_checkpoints_secs", _USE_DEFAULT)
        if steps is not None and secs not in (None, _USE_DEFAULT):
            raise ValueError("Can not specify both save_checkpoints_steps and save_checkpoints_secs.")
        values = dict(_DEFAULTS)
        values.update(kwargs)
        if steps is not None and secs is _USE_DEFAULT:
            values["save_checkpoints_secs"] = None
        for name in ("save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs", "keep_checkpoint_max"):
            _check_non_negative(name, values[name])
        if values["log_step_count_steps"] is not None and values["log_step_count_steps"] <= 0:
            values["log_step_count_steps"] = None
        if values["model_dir"] is not None:
            import os

            values["model_dir"] = os.fspath(values["model_dir"])
        self._values = values

    def __getattr__(self, name):
        values = self.__dict__.get("_values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(f"'RunConfig' object has no attribute '{name}'")

    def replace(self, **kwargs):
        """A copy with the given properties changed."""
        unknown = set(kwargs) - set(_DEFAULTS)
        if unknown:
            raise ValueError(f"{sorted(unknown)} is not in the list of allowed properties to replace.")
        values = dict(self._values)
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs:
            if kwargs["save_checkpoints_steps"] is not None:
                values["save_checkpoints_secs"] = None
        if "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs:
            if kwargs["save_checkpoints_secs"] is not None:
                values["save_checkpoints_steps"] = None
        values.update(kwargs)
        return RunConfig(**values)

    # The cluster: one local task.
    cluster_spec = property(lambda self: None)
    is_chief = property(lambda self: True)
    master = property(lambda self: "")
    evaluation_master = property(lambda self: "")
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)
    task_type = property(lambda self: "worker")
    task_id = property(lambda self: 0)
    global_id_in_cluster = property(lambda self: 0)
    service = property(lambda self: None)

    def __repr__(self):
        return "RunConfig(" + ", ".join(f"{k}={v!r}" for k, v in sorted(self._values.items())) + ")"
