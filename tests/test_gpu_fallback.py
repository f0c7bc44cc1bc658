"""tensorweave without a usable GPU: the import works, the GPU library's loader records why no GPU is used,
placement on /gpu:0 is a clear error (or, with soft placement, runs on the CPU), and a broken GPU library is an
error string, never a crash. CI also runs this file with the freshly built GPU library loaded
(TW_GPU_LIBRARY=...): on a machine without a GPU the library loads and reports no GPU.

The tests that need "no GPU" skip on a machine that has one (tests/gpu covers that case)."""

import os
import subprocess
import sys

import numpy as np
import pytest

import tensorweave as tw
from tensorweave import _pywrap_tensorweave as pywrap
from tensorweave._src.platform import gpu_loader

HAS_GPU = tw.test.is_gpu_available()
requires_no_gpu = pytest.mark.skipif(HAS_GPU, reason="this machine has a GPU")


def run_python(code, **env):
    """Runs `code` in a fresh interpreter with `env` added to the environment (None removes a name); returns
    the completed process (stdout, stderr as text)."""
    full = dict(os.environ)
    for k, v in env.items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    return subprocess.run([sys.executable, "-c", code], env=full, capture_output=True, text=True, timeout=120)


PROBE = """
import tensorweave as tw
print("REASON", tw.test.gpu_unavailable_reason())
print("AVAILABLE", tw.test.is_gpu_available())
print("PHYSICAL", tw.config.list_physical_devices("GPU"))
print("LOADED", tw._gpu_loader.is_loaded())
"""


def probe(**env):
    proc = run_python(PROBE, **env)
    assert proc.returncode == 0, proc.stderr
    lines = dict(line.split(" ", 1) for line in proc.stdout.splitlines() if " " in line)
    return lines, proc


def build_double(device):
    a = tw.placeholder(tw.float32, [3], name="a")
    with tw.device(device):
        b = tw.add(a, a, name="double_it")
    return a, b


# --- the environment's switches ---------------------------------------------------------------------------


def test_disabled_reason_reads_the_switches():
    assert gpu_loader.disabled_reason({}) is None
    assert gpu_loader.disabled_reason({"TW_GPU": "1"}) is None
    assert "TW_GPU=0" in gpu_loader.disabled_reason({"TW_GPU": "0"})
    assert "CUDA_VISIBLE_DEVICES" in gpu_loader.disabled_reason({"CUDA_VISIBLE_DEVICES": ""})
    assert "CUDA_VISIBLE_DEVICES" in gpu_loader.disabled_reason({"CUDA_VISIBLE_DEVICES": "-1"})
    assert "CUDA_VISIBLE_DEVICES" in gpu_loader.disabled_reason({"CUDA_VISIBLE_DEVICES": "-1,0"})
    assert gpu_loader.disabled_reason({"CUDA_VISIBLE_DEVICES": "0"}) is None
    assert gpu_loader.disabled_reason({"CUDA_VISIBLE_DEVICES": "1,0"}) is None


def test_tw_gpu_0_is_honoured():
    lines, _ = probe(TW_GPU="0")
    assert "TW_GPU=0" in lines["REASON"]
    assert lines["AVAILABLE"] == "False"
    assert lines["PHYSICAL"] == "[]"
    assert lines["LOADED"] == "False"  # not even loaded


@pytest.mark.parametrize("visible", ["", "-1"])
def test_no_visible_cuda_devices_means_no_gpu(visible):
    lines, _ = probe(CUDA_VISIBLE_DEVICES=visible, TW_GPU=None)
    assert "CUDA_VISIBLE_DEVICES" in lines["REASON"]
    assert lines["AVAILABLE"] == "False"
    assert lines["PHYSICAL"] == "[]"


def test_verbose_warns_why_cpu_only():
    proc = run_python("import tensorweave", TW_GPU="0", TW_GPU_VERBOSE="1")
    assert proc.returncode == 0, proc.stderr
    assert "tensorweave runs CPU-only: disabled by TW_GPU=0" in proc.stderr
    quiet = run_python("import tensorweave", TW_GPU="0", TW_GPU_VERBOSE=None)
    assert "CPU-only" not in quiet.stderr


