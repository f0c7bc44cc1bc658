#include "core/util/record_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "core/util/crc32c.h"

namespace tensorweave {
namespace io {
namespace {

class FileSource : public ByteSource {
 public:
  FileSource(std::string filename, int fd)
      : filename_(std::move(filename)), fd_(fd) {}
  ~FileSource() override { ::close(fd_); }

  Status Read(char* buf, size_t n, size_t* got) override {
    *got = 0;
    while (*got < n) {
      const ssize_t r = ::read(fd_, buf + *got, n - *got);
      if (r < 0) {
        if (errno == EINTR) continue;
        return errors::DataLoss("Error reading ", filename_, ": ",
                                std::strerror(errno));
      }
      if (r == 0) break;
      *got += static_cast<size_t>(r);
    }
    return Status::OK();
  }

 private:
  const std::string filename_;
  const int fd_;
};

class MemorySource : public ByteSource {
 public:
  explicit MemorySource(const std::string& data) : data_(data) {}
  Status Read(char* buf, size_t n, size_t* got) override {
    *got = std::min(n, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, *got);
    pos_ += *got;
    return Status::OK();
  }

 private:
  const std::string& data_;
  size_t pos_ = 0;
};

// Inflates another source. Concatenated streams (gzip members) are read one
// after another, as zlib's gunzip does.
class ZlibSource : public ByteSource {
 public:
  ZlibSource(std::unique_ptr<ByteSource> input, bool gzip, std::string what,
             size_t buffer_size)
      : input_(std::move(input)),
        gzip_(gzip),
        what_(std::move(what)),
        in_buf_(std::max<size_t>(buffer_size, 1024)) {
    std::memset(&z_, 0, sizeof(z_));
    init_ = inflateInit2(&z_, MAX_WBITS + (gzip_ ? 16 : 0));
  }
  ~ZlibSource() override {
    if (init_ == Z_OK) inflateEnd(&z_);
  }

  Status Read(char* buf, size_t n, size_t* got) override {
    *got = 0;
    if (init_ != Z_OK) {
      return errors::Internal("inflateInit2() failed with error ", init_);
    }
    while (*got < n && !done_) {
      if (z_.avail_in == 0 && !input_eof_) {
        size_t r = 0;
        TW_RETURN_IF_ERROR(input_->Read(in_buf_.data(), in_buf_.size(), &r));
        input_eof_ = r < in_buf_.size();
        z_.next_in = reinterpret_cast<Bytef*>(in_buf_.data());
        z_.avail_in = static_cast<uInt>(r);
      }
      if (z_.avail_in == 0 && input_eof_) {
        if (in_stream_) {
          return errors::DataLoss(what_, ": the ", gzip_ ? "GZIP" : "ZLIB",
                                  " stream is cut short (unexpected end of "
                                  "input after ",
                                  z_.total_out, " bytes)");
        }
        done_ = true;
        break;
      }
      in_stream_ = true;
      z_.next_out = reinterpret_cast<Bytef*>(buf + *got);
      z_.avail_out = static_cast<uInt>(n - *got);
      const int ret = inflate(&z_, Z_NO_FLUSH);
      *got = n - z_.avail_out;
      if (ret == Z_STREAM_END) {
        in_stream_ = false;
        inflateReset(&z_);
      } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
        return errors::DataLoss(what_, ": inflate() failed with error ", ret,
                                ": ", z_.msg ? z_.msg : "corrupt data");
      }
    }
    return Status::OK();
  }

