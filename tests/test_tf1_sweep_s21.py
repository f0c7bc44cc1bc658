"""Regression tests for the differences the s21 sweep of TF1 programs (tests/tf1_programs/p95..) found, each
checked against TensorFlow's compat.v1 behaviour (the expected values are TensorFlow 2.21's)."""

import numpy as np
import pytest
import tensorweave as tw


def _sparse(value):
    return [
        np.asarray(value.indices).tolist(),
        np.asarray(value.values).tolist(),
        np.asarray(value.dense_shape).tolist(),
    ]


def test_dataset_map_returning_sparse_tensor_batch_unbatch():
    """A map returning a SparseTensor (tf.string_split per line, p100) gives SparseTensor elements; batch stacks
    them into a SparseTensor of rank + 1 whose dense shape is the batch's largest, unbatch splits them again."""
    with tw.Graph().as_default():
        ds = tw.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).map(lambda line: tw.string_split([line]))
        batched = ds.batch(2)
        assert ds.output_classes is tw.SparseTensor and ds.output_types == tw.string
        assert ds.output_shapes.as_list() == [None, None] and batched.output_shapes.as_list() == [None, None, None]
        assert batched.element_spec == tw.SparseTensorSpec([None, None, None], tw.string)
        it = tw.data.Iterator.from_structure(
            batched.output_types, batched.output_shapes, output_classes=batched.output_classes
        )
        init, nxt = it.make_initializer(batched), it.get_next()
        assert isinstance(nxt, tw.SparseTensor) and nxt.shape.as_list() == [None, None, None]
        unbatched = tw.data.make_one_shot_iterator(batched.unbatch()).get_next()
        with tw.Session() as sess:
            sess.run(init)
            first, second = _sparse(sess.run(nxt)), _sparse(sess.run(nxt))
            rows = [_sparse(sess.run(unbatched)) for _ in range(3)]
            with pytest.raises(tw.errors.OutOfRangeError):
                sess.run(nxt)
    assert first == [[[0, 0, 0], [0, 0, 1], [1, 0, 0], [1, 0, 1], [1, 0, 2]], [b"a", b"b", b"c", b"d", b"e"], [2, 1, 3]]
    assert second == [[[0, 0, 0]], [b"f"], [1, 1, 1]]
    # unbatched elements keep the batch's dense shape (TF's too)
    assert rows == [
        [[[0, 0], [0, 1]], [b"a", b"b"], [1, 3]],
        [[[0, 0], [0, 1], [0, 2]], [b"c", b"d", b"e"], [1, 3]],
        [[[0, 0]], [b"f"], [1, 1]],
    ]


def test_dataset_sparse_slices_nested_batches_filter_and_padded_batch_error():
    """from_tensor_slices of a SparseTensor gives its rows; a batch of batches of SparseTensors; filter and map
    take SparseTensor arguments; padded_batch refuses them with TF's TypeError."""
    with tw.Graph().as_default():
        sp = tw.SparseTensor([[0, 0], [2, 1]], [1.0, 2.0], [3, 2])
        rows = tw.data.Dataset.from_tensor_slices(sp)
        assert rows.output_shapes.as_list() == [2] and rows.output_classes is tw.SparseTensor
        sums = tw.data.make_one_shot_iterator(rows.map(tw.sparse.reduce_sum).batch(3)).get_next()
        twice = tw.data.Dataset.from_tensors(sp).repeat(4).batch(2).batch(2)
        assert twice.output_shapes.as_list() == [None, None, 3, 2]
        nested = tw.data.make_one_shot_iterator(twice).get_next()
        lines = tw.data.Dataset.from_tensor_slices(["a b", "c d e", "f"]).map(lambda s: tw.string_split([s]))
        kept = lines.filter(lambda s: tw.size(s.values) > 1).map(lambda s: (tw.sparse.to_dense(s, ""), s.dense_shape))
        kept = tw.data.make_one_shot_iterator(kept).get_next()
        with tw.Session() as sess:
            assert sess.run(sums).tolist() == [1.0, 0.0, 2.0]
            got = _sparse(sess.run(nested))
            assert [sess.run(kept)[1].tolist() for _ in range(2)] == [[1, 2], [1, 3]]
        with pytest.raises(TypeError, match="`padded_batch` is only supported for datasets that produce tensor"):
            lines.padded_batch(2, padded_shapes=[None, None])
    assert got[0] == [[0, 0, 0, 0], [0, 0, 2, 1], [0, 1, 0, 0], [0, 1, 2, 1]] + [
        [1, 0, 0, 0],
        [1, 0, 2, 1],
        [1, 1, 0, 0],
        [1, 1, 2, 1],
    ]
    assert got[2] == [2, 2, 3, 2]


