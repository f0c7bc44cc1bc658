"""Defects the third round of tools/bad_input_sweep.py (--set s22: huge sizes, damaged checkpoints, Keras and
feature-column misuse, lookup tables, concurrency misuse, the lite C API and CLI, malformed RPCs to a
tensorweave server) found, checked against tensorflow.compat.v1 2.21 where TF has the API."""

import os
import subprocess
import sys

import grpc
import numpy as np
import pytest
import tensorweave as tw

from tests.bad_inputs_util import expect_error, need_tf
from tests.tf2_behavior import eager_mode, tf2_behavior

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _values(build):
    """[tensorweave's value, TF's value] of the fetches `build(lib)` makes (variables initialized)."""
    tf1 = need_tf()
    results = []
    for lib in (tw, tf1):
        with lib.Graph().as_default(), lib.Session() as sess:
            fetches = build(lib)
            sess.run(lib.global_variables_initializer())
            results.append(sess.run(fetches))
    return results


def test_numpy_array_on_the_left_of_a_variable_gives_a_tensor():
    # Variable had no __array_priority__: numpy broadcast `np_array * v` itself, giving an object array of
    # Tensors (an Estimator's model_fn fed numpy features then failed far away, "Expected string").
    a = np.array([1.0, 2.0], np.float32)

    def build(tf):
        v = tf.Variable([3.0, 4.0])
        return [a * v, a - v, a + v, a / v]

    ours, theirs = _values(build)
    for o, t in zip(ours, theirs):
        assert isinstance(o, np.ndarray) and o.dtype == np.float32, repr(o)
        np.testing.assert_allclose(o, t)


def test_variable_reflected_mod_and_bitwise_operators():
    # __rmod__, __rand__, __ror__, __xor__ and __rxor__ were missing on Variable: `5 % v` raised TypeError.
    def build(tf):
        i, b = tf.Variable(3), tf.Variable([True, False])
        return [5 % i, True & b, False | b, b ^ True, np.array([True, True]) ^ b]

    ours, theirs = _values(build)
    for o, t in zip(ours, theirs):
        np.testing.assert_array_equal(o, t)


@pytest.mark.parametrize("ex", ["not an exception", (1, 2)])
def test_coordinator_request_stop_with_a_non_exception_is_type_error(ex):
    # Was AttributeError ("'str' object has no attribute '__traceback__'"); TF raises TypeError (formatting
    # its message). The coordinator is not stopped.
    for lib, fragment in ((tw, "ex must be an exception or an exc_info tuple"), (need_tf(), None)):
        coord = lib.train.Coordinator()
        with pytest.raises(TypeError, match=fragment):
            coord.request_stop(ex)
        assert not coord.should_stop()


def test_coordinator_request_stop_with_a_non_exception_while_handling_one_reports_that_one():
    for lib in (tw, need_tf()):
        coord = lib.train.Coordinator()
        try:
            raise KeyError("handled")
        except KeyError:
            coord.request_stop("not an exception")
        with pytest.raises(KeyError, match="handled"):
            coord.join([])


def test_coordinator_request_stop_with_an_exception_unchanged():
    coord = tw.train.Coordinator()
    coord.request_stop(KeyError("k"))
    with pytest.raises(KeyError, match="k"):
        coord.join([])


def test_estimator_evaluate_in_a_fresh_process_writes_its_summary(tmp_path):
    # evaluate imported summary_pb2 directly: "No module named 'graph_pb2'" unless a summary had been written
    # before in the process (its import of graph.proto is resolved by tensorweave's summary protos module).
    code = (
        "import glob, sys\nimport tensorweave as tf\n"
        "def model_fn(features, labels, mode):\n"
        "    w = tf.get_variable('w', [], initializer=tf.zeros_initializer())\n"
        "    loss = tf.reduce_mean(tf.square(features['x'] * w - labels))\n"
        "    return tf.estimator.EstimatorSpec(mode, loss=loss)\n"
        "e = tf.estimator.Estimator(model_fn, model_dir=sys.argv[1])\n"
        "print(e.evaluate(lambda: ({'x': tf.ones([4])}, tf.ones([4])), steps=1)['loss'])\n"
        "print(len(glob.glob(sys.argv[1] + '/eval/events.out*')))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python"), ROOT]))
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["1.0", "1"], proc.stdout


@pytest.fixture(scope="module")
def worker_address():
    server = tw.train.Server.create_local_server()
    yield server.target[len("grpc://") :]
    server.stop()


