// ParseExampleV2 for dense features: each serialized tf.train.Example is
// parsed with protobuf, each dense key's values copied (or its default where
// the feature is missing) into a [batch] + dense_shape output. DecodeRaw
// reinterprets bytes as numbers.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/framework/example.pb.h"
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// `data` with bytes outside printable ASCII written as \xNN (error messages
// must be valid text), cut at 64 bytes.
std::string Escaped(const std::string& data) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < data.size() && i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(data[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  if (data.size() > 64) out += "...";
  return out;
}

const char* KindName(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return "float";
    case DT_INT64:
      return "int64";
    default:
      return "string";
  }
}

// The values of `feature` copied to out[offset, offset + count) when its
// kind is `dtype` and it has `count` values.
Status CopyFeature(const Feature& feature, DataType dtype, int64_t count,
                   const std::string& key, int64_t index, Tensor* out,
                   int64_t offset) {
  const char* kind = feature.kind_case() == Feature::kFloatList   ? "float"
                     : feature.kind_case() == Feature::kInt64List ? "int64"
                     : feature.kind_case() == Feature::kBytesList ? "string"
                                                                  : "none";
  auto mismatch = [&]() {
    return errors::InvalidArgument(
        "Key: ", key, ", Index: ", index,
        ".  Data types don't match. Data type: ", kind,
        " but expected type: ", KindName(dtype));
  };
  auto wrong_count = [&](int64_t size) {
    return errors::InvalidArgument(
        "Key: ", key, ", Index: ", index, ".  Number of ", KindName(dtype),
        " values != expected.  Values size: ", size, " but output shape has ",
        count, " elements");
  };
  if (dtype == DT_FLOAT) {
    if (feature.kind_case() != Feature::kFloatList) return mismatch();
    const auto& values = feature.float_list().value();
    if (values.size() != count) return wrong_count(values.size());
    float* dst = out->data<float>() + offset;
    for (int64_t k = 0; k < count; ++k) dst[k] = values.Get(k);
  } else if (dtype == DT_INT64) {
    if (feature.kind_case() != Feature::kInt64List) return mismatch();
    const auto& values = feature.int64_list().value();
    if (values.size() != count) return wrong_count(values.size());
    int64_t* dst = out->data<int64_t>() + offset;
    for (int64_t k = 0; k < count; ++k) dst[k] = values.Get(k);
  } else {
    if (feature.kind_case() != Feature::kBytesList) return mismatch();
    const auto& values = feature.bytes_list().value();
    if (values.size() != count) return wrong_count(values.size());
    std::string* dst = out->data<std::string>() + offset;
    for (int64_t k = 0; k < count; ++k) dst[k] = values.Get(k);
  }
  return Status::OK();
}

void CopyDefault(const Tensor& value, DataType dtype, int64_t count,
                 Tensor* out, int64_t offset) {
  for (int64_t k = 0; k < count; ++k) {
    if (dtype == DT_FLOAT) {
      out->data<float>()[offset + k] = value.data<float>()[k];
    } else if (dtype == DT_INT64) {
      out->data<int64_t>()[offset + k] = value.data<int64_t>()[k];
    } else {
      out->data<std::string>()[offset + k] = value.data<std::string>()[k];
    }
  }
}

