// VerifyModel: a .twl file is untrusted input. First the flatbuffers
// Verifier proves every offset stays inside the buffer; then semantic checks
// prove that what the interpreter will index is in range and consistent.
#include <cstdarg>
#include <cstdio>
#include <vector>

#include "lite/runtime/builtin_ops.h"
#include "lite/runtime/model.h"
#include "lite/runtime/tensor.h"

namespace twl {
namespace {

using flatbuffers::Vector;

Status Invalid(const char* format, ...) __attribute__((format(printf, 1, 2)));
Status Invalid(const char* format, ...) {
  char message[Status::kMaxMessage];
  va_list args;
  va_start(args, format);
  vsnprintf(message, sizeof(message), format, args);
  va_end(args);
  return Status::Error(StatusCode::kInvalidModel, "%s", message);
}

template <typename T>
uint32_t SizeOf(const Vector<T>* v) {
  return v == nullptr ? 0 : v->size();
}

Status VerifyTensor(
    const schema::Tensor* tensor, int index,
    const Vector<flatbuffers::Offset<schema::Buffer>>* buffers) {
  const char* name = tensor->name() ? tensor->name()->c_str() : "";
  int type = static_cast<int>(tensor->type());
  if (!IsKnownDataType(type)) {
    return Invalid("tensor %d '%s': unknown type %d", index, name, type);
  }
  Shape shape;
  const Vector<int32_t>* dims = tensor->shape();
  Status status =
      MakeShape(dims ? dims->data() : nullptr, SizeOf(dims), &shape);
  if (status.ok()) {
    size_t bytes = 0;
    status = ComputeByteSize(shape, static_cast<DataType>(type), &bytes);
    if (status.ok() && tensor->buffer() >= SizeOf(buffers)) {
      return Invalid(
          "tensor %d '%s': buffer index %u out of range (model has "
          "%u buffers)",
          index, name, tensor->buffer(), SizeOf(buffers));
    }
    const schema::Buffer* buffer =
        status.ok() ? buffers->Get(tensor->buffer()) : nullptr;
    uint32_t data_size = buffer ? SizeOf(buffer->data()) : 0;
    if (status.ok() && data_size != 0 && data_size != bytes) {
      char text[96];
      return Invalid(
          "tensor %d '%s': buffer %u holds %u bytes, but shape %s "
          "of %s needs %zu",
          index, name, tensor->buffer(), data_size,
          shape.ToString(text, sizeof(text)),
          DataTypeName(static_cast<DataType>(type)), bytes);
    }
  }
  if (!status.ok()) return status.WithPrefix("tensor %d '%s'", index, name);
  const Vector<int32_t>* signature = tensor->shape_signature();
  if (signature != nullptr && signature->size() != 0) {
    if (signature->size() != static_cast<uint32_t>(shape.rank)) {
      return Invalid("tensor %d '%s': shape_signature rank %u != shape rank %d",
                     index, name, signature->size(), shape.rank);
    }
    for (int i = 0; i < shape.rank; ++i) {
      int32_t d = signature->Get(i);
      if (d != -1 && d != shape.dims[i]) {
        return Invalid(
            "tensor %d '%s': shape_signature dim %d is %d, must be "
            "-1 or %d",
            index, name, i, d, shape.dims[i]);
      }
    }
  }
  return Status::Ok();
}

class SubGraphVerifier {
 public:
  SubGraphVerifier(const schema::Model* model, const schema::SubGraph* graph)
      : model_(model), graph_(graph), num_tensors_(SizeOf(graph->tensors())) {}

