"""The LinearOperators held by one tensor (or by a size): FullMatrix, Diag, LowerTriangular, Identity,
ScaledIdentity and Zeros, as TensorFlow's `tensorflow/python/ops/linalg/linear_operator_*.py`."""

import numpy as np

import tensorweave as _tw
from tensorweave._src.ops.linear_operator import LinearOperator, _adjoint, _broadcast_batch, _dim

_FLOATS = ("float16", "float32", "float64", "bfloat16")


def _check_float_dtype(t, arg):
    if t.dtype.name not in _FLOATS:
        raise TypeError(f"Argument `{arg}` must have dtype in {list(_FLOATS)}. Received: {t.dtype}.")


class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a dense [..., M, N] matrix.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorFullMatrix([[4.0, 1.0], [1.0, 3.0]])
      ...     print(round(float(sess.run(op.determinant())), 4))
      11.0
    """

    def __init__(
        self,
        matrix,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorFullMatrix",
    ):
        parameters = {
            "matrix": matrix,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        with _tw.name_scope(name):
            self._matrix = _tw.convert_to_tensor(matrix, name="matrix")
            _check_float_dtype(self._matrix, "matrix")
            if self._matrix.shape.rank is not None and self._matrix.shape.rank < 2:
                raise ValueError(f"Argument `matrix` must have at least 2 dimensions. Received: {self._matrix}.")
        super().__init__(
            dtype=self._matrix.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _shape(self):
        return self._matrix.shape

    def _shape_tensor(self):
        return _tw.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return _tw.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """The square operator diag(d) of a [..., N] diagonal: products and solves are elementwise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorDiag([2.0, 4.0])
      ...     print(sess.run(op.solvevec([2.0, 2.0])))
      [1.  0.5]
    """

    def __init__(
        self,
        diag,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorDiag",
    ):
        parameters = {
            "diag": diag,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        with _tw.name_scope(name):
            self._diag = _tw.convert_to_tensor(diag, name="diag")
            _check_float_dtype(self._diag, "diag")
            if self._diag.shape.rank is not None and self._diag.shape.rank < 1:
                raise ValueError(f"Argument diag must have at least 1 dimension.  Found: {self._diag}")
            # Real diagonal operators are self-adjoint.
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
            if is_square is False:
                raise ValueError("Only square diagonal operators currently supported.")
            is_square = True
        super().__init__(
            dtype=self._diag.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def diag(self):
        return self._diag

    def _shape(self):
        d_shape = self._diag.shape
        return d_shape.concatenate(d_shape[-1:])

    def _shape_tensor(self):
        d_shape = _tw.shape(self._diag)
        return _tw.concat([d_shape, d_shape[-1:]], 0)

    def _assert_non_singular(self):
        return _tw.assert_none_equal(
            self._diag, _tw.zeros([], self.dtype), message="Singular operator:  Diagonal contained zero values."
        )

    def _assert_positive_definite(self):
        return _tw.assert_positive(
            self._diag, message="Non-positive real part of diagonal entries. Operator is not positive definite."
        )

    def _assert_self_adjoint(self):
        return _tw.no_op("assert_self_adjoint")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        return self._diag[..., None] * x

    def _matvec(self, x, adjoint=False):
        return self._diag * x

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        return rhs / self._diag[..., None]

    def _solvevec(self, rhs, adjoint=False):
        return rhs / self._diag

    def _determinant(self):
        return _tw.reduce_prod(self._diag, axis=[-1])

    def _log_abs_determinant(self):
        return _tw.reduce_sum(_tw.log(_tw.abs(self._diag)), axis=[-1])

    def _to_dense(self):
        return _tw.matrix_diag(self._diag)

    def _diag_part(self):
        return self._diag * _tw.ones_like(self._diag)

    def _trace(self):
        return _tw.reduce_sum(self._diag, axis=-1)

    def _add_to_tensor(self, x):
        return _tw.matrix_set_diag(x, _tw.linalg.diag_part(x) + self._diag)

    def _eigvals(self):
        return self._diag

    def _cond(self):
        abs_diag = _tw.abs(self._diag)
        return _tw.reduce_max(abs_diag, axis=-1) / _tw.reduce_min(abs_diag, axis=-1)

    def _linop_inverse(self):
        return LinearOperatorDiag(
            1.0 / self._diag,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorDiag(
            _tw.sqrt(self._diag), is_non_singular=True, is_self_adjoint=True, is_positive_definite=True, is_square=True
        )


class LinearOperatorLowerTriangular(LinearOperator):
    """The square operator of the lower triangle of [..., N, N] (the strict upper part is ignored): solves are
    triangular solves, the determinant is the diagonal's product.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorLowerTriangular([[2.0, 9.0], [1.0, 1.0]])
      ...     print(sess.run(op.to_dense()))
      [[2. 0.]
       [1. 1.]]
    """

    def __init__(
        self,
        tril,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowerTriangular",
    ):
        parameters = {
            "tril": tril,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this time.")
        is_square = True
        with _tw.name_scope(name):
            self._tril = _tw.convert_to_tensor(tril, name="tril")
            _check_float_dtype(self._tril, "tril")
            if self._tril.shape.rank is not None and self._tril.shape.rank < 2:
                raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: {self._tril}")
            self._tril = _tw.linalg.band_part(self._tril, -1, 0)
        super().__init__(
            dtype=self._tril.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return _tw.shape(self._tril)

    def _get_diag(self):
        return _tw.linalg.diag_part(self._tril)

    def _assert_non_singular(self):
        return _tw.assert_none_equal(
            self._get_diag(), _tw.zeros([], self.dtype), message="Singular operator:  Diagonal contained zero values."
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return _tw.matmul(self._tril, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        return _tw.reduce_prod(self._get_diag(), axis=[-1])

    def _log_abs_determinant(self):
        return _tw.reduce_sum(_tw.log(_tw.abs(self._get_diag())), axis=[-1])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        tril, rhs = self._broadcast_with(self._tril, rhs)
        return _tw.linalg.triangular_solve(tril, rhs, lower=True, adjoint=adjoint)

    def _to_dense(self):
        return self._tril

    def _eigvals(self):
        return self._get_diag()


def _check_num_rows(num_rows, arg="num_rows"):
    """num_rows as an int32/int64 scalar tensor and its static value, with TF's checks."""
    t = _tw.convert_to_tensor(num_rows, name=arg)
    if not t.dtype.is_integer:
        raise TypeError(f"Argument {arg} must be integer type.  Found: {t}")
    value = _tw.get_static_value(t)
    if t.shape.rank is not None and t.shape.rank != 0:
        raise ValueError(f"Argument {arg} must be a 0-D Tensor.  Found: {value if value is not None else t}")
    if value is not None and value < 0:
        raise ValueError(f"Argument {arg} must be non-negative.  Found: {value}")
    return t, (None if value is None else int(value))


