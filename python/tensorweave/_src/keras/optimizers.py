"""tf.keras.optimizers for TF1 graph mode: Keras 2's OptimizerV2 (SGD, Adam, RMSprop, ...) and `get`.

The update maths are tf_keras's legacy OptimizerV2 (the optimizers `tf.compat.v1.keras.optimizers` names):
hyperparameters are scalar variables (`opt.lr`, set with `backend.set_value`), slots are variables named
`<Optimizer>/<var>/<slot>`, `iterations` is an int64 variable incremented once per `apply_gradients`.
Sparse gradients (IndexedSlices, from embedding lookups) update only the rows they touch, as tf_keras's.
"""

import warnings

import numpy as np

from tensorweave._src.framework import dtypes, ops
from tensorweave._src.framework.indexed_slices import IndexedSlices
from tensorweave._src.keras import backend
from tensorweave._src.keras import learning_rate_schedule as schedules
from tensorweave._src.ops import array_ops, gradients_impl, math_ops, state_ops, training_ops, variables
from tensorweave._src.training.optimizer import _readers_in_step

__all__ = [
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "Adamax",
    "Ftrl",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "TFOptimizer",
    "deserialize",
    "get",
    "schedules",
    "serialize",
]


def _tw():
    import tensorweave

    return tensorweave


def _is_tensor(x):
    return isinstance(x, (ops.Tensor, variables.Variable))


def _new_variable(name, initial_value, dtype, initialize=False):
    """A non-trainable variable outside any control-flow context (as tf.init_scope); `initialize` runs its
    initializer in the Keras session (as `backend.variable`)."""
    graph = ops.get_default_graph()
    with graph.control_dependencies(None):
        v = variables.Variable(initial_value, trainable=False, name=name, dtype=dtype)
    if initialize:
        sess = backend.get_session()
        if sess.graph is v.graph:
            sess.run(v.initializer)
    return v


def _filter_empty_gradients(grads_and_vars):
    grads_and_vars = tuple(grads_and_vars)
    if not grads_and_vars:
        return grads_and_vars
    filtered = tuple((g, v) for g, v in grads_and_vars if g is not None)
    if not filtered:
        variable = ([v.name for _, v in grads_and_vars],)
        raise ValueError(
            f"No gradients provided for any variable: {variable}. Provided `grads_and_vars` is {grads_and_vars}."
        )
    return filtered


def _deduplicate(values, indices):
    tw = _tw()
    unique_indices, positions = tw.unique(indices)
    summed = tw.unsorted_segment_sum(values, positions, tw.shape(unique_indices)[0])
    return summed, unique_indices