def test_missing_library_is_a_reason_not_an_error(tmp_path):
    lines, _ = probe(
        TW_GPU_LIBRARY=str(tmp_path / "nowhere" / "libtensorweave_gpu.so"), TW_GPU=None, CUDA_VISIBLE_DEVICES=None
    )
    assert "does not exist" in lines["REASON"]
    assert lines["AVAILABLE"] == "False"


def test_a_file_that_is_not_a_library_does_not_break_the_import(tmp_path):
    bogus = tmp_path / "libtensorweave_gpu.so"
    bogus.write_text("this is not an ELF file\n")
    lines, _ = probe(TW_GPU_LIBRARY=str(bogus), TW_GPU=None, CUDA_VISIBLE_DEVICES=None)
    assert "could not be loaded" in lines["REASON"] and str(bogus) in lines["REASON"], lines["REASON"]
    assert lines["AVAILABLE"] == "False"
    assert lines["LOADED"] == "False"


# --- load_gpu_plugin on bad files (in this process: it must return, not crash) ----------------------------


def test_load_library_reports_bad_files(tmp_path):
    bogus = tmp_path / "bogus.so"
    bogus.write_bytes(b"\x7fELF but truncated")
    loaded, count, message = gpu_loader.load_library(str(bogus))
    assert (loaded, count) == (False, -1)
    assert str(bogus) in message and "cannot load" in message, message

    loaded, count, message = gpu_loader.load_library(str(tmp_path / "absent.so"))
    assert (loaded, count) == (False, -1) and "does not exist" in message


def test_load_library_needs_the_entry_point():
    # A real shared library without TW_GpuPluginInit: the core extension itself.
    loaded, count, message = pywrap.load_gpu_plugin(pywrap.__file__)
    assert (loaded, count) == (False, -1)
    assert "no TW_GpuPluginInit entry point" in message, message


# --- the nvidia library dirs --------------------------------------------------------------------------------


def test_nvidia_lib_dirs_lists_roots_then_lib_dirs(tmp_path):
    site_a = tmp_path / "a" / "site-packages"
    site_b = tmp_path / "b"
    for d in [
        site_a / "nvidia" / "cublas" / "lib",
        site_a / "nvidia" / "cudnn" / "lib",
        site_a / "nvidia" / "cu13" / "lib",
        site_b / "nvidia" / "cudnn" / "include",  # no lib dir
    ]:
        d.mkdir(parents=True)
    (tmp_path / "c").mkdir()  # no nvidia/
    dirs = gpu_loader.nvidia_lib_dirs([str(site_a), "", str(tmp_path / "c"), str(site_b), str(site_a)])
    assert dirs == [
        str(site_a),
        str(site_b),
        str(site_a / "nvidia" / "cu13" / "lib"),
        str(site_a / "nvidia" / "cublas" / "lib"),
        str(site_a / "nvidia" / "cudnn" / "lib"),
    ]
    assert gpu_loader.nvidia_lib_dirs([str(tmp_path / "c")]) == []


# --- placement without a GPU ----------------------------------------------------------------------------------


@requires_no_gpu
def test_no_gpu_is_reported():
    assert tw.test.is_gpu_available() is False
    assert tw.test.gpu_device_name() == ""
    assert tw.config.list_physical_devices("GPU") == []
    assert all(d.device_type != "GPU" for d in tw.config.list_logical_devices())
    reason = tw.test.gpu_unavailable_reason()
    assert isinstance(reason, str) and reason, reason


@requires_no_gpu
def test_explicit_gpu_placement_is_a_clear_error():
    with tw.Graph().as_default():
        a, b = build_double("/gpu:0")
        with tw.Session() as sess:
            with pytest.raises(tw.errors.InvalidArgumentError) as info:
                sess.run(b, {a: np.ones(3, np.float32)})
    message = str(info.value)
    assert "double_it" in message  # the node
    assert "GPU:0" in message  # the device asked for
    assert "available devices are [ /job:localhost/replica:0/task:0/device:CPU:0 ]" in message