  Status Verify() {
    producer_.assign(num_tensors_, kNotProduced);
    is_constant_.assign(num_tensors_, false);
    const auto* buffers = model_->buffers();
    for (uint32_t t = 0; t < num_tensors_; ++t) {
      const schema::Tensor* tensor = graph_->tensors()->Get(t);
      TWL_RETURN_IF_ERROR(VerifyTensor(tensor, t, buffers));
      const schema::Buffer* buffer = buffers->Get(tensor->buffer());
      is_constant_[t] = SizeOf(buffer->data()) != 0;
    }
    const Vector<int32_t>* inputs = graph_->inputs();
    for (uint32_t i = 0; i < SizeOf(inputs); ++i) {
      int32_t t = inputs->Get(i);
      TWL_RETURN_IF_ERROR(CheckIndex("graph input", i, t));
      if (is_constant_[t]) {
        return Invalid("graph input %u: tensor %d is a constant", i, t);
      }
      if (producer_[t] == kGraphInput) {
        return Invalid("graph input %u: tensor %d listed twice", i, t);
      }
      const Vector<int32_t>* dims = graph_->tensors()->Get(t)->shape();
      for (uint32_t d = 0; d < SizeOf(dims); ++d) {
        // Converters write 1 for a dynamic dim; a caller may still resize
        // an input to an empty batch at run time.
        if (dims->Get(d) == 0) {
          return Invalid(
              "graph input %u: tensor %d declares dimension %u of size 0 "
              "(corrupt model)",
              i, t, d);
        }
      }
      producer_[t] = kGraphInput;
    }
    for (uint32_t op = 0; op < SizeOf(graph_->operators()); ++op) {
      TWL_RETURN_IF_ERROR(VerifyOperator(op, graph_->operators()->Get(op)));
    }
    const Vector<int32_t>* outputs = graph_->outputs();
    if (SizeOf(outputs) == 0) return Invalid("the graph has no outputs");
    for (uint32_t i = 0; i < SizeOf(outputs); ++i) {
      int32_t t = outputs->Get(i);
      TWL_RETURN_IF_ERROR(CheckIndex("graph output", i, t));
      if (producer_[t] == kNotProduced && !is_constant_[t]) {
        return Invalid("graph output %u: tensor %d is never computed", i, t);
      }
    }
    return Status::Ok();
  }

 private:
  static constexpr int kNotProduced = -2;
  static constexpr int kGraphInput = -1;

  Status CheckIndex(const char* what, uint32_t i, int32_t t) {
    if (t < 0 || static_cast<uint32_t>(t) >= num_tensors_) {
      return Invalid("%s %u: index %d out of range (model has %u tensors)",
                     what, i, t, num_tensors_);
    }
    return Status::Ok();
  }

  Status VerifyOperator(uint32_t index, const schema::Operator* op) {
    int code = static_cast<int>(op->opcode());
    if (!IsKnownOp(code)) {
      return Invalid("operator %u: unknown op code %d", index, code);
    }
    const char* name = OpName(op->opcode());
    if (op->version() < 1 || op->version() > MaxOpVersion(op->opcode())) {
      return Invalid(
          "operator %u (%s): unsupported op version %d (this "
          "runtime knows 1..%d)",
          index, name, op->version(), MaxOpVersion(op->opcode()));
    }
    BuiltinOptions type = op->builtin_options_type();
    if (type != BuiltinOptions::NONE && type != ExpectedOptions(op->opcode())) {
      return Invalid("operator %u (%s): options %s do not belong to this op",
                     index, name,
                     IsKnownOptions(type) ? schema::EnumNameBuiltinOptions(type)
                                          : "UNKNOWN");
    }
    if (type != BuiltinOptions::NONE && op->builtin_options() == nullptr) {
      return Invalid("operator %u (%s): options table missing", index, name);
    }
    const Vector<int32_t>* inputs = op->inputs();
    const Vector<int32_t>* outputs = op->outputs();
    if (SizeOf(outputs) == 0) {
      return Invalid("operator %u (%s): has no outputs", index, name);
    }
    for (uint32_t i = 0; i < SizeOf(inputs); ++i) {
      int32_t t = inputs->Get(i);
      if (t == -1) continue;  // absent optional input
      if (t < 0 || static_cast<uint32_t>(t) >= num_tensors_) {
        return Invalid(
            "operator %u (%s): input index %d out of range (model "
            "has %u tensors)",
            index, name, t, num_tensors_);
      }
      if (is_constant_[t] || producer_[t] == kGraphInput) continue;
      if (producer_[t] == kNotProduced) {
        return Invalid(
            "operator %u (%s): input %u reads tensor %d, which no "
            "earlier operator writes (cycle, wrong order or "
            "missing producer)",
            index, name, i, t);
      }
    }
    for (uint32_t i = 0; i < SizeOf(outputs); ++i) {
      int32_t t = outputs->Get(i);
      if (t < 0 || static_cast<uint32_t>(t) >= num_tensors_) {
        return Invalid(
            "operator %u (%s): output index %d out of range (model "
            "has %u tensors)",
            index, name, t, num_tensors_);
      }
      for (uint32_t j = 0; j < SizeOf(inputs); ++j) {
        if (inputs->Get(j) == t) {
          return Invalid(
              "operator %u (%s): tensor %d is both input %u and "
              "output %u",
              index, name, t, j, i);
        }
      }
      if (is_constant_[t]) {
        return Invalid("operator %u (%s): output %u writes constant tensor %d",
                       index, name, i, t);
      }
      if (producer_[t] == kGraphInput) {
        return Invalid("operator %u (%s): output %u writes graph input %d",
                       index, name, i, t);
      }
      if (producer_[t] >= 0) {
        return Invalid(
            "operator %u (%s): output %u writes tensor %d, already "
            "written by operator %d",
            index, name, i, t, producer_[t]);
      }
      producer_[t] = static_cast<int>(index);
    }
    return Status::Ok();
  }

