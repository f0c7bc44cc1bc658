"""tf.nn additions of issue 16 against numpy oracles (TensorFlow comparisons live in tests/fidelity/cases_nn.py):
the backprop ops declared not differentiable ("MaxPool3DGrad", "LRNGrad", "MaxPoolGradWithArgmax") by their
values, fused batch norm in NCHW (inference, which TensorFlow's CPU build refuses), the kernels' error paths."""

import numpy as np
import pytest
import tensorweave as tw


@pytest.fixture(autouse=True)
def graph():
    with tw.Graph().as_default() as g:
        yield g


def _run(fetches, feed=None):
    with tw.Session() as sess:
        return sess.run(fetches, feed)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _ops_of(tensor_list, op_type):
    g = tw.get_default_graph()
    return [op for op in g.get_operations() if op.type == op_type]


def test_max_pool3d_grad_routes_to_the_window_maximum():
    x = np.random.default_rng(0).permutation(2 * 4 * 4 * 4 * 3).reshape([2, 4, 4, 4, 3]).astype(np.float64)
    xt = tw.constant(x)
    y = tw.nn.max_pool3d(xt, 2, 2, "VALID")
    g = _rand(2, 2, 2, 2, 3, seed=1)
    (dx,) = tw.gradients(y, xt, grad_ys=tw.constant(g))
    assert _ops_of(None, "MaxPool3DGrad")
    got_y, got_dx = _run([y, dx])
    want_dx = np.zeros_like(x)
    blocks = x.reshape(2, 2, 2, 2, 2, 2, 2, 3).transpose(0, 1, 3, 5, 7, 2, 4, 6).reshape(2, 2, 2, 2, 3, 8)
    np.testing.assert_array_equal(got_y, blocks.max(-1))
    arg = blocks.argmax(-1)
    for b, d, h, w, c in np.ndindex(2, 2, 2, 2, 3):
        k = arg[b, d, h, w, c]
        kd, kh, kw = k // 4, (k // 2) % 2, k % 2
        want_dx[b, 2 * d + kd, 2 * h + kh, 2 * w + kw, c] = g[b, d, h, w, c]
    np.testing.assert_allclose(got_dx, want_dx)


def _lrn_numpy(x, r, bias, alpha, beta):
    depth = x.shape[-1]
    sq = np.zeros_like(x)
    for c in range(depth):
        sq[..., c] = (x[..., max(0, c - r) : c + r + 1] ** 2).sum(-1)
    return x / (bias + alpha * sq) ** beta


def test_lrn_and_its_grad_match_numpy_and_differences():
    x = _rand(2, 3, 2, 6)
    xt = tw.constant(x)
    y = tw.nn.lrn(xt, depth_radius=1, bias=2.0, alpha=0.5, beta=0.6)
    g = _rand(2, 3, 2, 6, seed=1)
    (dx,) = tw.gradients(y, xt, grad_ys=tw.constant(g))
    assert [op.type for op in _ops_of(None, "LRNGrad")] == ["LRNGrad"]
    got_y, got_dx = _run([y, dx])
    # beta is a float attr (0.6 in float32): relative differences of 1e-7.
    np.testing.assert_allclose(got_y, _lrn_numpy(x, 1, 2.0, 0.5, 0.6), rtol=1e-6)
    eps = 1e-6
    want = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[idx] = eps
        want[idx] = ((_lrn_numpy(x + e, 1, 2.0, 0.5, 0.6) - _lrn_numpy(x - e, 1, 2.0, 0.5, 0.6)) * g).sum() / (2 * eps)
    np.testing.assert_allclose(got_dx, want, rtol=1e-5, atol=1e-7)


def test_lrn_refuses_bad_input():
    with pytest.raises(ValueError):
        tw.nn.lrn(tw.ones([2, 3]))
    with pytest.raises(TypeError):
        tw.nn.lrn(tw.ones([1, 1, 1, 2], tw.int32))
    x = tw.placeholder(tw.float32)
    with pytest.raises(tw.errors.InvalidArgumentError, match="4-D"):
        _run(tw.nn.lrn(x), {x: np.ones([2, 2], np.float32)})


