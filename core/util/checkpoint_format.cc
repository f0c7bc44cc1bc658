#include "core/util/checkpoint_format.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string_view>

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
    {DT_COMPLEX64, "C64"}, {DT_COMPLEX128, "C128"}, {DT_BFLOAT16, "BF16"},
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
    const uint64_t elements = static_cast<uint64_t>(e.shape.num_elements());
    const uint64_t item_size = DataTypeSize(e.dtype);
    if (item_size != 0 && elements > UINT64_MAX / item_size) {
      // (the product would wrap around to a small size that the offsets match)
      return corrupt("tensor '" + name + "' has shape " + e.shape.ToString() +
                     ", more than 2^64 bytes");
    }
    const uint64_t want = elements * item_size;
    if (e.end - e.begin != want) {
      return corrupt("tensor '" + name + "' has " +
                     std::to_string(e.end - e.begin) + " bytes, its shape " +
                     e.shape.ToString() + " needs " + std::to_string(want));
    }
    entries->emplace(name, e);
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// TensorFlow's checkpoints (format V2, "tensor bundles"), read-only. Prefix P
// is P.index, a table in LevelDB's format (prefix-compressed sorted keys in
// checksummed blocks; a 48-byte footer gives the index block), mapping "" to
// a BundleHeaderProto and each tensor name to a BundleEntryProto; and the
// data files P.data-SSSSS-of-NNNNN holding the bytes. Read() takes them when
// P has no manifest, so that Saver.restore, init_from_checkpoint and
// NewCheckpointReader read what TensorFlow wrote. Every length, offset and
// checksum is checked: the files are untrusted input.

constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;
constexpr size_t kFooterBytes = 48;

uint32_t UnmaskCrc(uint32_t masked) {
  const uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

// Bounds-checked reads of varints, fixed-size integers and byte runs.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}
  bool empty() const { return data_.empty(); }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64 && !data_.empty(); shift += 7) {
      const uint8_t b = static_cast<uint8_t>(data_[0]);
      data_.remove_prefix(1);
      *v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool Bytes(uint64_t n, std::string_view* out) {
    if (n > data_.size()) return false;
    *out = data_.substr(0, n);
    data_.remove_prefix(n);
    return true;
  }
  bool Fixed32(uint32_t* v) {
    std::string_view b;
    if (!Bytes(4, &b)) return false;
    std::memcpy(v, b.data(), 4);
    return true;
  }

 private:
  std::string_view data_;
};

// One protobuf wire-format field: a varint value, or the bytes of a
// length-delimited or fixed-size one.
struct ProtoField {
  uint64_t number = 0;
  uint64_t varint = 0;
  std::string_view bytes;
};

// False at the end of `r` or on a malformed field.
bool NextField(ByteReader* r, ProtoField* f, bool* ok) {
  *ok = true;
  if (r->empty()) return false;
  uint64_t tag;
  *ok = r->Varint(&tag);
  f->number = tag >> 3;
  switch (tag & 7) {
    case 0:
      *ok = *ok && r->Varint(&f->varint);
      break;
    case 1:
      *ok = *ok && r->Bytes(8, &f->bytes);
      break;
    case 2: {
      uint64_t n = 0;
      *ok = *ok && r->Varint(&n) && r->Bytes(n, &f->bytes);
      break;
    }
    case 5:
      *ok = *ok && r->Bytes(4, &f->bytes);
      break;
    default:
      *ok = false;
  }
  return *ok;
}

// A BundleEntryProto: where a tensor's bytes are, or (a partitioned
// variable) the slices it was saved in.
struct BundleEntry {
  DataType dtype = DT_INVALID;
  std::vector<int64_t> dims;
  uint64_t shard = 0, offset = 0, size = 0;
  uint32_t masked_crc = 0;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> slices;  // start,len
};

bool ParseShapeProto(std::string_view bytes, std::vector<int64_t>* dims) {
  ByteReader r(bytes);
  ProtoField f;
  bool ok;
  while (NextField(&r, &f, &ok)) {
    if (f.number == 3 && f.varint != 0) return false;  // unknown rank
    if (f.number != 2) continue;
    ByteReader dim(f.bytes);
    ProtoField d;
    int64_t size = 0;
    while (NextField(&dim, &d, &ok)) {
      if (d.number == 1) size = static_cast<int64_t>(d.varint);
    }
    if (!ok || size < 0) return false;
    dims->push_back(size);
  }
  return ok;
}

