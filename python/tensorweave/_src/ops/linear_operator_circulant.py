"""tf.linalg.LinearOperatorCirculant, LinearOperatorCirculant2D and LinearOperatorCirculant3D, as TensorFlow's
`linear_operator_circulant.py` (graph mode).

A [[nested] block] circulant operator is known by its spectrum [B1, ..., Bb, N1, ..., Nd] (d = block depth): it
acts as x -> IFFT(spectrum * FFT(x)) over the d block dims, so it is N x N with N = N1 * ... * Nd, its
eigenvalues are the spectrum, products and solves go through the FFT ops and the determinant is the product of
the spectrum. A real spectrum (or a Hermitian one, for a real operator) gives a self-adjoint operator.
"""

import numpy as np

import tensorweave as _tw  # the public namespace; used only when a method runs (after package import)
from tensorweave._src.framework import dtypes
from tensorweave._src.ops.linear_operator import LinearOperator, _dim

_FFT = {1: "fft", 2: "fft2d", 3: "fft3d"}
_IFFT = {1: "ifft", 2: "ifft2d", 3: "ifft3d"}


def _to_complex(x):
    if x.dtype.is_complex:
        return x
    return _tw.cast(x, _tw.complex128 if x.dtype == _tw.float64 else _tw.complex64)


def _cast_from_complex(x, dtype):
    """x (complex) as dtype: the real part for a real dtype, as TF's cast."""
    if dtype.is_complex:
        return _tw.cast(x, dtype)
    return _tw.cast(_tw.math.real(x), dtype)


def _rotate_transpose(x, shift):
    """x with its last dim moved to the front (shift=1) or its first dim to the end (shift=-1)."""
    rank = x.shape.rank
    if rank is not None:
        perm = list(range(rank))
        perm = perm[-1:] + perm[:-1] if shift == 1 else perm[1:] + perm[:1]
        return _tw.transpose(x, perm)
    r = _tw.rank(x)
    if shift == 1:
        perm = _tw.concat([[r - 1], _tw.range(r - 1)], 0)
    else:
        perm = _tw.concat([_tw.range(1, r), [0]], 0)
    return _tw.transpose(x, perm)


