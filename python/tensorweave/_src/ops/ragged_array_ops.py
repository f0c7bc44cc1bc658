"""TF1's tf.ragged.boolean_mask, tf.ragged.cross / cross_hashed and tf.sparse.cross / cross_hashed.

`boolean_mask` follows TensorFlow's ragged_array_ops.boolean_mask (ragged or dense data and mask, built from plain
ops); the crosses run the RaggedCross op (core/kernels/ragged_cross_ops.cc), whose hashing is TensorFlow's
(Fingerprint64 of strings, FingerprintCat64 from the hash key).
"""

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorweave._src.ops import gen_ops, gradients_impl
from tensorweave._src.ops.ragged_tensor import RaggedTensor, _tw, convert_to_tensor_or_ragged_tensor, is_ragged

gradients_impl.NotDifferentiable("RaggedCross")

_DEFAULT_CROSS_HASH_KEY = 0xDECAFCAFFE  # TensorFlow's default hash_key


def _splits_dtype(*values):
    """int64 when any RaggedTensor has int64 splits (the others are cast), else int32 when some are int32."""
    kinds = {v.row_splits.dtype for v in values if isinstance(v, RaggedTensor)}
    return dtypes.int64 if dtypes.int64 in kinds or not kinds else dtypes.int32


def _assert_splits_match(a_list, b_list):
    """Asserts (at run time) that the two lists of row splits are identical."""
    tw = _tw()
    checks = []
    for a, b in zip(a_list, b_list):
        a = tw.cast(a, dtypes.int64)
        b = tw.cast(b, dtypes.int64)
        n = tw.minimum(tw.size(a), tw.size(b))
        same = tw.logical_and(tw.equal(tw.size(a), tw.size(b)), tw.reduce_all(tw.equal(a[:n], b[:n])))
        checks.append(tw.Assert(same, ["Inputs must have identical ragged splits"], name="assert_splits_match"))
    return checks


def boolean_mask(data, mask, name=None):
    """The elements of `data` where `mask` is True, as TensorFlow's `tf.ragged.boolean_mask`: `mask`'s shape
    must be a prefix of `data`'s; the masked dimensions become ragged (a rank-1 mask over dense data gives a
    dense tensor, as `tf.boolean_mask`).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     rt = tw.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False, False, True]])
      ...     print(sess.run(rt).to_list())
      [[1, 3], [6]]
    """
    tw = _tw()
    with ops.get_default_graph().name_scope(name or "RaggedMask"):
        data = convert_to_tensor_or_ragged_tensor(data, name="data")
        mask = convert_to_tensor_or_ragged_tensor(mask, dtypes.bool, name="mask")
        if mask.dtype != dtypes.bool:
            raise TypeError(f"mask must have dtype bool, got {mask.dtype.name}")
        splits_dtype = _splits_dtype(data, mask)
        if is_ragged(data) and data.row_splits.dtype != splits_dtype:
            data = data.with_row_splits_dtype(splits_dtype)
        if is_ragged(mask) and mask.row_splits.dtype != splits_dtype:
            mask = mask.with_row_splits_dtype(splits_dtype)
        mask_rank = mask.shape.ndims
        if mask_rank is None:
            raise ValueError("mask.shape.ndims must be known statically.")
        if mask_rank == 0:
            raise ValueError("mask cannot be scalar.")

        if is_ragged(mask):
            if not is_ragged(data):
                data = RaggedTensor.from_tensor(data, ragged_rank=mask.ragged_rank, row_splits_dtype=splits_dtype)
            if data.ragged_rank < mask.ragged_rank:
                raise ValueError("The mask's ragged rank must not exceed the data's.")
            checks = _assert_splits_match(mask.nested_row_splits, data.nested_row_splits[: mask.ragged_rank])
            with ops.control_dependencies(checks):
                splits = []
                while is_ragged(mask):
                    if mask.shape.ndims > 2:
                        splits.append(tw.identity(mask.row_splits))
                    else:
                        # The kept values of each row: its count of True.
                        counts = tw.math.unsorted_segment_sum(
                            tw.cast(mask.values, splits_dtype), mask.value_rowids(), mask.nrows()
                        )
                        splits.append(tw.concat([tw.zeros([1], splits_dtype), tw.cumsum(counts)], axis=0))
                    mask = mask.values
                    data = data.values
                masked = boolean_mask(data, mask)
                return RaggedTensor.from_nested_row_splits(masked, splits, validate=False)

        if is_ragged(data) and mask_rank == 1:
            lengths = tw.boolean_mask(data.row_lengths(), mask)
            splits = tw.concat([tw.zeros([1], splits_dtype), tw.cumsum(tw.cast(lengths, splits_dtype))], axis=0)
            segment_mask = tw.gather(mask, data.value_rowids())
            values = boolean_mask(data.values, segment_mask)
            return RaggedTensor.from_row_splits(values, splits, validate=False)

        if is_ragged(data):
            mask = RaggedTensor.from_tensor(
                mask, ragged_rank=min(data.ragged_rank, mask_rank - 1), row_splits_dtype=splits_dtype
            )
            return boolean_mask(data, mask)

        values = tw.boolean_mask(data, mask)
        if mask_rank >= 2:
            lengths = tw.reshape(tw.math.count_nonzero(mask, axis=-1, dtype=splits_dtype), [-1])
            values = RaggedTensor.from_row_lengths(values, lengths, validate=False)
            if mask_rank > 2:
                mask_shape = tw.shape(mask, out_type=splits_dtype)
                split_size = tw.math.cumprod(mask_shape) + 1
                for dim in range(mask_rank - 3, -1, -1):
                    splits = tw.range(split_size[dim]) * mask_shape[dim + 1]
                    values = RaggedTensor.from_row_splits(values, splits, validate=False)
        return values