class Optimizer:
    """Keras 2's OptimizerV2 base class (graph mode).

    Subclasses set hyperparameters with `_set_hyper`, create slots in `_create_slots`, and implement
    `_update(grad, var_value, slot_values, c)` -> (new var, [new slots]) (the dense rule, also applied to the
    gathered rows of a sparse gradient), or `_apply_sparse` where tf_keras's sparse rule differs.
    """

    _slot_order = ()

    def __init__(self, name, **kwargs):
        allowed = {"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"}
        for k, value in kwargs.items():
            if k not in allowed:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}. Allowed kwargs are {allowed}.")
            if isinstance(value, (int, float)) and value < 0:
                raise ValueError(f"Expected {k} >= 0, received: {value}")
            if k == "lr":
                warnings.warn("The `lr` argument is deprecated, use `learning_rate` instead.", stacklevel=3)
        self._name = name
        self._hyper = {}
        self._slots = {}
        self._slot_names = []
        self._weights = []
        self._iterations = None
        self._hypers_created = False
        decay = kwargs.pop("decay", 0.0)
        self._initial_decay = decay
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError(
                "Cannot accept both `clipnorm` and `global_clipnorm`. "
                f"Received: `clipnorm`={self.clipnorm}, `global_clipnorm`={self.global_clipnorm}."
            )
        self.clipvalue = kwargs.pop("clipvalue", None)

    # --- hyperparameters ---------------------------------------------------
    def _set_hyper(self, name, value):
        if (
            name not in self._hyper
            or not isinstance(self._hyper[name], variables.Variable)
            or isinstance(value, schedules.LearningRateSchedule)
            or callable(value)
            or _is_tensor(value)
        ):
            self._hyper[name] = value
        else:
            backend.set_value(self._hyper[name], value)

    def _create_hypers(self):
        if self._hypers_created:
            return
        for name, value in sorted(self._hyper.items()):
            if _is_tensor(value) or isinstance(value, variables.Variable) or callable(value):
                continue
            self._hyper[name] = _new_variable(name, float(value), dtypes.float32, initialize=True)
        self._hypers_created = True

    def _get_hyper(self, name, dtype=None):
        self._create_hypers()
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return value
        if callable(value) and not isinstance(value, variables.Variable):
            value = value()
        if dtype is not None:
            return math_ops.cast(value, dtype)
        return value

    def __getattr__(self, name):
        if name.startswith("__") or name in ("_hyper",):
            raise AttributeError(name)
        hyper = self.__dict__.get("_hyper", {})
        if name == "lr":
            name = "learning_rate"
        if name in hyper:
            return self._get_hyper(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name == "lr":
            name = "learning_rate"
        if "_hyper" in self.__dict__ and name in self._hyper:
            self._set_hyper(name, value)
        else:
            super().__setattr__(name, value)

    def _serialize_hyperparameter(self, name):
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return schedules.serialize(value)
        if isinstance(value, variables.Variable) or _is_tensor(value):
            return backend.get_value(value)
        if callable(value):
            return value()
        return value

    # --- weights -----------------------------------------------------------
    @property
    def iterations(self):
        """The int64 variable counting the steps this optimizer has run."""
        if self._iterations is None:
            self._iterations = _new_variable("iter", np.int64(0), dtypes.int64)
            self._weights.insert(0, self._iterations)
        return self._iterations

    @iterations.setter
    def iterations(self, variable):
        if self._iterations is not None:
            raise RuntimeError(
                "Cannot set `iterations` to a new Variable after the Optimizer weights have been created. "
                f"Here it is attempting to set `iterations` to {variable}."
            )
        self._iterations = variable
        self._weights.insert(0, variable)

    def add_slot(self, var, slot_name, initializer=0.0):
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        slots = self._slots.setdefault(_var_key(var), {})
        if slot_name not in slots:
            dtype = var.dtype.base_dtype
            shape = var.shape.as_list()
            value = np.full(shape, initializer, dtype=dtype.as_numpy_dtype)
            slots[slot_name] = _new_variable(f"{var.op.name}/{slot_name}", value, dtype)
            self._weights.append(slots[slot_name])
        return slots[slot_name]

    def get_slot(self, var, slot_name):
        return self._slots[_var_key(var)][slot_name]

    def get_slot_names(self):
        return list(self._slot_names)

    def _create_slots(self, var_list):
        for slot in self._slot_order:
            for var in var_list:
                self.add_slot(var, slot)

    def _create_all_weights(self, var_list):
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    def variables(self):
        """The optimizer's variables (iterations, then slots), in creation order."""
        return list(self._weights)

    @property
    def weights(self):
        return list(self._weights)

    def get_weights(self):
        return backend.batch_get_value(self._weights)

    def set_weights(self, weights):
        params = self._weights
        if len(params) != len(weights):
            raise ValueError(
                f"You called `set_weights(weights)` on optimizer {self._name} with a weight list of length "
                f"{len(weights)}, but the optimizer was expecting {len(params)} weights. "
                f"Provided weights: {str(weights)[:50]}..."
            )
        for p, w in zip(params, weights):
            if tuple(p.shape.as_list()) != np.shape(w):
                raise ValueError(
                    f"Optimizer weight shape {tuple(p.shape.as_list())} not compatible with provided weight shape {np.shape(w)}."
                )
            backend.set_value(p, np.asarray(w))

    # --- gradients and updates ---------------------------------------------
    def _decayed_lr(self, dtype):
        lr_t = self._get_hyper("learning_rate", dtype)
        if isinstance(lr_t, schedules.LearningRateSchedule):
            local_step = math_ops.cast(self.iterations, dtype)
            lr_t = math_ops.cast(lr_t(local_step), dtype)
        if self._initial_decay > 0.0:
            local_step = math_ops.cast(self.iterations, dtype)
            lr_t = lr_t / (1.0 + math_ops.cast(self._initial_decay, dtype) * local_step)
        return lr_t

    def _prepare(self, dtype):
        c = {}
        if "learning_rate" in self._hyper:
            c["lr_t"] = array_ops.identity(self._decayed_lr(dtype))
        return c

    def get_gradients(self, loss, params):
        """The gradients of `loss` with respect to `params`; a ValueError where one is None."""
        params = list(params)
        with ops.name_scope(self._name + "/gradients"):
            grads = gradients_impl.gradients(loss, params)
        for grad, param in zip(grads, params):
            if grad is None:
                raise ValueError(
                    f"Variable {param} has `None` for gradient. Please make sure that all of your ops have a "
                    "gradient defined (i.e. are differentiable). Common ops without gradient: "
                    "K.argmax, K.round, K.eval."
                )
        return grads

    def get_updates(self, loss, params):
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, params)))]

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        """An op that takes one step on `loss` (a Tensor or a callable returning one) for `var_list`."""
        if callable(loss):
            loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        with ops.name_scope(self._name + "/gradients"):
            grads = gradients_impl.gradients(loss, var_list, grad_ys=grad_loss)
        return self.apply_gradients(list(zip(grads, var_list)), name=name)

    def _transform_gradients(self, grads_and_vars):
        tw = _tw()
        if self.clipvalue is not None:
            cv = self.clipvalue
            grads_and_vars = [
                (
                    IndexedSlices(tw.clip_by_value(g.values, -cv, cv), g.indices, g.dense_shape)
                    if isinstance(g, IndexedSlices)
                    else tw.clip_by_value(g, -cv, cv),
                    v,
                )
                for g, v in grads_and_vars
            ]
        if self.clipnorm is not None:
            grads_and_vars = [
                (
                    IndexedSlices(tw.clip_by_norm(g.values, self.clipnorm), g.indices, g.dense_shape)
                    if isinstance(g, IndexedSlices)
                    else tw.clip_by_norm(g, self.clipnorm),
                    v,
                )
                for g, v in grads_and_vars
            ]
        if self.global_clipnorm is not None:
            clipped, _ = tw.clip_by_global_norm([g for g, _ in grads_and_vars], self.global_clipnorm)
            grads_and_vars = list(zip(clipped, [v for _, v in grads_and_vars]))
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """An op applying `grads_and_vars` (IndexedSlices gradients update their rows) and incrementing
        `iterations`."""
        grads_and_vars = _filter_empty_gradients(grads_and_vars)
        var_list = [v for _, v in grads_and_vars]
        for v in var_list:
            if not isinstance(v, variables.Variable):
                raise NotImplementedError(f"Updating a `Tensor` is not implemented. Received: var={v}.")
        with ops.name_scope(self._name):
            self._create_all_weights(var_list)
            if not grads_and_vars:
                return _tw().no_op()
            grads_and_vars = self._transform_gradients(grads_and_vars)
            # Each update waits for the ops of this step that read its variable (as tw.train's optimizers),
            # so that it does not meet a snapshot of the variable and copy it.
            readers = _readers_in_step([g for g, _ in grads_and_vars], var_list)
            states = {}
            update_ops = []
            with ops.name_scope(name or self._name):
                for grad, var in grads_and_vars:
                    dtype = var.dtype.base_dtype
                    if dtype not in states:
                        states[dtype] = self._prepare(dtype)
                    with ops.name_scope("update_" + var.op.name), ops.control_dependencies(readers[_var_key(var)]):
                        update_ops.append(self._apply_one(grad, var, states[dtype]))
                with ops.control_dependencies([_tw().group(*update_ops)]):
                    return state_ops.assign_add(self.iterations, np.int64(1)).op

    def _apply_one(self, grad, var, c):
        if isinstance(grad, IndexedSlices):
            if getattr(var, "constraint", None) is not None:
                raise RuntimeError(
                    "Cannot use a constraint function on a sparse variable. "
                    f"Received: grad={grad}, var.constraint={var.constraint}."
                )
            values, indices = _deduplicate(grad.values, grad.indices)
            return self._apply_sparse(values, var, indices, c)
        grad = ops.convert_to_tensor(grad)
        update = self._apply_dense(grad, var, c)
        if getattr(var, "constraint", None) is not None:
            with ops.control_dependencies([update]):
                return state_ops.assign(var, var.constraint(var)).op
        return update

    def _slot_list(self, var):
        return [self.get_slot(var, s) for s in self._slot_names if s in self._slots.get(_var_key(var), {})]

    def _apply_dense(self, grad, var, c):
        slots = self._slot_list(var)
        new_var, new_slots = self._update(grad, var, slots, c)
        new_values = [new_var] + list(new_slots)
        with ops.control_dependencies(new_values):
            assigns = [state_ops.assign(ref, value) for ref, value in zip([var] + slots, new_values)]
        return _tw().group(*assigns)

    def _apply_sparse(self, grad, var, indices, c):
        """The dense rule on the rows `indices` (unique), as TF's sparse apply kernels."""
        slots = self._slot_list(var)
        refs = [var] + slots
        rows = [array_ops.gather(ref, indices) for ref in refs]
        new_var, new_slots = self._update(grad, rows[0], rows[1:], c)
        new_values = [new_var] + list(new_slots)
        with ops.control_dependencies(new_values):
            updates = [_tw().scatter_update(ref, indices, value) for ref, value in zip(refs, new_values)]
        return _tw().group(*updates)

    def _update(self, grad, var, slots, c):
        raise NotImplementedError("`_update` must be implemented in subclasses.")

    # --- config ------------------------------------------------------------
    def get_config(self):
        config = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if "lr" in config:
            config["learning_rate"] = config.pop("lr")
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)

    def _base_config(self, *hypers, **extra):
        config = Optimizer.get_config(self)
        config["learning_rate"] = self._serialize_hyperparameter("learning_rate")
        config["decay"] = self._initial_decay
        for h in hypers:
            config[h] = self._serialize_hyperparameter(h)
        config.update(extra)
        return config


