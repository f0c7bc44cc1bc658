"""tf.data datasets in TensorFlow 1's graph API (`tf.compat.v1.data.Dataset`, DatasetV1 semantics).

A `Dataset` is a graph tensor (a scalar string *handle*, where TensorFlow has a variant) produced by a dataset op,
together with the structure of its elements: a nest of tuples, namedtuples and dicts whose leaves are components
with a dtype and a static shape (`output_types`, `output_shapes`, `output_classes`). Transformations add ops;
nothing runs until an iterator's `get_next()` is fetched in a session.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     ds = tw.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5]).map(lambda x: x * 10).batch(2)
  ...     nxt = tw.data.make_one_shot_iterator(ds).get_next()
  ...     with tw.Session() as sess:
  ...         print([sess.run(nxt).tolist() for _ in range(3)])
  [[10, 20], [30, 40], [50]]
"""

import threading
import warnings

import numpy as np

from tensorweave._src.data import options as options_lib
from tensorweave._src.data import structure
from tensorweave._src.framework import dtypes as _dtypes
from tensorweave._src.framework import ops, random_seed, tensor_shape
from tensorweave._src.ops import array_ops, gen_ops, gradients_impl

AUTOTUNE = -1
INFINITE = -1
UNKNOWN = -2

DATASET_OPS = (
    "TensorDataset",
    "TensorSliceDataset",
    "RangeDataset",
    "BatchDatasetV2",
    "PaddedBatchDatasetV2",
    "ShuffleDataset",
    "RepeatDataset",
    "TakeDataset",
    "SkipDataset",
    "ShardDataset",
    "ZipDataset",
    "ConcatenateDataset",
    "PrefetchDataset",
    "CacheDataset",
    "UnbatchDataset",
    "MapDataset",
    "ParallelMapDatasetV2",
    "FilterDataset",
    "FlatMapDataset",
    "InterleaveDataset",
    "ParallelInterleaveDatasetV4",
    "TFRecordDataset",
    "TextLineDataset",
    "FixedLengthRecordDatasetV2",
    "IteratorV2",
    "OneShotIterator",
    "MakeIterator",
    "IteratorGetNext",
    "IteratorGetNextOrEnd",
    "IteratorToStringHandle",
    "IteratorFromStringHandleV2",
    "DatasetCardinality",
    "PrivateThreadPoolDataset",
    "MaxIntraOpParallelismDataset",
    "IgnoreErrorsDataset",
    "RandomDataset",
)
for _op_type in DATASET_OPS:
    gradients_impl.NotDifferentiable(_op_type)


def _int64(value, name):
    return ops.convert_to_tensor(value, dtype=_dtypes.int64, name=name)


def _const_value(tensor):
    value = array_ops.constant_value(tensor)
    return None if value is None else value.item() if value.ndim == 0 else value


def _shape_attrs(shapes):
    return [tensor_shape.as_attr(s) for s in shapes]


