// DecodeCSV, DecodeCompressed, SerializeTensor and ParseTensor (ops in
// core/ops/io_extra_ops.cc), with TensorFlow's semantics and messages.
#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/op_kernel.h"
#include "core/kernels/parse_number.h"
#include "core/util/record_io.h"

namespace tensorweave {
namespace {

// Bytes for a message: printable ASCII as is, the rest as \xNN (messages
// must be valid UTF-8).
std::string CEscape(const std::string& s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

class DecodeCSVOp : public OpKernel {
 public:
  explicit DecodeCSVOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string delim;
    ctx->SetStatus(ctx->GetAttr("OUT_TYPE", &out_type_));
    ctx->SetStatus(ctx->GetAttr("field_delim", &delim));
    ctx->SetStatus(ctx->GetAttr("use_quote_delim", &use_quote_delim_));
    ctx->SetStatus(ctx->GetAttr("na_value", &na_value_));
    ctx->SetStatus(ctx->GetAttr("select_cols", &select_cols_));
    if (delim.size() != 1) {
      ctx->SetStatus(
          errors::InvalidArgument("field_delim should be only 1 char"));
    } else {
      delim_ = delim[0];
    }
    if (!select_cols_.empty() && select_cols_.size() != out_type_.size()) {
      ctx->SetStatus(
          errors::InvalidArgument("select_cols should match output size"));
    }
    for (size_t i = 0; i < select_cols_.size(); ++i) {
      if (select_cols_[i] < 0) {
        ctx->SetStatus(
            errors::InvalidArgument("select_cols contains negative values."));
        break;
      }
      if (i > 0 && select_cols_[i] <= select_cols_[i - 1]) {
        ctx->SetStatus(
            errors::InvalidArgument("select_cols is not strictly increasing."));
        break;
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& records = ctx->input(0);
    const int n_fields = static_cast<int>(out_type_.size());
    for (int f = 0; f < n_fields; ++f) {
      const Tensor& d = ctx->input(1 + f);
      OP_REQUIRES(ctx, d.rank() <= 1,
                  errors::InvalidArgument(
                      "Each record default should be at most rank 1"));
      OP_REQUIRES(ctx, d.num_elements() < 2,
                  errors::InvalidArgument(
                      "There should only be 1 default per field but field ", f,
                      " has ", d.num_elements()));
    }
    std::vector<Tensor*> outputs(n_fields);
    for (int f = 0; f < n_fields; ++f) {
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(f, records.shape(), &outputs[f]));
    }
    const std::string* recs = records.data<std::string>();
    std::vector<std::string> fields;
    for (int64_t i = 0; i < records.num_elements(); ++i) {
      fields.clear();
      OP_REQUIRES_OK(ctx, ExtractFields(recs[i], &fields));
      OP_REQUIRES(
          ctx, static_cast<int>(fields.size()) == n_fields,
          errors::InvalidArgument("Expect ", n_fields, " fields but have ",
                                  fields.size(), " in record ", i));
      for (int f = 0; f < n_fields; ++f) {
        OP_REQUIRES_OK(ctx, Convert(ctx, f, i, fields[f], outputs[f]));
      }
    }
  }

 private:
  template <typename T>
  Status ConvertNumber(const Tensor& def, int f, int64_t i,
                       const std::string& field, const char* type_name,
                       Tensor* out) {
    T* o = out->data<T>();
    if (field.empty() || field == na_value_) {
      if (def.num_elements() != 1) {
        return errors::InvalidArgument(
            "Field ", f, " is required but missing in record ", i, "!");
      }
      o[i] = def.data<T>()[0];
      return Status::OK();
    }
    if (!ParseNumber<T>(field, &o[i])) {
      return errors::InvalidArgument("Field ", f, " in record ", i,
                                     " is not a valid ", type_name, ": ",
                                     CEscape(field));
    }
    return Status::OK();
  }

  Status Convert(OpKernelContext* ctx, int f, int64_t i,
                 const std::string& field, Tensor* out) {
    const Tensor& def = ctx->input(1 + f);
    switch (out_type_[f]) {
      case DT_INT32:
        return ConvertNumber<int32_t>(def, f, i, field, "int32", out);
      case DT_INT64:
        return ConvertNumber<int64_t>(def, f, i, field, "int64", out);
      case DT_FLOAT:
        return ConvertNumber<float>(def, f, i, field, "float", out);
      case DT_DOUBLE:
        return ConvertNumber<double>(def, f, i, field, "double", out);
      case DT_STRING: {
        std::string* o = out->data<std::string>();
        if (field.empty() || field == na_value_) {
          if (def.num_elements() != 1) {
            return errors::InvalidArgument(
                "Field ", f, " is required but missing in record ", i, "!");
          }
          o[i] = def.data<std::string>()[0];
        } else {
          o[i] = field;
        }
        return Status::OK();
      }
      default:
        return errors::InvalidArgument("csv: data type ",
                                       DataTypeName(out_type_[f]),
                                       " not supported in field ", f);
    }
  }

  // TensorFlow's DecodeCSVOp::ExtractFields, rule for rule.
  Status ExtractFields(const std::string& input,
                       std::vector<std::string>* result) const {
    const bool select_all = select_cols_.empty();
    size_t idx = 0;
    int64_t num_parsed = 0;
    size_t selector = 0;
    if (input.empty()) return Status::OK();
    while (idx < input.size()) {
      if (input[idx] == '\n' || input[idx] == '\r') {
        ++idx;
        continue;
      }
      bool quoted = false;
      const bool include = select_all || select_cols_[selector] == num_parsed;
      if (use_quote_delim_ && input[idx] == '"') {
        quoted = true;
        ++idx;
      }
      std::string field;
      if (!quoted) {
        while (idx < input.size() && input[idx] != delim_) {
          if ((use_quote_delim_ && input[idx] == '"') || input[idx] == '\n' ||
              input[idx] == '\r') {
            return errors::InvalidArgument(
                "Unquoted fields cannot have quotes/CRLFs inside");
          }
          if (include) field += input[idx];
          ++idx;
        }
        ++idx;
      } else {
        while (idx < input.size() - 1 &&
               (input[idx] != '"' || input[idx + 1] != delim_)) {
          if (input[idx] != '"') {
            if (include) field += input[idx];
            ++idx;
          } else {
            if (input[idx + 1] != '"') {
              return errors::InvalidArgument(
                  "Quote inside a string has to be escaped by another quote");
            }
            if (include) field += '"';
            idx += 2;
          }
        }
        if (!(idx < input.size() && input[idx] == '"' &&
              (idx == input.size() - 1 || input[idx + 1] == delim_))) {
          return errors::InvalidArgument(
              "Quoted field has to end with quote followed by delim or end");
        }
        idx += 2;
      }
      ++num_parsed;
      if (include) {
        result->push_back(std::move(field));
        ++selector;
        if (!select_all && selector == select_cols_.size()) {
          return Status::OK();
        }
      }
    }
    const bool include = select_all || select_cols_[selector] == num_parsed;
    if (include && input.back() == delim_) result->emplace_back();
    return Status::OK();
  }

  std::vector<DataType> out_type_;
  char delim_ = ',';
  bool use_quote_delim_ = true;
  std::string na_value_;
  std::vector<int64_t> select_cols_;
};

class DecodeCompressedOp : public OpKernel {
 public:
  explicit DecodeCompressedOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("compression_type", &compression_type_));
    if (ctx->status().ok()) {
      ctx->SetStatus(io::ValidateCompressionType(compression_type_));
    }
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* src = in.data<std::string>();
    std::string* dst = out->data<std::string>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      OP_REQUIRES_OK(
          ctx,
          io::Decompress(src[i], compression_type_,
                         StrCat("DecodeCompressed: element ", i), &dst[i]));
    }
  }