bool ParseSliceProto(std::string_view bytes,
                     std::vector<std::pair<int64_t, int64_t>>* extents) {
  ByteReader r(bytes);
  ProtoField f;
  bool ok;
  while (NextField(&r, &f, &ok)) {
    if (f.number != 1) continue;
    ByteReader extent(f.bytes);
    ProtoField e;
    int64_t start = 0, length = -1;  // no length: the whole dimension
    while (NextField(&extent, &e, &ok)) {
      if (e.number == 1) start = static_cast<int64_t>(e.varint);
      if (e.number == 2) length = static_cast<int64_t>(e.varint);
    }
    if (!ok) return false;
    extents->emplace_back(start, length);
  }
  return ok;
}

bool ParseBundleEntry(std::string_view bytes, BundleEntry* e) {
  ByteReader r(bytes);
  ProtoField f;
  bool ok;
  while (NextField(&r, &f, &ok)) {
    switch (f.number) {
      case 1:
        if (f.varint > INT32_MAX ||
            !IsValidDataType(static_cast<int>(f.varint)))
          return false;
        e->dtype = static_cast<DataType>(f.varint);
        break;
      case 2:
        if (!ParseShapeProto(f.bytes, &e->dims)) return false;
        break;
      case 3:
        e->shard = f.varint;
        break;
      case 4:
        e->offset = f.varint;
        break;
      case 5:
        e->size = f.varint;
        break;
      case 6:
        if (f.bytes.size() != 4) return false;
        std::memcpy(&e->masked_crc, f.bytes.data(), 4);
        break;
      case 7:
        e->slices.emplace_back();
        if (!ParseSliceProto(f.bytes, &e->slices.back())) return false;
        break;
      default:
        break;
    }
  }
  return ok && e->dtype != DT_INVALID;
}

// TensorFlow's index keys of a saved slice ("OrderedCode"): 0, the name,
// the rank, then each extent's start and length (-1 for a whole dimension).
void AppendOrderedNumber(uint64_t v, std::string* out) {
  std::string bytes;
  for (; v != 0; v >>= 8) bytes.insert(bytes.begin(), static_cast<char>(v));
  out->push_back(static_cast<char>(bytes.size()));
  *out += bytes;
}

void AppendOrderedSignedNumber(int64_t v, std::string* out) {
  const uint64_t magnitude = v < 0 ? ~static_cast<uint64_t>(v) : v;
  if (magnitude < 64) {
    out->push_back(static_cast<char>(0x80 ^ static_cast<uint8_t>(v)));
    return;
  }
  // n bytes hold 7n - 1 bits of magnitude; the first bits of the big-endian,
  // sign-extended value are flipped into n ones (a length header).
  int n = 2;
  while (n < 10 && magnitude >= (uint64_t{1} << (7 * n - 1))) ++n;
  uint8_t buf[10];
  for (int i = 0; i < 10; ++i) {
    const int shift = 8 * (9 - i);
    buf[i] = shift >= 64
                 ? (v < 0 ? 0xff : 0x00)
                 : static_cast<uint8_t>(static_cast<uint64_t>(v) >> shift);
  }
  uint8_t* begin = buf + 10 - n;
  const int ones = n;  // header bits, across one or two bytes
  begin[0] ^= static_cast<uint8_t>(0xff00 >> std::min(ones, 8));
  if (ones > 8) begin[1] ^= static_cast<uint8_t>(0xff00 >> (ones - 8));
  out->append(reinterpret_cast<const char*>(begin), n);
}

std::string SliceKey(const std::string& name,
                     const std::vector<std::pair<int64_t, int64_t>>& slice) {
  std::string key;
  AppendOrderedNumber(0, &key);
  for (char c : name) {
    key.push_back(c);
    if (c == '\0') key.push_back('\xff');
    if (c == '\xff') key.push_back('\0');
  }
  key += std::string("\0\1", 2);
  AppendOrderedNumber(slice.size(), &key);
  for (const auto& [start, length] : slice) {
    AppendOrderedSignedNumber(start, &key);
    AppendOrderedSignedNumber(length, &key);
  }
  return key;
}

