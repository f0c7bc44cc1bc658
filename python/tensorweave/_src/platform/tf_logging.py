"""TF1's tf.logging on Python's `logging`: the "tensorweave" logger, its levels and TF1's helpers.

As TF1's: the first use gives the logger a stderr handler (stdout in an interactive session, which also starts at
INFO) with logging.BASIC_FORMAT ("INFO:tensorweave:message") unless the root logger has handlers; the default
verbosity is WARN. One deliberate difference: `flush()` flushes the handlers (TF1's raises NotImplementedError).
"""

import logging as _logging
import sys as _sys
import threading as _threading

DEBUG = _logging.DEBUG
ERROR = _logging.ERROR
FATAL = _logging.FATAL
INFO = _logging.INFO
WARN = _logging.WARNING
WARNING = _logging.WARNING

_logger = None
_logger_lock = _threading.Lock()
_log_counter_per_token = {}

_level_names = {FATAL: "FATAL", ERROR: "ERROR", WARN: "WARN", INFO: "INFO", DEBUG: "DEBUG"}


def get_logger():
    """The "tensorweave" logging.Logger, configured as TF1 configures its "tensorflow" logger."""
    global _logger
    if _logger is not None:
        return _logger
    with _logger_lock:
        if _logger is not None:
            return _logger
        logger = _logging.getLogger("tensorweave")
        if not _logging.getLogger().handlers and not logger.handlers:
            interactive = hasattr(_sys, "ps1") or bool(_sys.flags.interactive)
            if interactive:
                logger.setLevel(INFO)
            handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
            handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
            logger.addHandler(handler)
        _logger = logger
        return _logger


def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    get_logger().debug(msg, *args, **kwargs)


def error(msg, *args, **kwargs):
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    get_logger().fatal(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    get_logger().info(msg, *args, **kwargs)


def warn(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    get_logger().warning(msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):
    """Logs `msg` at ERROR (TF1's)."""
    error(msg)


def flush():
    """Flushes the logger's handlers."""
    for handler in get_logger().handlers:
        handler.flush()


def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


def _caller_token():
    """(file, line) of the caller of the log_* helper."""
    frame = _sys._getframe(2)
    return (frame.f_code.co_filename, frame.f_lineno)


def _next_count(token):
    _log_counter_per_token[token] = 1 + _log_counter_per_token.get(token, -1)
    return _log_counter_per_token[token]


def log_every_n(level, msg, n, *args):
    """Logs 'msg % args' on the 1st, (n+1)th, (2n+1)th... call from the same line."""
    count = _next_count(_caller_token())
    log_if(level, msg, not (count % n), *args)


def log_first_n(level, msg, n, *args):
    """Logs 'msg % args' on the first n calls from the same line."""
    count = _next_count(_caller_token())
    log_if(level, msg, count < n, *args)


def log_if(level, msg, condition, *args):
    if condition:
        vlog(level, msg, *args)


def get_verbosity():
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    get_logger().setLevel(v)
