"""tw.train extras: the SparseApply* kernels against their dense forms, checkpoint utilities, meta graphs and
SavedModel (the values against TensorFlow are in tests/fidelity/cases_training.py)."""

import numpy as np
import pytest

import tensorweave as tw
from tensorweave._src.ops import gen_ops

# op type -> (its sparse form, slot count, scalar inputs)
SPARSE_PAIRS = {
    "ApplyAdadelta": ("SparseApplyAdadelta", 2, {"lr": 0.7, "rho": 0.9, "epsilon": 1e-3}),
    "ApplyFtrl": ("SparseApplyFtrl", 2, {"lr": 0.3, "l1": 0.1, "l2": 0.2, "lr_power": -0.6}),
    "ApplyFtrlV2": (
        "SparseApplyFtrlV2",
        2,
        {"lr": 0.3, "l1": 0.1, "l2": 0.2, "l2_shrinkage": 0.3, "lr_power": -0.5},
    ),
    "ApplyProximalGradientDescent": ("SparseApplyProximalGradientDescent", 0, {"alpha": 0.4, "l1": 0.3, "l2": 0.2}),
    "ApplyProximalAdagrad": ("SparseApplyProximalAdagrad", 1, {"lr": 0.4, "l1": 0.3, "l2": 0.2}),
    "ApplyAdagradDA": ("SparseApplyAdagradDA", 2, {"lr": 0.4, "l1": 0.3, "l2": 0.2, "global_step": 3}),
}


def _run_update(op_type, var0, slots0, grad, indices=None, dtype=np.float32):
    with tw.Graph().as_default(), tw.Session() as sess:
        var = tw.Variable(var0.astype(dtype))
        slots = [tw.Variable(s.astype(dtype)) for s in slots0]
        sess.run(tw.global_variables_initializer())
        args = [var] + slots
        op_def = gen_ops.op_def(op_type)
        names = [a["name"] for a in op_def.inputs]
        _, _, scalars = SPARSE_PAIRS[op_type.removeprefix("Sparse")]
        values = {"grad": grad.astype(dtype), "delta": grad.astype(dtype), "indices": indices}
        values.update({k: np.array(v, np.int64 if k == "global_step" else dtype) for k, v in scalars.items()})
        args += [values[n] for n in names[len(args) :]]
        out = gen_ops.wrapper(op_type)(*args)
        sess.run(out)
        return sess.run(var), sess.run(slots)