def test_parse_example_dataset_var_len_feature():
    """parse_example_dataset with a VarLenFeature gives a SparseTensor per batch (it was refused)."""
    examples = []
    for tags in ([b"x", b"y"], [], [b"z"]):
        ex = tw.train.Example(
            features=tw.train.Features(feature={"tags": tw.train.Feature(bytes_list=tw.train.BytesList(value=tags))})
        )
        examples.append(ex.SerializeToString())
    with tw.Graph().as_default():
        ds = tw.data.Dataset.from_tensor_slices(examples).batch(3)
        ds = ds.apply(tw.data.experimental.parse_example_dataset({"tags": tw.io.VarLenFeature(tw.string)}))
        assert ds.output_classes == {"tags": tw.SparseTensor}
        nxt = tw.data.make_one_shot_iterator(ds).get_next()
        with tw.Session() as sess:
            got = _sparse(sess.run(nxt)["tags"])
    assert got == [[[0, 0], [0, 1], [2, 0]], [b"x", b"y", b"z"], [3, 2]]


@pytest.mark.parametrize("fused", [None, True, False])
def test_batch_norm_updates_with_training_tensor_leave_averages_when_false(fused):
    """tf.layers.batch_normalization(training=<bool tensor>): its UPDATE_OPS move the moving averages only in
    steps where the flag is True (TF's smart_cond); they were plain assigns (p101)."""
    x_np = (np.arange(32, dtype=np.float32).reshape(2, 2, 2, 4) ** 1.3).astype(np.float32)
    per_channel = x_np.reshape(-1, 4)
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 2, 2, 4])
        flag = tw.placeholder(tw.bool, [])
        tw.layers.batch_normalization(x, training=flag, momentum=0.75, fused=fused, name="bn")
        updates = tw.get_collection(tw.GraphKeys.UPDATE_OPS)
        mean_var = [tw.global_variables()[i] for i in (2, 3)]
        assert [v.op.name for v in mean_var] == ["bn/moving_mean", "bn/moving_variance"] and len(updates) == 2
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            sess.run(updates, {x: x_np, flag: False})
            np.testing.assert_array_equal(sess.run(mean_var), [np.zeros(4), np.ones(4)])
            sess.run(updates, {x: x_np, flag: True})
            mean, var = sess.run(mean_var)
            sess.run(updates, {x: x_np * 3.0, flag: False})
            np.testing.assert_array_equal(sess.run(mean_var), [mean, var])
    batch_var = per_channel.var(axis=0) * (8 / 7 if fused is not False else 1.0)
    np.testing.assert_allclose(mean, 0.25 * per_channel.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(var, 0.75 + 0.25 * batch_var, rtol=1e-5)


def test_graph_def_inputs_and_add_op_type_as_tensorflow():
    """GraphDef / NodeDef inputs name an op's first output by the op's name ("x", not "x:0"), others "op:1",
    control inputs "^op"; tf.add and + make AddV2 ops (TF 2.x compat.v1); the GraphDef imports back (p109, p110)."""
    with tw.Graph().as_default() as g:
        x = tw.placeholder(tw.float32, [2], name="x")
        parts = tw.split(tw.constant([1.0, 2.0, 3.0, 4.0]), 2, name="parts")
        total = tw.add(parts[1], x, name="total")
        with tw.control_dependencies([total]):
            out = tw.identity(x, name="out")
        plus = total + 1.0
        assert total.op.type == "AddV2" and plus.op.type == "AddV2" and plus.op.name == "add"
        assert list(total.op.node_def.input) == ["parts:1", "x"]
        nodes = {n.name: list(n.input) for n in g.as_graph_def().node}
        assert nodes["add"] == ["total", "add/y"] and nodes["out"] == ["x", "^total"]
        assert nodes["parts"] == ["parts/split_dim", "Const"]
        graph_def = g.as_graph_def()
    with tw.Graph().as_default():
        tw.import_graph_def(graph_def, name="")
        with tw.Session() as sess:
            assert sess.run("add:0", {"x:0": [10.0, 20.0]}).tolist() == [14.0, 25.0]
    del out


def test_control_dependencies_pruned_as_tensorflow():
    """Inside control_dependencies, an op gets no control input on an op it reads, nor on a block's inputs when
    it reads an op made inside that block (TF's _control_dependencies_for_inputs); values unchanged."""
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [2], name="x")
        v = tw.Variable(1.0, name="v")
        inc = tw.assign_add(v, 1.0, name="inc")
        with tw.control_dependencies([x.op]):
            total = tw.add(x, 1.0, name="total")
        with tw.control_dependencies([inc]):
            a = x * 2.0  # its constant mul/y, made in the block, carries ^inc
            b = a + 1.0
            c = tw.identity(x, name="c")
            with tw.control_dependencies([x]):
                d = b * 3.0
            with tw.control_dependencies(None):
                f = x + 5.0
                with tw.control_dependencies([inc]):
                    h = f * 2.0
            r = v.read_value()
        got = {t.op.name: [o.name for o in t.op.control_inputs] for t in (total, a, b, c, d, f, h, r)}
        assert a.op.inputs[1].op.control_inputs == [inc.op]
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            values = sess.run([d, h], {x: [1.0, 2.0]})
            assert sess.run(v) == 2.0
    assert got == {
        "total": [],
        "mul": [],
        "add": [],
        "c": ["inc"],
        "mul_1": [],
        "add_1": [],
        "mul_2": [],
        "read": ["inc"],
    }
    assert [t.tolist() for t in values] == [[9.0, 15.0], [12.0, 14.0]]


