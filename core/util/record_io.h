// Sequential file input for the file datasets and the tf.io ops: a buffered
// stream over a local file, optionally decompressed through zlib ("ZLIB" or
// "GZIP", as TensorFlow's compression_type), and the TFRecord reader on top of
// it. TFRecord framing (byte-compatible with TensorFlow's files):
//   uint64 length (little-endian), uint32 masked CRC32C of the length bytes,
//   the data, uint32 masked CRC32C of the data.
// Every error names the file; record errors also name the record's offset.
#ifndef TENSORWEAVE_CORE_UTIL_RECORD_IO_H_
#define TENSORWEAVE_CORE_UTIL_RECORD_IO_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/status.h"

namespace tensorweave {
namespace io {

// The masked CRC32C that TFRecord files store (TensorFlow's crc32c::Mask):
// rotated and offset, so that the CRC of data that embeds CRCs stays useful.
inline uint32_t MaskCrc32c(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t UnmaskCrc32c(uint32_t masked) {
  const uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

// The buffer of a stream opened with buffer_size < 0 (TF's 256 KiB).
constexpr int64_t kDefaultBufferSize = 256 << 10;

// OK for "", "ZLIB" and "GZIP"; anything else is InvalidArgument.
Status ValidateCompressionType(const std::string& compression_type);

// A source of raw bytes (the file, or the zlib stream over it).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes into buf; *got < n only at the end of the source.
  virtual Status Read(char* buf, size_t n, size_t* got) = 0;
};

class InputStream {
 public:
  // Opens `filename` (NotFound if it does not exist) decompressed as
  // `compression_type` says, reading `buffer_size` bytes at a time (< 0:
  // kDefaultBufferSize; 0: a small buffer).
  static Status Open(const std::string& filename,
                     const std::string& compression_type, int64_t buffer_size,
                     std::unique_ptr<InputStream>* out);

  // Appends up to n bytes to *out; fewer only at the end of the stream.
  Status ReadNBytes(size_t n, std::string* out);
  // Skips up to n bytes; *skipped < n only at the end of the stream.
  Status SkipNBytes(uint64_t n, uint64_t* skipped);
  // The next line without its "\n" (and, as TensorFlow's TextLineDataset,
  // without any '\r'); a last line without "\n" counts. *eof at the end.
  Status ReadLine(std::string* line, bool* eof);
  // The offset of the next byte in the (decompressed) stream.
  uint64_t Tell() const { return consumed_; }
  const std::string& filename() const { return filename_; }

 private:
  InputStream(std::string filename, std::unique_ptr<ByteSource> source,
              size_t buffer_size);
  Status Fill();  // refills an empty buffer; limit_ stays 0 at the end

  const std::string filename_;
  std::unique_ptr<ByteSource> source_;
  std::vector<char> buf_;
  size_t pos_ = 0;
  size_t limit_ = 0;
  bool eof_ = false;
  uint64_t consumed_ = 0;
};

// Reads the records of a TFRecord stream in order.
class RecordReader {
 public:
  explicit RecordReader(std::unique_ptr<InputStream> in) : in_(std::move(in)) {}
  // The next record into *record, or *eof at the end (an incomplete header
  // at the end is the end, as TensorFlow's reader). A bad length or data
  // checksum, or a record cut short, is DataLoss naming file and offset.
  Status ReadRecord(std::string* record, bool* eof);

 private:
  std::unique_ptr<InputStream> in_;
};

// Decompresses all of `data` ("ZLIB" or "GZIP"; "" copies); a stream that is
// corrupt or cut short is DataLoss naming `what`.
Status Decompress(const std::string& data, const std::string& compression_type,
                  const std::string& what, std::string* out);

}  // namespace io
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_UTIL_RECORD_IO_H_
