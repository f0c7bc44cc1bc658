"""tensorweave-convert: freezes a trained model and writes .twl or .onnx;
converts ONNX models to .twl.

  tensorweave-convert --input <saved model dir | model.h5 | model.keras | frozen.pb | model.onnx>
                      --output <model.twl | model.onnx>
                      [--inputs name,...] [--outputs name,...]
                      [--no-checksum]
                      [--quantize int8 --calibration <file.npz | dir of .npy>
                       [--activation-type uint8|int8]
                       [--calibration-method minmax|percentile]]
                      [--quantize dynamic]

A saved model directory is what `tw.saved_model.simple_save` writes; its
signature names the inputs and outputs unless --inputs/--outputs (tensor
names such as "x" or "x:0") are given. A SavedModel that TensorFlow wrote
(`tf.saved_model.save`, Keras' `model.save(dir)`) and a Keras model file
(.h5, .keras) are read and frozen by TensorFlow (converters/tf_models.py;
needs TensorFlow installed); a TF1 SavedModel (`simple_save`,
`SavedModelBuilder`) is read by the core itself, without TensorFlow
(converters/tf1_saved_model.py), TensorFlow being the fallback; their serving
signature (--signature) giving the inputs and outputs. A .pb file is a GraphDef without
variables and needs --inputs and --outputs. A .twl file ends in an integrity
trailer (CRC-32 of the whole file, checked by the lite runtime on load)
unless --no-checksum is given.

--quantize int8 quantizes the .twl after training (converters/ptq.py):
int8 weights per output channel, activations per tensor at the ranges the
float model reaches on the calibration inputs (arrays named after the
model's inputs, samples on axis 0). --quantize dynamic stores weights as
int8 only.
"""

import argparse
import importlib.util
import os
import sys

from converters.errors import ConversionError

VERSION = "0.1.0"


def _names(text):
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ConversionError(f"empty name list {text!r}")
    return names


def _write_atomically(path, data):
    """Writes `data` to a temporary file beside `path` and renames it over
    `path`; the temporary file is removed on every failure."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise ConversionError(f"the output directory does not exist: {directory}")
    if os.path.isdir(path):
        raise ConversionError(f"the output {path!r} is a directory; give a file name such as {path}/model.twl")
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _have_tensorflow():
    try:
        return importlib.util.find_spec("tensorflow") is not None
    except ValueError:  # (a module entry set to None: imports of it fail)
        return False


def _frozen_graph(args):
    return frozen_graph(
        args.input,
        _names(args.inputs),
        _names(args.outputs),
        getattr(args, "signature", None),
        fold_batch_norms=not args.no_fold_batch_norms,
        keras_safe_mode=not getattr(args, "no_keras_safe_mode", False),
    )


def frozen_graph(source, inputs=None, outputs=None, signature=None, fold_batch_norms=True, keras_safe_mode=True):
    """(frozen GraphDef, inputs, outputs, input keys, output keys) of a saved model directory, Keras model file
    or GraphDef file `source`; `inputs`/`outputs` (tensor names) override a saved model's signature."""
    from tensorweave._src.framework import graph_pb2

    from converters import freeze, tf_models

    options = {"fold_batch_norms": fold_batch_norms}
    simple_save = os.path.exists(os.path.join(source, "signature.json"))  # freeze_saved_model's, below
    if tf_models.has_meta_graph_file(source) and not simple_save and not tf_models.is_keras_file(source):
        from converters import tf1_saved_model

        # A TF1 graph (SavedModelBuilder's, tensorweave's or TensorFlow's): the core reads it, without TensorFlow.
        meta = tf1_saved_model.tf1_meta_graph(source)
        if meta is not None:
            try:
                return tf1_saved_model.freeze_tf1(source, meta, inputs, outputs, signature, **options)
            except ConversionError:
                if not (_have_tensorflow() and tf_models.is_tf_saved_model(source)):
                    raise
    if tf_models.is_tf_saved_model(source) or tf_models.is_keras_file(source):
        # TensorFlow freezes it; its serving signature names the inputs and outputs.
        data, inputs, outputs, input_keys, output_keys = tf_models.freeze(
            source, inputs, outputs, signature, keras_safe_mode=keras_safe_mode
        )
    elif os.path.isdir(source):
        return freeze.freeze_saved_model(source, inputs, outputs, **options)
    else:
        if not inputs or not outputs:
            raise ConversionError("a GraphDef file needs --inputs and --outputs")
        with open(source, "rb") as f:
            data = f.read()
        input_keys, output_keys = None, None
    try:
        graph_def = graph_pb2.GraphDef.FromString(data)
    except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
        raise ConversionError(f"{source}: not a GraphDef: {e}") from None
    frozen = freeze_tf_graph(graph_def, inputs, outputs, source, **options)
    return frozen, inputs, outputs, input_keys, output_keys


