"""Linear algebra (tf.linalg and TensorFlow 1's top-level names), as TensorFlow 1 builds it: one op per
factorization, solve or determinant (Eigen's decompositions in C++, batched over the leading dims), and TF's
composites (cholesky_solve, norm, trace, logdet, lstsq, slogdet, ...) over them with TF's op names."""

import numpy as np

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import array_nd_ops
from tensorweave._src.ops import array_ops
from tensorweave._src.ops import gen_ops
from tensorweave._src.ops import math_ops


def _one(op_type, x, name, default_name=None, **attrs):
    graph = ops.get_default_graph()
    with graph.name_scope(name or default_name or op_type) as scope:
        x = ops.convert_to_tensor(x, name="input")
        return gen_ops.wrapper(op_type)(x, name=scope, **attrs)


def _two(op_type, a, b, name, arg_names=("matrix", "rhs"), **attrs):
    graph = ops.get_default_graph()
    with graph.name_scope(name or op_type) as scope:
        a = ops.convert_to_tensor(a, name=arg_names[0])
        # A tensor of another dtype is the op's TypeError (as TF), not a conversion's ValueError.
        b = ops.convert_to_tensor(b, preferred_dtype=a.dtype, name=arg_names[1])
        return gen_ops.wrapper(op_type)(a, b, name=scope, **attrs)


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each square matrix in the last two dims (InvalidArgumentError when one is singular).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_inverse([[2.0, 0.0], [0.0, 4.0]])))
      [[0.5  0.  ]
       [0.   0.25]]
    """
    return _one("MatrixInverse", input, name, adjoint=adjoint)


def matrix_determinant(input, name=None):  # noqa: A002
    """The determinant of each square matrix (shape: the batch dims).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(round(float(sess.run(tw.matrix_determinant([[1.0, 2.0], [3.0, 4.0]]))), 4))
      -2.0
    """
    return _one("MatrixDeterminant", input, name)


def log_matrix_determinant(input, name=None):  # noqa: A002
    """(sign, log|det|) of each square matrix, as `tf.linalg.slogdet`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     sign, log_abs = sess.run(tw.linalg.slogdet([[-2.0, 0.0], [0.0, 1.0]]))
      ...     print(sign, round(float(log_abs), 4))
      -1.0 0.6931
    """
    return _one("LogMatrixDeterminant", input, name)


def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive definite matrices, through their Cholesky factors (as TF).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(round(float(sess.run(tw.linalg.logdet([[4.0, 0.0], [0.0, 1.0]]))), 4))
      1.3863
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "logdet"):
        chol = cholesky(matrix)
        return 2.0 * math_ops.reduce_sum(math_ops.log(matrix_diag_part(chol)), axis=[-1])


def cholesky(input, name=None):  # noqa: A002
    """The lower Cholesky factor of each symmetric positive definite matrix.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.cholesky([[4.0, 2.0], [2.0, 2.0]])))
      [[2. 0.]
       [1. 1.]]
    """
    return _one("Cholesky", input, name)


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs for each batch entry (InvalidArgumentError for a singular matrix).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_solve([[2.0, 0.0], [0.0, 4.0]], [[2.0], [8.0]])))
      [[1.]
       [2.]]
    """
    return _two("MatrixSolve", matrix, rhs, name, adjoint=adjoint)


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """X with matrix @ X = rhs, matrix lower (or upper) triangular: only that triangle is read.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_triangular_solve([[2.0, 0.0], [1.0, 1.0]], [[2.0], [3.0]])))
      [[1.]
       [2.]]
    """
    return _two("MatrixTriangularSolve", matrix, rhs, name, lower=lower, adjoint=adjoint)


