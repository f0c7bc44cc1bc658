"""tf.keras.utils (Keras 2): registration of custom objects, seeds, ordinal encoding, data packing, dataset helpers
(timeseries_dataset_from_array, split_dataset), get_source_inputs, and model_to_dot / plot_model (with pydot)."""

import random

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import utils as _utils

__all__ = [
    "get_registered_name",
    "get_registered_object",
    "get_source_inputs",
    "model_to_dot",
    "pack_x_y_sample_weight",
    "plot_model",
    "register_keras_serializable",
    "set_random_seed",
    "split_dataset",
    "timeseries_dataset_from_array",
    "to_ordinal",
    "unpack_x_y_sample_weight",
]

_REGISTERED_NAMES = {}  # class or function -> 'package>name'


def register_keras_serializable(package="Custom", name=None):
    """A decorator that registers a class or function as 'package>name' among the global custom objects."""

    def decorator(arg):
        class_name = name if name is not None else arg.__name__
        registered_name = package + ">" + class_name
        if isinstance(arg, type) and not hasattr(arg, "get_config"):
            raise ValueError("Cannot register a class that does not have a get_config() method.")
        _utils._GLOBAL_CUSTOM_OBJECTS[registered_name] = arg
        _REGISTERED_NAMES[arg] = registered_name
        return arg

    return decorator


def get_registered_name(obj):
    """The name `obj` was registered under, else its `__name__`."""
    if obj in _REGISTERED_NAMES:
        return _REGISTERED_NAMES[obj]
    return obj.__name__


def get_registered_object(name, custom_objects=None, module_objects=None):
    """The object registered (or in `custom_objects` / `module_objects`) under `name`, else None."""
    if name in _utils._GLOBAL_CUSTOM_OBJECTS:
        return _utils._GLOBAL_CUSTOM_OBJECTS[name]
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if module_objects and name in module_objects:
        return module_objects[name]
    return None


def set_random_seed(seed):
    """Seeds Python's `random`, numpy and the default graph's random ops."""
    if not isinstance(seed, (int, np.integer)):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")  # noqa: TRY004 - Keras raises a ValueError
    random.seed(seed)
    np.random.seed(seed)
    tw.set_random_seed(seed)


def to_ordinal(y, num_classes=None, dtype="float32"):
    """Class ids as ordinal rows of num_classes - 1 entries: class k has its first k entries 1."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.reshape(-1)
    if not num_classes:
        num_classes = np.max(y) + 1
    ordinal = (np.arange(num_classes - 1)[None, :] < y[:, None]).astype(dtype)
    return ordinal.reshape(input_shape + (num_classes - 1,))


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """(x, y, sample_weight) as the tuple Model.fit takes, dropping the trailing Nones."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """`x`, `(x,)`, `(x, y)` or `(x, y, sample_weight)` as (x, y, sample_weight)."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return data
    raise ValueError(
        f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: {data}"
    )


