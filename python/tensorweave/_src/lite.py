"""tw.lite: TensorFlow 1's `tf.lite` converter and interpreter over tensorweave's lite runtime.

`TFLiteConverter.convert()` returns a `.twl` model (tensorweave's flatbuffer, what `tensorweave-convert`
writes), not a TensorFlow Lite flatbuffer: `Interpreter` and the lite runtime run it; LiteRT cannot. A TF1
program that converts, writes the bytes to a file and runs them with `tf.lite.Interpreter` works unchanged.
"""

import enum
import os

import numpy as np

from tensorweave._src.framework import dtypes as _dtypes
from tensorweave._src.framework import ops as _ops

FLOAT = _dtypes.float32
FLOAT16 = _dtypes.float16
INT8 = _dtypes.int8
INT16 = _dtypes.int16
INT32 = _dtypes.int32
INT64 = _dtypes.int64
STRING = _dtypes.string
QUANTIZED_UINT8 = _dtypes.uint8
TFLITE = 2
GRAPHVIZ_DOT = 3


class OpsSet(enum.Enum):
    """The op sets a converted model may use (`TargetSpec.supported_ops`)."""

    TFLITE_BUILTINS = "TFLITE_BUILTINS"
    SELECT_TF_OPS = "SELECT_TF_OPS"
    TFLITE_BUILTINS_INT8 = "TFLITE_BUILTINS_INT8"
    EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8 = (
        "EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8"
    )
    EXPERIMENTAL_STABLEHLO_OPS = "EXPERIMENTAL_STABLEHLO_OPS"

    def __str__(self):
        return str(self.value)


class Optimize(enum.Enum):
    """Optimizations `TFLiteConverter.optimizations` may ask for: any of the first three quantizes (int8
    weights; int8 activations too with a representative dataset)."""

    DEFAULT = "DEFAULT"
    OPTIMIZE_FOR_SIZE = "OPTIMIZE_FOR_SIZE"
    OPTIMIZE_FOR_LATENCY = "OPTIMIZE_FOR_LATENCY"
    EXPERIMENTAL_SPARSITY = "EXPERIMENTAL_SPARSITY"

    def __str__(self):
        return str(self.value)


class RepresentativeDataset:
    """Calibration samples for int8 quantization: `input_gen` is a generator function yielding, per sample,
    a list of arrays (one per model input, in order) or a dict {input name: array}."""

    def __init__(self, input_gen):
        self.input_gen = input_gen


class TargetSpec:
    """What the converted model may use: `supported_ops` (a set of OpsSet), `supported_types` (dtypes;
    [float16] asks for float16 weights, which tensorweave keeps in float32)."""

    def __init__(
        self,
        supported_ops=None,
        supported_types=None,
        experimental_select_user_tf_ops=None,
        experimental_supported_backends=None,
    ):
        self.supported_ops = set(supported_ops) if supported_ops is not None else {OpsSet.TFLITE_BUILTINS}
        self.supported_types = list(supported_types) if supported_types is not None else []
        self.experimental_select_user_tf_ops = experimental_select_user_tf_ops or set()
        self.experimental_supported_backends = experimental_supported_backends


_QUANTIZING = (Optimize.DEFAULT, Optimize.OPTIMIZE_FOR_SIZE, Optimize.OPTIMIZE_FOR_LATENCY)