OptimizerV2 = Optimizer


def _var_key(var):
    return (var.graph, var.op.name)


def _check_momentum(momentum):
    if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
        raise ValueError(
            f"`momentum` must be between [0, 1]. Received: momentum={momentum} (of type {type(momentum)})."
        )
    return _is_tensor(momentum) or callable(momentum) or momentum > 0


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum: `velocity = momentum * velocity - lr * g`."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._momentum = _check_momentum(momentum)
        self._set_hyper("momentum", momentum)
        self.nesterov = nesterov
        self._slot_order = ("momentum",) if self._momentum else ()

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        c["momentum"] = array_ops.identity(self._get_hyper("momentum", dtype))
        return c

    def _update(self, grad, var, slots, c):
        if not self._momentum:
            return var - c["lr_t"] * grad, []
        accum = slots[0] * c["momentum"] - c["lr_t"] * grad
        if self.nesterov:
            return var + (accum * c["momentum"] - c["lr_t"] * grad), [accum]
        return var + accum, [accum]

    def _apply_dense(self, grad, var, c):
        if self._momentum:
            return super()._apply_dense(grad, var, c)
        return training_ops.apply_gradient_descent(var, c["lr_t"], grad, use_locking=True).op

    def _apply_sparse(self, grad, var, indices, c):
        if self._momentum:
            return super()._apply_sparse(grad, var, indices, c)
        return _tw().scatter_add(var, indices, -grad * c["lr_t"]).op

    def get_config(self):
        return self._base_config("momentum", nesterov=self.nesterov)


