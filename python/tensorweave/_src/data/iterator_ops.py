"""tf.data iterators in TensorFlow 1's graph API (`tf.compat.v1.data.Iterator`).

An iterator is state of the session (like a queue): `get_next()` is an op that, each time it runs, produces the
next element of the dataset the iterator was last started on, and fails with `OutOfRangeError` at the end. Kinds,
as in TF1:

* one-shot (`dataset.make_one_shot_iterator()`): starts itself on its first use, no initializer;
* initializable (`dataset.make_initializable_iterator()`): its `initializer` op (re)starts it, so a dataset built
  from placeholders can be fed anew;
* reinitializable (`Iterator.from_structure(types, shapes)`): `make_initializer(dataset)` gives an op that starts
  it on any dataset of that structure;
* feedable (`Iterator.from_string_handle(handle_placeholder, types, shapes)`): which iterator `get_next()` reads is
  chosen per step by feeding another iterator's `string_handle()`.

The initializer is put in no collection: run it yourself (TF1 does the same).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     x = tw.placeholder(tw.int32, [None])
  ...     it = tw.data.Dataset.from_tensor_slices(x).make_initializable_iterator()
  ...     nxt = it.get_next()
  ...     with tw.Session() as sess:
  ...         sess.run(it.initializer, {x: [7, 8]})
  ...         print(sess.run(nxt), sess.run(nxt))
  7 8
"""

from tensorweave._src.data import structure
from tensorweave._src.framework import dtypes as _dtypes
from tensorweave._src.framework import ops, tensor_shape
from tensorweave._src.ops import gen_ops


def _shape_attrs(shapes):
    return [tensor_shape.as_attr(s) for s in shapes]


def _classes_like(output_types, output_classes):
    if output_classes is None:
        return structure.dense_classes(output_types)
    return structure.map_structure_up_to(output_types, lambda _t, c: c, output_types, output_classes)


def _check_no_placeholder(variant):
    """A one-shot iterator builds its dataset once, by value: a placeholder it reads is TF's ValueError (the usual
    fix: an initializable iterator, fed when it is initialized)."""
    seen, stack = set(), [variant.op]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type in ("Placeholder", "PlaceholderV2"):
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) by value.")
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)