def cholesky_solve(chol, rhs, name=None):
    """X with (L L^T) X = rhs, given the Cholesky factor L (two triangular solves, as TF).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.cholesky_solve([[2.0, 0.0], [0.0, 1.0]], [[4.0], [1.0]])))
      [[1.]
       [1.]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "cholesky_solve"):
        y = matrix_triangular_solve(chol, rhs, adjoint=False, lower=True)
        return matrix_triangular_solve(chol, y, adjoint=True, lower=True)


def _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind):
    """The Cholesky factor of A^H A + l2 I (first kind) or A A^H + l2 I (TF's _RegularizedGramianCholesky)."""
    gramian = math_ops.matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, ops.Tensor) or l2_regularizer != 0:
        matrix_shape = array_ops.shape(matrix)
        batch_shape = matrix_shape[:-2]
        small_dim = matrix_shape[-1] if first_kind else matrix_shape[-2]
        identity = array_nd_ops.eye(small_dim, batch_shape=batch_shape, dtype=matrix.dtype)
        gramian += l2_regularizer * identity
    return gen_ops.cholesky(gramian)


def _use_composite_ls(fast, matrix):
    # TF: the composite (Cholesky of the Gramian, two triangular solves) unless fast is off, or the batch is
    # large and I/O bound (more than L2-sized and more matrices than the smaller matrix dim).
    if not fast:
        return False
    shape = matrix.shape
    if not shape.is_fully_defined():
        return True
    dims = shape.as_list()
    batch = int(np.prod(dims[:-2])) if len(dims) > 2 else 1
    size = int(np.prod(dims)) * matrix.dtype.size
    return not (size > 256000 and batch > min(dims[-2:]))


def matrix_solve_ls(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares solution of matrix @ X = rhs (+ l2_regularizer * ||X||^2).

    As TF: with fast (the default) the regularized normal equations through a Cholesky factor, built from ops
    (MatrixSolveLs only for large I/O-bound batches); fast=False the MatrixSolveLs op's complete orthogonal
    decomposition (the minimum-norm solution; no gradient).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_solve_ls([[1.0], [1.0]], [[1.0], [3.0]])).round(4))
      [[2.]]
    """
    graph = ops.get_default_graph()
    matrix = ops.convert_to_tensor(matrix, name="matrix")
    if matrix.shape.ndims is not None and matrix.shape.ndims < 2:
        raise ValueError(f"matrix_solve_ls: matrix must have rank >= 2, got shape {matrix.shape}")
    if not _use_composite_ls(fast, matrix):
        with graph.name_scope(name or "MatrixSolveLs") as scope:
            rhs = ops.convert_to_tensor(rhs, preferred_dtype=matrix.dtype, name="rhs")
            l2 = ops.convert_to_tensor(l2_regularizer, dtype=dtypes.float64, name="l2_regularizer")
            return gen_ops.matrix_solve_ls(matrix, rhs, l2, fast=fast, name=scope)
    with graph.name_scope(name or "matrix_solve_ls"):
        rhs = ops.convert_to_tensor(rhs, preferred_dtype=matrix.dtype, name="rhs")
        m, n = matrix.shape.as_list()[-2:] if matrix.shape.ndims is not None else (None, None)
        if m is None or n is None:
            raise ValueError("matrix_solve_ls needs static matrix dims (TF builds a cond here)")
        if m >= n:
            chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=True)
            return cholesky_solve(chol, math_ops.matmul(matrix, rhs, adjoint_a=True))
        chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=False)
        return math_ops.matmul(matrix, cholesky_solve(chol, rhs), adjoint_a=True)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """tf.linalg.lstsq: matrix_solve_ls."""
    return matrix_solve_ls(matrix, rhs, l2_regularizer=l2_regularizer, fast=fast, name=name)


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """(q, r) with input = q @ r, q orthonormal columns, r upper triangular (Householder, as TF's CPU kernel).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     q, r = sess.run(tw.qr([[3.0, 0.0], [4.0, 5.0]]))
      ...     print(abs(r).round(3))
      [[5. 4.]
       [0. 3.]]
    """
    return _one("Qr", input, name, full_matrices=full_matrices)


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values (descending) and, when compute_uv, (s, u, v) with tensor = u @ diag(s) @ v^T.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.svd([[3.0, 0.0], [0.0, -4.0]], compute_uv=False)))
      [4. 3.]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Svd") as scope:
        tensor = ops.convert_to_tensor(tensor, name="input")
        s, u, v = gen_ops.svd(tensor, compute_uv=compute_uv, full_matrices=full_matrices, name=scope)
        if compute_uv:
            return s, u, v
        return s


def self_adjoint_eig(tensor, name=None):
    """(eigenvalues ascending, eigenvectors in columns) of each self-adjoint matrix (its lower triangle is read).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.self_adjoint_eig([[2.0, 0.0], [0.0, 1.0]]))[0])
      [1. 2.]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "self_adjoint_eig") as scope:
        tensor = ops.convert_to_tensor(tensor, name="input")
        e, v = gen_ops.self_adjoint_eig_v2(tensor, compute_v=True, name=scope)
        return e, v


