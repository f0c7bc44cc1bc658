"""Keras model saving: weights in HDF5 (tf_keras's layout: `layer_names`, one group per layer with `weight_names`)
or a TF checkpoint, whole models in HDF5 (`model_config`, `model_weights`, `training_config`), configs and JSON."""

import json
import os

import numpy as np

from tensorweave._src.keras import backend
from tensorweave._src.platform import tf_logging as logging

_KERAS_VERSION = "2.21.0"


def _h5py():
    try:
        import h5py
    except ImportError as e:  # pragma: no cover - h5py is installed where tests run
        raise ImportError("`save_weights`/`load_weights` in HDF5 format require h5py (`pip install h5py`).") from e
    return h5py


def _is_h5(filepath, save_format=None):
    if save_format is not None:
        fmt = str(save_format).lower().strip()
        if fmt in ("h5", "hdf5", "keras"):
            return True
        if fmt in ("tf", "tensorflow"):
            return False
        raise ValueError(f'Unknown format. Received: `save_format`={save_format}. Was expecting one of {{"tf", "h5"}}.')
    return str(filepath).endswith((".h5", ".hdf5", ".keras"))


# --- json ---


def json_default(obj):
    """What json.dumps writes for objects in configs: numpy values, shapes, functions, objects with get_config."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return obj.item()
    if hasattr(obj, "as_list"):
        return obj.as_list()
    if hasattr(obj, "as_numpy_dtype") or type(obj).__name__ == "DType":
        return obj.name
    if callable(obj) and hasattr(obj, "__name__") and not hasattr(obj, "get_config"):
        return obj.__name__
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    raise TypeError(f"Unable to serialize {obj} to JSON. Unrecognized type {type(obj)}.")


def _plain(config):
    """A config with its objects turned into JSON values."""
    return json.loads(json.dumps(config, default=json_default))


# --- configs ---


def _layer_config(layer):
    try:
        config = layer.get_config()
    except (AttributeError, NotImplementedError):
        config = {"name": layer.name, "trainable": layer.trainable}
    config = _plain(dict(config, name=layer.name))
    if isinstance(config.get("batch_input_shape"), list):
        config["batch_input_shape"] = tuple(config["batch_input_shape"])
    return {"class_name": type(layer).__name__, "config": config}


def model_config(model):
    return {"class_name": type(model).__name__, "config": _plain(model.get_config())}


def sequential_config(model):
    layers = []
    if model._input_layer is not None:
        layers.append(_layer_config(model._input_layer))
    layers += [_layer_config(layer) for layer in model.layers]
    return {"name": model.name, "layers": layers}


def functional_config(model):
    """The functional model as tf_keras writes it: layers with their inbound nodes, input and output layers."""
    if not model._is_graph_network:
        raise NotImplementedError(
            "Layer " + type(model).__name__ + " has arguments in `__init__` and therefore must override `get_config`."
        )
    network_nodes = {id(n) for v in model._nodes_by_depth.values() for n in v}

    def kept_index(layer, node_index):
        nodes = layer._inbound_nodes
        return sum(1 for n in nodes[:node_index] if id(n) in network_nodes)

    def tensor_ref(t):
        from tensorweave._src.layers import base

        layer, idx, t_idx = base.keras_history(t)
        return [layer.name, kept_index(layer, idx), t_idx]

    layer_configs = []
    for layer in model.layers:
        config = _layer_config(layer)
        inbound = []
        for node in layer._inbound_nodes:
            if id(node) not in network_nodes or node.is_input:
                continue
            kwargs = {k: v for k, v in node.call_kwargs.items() if not hasattr(v, "op")}
            if isinstance(node.call_inputs, dict):  # a layer called on a dict (DenseFeatures): tf_keras keeps its keys
                inbound.append({key: tensor_ref(t) + [kwargs] for key, t in node.call_inputs.items()})
                continue
            inbound.append(
                [[lyr.name, kept_index(lyr, idx), t_idx, kwargs] for lyr, idx, t_idx, _ in node.iterate_inbound()]
            )
        config["name"] = layer.name
        config["inbound_nodes"] = inbound
        layer_configs.append(config)

    return {
        "name": model.name,
        "layers": layer_configs,
        "input_layers": [tensor_ref(t) for t in model.inputs],
        "output_layers": [tensor_ref(t) for t in model.outputs],
    }


def _layer_class(class_name, custom_objects):
    from tensorweave._src.keras import engine, layers, utils

    custom_objects = {**utils.get_custom_objects(), **(custom_objects or {})}
    if class_name in custom_objects:
        return custom_objects[class_name]
    for module in (engine, layers):
        cls = getattr(module, class_name, None)
        if isinstance(cls, type):
            return cls
    raise ValueError(
        f"Unknown layer: '{class_name}'. Please ensure you are using a `keras.utils.custom_object_scope` and that "
        "this object is included in the scope. See "
        "https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details."
    )


def deserialize_layer(config, custom_objects=None):
    from tensorweave._src.keras import engine

    class_name = config["class_name"]
    cls = _layer_class(class_name, custom_objects)
    inner = dict(config.get("config", {}))
    if class_name in ("Sequential", "Model", "Functional") or (isinstance(cls, type) and issubclass(cls, engine.Model)):
        return cls.from_config(inner, custom_objects)
    if class_name == "InputLayer":
        return engine.InputLayer.from_config(inner)
    if hasattr(cls, "from_config") and "from_config" in cls.__dict__:
        return cls.from_config(inner)
    return cls(**inner)


def sequential_from_config(config, custom_objects=None):
    from tensorweave._src.keras import engine

    if isinstance(config, list):
        layer_configs, name = config, None
    else:
        layer_configs, name = config["layers"], config.get("name")
    model = engine.Sequential(name=name)
    for layer_config in layer_configs:
        layer = deserialize_layer(layer_config, custom_objects)
        model.add(layer)
    return model


def functional_from_config(config, custom_objects=None, cls=None):
    from tensorweave._src.keras import engine

    created = {}
    outputs_of = {}  # layer name -> list of node output lists
    pending = list(config["layers"])
    for layer_config in pending:
        layer = deserialize_layer(layer_config, custom_objects)
        created[layer_config["name"]] = layer
        if isinstance(layer, engine.InputLayer):
            outputs_of[layer_config["name"]] = [[layer.input]]
        else:
            outputs_of[layer_config["name"]] = []
    # Call the layers in order until every node is made (tf_keras's configs list layers in depth order).
    todo = [(c["name"], i, node) for c in pending for i, node in enumerate(c.get("inbound_nodes", []))]
    progress = True
    while todo and progress:
        progress = False
        remaining = []
        for name, i, node in todo:
            if i != len(outputs_of[name]):
                remaining.append((name, i, node))
                continue
            refs = list(node.values()) if isinstance(node, dict) else node
            try:
                inputs = [outputs_of[ref[0]][ref[1]][ref[2]] for ref in refs]
            except IndexError:
                remaining.append((name, i, node))
                continue
            kwargs = refs[0][3] if refs and len(refs[0]) > 3 else {}
            if isinstance(node, dict):
                out = created[name](dict(zip(node, inputs)), **kwargs)
            else:
                out = created[name](inputs[0] if len(inputs) == 1 else inputs, **kwargs)
            outputs_of[name].append(list(out) if isinstance(out, (list, tuple)) else [out])
            progress = True
        todo = remaining
    if todo:
        raise ValueError(f"Cannot rebuild the model from its config: layer {todo[0][0]} has inputs never produced.")
    inputs = [outputs_of[n][i][j] for n, i, j in config["input_layers"]]
    outputs = [outputs_of[n][i][j] for n, i, j in config["output_layers"]]
    model_cls = cls if cls is not None and cls is not engine.Sequential else engine.Model
    return model_cls(
        inputs[0] if len(inputs) == 1 else inputs, outputs[0] if len(outputs) == 1 else outputs, name=config["name"]
    )


def model_from_config(config, custom_objects=None):
    """A model from `{"class_name": ..., "config": ...}`."""
    if isinstance(config, list):
        raise TypeError(
            "`model_from_config` expects a dictionary, not a list. Received: config="
            + str(config)[:80]
            + ". Did you meant to use `Sequential.from_config(config)`?"
        )
    return deserialize_layer(config, custom_objects)


def model_from_json(json_string, custom_objects=None):
    """A model from the JSON `model.to_json()` wrote."""
    return model_from_config(json.loads(json_string), custom_objects)


def clone_model(model, input_tensors=None, clone_function=None):
    """A new model of the same architecture (new weights), from the model's config."""
    from tensorweave._src.keras import engine

    if isinstance(model, engine.Sequential):
        return engine.Sequential.from_config(model.get_config())
    if not model._is_graph_network:
        raise ValueError(
            "Expected `model` argument to be a functional `Model` instance, but got a subclassed model instead: "
            f"{model}"
        )
    return engine.Model.from_config(model.get_config())