// Copies the values of `src` (region `src_box` of the full tensor) that lie
// in `dst_box` to their places in `dst` (region `dst_box`), a row of the
// last dimension at a time; returns how many it copied. Both boxes have the
// same full shape.
int64_t CopyOverlap(DataType dtype, const void* src, const TensorSlice& src_box,
                    const TensorSlice& dst_box, void* dst) {
  const size_t rank = dst_box.start.size();
  if (rank == 0) {
    if (dtype == DT_STRING) {
      *static_cast<std::string*>(dst) = *static_cast<const std::string*>(src);
    } else {
      std::memcpy(dst, src, DataTypeSize(dtype));
    }
    return 1;
  }
  if (src_box.start == dst_box.start && src_box.length == dst_box.length) {
    int64_t n = 1;
    for (int64_t length : dst_box.length) n *= length;
    if (n > 0 && dtype == DT_STRING) {
      std::copy_n(static_cast<const std::string*>(src), n,
                  static_cast<std::string*>(dst));
    } else if (n > 0) {
      std::memcpy(dst, src, n * DataTypeSize(dtype));
    }
    return n;
  }
  std::vector<int64_t> lo(rank), hi(rank);
  for (size_t d = 0; d < rank; ++d) {
    lo[d] = std::max(src_box.start[d], dst_box.start[d]);
    hi[d] = std::min(src_box.start[d] + src_box.length[d],
                     dst_box.start[d] + dst_box.length[d]);
    if (hi[d] <= lo[d]) return 0;
  }
  const int64_t row = hi[rank - 1] - lo[rank - 1];
  const size_t item = dtype == DT_STRING ? 0 : DataTypeSize(dtype);
  std::vector<int64_t> index(lo);  // the row's first element, full-tensor
  int64_t copied = 0;
  while (true) {
    int64_t s = 0, t = 0;  // its offsets in src and dst
    for (size_t d = 0; d < rank; ++d) {
      s = s * src_box.length[d] + index[d] - src_box.start[d];
      t = t * dst_box.length[d] + index[d] - dst_box.start[d];
    }
    if (dtype == DT_STRING) {
      std::copy_n(static_cast<const std::string*>(src) + s, row,
                  static_cast<std::string*>(dst) + t);
    } else {
      std::memcpy(static_cast<char*>(dst) + t * item,
                  static_cast<const char*>(src) + s * item, row * item);
    }
    copied += row;
    size_t d = rank - 1;
    while (d > 0 && ++index[d - 1] == hi[d - 1]) {
      index[d - 1] = lo[d - 1];
      --d;
    }
    if (d == 0) return copied;
  }
}

// Whether two slices of one full shape share values.
bool Overlaps(const TensorSlice& a, const TensorSlice& b) {
  for (size_t d = 0; d < a.start.size(); ++d) {
    if (std::max(a.start[d], b.start[d]) >=
        std::min(a.start[d] + a.length[d], b.start[d] + b.length[d])) {
      return false;
    }
  }
  return true;
}

// The region a request wants of a tensor of `full` shape: all of it, or the
// slice it names, which must be of that full shape.
Status RequestedBox(const TensorRequest& request, const TensorShape& full,
                    const std::string& where, TensorSlice* box) {
  if (request.slice.empty()) {
    *box = TensorSlice::Whole(full);
    return Status::OK();
  }
  TW_RETURN_IF_ERROR(ParseTensorSlice(request.slice, box));
  if (box->full_shape != full.dims()) {
    return errors::InvalidArgument(
        "shape in shape_and_slice spec '", request.slice, "' of tensor '",
        request.name, "' does not match the shape stored in checkpoint ", where,
        ": ", full.ToString());
  }
  return Status::OK();
}

class TfBundle {
 public:
  explicit TfBundle(const std::string& prefix) : prefix_(prefix) {}
  ~TfBundle() {
    for (auto& [shard, fd] : shards_) close(fd);
  }
  Status ReadIndex();
  Status Read(const TensorRequest& request, Tensor* out);

 private:
  Status Corrupt(const std::string& what) const {
    return errors::DataLoss("TensorFlow checkpoint index ", prefix_,
                            ".index is corrupt: ", what);
  }
  Status Block(uint64_t offset, uint64_t size, std::string_view* block) const;
  Status ForEachEntry(std::string_view block,
                      const std::function<Status(const std::string&,
                                                 std::string_view)>& fn) const;
  Status ReadBytes(const std::string& name, const BundleEntry& e,
                   std::string* bytes);
  Status Decode(const std::string& name, const BundleEntry& e,
                const TensorShape& shape, Tensor* out);

  std::string prefix_, index_;
  uint64_t num_shards_ = 1;
  std::map<std::string, BundleEntry> entries_;
  std::map<uint64_t, int> shards_;  // open data files
};

Status TfBundle::Block(uint64_t offset, uint64_t size,
                       std::string_view* block) const {
  // The block, then its compression type (0: none) and a masked CRC32C of
  // both.
  if (offset > index_.size() || size > index_.size() - offset ||
      index_.size() - offset - size < 5) {
    return Corrupt("a block handle points past the end of the file");
  }
  const char* p = index_.data() + offset;
  if (p[size] != 0) {
    return errors::Unimplemented("TensorFlow checkpoint index ", prefix_,
                                 ".index has compressed blocks; only "
                                 "uncompressed ones (TensorFlow's) are read");
  }
  uint32_t stored;
  std::memcpy(&stored, p + size + 1, 4);
  if (Crc32c(p, size + 1) != UnmaskCrc(stored)) {
    return Corrupt("block checksum mismatch");
  }
  *block = std::string_view(p, size);
  return Status::OK();
}

