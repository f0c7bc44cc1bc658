// ModelBuilder: writes .twl models programmatically (tests, benchmarks and
// tools; the training-side converter writes the same format).
//
//   ModelBuilder b;
//   int x = b.AddTensor(DataType::kFloat32, {1, 4}, "x");
//   int w = b.AddConstant<float>({2, 4}, weights, "w");
//   int y = b.AddTensor(DataType::kFloat32, {1, 2}, "y");
//   b.AddOperator(BuiltinOperator::FULLY_CONNECTED, {x, w, -1}, {y},
//                 b.FullyConnected(ActivationFunctionType::RELU));
//   b.SetInputs({x});
//   b.SetOutputs({y});
//   AlignedBytes bytes = b.Finish();
#ifndef TENSORWEAVE_LITE_RUNTIME_TESTING_MODEL_BUILDER_H_
#define TENSORWEAVE_LITE_RUNTIME_TESTING_MODEL_BUILDER_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "lite/runtime/tensor.h"
#include "lite/schema/twl_generated.h"

namespace twl {
namespace testing {

using schema::ActivationFunctionType;
using schema::BuiltinOperator;
using schema::Padding;

// Bytes in 64-byte-aligned heap memory (as a mapped file would be).
class AlignedBytes {
 public:
  AlignedBytes() = default;
  AlignedBytes(const uint8_t* data, size_t size);
  AlignedBytes(const AlignedBytes& other)
      : AlignedBytes(other.data_, other.size_) {}
  AlignedBytes& operator=(const AlignedBytes& other);
  ~AlignedBytes();
  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Writes the bytes to `path`; false on failure.
  bool WriteFile(const std::string& path) const;

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// An options union member: type tag plus table offset.
struct Options {
  schema::BuiltinOptions type = schema::BuiltinOptions::NONE;
  flatbuffers::Offset<void> table = 0;
};

// The pad fields of Conv2D and DepthwiseConv2D options (Padding::EXPLICIT).
struct ExplicitPads {
  int top = 0, bottom = 0, left = 0, right = 0;
};

class ModelBuilder {
 public:
  ModelBuilder() : fbb_(1024) {}

  int AddTensor(DataType type, const std::vector<int32_t>& shape,
                const std::string& name = "",
                const std::vector<int32_t>& shape_signature = {});
  // A constant tensor holding `values` (stored in its own aligned buffer).
  template <typename T>
  int AddConstant(const std::vector<int32_t>& shape,
                  const std::vector<T>& values, const std::string& name = "") {
    std::vector<uint8_t> bytes(values.size() * sizeof(T));
    if (!bytes.empty()) memcpy(bytes.data(), values.data(), bytes.size());
    return AddConstantBytes(DataTypeOf<T>::value, shape, std::move(bytes),
                            name);
  }
  int AddConstantBytes(DataType type, const std::vector<int32_t>& shape,
                       std::vector<uint8_t> bytes, const std::string& name);
  void AddOperator(BuiltinOperator op, const std::vector<int32_t>& inputs,
                   const std::vector<int32_t>& outputs,
                   Options options = Options(), int version = 1);
  void SetInputs(const std::vector<int32_t>& inputs) { inputs_ = inputs; }
  void SetOutputs(const std::vector<int32_t>& outputs) { outputs_ = outputs; }
  void AddSignature(const std::string& key,
                    const std::vector<std::pair<std::string, int>>& inputs,
                    const std::vector<std::pair<std::string, int>>& outputs);
  void AddMetadata(const std::string& key, const std::string& value);
  void set_version(uint32_t version) { version_ = version; }
  AlignedBytes Finish();

  // Options tables. `pads` is read with Padding::EXPLICIT.
  Options Arithmetic(ActivationFunctionType act = ActivationFunctionType::NONE);
  Options FullyConnected(
      ActivationFunctionType act = ActivationFunctionType::NONE,
      bool keep_num_dims = false);
  Options Conv2D(Padding padding, int stride_h, int stride_w,
                 ActivationFunctionType act = ActivationFunctionType::NONE,
                 int dilation_h = 1, int dilation_w = 1,
                 ExplicitPads pads = {});
  Options DepthwiseConv2D(
      Padding padding, int stride_h, int stride_w, int depth_multiplier,
      ActivationFunctionType act = ActivationFunctionType::NONE,
      int dilation_h = 1, int dilation_w = 1, ExplicitPads pads = {});
  Options Pool2D(Padding padding, int stride_h, int stride_w, int filter_h,
                 int filter_w,
                 ActivationFunctionType act = ActivationFunctionType::NONE);
  Options Softmax(float beta = 1.0f);
  Options Concatenation(
      int axis, ActivationFunctionType act = ActivationFunctionType::NONE);
  Options Reducer(bool keep_dims);
  Options Gather(int axis, int batch_dims = 0);
  Options BatchMatMul(bool adj_x, bool adj_y);
  Options StridedSlice(int begin_mask, int end_mask, int ellipsis_mask,
                       int new_axis_mask, int shrink_axis_mask);
  Options Squeeze(const std::vector<int32_t>& dims);
  Options ArgMax(DataType output_type, bool select_last_index = false,
                 bool keep_dims = false);
  Options LayerNorm(int axis, float epsilon, bool rms = false);
  Options Gelu(bool approximate);
  Options Lstm(int hidden_size, schema::RNNDirection direction,
               bool batch_major = false, float clip = 0,
               bool input_forget = false);
  Options Gru(int hidden_size, schema::RNNDirection direction,
              bool batch_major = false, float clip = 0,
              bool linear_before_reset = false);
  Options Rnn(int hidden_size, schema::RNNDirection direction,
              bool batch_major = false, float clip = 0);
  Options Quantize(int axis, int block_size = 0);
  // Strides, dilations, then pads top, left, bottom, right.
  Options QuantizedConv2D(int stride_h, int stride_w, int dilation_h,
                          int dilation_w, int pad_top, int pad_left,
                          int pad_bottom, int pad_right);

  flatbuffers::FlatBufferBuilder& fbb() { return fbb_; }

 private:
  struct TensorSpec {
    DataType type;
    std::vector<int32_t> shape, shape_signature;
    std::string name;
    uint32_t buffer;
  };
  struct OperatorSpec {
    BuiltinOperator op;
    std::vector<int32_t> inputs, outputs;
    Options options;
    int version;
  };
  struct SignatureSpec {
    std::string key;
    std::vector<std::pair<std::string, int>> inputs, outputs;
  };

  flatbuffers::FlatBufferBuilder fbb_;
  std::vector<TensorSpec> tensors_;
  std::vector<std::vector<uint8_t>> buffers_{{}};  // buffer 0: sentinel
  std::vector<OperatorSpec> operators_;
  std::vector<int32_t> inputs_, outputs_;
  std::vector<SignatureSpec> signatures_;
  std::vector<std::pair<std::string, std::string>> metadata_;
  uint32_t version_ = 1;
};

}  // namespace testing
}  // namespace twl

#endif  // TENSORWEAVE_LITE_RUNTIME_TESTING_MODEL_BUILDER_H_