def test_hessians_open_no_name_scope():
    """tf.hessians makes its ops without a name scope, as TF's (its `name` is unused): the first derivatives are
    "gradients/...", the result a top-level Reshape (p112)."""
    with tw.Graph().as_default():
        w = tw.Variable([1.0, 2.0], name="w")
        loss = tw.reduce_sum(tw.reshape(w, [2, 1]) ** 3)  # makes "Reshape"
        (hess,) = tw.hessians(loss, w)
        assert hess.name == "Reshape_2:0" and hess.shape.as_list() == [2, 2]
        assert tw.get_default_graph().get_operation_by_name("gradients/pow_grad/mul").type == "Mul"
        with tw.Session() as sess:
            sess.run(w.initializer)
            assert sess.run(hess).tolist() == [[6.0, 0.0], [0.0, 12.0]]


def test_saver_write_state_false_keeps_old_checkpoints_and_sharded_missing_dir(tmp_path):
    """save(write_state=False) neither records the checkpoint nor deletes old ones (TF's), and a sharded save
    into a directory that does not exist raises TF's ValueError (p113)."""
    with tw.Graph().as_default():
        v = tw.Variable(1.0, name="v")
        saver = tw.train.Saver(max_to_keep=1)
        with tw.Session() as sess:
            sess.run(v.initializer)
            first = saver.save(sess, str(tmp_path / "model"), global_step=1)
            saver.save(sess, str(tmp_path / "side"), write_state=False, write_meta_graph=False)
            assert saver.last_checkpoints == [first] and tw.train.checkpoint_exists(first)
            saver.save(sess, str(tmp_path / "model"), global_step=2)
            assert not tw.train.checkpoint_exists(first)
            missing = str(tmp_path / "missing" / "model")
            with pytest.raises(ValueError, match=f"Parent directory of {missing} doesn't exist, can't save."):
                tw.train.Saver(sharded=True).save(sess, missing)


def test_string_plus_concatenates_and_string_split_of_empty_string():
    """`+` on string tensors concatenates (TF's string Add; it was refused), named "add"; tf.string_split gives
    an empty string no tokens even with skip_empty=False, as TF's StringSplit (p115)."""
    with tw.Graph().as_default():
        names = tw.constant(["a.png", "b.png"])
        paths = tw.constant("/data") + "/" + names
        assert paths.op.name == "add_1" and paths.dtype == tw.string and paths.shape.as_list() == [2]
        split = tw.string_split(["a,b,,c", "d", ""], delimiter=",", skip_empty=False)
        empty = tw.string_split([""], skip_empty=False)
        with tw.Session() as sess:
            assert sess.run(paths).tolist() == [b"/data/a.png", b"/data/b.png"]
            got, none = sess.run([split, empty])
        with pytest.raises(TypeError):
            tw.constant("a") + tw.constant(1.0)
    assert got.indices.tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0]]
    assert got.values.tolist() == [b"a", b"b", b"", b"c", b"d"] and got.dense_shape.tolist() == [3, 4]
    assert none.indices.shape == (0, 2) and none.dense_shape.tolist() == [1, 0]


