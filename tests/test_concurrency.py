"""Many Python threads running one session at once."""

import threading

import numpy as np
import pytest

import tensorweave as tw


def _run_threads(n, target):
    errors = []
    barrier = threading.Barrier(n)

    def wrapped(i):
        try:
            barrier.wait()
            target(i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=wrapped, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "threads hung"
    if errors:
        raise errors[0]


@pytest.mark.parametrize("dtype", [tw.int32, tw.int64, tw.float32])
def test_concurrent_assign_add_is_atomic(sess, dtype):
    v = tw.Variable(tw.constant(0, dtype=dtype))
    inc = tw.assign_add(v, tw.constant(1, dtype=dtype))
    sess.run(v.initializer)

    def work(_):
        for _ in range(500):
            sess.run(inc)

    _run_threads(8, work)
    assert sess.run(v) == 4000


def test_concurrent_assign_add_and_sub(sess):
    v = tw.Variable(np.zeros(16, np.int64))
    add = v.assign_add(np.full(16, 3, np.int64))
    sub = v.assign_sub(np.full(16, 2, np.int64))
    sess.run(v.initializer)

    def work(i):
        for _ in range(300):
            sess.run(add if i % 2 == 0 else sub)

    _run_threads(8, work)
    np.testing.assert_array_equal(sess.run(v), np.full(16, 4 * 300 * 3 - 4 * 300 * 2))


def test_concurrent_callables(sess):
    v = tw.Variable(0)
    inc = tw.assign_add(v, 1)
    sess.run(v.initializer)
    f = sess.make_callable(inc.op)

    def work(_):
        for _ in range(500):
            f()

    _run_threads(8, work)
    assert sess.run(v) == 4000


def test_reads_never_torn_while_writing(sess):
    n = 1 << 16
    v = tw.Variable(np.zeros(n, np.float64))
    writes = [tw.assign(v, np.full(n, float(k))) for k in range(1, 5)]
    inc = v.assign_add(np.ones(n))
    read = v.read_value()
    scaled = v.value() * 1.0
    sess.run(v.initializer)
    stop = threading.Event()
    bad = []

    def writer(i):
        try:
            for j in range(200):
                sess.run(writes[(i + j) % 4] if j % 2 else inc)
        finally:
            stop.set()

    def reader(_):
        count = 0
        while not stop.is_set() or count < 50:
            for value in sess.run([v, read, scaled]):
                if not np.all(value == value[0]):
                    bad.append(value)
                    return
            count += 1

    def work(i):
        (writer if i < 2 else reader)(i)

    _run_threads(6, work)
    assert not bad, f"torn read: {np.unique(bad[0])[:10]}"


def test_concurrent_feeds_do_not_mix(sess):
    x = tw.placeholder(tw.int64, [None])
    y = x * 2

    def work(i):
        for j in range(200):
            value = np.full(32, i * 1000 + j, np.int64)
            out = sess.run(y, {x: value})
            assert np.all(out == 2 * value), (i, j, out[:3])

    _run_threads(8, work)


def test_concurrent_graph_building_and_running(graph):
    """Ops added from several threads get unique names and all run."""
    results = {}
    with tw.Session() as sess:

        def work(i):
            with graph.as_default():
                c = tw.constant(i, name="c")
                d = tw.add(c, 1, name="d")
            results[i] = (d, sess.run(d))

        _run_threads(8, work)
    names = {d.op.name for d, _ in results.values()}
    assert len(names) == 8
    for i, (_, value) in results.items():
        assert value == i + 1
