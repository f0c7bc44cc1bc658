"""TF 2 names that TF1 graph-mode programs use, in their graph-mode meaning:
`TensorSpec`, `Module`, `GradientTape` (it builds gradient ops, as TensorFlow's
tape does under `disable_v2_behavior`) and `function` (tensorweave has no
function library: the Python function is traced into the caller's graph on each
call).

Example:
  >>> import tensorweave as tw
  >>> with tw.Graph().as_default():
  ...     x = tw.placeholder(tw.float32, [3])
  ...     with tw.GradientTape() as tape:
  ...         tape.watch(x)
  ...         y = tw.reduce_sum(x * x)
  ...     g = tape.gradient(y, x)
  ...     print(tw.Session().run(g, {x: [1.0, 2.0, 3.0]}))
  [2. 4. 6.]
"""

import functools
import re

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.framework import tensor_shape
from tensorweave._src.framework.type_spec import TypeSpec


class TensorSpec(TypeSpec):
    """Describes a tensor: its `shape` (a TensorShape, dims may be None), `dtype` and optional `name`."""

    __slots__ = ("_dtype", "_name", "_shape")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = tensor_shape.TensorShape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @property
    def value_type(self):
        return ops.Tensor

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of `tensor` (a Tensor or Variable): its static shape and dtype, its op's name by default."""
        if not hasattr(tensor, "dtype") or not hasattr(tensor, "shape"):
            raise TypeError(f"TensorSpec.from_tensor: expected a Tensor, got {type(tensor).__name__}")
        default = tensor.op.name if hasattr(tensor, "op") else None
        return cls(tensor.shape, tensor.dtype.base_dtype, name if name is not None else default)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, name if name is not None else spec.name)

    def is_compatible_with(self, spec_or_tensor):
        """Whether the dtypes match and the shapes are compatible (None dims match any size)."""
        other_dtype = getattr(spec_or_tensor, "dtype", None)
        if other_dtype is None or dtypes.as_dtype(other_dtype).base_dtype != self._dtype:
            return False
        return self._shape.is_compatible_with(spec_or_tensor.shape)

    def most_specific_compatible_type(self, other):
        if self._dtype != other.dtype:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return TensorSpec(self._shape.most_specific_compatible_shape(other.shape), self._dtype)

    def _key(self):
        dims = None if self._shape.ndims is None else tuple(self._shape.as_list())
        return dims, self._dtype, self._name

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        name = repr(self._name) if self._name is not None else "None"
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={name})"


def _snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


class Module:
    """A container of variables and other modules (TF's tf.Module): `variables`,
    `trainable_variables` and `submodules` are found by walking the object's
    attributes (lists, tuples and dicts included); `name_scope` is the module's
    own scope, `with_name_scope` wraps a method in it."""

    def __init__(self, name=None):
        if name is None:
            name = _snake(type(self).__name__)
        elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", name):
            raise ValueError(f"'{name}' is not a valid module name; it must be a valid Python identifier")
        self._name = name
        with ops.name_scope(name) as scope:
            self._scope_name = scope

    @property
    def name(self):
        return self._name

    @property
    def name_scope(self):
        """The module's name scope (re-entered, never made unique again)."""
        return ops.name_scope(self._scope_name)

    def _walk(self, want):
        """Matches among the attributes (sorted by name), then in the
        submodules found, breadth first, as TensorFlow orders them."""
        seen, queue = {id(self)}, [self]
        while queue:
            module, found = queue.pop(0), []
            for key in sorted(vars(module)):
                yield from _flatten(vars(module)[key], want, seen, found)
            for sub in found:
                if id(sub) not in seen or want(sub):
                    seen.add(id(sub))
                    queue.append(sub)

    @property
    def variables(self):
        from tensorweave._src.ops.variables import Variable

        return tuple(self._walk(lambda v: isinstance(v, Variable)))

    @property
    def trainable_variables(self):
        from tensorweave._src.ops.variables import Variable

        return tuple(self._walk(lambda v: isinstance(v, Variable) and getattr(v, "trainable", True)))

    @property
    def non_trainable_variables(self):
        from tensorweave._src.ops.variables import Variable

        return tuple(self._walk(lambda v: isinstance(v, Variable) and not getattr(v, "trainable", True)))

    @property
    def submodules(self):
        return tuple(self._walk(lambda v: isinstance(v, Module)))

    @classmethod
    def with_name_scope(cls, method):
        @functools.wraps(method)
        def wrapped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return wrapped

    def __repr__(self):
        return f"<{type(self).__module__}.{type(self).__name__} object named {self._name!r}>"


def _flatten(value, want, seen, submodules):
    """Matches in `value` (containers walked), submodules noted for later."""
    if id(value) in seen:
        return
    if want(value):
        seen.add(id(value))
        yield value
    if isinstance(value, Module):
        submodules.append(value)
    elif isinstance(value, dict):
        for key in sorted(value, key=str):
            yield from _flatten(value[key], want, seen, submodules)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _flatten(item, want, seen, submodules)