def test_layer_objects_reenter_their_first_scope():
    """A tf.layers object's later calls re-enter its first call's variable and name scopes (TF's layers): op
    names "dense/BiasAdd_1", and a call inside another variable_scope reuses "conv2d/kernel" (it raised "does
    not exist") (p118)."""
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 4, 4, 2])
        dense, conv, flat = tw.layers.Dense(3), tw.layers.Conv2D(2, 3), tw.layers.Flatten()
        a, b = dense(flat(x)), dense(flat(x * 2.0))
        c1 = conv(x)
        with tw.variable_scope("outer"):
            c2 = conv(x)
        assert [t.name for t in (a, b, c1, c2)] == [
            "dense/BiasAdd:0",
            "dense/BiasAdd_1:0",
            "conv2d/BiasAdd:0",
            "conv2d/BiasAdd_1:0",
        ]
        assert b.op.inputs[0].op.inputs[0].name == "flatten/Reshape_1:0"
        assert [v.op.name for v in tw.global_variables()] == [
            "dense/kernel",
            "dense/bias",
            "conv2d/kernel",
            "conv2d/bias",
        ]


def test_layer_add_loss_add_update_and_activity_regularizer():
    """tf.layers.Layer has add_loss / add_update (losses go to REGULARIZATION_LOSSES, updates to UPDATE_OPS, as
    TF1's layers); an activity regularizer's loss is divided by the batch size under "ActivityRegularizer/"
    (TF's; it was the raw sum) (p118)."""

    class Scaled(tw.layers.Layer):
        def build(self, input_shape):
            self.k = self.add_weight("k", [], initializer=tw.ones_initializer())
            self.seen = self.add_weight("seen", [], initializer=tw.zeros_initializer(), trainable=False)

        def call(self, inputs):
            out = inputs * self.k
            self.add_loss(tw.reduce_sum(out))
            self.add_update(tw.assign_add(self.seen, 1.0))
            return out

    reg = lambda t: tw.reduce_sum(tw.abs(t))
    with tw.Graph().as_default():
        x = tw.constant(np.arange(8, dtype=np.float32).reshape(4, 2))
        layer = Scaled(name="scaled", activity_regularizer=reg)
        layer(x)
        layer(x)
        d = tw.layers.dense(x, 3, kernel_initializer=tw.ones_initializer(), activity_regularizer=reg, name="d")
        losses = tw.get_collection(tw.GraphKeys.REGULARIZATION_LOSSES)
        assert [t.op.name for t in losses] == [
            "scaled/Sum",
            "scaled/ActivityRegularizer/truediv",
            "scaled/Sum_1",
            "scaled/ActivityRegularizer_1/truediv",
            "d/ActivityRegularizer/truediv",
        ]
        assert len(layer.losses) == 4 and len(layer.updates) == 2
        assert tw.get_collection(tw.GraphKeys.UPDATE_OPS) == layer.updates
        with tw.Session() as sess:
            sess.run(tw.global_variables_initializer())
            assert sess.run(losses) == [28.0, 7.0, 28.0, 7.0, 21.0]
            sess.run(layer.updates)
            assert sess.run(layer.seen) == 2.0
    del d


