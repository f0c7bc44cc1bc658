"""tw.config's process-wide settings and the default ConfigProto of a Session
made without one (TensorFlow 2's compat.v1.Session takes it from the context)."""

import numpy as np
import pytest
import tensorweave.compat.v1 as tw
from tensorweave._src.client import context_config
from tensorweave._src.client.session_config import graph_optimizer_options


@pytest.fixture(autouse=True)
def _restore_state():
    saved = {k: (dict(v) if isinstance(v, dict) else v) for k, v in context_config._state.items()}
    yield
    context_config._state.clear()
    context_config._state.update(saved)


def test_threads_reach_new_sessions():
    tw.config.threading.set_intra_op_parallelism_threads(1)
    tw.config.threading.set_inter_op_parallelism_threads(2)
    assert tw.config.threading.get_intra_op_parallelism_threads() == 1
    with tw.Graph().as_default():
        x = tw.constant([1.0, 2.0])
        with tw.Session() as sess:
            assert (sess._config.intra_op_parallelism_threads, sess._config.inter_op_parallelism_threads) == (1, 2)
            np.testing.assert_allclose(sess.run(x * 2), [2.0, 4.0])
        explicit = tw.ConfigProto(intra_op_parallelism_threads=3)
        assert tw.Session(config=explicit)._config.intra_op_parallelism_threads == 3
    with pytest.raises(ValueError, match="non-negative"):
        tw.config.threading.set_intra_op_parallelism_threads(-1)


def test_optimizer_options_switch_passes():
    assert tw.config.optimizer.get_experimental_options() == {
        "disable_model_pruning": False,
        "disable_meta_optimizer": False,
    }
    tw.config.optimizer.set_experimental_options({"constant_folding": False, "remapping": True})
    assert tw.config.optimizer.get_experimental_options()["constant_folding"] is False
    passes = graph_optimizer_options(context_config.default_config())
    assert passes["constant_folding"] is False and passes["remapping"] is True
    with pytest.raises(ValueError, match="unknown options"):
        tw.config.optimizer.set_experimental_options({"constant_foldin": False})
    assert tw.config.optimizer.get_jit() == ""


def test_soft_placement_of_sessions_without_config():
    assert tw.config.get_soft_device_placement() is False
    tw.config.set_soft_device_placement(True)
    with tw.Graph().as_default():
        with tw.device("/device:XLA_CPU:7"):
            y = tw.constant(2.0) + 1.0
        with tw.Session() as sess:
            assert sess.run(y) == 3.0


def test_logical_cpus_and_visible_devices():
    cpu = tw.config.list_physical_devices("CPU")[0]
    assert tw.config.get_visible_devices("CPU") == [cpu]
    tw.config.set_logical_device_configuration(cpu, [tw.config.LogicalDeviceConfiguration()] * 2)
    assert len(tw.config.get_logical_device_configuration(cpu)) == 2
    with tw.Graph().as_default():
        with tw.device("/cpu:1"):
            y = tw.constant(1.0) * 4.0
        with tw.Session() as sess:
            assert [d.device_type for d in sess.list_devices()].count("CPU") == 2
            assert sess.run(y) == 4.0
    tw.config.set_visible_devices([], "GPU")
    assert tw.config.get_visible_devices("GPU") == []
    assert context_config.default_config().device_count.get("GPU", 0) == 0
    with pytest.raises(ValueError, match="CPU cannot be hidden"):
        tw.config.set_visible_devices([])
    with pytest.raises(ValueError, match="unknown device"):
        tw.config.set_visible_devices([tw.config.PhysicalDevice("/physical_device:TPU:0", "TPU")])


def test_matches_tensorflow_defaults():
    tf = pytest.importorskip("tensorflow.compat.v1")
    tf.disable_v2_behavior()  # TF1 graph mode, where soft placement is off by default
    assert tw.config.get_soft_device_placement() == tf.config.get_soft_device_placement()
    assert tw.config.optimizer.get_experimental_options() == tf.config.optimizer.get_experimental_options()
    assert tw.config.threading.get_intra_op_parallelism_threads() == 0
