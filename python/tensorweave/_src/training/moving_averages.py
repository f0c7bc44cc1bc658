"""Exponential moving averages of variables and tensors (TensorFlow v1's `moving_averages`)."""

from tensorweave._src.framework import dtypes
from tensorweave._src.framework import ops
from tensorweave._src.ops import init_ops
from tensorweave._src.ops import math_ops
from tensorweave._src.ops import state_ops
from tensorweave._src.ops import variables
from tensorweave._src.training import optimizer

GraphKeys = ops.GraphKeys


def _zero_debias(unbiased, value, decay):
    """Updates `unbiased` to the zero-debiased average of `value` (Adam's bias correction): a "biased" average
    starting at 0 and a "local_step" counter beside it, both named under `unbiased`."""
    graph = unbiased.graph
    with optimizer._outside_scopes(graph, colocate_with=unbiased):
        biased = variables.Variable(
            init_ops.zeros_initializer()(unbiased.shape.as_list(), dtype=unbiased.dtype.base_dtype),
            trainable=False,
            name=f"{unbiased.op.name}/biased",
        )
        local_step = variables.Variable(
            init_ops.zeros_initializer()([], dtype=unbiased.dtype.base_dtype),
            trainable=False,
            name=f"{unbiased.op.name}/local_step",
        )
    update_biased = state_ops.assign_sub(biased, (biased - value) * decay)
    update_local_step = state_ops.assign_add(local_step, 1.0)
    # `decay` here is 1 - the average's decay.
    bias_factor = 1 - math_ops.pow(1.0 - decay, update_local_step)
    return state_ops.assign(unbiased, update_biased / bias_factor)


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """variable -= (1 - decay) * (variable - value), an op returning the new average; with `zero_debias` the
    average is divided by 1 - decay^t (t the number of updates), so it does not start biased towards 0.

    Example:
      >>> import tensorweave as tw
      >>> from tensorweave._src.training import moving_averages
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     avg = tw.Variable(0.0, name="avg")
      ...     update = moving_averages.assign_moving_average(avg, 4.0, 0.75, zero_debias=False)
      ...     sess.run(tw.global_variables_initializer())
      ...     print(sess.run(update))
      1.0
    """
    graph = ops.get_default_graph()
    with graph.name_scope(name or "AssignMovingAvg") as scope:
        decay = ops.convert_to_tensor(1.0 - decay, name="decay")
        if decay.dtype != variable.dtype.base_dtype:
            decay = math_ops.cast(decay, variable.dtype.base_dtype)
        value = ops.convert_to_tensor(value, dtype=variable.dtype.base_dtype)
        if zero_debias:
            return _zero_debias(variable, value, decay)
        return state_ops.assign_sub(variable, (variable - value) * decay, name=scope)


class ExponentialMovingAverage:
    """Keeps moving averages of variables (and tensors): `apply(var_list)` makes a shadow variable per input,
    named `<var>/<name>` and starting at the variable's initial value (at 0 for a tensor, zero-debiased when
    `zero_debias`), and
    returns an op that updates every shadow by shadow -= (1 - decay) * (shadow - var). With `num_updates`
    the decay is min(decay, (1 + num_updates) / (10 + num_updates)).

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default(), tw.Session() as sess:
      ...     w = tw.Variable(1.0, name="w")
      ...     ema = tw.train.ExponentialMovingAverage(0.5)
      ...     update = ema.apply([w])
      ...     sess.run(tw.global_variables_initializer())
      ...     _ = sess.run(w.assign(3.0))
      ...     sess.run(update)
      ...     print(ema.average_name(w), sess.run(ema.average(w)))
      w/ExponentialMovingAverage 2.0
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}  # id(var) -> (var, shadow)

    @property
    def name(self):
        """The name of the object (the suffix of the shadow variables)."""
        return self._name

    def apply(self, var_list=None):
        """Makes the shadow variables of `var_list` (default: all trainable variables) and returns an op that
        updates them. Variables are added to the MOVING_AVERAGE_VARIABLES collection.

        Raises:
          TypeError: an input is not float16/32/64.
        """
        if var_list is None:
            var_list = variables.trainable_variables()
        var_list = list(var_list)
        for v in var_list:
            if isinstance(v, ops.Operation) or not hasattr(v, "dtype"):
                raise TypeError(f"ExponentialMovingAverage averages Variables and Tensors, got {v!r}")
        graph = ops.get_default_graph()
        zero_debiased = set()
        for var in var_list:
            if var.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if id(var) in self._averages:
                continue  # averaged already: its shadow is updated again (TensorFlow 2's compat.v1)
            with optimizer._outside_scopes(graph, colocate_with=var if isinstance(var, variables.Variable) else None):
                if isinstance(var, variables.Variable):
                    initial = var.initial_value
                    ops.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
                else:
                    if not var.shape.is_fully_defined():
                        raise ValueError(f"The moving average of {var.name} needs its shape fully defined")
                    initial = init_ops.zeros_initializer()(var.shape.as_list(), dtype=var.dtype.base_dtype)
                    if self._zero_debias:
                        zero_debiased.add(id(var))
                avg = variables.Variable(
                    initial,
                    trainable=False,
                    name=f"{var.op.name}/{self._name}",
                    dtype=var.dtype.base_dtype,
                )
            self._averages[id(var)] = (var, avg)
        with graph.name_scope(self._name) as scope:
            decay = math_ops.cast(self._decay, dtypes.float32, name="decay")
            if self._num_updates is not None:
                num_updates = self._num_updates
                if isinstance(num_updates, variables.Variable):
                    # Read when the update runs, as TF1's ref read is (after `train_op` under control_dependencies).
                    num_updates = num_updates.read_value()
                num_updates = math_ops.cast(num_updates, dtypes.float32, name="num_updates")
                decay = math_ops.minimum(decay, (1.0 + num_updates) / (10.0 + num_updates))
            updates = []
            for var in var_list:
                avg = self._averages[id(var)][1]
                # A fresh read, ordered by the caller's control dependencies (TF1 reads the variable's buffer when
                # the update runs, so `with control_dependencies([train_op]): ema.apply()` averages the new value).
                value = var.read_value() if isinstance(var, variables.Variable) else var
                updates.append(assign_moving_average(avg, value, decay, zero_debias=id(var) in zero_debiased))
            return ops.group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of `var`, or None when `apply` has not seen it."""
        entry = self._averages.get(id(var))
        return None if entry is None else entry[1]

    def average_name(self, var):
        """The name of `var`'s shadow variable (as a checkpoint key), also before `apply`."""
        entry = self._averages.get(id(var))
        if entry is not None:
            return entry[1].op.name
        return f"{var.op.name}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """{checkpoint name: variable} that restores each averaged variable from its shadow's value (for
        evaluation with the averages), and every other global variable from its own name.

        Example:
          >>> import tensorweave as tw
          >>> with tw.Graph().as_default():
          ...     w = tw.Variable(1.0, name="w")
          ...     ema = tw.train.ExponentialMovingAverage(0.9)
          ...     print(sorted(ema.variables_to_restore()))
          ['w/ExponentialMovingAverage']
        """
        if moving_avg_variables is None:
            moving_avg_variables = variables.trainable_variables() + ops.get_collection(
                GraphKeys.MOVING_AVERAGE_VARIABLES
            )
        name_map = {}
        averaged = {}
        for v in moving_avg_variables:
            averaged[id(v)] = v
        for v in averaged.values():
            name_map[self.average_name(v)] = v
        averaged_names = {v.name for v in averaged.values()}
        for v in variables.global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
