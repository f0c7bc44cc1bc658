#include "core/util/checkpoint_format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>

#include "core/util/crc32c.h"
#include "core/util/json.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "checkpoint files are little-endian; big-endian hosts are unsupported"
#endif

namespace tensorweave {
namespace checkpoint {
namespace {

constexpr const char* kFormat = "tensorweave.checkpoint";
constexpr int64_t kVersion = 1;
constexpr const char* kMetadataKey = "__metadata__";

struct DtypeName {
  DataType dtype;
  const char* name;
};
constexpr DtypeName kDtypeNames[] = {
    {DT_FLOAT, "F32"},     {DT_DOUBLE, "F64"},      {DT_INT32, "I32"},
    {DT_INT64, "I64"},     {DT_UINT8, "U8"},        {DT_BOOL, "BOOL"},
    {DT_INT8, "I8"},       {DT_INT16, "I16"},       {DT_UINT16, "U16"},
    {DT_UINT32, "U32"},    {DT_UINT64, "U64"},      {DT_HALF, "F16"},
    {DT_COMPLEX64, "C64"}, {DT_COMPLEX128, "C128"},
};

bool DtypeFromSafetensors(const std::string& name, DataType* dtype) {
  for (const auto& d : kDtypeNames) {
    if (name == d.name) {
      *dtype = d.dtype;
      return true;
    }
  }
  return false;
}

std::string Dirname(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status IoError(const std::string& what, const std::string& path) {
  int err = errno;
  std::string message = what + " " + path + ": " + std::strerror(err);
  if (err == ENOENT) return errors::NotFound(message);
  if (err == EACCES || err == EPERM) {
    return Status(Code::kPermissionDenied, message);
  }
  return errors::Unavailable(message);
}

Status MakeDirs(const std::string& dir) {
  if (dir.empty() || dir == "." || dir == "/") return Status::OK();
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::OK();
    return errors::FailedPrecondition(dir, " exists and is not a directory");
  }
  TW_RETURN_IF_ERROR(MakeDirs(Dirname(dir)));
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return IoError("cannot create directory", dir);
  }
  return Status::OK();
}

// A file written under a temporary name and renamed into place once all of
// it is on disk.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path) : path_(std::move(path)) {
    static std::atomic<uint64_t> counter{0};
    tmp_path_ = path_ + ".tmp." + std::to_string(getpid()) + "." +
                std::to_string(counter++);
  }
  ~AtomicFile() {
    if (fd_ >= 0) close(fd_);
    if (!committed_) unlink(tmp_path_.c_str());
  }
  Status Open() {
    fd_ =
        open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return fd_ >= 0 ? Status::OK() : IoError("cannot create", tmp_path_);
  }
  Status Append(const void* data, size_t n) {
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
      ssize_t w = write(fd_, p, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        return IoError("cannot write", tmp_path_);
      }
      p += w;
      n -= static_cast<size_t>(w);
    }
    return Status::OK();
  }
  Status Commit() {
    if (fsync(fd_) != 0) return IoError("cannot sync", tmp_path_);
    if (close(fd_) != 0) {
      fd_ = -1;
      return IoError("cannot close", tmp_path_);
    }
    fd_ = -1;
    if (rename(tmp_path_.c_str(), path_.c_str()) != 0) {
      return IoError("cannot rename to " + path_ + ":", tmp_path_);
    }
    committed_ = true;
    // Make the rename durable.
    int dir = open(Dirname(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      fsync(dir);
      close(dir);
    }
    return Status::OK();
  }

 private:
  std::string path_, tmp_path_;
  int fd_ = -1;
  bool committed_ = false;
};

Status ReadWholeFile(const std::string& path, std::string* out) {
  // O_NONBLOCK: a FIFO (or a device) in place of a checkpoint file must be
  // refused, not block the reader until some writer comes.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return IoError("cannot open", path);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    Status s = IoError("cannot stat", path);
    close(fd);
    return s;
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    const char* kind = S_ISFIFO(st.st_mode)   ? "a FIFO"
                       : S_ISDIR(st.st_mode)  ? "a directory"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "a device";
    return errors::DataLoss("checkpoint file ", path,
                            " is not a regular file (it is ", kind, ")");
  }
  // Reads of a regular file do not block; clear the flag all the same.
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  out->clear();
  char buf[1 << 16];
  while (true) {
    ssize_t r = read(fd, buf, sizeof(buf));
    if (r < 0) {
      if (errno == EINTR) continue;
      Status s = IoError("cannot read", path);
      close(fd);
      return s;
    }
    if (r == 0) break;
    out->append(buf, static_cast<size_t>(r));
  }
  close(fd);
  return Status::OK();
}

