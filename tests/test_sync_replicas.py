"""Conditional accumulators and SyncReplicasOptimizer, in one process (replicas are threads running their train
ops on one session, as TF's SyncReplicasOptimizer allows). Oracles: numpy (the mean of exactly the aggregated
gradients, a least-squares solution), TensorFlow's semantics and messages (checked in a TF1 process in
tests/fidelity/cases_accumulators.py). Every blocking run has a timeout or is ended by closing the session."""

import threading
import time

import numpy as np
import pytest
import tensorweave as tw

TIMEOUT = tw.RunOptions(timeout_in_ms=200)
LONG = tw.RunOptions(timeout_in_ms=20000)  # a bound for runs that must not block: a bug fails, never hangs


def _run_in_thread(fn):
    box = []

    def target():
        try:
            box.append(("ok", fn()))
        except Exception as e:  # noqa: BLE001 - the test inspects it
            box.append(("error", e))

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


# --- ConditionalAccumulator ---------------------------------------------------------------------------------------


def test_take_grad_is_the_mean_of_the_applied_gradients(sess):
    acc = tw.ConditionalAccumulator(tw.float32, shape=[2, 3])
    g = tw.placeholder(tw.float32, [2, 3])
    apply = acc.apply_grad(g, local_step=0)
    grads = np.random.RandomState(0).randn(3, 2, 3).astype(np.float32)
    for i, grad in enumerate(grads):
        sess.run(apply, {g: grad})
        assert sess.run(acc.num_accumulated()) == i + 1
    took = acc.take_grad(3)
    assert took.shape.as_list() == [2, 3]
    np.testing.assert_allclose(sess.run(took, options=LONG), grads.mean(0), rtol=1e-6)
    assert sess.run(acc.num_accumulated()) == 0


def test_sum_reduction_and_float64(sess):
    acc = tw.ConditionalAccumulator(tw.float64, shape=[2], reduction_type="SUM")
    sess.run(acc.apply_grad(np.array([1.0, 2.0])))
    sess.run(acc.apply_grad(np.array([3.0, 5.0])))
    out = sess.run(acc.take_grad(2), options=LONG)
    assert out.dtype == np.float64 and out.tolist() == [4.0, 7.0]


def test_stale_gradients_are_dropped_and_set_global_step(sess):
    acc = tw.ConditionalAccumulator(tw.float32, shape=[1])
    step = tw.placeholder(tw.int64, [])
    apply = acc.apply_grad([1.0], local_step=step)
    sess.run(apply, {step: 0})
    assert sess.run(acc.take_grad(1), options=LONG).tolist() == [1.0]  # the global step is now 1
    sess.run(apply, {step: 0})  # stale: dropped without error
    assert sess.run(acc.num_accumulated()) == 0
    sess.run(apply, {step: 1})
    sess.run(apply, {step: 7})  # newer than the global step: accepted
    assert sess.run(acc.num_accumulated()) == 2
    sess.run(acc.set_global_step(10))
    sess.run(apply, {step: 9})
    assert sess.run(acc.num_accumulated()) == 2
    sess.run(acc.set_global_step(0))  # lowering it is allowed (TF warns)
    sess.run(apply, {step: 0})
    assert sess.run(acc.num_accumulated()) == 3


def test_take_grad_waits_for_the_gradients_of_another_thread(sess):
    acc = tw.ConditionalAccumulator(tw.float32, shape=[])
    take = acc.take_grad(2)
    t, box = _run_in_thread(lambda: sess.run(take, options=LONG))
    sess.run(acc.apply_grad(2.0))
    time.sleep(0.05)
    assert not box  # one of the two gradients
    sess.run(acc.apply_grad(4.0))
    t.join(20)
    assert box == [("ok", 3.0)]


def test_shared_name_is_one_accumulator(sess):
    a = tw.ConditionalAccumulator(tw.float32, shape=[1], shared_name="acc")
    b = tw.ConditionalAccumulator(tw.float32, shape=[1], shared_name="acc")
    sess.run(a.apply_grad([2.0]))
    assert sess.run(b.num_accumulated()) == 1
    other = tw.ConditionalAccumulator(tw.float64, shape=[1], shared_name="acc")
    with pytest.raises(tw.errors.InvalidArgumentError, match="Shared accumulator 'acc'"):
        sess.run(other.accumulator_ref)


