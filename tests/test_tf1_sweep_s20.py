"""Regression tests for the differences the s20 sweep of TF1 programs (tests/tf1_programs/p72..) found, each
checked against TensorFlow's compat.v1 behaviour."""

import numpy as np
import pytest
import tensorweave as tw


def test_layers_regularizer_loss_under_variable_name_scope():
    """tf.layers' kernel_regularizer losses are named "<kernel>/Regularizer/..." as in TF (p76)."""
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 4, 4, 2])
        with tw.variable_scope("block"):
            tw.layers.conv2d(x, 3, 3, kernel_regularizer=lambda w: 1e-3 * tw.nn.l2_loss(w), name="conv")
        tw.layers.dense(tw.layers.flatten(x), 2, kernel_regularizer=lambda w: tw.reduce_sum(w), name="fc")
        losses = tw.get_collection(tw.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.op.name for t in losses] == ["block/conv/kernel/Regularizer/mul", "fc/kernel/Regularizer/Sum"]


def test_unfused_batch_norm_moving_variance_is_biased():
    """fused=False on a 4-D input updates the moving variance with the biased batch variance (nn.moments), as
    TF's unfused path; fused=True/None uses the fused kernel's Bessel-corrected one (p76)."""
    x_np = (np.arange(24, dtype=np.float32).reshape(2, 2, 2, 3) ** 1.5).astype(np.float32)
    n = 8
    var = x_np.reshape(-1, 3).var(axis=0)
    with tw.Graph().as_default():
        x = tw.constant(x_np)
        for fused in (True, False, None):
            tw.layers.batch_normalization(x, training=True, fused=fused, momentum=0.5, name=f"bn_{fused}")
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            sess.run(tw.get_collection(tw.GraphKeys.UPDATE_OPS))
            got = {v.op.name: sess.run(v) for v in tw.global_variables() if "moving_variance" in v.op.name}
    np.testing.assert_allclose(got["bn_False/moving_variance"], 0.5 + 0.5 * var, rtol=1e-5)
    for fused in (True, None):
        np.testing.assert_allclose(got[f"bn_{fused}/moving_variance"], 0.5 + 0.5 * var * n / (n - 1), rtol=1e-5)


def test_bidirectional_dynamic_rnn_unknown_time_steps():
    """bidirectional_dynamic_rnn over [None, None, depth] inputs (time known only at run time, p75) runs, and the
    backward outputs are the backward RNN's run over each example's reversed real steps."""
    rng = np.random.RandomState(0)
    xs = rng.randn(2, 4, 3).astype(np.float32)
    lens = np.array([4, 2], np.int32)
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, None, 3])
        n = tw.placeholder(tw.int32, [None])
        fw, bw = tw.nn.rnn_cell.GRUCell(2, name="fw"), tw.nn.rnn_cell.GRUCell(2, name="bw")
        (out_fw, out_bw), (_, st_bw) = tw.nn.bidirectional_dynamic_rnn(fw, bw, x, sequence_length=n, dtype=tw.float32)
        assert out_fw.shape.as_list() == [None, None, 2] and out_bw.shape.as_list() == [None, None, 2]
        x_rev = tw.placeholder(tw.float32, [None, None, 3])
        ref_out, ref_state = tw.nn.dynamic_rnn(bw, x_rev, sequence_length=n, dtype=tw.float32, scope="ref")
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            # A built cell keeps its weights when called again (the reference run shares the backward ones).
            names = [v.op.name for v in tw.global_variables()]
            assert len(names) == 8 and names[0] == "bidirectional_rnn/fw/fw/gates/kernel"
            assert names[4] == "bidirectional_rnn/bw/bw/gates/kernel"
            rev = xs.copy()
            for i, k in enumerate(lens):
                rev[i, :k] = xs[i, :k][::-1]
            o_bw, s_bw = sess.run([out_bw, st_bw], {x: xs, n: lens})
            r_out, r_state = sess.run([ref_out, ref_state], {x_rev: rev, n: lens})
    np.testing.assert_allclose(s_bw, r_state, rtol=1e-5)
    for i, k in enumerate(lens):
        np.testing.assert_allclose(o_bw[i, :k], r_out[i, :k][::-1], rtol=1e-5)
        assert not o_bw[i, k:].any()


def test_sequence_mask_op_names():
    """sequence_mask makes TF's ops: the lengths' Cast always, then Cast_1 for a non-bool dtype (p75)."""
    with tw.Graph().as_default():
        m = tw.sequence_mask(tw.placeholder(tw.int32, [None]), 5, dtype=tw.float32)
        b = tw.sequence_mask(tw.placeholder(tw.int32, [None]), 5)
        assert m.name == "SequenceMask/Cast_1:0" and m.dtype == tw.float32
        assert b.op.type == "Less" and b.op.name == "SequenceMask_1/Less"
        with tw.Session() as sess:
            got = sess.run(m, {m.graph.get_tensor_by_name("Placeholder:0"): [2, 0]})
    assert got.tolist() == [[1, 1, 0, 0, 0], [0, 0, 0, 0, 0]]


