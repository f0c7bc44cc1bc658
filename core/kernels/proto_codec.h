// What DecodeProtoV2 and EncodeProto share: the descriptor pool a
// descriptor_source names, the fields a message type has, which tensor dtypes
// each field type maps to, and the protobuf wire format (varints, fixed
// widths, tags), read and written directly so that a field's values need no
// message object.
#ifndef TENSORWEAVE_CORE_KERNELS_PROTO_CODEC_H_
#define TENSORWEAVE_CORE_KERNELS_PROTO_CODEC_H_

#include <google/protobuf/descriptor.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "core/framework/status.h"
#include "core/framework/types.h"

namespace tensorweave {
namespace proto_codec {

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;

// The pool of descriptor_source: "local://" is the pool of the protos linked
// into this binary (never owned); a path to a file holding a serialized
// FileDescriptorSet or "bytes://" followed by one builds a pool, returned in
// *owned. An unreadable or malformed source is an InvalidArgument.
Status GetDescriptorPool(const std::string& source, const DescriptorPool** pool,
                         std::unique_ptr<DescriptorPool>* owned);

// The message type `name` of `pool` (InvalidArgument when there is none).
Status FindMessageType(const DescriptorPool& pool, const std::string& name,
                       const Descriptor** message);

// Field `name` of `message`, or an extension of it named by its full name.
Status FindField(const DescriptorPool& pool, const Descriptor& message,
                 const std::string& name, const FieldDescriptor** field);

// Whether values of a field of `type` may be a `dtype` tensor (TensorFlow's
// table): double -> float64; float -> float32/float64; int32, sint32,
// sfixed32 -> int32/int64; int64, sint64, sfixed64 -> int64; uint32, fixed32
// -> uint32/uint64; uint64, fixed64 -> uint64; bool -> bool; enum -> int32;
// string, bytes, message, group -> string.
bool IsCompatibleType(FieldDescriptor::Type type, DataType dtype);

// "int32", "message", ... for error messages.
const char* FieldTypeName(FieldDescriptor::Type type);

// --- the wire format -------------------------------------------------------

enum WireType : uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

// The wire type a (non-packed) value of a field of `type` has.
WireType WireTypeOf(FieldDescriptor::Type type);

// Reads the wire format from a byte range it does not own; every read checks
// the range, so malformed input makes a read fail, never overrun.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes)
      : pos_(bytes.data()), end_(bytes.data() + bytes.size()) {}

  bool AtEnd() const { return pos_ == end_; }
  bool ReadVarint(uint64_t* value);
  bool ReadFixed32(uint32_t* value);
  bool ReadFixed64(uint64_t* value);
  // A length-delimited value (the length varint, then that many bytes).
  bool ReadLengthDelimited(std::string_view* value);
  // A tag: field number (>= 1) and a valid wire type.
  bool ReadTag(int* field_number, WireType* wire_type);
  // Skips the value of a field whose tag was just read; a group is skipped
  // up to its matching end tag (`depth`: groups already open).
  bool SkipValue(int field_number, WireType wire_type, int depth = 0);
  // The bytes of a group whose start tag was just read, up to (not
  // including) its end tag, which is consumed.
  bool ReadGroup(int field_number, std::string_view* contents, int depth = 0);
  // One scalar value of `wire_type` as its raw 64 bits (varints as read,
  // fixed widths as their bit pattern).
  bool ReadScalar(WireType wire_type, uint64_t* raw);

 private:
  const char* pos_;
  const char* end_;
};

void AppendVarint(uint64_t value, std::string* out);
void AppendTag(int field_number, WireType wire_type, std::string* out);
void AppendFixed32(uint32_t value, std::string* out);
void AppendFixed64(uint64_t value, std::string* out);

// --- scalar values
// ------------------------------------------------------------

template <typename To, typename From>
To BitCast(From from) {
  static_assert(sizeof(To) == sizeof(From));
  To to;
  std::memcpy(&to, &from, sizeof(To));
  return to;
}

inline int32_t ZigZagDecode32(uint32_t n) {
  return static_cast<int32_t>((n >> 1) ^ (~(n & 1) + 1));
}
inline int64_t ZigZagDecode64(uint64_t n) {
  return static_cast<int64_t>((n >> 1) ^ (~(n & 1) + 1));
}
inline uint32_t ZigZagEncode32(int32_t n) {
  return (static_cast<uint32_t>(n) << 1) ^ static_cast<uint32_t>(n >> 31);
}
inline uint64_t ZigZagEncode64(int64_t n) {
  return (static_cast<uint64_t>(n) << 1) ^ static_cast<uint64_t>(n >> 63);
}

// The value a field of `type` holds when its raw wire bits are `raw`, as T
// (one of the dtypes IsCompatibleType allows for `type`). 32-bit integers
// take the low 32 bits of a varint, as protobuf does.
template <typename T>
T FromWire(FieldDescriptor::Type type, uint64_t raw) {
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE:
      return static_cast<T>(BitCast<double>(raw));
    case FieldDescriptor::TYPE_FLOAT:
      return static_cast<T>(BitCast<float>(static_cast<uint32_t>(raw)));
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
      return static_cast<T>(static_cast<int64_t>(raw));
    case FieldDescriptor::TYPE_SINT64:
      return static_cast<T>(ZigZagDecode64(raw));
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_ENUM:
      return static_cast<T>(static_cast<int32_t>(static_cast<uint32_t>(raw)));
    case FieldDescriptor::TYPE_SINT32:
      return static_cast<T>(ZigZagDecode32(static_cast<uint32_t>(raw)));
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return static_cast<T>(static_cast<uint32_t>(raw));
    case FieldDescriptor::TYPE_BOOL:
      return static_cast<T>(raw != 0);
    default:  // uint64, fixed64
      return static_cast<T>(raw);
  }
}

// The raw wire bits of `value` in a field of `type` (the inverse of
// FromWire): 32-bit integer fields take the value modulo 2^32, as protobuf's
// int32 setters do.
template <typename T>
uint64_t ToWire(FieldDescriptor::Type type, T value) {
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE:
      return BitCast<uint64_t>(static_cast<double>(value));
    case FieldDescriptor::TYPE_FLOAT:
      return BitCast<uint32_t>(static_cast<float>(value));
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
      return static_cast<uint64_t>(static_cast<int64_t>(value));
    case FieldDescriptor::TYPE_SINT64:
      return ZigZagEncode64(static_cast<int64_t>(value));
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_ENUM:
      // A negative int32 is the 10-byte varint of its sign extension.
      return static_cast<uint64_t>(static_cast<int64_t>(
          static_cast<int32_t>(static_cast<uint32_t>(value))));
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return static_cast<uint32_t>(value);
    case FieldDescriptor::TYPE_SINT32:
      return ZigZagEncode32(static_cast<int32_t>(static_cast<uint32_t>(value)));
    case FieldDescriptor::TYPE_BOOL:
      return value ? 1 : 0;
    default:  // uint64, fixed64
      return static_cast<uint64_t>(value);
  }
}

// The raw wire bits of a scalar field's default value (for FromWire).
uint64_t DefaultRaw(const FieldDescriptor& field);

}  // namespace proto_codec
}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_PROTO_CODEC_H_
