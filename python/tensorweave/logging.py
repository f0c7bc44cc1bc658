"""tw.logging: TensorFlow 1's tf.logging (levels, set_verbosity, info/warn/error..., log_every_n, log_first_n).

Example:
  >>> import tensorweave as tw
  >>> tw.logging.set_verbosity(tw.logging.ERROR)
  >>> tw.logging.get_verbosity() == tw.logging.ERROR
  True
  >>> tw.logging.set_verbosity(tw.logging.WARN)
"""

from tensorweave._src.platform.tf_logging import (
    DEBUG,
    ERROR,
    FATAL,
    INFO,
    WARN,
    WARNING,
    TaskLevelStatusMessage,
    debug,
    error,
    fatal,
    flush,
    get_verbosity,
    info,
    log,
    log_every_n,
    log_first_n,
    log_if,
    set_verbosity,
    vlog,
    warn,
    warning,
)

__all__ = [
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "WARN",
    "WARNING",
    "TaskLevelStatusMessage",
    "debug",
    "error",
    "fatal",
    "flush",
    "get_verbosity",
    "info",
    "log",
    "log_every_n",
    "log_first_n",
    "log_if",
    "set_verbosity",
    "vlog",
    "warn",
    "warning",
]