def test_tensor_array_gather_and_concat_static_shapes():
    """TensorArray.gather's static shape is TF's: the indices' length followed by the element shape the array
    was made with, refined by [None] + the element shape known later (so [None, 2] for an array whose shape
    came from writes); concat's first dimension is size * element dim 0 when both are known (p81)."""
    with tw.Graph().as_default():
        p = tw.placeholder(tw.float32, [None, 2])
        unstacked = tw.TensorArray(tw.float32, size=3).unstack(tw.placeholder(tw.float32, [3, None, 2]))
        assert unstacked.gather([0, 1]).shape.as_list() == [None, None, 2]
        assert unstacked.stack().shape.as_list() == [3, None, 2]
        declared = tw.TensorArray(tw.float32, size=2, element_shape=[None, 2])
        assert declared.gather([1]).shape.as_list() == [1, None, 2]
        scattered = tw.TensorArray(tw.float32, size=2).scatter([0, 1], tw.ones([2, 3, 2]))
        assert scattered.gather([1]).shape.as_list() == [None, 3, 2]

        def body(i, ta):
            return i + 1, ta.write(i, p[0])

        _, ta = tw.while_loop(
            lambda i, ta: i < 3, body, [0, tw.TensorArray(tw.float32, size=3, clear_after_read=False)]
        )
        gathered = ta.gather([0, 2])
        assert gathered.shape.as_list() == [None, 2] and ta.concat().shape.as_list() == [6]
        with tw.Session() as sess:
            got = sess.run([gathered, ta.concat()], {p: [[1.0, 2.0]]})
    assert got[0].tolist() == [[1.0, 2.0], [1.0, 2.0]] and got[1].tolist() == [1.0, 2.0] * 3


def test_assert_guard_and_assert_equal_names():
    """tf.Assert with data other than string / int32 is guarded by a cond named AssertGuard and returns its
    Merge op; assert_equal opens its scope once for the same-tensor shortcut, so the assert is "assert_equal_1"
    (TF's names, p85); both still fail at run time with the data in the message."""
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None])
        i = tw.placeholder(tw.int32, [None])
        guarded = tw.assert_positive(x, message="x must be positive")
        same = tw.assert_equal(i, i)
        eq = tw.assert_equal(i, i + 1)
        plain = tw.Assert(tw.reduce_all(i > 0), ["bad", i])
        assert guarded.name == "assert_positive/assert_less/Assert/AssertGuard/Merge" and guarded.type == "Merge"
        assert same.name == "assert_equal/NoOp"
        assert eq.name == "assert_equal_2/Assert/Assert" and plain.name == "Assert/Assert"
        with tw.Session() as sess:
            sess.run(guarded, {x: [1.0]})
            with pytest.raises(tw.errors.InvalidArgumentError, match=r"x must be positive.*\n?.*\[-1\]"):
                sess.run(guarded, {x: [-1.0]})
            with pytest.raises(tw.errors.InvalidArgumentError, match="Condition x == y"):
                sess.run(eq, {i: [1]})


def test_shape_function_error_names_the_node_as_tensorflow():
    """A shape mismatch at graph construction reads as TF's: "Dimensions must be equal, but are 3 and 4 for
    '{{node add}} = AddV2[T=DT_FLOAT](a, b)' with input shapes: [2,3], [2,4]." (broadcasting ops word it as a
    failed dimension merge; the node is summarized with its sorted attrs and inputs)."""
    with tw.Graph().as_default():
        a = tw.placeholder(tw.float32, [2, 3], name="a")
        b = tw.placeholder(tw.float32, [2, 4], name="b")
        with pytest.raises(ValueError) as e:
            tw.add(a, b, name="add")
        assert str(e.value).startswith(
            "Dimensions must be equal, but are 3 and 4 for '{{node add}} = AddV2[T=DT_FLOAT](a, b)' "
            "with input shapes: [2,3], [2,4]."
        )
        with pytest.raises(ValueError) as e:
            tw.matmul(a, b)
        assert str(e.value).startswith(
            "Dimensions must be equal, but are 3 and 2 for '{{node MatMul}} = MatMul[T=DT_FLOAT, grad_a=false, "
            "grad_b=false, transpose_a=false, transpose_b=false](a, b)' with input shapes: [2,3], [2,4]."
        )
        with pytest.raises(ValueError, match=r"but are 2 and 3 for '\{\{node mul\}\} = Mul\[T=DT_FLOAT\]"):
            tw.multiply(tw.ones([2, 1]), tw.ones([3, 1]), name="mul")
        assert tw.add(tw.ones([2, 1]), tw.ones([1, 3])).shape.as_list() == [2, 3]