def _cross_inputs(inputs):
    """The RaggedCross arguments for a list of RaggedTensors, SparseTensors and dense matrices."""
    tw = _tw()
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    ragged, sparse, dense, order = [], [], [], []
    for i, t in enumerate(inputs):
        if isinstance(t, SparseTensorValue):
            t = SparseTensor.from_value(t)
        if not isinstance(t, (SparseTensor, RaggedTensor)):
            t = convert_to_tensor_or_ragged_tensor(t, name=f"inputs_{i}")
        dtype = t.dtype
        if dtype == dtypes.int32:
            if isinstance(t, SparseTensor):
                t = SparseTensor(t.indices, tw.cast(t.values, dtypes.int64), t.dense_shape)
            elif isinstance(t, RaggedTensor):
                t = t.with_flat_values(tw.cast(t.flat_values, dtypes.int64))
            else:
                t = tw.cast(t, dtypes.int64)
        elif dtype not in (dtypes.int64, dtypes.string):
            raise ValueError(f"Unexpected dtype for inputs[{i}]: {dtype}")
        if isinstance(t, RaggedTensor):
            if t.ragged_rank != 1:
                raise ValueError(f"tf.ragged.cross only supports inputs with rank=2; inputs[{i}] has ragged rank "
                                 f"{t.ragged_rank}")  # fmt: skip
            if t.flat_values.shape.ndims not in (None, 1):
                raise ValueError(f"tf.ragged.cross only supports inputs with rank=2 (inputs[{i}])")
            ragged.append(t)
            order.append("R")
        elif isinstance(t, SparseTensor):
            sparse.append(t)
            order.append("S")
        else:
            if t.shape.ndims not in (None, 2):
                raise ValueError(f"tf.ragged.cross only supports inputs with rank=2; inputs[{i}] has rank "
                                 f"{t.shape.ndims}")  # fmt: skip
            dense.append(t)
            order.append("D")
    splits_dtype = _splits_dtype(*ragged)
    ragged = [r.with_row_splits_dtype(splits_dtype) if r.row_splits.dtype != splits_dtype else r for r in ragged]
    return ragged, sparse, dense, "".join(order), splits_dtype