def test_max_pool_grad_with_argmax_scatters_grad_at_argmax():
    x = np.random.default_rng(2).permutation(2 * 4 * 4 * 2).reshape([2, 4, 4, 2]).astype(np.float32)
    xt = tw.constant(x)
    out, argmax = tw.nn.max_pool_with_argmax(xt, 2, 2, "VALID", include_batch_in_index=True)
    g = _rand(2, 2, 2, 2, seed=3).astype(np.float32)
    (dx,) = tw.gradients(out, xt, grad_ys=tw.constant(g))
    assert _ops_of(None, "MaxPoolGradWithArgmax")
    got_out, got_arg, got_dx = _run([out, argmax, dx])
    np.testing.assert_array_equal(x.reshape(-1)[got_arg], got_out)
    want = np.zeros(x.size, np.float32)
    np.add.at(want, got_arg.reshape(-1), g.reshape(-1))
    np.testing.assert_allclose(got_dx.reshape(-1), want)


def test_max_pool_grad_with_argmax_refuses_an_index_out_of_range():
    raw = tw.raw_ops.MaxPoolGradWithArgmax(
        input=tw.ones([1, 2, 2, 1]),
        grad=tw.ones([1, 1, 1, 1]),
        argmax=tw.constant([[[[7]]]], tw.int64),
        ksize=[1, 2, 2, 1],
        strides=[1, 2, 2, 1],
        padding="VALID",
    )
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        _run(raw)


def test_fused_batch_norm_nchw_matches_nhwc_in_both_modes():
    x = _rand(2, 3, 4, 5)
    scale, offset = _rand(3, seed=1), _rand(3, seed=2)
    mean, var = _rand(3, seed=3), np.abs(_rand(3, seed=4)) + 0.5
    nchw = tw.constant(x)
    nhwc = tw.transpose(nchw, [0, 2, 3, 1])
    outs = []
    for training in (True, False):
        kw = {"epsilon": 0.01, "is_training": training}
        if not training:
            kw.update(mean=mean, variance=var)
        a = tw.nn.fused_batch_norm(nchw, scale, offset, data_format="NCHW", **kw)
        b = tw.nn.fused_batch_norm(nhwc, scale, offset, **kw)
        outs.append((a, b, tw.gradients(a[0] * x, [nchw]), tw.gradients(tw.transpose(b[0], [0, 3, 1, 2]) * x, [nchw])))
    for a, b, ga, gb in _run(outs):
        np.testing.assert_allclose(a[0], b[0].transpose(0, 3, 1, 2), rtol=1e-10)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-10)
        np.testing.assert_allclose(a[2], b[2], rtol=1e-10)
        np.testing.assert_allclose(ga[0], gb[0], rtol=1e-8, atol=1e-12)
    # Inference against the formula.
    y = _run(tw.nn.fused_batch_norm(nchw, scale, offset, mean, var, 0.01, "NCHW", False)[0])
    c = (slice(None), None, None)
    want = (x - mean[c]) / np.sqrt(var[c] + 0.01) * scale[c] + offset[c]
    np.testing.assert_allclose(y, want, rtol=1e-6)


def test_conv3d_matches_a_numpy_reference():
    x, w = _rand(2, 4, 5, 3, 2), _rand(2, 3, 2, 2, 3, seed=1)
    got = _run(tw.nn.conv3d(x, w, [1, 1, 2, 1, 1], "VALID"))
    out = np.zeros([2, 3, 2, 2, 3])
    for d, h, ww in np.ndindex(3, 2, 2):
        patch = x[:, d : d + 2, 2 * h : 2 * h + 3, ww : ww + 2, :]
        out[:, d, h, ww, :] = np.tensordot(patch, w, axes=([1, 2, 3, 4], [0, 1, 2, 3]))
    np.testing.assert_allclose(got, out, rtol=1e-10)