def self_adjoint_eigvals(tensor, name=None):
    """The eigenvalues (ascending) of each self-adjoint matrix.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.self_adjoint_eigvals([[2.0, 0.0], [0.0, 1.0]])))
      [1. 2.]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "self_adjoint_eigvals") as scope:
        tensor = ops.convert_to_tensor(tensor, name="input")
        e, _ = gen_ops.self_adjoint_eig_v2(tensor, compute_v=False, name=scope)
        return e


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Each matrix with the entries outside the band zeroed (a negative bound keeps that whole triangle).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_band_part([[1, 2], [3, 4]], 0, -1)))
      [[1 2]
       [0 4]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "MatrixBandPart") as scope:
        input = ops.convert_to_tensor(input, name="input")  # noqa: A001
        lower, upper = (
            math_ops.cast(bound, dtypes.int64)  # TF's Tindex: int32 or int64 bounds
            if isinstance(bound, ops.Tensor) and bound.dtype == dtypes.int32
            else ops.convert_to_tensor(bound, dtype=dtypes.int64, name=what)
            for bound, what in ((num_lower, "num_lower"), (num_upper, "num_upper"))
        )
        return gen_ops.matrix_band_part(input, lower, upper, name=scope)


def _only_main_diagonal(extra):
    k = extra.pop("k", 0)
    for unused in ("align", "padding_value", "num_rows", "num_cols"):
        extra.pop(unused, None)
    if extra:
        raise TypeError(f"unexpected arguments: {sorted(extra)}")
    if isinstance(k, (list, tuple)) and len(k) == 2 and all(isinstance(d, int) for d in k) and k[0] > k[1]:
        raise ValueError(f"lower_diag_index is greater than upper_diag_index: k = {tuple(k)}")
    if k != 0:
        raise NotImplementedError("only the main diagonal (k=0) is supported")


def matrix_diag(diagonal, name=None, **v3_args):
    """Square matrices with the given diagonals (the last dim).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_diag([1, 2])))
      [[1 0]
       [0 2]]
    """
    _only_main_diagonal(v3_args)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "MatrixDiag") as scope:
        return gen_ops.matrix_diag(ops.convert_to_tensor(diagonal, name="diagonal"), name=scope)


def matrix_diag_part(input, name=None, **v3_args):  # noqa: A002
    """The main diagonal of each matrix.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_diag_part([[1, 2], [3, 4]])))
      [1 4]
    """
    _only_main_diagonal(v3_args)
    return _one("MatrixDiagPart", input, name)


def matrix_set_diag(input, diagonal, name=None, **v3_args):  # noqa: A002
    """Each matrix with its main diagonal replaced by `diagonal`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_set_diag([[1, 2], [3, 4]], [0, 0])))
      [[0 2]
       [3 0]]
    """
    _only_main_diagonal(v3_args)
    return _two("MatrixSetDiag", input, diagonal, name, arg_names=("input", "diagonal"))


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the last two dims (Transpose with the permutation [0, ..., n-1, n-2], as TF).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.matrix_transpose([[1, 2, 3]])))
      [[1]
       [2]
       [3]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name) as scope:
        a = ops.convert_to_tensor(a, name="a")
        ndims = a.shape.ndims
        if ndims is not None:
            if ndims < 2:
                raise ValueError(f"Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = {a}")
            perm = list(range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            rank = array_ops.rank(a)
            perm = array_ops.concat([gen_ops.range(0, rank - 2, 1), array_ops.stack([rank - 1, rank - 2])], 0)
        return array_ops.transpose(a, perm=perm, name=scope, conjugate=conjugate)


def adjoint(matrix, name=None):
    """The conjugate transpose of the last two dims (the transpose for real dtypes).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.adjoint([[1, 2]])))
      [[1]
       [2]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "adjoint"):
        return matrix_transpose(matrix, conjugate=True)


