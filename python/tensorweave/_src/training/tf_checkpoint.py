"""The listing of a checkpoint that TensorFlow wrote (format V2): prefix P is `P.index`, a table in LevelDB's
format mapping each tensor name to a BundleEntryProto, and the data files `P.data-SSSSS-of-NNNNN`.

This module reads the index only (names, dtypes, shapes: what `NewCheckpointReader` and `list_variables`
show). The values are read by the core's RestoreV2 (core/util/checkpoint_format.cc), which checks every
offset and checksum, so that `Saver.restore`, `init_from_checkpoint` and the reader take TensorFlow's
checkpoints as they are.
"""

import os
import struct

from tensorweave._src.framework import dtypes, errors
from tensorweave._src.platform import tf_record

INDEX_SUFFIX = ".index"
_TABLE_MAGIC = 0xDB4775248B80FB57
_FOOTER_BYTES = 48


def is_tf_checkpoint(prefix):
    """Whether `prefix` names a TensorFlow (V2) checkpoint: its index file is there."""
    return os.path.isfile(prefix + INDEX_SUFFIX)


def _corrupt(prefix, what):
    return errors.DataLossError(None, None, f"TensorFlow checkpoint index {prefix}.index is corrupt: {what}")


def _varint(buf, pos):
    value = shift = 0
    while shift < 64 and pos < len(buf):
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7
    raise ValueError("a malformed varint")


def _fields(buf):
    """(field number, value) of each protobuf field: an int for varints, bytes otherwise."""
    pos = 0
    while pos < len(buf):
        tag, pos = _varint(buf, pos)
        wire = tag & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire in (1, 5):
            size = 8 if wire == 1 else 4
            value, pos = buf[pos : pos + size], pos + size
        elif wire == 2:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos : pos + size], pos + size
        else:
            raise ValueError(f"wire type {wire}")
        if pos > len(buf):
            raise ValueError("a field past the end")
        yield tag >> 3, value


def _block(index, offset, size):
    """The block at (offset, size), checked against its trailer (compression type 0, masked CRC32C)."""
    if offset + size + 5 > len(index):
        raise ValueError("a block handle points past the end of the file")
    kind = index[offset + size]
    if kind != 0:
        raise ValueError(f"a compressed block (type {kind})")
    (masked,) = struct.unpack_from("<I", index, offset + size + 1)
    if tf_record.masked_crc32c(index[offset : offset + size + 1]) != masked:
        raise ValueError("block checksum mismatch")
    return index[offset : offset + size]


def _entries(block):
    """(key, value) of each entry of a block (keys share prefixes with the one before)."""
    if len(block) < 4:
        raise ValueError("a block is too short")
    (restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    end = len(block) - 4 - 4 * restarts
    if end < 0:
        raise ValueError("a block's restart count exceeds it")
    pos, key = 0, b""
    while pos < end:
        shared, pos = _varint(block, pos)
        unshared, pos = _varint(block, pos)
        size, pos = _varint(block, pos)
        if shared > len(key) or pos + unshared + size > end:
            raise ValueError("a malformed block entry")
        key = key[:shared] + block[pos : pos + unshared]
        pos += unshared
        yield key, block[pos : pos + size]
        pos += size


def _shape(buf):
    dims = []
    for number, value in _fields(buf):
        if number == 2:
            dims.append(next((v for n, v in _fields(value) if n == 1), 0))
        elif number == 3 and value:
            raise ValueError("a shape of unknown rank")
    return dims


def list_tensors(prefix):
    """{name: (DType, shape as a list)} of the tensors of TensorFlow checkpoint `prefix` (the slices of
    partitioned variables are listed once, by the variable's name and full shape).

    Raises NotFoundError when there is no index, DataLossError when it is malformed."""
    try:
        with open(prefix + INDEX_SUFFIX, "rb") as f:
            index = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"No TensorFlow checkpoint index at {prefix}.index") from None
    try:
        if len(index) < _FOOTER_BYTES or struct.unpack_from("<Q", index, len(index) - 8)[0] != _TABLE_MAGIC:
            raise ValueError("not a table (no footer magic number)")
        pos = len(index) - _FOOTER_BYTES
        for _ in range(2):  # the metaindex handle, then the index block's
            offset, pos = _varint(index, pos)
            size, pos = _varint(index, pos)
        tensors = {}
        for _, handle in _entries(_block(index, offset, size)):
            block_offset, rest = _varint(handle, 0)
            block_size, _ = _varint(handle, rest)
            for key, value in _entries(_block(index, block_offset, block_size)):
                if not key or key.startswith(b"\x00"):  # the header; a slice of a partitioned variable
                    continue
                fields = dict(_fields(value))
                tensors[key.decode("utf-8", "backslashreplace")] = (
                    dtypes.as_dtype(fields.get(1, 0)),
                    _shape(fields.get(2, b"")),
                )
        return tensors
    except (ValueError, TypeError, KeyError, struct.error) as e:
        raise _corrupt(prefix, e) from None