def test_feed_dict_key_may_be_a_state_tuple():
    """A feed_dict key that is a (nested) tuple of tensors, such as a MultiRNNCell's zero_state, is fed the
    structure a previous run returned (TF's nest.flatten_dict_items, p89); a value of another structure is a
    ValueError."""
    with tw.Graph().as_default():
        cell = tw.nn.rnn_cell.MultiRNNCell([tw.nn.rnn_cell.LSTMCell(2, name=f"l{i}") for i in range(2)])
        state = cell.zero_state(1, tw.float32)
        doubled = tw.add_n([tw.reduce_sum(s.c) + tw.reduce_sum(s.h) for s in state])
        with tw.Session() as sess:
            value = sess.run(state)
            value = tuple(type(s)(s.c + 1.0, s.h + 2.0) for s in value)
            assert sess.run(doubled, {state: value}) == 12.0
            with pytest.raises(ValueError, match="Key had 4 elements, but value had 2 elements"):
                sess.run(doubled, {state: [np.zeros([1, 2])] * 2})


def test_reduce_all_axes_and_rank_op_names():
    """Reducing over all axes builds TF's _ReductionDims before the op: a top-level "Const" of the axes (so a
    later tf.constant is "Const_1"), range(0, rank(x)) for a scalar or an unknown rank; tf.rank of a known
    rank is a Const named "Rank" (p87)."""
    with tw.Graph().as_default() as g:
        x = tw.placeholder(tw.float32, [2, 3])
        u = tw.placeholder(tw.float32)
        loss = tw.reduce_mean(x, name="loss")
        c = tw.constant(1.0)
        scalar_sum = tw.reduce_sum(tw.constant(2.0, name="two"))
        unknown = tw.reduce_mean(u)
        r = tw.rank(x)
        assert loss.op.inputs[1].op.name == "Const" and c.op.name == "Const_1"
        assert scalar_sum.op.inputs[1].op.name == "range" and unknown.op.inputs[1].op.name == "range_1"
        assert unknown.op.type == "Mean" and unknown.name == "Mean:0" and unknown.shape.as_list() == []
        assert r.op.type == "Const" and r.op.name == "Rank_2"
        assert [op.name for op in g.get_operations() if op.type == "Rank"] == ["Rank_1"]
        with tw.Session() as sess:
            got = sess.run([loss, scalar_sum, unknown, r], {x: np.ones([2, 3]), u: [[1.0, 3.0]]})
    assert [float(v) for v in got] == [1.0, 2.0, 2.0, 2.0]


def test_reduction_gradients_over_an_unknown_rank():
    """Reductions of a shapeless placeholder (tf.placeholder("float"), the classic linear-regression tutorial,
    p22) have gradients, for a matrix and for a scalar fed into it (numpy's values)."""
    with tw.Graph().as_default():
        u = tw.placeholder(tw.float32)
        outs = [tw.reduce_sum(u * u), tw.reduce_mean(u), tw.reduce_max(u), tw.reduce_prod(u)]
        grads = [tw.gradients(r, u)[0] for r in outs]
        assert all(r.shape.as_list() == [] for r in outs)
        m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 0.5]], np.float32)
        with tw.Session() as sess:
            g_sum, g_mean, g_max, g_prod = sess.run(grads, {u: m})
            scalar = sess.run(grads, {u: 3.0})
    np.testing.assert_allclose(g_sum, 2 * m)
    np.testing.assert_allclose(g_mean, np.full_like(m, 1 / 6))
    np.testing.assert_allclose(g_max, (m == m.max()).astype(np.float32))
    np.testing.assert_allclose(g_prod, m.prod() / m, rtol=1e-5)
    np.testing.assert_allclose(scalar, [6.0, 1.0, 1.0, 1.0])