def trace(x, name=None):
    """The sum of each matrix's main diagonal (reduce_sum of matrix_diag_part, as TF).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.trace([[1, 2], [3, 4]])))
      5
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "Trace"):
        x = ops.convert_to_tensor(x, name="x")
        return math_ops.reduce_sum(matrix_diag_part(x), [-1])


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """The vector or matrix norm of `tensor` (TF1's tf.norm: 'euclidean', 'fro', 1, 2, np.inf, p > 0).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.norm([3.0, 4.0])))
      5.0
    """
    if keep_dims is not None:
        if keepdims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
        keepdims = keep_dims
    keepdims = bool(keepdims)
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not all(isinstance(i, (int, np.integer)) for i in axis) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        supported = ["fro", "euclidean", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
    else:
        if isinstance(axis, (tuple, list)) and len(axis) == 1:
            axis = axis[0]
        if not (axis is None or isinstance(axis, (int, np.integer))):
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        supported = ["euclidean", 1, 2, np.inf]
        if ord not in supported and (isinstance(ord, str) or not np.isreal(ord) or ord <= 0):
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (int(axis),)
    graph = ops.get_default_graph()
    with graph.name_scope(name or "norm"):
        tensor = ops.convert_to_tensor(tensor, name="tensor")
        if ord in ["fro", "euclidean", 2, 2.0]:
            if is_matrix_norm and ord in [2, 2.0]:
                rank = tensor.shape.ndims
                if rank is None:
                    raise ValueError("norm with ord=2 over two axes needs a tensor of known rank")
                positive = [a % rank for a in axis]
                perm_before = [i for i in range(rank) if i not in positive] + positive
                perm_after = [perm_before.index(i) for i in range(rank)]
                permed = array_ops.transpose(tensor, perm=perm_before)
                s = svd(permed, compute_uv=False)
                matrix_2_norm = array_ops.expand_dims(
                    math_ops.reduce_max(math_ops.abs(s), axis=-1, keepdims=True), axis=-1
                )
                result = array_ops.transpose(matrix_2_norm, perm=perm_after)
            else:
                result = math_ops.sqrt(math_ops.reduce_sum(tensor * tensor, axis, keepdims=True))
        else:
            result = math_ops.abs(tensor)
            if ord == 1:
                sum_axis = None if axis is None else axis[0]
                result = math_ops.reduce_sum(result, sum_axis, keepdims=True)
                if is_matrix_norm:
                    result = math_ops.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = math_ops.reduce_sum(result, axis[1], keepdims=True)
                max_axis = None if axis is None else axis[0]
                result = math_ops.reduce_max(result, max_axis, keepdims=True)
            else:
                result = math_ops.pow(math_ops.reduce_sum(math_ops.pow(result, ord), axis, keepdims=True), 1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def slogdet(input, name=None):  # noqa: A002
    """tf.linalg.slogdet: (sign, log|det|) (see log_matrix_determinant)."""
    return log_matrix_determinant(input, name=name)


def eigh(tensor, name=None):
    """tf.linalg.eigh: self_adjoint_eig."""
    return self_adjoint_eig(tensor, name=name)


def eigvalsh(tensor, name=None):
    """tf.linalg.eigvalsh: self_adjoint_eigvals."""
    return self_adjoint_eigvals(tensor, name=name)


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False, name=None):
    """a @ b for a batch of matrices `a` and vectors `b` (matmul with b expanded, as TF).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])))
      [3. 7.]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "MatVec"):
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, dtype=a.dtype, name="b")
        output = math_ops.matmul(a, array_ops.expand_dims(b, axis=-1), transpose_a=transpose_a, adjoint_a=adjoint_a)
        return array_ops.squeeze(output, axis=-1)


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse through the SVD (TF's composite: singular values at most rcond * the
    largest are dropped; rcond defaults to 10 * max(m, n) * eps).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.pinv([[2.0, 0.0], [0.0, 0.0]])))
      [[0.5 0. ]
       [0.  0. ]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "pinv"):
        a = ops.convert_to_tensor(a, name="a")
        if rcond is None:
            m, n = a.shape.as_list()[-2:]
            if m is None or n is None:
                raise ValueError("pinv needs static matrix dims when rcond is None")
            rcond = 10.0 * max(m, n) * np.finfo(a.dtype.as_numpy_dtype).eps
        rcond = ops.convert_to_tensor(rcond, dtype=a.dtype, name="rcond")
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * math_ops.reduce_max(s, axis=-1)
        s = math_ops.where_v2(
            math_ops.greater(s, array_ops.expand_dims(cutoff, -1)),
            s,
            array_ops.fill(array_ops.shape(s), np.array(np.inf, a.dtype.as_numpy_dtype)),
        )
        return math_ops.matmul(v / array_ops.expand_dims(s, -2), u, adjoint_b=True)


