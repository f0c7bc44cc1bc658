"""The `tensorweave-lite` command: inspect, run and benchmark .twl models.

tensorweave-lite inspect model.twl [--batch N]
tensorweave-lite run model.twl --input NAME=FILE.npy ... --output OUT.npz
tensorweave-lite benchmark model.twl --num_threads 2 --runs 1000 [--batch N] [--profile]
"""

import argparse
import sys
import time

import numpy as np

from tensorweave_lite._src.interpreter import Interpreter

_TYPE_NAMES = (
    "float32",
    "int32",
    "int64",
    "uint8",
    "int8",
    "bool",
    "float64",
    "int16",
    "uint16",
    "uint32",
    "uint64",
    "float16",
)


def _shape(dims):
    return "[" + ",".join(str(d) for d in dims) + "]"


def _set_batch(interpreter, batch):
    """Resizes every input's dynamic dims (-1 in shape_signature; else dim 0)
    to `batch`."""
    for detail in interpreter.get_input_details():
        shape = list(detail["shape"])
        signature = list(detail["shape_signature"])
        dynamic = [i for i, d in enumerate(signature) if d == -1] or [0]
        if not shape:
            continue
        for axis in dynamic:
            shape[axis] = batch
        interpreter.resize_tensor_input(detail["index"], shape)


def _open(args):
    interpreter = Interpreter(model_path=args.model, num_threads=getattr(args, "num_threads", 1))
    if getattr(args, "batch", None):
        _set_batch(interpreter, args.batch)
    interpreter.allocate_tensors()
    return interpreter


def inspect(args, out=None):
    out = out or sys.stdout
    interpreter = _open(args)
    impl = interpreter._impl
    info = impl.model_info()
    tensors = [impl.tensor_info(i) for i in range(impl.num_tensors())]

    def ref(index):
        return "-" if index < 0 else f"{index}:{tensors[index][0]}"

    def describe(index):
        name, type_code, shape, signature, _, _, _ = tensors[index]
        text = f"[{index}] {name} {_TYPE_NAMES[type_code]}{_shape(shape)}"
        if signature is not None and tuple(signature) != shape:
            text += f" (signature {_shape(signature)})"
        return text

    checksum = "none" if info.get("checksum") is None else f"CRC-32 0x{info['checksum']:08x}"
    print(
        f"model: {args.model} ({info['size']} bytes, schema version {info['version']}, checksum {checksum})", file=out
    )
    if info["description"]:
        print(f"description: {info['description']}", file=out)
    for key, value in sorted(info["metadata"].items()):
        print(f"metadata: {key} = {value}", file=out)
    for label, indices in (("input", impl.inputs()), ("output", impl.outputs())):
        for index in indices:
            print(f"{label}: {describe(index)}", file=out)
    for key, inputs, outputs, subgraph in impl.signatures():
        ins = ", ".join(f"{n}={i}" for n, i in inputs)
        outs = ", ".join(f"{n}={i}" for n, i in outputs)
        print(f"signature '{key}' (subgraph {subgraph}): inputs {{{ins}}} outputs {{{outs}}}", file=out)

    nodes = impl.nodes()
    print(f"\noperators ({len(nodes)}):", file=out)
    for i, (op, version, inputs, outputs) in enumerate(nodes):
        print(f"  {i:4d} {op} v{version}", file=out)
        print(f"       in:  {', '.join(ref(t) for t in inputs)}", file=out)
        print(f"       out: {', '.join(ref(t) for t in outputs)}", file=out)

    print(f"\ntensors ({len(tensors)}):", file=out)
    width = max([len(t[0]) for t in tensors] + [4])
    print(f"  {'idx':>4} {'name':<{width}} {'dtype':<7} {'shape':<16} {'bytes':>10}  kind", file=out)
    graph_inputs, graph_outputs = set(impl.inputs()), set(impl.outputs())
    constant_bytes = constant_count = 0
    for i, (name, type_code, shape, _, nbytes, constant, buffer) in enumerate(tensors):
        if constant:
            kind = f"constant (buffer {buffer})"
            constant_bytes += nbytes
            constant_count += 1
        elif i in graph_inputs:
            kind = "input"
        elif i in graph_outputs:
            kind = "output"
        else:
            kind = "arena"
        print(
            f"  {i:4d} {name:<{width}} {_TYPE_NAMES[type_code]:<7} {_shape(shape):<16} {nbytes:>10}  {kind}", file=out
        )
    print(
        f"\nconstant bytes: {constant_bytes} in {constant_count} tensors (mapped from the file, not copied)", file=out
    )
    batch = f", batch {args.batch}" if args.batch else ""
    print(f"arena size: {interpreter.arena_size()} bytes (planned by the runtime{batch})", file=out)
    return 0


