#!/usr/bin/env python3
"""How much of TensorFlow 1's public API tensorweave has, module by module.

For each module a TF1 program touches (the top level, nn, train, math, image,
linalg, random, sparse, strings, summary, data, io, losses, initializers,
saved_model) the tool lists the public names of `tensorflow.compat.v1.<module>`
and counts those that tensorweave has:

  * a name counts when `hasattr(<tensorweave module>, name)` holds and the name
    is not in that module's `_UNSUPPORTED` set (the marker for a name that is
    present but only raises NotImplementedError) and does not carry the
    attribute `_tw_unsupported = True`;
  * submodules (`tf.nn`, `tf.saved_model.loader`, ...) are not names: each
    listed module is measured on its own, and a submodule's contents are not;
  * the deliberate exclusions below (EXCLUDED: TPU, XLA, quantization
    internals, v2-only machinery, TF's own build details) are left out of both
    sides, each with its reason.

TensorFlow's names come from TensorFlow itself, imported in a subprocess (never
in this process, never inside tensorweave). The lists are stored in
`tools/api_coverage_tf.json` so that the report also runs where TensorFlow is
absent: it then says the names are "listed, not live". `--refresh` rewrites the
stored lists from the installed TensorFlow.

Usage:
  python tools/api_coverage.py                   # table per module + total
  python tools/api_coverage.py --missing         # also the names not yet there
  python tools/api_coverage.py --min-percent 75  # exit 1 below 75 %
  python tools/api_coverage.py --json            # the counts, for tools/tests
  python tools/api_coverage.py --refresh         # re-list from TensorFlow
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
STORED = os.path.join(HERE, "api_coverage_tf.json")
TOP = "(top level)"
MODULES = [
    TOP,
    "nn",
    "train",
    "math",
    "image",
    "linalg",
    "random",
    "sparse",
    "strings",
    "summary",
    "data",
    "io",
    "losses",
    "initializers",
    "saved_model",
    "lite",
]

_QUANT = "quantization internals (quantized dtypes and kernels; the issue leaves them out)"
_V2 = (
    "v2-only machinery (eager execution, tf.function tracing and its type specs) that a TF1 graph program does not use"
)
_TPU = "TPU-only approximate kernels"
_LIBS = "loads TensorFlow's C++ plugin libraries, which cannot run in tensorweave"
_RAW = "internal raw ops leaked into the namespace (TF's own gradient/ragged helpers)"
_RNG2 = "the v2 RNG (tf.random.Generator) API, eager-first; TF1 graph programs use the seeded ops"
_SDCA = "internal ops of contrib's SDCA estimator"

# name -> reason, per module. Sparing on purpose: anything a TF1 graph program
# plausibly calls stays counted, even where it is far from done.
EXCLUDED: dict[str, dict[str, str]] = {
    TOP: {
        **{
            n: _QUANT
            for n in (
                "QUANTIZED_DTYPES",
                "qint8",
                "qint16",
                "qint32",
                "quint8",
                "quint16",
                "quantize",
                "quantize_v2",
                "quantized_concat",
                "dequantize",
            )
        },
        **{n: _LIBS for n in ("load_file_system_library", "load_library", "load_op_library")},
        **{n: _RAW for n in ("ragged_fill_empty_rows", "ragged_fill_empty_rows_grad")},
        "approx_top_k": _TPU,
        "random_index_shuffle": _RNG2,
        "LMDBReader": "reads LMDB databases: tensorweave builds without the LMDB library (the other TF1 readers are there)",
    },
    "nn": {
        **{n: _QUANT for n in ("quantized_avg_pool", "quantized_conv2d", "quantized_max_pool", "quantized_relu_x")},
        **{n: _TPU for n in ("approx_max_k", "approx_min_k")},
    },
    "train": {
        **{n: _SDCA for n in ("sdca_fprint", "sdca_optimizer", "sdca_shrink_l1")},
        "do_quantize_training_on_graphdef": _QUANT,
    },
    "math": {n: _TPU for n in ("approx_max_k", "approx_min_k")},
    "random": {
        n: _RNG2 for n in ("Algorithm", "Generator", "create_rng_state", "get_global_generator", "set_global_generator")
    },
    "summary": {n: _V2 for n in ("all_v2_summary_ops", "initialize")},
    "data": {"NumpyIterator": _V2 + " (as_numpy_iterator is eager-only)"},
    "saved_model": {n: _V2 + " (object-based v2 SavedModel)" for n in ("save", "load_v2", "SaveOptions", "Asset")},
    "lite": {
        "OpHint": "TOCO's hints for fusing ops into custom TFLite ops; tensorweave's converter writes no custom ops"
    },
}

_LIST_TF = (
    textwrap.dedent(
        """
    import json, types
    import tensorflow as tf_root
    import tensorflow.compat.v1 as tf
    out = {"tensorflow_version": tf_root.__version__, "modules": {}}
    for m in MODULES:
        obj = tf if m == TOP else getattr(tf, m)
        out["modules"][m] = sorted(
            n for n in dir(obj)
            if not n.startswith("_") and not isinstance(getattr(obj, n, None), types.ModuleType))
    print(json.dumps(out))
    """
    )
    .replace("MODULES", repr(MODULES))
    .replace("TOP", repr(TOP))
)


def list_tf_live(timeout=300):
    """TF1's public names per module, from the installed TensorFlow (in a
    subprocess), or None where TensorFlow does not import."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _LIST_TF],
            check=False,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if proc.returncode != 0:
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def list_tf_stored():
    with open(STORED) as f:
        return json.load(f)