def test_conv3d_kernel_errors_name_the_problem():
    x = tw.placeholder(tw.float64, [None, None, None, None, 2])
    y = tw.nn.conv3d(x, tw.constant(np.ones([3, 3, 3, 2, 1])), [1] * 5, "VALID")
    with pytest.raises(tw.errors.InvalidArgumentError, match="smaller than the window"):
        _run(y, {x: np.ones([1, 2, 4, 4, 2])})
    z = tw.nn.conv3d(tw.ones([1, 3, 3, 3, 1]), tw.ones([1, 1, 1, 1, 1]), [1, 1, 1, 1, 2], "SAME")
    with pytest.raises(tw.errors.UnimplementedError, match="batch and depth"):
        _run(z)
    with pytest.raises(ValueError):
        tw.nn.conv3d(tw.ones([1, 3, 3, 3]), tw.ones([1, 1, 1, 1, 1]), [1] * 5, "SAME")
    with pytest.raises(ValueError, match="NDHWC"):
        tw.nn.conv3d(tw.ones([1, 3, 3, 3, 1]), tw.ones([1, 1, 1, 1, 1]), [1] * 5, "SAME", data_format="NCDHW")


def test_avg_pool3d_same_averages_inside_the_input_only():
    x = _rand(1, 3, 3, 3, 1)
    got = _run(tw.nn.avg_pool3d(x, 2, 2, "SAME"))
    # SAME with stride 2 over 3: windows [0, 2) and [2, 3) along each axis.
    want = np.zeros([1, 2, 2, 2, 1])
    for d, h, w in np.ndindex(2, 2, 2):
        want[0, d, h, w, 0] = x[0, 2 * d : 2 * d + 2, 2 * h : 2 * h + 2, 2 * w : 2 * w + 2, 0].mean()
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_dropout_keep_prob_and_rate():
    x = tw.ones([10000])
    a = tw.nn.dropout(x, keep_prob=0.25, seed=3)
    b = tw.nn.dropout(x, rate=0.75, seed=3)
    va, vb = _run([a, b])
    assert set(np.unique(va)) <= {0.0, 4.0} and abs((va > 0).mean() - 0.25) < 0.03
    assert set(np.unique(vb)) <= {0.0, 4.0} and abs((vb > 0).mean() - 0.25) < 0.03
    with pytest.raises(ValueError):
        tw.nn.dropout(x, keep_prob=0.5, rate=0.5)
    with pytest.raises(ValueError):
        tw.nn.dropout(x, rate=1.0)


def test_embedding_lookup_refuses_out_of_range_ids():
    ids = tw.placeholder(tw.int32, [None])
    y = tw.nn.embedding_lookup([tw.ones([2, 3]), tw.ones([2, 3])], ids)
    assert _run(y, {ids: [0, 3]}).shape == (2, 3)
    for bad in ([4], [-1]):
        with pytest.raises(tw.errors.InvalidArgumentError):
            _run(y, {ids: bad})
    with pytest.raises(ValueError, match="partition_strategy"):
        tw.nn.embedding_lookup(tw.ones([2, 3]), [0], partition_strategy="foo")


