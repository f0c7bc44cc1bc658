"""SessionRunHook: code that runs around each step of a MonitoredSession (TensorFlow v1's session_run_hook).

A hook sees the session's life: `begin()` before the graph is finalized, `after_create_session(session, coord)`,
`before_run(run_context)` returning SessionRunArgs (more fetches, feeds, options to add to the step),
`after_run(run_context, run_values)` with those fetches' values, and `end(session)` before the session closes.
"""

import collections


class SessionRunHook:
    """The hook interface; every method does nothing by default.

    Example:
      >>> import tensorweave as tw
      >>> class CountSteps(tw.train.SessionRunHook):
      ...     def begin(self):
      ...         self.steps = 0
      ...     def after_run(self, run_context, run_values):
      ...         self.steps += 1
      >>> with tw.Graph().as_default():
      ...     hook = CountSteps()
      ...     c = tw.constant(1.0)
      ...     with tw.train.MonitoredSession(hooks=[hook]) as sess:
      ...         _ = sess.run(c); _ = sess.run(c)
      >>> hook.steps
      2
    """

    def begin(self):
        """Called once before the session is created; the graph may still change."""

    def after_create_session(self, session, coord):
        """Called once the session exists and is initialized (the graph is finalized)."""

    def before_run(self, run_context):
        """Called before each step; returns None or SessionRunArgs to add to it."""
        return None

    def after_run(self, run_context, run_values):
        """Called after each step with the values of the fetches `before_run` asked for."""

    def end(self, session):
        """Called once at the end (not when the session ends with an exception)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a step: fetches (any structure Session.run takes), feeds and run options."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """What a hook knows of the current step: the caller's arguments and the session; a hook may ask the
    session to stop after this step."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        """The SessionRunArgs of the caller's `run`."""
        return self._original_args

    @property
    def session(self):
        """The session the step runs in (a plain Session, so that hooks can run ops without hooks)."""
        return self._session

    @property
    def stop_requested(self):
        return self._stop_requested

    def request_stop(self):
        """Makes `should_stop()` of the MonitoredSession true after this step."""
        self._stop_requested = True


class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """The values of a hook's fetches after a step (`results` has the structure of its fetches)."""