Json ShapeJson(const TensorShape& shape) {
  std::vector<Json> dims;
  for (int64_t d : shape.dims()) dims.push_back(Json::Int(d));
  return Json::Array(std::move(dims));
}

// One tensor as the data file's header describes it.
struct Entry {
  DataType dtype;
  TensorShape shape;
  uint64_t begin, end;  // offsets in the data section
};

Status ParseShape(const Json* json, TensorShape* shape) {
  if (json == nullptr || !json->is_array() || json->items().size() > 64) {
    return errors::InvalidArgument("bad shape");
  }
  std::vector<int64_t> dims;
  for (const Json& d : json->items()) {
    if (!d.is_int() || d.int_value() < 0) {
      return errors::InvalidArgument("bad dimension");
    }
    dims.push_back(d.int_value());
  }
  return TensorShape::Build(dims, shape);
}

Status ParseHeader(const std::string& file, const std::string& data,
                   std::map<std::string, Entry>* entries,
                   uint64_t* data_start) {
  auto corrupt = [&](const std::string& what) {
    return errors::DataLoss("checkpoint data file ", file,
                            " is corrupt: ", what);
  };
  if (data.size() < 8) return corrupt("shorter than its 8-byte header length");
  uint64_t header_len = 0;
  std::memcpy(&header_len, data.data(), 8);
  if (header_len > data.size() - 8) {
    return corrupt("header length " + std::to_string(header_len) +
                   " exceeds the file size " + std::to_string(data.size()));
  }
  Json header;
  Status s = Json::Parse(data.substr(8, header_len), &header);
  if (!s.ok()) return corrupt("header: " + s.message());
  if (!header.is_object()) return corrupt("header is not a JSON object");
  *data_start = 8 + header_len;
  const uint64_t data_len = data.size() - *data_start;
  for (const auto& [name, value] : header.members()) {
    if (name == kMetadataKey) continue;
    Entry e;
    const Json* dtype = value.Find("dtype");
    const Json* offsets = value.Find("data_offsets");
    if (dtype == nullptr || !dtype->is_string() ||
        !DtypeFromSafetensors(dtype->string_value(), &e.dtype)) {
      return corrupt("tensor '" + name + "' has a bad or unsupported dtype");
    }
    if (!ParseShape(value.Find("shape"), &e.shape).ok()) {
      return corrupt("tensor '" + name + "' has a bad shape");
    }
    if (offsets == nullptr || !offsets->is_array() ||
        offsets->items().size() != 2 || !offsets->items()[0].is_int() ||
        !offsets->items()[1].is_int() || offsets->items()[0].int_value() < 0 ||
        offsets->items()[1].int_value() < offsets->items()[0].int_value()) {
      return corrupt("tensor '" + name + "' has bad data_offsets");
    }
    e.begin = static_cast<uint64_t>(offsets->items()[0].int_value());
    e.end = static_cast<uint64_t>(offsets->items()[1].int_value());
    if (e.end > data_len) {
      return corrupt("tensor '" + name + "' ends at byte " +
                     std::to_string(e.end) + " of a " +
                     std::to_string(data_len) + "-byte data section");
    }
    uint64_t want =
        static_cast<uint64_t>(e.shape.num_elements()) * DataTypeSize(e.dtype);
    if (e.end - e.begin != want) {
      return corrupt("tensor '" + name + "' has " +
                     std::to_string(e.end - e.begin) + " bytes, its shape " +
                     e.shape.ToString() + " needs " + std::to_string(want));
    }
    entries->emplace(name, e);
  }
  return Status::OK();
}

}  // namespace

bool SafetensorsDtype(DataType dtype, std::string* name) {
  for (const auto& d : kDtypeNames) {
    if (d.dtype == dtype) {
      *name = d.name;
      return true;
    }
  }
  return false;
}

