"""The bytes verified are the bytes used, and a .twl's integrity trailer
(a CRC-32 of the whole file) catches every single-byte corruption."""

import struct
import zlib

import numpy as np
import pytest
import tensorweave_lite as twl
import twl_writer


def with_checksum(data):
    """`data` followed by the integrity trailer (lite/runtime/checksum.h),
    written here independently of the converter: "TWLI", algorithm 1,
    zlib's CRC-32 of everything before the checksum, "TWLI"."""
    head = bytes(data) + b"TWLI" + struct.pack("<I", 1)
    return head + struct.pack("<I", zlib.crc32(head)) + b"TWLI"


def run_mlp(content, x, **kwargs):
    interpreter = twl.Interpreter(model_content=content, **kwargs)
    interpreter.allocate_tensors()
    runner = interpreter.get_signature_runner()
    return next(iter(runner(x=x).values())).copy()


@pytest.fixture(scope="module")
def x():
    return np.random.default_rng(1).standard_normal((1, 4)).astype(np.float32)


@pytest.mark.parametrize(
    "make_buffer",
    [bytearray, lambda b: np.frombuffer(bytearray(b), np.uint8), lambda b: memoryview(bytearray(b))],
    ids=["bytearray", "numpy", "memoryview"],
)
def test_buffer_changed_after_construction_changes_nothing(mlp_model, x, make_buffer):
    data, params = mlp_model
    expected = twl_writer.mlp_reference(x, params)
    buffer = make_buffer(data)
    interpreter = twl.Interpreter(model_content=buffer)
    view = memoryview(buffer).cast("B")
    # Overwrite every byte: a model still reading the caller's buffer would
    # crash in allocate_tensors or compute with garbage weights.
    view[:] = b"\xff" * len(view)
    view.release()
    interpreter.allocate_tensors()
    runner = interpreter.get_signature_runner()
    np.testing.assert_allclose(next(iter(runner(x=x).values())), expected, rtol=1e-5, atol=1e-6)
    if isinstance(buffer, bytearray):
        buffer.extend(b"resizable: no export is held")


def test_old_files_without_the_trailer_load(mlp_model, x):
    data, params = mlp_model
    assert data[-4:] != b"TWLI"
    interpreter = twl.Interpreter(model_content=data)
    assert interpreter._impl.model_info()["checksum"] is None
    np.testing.assert_allclose(run_mlp(data, x), twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)


def test_checksummed_file_loads_and_reports_its_crc(mlp_model, x, tmp_path):
    data, params = mlp_model
    sealed = with_checksum(data)
    info = twl.Interpreter(model_content=sealed)._impl.model_info()
    assert info["checksum"] == zlib.crc32(sealed[:-8])
    assert info["size"] == len(sealed)
    path = tmp_path / "sealed.twl"
    path.write_bytes(sealed)
    interpreter = twl.Interpreter(model_path=str(path))
    interpreter.allocate_tensors()
    out = interpreter.get_signature_runner()(x=x)
    np.testing.assert_allclose(next(iter(out.values())), twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)


def flipped(data, position, value):
    corrupt = bytearray(data)
    corrupt[position] ^= value
    return bytes(corrupt)


def test_every_single_byte_change_is_rejected(mlp_model):
    sealed = with_checksum(mlp_model[0])
    rng = np.random.default_rng(0)
    assert len(sealed) > 300
    for position in range(len(sealed)):  # every byte of the file
        for value in (0x01, 0x80, int(rng.integers(1, 256))):
            with pytest.raises(ValueError, match="model is corrupt") as error:
                twl.Interpreter(model_content=flipped(sealed, position, value))
            if position < len(sealed) - 16:
                assert f"expected 0x{zlib.crc32(sealed[:-8]):08x}" in str(error.value)


def test_corruption_in_a_mapped_file_is_rejected(mlp_model, tmp_path):
    sealed = with_checksum(mlp_model[0])
    path = tmp_path / "corrupt.twl"
    path.write_bytes(flipped(sealed, len(sealed) // 2, 0x10))
    with pytest.raises(ValueError, match=r"corrupt\.twl.*CRC-32 checksum mismatch \(expected 0x[0-9a-f]{8}"):
        twl.Interpreter(model_path=str(path))


def test_skipping_verification(mlp_model, x):
    data, params = mlp_model
    sealed = with_checksum(data)
    # A change inside a weight: structurally valid, only the checksum sees it.
    weights = params[0][0].astype(np.float32).tobytes()
    position = sealed.index(weights) + 2
    corrupt = flipped(sealed, position, 0x40)
    with pytest.raises(ValueError, match="checksum mismatch"):
        twl.Interpreter(model_content=corrupt)
    changed = run_mlp(corrupt, x, verify_checksum=False)
    assert not np.allclose(changed, twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6)
    # Skipping the checksum keeps the structural verification.
    with pytest.raises(ValueError, match="not a .twl model"):
        twl.Interpreter(model_content=flipped(sealed, 5, 0x01), verify_checksum=False)
    np.testing.assert_allclose(
        run_mlp(sealed, x, verify_checksum=False), twl_writer.mlp_reference(x, params), rtol=1e-5, atol=1e-6
    )


def test_a_damaged_trailer_is_not_mistaken_for_padding(mlp_model):
    sealed = with_checksum(mlp_model[0])
    for position in (len(sealed) - 16, len(sealed) - 1):
        with pytest.raises(ValueError, match="integrity trailer is damaged"):
            twl.Interpreter(model_content=flipped(sealed, position, 0x20))
    unknown = bytearray(sealed)
    unknown[-12:-8] = struct.pack("<I", 7)
    with pytest.raises(ValueError, match="unknown checksum algorithm 7"):
        twl.Interpreter(model_content=bytes(unknown))