# --- weights ---


def _legacy_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def _save_attr(group, name, data):
    group.attrs[name] = np.asarray(data, dtype="S") if data else np.zeros((0,), dtype="S1")


def _load_attr(group, name):
    if name in group.attrs:
        values = group.attrs[name]
    else:
        values, i = [], 0
        while f"{name}{i}" in group.attrs:
            values.extend(group.attrs[f"{name}{i}"])
            i += 1
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]


def save_weights_to_hdf5_group(f, model):
    layers = model.layers
    _save_attr(f, "layer_names", [layer.name.encode("utf8") for layer in layers])
    f.attrs["backend"] = b"tensorflow"
    f.attrs["keras_version"] = _KERAS_VERSION.encode("utf8")
    for layer in sorted(layers, key=lambda x: x.name):
        g = f.create_group(layer.name)
        weights = _legacy_weights(layer)
        values = backend.batch_get_value(weights) if weights else []
        names = [w.name.encode("utf8") for w in weights]
        _save_attr(g, "weight_names", names)
        for name, value in zip(names, values):
            g.create_dataset(name.decode("utf8"), data=np.asarray(value))


def load_weights_from_hdf5_group(f, model, by_name=False, skip_mismatch=False):
    layer_names = _load_attr(f, "layer_names")
    saved = []
    for name in layer_names:
        weight_names = _load_attr(f[name], "weight_names")
        if weight_names:
            saved.append((name, [np.asarray(f[name][w]) for w in weight_names]))
    pairs = []
    if by_name:
        index = {layer.name: layer for layer in model.layers}
        for name, values in saved:
            layer = index.get(name)
            if layer is None:
                continue
            symbolic = _legacy_weights(layer)
            if len(symbolic) != len(values):
                if skip_mismatch:
                    continue
                raise ValueError(
                    f"Weight count mismatch for layer {name}. Layer expects {len(symbolic)} weight(s). Received "
                    f"{len(values)} saved weight(s)"
                )
            for w, v in zip(symbolic, values):
                if tuple(w.shape.as_list()) != v.shape:
                    if skip_mismatch:
                        continue
                    raise ValueError(
                        f"Shape mismatch in layer {name} for weight {w.name}. Weight expects shape "
                        f"{tuple(w.shape.as_list())}. Received saved weight with shape {v.shape}"
                    )
                pairs.append((w, v))
    else:
        filtered = [layer for layer in model.layers if layer.weights]
        if len(saved) != len(filtered):
            raise ValueError(
                f"Layer count mismatch when loading weights from file. Model expected {len(filtered)} layers, found "
                f"{len(saved)} saved layers."
            )
        for k, ((name, values), layer) in enumerate(zip(saved, filtered)):
            symbolic = _legacy_weights(layer)
            if len(symbolic) != len(values):
                raise ValueError(
                    f"Weight count mismatch for layer #{k} (named {layer.name} in the current model, {name} in the "
                    f"save file). Layer expects {len(symbolic)} weight(s). Received {len(values)} saved weight(s)"
                )
            for w, v in zip(symbolic, values):
                if tuple(w.shape.as_list()) != v.shape:
                    raise ValueError(
                        f"Shape mismatch in layer #{k} (named {layer.name}) for weight {w.name}. Weight expects "
                        f"shape {tuple(w.shape.as_list())}. Received saved weight with shape {v.shape}"
                    )
                pairs.append((w, v))
    from tensorweave._src.keras import engine

    engine._initialize_new_variables()
    sess = backend.get_session()
    for w, v in pairs:
        w.load(v, sess)


