"""The LinearOperators built from other operators or from structure: Composition, Adjoint, Inversion,
Kronecker, BlockDiag, BlockLowerTriangular, LowRankUpdate, Householder, Permutation, Toeplitz, Tridiag, as
TensorFlow's `tensorflow/python/ops/linalg/linear_operator_*.py` (graph mode). The Circulant operators need
FFTs over complex tensors, which tensorweave lacks: they are not here."""

import numpy as np

import tensorweave as _tw
from tensorweave._src.ops import linalg_extra_ops as _extra
from tensorweave._src.ops.linear_operator import LinearOperator, _adjoint, _broadcast_batch, _dim


def _check_operators(operators, what="operators"):
    operators = list(operators) if operators is not None else []
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    dtype = operators[0].dtype
    for op in operators:
        if op.dtype != dtype:
            name_type = (f"{o.name}: {o.dtype}" for o in operators)
            raise TypeError(f"Expected all operators to have the same dtype.  Found {'   '.join(name_type)}")
    return operators


def _broadcast_batch_shapes(operators):
    batch = operators[0].batch_shape
    for op in operators[1:]:
        batch = _tw.broadcast_static_shape(batch, op.batch_shape)
    return batch


def _dynamic_batch_shape(operators):
    batch = operators[0].batch_shape_tensor()
    for op in operators[1:]:
        batch = _tw.broadcast_dynamic_shape(batch, op.batch_shape_tensor())
    return batch


def _to_batch(x, operator):
    return _broadcast_batch(x, operator.batch_shape_tensor(), operator.batch_shape)


