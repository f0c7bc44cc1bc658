"""tf.keras preprocessing layers (Keras 2): Normalization, Discretization, CategoryEncoding, Hashing, StringLookup,
IntegerLookup, TextVectorization, Rescaling, Resizing, CenterCrop and the Random* image augmentations.

`adapt()` computes a layer's state in numpy (from an array, a list, a Tensor or a tw.data Dataset), as tf_keras's
adapt does in TF2; the Random* layers augment only in training (`training=True`, their default, as in tf_keras)."""

import math

import numpy as np

import tensorweave as tw
from tensorweave._src.keras import backend
from tensorweave._src.keras.layers import _Layer

__all__ = [
    "CategoryEncoding",
    "CenterCrop",
    "Discretization",
    "Hashing",
    "IntegerLookup",
    "Normalization",
    "PreprocessingLayer",
    "RandomBrightness",
    "RandomContrast",
    "RandomCrop",
    "RandomFlip",
    "RandomHeight",
    "RandomRotation",
    "RandomTranslation",
    "RandomWidth",
    "RandomZoom",
    "Rescaling",
    "Resizing",
    "StringLookup",
    "TextVectorization",
]


def _batches(data, batch_size=None, steps=None):
    """The numpy batches of adapt()'s `data` (an array or list, a Tensor, or a tw.data Dataset)."""
    if isinstance(data, tw.data.Dataset):
        iterator = tw.data.make_initializable_iterator(data)
        next_value = iterator.get_next()
        sess = backend.get_session()
        sess.run(iterator.initializer)
        count = 0
        while steps is None or count < steps:
            try:
                value = sess.run(next_value)
                yield tuple(value) if isinstance(value, (tuple, list)) else np.asarray(value)
            except tw.errors.OutOfRangeError:
                return
            count += 1
        return
    if isinstance(data, (tw.Tensor, tw.Variable)):
        data = backend.get_session().run(data)
    if isinstance(data, dict) or data is None:
        raise ValueError(f"adapt() takes an array, a list, a Tensor or a Dataset. Received: {type(data).__name__}")
    data = np.asarray(data)
    if data.ndim == 0:
        data = data.reshape(1)
    size = batch_size or 32
    for i, start in enumerate(range(0, len(data), size)):
        if steps is not None and i >= steps:
            return
        yield data[start : start + size]


class PreprocessingLayer(_Layer):
    """A layer with state computed from data by `adapt(data, batch_size=None, steps=None)`."""

    def adapt(self, data, batch_size=None, steps=None):
        self.reset_state()
        for batch in _batches(data, batch_size, steps):
            self.update_state(batch)
        self.finalize_state()
        self._is_adapted = True

    @property
    def is_adapted(self):
        return getattr(self, "_is_adapted", False)

    def reset_state(self):
        pass

    def update_state(self, data):
        raise NotImplementedError(f"{type(self).__name__} has no adapt().")

    def finalize_state(self):
        pass


# --- numeric features ---


class Normalization(PreprocessingLayer):
    """(x - mean) / sqrt(variance) (or the inverse with `invert=True`) over all axes but `axis`; mean and variance
    are given or computed by adapt() (the weights `mean`, `variance`, `count`)."""

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, int):
            axis = (axis,)
        else:
            axis = tuple(axis)
        if 0 in axis:
            raise ValueError("The argument 'axis' may not be 0.")
        if (mean is not None) != (variance is not None):
            raise ValueError(
                "When setting values directly, both `mean` and `variance` must be set. "
                f"Received: mean={mean} and variance={variance}"
            )
        self.axis, self.input_mean, self.input_variance, self.invert = axis, mean, variance, invert
        self._adapted = None

    def build(self, input_shape):
        rank = input_shape.ndims
        if rank is None:
            raise ValueError(f"Normalization requires a known input rank. Received: input_shape={input_shape}")
        bad = [a for a in self.axis if not -rank <= a < rank]
        if bad:
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs with ndim={rank}, "
                             f"while axis={self.axis}")  # fmt: skip
        self._keep_axis = sorted(a % rank for a in self.axis)
        self._reduce_axis = [i for i in range(rank) if i not in self._keep_axis]
        self._broadcast_shape = [input_shape[i].value if i in self._keep_axis else 1 for i in range(rank)]
        mean_shape = [input_shape[i].value for i in self._keep_axis]
        if None in mean_shape:
            raise ValueError(f"All `axis` values to be kept must have known shape. Received axis={self.axis}, "
                             f"inputs.shape={input_shape}, with unknown axis at index {mean_shape.index(None)}")  # fmt: skip
        if self.input_mean is None:
            adapted = self._adapted or (np.zeros(mean_shape), np.ones(mean_shape), 0)
            self.adapt_mean = self.add_weight("mean", mean_shape, "float32", tw.constant_initializer(adapted[0]),
                                              trainable=False)  # fmt: skip
            self.adapt_variance = self.add_weight("variance", mean_shape, "float32",
                                                  tw.constant_initializer(adapted[1]), trainable=False)  # fmt: skip
            self.count = self.add_weight("count", [], "int64", tw.constant_initializer(adapted[2]), trainable=False)
        self.built = True

    def update_state(self, data):
        data = np.asarray(data, np.float64)
        if data.ndim == 1 and self.axis and self.axis != (-1,) and self.axis != (1,):
            raise ValueError(f"Normalization with axis={self.axis} needs inputs of a higher rank.")
        if data.ndim == 1 and self.axis:
            data = data[:, None]
        keep = sorted(a % data.ndim for a in self.axis)
        reduce = tuple(i for i in range(data.ndim) if i not in keep)
        count = int(np.prod([data.shape[i] for i in reduce]))
        mean, var = data.mean(axis=reduce), data.var(axis=reduce)
        if self._state is None:
            self._state = (mean, var, count)
            return
        old_mean, old_var, old_count = self._state
        total = old_count + count
        new_mean = (old_mean * old_count + mean * count) / total
        new_var = ((old_var + (old_mean - new_mean) ** 2) * old_count + (var + (mean - new_mean) ** 2) * count) / total
        self._state = (new_mean, new_var, total)

    def reset_state(self):
        self._state = None

    def finalize_state(self):
        if self.input_mean is not None:
            raise ValueError("Cannot `adapt` a Normalization layer that is initialized with static `mean` and "
                             f"`variance`, you passed mean {self.input_mean} and variance {self.input_variance}.")  # fmt: skip
        if self._state is None:
            raise ValueError("adapt() received no data.")
        mean, var, count = self._state
        self._adapted = (mean.astype(np.float32), var.astype(np.float32), count)
        if self.built:
            sess = backend.get_session()
            self.adapt_mean.load(self._adapted[0], sess)
            self.adapt_variance.load(self._adapted[1], sess)
            self.count.load(count, sess)

    def call(self, inputs):
        x = tw.cast(inputs, self.dtype or backend.floatx())
        if self.input_mean is None:
            mean = tw.reshape(tw.cast(self.adapt_mean, x.dtype), self._broadcast_shape)
            variance = tw.reshape(tw.cast(self.adapt_variance, x.dtype), self._broadcast_shape)
        else:
            mean = np.broadcast_to(np.asarray(self.input_mean, np.float32), self._broadcast_shape)
            variance = np.broadcast_to(np.asarray(self.input_variance, np.float32), self._broadcast_shape)
            mean, variance = tw.constant(mean, x.dtype), tw.constant(variance, x.dtype)
        std = tw.maximum(tw.sqrt(variance), backend.epsilon())
        return mean + x * std if self.invert else (x - mean) / std

    def get_config(self):
        mean, variance = self.input_mean, self.input_variance
        return dict(super().get_config(), axis=self.axis, invert=self.invert,
                    mean=np.asarray(mean).tolist() if mean is not None else None,
                    variance=np.asarray(variance).tolist() if variance is not None else None)  # fmt: skip