class Iterator:
    """The state of a walk through a dataset (TF1's `tf.data.Iterator`); see the module doc for its kinds."""

    def __init__(self, iterator_resource, initializer, output_types, output_shapes, output_classes=None):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._output_types = output_types
        self._output_shapes = output_shapes
        self._output_classes = _classes_like(output_types, output_classes)
        self._string_handle = gen_ops.apply_op("IteratorToStringHandle", {"resource_handle": iterator_resource})

    def _flat_attrs(self):
        return {
            "output_types": structure.component_types(self._output_types, self._output_classes),
            "output_shapes": _shape_attrs(structure.component_shapes(self._output_shapes, self._output_classes)),
        }

    # --- constructors ------------------------------------------------------------------------------------------

    @staticmethod
    def _one_shot(dataset):
        variant = dataset._finalized_variant()
        _check_no_placeholder(variant)
        resource = gen_ops.apply_op(
            "OneShotIterator",
            {
                "dataset": variant,
                "output_types": dataset._flat_types(),
                "output_shapes": _shape_attrs(dataset._flat_shapes()),
                "container": "",
                "shared_name": "",
            },
        )
        return Iterator(resource, None, dataset.output_types, dataset.output_shapes, dataset.output_classes)

    @staticmethod
    def _initializable(dataset, shared_name=None):
        resource = gen_ops.apply_op(
            "IteratorV2",
            {
                "shared_name": "" if shared_name is None else shared_name,
                "container": "",
                "output_types": dataset._flat_types(),
                "output_shapes": _shape_attrs(dataset._flat_shapes()),
            },
        )
        with ops.colocate_with(resource.op):
            initializer = gen_ops.apply_op(
                "MakeIterator", {"dataset": dataset._finalized_variant(), "iterator": resource}
            )
        return Iterator(resource, initializer, dataset.output_types, dataset.output_shapes, dataset.output_classes)

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None, output_classes=None):
        """A reinitializable iterator for elements of this structure: start it on a dataset with
        `make_initializer(dataset)`.

        Args:
          output_types: the dtype of each component, nested as the elements are.
          output_shapes: (optional) the static shape of each component, nested as `output_types` (unknown when
            None).
          shared_name: (optional) a name under which sessions sharing the device (e.g. `tw.train.Server`) share
            the iterator.
          output_classes: (optional) the class of each component (`tw.Tensor`, the default, or
            `tw.SparseTensor`), nested as `output_types`.
        """
        output_types = structure.types_from_structure(output_types)
        output_shapes = structure.shapes_from_structure(output_shapes, output_types)
        classes = _classes_like(output_types, output_classes)
        resource = gen_ops.apply_op(
            "IteratorV2",
            {
                "shared_name": "" if shared_name is None else shared_name,
                "container": "",
                "output_types": structure.component_types(output_types, classes),
                "output_shapes": _shape_attrs(structure.component_shapes(output_shapes, classes)),
            },
        )
        return Iterator(resource, None, output_types, output_shapes, output_classes)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None, output_classes=None):
        """A feedable iterator: `get_next()` reads the iterator whose `string_handle()` value `string_handle` (a
        scalar string tensor, usually a placeholder) holds in that step."""
        output_types = structure.types_from_structure(output_types)
        output_shapes = structure.shapes_from_structure(output_shapes, output_types)
        string_handle = ops.convert_to_tensor(string_handle, dtype=_dtypes.string)
        classes = _classes_like(output_types, output_classes)
        resource = gen_ops.apply_op(
            "IteratorFromStringHandleV2",
            {
                "string_handle": string_handle,
                "output_types": structure.component_types(output_types, classes),
                "output_shapes": _shape_attrs(structure.component_shapes(output_shapes, classes)),
            },
        )
        return Iterator(resource, None, output_types, output_shapes, output_classes)

    # --- ops ---------------------------------------------------------------------------------------------------

    @property
    def initializer(self):
        """The op that (re)starts an initializable iterator on its dataset."""
        if self._initializer is not None:
            return self._initializer
        raise ValueError(
            "The iterator does not have an initializer. This means it was likely created using "
            "`tf.data.Dataset.make_one_shot_iterator()`. For an initializable iterator, use "
            "`tf.data.Dataset.make_initializable_iterator()` instead."
        )

    def make_initializer(self, dataset, name=None):
        """An op that (re)starts this iterator on `dataset`, whose structure, dtypes and shapes must fit the
        iterator's (TypeError/ValueError otherwise)."""
        from tensorweave._src.data import dataset_ops

        if not isinstance(dataset, dataset_ops.DatasetV1):
            raise TypeError(f"Argument `dataset` must be a `tf.data.Dataset`, got {type(dataset).__name__}.")
        structure.assert_same_structure(self._output_types, dataset.output_types)
        if structure.flatten(self._output_classes) != structure.flatten(dataset.output_classes):
            raise TypeError(
                f"Expected output classes {self._output_classes!r} but got dataset with output classes "
                f"{dataset.output_classes!r}."
            )
        for a, b in zip(structure.flatten(self._output_types), structure.flatten(dataset.output_types)):
            if a != b:
                raise TypeError(
                    f"Expected output types {self._output_types!r} but got dataset with output types "
                    f"{dataset.output_types!r}."
                )
        for a, b in zip(structure.flatten(self._output_shapes), structure.flatten(dataset.output_shapes)):
            if not a.is_compatible_with(b):
                raise TypeError(
                    f"Expected output shapes compatible with {self._output_shapes!r} but got dataset with output "
                    f"shapes {dataset.output_shapes!r}."
                )
        with ops.name_scope(name, "make_initializer") as scope, ops.colocate_with(self._iterator_resource.op):
            return gen_ops.apply_op(
                "MakeIterator",
                {"dataset": dataset._finalized_variant(), "iterator": self._iterator_resource, "name": scope},
            )

    def get_next(self, name=None):
        """The next element (a nest of tensors shaped as `output_shapes`); each run of it advances the iterator.
        Past the end it fails with `OutOfRangeError`; before the iterator is initialized with
        `FailedPreconditionError`."""
        flat = gen_ops.apply_op(
            "IteratorGetNext", {"iterator": self._iterator_resource, **self._flat_attrs(), "name": name}
        )
        flat = list(flat) if isinstance(flat, (list, tuple)) else [flat]
        return structure.from_components(flat, self._output_types, self._output_shapes, self._output_classes)

    def get_next_as_optional(self, name=None):
        """The next element as a `tf.data.experimental.Optional` (empty past the end, no OutOfRangeError); each
        run that fetches its `has_value()` or `get_value()` advances the iterator once."""
        from tensorweave._src.data import experimental_ops

        flat = gen_ops.apply_op(
            "IteratorGetNextOrEnd",
            {"iterator": self._iterator_resource, **self._flat_attrs(), "name": name or "IteratorGetNextAsOptional"},
        )
        has_value, flat = flat[0], list(flat[1])  # components: a list output
        for t, s in zip(flat, structure.flatten(self._output_shapes)):
            t.set_shape(s)
        value = structure.pack_sequence_as(self._output_types, flat)
        return experimental_ops.Optional(has_value, value, self.element_spec)

    def string_handle(self, name=None):
        """A scalar string tensor naming this iterator, to feed to a `from_string_handle` iterator."""
        if name is None:
            return self._string_handle
        return gen_ops.apply_op("IteratorToStringHandle", {"resource_handle": self._iterator_resource, "name": name})

    # --- structure ---------------------------------------------------------------------------------------------

    @property
    def output_types(self):
        return self._output_types

    @property
    def output_shapes(self):
        return self._output_shapes

    @property
    def output_classes(self):
        return self._output_classes

    @property
    def element_spec(self):
        return structure.element_spec_of(self._output_types, self._output_shapes, self._output_classes)