def _dilation_numpy(x, f):
    """VALID, stride 1, rate 1: the value and the (input, filter) tap of each window's first maximum."""
    n, h, w, c = x.shape
    kh, kw, _ = f.shape
    out = np.zeros((n, h - kh + 1, w - kw + 1, c))
    taps = {}
    for b, y, q, ch in np.ndindex(*out.shape):
        window = x[b, y : y + kh, q : q + kw, ch] + f[:, :, ch]
        k = np.argmax(window)
        out[b, y, q, ch] = window.flat[k]
        taps[(b, y, q, ch)] = ((b, y + k // kw, q + k % kw, ch), (k // kw, k % kw, ch))
    return out, taps


def test_dilation2d_backprops_route_to_the_window_maximum():
    rng = np.random.default_rng(4)
    x = rng.permutation(2 * 4 * 5 * 2).reshape([2, 4, 5, 2]).astype(np.float64)
    f = rng.standard_normal((2, 3, 2)) * 0.1
    xt, ft = tw.constant(x), tw.constant(f)
    y = tw.nn.dilation2d(xt, ft, [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    g = rng.standard_normal(y.shape.as_list())
    dx, df = tw.gradients(y, [xt, ft], grad_ys=tw.constant(g))
    assert {op.type for op in tw.get_default_graph().get_operations()} >= {
        "Dilation2DBackpropInput",
        "Dilation2DBackpropFilter",
    }
    got_y, got_dx, got_df = _run([y, dx, df])
    want_y, taps = _dilation_numpy(x, f)
    want_dx, want_df = np.zeros_like(x), np.zeros_like(f)
    for out_index, (in_index, tap) in taps.items():
        want_dx[in_index] += g[out_index]
        want_df[tap] += g[out_index]
    np.testing.assert_allclose(got_y, want_y)
    np.testing.assert_allclose(got_dx, want_dx)
    np.testing.assert_allclose(got_df, want_df)


def test_candidate_samplers_and_accidental_hits():
    true_classes = tw.constant([[1], [3]], tw.int64)
    u = tw.nn.uniform_candidate_sampler(true_classes, 1, 5, True, 5, seed=1)
    lu = tw.nn.log_uniform_candidate_sampler(true_classes, 1, 4, True, 100, seed=2)
    a = tw.nn.all_candidate_sampler(true_classes, 1, 4, True)
    hits = tw.nn.compute_accidental_hits(true_classes, tw.constant([3, 1, 3], tw.int64), 1)
    types = {op.type for op in tw.get_default_graph().get_operations()}
    assert types >= {"UniformCandidateSampler", "LogUniformCandidateSampler", "AllCandidateSampler"}
    f = tw.nn.fixed_unigram_candidate_sampler(true_classes, 1, 2, True, 4, unigrams=[0.0, 1.0, 0.0, 3.0])
    assert f[0].op.type == "FixedUnigramCandidateSampler" and sorted(_run(f[0])) == [1, 3]
    assert "ComputeAccidentalHits" in types
    (us, ut, ue), (ls, _, le), (as_, _, _), (hi, hd, hw) = _run([u, lu, a, hits])
    assert sorted(us) == [0, 1, 2, 3, 4] and len(set(ls)) == 4 and list(as_) == [0, 1, 2, 3]
    # A unique draw of every class: each one's expected count is 1 - (1 - 1/5)^tries, the same for all.
    np.testing.assert_allclose(ue, ue[0])
    np.testing.assert_allclose(ut.ravel(), ue[:2])
    # Log-uniform, unique: every expected count is p * 4 when the 4 draws were distinct, else 1 - (1 - p)^tries
    # for one number of tries > 4 (as TensorFlow's samplers; test_random_streams.py compares the values with TF's).
    p = np.log((ls + 2.0) / (ls + 1.0)) / np.log(101.0)
    tries = np.log1p(-le.astype(np.float64)) / np.log1p(-p)
    if not np.allclose(le, 4 * p, rtol=1e-5):
        np.testing.assert_allclose(tries, np.round(tries[0]), rtol=1e-3)
        assert tries[0] > 4
    # Row 0's class 1 is sampled at position 1; row 1's class 3 at position 2 (the last of its repeats).
    assert list(hi) == [0, 1] and list(hd) == [1, 2] and np.all(hw == -np.finfo(np.float32).max)
    # The same seed draws the same classes in a new session; another seed draws others.
    again = _run(tw.nn.uniform_candidate_sampler(true_classes, 1, 3, False, 1000, seed=7)[0])
    assert list(again) == list(_run(tw.nn.uniform_candidate_sampler(true_classes, 1, 3, False, 1000, seed=7)[0]))
    with pytest.raises(tw.errors.InvalidArgumentError, match="num_true"):
        _run(tw.raw_ops.ComputeAccidentalHits(true_classes=true_classes, sampled_candidates=[1], num_true=2))