Status Write(const std::string& prefix, const std::vector<std::string>& names,
             const std::vector<Tensor>& tensors) {
  if (names.size() != tensors.size()) {
    return errors::InvalidArgument("got ", names.size(), " names for ",
                                   tensors.size(), " tensors");
  }
  if (prefix.empty() || prefix.back() == '/') {
    return errors::InvalidArgument("bad checkpoint prefix '", prefix, "'");
  }
  // Tensors in name order, contiguous in the data section.
  std::map<std::string, const Tensor*> by_name;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty() || names[i] == kMetadataKey) {
      return errors::InvalidArgument("bad tensor name '", names[i], "'");
    }
    if (!by_name.emplace(names[i], &tensors[i]).second) {
      return errors::InvalidArgument("tensor name '", names[i],
                                     "' is given twice");
    }
  }
  Json header = Json::Object();
  Json manifest_tensors = Json::Object();
  uint64_t offset = 0;
  for (const auto& [name, tensor] : by_name) {
    std::string dtype;
    if (!SafetensorsDtype(tensor->dtype(), &dtype)) {
      return errors::Unimplemented("tensor '", name, "' is ",
                                   DataTypeName(tensor->dtype()),
                                   ", which checkpoints cannot hold");
    }
    Json entry = Json::Object();
    entry.Set("dtype", Json::String(dtype));
    entry.Set("shape", ShapeJson(tensor->shape()));
    entry.Set("data_offsets",
              Json::Array({Json::Int(offset),
                           Json::Int(offset + tensor->num_bytes())}));
    header.Set(name, entry);
    Json described = Json::Object();
    described.Set("dtype", Json::String(dtype));
    described.Set("shape", ShapeJson(tensor->shape()));
    described.Set("crc32c",
                  Json::Int(Crc32c(tensor->raw_data(), tensor->num_bytes())));
    manifest_tensors.Set(name, described);
    offset += tensor->num_bytes();
  }
  Json metadata = Json::Object();
  metadata.Set("format", Json::String(kFormat));
  header.Set(kMetadataKey, metadata);
  std::string header_text = header.Dump();
  // Pad with spaces so that the data starts 8-byte aligned.
  header_text.append((8 - header_text.size() % 8) % 8, ' ');
  uint64_t header_len = header_text.size();

  TW_RETURN_IF_ERROR(MakeDirs(Dirname(prefix)));
  const std::string data_path = prefix + kDataSuffix;
  AtomicFile data_file(data_path);
  TW_RETURN_IF_ERROR(data_file.Open());
  uint32_t crc = Crc32c(&header_len, 8);
  crc = Crc32cExtend(crc, header_text.data(), header_text.size());
  TW_RETURN_IF_ERROR(data_file.Append(&header_len, 8));
  TW_RETURN_IF_ERROR(data_file.Append(header_text.data(), header_text.size()));
  for (const auto& [name, tensor] : by_name) {
    crc = Crc32cExtend(crc, tensor->raw_data(), tensor->num_bytes());
    TW_RETURN_IF_ERROR(
        data_file.Append(tensor->raw_data(), tensor->num_bytes()));
  }
  TW_RETURN_IF_ERROR(data_file.Commit());

  Json manifest = Json::Object();
  manifest.Set("format", Json::String(kFormat));
  manifest.Set("version", Json::Int(kVersion));
  manifest.Set("data_file", Json::String(Basename(data_path)));
  manifest.Set("data_bytes", Json::Int(8 + header_len + offset));
  manifest.Set("data_crc32c", Json::Int(crc));
  manifest.Set("tensors", manifest_tensors);
  std::string manifest_text = manifest.Dump() + "\n";
  AtomicFile manifest_file(prefix + kManifestSuffix);
  TW_RETURN_IF_ERROR(manifest_file.Open());
  TW_RETURN_IF_ERROR(
      manifest_file.Append(manifest_text.data(), manifest_text.size()));
  return manifest_file.Commit();
}

