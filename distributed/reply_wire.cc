#include "distributed/reply_wire.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "core/framework/tensor_size.h"
#include "distributed/worker_env.h"

namespace tensorweave {
namespace {

constexpr char kMagic[4] = {'T', 'W', 'R', '1'};

size_t TensorSize(const Tensor& t) {
  size_t n = 4 + 4 + 8 * t.shape().dims().size();
  if (t.dtype() == DT_STRING) {
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      n += 8 + t.data<std::string>()[i].size();
    }
  } else {
    n += 8 + t.num_bytes();
  }
  return n;
}

class Writer {
 public:
  explicit Writer(char* out) : out_(out) {}
  template <typename T>
  void Put(T value) {
    std::memcpy(out_, &value, sizeof(T));
    out_ += sizeof(T);
  }
  void Bytes(const void* data, size_t n) {
    if (n > 0) std::memcpy(out_, data, n);
    out_ += n;
  }
  void PutTensor(const Tensor& t) {
    Put<int32_t>(static_cast<int32_t>(t.dtype()));
    const auto& dims = t.shape().dims();
    Put<uint32_t>(static_cast<uint32_t>(dims.size()));
    for (int64_t d : dims) Put<int64_t>(d);
    if (t.dtype() == DT_STRING) {
      for (int64_t i = 0; i < t.num_elements(); ++i) {
        const std::string& s = t.data<std::string>()[i];
        Put<uint64_t>(s.size());
        Bytes(s.data(), s.size());
      }
    } else {
      Put<uint64_t>(t.num_bytes());
      Bytes(t.raw_data(), t.num_bytes());
    }
  }

 private:
  char* out_;
};

class Reader {
 public:
  Reader(const char* data, size_t size) : data_(data), left_(size) {}
  size_t left() const { return left_; }

  template <typename T>
  Status Get(T* value, const char* what) {
    if (left_ < sizeof(T)) return Truncated(what);
    std::memcpy(value, data_, sizeof(T));
    data_ += sizeof(T);
    left_ -= sizeof(T);
    return Status::OK();
  }
  Status Bytes(size_t n, const char** out, const char* what) {
    if (left_ < n) return Truncated(what);
    *out = data_;
    data_ += n;
    left_ -= n;
    return Status::OK();
  }
  // `dead`: a dead value's, which may be empty (DT_INVALID, no bytes).
  Status ReadTensor(Tensor* out, bool dead = false) {
    int32_t dtype;
    uint32_t rank;
    TW_RETURN_IF_ERROR(Get(&dtype, "a tensor's dtype"));
    TW_RETURN_IF_ERROR(Get(&rank, "a tensor's rank"));
    if (rank > left_ / 8) return Truncated("a tensor's shape");
    std::vector<int64_t> dims(rank);
    for (auto& d : dims) TW_RETURN_IF_ERROR(Get(&d, "a tensor's shape"));
    if (dead && dtype == DT_INVALID && rank == 0) {
      uint64_t n;
      TW_RETURN_IF_ERROR(Get(&n, "a tensor's byte length"));
      if (n != 0) {
        return errors::InvalidArgument(
            "malformed RunGraph reply: an empty dead value with bytes");
      }
      *out = Tensor();
      return Status::OK();
    }
    if (!IsValidDataType(dtype) || dtype == DT_INVALID) {
      return errors::InvalidArgument("malformed RunGraph reply: unknown dtype ",
                                     dtype);
    }
    if (dtype != DT_STRING) {
      uint64_t n;
      const char* bytes;
      TW_RETURN_IF_ERROR(Get(&n, "a tensor's byte length"));
      TW_RETURN_IF_ERROR(Bytes(n, &bytes, "a tensor's bytes"));
      Status s =
          TensorFromBytes(static_cast<DataType>(dtype), dims, bytes, n, out);
      if (!s.ok()) {
        return Status(s.code(), "malformed RunGraph reply: " + s.message());
      }
      return Status::OK();
    }
    int64_t count;
    Status s = NumElementsOf(dims, &count);
    if (!s.ok()) {
      return errors::InvalidArgument("malformed RunGraph reply: ", s.message());
    }
    // (each element takes at least its 8-byte length)
    if (static_cast<uint64_t>(count) > left_ / 8) {
      return Truncated("a string tensor's elements");
    }
    std::vector<std::string> elements(count);
    for (auto& e : elements) {
      uint64_t n;
      const char* bytes;
      TW_RETURN_IF_ERROR(Get(&n, "a string's length"));
      TW_RETURN_IF_ERROR(Bytes(n, &bytes, "a string's bytes"));
      e.assign(bytes, n);
    }
    return TensorFromStrings(dims, std::move(elements), out);
  }