class Adam(Optimizer):
    """Adam (Kingma & Ba), with the bias correction folded into the step size; `amsgrad` keeps `vhat`."""

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, name="Adam", **kwargs
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()
        self.amsgrad = amsgrad
        self._slot_order = ("m", "v", "vhat") if amsgrad else ("m", "v")

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        local_step = math_ops.cast(self.iterations + 1, dtype)
        b1 = array_ops.identity(self._get_hyper("beta_1", dtype))
        b2 = array_ops.identity(self._get_hyper("beta_2", dtype))
        b1_power, b2_power = math_ops.pow(b1, local_step), math_ops.pow(b2, local_step)
        c.update(
            lr=c["lr_t"] * (math_ops.sqrt(1 - b2_power) / (1 - b1_power)),
            epsilon=ops.convert_to_tensor(self.epsilon, dtype),
            beta_1_t=b1,
            beta_2_t=b2,
            beta_1_power=b1_power,
            beta_2_power=b2_power,
        )
        return c

    def _apply_dense(self, grad, var, c):
        if self.amsgrad:
            return super()._apply_dense(grad, var, c)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        return training_ops.apply_adam(
            var,
            m,
            v,
            c["beta_1_power"],
            c["beta_2_power"],
            c["lr_t"],
            c["beta_1_t"],
            c["beta_2_t"],
            c["epsilon"],
            grad,
            use_locking=True,
        ).op

    def _update(self, grad, var, slots, c):
        m = slots[0] + (grad - slots[0]) * (1 - c["beta_1_t"])
        v = slots[1] + (math_ops.square(grad) - slots[1]) * (1 - c["beta_2_t"])
        if self.amsgrad:
            vhat = math_ops.maximum(slots[2], v)
            return var - (m * c["lr"]) / (math_ops.sqrt(vhat) + c["epsilon"]), [m, v, vhat]
        return var - (m * c["lr"]) / (math_ops.sqrt(v) + c["epsilon"]), [m, v]

    def _apply_sparse(self, grad, var, indices, c):
        # tf_keras: the moments decay everywhere, the gradient is added at `indices`, and every row moves.
        tw = _tw()
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign(m, m * c["beta_1_t"])
        with ops.control_dependencies([m_t]):
            m_t = tw.scatter_add(m, indices, grad * (1 - c["beta_1_t"]))
        v_t = state_ops.assign(v, v * c["beta_2_t"])
        with ops.control_dependencies([v_t]):
            v_t = tw.scatter_add(v, indices, (grad * grad) * (1 - c["beta_2_t"]))
        if not self.amsgrad:
            return tw.group(state_ops.assign_sub(var, c["lr"] * m_t / (math_ops.sqrt(v_t) + c["epsilon"])), m_t, v_t)
        vhat = self.get_slot(var, "vhat")
        vhat_t = math_ops.maximum(vhat, v_t)
        with ops.control_dependencies([vhat_t]):
            vhat_t = state_ops.assign(vhat, vhat_t)
        update = state_ops.assign_sub(var, c["lr"] * m_t / (math_ops.sqrt(vhat_t) + c["epsilon"]))
        return tw.group(update, m_t, v_t, vhat_t)

    def get_config(self):
        return self._base_config("beta_1", "beta_2", epsilon=self.epsilon, amsgrad=self.amsgrad)