def _call(address, method, request):
    from tensorweave.distributed import rpc

    with grpc.insecure_channel(address) as channel:
        try:
            channel.unary_unary(f"/{rpc.WORKER}/{method}")(request, timeout=20)
        except grpc.RpcError as e:
            return e.code(), e.details()
    return grpc.StatusCode.OK, ""


@pytest.mark.parametrize(
    "method,header",
    [
        ("CleanupStep", {"step_id": 2**70}),
        ("AbortStep", {"step_id": -(2**64)}),
        ("RunGraph", {"handle": 1, "step_id": 2**63}),
        ("PushTensor", {"step_id": 2**80, "key": "k", "tensors": [{"dtype": 1, "shape": [], "nbytes": 4}]}),
    ],
)
def test_rpc_with_a_step_id_beyond_int64_is_invalid_argument(worker_address, method, header):
    # Was INTERNAL ("TypeError: cleanup_step(): incompatible function arguments") from the runtime's binding.
    from tensorweave.distributed import wire

    code, details = _call(worker_address, method, wire.encode(header, [b"\0" * 4]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, (code, details)
    assert "out of the int64 range" in details, details


def test_batched_push_with_a_step_id_beyond_int64_is_invalid_argument(worker_address):
    from tensorweave.distributed import wire

    request = wire.encode_tensors({"pushes": [{"step_id": 2**64, "key": "k"}]}, [np.ones(2, np.float32)])
    code, details = _call(worker_address, "PushTensors", request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "step id 18446744073709551616" in details, details


def test_tensor_meta_whose_shape_overflows_is_invalid_argument(worker_address):
    # A shape of [2**32, 2**32, 0] (0 elements, 0 bytes) passed the byte count check and failed in numpy's
    # reshape: INTERNAL "ValueError: cannot reshape array of size 0".
    from tensorweave.distributed import wire

    meta = {"dtype": 1, "shape": [2**32, 2**32, 0], "nbytes": 0}
    with pytest.raises(tw.errors.InvalidArgumentError, match="more than 2"):
        wire.check_meta(meta)
    request = wire.encode({"step_id": 1, "key": "k", "tensors": [meta]})
    code, details = _call(worker_address, "PushTensor", request)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "malformed tensor shape" in details, details
    # An empty tensor of a shape numpy can hold still decodes.
    assert wire.tensor_from({"dtype": 1, "shape": [2**20, 0], "nbytes": 0}, b"").shape == (2**20, 0)


@pytest.mark.parametrize("make", ["FIFOQueue", "RandomShuffleQueue"])
def test_queue_capacity_beyond_int32_is_invalid_argument(make):
    # Was accepted (an int64 attr here); TF's queue kernels take int32 attrs.
    def build(tf):
        q = tf.FIFOQueue(2**40, tf.float32) if make == "FIFOQueue" else tf.RandomShuffleQueue(2**40, 0, tf.float32)
        return q.size()

    expect_error(tw, build, tw.errors.InvalidArgumentError, "Attr capacity has value 1099511627776 out of range")


def test_random_shuffle_queue_min_after_dequeue_beyond_int32_is_invalid_argument():
    build = lambda tf: tf.RandomShuffleQueue(10, -(2**40), tf.float32).size()
    expect_error(tw, build, tw.errors.InvalidArgumentError, "Attr min_after_dequeue has value", oracle=False)


def _keras_error(make):
    """The exception `make(keras)` raises with tensorweave's Keras and tf_keras (None when it does not)."""
    need_tf()
    tf_keras = pytest.importorskip("tf_keras")
    out = []
    for keras in (tw.keras, tf_keras):
        try:
            make(keras)
            out.append(None)
        except Exception as e:  # noqa: BLE001 - the error is the result
            out.append(e)
    return out


@pytest.mark.parametrize(
    "make,fragment",
    [
        (lambda k: k.layers.Cropping2D(2)(k.Input((4, 4, 1))), "Argument `cropping` must be greater than the input"),
        (lambda k: k.layers.Cropping2D(((1, 3), (0, 0)))(k.Input((4, 4, 1))), "cropping=((1, 3), (0, 0))"),
        (lambda k: k.layers.UpSampling2D(0), "including {0} that does not satisfy the requirement `> 0`"),
        (lambda k: k.layers.UpSampling2D((2, -1)), "including {-1}"),
        (lambda k: k.layers.UpSampling3D((1, 0, 1)), "including {0}"),
    ],
)
def test_keras_cropping_all_and_upsampling_by_zero_are_value_errors(make, fragment):
    # Cropping2D gave an empty (or negative) image, UpSampling2D(0) an empty one; tf_keras raises ValueError.
    ours, theirs = _keras_error(make)
    assert isinstance(ours, ValueError) and fragment in str(ours), repr(ours)
    assert isinstance(theirs, ValueError), repr(theirs)


def test_keras_cropping2d_of_unknown_size_and_channels_first(sess):
    # Unknown spatial sizes raised TypeError ("None - int"); data_format was not an argument.
    x = np.arange(50, dtype=np.float32).reshape(1, 2, 5, 5)
    tf_keras = pytest.importorskip("tf_keras")
    crop = ((1, 0), (0, 2))
    with eager_mode():  # (another test may have disabled eager execution)
        theirs = tf_keras.layers.Cropping2D(crop, data_format="channels_first")(x).numpy()
    layer = tw.keras.layers.Cropping2D(crop, data_format="channels_first")
    np.testing.assert_array_equal(sess.run(layer(tw.constant(x))), theirs)
    unknown = tw.placeholder(tw.float32, [None, None, None, 1])
    out = tw.keras.layers.Cropping2D(((1, 0), (2, 1)))(unknown)
    image = np.arange(20, dtype=np.float32).reshape(1, 4, 5, 1)
    np.testing.assert_array_equal(sess.run(out, {unknown: image}), image[:, 1:, 2:4])


def test_keras_class_weight_missing_a_class_of_the_data_is_value_error():
    # Classes absent from class_weight were weighted 1.0 silently; TF1's Keras raises ValueError.
    model = tw.keras.Sequential([tw.keras.layers.Dense(2, input_shape=(3,))])
    model.compile("sgd", "mse")
    with pytest.raises(ValueError, match=r"The classes \{0\} exist in the data but not in `class_weight`"):
        model.fit(np.zeros([4, 3]), np.zeros([4, 2]), class_weight={1: 2.0}, verbose=0)
    model.fit(np.zeros([4, 3]), np.eye(2)[[0, 1, 0, 1]], class_weight={0: 1.0, 1: 2.0}, verbose=0)


def test_flatten_of_a_scalar_is_value_error():
    # Gave shape [1, 1]; tf_keras's Flatten wants min_ndim=1.
    ours, theirs = _keras_error(lambda k: k.layers.Flatten()(k.backend.constant(1.0)))
    assert isinstance(ours, ValueError) and "expected min_ndim=1, found ndim=0" in str(ours), repr(ours)
    assert isinstance(theirs, ValueError) and "expected min_ndim=1, found ndim=0" in str(theirs), repr(theirs)
    with pytest.raises(ValueError, match="expected min_ndim=1"):
        tw.layers.flatten(tw.constant(1.0))


def test_flatten_channels_first_flattens_in_channels_last_order(sess):
    # data_format="channels_first" was ignored: the features came out in another order than TF's.
    tf_keras = pytest.importorskip("tf_keras")
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2)
    with eager_mode():
        theirs = tf_keras.layers.Flatten(data_format="channels_first")(x).numpy()
    for out in (
        tw.layers.flatten(tw.constant(x), data_format="channels_first"),
        tw.keras.layers.Flatten(data_format="channels_first")(tw.constant(x)),
    ):
        np.testing.assert_array_equal(sess.run(out), theirs)
    np.testing.assert_array_equal(sess.run(tw.layers.flatten(tw.constant(x))), x.reshape(2, -1))


def test_checkpoint_reader_of_a_directory_is_data_loss(tmp_path):
    # Was NotFoundError ("Failed to find any matching files"); TF cannot open the directory as a table.
    for lib in (tw, need_tf()):
        with pytest.raises(lib.errors.DataLossError, match="Is a directory"):
            lib.train.NewCheckpointReader(str(tmp_path))


@pytest.mark.parametrize("where", ["under_a_file", "uninitialized_in_a_missing_dir"])
def test_saver_save_that_fails_without_its_parent_directory_is_value_error(tmp_path, where):
    # Was FailedPreconditionError from the save op; TF's Saver.save turns it into ValueError.
    (tmp_path / "plain").write_text("x")

    def build(tf):
        v = tf.Variable(1.0, name="v")
        sess = tf.get_default_session()
        if where == "under_a_file":
            sess.run(v.initializer)
            return tf.train.Saver().save(sess, str(tmp_path / "plain" / "model"))
        return tf.train.Saver().save(sess, str(tmp_path / "missing" / "model"))

    for lib in (tw, need_tf()):
        with (
            lib.Graph().as_default(),
            lib.Session().as_default(),
            pytest.raises(ValueError, match="Parent directory of .*model doesn't exist, can't save"),
        ):
            build(lib)


def test_checkpoint_whose_size_wraps_around_is_data_loss(tmp_path):
    # A header shape of [2**62] float32 (2**64 bytes: 0 after the multiplication wrapped) matched the offsets
    # [0, 0]: ResourceExhausted when read instead of the corrupt file named.
    import json
    import struct

    from tensorweave._src.platform.tf_record import crc32c

    prefix = str(tmp_path / "model")
    entry = {"dtype": "F32", "shape": [2**62]}
    header = json.dumps({"v": dict(entry, data_offsets=[0, 0])}).encode()
    header += b" " * (-len(header) % 8)
    data = struct.pack("<Q", len(header)) + header
    (tmp_path / "model.safetensors").write_bytes(data)
    manifest = {
        "data_bytes": len(data),
        "data_crc32c": crc32c(data),
        "data_file": "model.safetensors",
        "format": "tensorweave.checkpoint",
        "tensors": {"v": dict(entry, crc32c=0)},
        "version": 1,
    }
    (tmp_path / "model.manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(tw.errors.DataLossError, match=r"tensor 'v' has shape \[4611686018427387904\], more than 2\^64"):
        tw.train.load_variable(prefix, "v")


def test_sparse_split_into_more_pieces_than_the_dimension_is_invalid_argument():
    # Gave empty pieces; TF's SparseSplit kernel refuses it.
    def build(tf):
        sp = tf.SparseTensor(tf.constant([[0]], tf.int64), [1.0], [2])
        return tf.sparse.to_dense(tf.sparse.split(sp_input=sp, num_split=5, axis=0)[0])

    expect_error(tw, build, tw.errors.InvalidArgumentError, "num_split should be between 1 and the splitting dimension")


def test_sparse_split_within_the_dimension_unchanged(sess):
    sp = tw.SparseTensor(tw.constant([[0], [3]], tw.int64), [1.0, 2.0], [4])
    parts = sess.run([tw.sparse.to_dense(p) for p in tw.sparse.split(sp_input=sp, num_split=4, axis=0)])
    assert [p.tolist() for p in parts] == [[1.0], [0.0], [0.0], [2.0]]


def test_from_generator_float_for_an_int_component_is_an_error():
    # 1.5 for an int64 component became 1 silently; TF refuses it.
    def build(tf):
        ds = tf.data.Dataset.from_generator(lambda: iter([1.5]), tf.int64)
        return tf.data.make_one_shot_iterator(ds).get_next()

    expect_error(tw, build, tw.errors.InvalidArgumentError, "could not be converted to the expected type")


def test_from_generator_exact_float_for_an_int_component_converts(sess):
    ds = tw.data.Dataset.from_generator(lambda: iter([2.0, np.float32(3.0)]), tw.int64)
    n = tw.data.make_one_shot_iterator(ds).get_next()
    assert [sess.run(n), sess.run(n)] == [2, 3]


def test_keras_load_weights_of_a_missing_or_foreign_h5_file_is_an_os_error(tmp_path):
    # Was "not a valid checkpoint" (ValueError): an .h5 path is opened as HDF5, as tf_keras does.
    (tmp_path / "garbage.h5").write_text("garbage")
    for path, error in ((tmp_path / "missing.h5", FileNotFoundError), (tmp_path / "garbage.h5", OSError)):
        ours, theirs = _keras_error(
            lambda k, path=path: k.Sequential([k.layers.Dense(2, input_shape=(3,))]).load_weights(str(path))
        )
        assert isinstance(ours, error), repr(ours)
        assert isinstance(theirs, error), repr(theirs)


def test_sweep_tool_runs_tensorweave_only_cases():
    # The round-3 driver: "tw:" cases (raw RPCs to a local server here) run on tensorweave alone.
    proc = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "bad_input_sweep.py"), "--set", "s22", "--only", "rpc_run_graph"],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert int(proc.stdout.strip().splitlines()[-1].split(" cases:")[0]) >= 10, proc.stdout
    assert "rpc_run_graph_feed_wrong_dtype: tw=[" in proc.stdout and "INVALID_ARGUMENT" in proc.stdout, proc.stdout
    assert "INTERNAL" not in proc.stdout and "crash" not in proc.stdout and "hang" not in proc.stdout, proc.stdout


def test_fill_of_an_empty_shape_whose_dims_overflow_is_invalid_argument():
    # [2**62, 2**62, 0] holds no element, so the op ran; fetching it failed in numpy ("array is too big") without
    # naming the op. TF's Fill refuses the shape.
    def build(tf):
        dims = tf.placeholder_with_default(tf.constant([2**62, 2**62, 0], tf.int64), [3])
        return tf.fill(dims, 1.0)

    expect_error(tw, build, tw.errors.InvalidArgumentError, "would have more than 2**63 - 1 elements")


def test_fill_of_an_empty_shape_unchanged(sess):
    dims = tw.placeholder_with_default(tw.constant([3, 0, 2**40], tw.int64), [3])
    assert sess.run(tw.fill(dims, 1.0)).shape == (3, 0, 2**40)


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["--timeout", "-5"], "--timeout must be a positive number of seconds, got -5.0"),
        (["--timeout", "nan"], "--timeout must be a positive number of seconds, got nan"),
        (["--logdir", "FILE"], "is not a directory"),
    ],
)
def test_cluster_cli_refuses_bad_arguments(tmp_path, capsys, argv, fragment):
    # A timeout <= 0 killed the cluster at once; a logdir naming a file was a FileExistsError traceback.
    from tensorweave.distributed import launch

    script = tmp_path / "s.py"
    script.write_text("print('hi')\n")
    argv = [str(script) if a == "FILE" else a for a in argv]
    with pytest.raises(SystemExit) as info:
        launch.main([*argv, "--ps", "0", "--workers", "1", str(script)])
    assert info.value.code == 2
    assert fragment in capsys.readouterr().err


