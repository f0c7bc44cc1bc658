"""TF's `tf.test.Benchmark`: time ops in a session and report entries.

A report is printed (TF prints its BenchmarkEntries proto) or, when `TEST_REPORT_FILE_PREFIX` is set, written
as JSON to `<prefix><name with "/" as "__">` (TF writes the proto there; tensorweave has no test_log proto).
`tw.test.main()` with `--benchmarks=REGEX` runs the matching `benchmark*` methods of every Benchmark subclass.
"""

import inspect
import json
import math
import numbers
import os
import re
import time

from tensorweave._src.platform import tf_logging as logging

__all__ = ["Benchmark"]

TEST_REPORTER_TEST_ENV = "TEST_REPORT_FILE_PREFIX"

_registry = []


def _report(name, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, metrics=None):
    entry = {"name": name}
    for key, value in (("iters", iters), ("cpu_time", cpu_time), ("wall_time", wall_time), ("throughput", throughput)):
        if value is not None:
            entry[key] = value
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        entry["extras"] = {k: (v if isinstance(v, numbers.Number) else str(v)) for k, v in extras.items()}
    if metrics is not None:
        if not isinstance(metrics, list):
            raise TypeError("metrics must be a list")
        for metric in metrics:
            if "name" not in metric:
                raise TypeError("metric must has a 'name' field")
            if "value" not in metric:
                raise TypeError("metric must has a 'value' field")
        entry["metrics"] = metrics
    logging.info(
        "Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, extras: %s, metrics: %s",
        name,
        iters if iters is not None else -1,
        wall_time if wall_time is not None else -1,
        cpu_time if cpu_time is not None else -1,
        throughput if throughput is not None else -1,
        str(extras) if extras else "None",
        str(metrics) if metrics else "None",
    )
    prefix = os.environ.get(TEST_REPORTER_TEST_ENV)
    if prefix is None:
        print("entry " + json.dumps(entry, sort_keys=True, default=str))
        return
    path = prefix + name.replace("/", "__")
    if os.path.exists(path):
        raise OSError(f"File already exists: {path}")
    with open(path, "w") as f:
        json.dump({"entry": [entry]}, f, default=str)


class _BenchmarkRegistrar(type):
    def __new__(mcs, clsname, base, attrs):
        cls = super().__new__(mcs, clsname, base, attrs)
        if not cls.is_abstract():
            _registry.append(cls)
        return cls


class Benchmark(metaclass=_BenchmarkRegistrar):
    """Base of benchmarks (TF's `tf.test.Benchmark`): subclasses define `benchmark*` methods that time work
    and call `report_benchmark`, or time a fetch with `run_op_benchmark`.

    Example:
      >>> import tensorweave as tw
      >>> class AddBenchmark(tw.test.Benchmark):
      ...     def benchmarkAdd(self):
      ...         with tw.Session() as sess:
      ...             return self.run_op_benchmark(sess, tw.constant(1.0) + 2.0, min_iters=3, store_memory_usage=False)
      >>> result = AddBenchmark().benchmarkAdd()  # doctest: +ELLIPSIS
      entry {...}
      >>> result["iters"], result["name"]
      (3, 'AddBenchmark.benchmarkAdd')
    """

    @classmethod
    def is_abstract(cls):
        return len(cls.mro()) <= 2  # Benchmark itself

    def _get_name(self, overwrite_name=None):
        """The entry's name: `overwrite_name`, else "<Class>.<benchmark method>" of the calling method."""
        if overwrite_name:
            return overwrite_name
        for frame_info in inspect.stack():
            if frame_info.frame.f_locals.get("self") is self:
                method = frame_info.function
                if method.startswith("benchmark"):
                    return f"{type(self).__name__}.{method}"
        return type(self).__name__

    def report_benchmark(
        self, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, name=None, metrics=None
    ):
        """Reports one entry: total `iters`, `cpu_time` and `wall_time` (seconds), `throughput` (MB/s),
        `extras` (a dict) and `metrics` (a list of dicts with "name" and "value")."""
        _report(self._get_name(name), iters, cpu_time, wall_time, throughput, extras, metrics)

    def run_op_benchmark(
        self,
        sess,
        op_or_tensor,
        feed_dict=None,
        burn_iters=2,
        min_iters=10,
        store_trace=False,
        store_memory_usage=True,
        name=None,
        extras=None,
        mbs=0,
    ):
        """Runs `op_or_tensor` `burn_iters` times untimed, then `min_iters` timed; reports the median wall
        time per run (and `mbs` / that as throughput) and returns what it reported, as a dict. With
        `store_trace`, one more run is traced and its Chrome trace is returned under
        "full_trace_chrome_format"; with `store_memory_usage`, the peak bytes of each allocator go into
        extras as "allocator_maximum_num_bytes_<allocator>"."""
        from tensorweave._src.client import session_config
        from tensorweave._src.client import timeline

        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = dict(extras) if extras is not None else {}
        unreported = {}
        if store_trace or store_memory_usage:
            options = session_config.RunOptions(trace_level=session_config.RunOptions.FULL_TRACE)
            metadata = session_config.RunMetadata()
            sess.run(op_or_tensor, feed_dict=feed_dict, options=options, run_metadata=metadata)
            tl = timeline.Timeline(metadata.step_stats)
            if store_trace:
                unreported["full_trace_chrome_format"] = tl.generate_chrome_trace_format()
            if store_memory_usage:
                analysis = tl.analyze_step_stats(show_memory=True)
                for allocator, maximum in analysis.allocator_maximums.items():
                    extras[f"allocator_maximum_num_bytes_{allocator}"] = maximum.num_bytes
        median = _median(deltas)
        values = {
            "iters": min_iters,
            "wall_time": median,
            "extras": extras,
            "name": self._get_name(name),
            "throughput": mbs / median if median > 0 else 0.0,
        }
        self.report_benchmark(**values)
        mean, stdev = _mean_and_stdev(deltas)
        values["wall_time_mean"] = mean
        values["wall_time_stdev"] = stdev
        values["extras"] = dict(extras, **unreported)
        return values

    def evaluate(self, tensors):
        """The values of `tensors` in the default session."""
        from tensorweave._src.framework import ops

        sess = ops.get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate needs a default session (`with tw.Session():`)")
        return sess.run(tensors)


def _median(x):
    if not x:
        return -1
    s = sorted(x)
    return (s[len(s) // 2] + s[(len(s) - 1) // 2]) / 2.0


def _mean_and_stdev(x):
    if not x:
        return -1, -1
    mean = sum(x) / len(x)
    if len(x) == 1:
        return mean, -1
    return mean, math.sqrt(sum((e - mean) ** 2 for e in x) / (len(x) - 1))


def run_benchmarks_from_argv(argv):
    """Runs the Benchmark methods matching `--benchmarks=REGEX` (removed from argv); False when absent."""
    for i, arg in enumerate(argv):
        if arg.startswith("--benchmarks="):
            regex = arg.split("=", 1)[1]
            del argv[i]
            break
    else:
        return False
    pattern = re.compile(regex)
    for cls in _registry:
        for method in sorted(dir(cls)):
            full = f"{cls.__module__}.{cls.__name__}.{method}"
            if method.startswith("benchmark") and callable(getattr(cls, method)) and pattern.search(full):
                getattr(cls(), method)()
    return True
