"""TFRecord files (TensorFlow v1's `tf.python_io` / `tf.io`): a sequence of records, each
  uint64 length (little-endian), uint32 masked CRC32C of the length bytes, the data, uint32 masked CRC32C of
  the data,
optionally compressed as a whole (ZLIB or GZIP). Byte-compatible with TensorFlow's files; a record whose
checksum or length does not check out is a DataLossError, never returned.

The CRC32C here is table-driven Python (about a few MB/s): fine for examples and tests; bulk input belongs in
the C++ runtime.
"""

import gzip
import io
import struct
import zlib

from tensorweave._src.framework import errors

_MASK_DELTA = 0xA282EAD8


def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c(data, crc=0):
    """The CRC32C (Castagnoli) of `data`."""
    crc ^= 0xFFFFFFFF
    table = _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked_crc32c(data):
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


class TFRecordCompressionType:
    """The compression of a TFRecord file."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_NAMES = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB", TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """How a TFRecord file is compressed: compression_type is a TFRecordCompressionType or "", "ZLIB", "GZIP"
    (the zlib tuning arguments are accepted; compression_level is used)."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(
        self,
        compression_type=None,
        flush_mode=None,
        input_buffer_size=None,
        output_buffer_size=None,
        window_bits=None,
        compression_level=None,
        compression_method=None,
        mem_level=None,
        compression_strategy=None,
    ):
        if compression_type in (None, "", TFRecordCompressionType.NONE):
            compression_type = ""
        elif compression_type in ("ZLIB", TFRecordCompressionType.ZLIB):
            compression_type = "ZLIB"
        elif compression_type in ("GZIP", TFRecordCompressionType.GZIP):
            compression_type = "GZIP"
        else:
            raise ValueError(f'compression_type must be "", "ZLIB" or "GZIP", got {compression_type!r}')
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """ "", "ZLIB" or "GZIP" for options (TFRecordOptions, a compression type, or None)."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return TFRecordOptions(options).compression_type


def _compression(options):
    return TFRecordOptions.get_compression_type_string(options)


class TFRecordWriter:
    """Writes records (bytes) to a TFRecord file.

    Example:
      >>> import os, tempfile
      >>> import tensorweave as tw
      >>> path = os.path.join(tempfile.mkdtemp(), "data.tfrecord")
      >>> with tw.python_io.TFRecordWriter(path) as writer:
      ...     writer.write(b"first")
      ...     writer.write(b"second")
      >>> list(tw.python_io.tf_record_iterator(path))
      [b'first', b'second']
    """

    def __init__(self, path, options=None):
        self._path = path
        self._compression = _compression(options)
        level = getattr(options, "compression_level", None)
        self._level = -1 if level is None else level
        try:
            self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
        except IsADirectoryError:
            raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
        if self._compression == "GZIP":
            self._stream = gzip.GzipFile(
                fileobj=self._file, mode="wb", compresslevel=9 if self._level < 0 else self._level, mtime=0
            )
        else:
            self._stream = self._file
        self._zlib = zlib.compressobj(self._level) if self._compression == "ZLIB" else None

    def _raw_write(self, data):
        if self._zlib is not None:
            data = self._zlib.compress(data)
        self._stream.write(data)

    def write(self, record):
        """Appends one record (bytes, or a str encoded as UTF-8)."""
        if self._file is None:
            raise errors.FailedPreconditionError(None, None, f"{self._path}: the writer is closed")
        if isinstance(record, str):
            record = record.encode()
        record = bytes(record)
        header = struct.pack("<Q", len(record))
        self._raw_write(
            header + struct.pack("<I", masked_crc32c(header)) + record + struct.pack("<I", masked_crc32c(record))
        )

    def flush(self):
        if self._zlib is not None:
            self._stream.write(self._zlib.flush(zlib.Z_SYNC_FLUSH))
        self._stream.flush()
        if self._stream is not self._file:
            self._file.flush()

    def close(self):
        if self._file is None:
            return
        if self._zlib is not None:
            self._stream.write(self._zlib.flush())
        if self._stream is not self._file:
            self._stream.close()
        self._file.close()
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.close()


def _decompressed(path, compression):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except IsADirectoryError:  # TF's class for reading a directory
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    try:
        if compression == "GZIP":
            return gzip.GzipFile(fileobj=io.BytesIO(data)).read()
        if compression == "ZLIB":
            return zlib.decompress(data)
    except (OSError, zlib.error, EOFError) as e:
        raise errors.DataLossError(None, None, f"{path}: not a {compression} stream: {e}") from None
    return data


def tf_record_iterator(path, options=None):
    """Yields the records of a TFRecord file as bytes; DataLossError at a corrupted or truncated record."""
    data = _decompressed(path, _compression(options))
    offset = 0
    while offset < len(data):
        if len(data) - offset < 12:
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {path}")
        header = data[offset : offset + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", data[offset + 8 : offset + 12])
        if masked_crc32c(header) != header_crc:
            raise errors.DataLossError(None, None, f"corrupted record at {offset} in {path}")
        start = offset + 12
        end = start + length
        if end + 4 > len(data):
            raise errors.DataLossError(None, None, f"truncated record at {offset} in {path}")
        record = data[start:end]
        (data_crc,) = struct.unpack("<I", data[end : end + 4])
        if masked_crc32c(record) != data_crc:
            raise errors.DataLossError(None, None, f"corrupted record at {offset} in {path}")
        yield record
        offset = end + 4
