"""Coordinator: stopping a set of threads together (TensorFlow v1's tf.train.Coordinator)."""

import contextlib
import logging
import sys
import threading
import time

from tensorweave._src.framework import errors

_logger = logging.getLogger("tensorweave")


class Coordinator:
    """Threads check `should_stop()`; any of them (or the main thread) calls `request_stop(ex)`; `join()` waits
    for the registered threads and re-raises the first exception reported.

    Example:
      >>> import threading, tensorweave as tw
      >>> coord = tw.train.Coordinator()
      >>> def work():
      ...     with coord.stop_on_exception():
      ...         raise ValueError("boom")
      >>> t = threading.Thread(target=work); t.start()
      >>> try:
      ...     coord.join([t])
      ... except ValueError as e:
      ...     print("joined:", e)
      joined: boom
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        if isinstance(ex, tuple):
            ex2 = ex[1]
        else:
            ex2 = ex
        if isinstance(ex2, self._clean_stop_exception_types):
            ex = None
        return ex

    def request_stop(self, ex=None):
        """Asks the threads to stop; `ex` (an exception or exc_info tuple) is re-raised by `join()`."""
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                if isinstance(ex, tuple):
                    _, ex_instance, _ = ex
                else:
                    ex_instance = ex
                if ex_instance is not None:
                    raise ex_instance
                return
            if not self._stop_event.is_set():
                if ex and self._exc_info_to_raise is None:
                    if isinstance(ex, tuple):
                        info = ex
                    elif isinstance(ex, BaseException):
                        info = (type(ex), ex, ex.__traceback__)
                    else:  # as TF: the exception being handled
                        info = sys.exc_info()
                    if len(info) != 3 or not isinstance(info[1], BaseException):
                        # (TF raises TypeError here too, formatting its message)
                        raise TypeError(
                            f"ex must be an exception or an exc_info tuple, or request_stop be called while "
                            f"handling an exception; got {ex!r}"
                        )
                    self._exc_info_to_raise = info
                self._stop_event.set()

    def clear_stop(self):
        """Clears the stop request (and any exception) so that the coordinator can be used again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context that reports an exception raised in it through request_stop."""
        try:
            yield
        except:  # noqa: E722 - every exception is reported, as TF1 does
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested (at most `timeout` seconds); returns whether it was."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for `threads` (and the registered ones) to end after a stop request; raises the reported
        exception, or RuntimeError when threads are still alive after the grace period."""
        threads = set(threads or [])
        with self._lock:
            threads |= self._registered_threads
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stragglers = []
        deadline = time.time() + stop_grace_period_secs
        for t in threads:
            t.join(max(0.0, deadline - time.time()))
            if t.is_alive():
                stragglers.append(t.name)
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, ex_instance, _ = self._exc_info_to_raise
                raise ex_instance
            if stragglers:
                if ignore_live_threads:
                    _logger.info("Coordinator stopped with threads still running: %s", " ".join(stragglers))
                else:
                    raise RuntimeError(f"Coordinator stopped with threads still running: {' '.join(stragglers)}")

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raises the exception a thread reported, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _, ex_instance, _ = self._exc_info_to_raise
                raise ex_instance


class LooperThread(threading.Thread):
    """A thread that calls `target(*args, **kwargs)` every `timer_interval_secs` seconds (or `run_loop()` of a
    subclass) until the coordinator stops."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        """Starts and returns a LooperThread calling `target`."""
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args, kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        pass

    def stop_loop(self):
        pass

    def run_loop(self):
        if self._target:
            self._target(*self._args, **self._kwargs)