class TFLiteConverter:
    """Converts a TF1 graph (a session's, a frozen GraphDef file's, a SavedModel's or a Keras model file's) to
    a lite model; `convert()` returns its `.twl` bytes (the example is tw.lite's docstring's).
    """

    def __init__(self, graph_def, input_tensors, output_tensors, input_arrays_with_shape=None, output_arrays=None):
        if input_tensors is not None:
            inputs = [_tensor_name(t) for t in input_tensors]
            shapes = {}
        else:
            inputs = [_tensor_name(name) for name, _ in input_arrays_with_shape]
            shapes = {name: shape for name, shape in input_arrays_with_shape if shape is not None}
        outputs = [_tensor_name(t) for t in output_tensors] if output_tensors is not None else list(output_arrays)
        self._graph_def, self._inputs, self._outputs, self._input_shapes = graph_def, inputs, outputs, shapes
        self.inference_type = FLOAT
        self.inference_input_type = None
        self.inference_output_type = None
        self.output_format = TFLITE
        self.quantized_input_stats = {}
        self.default_ranges_stats = None
        self.drop_control_dependency = True
        self.reorder_across_fake_quant = False
        self.change_concat_input_ranges = False
        self.allow_custom_ops = False
        self.post_training_quantize = False
        self.dump_graphviz_dir = None
        self.dump_graphviz_video = False
        self.conversion_summary_dir = None
        self.target_spec = TargetSpec()
        self.optimizations = []
        self.representative_dataset = None
        self.experimental_new_converter = True
        self.experimental_new_quantizer = True

    # TF 1.x spelled the op sets `target_ops`.
    @property
    def target_ops(self):
        return self.target_spec.supported_ops

    @target_ops.setter
    def target_ops(self, value):
        self.target_spec.supported_ops = set(value)

    @classmethod
    def from_session(cls, sess, input_tensors, output_tensors):
        """The graph of `sess` with its variables' current values, from `input_tensors` to `output_tensors`."""
        for t in list(input_tensors) + list(output_tensors):
            if not isinstance(t, _ops.Tensor):
                raise TypeError(f"input_tensors and output_tensors must be Tensors, got {t!r}")
            if t.graph is not sess.graph:
                raise ValueError(f"tensor '{t.name}' is not an element of the session's graph")
        from tensorweave._src.framework import graph_util_impl

        outputs = sorted({t.op.name for t in output_tensors})
        frozen = graph_util_impl.convert_variables_to_constants(sess, sess.graph.as_graph_def(), outputs)
        return cls(frozen, input_tensors, output_tensors)

    @classmethod
    def from_frozen_graph(cls, graph_def_file, input_arrays, output_arrays, input_shapes=None):
        """A frozen GraphDef file (binary or text), its inputs and outputs given by name; `input_shapes`
        ({name: shape}) overrides the placeholders' shapes."""
        if not os.path.exists(graph_def_file):
            raise OSError(f"File '{graph_def_file}' does not exist.")
        from google.protobuf import text_format

        from tensorweave._src.framework import graph_pb2
        from tensorweave._src.training.meta_graph import parse_binary_or_text

        with open(graph_def_file, "rb") as f:
            data = f.read()
        graph_def = graph_pb2.GraphDef()
        try:
            parse_binary_or_text(graph_def, data)
        except (text_format.ParseError, UnicodeDecodeError):
            raise OSError(f"Unable to parse input file '{graph_def_file}'.") from None
        names = {n.name for n in graph_def.node}
        invalid = [a for a in list(input_arrays) + list(output_arrays) if _op_name(a) not in names]
        if invalid:
            raise ValueError(f"Invalid tensors '{','.join(invalid)}' were found.")
        shapes = input_shapes or {}
        return cls(graph_def, None, None, [(a, shapes.get(a)) for a in input_arrays], list(output_arrays))

    @classmethod
    def from_saved_model(
        cls, saved_model_dir, input_arrays=None, input_shapes=None, output_arrays=None, tag_set=None, signature_key=None
    ):
        """A SavedModel directory (`simple_save`, `SavedModelBuilder`, TensorFlow's); its signature
        (`signature_key`, default "serving_default") names the inputs and outputs unless
        `input_arrays`/`output_arrays` do."""
        from converters import cli
        from converters.errors import ConversionError

        del tag_set  # the serving graph is read
        if not os.path.isdir(saved_model_dir):
            raise OSError(f"SavedModel file does not exist at: {saved_model_dir}")
        try:
            frozen, inputs, outputs, _, _ = cli.frozen_graph(
                saved_model_dir,
                [_tensor_name(a) for a in input_arrays] if input_arrays else None,
                [_tensor_name(a) for a in output_arrays] if output_arrays else None,
                signature_key,
            )
        except ConversionError as e:
            raise ValueError(str(e)) from None
        shapes = input_shapes or {}
        return cls(frozen, None, None, [(a, shapes.get(_op_name(a))) for a in inputs], list(outputs))

    @classmethod
    def from_keras_model_file(
        cls, model_file, input_arrays=None, input_shapes=None, output_arrays=None, custom_objects=None
    ):
        """A Keras model file (`model.save("m.h5")` of `tw.keras`), loaded into a new graph and session."""
        from tensorweave._src.client.session import Session
        from tensorweave.keras import models

        graph = _ops.Graph()
        with graph.as_default(), Session(graph=graph) as sess:
            model = models.load_model(model_file, custom_objects=custom_objects, compile=False)
            converter = cls.from_session(sess, model.inputs, model.outputs)
        if input_arrays or output_arrays or input_shapes:
            inputs = list(input_arrays) if input_arrays else converter._inputs
            shapes = input_shapes or {}
            converter = cls(
                converter._graph_def,
                None,
                None,
                [(a, shapes.get(a)) for a in inputs],
                list(output_arrays) if output_arrays else converter._outputs,
            )
        return converter

    @classmethod
    def from_keras_model(cls, model):
        """A `tw.keras` model built in the current graph, with its weights' values in the Keras session."""
        from tensorweave.keras import backend

        return cls.from_session(backend.get_session(), model.inputs, model.outputs)

    def get_input_arrays(self):
        """The input tensors' names (without ":0")."""
        return [_op_name(name) if name.endswith(":0") else name for name in self._inputs]

    def convert(self):
        """The converted model: `.twl` bytes."""
        from converters import cli, tf_to_twl
        from converters.errors import ConversionError

        self._check_options()
        graph_def = self._graph_def
        if self._input_shapes:
            graph_def = _with_input_shapes(graph_def, self._input_shapes)
        try:
            frozen = cli.freeze_tf_graph(graph_def, self._inputs, self._outputs, "tw.lite")
            data = tf_to_twl.convert(frozen, self._inputs, self._outputs, None, None, {"source": "tw.lite"})
            return self._quantized(data)
        except ConversionError as e:
            raise ConverterError(str(e)) from None

    def _check_options(self):
        if self.output_format not in (TFLITE, None):
            raise ValueError("output_format: only TFLITE (a model) is written; GRAPHVIZ_DOT is not supported")
        quantized_io = [
            t
            for t in (self.inference_type, self.inference_input_type, self.inference_output_type)
            if t is not None and _dtypes.as_dtype(t) in (_dtypes.uint8, _dtypes.int8, _dtypes.int16)
        ]
        if quantized_io:
            raise ValueError(
                f"inference_type / inference_input_type / inference_output_type {quantized_io[0].name}: a lite model "
                "of tensorweave takes and returns float tensors (its int8 ops quantize inside the model); "
                "for int8 arithmetic set optimizations=[tw.lite.Optimize.DEFAULT] and a representative_dataset"
            )
        ops = set(self.target_spec.supported_ops)
        if OpsSet.TFLITE_BUILTINS_INT8 in ops and self.representative_dataset is None:
            raise ValueError("For full integer quantization, a `representative_dataset` must be specified.")

    def _quantized(self, data):
        from converters import ptq

        optimize = any(o in _QUANTIZING for o in self.optimizations) or self.post_training_quantize
        int8_ops = OpsSet.TFLITE_BUILTINS_INT8 in set(self.target_spec.supported_ops)
        if not (optimize or int8_ops):
            return data
        if self.representative_dataset is not None:
            return ptq.quantize(data, self._calibration(), mode="int8")
        if any(_dtypes.as_dtype(t) == _dtypes.float16 for t in self.target_spec.supported_types):
            return data  # float16 weights: tensorweave keeps them in float32
        return ptq.quantize(data, mode="dynamic")

    def _calibration(self):
        """{input name: samples stacked on axis 0} from the representative dataset."""
        dataset = self.representative_dataset
        gen = dataset.input_gen if isinstance(dataset, RepresentativeDataset) else dataset
        if not callable(gen):
            raise TypeError("representative_dataset must be a generator function or a tw.lite.RepresentativeDataset")
        names = [_op_name(name) for name in self._inputs]
        samples = {name: [] for name in names}
        for sample in gen():
            if isinstance(sample, dict):
                values = [sample[n] if n in sample else sample.get(f"{n}:0") for n in names]
            else:
                values = list(sample) if isinstance(sample, (list, tuple)) else [sample]
            if len(values) != len(names) or any(v is None for v in values):
                raise ValueError(
                    f"a representative_dataset sample must give the model's {len(names)} input(s) {names}, "
                    f"got {len(values)} value(s)"
                )
            for name, value in zip(names, values):
                samples[name].append(np.asarray(value))
        if not samples[names[0]]:
            raise ValueError("the representative_dataset yielded no samples")
        return {name: np.concatenate([v if v.ndim else v[None] for v in vs]) for name, vs in samples.items()}