def _cross(inputs, hashed_output, num_buckets, hash_key, separator, name):
    ragged, sparse, dense, order, splits_dtype = _cross_inputs(inputs)
    if not order:
        raise ValueError("inputs must be a non-empty list")
    if num_buckets < 0:
        raise ValueError(f"num_buckets must be >= 0, got {num_buckets}")
    values, splits = gen_ops.apply_op(
        "RaggedCross",
        {
            "ragged_values": [r.values for r in ragged],
            "ragged_row_splits": [r.row_splits for r in ragged],
            "sparse_indices": [s.indices for s in sparse],
            "sparse_values": [s.values for s in sparse],
            "sparse_shape": [s.dense_shape for s in sparse],
            "dense_inputs": dense,
            "Nsparse": len(sparse),
            "input_order": order,
            "hashed_output": hashed_output,
            "num_buckets": num_buckets,
            "hash_key": hash_key,
            "ragged_values_types": [r.dtype for r in ragged],
            "ragged_splits_types": [splits_dtype] * len(ragged),
            "sparse_values_types": [s.dtype for s in sparse],
            "dense_types": [d.dtype for d in dense],
            "out_values_type": dtypes.int64 if hashed_output else dtypes.string,
            "out_row_splits_type": splits_dtype,
            "separator": separator,
            "name": name or "RaggedCross",
        },
    )
    return RaggedTensor.from_row_splits(values, splits, validate=False)


def cross(inputs, name=None):
    """The feature cross of `inputs` (RaggedTensors of ragged rank 1, SparseTensors or dense matrices, int64 or
    string, one row per example): row b holds every choice of one value from row b of each input, joined by
    "_X_" (the last input varying fastest), as TensorFlow's `tf.ragged.cross`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     rt = tw.ragged.cross([tw.ragged.constant([["a", "b"], ["c"]]), tw.constant([[1], [2]], tw.int64)])
      ...     print(sess.run(rt).to_list())
      [[b'a_X_1', b'b_X_1'], [b'c_X_2']]
    """
    return _cross(inputs, False, 0, 0, "_X_", name)


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """`cross`'s crosses hashed as TensorFlow's `tf.ragged.cross_hashed`: FingerprintCat64 from `hash_key` over
    each value's hash (Fingerprint64 of a string, an int64 as is), modulo `num_buckets` (0: modulo INT64_MAX)."""
    key = _DEFAULT_CROSS_HASH_KEY if hash_key is None else hash_key
    return _cross(inputs, True, int(num_buckets), int(key), "_X_", name)


def _to_sparse(rt):
    """A cross's RaggedTensor as TensorFlow's sparse cross gives it: [batch, longest row]."""
    tw = _tw()
    st = rt.to_sparse()
    return SparseTensor(st.indices, st.values, tw.cast(st.dense_shape, dtypes.int64))


def sparse_cross(inputs, name=None, separator=None):
    """The feature cross of `inputs` (SparseTensors or dense matrices) as a SparseTensor [batch, most crosses],
    TensorFlow's `tf.sparse.cross` (`separator` defaults to "_X_"; as TensorFlow, the SparseTensors come first in
    each cross, then the dense inputs).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     st = tw.sparse.cross([tw.constant([["a"], ["b"]]), tw.constant([[1, 2], [3, 4]], tw.int64)])
      ...     print(sess.run(st).values.tolist())
      [b'a_X_1', b'a_X_2', b'b_X_3', b'b_X_4']
    """
    inputs = _check_sparse_inputs(inputs)
    return _to_sparse(_cross(inputs, False, 0, 0, "_X_" if separator is None else separator, name or "SparseCross"))


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """`sparse_cross`'s crosses hashed as TensorFlow's `tf.sparse.cross_hashed` (see `ragged.cross_hashed`)."""
    inputs = _check_sparse_inputs(inputs)
    key = _DEFAULT_CROSS_HASH_KEY if hash_key is None else hash_key
    return _to_sparse(_cross(inputs, True, int(num_buckets), int(key), "_X_", name or "SparseCrossHashed"))


def _check_sparse_inputs(inputs):
    """The inputs of a sparse cross in TensorFlow's order: the SparseTensors, then the dense ones."""
    if not isinstance(inputs, (tuple, list)):
        raise TypeError("Inputs must be a list")
    for t in inputs:
        if isinstance(t, RaggedTensor):
            raise TypeError("Inputs must be SparseTensors or Tensors, got a RaggedTensor")
    is_sparse = [isinstance(t, (SparseTensor, SparseTensorValue)) for t in inputs]
    return [t for t, s in zip(inputs, is_sparse) if s] + [t for t, s in zip(inputs, is_sparse) if not s]