def cross(a, b, name=None):
    """The cross product of the 3-vectors in the last dim of `a` and `b`.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])))
      [0. 0. 1.]
    """
    return _two("Cross", a, b, name, arg_names=("a", "b"))


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """The number of singular values above `tol` (default eps * max(m, n) * the largest), as TF's composite.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]])))
      1
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "matrix_rank"):
        a = ops.convert_to_tensor(a, preferred_dtype=dtypes.float32, name="a")
        s = svd(a, compute_uv=False)
        if tol is None:
            dims = a.shape.as_list()[-2:] if a.shape.ndims is not None else [None, None]
            if None not in dims:
                m = max(dims)
            else:
                m = math_ops.reduce_max(array_ops.shape(a)[-2:])
            eps = np.finfo(a.dtype.as_numpy_dtype).eps
            tol = eps * math_ops.cast(m, a.dtype) * math_ops.reduce_max(s, axis=-1, keepdims=True)
        return math_ops.reduce_sum(math_ops.cast(math_ops.greater(s, tol), dtypes.int32), axis=-1)


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002
    """(tensor / norm, norm) with the norm kept in the reduced dims (TF's tf.linalg.normalize).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.normalize([3.0, 4.0]))[0])
      [0.6 0.8]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "normalize"):
        tensor = ops.convert_to_tensor(tensor)
        n = norm(tensor, ord, axis, keepdims=True)
        n = math_ops.cast(n, tensor.dtype)
        return tensor / n, n


def lu(input, output_idx_type=dtypes.int32, name=None):  # noqa: A002
    """(lu, p): the LU decomposition with partial pivoting of each square matrix, L's unit diagonal implied;
    input[p] = L @ U.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.lu([[1.0, 2.0], [3.0, 4.0]])).p)
      [1 0]
    """
    return _one("Lu", input, name, output_idx_type=dtypes.as_dtype(output_idx_type))


def _permute_rows(x, perm):
    # x[..., perm, :] per batch entry (TF's gather_nd over flattened batches; equal batch shapes).
    from tensorweave._src.ops import array_nd_ops as _nd

    if perm.shape.ndims == 1:
        return array_ops.gather(x, perm, axis=-2)
    shape = array_ops.shape(x)
    d, m = shape[-2], shape[-1]
    flat_x = array_ops.reshape(x, array_ops.stack([-1, d, m]))
    flat_perm = math_ops.cast(array_ops.reshape(perm, array_ops.stack([-1, d])), dtypes.int32)
    batch = array_ops.shape(flat_perm)[0]
    batch_indices = _nd.broadcast_to(array_ops.expand_dims(gen_ops.range(0, batch, 1), 1), array_ops.stack([batch, d]))
    permuted = _nd.gather_nd(flat_x, array_ops.stack([batch_indices, flat_perm], axis=-1))
    return array_ops.reshape(permuted, shape)