def test_cluster_that_fails_to_start_a_task_leaves_none_running(tmp_path, monkeypatch):
    # A failure part-way (out of processes or files) left the tasks started so far running.
    from tensorweave.distributed import launch

    script = tmp_path / "sleeper.py"
    script.write_text("import time\ntime.sleep(60)\n")
    real, started = launch.subprocess.Popen, []

    def popen(*args, **kwargs):
        if len(started) == 2:
            raise OSError(24, "Too many open files")
        started.append(real(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(launch.subprocess, "Popen", popen)
    with pytest.raises(OSError, match="Too many open files"):
        launch.LocalCluster([sys.executable, str(script)], 1, 3, logdir=str(tmp_path / "logs"))
    assert len(started) == 2 and all(p.poll() is not None for p in started)


def test_keras_model_from_json_with_lambda_bytecode_is_refused_without_running_it(tmp_path):
    # Was TypeError ("Keyword argument not understood: ['function_type', ...]"); tf_keras refuses the Lambda's
    # marshalled code with ValueError. Its code never runs.
    import codecs
    import json
    import marshal

    marker = tmp_path / "ran"
    code = marshal.dumps((lambda x: open(str(marker), "w").close() or x).__code__)
    lam = {
        "name": "lam",
        "function": [codecs.encode(code, "base64").decode("ascii"), None, None],
        "function_type": "lambda",
        "module": "__main__",
        "output_shape": None,
        "output_shape_type": "raw",
        "arguments": {},
    }
    config = {
        "class_name": "Sequential",
        "config": {
            "name": "s",
            "layers": [
                {"class_name": "InputLayer", "config": {"batch_input_shape": [None, 3], "name": "in"}},
                {"class_name": "Lambda", "config": lam},
            ],
        },
    }

    def load(k):
        with need_tf().Graph().as_default():
            k.models.model_from_json(json.dumps(config)).predict(np.zeros([1, 3]))

    with tf2_behavior():  # (tf_keras under an earlier test's disable_v2_behavior() unmarshals the code instead)
        ours, theirs = _keras_error(load)
    assert isinstance(ours, ValueError) and "Lambda layer with a Python `lambda`" in str(ours), repr(ours)
    assert isinstance(theirs, ValueError), repr(theirs)
    assert not marker.exists()


def test_confusion_matrix_with_a_huge_num_classes_fails_at_once():
    # It built range(num_classes) first: 2**31 - 1 classes spent 16 GB and minutes before the matrix (and int32
    # cells overflowed past 46340 classes). As TF1's, the [n, n] ScatterNd is refused at once.
    def build(tf):
        n = tf.placeholder_with_default(2**31 - 1, [])
        return tf.math.confusion_matrix([0], [0], num_classes=n)

    expect_error(tw, build, tw.errors.ResourceExhaustedError, "[2147483647,2147483647]", oracle=False)


@pytest.mark.parametrize(
    "labels,predictions,num_classes,fragment",
    [([0, -1], [0, 1], None, "`labels` contains negative values"), ([0, 5], [0, 1], 2, "`labels` out of bound")],
)
def test_confusion_matrix_ids_out_of_range_are_invalid_argument(labels, predictions, num_classes, fragment):
    build = lambda tf: tf.math.confusion_matrix(labels, predictions, num_classes=num_classes)
    expect_error(tw, build, tw.errors.InvalidArgumentError, fragment)


def test_confusion_matrix_values_match_tensorflow():
    def build(tf):
        return [
            tf.math.confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1]),
            tf.math.confusion_matrix([0, 2], [1, 2], num_classes=4, weights=[0.5, 2.0], dtype=tf.float32),
        ]

    ours, theirs = _values(build)
    for o, t in zip(ours, theirs):
        assert o.dtype == t.dtype
        np.testing.assert_array_equal(o, t)


