"""tf.linalg.LinearOperator: the abstract base of the LinearOperator family, as TensorFlow's
`tensorflow/python/ops/linalg/linear_operator.py` (graph mode).

An operator is a batch of [M, N] matrices known by its action; subclasses supply `_shape`, `_matmul` (and the
structured methods they do better than the dense defaults: solves, determinants, diagonals). The public
methods check the hints and the shapes at graph construction (ValueError / NotImplementedError / TypeError as
TF) and open a name scope.
"""

import contextlib

import numpy as np

import tensorweave as _tw  # the public namespace; used only when a method runs (after package import)


def _dim(d):
    return _tw.dimension_value(d)


def _adjoint(x):
    return _tw.linalg.adjoint(x)


def _broadcast_batch(x, batch_shape_tensor, static_batch_shape):
    """x with its batch dims broadcast against the operator's batch shape (x's last two dims kept)."""
    if static_batch_shape.is_fully_defined() and x.shape.is_fully_defined():
        target = _tw.broadcast_static_shape(x.shape[:-2], static_batch_shape)
        if target == x.shape[:-2]:
            return x
        return _tw.broadcast_to(x, target.concatenate(x.shape[-2:]))
    shape = _tw.shape(x)
    target = _tw.broadcast_dynamic_shape(shape[:-2], batch_shape_tensor)
    return _tw.broadcast_to(x, _tw.concat([target, shape[-2:]], axis=0))