class DatasetV1:
    """A sequence of elements, each a nest of tensors (TF1's `tf.data.Dataset`).

    Build one with the static constructors (`from_tensor_slices`, `from_tensors`, `from_generator`, `range`,
    `zip`, `list_files`) or a file dataset (`TFRecordDataset`, ...), transform it (`map`, `batch`, ...), and read it
    through an iterator (`make_one_shot_iterator()`, `make_initializable_iterator()`).
    """

    def __init__(self, variant_tensor, output_types, output_shapes, inputs=(), classes=None):
        self._variant_tensor = variant_tensor
        self._output_types = output_types
        self._output_shapes = output_shapes
        self._output_classes = structure.dense_classes(output_types) if classes is None else classes
        self._inputs = tuple(inputs)  # the datasets whose options this one's merge (options())
        self._own_options = None  # with_options

    # --- structure ---------------------------------------------------------------------------------------------

    @property
    def output_types(self):
        """The dtype of each component, nested as the elements are."""
        return self._output_types

    @property
    def output_shapes(self):
        """The static shape (a TensorShape) of each component, nested as the elements are."""
        return self._output_shapes

    @property
    def output_classes(self):
        """The class of each component (`tw.Tensor` or `tw.SparseTensor`), nested as the elements are."""
        return self._output_classes

    @property
    def element_spec(self):
        """A `TensorSpec` (or `SparseTensorSpec`) per component, nested as the elements are."""
        return structure.element_spec_of(self._output_types, self._output_shapes, self._output_classes)

    def _flat_types(self):
        """The dtypes of the tensors the dataset ops carry (a SparseTensor's serialized form: string)."""
        return structure.component_types(self._output_types, self._output_classes)

    def _flat_shapes(self):
        return structure.component_shapes(self._output_shapes, self._output_classes)

    def _copy(self, variant_tensor, inputs):
        """A dataset of this one's element structure on another handle."""
        return DatasetV1(variant_tensor, self._output_types, self._output_shapes, inputs, self._output_classes)

    def _attrs(self, types_key="output_types"):
        return {types_key: self._flat_types(), "output_shapes": _shape_attrs(self._flat_shapes())}

    def __iter__(self):
        raise RuntimeError(
            "`tf.data.Dataset` only supports Python-style iteration in eager mode or within tf.function."
        )

    def __repr__(self):
        return f"<{type(self).__name__} shapes: {self._output_shapes}, types: {self._output_types}>"

    def _as_variant_tensor(self):
        return self._variant_tensor

    # --- sources -----------------------------------------------------------------------------------------------

    @staticmethod
    def from_tensors(tensors, name=None):
        """A dataset of one element, `tensors` (a nest of tensors or values to convert)."""
        element = structure.normalize_element(tensors)
        types = structure.leaf_types(element)
        shapes = structure.leaf_shapes(element)
        classes = structure.classes_of(element)
        handle = gen_ops.apply_op(
            "TensorDataset",
            {
                "components": structure.to_components(element),
                "Toutput_types": structure.component_types(types, classes),
                "output_shapes": _shape_attrs(structure.component_shapes(shapes, classes)),
                "name": name,
            },
        )
        return DatasetV1(handle, types, shapes, classes=classes)

    @staticmethod
    def from_tensor_slices(tensors, name=None):
        """A dataset of the slices of `tensors` along dimension 0 (every component must have the same size
        there)."""
        element = structure.normalize_element(tensors)
        flat = structure.flatten(element)
        batch_dim = tensor_shape.Dimension(None)
        for t in flat:
            shape = t.get_shape()
            if shape.rank == 0:
                raise ValueError("Unbatching a tensor is only supported for rank >= 1")
            if shape.rank is not None:
                batch_dim = batch_dim.merge_with(shape[0])
        shapes = structure.map_structure(
            lambda t: t.get_shape()[1:] if t.get_shape().rank is not None else t.get_shape(), element
        )
        types = structure.leaf_types(element)
        classes = structure.classes_of(element)
        handle = gen_ops.apply_op(
            "TensorSliceDataset",
            {
                "components": structure.to_components(element, batched=True),
                "Toutput_types": structure.component_types(types, classes),
                "output_shapes": _shape_attrs(structure.component_shapes(shapes, classes)),
                "name": name,
            },
        )
        return DatasetV1(handle, types, shapes, classes=classes)

    @staticmethod
    def range(*args, output_type=_dtypes.int64, name=None):
        """`range(stop)`, `range(start, stop)` or `range(start, stop, step)`: int64 scalars as Python's range."""
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            start, stop, step = args[0], args[1], 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid `args`. The length of `args` should be between 1 and 3 but was {len(args)}.")
        output_type = _dtypes.as_dtype(output_type)
        start, stop, step = _int64(start, "start"), _int64(stop, "stop"), _int64(step, "step")
        handle = gen_ops.apply_op(
            "RangeDataset",
            {
                "start": start,
                "stop": stop,
                "step": step,
                "output_types": [_dtypes.int64],
                "output_shapes": [[]],
                "name": name,
            },
        )
        ds = DatasetV1(handle, _dtypes.int64, tensor_shape.TensorShape([]))
        if output_type != _dtypes.int64:
            from tensorweave._src.ops import math_ops

            ds = ds.map(lambda x: math_ops.cast(x, output_type))
        return ds

    @staticmethod
    def zip(*args, datasets=None, name=None):
        """A dataset of the elements of `datasets` (a nest of tuples/dicts of datasets) side by side; it ends with
        the shortest."""
        if datasets is None:
            if not args:
                raise TypeError("Must pass at least one dataset to `zip`.")
            datasets = args[0] if len(args) == 1 else tuple(args)
        elif args:
            raise TypeError("Both `*args` and `datasets` cannot be set.")

        def check(d):
            if isinstance(d, list):
                raise TypeError(
                    "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` "
                    "objects. Python `list` is not supported and you should use `tuple` instead."
                )
            if structure.is_sequence(d):
                for c in structure._children(d):
                    check(c)
            elif not isinstance(d, DatasetV1):
                raise TypeError(
                    "Invalid input to `zip`. Inputs are expected to be (nested) structures of `tf.data.Dataset` "
                    f"objects but encountered object of type {type(d)}."
                )

        check(datasets)
        flat = structure.flatten(datasets)
        types = structure.map_structure(lambda d: d.output_types, datasets)
        shapes = structure.map_structure(lambda d: d.output_shapes, datasets)
        classes = structure.map_structure(lambda d: d.output_classes, datasets)
        flat_types = [t for d in flat for t in d._flat_types()]
        flat_shapes = [s for d in flat for s in d._flat_shapes()]
        handle = gen_ops.apply_op(
            "ZipDataset",
            {
                "input_datasets": [d._variant_tensor for d in flat],
                "output_types": flat_types,
                "output_shapes": _shape_attrs(flat_shapes),
                "name": name,
            },
        )
        return DatasetV1(handle, types, shapes, flat, classes)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None, name=None):
        """A dataset of the elements `generator(*args)` yields, converted to `output_types` (checked against
        `output_shapes`). Each iterator (each run of an initializer) calls `generator` anew."""
        return _from_generator(generator, output_types, output_shapes, args, output_signature)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """An endless dataset of pseudorandom int64 scalars (32-bit values), seeded by the graph- and op-level
        seeds as the random ops are; each iterator starts the same stream (TF1's behaviour)."""
        if rerandomize_each_iteration:
            warnings.warn(
                "In TF 1, the `rerandomize_each_iteration=True` option is only supported for repeat-based epochs.",
                stacklevel=2,
            )
        seed, seed2 = random_seed.get_seed(seed)
        handle = gen_ops.apply_op(
            "RandomDataset",
            {
                "seed": _int64(0 if seed is None else seed, "seed"),
                "seed2": _int64(0 if seed2 is None else seed2, "seed2"),
                "output_types": [_dtypes.int64],
                "output_shapes": [[]],
                "name": name,
            },
        )
        return DatasetV1(handle, _dtypes.int64, tensor_shape.TensorShape([]))

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None):
        """A dataset of the file names matching `file_pattern` (a pattern or a list of them), shuffled unless
        `shuffle=False` (sorted otherwise). No match: an empty dataset (as TensorFlow 2.x's compat.v1 does)."""
        from tensorweave._src.ops import file_ops, math_ops

        with ops.name_scope("list_files"):
            if shuffle is None:
                shuffle = True
            file_pattern = ops.convert_to_tensor(file_pattern, dtype=_dtypes.string, name="file_pattern")
            matching = file_ops.matching_files(file_pattern)
            dataset = DatasetV1.from_tensor_slices(matching)
            if shuffle:
                count = math_ops.maximum(math_ops.cast(array_ops.shape(matching)[0], _dtypes.int64), 1)
                dataset = dataset.shuffle(count, seed=seed)
            return dataset

    # --- transformations ---------------------------------------------------------------------------------------

    def _unary(
        self, op_type, inputs, types=None, shapes=None, name=None, types_key="output_types", classes=None, **attrs
    ):
        if classes is None:
            classes = self._output_classes if types is None else structure.dense_classes(types)
        types = self._output_types if types is None else types
        shapes = self._output_shapes if shapes is None else shapes
        arguments = {"input_dataset": self._variant_tensor, **inputs, **attrs}
        for key, value in arguments.items():
            if isinstance(value, DatasetV1):
                arguments[key] = value._variant_tensor
        arguments[types_key] = structure.component_types(types, classes)
        arguments["output_shapes"] = _shape_attrs(structure.component_shapes(shapes, classes))
        arguments["name"] = name
        inputs = (self,) + tuple(d for d in inputs.values() if isinstance(d, DatasetV1))
        dataset = DatasetV1(gen_ops.apply_op(op_type, arguments), types, shapes, inputs, classes)
        if getattr(self, "_is_window", False) and types is self._output_types and shapes is self._output_shapes:
            window = DatasetV1.__new__(type(self))
            window.__dict__.update(self.__dict__)
            window._variant_tensor, window._inputs = dataset._variant_tensor, (dataset,)
            return window
        return dataset

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a dataset."""
        dataset = transformation_func(self)
        if not isinstance(dataset, DatasetV1):
            raise TypeError(f"`transformation_func` must return a `tf.data.Dataset` object. Got {type(dataset)}.")
        return dataset

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        """Combines `batch_size` consecutive elements into one (a new leading dimension; the last batch may be
        smaller unless `drop_remainder`)."""
        del num_parallel_calls, deterministic
        batch_size = _int64(batch_size, "batch_size")
        drop_remainder = ops.convert_to_tensor(drop_remainder, dtype=_dtypes.bool, name="drop_remainder")
        size, drop = _const_value(batch_size), _const_value(drop_remainder)
        dim = size if drop is True and size is not None else None
        shapes = structure.map_structure(lambda s: tensor_shape.TensorShape([dim]).concatenate(s), self._output_shapes)
        return self._unary(
            "BatchDatasetV2", {"batch_size": batch_size, "drop_remainder": drop_remainder}, shapes=shapes, name=name
        )

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None, drop_remainder=False, name=None):
        """Batches elements whose shapes differ, padding each component to `padded_shapes` (None or -1 in a
        dimension: the longest in the batch) with `padding_values` (default 0, or "" for strings)."""
        for spec in structure.flatten(self.element_spec):
            if not isinstance(spec, structure.TensorSpec):
                raise TypeError(
                    "`padded_batch` is only supported for datasets that produce tensor elements but type spec of "
                    f"elements in the input dataset is not a subclass of TensorSpec: `{spec}`."
                )
        batch_size = _int64(batch_size, "batch_size")
        flat_types = self._flat_types()
        flat_input_shapes = self._flat_shapes()
        if padded_shapes is None:
            padded_shapes = self._output_shapes
            for i, s in enumerate(flat_input_shapes):
                if s.rank is None:
                    raise ValueError(
                        f"You must provide `padded_shapes` argument because component {i} has unknown rank."
                    )
        flat_padded = _flatten_up_to(self._output_types, padded_shapes)
        shape_tensors, static_padded = [], []
        for i, (padded, input_shape) in enumerate(zip(flat_padded, flat_input_shapes)):
            t, static = _padded_shape_to_tensor(padded, input_shape)
            shape_tensors.append(t)
            static_padded.append(static)
        if padding_values is None:
            flat_values = [None] * len(flat_types)
        else:
            flat_values = _flatten_up_to(self._output_types, padding_values)
        value_tensors = [_padding_value_to_tensor(v, t) for v, t in zip(flat_values, flat_types)]
        drop_remainder = ops.convert_to_tensor(drop_remainder, dtype=_dtypes.bool, name="drop_remainder")
        size, drop = _const_value(batch_size), _const_value(drop_remainder)
        dim = size if drop is True and size is not None else None
        out_shapes = structure.pack_sequence_as(
            self._output_shapes, [tensor_shape.TensorShape([dim]).concatenate(s) for s in static_padded]
        )
        return self._unary(
            "PaddedBatchDatasetV2",
            {
                "batch_size": batch_size,
                "padded_shapes": shape_tensors,
                "padding_values": value_tensors,
                "drop_remainder": drop_remainder,
            },
            shapes=out_shapes,
            name=name,
            types_key="Toutput_types",
        )

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Shuffles the elements through a buffer of `buffer_size`; seeded by the graph- and op-level seeds as
        the random ops are; a new order each epoch unless `reshuffle_each_iteration=False`."""
        buffer_size = _int64(buffer_size, "buffer_size")
        seed, seed2 = random_seed.get_seed(seed)
        seed = _int64(0 if seed is None else seed, "seed")
        seed2 = _int64(0 if seed2 is None else seed2, "seed2")
        if reshuffle_each_iteration is None:
            reshuffle_each_iteration = True
        return self._unary(
            "ShuffleDataset",
            {"buffer_size": buffer_size, "seed": seed, "seed2": seed2},
            name=name,
            reshuffle_each_iteration=bool(reshuffle_each_iteration),
        )

    def repeat(self, count=None, name=None):
        """The dataset `count` times over (None or -1: forever)."""
        return self._unary("RepeatDataset", {"count": _int64(-1 if count is None else count, "count")}, name=name)

    def take(self, count, name=None):
        """The first `count` elements (-1: all)."""
        return self._unary("TakeDataset", {"count": _int64(count, "count")}, name=name)

    def skip(self, count, name=None):
        """All but the first `count` elements (-1: none)."""
        return self._unary("SkipDataset", {"count": _int64(count, "count")}, name=name)

    def shard(self, num_shards, index, name=None):
        """Every `num_shards`-th element, from element `index`."""
        return self._unary(
            "ShardDataset",
            {"num_shards": _int64(num_shards, "num_shards"), "index": _int64(index, "index")},
            name=name,
        )

    def prefetch(self, buffer_size, name=None):
        """Produces up to `buffer_size` elements ahead in the background (AUTOTUNE: a size the runtime picks)."""
        return self._unary("PrefetchDataset", {"buffer_size": _int64(buffer_size, "buffer_size")}, name=name)

    def cache(self, filename="", name=None):
        """Caches the elements the first full pass produces (in memory, or in files named by `filename`)."""
        filename = ops.convert_to_tensor(filename, dtype=_dtypes.string, name="filename")
        return self._unary("CacheDataset", {"filename": filename}, name=name)

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then `dataset`'s (the same structure and dtypes)."""
        if not isinstance(dataset, DatasetV1):
            raise TypeError(
                f"Invalid `dataset`. `dataset` is expected to be a `tf.data.Dataset` but got {type(dataset)}."
            )
        if not structure.same_structure(self._output_types, dataset._output_types) or any(
            a != b for a, b in zip(self._flat_types(), dataset._flat_types())
        ):
            specs = "\n".join(
                f"  {a} vs.   {b}"
                for a, b in zip(structure.flatten(self.element_spec), structure.flatten(dataset.element_spec))
            )
            raise TypeError(f"Incompatible dataset elements:\n{specs}")
        shapes = structure.map_structure(
            lambda a, b: a.most_specific_compatible_shape(b), self._output_shapes, dataset._output_shapes
        )
        return self._unary("ConcatenateDataset", {"another_dataset": dataset}, shapes=shapes, name=name)

    def unbatch(self, name=None):
        """Splits each element along its dimension 0 into elements (the inverse of `batch`)."""
        for s in self._flat_shapes():
            if s.rank == 0:
                raise ValueError("Cannot unbatch an input with scalar components.")
        shapes = structure.map_structure(lambda s: s[1:] if s.rank is not None else s, self._output_shapes)
        dataset = self
        if structure.has_sparse(self._output_classes):  # each SparseTensor as [N, 3], one row per slice
            fn = _StructuredFunction(lambda *e: e[0] if len(e) == 1 else e, self, "unbatch", batched_output=True)
            attrs = {"f": fn.serialized, "use_inter_op_parallelism": True, "preserve_cardinality": True}
            mapped = self._unary("MapDataset", {"other_arguments": fn.captured_inputs}, **attrs)
            dataset = self._copy(mapped._variant_tensor, (mapped,))
        return dataset._unary("UnbatchDataset", {}, shapes=shapes, name=name)

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 counting from `start`."""
        max_value = np.iinfo(np.int64).max
        return DatasetV1.zip((DatasetV1.range(start, max_value), self))

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """`map_func` applied to each element (a tuple element is passed as separate arguments); with
        `num_parallel_calls`, that many at once, the order kept."""
        fn = _StructuredFunction(map_func, self, "map")
        args = {"other_arguments": fn.captured_inputs}
        attrs = {"f": fn.serialized, "use_inter_op_parallelism": True, "preserve_cardinality": False}
        if num_parallel_calls is None:
            return self._unary(
                "MapDataset", args, fn.output_types, fn.output_shapes, name=name, classes=fn.output_classes, **attrs
            )
        args["num_parallel_calls"] = _int64(num_parallel_calls, "num_parallel_calls")
        attrs["deterministic"] = "default" if deterministic is None else "true" if deterministic else "false"
        return self._unary(
            "ParallelMapDatasetV2",
            args,
            fn.output_types,
            fn.output_shapes,
            name=name,
            classes=fn.output_classes,
            **attrs,
        )

    def filter(self, predicate, name=None):
        """The elements for which `predicate` (a scalar bool) holds."""
        fn = _StructuredFunction(predicate, self, "filter")
        flat_types = structure.flatten(fn.output_types)
        flat_shapes = structure.flatten(fn.output_shapes)
        if (
            structure.is_sequence(fn.output_types)
            or flat_types[0] != _dtypes.bool
            or not flat_shapes[0].is_compatible_with(tensor_shape.TensorShape([]))
        ):
            spec = structure.map_structure(lambda t, s: structure.TensorSpec(s, t), fn.output_types, fn.output_shapes)
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is "
                f"{spec}."
            )
        return self._unary("FilterDataset", {"other_arguments": fn.captured_inputs}, name=name, predicate=fn.serialized)

    def map_with_legacy_function(self, map_func, num_parallel_calls=None, deterministic=None):
        """`map` (TF1's deprecated spelling of it)."""
        return self.map(map_func, num_parallel_calls, deterministic)

    def filter_with_legacy_function(self, predicate):
        """`filter` (TF1's deprecated spelling of it)."""
        return self.filter(predicate)

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """The elements (batches) cut again into batches of `batch_size`: `unbatch().batch(batch_size,
        drop_remainder)`."""
        if isinstance(batch_size, (list, tuple)) or np.ndim(batch_size) > 0:
            raise NotImplementedError("tensorweave's `rebatch` takes a scalar `batch_size`.")
        return self.unbatch().batch(batch_size, drop_remainder=drop_remainder, name=name)

    def flat_map(self, map_func, name=None):
        """The elements of the datasets `map_func` returns, one dataset after another."""
        fn = _StructuredFunction(map_func, self, "flat_map", returns_dataset=True)
        return self._unary(
            "FlatMapDataset",
            {"other_arguments": fn.captured_inputs},
            fn.dataset_types,
            fn.dataset_shapes,
            name=name,
            f=fn.serialized,
        )

    def interleave(
        self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None, deterministic=None, name=None
    ):
        """The elements of the datasets `map_func` returns, `cycle_length` of them at once, `block_length`
        elements from each in turn."""
        fn = _StructuredFunction(map_func, self, "interleave", returns_dataset=True)
        cycle = _int64(AUTOTUNE if cycle_length is None else cycle_length, "cycle_length")
        block = _int64(1 if block_length is None else block_length, "block_length")
        args = {"other_arguments": fn.captured_inputs, "cycle_length": cycle, "block_length": block}
        if num_parallel_calls is None:
            return self._unary(
                "InterleaveDataset", args, fn.dataset_types, fn.dataset_shapes, name=name, f=fn.serialized
            )
        args["buffer_output_elements"] = _int64(AUTOTUNE, "buffer_output_elements")
        args["prefetch_input_elements"] = _int64(AUTOTUNE, "prefetch_input_elements")
        args["num_parallel_calls"] = _int64(num_parallel_calls, "num_parallel_calls")
        return self._unary(
            "ParallelInterleaveDatasetV4",
            args,
            fn.dataset_types,
            fn.dataset_shapes,
            name=name,
            f=fn.serialized,
            deterministic="default" if deterministic is None else "true" if deterministic else "false",
        )

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows: each a nest of datasets (one per component) of `size` elements, `stride` apart,
        the windows starting `shift` (default `size`) elements apart; the last ones shorter unless
        `drop_remainder`. Use them in `flat_map` / `interleave` (e.g. `flat_map(lambda w: w.batch(size))`)."""
        del name
        from tensorweave._src.ops import script_ops

        size = _int64(size, "size")
        shift = size if shift is None else _int64(shift, "shift")
        stride = _int64(stride, "stride")
        drop = ops.convert_to_tensor(drop_remainder, dtype=_dtypes.bool, name="drop_remainder")
        batched = _Batched(self._output_types, self._output_shapes)
        states = _IteratorStates(_WindowState)

        def push(state_id, *flat):
            window = states.get(state_id).push(flat)
            if window is None:
                return [np.array(False)] + batched.empty(flat)
            return [np.array(True)] + batched.stack(window)

        def pop(state_id):
            window = states.get(state_id).pop()
            if window is None:
                raise StopIteration
            return batched.stack(window)

        def make(state_id):
            def pushed(*e):
                out = script_ops.py_func(
                    push, [state_id] + structure.flatten(e), [_dtypes.bool] + batched.types, stateful=True
                )
                return (out[0], batched.set_shapes(out[1:]))

            windows = self.map(pushed).filter(lambda ready, _: ready).map(lambda _, w: w)
            rest = (
                DatasetV1.from_tensors(state_id)
                .repeat()
                .map(lambda i: batched.set_shapes(script_ops.py_func(pop, [i], batched.types, stateful=True)))
            )
            return windows.concatenate(rest)

        return _WindowDataset(_with_state(states, [size, shift, stride, drop], make), batched, self)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None):
        """Groups the elements by `key_func` (an int64 scalar); each time a group has `window_size` elements
        (or `window_size_func(key)`), and at the end for what is left (in key order), the elements of
        `reduce_func(key, window)`, the window a dataset of the group's elements."""
        del name
        from tensorweave._src.ops import script_ops

        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` argument must be specified.")
        if window_size is not None:
            size = _int64(window_size, "window_size")
            window_size_func = lambda _key: size
        key_fn = _StructuredFunction(key_func, self, "key_func")
        if structure.is_sequence(key_fn.output_types) or key_fn.output_types != _dtypes.int64:
            spec = structure.map_structure(
                lambda t, s: structure.TensorSpec(s, t), key_fn.output_types, key_fn.output_shapes
            )
            raise ValueError(
                f"Invalid `key_func`. `key_func` must return a single tf.int64 scalar tensor but its return type is "
                f"{spec}."
            )
        batched = _Batched(self._output_types, self._output_shapes)
        states = _IteratorStates(_GroupState)

        def push(state_id, key, size, *flat):
            group = states.get(state_id).push(int(key), int(size), flat)
            if group is None:
                return [np.array(False)] + batched.empty(flat)
            return [np.array(True)] + batched.stack(group)

        def pop(state_id):
            group = states.get(state_id).pop()
            if group is None:
                raise StopIteration
            return [np.array(group[0], np.int64)] + batched.stack(group[1])

        def shaped(key, flat):
            key.set_shape([])
            return (key, batched.set_shapes(flat))

        def make(state_id):
            def pushed(*e):
                element = e[0] if len(e) == 1 else e
                key = key_func(*e) if type(element) is tuple else key_func(element)
                key = ops.convert_to_tensor(key, dtype=_dtypes.int64, name="key")
                size = ops.convert_to_tensor(window_size_func(key), dtype=_dtypes.int64, name="window_size")
                out = script_ops.py_func(
                    push, [state_id, key, size] + structure.flatten(e), [_dtypes.bool] + batched.types, stateful=True
                )
                return (out[0], shaped(key, out[1:]))

            def popped(i):
                out = script_ops.py_func(pop, [i], [_dtypes.int64] + batched.types, stateful=True)
                return shaped(out[0], out[1:])

            full = self.map(pushed).filter(lambda ready, _: ready).map(lambda _, g: g)
            return full.concatenate(DatasetV1.from_tensors(state_id).repeat().map(popped))

        groups = _with_state(states, [], make)

        def reduce_window(key, flat):
            result = reduce_func(key, batched.dataset(flat))
            if not isinstance(result, DatasetV1):
                spec = structure.map_structure(
                    lambda t: structure.TensorSpec(t.get_shape(), t.dtype), structure.normalize_element(result)
                )
                raise TypeError(
                    "Invalid `reduce_func`. `reduce_func` must return a single `tf.data.Dataset` object but its "
                    f"return type is {spec}."
                )
            return result

        return groups.flat_map(reduce_window)

    def bucket_by_sequence_length(
        self,
        element_length_func,
        bucket_boundaries,
        bucket_batch_sizes,
        padded_shapes=None,
        padding_values=None,
        pad_to_bucket_boundary=False,
        no_padding=False,
        drop_remainder=False,
        name=None,
    ):
        """Batches the elements by length (`element_length_func`, an int32 scalar) into buckets split at
        `bucket_boundaries`, each bucket's batches `bucket_batch_sizes[i]` long and padded (TF's
        `bucket_by_sequence_length`, on `group_by_window`)."""
        del name
        from tensorweave._src.ops import logging_ops, math_ops

        if len(bucket_batch_sizes) != (len(bucket_boundaries) + 1):
            raise ValueError(
                f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + 1` but "
                f"`len(bucket_batch_sizes)={len(bucket_batch_sizes)}` and "
                f"`len(bucket_boundaries)={len(bucket_boundaries)}`."
            )
        batch_sizes = _int64(list(bucket_batch_sizes), "bucket_batch_sizes")

        def element_to_bucket_id(*args):
            seq_length = element_length_func(*args)
            boundaries = list(bucket_boundaries)
            buckets_min = ops.convert_to_tensor([np.iinfo(np.int32).min] + boundaries, dtype=_dtypes.int32)
            buckets_max = ops.convert_to_tensor(boundaries + [np.iinfo(np.int32).max], dtype=_dtypes.int32)
            conditions = math_ops.logical_and(
                math_ops.less_equal(buckets_min, seq_length), math_ops.less(seq_length, buckets_max)
            )
            return math_ops.reduce_min(math_ops.where(conditions))

        def window_size_fn(bucket_id):
            return array_ops.gather(batch_sizes, bucket_id)

        def make_padded_shapes(shapes, none_filler=None):
            padded = []
            for shape in structure.flatten(shapes):
                dims = tensor_shape.as_shape(shape).as_list()
                if none_filler is not None and None in dims:
                    dims = array_ops.stack([none_filler if d is None else _int64(d, "dim") for d in dims])
                padded.append(dims)
            return structure.pack_sequence_as(shapes, padded)

        def batching_fn(bucket_id, grouped):
            batch_size = window_size_fn(bucket_id)
            if no_padding:
                return grouped.batch(batch_size, drop_remainder=drop_remainder)
            none_filler = None
            if pad_to_bucket_boundary:
                check = logging_ops.assert_less(
                    bucket_id,
                    _int64(len(bucket_batch_sizes) - 1, "num_buckets"),
                    message="When pad_to_bucket_boundary=True, elements must have length < max(bucket_boundaries).",
                )
                with ops.control_dependencies([check]):
                    boundaries = _int64(list(bucket_boundaries), "bucket_boundaries")
                    none_filler = array_ops.gather(boundaries, bucket_id) - 1
            shapes = make_padded_shapes(padded_shapes or grouped.output_shapes, none_filler=none_filler)
            return grouped.padded_batch(batch_size, shapes, padding_values, drop_remainder=drop_remainder)

        return self.group_by_window(element_to_bucket_id, batching_fn, window_size_func=window_size_fn)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """The elements of `datasets` in the order `choice_dataset` (int64 scalars, indices into `datasets`)
        picks them; when a chosen dataset is exhausted, the end (`stop_on_empty_dataset`) or the next choice."""
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        if not isinstance(choice_dataset, DatasetV1):
            raise TypeError(
                f"Invalid `choice_dataset`. `choice_dataset` should be a `tf.data.Dataset` but is {type(choice_dataset)}."
            )
        if (
            structure.is_sequence(choice_dataset.output_types)
            or choice_dataset.output_types != _dtypes.int64
            or not choice_dataset.output_shapes.is_compatible_with(tensor_shape.TensorShape([]))
        ):
            raise TypeError(
                "Invalid `choice_dataset`. Elements of `choice_dataset` must be scalar of type `tf.int64`, but "
                f"found {choice_dataset.element_spec}."
            )
        return _directed_interleave(list(datasets), choice_dataset, stop_on_empty_dataset)

    @staticmethod
    def sample_from_datasets(
        datasets, weights=None, seed=None, stop_on_empty_dataset=False, rerandomize_each_iteration=None
    ):
        """The elements of `datasets`, each next one from a dataset drawn at random with probabilities
        `weights` (default uniform; a list, a tensor, or a dataset of weight vectors)."""
        from tensorweave._src.ops import math_ops, random_ops

        del rerandomize_each_iteration
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        datasets_all = list(datasets)
        n = len(datasets)
        if weights is None:
            weights = np.ones([n], np.float32) / n
        if isinstance(weights, DatasetV1):
            weights_dataset = weights.map(lambda w: math_ops.cast(w, _dtypes.float32))
        else:
            if not isinstance(weights, ops.Tensor):
                if len(datasets) != len(weights):
                    raise ValueError(
                        "Invalid `weights`. `weights` should have the same length as `datasets` but got "
                        f"`len(weights)={len(weights)}` vs. `len(datasets)={len(datasets)}`."
                    )
                kept = [(d, w) for d, w in zip(datasets, weights) if not (np.isscalar(w) and w == 0)]
                if len(kept) != len(datasets):  # TF skips the inputs of weight 0
                    datasets, weights = [d for d, _ in kept], [w for _, w in kept]
                    if not datasets:
                        datasets, weights = [datasets_all[0].take(0)], [1.0]
                    n = len(datasets)
            weights = ops.convert_to_tensor(weights, name="weights")
            if weights.dtype not in (_dtypes.float32, _dtypes.float64):
                raise TypeError(
                    f"Invalid `weights`. `weights` type must be either `tf.float32` or `tf.float64` but is {weights.dtype!r}."
                )
            if weights.get_shape().rank is not None and weights.get_shape().as_list() != [n]:
                raise ValueError(
                    f"Invalid `weights`. The shape of `weights` should be compatible with `[len(datasets)]` but is "
                    f"{weights.get_shape()}."
                )
            weights_dataset = DatasetV1.from_tensors(math_ops.cast(weights, _dtypes.float32)).repeat()
        seed_a, seed_b = random_seed.get_seed(seed)

        def select(w):
            logits = array_ops.reshape(math_ops.log(w), [1, n])
            return array_ops.reshape(random_ops.multinomial(logits, 1, seed=seed_a if seed_b is None else seed_b), [])

        choice = weights_dataset.map(select)
        return _directed_interleave(list(datasets), choice, stop_on_empty_dataset)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None, name=None):
        """(class, element) pairs resampled (some elements dropped, some repeated) toward the class distribution
        `target_dist`, from `initial_dist` or, without it, the distribution estimated as the classes are seen
        (TF's construction: a filtered copy mixed with the original by `sample_from_datasets`)."""
        del name
        from tensorweave._src.ops import math_ops, random_ops

        target = math_ops.cast(ops.convert_to_tensor(target_dist, name="target_dist"), _dtypes.float32)

        def acceptance(initial):
            ratio = target / (initial + np.finfo(np.float32).tiny)
            low = math_ops.reduce_min(ratio)
            return (ratio - low) / (math_ops.reduce_max(ratio) - low), low

        def class_of(*x):
            return class_func(*x)

        if initial_dist is not None:
            initial = math_ops.cast(ops.convert_to_tensor(initial_dist, name="initial_dist"), _dtypes.float32)
            accept, prob_original = acceptance(initial)
            accept_ds = DatasetV1.from_tensors(accept).repeat()
            prob_original_ds = DatasetV1.from_tensors(prob_original).repeat()
        else:
            num_classes = target.get_shape()[0].value or array_ops.shape(target)[0]
            seen = array_ops.fill([num_classes], np.int64(10))

            def update(counts, c):
                counts = counts + math_ops.reduce_sum(array_ops.one_hot(c, num_classes, dtype=_dtypes.int64), 0)
                dist = math_ops.cast(math_ops.truediv(counts, math_ops.reduce_sum(counts)), _dtypes.float32)
                return counts, array_ops.tile(array_ops.expand_dims(dist, 0), [32, 1])

            initial_ds = self.map(class_of).batch(32).scan(seen, update).unbatch()
            pairs = initial_ds.map(acceptance)
            accept_ds = pairs.map(lambda a, _: a)
            prob_original_ds = pairs.map(lambda _, m: m)

        def gather_and_copy(accept_prob, data):
            class_value = class_func(*data) if type(data) is tuple else class_func(data)
            return class_value, array_ops.gather(accept_prob, class_value), data

        filtered = (
            DatasetV1.zip((accept_ds, self))
            .map(gather_and_copy)
            .filter(lambda _c, p, _d: random_ops.random_uniform([], seed=seed, dtype=p.dtype) < p)
            .map(lambda c, _, d: (c, d))
            .prefetch(3)
        )
        prob_static = None
        if initial_dist is not None:
            init_value, target_value = array_ops.constant_value(initial), array_ops.constant_value(target)
            if init_value is not None and target_value is not None:
                prob_static = np.min(target_value / init_value)

        def add_class_value(*x):
            return (class_func(*x), x[0]) if len(x) == 1 else (class_func(*x), x)

        if prob_static == 1:
            return self.map(add_class_value)
        if prob_static == 0:
            return filtered
        return DatasetV1.sample_from_datasets(
            [self.map(add_class_value), filtered],
            weights=prob_original_ds.map(lambda p: array_ops.stack([p, 1.0 - p])),
            seed=seed,
            stop_on_empty_dataset=True,
        )

    # --- transformations with per-iterator state ---------------------------------------------------------------
    #
    # take_while, unique, scan and reduce keep their state in Python (a py_func), one state per iterator: the
    # pipeline is a flat_map over a one-element dataset whose element is a new state id each time an iterator
    # (re)starts, as `from_generator` does. Ending early is a py_func raising StopIteration in a map (OutOfRange
    # from a map function ends the dataset).

    def take_while(self, predicate, name=None):
        """The elements up to (not including) the first for which `predicate` (a scalar bool) is False."""
        del name
        fn = _StructuredFunction(predicate, self, "take_while")
        if (
            structure.is_sequence(fn.output_types)
            or fn.output_types != _dtypes.bool
            or not fn.output_shapes.is_compatible_with(tensor_shape.TensorShape([]))
        ):
            spec = structure.map_structure(lambda t, s: structure.TensorSpec(s, t), fn.output_types, fn.output_shapes)
            raise ValueError(
                "Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its return type is "
                f"{spec}."
            )
        from tensorweave._src.ops import script_ops

        def check(keep):
            if not keep:
                raise StopIteration
            return np.array(True)

        def body(*args):
            element = args[0] if len(args) == 1 else args
            keep = predicate(*args) if type(element) is tuple else predicate(element)
            ok = script_ops.py_func(check, [keep], _dtypes.bool, stateful=True)
            with ops.control_dependencies([ok]):
                return structure.map_structure(lambda t: array_ops.identity(t), structure.normalize_element(element))

        return self._map_preserving(body)

    def _map_preserving(self, body):
        """`map(body)` with the output structure (types and static shapes) of this dataset."""
        ds = self.map(body)
        return self._copy(ds._variant_tensor, (ds,))

    def unique(self, name=None):
        """The elements without repeats (the first of each), for scalar int32/int64/string elements."""
        del name
        t = self._output_types
        for ty in structure.flatten(t):
            if ty not in (_dtypes.int32, _dtypes.int64, _dtypes.string):
                raise TypeError(
                    f"`tf.data.Dataset.unique` does not support type <dtype: {ty.name!r}> -- only `tf.int32`, `tf.int64`, and "
                    "`tf.string` are supported."
                )
        if structure.is_sequence(t) or self._output_shapes.rank not in (None, 0):
            raise TypeError(f"`tf.data.Dataset.unique` supports only scalar elements, got {self.element_spec}.")
        from tensorweave._src.ops import script_ops

        states = _IteratorStates(lambda: set())

        def seen_before(state_id, value):
            seen = states.get(state_id)
            key = value.item() if isinstance(value, np.ndarray) else value
            if key in seen:
                return np.array(False)
            seen.add(key)
            return np.array(True)

        def make(state_id):
            return self.filter(lambda x: script_ops.py_func(seen_before, [state_id, x], _dtypes.bool, stateful=True))

        return _with_state(states, [], make)

    def scan(self, initial_state, scan_func, name=None):
        """The outputs of `scan_func(state, element) -> (new_state, output)`, the state starting at
        `initial_state` for each iterator."""
        del name
        return self._scan(initial_state, scan_func, "scan")[0]

    def reduce(self, initial_state, reduce_func, name=None):
        """The state after `reduce_func(state, element) -> new state` has seen every element, from
        `initial_state` (each run of it a full pass)."""
        del name
        return _single_element(self._scan(initial_state, reduce_func, "reduce")[0])

    def _scan(self, initial_state, func, what):
        if not callable(func):
            raise TypeError(f"`{what}_func` expects a callable, got {type(func).__name__}.")
        initial = structure.normalize_element(initial_state, name="initial_state")
        state_types = structure.leaf_types(initial)
        state_shapes = structure.leaf_shapes(initial)
        for _ in range(3):  # retraced with the state shapes relaxed where `func` changes them, as TF does
            dataset, new_shapes = self._scan_once(initial, state_types, state_shapes, func, what)
            relaxed = structure.map_structure(
                lambda a, b: a.most_specific_compatible_shape(b), state_shapes, new_shapes
            )
            if all(str(a) == str(b) for a, b in zip(structure.flatten(relaxed), structure.flatten(state_shapes))):
                break
            state_shapes = relaxed
        return dataset, state_types, state_shapes

    def _scan_once(self, initial, state_types, state_shapes, func, what):
        from tensorweave._src.ops import script_ops

        flat_types = structure.flatten(state_types)
        flat_shapes = structure.flatten(state_shapes)
        states = _IteratorStates(lambda *values: list(values))
        info = {}

        def read_state(state_id):
            flat = script_ops.py_func(lambda i: list(states.get(i)), [state_id], flat_types, stateful=True)
            flat = list(flat) if isinstance(flat, (list, tuple)) else [flat]
            for t, s in zip(flat, flat_shapes):
                t.set_shape(s)
            return structure.pack_sequence_as(state_types, flat)

        def write_state(i, *values):
            states.set(i, list(values))
            return np.array(True)

        def body(state_id, *args):
            state = read_state(state_id)
            ret = func(state, args[0] if len(args) == 1 else args)
            if what == "reduce":
                new_state, output = ret, None
            else:
                if not isinstance(ret, (tuple, list)) or len(ret) != 2:
                    raise TypeError(
                        "Invalid `scan_func`. `scan_func` should return a pair consisting of new state and the output "
                        f"value but its return type is {type(ret).__name__}."
                    )
                new_state, output = ret
            new_state = structure.normalize_element(new_state, name="new_state")
            if not structure.same_structure(state_types, new_state):
                raise TypeError(
                    f"Invalid `{what}_func`. The element structure of the new state {new_state} does not match the "
                    f"structure of the initial state {state_types}."
                )
            new_flat = structure.flatten(new_state)
            if any(t.dtype != d for t, d in zip(new_flat, flat_types)):
                raise TypeError(
                    f"Invalid `{what}_func`. The element types for the new state must match the initial state. "
                    f"Expected {state_types}; got {structure.leaf_types(new_state)}."
                )
            info["shapes"] = structure.pack_sequence_as(state_types, [t.get_shape() for t in new_flat])
            saved = script_ops.py_func(write_state, [state_id] + new_flat, _dtypes.bool, stateful=True)
            with ops.control_dependencies([saved]):
                if output is None:
                    return array_ops.identity(saved)
                return structure.map_structure(array_ops.identity, structure.normalize_element(output))

        def make(state_id):
            dataset = self.map(lambda *args: body(state_id, *args))
            if what == "reduce":  # drain the pass, then the last state
                drained = dataset.filter(lambda _: False).map(lambda _: read_state(state_id))
                return drained.concatenate(DatasetV1.from_tensors(state_id).map(read_state))
            return dataset

        dataset = _with_state(states, structure.flatten(initial), make)
        if "shapes" not in info:
            info["shapes"] = state_shapes
        return dataset, info["shapes"]

    def get_single_element(self, name=None):
        """The only element of this dataset (each run a new pass); InvalidArgumentError if it has none or more."""
        del name
        return _single_element(self)

    def as_numpy_iterator(self):
        """Eager only, as TensorFlow's: in graph mode a RuntimeError."""
        raise RuntimeError("`tf.data.Dataset.as_numpy_iterator()` is only supported in eager mode.")

    @staticmethod
    def counter(start=0, step=1, dtype=_dtypes.int64, name=None):
        """`start`, `start + step`, ... forever (tf.data.experimental.Counter)."""
        del name
        with ops.name_scope("counter"):
            start = ops.convert_to_tensor(start, dtype=dtype, name="start")
            step = ops.convert_to_tensor(step, dtype=dtype, name="step")
            from tensorweave._src.ops import math_ops

            return (
                DatasetV1.from_tensors(0)
                .repeat(None)
                .enumerate()
                .map(lambda i, _: start + math_ops.cast(i, dtype) * step)
            )

    def ignore_errors(self, log_warning=False, name=None):
        """The elements without those whose production failed (an error in an op or function of the pipeline
        before this point drops that element)."""
        return self._unary("IgnoreErrorsDataset", {}, name=name, log_warning=bool(log_warning))

    def cardinality(self):
        """An int64 scalar tensor: the number of elements, INFINITE_CARDINALITY (-1) or UNKNOWN_CARDINALITY
        (-2)."""
        return gen_ops.apply_op("DatasetCardinality", {"input_dataset": self._variant_tensor})

    # --- options -----------------------------------------------------------------------------------------------

    def options(self):
        """The options of this dataset (read-only): its inputs' merged in order, then those `with_options` gave it
        (a value set later wins, as TensorFlow's `Options.merge`)."""
        result = options_lib.Options()
        for dataset in self._inputs:
            result = result.merge(dataset.options())
        if self._own_options is not None:
            result = result.merge(self._own_options)
        result._set_mutable(False)
        return result

    def with_options(self, options, name=None):
        """This dataset with `options` (a `tf.data.Options`) merged over its own; see `tf.data.Options` for what
        tensorweave does with each."""
        del name
        if not isinstance(options, options_lib.Options):
            raise TypeError(f"`options` must be a `tf.data.Options`, got {type(options).__name__}.")
        dataset = self._copy(self._variant_tensor, (self,))
        dataset._own_options = options_lib.merge_options(options)  # a copy: later changes to `options` don't count
        return dataset

    def _finalized_variant(self):
        """The dataset handle an iterator reads: the threading options applied around the whole pipeline (as
        TensorFlow's dataset finalization: MaxIntraOpParallelismDataset, then PrivateThreadPoolDataset)."""
        threading = self.options().threading
        handle = self._variant_tensor
        steps = (
            ("MaxIntraOpParallelismDataset", "max_intra_op_parallelism", threading.max_intra_op_parallelism),
            ("PrivateThreadPoolDataset", "num_threads", threading.private_threadpool_size),
        )
        for op_type, arg, value in steps:
            if value is not None:
                handle = gen_ops.apply_op(op_type, {"input_dataset": handle, arg: _int64(value, arg), **self._attrs()})
        return handle

    # --- iterators ---------------------------------------------------------------------------------------------

    def make_one_shot_iterator(self):
        """An iterator that starts itself on its first `get_next()` and walks the dataset once (TF1's
        `make_one_shot_iterator`; it needs no initializer)."""
        from tensorweave._src.data import iterator_ops

        return iterator_ops.Iterator._one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator that its `initializer` (re)starts at the beginning of this dataset."""
        from tensorweave._src.data import iterator_ops

        return iterator_ops.Iterator._initializable(self, shared_name)


Dataset = DatasetV1


class _WindowDataset(DatasetV1):
    """The windows of `window`: each component a dataset. The elements travel as the windows' components batched
    (see `_Batched`); a function of a window gets one dataset per component."""

    _is_window = True

    def __init__(self, dataset, batched, input_dataset):
        super().__init__(
            dataset._variant_tensor, dataset._output_types, dataset._output_shapes, (dataset, input_dataset)
        )
        self._batched = batched
        self._specs = structure.map_structure(
            lambda t, s: structure.DatasetSpec(structure.TensorSpec(s, t)),
            input_dataset.output_types,
            input_dataset.output_shapes,
        )

    def _windows(self, flat):
        """The nest of datasets (one per component) that the representation `flat` stands for."""
        parts = self._batched.components(flat)
        datasets = [self._batched.component_dataset(p, c) for c, p in enumerate(parts)]
        return structure.pack_sequence_as(self._batched.element_types, datasets)

    @property
    def output_types(self):
        return self._specs

    @property
    def output_shapes(self):
        return self._specs

    @property
    def output_classes(self):
        return self._specs

    @property
    def element_spec(self):
        return self._specs


class _Batched:
    """How the elements of a window or group travel between ops: per component its values stacked (a leading
    dimension), and for a component of partly unknown shape, padded to the longest, with each element's shape (an
    int64 matrix) beside it."""

    def __init__(self, element_types, element_shapes):
        self.element_types = element_types
        self.flat_types = structure.flatten(element_types)
        self.flat_shapes = structure.flatten(element_shapes)
        self.ragged = [s.rank is not None and s.rank > 0 and not s.is_fully_defined() for s in self.flat_shapes]
        self.types, self.shapes = [], []
        for t, s, r in zip(self.flat_types, self.flat_shapes, self.ragged):
            self.types.append(t)
            self.shapes.append(
                tensor_shape.TensorShape([None] + [None] * s.rank if r else [None]).concatenate([] if r else s)
            )
            if r:
                self.types.append(_dtypes.int64)
                self.shapes.append(tensor_shape.TensorShape([None, s.rank]))

    def stack(self, elements):
        """The representation (numpy arrays) of `elements` (each a list of flat values)."""
        out = []
        for c, ragged in enumerate(self.ragged):
            values = [np.asarray(e[c]) for e in elements]
            if not ragged:
                try:
                    out.append(np.stack(values))
                except ValueError:
                    raise ValueError(
                        f"Cannot batch the elements of a window: component {c} has shapes "
                        f"{[v.shape for v in values]} where one shape was expected."
                    ) from None
                continue
            shapes = np.array([v.shape for v in values], dtype=np.int64).reshape(len(values), values[0].ndim)
            padded = np.zeros((len(values),) + tuple(shapes.max(axis=0)) if len(values) else (0,), values[0].dtype)
            if padded.dtype == object:
                padded[...] = b""
            for i, v in enumerate(values):
                padded[(i,) + tuple(slice(0, d) for d in v.shape)] = v
            out += [padded, shapes]
        return out

    def empty(self, flat):
        """An empty representation, shaped as the element `flat`."""
        return [a[:0] for a in self.stack([flat])]

    def set_shapes(self, tensors):
        tensors = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
        for t, s in zip(tensors, self.shapes):
            t.set_shape(s)
        return tuple(tensors)

    def components(self, tensors):
        """Per component, the (flat) tensors that represent it."""
        tensors, out, i = list(tensors), [], 0
        for ragged in self.ragged:
            out.append(tensors[i : i + (2 if ragged else 1)])
            i += 2 if ragged else 1
        return out

    def component_dataset(self, parts, c):
        """The dataset of component `c`'s values."""
        if not self.ragged[c]:
            return DatasetV1.from_tensor_slices(parts[0])
        shape = self.flat_shapes[c]

        def unpad(padded, size):
            value = array_ops.slice(padded, array_ops.zeros_like(size), size)
            value.set_shape(shape)
            return value

        return DatasetV1.from_tensor_slices(tuple(parts)).map(unpad)

    def dataset(self, tensors):
        """The dataset of the elements the representation `tensors` holds."""
        parts = self.components(tensors)
        if not any(self.ragged):
            return DatasetV1.from_tensor_slices(structure.pack_sequence_as(self.element_types, [p[0] for p in parts]))
        flat = [t for p in parts for t in p]

        def unpack(*xs):
            values, i = [], 0
            for c, ragged in enumerate(self.ragged):
                if ragged:
                    value = array_ops.slice(xs[i], array_ops.zeros_like(xs[i + 1]), xs[i + 1])
                    value.set_shape(self.flat_shapes[c])
                    i += 2
                else:
                    value = xs[i]
                    i += 1
                values.append(value)
            return structure.pack_sequence_as(self.element_types, values)

        return DatasetV1.from_tensor_slices(tuple(flat)).map(unpack)


