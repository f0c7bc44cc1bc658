"""tf.linalg's matrix functions and tridiagonal solvers (expm, sqrtm, tridiagonal_solve, tridiagonal_matmul,
eigh_tridiagonal), composed of existing ops as TensorFlow 1 composes them; their gradients follow from the
composition.

expm is TF's Pade approximation with scaling and squaring (Higham 2005), op for op. The tridiagonal solver
assembles the dense matrix and solves it by LU with partial pivoting (LAPACK gtsv's semantics); sqrtm is the
principal square root by the scaled Denman-Beavers iteration (TF uses a real Schur decomposition; both give
the principal root, for matrices without eigenvalues on the closed negative real axis).
"""

import numpy as np

import tensorweave as _tw  # the public namespace; used only when a function runs (after package import)


def _dim(d):
    return _tw.dimension_value(d)


# ---------------------------------------------------------------------------------------------- expm
def _eye_like(matrix):
    shape = _tw.shape(matrix)
    return _tw.eye(shape[-2], batch_shape=shape[:-2], dtype=matrix.dtype)


def _powers(matrix, count):
    """[A^2, A^4, A^6, A^8][:count]."""
    m2 = _tw.matmul(matrix, matrix)
    out = [m2]
    if count > 1:
        out.append(_tw.matmul(m2, m2))
    if count > 2:
        out.append(_tw.matmul(out[1], m2))
    if count > 3:
        out.append(_tw.matmul(out[2], m2))
    return out


def _pade(matrix, b):
    """U, V of the Pade approximant of order len(b) (3, 5, 7 or 9) with coefficients b, as TF."""
    b = [_tw.constant(x, matrix.dtype) for x in b]
    ident = _eye_like(matrix)
    powers = _powers(matrix, (len(b) - 1) // 2)
    tmp = powers[-1]
    for k in range(len(powers) - 2, -1, -1):
        tmp = tmp + b[2 * k + 3] * powers[k]
    tmp = tmp + b[1] * ident
    u = _tw.matmul(matrix, tmp)
    v = b[len(b) - 1] * powers[-1]
    for k in range(len(powers) - 2, -1, -1):
        v = v + b[2 * k + 2] * powers[k]
    v = v + b[0] * ident
    return u, v


_PADE3 = [120.0, 60.0, 12.0]
_PADE5 = [30240.0, 15120.0, 3360.0, 420.0, 30.0]
_PADE7 = [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0]
_PADE9 = [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0, 110880.0, 3960.0, 90.0]
_PADE13 = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
]