def _summarize(values, epsilon):
    """tf_keras's quantile summary of a batch: [boundaries, weights]."""
    values = np.sort(values.reshape(-1).astype(np.float32))
    increment = int(np.float32(values.size) / np.float32(1.0 / epsilon))
    step = max(increment, 1)
    boundaries = values[increment::step]
    return np.stack([boundaries, np.full(boundaries.shape, step, np.float32)])


def _compress_summary(summary, epsilon):
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = np.cumsum(summary[1])
    cum_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_percents, summary[0])
    cum_weights = np.interp(percents, cum_percents, cum_weights)
    new_weights = cum_weights - np.concatenate([[0.0], cum_weights[:-1]])
    return np.stack([new_bins, new_weights]).astype(np.float32)


class Discretization(PreprocessingLayer):
    """Buckets numbers by `bin_boundaries` (bucket i holds boundaries[i-1] <= x < boundaries[i]); adapt() finds
    `num_bins` quantile boundaries."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False, **kwargs):
        if output_mode == "int" and "dtype" not in kwargs:
            kwargs["dtype"] = "int64"
        super().__init__(**kwargs)
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown `output_mode` '{output_mode}'. Expected one of ('int', 'one_hot', 'multi_hot', "
                             "'count').")  # fmt: skip
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"`num_bins` must be greater than or equal to 0. You passed `num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. You passed "
                             f"`num_bins={num_bins}` and `bin_boundaries={bin_boundaries}`")  # fmt: skip
        self.bin_boundaries = list(bin_boundaries) if bin_boundaries is not None else None
        self.num_bins, self.epsilon, self.output_mode, self.sparse = num_bins, epsilon, output_mode, sparse
        self._summary = None

    def reset_state(self):
        if self.num_bins is None and self.bin_boundaries is not None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized with `bin_boundaries`, "
                             "use `num_bins` instead.")  # fmt: skip
        self._summary = np.zeros([2, 0], np.float32)

    def update_state(self, data):
        merged = np.concatenate([_summarize(np.asarray(data), self.epsilon), self._summary], axis=1)
        merged = merged[:, np.argsort(merged[0], kind="stable")]
        self._summary = _compress_summary(merged, self.epsilon)

    def finalize_state(self):
        self.bin_boundaries = _compress_summary(self._summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at construction time or call "
                             "`adapt(dataset)` before calling the layer.")  # fmt: skip
        x = tw.convert_to_tensor(inputs)
        if not self.bin_boundaries:
            buckets = tw.zeros_like(x, dtype=tw.int64)
        else:
            expanded = tw.expand_dims(x, -1)
            bounds = tw.constant(self.bin_boundaries, dtype=x.dtype)
            buckets = tw.reduce_sum(tw.cast(tw.greater_equal(expanded, bounds), tw.int64), axis=-1)
        return _encode(buckets, self.output_mode, len(self.bin_boundaries) + 1, None, self.dtype)

    def get_config(self):
        return dict(super().get_config(), bin_boundaries=self.bin_boundaries, num_bins=self.num_bins,
                    epsilon=self.epsilon, output_mode=self.output_mode, sparse=self.sparse)  # fmt: skip


def _encode(indices, output_mode, depth, idf_weights=None, dtype=None):
    """tf_keras's encode_categorical_inputs: int indices as one_hot / multi_hot / count / tf_idf rows of `depth`."""
    if output_mode == "int":
        return tw.cast(indices, dtype or tw.int64)
    dtype = dtype if dtype not in (None, "int64", tw.int64) else backend.floatx()
    indices = tw.convert_to_tensor(indices)
    if indices.shape.ndims == 0:
        indices = tw.expand_dims(indices, -1)
    if output_mode == "one_hot" and indices.shape[-1].value != 1:
        indices = tw.expand_dims(indices, -1)
    if indices.shape.ndims > 2:
        raise ValueError(
            "When output_mode is not `'int'`, maximum supported output rank is 2. "
            f"Received output_mode {output_mode} and input shape {indices.shape}, which would result in output rank "
            f"{indices.shape.ndims}."
        )
    hot = tw.one_hot(tw.cast(indices, tw.int64), depth, dtype=dtype)  # [..., n, depth]
    counts = tw.reduce_max(hot, axis=-2) if output_mode in ("one_hot", "multi_hot") else tw.reduce_sum(hot, axis=-2)
    if output_mode == "tf_idf":
        if idf_weights is None:
            raise ValueError("When output mode is `'tf_idf'`, idf_weights must be provided.")
        counts = counts * tw.cast(idf_weights, dtype)
    return counts


def _check_range(indices, depth):
    """An assertion (InvalidArgumentError when run) that 0 <= indices < depth, as tf_keras's CategoryEncoding."""
    ok = tw.logical_and(
        tw.greater_equal(tw.reduce_min(indices), tw.cast(0, indices.dtype)),
        tw.less(tw.reduce_max(indices), tw.cast(depth, indices.dtype)),
    )
    message = f"Input values must be in the range 0 <= values < num_tokens with num_tokens={depth}"
    return tw.Assert(tw.logical_or(tw.equal(tw.size(indices), 0), ok), [message])