Status TfBundle::ForEachEntry(
    std::string_view block,
    const std::function<Status(const std::string&, std::string_view)>& fn)
    const {
  // Entries, then the restart offsets (uint32 each) and their count.
  if (block.size() < 4) return Corrupt("a block is too short");
  uint32_t restarts;
  std::memcpy(&restarts, block.data() + block.size() - 4, 4);
  if (restarts > (block.size() - 4) / 4) {
    return Corrupt("a block's restart count exceeds it");
  }
  ByteReader r(block.substr(0, block.size() - 4 - 4 * uint64_t{restarts}));
  std::string key;
  while (!r.empty()) {
    uint64_t shared, unshared, value_len;
    std::string_view delta, value;
    if (!r.Varint(&shared) || !r.Varint(&unshared) || !r.Varint(&value_len) ||
        shared > key.size() || !r.Bytes(unshared, &delta) ||
        !r.Bytes(value_len, &value)) {
      return Corrupt("a malformed block entry");
    }
    key.resize(shared);
    key.append(delta);
    TW_RETURN_IF_ERROR(fn(key, value));
  }
  return Status::OK();
}

Status TfBundle::ReadIndex() {
  TW_RETURN_IF_ERROR(ReadWholeFile(prefix_ + ".index", &index_));
  uint64_t magic = 0;
  if (index_.size() >= kFooterBytes) {
    std::memcpy(&magic, index_.data() + index_.size() - 8, 8);
  }
  if (magic != kTableMagic) {
    return Corrupt("not a table (no footer magic number)");
  }
  ByteReader footer(
      std::string_view(index_).substr(index_.size() - kFooterBytes));
  uint64_t meta_offset, meta_size, index_offset, index_size;
  if (!footer.Varint(&meta_offset) || !footer.Varint(&meta_size) ||
      !footer.Varint(&index_offset) || !footer.Varint(&index_size)) {
    return Corrupt("a malformed footer");
  }
  std::string_view index_block;
  TW_RETURN_IF_ERROR(Block(index_offset, index_size, &index_block));
  bool has_header = false;
  return ForEachEntry(
      index_block, [&](const std::string&, std::string_view handle) {
        ByteReader h(handle);
        uint64_t offset, size;
        if (!h.Varint(&offset) || !h.Varint(&size)) {
          return Corrupt("a malformed block handle");
        }
        std::string_view block;
        TW_RETURN_IF_ERROR(Block(offset, size, &block));
        return ForEachEntry(
            block, [&](const std::string& key, std::string_view value) {
              if (key.empty()) {  // the BundleHeaderProto
                ByteReader r(value);
                ProtoField f;
                bool ok;
                while (NextField(&r, &f, &ok)) {
                  if (f.number == 1) num_shards_ = f.varint;
                  if (f.number == 2 && f.varint != 0) {
                    return errors::Unimplemented("TensorFlow checkpoint ",
                                                 prefix_, " is big-endian");
                  }
                }
                if (!ok || num_shards_ == 0 || num_shards_ > 99999) {
                  return Corrupt("a malformed header");
                }
                has_header = true;
                return Status::OK();
              }
              BundleEntry e;
              if (!ParseBundleEntry(value, &e) || !has_header ||
                  e.shard >= num_shards_) {
                return Corrupt("a malformed entry for '" + key + "'");
              }
              entries_.emplace(key, std::move(e));
              return Status::OK();
            });
      });
}

