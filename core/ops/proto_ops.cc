// tf.io.decode_proto (DecodeProtoV2) and tf.io.encode_proto (EncodeProto):
// fields of serialized protocol buffers as tensors and back, for any message
// type whose descriptor is linked in ("local://") or given as a serialized
// FileDescriptorSet. Kernels: core/kernels/decode_proto_op.cc and
// encode_proto_op.cc.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

// sizes: bytes' shape + [number of fields]; each values tensor: bytes' shape
// + [the largest count of its field in the batch, at least 1].
Status DecodeProtoShape(InferenceContext* c) {
  std::vector<std::string> field_names;
  std::vector<DataType> output_types;
  TW_RETURN_IF_ERROR(c->GetAttr("field_names", &field_names));
  TW_RETURN_IF_ERROR(c->GetAttr("output_types", &output_types));
  if (field_names.size() != output_types.size()) {
    return errors::InvalidArgument(
        "field_names and output_types attributes must have the same length "
        "(",
        field_names.size(), " and ", output_types.size(), ")");
  }
  const PartialShape& bytes = c->input(0);
  if (!bytes.known_rank()) {
    for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, bytes);
    return Status::OK();
  }
  std::vector<int64_t> dims = bytes.dims();
  dims.push_back(static_cast<int64_t>(field_names.size()));
  c->set_output(0, PartialShape(dims));
  dims.back() = -1;
  for (int i = 1; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape(dims));
  }
  return Status::OK();
}

// bytes: the batch shape every values tensor has before its last dimension
// (each at least a matrix), which sizes has before its last, len(fields).
Status EncodeProtoShape(InferenceContext* c) {
  std::vector<std::string> field_names;
  TW_RETURN_IF_ERROR(c->GetAttr("field_names", &field_names));
  const int num_fields = c->num_inputs() - 1;
  if (num_fields != static_cast<int>(field_names.size())) {
    return errors::InvalidArgument(
        "Length of inputs list must match field_names: ", num_fields, " vs ",
        field_names.size());
  }
  PartialShape batch;  // unknown rank
  for (int i = 0; i < num_fields; ++i) {
    const PartialShape& value = c->input(1 + i);
    if (!value.known_rank()) continue;
    if (value.rank() < 2) {
      return errors::InvalidArgument("Invalid shape for field ", field_names[i],
                                     ".  Saw shape ", value.ToString(),
                                     " but it should be at least a matrix.");
    }
    PartialShape prefix(
        std::vector<int64_t>(value.dims().begin(), value.dims().end() - 1));
    Status merged = batch.Merge(prefix, &batch);
    if (!merged.ok()) {
      return errors::InvalidArgument(
          "Values must match up to the last dimension; field ", field_names[i],
          " has shape ", value.ToString());
    }
  }
  const PartialShape& sizes = c->input(0);
  if (sizes.known_rank()) {
    if (sizes.rank() < 1) {
      return errors::InvalidArgument("sizes must be at least a vector, got ",
                                     sizes.ToString());
    }
    std::vector<int64_t> expected =
        batch.known_rank() ? batch.dims()
                           : std::vector<int64_t>(sizes.rank() - 1, -1);
    expected.push_back(num_fields);
    if (!sizes.IsCompatibleWith(PartialShape(expected))) {
      return errors::InvalidArgument(
          "sizes should be batch_size + [len(field_names)].  Saw: ",
          sizes.ToString(),
          " but expected: ", PartialShape(expected).ToString());
    }
    PartialShape prefix(
        std::vector<int64_t>(sizes.dims().begin(), sizes.dims().end() - 1));
    TW_RETURN_IF_ERROR(batch.Merge(prefix, &batch));
  }
  c->set_output(0, batch);
  return Status::OK();
}

}  // namespace

REGISTER_OP("DecodeProtoV2")
    .Input("bytes: string")
    .Attr("message_type: string")
    .Attr("field_names: list(string)")
    .Attr("output_types: list(type) >= 0")
    .Attr("descriptor_source: string = 'local://'")
    .Attr("message_format: string = 'binary'")
    .Attr("sanitize: bool = false")
    .Output("sizes: int32")
    .Output("values: output_types")
    .SetShapeFn(DecodeProtoShape)
    .Doc(
        "The fields field_names of each serialized message_type in bytes: "
        "sizes (bytes' shape + [len(field_names)]) counts each field's "
        "values, values[i] (bytes' shape + [max count, at least 1]) holds "
        "them, padded with the field's default. Output types follow the "
        "field types (enums as int32, messages and groups as their "
        "serialized bytes). message_format 'binary' or 'text'; sanitize "
        "parses and reserializes binary input first. descriptor_source: "
        "'local://' (protos linked in), a file holding a serialized "
        "FileDescriptorSet, or 'bytes://' followed by one.");

REGISTER_OP("EncodeProto")
    .Input("sizes: int32")
    .Input("values: Tinput_types")
    .Attr("field_names: list(string)")
    .Attr("message_type: string")
    .Attr("descriptor_source: string = 'local://'")
    .Attr("Tinput_types: list(type) >= 1")
    .Output("bytes: string")
    .SetShapeFn(EncodeProtoShape)
    .Doc(
        "Serializes a batch of message_type messages: field field_names[i] "
        "of message b gets the first sizes[b, i] values of values[i][b] "
        "(values[i]: batch shape + [max count]). The inverse of "
        "DecodeProtoV2; fields are written in field-number order, repeated "
        "scalars packed where the field is.");

}  // namespace tensorweave
