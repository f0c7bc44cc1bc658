#include "core/kernels/proto_codec.h"

#include <google/protobuf/descriptor.pb.h>

#include <fstream>
#include <sstream>
#include <vector>

namespace tensorweave {
namespace proto_codec {
namespace {

constexpr char kLocalSource[] = "local://";
constexpr char kBytesPrefix[] = "bytes://";
// Nested groups deeper than this are malformed input (protobuf's own
// recursion limit is 100).
constexpr int kMaxGroupDepth = 100;

// Collects the errors of building one file, for the error message.
class ErrorText : public google::protobuf::DescriptorPool::ErrorCollector {
 public:
  void AddError(const std::string& filename, const std::string& element_name,
                const google::protobuf::Message*, ErrorLocation,
                const std::string& message) override {
    if (!text_.empty()) text_ += "; ";
    text_ += filename + ": " + element_name + ": " + message;
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

Status PoolFromSet(const std::string& serialized, const std::string& what,
                   std::unique_ptr<DescriptorPool>* owned) {
  google::protobuf::FileDescriptorSet set;
  if (!set.ParseFromString(serialized)) {
    return errors::InvalidArgument(
        "descriptor_source ", what,
        " does not hold a serialized FileDescriptorSet");
  }
  auto pool = std::make_unique<DescriptorPool>();
  for (const auto& file : set.file()) {
    ErrorText errors_seen;
    if (pool->BuildFileCollectingErrors(file, &errors_seen) == nullptr) {
      return errors::InvalidArgument(
          "Failed to load FileDescriptorProto '", file.name(), "' of ",
          "descriptor_source ", what, ": ", errors_seen.text(),
          " (a file's imports must come before it in the set)");
    }
  }
  *owned = std::move(pool);
  return Status::OK();
}

bool ReadWholeFile(const std::string& path, std::string* contents) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return false;
  *contents = buffer.str();
  return true;
}

}  // namespace

Status GetDescriptorPool(const std::string& source, const DescriptorPool** pool,
                         std::unique_ptr<DescriptorPool>* owned) {
  owned->reset();
  if (source == kLocalSource) {
    *pool = DescriptorPool::generated_pool();
    return Status::OK();
  }
  if (source.compare(0, sizeof(kBytesPrefix) - 1, kBytesPrefix) == 0) {
    TW_RETURN_IF_ERROR(PoolFromSet(source.substr(sizeof(kBytesPrefix) - 1),
                                   "'bytes://...'", owned));
  } else {
    std::string contents;
    if (!ReadWholeFile(source, &contents)) {
      return errors::InvalidArgument(
          "descriptor_source '", source,
          "' is neither 'local://', a readable file holding a serialized "
          "FileDescriptorSet, nor 'bytes://' followed by one");
    }
    TW_RETURN_IF_ERROR(PoolFromSet(contents, "'" + source + "'", owned));
  }
  *pool = owned->get();
  return Status::OK();
}

Status FindMessageType(const DescriptorPool& pool, const std::string& name,
                       const Descriptor** message) {
  *message = pool.FindMessageTypeByName(name);
  if (*message == nullptr) {
    return errors::InvalidArgument("No descriptor found for message type ",
                                   name);
  }
  return Status::OK();
}

Status FindField(const DescriptorPool& pool, const Descriptor& message,
                 const std::string& name, const FieldDescriptor** field) {
  *field = message.FindFieldByName(name);
  if (*field == nullptr) {
    // An extension, named by its full name ("pkg.ext_name").
    const FieldDescriptor* extension = pool.FindExtensionByName(name);
    if (extension != nullptr && extension->containing_type() == &message) {
      *field = extension;
    }
  }
  if (*field == nullptr) {
    return errors::InvalidArgument("Unknown field: ", name, " in message type ",
                                   message.full_name());
  }
  return Status::OK();
}

bool IsCompatibleType(FieldDescriptor::Type type, DataType dtype) {
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE:
      return dtype == DT_DOUBLE;
    case FieldDescriptor::TYPE_FLOAT:
      return dtype == DT_FLOAT || dtype == DT_DOUBLE;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SFIXED32:
      return dtype == DT_INT32 || dtype == DT_INT64;
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SINT64:
    case FieldDescriptor::TYPE_SFIXED64:
      return dtype == DT_INT64;
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return dtype == DT_UINT32 || dtype == DT_UINT64;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return dtype == DT_UINT64;
    case FieldDescriptor::TYPE_BOOL:
      return dtype == DT_BOOL;
    case FieldDescriptor::TYPE_ENUM:
      return dtype == DT_INT32;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP:
      return dtype == DT_STRING;
  }
  return false;
}

const char* FieldTypeName(FieldDescriptor::Type type) {
  return FieldDescriptor::TypeName(type);
}

WireType WireTypeOf(FieldDescriptor::Type type) {
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return kFixed64;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return kFixed32;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
      return kLengthDelimited;
    case FieldDescriptor::TYPE_GROUP:
      return kStartGroup;
    default:
      return kVarint;
  }
}

bool WireReader::ReadVarint(uint64_t* value) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64 && pos_ < end_; shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(*pos_++);
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *value = result;
      return true;
    }
  }
  return false;  // truncated, or longer than 10 bytes
}