Status TfBundle::ReadBytes(const std::string& name, const BundleEntry& e,
                           std::string* bytes) {
  char suffix[32];
  std::snprintf(suffix, sizeof(suffix), ".data-%05d-of-%05d",
                static_cast<int>(e.shard), static_cast<int>(num_shards_));
  const std::string path = prefix_ + suffix;
  auto it = shards_.find(e.shard);
  if (it == shards_.end()) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return errors::DataLoss("TensorFlow checkpoint data file ", path,
                              " cannot be opened: ", std::strerror(errno));
    }
    it = shards_.emplace(e.shard, fd).first;
  }
  struct stat st;
  if (fstat(it->second, &st) != 0 || !S_ISREG(st.st_mode) ||
      e.offset > static_cast<uint64_t>(st.st_size) ||
      e.size > static_cast<uint64_t>(st.st_size) - e.offset) {
    return errors::DataLoss("tensor '", name, "' lies past the end of ", path,
                            ": the file is truncated");
  }
  bytes->resize(e.size);
  for (uint64_t done = 0; done < e.size;) {
    const ssize_t n = pread(it->second, bytes->data() + done, e.size - done,
                            static_cast<off_t>(e.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return IoError("cannot read", path);
    done += static_cast<uint64_t>(n);
  }
  return Status::OK();
}

// Strings are their lengths (varints), a masked CRC32C of the lengths (as
// uint32s), then the bytes; the entry's checksum covers the lengths as
// uint32s, that CRC and the bytes. Other dtypes: the entry's checksum is of
// the bytes as stored.
Status TfBundle::Decode(const std::string& name, const BundleEntry& e,
                        const TensorShape& shape, Tensor* out) {
  std::string bytes;
  TW_RETURN_IF_ERROR(ReadBytes(name, e, &bytes));
  Tensor t(e.dtype, shape);
  auto bad = [&](const char* what) {
    return errors::DataLoss("tensor '", name, "' in TensorFlow checkpoint ",
                            prefix_, " is corrupt: ", what);
  };
  uint32_t crc = 0;
  if (e.dtype != DT_STRING) {
    crc = Crc32c(bytes.data(), bytes.size());
    if (bytes.size() != t.num_bytes()) {
      return bad("its byte count does not match its shape and dtype");
    }
    if (!bytes.empty()) std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  } else {
    ByteReader r(bytes);
    const int64_t n = shape.num_elements();
    std::vector<uint64_t> lengths(n);
    uint32_t stored;
    for (int64_t i = 0; i < n; ++i) {
      if (!r.Varint(&lengths[i]) || lengths[i] > UINT32_MAX) {
        return bad("malformed string lengths");
      }
      const uint32_t length32 = static_cast<uint32_t>(lengths[i]);
      crc = Crc32cExtend(crc, &length32, 4);
    }
    if (!r.Fixed32(&stored) || UnmaskCrc(stored) != crc) {
      return bad("string lengths checksum mismatch");
    }
    crc = Crc32cExtend(crc, &stored, 4);
    std::string* strings = t.data<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      std::string_view s;
      if (!r.Bytes(lengths[i], &s)) return bad("strings past its end");
      crc = Crc32cExtend(crc, s.data(), s.size());
      strings[i].assign(s);
    }
  }
  if (crc != UnmaskCrc(e.masked_crc)) {
    return errors::DataLoss("checksum mismatch for tensor '", name,
                            "' in TensorFlow checkpoint ", prefix_,
                            ": the data is corrupted");
  }
  *out = std::move(t);
  return Status::OK();
}

Status TfBundle::Read(const TensorRequest& request, Tensor* out) {
  auto it = entries_.find(request.name);
  if (it == entries_.end()) {
    return errors::NotFound("tensor '", request.name,
                            "' not found in TensorFlow checkpoint ", prefix_);
  }
  const BundleEntry& e = it->second;
  TensorShape shape;
  if (!TensorShape::Build(e.dims, &shape).ok()) {
    return Corrupt("tensor '" + request.name + "' has a bad shape");
  }
  if (e.dtype != request.dtype) {
    return errors::InvalidArgument(
        "tensor '", request.name, "' in TensorFlow checkpoint ", prefix_,
        " is ", DataTypeName(e.dtype), ", but ", DataTypeName(request.dtype),
        " was asked for");
  }
  TensorSlice box;
  TW_RETURN_IF_ERROR(
      RequestedBox(request, shape, "TensorFlow checkpoint " + prefix_, &box));
  if (!request.shape.IsCompatibleWith(box.shape())) {
    return errors::InvalidArgument(
        "tensor '", request.name, "' in TensorFlow checkpoint ", prefix_,
        " has shape ", box.shape().ToString(),
        ", incompatible with the expected shape ", request.shape.ToString());
  }
  if (!request.slice.empty()) {  // the whole tensor, then the slice of it
    Tensor whole;
    TW_RETURN_IF_ERROR(
        Read({request.name, request.dtype, PartialShape()}, &whole));
    Tensor part(e.dtype, box.shape());
    CopyOverlap(e.dtype, whole.raw_data(), TensorSlice::Whole(shape), box,
                part.raw_data());
    *out = std::move(part);
    return Status::OK();
  }
  if (e.slices.empty()) return Decode(request.name, e, shape, out);
  // A partitioned variable: each slice is an entry of its own, copied into
  // place row-major.
  Tensor full(e.dtype, shape);
  const int rank = static_cast<int>(shape.dims().size());
  if (rank == 0) return Corrupt("a scalar '" + request.name + "' in slices");
  for (const auto& slice : e.slices) {
    std::vector<int64_t> start(rank), count(rank);
    if (static_cast<int>(slice.size()) != rank) return Corrupt("bad slice");
    for (int d = 0; d < rank; ++d) {
      start[d] = slice[d].first;
      count[d] = slice[d].second < 0 ? shape.dims()[d] : slice[d].second;
      if (start[d] < 0 || count[d] < 0 || start[d] > shape.dims()[d] ||
          count[d] > shape.dims()[d] - start[d]) {
        return Corrupt("a slice of '" + request.name + "' is out of bounds");
      }
    }
    auto part = entries_.find(SliceKey(request.name, slice));
    TensorShape part_shape;
    if (part == entries_.end() || part->second.dtype != e.dtype ||
        !TensorShape::Build(count, &part_shape).ok()) {
      return Corrupt("a slice of '" + request.name + "' is missing");
    }
    Tensor piece;
    TW_RETURN_IF_ERROR(Decode(request.name, part->second, part_shape, &piece));
    // Rows of the last dimension, each copied to its place in `full`.
    const int64_t row = count[rank - 1];
    const int64_t rows = row == 0 ? 0 : piece.num_elements() / row;
    std::vector<int64_t> index(rank, 0);  // the row's place in the slice
    for (int64_t r = 0; r < rows; ++r) {
      int64_t flat = 0;  // its first element's place in `full`
      for (int d = 0; d < rank; ++d) {
        flat = flat * shape.dims()[d] + start[d] + index[d];
      }
      if (e.dtype == DT_STRING) {
        std::copy_n(piece.data<std::string>() + r * row, row,
                    full.data<std::string>() + flat);
      } else {
        const size_t item = DataTypeSize(e.dtype);
        std::memcpy(static_cast<char*>(full.raw_data()) + flat * item,
                    static_cast<const char*>(piece.raw_data()) + r * row * item,
                    row * item);
      }
      for (int d = rank - 2; d >= 0 && ++index[d] == count[d]; --d) {
        index[d] = 0;
      }
    }
  }
  *out = std::move(full);
  return Status::OK();
}