@pytest.mark.parametrize("exclusive", [True, False])
def test_case_of_one_pair_without_default_asserts_its_predicate(exclusive):
    # exclusive=True failed to build ("stack needs at least one value": TF stacks the empty list of the other
    # predicates into an empty vector); a false predicate is TF's InvalidArgumentError at run time.
    def build(tf, pred):
        return tf.case([(tf.placeholder_with_default(pred, []), lambda: tf.constant(1))], exclusive=exclusive)

    ours, theirs = _values(lambda tf: build(tf, True))
    assert ours == theirs == 1
    expect_error(
        tw, lambda tf: build(tf, False), tw.errors.InvalidArgumentError, "None of conditions evaluated as True"
    )


def test_stack_of_an_empty_list_is_an_empty_float_vector(sess):
    out = tw.stack([])
    assert out.dtype == tw.float32 and out.shape.as_list() == [0]
    assert sess.run(out).shape == (0,)
    with pytest.raises(ValueError, match="stack needs at least one value"):
        tw.stack([], axis=1)


def test_einsum_with_a_repeated_output_subscript_is_value_error():
    # Was NotImplementedError ("not supported yet"); TF refuses the equation with ValueError.
    build = lambda tf: tf.einsum("ij->ii", tf.zeros([2, 3]))
    expect_error(tw, build, ValueError, "Output subscripts contain a label appearing more than once: ij->ii")


