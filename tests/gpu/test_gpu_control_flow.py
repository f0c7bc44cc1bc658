"""Control flow with its body on the GPU: `while_loop`, `cond`, nested loops, TensorArray and the
gradients of each. The frame ops (Enter, Switch, Merge, NextIteration, Exit, LoopCond) have GPU
kernels that forward device buffers (predicates in host memory); ops without a GPU kernel (Tanh, Sin)
fall back to the CPU under soft placement, so values also cross host<->GPU inside the frames through
the partitioner's per-frame _Send/_Recv and control loops. Each test checks the CPU's values, forward
and backward, and that the listed ops really ran on the GPU. Skips without a GPU."""

import numpy as np
import pytest
import tensorweave as tw

from tests.gpu.gpu_util import assert_gpu_matches_cpu, requires_gpu, run_recorded

pytestmark = requires_gpu

RNG = np.random.default_rng(7)


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("parallel_iterations", [1, 10])
def test_while_loop_matmul_body(parallel_iterations):
    x0, w = _f32(8, 16), 0.3 * _f32(16, 16)

    def build(x, w):
        _, y = tw.while_loop(
            lambda i, _: i < 12,
            lambda i, h: (i + 1, tw.tanh(tw.matmul(h, w))),
            [tw.constant(0), x],
            parallel_iterations=parallel_iterations,
        )
        return y

    assert_gpu_matches_cpu(build, [x0, w], ops={"MatMul", "TanhGrad"}, rtol=1e-4, atol=1e-5)


def test_cond_inside_while_loop_and_loop_inside_cond():
    x0 = _f32(4, 4)

    def build(x):
        def body(i, h):
            h = tw.cond(tw.equal(i % 2, 0), lambda: h * 2.0, lambda: tw.sin(h))
            return i + 1, h

        _, y = tw.while_loop(lambda i, _: i < 7, body, [tw.constant(0), x])
        z = tw.cond(
            tw.reduce_sum(y) > 0.0,
            lambda: tw.while_loop(lambda k, v: k < 3, lambda k, v: (k + 1, tw.exp(-v)), [0, y])[1],
            lambda: -y,
        )
        return y, z

    assert_gpu_matches_cpu(build, [x0], ops={"Mul", "FloorMod", "Exp"}, rtol=1e-4, atol=1e-5)


def test_nested_while_loops():
    x0 = _f32(3, 5)

    def build(x):
        def outer(i, h):
            _, h = tw.while_loop(lambda j, v: j < i + 1, lambda j, v: (j + 1, v * 0.9 + 0.1), [0, h])
            return i + 1, tw.square(h)

        return tw.while_loop(lambda i, _: i < 4, outer, [tw.constant(0), x])[1]

    assert_gpu_matches_cpu(build, [x0], ops={"Square"}, rtol=1e-4, atol=1e-5)


def test_tensor_array_rnn_trains_through_time():
    """An RNN over a TensorArray: forward states and the BPTT gradients agree with the CPU."""
    xs, w, u = _f32(6, 2, 3), 0.5 * _f32(3, 4), 0.5 * _f32(4, 4)

    def build(xs, w, u):
        steps = tw.shape(xs)[0]
        inputs = tw.TensorArray(tw.float32, size=steps).unstack(xs)
        out = tw.TensorArray(tw.float32, size=steps)

        def body(t, h, out):
            h = tw.tanh(tw.matmul(inputs.read(t), w) + tw.matmul(h, u))
            return t + 1, h, out.write(t, h)

        _, h, out = tw.while_loop(lambda t, *_: t < steps, body, [tw.constant(0), tw.zeros([2, 4]), out])
        return out.stack(), h

    assert_gpu_matches_cpu(build, [xs, w, u], ops={"MatMul", "TanhGrad"}, rtol=1e-4, atol=1e-5)


def test_branches_on_different_devices_inside_a_loop():
    """Each iteration takes one branch; the other branch's device gets only dead values."""
    x0 = _f32(5)
    graph = tw.Graph()
    with graph.as_default():
        x = tw.placeholder(tw.float32, [5])

        def body(i, h):
            def on_gpu():
                with tw.device("/gpu:0"):
                    return tw.exp(-h) + 1.0

            def on_cpu():
                with tw.device("/cpu:0"):
                    return h * 0.5

            return i + 1, tw.cond(i < 3, on_gpu, on_cpu)

        _, y = tw.while_loop(lambda i, _: i < 6, body, [tw.constant(0), x])
        grad = tw.gradients(tw.reduce_sum(y), x)[0]
        with tw.Session(graph=graph, config=tw.ConfigProto(allow_soft_placement=True)) as sess:
            (value, dx), ran = run_recorded(sess, [y, grad], {x: x0})
    assert "Exp" in ran, ran
    h, d = x0.astype(np.float64), np.ones(5)
    for i in range(6):
        if i < 3:
            d = d * -np.exp(-h)
            h = np.exp(-h) + 1.0
        else:
            d = d * 0.5
            h = h * 0.5
    np.testing.assert_allclose(value, h, rtol=1e-5, atol=1e-6)
    # The chain rule applied backwards is the same product of factors as forwards.
    np.testing.assert_allclose(dx, d, rtol=1e-4, atol=1e-6)


def test_loop_with_data_dependent_trip_count_many_steps():
    """A loop whose condition reads a GPU value, run as many steps: no frame state leaks between
    steps (the rendezvous keys carry the frame and iteration)."""
    graph = tw.Graph()
    with graph.as_default():
        x = tw.placeholder(tw.float32, [])
        with tw.device("/gpu:0"):
            _, n = tw.while_loop(lambda v, k: v < 100.0, lambda v, k: (v * 1.5 + 1.0, k + 1), [x, 0])
        with tw.Session(graph=graph, config=tw.ConfigProto(allow_soft_placement=True)) as sess:
            for start in [0.0, 1.0, 50.0, 99.5, 100.0, -1.5] * 5:
                v, k = start, 0
                while v < 100.0:
                    v, k = v * 1.5 + 1.0, k + 1
                assert sess.run(n, {x: start}) == k
