"""tw.linalg: linear algebra with TensorFlow 1's tf.linalg names, batched over the leading dims.

Factorizations, solves and determinants are single ops (Eigen's dense decompositions in the C++ core);
the rest are TensorFlow's composites of them. Gradients follow TensorFlow's formulas.

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default(), tw.Session() as sess:
  ...     print(round(float(sess.run(tw.linalg.det([[1.0, 2.0], [3.0, 4.0]]))), 4))
  -2.0
"""

from tensorweave._src.ops import linalg_grad as _linalg_grad  # noqa: F401
from tensorweave._src.ops.linalg_ops import (
    adjoint,
    band_part,
    cholesky,
    cholesky_solve,
    cross,
    det,
    diag,
    diag_part,
    eigh,
    eigvalsh,
    eye,
    inv,
    l2_normalize,
    logdet,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_rank,
    matrix_transpose,
    matvec,
    norm,
    normalize,
    pinv,
    qr,
    set_diag,
    slogdet,
    solve,
    svd,
    tensor_diag,
    tensor_diag_part,
    trace,
    transpose,
    triangular_solve,
)
from tensorweave._src.ops.einsum_ops import einsum, tensordot
from tensorweave._src.ops.linalg_extra_ops import (
    eigh_tridiagonal,
    tridiagonal_matmul,
    tridiagonal_solve,
)
from tensorweave._src.ops.linalg_extra_ops import matrix_exponential as expm
from tensorweave._src.ops.linalg_extra_ops import matrix_square_root as sqrtm
from tensorweave._src.ops.linalg_logm_ops import matrix_logarithm as logm
from tensorweave._src.ops.linear_operator import LinearOperator
from tensorweave._src.ops.linear_operator_basic import (
    LinearOperatorDiag,
    LinearOperatorFullMatrix,
    LinearOperatorIdentity,
    LinearOperatorLowerTriangular,
    LinearOperatorScaledIdentity,
    LinearOperatorZeros,
)
from tensorweave._src.ops.linear_operator_circulant import (
    LinearOperatorCirculant,
    LinearOperatorCirculant2D,
    LinearOperatorCirculant3D,
)
from tensorweave._src.ops.linear_operator_structured import (
    LinearOperatorAdjoint,
    LinearOperatorBlockDiag,
    LinearOperatorBlockLowerTriangular,
    LinearOperatorComposition,
    LinearOperatorHouseholder,
    LinearOperatorInversion,
    LinearOperatorKronecker,
    LinearOperatorLowRankUpdate,
    LinearOperatorPermutation,
    LinearOperatorToeplitz,
    LinearOperatorTridiag,
)
from tensorweave._src.ops.math_ops import matmul
from tensorweave._src.training.gradient_clipping import global_norm

__all__ = [
    "LinearOperator",
    "LinearOperatorAdjoint",
    "LinearOperatorBlockDiag",
    "LinearOperatorBlockLowerTriangular",
    "LinearOperatorCirculant",
    "LinearOperatorCirculant2D",
    "LinearOperatorCirculant3D",
    "LinearOperatorComposition",
    "LinearOperatorDiag",
    "LinearOperatorFullMatrix",
    "LinearOperatorHouseholder",
    "LinearOperatorIdentity",
    "LinearOperatorInversion",
    "LinearOperatorKronecker",
    "LinearOperatorLowRankUpdate",
    "LinearOperatorLowerTriangular",
    "LinearOperatorPermutation",
    "LinearOperatorScaledIdentity",
    "LinearOperatorToeplitz",
    "LinearOperatorTridiag",
    "LinearOperatorZeros",
    "adjoint",
    "band_part",
    "cholesky",
    "cholesky_solve",
    "cross",
    "det",
    "diag",
    "diag_part",
    "eigh",
    "eigh_tridiagonal",
    "eigvalsh",
    "einsum",
    "expm",
    "eye",
    "global_norm",
    "inv",
    "l2_normalize",
    "logdet",
    "lstsq",
    "logm",
    "lu",
    "lu_matrix_inverse",
    "lu_reconstruct",
    "lu_solve",
    "matmul",
    "matrix_rank",
    "matrix_transpose",
    "matvec",
    "norm",
    "normalize",
    "pinv",
    "qr",
    "set_diag",
    "slogdet",
    "solve",
    "sqrtm",
    "svd",
    "tensordot",
    "tensor_diag",
    "tensor_diag_part",
    "trace",
    "transpose",
    "triangular_solve",
    "tridiagonal_matmul",
    "tridiagonal_solve",
]
