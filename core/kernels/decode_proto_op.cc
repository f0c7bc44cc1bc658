// DecodeProtoV2 (tf.io.decode_proto): the requested fields of a batch of
// serialized messages, read straight from the wire format with the message
// type's descriptors, as TensorFlow's kernel does: a non-repeated field keeps
// the last value on the wire, a repeated one every value (packed or not),
// values whose wire type does not fit the field are skipped, unrequested
// fields are skipped, and malformed bytes are a DataLoss error.
// Text-format input (and binary input with sanitize) is parsed into a
// dynamic message and reserialized first.
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/proto_codec.h"

namespace tensorweave {
namespace {

using google::protobuf::DynamicMessageFactory;
using google::protobuf::Message;
using proto_codec::FieldDescriptor;
using proto_codec::WireReader;
using proto_codec::WireType;

// Gathers text-format parse errors for the error message.
class TextErrors : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (!text_.empty()) text_ += "; ";
    text_ += std::to_string(line + 1) + ":" + std::to_string(column + 1) +
             ": " + message;
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// One requested field: its descriptor, output position and dtype.
struct FieldInfo {
  const FieldDescriptor* desc;
  int output;  // index into field_names / output_types
  DataType dtype;
  WireType wire_type;  // of a non-packed value
  bool packable;       // a scalar that may come packed
  uint64_t default_raw;
  int source;  // the fields_ entry its values are read into (a field named
               // twice is read once)
};

// The values one message holds for one field: raw wire bits for scalars,
// views into the (live) serialized message for strings.
struct FieldValues {
  std::vector<uint64_t> scalars;
  std::vector<std::string_view> strings;
  int64_t size() const {
    return static_cast<int64_t>(scalars.size() + strings.size());
  }
};

class DecodeProtoOp : public OpKernel {
 public:
  explicit DecodeProtoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string source, message_type, format;
    std::vector<std::string> field_names;
    std::vector<DataType> output_types;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("descriptor_source", &source));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message_type", &message_type));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("field_names", &field_names));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("output_types", &output_types));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message_format", &format));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("sanitize", &sanitize_));
    OP_REQUIRES(
        ctx, format == "binary" || format == "text",
        errors::InvalidArgument("format must be one of binary or text, got '",
                                format, "'"));
    is_text_ = format == "text";
    OP_REQUIRES(ctx, field_names.size() == output_types.size(),
                errors::InvalidArgument(
                    "field_names and output_types attributes must have the "
                    "same length"));
    const proto_codec::DescriptorPool* pool = nullptr;
    OP_REQUIRES_OK(ctx,
                   proto_codec::GetDescriptorPool(source, &pool, &owned_pool_));
    const proto_codec::Descriptor* message = nullptr;
    OP_REQUIRES_OK(ctx,
                   proto_codec::FindMessageType(*pool, message_type, &message));
    for (size_t i = 0; i < field_names.size(); ++i) {
      const FieldDescriptor* desc = nullptr;
      OP_REQUIRES_OK(
          ctx, proto_codec::FindField(*pool, *message, field_names[i], &desc));
      OP_REQUIRES(ctx,
                  proto_codec::IsCompatibleType(desc->type(), output_types[i]),
                  errors::InvalidArgument(
                      "Unexpected output type for ", desc->full_name(), ": ",
                      proto_codec::FieldTypeName(desc->type()), " to ",
                      DataTypeName(output_types[i])));
      const WireType wire_type = proto_codec::WireTypeOf(desc->type());
      const int index = static_cast<int>(fields_.size());
      const int source =
          by_number_.emplace(desc->number(), index).first->second;
      fields_.push_back({desc, index, output_types[i], wire_type,
                         wire_type != proto_codec::kLengthDelimited &&
                             wire_type != proto_codec::kStartGroup,
                         proto_codec::DefaultRaw(*desc), source});
    }
    message_name_ = message->full_name();
    if (is_text_ || sanitize_) {
      prototype_ = factory_.GetPrototype(message);
      OP_REQUIRES(ctx, prototype_ != nullptr,
                  errors::Internal("no prototype message for ", message_type));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& bytes = ctx->input(0);
    const int64_t n = bytes.num_elements();
    OP_REQUIRES(ctx, n >= 1,
                errors::InvalidArgument(
                    "Bufs argument must contain at least one value"));
    const int num_fields = static_cast<int>(fields_.size());
    const std::string* inputs = bytes.data<std::string>();
    // Text (or sanitized) input, reserialized; views point into it.
    std::vector<std::string> binary(is_text_ || sanitize_ ? n : 0);
    std::vector<FieldValues> values(n * num_fields);
    std::vector<int64_t> max_size(num_fields, 1);
    for (int64_t m = 0; m < n; ++m) {
      std::string_view wire = inputs[m];
      if (!binary.empty()) {
        OP_REQUIRES_OK(ctx, Reserialize(inputs[m], &binary[m]));
        wire = binary[m];
      }
      FieldValues* row = &values[m * num_fields];
      OP_REQUIRES_OK(ctx, ReadMessage(wire, row));
      for (int f = 0; f < num_fields; ++f) {
        OP_REQUIRES(
            ctx, row[f].size() <= std::numeric_limits<int32_t>::max(),
            errors::InvalidArgument("Field ", fields_[f].desc->full_name(),
                                    " has more than 2^31-1 values"));
        max_size[f] = std::max(max_size[f], row[fields_[f].source].size());
      }
    }
    // sizes: bytes' shape + [num_fields].
    TensorShape sizes_shape = bytes.shape();
    sizes_shape.AddDim(num_fields);
    Tensor* sizes = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, sizes_shape, &sizes));
    int32_t* size_data = sizes->data<int32_t>();
    for (int64_t m = 0; m < n; ++m) {
      for (int f = 0; f < num_fields; ++f) {
        size_data[m * num_fields + fields_[f].output] = static_cast<int32_t>(
            values[m * num_fields + fields_[f].source].size());
      }
    }
    for (int f = 0; f < num_fields; ++f) {
      TensorShape shape = bytes.shape();
      shape.AddDim(max_size[f]);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(1 + fields_[f].output, shape, &out));
      OP_REQUIRES_OK(ctx, FillOutput(fields_[f], values, n, max_size[f], out));
    }
  }

 private:
  // Text -> binary, or binary -> parsed -> binary (sanitize).
  Status Reserialize(const std::string& input, std::string* binary) const {
    std::unique_ptr<Message> message(prototype_->New());
    if (is_text_) {
      google::protobuf::TextFormat::Parser parser;
      TextErrors errors_seen;
      parser.RecordErrorsTo(&errors_seen);
      if (!parser.ParseFromString(input, message.get())) {
        return errors::DataLoss("Unable to parse text protobuf: ",
                                errors_seen.text());
      }
    } else if (!message->ParseFromString(input)) {
      return errors::DataLoss("Unable to parse binary protobuf");
    }
    if (!message->SerializeToString(binary)) {
      return errors::DataLoss("Unable to reserialize the ",
                              is_text_ ? "text" : "binary", " proto as binary");
    }
    return Status::OK();
  }

  // Reads one serialized message, appending each requested field's values
  // to row[field].
  Status ReadMessage(std::string_view wire, FieldValues* row) const {
    WireReader reader(wire);
    while (!reader.AtEnd()) {
      int number = 0;
      WireType type = proto_codec::kVarint;
      if (!reader.ReadTag(&number, &type)) {
        return errors::DataLoss("Malformed tag in serialized ", message_name_);
      }
      auto found = by_number_.find(number);
      if (found == by_number_.end()) {
        if (!reader.SkipValue(number, type)) {
          return errors::DataLoss("Malformed value of field number ", number,
                                  " in serialized ", message_name_);
        }
        continue;
      }
      const FieldInfo& field = fields_[found->second];
      if (!ReadField(field, type, &reader, &row[found->second])) {
        return errors::DataLoss("Malformed value of field ",
                                field.desc->full_name(), " in serialized ",
                                message_name_);
      }
    }
    return Status::OK();
  }

  // Reads one value (or a packed run of values) of a requested field whose
  // tag was just read. A value of another wire type is skipped.
  static bool ReadField(const FieldInfo& field, WireType type,
                        WireReader* reader, FieldValues* out) {
    const bool repeated = field.desc->is_repeated();
    auto add_scalar = [&](uint64_t raw) {
      if (!repeated) out->scalars.clear();  // the last value wins
      out->scalars.push_back(raw);
    };
    if (type == proto_codec::kLengthDelimited &&
        field.wire_type == proto_codec::kStartGroup) {
      return false;  // a group cannot come packed (TensorFlow: DataLoss)
    }
    if (type == proto_codec::kLengthDelimited && field.packable) {
      std::string_view packed;
      if (!reader->ReadLengthDelimited(&packed)) return false;
      WireReader values(packed);
      while (!values.AtEnd()) {
        uint64_t raw = 0;
        if (!values.ReadScalar(field.wire_type, &raw)) return false;
        add_scalar(raw);
      }
      return true;
    }
    if (type != field.wire_type) {
      return reader->SkipValue(field.desc->number(), type);
    }
    std::string_view bytes;
    switch (type) {
      case proto_codec::kLengthDelimited:
        if (!reader->ReadLengthDelimited(&bytes)) return false;
        break;
      case proto_codec::kStartGroup:
        if (!reader->ReadGroup(field.desc->number(), &bytes)) return false;
        break;
      default: {
        uint64_t raw = 0;
        if (!reader->ReadScalar(type, &raw)) return false;
        add_scalar(raw);
        return true;
      }
    }
    if (!repeated) out->strings.clear();
    out->strings.push_back(bytes);
    return true;
  }

  // Output `field` ([n, width] flattened): each message's values, then the
  // field's default.
  Status FillOutput(const FieldInfo& field,
                    const std::vector<FieldValues>& values, int64_t n,
                    int64_t width, Tensor* out) const {
    const int num_fields = static_cast<int>(fields_.size());
    if (field.dtype == DT_STRING) {
      const FieldDescriptor::Type type = field.desc->type();
      const std::string fallback = type == FieldDescriptor::TYPE_STRING ||
                                           type == FieldDescriptor::TYPE_BYTES
                                       ? field.desc->default_value_string()
                                       : std::string();
      std::string* data = out->data<std::string>();
      for (int64_t m = 0; m < n; ++m) {
        const auto& strings = values[m * num_fields + field.source].strings;
        std::string* row = data + m * width;
        for (int64_t j = 0; j < width; ++j) {
          row[j] = j < static_cast<int64_t>(strings.size())
                       ? std::string(strings[j])
                       : fallback;
        }
      }
      return Status::OK();
    }
    return DispatchType<float, double, int32_t, int64_t, uint32_t, uint64_t,
                        bool>(field.dtype, [&](auto tag) {
      using T = decltype(tag);
      const FieldDescriptor::Type type = field.desc->type();
      const T fallback = proto_codec::FromWire<T>(type, field.default_raw);
      T* data = out->data<T>();
      for (int64_t m = 0; m < n; ++m) {
        const auto& scalars = values[m * num_fields + field.source].scalars;
        T* row = data + m * width;
        for (int64_t j = 0; j < width; ++j) {
          row[j] = j < static_cast<int64_t>(scalars.size())
                       ? proto_codec::FromWire<T>(type, scalars[j])
                       : fallback;
        }
      }
      return Status::OK();
    });
  }

  std::unique_ptr<proto_codec::DescriptorPool> owned_pool_;
  DynamicMessageFactory factory_;  // after owned_pool_: destroyed first
  const Message* prototype_ = nullptr;
  std::vector<FieldInfo> fields_;
  std::unordered_map<int, int> by_number_;  // field number -> fields_ index
  std::string message_name_;
  bool is_text_ = false;
  bool sanitize_ = false;
};

REGISTER_KERNEL(KernelDef("DecodeProtoV2"), DecodeProtoOp);

}  // namespace
}  // namespace tensorweave