class CategoryEncoding(PreprocessingLayer):
    """Integer category ids as one_hot / multi_hot / count rows of width `num_tokens`."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        kwargs.setdefault("dtype", backend.floatx())
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of tokens is not known "
                             "beforehand, use the IntegerLookup layer instead.")  # fmt: skip
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        self.num_tokens, self.output_mode, self.sparse = num_tokens, output_mode, sparse

    def call(self, inputs, count_weights=None):
        x = tw.convert_to_tensor(inputs)
        if x.dtype.is_floating:
            x = tw.cast(x, tw.int64)
        with tw.control_dependencies([_check_range(x, self.num_tokens)]):
            x = tw.identity(x)
        if count_weights is not None:
            if self.output_mode != "count":
                raise ValueError(f"`count_weights` is not used when `output_mode` is not `'count'`. Received "
                                 f"`count_weights={count_weights}`.")  # fmt: skip
            hot = tw.one_hot(x, self.num_tokens, dtype=self.dtype)
            return tw.reduce_sum(hot * tw.expand_dims(tw.cast(count_weights, self.dtype), -1), axis=-2)
        return _encode(x, self.output_mode, self.num_tokens, None, self.dtype)

    def get_config(self):
        return dict(super().get_config(), num_tokens=self.num_tokens, output_mode=self.output_mode,
                    sparse=self.sparse)  # fmt: skip


class Hashing(PreprocessingLayer):
    """Hashes strings (or integers, through their decimal strings) into `num_bins` bins with FarmHash64 (or keyed
    SipHash with `salt`); `mask_value` maps to bin 0."""

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        if output_mode == "int" and "dtype" not in kwargs:
            kwargs["dtype"] = "int64"
        super().__init__(**kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError(f"The `num_bins` for `Hashing` cannot be `None` or non-positive values. Received: "
                             f"num_bins={num_bins}.")  # fmt: skip
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown `output_mode` '{output_mode}'.")
        self.num_bins, self.mask_value, self.output_mode, self.sparse = num_bins, mask_value, output_mode, sparse
        if salt is None or isinstance(salt, (list, tuple)):
            self.salt = list(salt) if salt is not None else None
        elif isinstance(salt, int):
            self.salt = [salt, salt]
        else:
            raise ValueError(f"The `salt` argument for `Hashing` can only be a tuple of size 2 integers, or a single "
                             f"integer. Received: salt={salt}.")  # fmt: skip

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        strings = x if x.dtype == tw.string else tw.as_string(x)
        bins = self.num_bins - (1 if self.mask_value is not None else 0)
        if self.salt is not None:
            hashed = tw.strings.to_hash_bucket_strong(strings, bins, self.salt)
        else:
            hashed = tw.strings.to_hash_bucket_fast(strings, bins)
        if self.mask_value is not None:
            mask = tw.equal(x, tw.cast(self.mask_value, x.dtype))
            hashed = tw.where_v2(mask, tw.zeros_like(hashed), hashed + 1)
        return _encode(hashed, self.output_mode, self.num_bins, None, self.dtype)

    def get_config(self):
        return dict(super().get_config(), num_bins=self.num_bins, salt=self.salt, mask_value=self.mask_value,
                    output_mode=self.output_mode, sparse=self.sparse)  # fmt: skip


# --- vocabulary lookups ---


class _IndexLookup(PreprocessingLayer):
    """Maps tokens to indices [mask] + [oov] * num_oov_indices + vocabulary (tf_keras's IndexLookup)."""

    _key_dtype = tw.string

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary=None, idf_weights=None,
                 invert=False, output_mode="int", sparse=False, pad_to_max_tokens=False, **kwargs):  # fmt: skip
        if output_mode == "int" and not invert and "dtype" not in kwargs:
            kwargs["dtype"] = "int64"
        kwargs.pop("vocabulary_size", None)  # in get_config's output, as tf_keras
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int", "one_hot", "multi_hot", "count", "tf_idf"):
            raise ValueError(f"Unknown `output_mode` '{output_mode}'. Expected one of ('int', 'one_hot', "
                             "'multi_hot', 'count', 'tf_idf').")  # fmt: skip
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError(f"If set, `max_tokens` must be greater than 1. Received: max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError(f"`num_oov_indices` must be greater than or equal to 0. Received: "
                             f"num_oov_indices={num_oov_indices}")  # fmt: skip
        if invert and output_mode != "int":
            raise ValueError(f"`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")  # fmt: skip
        if output_mode == "tf_idf" and idf_weights is None and vocabulary is not None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf' and a vocabulary is passed.")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError(f"`idf_weights` should only be set if output_mode is `'tf_idf'`. Received: "
                             f"output_mode={output_mode} and idf_weights={idf_weights}")  # fmt: skip
        self.max_tokens, self.num_oov_indices = max_tokens, num_oov_indices
        self.mask_token, self.oov_token, self.invert = mask_token, oov_token, invert
        self.output_mode, self.sparse, self.pad_to_max_tokens = output_mode, sparse, pad_to_max_tokens
        self._vocab, self._idf = None, None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    def _token_start(self):
        return (1 if self.mask_token is not None and self.output_mode == "int" else 0) + self.num_oov_indices

    def _special_tokens(self):
        mask = [self.mask_token] if self.mask_token is not None and self.output_mode == "int" else []
        return mask + [self.oov_token] * self.num_oov_indices

    def _as_tokens(self, values):
        values = np.asarray(values)
        if self._key_dtype == tw.string:
            return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values.reshape(-1)]
        return [int(v) for v in values.reshape(-1)]

    def set_vocabulary(self, vocabulary, idf_weights=None):
        if isinstance(vocabulary, str):
            with open(vocabulary, encoding="utf-8") as f:
                vocabulary = [line.rstrip("\n") for line in f]
            if self._key_dtype != tw.string:
                vocabulary = [int(v) for v in vocabulary]
        tokens = self._as_tokens(vocabulary)
        if self.output_mode == "tf_idf" and idf_weights is None:
            raise ValueError("`idf_weights` must be set if output_mode is 'tf_idf'.")
        start = self._token_start()
        if tokens[:start] == self._special_tokens():
            tokens = tokens[start:]
            if idf_weights is not None:
                idf_weights = np.asarray(idf_weights)[start:]
        if self.mask_token is not None and self.mask_token in tokens:
            raise ValueError(f"Found reserved mask token at unexpected location in `vocabulary`. Note that passed "
                             f"`vocabulary` does not need to include the OOV and mask tokens. Either remove all mask "
                             f"and OOV tokens, or include them only at the start of the vocabulary in precisely this "
                             f"order: {self._special_tokens()}. Received: mask_token={self.mask_token} at vocabulary "
                             f"index {tokens.index(self.mask_token)}")  # fmt: skip
        if self.num_oov_indices and self.oov_token in tokens:
            raise ValueError(f"Found reserved OOV token at unexpected location in `vocabulary`. Note that passed "
                             f"`vocabulary` does not need to include the OOV and mask tokens. Either remove all mask "
                             f"and OOV tokens, or include them only at the start of the vocabulary in precisely this "
                             f"order: {self._special_tokens()}. Received: oov_token={self.oov_token} at vocabulary "
                             f"index {tokens.index(self.oov_token)}")  # fmt: skip
        if len(set(tokens)) != len(tokens):
            repeated = sorted({t for t in tokens if tokens.count(t) > 1})
            raise ValueError(f"The passed vocabulary has at least one repeated term. Please uniquify your dataset. "
                             f"The repeated terms are {repeated}")  # fmt: skip
        if self.max_tokens is not None and len(tokens) + start > self.max_tokens:
            raise ValueError(f"Attempted to set a vocabulary larger than the maximum vocab size. Passed vocab size "
                             f"is {len(tokens) + start}, max vocab size is {self.max_tokens}.")  # fmt: skip
        self._vocab = tokens
        if idf_weights is not None:
            idf = np.asarray(idf_weights, np.float32).reshape(-1)
            self._idf = np.concatenate([np.full(start, idf.mean(), np.float32), idf])

    def get_vocabulary(self, include_special_tokens=True):
        vocab = self._vocab or []
        return (self._special_tokens() if include_special_tokens else []) + list(vocab)

    def vocabulary_size(self):
        return len(self.get_vocabulary())

    def reset_state(self):
        self._counts, self._doc_counts, self._num_docs = {}, {}, 0

    def _count(self, rows):
        for row in rows:
            for token in row:
                self._counts[token] = self._counts.get(token, 0) + 1
            if self.output_mode == "tf_idf":
                self._num_docs += 1
                for token in set(row):
                    self._doc_counts[token] = self._doc_counts.get(token, 0) + 1

    def update_state(self, data):
        data = np.asarray(data)
        rows = data.reshape(len(data), -1) if data.ndim > 1 else data.reshape(-1, 1)
        if self.output_mode == "tf_idf" and data.ndim == 1:
            rows = data.reshape(1, -1)
        self._count([self._as_tokens(r) for r in rows])

    def finalize_state(self):
        special = set(self._special_tokens())
        tokens = [t for t in self._counts if t not in special]
        # Most frequent first; ties in descending token order (tf_keras's reversed lexsort).
        keys = [t.encode("utf-8") if isinstance(t, str) else t for t in tokens]
        order = sorted(range(len(tokens)), key=lambda i: (self._counts[tokens[i]], keys[i]), reverse=True)
        tokens = [tokens[i] for i in order]
        if self.max_tokens is not None:
            tokens = tokens[: max(self.max_tokens - self._token_start(), 0)]
        self._vocab = tokens
        if self.output_mode == "tf_idf":
            counts = np.array([self._doc_counts.get(t, 0) for t in tokens], np.float32)
            idf = np.log(1 + self._num_docs / (1 + counts)).astype(np.float32)
            start = self._token_start()
            self._idf = np.concatenate([np.full(start, idf.mean() if idf.size else 0, np.float32), idf])

    def _depth(self):
        if self.pad_to_max_tokens and self.max_tokens is not None:
            return self.max_tokens
        return self.vocabulary_size()

    def _lookup(self, x):
        if self._vocab is None:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and `pad_to_max_tokens=False`, you must "
                               "set the layer's vocabulary before calling it. Either pass a `vocabulary` argument to "
                               "the layer, or call `adapt` with some sample data.")  # fmt: skip
        start = self._token_start()
        if self.invert:
            values = self.get_vocabulary()
            table = tw.constant(np.array(values, dtype=object if self._key_dtype == tw.string else np.int64))
            ids = tw.cast(x, tw.int64)
            oov = tw.constant(self.oov_token, dtype=self._key_dtype)
            in_range = tw.logical_and(tw.greater_equal(ids, 0), tw.less(ids, len(values)))
            safe = tw.where_v2(in_range, ids, tw.zeros_like(ids))
            return tw.where_v2(in_range, tw.gather(table, safe), tw.fill(tw.shape(ids), oov))
        x = tw.convert_to_tensor(x)
        if self._key_dtype != tw.string:
            x = tw.cast(x, self._key_dtype)
        default = start - self.num_oov_indices if self.num_oov_indices else -1
        if self._vocab:
            keys = tw.constant(np.array(self._vocab, dtype=object if self._key_dtype == tw.string else np.int64))
            values = tw.range(start, start + len(self._vocab), dtype=tw.int64)
            init = tw.lookup.KeyValueTensorInitializer(keys, values, self._key_dtype, tw.int64)
            table = tw.lookup.StaticHashTable(init, default)
            ids = table.lookup(x)
        else:
            ids = tw.fill(tw.shape(x), tw.constant(default, tw.int64))
        checks = []
        if self.num_oov_indices == 0:
            checks.append(tw.Assert(tw.reduce_all(tw.not_equal(ids, -1)), [
                "When `num_oov_indices=0` all inputs should be in vocabulary, found OOV values ",
                tw.boolean_mask(x, tw.equal(ids, -1))]))  # fmt: skip
        elif self.num_oov_indices > 1:
            if self._key_dtype == tw.string:
                oov = tw.strings.to_hash_bucket_fast(x, self.num_oov_indices)
            else:
                oov = tw.floormod(x, self.num_oov_indices)
            ids = tw.where_v2(tw.equal(ids, default), oov + (start - self.num_oov_indices), ids)
        if self.mask_token is not None:
            mask_id = 0 if self.output_mode == "int" else -1
            ids = tw.where_v2(tw.equal(x, tw.constant(self.mask_token, self._key_dtype)), tw.cast(mask_id, tw.int64),
                              ids)  # fmt: skip
        if checks:
            with tw.control_dependencies(checks):
                ids = tw.identity(ids)
        return ids

    def call(self, inputs):
        ids = self._lookup(inputs)
        if self.invert or self.output_mode == "int":
            return ids
        depth = self._depth()
        idf = None
        if self.output_mode == "tf_idf":
            idf = np.zeros(depth, np.float32)
            idf[: len(self._idf)] = self._idf
        return _encode(ids, self.output_mode, depth, idf, self.dtype)

    def get_config(self):
        return dict(super().get_config(), invert=self.invert, max_tokens=self.max_tokens,
                    num_oov_indices=self.num_oov_indices, oov_token=self.oov_token, mask_token=self.mask_token,
                    output_mode=self.output_mode, sparse=self.sparse, pad_to_max_tokens=self.pad_to_max_tokens,
                    vocabulary=list(self._vocab) if self._vocab is not None else None,
                    idf_weights=self._idf[self._token_start():].tolist() if self._idf is not None else None,
                    vocabulary_size=self.vocabulary_size())  # fmt: skip