@requires_no_gpu
def test_soft_placement_runs_on_the_cpu():
    with tw.Graph().as_default():
        a, b = build_double("/device:GPU:0")
        config = tw.ConfigProto(allow_soft_placement=True)
        with tw.Session(config=config) as sess:
            metadata = tw.RunMetadata()
            x = np.array([1.5, -2.0, 3.25], np.float32)
            out = sess.run(b, {a: x}, options=tw.RunOptions(output_partition_graphs=True), run_metadata=metadata)
    np.testing.assert_array_equal(out, 2 * x)
    devices = {node.device for g in metadata.partition_graphs for node in g.node if node.name == "double_it"}
    assert devices and all("CPU" in d for d in devices), devices


@requires_no_gpu
def test_gpu_device_count_zero_still_runs_on_the_cpu():
    with tw.Graph().as_default():
        a, b = build_double("/cpu:0")
        config = tw.ConfigProto(device_count={"GPU": 0})
        with tw.Session(config=config) as sess:
            np.testing.assert_array_equal(sess.run(b, {a: np.arange(3, dtype=np.float32)}), [0.0, 2.0, 4.0])


# --- memory info ------------------------------------------------------------------------------------------


def test_memory_info_of_the_cpu_is_a_value_error():
    with pytest.raises(ValueError, match="does not support getting memory information"):
        tw.config.experimental.get_memory_info("CPU:0")
    with pytest.raises(ValueError, match="does not support resetting memory statistics"):
        tw.config.experimental.reset_memory_stats("/device:CPU:0")


def test_memory_info_rejects_bad_names():
    for bad in ["GPU:x", "GPU:", ":0", "GPU:-1"]:
        with pytest.raises(ValueError):
            tw.config.experimental.get_memory_info(bad)
    with pytest.raises(ValueError, match="No matching devices"):
        tw.config.experimental.get_memory_info("TPU:0")


@requires_no_gpu
def test_memory_info_without_a_gpu_is_a_value_error():
    with pytest.raises(ValueError):
        tw.config.experimental.get_memory_info("GPU:0")
    with pytest.raises(ValueError):
        tw.config.experimental.reset_memory_stats("GPU:0")


# --- with the GPU library loaded (CI's GPU stage sets TW_GPU_LIBRARY) ---------------------------------------


@pytest.mark.skipif(not gpu_loader.is_loaded(), reason="the GPU library is not loaded in this process")
@requires_no_gpu
def test_loaded_library_without_a_gpu_reports_it():
    # Without a GPU (or without a CUDA driver, as on CI) the library loads and says why it has no GPU.
    reason = tw.test.gpu_unavailable_reason()
    assert reason.startswith("the GPU library is loaded, but"), reason
    assert "no CUDA GPU is visible" in reason or "CUDA is not usable" in reason, reason
    assert tw.config.list_physical_devices("GPU") == []
    assert tw.test.is_gpu_available() is False
    # Loading it again is harmless and gives the same answer.
    loaded, count, message = gpu_loader.load_library(gpu_loader.default_library_path())
    assert loaded and count <= 0 and message in reason, (loaded, count, message)


def test_a_gpu_library_older_than_the_extension_is_not_loaded_in_a_checkout(tmp_path):
    ext_dir = os.path.dirname(os.path.abspath(pywrap.__file__))
    in_checkout = os.path.isdir(os.path.join(ext_dir, os.pardir, os.pardir, ".git"))
    old = tmp_path / "libtensorweave_gpu.so"
    old.write_bytes(b"")
    os.utime(old, (1, 1))
    reason = gpu_loader.stale_in_checkout(str(old))
    if in_checkout:
        assert reason is not None and "older than the core extension" in reason and "tools/build_gpu.sh" in reason
    else:
        assert reason is None  # an installed package: never second-guessed
    new = tmp_path / "new.so"
    new.write_bytes(b"")
    assert gpu_loader.stale_in_checkout(str(new)) is None
    assert gpu_loader.stale_in_checkout(str(tmp_path / "absent.so")) is None