def _checkpoint_keys(model, prefix=""):
    """{key: variable} by topology as Keras' TF-format weights name them ("layer_with_weights-<i>/kernel/...",
    an RNN's under "cell/"), so that a model of other layer names loads them."""
    keys = {}
    for i, layer in enumerate(layer for layer in model.layers if layer.weights):
        path = f"{prefix}layer_with_weights-{i}/"
        if hasattr(layer, "layers"):
            keys.update(_checkpoint_keys(layer, path))
            continue
        for w in _legacy_weights(layer):
            parts = w.op.name.split("/")
            attr = parts[-1]
            cell = getattr(layer, "cell", None)
            if cell is not None and len(parts) > 1 and parts[-2] == getattr(cell, "name", None):
                attr = "cell/" + attr
            keys[f"{path}{attr}/.ATTRIBUTES/VARIABLE_VALUE"] = w
    return keys


def _saver(model):
    import tensorweave as tw

    if not model.weights:
        return None
    keys = _checkpoint_keys(model)
    if len(keys) != len(set(map(id, _all_weights(model)))):
        keys = model.weights  # weights shared between layers: by variable name
    return tw.train.Saver(var_list=keys, save_relative_paths=True)


def _all_weights(model):
    return [w for layer in model.layers for w in _legacy_weights(layer)]