class _BaseLinearOperatorCirculant(LinearOperator):
    """The circulant operators of block depth 1, 2 or 3 (use the public subclasses)."""

    def __init__(
        self,
        spectrum,
        block_depth,
        input_output_dtype=dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        parameters=None,
        name="LinearOperatorCirculant",
    ):
        if block_depth not in (1, 2, 3):
            raise ValueError(f"Expected block_depth to be one of [1, 2, 3]. Found: {block_depth}.")
        self._block_depth = block_depth
        with _tw.name_scope(name):
            self._spectrum = _tw.convert_to_tensor(spectrum, name="spectrum")
            allowed = (_tw.float16, _tw.float32, _tw.float64, _tw.complex64, _tw.complex128)
            if self._spectrum.dtype not in allowed:
                raise TypeError(
                    f"Argument spectrum must have dtype in {[d.name for d in allowed]}.  "
                    f"Found: {self._spectrum.dtype.name}"
                )
            rank = self._spectrum.shape.rank
            if rank is not None and rank < block_depth:
                raise ValueError(f"Argument spectrum must have at least {block_depth} dimensions.  Found: {spectrum}")
            if not self._spectrum.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real spectrum always corresponds to a self-adjoint operator.")
                is_self_adjoint = True
            if is_square is False:
                raise ValueError("A [[nested] block] circulant operator is always square.")
            is_square = True
        super().__init__(
            dtype=_tw.as_dtype(input_output_dtype),
            is_non_singular=is_non_singular,
            is_self_adjoint=is_self_adjoint,
            is_positive_definite=is_positive_definite,
            is_square=is_square,
            parameters=parameters,
            name=name,
        )

    # ------------------------------------------------------------------------------------ properties
    @property
    def spectrum(self):
        return self._spectrum

    @property
    def block_depth(self):
        """The number of nested block levels: 1, 2 or 3."""
        return self._block_depth

    @property
    def block_shape(self):
        """The static shape of the block dims of the spectrum, [N1, ..., Nd]."""
        return self._spectrum.shape[-self._block_depth :]

    def block_shape_tensor(self):
        """The block dims of the spectrum as an int32 Tensor [d]."""
        return self._block_shape_tensor()

    def _block_shape_tensor(self, spectrum_shape=None):
        if self.block_shape.is_fully_defined():
            return _tw.constant(self.block_shape.as_list(), dtype=_tw.int32, name="block_shape")
        spectrum_shape = _tw.shape(self._spectrum) if spectrum_shape is None else spectrum_shape
        return spectrum_shape[-self._block_depth :]

    def _shape(self):
        s_shape = self._spectrum.shape
        if s_shape.rank is None:
            return _tw.TensorShape(None)
        trailing = s_shape[-self._block_depth :]
        n = int(np.prod(trailing.as_list())) if trailing.is_fully_defined() else None
        return s_shape[: -self._block_depth].concatenate([n, n])

    def _shape_tensor(self, spectrum=None):
        s_shape = _tw.shape(self._spectrum if spectrum is None else spectrum)
        n = _tw.reduce_prod(s_shape[-self._block_depth :])
        return _tw.concat([s_shape[: -self._block_depth], [n, n]], 0)

    # ------------------------------------------------------------------------------------ the FFT form
    def _fft(self, x):
        return getattr(_tw.signal, _FFT[self._block_depth])(_to_complex(x))

    def _ifft(self, x):
        return getattr(_tw.signal, _IFFT[self._block_depth])(_to_complex(x))

    def convolution_kernel(self, name="convolution_kernel"):
        """The kernel h whose d-dimensional DFT is the spectrum (IFFT(spectrum)), as the operator's dtype."""
        with self._name_scope(name):
            return _cast_from_complex(self._ifft(self._spectrum), self.dtype)

    def _vectorize_then_blockify(self, matrix):
        """[..., N, R] -> [R, ..., N1, ..., Nd]: the columns as a batch of vectors, each in block form."""
        vec = _rotate_transpose(matrix, shift=1)
        if vec.shape.is_fully_defined() and self.block_shape.is_fully_defined():
            return _tw.reshape(vec, vec.shape[:-1].concatenate(self.block_shape).as_list())
        return _tw.reshape(vec, _tw.concat([_tw.shape(vec)[:-1], self.block_shape_tensor()], 0))

    def _unblockify_then_matricize(self, vec):
        """[R, ..., N1, ..., Nd] -> [..., N, R]."""
        d = self._block_depth
        if vec.shape.is_fully_defined():
            dims = vec.shape.as_list()
            flat = _tw.reshape(vec, dims[:-d] + [int(np.prod(dims[-d:]))])
        else:
            shape = _tw.shape(vec)
            flat = _tw.reshape(vec, _tw.concat([shape[:-d], [_tw.reduce_prod(shape[-d:])]], 0))
        return _rotate_transpose(flat, shift=-1)

    def _unblockify(self, x):
        """[..., N1, ..., Nd] -> [..., N]."""
        d = self._block_depth
        if x.shape.is_fully_defined():
            dims = x.shape.as_list()
            return _tw.reshape(x, dims[:-d] + [int(np.prod(dims[-d:]))])
        shape = _tw.shape(x)
        return _tw.reshape(x, _tw.concat([shape[:-d], [_tw.reduce_prod(shape[-d:])]], 0))

    def _broadcast_batch_dims(self, x, spectrum):
        """x [..., N, R] and spectrum [..., N1, ..., Nd] with their batch dims broadcast together."""
        d = self._block_depth
        s_shape, x_shape = spectrum.shape, x.shape
        if s_shape.is_fully_defined() and x_shape.is_fully_defined():
            batch = _tw.broadcast_static_shape(x_shape[:-2], s_shape[:-d])
            if x_shape[:-2] != batch:
                x = _tw.broadcast_to(x, batch.concatenate(x_shape[-2:]).as_list())
            if s_shape[:-d] != batch:
                spectrum = _tw.broadcast_to(spectrum, batch.concatenate(s_shape[-d:]).as_list())
            return x, spectrum
        s_dyn, x_dyn = _tw.shape(spectrum), _tw.shape(x)
        batch = _tw.broadcast_dynamic_shape(x_dyn[:-2], s_dyn[:-d])
        x = _tw.broadcast_to(x, _tw.concat([batch, x_dyn[-2:]], 0))
        spectrum = _tw.broadcast_to(spectrum, _tw.concat([batch, s_dyn[-d:]], 0))
        return x, spectrum

    # ------------------------------------------------------------------------------------ actions
    def _apply(self, x, adjoint, adjoint_arg, divide):
        x = _tw.linalg.adjoint(x) if adjoint_arg else x
        spectrum = _to_complex(self._spectrum)
        if adjoint:
            spectrum = _tw.math.conj(spectrum)
        x = _tw.cast(x, spectrum.dtype)
        x, spectrum = self._broadcast_batch_dims(x, spectrum)
        fft_x = self._fft(self._vectorize_then_blockify(x))
        result = self._ifft(fft_x / spectrum if divide else spectrum * fft_x)
        return _cast_from_complex(self._unblockify_then_matricize(result), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._apply(x, adjoint, adjoint_arg, divide=False)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._apply(rhs, adjoint, adjoint_arg, divide=True)

    def _solvevec(self, rhs, adjoint=False):
        return _tw.squeeze(self._solve(rhs[..., None], adjoint=adjoint), axis=-1)

    def _block_axes(self):
        return [-(i + 1) for i in range(self._block_depth)]

    def _determinant(self):
        return _cast_from_complex(_to_complex(_tw.reduce_prod(self._spectrum, axis=self._block_axes())), self.dtype)

    def _log_abs_determinant(self):
        lad = _tw.reduce_sum(_tw.log(_tw.abs(self._spectrum)), axis=self._block_axes())
        return _tw.cast(lad, self.dtype)

    def _trace(self):
        # Every diagonal entry is the mean of the spectrum: the trace is its sum.
        real = _tw.reduce_sum(_tw.math.real(self._spectrum), axis=self._block_axes())
        if not self.dtype.is_complex:
            return _tw.cast(real, self.dtype)
        if self._spectrum.dtype.is_complex:
            imag = _tw.reduce_sum(_tw.math.imag(self._spectrum), axis=self._block_axes())
        else:
            imag = _tw.zeros_like(real)
        return _tw.cast(_tw.complex(real, imag), self.dtype)

    def _diag_part(self):
        if self.shape.is_fully_defined():
            diag_shape, diag_size = self.shape[:-1].as_list(), _dim(self.domain_dimension)
        else:
            diag_shape, diag_size = self.shape_tensor()[:-1], self.domain_dimension_tensor()
        ones = _tw.ones(diag_shape, dtype=self.dtype)
        return (self.trace() / _tw.cast(diag_size, self.dtype))[..., None] * ones

    def _to_dense(self):
        n = _dim(self.domain_dimension)
        n = self.domain_dimension_tensor() if n is None else n
        return self._matmul(_tw.eye(n, dtype=self.dtype))

    def _eigvals(self):
        return self._unblockify(self._spectrum)

    def _cond(self):
        singular_values = _tw.abs(self._unblockify(self._spectrum))
        return _tw.reduce_max(singular_values, axis=-1) / _tw.reduce_min(singular_values, axis=-1)

    # ------------------------------------------------------------------------------------ asserts
    def _assert_non_singular(self):
        return _tw.debugging.assert_greater(
            _tw.abs(self._spectrum),
            _tw.zeros([], _tw.abs(self._spectrum).dtype),
            message="Singular operator:  Spectrum contained zero values.",
        )

    def _assert_positive_definite(self):
        return _tw.debugging.assert_positive(
            _tw.math.real(self._spectrum), message="Not positive definite:  Real part of spectrum was not all positive."
        )

    def _assert_self_adjoint(self):
        imag = _tw.math.imag(_to_complex(self._spectrum))
        return _tw.debugging.assert_equal(
            imag,
            _tw.zeros_like(imag),
            message="Not self-adjoint:  The spectrum contained non-zero imaginary part.",
        )

    def assert_hermitian_spectrum(self, name="assert_hermitian_spectrum"):
        """An op failing when run unless the spectrum is Hermitian (the operator then is a real matrix)."""
        eps = np.finfo(self.dtype.real_dtype.as_numpy_dtype).eps
        with self._name_scope(name):
            max_err = eps * _tw.cast(self.domain_dimension_tensor(), self.dtype.real_dtype)
            kernel = self._ifft(self._spectrum)
            return _tw.debugging.assert_less(
                _tw.cast(_tw.abs(_tw.math.imag(kernel)), self.dtype.real_dtype),
                max_err,
                message="Spectrum was not Hermitian",
            )

    # ------------------------------------------------------------------------------------ derived operators
    def _with_spectrum(self, spectrum, **hints):
        return _BaseLinearOperatorCirculant(
            spectrum,
            block_depth=self._block_depth,
            input_output_dtype=self.dtype,
            is_square=True,
            name=self.name,
            **hints,
        )

    def _linop_adjoint(self):
        spectrum = self._spectrum
        if spectrum.dtype.is_complex:
            spectrum = _tw.math.conj(spectrum)
        return self._with_spectrum(
            spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
        )

    def _linop_inverse(self):
        return self._with_spectrum(
            1.0 / self._spectrum,
            is_non_singular=self.is_non_singular,
            is_self_adjoint=self.is_self_adjoint,
            is_positive_definite=self.is_positive_definite,
        )


def _init_circulant(op, block_depth, arguments):
    """The body of each public circulant's __init__: its arguments (TF's `parameters`) to the base's."""
    parameters = {k: v for k, v in arguments.items() if k != "self"}
    _BaseLinearOperatorCirculant.__init__(op, block_depth=block_depth, parameters=parameters, **parameters)


class LinearOperatorCirculant(_BaseLinearOperatorCirculant):
    """The circulant operator [B1, ..., Bb, N, N] of spectrum [B1, ..., Bb, N] (the DFT of its first column).

    input_output_dtype is the dtype of the matrix and of what matmul/solve take and return (complex64 by
    default; a real dtype when the spectrum is Hermitian).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorCirculant([6.0, -1.5, -1.5], input_output_dtype=tw.float32)
      ...     print(sess.run(op.to_dense()).round(4))
      [[1.  2.5 2.5]
       [2.5 1.  2.5]
       [2.5 2.5 1. ]]
    """

    def __init__(
        self,
        spectrum,
        input_output_dtype=dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name="LinearOperatorCirculant",
    ):
        _init_circulant(self, 1, locals())


class LinearOperatorCirculant2D(_BaseLinearOperatorCirculant):
    """The block circulant operator with circulant blocks [B1, ..., Bb, N, N] (N = N1 * N2) of spectrum
    [B1, ..., Bb, N1, N2] (its 2-D DFT kernel).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorCirculant2D([[1.0, 2.0], [3.0, 4.0]], input_output_dtype=tw.float32)
      ...     print(op.shape, sess.run(op.determinant()))
      (4, 4) 24.0
    """

    def __init__(
        self,
        spectrum,
        input_output_dtype=dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name="LinearOperatorCirculant2D",
    ):
        _init_circulant(self, 2, locals())


class LinearOperatorCirculant3D(_BaseLinearOperatorCirculant):
    """The doubly nested block circulant operator [B1, ..., Bb, N, N] (N = N1 * N2 * N3) of spectrum
    [B1, ..., Bb, N1, N2, N3] (its 3-D DFT kernel).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     op = tw.linalg.LinearOperatorCirculant3D(tw.ones([2, 2, 2]), input_output_dtype=tw.float32)
      ...     print(op.shape, sess.run(op.trace()))
      (8, 8) 8.0
    """

    def __init__(
        self,
        spectrum,
        input_output_dtype=dtypes.complex64,
        is_non_singular=None,
        is_self_adjoint=None,
        is_positive_definite=None,
        is_square=True,
        name="LinearOperatorCirculant3D",
    ):
        _init_circulant(self, 3, locals())
