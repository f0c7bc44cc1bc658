"""Shared timing helpers for the benchmarks: medians of repeated runs, and
a table of times and ratios (these machines are noisy; compare ratios from
one run, never absolute figures across runs)."""

import statistics
import time


def _batch_size(fn, batch_time):
    """Calls of fn() (a power of two) that take more than batch_time."""
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - t0 > batch_time or n > 1 << 20:
            return n
        n *= 2


def time_call(fn, min_time=0.2, repeats=7, warmup=20):
    """Median seconds per call of fn(), over `repeats` batches of calls."""
    for _ in range(warmup):
        fn()
    n = _batch_size(fn, min_time / repeats)
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        samples.append((time.perf_counter() - t0) / n)
    return statistics.median(samples)


def time_interleaved(fns, rounds=15, batch_time=0.05, warmup=10):
    """Median seconds per call of each fn in {name: fn}, timed in rounds that
    visit every fn in turn, so that the machine's slow and fast spells fall on
    all of them alike (the ratios between them are what to read)."""
    sizes = {}
    for name, fn in fns.items():
        for _ in range(warmup):
            fn()
        sizes[name] = _batch_size(fn, batch_time)
    samples = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            n = sizes[name]
            fn()  # back into the caches after the others ran
            t0 = time.perf_counter()
            for _ in range(n):
                fn()
            samples[name].append((time.perf_counter() - t0) / n)
    return {name: statistics.median(s) for name, s in samples.items()}


def report(title, rows, baseline_keys):
    """rows: {case: {system: seconds}}; prints µs and ratios to each baseline."""
    print(f"\n{title}")
    systems = []
    for timings in rows.values():
        for s in timings:
            if s not in systems:
                systems.append(s)
    header = f"{'case':28s}" + "".join(f"{s:>16s}" for s in systems)
    header += "".join(f"{'tw/' + b:>14s}" for b in baseline_keys)
    print(header)
    for case, timings in rows.items():
        line = f"{case:28s}" + "".join(
            f"{timings[s] * 1e6:14.1f}us" if s in timings else f"{'-':>16s}" for s in systems
        )
        for b in baseline_keys:
            if b in timings and "tensorweave" in timings:
                line += f"{timings['tensorweave'] / timings[b]:14.3f}"
            else:
                line += f"{'-':>14s}"
        print(line)