def save_weights(model, filepath, save_format=None):
    filepath = os.fspath(filepath)
    from tensorweave._src.keras import engine

    engine._initialize_new_variables()
    if _is_h5(filepath, save_format):
        with _h5py().File(filepath, "w") as f:
            save_weights_to_hdf5_group(f, model)
        return
    saver = _saver(model)
    if saver is None:
        raise ValueError("The model has no weights to save; build it first.")
    directory = os.path.dirname(filepath)
    if directory:
        os.makedirs(directory, exist_ok=True)
    saver.save(backend.get_session(), filepath, write_meta_graph=False)


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    filepath = os.fspath(filepath)
    h5py = _h5py()
    # An .h5 path is opened as HDF5 as Keras does: a missing or foreign file is h5py's OSError (FileNotFoundError),
    # not a checkpoint error.
    if _is_h5(filepath) or (os.path.isfile(filepath) and h5py.is_hdf5(filepath)):
        with h5py.File(filepath, "r") as f:
            if "layer_names" not in f.attrs and "model_weights" in f:
                f = f["model_weights"]
            load_weights_from_hdf5_group(f, model, by_name, skip_mismatch)
        return
    if by_name:
        raise NotImplementedError(
            "Weights may only be loaded based on topology into Models when loading TensorFlow-formatted weights "
            "(got by_name=True to load_weights)."
        )
    saver = _saver(model)
    from tensorweave._src.keras import engine

    engine._initialize_new_variables()
    saver.restore(backend.get_session(), filepath)
    return


# --- whole models ---