class LinearOperatorComposition(LinearOperator):
    """A1 @ A2 @ ... @ An, applied factor by factor (solves and determinants factor when all are square).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a = tw.linalg.LinearOperatorDiag([2.0, 3.0])
      ...     op = tw.linalg.LinearOperatorComposition([a, a])
      ...     print(sess.run(op.diag_part()))
      [4. 9.]
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = {
            "operators": operators,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        operators = _check_operators(operators)
        self._operators = operators
        if all(op.is_non_singular for op in operators):
            if is_non_singular is False:
                raise ValueError("The composition of non-singular operators is always non-singular.")
            is_non_singular = True
        for left, right in zip(operators[:-1], operators[1:]):
            left.domain_dimension.assert_is_compatible_with(right.range_dimension)
        name = name or "_o_".join(op.name for op in operators)
        super().__init__(
            dtype=operators[0].dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        matrix = _tw.TensorShape([self._operators[0].range_dimension, self._operators[-1].domain_dimension])
        return _broadcast_batch_shapes(self._operators).concatenate(matrix)

    def _shape_tensor(self):
        return _tw.concat(
            [
                _dynamic_batch_shape(self._operators),
                [self._operators[0].range_dimension_tensor(), self._operators[-1].domain_dimension_tensor()],
            ],
            0,
        )

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        order = self._operators if adjoint else list(reversed(self._operators))
        result = order[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            result = op.matmul(result, adjoint=adjoint)
        return result

    def _all_square(self):
        return all(op.is_square for op in self._operators)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if not self._all_square():
            return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        order = list(reversed(self._operators)) if adjoint else self._operators
        result = order[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in order[1:]:
            result = op.solve(result, adjoint=adjoint)
        return result

    def _determinant(self):
        if not self._all_square():
            return super()._determinant()
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        if not self._all_square():
            return super()._log_abs_determinant()
        result = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            result = result + op.log_abs_determinant()
        return result

    def _to_dense(self):
        result = self._operators[-1].to_dense()
        for op in reversed(self._operators[:-1]):
            result = op.matmul(result)
        return result

    def _linop_inverse(self):
        if not self._all_square():
            return None
        return LinearOperatorComposition(
            [op.inverse() for op in reversed(self._operators)], is_non_singular=self.is_non_singular, is_square=True
        )


class LinearOperatorAdjoint(LinearOperator):
    """The adjoint (conjugate transpose) of an operator, applied through the operator's adjoint methods.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a = tw.linalg.LinearOperatorFullMatrix([[1.0, 2.0], [3.0, 4.0]])
      ...     print(sess.run(tw.linalg.LinearOperatorAdjoint(a).to_dense()))
      [[1. 3.]
       [2. 4.]]
    """

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = {
            "operator": operator,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        self._operator = operator

        def combined(hint, operator_hint, what):
            if operator_hint is not None and hint is not None and hint != operator_hint:
                raise ValueError(
                    f"An operator is {what} if and only if its adjoint is {what}."
                    f" Expected argument `is_{what.replace('-', '_')}` to be {operator_hint}."
                )
            return operator_hint if hint is None else hint

        is_non_singular = combined(is_non_singular, operator.is_non_singular, "non-singular")
        is_self_adjoint = combined(is_self_adjoint, operator.is_self_adjoint, "self-adjoint")
        is_positive_definite = combined(is_positive_definite, operator.is_positive_definite, "positive-definite")
        is_square = combined(is_square, operator._is_square_set_or_implied_by_hints, "square")
        super().__init__(
            dtype=operator.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name or operator.name + "_adjoint",
        )

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        shape = self._operator.shape
        return shape[:-2].concatenate([shape[-1], shape[-2]])

    def _shape_tensor(self):
        shape = self._operator.shape_tensor()
        return _tw.concat([shape[:-2], [shape[-1], shape[-2]]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return self._operator.determinant()

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _trace(self):
        return self._operator.trace()

    def _diag_part(self):
        return self._operator.diag_part()

    def _eigvals(self):
        return self._operator.eigvals()

    def _to_dense(self):
        return _adjoint(self._operator.to_dense())

    def _linop_adjoint(self):
        return self._operator


class LinearOperatorInversion(LinearOperator):
    """The inverse of a non-singular square operator: matmul is the operator's solve and solve its matmul.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a = tw.linalg.LinearOperatorDiag([2.0, 4.0])
      ...     print(sess.run(tw.linalg.LinearOperatorInversion(a).matvec([1.0, 1.0])))
      [0.5  0.25]
    """

    def __init__(
        self,
        operator,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = {
            "operator": operator,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(
                "Argument `is_non_singular` or argument `operator` must have supplied hint `is_non_singular` equal "
                f"to `True` or `None`. Found `operator.is_non_singular`: {operator.is_non_singular}, "
                f"`is_non_singular`: {is_non_singular}."
            )
        if operator.is_square is False or is_square is False:
            raise ValueError(
                "Argument `is_square` or argument `operator` must have supplied hint `is_square` equal to `True` "
                f"or `None`. Found `operator.is_square`: {operator.is_square}, `is_square`: {is_square}."
            )

        def combined(hint, operator_hint):
            return operator_hint if hint is None else hint

        super().__init__(
            dtype=operator.dtype,
            is_non_singular=combined(is_non_singular, operator.is_non_singular),
            is_self_adjoint=combined(is_self_adjoint, operator.is_self_adjoint),
            is_positive_definite=combined(is_positive_definite, operator.is_positive_definite),
            is_square=True,
            parameters=parameters,
            name=name or operator.name + "_inv",
        )

    @property
    def operator(self):
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self._operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self._operator.log_abs_determinant()

    def _linop_inverse(self):
        return self._operator


def _kron_dense(a, b):
    """The Kronecker product of [..., m, n] and [..., p, q] (batch dims broadcast): [..., m*p, n*q]."""
    product = a[..., :, None, :, None] * b[..., None, :, None, :]
    shape = _tw.shape(product)
    dense = _tw.reshape(product, _tw.concat([shape[:-4], [shape[-4] * shape[-3], shape[-2] * shape[-1]]], 0))
    static = product.shape
    if static.rank is not None:
        m, p, n, q = (_dim(d) for d in static[-4:])
        rows = None if m is None or p is None else m * p
        cols = None if n is None or q is None else n * q
        dense = (
            _tw.ensure_shape(dense, static[:-4].concatenate([rows, cols])) if static[:-4].is_fully_defined() else dense
        )
    return dense


def _kron_vectors(a, b):
    product = a[..., :, None] * b[..., None, :]
    shape = _tw.shape(product)
    return _tw.reshape(product, _tw.concat([shape[:-2], [shape[-2] * shape[-1]]], 0))


def _swap_last_two_batch_axes(x):
    """[..., a, b, k] -> [..., b, a, k]."""
    rank = x.shape.rank
    perm = list(range(rank - 3)) + [rank - 2, rank - 3, rank - 1]
    return _tw.transpose(x, perm)


def _kron_matmul(operators, x, adjoint):
    """(A (x) B) x applied factor by factor (Roth's column lemma): x [..., n*q, k] is viewed as [..., n, q, k];
    B acts on the q axis, then A on the n axis, each through its own matmul."""
    if len(operators) == 1:
        return operators[0].matmul(x, adjoint=adjoint)
    first, rest = operators[0], operators[1:]

    def in_dim(op):
        return op.range_dimension_tensor() if adjoint else op.domain_dimension_tensor()

    def out_dim(op):
        return op.domain_dimension_tensor() if adjoint else op.range_dimension_tensor()

    n, m = in_dim(first), out_dim(first)
    q, p = in_dim(rest[0]), out_dim(rest[0])
    for op in rest[1:]:
        q, p = q * in_dim(op), p * out_dim(op)
    shape = _tw.shape(x)
    batch, k = shape[:-2], shape[-1:]
    x = _tw.reshape(x, _tw.concat([batch, [n, q], k], 0))
    x = _tw.reshape(_swap_last_two_batch_axes(x), _tw.concat([batch, [q], n * k], 0))  # [..., q, n*k]
    y = _kron_matmul(rest, x, adjoint)  # [..., p, n*k]
    batch = _tw.shape(y)[:-2]
    y = _tw.reshape(y, _tw.concat([batch, [p, n], k], 0))
    y = _tw.reshape(_swap_last_two_batch_axes(y), _tw.concat([batch, [n], p * k], 0))  # [..., n, p*k]
    z = first.matmul(y, adjoint=adjoint)  # [..., m, p*k]
    batch = _tw.shape(z)[:-2]
    return _tw.reshape(z, _tw.concat([batch, [m * p], k], 0))


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product A1 (x) A2 (x) ... of operators: products and solves apply the factors one at a time
    (never forming the product), determinants, traces, diagonals, inverses and Cholesky factors come from the
    factors.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a = tw.linalg.LinearOperatorDiag([1.0, 2.0])
      ...     b = tw.linalg.LinearOperatorDiag([3.0, 4.0])
      ...     print(sess.run(tw.linalg.LinearOperatorKronecker([a, b]).diag_part()))
      [3. 4. 6. 8.]
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name=None,
    ):
        parameters = {
            "operators": operators,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        if not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. Received: {operators}.")
        operators = _check_operators(operators)
        self._operators = operators
        if all(op.is_non_singular for op in operators):
            if is_non_singular is False:
                raise ValueError(
                    "The Kronecker product of non-singular operators is always non-singular. Expected argument "
                    f"`is_non_singular` to be True. Received: {is_non_singular}."
                )
            is_non_singular = True
        if all(op.is_self_adjoint for op in operators):
            if is_self_adjoint is False:
                raise ValueError(
                    "The Kronecker product of self-adjoint operators is always self-adjoint. Expected argument "
                    f"`is_self_adjoint` to be True. Received: {is_self_adjoint}."
                )
            is_self_adjoint = True
        if all(op.is_positive_definite for op in operators):
            if is_positive_definite is False:
                raise ValueError(
                    "The Kronecker product of positive-definite operators is always positive-definite. Expected "
                    f"argument `is_positive_definite` to be True. Received: {is_positive_definite}."
                )
            is_positive_definite = True
        super().__init__(
            dtype=operators[0].dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name or "_x_".join(op.name for op in operators),
        )

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        rows, cols = 1, 1
        for op in self._operators:
            r, c = _dim(op.range_dimension), _dim(op.domain_dimension)
            rows = None if rows is None or r is None else rows * r
            cols = None if cols is None or c is None else cols * c
        return _broadcast_batch_shapes(self._operators).concatenate([rows, cols])

    def _shape_tensor(self):
        rows = self._operators[0].range_dimension_tensor()
        cols = self._operators[0].domain_dimension_tensor()
        for op in self._operators[1:]:
            rows = rows * op.range_dimension_tensor()
            cols = cols * op.domain_dimension_tensor()
        return _tw.concat([_dynamic_batch_shape(self._operators), [rows, cols]], 0)

    def _to_dense(self):
        result = self._operators[0].to_dense()
        for op in self._operators[1:]:
            result = _kron_dense(result, op.to_dense())
        return result

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        if x.shape.rank is None:
            return _tw.matmul(self.to_dense(), x, adjoint_a=adjoint)
        return _kron_matmul(self._operators, x, adjoint)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if not all(op.is_square for op in self._operators):
            return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        if rhs.shape.rank is None:
            return self._dense_solve(rhs, adjoint=adjoint)
        # (A1 (x) A2 ...)^-1 = A1^-1 (x) A2^-1 ...: each factor's own (structured) solve.
        return _kron_matmul([op.inverse() for op in self._operators], rhs, adjoint)

    def _total_dimension(self):
        n = self.domain_dimension_tensor()
        return _tw.cast(n, self.dtype)

    def _determinant(self):
        total = self._total_dimension()
        result = _tw.constant(1.0, self.dtype)
        for op in self._operators:
            result = result * op.determinant() ** (total / _tw.cast(op.domain_dimension_tensor(), self.dtype))
        return result

    def _log_abs_determinant(self):
        total = self._total_dimension()
        result = _tw.constant(0.0, self.dtype)
        for op in self._operators:
            result = result + op.log_abs_determinant() * (total / _tw.cast(op.domain_dimension_tensor(), self.dtype))
        return result

    def _trace(self):
        result = self._operators[0].trace()
        for op in self._operators[1:]:
            result = result * op.trace()
        return result

    def _diag_part(self):
        if not all(op.is_square for op in self._operators):
            return super()._diag_part()
        result = self._operators[0].diag_part()
        for op in self._operators[1:]:
            result = _kron_vectors(result, op.diag_part())
        return result

    def _eigvals(self):
        result = self._operators[0].eigvals()
        for op in self._operators[1:]:
            result = _kron_vectors(result, op.eigvals())
        return result

    def _linop_inverse(self):
        return LinearOperatorKronecker([op.inverse() for op in self._operators], is_non_singular=True, is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorKronecker([op.cholesky() for op in self._operators], is_non_singular=True, is_square=True)


def _split_sizes(dims):
    static = [_dim(d) for d in dims]
    return static


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal operator of square blocks: products, solves, determinants blockwise.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a = tw.linalg.LinearOperatorDiag([2.0])
      ...     b = tw.linalg.LinearOperatorFullMatrix([[1.0, 1.0], [0.0, 1.0]])
      ...     print(sess.run(tw.linalg.LinearOperatorBlockDiag([a, b]).to_dense()))
      [[2. 0. 0.]
       [0. 1. 1.]
       [0. 0. 1.]]
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name=None,
    ):
        parameters = {
            "operators": operators,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        operators = _check_operators(operators)
        self._operators = operators
        if all(op.is_non_singular for op in operators):
            if is_non_singular is False:
                raise ValueError("The direct sum of non-singular operators is always non-singular.")
            is_non_singular = True
        if all(op.is_self_adjoint for op in operators):
            if is_self_adjoint is False:
                raise ValueError("The direct sum of self-adjoint operators is always self-adjoint.")
            is_self_adjoint = True
        if all(op.is_positive_definite for op in operators):
            if is_positive_definite is False:
                raise ValueError("The direct sum of positive definite operators is always positive definite.")
            is_positive_definite = True
        for op in operators:
            for d in (op.range_dimension, op.domain_dimension):
                if _dim(d) is None:
                    raise ValueError(
                        f"LinearOperatorBlockDiag: the blocks' dimensions must be known at graph construction; "
                        f"{op.name} has shape {op.shape}"
                    )
        super().__init__(
            dtype=operators[0].dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name or "_ds_".join(op.name for op in operators),
        )

    @property
    def operators(self):
        return self._operators

    def _shape(self):
        rows = sum(_dim(op.range_dimension) for op in self._operators)
        cols = sum(_dim(op.domain_dimension) for op in self._operators)
        return _broadcast_batch_shapes(self._operators).concatenate([rows, cols])

    def _shape_tensor(self):
        return _tw.concat([_dynamic_batch_shape(self._operators), self.shape[-2:].as_list()], 0)

    def _blockwise(self, x, sizes, apply):
        pieces = _tw.split(x, sizes, axis=-2)
        results = [_to_batch(apply(op, piece), self) for op, piece in zip(self._operators, pieces)]
        # Broadcast every block's result to the common batch shape of the results.
        shapes = [r.shape for r in results]
        if all(s.is_fully_defined() for s in shapes):
            batch = shapes[0][:-2]
            for s in shapes[1:]:
                batch = _tw.broadcast_static_shape(batch, s[:-2])
            results = [
                r if r.shape[:-2] == batch else _tw.broadcast_to(r, batch.concatenate(r.shape[-2:])) for r in results
            ]
        else:
            batch = _tw.shape(results[0])[:-2]
            for r in results[1:]:
                batch = _tw.broadcast_dynamic_shape(batch, _tw.shape(r)[:-2])
            results = [_tw.broadcast_to(r, _tw.concat([batch, _tw.shape(r)[-2:]], 0)) for r in results]
        return _tw.concat(results, axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        dims = [op.range_dimension if adjoint else op.domain_dimension for op in self._operators]
        return self._blockwise(x, _split_sizes(dims), lambda op, piece: op.matmul(piece, adjoint=adjoint))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        dims = [op.domain_dimension if adjoint else op.range_dimension for op in self._operators]
        return self._blockwise(rhs, _split_sizes(dims), lambda op, piece: op.solve(piece, adjoint=adjoint))

    def _determinant(self):
        result = self._operators[0].determinant()
        for op in self._operators[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._operators[0].log_abs_determinant()
        for op in self._operators[1:]:
            result = result + op.log_abs_determinant()
        return result

    def _trace(self):
        if not all(op.is_square for op in self._operators):
            raise NotImplementedError("`trace` not implemented for an operator whose blocks are not square.")
        result = self._operators[0].trace()
        for op in self._operators[1:]:
            result = result + op.trace()
        return result

    def _concat_vectors(self, vectors):
        batch = self.batch_shape_tensor()
        return _tw.concat([_tw.broadcast_to(v, _tw.concat([batch, _tw.shape(v)[-1:]], 0)) for v in vectors], axis=-1)

    def _diag_part(self):
        if not all(op.is_square for op in self._operators):
            raise NotImplementedError("`diag_part` not implemented for an operator whose blocks are not square.")
        return self._concat_vectors([op.diag_part() for op in self._operators])

    def _eigvals(self):
        if not all(op.is_square for op in self._operators):
            raise NotImplementedError("`eigvals` not implemented for an operator whose blocks are not square.")
        return self._concat_vectors([op.eigvals() for op in self._operators])

    def _to_dense(self):
        batch = self.batch_shape_tensor()
        rows = []
        cols = [_dim(op.domain_dimension) for op in self._operators]
        for i, op in enumerate(self._operators):
            m = _dim(op.range_dimension)
            row = []
            for j, n in enumerate(cols):
                if i == j:
                    row.append(_to_batch(op.to_dense(), self))
                else:
                    row.append(_tw.zeros(_tw.concat([batch, [m, n]], 0), dtype=self.dtype))
            rows.append(_tw.concat(row, axis=-1))
        return _tw.concat(rows, axis=-2)

    def _linop_inverse(self):
        return LinearOperatorBlockDiag([op.inverse() for op in self._operators], is_non_singular=True)

    def _linop_cholesky(self):
        return LinearOperatorBlockDiag([op.cholesky() for op in self._operators], is_non_singular=True)

    def _linop_adjoint(self):
        return LinearOperatorBlockDiag([op.adjoint() for op in self._operators], is_square=self.is_square)


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """The block lower triangular operator [[A11], [A21, A22], ...] (row i holds i + 1 blocks): the
    determinant is the diagonal blocks'; products and solves use the dense matrix.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     a = tw.linalg.LinearOperatorDiag([2.0])
      ...     b = tw.linalg.LinearOperatorFullMatrix([[1.0]])
      ...     op = tw.linalg.LinearOperatorBlockLowerTriangular([[a], [b, a]])
      ...     print(sess.run(op.to_dense()))
      [[2. 0.]
       [1. 2.]]
    """

    def __init__(
        self,
        operators,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorBlockLowerTriangular",
    ):
        parameters = {
            "operators": operators,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        operators = [list(row) for row in operators] if operators else []
        if not operators:
            raise ValueError(f"Argument `operators` must be a list of >=1 operators. Received: {operators}.")
        self._operators = operators
        self._diagonal_operators = [row[-1] for row in operators]
        _check_operators([op for row in operators for op in row])
        for i, row in enumerate(operators):
            if len(row) != i + 1:
                raise ValueError(
                    f"Argument `operators[{i}]` must contain `{i + 1}` blocks. Received: {len(row)} blocks."
                )
        for i, row in enumerate(operators):
            for j, op in enumerate(row):
                if _dim(op.range_dimension) is None or _dim(op.domain_dimension) is None:
                    raise ValueError(
                        f"LinearOperatorBlockLowerTriangular: the blocks' dimensions must be known at graph "
                        f"construction; operators[{i}][{j}] has shape {op.shape}"
                    )
                if i > 0 and j < i:
                    above = operators[i - 1][j]
                    if _dim(op.domain_dimension) != _dim(above.domain_dimension):
                        raise ValueError(
                            f"Argument `operators[{i}][{j}].domain_dimension` ({op.domain_dimension}) must be the "
                            f"same as `operators[{i - 1}][{j}].domain_dimension` ({above.domain_dimension})."
                        )
                if j < i:
                    right = row[j + 1]
                    if _dim(op.range_dimension) != _dim(right.range_dimension):
                        raise ValueError(
                            f"Argument `operators[{i}][{j}].range_dimension` ({op.range_dimension}) must be the "
                            f"same as `operators[{i}][{j + 1}].range_dimension` ({right.range_dimension})."
                        )
        if all(op.is_non_singular for op in self._diagonal_operators):
            if is_non_singular is False:
                raise ValueError(
                    "A blockwise lower-triangular operator with non-singular operators on the main diagonal is "
                    f"always non-singular. Expected argument `is_non_singular` to be True. Received: {is_non_singular}."
                )
            is_non_singular = True
        super().__init__(
            dtype=operators[0][0].dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def operators(self):
        return self._operators

    def _all_operators(self):
        return [op for row in self._operators for op in row]

    def _shape(self):
        rows = sum(_dim(op.range_dimension) for op in self._diagonal_operators)
        cols = sum(_dim(op.domain_dimension) for op in self._diagonal_operators)
        return _broadcast_batch_shapes(self._all_operators()).concatenate([rows, cols])

    def _shape_tensor(self):
        return _tw.concat([_dynamic_batch_shape(self._all_operators()), self.shape[-2:].as_list()], 0)

    def _to_dense(self):
        batch = self.batch_shape_tensor()
        cols = [_dim(op.domain_dimension) for op in self._diagonal_operators]
        rows = []
        for i, row in enumerate(self._operators):
            m = _dim(self._diagonal_operators[i].range_dimension)
            blocks = [_to_batch(op.to_dense(), self) for op in row]
            blocks += [_tw.zeros(_tw.concat([batch, [m, n]], 0), dtype=self.dtype) for n in cols[i + 1 :]]
            rows.append(_tw.concat(blocks, axis=-1))
        return _tw.concat(rows, axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return _tw.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _determinant(self):
        result = self._diagonal_operators[0].determinant()
        for op in self._diagonal_operators[1:]:
            result = result * op.determinant()
        return result

    def _log_abs_determinant(self):
        result = self._diagonal_operators[0].log_abs_determinant()
        for op in self._diagonal_operators[1:]:
            result = result + op.log_abs_determinant()
        return result

    def _eigvals(self):
        batch = self.batch_shape_tensor()
        return _tw.concat(
            [
                _tw.broadcast_to(v, _tw.concat([batch, _tw.shape(v)[-1:]], 0))
                for v in (op.eigvals() for op in self._diagonal_operators)
            ],
            axis=-1,
        )


class LinearOperatorLowRankUpdate(LinearOperator):
    """A = L + U D V^H with L a square LinearOperator, U, V [..., M, K], D = diag(diag_update) (identity when
    None; V = U when None). Solves by the Woodbury identity, determinants by the matrix determinant lemma,
    both through the K x K capacitance C = D^-1 + V^H L^-1 U.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     base = tw.linalg.LinearOperatorDiag([1.0, 1.0], is_positive_definite=True)
      ...     op = tw.linalg.LinearOperatorLowRankUpdate(base, [[1.0], [1.0]])
      ...     print(round(float(sess.run(op.determinant())), 4))
      3.0
    """

    def __init__(
        self,
        base_operator,
        u,
        diag_update=None,
        v=None,
        is_diag_update_positive=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorLowRankUpdate",
    ):
        parameters = {
            "base_operator": base_operator,
            "u": u,
            "diag_update": diag_update,
            "v": v,
            "is_diag_update_positive": is_diag_update_positive,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        dtype = base_operator.dtype
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError(
                    "Default diagonal is the identity, which is positive.  However, "
                    "user set 'is_diag_update_positive' to False."
                )
            is_diag_update_positive = True
        self._use_cholesky = bool(
            base_operator.is_positive_definite
            and base_operator.is_self_adjoint
            and is_diag_update_positive
            and v is None
        )
        if base_operator.is_self_adjoint and v is None:
            if is_self_adjoint is False:
                raise ValueError(
                    "A = L + UDU^H, with L self-adjoint and D real diagonal.  Since"
                    " UDU^H is self-adjoint, this must be a self-adjoint operator."
                )
            is_self_adjoint = True
        if self._use_cholesky:
            if is_positive_definite is False or is_self_adjoint is False or is_non_singular is False:
                raise ValueError("Arguments imply this is self-adjoint positive-definite operator.")
            is_positive_definite = True
            is_self_adjoint = True
        with _tw.name_scope(name):
            self._u = _tw.convert_to_tensor(u, name="u")
            self._v = self._u if v is None else _tw.convert_to_tensor(v, name="v")
            self._diag_update = None if diag_update is None else _tw.convert_to_tensor(diag_update, name="diag_update")
            for arg, t in (("u", self._u), ("v", self._v), ("diag_update", self._diag_update)):
                if t is not None and t.dtype.base_dtype != dtype:
                    raise TypeError(f"Expected argument {arg} to have dtype {dtype}.  Found: {t.dtype} in tensor {t}")
            if self._u.shape.rank is not None and self._u.shape.rank < 2:
                raise ValueError(f"Argument u must have at least 2 dimensions.  Found: {self._u}")
            if self._v.shape.rank is not None and self._v.shape.rank < 2:
                raise ValueError(f"Argument v must have at least 2 dimensions.  Found: {self._v}")
            base_operator.range_dimension.assert_is_compatible_with(self._u.shape[-2])
            base_operator.domain_dimension.assert_is_compatible_with(self._v.shape[-2])
            self._u.shape[-1:].assert_is_compatible_with(self._v.shape[-1:])
            if self._diag_update is not None:
                self._diag_update.shape[-1:].assert_is_compatible_with(self._u.shape[-1:])
            self._base_operator = base_operator
            self._is_diag_update_positive = is_diag_update_positive
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )
        self._capacitance_cache = None

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def diag_update(self):
        return self._diag_update

    @property
    def base_operator(self):
        return self._base_operator

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    def _shape(self):
        batch = self._base_operator.batch_shape
        batch = _tw.broadcast_static_shape(batch, self._u.shape[:-2])
        batch = _tw.broadcast_static_shape(batch, self._v.shape[:-2])
        if self._diag_update is not None:
            batch = _tw.broadcast_static_shape(batch, self._diag_update.shape[:-1])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self):
        batch = self._base_operator.batch_shape_tensor()
        batch = _tw.broadcast_dynamic_shape(batch, _tw.shape(self._u)[:-2])
        batch = _tw.broadcast_dynamic_shape(batch, _tw.shape(self._v)[:-2])
        if self._diag_update is not None:
            batch = _tw.broadcast_dynamic_shape(batch, _tw.shape(self._diag_update)[:-1])
        return _tw.concat([batch, self._base_operator.shape_tensor()[-2:]], 0)

    def _scale_by_d(self, x):
        return x if self._diag_update is None else self._diag_update[..., None] * x

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        base_x = self._base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_x = _tw.matmul(v, x, adjoint_a=True, adjoint_b=adjoint_arg)
        return base_x + _tw.matmul(u, self._scale_by_d(vh_x))

    def _capacitance(self, adjoint=False):
        """C = D^-1 + V^H L^-1 U (for A^H: D^-1 + U^H L^-H V)."""
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        linv_u = self._base_operator.solve(u, adjoint=adjoint)
        vh_linv_u = _tw.matmul(v, linv_u, adjoint_a=True)
        if self._diag_update is None:
            k = _tw.shape(self._u)[-1]
            return vh_linv_u + _tw.eye(k, dtype=self.dtype)
        return _tw.matrix_set_diag(vh_linv_u, _tw.linalg.diag_part(vh_linv_u) + 1.0 / self._diag_update)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self._base_operator.is_non_singular is False:
            raise ValueError("Solve not implemented unless this is a perturbation of a non-singular LinearOperator.")
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        linv_rhs = self._base_operator.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = _tw.matmul(v, linv_rhs, adjoint_a=True)
        capacitance = self._capacitance(adjoint=adjoint)
        capacitance, vh_linv_rhs = self._broadcast_with(capacitance, vh_linv_rhs)
        if self._use_cholesky:
            c_inv = _tw.linalg.cholesky_solve(_tw.linalg.cholesky(capacitance), vh_linv_rhs)
        else:
            c_inv = _tw.matrix_solve(capacitance, vh_linv_rhs)
        return linv_rhs - self._base_operator.solve(_tw.matmul(u, c_inv), adjoint=adjoint)

    def _log_abs_det_d(self):
        if self._diag_update is None:
            return _tw.constant(0.0, self.dtype)
        return _tw.reduce_sum(_tw.log(_tw.abs(self._diag_update)), axis=-1)

    def _log_abs_determinant(self):
        capacitance = self._capacitance()
        if self._use_cholesky:
            chol = _tw.linalg.cholesky(capacitance)
            log_abs_det_c = 2.0 * _tw.reduce_sum(_tw.log(_tw.linalg.diag_part(chol)), axis=-1)
        else:
            _, log_abs_det_c = _tw.linalg.slogdet(capacitance)
        return log_abs_det_c + self._log_abs_det_d() + self._base_operator.log_abs_determinant()

    def _determinant(self):
        if self.is_positive_definite:
            return _tw.exp(self.log_abs_determinant())
        det_c = _tw.linalg.det(self._capacitance())
        det_d = 1.0 if self._diag_update is None else _tw.reduce_prod(self._diag_update, axis=-1)
        return det_c * det_d * self._base_operator.determinant()

    def _diag_part(self):
        uv = _tw.reduce_sum(self._u * self._scale_by_d_rows(self._v), axis=-1)
        return self._base_operator.diag_part() + uv

    def _scale_by_d_rows(self, v):
        return v if self._diag_update is None else v * self._diag_update[..., None, :]

    def _to_dense(self):
        update = _tw.matmul(self._scale_by_d_rows(self._u), self._v, adjoint_b=True)
        return self._base_operator.to_dense() + update


class LinearOperatorHouseholder(LinearOperator):
    """The Householder reflection I - 2 v v^H / (v^H v) about the hyperplane orthogonal to reflection_axis v.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorHouseholder([1.0, 0.0])
      ...     print(sess.run(op.matvec([3.0, 4.0])))
      [-3.  4.]
    """

    def __init__(
        self,
        reflection_axis,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorHouseholder",
    ):
        parameters = {
            "reflection_axis": reflection_axis,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        with _tw.name_scope(name):
            self._reflection_axis = _tw.convert_to_tensor(reflection_axis, name="reflection_axis")
            if self._reflection_axis.shape.ndims is not None and self._reflection_axis.shape.ndims < 1:
                raise ValueError(
                    f"Argument reflection_axis must have at least 1 dimension.  Found: {self._reflection_axis}"
                )
            if is_self_adjoint is False:
                raise ValueError("A Householder operator is always self adjoint.")
            is_self_adjoint = True
            if is_positive_definite is True:
                raise ValueError("A Householder operator is always non-positive definite.")
            is_positive_definite = False
            if is_square is False:
                raise ValueError("A Householder operator is always square.")
            is_square = True
        super().__init__(
            dtype=self._reflection_axis.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def reflection_axis(self):
        return self._reflection_axis

    def _shape(self):
        shape = self._reflection_axis.shape
        return shape.concatenate(shape[-1:])

    def _shape_tensor(self):
        shape = _tw.shape(self._reflection_axis)
        return _tw.concat([shape, shape[-1:]], 0)

    def _unit_axis(self):
        return _tw.nn.l2_normalize(self._reflection_axis, axis=-1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        axis = self._unit_axis()[..., None]
        return x - 2.0 * axis * _tw.matmul(axis, x, adjoint_a=True)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _determinant(self):
        return -_tw.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _log_abs_determinant(self):
        return _tw.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _trace(self):
        n = _tw.cast(self.domain_dimension_tensor(), self.dtype)
        return (n - 2.0) * _tw.ones(self.batch_shape_tensor(), dtype=self.dtype)

    def _diag_part(self):
        axis = self._unit_axis()
        return 1.0 - 2.0 * axis * axis

    def _to_dense(self):
        axis = self._unit_axis()[..., None]
        n = self.domain_dimension_tensor()
        return _tw.eye(n, dtype=self.dtype) - 2.0 * _tw.matmul(axis, axis, adjoint_b=True)

    def _eigvals(self):
        n = self.domain_dimension_tensor()
        ones = _tw.ones(_tw.concat([self.batch_shape_tensor(), [n - 1]], 0), dtype=self.dtype)
        return _tw.concat([-_tw.ones_like(ones[..., :1]), ones], axis=-1)

    def _assert_non_singular(self):
        return _tw.no_op("assert_non_singular")

    def _linop_inverse(self):
        return self


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P with (P x)[i] = x[perm[i]] ([..., N] integer perm).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorPermutation([1, 2, 0])
      ...     print(sess.run(op.matvec([10.0, 20.0, 30.0])))
      [20. 30. 10.]
    """

    def __init__(
        self,
        perm,
        dtype=None,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorPermutation",
    ):
        parameters = {
            "perm": perm,
            "dtype": dtype,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        with _tw.name_scope(name):
            self._perm = _tw.convert_to_tensor(perm, name="perm")
            if self._perm.shape.ndims is not None and self._perm.shape.ndims < 1:
                raise ValueError(f"Argument `perm` must have at least 1 dimension. Received: {self._perm}.")
            if not self._perm.dtype.is_integer:
                raise TypeError(f"Argument `perm` must be integer dtype. Received: {self._perm}.")
            static_perm = _tw.get_static_value(self._perm)
            if static_perm is not None:
                sorted_perm = np.sort(static_perm, axis=-1)
                if np.any(sorted_perm != np.arange(0, static_perm.shape[-1])):
                    raise ValueError(
                        f"Argument `perm` must be a vector of unique integers from 0 to {static_perm.shape[-1] - 1}."
                    )
            if is_non_singular is False:
                raise ValueError(
                    "A Permutation operator is always non-singular. Expected argument `is_non_singular` to be True. "
                    f"Received: {is_non_singular}."
                )
            if is_square is False:
                raise ValueError(
                    f"A Permutation operator is always square. Expected argument `is_square` to be True. "
                    f"Received: {is_square}."
                )
            is_square = True
        super().__init__(
            dtype=_tw.as_dtype(dtype or _tw.float32),
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        shape = self._perm.shape
        return shape.concatenate(shape[-1:])

    def _shape_tensor(self):
        shape = _tw.shape(self._perm)
        return _tw.concat([shape, shape[-1:]], 0)

    def _to_dense(self):
        return _tw.one_hot(self._perm, _tw.shape(self._perm)[-1], dtype=self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return _tw.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return _tw.linalg.det(self.to_dense())

    def _log_abs_determinant(self):
        return _tw.zeros(self.batch_shape_tensor(), dtype=self.dtype)

    def _diag_part(self):
        n = _tw.shape(self._perm)[-1]
        return _tw.cast(_tw.equal(self._perm, _tw.cast(_tw.range(n), self._perm.dtype)), self.dtype)

    def _linop_inverse(self):
        return LinearOperatorAdjoint(self, is_non_singular=True, is_square=True)


class LinearOperatorToeplitz(LinearOperator):
    """The square Toeplitz matrix with first column col and first row row ([..., N] each; row[0] is ignored,
    the diagonal is col[0]).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorToeplitz(col=[1.0, 2.0, 3.0], row=[1.0, 4.0, 5.0])
      ...     print(sess.run(op.to_dense()))
      [[1. 4. 5.]
       [2. 1. 4.]
       [3. 2. 1.]]
    """

    def __init__(
        self,
        col,
        row,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorToeplitz",
    ):
        parameters = {
            "col": col,
            "row": row,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        with _tw.name_scope(name):
            self._row = _tw.convert_to_tensor(row, name="row")
            self._col = _tw.convert_to_tensor(col, name="col", preferred_dtype=self._row.dtype)
            if self._row.dtype != self._col.dtype:
                raise TypeError(
                    f"Arguments row and col must have the same dtype, got {self._row.dtype} and {self._col.dtype}"
                )
            for arg, tensor in (("row", self._row), ("col", self._col)):
                if tensor.shape.ndims is not None and tensor.shape.ndims < 1:
                    raise ValueError(f"Argument {arg} must have at least 1 dimension.  Found: {tensor}")
            r, c = _dim(self._row.shape[-1]), _dim(self._col.shape[-1])
            if r is not None and c is not None and r != c:
                raise ValueError("Expected square matrix, got row and col with mismatched dimensions.")
            if is_square is False:
                raise ValueError("Only square Toeplitz operators currently supported.")
            is_square = True
        super().__init__(
            dtype=self._row.dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        batch = _tw.broadcast_static_shape(self._row.shape[:-1], self._col.shape[:-1])
        n = self._col.shape[-1:]
        return batch.concatenate(n).concatenate(n)

    def _shape_tensor(self):
        batch = _tw.broadcast_dynamic_shape(_tw.shape(self._row)[:-1], _tw.shape(self._col)[:-1])
        n = _tw.shape(self._col)[-1:]
        return _tw.concat([batch, n, n], 0)

    def _to_dense(self):
        # T[i, j] = col[i - j] for i >= j, row[j - i] otherwise: one gather from [reverse(row[1:]), col].
        n = _tw.shape(self._col)[-1]
        values = _tw.concat([_tw.reverse(self._row[..., 1:], axis=[-1]), self._col], axis=-1)
        batch = self.batch_shape_tensor()
        values = _tw.broadcast_to(values, _tw.concat([batch, [2 * n - 1]], 0))
        rng = _tw.range(n)
        index = rng[:, None] - rng[None, :] + (n - 1)
        return _tw.gather(values, index, axis=-1, batch_dims=0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return _tw.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        n = _tw.shape(self._col)[-1]
        return self._col[..., :1] * _tw.ones(_tw.concat([self.batch_shape_tensor(), [n]], 0), dtype=self.dtype)

    def _trace(self):
        return _tw.cast(_tw.shape(self._col)[-1], self.dtype) * self._col[..., 0]


class LinearOperatorTridiag(LinearOperator):
    """The square tridiagonal operator of diagonals in 'compact' ([..., 3, N]: super, main, sub), 'sequence'
    ([super, main, sub]) or 'matrix' ([..., N, N]) format: products and solves by the tridiagonal routines.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorTridiag([[1.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.0, 1.0, 1.0]])
      ...     print(sess.run(op.solvevec([3.0, 4.0, 3.0])))
      [1. 1. 1.]
    """

    _FORMATS = ("compact", "matrix", "sequence")

    def __init__(
        self,
        diagonals,
        diagonals_format="compact",
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=None,
        name="LinearOperatorTridiag",
    ):
        parameters = {
            "diagonals": diagonals,
            "diagonals_format": diagonals_format,
            "is_non_singular": is_non_singular,
            "is_self_adjoint": is_self_adjoint,
            "is_positive_definite": is_positive_definite,
            "is_square": is_square,
            "name": name,
        }
        with _tw.name_scope(name):
            if diagonals_format not in self._FORMATS:
                raise ValueError(
                    "Argument `diagonals_format` must be one of compact, matrix, or sequence. Received : "
                    f"{diagonals_format}."
                )
            if diagonals_format == "sequence":
                diagonals = [_tw.convert_to_tensor(d, name=f"diag_{i}") for i, d in enumerate(diagonals)]
                dtype = diagonals[0].dtype
                self._compact = _extra._sequence_to_compact(diagonals)
            elif diagonals_format == "matrix":
                diagonals = _tw.convert_to_tensor(diagonals, name="diagonals")
                dtype = diagonals.dtype
                self._compact = _extra._matrix_to_compact(diagonals)
            else:
                diagonals = _tw.convert_to_tensor(diagonals, name="diagonals")
                dtype = diagonals.dtype
                if diagonals.shape.rank is not None and diagonals.shape.rank < 2:
                    raise ValueError(f"Argument diagonals must have at least 2 dimensions.  Found: {diagonals}")
                if _dim(diagonals.shape[-2]) not in (None, 3):
                    raise ValueError(f"Expected 3 diagonals got {_dim(diagonals.shape[-2])}")
                self._compact = diagonals
            self._diagonals = diagonals
            self._diagonals_format = diagonals_format
            if is_square is False:
                raise ValueError("Only square tridiagonal operators are supported.")
            is_square = True
        super().__init__(
            dtype=dtype,
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._diagonals_format

    def _shape(self):
        shape = self._compact.shape
        return shape[:-2].concatenate([shape[-1], shape[-1]])

    def _shape_tensor(self):
        shape = _tw.shape(self._compact)
        return _tw.concat([shape[:-2], shape[-1:], shape[-1:]], 0)

    def _adjoint_compact(self):
        """The transposed matrix's diagonals: super'[i] = sub[i + 1], sub'[i] = super[i - 1]."""
        superdiag, maindiag, subdiag = self._compact[..., 0, :], self._compact[..., 1, :], self._compact[..., 2, :]
        lead = [[0, 0]] * (self._compact.shape.rank - 2)
        new_super = _tw.pad(subdiag[..., 1:], lead + [[0, 1]])
        new_sub = _tw.pad(superdiag[..., :-1], lead + [[1, 0]])
        return _tw.stack([new_super, maindiag, new_sub], axis=-2)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = _adjoint(x) if adjoint_arg else x
        compact = self._adjoint_compact() if adjoint else self._compact
        compact, x = self._broadcast_compact(compact, x)
        return _extra.tridiagonal_matmul(compact, x)

    def _broadcast_compact(self, compact, x):
        batch = _tw.broadcast_dynamic_shape(_tw.shape(compact)[:-2], _tw.shape(x)[:-2])
        if compact.shape.is_fully_defined() and x.shape.is_fully_defined():
            static = _tw.broadcast_static_shape(compact.shape[:-2], x.shape[:-2])
            if static == compact.shape[:-2] and static == x.shape[:-2]:
                return compact, x
        return (
            _tw.broadcast_to(compact, _tw.concat([batch, _tw.shape(compact)[-2:]], 0)),
            _tw.broadcast_to(x, _tw.concat([batch, _tw.shape(x)[-2:]], 0)),
        )

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = _adjoint(rhs) if adjoint_arg else rhs
        compact = self._adjoint_compact() if adjoint else self._compact
        compact, rhs = self._broadcast_compact(compact, rhs)
        return _extra.tridiagonal_solve(compact, rhs)

    def _diag_part(self):
        return self._compact[..., 1, :]

    def _trace(self):
        return _tw.reduce_sum(self._compact[..., 1, :], axis=-1)

    def _to_dense(self):
        return _extra._compact_to_dense(self._compact)