class RMSprop(Optimizer):
    """RMSprop: `rms = rho * rms + (1 - rho) * g^2`, with optional momentum and centering (`mg`)."""

    def __init__(
        self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, name="RMSprop", **kwargs
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._momentum = _check_momentum(momentum)
        self._set_hyper("momentum", momentum)
        self.epsilon = epsilon or backend.epsilon()
        self.centered = centered
        self._slot_order = ("rms",) + (("momentum",) if self._momentum else ()) + (("mg",) if centered else ())

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        c.update(
            epsilon=ops.convert_to_tensor(self.epsilon, dtype),
            rho=array_ops.identity(self._get_hyper("rho", dtype)),
            momentum=array_ops.identity(self._get_hyper("momentum", dtype)),
        )
        return c

    def _fused_args(self, var, c):
        slots = [self.get_slot(var, "rms"), self.get_slot(var, "momentum")]
        if self.centered:
            slots.insert(0, self.get_slot(var, "mg"))
        return [var, *slots, c["lr_t"], c["rho"], c["momentum"], c["epsilon"]]

    def _apply_dense(self, grad, var, c):
        if not self._momentum:
            return super()._apply_dense(grad, var, c)
        apply = training_ops.apply_centered_rms_prop if self.centered else training_ops.apply_rms_prop
        return apply(*self._fused_args(var, c), grad, use_locking=True).op

    def _apply_sparse(self, grad, var, indices, c):
        tw = _tw()
        if self._momentum:
            apply = training_ops.sparse_apply_centered_rms_prop if self.centered else training_ops.sparse_apply_rms_prop
            return apply(*self._fused_args(var, c), grad, indices, use_locking=True).op
        # tf_keras: the averages decay in every row, the gradient is added at `indices`, those rows move.
        rms = self.get_slot(var, "rms")
        rms_t = state_ops.assign(rms, rms * c["rho"])
        with ops.control_dependencies([rms_t]):
            rms_t = tw.scatter_add(rms, indices, (grad * grad) * (1.0 - c["rho"]))
            denom = array_ops.gather(rms_t, indices)
        updates = [rms_t]
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg_t = state_ops.assign(mg, mg * c["rho"])
            with ops.control_dependencies([mg_t]):
                mg_t = tw.scatter_add(mg, indices, grad * (1.0 - c["rho"]))
                denom = denom - math_ops.square(array_ops.gather(mg_t, indices))
            updates.append(mg_t)
        step = -c["lr_t"] * grad / (math_ops.sqrt(denom) + c["epsilon"])
        return tw.group(tw.scatter_add(var, indices, step), *updates)

    def _update(self, grad, var, slots, c):
        # Without momentum (with it, the fused ApplyRMSProp kernels above): epsilon outside the square root.
        rms = slots[0]
        rms_t = c["rho"] * rms + (1.0 - c["rho"]) * math_ops.square(grad)
        new_slots, denom = [rms_t], rms_t
        if self.centered:
            mg_t = c["rho"] * slots[1] + (1.0 - c["rho"]) * grad
            new_slots.append(mg_t)
            denom = rms_t - math_ops.square(mg_t)
        return var - c["lr_t"] * grad / (math_ops.sqrt(denom) + c["epsilon"]), new_slots

    def get_config(self):
        return self._base_config("rho", "momentum", epsilon=self.epsilon, centered=self.centered)


RMSProp = RMSprop


class Adagrad(Optimizer):
    """Adagrad: `accumulator += g^2; var -= lr * g / (sqrt(accumulator) + epsilon)`."""

    _slot_order = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name="Adagrad", **kwargs):
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value must be non-negative: {initial_accumulator_value}")
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon or backend.epsilon()

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        c["epsilon"] = ops.convert_to_tensor(self.epsilon, dtype)
        return c

    def _update(self, grad, var, slots, c):
        accum = slots[0] + math_ops.square(grad)
        return var - c["lr_t"] * grad / (math_ops.sqrt(accum) + c["epsilon"]), [accum]

    def get_config(self):
        return self._base_config(initial_accumulator_value=self._initial_accumulator_value, epsilon=self.epsilon)