class LinearOperator:
    """Base class of linear operators [B1, ..., Bb, M, N] (abstract: instantiate a subclass).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
      ...     print(sess.run(op.matvec([1.0, 1.0])))
      [3. 7.]
    """

    def __init__(
        self,
        dtype,
        graph_parents=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
        parameters=None,
    ):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._is_square_set_or_implied_by_hints = is_square
        self._graph_parents = list(graph_parents or [])
        self._dtype = _tw.as_dtype(dtype).base_dtype if dtype else dtype
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._parameters = dict(parameters or {})
        self._name = name or type(self).__name__

    @contextlib.contextmanager
    def _name_scope(self, name=None):
        with _tw.name_scope(self.name):
            if name is None:
                yield
            else:
                with _tw.name_scope(name) as scope:
                    yield scope

    # ------------------------------------------------------------------------------------ properties
    @property
    def parameters(self):
        return dict(self._parameters)

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def graph_parents(self):
        return self._graph_parents

    @property
    def is_non_singular(self):
        return self._is_non_singular

    @property
    def is_self_adjoint(self):
        return self._is_self_adjoint

    @property
    def is_positive_definite(self):
        return self._is_positive_definite

    @property
    def is_square(self):
        auto_square_check = self.domain_dimension == self.range_dimension
        if self._is_square_set_or_implied_by_hints is False and auto_square_check:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_set_or_implied_by_hints is None:
            return auto_square_check
        return self._is_square_set_or_implied_by_hints

    def _shape(self):
        raise NotImplementedError("_shape is not implemented.")

    @property
    def shape(self):
        return _tw.TensorShape(self._shape())

    def _shape_tensor(self):
        raise NotImplementedError("_shape_tensor is not implemented.")

    def shape_tensor(self, name="shape_tensor"):
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return _tw.constant(self.shape.as_list(), dtype=_tw.int32, name="shape")
            return self._shape_tensor()

    @property
    def batch_shape(self):
        return self.shape[:-2]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return _tw.constant(self.batch_shape.as_list(), dtype=_tw.int32, name="batch_shape")
            return self.shape_tensor()[:-2]

    @property
    def tensor_rank(self):
        return self.shape.ndims

    def tensor_rank_tensor(self, name="tensor_rank_tensor"):
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return _tw.constant(self.tensor_rank, dtype=_tw.int32)
            return _tw.size(self.shape_tensor())

    @property
    def domain_dimension(self):
        if self.shape.rank is None:
            return _tw.Dimension(None)
        return self.shape.dims[-1]

    def domain_dimension_tensor(self, name="domain_dimension_tensor"):
        with self._name_scope(name):
            value = _dim(self.domain_dimension)
            if value is not None:
                return _tw.constant(value, dtype=_tw.int32)
            return self.shape_tensor()[-1]

    @property
    def range_dimension(self):
        if self.shape.dims:
            return self.shape.dims[-2]
        return _tw.Dimension(None)

    def range_dimension_tensor(self, name="range_dimension_tensor"):
        with self._name_scope(name):
            value = _dim(self.range_dimension)
            if value is not None:
                return _tw.constant(value, dtype=_tw.int32)
            return self.shape_tensor()[-2]

    # ------------------------------------------------------------------------------------ assertions
    def _can_use_cholesky(self):
        return self.is_self_adjoint and self.is_positive_definite

    def _max_condition_number_to_be_non_singular(self):
        with _tw.name_scope("max_nonsingular_condition_number"):
            dtype_eps = float(np.finfo(self.dtype.as_numpy_dtype).eps)
            size = _tw.cast(self.range_dimension_tensor(), self.dtype) * _tw.cast(
                self.domain_dimension_tensor(), self.dtype
            )
            eps = _tw.maximum(_tw.constant(100.0, self.dtype), size) * dtype_eps
            return 1.0 / eps

    def _assert_non_singular(self):
        if self._can_use_cholesky():
            return self.assert_positive_definite()
        singular_values = _tw.linalg.svd(self.to_dense(), compute_uv=False)
        cond = _tw.reduce_max(singular_values, axis=-1) / _tw.reduce_min(singular_values, axis=-1)
        return _tw.assert_less(
            cond,
            self._max_condition_number_to_be_non_singular(),
            message="Singular matrix up to precision epsilon.",
        )

    def assert_non_singular(self, name="assert_non_singular"):
        """An op raising InvalidArgumentError when run if the operator is singular (to precision eps)."""
        with self._name_scope(name):
            return self._assert_non_singular()

    def _assert_positive_definite(self):
        if self.is_self_adjoint:
            return _tw.assert_positive(
                _tw.linalg.diag_part(_tw.linalg.cholesky(self.to_dense())),
                message="Matrix was not positive definite.",
            )
        raise NotImplementedError("assert_positive_definite is not implemented.")

    def assert_positive_definite(self, name="assert_positive_definite"):
        with self._name_scope(name):
            return self._assert_positive_definite()

    def _assert_self_adjoint(self):
        dense = self.to_dense()
        return _tw.assert_equal(dense, _adjoint(dense), message="Matrix was not equal to its adjoint.")

    def assert_self_adjoint(self, name="assert_self_adjoint"):
        with self._name_scope(name):
            return self._assert_self_adjoint()

    def _check_input_dtype(self, arg):
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype}.  Found: {arg.dtype} in tensor {arg}")

    # ------------------------------------------------------------------------------------ actions
    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        raise NotImplementedError("_matmul is not implemented.")

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """self @ x (or adjoint(self) @ x; x adjointed first with adjoint_arg); x a Tensor or LinearOperator."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            if not right.range_dimension.is_compatible_with(left.domain_dimension):
                raise ValueError(
                    "Operators are incompatible. Expected `x` to have dimension"
                    f" {left.domain_dimension} but got {right.range_dimension}."
                )
            with self._name_scope(name):
                return _tw.linalg.LinearOperatorComposition([left, right])
        with self._name_scope(name):
            x = _tw.convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            arg_dim = -1 if adjoint_arg else -2
            if x.shape.rank is not None and x.shape.rank < 2:
                raise ValueError(f"matmul: `x` must have rank >= 2 (a matrix), got shape {x.shape}")
            self.shape.dims[self_dim].assert_is_compatible_with(x.shape[arg_dim])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def __matmul__(self, other):
        return self.matmul(other)

    def _matvec(self, x, adjoint=False):
        return _tw.squeeze(self.matmul(_tw.expand_dims(x, -1), adjoint=adjoint), -1)

    def matvec(self, x, adjoint=False, name="matvec"):
        """self @ x for vectors x [..., N]."""
        with self._name_scope(name):
            x = _tw.convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            self.shape.dims[self_dim].assert_is_compatible_with(x.shape[-1])
            return self._matvec(x, adjoint=adjoint)

    def _dense_solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        if self._can_use_cholesky():
            return _tw.linalg.cholesky_solve(_tw.linalg.cholesky(self.to_dense()), rhs)
        return _tw.matrix_solve(*self._broadcast_with(self.to_dense(), rhs), adjoint=adjoint)

    @staticmethod
    def _broadcast_with(matrix, rhs):
        """matrix and rhs with their batch dims broadcast together (MatrixSolve needs equal batch dims)."""
        if matrix.shape.is_fully_defined() and rhs.shape.is_fully_defined():
            batch = _tw.broadcast_static_shape(matrix.shape[:-2], rhs.shape[:-2])
            if batch != matrix.shape[:-2]:
                matrix = _tw.broadcast_to(matrix, batch.concatenate(matrix.shape[-2:]))
            if batch != rhs.shape[:-2]:
                rhs = _tw.broadcast_to(rhs, batch.concatenate(rhs.shape[-2:]))
            return matrix, rhs
        ms, rs = _tw.shape(matrix), _tw.shape(rhs)
        batch = _tw.broadcast_dynamic_shape(ms[:-2], rs[:-2])
        return (
            _tw.broadcast_to(matrix, _tw.concat([batch, ms[-2:]], 0)),
            _tw.broadcast_to(rhs, _tw.concat([batch, rs[-2:]], 0)),
        )

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _check_solvable(self):
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is expected to not be square.")

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """X with self @ X = rhs (adjoint(self) with adjoint=True; rhs adjointed first with adjoint_arg)."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            with self._name_scope(name):
                return _tw.linalg.LinearOperatorComposition([left.inverse(), right])
        with self._name_scope(name):
            rhs = _tw.convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            if rhs.shape.rank is not None and rhs.shape.rank < 2:
                raise ValueError(f"solve: `rhs` must have rank >= 2 (a matrix), got shape {rhs.shape}")
            self_dim = -1 if adjoint else -2
            arg_dim = -1 if adjoint_arg else -2
            self.shape.dims[self_dim].assert_is_compatible_with(rhs.shape[arg_dim])
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return _tw.squeeze(self.solve(_tw.expand_dims(rhs, -1), adjoint=adjoint), -1)

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """x with self @ x = rhs for vectors rhs [..., M]."""
        self._check_solvable()
        with self._name_scope(name):
            rhs = _tw.convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            self.shape.dims[self_dim].assert_is_compatible_with(rhs.shape[-1])
            return self._solvevec(rhs, adjoint=adjoint)

    # ------------------------------------------------------------------------------------ reductions
    def _determinant(self):
        if self._can_use_cholesky():
            return _tw.exp(self.log_abs_determinant())
        return _tw.linalg.det(self.to_dense())

    def determinant(self, name="det"):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be square.")
        with self._name_scope(name):
            return self._determinant()

    def _log_abs_determinant(self):
        if self._can_use_cholesky():
            diag = _tw.linalg.diag_part(_tw.linalg.cholesky(self.to_dense()))
            return 2.0 * _tw.reduce_sum(_tw.log(diag), axis=[-1])
        _, log_abs_det = _tw.linalg.slogdet(self.to_dense())
        return log_abs_det

    def log_abs_determinant(self, name="log_abs_det"):
        if self.is_square is False:
            raise NotImplementedError("Determinant not implemented for an operator that is expected to not be square.")
        with self._name_scope(name):
            return self._log_abs_determinant()

    def _to_dense(self):
        if self.batch_shape.is_fully_defined():
            batch_shape = self.batch_shape.as_list()
        else:
            batch_shape = self.batch_shape_tensor()
        n = _dim(self.domain_dimension)
        n = self.domain_dimension_tensor() if n is None else n
        return self.matmul(_tw.eye(n, batch_shape=batch_shape, dtype=self.dtype))

    def to_dense(self, name="to_dense"):
        """The dense [..., M, N] Tensor of the operator."""
        with self._name_scope(name):
            return self._to_dense()

    def _diag_part(self):
        return _tw.linalg.diag_part(self.to_dense())

    def diag_part(self, name="diag_part"):
        with self._name_scope(name):
            return self._diag_part()

    def _trace(self):
        return _tw.reduce_sum(self.diag_part(), axis=-1)

    def trace(self, name="trace"):
        with self._name_scope(name):
            return self._trace()

    def _add_to_tensor(self, x):
        return self.to_dense() + x

    def add_to_tensor(self, x, name="add_to_tensor"):
        """x + the dense operator."""
        with self._name_scope(name):
            x = _tw.convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _eigvals(self):
        return _tw.linalg.eigvalsh(self.to_dense())

    def eigvals(self, name="eigvals"):
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def _cond(self):
        if not self.is_self_adjoint:
            vals = _tw.linalg.svd(self.to_dense(), compute_uv=False)
        else:
            vals = _tw.abs(self._eigvals())
        return _tw.reduce_max(vals, axis=-1) / _tw.reduce_min(vals, axis=-1)

    def cond(self, name="cond"):
        with self._name_scope(name):
            return self._cond()

    # ------------------------------------------------------------------------------------ derived operators
    def _linop_inverse(self):
        return None

    def inverse(self, name="inverse"):
        """The inverse as a LinearOperator (a structured one where the class has it)."""
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular matrix.")
        with self._name_scope(name):
            structured = self._linop_inverse()
            if structured is not None:
                return structured
            return _tw.linalg.LinearOperatorInversion(self)

    def _linop_cholesky(self):
        return _tw.linalg.LinearOperatorLowerTriangular(
            _tw.linalg.cholesky(self.to_dense()), is_non_singular=True, is_self_adjoint=False, is_square=True
        )

    def cholesky(self, name="cholesky"):
        """The lower Cholesky factor as a LinearOperator (ValueError unless self-adjoint positive definite)."""
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite self adjoint matrix.")
        with self._name_scope(name):
            return self._linop_cholesky()

    def _linop_adjoint(self):
        return None

    def adjoint(self, name="adjoint"):
        """The adjoint (conjugate transpose) as a LinearOperator; self when self-adjoint."""
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            structured = self._linop_adjoint()
            if structured is not None:
                return structured
            return _tw.linalg.LinearOperatorAdjoint(self)

    H = property(adjoint, None)
