"""The model of benchmarks/rnn_while_loop.py (a 2-layer LSTM over a while_loop and TensorArrays, trained by
gradient descent) at small sizes, against a numpy LSTM with backpropagation through time written out: the
losses of the first steps and the trained weights agree."""

import os
import sys

import numpy as np
import tensorweave as tw

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
import rnn_while_loop as bench

STEPS, BATCH, DEPTH, HIDDEN, LAYERS, LR = 5, 3, 4, 6, 2, 0.5


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def numpy_step(values, x, y):
    """Loss and gradients of the benchmark's model (float64): {name: grad}."""
    w = [values[f"kernel_{k}"].astype(np.float64) for k in range(LAYERS)]
    b = [values[f"bias_{k}"].astype(np.float64) for k in range(LAYERS)]
    c = [np.zeros((BATCH, HIDDEN)) for _ in range(LAYERS)]
    h = [np.zeros((BATCH, HIDDEN)) for _ in range(LAYERS)]
    tape, top = [], []
    for t in range(STEPS):
        below = x[t].astype(np.float64)
        for k in range(LAYERS):
            inp = np.concatenate([below, h[k]], 1)
            i, j, f, o = np.split(inp @ w[k] + b[k], 4, axis=1)
            si, tj, sf, so = _sigmoid(i), np.tanh(j), _sigmoid(f + bench.FORGET_BIAS), _sigmoid(o)
            c_new = sf * c[k] + si * tj
            tc = np.tanh(c_new)
            tape.append((inp, c[k], si, tj, sf, so, tc))
            c[k], h[k] = c_new, so * tc
            below = h[k]
        top.append(below)
    diff = np.stack(top) - y
    loss = np.mean(diff**2)
    d_top = 2.0 * diff / diff.size
    dw = [np.zeros_like(v) for v in w]
    db = [np.zeros_like(v) for v in b]
    dh_next = [np.zeros((BATCH, HIDDEN)) for _ in range(LAYERS)]
    dc_next = [np.zeros((BATCH, HIDDEN)) for _ in range(LAYERS)]
    for t in reversed(range(STEPS)):
        d_above = d_top[t]
        for k in reversed(range(LAYERS)):
            inp, c_prev, si, tj, sf, so, tc = tape[t * LAYERS + k]
            dh = d_above + dh_next[k]
            dc = dc_next[k] + dh * so * (1 - tc**2)
            dz = np.concatenate(
                [dc * tj * si * (1 - si), dc * si * (1 - tj**2), dc * c_prev * sf * (1 - sf), dh * tc * so * (1 - so)],
                1,
            )
            dw[k] += inp.T @ dz
            db[k] += dz.sum(0)
            d_inp = dz @ w[k].T
            depth = inp.shape[1] - HIDDEN
            d_above, dh_next[k] = d_inp[:, :depth], d_inp[:, depth:]
            dc_next[k] = dc * sf
    grads = {f"kernel_{k}": dw[k] for k in range(LAYERS)}
    grads.update({f"bias_{k}": db[k] for k in range(LAYERS)})
    return loss, grads


def test_lstm_training_matches_numpy_bptt():
    values = bench.initial_values(seed=3, hidden=HIDDEN, depth=DEPTH, layers=LAYERS)
    xv, yv = bench.feeds(STEPS, seed=4, hidden=HIDDEN, batch=BATCH, depth=DEPTH)
    g = tw.Graph()
    with g.as_default():
        x, y, loss, train = bench.build_model(
            tw, tw, STEPS, values, hidden=HIDDEN, batch=BATCH, depth=DEPTH, layers=LAYERS, lr=LR
        )
        variables = {v.op.name: v for v in tw.global_variables()}
        init = tw.global_variables_initializer()
    want = {k: v.astype(np.float64) for k, v in values.items()}
    with tw.Session(graph=g) as sess:
        sess.run(init)
        forward_only = sess.run(loss, {x: xv, y: yv})
        for _ in range(3):
            expected, grads = numpy_step(want, xv, yv)
            got, _ = sess.run([loss, train], {x: xv, y: yv})
            np.testing.assert_allclose(got, expected, rtol=1e-5)
            want = {k: want[k] - LR * grads[k] for k in want}
        trained = sess.run(variables)
    np.testing.assert_allclose(
        forward_only, numpy_step(bench.initial_values(3, HIDDEN, DEPTH, LAYERS), xv, yv)[0], rtol=1e-5
    )
    assert set(trained) == set(want)
    for name, value in trained.items():
        np.testing.assert_allclose(value, want[name], rtol=1e-4, atol=1e-5, err_msg=name)
    # The weights moved: the comparison above is not of the initial values with themselves.
    assert max(np.max(np.abs(trained[k] - values[k])) for k in values) > 1e-3
