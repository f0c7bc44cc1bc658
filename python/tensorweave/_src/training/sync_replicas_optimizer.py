"""SyncReplicasOptimizer (TensorFlow v1's tf.train.SyncReplicasOptimizer): synchronous data-parallel training
with optional backup workers.

Each replica computes gradients and applies them, tagged with its local step, to a per-variable conditional
accumulator that lives beside the variable. The chief's queue runner takes the mean of the first
`replicas_to_aggregate` gradients of each accumulator, applies them with the wrapped optimizer, increments the
global step and puts `total_num_replicas` tokens (the new global step) into the sync token queue. A replica's
train op ends by dequeuing a token: it waits for the step to be applied and learns the new global step, which
becomes its local step. With more replicas than gradients to aggregate (backup workers), the late gradients of
a step carry an old local step and the accumulators drop them as stale.

Everything works in one process too: several threads, each running its replica's train op on one session (build
one SyncReplicasOptimizer per replica; the accumulators and the token queue are shared by name), and the chief's
queue runner on the same session.
"""

from tensorweave._src.framework import ops
from tensorweave._src.framework.indexed_slices import IndexedSlices
from tensorweave._src.ops import accumulator_ops, array_ops, gen_ops, queue_ops, state_ops, variables
from tensorweave._src.training import optimizer, queue_runner, session_run_hook

__all__ = ["SyncReplicasOptimizer"]


def _fresh_read(value):
    """A read of a variable made here, so that it follows the control dependencies in scope (TF1's ref edge)."""
    return value.read_value() if hasattr(value, "read_value") else value


class SyncReplicasOptimizer(optimizer.Optimizer):
    """Wraps an optimizer for synchronous training: each step applies the mean of `replicas_to_aggregate`
    replicas' gradients (see the module's docstring).

    Args:
      opt: the optimizer that applies the aggregated gradients.
      replicas_to_aggregate: the number of gradients aggregated per step (m).
      total_num_replicas: the number of replicas (n, default m); n > m gives n - m backup workers.
      variable_averages: an ExponentialMovingAverage applied after each step (optional).
      variables_to_average: the variables it averages.
      use_locking, name: as Optimizer's.

    Example:
      >>> import tensorweave as tw
      >>> with tw.Graph().as_default():
      ...     w = tw.Variable([1.0], name="w")
      ...     step = tw.train.get_or_create_global_step()
      ...     opt = tw.train.SyncReplicasOptimizer(tw.train.GradientDescentOptimizer(0.5), 1)
      ...     train = opt.minimize(tw.reduce_sum(w * w), global_step=step)
      ...     hooks = [opt.make_session_run_hook(True)]  # the chief thread waits for a next gradient: stop it soon
      ...     with tw.train.MonitoredTrainingSession(hooks=hooks, stop_grace_period_secs=1) as sess:
      ...         _ = sess.run(train); _ = sess.run(train)
      ...         print(sess.run([w, step])[0].tolist())
      [0.0]
    """

    def __init__(
        self,
        opt,
        replicas_to_aggregate,
        total_num_replicas=None,
        variable_averages=None,
        variables_to_average=None,
        use_locking=False,
        name="sync_replicas",
    ):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list = []

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's compute_gradients."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Builds the replica's train op (apply its gradients to the accumulators, then wait for a token) and the
        chief's step (take the aggregated gradients, apply them, fill the token queue).

        Raises:
          ValueError: with no gradients, or without a global step (it is what detects stale gradients).
        """
        del name
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops = []
        aggregated_grad = []
        var_list = []

        # The local step stays on this replica's device (beside an op placed by the current scopes).
        local_anchor = gen_ops.wrapper("NoOp")(name="NoOp")
        with ops.colocate_with(local_anchor):
            self._local_step = variables.Variable(
                initial_value=0,
                trainable=False,
                collections=[ops.GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype,
                name="sync_rep_local_step",
            )
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = variables.report_uninitialized_variables(variables.global_variables())

        with ops.name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with ops.device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)  # passes through
                        continue
                    if isinstance(grad, IndexedSlices):
                        grad_accum = accumulator_ops.SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum"
                        )
                        train_ops.append(grad_accum.apply_indexed_slices_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_indexed_slices_grad(self._replicas_to_aggregate))
                    elif isinstance(grad, ops.Tensor):
                        grad_accum = accumulator_ops.ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(), shared_name=var.name + "/grad_accum"
                        )
                        train_ops.append(grad_accum.apply_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(grad_accum.take_grad(self._replicas_to_aggregate))
                    else:
                        raise ValueError("Unknown grad type!")  # noqa: TRY004 - TF1 raises ValueError
                    self._accumulator_list.append((grad_accum, var.device))

            aggregated_grads_and_vars = list(zip(aggregated_grad, var_list))

            # The chief's update sits with the global step.
            with ops.device(global_step.device), ops.name_scope(""):
                update_op = self._opt.apply_gradients(aggregated_grads_and_vars, global_step)

            with ops.device(global_step.device), ops.name_scope(""):
                sync_token_queue = queue_ops.FIFOQueue(
                    -1, global_step.dtype.base_dtype, shapes=(), name="sync_token_q", shared_name="sync_token_q"
                )
                self._sync_token_queue = sync_token_queue

            with ops.device(global_step.device), ops.name_scope(""):
                # A replica waits for a token (the step's new global step) once its gradients are in.
                with ops.control_dependencies(train_ops):
                    token = sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)

                with ops.control_dependencies([update_op]):
                    # At the end of the chief's step, a token for every replica.
                    # A read of the global step after the update (the variable's snapshot may be older).
                    tokens = array_ops.fill([self._tokens_per_step], _fresh_read(global_step))
                    sync_op = sync_token_queue.enqueue_many((tokens,))

                if self._variable_averages is not None:
                    with ops.control_dependencies([sync_op]), ops.name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)

                self._chief_queue_runner = queue_runner.QueueRunner(sync_token_queue, [sync_op])
            for accum, dev in self._accumulator_list:
                with ops.device(dev):
                    chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = ops.group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The queue runner the chief runs: each of its steps takes the aggregated gradients and applies them.

        Raises:
          ValueError: before apply_gradients.
        """
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables."""
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """The op that puts the first tokens into the queue (the chief runs it once; default
        replicas_to_aggregate tokens).

        Raises:
          ValueError: before apply_gradients, or with fewer tokens than the first step needs.
        """
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(
                f"Too few tokens to finish the first step: {num_tokens} (given) vs {tokens_needed} (needed)"
            )
        if num_tokens > 0:
            with ops.device(self._global_step.device), ops.name_scope(""):
                tokens = array_ops.fill([num_tokens], _fresh_read(self._global_step))
                return self._sync_token_queue.enqueue_many((tokens,))
        return gen_ops.wrapper("NoOp")(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A SessionRunHook that, when the session is created, runs the local init (the chief: also the
        accumulators' global step), and on the chief puts the first tokens in and starts the chief's queue
        runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(session_run_hook.SessionRunHook):
    """Initializes a replica's SyncReplicasOptimizer state in the session (see make_session_run_hook)."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        if not self._sync_optimizer._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        opt = self._sync_optimizer
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        uninitialized = session.run(self._ready_for_local_init_op)
        if getattr(uninitialized, "size", 0):
            names = ", ".join(v.decode() if isinstance(v, bytes) else str(v) for v in uninitialized.ravel())
            raise RuntimeError(
                "Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                f"Init op: {self._local_init_op.name}, error: Variables not initialized: {names}"
            )
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