def _training_config(model):
    from tensorweave._src.keras import losses, optimizers

    opt = model.optimizer
    opt_config = None
    if isinstance(opt, optimizers.Optimizer):
        opt_config = optimizers.serialize(opt)
    loss = model._loss_spec

    def ser(x):
        if x is None or isinstance(x, str):
            return x
        if isinstance(x, dict):
            return {k: ser(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [ser(v) for v in x]
        return losses.serialize(x) if hasattr(losses, "serialize") else getattr(x, "__name__", str(x))

    return {
        "loss": ser(loss),
        "metrics": _plain(model._metrics_spec) if model._metrics_spec is not None else None,
        "weighted_metrics": _plain(model._weighted_metrics_spec) if model._weighted_metrics_spec else None,
        "loss_weights": model.loss_weights,
        "optimizer_config": opt_config,
    }


def save_model(model, filepath, overwrite=True, include_optimizer=True, save_format=None):
    """Writes the model's config, weights and (when compiled) training config to an HDF5 file."""
    filepath = os.fspath(filepath)
    if save_format is not None and not _is_h5(filepath, save_format):
        raise NotImplementedError("Only the HDF5 format is supported by `model.save`: use a `.h5` path.")
    if os.path.exists(filepath) and not overwrite:
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    if not model._is_graph_network and not isinstance(model, _engine().Sequential):
        raise NotImplementedError(
            "Saving the model to HDF5 format requires the model to be a Functional model or a Sequential model. It "
            "does not work for subclassed models, because such models are defined via the body of a Python method, "
            "which isn't safely serializable. Consider saving to the Tensorflow SavedModel format (by setting "
            'save_format="tf") or using `save_weights`.'
        )
    _engine()._initialize_new_variables()
    with _h5py().File(filepath, "w") as f:
        f.attrs["keras_version"] = _KERAS_VERSION.encode("utf8")
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = json.dumps(model_config(model), default=json_default).encode("utf8")
        save_weights_to_hdf5_group(f.create_group("model_weights"), model)
        if include_optimizer and model.optimizer is not None and model._compiled:
            f.attrs["training_config"] = json.dumps(_training_config(model), default=json_default).encode("utf8")
            weights = getattr(model.optimizer, "weights", None)
            if weights and not callable(weights):  # tf_keras's `optimizer_weights` group: iterations, then slots
                group = f.create_group("optimizer_weights")
                names = [w.name.encode("utf8") for w in weights]
                _save_attr(group, "weight_names", names)
                for name, value in zip(names, backend.batch_get_value(weights)):
                    group.create_dataset(name.decode("utf8"), data=np.asarray(value))


def _engine():
    from tensorweave._src.keras import engine

    return engine


def load_model(filepath, custom_objects=None, compile=True, options=None):
    """The model `save` wrote to an HDF5 file: rebuilt from its config, weights loaded, compiled again (with
    `custom_objects` in scope, as Keras: a custom activation or metric named in the config is found)."""
    from tensorweave._src.keras import utils

    with utils.custom_object_scope(custom_objects or {}):
        return _load_model(filepath, custom_objects, compile)


def _load_model(filepath, custom_objects, compile):
    filepath = os.fspath(filepath)
    h5py = _h5py()
    if not os.path.exists(filepath):
        raise OSError(f"No file or directory found at {filepath}")
    if not h5py.is_hdf5(filepath):
        raise OSError(f"Unable to load model from {filepath}: only HDF5 files written by `model.save` are supported.")
    with h5py.File(filepath, "r") as f:
        config = f.attrs.get("model_config")
        if config is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        config = json.loads(config.decode("utf8") if isinstance(config, bytes) else config)
        model = model_from_config(config, custom_objects)
        load_weights_from_hdf5_group(f["model_weights"], model)
        training = f.attrs.get("training_config")
        optimizer_values = None
        if "optimizer_weights" in f:
            group = f["optimizer_weights"]
            optimizer_values = [np.asarray(group[n]) for n in _load_attr(group, "weight_names")]
    if compile and training is not None:
        from tensorweave._src.keras import optimizers

        training = json.loads(training.decode("utf8") if isinstance(training, bytes) else training)
        opt = training.get("optimizer_config")
        optimizer = optimizers.deserialize(opt, custom_objects=custom_objects) if opt else "rmsprop"
        model.compile(
            optimizer,
            _custom_loss(training.get("loss"), custom_objects),
            metrics=training.get("metrics"),
            loss_weights=training.get("loss_weights"),
            weighted_metrics=training.get("weighted_metrics"),
        )
        if optimizer_values and isinstance(model.optimizer, optimizers.Optimizer):
            # As tf_keras: build the training graph (creating the slots), then restore the optimizer's state.
            model._build_training_graph()
            model.optimizer._create_all_weights(model.trainable_weights)
            _engine()._initialize_new_variables()
            try:
                model.optimizer.set_weights(optimizer_values)
            except ValueError:
                logging.warning(
                    "Error in loading the saved optimizer state. As a result, your model is starting with a freshly "
                    "initialized optimizer."
                )
    return model


def _custom_loss(loss, custom_objects):
    if isinstance(loss, str) and custom_objects and loss in custom_objects:
        return custom_objects[loss]
    if isinstance(loss, dict) and "class_name" not in loss:
        return {k: _custom_loss(v, custom_objects) for k, v in loss.items()}
    if isinstance(loss, list):
        return [_custom_loss(v, custom_objects) for v in loss]
    return loss