def _directed_interleave(datasets, choice_dataset, stop_on_empty_dataset):
    """The elements of `datasets` in the order of the indices `choice_dataset` gives: each pass starts an iterator
    per input (its string handle an element of a one-element dataset), and each choice reads the next element of
    the chosen one."""
    from tensorweave._src.data import iterator_ops
    from tensorweave._src.ops import script_ops

    for d in datasets:
        if not isinstance(d, DatasetV1):
            raise TypeError(
                f"Invalid `datasets`. `datasets` must be a list of `tf.data.Dataset` objects, got {type(d)}."
            )
    first = datasets[0]
    for d in datasets[1:]:
        if not structure.same_structure(first.output_types, d.output_types) or first._flat_types() != d._flat_types():
            raise TypeError(
                f"Invalid `datasets`. `datasets` must have compatible element specs.\n Dataset 0 element_spec="
                f"{first.element_spec}.\nDataset with element_spec={d.element_spec} is not compatible."
            )
    shapes = first._flat_shapes()
    for d in datasets[1:]:
        shapes = [a.most_specific_compatible_shape(b) for a, b in zip(shapes, d._flat_shapes())]
    flat_types = first._flat_types()
    count = len(datasets)
    if not stop_on_empty_dataset:  # each input ends in a flag, False past its end

        def flagged(d):
            sentinel = tuple(_sentinel(t, s) for t, s in zip(flat_types, d._flat_shapes()))
            padding = DatasetV1.from_tensors((False, sentinel)).repeat()
            return d.map(lambda *e: (True, tuple(structure.flatten(e)))).concatenate(padding)

        inputs = [flagged(d) for d in datasets]
    else:
        inputs = [d.map(lambda *e: tuple(structure.flatten(e))) for d in datasets]
    inputs = [d._copy(d._variant_tensor, (d,)) for d in inputs]
    read_shapes = tuple(shapes) if stop_on_empty_dataset else (tensor_shape.TensorShape([]), tuple(shapes))
    states = _IteratorStates(lambda: set())

    def start(_):
        handles = []
        for d in inputs:
            it = iterator_ops.Iterator._initializable(d)
            with ops.control_dependencies([it.initializer]):
                handles.append(array_ops.identity(it.string_handle()))
        return array_ops.stack(handles)

    def check_exhausted(state_id, index, has_value):
        exhausted = states.get(state_id)
        if not has_value:
            exhausted.add(int(index))
            if len(exhausted) == count:
                raise StopIteration
        return np.array(bool(has_value))

    def make(state_id, handles):
        def pick(index):
            it = iterator_ops.Iterator.from_string_handle(
                array_ops.gather(handles, index), inputs[0].output_types, read_shapes
            )
            return it.get_next()

        if stop_on_empty_dataset:
            return choice_dataset.map(pick)

        def pick_flagged(index):
            has_value, element = pick(index)
            ok = script_ops.py_func(check_exhausted, [state_id, index, has_value], _dtypes.bool, stateful=True)
            ok.set_shape([])
            return ok, element

        return choice_dataset.map(pick_flagged).filter(lambda ok, _: ok).map(lambda _, e: e)

    passes = _with_state(states, [], lambda state_id: DatasetV1.from_tensors(state_id).map(lambda i: (i, start(i))))
    flat = passes.flat_map(make)

    def pack(*e):
        for t, s in zip(e, shapes):
            t.set_shape(s)
        return structure.pack_sequence_as(first.output_types, list(e))

    return flat.map(pack)