class StringLookup(_IndexLookup):
    """Strings to integer indices (or back with `invert=True`), or to one_hot / multi_hot / count / tf_idf rows."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]", vocabulary=None,
                 idf_weights=None, encoding="utf-8", invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, **kwargs):  # fmt: skip
        if invert:
            kwargs.setdefault("dtype", "string")
        self.encoding = encoding
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, sparse, pad_to_max_tokens, **kwargs)  # fmt: skip

    def get_config(self):
        return dict(super().get_config(), encoding=self.encoding)


class IntegerLookup(_IndexLookup):
    """Integers to contiguous indices (or back with `invert=True`), or to one_hot / multi_hot / count / tf_idf
    rows."""

    _key_dtype = tw.int64

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, **kwargs):  # fmt: skip
        if vocabulary_dtype != "int64":
            raise ValueError(f"IntegerLookup may only have an int64 dtype. Received: vocabulary_dtype="
                             f"{vocabulary_dtype}")  # fmt: skip
        if max_tokens is not None and max_tokens <= 0:
            raise ValueError(f"If `max_tokens` is set for `IntegerLookup`, it must be greater than 0. Received: "
                             f"max_tokens={max_tokens}")  # fmt: skip
        if invert:
            kwargs.setdefault("dtype", "int64")
        self.vocabulary_dtype = vocabulary_dtype
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, sparse, pad_to_max_tokens, **kwargs)  # fmt: skip

    def get_config(self):
        return dict(super().get_config(), vocabulary_dtype=self.vocabulary_dtype)


_PUNCTUATION = r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']'


class TextVectorization(PreprocessingLayer):
    """Strings to token indices (padded to `output_sequence_length`) or to multi_hot / count / tf_idf rows:
    standardize (lowercase, strip punctuation), split on whitespace, optional ngrams, then a StringLookup."""

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation", split="whitespace", ngrams=None,
                 output_mode="int", output_sequence_length=None, pad_to_max_tokens=False, vocabulary=None,
                 idf_weights=None, sparse=False, ragged=False, encoding="utf-8", **kwargs):  # fmt: skip
        kwargs.setdefault("dtype", "string")
        kwargs.pop("vocabulary_size", None)  # in get_config's output, as tf_keras
        super().__init__(**kwargs)
        if standardize not in (None, "lower_and_strip_punctuation", "lower", "strip_punctuation") and not callable(
            standardize
        ):
            raise ValueError(f"Unknown value for `standardize`: {standardize}")
        if split not in (None, "whitespace", "character") and not callable(split):
            raise ValueError(f"Unknown value for `split`: {split}")
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("int", "multi_hot", "count", "tf_idf"):
            raise ValueError(f"Unknown `output_mode`: {output_mode}. Expected one of ('int', 'multi_hot', 'count', "
                             "'tf_idf').")  # fmt: skip
        if isinstance(ngrams, int) and ngrams < 1 or not (ngrams is None or isinstance(ngrams, (int, tuple, list))):
            raise ValueError(f"`ngrams` must be None, an integer, or a tuple of integers. Received: ngrams={ngrams}")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError(f"`output_sequence_length` must not be set if `output_mode` is not 'int'. Received "
                             f"output_sequence_length={output_sequence_length}.")  # fmt: skip
        if ragged and output_mode != "int":
            raise ValueError(f"`ragged` must not be true if `output_mode` is `'int'`. Received: ragged={ragged} "
                             f"and output_mode={output_mode}")  # fmt: skip
        self._standardize, self._split, self._ngrams_arg = standardize, split, ngrams
        self._ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._output_mode, self._output_sequence_length = output_mode, output_sequence_length
        self._ragged, self._encoding = ragged, encoding
        self._lookup_layer = StringLookup(max_tokens=max_tokens, mask_token="", vocabulary=vocabulary,
                                          idf_weights=idf_weights, output_mode=output_mode, sparse=sparse,
                                          pad_to_max_tokens=pad_to_max_tokens, name=f"{self.name}_lookup")  # fmt: skip

    # numpy standardize/split/ngrams, for adapt()
    def _tokens_np(self, text):
        import re

        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            text = text.lower()
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            text = re.sub(_PUNCTUATION, "", text)
        if self._split == "whitespace":
            tokens = text.split()
        elif self._split == "character":
            tokens = list(text)
        else:
            tokens = [text]
        if self._ngrams:
            grams = []
            for n in self._ngrams:
                grams += [" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1)]
            tokens = grams
        return tokens

    def reset_state(self):
        if callable(self._standardize) or callable(self._split):
            raise ValueError("adapt() with a callable `standardize` or `split` is not supported here.")  # noqa: TRY004 - Keras raises a ValueError
        self._lookup_layer.reset_state()

    def update_state(self, data):
        data = np.asarray(data).reshape(-1)
        rows = [self._tokens_np(t.decode("utf-8") if isinstance(t, bytes) else str(t)) for t in data]
        self._lookup_layer._count(rows)

    def finalize_state(self):
        self._lookup_layer.finalize_state()

    def get_vocabulary(self, include_special_tokens=True):
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    def _tokens(self, x):
        """The standardized, split [batch, tokens] dense string tensor ('' padding)."""
        if x.shape.ndims == 2 and x.shape[-1].value == 1:
            x = tw.squeeze(x, -1)
        if self._standardize in ("lower", "lower_and_strip_punctuation"):
            x = tw.strings.lower(x)
        if self._standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            x = tw.strings.regex_replace(x, _PUNCTUATION, "")
        elif callable(self._standardize):
            x = self._standardize(x)
        if self._split is None:
            return tw.expand_dims(x, -1)
        if callable(self._split):
            return self._split(x)
        if self._split == "character":
            parts = tw.strings.unicode_split(x, "UTF-8")
            return parts.to_tensor("") if hasattr(parts, "to_tensor") else tw.sparse.to_dense(parts, "")
        return tw.sparse.to_dense(tw.strings.split(x), default_value="")

    def call(self, inputs):
        x = tw.convert_to_tensor(inputs)
        if x.dtype != tw.string:
            raise ValueError(f"Input to TextVectorization must be strings. Received dtype {x.dtype.name}")
        tokens = self._tokens(x)
        if self._ngrams:
            grams = []
            width = tw.shape(tokens)[1]
            for n in self._ngrams:
                if n == 1:
                    grams.append(tokens)
                    continue
                # token i..i+n-1 joined by ' ' where all n are non-empty (a dense ngrams over '' padding)
                padded = tw.pad(tokens, [[0, 0], [0, n - 1]], constant_values="")
                parts = [padded[:, i : i + width] for i in range(n)]
                joined = tw.strings.reduce_join(tw.stack(parts, axis=-1), axis=-1, separator=" ")
                full = tw.reduce_all(tw.stack([tw.not_equal(p, "") for p in parts], -1), axis=-1)
                grams.append(tw.where_v2(full, joined, tw.fill(tw.shape(joined), "")))
            tokens = tw.concat(grams, axis=1)
            if self._output_mode == "int":
                # Keras orders ngrams by n, each row's padding after its tokens
                keep = tw.not_equal(tokens, "")
                order = tw.argsort(tw.cast(tw.logical_not(keep), tw.int32), axis=1, stable=True)
                tokens = tw.gather(tokens, order, batch_dims=1)
        if self._output_mode != "int":
            ids = self._lookup_layer._lookup(tokens)
            ids = tw.where_v2(tw.equal(tokens, ""), tw.fill(tw.shape(ids), tw.constant(-1, tw.int64)), ids)
            depth = self._lookup_layer._depth()
            hot = tw.one_hot(ids, depth, dtype=backend.floatx())
            counts = tw.reduce_max(hot, -2) if self._output_mode == "multi_hot" else tw.reduce_sum(hot, -2)
            if self._output_mode == "tf_idf":
                idf = np.zeros(depth, np.float32)
                idf[: len(self._lookup_layer._idf)] = self._lookup_layer._idf
                counts = counts * idf
            return counts
        ids = self._lookup_layer._lookup(tokens)
        length = self._output_sequence_length
        if length is not None:
            ids = ids[:, :length]
            ids = tw.pad(ids, [[0, 0], [0, tw.maximum(length - tw.shape(ids)[1], 0)]])
            ids.set_shape([None, length])
        return ids

    def get_config(self):
        lookup = self._lookup_layer
        return dict(super().get_config(), max_tokens=lookup.max_tokens, standardize=self._standardize,
                    split=self._split, ngrams=self._ngrams_arg, output_mode=self._output_mode,
                    output_sequence_length=self._output_sequence_length, pad_to_max_tokens=lookup.pad_to_max_tokens,
                    sparse=lookup.sparse, ragged=self._ragged, vocabulary=lookup._vocab,
                    idf_weights=lookup.get_config()["idf_weights"], encoding=self._encoding,
                    vocabulary_size=lookup.vocabulary_size())  # fmt: skip


# --- image preprocessing ---


def _image_dims(x):
    return (1, 2) if x.shape.ndims == 4 else (0, 1)


def smart_resize(x, size, interpolation="bilinear"):
    """Resizes to `size` after a center crop to the target aspect ratio (tf_keras's image_utils.smart_resize)."""
    x = tw.convert_to_tensor(x)
    h_axis, w_axis = _image_dims(x)
    static = x.shape.as_list()
    static[h_axis] = static[w_axis] = None
    shape = tw.shape(x)
    height, width = tw.cast(shape[h_axis], tw.float32), tw.cast(shape[w_axis], tw.float32)
    target_h, target_w = size
    crop_h = tw.cast(tw.minimum(height, width * target_h / target_w), tw.int32)
    crop_w = tw.cast(tw.minimum(width, height * target_w / target_h), tw.int32)
    crop_h, crop_w = tw.maximum(crop_h, 1), tw.maximum(crop_w, 1)
    off_h = tw.cast((height - tw.cast(crop_h, tw.float32)) / 2, tw.int32)
    off_w = tw.cast((width - tw.cast(crop_w, tw.float32)) / 2, tw.int32)
    if x.shape.ndims == 4:
        x = tw.slice(x, tw.stack([0, off_h, off_w, 0]), tw.stack([-1, crop_h, crop_w, -1]))
    else:
        x = tw.slice(x, tw.stack([off_h, off_w, 0]), tw.stack([crop_h, crop_w, -1]))
    x.set_shape(static)
    return _resize(x, size, interpolation)


_METHODS = {"bilinear": 0, "nearest": 1, "bicubic": 2, "area": 3}


def _resize(x, size, interpolation):
    if interpolation not in _METHODS:
        raise NotImplementedError(f"Value not recognized for `interpolation`: {interpolation}. Expected one of "
                                  f"{sorted(_METHODS)}.")  # fmt: skip
    x = tw.convert_to_tensor(x)
    images = x[None] if x.shape.ndims == 3 else x
    size = tw.convert_to_tensor(size, tw.int32) if not isinstance(size, (list, tuple)) else list(size)
    if interpolation == "area":
        out = tw.raw_ops.ResizeArea(images=images, size=size)
    else:
        op = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor", "bicubic": "ResizeBicubic"}
        out = getattr(tw.raw_ops, op[interpolation])(images=images, size=size, half_pixel_centers=True)
    out = tw.cast(out, tw.float32)
    static = images.shape.as_list()
    if isinstance(size, list) and all(isinstance(v, int) for v in size):
        static[1:3] = size
    else:
        static[1:3] = [None, None]
    out.set_shape(static)
    return out[0] if x.shape.ndims == 3 else out


class Rescaling(_Layer):
    """x * scale + offset."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        dtype = self.dtype or backend.floatx()
        x = tw.cast(inputs, dtype)
        return x * tw.cast(self.scale, dtype) + tw.cast(self.offset, dtype)

    def get_config(self):
        return dict(super().get_config(), scale=self.scale, offset=self.offset)


class Resizing(_Layer):
    """Resizes images to (height, width) (after a center crop to that aspect ratio with crop_to_aspect_ratio)."""

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, **kwargs):
        super().__init__(**kwargs)
        if interpolation not in _METHODS:
            raise NotImplementedError(f"Value not recognized for `interpolation`: {interpolation}.")
        self.height, self.width, self.interpolation = height, width, interpolation
        self.crop_to_aspect_ratio = crop_to_aspect_ratio

    def call(self, inputs):
        size = (self.height, self.width)
        if self.crop_to_aspect_ratio:
            out = smart_resize(inputs, size, self.interpolation)
        else:
            out = _resize(inputs, size, self.interpolation)
        return tw.cast(out, self.dtype or backend.floatx())

    def get_config(self):
        return dict(super().get_config(), height=self.height, width=self.width, interpolation=self.interpolation,
                    crop_to_aspect_ratio=self.crop_to_aspect_ratio)  # fmt: skip


class CenterCrop(_Layer):
    """The central (height, width) window of images (a smart_resize when the image is smaller)."""

    def __init__(self, height, width, **kwargs):
        super().__init__(**kwargs)
        self.height, self.width = height, width

    def call(self, inputs):
        x = tw.cast(inputs, self.dtype or backend.floatx())
        h_axis, w_axis = _image_dims(x)
        shape = tw.shape(x)
        h_diff, w_diff = shape[h_axis] - self.height, shape[w_axis] - self.width

        def crop():
            h0, w0 = h_diff // 2, w_diff // 2
            if x.shape.ndims == 4:
                return tw.slice(x, tw.stack([0, h0, w0, 0]), [-1, self.height, self.width, -1])
            return tw.slice(x, tw.stack([h0, w0, 0]), [self.height, self.width, -1])

        out = tw.cond(tw.logical_and(h_diff >= 0, w_diff >= 0), crop,
                      lambda: tw.cast(smart_resize(x, (self.height, self.width)), x.dtype))  # fmt: skip
        shape = x.shape.as_list()
        shape[h_axis], shape[w_axis] = self.height, self.width
        out.set_shape(shape)
        return out

    def get_config(self):
        return dict(super().get_config(), height=self.height, width=self.width)


def _factor_range(factor, name, symmetric=True):
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(f"`{name}` must be a float or a tuple of 2 floats. Received: {name}={factor}")
        lower, upper = factor
    else:
        lower, upper = (-factor, factor) if symmetric else (factor, factor)
    if upper < lower:
        raise ValueError(f"`{name}` cannot have upper bound less than lower bound. Received: {name}={factor}")
    return float(lower), float(upper)


class _RandomLayer(_Layer):
    """An augmentation: `_augment(x)` in training (the default, as tf_keras), the input (as float) otherwise."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = seed

    def call(self, inputs, training=True):
        x = tw.convert_to_tensor(inputs)
        if x.dtype.is_integer:
            x = tw.cast(x, self.dtype or backend.floatx())
        if training is None:
            training = True
        if isinstance(training, (bool, int, np.bool_)):
            return self._augment(x) if training else x
        return tw.cond(tw.cast(training, tw.bool), lambda: self._augment(x), lambda: tw.identity(x))

    def _uniform(self, shape, low, high):
        return tw.random.uniform(shape, low, high, seed=self.seed)

    def get_config(self):
        return dict(super().get_config(), seed=self.seed)


class RandomFlip(_RandomLayer):
    """Flips each image left-right and/or up-down with probability 1/2."""

    def __init__(self, mode="horizontal_and_vertical", seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if mode not in ("horizontal", "vertical", "horizontal_and_vertical"):
            raise ValueError(f"RandomFlip layer {self.name} received an unknown mode argument {mode}")
        self.mode = mode

    def _augment(self, x):
        h_axis, w_axis = _image_dims(x)
        batch = [tw.shape(x)[0]] if x.shape.ndims == 4 else []
        bshape = batch + [1, 1, 1]
        for axis, on in ((w_axis, "horizontal" in self.mode), (h_axis, "vertical" in self.mode)):
            if on:
                flip = tw.less(self._uniform(tw.stack(batch) if batch else [], 0.0, 1.0), 0.5)
                flip = tw.reshape(flip, tw.stack(bshape) if batch else [1, 1, 1])
                x = tw.where_v2(flip, tw.reverse(x, [axis]), x)
        return x

    def get_config(self):
        return dict(super().get_config(), mode=self.mode)


class RandomCrop(_RandomLayer):
    """A random (height, width) window in training; a smart_resize to (height, width) otherwise."""

    def __init__(self, height, width, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.height, self.width = height, width

    def call(self, inputs, training=True):
        x = tw.cast(inputs, self.dtype or backend.floatx())
        h_axis, w_axis = _image_dims(x)
        shape = tw.shape(x)
        h_diff, w_diff = shape[h_axis] - self.height, shape[w_axis] - self.width

        def crop():
            h0 = tw.cast(self._uniform([], 0.0, 1.0) * tw.cast(h_diff + 1, tw.float32), tw.int32)
            w0 = tw.cast(self._uniform([], 0.0, 1.0) * tw.cast(w_diff + 1, tw.float32), tw.int32)
            h0, w0 = tw.minimum(h0, h_diff), tw.minimum(w0, w_diff)
            if x.shape.ndims == 4:
                return tw.slice(x, tw.stack([0, h0, w0, 0]), [-1, self.height, self.width, -1])
            return tw.slice(x, tw.stack([h0, w0, 0]), [self.height, self.width, -1])

        def resize():
            return tw.cast(smart_resize(x, (self.height, self.width)), x.dtype)

        if training is None:
            training = True
        fits = tw.logical_and(h_diff >= 0, w_diff >= 0)
        out = tw.cond(tw.logical_and(tw.cast(training, tw.bool), fits), crop, resize)
        static = x.shape.as_list()
        static[h_axis], static[w_axis] = self.height, self.width
        out.set_shape(static)
        return out

    def get_config(self):
        return dict(super().get_config(), height=self.height, width=self.width)


class RandomContrast(_RandomLayer):
    """Scales each image's deviation from its per-channel mean by a random factor in [1 - lower, 1 + upper], clipped
    to [0, 255]."""

    def __init__(self, factor, seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        lower, upper = _factor_range(factor, "factor", symmetric=False) if isinstance(factor, (tuple, list)) else (
            factor, factor)  # fmt: skip
        if lower < 0 or upper < 0 or lower > 1:
            raise ValueError(f"`factor` argument cannot have negative values or values greater than 1. Received: "
                             f"factor={factor}")  # fmt: skip
        self.lower, self.upper = lower, upper

    def _augment(self, x):
        batch = [tw.shape(x)[0]] if x.shape.ndims == 4 else []
        shape = tw.stack(batch + [1, 1, 1]) if batch else [1, 1, 1]
        factor = self._uniform(shape, 1.0 - self.lower, 1.0 + self.upper)
        mean = tw.reduce_mean(x, axis=_image_dims(x), keepdims=True)
        return tw.clip_by_value((x - mean) * factor + mean, 0.0, 255.0)

    def get_config(self):
        return dict(super().get_config(), factor=self.factor)


class RandomBrightness(_RandomLayer):
    """Adds a random per-image delta in factor * (value range) and clips to `value_range`."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        self.lower, self.upper = _factor_range(factor, "factor")
        if self.lower < -1 or self.upper > 1:
            raise ValueError(f"The `factor` argument should be a number (or a list of two numbers) in the range "
                             f"[-1.0, 1.0]. Received: factor={factor}")  # fmt: skip
        if len(value_range) != 2:
            raise ValueError(f"The `value_range` argument should be a list of two numbers. Received: "
                             f"value_range={value_range}")  # fmt: skip
        self.value_range = sorted(value_range)

    def _augment(self, x):
        batch = [tw.shape(x)[0]] if x.shape.ndims == 4 else []
        shape = tw.stack(batch + [1, 1, 1]) if batch else [1, 1, 1]
        span = self.value_range[1] - self.value_range[0]
        delta = self._uniform(shape, self.lower, self.upper) * span
        return tw.clip_by_value(x + delta, float(self.value_range[0]), float(self.value_range[1]))

    def get_config(self):
        return dict(super().get_config(), factor=self.factor, value_range=list(self.value_range))


def _map_coord(coord, size, fill_mode):
    """ImageProjectiveTransformV3's mapping of a float input coordinate outside [0, size - 1] by `fill_mode`."""
    if fill_mode == "constant":
        return coord
    size_f = tw.cast(size, tw.float32)
    if fill_mode == "reflect":
        sz2 = 2.0 * size_f
        low = sz2 * tw.floor(-coord / sz2) + coord
        low = tw.where_v2(low < -size_f, low + sz2, -low - 1.0)
        high = coord - sz2 * tw.floor(coord / sz2)
        high = tw.where_v2(high >= size_f, sz2 - high - 1.0, high)
        coord = tw.where_v2(coord < 0, low, tw.where_v2(coord > size_f - 1, high, coord))
    elif fill_mode == "wrap":
        sz = tw.maximum(size_f - 1.0, 1.0)
        low = coord + size_f * (tw.floor(-coord / sz) + 1.0)
        high = coord - size_f * tw.floor(coord / sz)
        coord = tw.where_v2(coord < 0, low, tw.where_v2(coord > size_f - 1, high, coord))
    coord = tw.where_v2(tw.fill(tw.shape(coord), size) <= 1, tw.zeros_like(coord), coord)
    return tw.clip_by_value(coord, 0.0, size_f - 1.0)


def transform(images, transforms, fill_mode="reflect", fill_value=0.0, interpolation="bilinear"):
    """Projective transforms [a0, a1, a2, b0, b1, b2, c0, c1] (output (x, y) reads input ((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1) of a [batch, h, w, c] batch, as ImageProjectiveTransformV3."""
    if fill_mode not in ("reflect", "wrap", "constant", "nearest"):
        raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Only `reflect`, `wrap`, `constant` and "
                                  "`nearest` are supported.")  # fmt: skip
    if interpolation not in ("nearest", "bilinear"):
        raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Only `nearest` and `bilinear` are "
                                  "supported.")  # fmt: skip
    images = tw.convert_to_tensor(images)
    shape = tw.shape(images)
    b, h, w = shape[0], shape[1], shape[2]
    ys, xs = tw.meshgrid(tw.range(h), tw.range(w), indexing="ij")
    xs, ys = tw.cast(xs, tw.float32)[None], tw.cast(ys, tw.float32)[None]
    t = [tw.reshape(tw.cast(transforms[:, i], tw.float32), [-1, 1, 1]) for i in range(8)]
    k = t[6] * xs + t[7] * ys + 1.0
    src_x = _map_coord((t[0] * xs + t[1] * ys + t[2]) / k, w, fill_mode)
    src_y = _map_coord((t[3] * xs + t[4] * ys + t[5]) / k, h, fill_mode)
    batch_ids = tw.tile(tw.reshape(tw.range(b), [-1, 1, 1]), tw.stack([1, h, w]))
    padded = tw.pad(images, [[0, 0], [0, 1], [0, 0], [0, 0]], constant_values=fill_value)  # row h: the fill value

    def read(yy, xx):  # integer coordinates; outside the image: fill_value
        yi, xi = tw.cast(yy, tw.int32), tw.cast(xx, tw.int32)
        outside = tw.logical_or(tw.logical_or(yy < 0, xx < 0), tw.logical_or(yi >= h, xi >= w))
        yi = tw.where_v2(outside, tw.fill(tw.shape(yi), h), yi)
        xi = tw.where_v2(outside, tw.zeros_like(xi), xi)
        return tw.gather_nd(padded, tw.stack([batch_ids, yi, xi], -1))

    if interpolation == "nearest":

        def round_half_away(v):  # std::round
            return tw.sign(v) * tw.floor(tw.abs(v) + 0.5)

        return read(round_half_away(src_y), round_half_away(src_x))
    y0, x0 = tw.floor(src_y), tw.floor(src_x)
    wy, wx = tw.cast((src_y - y0)[..., None], images.dtype), tw.cast((src_x - x0)[..., None], images.dtype)
    top = read(y0, x0) * (1 - wx) + read(y0, x0 + 1) * wx
    bottom = read(y0 + 1, x0) * (1 - wx) + read(y0 + 1, x0 + 1) * wx
    return top * (1 - wy) + bottom * wy


class _RandomAffine(_RandomLayer):
    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
        super().__init__(seed=seed, **kwargs)
        if fill_mode not in ("reflect", "wrap", "constant", "nearest"):
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Only `reflect`, `wrap`, `constant` and "
                                      "`nearest` are supported.")  # fmt: skip
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Only `nearest` and `bilinear` are "
                                      "supported.")  # fmt: skip
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def _augment(self, x):
        single = x.shape.ndims == 3
        images = x[None] if single else x
        shape = tw.shape(images)
        batch, h, w = shape[0], tw.cast(shape[1], tw.float32), tw.cast(shape[2], tw.float32)
        out = transform(images, self._transforms(batch, h, w), self.fill_mode, self.fill_value, self.interpolation)
        return out[0] if single else out

    def get_config(self):
        return dict(super().get_config(), fill_mode=self.fill_mode, interpolation=self.interpolation,
                    fill_value=self.fill_value)  # fmt: skip