class ConverterError(Exception):
    """A model cannot be converted: the message lists every unsupported op with its node name."""


TocoConverter = TFLiteConverter


def toco_convert(input_data, input_tensors, output_tensors, *args, **kwargs):
    """The `.twl` bytes of frozen GraphDef `input_data` from `input_tensors` to `output_tensors`
    (TF 1.x's first converter entry point)."""
    del args, kwargs
    return TFLiteConverter(input_data, input_tensors, output_tensors).convert()


def _tensor_name(t):
    name = t if isinstance(t, str) else t.name
    return name if ":" in name else f"{name}:0"


def _op_name(name):
    return name.split(":")[0]


def _with_input_shapes(graph_def, shapes):
    """A copy of `graph_def` whose placeholders named in `shapes` have those shapes."""
    from tensorweave._src.framework import graph_pb2

    out = graph_pb2.GraphDef()
    out.CopyFrom(graph_def)
    by_name = {n.name: n for n in out.node}
    for name, shape in shapes.items():
        node = by_name.get(_op_name(name))
        if node is None or node.op not in ("Placeholder", "PlaceholderV2", "PlaceholderWithDefault"):
            raise ValueError(f"input_shapes names '{name}', which is not a placeholder of the graph")
        known = "shape" in node.attr and not node.attr["shape"].shape.unknown_rank
        proto = node.attr["shape"].shape
        old = [d.size for d in proto.dim] if known else None
        new = [-1 if d is None else int(d) for d in shape]
        if old is not None and (len(old) != len(new) or any(-1 not in (a, b) and a != b for a, b in zip(old, new))):
            # As TF's set_shape: input_shapes may fill unknown dims, not change known ones.
            raise ValueError(
                f"The shape of tensor '{_op_name(name)}' cannot be changed from {_shape_text(old)} to {list(shape)}: "
                "input_shapes may only set the placeholder's unknown dimensions"
            )
        proto.Clear()
        for d in shape:
            proto.dim.add().size = -1 if d is None else int(d)
    return out


