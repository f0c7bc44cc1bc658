"""Gradients of the linear-algebra ops: TensorFlow's formulas (linalg_grad.py), built from the same ops."""

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_nd_ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gradients_impl
from tensorweave._src.ops import linalg_ops
from tensorweave._src.ops import math_ops

_register = gradients_impl.RegisterGradient


def _zeros_for_none(op, grads):
    # TF hands a multi-output op's gradient function zeros for the outputs nothing depends on.
    return [array_ops.zeros_like(out) if g is None else g for out, g in zip(op.outputs, grads)]


_adjoint = linalg_ops.adjoint


@_register("MatrixInverse")
def _matrix_inverse_grad(op, grad):
    ainv = op.outputs[0]
    adj = op.get_attr("adjoint")
    return -math_ops.matmul(ainv, math_ops.matmul(grad, ainv, adjoint_a=adj, adjoint_b=not adj), adjoint_a=not adj)


def _batch_multipliers(grad, c):
    return array_ops.reshape(grad, array_ops.concat([array_ops.shape(c), [1, 1]], 0))


@_register("MatrixDeterminant")
def _matrix_determinant_grad(op, grad):
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = linalg_ops.matrix_inverse(a, adjoint=True)
    return _batch_multipliers(grad * c, c) * a_adj_inv