class Adadelta(Optimizer):
    """Adadelta (Zeiler) with slots `accum_grad` and `accum_var`."""

    _slot_order = ("accum_grad", "accum_var")

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon or backend.epsilon()

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        c.update(epsilon=ops.convert_to_tensor(self.epsilon, dtype), rho=self._get_hyper("rho", dtype))
        return c

    def _args(self, var, c):
        return [
            var,
            self.get_slot(var, "accum_grad"),
            self.get_slot(var, "accum_var"),
            c["lr_t"],
            c["rho"],
            c["epsilon"],
        ]

    def _apply_dense(self, grad, var, c):
        return training_ops.apply_adadelta(*self._args(var, c), grad, use_locking=True).op

    def _apply_sparse(self, grad, var, indices, c):
        return training_ops.sparse_apply_adadelta(*self._args(var, c), grad, indices, use_locking=True).op

    def get_config(self):
        return self._base_config("rho", epsilon=self.epsilon)


class Adamax(Optimizer):
    """Adamax: Adam with the infinity norm, `v = max(beta_2 * v, |g|)`."""

    _slot_order = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adamax", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        local_step = math_ops.cast(self.iterations + 1, dtype)
        c["beta_1_t"] = array_ops.identity(self._get_hyper("beta_1", dtype))
        c["beta_2_t"] = array_ops.identity(self._get_hyper("beta_2", dtype))
        c["beta_1_power"] = math_ops.pow(c["beta_1_t"], local_step)
        c["epsilon"] = ops.convert_to_tensor(self.epsilon, dtype)
        return c

    def _update(self, grad, var, slots, c):
        m = slots[0] + (grad - slots[0]) * (1 - c["beta_1_t"])
        v = math_ops.maximum(c["beta_2_t"] * slots[1], math_ops.abs(grad))
        return var - c["lr_t"] / (1 - c["beta_1_power"]) * (m / (v + c["epsilon"])), [m, v]

    def get_config(self):
        return self._base_config("beta_1", "beta_2", epsilon=self.epsilon)