def _shape_text(dims):
    return "(" + ", ".join("None" if d == -1 else str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _is_tflite_flatbuffer(data):
    return len(data) >= 8 and bytes(data[4:8]) == b"TFL3"


def _interpreter_base():
    try:
        import tensorweave_lite
    except ImportError:
        return None
    return tensorweave_lite.Interpreter


_Base = _interpreter_base() or object


class Interpreter(_Base):
    """Runs a `.twl` model (what `TFLiteConverter.convert()` returns) with tensorweave's lite runtime, with
    `tf.lite.Interpreter`'s methods: allocate_tensors, get_input_details, get_output_details, set_tensor,
    invoke, get_tensor, tensor, resize_tensor_input, get_tensor_details, get_signature_list,
    get_signature_runner. Needs the `tensorweave-lite` package (tools/build_lite_python.sh)."""

    def __init__(
        self,
        model_path=None,
        model_content=None,
        experimental_delegates=None,
        num_threads=None,
        experimental_op_resolver_type=None,
        experimental_preserve_all_tensors=False,
        experimental_disable_delegate_clustering=False,
        experimental_default_delegate_latest_features=False,
    ):
        del experimental_op_resolver_type, experimental_preserve_all_tensors
        del experimental_disable_delegate_clustering, experimental_default_delegate_latest_features
        if _Base is object:
            raise ImportError(
                "tw.lite.Interpreter needs the tensorweave-lite package: run tools/build_lite_python.sh "
                "(or pip install ./lite/python)"
            )
        if (model_path is None) == (model_content is None):
            raise ValueError(
                "Can't both provide `model_path` and `model_content`"
                if model_path
                else "`model_path` or `model_content` must be specified."
            )
        if experimental_delegates:
            raise ValueError("tensorweave's lite runtime takes no delegates (its kernels are built in)")
        head = model_content
        if model_path is not None:
            if not isinstance(model_path, (str, bytes, os.PathLike)):
                # os.path.isfile would take an int for an open file descriptor
                raise TypeError(f"model_path must be a str, bytes or os.PathLike, got {type(model_path).__name__}")
            if not os.path.isfile(model_path):
                raise ValueError(f"Could not open '{model_path}'.")
            with open(model_path, "rb") as f:
                head = f.read(8)
        if head is not None and _is_tflite_flatbuffer(memoryview(head)):
            raise ValueError(
                "the model is a TensorFlow Lite flatbuffer (.tflite); tensorweave's lite runtime runs .twl models: "
                "convert the source model with tw.lite.TFLiteConverter or tensorweave-convert"
            )
        super().__init__(model_path=model_path, model_content=model_content, num_threads=num_threads)

    def num_subgraphs(self):
        return 1

    def reset_all_variables(self):
        """Nothing to reset: a `.twl` model holds no variables."""


def load_delegate(library, options=None):
    """TF's delegate loader: tensorweave's lite runtime has no delegates."""
    del options
    raise ValueError(f"Failed to load delegate from {library}: tensorweave's lite runtime takes no delegates")