def test_compute_gradients_gates_each_op_as_tensorflow():
    """compute_gradients / minimize default to GATE_OP: an op with several input gradients passes them through
    tf.tuple, so a kernel's gradient is "<op>_grad/tuple/control_dependency_1" (TF's names, p90); GATE_NONE and
    tf.gradients do not gate; tf.tuple names its parts "tuple/control_dependency" after a "group_deps"."""
    with tw.Graph().as_default() as g:
        x = tw.placeholder(tw.float32, [None, 2])
        w = tw.Variable([[1.0], [2.0]], name="w")
        b = tw.Variable([0.5], name="b")
        loss = tw.reduce_sum(tw.nn.bias_add(tw.matmul(x, w), b))
        gated = tw.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
        plain = tw.train.GradientDescentOptimizer(0.1).compute_gradients(loss, gate_gradients=0)
        assert [gv[0].op.name for gv in gated] == [
            "gradients/MatMul_grad/tuple/control_dependency_1",
            "gradients/BiasAdd_grad/tuple/control_dependency_1",
        ]
        assert [gv[0].op.type for gv in plain] == ["MatMul", "BiasAddGrad"]
        assert tw.gradients(loss, w)[0].op.type == "MatMul"
        t = tw.tuple([tw.constant(1.0), None, tw.constant(2.0)])
        assert t[1] is None and [t[0].op.name, t[2].op.name] == [
            "tuple/control_dependency",
            "tuple/control_dependency_1",
        ]
        assert [c.name for c in t[0].op.control_inputs] == ["tuple/group_deps"]
        train = tw.train.GradientDescentOptimizer(0.1).apply_gradients(gated)
        assert "FusedMatMulApplyGradientDescent" in {op.type for op in g.get_operations()}
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got = sess.run([gv[0] for gv in gated], {x: [[1.0, 2.0], [3.0, 4.0]]})
            sess.run(train, {x: [[1.0, 2.0], [3.0, 4.0]]})
            new_w = sess.run(w)
    np.testing.assert_allclose(got[0], [[4.0], [6.0]])
    np.testing.assert_allclose(got[1], [2.0])
    np.testing.assert_allclose(new_w, [[0.6], [1.4]], rtol=1e-6)


def test_bidirectional_dynamic_rnn_without_lengths_reverses_whole_sequences():
    """Without sequence_length the backward RNN runs over the time-reversed inputs (tf.reverse), time unknown
    or known, and its outputs are reversed back."""
    rng = np.random.RandomState(1)
    xs = rng.randn(2, 3, 2).astype(np.float32)
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, None, 2])
        bw = tw.nn.rnn_cell.GRUCell(2, name="bw")
        (_, out_bw), _ = tw.nn.bidirectional_dynamic_rnn(tw.nn.rnn_cell.GRUCell(2, name="fw"), bw, x, dtype=tw.float32)
        ref, _ = tw.nn.dynamic_rnn(bw, x[:, ::-1], dtype=tw.float32, scope="ref")
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            got, want = sess.run([out_bw, ref], {x: xs})
    np.testing.assert_allclose(got, want[:, ::-1], rtol=1e-5)


def test_layers_pooling1d_builds_tensorflow_ops():
    """tf.layers.max_pooling1d / average_pooling1d build TF's Pooling1D graph: ExpandDims at axis 2, MaxPool /
    AvgPool over (width, 1), Squeeze (p94), with numpy's values."""
    sig = np.arange(12, dtype=np.float32).reshape(1, 6, 2)
    with tw.Graph().as_default():
        s = tw.placeholder(tw.float32, [None, 6, 2])
        mp = tw.layers.max_pooling1d(s, 2, 2)
        ap = tw.layers.average_pooling1d(s, 3, 1, padding="same")
        assert mp.name == "max_pooling1d/Squeeze:0" and mp.op.inputs[0].op.name == "max_pooling1d/MaxPool"
        assert ap.name == "average_pooling1d/Squeeze:0" and ap.op.inputs[0].op.type == "AvgPool"
        assert mp.shape.as_list() == [None, 3, 2] and ap.shape.as_list() == [None, 6, 2]
        with tw.Session() as sess:
            got_mp, got_ap = sess.run([mp, ap], {s: sig})
    np.testing.assert_allclose(got_mp[0], sig[0].reshape(3, 2, 2).max(axis=1))
    padded = [sig[0, max(0, i - 1) : i + 2].mean(axis=0) for i in range(6)]
    np.testing.assert_allclose(got_ap[0], padded, rtol=1e-6)


def test_expand_dims_and_pool1d_op_names():
    """tf.expand_dims' axis constant is made by the op, inside its scope ("ExpandDims/dim"), and tf.nn.max_pool1d
    names its MaxPool after the scope with a Squeeze under it ("MaxPool1d/Squeeze"), as TF."""
    with tw.Graph().as_default() as g:
        x = tw.placeholder(tw.float32, [None, 6, 2])
        e = tw.expand_dims(x, -1, name="e")
        p = tw.nn.max_pool1d(x, 2, 2, "VALID")
        names = [(op.name, op.type) for op in g.get_operations()[1:]]
        assert names == [
            ("e/dim", "Const"),
            ("e", "ExpandDims"),
            ("MaxPool1d/ExpandDims/dim", "Const"),
            ("MaxPool1d/ExpandDims", "ExpandDims"),
            ("MaxPool1d", "MaxPool"),
            ("MaxPool1d/Squeeze", "Squeeze"),
        ]
        assert e.shape.as_list() == [None, 6, 2, 1] and p.shape.as_list() == [None, 3, 2]
        with pytest.raises(TypeError):
            tw.expand_dims(x, 1.5)