def get_source_inputs(tensor, layer=None, node_index=None):
    """The placeholders (Keras Inputs) `tensor` is computed from."""
    tensors = tensor if isinstance(tensor, (list, tuple)) else [tensor]
    if not all(isinstance(t, tw.Tensor) for t in tensors):
        raise ValueError(f"Expected a Tensor (a Keras tensor). Received: {tensor}")
    found, seen, stack = [], set(), [t.op for t in tensors]
    for t in tensors:
        if t.op.type in ("Placeholder", "PlaceholderWithDefault") and t not in found:
            found.append(t)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        if op.type == "Placeholder":
            if op.outputs[0] not in found:
                found.append(op.outputs[0])
            continue
        stack.extend(inp.op for inp in reversed(list(op.inputs)))
    return found


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1, batch_size=128,
                                  shuffle=False, seed=None, start_index=None, end_index=None):  # fmt: skip
    """A tw.data Dataset of (batches of) windows of `data` of `sequence_length` steps `sampling_rate` apart,
    starting every `sequence_stride` steps, with targets[start_index + start] when `targets` is given."""
    if start_index and (start_index < 0 or start_index >= len(data)):
        raise ValueError(f"`start_index` must be 0 or greater and must be lower than the length of the input data. "
                         f"Received: start_index={start_index}, for data of length {len(data)}")  # fmt: skip
    if end_index:
        if start_index and end_index <= start_index:
            raise ValueError(f"`end_index` must be higher than `start_index`. Received: start_index={start_index}, "
                             f"and end_index={end_index} ")  # fmt: skip
        if end_index >= len(data):
            raise ValueError(f"`end_index` must be lower than the length of the input data. Received: "
                             f"end_index={end_index}, and input_data_length={len(data)}")  # fmt: skip
        if end_index <= 0:
            raise ValueError(f"`end_index` must be higher than 0. Received: end_index={end_index}")
    for arg, value in (("sampling_rate", sampling_rate), ("sequence_stride", sequence_stride)):
        if value <= 0:
            raise ValueError(f"`{arg}` must be higher than 0. Received: {arg}={value}")
        if value >= len(data):
            raise ValueError(f"`{arg}` must be lower than the length of the data. Received: {arg}={value}, for "
                             f"data of length {len(data)}")  # fmt: skip
    if targets is not None and len(targets) != len(data):
        raise ValueError(f"Expected `targets` to be of the same length as the data, but received data of length "
                         f"{len(data)} and targets of length {len(targets)}")  # fmt: skip
    start_index = start_index or 0
    end_index = end_index or len(data)
    data = np.asarray(data)[start_index:end_index]
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    starts = np.arange(0, max(num_seqs, 0), sequence_stride)
    if shuffle:
        np.random.RandomState(seed if seed is not None else np.random.randint(1_000_000)).shuffle(starts)
    windows = starts[:, None] + np.arange(sequence_length)[None, :] * sampling_rate
    inputs = data[windows] if len(starts) else np.zeros((0, sequence_length) + data.shape[1:], data.dtype)
    if targets is None:
        dataset = tw.data.Dataset.from_tensor_slices(inputs)
    else:
        dataset = tw.data.Dataset.from_tensor_slices((inputs, np.asarray(targets)[start_index:end_index][starts]))
    return dataset.batch(batch_size) if batch_size is not None else dataset