class Nadam(Optimizer):
    """Adam with Nesterov momentum (Dozat), with the momentum schedule kept in `momentum_cache`."""

    _slot_order = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Nadam", **kwargs):
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        learning_rate = kwargs.get("lr", learning_rate)
        if isinstance(learning_rate, schedules.LearningRateSchedule):
            raise ValueError(  # noqa: TRY004 - tf_keras's error
                "The Nadam optimizer does not support tf.keras.optimizers.LearningRateSchedules as the learning rate."
            )
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon or backend.epsilon()
        self._m_cache = None
        self._m_schedule = {}

    def _create_slots(self, var_list):
        if self._m_cache is None:
            self._m_cache = _new_variable("momentum_cache", 1.0, var_list[0].dtype.base_dtype)
            self._weights.append(self._m_cache)
        super()._create_slots(var_list)

    def _prepare(self, dtype):
        lr_t = array_ops.identity(self._get_hyper("learning_rate", dtype))
        b1 = array_ops.identity(self._get_hyper("beta_1", dtype))
        b2 = array_ops.identity(self._get_hyper("beta_2", dtype))
        local_step = math_ops.cast(self.iterations + 1, dtype)
        next_step = math_ops.cast(self.iterations + 2, dtype)
        decay_base = math_ops.cast(0.96, dtype)
        m_t = b1 * (1.0 - 0.5 * math_ops.pow(decay_base, self._initial_decay * local_step))
        m_t_1 = b1 * (1.0 - 0.5 * math_ops.pow(decay_base, self._initial_decay * next_step))
        m_schedule_new = math_ops.cast(array_ops.identity(self._m_cache), dtype) * m_t
        if dtype == self._m_cache.dtype.base_dtype:
            m_schedule_new = array_ops.identity(state_ops.assign(self._m_cache, m_schedule_new))
        m_schedule_next = m_schedule_new * m_t_1
        return {
            "lr_t": lr_t,
            "epsilon": ops.convert_to_tensor(self.epsilon, dtype),
            "beta_1_t": b1,
            "beta_2_t": b2,
            "m_t": m_t,
            "m_t_1": m_t_1,
            "one_minus_m_schedule_new": 1.0 - m_schedule_new,
            "one_minus_m_schedule_next": 1.0 - m_schedule_next,
            "v_t_prime_denominator": 1.0 - math_ops.pow(b2, local_step),
        }

    def _step(self, grad, m_t, v_t, c):
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t_prime = m_t / c["one_minus_m_schedule_next"]
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = (1.0 - c["m_t"]) * g_prime + c["m_t_1"] * m_t_prime
        return c["lr_t"] * m_t_bar / (math_ops.sqrt(v_t_prime) + c["epsilon"])

    def _update(self, grad, var, slots, c):
        m_t = c["beta_1_t"] * slots[0] + (1 - c["beta_1_t"]) * grad
        v_t = c["beta_2_t"] * slots[1] + (1 - c["beta_2_t"]) * math_ops.square(grad)
        return var - self._step(grad, m_t, v_t, c), [m_t, v_t]

    def _apply_sparse(self, grad, var, indices, c):
        tw = _tw()
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign(m, m * c["beta_1_t"])
        with ops.control_dependencies([m_t]):
            m_t = tw.scatter_add(m, indices, grad * (1 - c["beta_1_t"]))
            m_t_slice = array_ops.gather(m_t, indices)
        v_t = state_ops.assign(v, v * c["beta_2_t"])
        with ops.control_dependencies([v_t]):
            v_t = tw.scatter_add(v, indices, (grad * grad) * (1 - c["beta_2_t"]))
            v_t_slice = array_ops.gather(v_t, indices)
        step = self._step(grad, m_t_slice, v_t_slice, c)
        return tw.group(tw.scatter_add(var, indices, -step), m_t, v_t)

    def get_config(self):
        return self._base_config("beta_1", "beta_2", epsilon=self.epsilon)


class Ftrl(Optimizer):
    """Follow-the-regularized-leader (McMahan et al.) with slots `accumulator` and `linear`."""

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        name="Ftrl",
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
        **kwargs,
    ):
        super().__init__(name, **kwargs)
        checks = [
            ("initial_accumulator_value", initial_accumulator_value, "positive or zero", lambda x: x < 0.0),
            ("learning_rate_power", learning_rate_power, "negative or zero", lambda x: x > 0.0),
            ("l1_regularization_strength", l1_regularization_strength, "positive or zero", lambda x: x < 0.0),
            ("l2_regularization_strength", l2_regularization_strength, "positive or zero", lambda x: x < 0.0),
            (
                "l2_shrinkage_regularization_strength",
                l2_shrinkage_regularization_strength,
                "positive or zero",
                lambda x: x < 0.0,
            ),
        ]
        for arg, value, want, bad in checks:
            if bad(value):
                raise ValueError(f"`{arg}` needs to be {want}. Received: {arg}={value}.")
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._set_hyper("beta", beta)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)
            self.add_slot(var, "linear")

    def _prepare(self, dtype):
        c = super()._prepare(dtype)
        c.update(
            lr_power=self._get_hyper("learning_rate_power", dtype),
            l1=self._get_hyper("l1_regularization_strength", dtype),
            l2=self._get_hyper("l2_regularization_strength", dtype)
            + self._get_hyper("beta", dtype) / (2.0 * c["lr_t"]),
            l2_shrinkage=math_ops.cast(self._l2_shrinkage_regularization_strength, dtype),
        )
        return c

    def _update(self, grad, var, slots, c):
        accum, linear = slots
        lr, lr_power = c["lr_t"], c["lr_power"]
        grad_shrunk = grad
        if self._l2_shrinkage_regularization_strength > 0.0:
            grad_shrunk = grad + 2.0 * c["l2_shrinkage"] * var
        new_accum = accum + math_ops.square(grad)
        new_pow = math_ops.pow(new_accum, -lr_power)
        linear_t = linear + grad_shrunk - (new_pow - math_ops.pow(accum, -lr_power)) / lr * var
        quadratic = new_pow / lr + 2.0 * c["l2"]
        l1 = c["l1"]
        new_var = _tw().where(
            math_ops.abs(linear_t) > l1,
            (math_ops.sign(linear_t) * l1 - linear_t) / quadratic,
            array_ops.zeros_like(linear_t),
        )
        return new_var, [new_accum, linear_t]

    def get_config(self):
        return self._base_config(
            "learning_rate_power",
            "l1_regularization_strength",
            "l2_regularization_strength",
            "beta",
            initial_accumulator_value=self._initial_accumulator_value,
            l2_shrinkage_regularization_strength=self._l2_shrinkage_regularization_strength,
        )