class _GroupState:
    """The groups of one `group_by_window` pass."""

    def __init__(self):
        self._groups = {}

    def push(self, key, size, flat):
        if size <= 0:
            raise ValueError(f"Window size must be greater than zero, but got {size}.")
        group = self._groups.setdefault(key, [])
        group.append(list(flat))
        if len(group) < size:
            return None
        del self._groups[key]
        return group

    def pop(self):
        if not self._groups:
            return None
        key = min(self._groups)
        group = self._groups.pop(key)
        return key, group


class _WindowState:
    """The sliding windows of one pass: the elements kept until their windows are complete."""

    def __init__(self, size, shift, stride, drop_remainder):
        size, shift, stride = int(size), int(shift), int(stride)
        for what, value in (("size", size), ("shift", shift), ("stride", stride)):
            if value <= 0:
                raise ValueError(f"Window {what} must be greater than zero, but got {value}.")
        self._size, self._shift, self._stride = size, shift, stride
        self._drop = bool(drop_remainder)
        self._elements = {}  # index -> flat values
        self._count = 0
        self._start = 0  # the first element of the next window

    def _take(self, last):
        indices = range(self._start, min(last, self._start + (self._size - 1) * self._stride) + 1, self._stride)
        window = [self._elements[i] for i in indices]
        self._start += self._shift
        for i in [i for i in self._elements if i < self._start]:
            del self._elements[i]
        return window

    def push(self, flat):
        index = self._count
        self._count += 1
        if index >= self._start:
            self._elements[index] = list(flat)
        if index == self._start + (self._size - 1) * self._stride:
            return self._take(index)
        return None

    def pop(self):
        """The next partial window after the last element, or None."""
        if self._drop or self._start >= self._count:
            return None
        return self._take(self._count - 1)