def _split_sizes(left_size, right_size, total):
    for name, size in (("left_size", left_size), ("right_size", right_size)):
        if size is not None and not isinstance(size, (int, float)):
            raise TypeError(f"Invalid `{name}` type. Expected int or float. Received: {name}={size} of type "
                            f"{type(size)}")  # fmt: skip
        if isinstance(size, float) and not 0 < size < 1:
            raise ValueError(f"`{name}` should be in the range (0, 1) when a float. Received: {name}={size}")
        if isinstance(size, int) and not 0 < size <= total:
            raise ValueError(f"`{name}` should be a positive integer smaller than the dataset length ({total}). "
                             f"Received: {name}={size}")  # fmt: skip
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. Received: "
                         "left_size=None and right_size=None")  # fmt: skip
    left = round(left_size * total) if isinstance(left_size, float) else left_size
    right = round(right_size * total) if isinstance(right_size, float) else right_size
    left = total - right if left is None else left
    right = total - left if right is None else right
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the dataset length "
                         f"{total}. Received: left_size + right_size = {left + right}")  # fmt: skip
    if left == 0 or right == 0:
        raise ValueError(f"One of the splits is empty (left_size={left}, right_size={right}) for a dataset of "
                         f"length {total}.")  # fmt: skip
    return int(left), int(right)


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Two tw.data Datasets of the first `left_size` and the next `right_size` samples of `dataset` (arrays, a
    tuple/list of arrays, or an unbatched tw.data Dataset); sizes are counts or fractions."""
    if isinstance(dataset, tw.data.Dataset):
        from tensorweave._src.keras.layers_preprocessing import _batches

        rows = list(_batches(dataset))
        if rows and isinstance(rows[0], tuple):
            arrays = tuple(np.stack([r[i] for r in rows]) for i in range(len(rows[0])))
        else:
            arrays = np.stack(rows) if rows else np.zeros([0])
    elif isinstance(dataset, (tuple, list)):
        arrays = tuple(np.asarray(a) for a in dataset)
    elif isinstance(dataset, np.ndarray):
        arrays = dataset
    else:
        raise TypeError(f"The `dataset` argument must be either a `tf.data.Dataset` object or a list/tuple of "
                        f"arrays. Received: dataset={dataset} of type {type(dataset)}")  # fmt: skip
    total = len(arrays[0]) if isinstance(arrays, tuple) else len(arrays)
    left, right = _split_sizes(left_size, right_size, total)
    order = np.arange(total)
    if shuffle:
        np.random.RandomState(seed if seed is not None else np.random.randint(1_000_000)).shuffle(order)

    def take(idx):
        part = tuple(a[idx] for a in arrays) if isinstance(arrays, tuple) else arrays[idx]
        return tw.data.Dataset.from_tensor_slices(part)

    return take(order[:left]), take(order[left : left + right])


_PYDOT_MESSAGE = (
    "You must install pydot (`pip install pydot`) and install graphviz (see instructions at "
    "https://graphviz.gitlab.io/download/) for plot_model to work."
)


def _pydot():
    try:
        import pydot

        pydot.Dot.create(pydot.Dot())  # graphviz's `dot` must run too
    except Exception:  # noqa: BLE001 - either missing means no plotting, as Keras checks
        return None
    return pydot


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB", expand_nested=False,
                 dpi=96, subgraph=False, layer_range=None, show_layer_activations=False, show_trainable=False):  # fmt: skip
    """The model's layers and their connections as a pydot graph (ImportError without pydot and graphviz)."""
    pydot = _pydot()
    if pydot is None:
        raise ImportError(_PYDOT_MESSAGE)
    dot = pydot.Dot(graph_type="digraph", rankdir=rankdir, dpi=dpi)
    dot.set_node_defaults(shape="record")
    for layer in model.layers:
        label = f"{layer.name}: {type(layer).__name__}" if show_layer_names else type(layer).__name__
        if show_layer_activations and getattr(layer, "activation", None) is not None:
            label += f"|{getattr(layer.activation, '__name__', layer.activation)}"
        if show_shapes:
            try:
                label += f"|output: {layer.output_shape}"
            except (AttributeError, ValueError):
                label += "|output: multiple"
        if show_trainable:
            label += f"|trainable: {'T' if layer.trainable else 'F'}"
        dot.add_node(pydot.Node(str(id(layer)), label=label))
    for layer in model.layers:
        for node in getattr(layer, "_inbound_nodes", []):
            for inbound, _, _, _ in node.iterate_inbound():
                if inbound in model.layers:
                    dot.add_edge(pydot.Edge(str(id(inbound)), str(id(layer))))
    return dot


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False, show_layer_names=True, rankdir="TB",
               expand_nested=False, dpi=96, layer_range=None, show_layer_activations=False, show_trainable=False):  # fmt: skip
    """Draws the model to `to_file` (its extension the format) with pydot and graphviz; without them it prints how to
    install them and draws nothing, as Keras does."""
    if _pydot() is None:
        print(_PYDOT_MESSAGE)
        return None
    dot = model_to_dot(model, show_shapes, show_dtype, show_layer_names, rankdir, expand_nested, dpi,
                       show_layer_activations=show_layer_activations, show_trainable=show_trainable)  # fmt: skip
    extension = to_file.rsplit(".", 1)[-1] if "." in to_file else "png"
    dot.write(to_file, format=extension)
    return None
