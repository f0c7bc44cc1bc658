"""TF1's custom_gradient, grad_pass_through, hessians and make_template."""

import functools
import inspect

from tensorweave._src.framework import ops
from tensorweave._src.ops import array_nd_ops, array_ops, gradients_impl


def _flatten(value):
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(_flatten(v))
        return out
    return [value]


def _pack_like(structure, flat):
    it = iter(flat)

    def build(s):
        if isinstance(s, (list, tuple)):
            return type(s)(build(v) for v in s)
        return next(it)

    return build(structure)


def custom_gradient(f=None):
    """Decorator: `f(*x)` returns `(y, grad_fn)`; gradients of y with respect to x are `grad_fn(*dy)` instead of
    the derivative of the ops f built (as TF1 in a graph: y passes through an IdentityN whose gradient is grad_fn).
    A grad_fn with a `variables` argument is called with variables=[] and returns (input_grads, [])."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError(
                "The custom_gradient decorator currently supports keywords arguments only when eager execution is enabled."
            )
        args = [ops.convert_to_tensor(x) for x in args]
        result, grad_fn = f(*args)
        flat_result = [ops.convert_to_tensor(r) for r in _flatten(result)]
        takes_variables = "variables" in inspect.signature(grad_fn).parameters
        identity = array_nd_ops.identity_n(flat_result + args)
        n = len(flat_result)

        def actual_grad_fn(op, *result_grads):
            grads = list(result_grads[:n])
            if takes_variables:
                input_grads, _ = grad_fn(*grads, variables=[])
            else:
                input_grads = grad_fn(*grads)
            input_grads = _flatten(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
            if len(input_grads) != len(args):
                raise ValueError(
                    f"custom_gradient function expected to return {len(args)} gradients, but returned "
                    f"{len(input_grads)} instead."
                )
            return [None] * n + input_grads

        out_op = identity[0].op if identity else None
        if out_op is not None:
            out_op._custom_gradient_fn = actual_grad_fn
        return _pack_like(result, identity[:n])

    return decorated


def grad_pass_through(f):
    """f's forward value with the identity as its gradient (the gradient skips f, as a straight-through
    estimator)."""

    @custom_gradient
    def _grad_pass_through_op(*args):
        def grad(*dys):
            return list(dys) if len(dys) > 1 else dys[0]

        return f(*args), grad

    return functools.wraps(f)(_grad_pass_through_op)


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False, aggregation_method=None):
    """For each x, the second derivatives of sum(ys): shape x.shape + x.shape. TF1 loops in the graph
    (while_loop); here the loop over x's elements is unrolled, so x's shape must be fully defined."""
    if not isinstance(xs, (list, tuple)):
        xs = [xs]
    kwargs = {
        "colocate_gradients_with_ops": colocate_gradients_with_ops,
        "gate_gradients": gate_gradients,
        "aggregation_method": aggregation_method,
    }
    out = []
    # No name scope, as TF's (its `name` is unused): the first derivatives are "gradients", the result a
    # top-level "Reshape_<n>".
    del name
    first = gradients_impl.gradients(ys, xs, **kwargs)
    for gradient, x in zip(first, xs):
        x_t = x.value() if hasattr(x, "_variable") else ops.convert_to_tensor(x)
        if not x_t.shape.is_fully_defined():
            raise ValueError(f"hessians needs x's shape fully defined here (no while_loop yet): {x_t.shape}")
        if gradient is None:
            raise ValueError(f"ys do not depend on {x_t.name}: its hessian is undefined (None gradient)")
        flat = array_ops.reshape(gradient, [-1])
        n = x_t.shape.num_elements()
        rows = []
        for j in range(n):
            (g,) = gradients_impl.gradients(flat[j], x, unconnected_gradients="zero", **kwargs)
            rows.append(g)
        shape = x_t.shape.as_list()
        out.append(array_ops.reshape(array_ops.stack(rows), shape + shape))
    return out


class Template:
    """make_template's callable: the first call makes func_'s variables in its own variable scope, later calls
    reuse them (a ValueError when a later call would make new ones)."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        from tensorweave._src.ops import variables

        self._func = func
        self._name = name
        self._unique_name = unique_name
        self._variable_scope = None
        if create_scope_now:  # as TF1: a variable scope only, the name scope is opened by the first call
            with variables.variable_scope(unique_name, default_name=name, auxiliary_name_scope=False) as vs:
                self._variable_scope = vs
        self._variables_created = False

    def __call__(self, *args, **kwargs):
        from tensorweave._src.ops import variables

        if self._variable_scope is not None and self._variables_created:
            # Later calls re-enter the first call's variable scope with reuse on (their ops in "<name>_1/"...).
            trainable_at_start = len(variables.trainable_variables())
            with variables.variable_scope(self._variable_scope, reuse=True):
                result = self._func(*args, **kwargs)
            trainable = variables.trainable_variables()
            if len(trainable) != trainable_at_start:
                raise ValueError(
                    "Trainable variable created when calling a template after the first time, perhaps you used "
                    f"tf.Variable when you meant tf.get_variable: {trainable[trainable_at_start:]}"
                )
            return result
        if self._variable_scope is not None:
            scope = variables.variable_scope(self._variable_scope)
        else:
            scope = variables.variable_scope(self._unique_name, default_name=self._name)
        with scope as vs:
            self._variable_scope = vs
            result = self._func(*args, **kwargs)
        self._variables_created = True
        return result

    @property
    def name(self):
        return self._name

    @property
    def variable_scope(self):
        return self._variable_scope

    @property
    def variable_scope_name(self):
        return self._variable_scope.name if self._variable_scope is not None else None

    @property
    def trainable_variables(self):
        from tensorweave._src.ops import variables

        return variables.trainable_variables(self.variable_scope_name + "/") if self._variable_scope else []

    @property
    def global_variables(self):
        from tensorweave._src.ops import variables

        return variables.global_variables(self.variable_scope_name + "/") if self._variable_scope else []

    variables = global_variables


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """A Template calling func_(*args, **kwargs) with variable sharing: variables made by the first call are
    reused by every later call."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    if custom_getter_ is not None:
        raise ValueError("make_template: custom_getter_ is not supported by tensorweave's variable_scope yet")
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_)
