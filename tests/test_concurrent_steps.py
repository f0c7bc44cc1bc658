"""Concurrent steps on one session from Python threads: results stay right, the binding releases the GIL
while a step runs, every variable update op is atomic (use_locking=True honoured: no lost update), and
asynchronous (Hogwild-style) SGD from several threads converges. Oracles: numpy and exact counts."""

import threading
import time

import numpy as np
import pytest
import tensorweave as tw


def _threads(n, fn):
    errors = []

    def run(i):
        try:
            fn(i)
        except Exception as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    if errors:
        raise errors[0]


def test_many_steps_in_flight_give_the_right_values(sess):
    x = tw.placeholder(tw.float32, [None, 8])
    w = tw.constant(np.random.RandomState(0).randn(8, 4).astype(np.float32))
    y = tw.nn.relu(tw.matmul(x, w)) * 2.0
    rng = np.random.RandomState(1)
    inputs = [rng.randn(16, 8).astype(np.float32) for _ in range(8)]
    w_np = sess.run(w)

    def work(i):
        for _ in range(30):
            got = sess.run(y, {x: inputs[i]})
            np.testing.assert_allclose(got, np.maximum(inputs[i] @ w_np, 0) * 2.0, rtol=1e-5, atol=1e-5)

    _threads(8, work)


def test_a_blocked_step_does_not_hold_the_gil(sess):
    # While one thread's step waits in a dequeue, this thread keeps running Python and steps.
    q = tw.FIFOQueue(1, tw.int32, shapes=[[]])
    deq = q.dequeue()
    box = []
    t = threading.Thread(target=lambda: box.append(sess.run(deq)), daemon=True)
    t.start()
    time.sleep(0.1)
    total = sum(int(sess.run(tw.constant(1) + i)) for i in range(50))
    assert total == sum(1 + i for i in range(50))
    sess.run(q.enqueue(5))
    t.join(10)
    assert box == [5]


@pytest.mark.parametrize("use_locking", [True, False])
def test_concurrent_assign_add_loses_no_update(sess, use_locking):
    v = tw.Variable(tw.zeros([64], tw.int64))
    inc = tw.assign_add(v, tw.ones([64], tw.int64), use_locking=use_locking)
    sess.run(v.initializer)

    def work(_):
        for _ in range(200):
            sess.run(inc.op)

    _threads(6, work)
    assert sess.run(v).tolist() == [6 * 200] * 64


def test_concurrent_scatter_add_and_apply_ops_lose_no_update(sess):
    table = tw.Variable(tw.zeros([10], tw.float32))
    idx = tw.placeholder(tw.int32, [None])
    scatter = tw.scatter_add(table, idx, tw.ones_like(idx, dtype=tw.float32), use_locking=True)
    w = tw.Variable(tw.zeros([3], tw.float32))
    sgd = tw.train.GradientDescentOptimizer(1.0, use_locking=True).apply_gradients([(tw.constant([1.0, 2.0, 3.0]), w)])
    sess.run(tw.global_variables_initializer())

    def work(i):
        for _ in range(100):
            sess.run(scatter.op, {idx: [i % 10, (i + 3) % 10]})
            sess.run(sgd)

    _threads(5, work)
    expected = np.zeros(10)
    for i in range(5):
        expected[i % 10] += 100
        expected[(i + 3) % 10] += 100
    np.testing.assert_array_equal(sess.run(table), expected)
    np.testing.assert_allclose(sess.run(w), -500.0 * np.array([1.0, 2.0, 3.0]))


def test_hogwild_sgd_from_four_threads_converges():
    rng = np.random.RandomState(0)
    true_w = rng.randn(10, 1).astype(np.float32)
    data = rng.randn(4000, 10).astype(np.float32)
    labels = data @ true_w + 0.01 * rng.randn(4000, 1).astype(np.float32)
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 10])
        y = tw.placeholder(tw.float32, [None, 1])
        w = tw.Variable(tw.zeros([10, 1]))
        loss = tw.reduce_mean(tw.square(tw.matmul(x, w) - y))
        train = tw.train.GradientDescentOptimizer(0.05).minimize(loss)
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            initial = sess.run(loss, {x: data, y: labels})

            def work(i):
                shard = slice(i * 1000, (i + 1) * 1000)
                for step in range(150):
                    batch = slice(shard.start + (step * 32) % 960, shard.start + (step * 32) % 960 + 32)
                    sess.run(train, {x: data[batch], y: labels[batch]})

            _threads(4, work)
            final = sess.run(loss, {x: data, y: labels})
            np.testing.assert_allclose(sess.run(w), true_w, atol=0.05)
    assert final < 1e-3 * initial


def test_concurrent_momentum_updates_are_atomic_over_variable_and_slot(sess):
    # Each ApplyMomentum updates the accumulator and the variable under both their locks, so 400 steps from 4
    # threads with a constant gradient end exactly where 400 steps in a row do (numpy oracle).
    w = tw.Variable(tw.zeros([4], tw.float64))
    grad = tw.constant([1.0, -2.0, 0.5, 4.0], tw.float64)
    train = tw.train.MomentumOptimizer(0.01, 0.9, use_locking=True).apply_gradients([(grad, w)])
    sess.run(tw.global_variables_initializer())

    def work(_):
        for _ in range(100):
            sess.run(train)

    _threads(4, work)
    # The optimizer makes its hyperparameters float32 constants cast to the variable's dtype, as TF1's.
    lr, momentum = np.float64(np.float32(0.01)), np.float64(np.float32(0.9))
    accum, var = np.zeros(4), np.zeros(4)
    g = np.array([1.0, -2.0, 0.5, 4.0])
    for _ in range(400):
        accum = momentum * accum + g
        var -= lr * accum
    np.testing.assert_allclose(sess.run(w), var, rtol=1e-12)