def _pade13(matrix):
    b = [_tw.constant(x, matrix.dtype) for x in _PADE13]
    ident = _eye_like(matrix)
    m2, m4, m6 = _powers(matrix, 3)
    tmp_u = _tw.matmul(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2 + b[1] * ident
    u = _tw.matmul(matrix, tmp_u)
    tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
    v = _tw.matmul(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
    return u, v


def matrix_exponential(input, name=None):
    """exp(A) of each square matrix in the last two dims: Pade approximation with scaling and squaring.

    float16/float32 use the order 3/5/7 approximants, float64 3/5/7/9/13 (TF's thresholds); a matrix with a
    non-finite entry gives NaNs. ValueError for other dtypes.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.expm([[0.0, 0.0], [0.0, 0.0]])))
      [[1. 0.]
       [0. 1.]]
    """
    with _tw.name_scope(name, "matrix_exponential", [input]):
        matrix = _tw.convert_to_tensor(input, name="input")
        if matrix.shape.rank is not None and matrix.shape.rank < 2:
            raise ValueError(f"tf.linalg.expm expects a tensor of rank >= 2, got shape {matrix.shape}")
        m, n = (_dim(d) for d in matrix.shape[-2:])
        if m is not None and n is not None and m != n:
            raise ValueError(f"tf.linalg.expm expects square matrices, got shape {matrix.shape}")
        if matrix.shape[-2:] == [0, 0]:
            return matrix
        batch_shape = matrix.shape[:-2]
        if not batch_shape.is_fully_defined():
            batch_shape = _tw.shape(matrix)[:-2]
        matrix = _tw.reshape(matrix, _tw.concat(([-1], _tw.shape(matrix)[-2:]), axis=0))
        l1_norm = _tw.reduce_max(_tw.reduce_sum(_tw.abs(matrix), axis=1), axis=-1)[..., None, None]

        def const(x):
            return _tw.constant(x, l1_norm.dtype)

        def nest_where(vals, cases):
            if len(vals) == 1:
                return _tw.where_v2(_tw.less(l1_norm, const(vals[0])), cases[0], cases[1])
            return _tw.where_v2(_tw.less(l1_norm, const(vals[0])), cases[0], nest_where(vals[1:], cases[1:]))

        if matrix.dtype in (_tw.float16, _tw.float32):
            maxnorm = const(3.925724783138660)
            squarings = _tw.maximum(_tw.floor(_tw.log(l1_norm / maxnorm) / _tw.log(const(2.0))), 0)
            u3, v3 = _pade(matrix, _PADE3)
            u5, v5 = _pade(matrix, _PADE5)
            u7, v7 = _pade(matrix / _tw.cast(_tw.pow(const(2.0), squarings), matrix.dtype), _PADE7)
            conds = (4.258730016922831e-001, 1.880152677804762e000)
            u = nest_where(conds, (u3, u5, u7))
            v = nest_where(conds, (v3, v5, v7))
        elif matrix.dtype == _tw.float64:
            maxnorm = const(5.371920351148152)
            squarings = _tw.maximum(_tw.floor(_tw.log(l1_norm / maxnorm) / _tw.log(const(2.0))), 0)
            u3, v3 = _pade(matrix, _PADE3)
            u5, v5 = _pade(matrix, _PADE5)
            u7, v7 = _pade(matrix, _PADE7)
            u9, v9 = _pade(matrix, _PADE9)
            u13, v13 = _pade13(matrix / _tw.cast(_tw.pow(const(2.0), squarings), matrix.dtype))
            conds = (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001, 2.097847961257068e000)
            u = nest_where(conds, (u3, u5, u7, u9, u13))
            v = nest_where(conds, (v3, v5, v7, v9, v13))
        else:
            raise ValueError(f"tf.linalg.expm does not support matrices of type {matrix.dtype}")

        is_finite = _tw.is_finite(_tw.reduce_max(l1_norm))
        nan = _tw.constant(np.nan, matrix.dtype)
        result = _tw.cond(
            is_finite,
            lambda: _tw.matrix_solve(-u + v, u + v),
            lambda: _tw.fill(_tw.shape(matrix), nan),
        )
        max_squarings = _tw.reduce_max(squarings)
        i = const(0.0)

        def cond(i, _):
            return _tw.cond(is_finite, lambda: _tw.less(i, max_squarings), lambda: _tw.constant(False))

        def body(i, r):
            return i + 1, _tw.where_v2(_tw.less(i, squarings), _tw.matmul(r, r), r)

        _, result = _tw.while_loop(cond, body, [i, result])
        if not matrix.shape.is_fully_defined():
            return _tw.reshape(result, _tw.concat((batch_shape, _tw.shape(result)[-2:]), axis=0))
        return _tw.reshape(result, batch_shape.concatenate(result.shape[-2:]))


# ---------------------------------------------------------------------------------------------- sqrtm
def matrix_square_root(input, name=None):
    """The principal square root of each square matrix (float32/float64), as tf.linalg.sqrtm.

    A matrix with an eigenvalue on the closed negative real axis has no real principal root: NaNs for it, as
    TF. Computed by the determinant-scaled Denman-Beavers iteration, per matrix (at most 64 steps, each matrix
    stopping when its update is below the dtype's precision); differentiable through the iteration. Unlike TF's
    real Schur method, the iteration needs invertible matrices: a singular one gives NaNs (TF: its root).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.sqrtm([[4.0, 0.0], [0.0, 9.0]])).round(4))
      [[2. 0.]
       [0. 3.]]
    """
    with _tw.name_scope(name, "MatrixSquareRoot", [input]):
        matrix = _tw.convert_to_tensor(input, name="input")
        if matrix.dtype not in (_tw.float32, _tw.float64):
            raise TypeError(f"MatrixSquareRoot: unsupported dtype {matrix.dtype.name} (float32, float64)")
        shape = matrix.shape
        if shape.rank is not None:
            if shape.rank < 2:
                raise ValueError(f"MatrixSquareRoot: input must be at least rank 2, got shape {shape}")
            m, n = _dim(shape[-2]), _dim(shape[-1])
            if m is not None and n is not None and m != n:
                raise ValueError(f"MatrixSquareRoot: input matrices must be square, got shape {shape}")
        if shape[-2:] == [0, 0]:
            return matrix
        eps = float(np.finfo(matrix.dtype.as_numpy_dtype).eps)
        n_float = _tw.cast(_tw.shape(matrix)[-1], matrix.dtype)
        ident = _eye_like(matrix)

        tol = 10.0 * eps
        batch_eye = _tw.broadcast_to(ident, _tw.shape(matrix))

        def settled(delta):
            return delta <= tol  # False for NaN: a failed matrix never settles

        def cond(k, y, z, delta):
            running = _tw.logical_not(_tw.logical_or(settled(delta), _tw.is_nan(delta)))
            return _tw.logical_and(k < 64, _tw.reduce_any(running))

        def body(k, y, z, delta):
            # Per matrix: the determinant scaling mu = |det(Y Z)|^(-1/(2n)); a singular Y or Z ends that matrix's
            # iteration (NaN), the others go on.
            sign_y, log_y = _tw.linalg.slogdet(y)
            sign_z, log_z = _tw.linalg.slogdet(z)
            bad = _tw.logical_or(_tw.equal(sign_y * sign_z, 0), _tw.logical_not(_tw.is_finite(log_y + log_z)))
            bad = _tw.logical_or(bad, _tw.is_nan(delta))  # failed once, failed for good
            bad_m = _tw.broadcast_to(bad[..., None, None], _tw.shape(y))
            mu = _tw.where_v2(bad, _tw.ones_like(log_y), _tw.exp(-(log_y + log_z) / (2.0 * n_float)))[..., None, None]
            y_inv = _tw.matrix_inverse(_tw.where_v2(bad_m, batch_eye, y))
            z_inv = _tw.matrix_inverse(_tw.where_v2(bad_m, batch_eye, z))
            y_next = 0.5 * (mu * y + z_inv / mu)
            z_next = 0.5 * (mu * z + y_inv / mu)
            change = _tw.reduce_max(_tw.abs(y_next - y), axis=[-2, -1]) / (
                _tw.reduce_max(_tw.abs(y_next), axis=[-2, -1]) + eps
            )
            change = _tw.where_v2(bad, _tw.fill(_tw.shape(change), _tw.constant(np.nan, matrix.dtype)), change)
            done = settled(delta)
            done_m = _tw.broadcast_to(done[..., None, None], _tw.shape(y))
            return (
                k + 1,
                _tw.where_v2(done_m, y, y_next),
                _tw.where_v2(done_m, z, z_next),
                _tw.where_v2(done, delta, change),
            )

        delta0 = _tw.fill(_tw.shape(matrix)[:-2], _tw.constant(np.inf, matrix.dtype))
        _, root, _, delta = _tw.while_loop(cond, body, [_tw.constant(0), matrix, batch_eye, delta0])
        # No real principal root (an eigenvalue on the negative real axis) or a singular matrix: the iteration
        # does not settle: NaNs for that matrix.
        converged = _tw.broadcast_to(settled(delta)[..., None, None], _tw.shape(root))
        root = _tw.where_v2(converged, root, _tw.fill(_tw.shape(root), _tw.constant(np.nan, matrix.dtype)))
        return _tw.reshape(root, _tw.shape(matrix)) if not shape.is_fully_defined() else _tw.ensure_shape(root, shape)


# ---------------------------------------------------------------------------------------------- tridiagonal
def _compact_to_dense(diagonals):
    """[..., 3, M] (super, main, sub) to the dense [..., M, M] matrix (super[-1] and sub[0] are ignored)."""
    superdiag = diagonals[..., 0, :]
    maindiag = diagonals[..., 1, :]
    subdiag = diagonals[..., 2, :]
    rank = diagonals.shape.rank
    lead = [[0, 0]] * (rank - 2)
    upper = _tw.pad(_tw.matrix_diag(superdiag[..., :-1]), lead + [[0, 1], [1, 0]])
    lower = _tw.pad(_tw.matrix_diag(subdiag[..., 1:]), lead + [[1, 0], [0, 1]])
    return _tw.matrix_diag(maindiag) + upper + lower


def _matrix_to_compact(matrix):
    """The three diagonals of [..., M, M] in compact form [..., 3, M] (LEFT_RIGHT alignment: zeros padded)."""
    m1, m2 = _dim(matrix.shape[-1]), _dim(matrix.shape[-2])
    if m1 and m2 and m1 != m2:
        raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} and {m2}")
    rank = matrix.shape.rank
    lead = [[0, 0]] * (rank - 2)
    main = _tw.matrix_diag_part(matrix)
    superdiag = _tw.pad(_tw.matrix_diag_part(matrix[..., :-1, 1:]), lead + [[0, 1]])
    subdiag = _tw.pad(_tw.matrix_diag_part(matrix[..., 1:, :-1]), lead + [[1, 0]])
    return _tw.stack([superdiag, main, subdiag], axis=-2)


def _sequence_to_compact(diagonals):
    if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
        raise ValueError("Expected diagonals to be a sequence of length 3.")
    superdiag, maindiag, subdiag = [_tw.convert_to_tensor(d) for d in diagonals]
    if not subdiag.shape[:-1].is_compatible_with(maindiag.shape[:-1]) or not superdiag.shape[:-1].is_compatible_with(
        maindiag.shape[:-1]
    ):
        raise ValueError(
            "Tensors representing the three diagonals must have the same shape,"
            f"except for the last dimension, got {subdiag.shape}, {maindiag.shape}, {superdiag.shape}"
        )
    m = _dim(maindiag.shape[-1])

    def pad_if_necessary(t, name, last_dim_padding):
        n = _dim(t.shape[-1])
        if not n or n == m:
            return t
        if m is not None and n == m - 1:
            return _tw.pad(t, [[0, 0] for _ in range(t.shape.rank - 1)] + [last_dim_padding])
        raise ValueError(f"Expected {name} to be have length {m} or {None if m is None else m - 1}, got {n}.")

    subdiag = pad_if_necessary(subdiag, "subdiagonal", [1, 0])
    superdiag = pad_if_necessary(superdiag, "superdiagonal", [0, 1])
    return _tw.stack((superdiag, maindiag, subdiag), axis=-2)


def _check_float(t, what):
    if t.dtype not in (_tw.float32, _tw.float64):
        raise TypeError(f"{what}: diagonals must be float32 or float64, got {t.dtype.name}")


def _convert_rhs(rhs, dtype, op_name):
    rhs = _tw.convert_to_tensor(rhs, preferred_dtype=dtype, name="rhs")
    if rhs.dtype != dtype:
        raise TypeError(
            f"Input 'rhs' of '{op_name}' Op has type {rhs.dtype.name} that does not match type {dtype.name}"
        )
    return rhs


def tridiagonal_solve(
    diagonals,
    rhs,
    diagonals_format="compact",
    transpose_rhs=False,
    conjugate_rhs=False,
    name=None,
    partial_pivoting=True,
    perturb_singular=False,
):
    """Solves tridiagonal systems A X = rhs, A given by its diagonals ('compact' [..., 3, M] as (super, main,
    sub); 'sequence' [super, main, sub] each [..., M] (or M-1 for super/sub); 'matrix' [..., M, M]).

    rhs is [..., M, K] (or [..., M]: a vector per batch entry); transpose_rhs solves against rhs^T. Solved by
    LU with partial pivoting on the assembled matrix; as TF's kernel, a batch entry whose matrix is singular
    gives NaNs, and with `partial_pivoting=False` (TF's Thomas algorithm) so does one whose unpivoted
    elimination meets a zero pivot. `perturb_singular` is not supported (NotImplementedError).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     d = [[1.0, 1.0, 0.0], [2.0, 2.0, 2.0], [0.0, 1.0, 1.0]]
      ...     print(sess.run(tw.linalg.tridiagonal_solve(d, [[3.0], [4.0], [3.0]])).ravel())
      [1. 1. 1.]
    """
    if perturb_singular and not partial_pivoting:
        raise ValueError("partial_pivoting must be True if perturb_singular is.")
    if perturb_singular:
        raise NotImplementedError("tridiagonal_solve: perturb_singular=True is not supported by tensorweave")
    with _tw.name_scope(name, "TridiagonalSolve", [diagonals, rhs]):
        if diagonals_format == "compact":
            diagonals = _tw.convert_to_tensor(diagonals, name="diagonals")
        elif diagonals_format == "sequence":
            diagonals = _sequence_to_compact(diagonals)
        elif diagonals_format == "matrix":
            diagonals = _matrix_to_compact(_tw.convert_to_tensor(diagonals, name="diagonals"))
        else:
            raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
        _check_float(diagonals, "tridiagonal_solve")
        rhs = _convert_rhs(rhs, diagonals.dtype, "TridiagonalSolve")
        return _solve_compact(diagonals, rhs, transpose_rhs, partial_pivoting)


def _solve_compact(diagonals, rhs, transpose_rhs, partial_pivoting):
    diags_rank, rhs_rank = diagonals.shape.rank, rhs.shape.rank
    if diags_rank is None:
        raise ValueError("tridiagonal_solve: the rank of diagonals must be known at graph construction")
    if diags_rank < 2:
        raise ValueError(f"Expected diagonals to have rank at least 2, got {diags_rank}")
    if rhs_rank is not None and rhs_rank != diags_rank and rhs_rank != diags_rank - 1:
        raise ValueError(f"Expected the rank of rhs to be {diags_rank - 1} or {diags_rank}, got {rhs_rank}")
    if rhs_rank is not None and not diagonals.shape[:-2].is_compatible_with(rhs.shape[: diags_rank - 2]):
        raise ValueError(f"Batch shapes {diagonals.shape[:-2]} and {rhs.shape[: diags_rank - 2]} are incompatible")
    if _dim(diagonals.shape[-2]) and _dim(diagonals.shape[-2]) != 3:
        raise ValueError(f"Expected 3 diagonals got {_dim(diagonals.shape[-2])}")

    def check_num_lhs_matches_num_rhs(rhs):
        m, k = _dim(diagonals.shape[-1]), _dim(rhs.shape[-2])
        if m and k and m != k:
            raise ValueError(f"Expected number of left-hand sided and right-hand sides to be equal, got {m} and {k}")

    vector_rhs = rhs_rank is not None and rhs_rank == diags_rank - 1
    if vector_rhs:
        rhs = _tw.expand_dims(rhs, -1)
    elif transpose_rhs:
        rhs = _tw.linalg.matrix_transpose(rhs)
    check_num_lhs_matches_num_rhs(rhs)
    if _dim(diagonals.shape[-1]) == 0:
        solution = rhs
    else:
        solution = _solve_or_nan(diagonals, rhs, partial_pivoting)
    return _tw.squeeze(solution, -1) if vector_rhs else solution


def _thomas_pivots_nonzero(diagonals):
    """Whether the unpivoted elimination (the Thomas algorithm) meets no zero pivot: p_0 = b_0,
    p_i = b_i - a_i c_(i-1) / p_(i-1) (a: sub-, b: main, c: superdiagonal), per batch entry."""
    rank = diagonals.shape.rank
    perm = [rank - 2] + list(range(rank - 2))  # [..., M] -> [M, ...]
    lead = [[0, 0]] * (rank - 2)
    main = _tw.transpose(diagonals[..., 1, :], perm)
    sub = _tw.transpose(diagonals[..., 2, :] * _tw.pad(_tw.ones_like(diagonals[..., 2, 1:]), lead + [[1, 0]]), perm)
    sup = _tw.transpose(_tw.pad(diagonals[..., 0, :-1], lead + [[1, 0]]), perm)  # c_(i-1), 0 for i = 0
    pivots = _tw.scan(lambda p, e: e[0] - e[1] * e[2] / p, (main, sub, sup), initializer=_tw.ones_like(main[0]))
    return _tw.reduce_all(_tw.abs(pivots) > 0, axis=0)


def _solve_or_nan(diagonals, rhs, partial_pivoting):
    """The solution by LU with partial pivoting; NaN for a batch entry whose matrix is singular (a zero pivot),
    as TF's kernel; without partial pivoting also NaN where the unpivoted elimination meets a zero pivot."""
    dense = _compact_to_dense(diagonals)
    dense, rhs = _broadcast_batch(dense, rhs)
    sign, _ = _tw.linalg.slogdet(_tw.stop_gradient(dense))
    ok = _tw.logical_and(_tw.not_equal(sign, 0), _tw.reduce_all(_tw.is_finite(dense), axis=[-2, -1]))
    if not partial_pivoting:
        ok = _tw.logical_and(ok, _thomas_pivots_nonzero(_tw.stop_gradient(diagonals)))
    ok = _tw.broadcast_to(ok[..., None, None], _tw.shape(dense))
    safe = _tw.where_v2(ok, dense, _tw.eye(_tw.shape(dense)[-1], dtype=dense.dtype))
    solution = _tw.matrix_solve(safe, rhs)
    ok_rows = _tw.broadcast_to(ok[..., :1], _tw.shape(solution))
    return _tw.where_v2(ok_rows, solution, _tw.fill(_tw.shape(solution), _tw.constant(np.nan, rhs.dtype)))


def _broadcast_batch(matrix, rhs):
    """matrix and rhs with their batch dims broadcast together (MatrixSolve needs equal batch dims)."""
    ms, rs = _tw.shape(matrix), _tw.shape(rhs)
    batch = _tw.broadcast_dynamic_shape(ms[:-2], rs[:-2])
    return (
        _tw.broadcast_to(matrix, _tw.concat([batch, ms[-2:]], 0)),
        _tw.broadcast_to(rhs, _tw.concat([batch, rs[-2:]], 0)),
    )


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """A @ rhs for tridiagonal A given by its diagonals (formats as `tridiagonal_solve`), rhs [..., M, N].

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     d = [[-1.0, -1.0, 0.0], [2.0, 2.0, 2.0], [0.0, -1.0, -1.0]]
      ...     print(sess.run(tw.linalg.tridiagonal_matmul(d, [[1.0], [1.0], [1.0]])).ravel())
      [1. 0. 1.]
    """
    with _tw.name_scope(name, "TridiagonalMatMul", [diagonals, rhs]):
        if diagonals_format == "compact":
            diagonals = _tw.convert_to_tensor(diagonals, name="diagonals")
            superdiag, maindiag, subdiag = diagonals[..., 0, :], diagonals[..., 1, :], diagonals[..., 2, :]
        elif diagonals_format == "sequence":
            if not isinstance(diagonals, (tuple, list)) or len(diagonals) != 3:
                raise ValueError("Expected diagonals to be a sequence of length 3.")
            superdiag, maindiag, subdiag = [_tw.convert_to_tensor(d) for d in diagonals]
        elif diagonals_format == "matrix":
            compact = _matrix_to_compact(_tw.convert_to_tensor(diagonals, name="diagonals"))
            superdiag, maindiag, subdiag = compact[..., 0, :], compact[..., 1, :], compact[..., 2, :]
        else:
            raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")
        _check_float(maindiag, "tridiagonal_matmul")
        rhs = _convert_rhs(rhs, maindiag.dtype, "TridiagonalMatMul")
        if rhs.shape.rank is not None and rhs.shape.rank < 2:
            raise ValueError(f"TridiagonalMatMul: rhs must be at least rank 2, got shape {rhs.shape}")
        for t in (superdiag, subdiag):
            if not t.shape.is_compatible_with(maindiag.shape):
                raise ValueError(
                    f"TridiagonalMatMul: the three diagonals must have the same shape, got {superdiag.shape}, "
                    f"{maindiag.shape}, {subdiag.shape}"
                )
        m, k = _dim(maindiag.shape[-1]), _dim(rhs.shape[-2])
        if m is not None and k is not None and m != k:
            raise ValueError(f"TridiagonalMatMul: diagonals have length {m} but rhs has {k} rows")
        rank = rhs.shape.rank
        lead = [[0, 0]] * (rank - 2)
        below = _tw.pad(rhs[..., 1:, :], lead + [[0, 1], [0, 0]])  # rhs[i + 1]
        above = _tw.pad(rhs[..., :-1, :], lead + [[1, 0], [0, 0]])  # rhs[i - 1]
        # The ignored corners (superdiag[-1], subdiag[0]) meet the zero padding.
        return maindiag[..., None] * rhs + superdiag[..., None] * below + subdiag[..., None] * above


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """Eigenvalues (and, with eigvals_only=False, eigenvectors) of the real symmetric tridiagonal matrix with
    diagonal alpha [n] and off-diagonal beta [n-1], ascending.

    select 'a': all; 'i': indices select_range=(lo, hi) inclusive; 'v': the eigenvalues in (lo, hi]. Solved as
    the dense self-adjoint eigenproblem (tol is accepted and unused).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.eigh_tridiagonal([2.0, 2.0], [1.0])).round(4))
      [1. 3.]
    """
    with _tw.name_scope(name or "eigh_tridiagonal"):
        alpha = _tw.convert_to_tensor(alpha, name="alpha")
        beta = _tw.convert_to_tensor(beta, name="beta")
        if alpha.dtype != beta.dtype:
            raise ValueError("'alpha' and 'beta' must have the same type.")
        if alpha.dtype not in (_tw.float32, _tw.float64):
            raise TypeError(f"eigh_tridiagonal: alpha must be float32 or float64, got {alpha.dtype.name}")
        if alpha.shape.rank is not None and alpha.shape.rank != 1:
            raise ValueError(f"eigh_tridiagonal: alpha must be a vector, got shape {alpha.shape}")
        if beta.shape.rank is not None and beta.shape.rank != 1:
            raise ValueError(f"eigh_tridiagonal: beta must be a vector, got shape {beta.shape}")
        n, nb = _dim(alpha.shape[0]), _dim(beta.shape[0])
        if n is not None and nb is not None and nb != max(n - 1, 0):
            raise ValueError(f"eigh_tridiagonal: beta must have length n-1 = {n - 1}, got {nb}")
        if select not in ("a", "i", "v"):
            raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
        dense = (
            _tw.matrix_diag(alpha)
            + _tw.pad(_tw.matrix_diag(beta), [[0, 1], [1, 0]])
            + _tw.pad(_tw.matrix_diag(beta), [[1, 0], [0, 1]])
        )
        if eigvals_only:
            values, vectors = _tw.linalg.eigvalsh(dense), None
        else:
            values, vectors = _tw.linalg.eigh(dense)
        if select == "i":
            lo, hi = select_range
            values = values[lo : hi + 1]
            vectors = None if vectors is None else vectors[:, lo : hi + 1]
        elif select == "v":
            lo, hi = select_range
            keep = _tw.logical_and(values > lo, values <= hi)
            values_kept = _tw.boolean_mask(values, keep)
            if vectors is not None:
                vectors = _tw.transpose(_tw.boolean_mask(_tw.transpose(vectors), keep))
            values = values_kept
        return values if eigvals_only else (values, vectors)