class _IteratorStates:
    """Python state per iterator pass, keyed by the id `_with_state` draws when a pass starts."""

    def __init__(self, init):
        self._init = init
        self._lock = threading.Lock()
        self._next_id = 0
        self._states = {}

    def new_id(self, *values):
        with self._lock:
            state_id = self._next_id
            self._next_id += 1
            self._states[state_id] = self._init(*values)
            for old in [k for k in self._states if k < state_id - 1024]:  # passes long abandoned
                del self._states[old]
        return np.array(state_id, dtype=np.int64)

    def release(self, state_id):
        with self._lock:
            self._states.pop(int(state_id), None)
        return np.array(True)

    def get(self, state_id):
        with self._lock:
            return self._states[int(state_id)]

    def set(self, state_id, value):
        with self._lock:
            self._states[int(state_id)] = value


def _with_state(states, init_tensors, make):
    """`make(state_id)` for a state id drawn (from `init_tensors`' values) each time an iterator starts."""
    from tensorweave._src.ops import script_ops

    ids = DatasetV1.from_tensors(np.int64(0)).map(
        lambda _: script_ops.py_func(states.new_id, list(init_tensors), _dtypes.int64, stateful=True)
    )

    def make_and_release(state_id):
        dataset = make(state_id)
        # at the end of the pass, its state is dropped (a pass left unfinished is dropped later, see new_id)
        released = DatasetV1.from_tensors(state_id).map(
            lambda i: script_ops.py_func(states.release, [i], _dtypes.bool, stateful=True)
        )
        return dataset.concatenate(released.filter(lambda done: False).flat_map(lambda _: dataset))

    return ids.flat_map(make_and_release)