def _parse_inputs(specs):
    values = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"--input expects NAME=FILE.npy, got '{spec}'")
        try:
            value = np.load(path, allow_pickle=False)
        except OSError as error:
            raise OSError(f"--input {name}: cannot read '{path}': {error.strerror or error}") from None
        except ValueError as error:  # not a .npy file, or an object array
            raise ValueError(f"--input {name}: '{path}' is not a .npy file of numbers: {error}") from None
        if not isinstance(value, np.ndarray):
            raise ValueError(f"--input {name}: '{path}' is an .npz archive; give one array as a .npy file")
        values[name] = value
    return values


def run(args):
    interpreter = Interpreter(model_path=args.model, num_threads=args.num_threads)
    values = _parse_inputs(args.input)
    signatures = interpreter.get_signature_list()
    if args.signature is not None or (
        len(signatures) == 1 and set(values) == set(next(iter(signatures.values()))["inputs"])
    ):
        runner = interpreter.get_signature_runner(args.signature)
        outputs = runner(**values)
    else:
        details = {d["name"]: d for d in interpreter.get_input_details()}
        unknown = sorted(set(values) - set(details))
        missing = sorted(set(details) - set(values))
        if unknown or missing:
            raise ValueError(f"model inputs are {sorted(details)}; unknown: {unknown}, missing: {missing}")
        for name, value in values.items():
            if tuple(value.shape) != tuple(details[name]["shape"]):
                interpreter.resize_tensor_input(details[name]["index"], value.shape)
        interpreter.allocate_tensors()
        for name, value in values.items():
            interpreter.set_tensor(details[name]["index"], value)
        interpreter.invoke()
        outputs = {d["name"]: interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()}
    for name, value in outputs.items():
        print(f"{name}: {value.dtype}{_shape(value.shape)}")
    if args.output:
        np.savez(args.output, **outputs)
        print(f"wrote {args.output}")
    return 0


def _random_inputs(interpreter, seed=0):
    rng = np.random.default_rng(seed)
    for detail in interpreter.get_input_details():
        dtype = np.dtype(detail["dtype"])
        if dtype == np.float32:
            value = rng.random(detail["shape"], dtype=np.float32)
        else:
            value = np.zeros(detail["shape"], dtype=dtype)
        interpreter.set_tensor(detail["index"], value)


def benchmark(args):
    start = time.perf_counter()
    interpreter = _open(args)
    init_ms = (time.perf_counter() - start) * 1e3
    _random_inputs(interpreter)
    invoke = interpreter.invoke
    for _ in range(args.warmup):
        invoke()
    times = np.empty(args.runs, dtype=np.float64)
    clock = time.perf_counter_ns
    for i in range(args.runs):
        t0 = clock()
        invoke()
        times[i] = clock() - t0
    times /= 1e3
    batch = f" batch {args.batch}" if args.batch else ""
    print(
        f"model: {args.model}{batch}, threads {args.num_threads}, "
        f"init {init_ms:.1f} ms, arena {interpreter.arena_size()} bytes"
    )
    print(
        f"runs {args.runs} (warmup {args.warmup}): mean {times.mean():.1f} us, "
        f"median {np.median(times):.1f} us, p90 "
        f"{np.percentile(times, 90):.1f} us, min {times.min():.1f} us"
    )
    if args.profile:
        rows = interpreter.profile_ops(args.runs)
        print("op profile (per invoke, summed over nodes of each type):")
        print(f"  {'op':<20} {'count':>6} {'time (us)':>12} {'share':>8}")
        for r in rows:
            print(f"  {r['op']:<20} {r['count']:>6} {r['us']:>12.2f} {100 * r['share']:>7.2f}%")
        print(f"  {'total':<20} {sum(r['count'] for r in rows):>6} {sum(r['us'] for r in rows):>12.2f}")
    return 0


def _count(minimum):
    """An argparse type: an integer of at least `minimum`."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def _parser():
    parser = argparse.ArgumentParser(prog="tensorweave-lite", description="Inspect, run and benchmark .twl models.")
    commands = parser.add_subparsers(dest="command", required=True)

    p = commands.add_parser("inspect", help="ops, tensors, constant bytes, arena")
    p.add_argument("model")
    p.add_argument("--batch", type=int, default=None, help="resize dynamic input dims before planning")
    p.set_defaults(func=inspect)

    p = commands.add_parser("run", help="run once on .npy inputs")
    p.add_argument("model")
    p.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="NAME=FILE.npy",
        help="an input by tensor (or signature) name; repeat",
    )
    p.add_argument("--output", metavar="OUT.npz", help="write every output, keyed by name")
    p.add_argument("--signature", default=None, help="run this signature (names are the signature's)")
    p.add_argument("--num_threads", type=int, default=1)
    p.set_defaults(func=run)

    p = commands.add_parser("benchmark", help="time invoke()")
    p.add_argument("model")
    p.add_argument("--num_threads", type=int, default=1)
    p.add_argument("--runs", type=_count(1), default=1000)
    p.add_argument("--warmup", type=_count(0), default=10)
    p.add_argument("--batch", type=int, default=None)
    p.add_argument("--profile", action="store_true", help="then time each op (its time, share and count)")
    p.set_defaults(func=benchmark)
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, RuntimeError, OSError) as error:
        print(f"tensorweave-lite {args.command}: error: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
