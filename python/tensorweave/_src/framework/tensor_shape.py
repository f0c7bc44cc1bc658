"""TensorShape and Dimension: a shape as graph construction knows it, with TensorFlow v1's semantics.

A `TensorShape` has an unknown rank or a list of dims; each dim is a `Dimension` whose value is an int or None
(unknown). As in TF1, indexing a shape gives a `Dimension` (`x.shape[1].value`), slicing gives a `TensorShape`,
and arithmetic and comparisons on dimensions propagate unknowns (`Dimension(None) + 1` is unknown,
`Dimension(None) == 3` is None).
"""

import functools
import operator


class Dimension:
    """The size of one dimension of a `TensorShape`: an int >= 0, or unknown (None).

    Example:
      >>> import tensorweave as tw
      >>> d = tw.Dimension(6)
      >>> (d // 2).value, (d + tw.Dimension(None)).value, str(tw.Dimension(None))
      (3, None, '?')
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, int):
            if value < 0:
                raise ValueError(f"Dimension {value} must be >= 0")
            self._value = value
        elif value is None:
            self._value = None
        elif isinstance(value, Dimension):
            self._value = value._value
        else:
            try:
                self._value = int(value.__index__())
            except AttributeError:
                raise TypeError(
                    f"Dimension value must be integer or None or have an __index__ method, "
                    f"got value '{value!r}' with type '{type(value)!r}'"
                ) from None
            if self._value < 0:
                raise ValueError(f"Dimension {self._value} must be >= 0")

    @property
    def value(self):
        """The size as an int, or None when unknown."""
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        return self._value  # int() of an unknown dimension raises TypeError, as in TF

    def __index__(self):
        return self._value

    def __bool__(self):
        return bool(self._value)

    def __reduce__(self):
        return Dimension, (self._value,)

    def is_compatible_with(self, other):
        """True when the two could be the same size (either is unknown, or they are equal)."""
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other):
        """The more specific of two compatible dimensions; ValueError when they differ."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(other.value if self._value is None else self._value)

    def _binary(self, other, fn, reverse=False):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(other.value, self._value) if reverse else fn(self._value, other.value))

    def __add__(self, other):
        return self._binary(other, operator.add)

    def __radd__(self, other):
        return self._binary(other, operator.add, reverse=True)

    def __sub__(self, other):
        return self._binary(other, operator.sub)

    def __rsub__(self, other):
        return self._binary(other, operator.sub, reverse=True)

    def __mul__(self, other):
        return self._binary(other, operator.mul)

    def __rmul__(self, other):
        return self._binary(other, operator.mul, reverse=True)

    def __floordiv__(self, other):
        return self._binary(other, operator.floordiv)

    def __rfloordiv__(self, other):
        return self._binary(other, operator.floordiv, reverse=True)

    def __mod__(self, other):
        return self._binary(other, operator.mod)

    def __rmod__(self, other):
        return self._binary(other, operator.mod, reverse=True)

    def __truediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', please use // instead"
        )

    def __rtruediv__(self, other):
        raise TypeError(
            f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', please use // instead"
        )

    def _compare(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return fn(self._value, other.value)

    def __eq__(self, other):
        return self._compare(other, operator.eq)

    def __ne__(self, other):
        return self._compare(other, operator.ne)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    __hash__ = None  # as in TF: `==` is three-valued, so dimensions are not hashable


def as_dimension(value):
    """`value` as a Dimension (a Dimension is returned as is)."""
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension):
    """The int (or None) of a Dimension; ints and None pass through.

    Example:
      >>> import tensorweave as tw
      >>> tw.dimension_value(tw.TensorShape([None, 3])[1])
      3
    """
    if isinstance(dimension, Dimension):
        return dimension.value
    return dimension


def dimension_at_index(shape, index):
    """The Dimension at `index` of `shape`; unknown when the rank is unknown."""
    shape = as_shape(shape)
    if shape.rank is None:
        return Dimension(None)
    return shape.dims[index]


class TensorShape:
    """The static shape of a tensor: an unknown rank, or a list of Dimensions (each an int or unknown).

    Example:
      >>> import tensorweave as tw
      >>> s = tw.TensorShape([None, 3])
      >>> s.as_list(), s[1].value, str(s), s.ndims
      ([None, 3], 3, '(?, 3)', 2)
    """

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, (tuple, list)):
            self._dims = tuple(as_dimension(d).value for d in dims)
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            try:
                items = iter(dims)
            except TypeError:
                self._dims = (as_dimension(dims).value,)  # a single number means a rank-1 shape
            else:
                values = []
                for d in items:
                    try:
                        values.append(as_dimension(d).value)
                    except TypeError as e:
                        raise TypeError(
                            f"Failed to convert '{dims!r}' to a shape: '{d!r}' could not be converted to a "
                            "dimension. A shape should either be single dimension (e.g. 10), or an iterable of "
                            "dimensions (e.g. [1, 10, None])."
                        ) from e
                self._dims = tuple(values)

    @property
    def rank(self):
        """The number of dims, or None when the rank is unknown."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self):
        return self.rank

    @property
    def dims(self):
        """The dims as a list of Dimensions, or None when the rank is unknown."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def as_list(self):
        """The dims as a list of ints and None; ValueError when the rank is unknown."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({self.dims!r})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({Dimension(self._dims[0])},)"
        return "(" + ", ".join(str(Dimension(d)) for d in self._dims) + ")"

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self.dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return Dimension(self._dims[key])
        if isinstance(key, slice):
            start = key.start if key.start is not None else 0
            stop = key.stop
            if key.step is not None:
                raise ValueError("Steps are not yet handled")
            if stop is None or start < 0 or stop < 0:
                return unknown_shape()
            return unknown_shape(rank=stop - start)
        return Dimension(None)

    def num_elements(self):
        """The product of the dims, or None unless the shape is fully defined."""
        if not self.is_fully_defined():
            return None
        return functools.reduce(operator.mul, self._dims, 1)

    def is_fully_defined(self):
        return self._dims is not None and all(d is not None for d in self._dims)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def is_compatible_with(self, other):
        """True when some fully known shape matches both."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None:
            if len(self._dims) != len(other._dims):
                return False
            return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims))
        return True

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both; ValueError when they conflict."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        try:
            self.assert_same_rank(other)
            return TensorShape([a.merge_with(b) for a, b in zip(self.dims, other.dims)])
        except ValueError:
            raise ValueError(f"Shapes {self} and {other} are not compatible") from None

    def most_specific_compatible_shape(self, other):
        """The most specific shape that both are compatible with."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return unknown_shape()
        return TensorShape([a if a is not None and a == b else None for a, b in zip(self._dims, other._dims)])

    def concatenate(self, other):
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape(self._dims + other._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def assert_same_rank(self, other):
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank):
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank):
        try:
            return self.merge_with(unknown_shape(rank=rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank):
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self):
        return hash(self._dims)

    def __reduce__(self):
        return TensorShape, (self._dims,)


def as_shape(shape):
    """`shape` as a TensorShape (a TensorShape is returned as is)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None, **kwargs):
    """A shape of unknown rank, or of known `rank` with every dim unknown."""
    if rank is None and "ndims" in kwargs:
        rank = kwargs.pop("ndims")
    if kwargs:
        raise TypeError(f"Unknown argument: {kwargs}")
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


def scalar():
    return TensorShape([])


def as_attr(shape):
    """The dims of `shape` as the graph's shape attr takes them: a list of ints and None, or None (unknown rank)."""
    shape = as_shape(shape)
    return None if shape.rank is None else shape.as_list()