def _sentinel(dtype, shape):
    dims = [0] * shape.rank if shape.rank is not None else []
    dims = [0 if d is None else d for d in (shape.as_list() if shape.rank is not None else [])] or dims
    value = np.zeros(dims, dtype=object if dtype == _dtypes.string else dtype.as_numpy_dtype)
    if dtype == _dtypes.string:
        value[...] = b""
    return ops.convert_to_tensor(value, dtype=dtype)


def _single_element(dataset):
    """The only element of `dataset`, read by a new pass at each run (an iterator that each run restarts)."""
    from tensorweave._src.data import iterator_ops
    from tensorweave._src.ops import logging_ops

    flat_types = dataset._flat_types()
    flat_shapes = dataset._flat_shapes()
    with ops.name_scope("get_single_element"):
        flagged = dataset.take(2).map(lambda *e: (True, e))
        padding = DatasetV1.from_tensors((False, tuple(_sentinel(t, s) for t, s in zip(flat_types, flat_shapes))))
        flagged = flagged.map(lambda f, e: (f, tuple(structure.flatten(e)))).concatenate(padding.repeat(2))
        iterator = iterator_ops.Iterator._initializable(flagged)
        with ops.control_dependencies([iterator.initializer]):
            first_flag, first = iterator.get_next()
        with ops.control_dependencies([first_flag.op]):
            second_flag, _ = iterator.get_next()
        from tensorweave._src.ops import math_ops

        checks = [
            logging_ops.Assert(first_flag, ["Dataset was empty."]),
            logging_ops.Assert(math_ops.logical_not(second_flag), ["Dataset had more than one element."]),
        ]
        with ops.control_dependencies(checks):
            flat = [array_ops.identity(t) for t in first]
        for t, s in zip(flat, flat_shapes):
            t.set_shape(s)
        return structure.pack_sequence_as(dataset.output_types, flat)