Status ReadTfCheckpoint(const std::string& prefix,
                        const std::vector<TensorRequest>& requests,
                        std::vector<Tensor>* out) {
  TfBundle bundle(prefix);
  TW_RETURN_IF_ERROR(bundle.ReadIndex());
  std::vector<Tensor> result(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    TW_RETURN_IF_ERROR(bundle.Read(requests[i], &result[i]));
  }
  *out = std::move(result);
  return Status::OK();
}

}  // namespace

TensorSlice TensorSlice::Whole(const TensorShape& shape) {
  TensorSlice box;
  box.full_shape = shape.dims();
  box.start.assign(shape.dims().size(), 0);
  box.length = shape.dims();
  return box;
}

TensorShape TensorSlice::shape() const { return TensorShape(length); }

std::string TensorSlice::Extents() const {
  std::string out;
  for (size_t d = 0; d < start.size(); ++d) {
    if (d > 0) out += ":";
    out += std::to_string(start[d]) + "," + std::to_string(length[d]);
  }
  return out;
}

std::string TensorSlice::ToString() const {
  std::string out;
  for (int64_t dim : full_shape) out += std::to_string(dim) + " ";
  return out + Extents();
}

Status ParseTensorSlice(const std::string& spec, TensorSlice* out) {
  auto bad = [&](const std::string& why) {
    return errors::InvalidArgument("bad shape_and_slice '", spec, "': ", why);
  };
  auto parse_int = [](std::string_view text, int64_t* value) {
    const char* end = text.data() + text.size();
    auto [ptr, ec] = std::from_chars(text.data(), end, *value);
    return ec == std::errc() && ptr == end;
  };
  std::vector<std::string_view> tokens;
  std::string_view rest(spec);
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    if (space != 0) tokens.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  if (tokens.size() < 2) {
    return bad("expected the full shape, then the slice");
  }
  TensorSlice box;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    int64_t dim;
    if (!parse_int(tokens[i], &dim) || dim < 0) {
      return bad("'" + std::string(tokens[i]) + "' is not a dimension");
    }
    box.full_shape.push_back(dim);
  }
  std::string_view extents = tokens.back();
  for (size_t d = 0; d < box.full_shape.size(); ++d) {
    const size_t colon = extents.find(':');
    std::string_view extent = extents.substr(0, colon);
    const int64_t dim = box.full_shape[d];
    int64_t start = 0, length = dim;
    if (extent != "-") {
      const size_t comma = extent.find(',');
      if (comma == std::string_view::npos ||
          !parse_int(extent.substr(0, comma), &start) ||
          !parse_int(extent.substr(comma + 1), &length)) {
        return bad("'" + std::string(extent) +
                   "' is not 'start,length' or '-'");
      }
      if (start < 0 || length < 0 || start > dim || length > dim - start) {
        return bad("extent '" + std::string(extent) + "' is out of [0, " +
                   std::to_string(dim) + ")");
      }
    }
    box.start.push_back(start);
    box.length.push_back(length);
    if ((colon == std::string_view::npos) != (d + 1 == box.full_shape.size())) {
      return bad("expected " + std::to_string(box.full_shape.size()) +
                 " extents, one per dimension");
    }
    if (colon != std::string_view::npos) extents.remove_prefix(colon + 1);
  }
  *out = std::move(box);
  return Status::OK();
}

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
             const std::vector<Tensor>& tensors,
             const std::vector<std::string>& slices) {
  if (names.size() != tensors.size() ||
      (!slices.empty() && slices.size() != names.size())) {
    return errors::InvalidArgument("got ", names.size(), " names and ",
                                   slices.size(), " slices for ",
                                   tensors.size(), " tensors");
  }
  if (prefix.empty() || prefix.back() == '/') {
    return errors::InvalidArgument("bad checkpoint prefix '", prefix, "'");
  }
  // Tensors in key order, contiguous in the data section; a slice's key is
  // its name and extents, its manifest entry says what it is a slice of.
  struct Item {
    const Tensor* tensor;
    std::string name;
    const TensorSlice* slice;  // null: the whole tensor
  };
  std::vector<TensorSlice> parsed(names.size());
  std::map<std::string, std::vector<const TensorSlice*>> sliced;
  std::map<std::string, Item> by_name;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty() || names[i] == kMetadataKey) {
      return errors::InvalidArgument("bad tensor name '", names[i], "'");
    }
    std::string key = names[i];
    const TensorSlice* slice = nullptr;
    if (!slices.empty() && !slices[i].empty()) {
      TW_RETURN_IF_ERROR(ParseTensorSlice(slices[i], &parsed[i]));
      slice = &parsed[i];
      if (slice->shape() != tensors[i].shape()) {
        return errors::InvalidArgument(
            "tensor '", names[i], "' has shape ", tensors[i].shape().ToString(),
            ", not that of its slice '", slices[i], "'");
      }
      for (const TensorSlice* other : sliced[names[i]]) {
        if (other->full_shape != slice->full_shape) {
          return errors::InvalidArgument(
              "slices of tensor '", names[i],
              "' have different full shapes: ", other->ToString(), " and ",
              slice->ToString());
        }
        if (Overlaps(*other, *slice)) {
          return errors::InvalidArgument("slices of tensor '", names[i],
                                         "' overlap: ", other->ToString(),
                                         " and ", slice->ToString());
        }
      }
      sliced[names[i]].push_back(slice);
      key += ":" + slice->Extents();
    }
    if (!by_name.emplace(key, Item{&tensors[i], names[i], slice}).second) {
      return errors::InvalidArgument("tensor name '", key, "' is given twice");
    }
  }
  for (const auto& [name, parts] : sliced) {
    if (by_name.count(name) > 0) {
      return errors::InvalidArgument("tensor '", name,
                                     "' is given whole and in slices");
    }
  }
  Json header = Json::Object();
  Json manifest_tensors = Json::Object();
  uint64_t offset = 0;
  for (const auto& [key, item] : by_name) {
    const Tensor* tensor = item.tensor;
    std::string dtype;
    if (!SafetensorsDtype(tensor->dtype(), &dtype)) {
      return errors::Unimplemented("tensor '", item.name, "' is ",
                                   DataTypeName(tensor->dtype()),
                                   ", which checkpoints cannot hold");
    }
    Json entry = Json::Object();
    entry.Set("dtype", Json::String(dtype));
    entry.Set("shape", ShapeJson(tensor->shape()));
    entry.Set("data_offsets",
              Json::Array({Json::Int(offset),
                           Json::Int(offset + tensor->num_bytes())}));
    header.Set(key, entry);
    Json described = Json::Object();
    described.Set("dtype", Json::String(dtype));
    described.Set("shape", ShapeJson(tensor->shape()));
    described.Set("crc32c",
                  Json::Int(Crc32c(tensor->raw_data(), tensor->num_bytes())));
    if (item.slice != nullptr) {
      described.Set("slice_of", Json::String(item.name));
      described.Set("shape_and_slice", Json::String(item.slice->ToString()));
    }
    manifest_tensors.Set(key, described);
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
  for (const auto& [key, item] : by_name) {
    const Tensor* tensor = item.tensor;
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
  struct stat index_stat;
  if (s.code() == Code::kNotFound &&
      stat((prefix + ".index").c_str(), &index_stat) == 0) {
    return ReadTfCheckpoint(prefix, requests, out);
  }
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
  struct Piece {
    const Entry* entry;
    TensorSlice box;  // its region of the full tensor
  };
  std::map<std::string, std::vector<Piece>> sliced;  // by "slice_of"
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
    const Json* slice_of = described.Find("slice_of");
    if (slice_of == nullptr) continue;
    const Json* spec = described.Find("shape_and_slice");
    Piece piece{&e, {}};
    if (!slice_of->is_string() || spec == nullptr || !spec->is_string() ||
        !ParseTensorSlice(spec->string_value(), &piece.box).ok() ||
        piece.box.shape() != e.shape ||
        name != slice_of->string_value() + ":" + piece.box.Extents()) {
      return bad_manifest("slice '" + name + "' is malformed");
    }
    std::vector<Piece>& pieces = sliced[slice_of->string_value()];
    for (const Piece& other : pieces) {
      if (other.box.full_shape != piece.box.full_shape ||
          other.entry->dtype != e.dtype || Overlaps(other.box, piece.box)) {
        return bad_manifest("the slices of '" + slice_of->string_value() +
                            "' do not fit together");
      }
    }
    pieces.push_back(std::move(piece));
  }
  if (entries.size() != tensors->members().size()) {
    return errors::DataLoss("checkpoint data file ", data_path,
                            " holds tensors its manifest does not list");
  }
  if (!file_crc_ok) {
    return errors::DataLoss("checksum mismatch for checkpoint data file ",
                            data_path, ": the file is corrupted");
  }
  // What was asked for: a saved tensor, or a tensor saved in slices, whole
  // or a slice of either, assembled from the saved pieces it overlaps.
  std::vector<Tensor> result;
  for (const TensorRequest& r : requests) {
    std::vector<Piece> whole;
    const std::vector<Piece>* pieces = &whole;
    auto it = entries.find(r.name);
    auto parts = sliced.find(r.name);
    if (it != entries.end()) {
      whole.push_back({&it->second, TensorSlice::Whole(it->second.shape)});
    } else if (parts != sliced.end()) {
      pieces = &parts->second;
    } else {
      return errors::NotFound("tensor '", r.name, "' not found in checkpoint ",
                              prefix, " (", data_path, ")");
    }
    const DataType dtype = pieces->front().entry->dtype;
    if (dtype != r.dtype) {
      return errors::InvalidArgument("tensor '", r.name, "' in checkpoint ",
                                     data_path, " is ", DataTypeName(dtype),
                                     ", but ", DataTypeName(r.dtype),
                                     " was asked for");
    }
    TensorSlice box;
    TW_RETURN_IF_ERROR(RequestedBox(
        r, TensorShape(pieces->front().box.full_shape), data_path, &box));
    if (!r.shape.IsCompatibleWith(box.shape())) {
      return errors::InvalidArgument(
          "tensor '", r.name, "' in checkpoint ", data_path, " has shape ",
          box.shape().ToString(), ", incompatible with the expected shape ",
          r.shape.ToString());
    }
    Tensor t(dtype, box.shape());
    int64_t copied = 0;
    for (const Piece& piece : *pieces) {
      copied +=
          CopyOverlap(dtype, data.data() + data_start + piece.entry->begin,
                      piece.box, box, t.raw_data());
    }
    if (copied != t.num_elements()) {
      return errors::InvalidArgument("tensor '", r.name, "' in checkpoint ",
                                     data_path, ": its saved slices hold ",
                                     copied, " of the ", t.num_elements(),
                                     " values of slice '", box.ToString(), "'");
    }
    result.push_back(std::move(t));
  }
  *out = std::move(result);
  return Status::OK();
}