class ParseExampleOp : public OpKernel {
 public:
  explicit ParseExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tdense", &dense_types_));
    ctx->SetStatus(ctx->GetAttr("dense_shapes", &dense_shapes_));
    int64_t num_sparse = 0;
    ctx->SetStatus(ctx->GetAttr("num_sparse", &num_sparse));
    if (num_sparse != 0) {
      ctx->SetStatus(errors::Unimplemented(
          "ParseExampleV2: sparse features are not supported"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    const Tensor& dense_keys = ctx->input(3);
    const int num_dense = static_cast<int>(dense_types_.size());
    OP_REQUIRES(ctx, serialized.rank() <= 1,
                errors::InvalidArgument(
                    "serialized must be a scalar or a vector, got shape ",
                    serialized.shape().ToString()));
    OP_REQUIRES(
        ctx, dense_keys.num_elements() == num_dense,
        errors::InvalidArgument("dense_keys has ", dense_keys.num_elements(),
                                " keys for ", num_dense, " dense outputs"));
    const int64_t batch = serialized.num_elements();
    std::vector<Tensor> outputs;
    std::vector<int64_t> counts;
    for (int i = 0; i < num_dense; ++i) {
      const PartialShape& shape = dense_shapes_[i];
      OP_REQUIRES(ctx, shape.known_rank(),
                  errors::InvalidArgument("dense_shapes[", i,
                                          "] must be fully defined"));
      std::vector<int64_t> dims = serialized.shape().dims();
      int64_t count = 1;
      for (int64_t d : shape.dims()) {
        OP_REQUIRES(
            ctx, d >= 0,
            errors::InvalidArgument("dense_shapes[", i, "] ", shape.ToString(),
                                    " must be fully defined"));
        dims.push_back(d);
        count *= d;
      }
      const Tensor& default_value = ctx->input(5 + i);
      OP_REQUIRES(
          ctx,
          default_value.num_elements() == 0 ||
              default_value.num_elements() == count,
          errors::InvalidArgument("dense_defaults[", i, "] has ",
                                  default_value.num_elements(),
                                  " values for shape ", shape.ToString()));
      Tensor out;
      OP_REQUIRES_OK(
          ctx, Tensor::Allocate(dense_types_[i], TensorShape(dims), &out));
      outputs.push_back(out);
      counts.push_back(count);
    }
    Example example;
    for (int64_t b = 0; b < batch; ++b) {
      const std::string& data = serialized.data<std::string>()[b];
      OP_REQUIRES(
          ctx, example.ParseFromString(data),
          errors::InvalidArgument("Could not parse example input, value: '",
                                  Escaped(data), "'"));
      const auto& features = example.features().feature();
      for (int i = 0; i < num_dense; ++i) {
        const std::string& key = dense_keys.data<std::string>()[i];
        auto it = features.find(key);
        if (it == features.end()) {
          const Tensor& default_value = ctx->input(5 + i);
          OP_REQUIRES(ctx, default_value.num_elements() == counts[i],
                      errors::InvalidArgument(
                          "Name: <unknown>, Feature: ", key,
                          " (data type: ", KindName(dense_types_[i]),
                          ") is required but could not be found."));
          CopyDefault(default_value, dense_types_[i], counts[i], &outputs[i],
                      b * counts[i]);
          continue;
        }
        OP_REQUIRES_OK(ctx, CopyFeature(it->second, dense_types_[i], counts[i],
                                        key, b, &outputs[i], b * counts[i]));
      }
    }
    for (int i = 0; i < num_dense; ++i) ctx->set_output(i, outputs[i]);
  }

 private:
  std::vector<DataType> dense_types_;
  std::vector<PartialShape> dense_shapes_;
};

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("out_type", &out_type_));
    ctx->SetStatus(ctx->GetAttr("little_endian", &little_endian_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int64_t n = input.num_elements();
    const std::string* strings = input.data<std::string>();
    const size_t element = DataTypeSize(out_type_);
    const size_t length = n > 0 ? strings[0].size() : 0;
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, strings[i].size() == length,
                  errors::InvalidArgument(
                      "DecodeRaw requires input strings to all be the same "
                      "size, but element ",
                      i, " has size ", strings[i].size(), " != ", length));
    }
    OP_REQUIRES(
        ctx, length % element == 0,
        errors::InvalidArgument("Input to DecodeRaw has length ", length,
                                " that is not a multiple of ", element,
                                ", the size of ", DataTypeName(out_type_)));
    std::vector<int64_t> dims = input.shape().dims();
    dims.push_back(static_cast<int64_t>(length / element));
    Tensor out;
    OP_REQUIRES_OK(ctx, Tensor::Allocate(out_type_, TensorShape(dims), &out));
    char* dst = static_cast<char*>(out.raw_data());
    const bool swap = little_endian_ != kHostLittleEndian;
    for (int64_t i = 0; i < n; ++i) {
      char* row = dst + i * length;
      std::memcpy(row, strings[i].data(), length);
      if (swap && element > 1) {
        for (size_t k = 0; k < length; k += element) {
          std::reverse(row + k, row + k + element);
        }
      }
    }
    ctx->set_output(0, out);
  }

 private:
  static constexpr bool kHostLittleEndian =
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  DataType out_type_ = DT_FLOAT;
  bool little_endian_ = true;
};

REGISTER_KERNEL(KernelDef("ParseExampleV2"), ParseExampleOp);
REGISTER_KERNEL(KernelDef("DecodeRaw"), DecodeRawOp);

}  // namespace
}  // namespace tensorweave