def _flatten_up_to(shallow, structure_):
    """The subtrees of `structure_` at the leaves of `shallow`, in flatten order (as TF's nest.flatten_up_to: the
    padded shape (5,) of a one-component dataset stays (5,), where flattening the mapped structure gave 5)."""
    out = []
    structure.map_structure_up_to(shallow, lambda _s, t: out.append(t), shallow, structure_)
    return out


def _padded_shape_to_tensor(padded_shape, input_shape):
    """(int64 vector tensor, static TensorShape) for one component's padded shape (-1: the batch's longest)."""
    if isinstance(padded_shape, ops.Tensor):
        t = ops.convert_to_tensor(padded_shape, dtype=_dtypes.int64)
        value = _const_value(t)
        static = (
            tensor_shape.TensorShape([None if d == -1 else int(d) for d in np.asarray(value).reshape(-1)])
            if value is not None
            else tensor_shape.unknown_shape(t.get_shape()[0].value if t.get_shape().rank == 1 else None)
        )
        if t.get_shape().rank is not None and t.get_shape().rank != 1:
            raise ValueError(
                f"Invalid `padded_shapes`. Padded shape {padded_shape} must be a 1-D tensor of `tf.int64` values, "
                f"but its shape was {t.get_shape()}."
            )
    else:
        try:
            static = tensor_shape.as_shape(padded_shape)
        except (TypeError, ValueError):
            # As TF: what is no TensorShape, such as [-1] (-1: pad to the longest), goes through a tensor.
            t = ops.convert_to_tensor(padded_shape, dtype=_dtypes.int64)
            return _padded_shape_to_tensor(t, input_shape)
        if static.rank is None:
            raise ValueError(
                f"Padded shape {padded_shape} must be a 1-D tensor of tf.int64 values, but it has unknown rank."
            )
        dims = [-1 if d is None else d for d in static.as_list()]
        t = ops.convert_to_tensor(np.asarray(dims, dtype=np.int64).reshape([len(dims)]), dtype=_dtypes.int64)
    if not _padded_shape_fits(static, input_shape):
        raise ValueError(
            f"The padded shape {static} is not compatible with the shape {input_shape} of the corresponding input "
            "component."
        )
    return t, static


def _padded_shape_fits(padded, input_shape):
    """TensorFlow's rule: the same rank, and no known padded dimension smaller than the input's."""
    if padded.rank is None or input_shape.rank is None:
        return True
    if padded.rank != input_shape.rank:
        return False
    return all(p is None or i is None or p >= i for p, i in zip(padded.as_list(), input_shape.as_list()))


def _padding_value_to_tensor(value, dtype):
    if value is None:
        value = b"" if dtype == _dtypes.string else np.zeros([], dtype.as_numpy_dtype)
        return ops.convert_to_tensor(value, dtype=dtype, name="padding_value")
    t = ops.convert_to_tensor(value, name="padding_value")
    if t.get_shape().rank is not None and t.get_shape().rank != 0:
        raise ValueError(
            f"Invalid `padding_values`. `padding_values` values should be scalars, but got {t.get_shape()}."
        )
    if t.dtype != dtype:
        raise TypeError(
            f"Invalid `padding_values`. `padding_values` values type {t.dtype!r} does not match type {dtype!r} of "
            "the corresponding input component."
        )
    return t


class _StructuredFunction:
    """A Python function of dataset elements traced into a function (the FN engineer's `function.trace`): what
    the op needs (`serialized`, `captured_inputs`) and the structure of what it returns."""

    def __init__(self, func, dataset, name, returns_dataset=False, batched_output=False):
        from tensorweave._src.data import function

        if not callable(func):
            raise TypeError(f"`{name}` expects a callable, got {type(func).__name__}.")
        input_types = dataset._output_types
        input_shapes = dataset._output_shapes
        input_classes = dataset._output_classes
        template = input_types
        is_window = getattr(dataset, "_is_window", False)
        self._output_structure = None
        self._dataset_structure = None

        def flat_fn(args):
            nested = structure.from_components(args, template, input_shapes, input_classes)
            if is_window:
                nested = dataset._windows(args)
            ret = func(*nested) if type(nested) is tuple else func(nested)
            if returns_dataset:
                if not isinstance(ret, DatasetV1):
                    raise TypeError(f"The `map_func` argument must return a `Dataset` object. Got {type(ret)}.")
                self._dataset_structure = (ret.output_types, ret.output_shapes)
                self._output_structure = _dtypes.string
                return [ret._variant_tensor]
            if isinstance(ret, list):
                warnings.warn(
                    "The `map_func` returned a list; tf.data converts it to a tuple (as TensorFlow does).", stacklevel=3
                )
                ret = tuple(ret)
            if isinstance(ret, DatasetV1):
                raise TypeError(f"`{name}`'s function returned a Dataset; use `flat_map` or `interleave` for that.")
            element = structure.normalize_element(ret, name="normalize_element") if ret is not None else None
            if element is None:
                raise TypeError(f"`{name}`'s function must return a value, got None.")
            self._output_structure = element
            return structure.to_components(element, batched=batched_output)

        traced = function.trace(
            flat_fn,
            structure.component_types(input_types, input_classes),
            structure.component_shapes(input_shapes, input_classes),
            name=f"{name}_fn",
        )
        self.serialized = traced.serialized
        self.captured_inputs = list(traced.captured_inputs)
        flat_types = [_dtypes.as_dtype(t) for t in traced.output_dtypes]
        flat_shapes = [tensor_shape.as_shape(s) for s in traced.output_shapes]
        self.output_classes = structure.classes_of(self._output_structure)
        for i, leaf in enumerate(structure.flatten(self._output_structure)):
            if structure.is_sparse(leaf):  # the serialized form's dtype and shape are not the element's
                flat_types[i], flat_shapes[i] = leaf.dtype, leaf.get_shape()
        self.output_types = structure.pack_sequence_as(self._output_structure, flat_types)
        self.output_shapes = structure.pack_sequence_as(self._output_structure, flat_shapes)
        if returns_dataset:
            self.dataset_types, self.dataset_shapes = self._dataset_structure