 private:
  static Status Truncated(const char* what) {
    return errors::InvalidArgument("malformed RunGraph reply: truncated at ",
                                   what);
  }
  const char* data_;
  size_t left_;
};

}  // namespace

size_t RunGraphReplySize(const std::vector<Tensor>& outputs,
                         const std::vector<SentValue>& sent) {
  size_t n = sizeof(kMagic) + 4 + 4;
  for (const Tensor& t : outputs) n += TensorSize(t);
  for (const SentValue& s : sent) {
    n += 4 + s.key.size() + 1 + TensorSize(s.value);
  }
  return n;
}

void WriteRunGraphReply(const std::vector<Tensor>& outputs,
                        const std::vector<SentValue>& sent, char* out) {
  Writer w(out);
  w.Bytes(kMagic, sizeof(kMagic));
  w.Put<uint32_t>(static_cast<uint32_t>(outputs.size()));
  w.Put<uint32_t>(static_cast<uint32_t>(sent.size()));
  for (const Tensor& t : outputs) w.PutTensor(t);
  for (const SentValue& s : sent) {
    w.Put<uint32_t>(static_cast<uint32_t>(s.key.size()));
    w.Bytes(s.key.data(), s.key.size());
    w.Put<uint8_t>(s.is_dead ? 1 : 0);
    w.PutTensor(s.value);
  }
}

Status ReadRunGraphReply(const char* data, size_t size,
                         std::vector<Tensor>* outputs,
                         std::vector<SentValue>* sent) {
  outputs->clear();
  sent->clear();
  Reader r(data, size);
  const char* magic;
  TW_RETURN_IF_ERROR(r.Bytes(sizeof(kMagic), &magic, "its header"));
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    return errors::InvalidArgument(
        "malformed RunGraph reply: not a binary reply (bad magic)");
  }
  uint32_t num_outputs, num_sent;
  TW_RETURN_IF_ERROR(r.Get(&num_outputs, "its header"));
  TW_RETURN_IF_ERROR(r.Get(&num_sent, "its header"));
  // (a tensor takes at least 16 bytes: nothing is reserved for counts that
  // the bytes cannot hold)
  if (num_outputs > r.left() / 16 || num_sent > r.left() / 16) {
    return errors::InvalidArgument("malformed RunGraph reply: ", num_outputs,
                                   " outputs and ", num_sent, " values in ",
                                   size, " bytes");
  }
  outputs->resize(num_outputs);
  for (Tensor& t : *outputs) TW_RETURN_IF_ERROR(r.ReadTensor(&t));
  sent->resize(num_sent);
  for (SentValue& s : *sent) {
    uint32_t key_size;
    const char* key;
    uint8_t is_dead;
    TW_RETURN_IF_ERROR(r.Get(&key_size, "a key's length"));
    TW_RETURN_IF_ERROR(r.Bytes(key_size, &key, "a key"));
    TW_RETURN_IF_ERROR(r.Get(&is_dead, "a value's flags"));
    if (is_dead > 1) {
      return errors::InvalidArgument(
          "malformed RunGraph reply: is_dead is not a flag");
    }
    s.key.assign(key, key_size);
    s.is_dead = is_dead == 1;
    TW_RETURN_IF_ERROR(r.ReadTensor(&s.value, s.is_dead));
  }
  if (r.left() != 0) {
    return errors::InvalidArgument("malformed RunGraph reply: ", r.left(),
                                   " bytes after its values");
  }
  return Status::OK();
}

}  // namespace tensorweave
