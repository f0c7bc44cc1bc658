"""TF1's TensorArray: a per-step array of tensors, written and read through ops ordered by a flow tensor.

Built on the TensorArrayV3 family of ops as TF1's `_GraphTensorArray` is: each method that changes the array
(write, scatter, unstack, split) returns a new `TensorArray` object with the same handle and a new flow, and the
ops that read take the flow they must follow. Inside `tw.while_loop` a TensorArray is carried as its flow.
"""

import contextlib

import numpy as np

from tensorweave._src.framework import dtypes, errors, ops, tensor_shape
from tensorweave._src.ops import array_ops, gen_ops, math_ops


def _check_dtypes(value, dtype):
    if value.dtype.base_dtype != dtype:  # TF1 raises InvalidArgumentError here, at graph build
        raise errors.InvalidArgumentError(
            None,
            None,
            f"TensorArray dtype is {dtype.name} but Op is trying to write dtype {value.dtype.base_dtype.name} ",
        )


class TensorArray:
    """A TensorArray of one dtype (TF1's `tf.TensorArray`).

    >>> import tensorweave as tw
    >>> ta = tw.TensorArray(tw.float32, size=2).write(0, [1.0, 2.0]).write(1, [3.0, 4.0])
    >>> with tw.Session() as sess:
    ...     print(sess.run(ta.stack()).tolist())
    [[1.0, 2.0], [3.0, 4.0]]
    """

    def __init__(
        self,
        dtype,
        size=None,
        dynamic_size=None,
        clear_after_read=None,
        tensor_array_name=None,
        handle=None,
        flow=None,
        infer_shape=True,
        element_shape=None,
        colocate_with_first_write_call=True,
        name=None,
    ):
        if handle is not None and size is not None:
            raise ValueError("Cannot provide both a handle and size at the same time")
        if handle is not None and element_shape is not None:
            raise ValueError("Cannot provide both a handle and element_shape at the same time")
        if handle is not None and dynamic_size is not None:
            raise ValueError("Cannot provide both a handle and dynamic_size at the same time")
        if handle is not None and clear_after_read is not None:
            raise ValueError("Cannot provide both a handle and clear_after_read at the same time")
        if clear_after_read is None:
            clear_after_read = True
        if handle is None and size is None:
            raise ValueError("Size must be provided if handle is not provided")
        self._dynamic_size = dynamic_size or False
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._colocate_with_first_write_call = colocate_with_first_write_call
        self._colocate_with = [] if colocate_with_first_write_call else None
        # The static shape of the elements, shared (as a one-element list) by every TensorArray object built
        # from this one, so that a write seen on one refines the others.
        if element_shape is None:
            self._infer_shape = infer_shape
            self._element_shape = []
        else:
            self._infer_shape = True
            self._element_shape = [tensor_shape.as_shape(element_shape)]
        self._size = None
        # The element shape the array's handle was made with (TF's handle shape data): what TF's
        # TensorArrayGatherV3 shape function reads, unknown for an array made from an existing handle.
        self._handle_shape = tensor_shape.unknown_shape()
        if handle is None and element_shape is not None:
            self._handle_shape = tensor_shape.as_shape(element_shape)
        with ops.name_scope(name, "TensorArray", [handle, size, flow]) as scope:
            if handle is not None:
                if flow is None:
                    raise ValueError("flow must not be None if handle is not None.")
                self._handle = handle
                self._flow = flow
            else:
                self._size = size
                size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
                self._handle, self._flow = gen_ops.tensor_array_v3(
                    size,
                    dtype=self._dtype,
                    element_shape=(
                        tensor_shape.unknown_shape() if element_shape is None else tensor_shape.as_shape(element_shape)
                    ),
                    identical_element_shapes=bool(infer_shape),
                    dynamic_size=self._dynamic_size,
                    clear_after_read=bool(clear_after_read),
                    tensor_array_name=tensor_array_name or "",
                    name=scope,
                )

    @property
    def flow(self):
        """The flow tensor: what the next op on the array must follow."""
        return self._flow

    @property
    def dtype(self):
        """The dtype of the elements."""
        return self._dtype

    @property
    def handle(self):
        """The tensor naming the array."""
        return self._handle

    @property
    def dynamic_size(self):
        """Whether writes past the end grow the array."""
        return self._dynamic_size

    @property
    def element_shape(self):
        """The static shape of the elements (as far as known)."""
        if self._element_shape:
            return self._element_shape[0]
        return tensor_shape.unknown_shape()

    def _merge_element_shape(self, shape):
        shape = tensor_shape.as_shape(shape)
        if self._element_shape:
            if not shape.is_compatible_with(self._element_shape[0]):
                raise ValueError(f"Inconsistent shapes: saw {shape} but expected {self._element_shape[0]} ")
            self._element_shape[0] = self._element_shape[0].merge_with(shape)
        else:
            self._element_shape.append(shape)

    def _check_element_shape(self, shape):
        if self._infer_shape:
            self._merge_element_shape(shape)

    @contextlib.contextmanager
    def _maybe_colocate_with(self, value):
        if not self._colocate_with_first_write_call:
            yield
            return
        if not self._colocate_with:
            self._colocate_with.append(value)
        with ops.colocate_with(self._colocate_with[0]):
            yield

    def identity(self):
        """A TensorArray whose flow is an identity of this one's (for control dependencies)."""
        return build_ta_with_new_flow(self, array_ops.identity(self._flow))

    def grad(self, source, flow=None, name=None):
        """The gradient TensorArray of this one for the gradient computation named `source`."""
        if flow is None:
            flow = self.flow
        with ops.name_scope(name, "TensorArrayGrad", [self._handle]), ops.colocate_with(self._handle):
            g_handle, _ = gen_ops.tensor_array_grad_v3(self._handle, flow, source=source, name=name)
            with ops.control_dependencies([g_handle]):
                flow = array_ops.identity(flow, name="gradient_flow")
            g = TensorArray(
                dtype=self._dtype,
                handle=g_handle,
                flow=flow,
                infer_shape=self._infer_shape,
                colocate_with_first_write_call=False,
            )
            g._element_shape = self._element_shape
            g._handle_shape = self._handle_shape
            return g

    def read(self, index, name=None):
        """The element at `index` (a scalar int32)."""
        index = ops.convert_to_tensor(index, dtype=dtypes.int32, name="index")
        value = gen_ops.tensor_array_read_v3(self._handle, index, self._flow, dtype=self._dtype, name=name)
        if self._element_shape:
            value.set_shape(self._element_shape[0])
        return value

    def write(self, index, value, name=None):
        """Writes `value` at `index`; returns the TensorArray to use afterwards."""
        with ops.name_scope(name, "TensorArrayWrite", [self._handle, index, value]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            if self._infer_shape:
                self._merge_element_shape(value.shape)
            index = ops.convert_to_tensor(index, dtype=dtypes.int32, name="index")
            with self._maybe_colocate_with(value):
                flow_out = gen_ops.tensor_array_write_v3(self._handle, index, value, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def stack(self, name=None):
        """All elements stacked along a new first dimension."""
        with ops.colocate_with(self._handle), ops.name_scope(name, "TensorArrayStack", [self._handle]):
            value = self.gather(array_ops.range(0, self.size()), name=name)
            if self.element_shape.dims is not None and not self._dynamic_size and self._size is not None:
                size = _constant_int(self._size)
                if size is not None:
                    value.set_shape(tensor_shape.TensorShape([size]).concatenate(self.element_shape))
            return value

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked along a new first dimension."""
        element_shape = self._element_shape[0] if self._element_shape else tensor_shape.unknown_shape()
        indices = ops.convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
        value = gen_ops.tensor_array_gather_v3(
            self._handle, indices, self._flow, dtype=self._dtype, element_shape=element_shape, name=name
        )
        # As TF: the indices' length followed by the handle's element shape, refined by the shape known now.
        count = indices.shape[0] if indices.shape.ndims == 1 else tensor_shape.Dimension(None)
        shape = tensor_shape.TensorShape([count]).concatenate(self._handle_shape)
        if self.element_shape.dims is not None:
            shape = shape.merge_with(tensor_shape.TensorShape([None]).concatenate(self.element_shape))
        _reset_shape(value, shape)
        return value

    def concat(self, name=None):
        """All elements concatenated along their first dimension."""
        shape = self.element_shape
        except0 = tensor_shape.unknown_shape() if shape.dims is None or not shape.dims else shape[1:]
        value, _ = gen_ops.tensor_array_concat_v3(
            self._handle, self._flow, dtype=self._dtype, element_shape_except0=except0, name=name
        )
        if shape.dims is not None and shape.dims:
            dim0 = None
            size = None if self._dynamic_size or self._size is None else _constant_int(self._size)
            if self._infer_shape and size is not None and shape[0].value is not None:
                dim0 = size * shape[0].value
            value.set_shape(tensor_shape.TensorShape([dim0]).concatenate(shape[1:]))
        return value

    def unstack(self, value, name=None):
        """Writes value[i] at index i for each row of `value`."""
        with ops.name_scope(name, "TensorArrayUnstack", [self._handle, value]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            num_elements = array_ops.shape(value)[0]
            return self.scatter(indices=array_ops.range(0, num_elements), value=value, name=name)

    def scatter(self, indices, value, name=None):
        """Writes value[i] at indices[i] for each i."""
        with ops.name_scope(name, "TensorArrayScatter", [self._handle, value, indices]):
            value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
            _check_dtypes(value, self._dtype)
            if value.shape.dims is not None:
                if not value.shape.dims:
                    raise ValueError(f"Shape must be at least rank 1 but is rank 0 for scatter of {value.name}")
                self._check_element_shape(value.shape[1:])
            indices = ops.convert_to_tensor(indices, dtype=dtypes.int32, name="indices")
            with self._maybe_colocate_with(value):
                flow_out = gen_ops.tensor_array_scatter_v3(self._handle, indices, value, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def split(self, value, lengths, name=None):
        """Splits `value` along its first dimension into pieces of `lengths` and writes piece i at index i."""
        with ops.name_scope(name, "TensorArraySplit", [self._handle, value, lengths]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            with self._maybe_colocate_with(value):
                clengths = _constant_array(lengths)
                lengths_64 = math_ops.cast(lengths, dtypes.int64)
                if (
                    value.shape.dims is not None
                    and clengths is not None
                    and clengths.shape
                    and clengths.size
                    and clengths.max() == clengths.min()
                ):
                    self._check_element_shape(tensor_shape.TensorShape([int(clengths[0])]).concatenate(value.shape[1:]))
                flow_out = gen_ops.tensor_array_split_v3(self._handle, value, lengths_64, self._flow, name=name)
            return build_ta_with_new_flow(self, flow_out)

    def size(self, name=None):
        """The number of elements (a constant when the size is fixed and known)."""
        if not self._dynamic_size and self._size is not None:
            return ops.convert_to_tensor(self._size, dtype=dtypes.int32)
        return gen_ops.tensor_array_size_v3(self._handle, self.flow, name=name)

    def close(self, name=None):
        """Closes the array (frees its elements); returns the op."""
        return gen_ops.tensor_array_close_v3(self._handle, name=name)


def _constant_array(value):
    if isinstance(value, ops.Tensor):
        from tensorweave._src.framework import misc_api

        v = misc_api.get_static_value(value)  # a Const, and sizes / shapes known statically (TF's constant_value)
        return None if v is None else np.asarray(v)
    try:
        return np.asarray(value)
    except (TypeError, ValueError):
        return None


def _constant_int(value):
    v = _constant_array(value)
    if v is None or v.shape != ():
        return None
    return int(v)


def _reset_shape(tensor, shape):
    """Gives `tensor` the static shape `shape`, which may know less than the op's shape function did."""
    tensor.op._graph._c.set_output_shape(tensor.op._id, tensor.value_index, tensor_shape.as_attr(shape))
    tensor._shape = shape


def build_ta_with_new_flow(old_ta, flow):
    """A TensorArray like `old_ta` (same handle, shared element shape) with `flow` as its flow."""
    new_ta = TensorArray(
        dtype=old_ta.dtype,
        handle=old_ta.handle,
        flow=flow,
        infer_shape=old_ta._infer_shape,
        colocate_with_first_write_call=old_ta._colocate_with_first_write_call,
    )
    new_ta._dynamic_size = old_ta._dynamic_size
    new_ta._size = old_ta._size
    new_ta._colocate_with = old_ta._colocate_with
    new_ta._element_shape = old_ta._element_shape
    new_ta._handle_shape = old_ta._handle_shape
    return new_ta
