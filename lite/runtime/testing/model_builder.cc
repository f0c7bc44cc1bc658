#include "lite/runtime/testing/model_builder.h"

#include <cstdio>
#include <cstdlib>

namespace twl {
namespace testing {

namespace s = ::twl::schema;

AlignedBytes::AlignedBytes(const uint8_t* data, size_t size) : size_(size) {
  data_ = static_cast<uint8_t*>(aligned_alloc(64, (size + 63) / 64 * 64 + 64));
  if (size != 0) memcpy(data_, data, size);
}

AlignedBytes& AlignedBytes::operator=(const AlignedBytes& other) {
  if (this != &other) {
    AlignedBytes copy(other);
    std::swap(data_, copy.data_);
    std::swap(size_, copy.size_);
  }
  return *this;
}

AlignedBytes::~AlignedBytes() { free(data_); }

bool AlignedBytes::WriteFile(const std::string& path) const {
  FILE* file = fopen(path.c_str(), "wb");
  if (file == nullptr) return false;
  bool ok = fwrite(data_, 1, size_, file) == size_;
  return fclose(file) == 0 && ok;
}

int ModelBuilder::AddTensor(DataType type, const std::vector<int32_t>& shape,
                            const std::string& name,
                            const std::vector<int32_t>& shape_signature) {
  tensors_.push_back({type, shape, shape_signature, name, 0});
  return static_cast<int>(tensors_.size()) - 1;
}

int ModelBuilder::AddConstantBytes(DataType type,
                                   const std::vector<int32_t>& shape,
                                   std::vector<uint8_t> bytes,
                                   const std::string& name) {
  buffers_.push_back(std::move(bytes));
  tensors_.push_back(
      {type, shape, {}, name, static_cast<uint32_t>(buffers_.size() - 1)});
  return static_cast<int>(tensors_.size()) - 1;
}

void ModelBuilder::AddOperator(BuiltinOperator op,
                               const std::vector<int32_t>& inputs,
                               const std::vector<int32_t>& outputs,
                               Options options, int version) {
  operators_.push_back({op, inputs, outputs, options, version});
}

void ModelBuilder::AddSignature(
    const std::string& key,
    const std::vector<std::pair<std::string, int>>& inputs,
    const std::vector<std::pair<std::string, int>>& outputs) {
  signatures_.push_back({key, inputs, outputs});
}

void ModelBuilder::AddMetadata(const std::string& key,
                               const std::string& value) {
  metadata_.emplace_back(key, value);
}

AlignedBytes ModelBuilder::Finish() {
  using flatbuffers::Offset;
  std::vector<Offset<s::Buffer>> buffers;
  for (const auto& bytes : buffers_) {
    buffers.push_back(
        s::CreateBufferDirect(fbb_, bytes.empty() ? nullptr : &bytes));
  }
  std::vector<Offset<s::Tensor>> tensors;
  for (const TensorSpec& t : tensors_) {
    tensors.push_back(s::CreateTensorDirect(
        fbb_, &t.shape, static_cast<s::TensorType>(t.type), t.buffer,
        t.name.c_str(),
        t.shape_signature.empty() ? nullptr : &t.shape_signature));
  }
  std::vector<Offset<s::Operator>> operators;
  for (const OperatorSpec& op : operators_) {
    operators.push_back(s::CreateOperatorDirect(
        fbb_, op.op, op.version, &op.inputs, &op.outputs, op.options.type,
        op.options.table));
  }
  std::vector<Offset<s::SubGraph>> graphs = {s::CreateSubGraphDirect(
      fbb_, &tensors, &inputs_, &outputs_, &operators, "main")};
  std::vector<Offset<s::SignatureDef>> signatures;
  for (const SignatureSpec& sig : signatures_) {
    std::vector<Offset<s::TensorMap>> ins, outs;
    for (const auto& p : sig.inputs) {
      ins.push_back(s::CreateTensorMapDirect(fbb_, p.first.c_str(), p.second));
    }
    for (const auto& p : sig.outputs) {
      outs.push_back(s::CreateTensorMapDirect(fbb_, p.first.c_str(), p.second));
    }
    signatures.push_back(
        s::CreateSignatureDefDirect(fbb_, sig.key.c_str(), &ins, &outs, 0));
  }
  std::vector<Offset<s::Metadata>> metadata;
  for (const auto& kv : metadata_) {
    metadata.push_back(
        s::CreateMetadataDirect(fbb_, kv.first.c_str(), kv.second.c_str()));
  }
  auto model = s::CreateModelDirect(fbb_, version_, &graphs, &buffers,
                                    &signatures, &metadata, "test model");
  s::FinishModelBuffer(fbb_, model);
  return AlignedBytes(fbb_.GetBufferPointer(), fbb_.GetSize());
}

Options ModelBuilder::Arithmetic(ActivationFunctionType act) {
  return {s::BuiltinOptions::ArithmeticOptions,
          s::CreateArithmeticOptions(fbb_, act).Union()};
}

Options ModelBuilder::FullyConnected(ActivationFunctionType act,
                                     bool keep_num_dims) {
  return {s::BuiltinOptions::FullyConnectedOptions,
          s::CreateFullyConnectedOptions(fbb_, act, keep_num_dims).Union()};
}

Options ModelBuilder::Conv2D(Padding padding, int stride_h, int stride_w,
                             ActivationFunctionType act, int dilation_h,
                             int dilation_w, ExplicitPads pads) {
  return {s::BuiltinOptions::Conv2DOptions,
          s::CreateConv2DOptions(fbb_, padding, stride_w, stride_h, act,
                                 dilation_w, dilation_h, pads.top, pads.bottom,
                                 pads.left, pads.right)
              .Union()};
}

Options ModelBuilder::DepthwiseConv2D(Padding padding, int stride_h,
                                      int stride_w, int depth_multiplier,
                                      ActivationFunctionType act,
                                      int dilation_h, int dilation_w,
                                      ExplicitPads pads) {
  return {s::BuiltinOptions::DepthwiseConv2DOptions,
          s::CreateDepthwiseConv2DOptions(fbb_, padding, stride_w, stride_h,
                                          depth_multiplier, act, dilation_w,
                                          dilation_h, pads.top, pads.bottom,
                                          pads.left, pads.right)
              .Union()};
}

Options ModelBuilder::Pool2D(Padding padding, int stride_h, int stride_w,
                             int filter_h, int filter_w,
                             ActivationFunctionType act) {
  return {s::BuiltinOptions::Pool2DOptions,
          s::CreatePool2DOptions(fbb_, padding, stride_w, stride_h, filter_w,
                                 filter_h, act)
              .Union()};
}

Options ModelBuilder::Softmax(float beta) {
  return {s::BuiltinOptions::SoftmaxOptions,
          s::CreateSoftmaxOptions(fbb_, beta).Union()};
}

Options ModelBuilder::Concatenation(int axis, ActivationFunctionType act) {
  return {s::BuiltinOptions::ConcatenationOptions,
          s::CreateConcatenationOptions(fbb_, axis, act).Union()};
}

Options ModelBuilder::Reducer(bool keep_dims) {
  return {s::BuiltinOptions::ReducerOptions,
          s::CreateReducerOptions(fbb_, keep_dims).Union()};
}

Options ModelBuilder::Gather(int axis, int batch_dims) {
  return {s::BuiltinOptions::GatherOptions,
          s::CreateGatherOptions(fbb_, axis, batch_dims).Union()};
}

Options ModelBuilder::BatchMatMul(bool adj_x, bool adj_y) {
  return {s::BuiltinOptions::BatchMatMulOptions,
          s::CreateBatchMatMulOptions(fbb_, adj_x, adj_y).Union()};
}

Options ModelBuilder::StridedSlice(int begin_mask, int end_mask,
                                   int ellipsis_mask, int new_axis_mask,
                                   int shrink_axis_mask) {
  return {
      s::BuiltinOptions::StridedSliceOptions,
      s::CreateStridedSliceOptions(fbb_, begin_mask, end_mask, ellipsis_mask,
                                   new_axis_mask, shrink_axis_mask)
          .Union()};
}

Options ModelBuilder::Squeeze(const std::vector<int32_t>& dims) {
  return {s::BuiltinOptions::SqueezeOptions,
          s::CreateSqueezeOptionsDirect(fbb_, &dims).Union()};
}

Options ModelBuilder::ArgMax(DataType output_type, bool select_last_index,
                             bool keep_dims) {
  return {s::BuiltinOptions::ArgMaxOptions,
          s::CreateArgMaxOptions(fbb_, static_cast<s::TensorType>(output_type),
                                 select_last_index, keep_dims)
              .Union()};
}

Options ModelBuilder::LayerNorm(int axis, float epsilon, bool rms) {
  return {s::BuiltinOptions::LayerNormOptions,
          s::CreateLayerNormOptions(fbb_, axis, epsilon, rms).Union()};
}

Options ModelBuilder::Gelu(bool approximate) {
  return {s::BuiltinOptions::GeluOptions,
          s::CreateGeluOptions(fbb_, approximate).Union()};
}

Options ModelBuilder::Lstm(int hidden_size, s::RNNDirection direction,
                           bool batch_major, float clip, bool input_forget) {
  return {s::BuiltinOptions::LSTMOptions,
          s::CreateLSTMOptions(fbb_, hidden_size, direction, batch_major, clip,
                               input_forget)
              .Union()};
}

Options ModelBuilder::Gru(int hidden_size, s::RNNDirection direction,
                          bool batch_major, float clip,
                          bool linear_before_reset) {
  return {s::BuiltinOptions::GRUOptions,
          s::CreateGRUOptions(fbb_, hidden_size, direction, batch_major, clip,
                              linear_before_reset)
              .Union()};
}

Options ModelBuilder::Rnn(int hidden_size, s::RNNDirection direction,
                          bool batch_major, float clip) {
  return {s::BuiltinOptions::RNNOptions,
          s::CreateRNNOptions(fbb_, hidden_size, direction, batch_major, clip)
              .Union()};
}

Options ModelBuilder::Quantize(int axis, int block_size) {
  return {s::BuiltinOptions::QuantizeOptions,
          s::CreateQuantizeOptions(fbb_, axis, block_size).Union()};
}

Options ModelBuilder::QuantizedConv2D(int stride_h, int stride_w,
                                      int dilation_h, int dilation_w,
                                      int pad_top, int pad_left, int pad_bottom,
                                      int pad_right) {
  return {s::BuiltinOptions::QuantizedConv2DOptions,
          s::CreateQuantizedConv2DOptions(fbb_, stride_h, stride_w, dilation_h,
                                          dilation_w, pad_top, pad_left,
                                          pad_bottom, pad_right)
              .Union()};
}

}  // namespace testing
}  // namespace twl