 private:
  std::unique_ptr<ByteSource> input_;
  const bool gzip_;
  const std::string what_;
  std::vector<char> in_buf_;
  z_stream z_;
  int init_;
  bool input_eof_ = false;
  bool in_stream_ = false;  // inside a stream not yet ended
  bool done_ = false;
};

Status WrapCompression(std::unique_ptr<ByteSource> raw,
                       const std::string& compression_type,
                       const std::string& what, size_t buffer_size,
                       std::unique_ptr<ByteSource>* out) {
  TW_RETURN_IF_ERROR(ValidateCompressionType(compression_type));
  if (compression_type.empty()) {
    *out = std::move(raw);
  } else {
    *out = std::make_unique<ZlibSource>(
        std::move(raw), compression_type == "GZIP", what, buffer_size);
  }
  return Status::OK();
}

uint64_t DecodeFixed64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

uint32_t DecodeFixed32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

Status ValidateCompressionType(const std::string& compression_type) {
  if (compression_type.empty() || compression_type == "ZLIB" ||
      compression_type == "GZIP") {
    return Status::OK();
  }
  return errors::InvalidArgument(
      "compression_type must be \"\", \"ZLIB\" or \"GZIP\", got \"",
      compression_type, "\"");
}

InputStream::InputStream(std::string filename,
                         std::unique_ptr<ByteSource> source, size_t buffer_size)
    : filename_(std::move(filename)),
      source_(std::move(source)),
      buf_(buffer_size) {}

Status InputStream::Open(const std::string& filename,
                         const std::string& compression_type,
                         int64_t buffer_size,
                         std::unique_ptr<InputStream>* out) {
  TW_RETURN_IF_ERROR(ValidateCompressionType(compression_type));
  const size_t size = buffer_size < 0    ? kDefaultBufferSize
                      : buffer_size < 64 ? 64
                                         : static_cast<size_t>(buffer_size);
  struct stat st;
  if (::stat(filename.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return errors::FailedPrecondition(filename, "; Is a directory");
  }
  const int fd = ::open(filename.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return errors::NotFound(filename, "; No such file or directory");
    }
    if (errno == EACCES) {
      return errors::PermissionDenied(filename, "; Permission denied");
    }
    return errors::Unknown(filename, "; ", std::strerror(errno));
  }
  std::unique_ptr<ByteSource> source;
  TW_RETURN_IF_ERROR(WrapCompression(std::make_unique<FileSource>(filename, fd),
                                     compression_type, filename, size,
                                     &source));
  out->reset(new InputStream(filename, std::move(source), size));
  return Status::OK();
}

Status InputStream::Fill() {
  pos_ = limit_ = 0;
  if (eof_) return Status::OK();
  size_t got = 0;
  TW_RETURN_IF_ERROR(source_->Read(buf_.data(), buf_.size(), &got));
  limit_ = got;
  if (got < buf_.size()) eof_ = true;
  return Status::OK();
}

Status InputStream::ReadNBytes(size_t n, std::string* out) {
  while (n > 0) {
    if (pos_ == limit_) {
      TW_RETURN_IF_ERROR(Fill());
      if (limit_ == 0) break;
    }
    const size_t k = std::min(n, limit_ - pos_);
    out->append(buf_.data() + pos_, k);
    pos_ += k;
    consumed_ += k;
    n -= k;
  }
  return Status::OK();
}

Status InputStream::SkipNBytes(uint64_t n, uint64_t* skipped) {
  *skipped = 0;
  while (*skipped < n) {
    if (pos_ == limit_) {
      TW_RETURN_IF_ERROR(Fill());
      if (limit_ == 0) break;
    }
    const size_t k =
        static_cast<size_t>(std::min<uint64_t>(n - *skipped, limit_ - pos_));
    pos_ += k;
    consumed_ += k;
    *skipped += k;
  }
  return Status::OK();
}

Status InputStream::ReadLine(std::string* line, bool* eof) {
  line->clear();
  *eof = false;
  bool any = false;
  for (;;) {
    if (pos_ == limit_) {
      TW_RETURN_IF_ERROR(Fill());
      if (limit_ == 0) {
        *eof = !any;
        return Status::OK();
      }
    }
    any = true;
    const char* start = buf_.data() + pos_;
    const size_t avail = limit_ - pos_;
    const char* nl = static_cast<const char*>(std::memchr(start, '\n', avail));
    const size_t k = nl ? static_cast<size_t>(nl - start) : avail;
    for (size_t i = 0; i < k; ++i) {
      if (start[i] != '\r') line->push_back(start[i]);
    }
    const size_t used = nl ? k + 1 : k;
    pos_ += used;
    consumed_ += used;
    if (nl) return Status::OK();
  }
}

Status RecordReader::ReadRecord(std::string* record, bool* eof) {
  record->clear();
  *eof = false;
  const uint64_t offset = in_->Tell();
  std::string header;
  TW_RETURN_IF_ERROR(in_->ReadNBytes(12, &header));
  if (header.size() < 12) {
    *eof = true;
    return Status::OK();
  }
  if (MaskCrc32c(Crc32c(header.data(), 8)) != DecodeFixed32(&header[8])) {
    return errors::DataLoss("corrupted record at ", offset, " in ",
                            in_->filename(),
                            " (the length's checksum does not match; is this "
                            "even a TFRecord file?)");
  }
  const uint64_t length = DecodeFixed64(header.data());
  // Read the data in pieces, so that a corrupt huge length ends in a cut
  // short record, not an attempt to allocate it.
  uint64_t left = length + 4;
  while (left > 0) {
    const size_t piece = static_cast<size_t>(std::min<uint64_t>(left, 1 << 24));
    const size_t before = record->size();
    TW_RETURN_IF_ERROR(in_->ReadNBytes(piece, record));
    if (record->size() - before < piece) {
      return errors::DataLoss("truncated record at ", offset, " in ",
                              in_->filename(), " (the record claims ", length,
                              " bytes; the file ends before them)");
    }
    left -= piece;
  }
  const uint32_t stored = DecodeFixed32(record->data() + length);
  record->resize(length);
  if (MaskCrc32c(Crc32c(record->data(), length)) != stored) {
    // TF names the data's offset here, the record's for the length.
    return errors::DataLoss("corrupted record at ", offset + 12, " in ",
                            in_->filename(),
                            " (the data's checksum does not match)");
  }
  return Status::OK();
}

Status Decompress(const std::string& data, const std::string& compression_type,
                  const std::string& what, std::string* out) {
  out->clear();
  if (compression_type.empty()) {
    TW_RETURN_IF_ERROR(ValidateCompressionType(compression_type));
    *out = data;
    return Status::OK();
  }
  std::unique_ptr<ByteSource> source;
  TW_RETURN_IF_ERROR(WrapCompression(std::make_unique<MemorySource>(data),
                                     compression_type, what, 64 << 10,
                                     &source));
  std::vector<char> buf(64 << 10);
  for (;;) {
    size_t got = 0;
    TW_RETURN_IF_ERROR(source->Read(buf.data(), buf.size(), &got));
    out->append(buf.data(), got);
    if (got < buf.size()) break;
  }
  return Status::OK();
}

}  // namespace io
}  // namespace tensorweave