def _check_batch_shape(batch_shape):
    if batch_shape is None:
        return None, None
    t = _tw.convert_to_tensor(batch_shape, name="batch_shape")
    if not t.dtype.is_integer:
        raise TypeError(f"Argument batch_shape must be integer type.  Found: {t}")
    value = _tw.get_static_value(t)
    if t.shape.rank is not None and t.shape.rank != 1:
        raise ValueError(f"Argument batch_shape must be a 1-D Tensor.  Found: {value if value is not None else t}")
    if value is not None and np.any(np.asarray(value) < 0):
        raise ValueError(f"Argument batch_shape must be non-negative.  Found:{value}")
    return t, (None if value is None else [int(v) for v in value])


class _BaseIdentity(LinearOperator):
    def _ones_diag(self):
        if self.shape.is_fully_defined():
            return _tw.ones(self.shape[:-1].as_list(), dtype=self.dtype)
        return _tw.ones(self.shape_tensor()[:-1], dtype=self.dtype)

    def _min_matrix_dim(self):
        return self._num_rows_static

    def _num_rows_value(self):
        return self._num_rows_static if self._num_rows_static is not None else self._num_rows


class LinearOperatorIdentity(_BaseIdentity):
    """The identity operator [batch_shape..., N, N]: matmul and solve return their argument (broadcast
    against batch_shape when there is one).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.LinearOperatorIdentity(2).to_dense()))
      [[1. 0.]
       [0. 1.]]
    """

    def __init__(
        self,
        num_rows,
        batch_shape=None,
        dtype=None,
        is_non_singular=True,
        is_self_adjoint=True,
        is_positive_definite=True,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorIdentity",
    ):
        parameters = {
            "num_rows": num_rows,
            "batch_shape": batch_shape,
            "dtype": dtype,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "assert_proper_shapes": assert_proper_shapes,
            "name": name,
        }
        dtype = dtype or _tw.float32
        self._assert_proper_shapes = assert_proper_shapes
        with _tw.name_scope(name):
            if not is_self_adjoint:
                raise ValueError("An identity operator is always self adjoint.")
            if not is_non_singular:
                raise ValueError("An identity operator is always non-singular.")
            if not is_positive_definite:
                raise ValueError("An identity operator is always positive-definite.")
            if not is_square:
                raise ValueError("An identity operator is always square.")
            self._num_rows, self._num_rows_static = _check_num_rows(num_rows)
            self._batch_shape_arg, self._batch_shape_static = _check_batch_shape(batch_shape)
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _shape(self):
        matrix_shape = _tw.TensorShape((self._num_rows_static, self._num_rows_static))
        if self._batch_shape_arg is None:
            return matrix_shape
        batch = _tw.TensorShape(self._batch_shape_static)
        if self._batch_shape_static is None:
            n = _dim(self._batch_shape_arg.shape[0])
            batch = _tw.TensorShape(None if n is None else [None] * n)
        return batch.concatenate(matrix_shape)

    def _shape_tensor(self):
        n = _tw.cast(self._num_rows, _tw.int32)
        matrix_shape = _tw.stack([n, n], axis=0)
        if self._batch_shape_arg is None:
            return matrix_shape
        return _tw.concat([_tw.cast(self._batch_shape_arg, _tw.int32), matrix_shape], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        if self._batch_shape_arg is None:
            return _tw.identity(x)
        return _broadcast_batch(x, self.batch_shape_tensor(), self.batch_shape)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return _tw.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return _tw.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _trace(self):
        n = _tw.cast(self._num_rows_value(), self.dtype)
        return n * _tw.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _diag_part(self):
        return self._ones_diag()

    def _to_dense(self):
        batch = None if self._batch_shape_arg is None else self.batch_shape_tensor()
        return _tw.eye(self._num_rows_value(), batch_shape=batch, dtype=self.dtype)

    def _add_to_tensor(self, x):
        return _tw.matrix_set_diag(x, _tw.linalg.diag_part(x) + self._ones_diag())

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return _tw.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _assert_non_singular(self):
        return _tw.no_op("assert_non_singular")

    def _assert_positive_definite(self):
        return _tw.no_op("assert_positive_definite")

    def _assert_self_adjoint(self):
        return _tw.no_op("assert_self_adjoint")

    def _linop_inverse(self):
        return self

    def _linop_cholesky(self):
        return self


class LinearOperatorScaledIdentity(_BaseIdentity):
    """multiplier * I, [multiplier.shape..., N, N].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorScaledIdentity(3, 2.0)
      ...     print(round(float(sess.run(op.log_abs_determinant())), 4))
      2.0794
    """

    def __init__(
        self,
        num_rows,
        multiplier,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorScaledIdentity",
    ):
        parameters = {
            "num_rows": num_rows,
            "multiplier": multiplier,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "assert_proper_shapes": assert_proper_shapes,
            "name": name,
        }
        self._assert_proper_shapes = assert_proper_shapes
        with _tw.name_scope(name):
            self._multiplier = _tw.convert_to_tensor(multiplier, name="multiplier")
            if not self._multiplier.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real diagonal operator is always self adjoint.")
                is_self_adjoint = True
            if not is_square:
                raise ValueError("A ScaledIdentity operator is always square.")
            self._num_rows, self._num_rows_static = _check_num_rows(num_rows)
        super().__init__(
            dtype=self._multiplier.dtype.base_dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def multiplier(self):
        return self._multiplier

    def _shape(self):
        return self._multiplier.shape.concatenate([self._num_rows_static, self._num_rows_static])

    def _shape_tensor(self):
        n = _tw.cast(self._num_rows, _tw.int32)
        return _tw.concat([_tw.shape(self._multiplier), _tw.stack([n, n])], 0)

    def _matrix_multiplier(self):
        return self._multiplier[..., None, None]

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        return x * self._matrix_multiplier()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        return rhs / self._matrix_multiplier()

    def _determinant(self):
        return self._multiplier ** _tw.cast(self._num_rows_value(), self.dtype)

    def _log_abs_determinant(self):
        return _tw.cast(self._num_rows_value(), self.dtype) * _tw.log(_tw.abs(self._multiplier))

    def _trace(self):
        return _tw.cast(self._num_rows_value(), self.dtype) * self._multiplier

    def _diag_part(self):
        return self._ones_diag() * self._multiplier[..., None]

    def _to_dense(self):
        return self._matrix_multiplier() * _tw.eye(self._num_rows_value(), dtype=self.dtype)

    def _add_to_tensor(self, x):
        return _tw.matrix_set_diag(x, _tw.linalg.diag_part(x) + self._diag_part())

    def _eigvals(self):
        return self._ones_diag() * self._multiplier[..., None]

    def _cond(self):
        return _tw.ones_like(self._multiplier)

    def _assert_non_singular(self):
        return _tw.assert_positive(_tw.abs(self._multiplier), message="LinearOperator was singular")

    def _assert_positive_definite(self):
        return _tw.assert_positive(self._multiplier, message="LinearOperator was not positive definite.")

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(
            self._num_rows,
            1.0 / self._multiplier,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=True,
            is_positive_definite=self.is_positive_definite,
            is_square=True,
        )

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(
            self._num_rows,
            _tw.sqrt(self._multiplier),
            is_non_singular=True,
            is_self_adjoint=True,
            is_positive_definite=True,
            is_square=True,
        )


class LinearOperatorZeros(_BaseIdentity):
    """The zero operator [batch_shape..., num_rows, num_columns] (num_columns defaults to num_rows).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorZeros(2, 3, is_square=False, is_self_adjoint=False)
      ...     print(sess.run(op.to_dense()))
      [[0. 0. 0.]
       [0. 0. 0.]]
    """

    def __init__(
        self,
        num_rows,
        num_columns=None,
        batch_shape=None,
        dtype=None,
        is_non_singular=False,
        is_self_adjoint=True,
        is_positive_definite=False,
        is_square=True,
        assert_proper_shapes=False,
        name="LinearOperatorZeros",
    ):
        parameters = {
            "num_rows": num_rows,
            "num_columns": num_columns,
            "batch_shape": batch_shape,
            "dtype": dtype,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "assert_proper_shapes": assert_proper_shapes,
            "name": name,
        }
        dtype = dtype or _tw.float32
        self._assert_proper_shapes = assert_proper_shapes
        with _tw.name_scope(name):
            if num_columns is None:
                num_columns = num_rows
            self._num_rows, self._num_rows_static = _check_num_rows(num_rows)
            self._num_columns, self._num_columns_static = _check_num_rows(num_columns, "num_columns")
            self._batch_shape_arg, self._batch_shape_static = _check_batch_shape(batch_shape)
            if not is_self_adjoint and is_square:
                raise ValueError("A zero operator is always self adjoint.")
            if is_non_singular:
                raise ValueError("A zero operator is always singular.")
            if is_positive_definite:
                raise ValueError("A zero operator is always not positive-definite.")
            if is_square:
                r, c = self._num_rows_static, self._num_columns_static
                if r is not None and c is not None and r != c:
                    raise ValueError(
                        f"LinearOperatorZeros initialized as is_square=True, but got num_rows({r}) != num_columns({c})"
                    )
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    def _shape(self):
        matrix_shape = _tw.TensorShape((self._num_rows_static, self._num_columns_static))
        if self._batch_shape_arg is None:
            return matrix_shape
        batch = _tw.TensorShape(self._batch_shape_static)
        if self._batch_shape_static is None:
            n = _dim(self._batch_shape_arg.shape[0])
            batch = _tw.TensorShape(None if n is None else [None] * n)
        return batch.concatenate(matrix_shape)

    def _shape_tensor(self):
        matrix_shape = _tw.stack([_tw.cast(self._num_rows, _tw.int32), _tw.cast(self._num_columns, _tw.int32)], 0)
        if self._batch_shape_arg is None:
            return matrix_shape
        return _tw.concat([_tw.cast(self._batch_shape_arg, _tw.int32), matrix_shape], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        zeros = _tw.zeros_like(x[..., :1, :1])
        rows = self.domain_dimension_tensor() if adjoint else self.range_dimension_tensor()
        x_shape = _tw.shape(x)
        out = _tw.concat([x_shape[:-2], [rows], x_shape[-1:]], 0)
        result = _tw.broadcast_to(zeros, out)
        if self._batch_shape_arg is not None:
            result = _broadcast_batch(result, self.batch_shape_tensor(), self.batch_shape)
        return result

    def _determinant(self):
        return _tw.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return _tw.fill(self.batch_shape_tensor(), _tw.constant(-np.inf, self.dtype))

    def _trace(self):
        return _tw.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _diag_part(self):
        n = _tw.minimum(self.range_dimension_tensor(), self.domain_dimension_tensor())
        return _tw.zeros(_tw.concat([self.batch_shape_tensor(), [n]], 0), dtype=self.dtype)

    def _to_dense(self):
        return _tw.zeros(self.shape_tensor(), dtype=self.dtype)

    def _add_to_tensor(self, x):
        return _tw.identity(x)

    def _eigvals(self):
        return self._diag_part()

    def _linop_adjoint(self):
        return LinearOperatorZeros(
            self._num_columns,
            self._num_rows,
            batch_shape=self._batch_shape_arg,
            dtype=self.dtype,
            is_square=self._is_square_set_or_implied_by_hints,
            is_self_adjoint=True if self._is_square_set_or_implied_by_hints else None,
            is_non_singular=False if self._is_square_set_or_implied_by_hints else None,
            is_positive_definite=False if self._is_square_set_or_implied_by_hints else None,
        )