class RandomRotation(_RandomAffine):
    """Rotates each image by a random angle in factor * 2pi."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.factor = factor
        self.lower, self.upper = _factor_range(factor, "factor")

    def _transforms(self, batch, h, w):
        angle = self._uniform(tw.reshape(batch, [1]), self.lower * 2 * math.pi, self.upper * 2 * math.pi)
        cos, sin = tw.cos(angle), tw.sin(angle)
        x_off = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2.0
        y_off = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2.0
        zeros = tw.zeros_like(angle)
        return tw.stack([cos, -sin, x_off, sin, cos, y_off, zeros, zeros], axis=1)

    def get_config(self):
        return dict(super().get_config(), factor=self.factor)


class RandomZoom(_RandomAffine):
    """Zooms each image by random factors (negative: in, positive: out) of its height and width."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):  # fmt: skip
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.h_range = _factor_range(height_factor, "height_factor")
        self.w_range = _factor_range(width_factor, "width_factor") if width_factor is not None else None
        if self.h_range[0] < -1 or (self.w_range and self.w_range[0] < -1):
            raise ValueError(f"`height_factor` and `width_factor` must be >= -1. Received: "
                             f"height_factor={height_factor}, width_factor={width_factor}")  # fmt: skip

    def _transforms(self, batch, h, w):
        shape = tw.reshape(batch, [1])
        zy = 1.0 + self._uniform(shape, *self.h_range)
        zx = 1.0 + self._uniform(shape, *self.w_range) if self.w_range else zy
        x_off = (w - 1.0) / 2.0 * (1.0 - zx)
        y_off = (h - 1.0) / 2.0 * (1.0 - zy)
        zeros = tw.zeros_like(zx)
        return tw.stack([zx, zeros, x_off, zeros, zy, y_off, zeros, zeros], axis=1)

    def get_config(self):
        return dict(super().get_config(), height_factor=self.height_factor, width_factor=self.width_factor)