class TFOptimizer:
    """A TF1 optimizer (tw.train.Optimizer) behind the Keras optimizer API the engine uses (`get_updates`),
    counting steps in its own int64 `iterations` variable (the global step it passes)."""

    def __init__(self, optimizer, iterations=None):
        self.optimizer = optimizer
        if iterations is None:
            with ops.name_scope(self.__class__.__name__):
                iterations = backend.variable(0, dtype="int64", name="iterations")
        self.iterations = iterations
        self.updates = []

    def minimize(self, loss, var_list, grad_loss=None, tape=None):
        if callable(loss):
            loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        grads = gradients_impl.gradients(loss, var_list, grad_ys=grad_loss)
        return self.apply_gradients(list(zip(grads, var_list)))

    def apply_gradients(self, grads_and_vars):
        return self.optimizer.apply_gradients(grads_and_vars, global_step=self.iterations)

    def get_grads(self, loss, params):
        return self.optimizer.compute_gradients(loss, params)

    def get_updates(self, loss, params):
        if not params:
            self.updates = [state_ops.assign_add(self.iterations, np.int64(1))]
            return self.updates
        grads = self.optimizer.compute_gradients(loss, params)
        self.updates = [self.optimizer.apply_gradients(grads, global_step=self.iterations)]
        return self.updates

    @property
    def weights(self):
        raise NotImplementedError

    def get_config(self):
        raise NotImplementedError

    def from_config(self, config):
        raise NotImplementedError


_ALL = {
    "sgd": SGD,
    "adam": Adam,
    "rmsprop": RMSprop,
    "adagrad": Adagrad,
    "adadelta": Adadelta,
    "adamax": Adamax,
    "nadam": Nadam,
    "ftrl": Ftrl,
}


def serialize(optimizer):
    """{'class_name': ..., 'config': ...} of an optimizer."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    """An optimizer from `serialize`'s dict (the class name is matched case-insensitively, as tf_keras)."""
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Improper config format for optimizer: {config}")
    name = config["class_name"]
    from tensorweave._src.keras.utils import get_custom_objects

    custom = {**get_custom_objects(), **(custom_objects or {})}
    cls = custom.get(name) or _ALL.get(name.lower())
    if cls is None:
        raise ValueError(
            f"Unknown optimizer: '{name}'. Please ensure you are using a `keras.utils.custom_object_scope` "
            "and that this object is included in the scope. See "
            "https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object for details."
        )
    return cls.from_config(config.get("config", {}), custom_objects=custom_objects)


def get(identifier, **kwargs):
    """An optimizer from an instance (returned as it is), a name ('adam', 'SGD', ...), a config dict, or a TF1
    optimizer (tw.train.Optimizer, wrapped in a TFOptimizer as tf_keras does)."""
    from tensorweave._src.training import optimizer as tf1_optimizer

    kwargs.pop("use_legacy_optimizer", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments: {kwargs}")
    if isinstance(identifier, (Optimizer, TFOptimizer)):
        return identifier
    if isinstance(identifier, tf1_optimizer.Optimizer):
        return TFOptimizer(identifier)
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return deserialize({"class_name": str(identifier), "config": {}})
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")