Status List(const std::string& prefix, std::vector<ListedTensor>* out) {
  const std::string path = prefix + kManifestSuffix;
  std::string text;
  TW_RETURN_IF_ERROR(ReadWholeFile(path, &text));
  Json manifest;
  Status s = Json::Parse(text, &manifest);
  const Json* listed = s.ok() ? manifest.Find("tensors") : nullptr;
  if (listed == nullptr || !listed->is_object()) {
    return errors::DataLoss("checkpoint manifest ", path, " is corrupt");
  }
  for (const auto& [key, entry] : listed->members()) {
    const Json* dtype = entry.Find("dtype");
    const Json* slice_of = entry.Find("slice_of");
    const Json* spec = entry.Find("shape_and_slice");
    ListedTensor tensor{key, key, "", DT_INVALID};
    if (dtype == nullptr || !dtype->is_string() ||
        !DtypeFromSafetensors(dtype->string_value(), &tensor.dtype) ||
        (slice_of != nullptr &&
         (!slice_of->is_string() || spec == nullptr || !spec->is_string()))) {
      return errors::DataLoss("checkpoint manifest ", path,
                              " is corrupt: entry '", key, "'");
    }
    if (slice_of != nullptr) {
      tensor.name = slice_of->string_value();
      tensor.slice = spec->string_value();
    }
    out->push_back(std::move(tensor));
  }
  return Status::OK();
}

}  // namespace checkpoint
}  // namespace tensorweave