def test_sparse_tensor_operators_sparse_add_threshold_and_static_shapes():
    """SparseTensor * dense and / dense keep the pattern, the dense side broadcast (TF's SparseDenseCwiseMul /
    Div; `*` raised a TypeError); sparse_add's threshold drops only sums of entries in both operands (TF's
    SparseAdd); sparse_transpose and sparse_reset_shape(new_shape) keep static shapes (p121)."""
    with tw.Graph().as_default():
        sp = tw.SparseTensor([[0, 0], [0, 2], [2, 1], [3, 3]], [1.0, -2.0, 3.0, 4.0], [4, 4])
        dense = tw.constant(np.arange(1, 17, dtype=np.float32).reshape(4, 4))
        other = tw.SparseTensor([[0, 0], [1, 1], [3, 3]], [-1.0, 0.05, 1.0], [4, 4])
        prod, by_row, halved = sp * dense, sp * tw.constant([1.0, 2.0, 3.0, 4.0]), sp / 2.0
        summed = tw.sparse_add(sp, other, thresh=0.1)
        trans = tw.sparse_transpose(tw.SparseTensor([[0, 1]], [1.0], [2, 3]))
        reset = tw.sparse_reset_shape(sp, [5, 6])
        assert prod.shape.as_list() == [4, 4] and trans.shape.as_list() == [3, 2] and reset.shape.as_list() == [5, 6]
        with tw.Session() as sess:
            p, r, h, s = sess.run([prod, by_row, halved, summed])
    assert p.values.tolist() == [1.0, -6.0, 30.0, 64.0] and p.indices.tolist() == [[0, 0], [0, 2], [2, 1], [3, 3]]
    assert r.values.tolist() == [1.0, -6.0, 6.0, 16.0] and h.values.tolist() == [0.5, -1.0, 1.5, 2.0]
    assert s.indices.tolist() == [[0, 2], [1, 1], [2, 1], [3, 3]]
    np.testing.assert_allclose(s.values, [-2.0, 0.05, 3.0, 5.0])


def _message(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is checked
        return type(e).__name__, (getattr(e, "message", None) or str(e)).split("\n")[0]
    return None


def test_graph_construction_error_messages_as_tensorflow():
    """TF's first lines for shape errors at graph construction (p125): concat of different ranks, stack of
    different shapes, an uneven split, tile with the wrong multiples length (its constant 'Tile/multiples'),
    matmul of a vector (a MatMul, not a BatchMatMulV2), set_shape, a constant initializer with a shape; one_hot
    takes int8 indices; gather_nd's run-time message names the node."""
    with tw.Graph().as_default():
        assert _message(lambda: tw.concat([tw.zeros([1, 2]), tw.zeros([1])], 0, name="j")) == (
            "ValueError",
            (
                "Shape must be rank 2 but is rank 1 for '{{node j}} = ConcatV2[N=2, T=DT_FLOAT, Tidx=DT_INT32](zeros, "
                "zeros_1, j/axis)' with input shapes: [1,2], [1], []."
            ),
        )
        assert _message(lambda: tw.stack([tw.zeros([2]), tw.zeros([3])])) == (
            "ValueError",
            "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3].",
        )
        assert _message(lambda: tw.split(tw.zeros([5, 2]), 2)) == (
            "ValueError",
            "Dimension size must be evenly divisible by 2 but is 5",
        )
        tile_error = _message(lambda: tw.tile(tw.zeros([2, 3]), [2]))
        assert tile_error[1].startswith("Shape must be rank 2 but is rank 1 for '{{node Tile}}") and (
            "(zeros_5, Tile/multiples)" in tile_error[1]
        )
        assert _message(lambda: tw.matmul(tw.zeros([3]), tw.zeros([3, 2])))[1].startswith(
            "Shape must be rank 2 but is rank 1 for '{{node MatMul}} = MatMul["
        )
        assert _message(lambda: tw.placeholder(tw.float32, [None, 3]).set_shape([2, 4])) == (
            "ValueError",
            "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [?,3] and [2,4].",
        )
        assert _message(lambda: tw.get_variable("w", [3], initializer=tw.constant([1.0, 2.0]))) == (
            "ValueError",
            "If initializer is a constant, do not specify shape.",
        )
        hot = tw.one_hot(tw.constant([0, 2], tw.int8), 3)
        bad = tw.gather_nd(tw.zeros([2, 2]), tw.placeholder_with_default([[0, 5]], [None, 2]), name="g")
        with tw.Session() as sess:
            assert sess.run(hot).tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
            with pytest.raises(tw.errors.InvalidArgumentError) as e:
                sess.run(bad)
    assert "indices[0] = [0, 5] does not index into param shape [2,2], node name: g" in e.value.message


def test_dropout_graph_as_tensorflow_2():
    """tf.nn.dropout builds TF 2's graph (p127): the output "dropout/SelectV2", `1 - keep_prob` at the caller's
    scope (the next top-level "sub" is "sub_1"), a rate of 0 returns x itself, TF's errors."""
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None, 4], name="x")
        kp = tw.placeholder(tw.float32, name="kp")
        a = tw.nn.dropout(x, keep_prob=kp, seed=1)
        b = tw.nn.dropout(x, keep_prob=1.0)
        c = x - 1.0
        assert [a.name, b.name, c.name] == ["dropout/SelectV2:0", "x:0", "sub_1:0"] and a.shape.as_list() == [None, 4]
        with pytest.raises(ValueError, match=r"^`rate` must be a scalar tensor or a float in the range \[0, 1\)"):
            tw.nn.dropout(x, keep_prob=0.0)
        with pytest.raises(ValueError, match="Cannot specify both 'keep_prob' and 'rate'."):
            tw.nn.dropout(x, keep_prob=0.5, rate=0.5)
        with tw.Session() as sess:
            got = sess.run(a, {x: np.ones([300, 4]), kp: 0.5})
    assert sorted(set(got.ravel().tolist())) == [0.0, 2.0] and 0.4 < (got > 0).mean() < 0.6


