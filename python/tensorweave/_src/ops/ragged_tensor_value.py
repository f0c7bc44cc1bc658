"""TF1's tf.ragged.RaggedTensorValue: the value Session.run fetches for a RaggedTensor (numpy values, or a
nested RaggedTensorValue, and numpy row splits), and what a ragged placeholder is fed."""

import numpy as np

from tensorweave._src.framework import dtypes


class RaggedTensorValue:
    """The fetched value of a RaggedTensor: numpy `values` (or a nested RaggedTensorValue) and `row_splits`.

    Example:
      >>> import numpy as np
      >>> from tensorweave._src.ops.ragged_tensor import RaggedTensorValue
      >>> RaggedTensorValue(np.array([1, 2, 3]), np.array([0, 2, 3])).to_list()
      [[1, 2], [3]]
    """

    def __init__(self, values, row_splits):
        if not (isinstance(row_splits, np.ndarray) and row_splits.dtype in (np.int32, np.int64)):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        self._values = values
        self._row_splits = row_splits

    values = property(lambda self: self._values)
    row_splits = property(lambda self: self._row_splits)
    row_splits_dtype = property(lambda self: dtypes.as_dtype(self._row_splits.dtype))

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RaggedTensorValue):
            v = v.values
        return v

    @property
    def nested_row_splits(self):
        out, v = [self._row_splits], self._values
        while isinstance(v, RaggedTensorValue):
            out.append(v.row_splits)
            v = v.values
        return tuple(out)

    @property
    def ragged_rank(self):
        v = self._values
        return v.ragged_rank + 1 if isinstance(v, RaggedTensorValue) else 1

    @property
    def shape(self):
        return (len(self._row_splits) - 1,) + (None,) * self.ragged_rank + tuple(self.flat_values.shape[1:])

    def to_list(self):
        """The rows as nested Python lists."""
        values = self._values.to_list() if isinstance(self._values, RaggedTensorValue) else self._values.tolist()
        s = self._row_splits
        return [values[s[i] : s[i + 1]] for i in range(len(s) - 1)]

    def __repr__(self):
        return f"tw.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"

    def __str__(self):
        return f"<tw.RaggedTensorValue {self.to_list()}>"
