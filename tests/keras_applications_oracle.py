"""tf_keras's side of tests/test_keras_applications.py, run in a subprocess (TF in its own process, in its default
mode): builds each case's application model, records its name, layers and weight shapes, gives its batch-norm
statistics and biases random values, saves the weights to .h5 and records the predictions on a fixed batch; records
the argument errors and preprocess_input's results.

Usage: python keras_applications_oracle.py CASES.json OUT_DIR  (writes OUT_DIR/oracle.json, OUT_DIR/<case>.h5,
OUT_DIR/oracle.npz)."""

import json
import os
import sys

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tf_keras
from tf_keras.applications import imagenet_utils


def _randomize(model, rng):
    """Random BN statistics / affine and biases (kernels keep Keras' initializers, so activations stay sane)."""
    for layer in model.layers:
        values = []
        for w, value in zip(layer.weights, layer.get_weights()):
            name = w.name.split("/")[-1]
            if "variance" in name or "gamma" in name:
                value = rng.uniform(0.5, 1.5, value.shape)
            elif "beta" in name or "mean" in name or "bias" in name:
                value = rng.normal(0.0, 0.1, value.shape)
            values.append(value.astype(np.float32))
        layer.set_weights(values)


def main(cases_path, out):
    with open(cases_path) as f:
        cases = json.load(f)
    result, arrays, rng = {"models": {}, "errors": {}}, {}, np.random.default_rng(0)
    for key, (fn, kwargs, predict, weights_file) in cases["models"].items():
        model = getattr(tf_keras.applications, fn)(weights=None, **kwargs)
        result["models"][key] = {
            "name": model.name,
            "params": int(model.count_params()),
            "layers": [layer.name for layer in model.layers],
            "weights": [[layer.name, list(w.shape)] for layer in model.layers for w in layer.weights],
        }
        if predict:
            _randomize(model, rng)
            model.save_weights(os.path.join(out, weights_file or f"{key}.h5"))
            x = np.random.default_rng(1).uniform(-1, 1, (2,) + tuple(kwargs["input_shape"])).astype(np.float32)
            arrays[f"{key}_x"], arrays[f"{key}_y"] = x, model.predict(x, verbose=0)
    for key, (fn, kwargs) in cases["errors"].items():
        try:
            getattr(tf_keras.applications, fn)(**kwargs)
            result["errors"][key] = None
        except Exception as e:  # noqa: BLE001 - the oracle records whatever tf_keras raises
            result["errors"][key] = [type(e).__name__, str(e)]
    images = np.random.default_rng(2).uniform(0, 255, (2, 3, 4, 3)).astype(np.float32)
    arrays["images"] = images
    for mode in ("caffe", "tf", "torch"):
        for fmt in ("channels_last", "channels_first"):
            batch = images if fmt == "channels_last" else images.transpose(0, 3, 1, 2)
            arrays[f"pre_{mode}_{fmt}"] = imagenet_utils.preprocess_input(batch.copy(), fmt, mode)
            arrays[f"pre_{mode}_{fmt}_3d"] = imagenet_utils.preprocess_input(batch[0].copy(), fmt, mode)
    with open(os.path.join(out, "oracle.json"), "w") as f:
        json.dump(result, f)
    np.savez(os.path.join(out, "oracle.npz"), **arrays)


if __name__ == "__main__":
    main(*sys.argv[1:])