def test_decode_and_crop_jpeg_static_shape_from_constant_window():
    """decode_and_crop_jpeg with a constant crop window has the window's height and width statically (TF's
    shape function), the channels when given (p128)."""
    with tw.Graph().as_default():
        jpeg = tw.image.encode_jpeg(tw.zeros([20, 30, 3], tw.uint8))
        assert tw.image.decode_and_crop_jpeg(jpeg, [1, 2, 10, 12], channels=3).shape.as_list() == [10, 12, 3]
        assert tw.image.decode_and_crop_jpeg(jpeg, [0, 0, 5, 6]).shape.as_list() == [5, 6, None]
        window = tw.placeholder(tw.int32, [4])
        crop = tw.image.decode_and_crop_jpeg(jpeg, window, channels=1)
        assert crop.shape.as_list() == [None, None, 1]
        with tw.Session() as sess:
            assert sess.run(crop, {window: [2, 3, 4, 5]}).shape == (4, 5, 1)


def test_raw_sparse_to_dense_and_dense_bincount():
    """tf.raw_ops.SparseToDense and DenseBincount exist (TF graphs holding them import and run), with TF's
    values and messages (the expected values are TF 2.21's)."""
    raw = tw.raw_ops
    with tw.Graph().as_default():
        dense = raw.SparseToDense(
            sparse_indices=[[0, 1], [1, 2]], output_shape=[2, 3], sparse_values=[5, 6], default_value=-1
        )
        scalar = raw.SparseToDense(sparse_indices=2, output_shape=[4], sparse_values=1.0, default_value=0.0)
        unordered = raw.SparseToDense(
            sparse_indices=[[1, 1], [0, 2]], output_shape=[2, 3], sparse_values=[5, 6], default_value=0
        )
        loose = raw.SparseToDense(
            sparse_indices=[[1, 1], [0, 2]],
            output_shape=[2, 3],
            sparse_values=7,
            default_value=0,
            validate_indices=False,
        )
        counts = raw.DenseBincount(
            input=[[1, 1], [3, 0]], size=4, weights=[[0.5, 1.0], [2.0, 3.0]], binary_output=False
        )
        binary = raw.DenseBincount(input=[1, 1, 3, 7], size=5, weights=[], binary_output=True)
        negative = raw.DenseBincount(input=[1, -1], size=4, weights=[], binary_output=False)
        assert dense.op.type == "SparseToDense" and counts.op.type == "DenseBincount"
        assert dense.shape.as_list() == [2, 3] and counts.shape.as_list() == [2, 4] and binary.shape.as_list() == [5]
        values = tw.constant([2.0, 3.0])
        grid = raw.SparseToDense(
            sparse_indices=[[0, 0], [1, 1]], output_shape=[2, 2], sparse_values=values, default_value=0.5
        )
        (values_grad,) = tw.gradients(tw.reduce_sum(grid * [[1.0, 2.0], [3.0, 4.0]]), [values])
        with tw.Session() as sess:
            assert sess.run(dense).tolist() == [[-1, 5, -1], [-1, -1, 6]]
            assert sess.run(values_grad).tolist() == [1.0, 4.0]
            assert sess.run(scalar).tolist() == [0.0, 0.0, 1.0, 0.0]
            assert sess.run(loose).tolist() == [[0, 0, 7], [0, 7, 0]]
            with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,2\] is out of order"):
                sess.run(unordered)
            assert sess.run(counts).tolist() == [[0.0, 1.5, 0.0, 0.0], [3.0, 0.0, 0.0, 2.0]]
            assert sess.run(binary).tolist() == [0.0, 1.0, 0.0, 1.0, 0.0]
            with pytest.raises(tw.errors.InvalidArgumentError, match="Input arr must be non-negative!"):
                sess.run(negative)