# --- from_generator --------------------------------------------------------------------------------------------


class _GeneratorState:
    """The generators of one `from_generator` dataset: one per iterator id."""

    def __init__(self, generator):
        self._generator = generator
        self._lock = threading.Lock()
        self._next_id = 0
        self._args = {}
        self._iterators = {}

    def get_next_id(self, *args):
        with self._lock:
            iterator_id = self._next_id
            self._next_id += 1
            self._args[iterator_id] = args
        return np.array(iterator_id, dtype=np.int64)

    def get_iterator(self, iterator_id):
        with self._lock:
            it = self._iterators.get(iterator_id)
            if it is not None:
                return it
            if iterator_id not in self._args:  # already exhausted
                return iter(())
            args = self._args.pop(iterator_id)
        it = iter(self._generator(*args))
        with self._lock:
            self._iterators[iterator_id] = it
        return it

    def completed(self, iterator_id):
        with self._lock:
            self._iterators.pop(iterator_id, None)


def _from_generator(generator, output_types, output_shapes, args, output_signature):
    if not callable(generator):
        raise TypeError("`generator` must be a Python callable.")
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError(
                "The `output_types` and `output_shapes` arguments cannot be used together with the "
                "`output_signature` argument."
            )
        output_types = structure.map_structure(lambda s: s.dtype, output_signature)
        output_shapes = structure.map_structure(lambda s: s.shape, output_signature)
    if output_types is None:
        raise TypeError("The `output_types` argument can not be None.")
    output_types = structure.types_from_structure(output_types)
    output_shapes = structure.shapes_from_structure(output_shapes, output_types)
    flat_types = structure.flatten(output_types)
    flat_shapes = structure.flatten(output_shapes)
    state = _GeneratorState(generator)
    from tensorweave._src.ops import script_ops

    arg_tensors = (
        []
        if args is None
        else [
            ops.convert_to_tensor(a, name=f"args_{i}")
            for i, a in enumerate(args if isinstance(args, (list, tuple)) else [args])
        ]
    )

    def get_iterator_id_fn(unused_dummy):
        del unused_dummy
        return script_ops.py_func(state.get_next_id, arg_tensors, _dtypes.int64, stateful=True)

    def generator_py_func(iterator_id):
        iterator_id = int(iterator_id)
        try:
            values = next(state.get_iterator(iterator_id))
        except StopIteration:
            state.completed(iterator_id)
            raise
        try:
            flat_values = structure.flatten(
                structure.map_structure_up_to(output_types, lambda _t, v: v, output_types, values)
            )
        except (TypeError, ValueError):
            raise TypeError(
                "`generator` yielded an element that did not match the expected structure. The expected structure "
                f"was {output_types}, but the yielded element was {values}."
            ) from None
        arrays = []
        for value, dtype, shape in zip(flat_values, flat_types, flat_shapes):
            try:
                array = structure.numpy_value(value, dtype)
            except (TypeError, ValueError):
                raise TypeError(
                    "`generator` yielded an element that could not be converted to the expected type. The expected "
                    f"type was {dtype.name}, but the yielded element was {value}."
                ) from None
            if not shape.is_compatible_with(tensor_shape.TensorShape(list(array.shape))):
                raise ValueError(
                    f"`generator` yielded an element of shape {tensor_shape.TensorShape(list(array.shape))} where an "
                    f"element of shape {shape} was expected."
                )
            arrays.append(array)
        return arrays

    def generator_next_fn(iterator_id_t):
        flat = script_ops.py_func(generator_py_func, [iterator_id_t], flat_types, stateful=True)
        for t, s in zip(flat, flat_shapes):
            t.set_shape(s)
        return structure.pack_sequence_as(output_types, flat)

    def flat_map_fn(iterator_id_t):
        return DatasetV1.from_tensors(iterator_id_t).repeat().map(generator_next_fn)

    id_dataset = DatasetV1.from_tensors(0).map(get_iterator_id_fn)
    return id_dataset.flat_map(flat_map_fn)


# --- file datasets ---------------------------------------------------------------------------------------------


def _filenames(filenames):
    t = ops.convert_to_tensor(filenames, dtype=_dtypes.string, name="filenames")
    if t.get_shape().rank is not None and t.get_shape().rank > 1:
        raise TypeError("`filenames` must be a `tf.Tensor` of dimension 0 or 1.")
    return array_ops.reshape(t, [-1], name="flat_filenames") if t.get_shape().rank != 1 else t


def _file_dataset(op_type, filenames, inputs, num_parallel_reads, make):
    """One file op over all `filenames`, or, with `num_parallel_reads`, one per file interleaved as TF does."""
    filenames = _filenames(filenames)
    if num_parallel_reads is None:
        return make(filenames)
    files = DatasetV1.from_tensor_slices(filenames)
    return files.interleave(
        lambda f: make(f), cycle_length=num_parallel_reads, block_length=1, num_parallel_calls=num_parallel_reads
    )


class _FileDataset(DatasetV1):
    def __init__(self, dataset):
        super().__init__(dataset._variant_tensor, dataset._output_types, dataset._output_shapes, (dataset,))


def _compression(compression_type):
    return ops.convert_to_tensor(
        "" if compression_type is None else compression_type, dtype=_dtypes.string, name="compression_type"
    )


class TFRecordDatasetV1(_FileDataset):
    """The records of TFRecord files, as string scalars (TF1's `tf.data.TFRecordDataset`)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        def make(f):
            handle = gen_ops.apply_op(
                "TFRecordDataset",
                {
                    "filenames": f,
                    "compression_type": _compression(compression_type),
                    "buffer_size": _int64(-1 if buffer_size is None else buffer_size, "buffer_size"),
                    "output_types": [_dtypes.string],
                    "output_shapes": [[]],
                    "name": name,
                },
            )
            return DatasetV1(handle, _dtypes.string, tensor_shape.TensorShape([]))

        super().__init__(_file_dataset("TFRecordDataset", filenames, None, num_parallel_reads, make))


class TextLineDatasetV1(_FileDataset):
    """The lines of text files, without their line ends, as string scalars."""

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        def make(f):
            handle = gen_ops.apply_op(
                "TextLineDataset",
                {
                    "filenames": f,
                    "compression_type": _compression(compression_type),
                    "buffer_size": _int64(-1 if buffer_size is None else buffer_size, "buffer_size"),
                    "output_types": [_dtypes.string],
                    "output_shapes": [[]],
                    "name": name,
                },
            )
            return DatasetV1(handle, _dtypes.string, tensor_shape.TensorShape([]))

        super().__init__(_file_dataset("TextLineDataset", filenames, None, num_parallel_reads, make))


class FixedLengthRecordDatasetV1(_FileDataset):
    """The fixed-length records of files (after `header_bytes`, before `footer_bytes`), as string scalars."""

    def __init__(
        self,
        filenames,
        record_bytes,
        header_bytes=None,
        footer_bytes=None,
        buffer_size=None,
        compression_type=None,
        num_parallel_reads=None,
        name=None,
    ):
        def make(f):
            handle = gen_ops.apply_op(
                "FixedLengthRecordDatasetV2",
                {
                    "filenames": f,
                    "header_bytes": _int64(0 if header_bytes is None else header_bytes, "header_bytes"),
                    "record_bytes": _int64(record_bytes, "record_bytes"),
                    "footer_bytes": _int64(0 if footer_bytes is None else footer_bytes, "footer_bytes"),
                    "buffer_size": _int64(-1 if buffer_size is None else buffer_size, "buffer_size"),
                    "compression_type": _compression(compression_type),
                    "output_types": [_dtypes.string],
                    "output_shapes": [[]],
                    "name": name,
                },
            )
            return DatasetV1(handle, _dtypes.string, tensor_shape.TensorShape([]))

        super().__init__(_file_dataset("FixedLengthRecordDatasetV2", filenames, None, num_parallel_reads, make))


def get_output_types(dataset_or_iterator):
    """The `output_types` of a dataset or iterator."""
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    """The `output_shapes` of a dataset or iterator."""
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    """The `output_classes` of a dataset or iterator."""
    return dataset_or_iterator.output_classes


def make_one_shot_iterator(dataset):
    """`dataset.make_one_shot_iterator()`."""
    return dataset.make_one_shot_iterator()


def make_initializable_iterator(dataset, shared_name=None):
    """`dataset.make_initializable_iterator(shared_name)`."""
    return dataset.make_initializable_iterator(shared_name)


def cardinality(dataset):
    """`dataset.cardinality()` (tf.data.experimental.cardinality)."""
    return dataset.cardinality()