  static bool IsKnownOptions(BuiltinOptions type) {
    return type >= BuiltinOptions::MIN && type <= BuiltinOptions::MAX;
  }

  const schema::Model* model_;
  const schema::SubGraph* graph_;
  uint32_t num_tensors_;
  std::vector<int> producer_;  // op index, kGraphInput or kNotProduced
  std::vector<bool> is_constant_;
};

Status VerifySignatures(const schema::Model* model) {
  uint32_t num_graphs = SizeOf(model->subgraphs());
  for (uint32_t s = 0; s < SizeOf(model->signature_defs()); ++s) {
    const schema::SignatureDef* sig = model->signature_defs()->Get(s);
    if (sig->signature_key() == nullptr) {
      return Invalid("signature %u: missing signature_key", s);
    }
    if (sig->subgraph_index() >= num_graphs) {
      return Invalid(
          "signature %u '%s': subgraph index %u out of range "
          "(model has %u subgraphs)",
          s, sig->signature_key()->c_str(), sig->subgraph_index(), num_graphs);
    }
    uint32_t num_tensors =
        SizeOf(model->subgraphs()->Get(sig->subgraph_index())->tensors());
    for (const auto* maps : {sig->inputs(), sig->outputs()}) {
      for (uint32_t i = 0; i < SizeOf(maps); ++i) {
        const schema::TensorMap* map = maps->Get(i);
        if (map->name() == nullptr || map->tensor_index() >= num_tensors) {
          return Invalid(
              "signature %u '%s': entry %u has no name or tensor "
              "index %u out of range (subgraph has %u tensors)",
              s, sig->signature_key()->c_str(), i, map->tensor_index(),
              num_tensors);
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status VerifyModel(const uint8_t* data, size_t size) {
  if (size < 8 || size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return Invalid("model size %zu is out of range", size);
  }
  if (!schema::ModelBufferHasIdentifier(data)) {
    return Invalid("not a .twl model (file identifier is not \"TWL1\")");
  }
  flatbuffers::Verifier verifier(data, size, /*max_depth=*/64,
                                 /*max_tables=*/1000000);
  if (!schema::VerifyModelBuffer(verifier)) {
    return Invalid("flatbuffer verification failed (truncated or corrupt)");
  }
  const schema::Model* model = schema::GetModel(data);
  if (model->version() == 0 || model->version() > kSchemaVersion) {
    return Status::Error(StatusCode::kUnsupported,
                         "schema version %u not supported (this runtime reads "
                         "1..%u)",
                         model->version(), kSchemaVersion);
  }
  if (SizeOf(model->subgraphs()) == 0) return Invalid("model has no subgraphs");
  if (SizeOf(model->buffers()) == 0 ||
      SizeOf(model->buffers()->Get(0)->data()) != 0) {
    return Invalid("buffer 0 must exist and be empty (the sentinel buffer)");
  }
  for (uint32_t s = 0; s < model->subgraphs()->size(); ++s) {
    SubGraphVerifier graph(model, model->subgraphs()->Get(s));
    Status status = graph.Verify();
    if (!status.ok()) return status.WithPrefix("subgraph %u", s);
  }
  return VerifySignatures(model);
}

}  // namespace twl