def test_keras_fit_with_dataset_validation_data():
    """model.fit takes a tf.data Dataset as validation_data (with validation_steps), for dataset and for numpy
    training data (it tried to index the Dataset); the val_loss values are TF 2.21's (p134)."""
    rng = np.random.RandomState(1)
    xs = rng.randn(32, 4).astype(np.float32)
    ys = (xs[:, :1] > 0).astype(np.float32)
    tw.keras.backend.clear_session()
    model = tw.keras.Sequential([tw.keras.layers.Dense(1, activation="sigmoid", input_shape=(4,))])
    model.set_weights([np.ones((4, 1), np.float32) * 0.1, np.zeros(1, np.float32)])
    model.compile(tw.keras.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy"])
    val = tw.data.Dataset.from_tensor_slices((xs[:16], ys[:16])).batch(8).repeat()
    history = model.fit(
        xs, ys, batch_size=8, epochs=2, shuffle=False, validation_data=val, validation_steps=2, verbose=0
    )
    assert sorted(history.history) == ["acc", "loss", "val_acc", "val_loss"]
    np.testing.assert_allclose(history.history["val_loss"], [0.49578, 0.4241], atol=1e-4)
    train = tw.data.Dataset.from_tensor_slices((xs, ys)).batch(8).repeat()
    again = model.fit(train, steps_per_epoch=4, epochs=1, validation_data=val, validation_steps=2, verbose=0)
    assert sorted(again.history) == ["acc", "loss", "val_acc", "val_loss"]


def test_sparse_to_dense_builds_the_sparse_to_dense_op():
    """tf.sparse_to_dense is TF's SparseToDense op ("SparseToDense:0", its index checks and messages)."""
    with tw.Graph().as_default():
        dense = tw.sparse_to_dense([[0, 1], [1, 2]], [2, 3], [5, 6], default_value=-1)
        unordered = tw.sparse_to_dense([[1, 1], [0, 2]], [2, 3], 1)
        loose = tw.sparse_to_dense([[1, 1], [0, 2]], [2, 3], 1, validate_indices=False)
        assert dense.op.type == "SparseToDense" and dense.name == "SparseToDense:0"
        with tw.Session() as sess:
            assert sess.run(dense).tolist() == [[-1, 5, -1], [-1, -1, 6]]
            assert sess.run(loose).tolist() == [[0, 0, 1], [0, 1, 0]]
            with pytest.raises(tw.errors.InvalidArgumentError, match=r"indices\[1\] = \[0,2\] is out of order"):
                sess.run(unordered)


def test_clip_by_global_norm_and_softmax_loss_names_as_tensorflow():
    """clip_by_global_norm computes the norm before its scope ("global_norm/global_norm:0") and names the
    clipped tensors "<scope>_<i>"; TF1's softmax_cross_entropy_with_logits works under
    "softmax_cross_entropy_with_logits_sg/" with a "labels_stop_gradient" (TF 2.21's names)."""
    with tw.Graph().as_default():
        a, b = tw.ones([3]), tw.ones([2, 2])
        clipped, norm = tw.clip_by_global_norm([a, b], 1.0)
        assert [t.name for t in clipped] == [
            "clip_by_global_norm/clip_by_global_norm/_0:0",
            "clip_by_global_norm/clip_by_global_norm/_1:0",
        ]
        assert norm.name == "global_norm/global_norm:0"
        loss = tw.nn.softmax_cross_entropy_with_logits(labels=b, logits=b)
        assert loss.name.startswith("softmax_cross_entropy_with_logits_sg/")
        stop = tw.get_default_graph().get_operation_by_name("softmax_cross_entropy_with_logits_sg/labels_stop_gradient")
        assert stop.type == "StopGradient"
        with tw.Session() as sess:
            np.testing.assert_allclose(sess.run(norm), np.sqrt(7.0), rtol=1e-6)


def test_zero_fraction_name_and_value():
    """tf.nn.zero_fraction's result is "zero_fraction/fraction" ((size - nonzero) / size, as TF's)."""
    with tw.Graph().as_default():
        fraction = tw.nn.zero_fraction(tw.constant([0.0, 1.0, 0.0, 2.0, 0.0]))
        assert fraction.name == "zero_fraction/fraction:0" and fraction.dtype == tw.float32
        with tw.Session() as sess:
            assert sess.run(fraction) == np.float32(0.6)