def tensorweave_module(name):
    """The tensorweave module that answers for TF module `name`, or None."""
    import tensorweave

    if name == TOP:
        return tensorweave
    try:
        return importlib.import_module(f"tensorweave.{name}")
    except ImportError:
        return None


def has_name(module, name):
    """True when `module` has `name` as a working (not stubbed) name."""
    if module is None or not hasattr(module, name):
        return False
    if name in getattr(module, "_UNSUPPORTED", ()):
        return False
    return not getattr(getattr(module, name), "_tw_unsupported", False)


def measure(tf_lists):
    """The counts per module: a list of dicts, plus the totals."""
    rows = []
    for mod in MODULES:
        names = tf_lists["modules"].get(mod, [])
        excluded = EXCLUDED.get(mod, {})
        in_scope = [n for n in names if n not in excluded]
        twmod = tensorweave_module(mod)
        have = [n for n in in_scope if has_name(twmod, n)]
        rows.append(
            {
                "module": mod,
                "tf_names": len(names),
                "excluded": sum(1 for n in names if n in excluded),
                "in_scope": len(in_scope),
                "have": len(have),
                "missing": sorted(set(in_scope) - set(have)),
                "module_present": twmod is not None,
            }
        )
    total_scope = sum(r["in_scope"] for r in rows)
    total_have = sum(r["have"] for r in rows)
    totals = {
        "tf_names": sum(r["tf_names"] for r in rows),
        "excluded": sum(r["excluded"] for r in rows),
        "in_scope": total_scope,
        "have": total_have,
        "percent": round(100.0 * total_have / total_scope, 1) if total_scope else 0.0,
    }
    return rows, totals


def percent(have, scope):
    return 100.0 * have / scope if scope else 0.0


def print_report(rows, totals, source, show_missing, show_exclusions):
    print(f"tensorweave's coverage of tf.compat.v1 ({source})")
    print()
    header = f"{'module':<14} {'TF names':>8} {'excluded':>8} {'in scope':>8} {'have':>6} {'%':>6}"
    print(header)
    print("-" * len(header))
    for r in rows:
        mod = r["module"] if r["module_present"] else r["module"] + " *"
        pct = percent(r["have"], r["in_scope"])
        print(f"{mod:<14} {r['tf_names']:>8} {r['excluded']:>8} {r['in_scope']:>8} {r['have']:>6} {pct:>5.1f}%")
    print("-" * len(header))
    print(
        f"{'total':<14} {totals['tf_names']:>8} {totals['excluded']:>8} {totals['in_scope']:>8} "
        f"{totals['have']:>6} {totals['percent']:>5.1f}%"
    )
    if any(not r["module_present"] for r in rows):
        print("* no such tensorweave module yet")
    if show_exclusions:
        print("\nDeliberate exclusions:")
        for mod in MODULES:
            for name, reason in sorted(EXCLUDED.get(mod, {}).items()):
                print(f"  {mod}.{name}: {reason}")
    if show_missing:
        print("\nMissing:")
        for r in rows:
            if r["missing"]:
                print(
                    textwrap.fill(
                        " ".join(r["missing"]), 100, initial_indent=f"  {r['module']}: ", subsequent_indent="    "
                    )
                )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--min-percent", type=float, default=None, help="exit 1 when the total is below this")
    parser.add_argument("--missing", action="store_true", help="list the names not yet there")
    parser.add_argument("--exclusions", action="store_true", help="list the deliberate exclusions and why")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--stored", action="store_true", help="use the stored lists even where TF is installed")
    parser.add_argument("--refresh", action="store_true", help="rewrite the stored lists from TensorFlow")
    args = parser.parse_args(argv)

    live = None if args.stored else list_tf_live()
    if args.refresh:
        if live is None:
            print("--refresh: TensorFlow does not import here", file=sys.stderr)
            return 2
        with open(STORED, "w") as f:
            json.dump(live, f, indent=1, sort_keys=True)
            f.write("\n")
    if live is not None:
        tf_lists = live
        source = f"TensorFlow {live['tensorflow_version']}, live"
    else:
        tf_lists = list_tf_stored()
        source = f"TensorFlow {tf_lists['tensorflow_version']}: listed, not live ({os.path.relpath(STORED)})"

    rows, totals = measure(tf_lists)
    if args.json:
        print(json.dumps({"source": source, "modules": rows, "total": totals}, indent=1))
    else:
        print_report(rows, totals, source, args.missing, args.exclusions)
    if args.min_percent is not None and totals["percent"] < args.min_percent:
        print(f"coverage {totals['percent']}% is below --min-percent {args.min_percent}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