def freeze_tf_graph(graph_def, inputs, outputs, source, fold_batch_norms=True):
    """GraphDef `graph_def` (variables already constants; TensorFlow's or the core's) frozen from `inputs` to
    `outputs`, with TensorFlow's function calls inlined and the ops the core lacks lowered."""
    from converters import freeze, tf_models

    graph_def = tf_models.inline_function_calls(graph_def, source)  # (none left in what TF froze)
    graph_def = tf_models.lower_einsums(graph_def, source)  # (a .pb's; a Keras model's are lowered already)
    graph_def = tf_models.lower_ops_the_core_lacks(graph_def)
    return freeze.freeze_graph_def(graph_def, {}, inputs, outputs, fold_batch_norms=fold_batch_norms)


def _quantized(args, data):
    """`data` (.twl bytes) quantized as --quantize asks (or as it is)."""
    quantize = getattr(args, "quantize", None)
    calibration = getattr(args, "calibration", None)
    if not quantize:
        if calibration:
            raise ConversionError("--calibration applies only with --quantize int8")
        return data
    from converters import ptq

    if quantize == "dynamic" and calibration:
        raise ConversionError("--quantize dynamic takes no --calibration")
    return ptq.quantize(
        data,
        calibration,
        mode=quantize,
        activation_type=getattr(args, "activation_type", None) or "uint8",
        method=getattr(args, "calibration_method", None) or "minmax",
        checksum=not args.no_checksum,
    )


def convert(args):
    """Runs one conversion; returns a one-line summary."""
    source, target = args.input, args.output
    if getattr(args, "quantize", None) and not target.lower().endswith(".twl"):
        raise ConversionError("--quantize applies to .twl output only")
    if not os.path.exists(source):
        raise ConversionError(f"no such file or directory: {source}")
    out_ext = os.path.splitext(target)[1].lower()
    if out_ext not in (".twl", ".onnx"):
        raise ConversionError(f"the output must end in .twl or .onnx, got {target!r}")
    if source.lower().endswith(".onnx"):
        if out_ext != ".twl":
            raise ConversionError("an ONNX model converts to .twl only")
        if args.inputs or args.outputs:
            raise ConversionError("--inputs/--outputs do not apply to ONNX models")
        from converters import onnx_import

        data = _quantized(args, onnx_import.convert(source, checksum=not args.no_checksum))
        _write_atomically(target, data)
        return f"wrote {target} ({len(data)} bytes) from {source}"
    frozen, inputs, outputs, input_keys, output_keys = _frozen_graph(args)
    if out_ext == ".twl":
        from converters import tf_to_twl

        options = {
            "source": os.path.basename(os.path.normpath(source)),
            "fold_batch_norms": not args.no_fold_batch_norms,
            "checksum": not args.no_checksum,
        }
        data = _quantized(args, tf_to_twl.convert(frozen, inputs, outputs, input_keys, output_keys, options))
    else:
        from converters import onnx_export

        data = onnx_export.export(frozen, inputs, outputs, input_keys, output_keys).SerializeToString()
    _write_atomically(target, data)
    return f"wrote {target} ({len(data)} bytes, {len(frozen.node)} frozen nodes) from {source}"


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tensorweave-convert",
        description="Freeze a tensorweave model and write .twl or .onnx; convert ONNX to .twl.",
    )
    parser.add_argument(
        "--input", required=True, help="saved model directory, Keras .h5/.keras file, GraphDef .pb or .onnx"
    )
    parser.add_argument("--signature", help="a TensorFlow SavedModel's signature key (default: serving_default)")
    parser.add_argument("--output", required=True, help="model.twl or model.onnx")
    parser.add_argument("--inputs", help="comma-separated input tensor names (default: the signature)")
    parser.add_argument("--outputs", help="comma-separated output tensor names (default: the signature)")
    parser.add_argument(
        "--no-fold-batch-norms", action="store_true", help="keep batch norms instead of folding them into weights"
    )
    parser.add_argument(
        "--no-checksum",
        action="store_true",
        help=".twl: omit the integrity trailer (a CRC-32 of the file that the lite runtime checks on load)",
    )
    parser.add_argument(
        "--quantize",
        choices=("int8", "dynamic"),
        help=".twl: int8 post-training quantization (needs --calibration), or dynamic (int8 weights only)",
    )
    parser.add_argument(
        "--calibration", help="--quantize int8: an .npz or a directory of .npy files named after the model's inputs"
    )
    parser.add_argument(
        "--activation-type", choices=("uint8", "int8"), default="uint8", help="--quantize int8: activation type"
    )
    parser.add_argument(
        "--calibration-method",
        choices=("minmax", "percentile"),
        default="minmax",
        help="--quantize int8: activation ranges from the min/max or the 0.01/99.99th percentiles",
    )
    parser.add_argument(
        "--no-keras-safe-mode",
        action="store_true",
        help="a .keras file: load it with Keras' safe_mode=False, which a Lambda layer's Python code needs (only "
        "for a file you trust: loading runs its code)",
    )
    parser.add_argument("--version", action="version", version=f"tensorweave-convert {VERSION}")
    args = parser.parse_args(argv)
    try:
        print(convert(args))
    except ConversionError as e:
        print(f"tensorweave-convert: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"tensorweave-convert: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