@_register("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op, _, grad_b):
    a, c = op.inputs[0], op.outputs[1]
    a_adj_inv = linalg_ops.matrix_inverse(a, adjoint=True)
    return _batch_multipliers(grad_b, c) * a_adj_inv


@_register("Cholesky")
def _cholesky_grad(op, grad):
    # l^{-H} ((l^H grad) * (tril(ones) - 1/2 eye)) l^{-1}, symmetrized.
    chol = op.outputs[0]
    num_rows = array_ops.shape(chol)[-1]
    batch_shape = array_ops.shape(chol)[:-2]
    l_inverse = linalg_ops.matrix_triangular_solve(
        chol, array_nd_ops.eye(num_rows, batch_shape=batch_shape, dtype=chol.dtype)
    )
    middle = math_ops.matmul(chol, grad, adjoint_a=True)
    middle = linalg_ops.matrix_set_diag(middle, 0.5 * linalg_ops.matrix_diag_part(middle))
    middle = linalg_ops.matrix_band_part(middle, -1, 0)
    grad_a = math_ops.matmul(math_ops.matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += _adjoint(grad_a)
    return grad_a * 0.5


def _solve_grads(op, grad, solve):
    a = op.inputs[0]
    adj = op.get_attr("adjoint")
    c = op.outputs[0]
    grad_b = solve(a, grad, not adj)
    if adj:
        grad_a = -math_ops.matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -math_ops.matmul(grad_b, c, adjoint_b=True)
    return grad_a, grad_b


@_register("MatrixSolve")
def _matrix_solve_grad(op, grad):
    return _solve_grads(op, grad, lambda a, g, adj: linalg_ops.matrix_solve(a, g, adjoint=adj))


@_register("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op, grad):
    lower = op.get_attr("lower")
    grad_a, grad_b = _solve_grads(
        op, grad, lambda a, g, adj: linalg_ops.matrix_triangular_solve(a, g, lower=lower, adjoint=adj)
    )
    if lower:
        grad_a = linalg_ops.matrix_band_part(grad_a, -1, 0)
    else:
        grad_a = linalg_ops.matrix_band_part(grad_a, 0, -1)
    return grad_a, grad_b


_regularized_gramian_cholesky = linalg_ops._regularized_gramian_cholesky


@_register("MatrixSolveLs")
def _matrix_solve_ls_grad(op, grad):
    if op.get_attr("fast") is False:
        raise ValueError("Gradient not defined for fast=False")
    a, b = op.inputs[0], op.inputs[1]
    l2 = math_ops.cast(op.inputs[2], a.dtype)
    m, n = a.shape.as_list()[-2:] if a.shape.ndims is not None else (None, None)
    if m is None or n is None:
        raise NotImplementedError("MatrixSolveLs gradient needs static matrix dims")
    if m >= n:
        x = op.outputs[0]
        chol = _regularized_gramian_cholesky(a, l2, first_kind=True)
        z = linalg_ops.cholesky_solve(chol, grad)
        xzt = math_ops.matmul(x, z, adjoint_b=True)
        zx_sym = xzt + linalg_ops.matrix_transpose(xzt)
        grad_a = -math_ops.matmul(a, zx_sym) + math_ops.matmul(b, z, adjoint_b=True)
        grad_b = math_ops.matmul(a, z)
        return grad_a, grad_b, None
    chol = _regularized_gramian_cholesky(a, l2, first_kind=False)
    grad_b = linalg_ops.cholesky_solve(chol, math_ops.matmul(a, grad))
    tmp = linalg_ops.cholesky_solve(chol, b)
    a1 = -math_ops.matmul(grad_b, math_ops.matmul(tmp, a, adjoint_a=True))
    a2 = math_ops.matmul(tmp, grad - math_ops.matmul(a, grad_b, adjoint_a=True), adjoint_b=True)
    return a1 + a2, grad_b, None


def _safe_reciprocal(x, epsilon=1e-20):
    return x * math_ops.reciprocal(x * x + epsilon)


@_register("SelfAdjointEigV2")
def _self_adjoint_eig_v2_grad(op, grad_e, grad_v):
    grad_e, grad_v = _zeros_for_none(op, [grad_e, grad_v])
    e = op.outputs[0]
    with ops.control_dependencies([grad_e, grad_v]):
        if op.get_attr("compute_v"):
            v = op.outputs[1]
            f = linalg_ops.matrix_set_diag(
                _safe_reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
                array_ops.zeros_like(e),
            )
            grad_a = math_ops.matmul(
                v,
                math_ops.matmul(
                    linalg_ops.matrix_diag(grad_e) + f * math_ops.matmul(v, grad_v, adjoint_a=True),
                    v,
                    adjoint_b=True,
                ),
            )
        else:
            _, v = linalg_ops.self_adjoint_eig(op.inputs[0])
            grad_a = math_ops.matmul(v, math_ops.matmul(linalg_ops.matrix_diag(grad_e), v, adjoint_b=True))
        grad_a = linalg_ops.matrix_band_part(grad_a + _adjoint(grad_a), -1, 0)
        return linalg_ops.matrix_set_diag(grad_a, 0.5 * linalg_ops.matrix_diag_part(grad_a))


@_register("Svd")
def _svd_grad(op, grad_s, grad_u, grad_v):
    grad_s, grad_u, grad_v = _zeros_for_none(op, [grad_s, grad_u, grad_v])
    a = op.inputs[0]
    grad_s_mat = linalg_ops.matrix_diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = linalg_ops.svd(a, compute_uv=True)
        grad_a = math_ops.matmul(u, math_ops.matmul(grad_s_mat, v, adjoint_b=True))
        grad_a.set_shape(a.shape)
        return grad_a
    full_matrices = op.get_attr("full_matrices")
    m, n = a.shape.as_list()[-2:] if a.shape.ndims is not None else (None, None)
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with unknown inner matrix shape.")
    s, u, v = op.outputs
    use_adjoint = False
    if m > n:
        use_adjoint = True
        m, n = n, m
        u, v = v, u
        grad_u, grad_v = grad_v, grad_u
    if full_matrices and abs(m - n) > 1:
        raise NotImplementedError(
            f"svd gradient is not implemented for abs(m - n) > 1 when full_matrices is True. Received: m={m} and n={n}."
        )
    with ops.control_dependencies([grad_s, grad_u, grad_v]):
        s_mat = linalg_ops.matrix_diag(s)
        s2 = math_ops.square(s)
        f = linalg_ops.matrix_set_diag(
            _safe_reciprocal(array_ops.expand_dims(s2, -2) - array_ops.expand_dims(s2, -1)),
            array_ops.zeros_like(s),
        )
        s_inv_mat = linalg_ops.matrix_diag(_safe_reciprocal(s))
        v1 = v[..., :, :m]
        grad_v1 = grad_v[..., :, :m]
        u_gu = math_ops.matmul(u, grad_u, adjoint_a=True)
        v_gv = math_ops.matmul(v1, grad_v1, adjoint_a=True)
        f_u = f * u_gu
        f_v = f * v_gv
        term1_nouv = (
            grad_s_mat + math_ops.matmul(f_u + _adjoint(f_u), s_mat) + math_ops.matmul(s_mat, f_v + _adjoint(f_v))
        )
        term1 = math_ops.matmul(u, math_ops.matmul(term1_nouv, v1, adjoint_b=True))
        if m == n:
            grad_a = term1
        else:
            gv1t = linalg_ops.matrix_transpose(grad_v1)
            gv1t_v1 = math_ops.matmul(gv1t, v1)
            term2_nous = gv1t - math_ops.matmul(gv1t_v1, v1, adjoint_b=True)
            if full_matrices:
                v2 = v[..., :, m:n]
                grad_v2 = grad_v[..., :, m:n]
                v1t_gv2 = math_ops.matmul(v1, grad_v2, adjoint_a=True)
                term2_nous -= math_ops.matmul(v1t_gv2, v2, adjoint_b=True)
            term2 = math_ops.matmul(math_ops.matmul(u, s_inv_mat), term2_nous)
            grad_a = term1 + term2
        if use_adjoint:
            grad_a = linalg_ops.matrix_transpose(grad_a)
        grad_a.set_shape(a.shape)
        return grad_a


@_register("Qr")
def _qr_grad(op, dq, dr):
    dq, dr = _zeros_for_none(op, [dq, dr])
    q, r = op.outputs
    if r.shape.ndims is None or None in r.shape.as_list()[-2:]:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received r.shape: {r.shape}")
    r_rows, r_cols = r.shape.as_list()[-2:]
    q_rows, q_cols = q.shape.as_list()[-2:]
    if r_rows > r_cols and q_rows == q_cols:
        raise NotImplementedError(
            f"QrGrad not implemented when nrows > ncols and full_matrices is true. Received r.shape={r.shape} "
            f"with nrows={r_rows}and ncols={r_cols}."
        )

    def triangular_solve(x, r):
        return _adjoint(linalg_ops.matrix_triangular_solve(r, _adjoint(x), lower=False, adjoint=False))

    def square_and_deep(q, r, dq, dr):
        qdq = math_ops.matmul(q, dq, adjoint_a=True)
        qdq_ = qdq - _adjoint(qdq)
        rdr = math_ops.matmul(r, dr, adjoint_b=True)
        rdr_ = rdr - _adjoint(rdr)
        tril = linalg_ops.matrix_band_part(qdq_ + rdr_, -1, 0)
        grad_a = math_ops.matmul(q, dr + triangular_solve(tril, r))
        grad_b = triangular_solve(dq - math_ops.matmul(q, qdq), r)
        return grad_a + grad_b

    if q_rows >= r_cols:
        return square_and_deep(q, r, dq, dr)
    a = op.inputs[0]
    y = a[..., :, q_rows:]
    u = r[..., :, :q_rows]
    dv = dr[..., :, q_rows:]
    du = dr[..., :, :q_rows]
    dy = math_ops.matmul(q, dv)
    dx = square_and_deep(q, u, dq + math_ops.matmul(y, dv, adjoint_b=True), du)
    return array_ops.concat([dx, dy], axis=-1)


@_register("MatrixBandPart")
def _matrix_band_part_grad(op, grad):
    return linalg_ops.matrix_band_part(grad, op.inputs[1], op.inputs[2]), None, None


@_register("MatrixDiag")
def _matrix_diag_grad(op, grad):
    return linalg_ops.matrix_diag_part(grad)


@_register("MatrixDiagPart")
def _matrix_diag_part_grad(op, grad):
    matrix_shape = op.inputs[0].shape
    if matrix_shape.is_fully_defined() and matrix_shape[-1] == matrix_shape[-2]:
        return linalg_ops.matrix_diag(grad)
    return linalg_ops.matrix_set_diag(array_ops.zeros_like(op.inputs[0]), grad)


@_register("MatrixSetDiag")
def _matrix_set_diag_grad(op, grad):
    grad_input = linalg_ops.matrix_set_diag(grad, array_ops.zeros_like(op.inputs[1]))
    grad_diag = linalg_ops.matrix_diag_part(grad)
    return grad_input, grad_diag


@_register("Cross")
def _cross_grad(op, grad):
    u, v = op.inputs
    return linalg_ops.cross(v, grad), linalg_ops.cross(grad, u)


# TensorFlow registers no gradient for Lu (differentiate through lu_solve / matrix_inverse instead).
gradients_impl.NotDifferentiable("Lu")