@pytest.mark.parametrize("op_type", sorted(SPARSE_PAIRS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_update_is_the_dense_update_of_the_named_rows(op_type, dtype):
    sparse_type, num_slots, _ = SPARSE_PAIRS[op_type]
    rng = np.random.default_rng(0)
    var0 = rng.normal(size=(5, 3))
    slots0 = [rng.uniform(0.1, 1.0, size=(5, 3)) for _ in range(num_slots)]
    grad_rows = rng.normal(size=(2, 3))
    rows = np.array([3, 1])
    var, slots = _run_update(sparse_type, var0, slots0, grad_rows, rows, dtype)
    dense_var, dense_slots = _run_update(op_type, var0[rows], [s[rows] for s in slots0], grad_rows, None, dtype)
    untouched = [0, 2, 4]
    np.testing.assert_allclose(var[rows], dense_var, rtol=1e-6)
    np.testing.assert_array_equal(var[untouched], var0[untouched].astype(dtype))
    for s, d, s0 in zip(slots, dense_slots, slots0):
        np.testing.assert_allclose(s[rows], d, rtol=1e-6)
        np.testing.assert_array_equal(s[untouched], s0[untouched].astype(dtype))


def test_sparse_update_rejects_bad_indices():
    var0 = np.ones((3, 2))
    with pytest.raises(tw.errors.InvalidArgumentError, match="out of range"):
        _run_update("SparseApplyProximalAdagrad", var0, [var0], np.ones((1, 2)), np.array([-1]))
    with pytest.raises(ValueError, match="grad must be"):
        _run_update("SparseApplyAdadelta", var0, [var0, var0], np.ones((2, 2)), np.array([0]))


# --- meta graphs ---------------------------------------------------------------------------------------------------


def _model():
    x = tw.constant(np.linspace(-1.0, 1.0, 8, dtype=np.float32).reshape(4, 2), name="x")
    w = tw.Variable([[0.5], [-0.5]], name="w")
    loss = tw.reduce_sum(tw.square(tw.matmul(x, w) - 1.0), name="loss")
    step = tw.train.get_or_create_global_step()
    train = tw.train.MomentumOptimizer(0.1, 0.9).minimize(loss, global_step=step)
    return train, w


def test_resumed_training_equals_uninterrupted_training(tmp_path):
    prefix = str(tmp_path / "model.ckpt")
    with tw.Graph().as_default(), tw.Session() as sess:
        train, w = _model()
        sess.run(tw.global_variables_initializer())
        for i in range(8):
            sess.run(train)
            if i == 3:
                path = tw.train.Saver().save(sess, prefix, global_step=4)
        expected = sess.run(w)
    with tw.Graph().as_default(), tw.Session() as sess:
        saver = tw.train.import_meta_graph(path + ".meta")
        saver.restore(sess, path)
        [train] = tw.get_collection(tw.GraphKeys.TRAIN_OP)
        for _ in range(4):
            sess.run(train)
        [w] = tw.trainable_variables()
        np.testing.assert_array_equal(sess.run(w), expected)
        assert sess.run(tw.train.get_global_step()) == 8
        # The momentum slot came back as a variable of the saver too.
        assert sorted(v.op.name for v in tw.global_variables()) == ["global_step", "w", "w/Momentum"]


def test_meta_graph_as_text_round_trips(tmp_path):
    path = str(tmp_path / "graph.pbtxt")
    with tw.Graph().as_default():
        a = tw.placeholder(tw.float32, [2], name="a")
        tw.add_to_collection("out", tw.add(a, 1.0, name="plus"))
        meta = tw.train.export_meta_graph(path, as_text=True)
    assert open(path).read().startswith("meta_info_def {")
    with tw.Graph().as_default() as g, tw.Session() as sess:
        assert tw.train.import_meta_graph(path) is None
        [out] = tw.get_collection("out")
        np.testing.assert_array_equal(sess.run(out, {g.get_tensor_by_name("a:0"): [1.0, 2.0]}), [2.0, 3.0])
    assert meta.meta_info_def.meta_graph_version


def test_corrupt_meta_graph_is_data_loss(tmp_path):
    path = tmp_path / "bad.meta"
    path.write_bytes(b"\xff\xfe not a proto \x00")
    with tw.Graph().as_default():
        with pytest.raises(tw.errors.DataLossError, match="not a MetaGraphDef"):
            tw.train.import_meta_graph(str(path))


def test_saver_def_naming_missing_ops_is_an_error():
    from tensorweave._src.framework import meta_graph_pb2

    saver_def = meta_graph_pb2.SaverDef(
        filename_tensor_name="save/Const:0", save_tensor_name="save/SaveV2", restore_op_name="save/restore_all"
    )
    with tw.Graph().as_default():
        with pytest.raises(ValueError, match="not in the graph"):
            tw.train.Saver(saver_def=saver_def)


def test_unserializable_collections_are_left_out():
    with tw.Graph().as_default():
        tw.add_to_collection("objects", object())
        tw.add_to_collection("mixed", 1)
        tw.add_to_collection("mixed", "a")
        meta = tw.train.export_meta_graph()
    assert "objects" not in meta.collection_def and "mixed" not in meta.collection_def


# --- file ops ------------------------------------------------------------------------------------------------------


def test_file_ops_against_the_file_system(tmp_path):
    path = tmp_path / "deep" / "f.bin"
    payload = bytes(range(256)) * 3
    with tw.Graph().as_default(), tw.Session() as sess:
        write = tw.io.write_file(str(path), payload)
        assert write.type == "WriteFile"
        sess.run(write)
        assert path.read_bytes() == payload
        read = tw.io.read_file(str(path))
        assert read.op.type == "ReadFile"
        assert sess.run(read) == payload
        for name in ("b1", "a1", "a2"):
            (tmp_path / name).write_text(name)
        matches = tw.io.matching_files(str(tmp_path / "a*"))
        assert matches.op.type == "MatchingFiles"
        assert [p.decode() for p in sess.run(matches)] == sorted(str(p) for p in tmp_path.glob("a*"))
        with pytest.raises(tw.errors.NotFoundError, match="No such file"):
            sess.run(tw.io.read_file(str(tmp_path / "missing")))
        with pytest.raises(tw.errors.FailedPreconditionError, match="Is a directory"):
            sess.run(tw.io.read_file(str(tmp_path)))


# --- MonitoredSession recovery -------------------------------------------------------------------------------------


class _FlakyCreator(tw.train.SessionCreator):
    """Makes sessions whose first `run` raises `error` once (a parameter server restarting)."""

    def __init__(self, error):
        self.created = 0
        self.error = error
        self.init = tw.global_variables_initializer()

    def create_session(self):
        self.created += 1
        sess = tw.Session()
        sess.run(self.init)
        real_run = sess.run
        error = self.error if self.created == 1 else None

        def run(*args, **kwargs):
            nonlocal error
            if error is not None:
                e, error = error, None
                raise e
            return real_run(*args, **kwargs)

        sess.run = run
        return sess


class _CountCreations(tw.train.SessionRunHook):
    def begin(self):
        self.created = 0

    def after_create_session(self, session, coord):
        self.created += 1


@pytest.mark.parametrize("error_class", [tw.errors.AbortedError, tw.errors.UnavailableError])
def test_monitored_session_recreates_its_session_after_a_preemption(error_class):
    with tw.Graph().as_default():
        v = tw.Variable(3.0, name="v")
        creator = _FlakyCreator(error_class(None, None, "worker restarted"))
        hook = _CountCreations()
        with tw.train.MonitoredSession(session_creator=creator, hooks=[hook]) as sess:
            assert sess.run(v) == 3.0
        assert creator.created == 2 and hook.created == 2


def test_singular_monitored_session_does_not_recover():
    with tw.Graph().as_default():
        v = tw.Variable(3.0, name="v")
        creator = _FlakyCreator(tw.errors.AbortedError(None, None, "worker restarted"))
        sess = tw.train.SingularMonitoredSession()
        sess._session_creator = creator
        sess._tf_sess.run = creator.create_session().run
        with pytest.raises(tw.errors.AbortedError):
            sess.run(v)
        sess.close()


def test_monitored_session_other_errors_are_raised():
    with tw.Graph().as_default():
        x = tw.placeholder(tw.float32, [None], name="x")
        y = tw.reshape(x, [2])
        with pytest.raises(tw.errors.InvalidArgumentError):
            with tw.train.MonitoredSession() as sess:
                sess.run(y, {x: [1.0, 2.0, 3.0]})


# --- parsing Examples ----------------------------------------------------------------------------------------------


def _example(**features):
    feature = {}
    for key, values in features.items():
        if isinstance(values[0], bytes):
            feature[key] = tw.train.Feature(bytes_list=tw.train.BytesList(value=values))
        elif isinstance(values[0], float):
            feature[key] = tw.train.Feature(float_list=tw.train.FloatList(value=values))
        else:
            feature[key] = tw.train.Feature(int64_list=tw.train.Int64List(value=values))
    return tw.train.Example(features=tw.train.Features(feature=feature)).SerializeToString()


def test_parse_example_against_the_protos():
    rng = np.random.default_rng(1)
    labels = rng.integers(-(2**40), 2**40, size=5)
    weights = rng.normal(size=(5, 3)).astype(np.float32)
    serialized = [
        _example(label=[int(labels[i])], w=[float(x) for x in weights[i]], **({"s": [b"x%d" % i]} if i % 2 else {}))
        for i in range(5)
    ]
    with tw.Graph().as_default(), tw.Session() as sess:
        parsed = tw.io.parse_example(
            serialized,
            {
                "label": tw.io.FixedLenFeature([1], tw.int64),
                "w": tw.io.FixedLenFeature([3], tw.float32),
                "s": tw.io.FixedLenFeature([], tw.string, default_value=b"-"),
            },
        )
        assert {v.op.type for v in parsed.values()} == {"ParseExampleV2"}
        out = sess.run(parsed)
    np.testing.assert_array_equal(out["label"][:, 0], labels)
    np.testing.assert_array_equal(out["w"], weights)
    assert list(out["s"]) == [b"-", b"x1", b"-", b"x3", b"-"]


def test_parse_example_bad_input_is_invalid_argument_with_escaped_bytes():
    with tw.Graph().as_default(), tw.Session() as sess:
        parsed = tw.io.parse_example([b"\xff\xfe\x00"], {"a": tw.io.FixedLenFeature([], tw.int64)})
        with pytest.raises(tw.errors.InvalidArgumentError, match=r"\\xff\\xfe\\x00"):
            sess.run(parsed)
    with tw.Graph().as_default(), tw.Session() as sess:
        # VarLenFeature parses to a SparseTensor (more in tests/test_sequence_example.py).
        value = sess.run(tw.io.parse_example([b""], {"a": tw.io.VarLenFeature(tw.int64)})["a"])
        assert value.values.shape == (0,) and list(value.dense_shape) == [1, 0]


def test_decode_raw_against_numpy():
    rng = np.random.default_rng(2)
    values = rng.normal(size=(4, 5))
    with tw.Graph().as_default(), tw.Session() as sess:
        for dtype, np_dtype in ((tw.float64, "f8"), (tw.float32, "f4"), (tw.int32, "i4"), (tw.uint16, "u2")):
            arr = values.astype(np_dtype)
            for little in (True, False):
                raw = [row.astype(("<" if little else ">") + np_dtype).tobytes() for row in arr]
                op = tw.io.decode_raw(raw, dtype, little_endian=little)
                assert op.op.type == "DecodeRaw"
                np.testing.assert_array_equal(sess.run(op), arr)