class GradientTape:
    """Gradients of what runs inside the tape, built as graph ops (TF's
    GradientTape in graph mode). Trainable variables are watched automatically
    (`watch_accessed_variables=True`), other tensors through `watch`; a
    source that is not watched gets None. Without `persistent=True` one
    `gradient` call is allowed."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_variables = watch_accessed_variables
        self._watched = []
        self._used = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def watch(self, tensor):
        """Watches a tensor, variable or nested structure of them."""
        from tensorweave._src.framework import nest

        for t in nest.flatten(tensor):
            if not hasattr(t, "dtype"):
                raise ValueError(f"GradientTape.watch: {t!r} is not a Tensor or Variable")
            if not t.dtype.base_dtype.is_floating and not t.dtype.base_dtype.is_complex:
                continue  # as TF: only floating and complex tensors are watched
            if not any(t is w for w in self._watched):
                self._watched.append(t)

    def watched_variables(self):
        from tensorweave._src.ops.variables import Variable

        return tuple(w for w in self._watched if isinstance(w, Variable))

    def reset(self):
        """Forgets what was watched."""
        self._watched = []

    def _is_watched(self, source):
        from tensorweave._src.ops.variables import Variable

        if any(source is w for w in self._watched):
            return True
        return self._watch_variables and isinstance(source, Variable) and getattr(source, "trainable", True)

    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """d target / d sources, in the structure of `sources`."""
        from tensorweave._src.framework import nest
        from tensorweave._src.ops import gradients_impl

        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
            )
        self._used = True
        flat_sources = nest.flatten(sources)
        watched = [s for s in flat_sources if self._is_watched(s)]
        grads = iter(
            gradients_impl.gradients(
                nest.flatten(target),
                watched,
                grad_ys=None if output_gradients is None else nest.flatten(output_gradients),
                unconnected_gradients=unconnected_gradients,
            )
            if watched
            else []
        )
        flat = [next(grads) if self._is_watched(s) else None for s in flat_sources]
        return nest.pack_sequence_as(sources, flat)

    def jacobian(
        self, target, sources, unconnected_gradients="none", parallel_iterations=None, experimental_use_pfor=True
    ):
        """d target[i...] / d sources[j...]: shape target.shape + source.shape
        (target's shape must be fully known)."""
        from tensorweave._src.framework import nest
        from tensorweave._src.ops import array_ops
        from tensorweave._src.ops import gradients_impl

        del parallel_iterations, experimental_use_pfor
        if self._used and not self._persistent:
            raise RuntimeError(
                "A non-persistent GradientTape can only be used to compute one set of gradients (or jacobians)"
            )
        self._used = True
        if not target.shape.is_fully_defined():
            raise ValueError(f"GradientTape.jacobian: the target's shape {target.shape} must be fully known")
        flat_sources = nest.flatten(sources)
        rows = array_ops.unstack(array_ops.reshape(target, [-1])) if target.shape.num_elements() else []
        out = []
        for s in flat_sources:
            if not self._is_watched(s):
                out.append(None)
                continue
            per_row = [gradients_impl.gradients(r, [s], unconnected_gradients="zero")[0] for r in rows]
            shape = target.shape.as_list() + s.shape.as_list()
            stacked = array_ops.stack(per_row) if per_row else array_ops.zeros(shape, s.dtype.base_dtype)
            out.append(array_ops.reshape(stacked, shape))
        return nest.pack_sequence_as(sources, out)


def function(
    func=None,
    input_signature=None,
    autograph=True,
    jit_compile=None,
    reduce_retracing=False,
    experimental_implements=None,
    experimental_autograph_options=None,
    experimental_attributes=None,
    experimental_relax_shapes=None,
    experimental_compile=None,
    experimental_follow_type_hints=None,
):
    """TF's `tf.function` in a TF1 graph: each call traces `func` into the
    caller's graph under a name scope of its name (tensorweave has no function
    library, so Python side effects run on every call). `input_signature`
    (TensorSpecs) is checked against the arguments."""
    del autograph, jit_compile, reduce_retracing, experimental_implements, experimental_autograph_options
    del experimental_attributes, experimental_relax_shapes, experimental_compile, experimental_follow_type_hints

    def decorate(fn):
        name = getattr(fn, "__name__", "function")

        @functools.wraps(fn)
        def traced(*args, **kwargs):
            if input_signature is not None:
                _check_signature(name, input_signature, args)
            with ops.name_scope(name):
                return fn(*args, **kwargs)

        traced.python_function = fn
        traced.input_signature = input_signature
        return traced

    return decorate if func is None else decorate(func)


def _check_signature(name, signature, args):
    from tensorweave._src.framework import nest

    specs, values = nest.flatten(signature), nest.flatten(list(args))
    if len(specs) != len(values):
        raise TypeError(f"{name}: input_signature has {len(specs)} tensors, the call passed {len(values)}")
    for spec, value in zip(specs, values):
        value = ops.convert_to_tensor(value, dtype=spec.dtype)
        if not spec.is_compatible_with(value):
            raise ValueError(f"{name}: argument {value} is not compatible with {spec} of the input_signature")