bool WireReader::ReadFixed32(uint32_t* value) {
  if (end_ - pos_ < 4) return false;
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(pos_[i]);
  pos_ += 4;
  *value = v;
  return true;
}

bool WireReader::ReadFixed64(uint64_t* value) {
  if (end_ - pos_ < 8) return false;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(pos_[i]);
  pos_ += 8;
  *value = v;
  return true;
}

bool WireReader::ReadLengthDelimited(std::string_view* value) {
  uint64_t length = 0;
  if (!ReadVarint(&length)) return false;
  if (length > static_cast<uint64_t>(end_ - pos_)) return false;
  *value = std::string_view(pos_, length);
  pos_ += length;
  return true;
}

bool WireReader::ReadTag(int* field_number, WireType* wire_type) {
  uint64_t tag = 0;
  if (!ReadVarint(&tag) || tag > 0xffffffffu) return false;
  const uint32_t type = static_cast<uint32_t>(tag & 7);
  const uint32_t number = static_cast<uint32_t>(tag >> 3);
  if (number == 0 || type > kFixed32) return false;
  *field_number = static_cast<int>(number);
  *wire_type = static_cast<WireType>(type);
  return true;
}

bool WireReader::ReadScalar(WireType wire_type, uint64_t* raw) {
  switch (wire_type) {
    case kVarint:
      return ReadVarint(raw);
    case kFixed64:
      return ReadFixed64(raw);
    case kFixed32: {
      uint32_t v = 0;
      if (!ReadFixed32(&v)) return false;
      *raw = v;
      return true;
    }
    default:
      return false;
  }
}

bool WireReader::SkipValue(int field_number, WireType wire_type, int depth) {
  uint64_t unused_raw = 0;
  std::string_view unused_bytes;
  switch (wire_type) {
    case kVarint:
    case kFixed64:
    case kFixed32:
      return ReadScalar(wire_type, &unused_raw);
    case kLengthDelimited:
      return ReadLengthDelimited(&unused_bytes);
    case kStartGroup:
      return ReadGroup(field_number, &unused_bytes, depth);
    case kEndGroup:
      return false;  // an end tag without its start
  }
  return false;
}

bool WireReader::ReadGroup(int field_number, std::string_view* contents,
                           int depth) {
  if (depth >= kMaxGroupDepth) return false;
  const char* start = pos_;
  while (pos_ < end_) {
    const char* tag_start = pos_;
    int number = 0;
    WireType type = kVarint;
    if (!ReadTag(&number, &type)) return false;
    if (type == kEndGroup) {
      if (number != field_number) return false;
      *contents = std::string_view(start, tag_start - start);
      return true;
    }
    if (!SkipValue(number, type, depth + 1)) return false;
  }
  return false;  // no end tag
}

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

void AppendTag(int field_number, WireType wire_type, std::string* out) {
  AppendVarint((static_cast<uint64_t>(field_number) << 3) | wire_type, out);
}

void AppendFixed32(uint32_t value, std::string* out) {
  for (int i = 0; i < 4; ++i)
    out->push_back(static_cast<char>(value >> (8 * i)));
}

void AppendFixed64(uint64_t value, std::string* out) {
  for (int i = 0; i < 8; ++i)
    out->push_back(static_cast<char>(value >> (8 * i)));
}

uint64_t DefaultRaw(const FieldDescriptor& field) {
  switch (field.type()) {
    case FieldDescriptor::TYPE_DOUBLE:
      return ToWire(field.type(), field.default_value_double());
    case FieldDescriptor::TYPE_FLOAT:
      return ToWire(field.type(), field.default_value_float());
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SINT64:
    case FieldDescriptor::TYPE_SFIXED64:
      return ToWire(field.type(), field.default_value_int64());
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return ToWire(field.type(), field.default_value_uint64());
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SFIXED32:
      return ToWire(field.type(), field.default_value_int32());
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return ToWire(field.type(), field.default_value_uint32());
    case FieldDescriptor::TYPE_BOOL:
      return ToWire(field.type(), field.default_value_bool());
    case FieldDescriptor::TYPE_ENUM:
      // A proto2 enum field defaults to its type's first value.
      return ToWire(field.type(), field.default_value_enum()->number());
    default:
      return 0;  // strings, bytes, messages, groups: not scalars
  }
}

}  // namespace proto_codec
}  // namespace tensorweave