def test_dense_error_paths(sess):
    acc = tw.ConditionalAccumulator(tw.float32, shape=[2], name="acc")
    g = tw.placeholder(tw.float32, None)
    bad = acc.apply_grad(g, name="bad_apply")
    with pytest.raises(
        tw.errors.InvalidArgumentError, match=r"Shape mismatch: expected \[2\], got \[3\](.|\n)*bad_apply"
    ):
        sess.run(bad, {g: [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError):
        acc.apply_grad([1.0, 2.0, 3.0])  # a known wrong shape fails at construction
    with pytest.raises(ValueError):
        acc.apply_grad([1.0, 2.0], local_step=[1, 2])  # local_step must be a scalar
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_required must be positive, but was 0"):
        sess.run(acc.take_grad(0))
    # The accumulator of unknown shape takes its first gradient's shape for the round.
    free = tw.ConditionalAccumulator(tw.float32)
    sess.run(free.apply_grad(g), {g: [1.0, 2.0, 3.0]})
    with pytest.raises(tw.errors.InvalidArgumentError, match=r"expected \[3\], got \[2\]"):
        sess.run(free.apply_grad(g), {g: [1.0, 2.0]})
    # A gradient of another dtype through the raw op.
    wrong = tw.raw_ops.AccumulatorApplyGradient(
        handle=acc.accumulator_ref, local_step=tw.constant(0, tw.int64), gradient=tw.constant([1.0, 2.0], tw.float64)
    )
    with pytest.raises(tw.errors.InvalidArgumentError, match="holds float32 gradients, got float64"):
        sess.run(wrong)
    with pytest.raises(tw.errors.InvalidArgumentError, match="is not an accumulator handle"):
        sess.run(tw.raw_ops.AccumulatorNumAccumulated(handle=tw.constant("nonsense")))
    with pytest.raises(TypeError):
        tw.ConditionalAccumulator(tw.int32, shape=[2])  # as TF's kernels: float16/32/64 only
    with pytest.raises(ValueError):
        tw.ConditionalAccumulator(tw.float32, shape=[2], reduction_type="MAX")
    assert sess.run(acc.num_accumulated()) == 0  # the failed applies added nothing


def test_take_grad_ends_at_the_step_timeout_and_loses_nothing(sess):
    acc = tw.ConditionalAccumulator(tw.float32, shape=[])
    sess.run(acc.apply_grad(1.0))
    with pytest.raises(tw.errors.DeadlineExceededError):
        sess.run(acc.take_grad(2), options=TIMEOUT)
    assert sess.run(acc.num_accumulated()) == 1
    sess.run(acc.apply_grad(3.0))
    assert sess.run(acc.take_grad(2), options=LONG) == 2.0


def test_session_close_unblocks_take_grad():
    with tw.Graph().as_default():
        acc = tw.ConditionalAccumulator(tw.float32, shape=[])
        take = acc.take_grad(1)
        sess = tw.Session()
        t, box = _run_in_thread(lambda: sess.run(take))
        time.sleep(0.2)
        sess.close()
        t.join(10)
        assert not t.is_alive()
        assert isinstance(box[0][1], tw.errors.CancelledError)
        assert "TakeGrad operation was cancelled" in str(box[0][1])


def test_the_python_api_builds_the_accumulator_ops():
    with tw.Graph().as_default():
        dense = tw.ConditionalAccumulator(tw.float32, shape=[1])
        sparse = tw.SparseConditionalAccumulator(tw.float32, shape=[2, 1])
        built = [
            dense.accumulator_ref.op,
            dense.apply_grad([1.0]),
            dense.take_grad(1).op,
            dense.num_accumulated().op,
            dense.set_global_step(1),
            sparse.accumulator_ref.op,
            sparse.apply_grad([0], [[1.0]]),
            sparse.take_grad(1).indices.op,
        ]
        assert [op.type for op in built] == [
            "ConditionalAccumulator",
            "AccumulatorApplyGradient",
            "AccumulatorTakeGradient",
            "AccumulatorNumAccumulated",
            "AccumulatorSetGlobalStep",
            "SparseConditionalAccumulator",
            "SparseAccumulatorApplyGradient",
            "SparseAccumulatorTakeGradient",
        ]
        assert built[0].name == "conditional_accumulator" and dense.num_accumulated().op.name.endswith(
            "conditional_accumulator_NumAccumulated_1"
        )


# --- SparseConditionalAccumulator --------------------------------------------------------------------------------


def _dense(indices, values, rows):
    out = np.zeros((rows,) + values.shape[1:], values.dtype)
    np.add.at(out, indices, values)
    return out


def test_sparse_sum_per_index_and_mean_per_index_count(sess):
    mean = tw.SparseConditionalAccumulator(tw.float32, shape=[6, 2])
    total = tw.SparseConditionalAccumulator(tw.float32, shape=[6, 2], reduction_type="SUM")
    rng = np.random.RandomState(1)
    grads = [([4, 1, 4], rng.randn(3, 2)), ([1, 0], rng.randn(2, 2)), ([5], rng.randn(1, 2))]
    for acc in (mean, total):
        for idx, val in grads:
            sess.run(acc.apply_grad(idx, val.astype(np.float32), grad_shape=[6, 2]))
    m = sess.run(mean.take_indexed_slices_grad(3), options=LONG)
    s = sess.run(total.take_grad(3), options=LONG)
    want_sum = sum(_dense(np.array(i), v.astype(np.float32), 6) for i, v in grads)
    counts = np.zeros(6)
    for idx, _ in grads:
        counts[sorted(set(idx))] += 1  # an index counts once per gradient
    assert s.indices.tolist() == [0, 1, 4, 5] and s.shape.tolist() == [6, 2]
    np.testing.assert_allclose(_dense(s.indices, s.values, 6), want_sum, rtol=1e-6)
    assert m.indices.tolist() == [0, 1, 4, 5]
    np.testing.assert_allclose(m.values, want_sum[[0, 1, 4, 5]] / counts[[0, 1, 4, 5], None], rtol=1e-6)


def test_sparse_error_paths_and_staleness(sess):
    acc = tw.SparseConditionalAccumulator(tw.float32, shape=[5, 2], name="sparse")
    v = tw.placeholder(tw.float32, None)
    i = tw.placeholder(tw.int64, None)
    s = tw.placeholder(tw.int64, None)
    apply = acc.apply_grad(i, v, grad_shape=s, local_step=3, name="sparse_apply")
    cases = [
        ([1], [[1.0, 1.0, 1.0]], [5, 2], "Shape mismatch: expected values dim 1 to be 2, got 3"),
        ([1, 2, 3], [[1.0, 1.0]], [5, 2], "Expected 3 non-empty input values, got 1"),
        ([[1]], [[1.0, 1.0]], [5, 2], r"Input indices should be vector but received shape: \[1,1\]"),
        ([1], [[1.0, 1.0]], [6, 2], "Shape mismatch: expected shape dim 0 to be 5, got 6"),
        ([7], [[1.0, 1.0]], [5, 2], "index of slice 0 exceeded limits of shape; index is 7 exceeded 5"),
        ([-1], [[1.0, 1.0]], [5, 2], "index of slice 0 is negative"),
    ]
    for idx, val, shape, message in cases:
        with pytest.raises(tw.errors.InvalidArgumentError, match=message + "(.|\n)*sparse_apply"):
            sess.run(apply, {i: idx, v: val, s: shape})
    assert sess.run(acc.num_accumulated()) == 0
    sess.run(acc.set_global_step(4))
    sess.run(apply, {i: [1], v: [[1.0, 1.0]], s: [5, 2]})  # local step 3 < 4: dropped
    assert sess.run(acc.num_accumulated()) == 0
    with pytest.raises(tw.errors.DeadlineExceededError):
        sess.run(acc.take_grad(1), options=TIMEOUT)
    with pytest.raises(tw.errors.InvalidArgumentError, match="needs a ConditionalAccumulator"):
        sess.run(
            tw.raw_ops.AccumulatorApplyGradient(
                handle=acc.accumulator_ref, local_step=tw.constant(9, tw.int64), gradient=tw.constant([1.0])
            )
        )


# --- SyncReplicasOptimizer ---------------------------------------------------------------------------------------


class _Replicas:
    """n replicas of a linear model y = x.w + b on one graph: the variables are shared, each replica has its own
    data placeholders and its own SyncReplicasOptimizer (their accumulators and token queue are one by name,
    as between-graph replicas' are on a parameter server); replica 0 is the chief."""

    def __init__(self, n, m, lr=0.1, dim=3):
        self.n, self.m, self.lr = n, m, lr
        self.w = tw.Variable(np.zeros([dim, 1], np.float32), name="w")
        self.b = tw.Variable(np.zeros([1], np.float32), name="b")
        self.global_step = tw.train.get_or_create_global_step()
        self.x, self.y, self.opts, self.train_ops, self.grads = [], [], [], [], []
        for r in range(n):
            with tw.name_scope(f"replica_{r}"):
                x = tw.placeholder(tw.float32, [None, dim], name="x")
                y = tw.placeholder(tw.float32, [None, 1], name="y")
                loss = tw.reduce_mean(tw.square(tw.matmul(x, self.w) + self.b - y))
                opt = tw.train.SyncReplicasOptimizer(
                    tw.train.GradientDescentOptimizer(lr), replicas_to_aggregate=m, total_num_replicas=n
                )
                gv = opt.compute_gradients(loss, var_list=[self.w, self.b])
                self.train_ops.append(opt.apply_gradients(gv, global_step=self.global_step))
            self.x.append(x)
            self.y.append(y)
            self.opts.append(opt)
            self.grads.append([g for g, _ in gv])
        self.sync_op = self.opts[0].get_chief_queue_runner().enqueue_ops[0]
        self.init_tokens = self.opts[0].get_init_tokens_op()

    def start(self, sess, run_chief=True):
        sess.run(tw.global_variables_initializer())
        sess.run(tw.local_variables_initializer())
        sess.run(self.opts[0].chief_init_op)
        for opt in self.opts[1:]:
            sess.run(opt.local_step_init_op)
        sess.run(self.init_tokens)
        self.coord = tw.train.Coordinator()
        self.threads = []
        if run_chief:
            self.threads = self.opts[0].get_chief_queue_runner().create_threads(sess, coord=self.coord, start=True)

    def feed(self, r, x, y):
        return {self.x[r]: x, self.y[r]: y}


def _numpy_grads(w, b, x, y):
    err = x @ w + b - y
    return 2 * x.T @ err / len(x), 2 * err.mean(0)


def test_each_step_applies_the_mean_of_exactly_m_gradients_and_drops_the_backup(sess):
    reps = _Replicas(n=3, m=2, lr=0.1)
    reps.start(sess, run_chief=False)  # the chief's step is run by hand, for a known order
    rng = np.random.RandomState(2)
    data = [(rng.randn(4, 3).astype(np.float32), rng.randn(4, 1).astype(np.float32)) for _ in range(3)]
    w0, b0 = sess.run([reps.w, reps.b])
    # Replicas 0 and 1 apply their gradients (the initial tokens let them through).
    for r in (0, 1):
        sess.run(reps.train_ops[r], reps.feed(r, *data[r]), options=LONG)
    sess.run(reps.sync_op, options=LONG)  # the chief: takes 2 gradients, applies, 3 tokens
    grads = [_numpy_grads(w0, b0, *data[r]) for r in (0, 1)]
    w1, b1, step = sess.run([reps.w, reps.b, reps.global_step])
    np.testing.assert_allclose(w1, w0 - 0.1 * (grads[0][0] + grads[1][0]) / 2, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b1, b0 - 0.1 * (grads[0][1] + grads[1][1]) / 2, rtol=1e-5, atol=1e-6)
    assert step == 1
    # Replica 2, the backup worker, was late: its gradient (local step 0 < global step 1) is dropped.
    sess.run(reps.train_ops[2], reps.feed(2, *data[2]), options=LONG)
    accumulators = [a for a, _ in reps.opts[2]._accumulator_list]
    assert [sess.run(a.num_accumulated()) for a in accumulators] == [0, 0]
    # Replica 2 got a token of the new step: its next gradient counts.
    sess.run(reps.train_ops[2], reps.feed(2, *data[2]), options=LONG)
    assert [sess.run(a.num_accumulated()) for a in accumulators] == [1, 1]
    with pytest.raises(tw.errors.DeadlineExceededError):
        sess.run(reps.sync_op, options=TIMEOUT)  # one gradient of the two it needs
    np.testing.assert_array_equal(sess.run(reps.w), w1)


def test_sparse_gradients_are_averaged_per_row_over_the_replicas_that_had_it(sess):
    """An embedding's IndexedSlices gradients go through a SparseConditionalAccumulator: each row is the mean of
    the gradients of the replicas whose batch had that row (TF's SyncReplicasOptimizer with shape=())."""
    table = tw.Variable(np.arange(12, dtype=np.float32).reshape(6, 2), name="table")
    step = tw.train.get_or_create_global_step()
    ids, train_ops, opts = [], [], []
    for r in range(2):
        with tw.name_scope(f"replica_{r}"):
            i = tw.placeholder(tw.int32, [None])
            loss = tw.reduce_sum(tw.nn.embedding_lookup(table, i) * float(r + 1))
            opt = tw.train.SyncReplicasOptimizer(tw.train.GradientDescentOptimizer(0.5), 2)
            gv = opt.compute_gradients(loss, var_list=[table])
            assert isinstance(gv[0][0], tw.IndexedSlices)
            train_ops.append(opt.apply_gradients(gv, global_step=step))
        ids.append(i)
        opts.append(opt)
    sess.run(tw.global_variables_initializer())
    sess.run(tw.local_variables_initializer())
    sess.run(opts[0].chief_init_op)
    sess.run(opts[1].local_step_init_op)
    sess.run(opts[0].get_init_tokens_op())
    before = sess.run(table)
    sess.run(train_ops[0], {ids[0]: [1, 4, 4]}, options=LONG)  # rows 1 and 4 (twice): gradient 1 each time
    sess.run(train_ops[1], {ids[1]: [4, 5]}, options=LONG)  # gradient 2
    sess.run(opts[0].get_chief_queue_runner().enqueue_ops[0], options=LONG)
    want = before.copy()
    want[1] -= 0.5 * 1.0  # replica 0 only
    want[4] -= 0.5 * (2.0 + 2.0) / 2  # replica 0's summed rows (2) and replica 1's (2), over 2 replicas
    want[5] -= 0.5 * 2.0  # replica 1 only
    np.testing.assert_allclose(sess.run(table), want)


def _replica_loop(sess, reps, r, data, stop, counter, pause=None):
    try:
        while not stop.is_set():
            if pause is not None:
                pause()
            sess.run(reps.train_ops[r], reps.feed(r, *data), options=LONG)
            counter[r] += 1
    except (tw.errors.CancelledError, tw.errors.OutOfRangeError):
        pass  # the session closed under the loop


def test_steps_advance_with_a_stalled_replica_when_m_is_less_than_n():
    with tw.Graph().as_default():
        reps = _Replicas(n=3, m=2, lr=0.05)
        sess = tw.Session()
        reps.start(sess)
        rng = np.random.RandomState(3)
        data = [(rng.randn(8, 3).astype(np.float32), rng.randn(8, 1).astype(np.float32)) for _ in range(3)]
        stop, release = threading.Event(), threading.Event()
        counter = [0, 0, 0]
        threads = [threading.Thread(target=_replica_loop, args=(sess, reps, r, data[r], stop, counter)) for r in (0, 1)]
        # Replica 2 is slow: it sleeps until released, i.e. it misses every step while the others train.
        threads.append(
            threading.Thread(
                target=_replica_loop, args=(sess, reps, 2, data[2], stop, counter, lambda: release.wait(30))
            )
        )
        for t in threads:
            t.start()
        deadline = time.time() + 60
        while sess.run(reps.global_step) < 10 and time.time() < deadline:
            time.sleep(0.02)
        step = sess.run(reps.global_step)
        stop.set()
        release.set()
        for t in threads[:2]:
            t.join(30)
        assert step >= 10, f"the synchronous steps stopped at {step} with one replica stalled"
        assert counter[2] <= 1  # the slow replica took no part in them
        reps.coord.request_stop()
        sess.close()
        for t in threads + reps.threads:
            t.join(30)
            assert not t.is_alive()


def test_sync_training_of_two_replicas_converges_to_least_squares():
    rng = np.random.RandomState(4)
    w_true = np.array([[1.0], [-2.0], [0.5]], np.float32)
    x_all = rng.randn(64, 3).astype(np.float32)
    y_all = x_all @ w_true + 0.3 + 0.001 * rng.randn(64, 1).astype(np.float32)
    with tw.Graph().as_default():
        reps = _Replicas(n=2, m=2, lr=0.2)
        sess = tw.Session()
        reps.start(sess)
        stop = threading.Event()
        counter = [0, 0]
        # As synchronous training runs: until the global step reaches its goal (a replica whose gradient was
        # stale has used a token without making a step, so a fixed number of runs per replica could wait forever).
        threads = [
            threading.Thread(target=_replica_loop, args=(sess, reps, r, (x_all[r::2], y_all[r::2]), stop, counter))
            for r in range(2)
        ]
        for t in threads:
            t.start()
        deadline = time.time() + 120
        while sess.run(reps.global_step) < 150 and time.time() < deadline:
            time.sleep(0.02)
        stop.set()
        w, b, step = sess.run([reps.w, reps.b, reps.global_step])
        reps.coord.request_stop()
        sess.close()  # ends the runs waiting for a token or for gradients
        for t in threads + reps.threads:
            t.join(30)
            assert not t.is_alive()
    assert step >= 150
    assert sum(counter) >= 150  # two accepted gradients per step
    design = np.hstack([x_all, np.ones([64, 1], np.float32)])
    solution = np.linalg.lstsq(design, y_all, rcond=None)[0]
    np.testing.assert_allclose(np.vstack([w, b[:, None]]), solution, atol=2e-3)


# On close, the chief's queue runner is still waiting in TakeGrad; the closing session cancels it, and its thread
# re-raises the CancelledError from Coordinator.request_stop after join(), as TF1's does.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_monitored_training_session_with_the_hook():
    with tw.Graph().as_default():
        w = tw.Variable([3.0], name="w")
        step = tw.train.get_or_create_global_step()
        opt = tw.train.SyncReplicasOptimizer(tw.train.GradientDescentOptimizer(0.25), replicas_to_aggregate=1)
        train = opt.minimize(tw.reduce_sum(w * w), global_step=step)
        assert opt.get_slot_names() == [] and opt.variables() == []
        # The chief's queue runner waits in take_grad when the session closes (as in TF): a short grace period.
        hooks = [opt.make_session_run_hook(is_chief=True)]
        with tw.train.MonitoredTrainingSession(hooks=hooks, stop_grace_period_secs=1) as sess:
            for _ in range(6):
                sess.run(train, options=LONG)
            # Each applied step halves w (w <- w - 0.25 * 2w) from the gradient of that step's w; a gradient of an
            # older step is dropped. The chief's queue runner may still be finishing its last step: wait for it.
            deadline = time.time() + 20
            while True:
                w_now, step_now = sess.run([w, step])
                if np.isclose(w_now[0], 3.0 * 0.5**step_now) or time.time() > deadline:
                    break
                time.sleep(0.01)
    # Each run took a token: the initial one, then one per applied step.
    assert step_now >= 5
    np.testing.assert_allclose(w_now[0], 3.0 * 0.5**step_now, rtol=1e-6)


def test_sync_replicas_argument_errors():
    with tw.Graph().as_default():
        w = tw.Variable([1.0])
        opt = tw.train.SyncReplicasOptimizer(tw.train.GradientDescentOptimizer(0.1), 2, total_num_replicas=3)
        with pytest.raises(ValueError, match="Should be called after apply_gradients"):
            opt.get_chief_queue_runner()
        with pytest.raises(ValueError, match="should be called after apply_gradients"):
            opt.get_init_tokens_op()
        with pytest.raises(ValueError, match="Global step is required"):
            opt.apply_gradients([(tw.constant([1.0]), w)])
        with pytest.raises(ValueError, match="at least one variable"):
            opt.apply_gradients([], global_step=tw.train.get_or_create_global_step())
        hook = opt.make_session_run_hook(True)
        with pytest.raises(ValueError, match="apply_gradient should be called before"):
            hook.begin()
        opt.apply_gradients([(tw.constant([1.0]), w)], global_step=tw.train.get_or_create_global_step())
        with pytest.raises(ValueError, match="Too few tokens"):
            tw.train.SyncReplicasOptimizer(tw.train.GradientDescentOptimizer(0.1), 3, 1)  # fine to build
            opt._replicas_to_aggregate, opt._total_num_replicas = 3, 1
            opt.get_init_tokens_op(num_tokens=1)


# --- a real cluster ------------------------------------------------------------------------------------------------


def test_sync_training_with_a_backup_worker_on_a_local_cluster(tmp_path):
    """2 ps + 3 worker processes on 127.0.0.1, 2 gradients aggregated per step, worker 2 slowed by a sleep: the
    steps advance, every worker ends, the model reaches the single-process accuracy, and the chief's sharded
    checkpoint has one shard per ps task. The launcher's timeout is the watchdog (a hang fails, and
    LocalCluster kills the processes on exit)."""
    pytest.importorskip("sklearn")
    import json
    import os
    import sys

    from tensorweave.distributed import launch

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, os.path.join(root, "examples", "distributed"))
    try:
        import train_digits_async
    finally:
        sys.path.pop(0)
    single = train_digits_async.train_single_process(steps=150)
    script = os.path.join(root, "tests", "distributed_sync_task.py")
    prefix = str(tmp_path / "ckpt" / "model")
    os.makedirs(os.path.dirname(prefix))
    command = [sys.executable, script, "--steps", "150", "--aggregate", "2", "--slow_worker", "2"]
    command += ["--slow_seconds", "0.05", "--checkpoint", prefix]
    with launch.LocalCluster(command, num_ps=2, num_workers=3, logdir=str(tmp_path)) as c:
        codes = c.wait(timeout=240)
        logs = {k: c.log(*k) for k in c.procs if k[0] == "worker"}
    assert codes == {("worker", 0): 0, ("worker", 1): 0, ("worker", 2): 0}, logs
    accuracies = [float(x.split()[1]) for log in logs.values() for x in log.splitlines() if x.startswith("ACCURACY")]
    assert len(accuracies) == 3, logs
    assert single > 0.85
    for a in accuracies:
        assert a >= single - 0.05, (accuracies, single)
    saved = next(x.split()[1] for x in logs[("worker", 0)].splitlines() if x.startswith("SAVED"))
    with open(saved + ".shards.json") as f:
        shards = json.load(f)["shards"]
    assert sorted(s["device"] for s in shards) == ["/job:ps/task:0", "/job:ps/task:1"]
    assert sorted(t for s in shards for t in s["tensors"]) == ["b1", "b2", "global_step", "w1", "w2"]
    holder = next(s for s in shards if "global_step" in s["tensors"])
    assert tw.train.load_variable(os.path.join(os.path.dirname(prefix), holder["prefix"]), "global_step") >= 150


def test_variable_averages_are_updated_after_each_step(sess):
    w = tw.Variable([4.0], name="w")
    step = tw.train.get_or_create_global_step()
    ema = tw.train.ExponentialMovingAverage(0.5)
    opt = tw.train.SyncReplicasOptimizer(
        tw.train.GradientDescentOptimizer(0.25), 1, variable_averages=ema, variables_to_average=[w]
    )
    train = opt.minimize(tw.reduce_sum(w * w), global_step=step)
    sync_op = opt.get_chief_queue_runner().enqueue_ops[0]
    sess.run(tw.global_variables_initializer())
    sess.run(tw.local_variables_initializer())
    sess.run(opt.chief_init_op)
    sess.run(opt.get_init_tokens_op())
    sess.run(train, options=LONG)
    sess.run(sync_op, options=LONG)  # w: 4 -> 2, then the average: 0.5 * 4 + 0.5 * 2
    assert sess.run(w).tolist() == [2.0]
    assert sess.run(ema.average(w)).tolist() == [3.0]
    assert sess.run(step) == 1