 private:
  std::string compression_type_;
};

class SerializeTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    TensorProto proto;
    ctx->input(0).ToProto(&proto);
    std::string bytes;
    OP_REQUIRES(ctx, proto.SerializeToString(&bytes),
                errors::Internal("TensorProto serialization failed"));
    ctx->set_output(0, Tensor::Scalar<std::string>(std::move(bytes)));
  }
};

class ParseTensorOp : public OpKernel {
 public:
  explicit ParseTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("out_type", &out_type_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.rank() == 0,
                errors::InvalidArgument(
                    "Expected `serialized` to be a scalar, got shape: ",
                    in.shape().ToString()));
    const std::string& serialized = in.data<std::string>()[0];
    TensorProto proto;
    OP_REQUIRES(ctx, proto.ParseFromString(serialized),
                errors::InvalidArgument(
                    "Could not parse `serialized` as TensorProto: '",
                    CEscape(serialized), "'"));
    Tensor out;
    OP_REQUIRES_OK(ctx, Tensor::FromProto(proto, &out));
    OP_REQUIRES(
        ctx, out.dtype() == out_type_,
        errors::InvalidArgument("Type mismatch between parsed tensor (",
                                DataTypeName(out.dtype()), ") and dtype (",
                                DataTypeName(out_type_), ")"));
    ctx->set_output(0, std::move(out));
  }

 private:
  DataType out_type_ = DT_INVALID;
};

REGISTER_KERNEL(KernelDef("DecodeCSV"), DecodeCSVOp);
REGISTER_KERNEL(KernelDef("DecodeCompressed"), DecodeCompressedOp);
REGISTER_KERNEL(KernelDef("SerializeTensor"), SerializeTensorOp);
REGISTER_KERNEL(KernelDef("ParseTensor"), ParseTensorOp);

}  // namespace
}  // namespace tensorweave