def _lower_unit(lower_upper):
    return matrix_set_diag(
        matrix_band_part(lower_upper, -1, 0),
        array_ops.ones(array_ops.shape(lower_upper)[:-1], dtype=lower_upper.dtype),
    )


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """X with A X = rhs from A's LU decomposition (TF's composite: permute, then two triangular solves).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     lu, p = tw.linalg.lu([[2.0, 0.0], [0.0, 4.0]])
      ...     print(sess.run(tw.linalg.lu_solve(lu, p, [[2.0], [8.0]])))
      [[1.]
       [2.]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "lu_solve"):
        lower_upper = ops.convert_to_tensor(lower_upper, preferred_dtype=dtypes.float32, name="lower_upper")
        perm = ops.convert_to_tensor(perm, preferred_dtype=dtypes.int32, name="perm")
        rhs = ops.convert_to_tensor(rhs, preferred_dtype=lower_upper.dtype, name="rhs")
        permuted_rhs = _permute_rows(rhs, perm)
        return matrix_triangular_solve(
            lower_upper, matrix_triangular_solve(_lower_unit(lower_upper), permuted_rhs), lower=False
        )


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of A from its LU decomposition (lu_solve against the identity, as TF).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.lu_matrix_inverse(*tw.linalg.lu([[2.0, 0.0], [0.0, 4.0]]))))
      [[0.5  0.  ]
       [0.   0.25]]
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "lu_matrix_inverse"):
        lower_upper = ops.convert_to_tensor(lower_upper, preferred_dtype=dtypes.float32, name="lower_upper")
        perm = ops.convert_to_tensor(perm, preferred_dtype=dtypes.int32, name="perm")
        shape = array_ops.shape(lower_upper)
        identity = array_nd_ops.eye(shape[-1], batch_shape=shape[:-2], dtype=lower_upper.dtype)
        return lu_solve(lower_upper, perm, identity)


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """A = P^-1 L U from its LU decomposition.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     print(sess.run(tw.linalg.lu_reconstruct(*tw.linalg.lu([[1.0, 2.0], [3.0, 4.0]]))))
      [[1. 2.]
       [3. 4.]]
    """
    from tensorweave._src.ops import selection_ops

    graph = ops.get_default_graph()
    with graph.name_scope(name or "lu_reconstruct"):
        lower_upper = ops.convert_to_tensor(lower_upper, preferred_dtype=dtypes.float32, name="lower_upper")
        perm = ops.convert_to_tensor(perm, preferred_dtype=dtypes.int32, name="perm")
        x = math_ops.matmul(_lower_unit(lower_upper), matrix_band_part(lower_upper, 0, -1))
        if perm.shape.ndims == 1:
            inverse = array_ops.invert_permutation(perm)
        else:
            inverse = selection_ops.argsort(perm, axis=-1)
        return _permute_rows(x, inverse)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """tf.linalg.l2_normalize: tf.nn.l2_normalize."""
    from tensorweave._src.ops import nn_ops

    return nn_ops.l2_normalize(x, axis=axis, epsilon=epsilon, name=name, dim=dim)


eye = array_nd_ops.eye
tensor_diag = array_nd_ops.diag
tensor_diag_part = array_nd_ops.diag_part
inv = matrix_inverse
det = matrix_determinant
solve = matrix_solve
triangular_solve = matrix_triangular_solve
band_part = matrix_band_part
diag = matrix_diag
diag_part = matrix_diag_part
set_diag = matrix_set_diag
transpose = matrix_transpose