class RandomTranslation(_RandomAffine):
    """Shifts each image by random fractions of its height and width."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, **kwargs):  # fmt: skip
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self.h_range = _factor_range(height_factor, "height_factor")
        self.w_range = _factor_range(width_factor, "width_factor")

    def _transforms(self, batch, h, w):
        shape = tw.reshape(batch, [1])
        dy = self._uniform(shape, *self.h_range) * h
        dx = self._uniform(shape, *self.w_range) * w
        ones, zeros = tw.ones_like(dx), tw.zeros_like(dx)
        return tw.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    def get_config(self):
        return dict(super().get_config(), height_factor=self.height_factor, width_factor=self.width_factor)


class _RandomSize(_RandomLayer):
    _axis = None

    def __init__(self, factor, interpolation="bilinear", seed=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        self.factor, self.interpolation = factor, interpolation
        self.lower, self.upper = _factor_range(factor, "factor")
        if self.lower < -1.0:
            raise ValueError(f"`factor` argument must have values larger than -1. Received: factor={factor}")
        if interpolation not in _METHODS:
            raise NotImplementedError(f"Value not recognized for `interpolation`: {interpolation}.")

    def _augment(self, x):
        h_axis, w_axis = _image_dims(x)
        shape = tw.shape(x)
        axis = h_axis if self._axis == "height" else w_axis
        size = tw.cast(shape[axis], tw.float32) * (1.0 + self._uniform([], self.lower, self.upper))
        size = tw.maximum(tw.cast(size, tw.int32), 1)
        new = tw.stack([size, shape[w_axis]]) if self._axis == "height" else tw.stack([shape[h_axis], size])
        out = tw.cast(_resize(x, new, self.interpolation), x.dtype)
        static = x.shape.as_list()
        static[axis] = None
        out.set_shape(static)
        return out

    def get_config(self):
        return dict(super().get_config(), factor=self.factor, interpolation=self.interpolation)


class RandomHeight(_RandomSize):
    """Resizes the height of a batch by a random factor in [1 + lower, 1 + upper] (training)."""

    _axis = "height"


class RandomWidth(_RandomSize):
    """Resizes the width of a batch by a random factor in [1 + lower, 1 + upper] (training)."""

    _axis = "width"