@pytest.mark.parametrize("op", ["crop", "pad"])
def test_crop_and_pad_to_bounding_box_take_an_image_of_unknown_rank_as_3d(op):
    # Was ValueError ("rank is unknown"); TF takes it as [height, width, channels] (what decode_image gives).
    image = np.arange(16, dtype=np.float32).reshape(4, 4, 1)

    def build(tf):
        x = tf.placeholder_with_default(image, None)
        if op == "crop":
            return tf.image.crop_to_bounding_box(x, 1, 2, 2, 2)
        return tf.image.pad_to_bounding_box(x, 1, 0, 6, 5)

    ours, theirs = _values(build)
    np.testing.assert_array_equal(ours, theirs)


def test_per_image_standardization_of_an_empty_image_is_value_error():
    # Gave an empty result; TF's checks the inner dims.
    build = lambda tf: tf.image.per_image_standardization(tf.zeros([0, 4, 1]))
    expect_error(tw, build, ValueError, "inner 3 dims of 'image.shape' must be > 0")


@pytest.mark.parametrize("padded_shapes", [[-1], (-1,), (None,), (5,), np.array([-1])])
def test_padded_batch_padded_shapes_as_tf(padded_shapes):
    # [-1] (-1: pad to the longest) was "Dimension -1 must be >= 0"; a tuple such as (5,) for a one-component
    # dataset was taken apart into the scalar 5 ((None,) and (-1,) then failed).
    def build(tf):
        ds = tf.data.Dataset.range(1, 4).map(lambda n: tf.fill(tf.reshape(n, [1]), n))
        return tf.data.make_one_shot_iterator(ds.padded_batch(3, padded_shapes=padded_shapes)).get_next()

    ours, theirs = _values(build)
    np.testing.assert_array_equal(ours, theirs)