Status Read(const std::string& prefix,
            const std::vector<TensorRequest>& requests,
            std::vector<Tensor>* out) {
  out->clear();
  const std::string manifest_path = prefix + kManifestSuffix;
  std::string manifest_text;
  Status s = ReadWholeFile(manifest_path, &manifest_text);
  if (s.code() == Code::kNotFound) {
    return errors::NotFound("no checkpoint at prefix '", prefix, "' (",
                            manifest_path, " does not exist)");
  }
  TW_RETURN_IF_ERROR(s);
  auto bad_manifest = [&](const std::string& what) {
    return errors::DataLoss("checkpoint manifest ", manifest_path,
                            " is corrupt: ", what);
  };
  Json manifest;
  s = Json::Parse(manifest_text, &manifest);
  if (!s.ok()) return bad_manifest(s.message());
  const Json* format = manifest.Find("format");
  const Json* version = manifest.Find("version");
  const Json* data_file = manifest.Find("data_file");
  const Json* data_bytes = manifest.Find("data_bytes");
  const Json* data_crc = manifest.Find("data_crc32c");
  const Json* tensors = manifest.Find("tensors");
  if (format == nullptr || !format->is_string() ||
      format->string_value() != kFormat) {
    return bad_manifest("not a tensorweave checkpoint manifest");
  }
  if (version == nullptr || !version->is_int() ||
      version->int_value() != kVersion) {
    return bad_manifest("unsupported version");
  }
  if (data_file == nullptr || !data_file->is_string() ||
      data_file->string_value().empty() ||
      data_file->string_value().find('/') != std::string::npos ||
      data_bytes == nullptr || !data_bytes->is_int() || data_crc == nullptr ||
      !data_crc->is_int() || tensors == nullptr || !tensors->is_object()) {
    return bad_manifest("missing or malformed fields");
  }
  const std::string data_path =
      Dirname(prefix) + "/" + data_file->string_value();
  std::string data;
  s = ReadWholeFile(data_path, &data);
  if (s.code() == Code::kNotFound) {
    return errors::DataLoss("checkpoint data file ", data_path, " named by ",
                            manifest_path, " is missing");
  }
  TW_RETURN_IF_ERROR(s);
  if (static_cast<int64_t>(data.size()) != data_bytes->int_value()) {
    return errors::DataLoss(
        "checkpoint data file ", data_path, " is ",
        static_cast<int64_t>(data.size()) < data_bytes->int_value()
            ? "truncated"
            : "longer than written",
        ": it has ", data.size(), " bytes, the manifest says ",
        data_bytes->int_value());
  }
  std::map<std::string, Entry> entries;
  uint64_t data_start = 0;
  const bool file_crc_ok = Crc32c(data.data(), data.size()) ==
                           static_cast<uint32_t>(data_crc->int_value());
  s = ParseHeader(data_path, data, &entries, &data_start);
  if (!s.ok()) return s;
  // The manifest and the header must describe the same tensors, and every
  // tensor's bytes must match its checksum.
  for (const auto& [name, described] : tensors->members()) {
    auto it = entries.find(name);
    const Json* crc = described.Find("crc32c");
    const Json* dtype = described.Find("dtype");
    TensorShape shape;
    if (crc == nullptr || !crc->is_int() || dtype == nullptr ||
        !dtype->is_string() ||
        !ParseShape(described.Find("shape"), &shape).ok()) {
      return bad_manifest("tensor '" + name + "' is malformed");
    }
    std::string entry_dtype;
    if (it == entries.end() ||
        !SafetensorsDtype(it->second.dtype, &entry_dtype) ||
        entry_dtype != dtype->string_value() || shape != it->second.shape) {
      return errors::DataLoss("checkpoint data file ", data_path,
                              " does not match its manifest for tensor '", name,
                              "'");
    }
    const Entry& e = it->second;
    if (Crc32c(data.data() + data_start + e.begin, e.end - e.begin) !=
        static_cast<uint32_t>(crc->int_value())) {
      return errors::DataLoss("checksum mismatch for tensor '", name,
                              "' in checkpoint data file ", data_path,
                              ": the data is corrupted");
    }
  }
  if (entries.size() != tensors->members().size()) {
    return errors::DataLoss("checkpoint data file ", data_path,
                            " holds tensors its manifest does not list");
  }
  if (!file_crc_ok) {
    return errors::DataLoss("checksum mismatch for checkpoint data file ",
                            data_path, ": the file is corrupted");
  }
  // What was asked for.
  std::vector<Tensor> result;
  for (const TensorRequest& r : requests) {
    auto it = entries.find(r.name);
    if (it == entries.end()) {
      return errors::NotFound("tensor '", r.name, "' not found in checkpoint ",
                              prefix, " (", data_path, ")");
    }
    const Entry& e = it->second;
    if (e.dtype != r.dtype) {
      return errors::InvalidArgument("tensor '", r.name, "' in checkpoint ",
                                     data_path, " is ", DataTypeName(e.dtype),
                                     ", but ", DataTypeName(r.dtype),
                                     " was asked for");
    }
    if (!r.shape.IsCompatibleWith(e.shape)) {
      return errors::InvalidArgument(
          "tensor '", r.name, "' in checkpoint ", data_path, " has shape ",
          e.shape.ToString(), ", incompatible with the expected shape ",
          r.shape.ToString());
    }
    Tensor t(e.dtype, e.shape);
    if (t.num_bytes() > 0) {
      std::memcpy(t.raw_data(), data.data() + data_start + e.begin,
                  t.num_bytes());
    }
    result.push_back(std::move(t));
  }
  *out = std::move(result);
  return Status::OK();
}

}  // namespace checkpoint
}  // namespace tensorweave
