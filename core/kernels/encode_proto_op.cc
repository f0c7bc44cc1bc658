// EncodeProto (tf.io.encode_proto): serializes a batch of messages from
// tensors, written straight in the wire format as TensorFlow's kernel does:
// fields in field-number order, field i of message b holding the first
// sizes[b, i] values of values[i][b], repeated scalars packed where the field
// is (proto3's default, or [packed = true]), groups between their start and
// end tags.
#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/proto_codec.h"

namespace tensorweave {
namespace {

using proto_codec::FieldDescriptor;
using proto_codec::WireType;

void AppendScalar(WireType wire_type, uint64_t raw, std::string* out) {
  switch (wire_type) {
    case proto_codec::kFixed32:
      proto_codec::AppendFixed32(static_cast<uint32_t>(raw), out);
      break;
    case proto_codec::kFixed64:
      proto_codec::AppendFixed64(raw, out);
      break;
    default:
      proto_codec::AppendVarint(raw, out);
  }
}

class EncodeProtoOp : public OpKernel {
 public:
  explicit EncodeProtoOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string source, message_type;
    std::vector<DataType> input_types;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("descriptor_source", &source));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message_type", &message_type));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("field_names", &field_names_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("Tinput_types", &input_types));
    OP_REQUIRES(ctx, input_types.size() == field_names_.size(),
                errors::InvalidArgument(
                    "Length of inputs list must match field_names: ",
                    input_types.size(), " vs ", field_names_.size()));
    const proto_codec::DescriptorPool* pool = nullptr;
    OP_REQUIRES_OK(ctx,
                   proto_codec::GetDescriptorPool(source, &pool, &owned_pool_));
    const proto_codec::Descriptor* message = nullptr;
    OP_REQUIRES_OK(ctx,
                   proto_codec::FindMessageType(*pool, message_type, &message));
    for (size_t i = 0; i < field_names_.size(); ++i) {
      const FieldDescriptor* field = nullptr;
      OP_REQUIRES_OK(ctx, proto_codec::FindField(*pool, *message,
                                                 field_names_[i], &field));
      OP_REQUIRES(ctx,
                  proto_codec::IsCompatibleType(field->type(), input_types[i]),
                  errors::InvalidArgument(
                      "Incompatible type for field ", field_names_[i],
                      ".  Saw dtype: ", DataTypeName(input_types[i]),
                      " but field type is: ",
                      proto_codec::FieldTypeName(field->type())));
      fields_.push_back(field);
    }
    order_.resize(fields_.size());
    std::iota(order_.begin(), order_.end(), 0);
    std::stable_sort(order_.begin(), order_.end(), [this](int a, int b) {
      return fields_[a]->number() < fields_[b]->number();
    });
  }

  void Compute(OpKernelContext* ctx) override {
    const int num_fields = static_cast<int>(fields_.size());
    const Tensor& sizes = ctx->input(0);
    // The batch shape: every value tensor's shape but its last dimension.
    TensorShape batch;
    for (int i = 0; i < num_fields; ++i) {
      const Tensor& value = ctx->input(1 + i);
      OP_REQUIRES(
          ctx, value.rank() >= 2,
          errors::InvalidArgument("Invalid shape for field ", field_names_[i],
                                  ".  Saw shape ", value.shape().ToString(),
                                  " but it should be at least a matrix."));
      TensorShape prefix(std::vector<int64_t>(value.shape().dims().begin(),
                                              value.shape().dims().end() - 1));
      if (i == 0) batch = prefix;
      OP_REQUIRES(ctx, prefix == batch,
                  errors::InvalidArgument(
                      "Values must match up to the last dimension: field ",
                      field_names_[i], " has shape ", value.shape().ToString(),
                      ", field ", field_names_[0], " has batch shape ",
                      batch.ToString()));
    }
    TensorShape expected_sizes = batch;
    expected_sizes.AddDim(num_fields);
    OP_REQUIRES(ctx, sizes.shape() == expected_sizes,
                errors::InvalidArgument(
                    "sizes should be batch_size + [len(field_names)].  Saw: ",
                    sizes.shape().ToString(),
                    " but expected: ", expected_sizes.ToString()));
    const int64_t n = batch.num_elements();
    const int32_t* size_data = sizes.data<int32_t>();
    for (int i = 0; i < num_fields; ++i) {
      const Tensor& value = ctx->input(1 + i);
      const int64_t width = value.shape().dim(value.rank() - 1);
      for (int64_t m = 0; m < n; ++m) {
        const int32_t size = size_data[m * num_fields + i];
        OP_REQUIRES(ctx, size >= 0 && size <= width,
                    errors::InvalidArgument(
                        size < 0 ? "Size to write must not be negative"
                                 : "Size to write must not be larger than "
                                   "value tensor",
                        "; but saw: ", size, size < 0 ? " < 0" : " > ",
                        size < 0 ? "" : std::to_string(width), " at message ",
                        m, " field ", i));
      }
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, batch, &out));
    std::string* bytes = out->data<std::string>();
    for (int64_t m = 0; m < n; ++m) {
      bytes[m].clear();
      for (int i : order_) {
        const Tensor& value = ctx->input(1 + i);
        const int64_t width = value.shape().dim(value.rank() - 1);
        const int32_t size = size_data[m * num_fields + i];
        if (size == 0) continue;
        OP_REQUIRES_OK(
            ctx, WriteField(*fields_[i], value, m * width, size, &bytes[m]));
      }
    }
  }

 private:
  // Appends `count` values of `field`, from `value`'s flat element `start`.
  static Status WriteField(const FieldDescriptor& field, const Tensor& value,
                           int64_t start, int32_t count, std::string* out) {
    const int number = field.number();
    const FieldDescriptor::Type type = field.type();
    if (value.dtype() == DT_STRING) {
      const std::string* data = value.data<std::string>() + start;
      for (int32_t j = 0; j < count; ++j) {
        if (type == FieldDescriptor::TYPE_GROUP) {
          proto_codec::AppendTag(number, proto_codec::kStartGroup, out);
          out->append(data[j]);
          proto_codec::AppendTag(number, proto_codec::kEndGroup, out);
        } else {
          proto_codec::AppendTag(number, proto_codec::kLengthDelimited, out);
          proto_codec::AppendVarint(data[j].size(), out);
          out->append(data[j]);
        }
      }
      return Status::OK();
    }
    const WireType wire_type = proto_codec::WireTypeOf(type);
    return DispatchType<float, double, int32_t, int64_t, uint32_t, uint64_t,
                        bool>(value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* data = value.data<T>() + start;
      if (field.is_packed()) {
        std::string packed;
        for (int32_t j = 0; j < count; ++j) {
          AppendScalar(wire_type, proto_codec::ToWire(type, data[j]), &packed);
        }
        proto_codec::AppendTag(number, proto_codec::kLengthDelimited, out);
        proto_codec::AppendVarint(packed.size(), out);
        out->append(packed);
      } else {
        for (int32_t j = 0; j < count; ++j) {
          proto_codec::AppendTag(number, wire_type, out);
          AppendScalar(wire_type, proto_codec::ToWire(type, data[j]), out);
        }
      }
      return Status::OK();
    });
  }

  std::unique_ptr<proto_codec::DescriptorPool> owned_pool_;
  std::vector<std::string> field_names_;
  std::vector<const FieldDescriptor*> fields_;
  std::vector<int> order_;  // indices into fields_ by field number
};

REGISTER_KERNEL(KernelDef("EncodeProto"), EncodeProtoOp);

}  // namespace
}  // namespace tensorweave
