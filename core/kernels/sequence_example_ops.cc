// ParseExampleV2 (dense, variable-length dense and sparse features) and
// ParseSequenceExampleV2 (context and feature-list features of
// tf.train.SequenceExample): each serialized proto is parsed with protobuf;
// every input taken from the graph (keys, defaults, shapes, the serialized
// bytes) is validated before it sizes an allocation or indexes an output.
#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/example.pb.h"
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

using FeatureMap = google::protobuf::Map<std::string, Feature>;

// Element counts above this are refused (no tensor this large can be parsed
// from a serialized proto; it also keeps products free of overflow).
constexpr int64_t kMaxElements = int64_t{1} << 40;

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

const char* FeatureKind(const Feature& f) {
  switch (f.kind_case()) {
    case Feature::kFloatList:
      return "float";
    case Feature::kInt64List:
      return "int64";
    case Feature::kBytesList:
      return "string";
    default:
      return "none";
  }
}

// The number of values of `f` read as `dtype` (a feature without a list has
// none); an error when its list holds another type.
Status ValueCount(const Feature& f, DataType dtype, const std::string& where,
                  int64_t* count) {
  if (f.kind_case() == Feature::KIND_NOT_SET) {
    *count = 0;
    return Status::OK();
  }
  Feature::KindCase want = dtype == DT_FLOAT   ? Feature::kFloatList
                           : dtype == DT_INT64 ? Feature::kInt64List
                                               : Feature::kBytesList;
  if (f.kind_case() != want) {
    return errors::InvalidArgument(where, ".  Data types don't match. ",
                                   "Data type: ", FeatureKind(f),
                                   " but expected type: ", KindName(dtype));
  }
  *count = dtype == DT_FLOAT   ? f.float_list().value_size()
           : dtype == DT_INT64 ? f.int64_list().value_size()
                               : f.bytes_list().value_size();
  return Status::OK();
}

// Copies every value of `f` (already checked by ValueCount) to out[offset..).
void CopyValues(const Feature& f, DataType dtype, Tensor* out, int64_t offset) {
  if (f.kind_case() == Feature::KIND_NOT_SET) return;
  if (dtype == DT_FLOAT) {
    const auto& v = f.float_list().value();
    float* dst = out->data<float>() + offset;
    for (int k = 0; k < v.size(); ++k) dst[k] = v.Get(k);
  } else if (dtype == DT_INT64) {
    const auto& v = f.int64_list().value();
    int64_t* dst = out->data<int64_t>() + offset;
    for (int k = 0; k < v.size(); ++k) dst[k] = v.Get(k);
  } else {
    const auto& v = f.bytes_list().value();
    std::string* dst = out->data<std::string>() + offset;
    for (int k = 0; k < v.size(); ++k) dst[k] = v.Get(k);
  }
}

// out[offset + k] = src[src_offset + k % src_count] for k < count.
void CopyFrom(const Tensor& src, int64_t src_count, DataType dtype, Tensor* out,
              int64_t offset, int64_t count) {
  for (int64_t k = 0; k < count; ++k) {
    const int64_t s = k % src_count;
    if (dtype == DT_FLOAT) {
      out->data<float>()[offset + k] = src.data<float>()[s];
    } else if (dtype == DT_INT64) {
      out->data<int64_t>()[offset + k] = src.data<int64_t>()[s];
    } else {
      out->data<std::string>()[offset + k] = src.data<std::string>()[s];
    }
  }
}

void FillZero(DataType dtype, Tensor* out) {
  const int64_t n = out->num_elements();
  for (int64_t k = 0; k < n; ++k) {
    if (dtype == DT_FLOAT) {
      out->data<float>()[k] = 0.0f;
    } else if (dtype == DT_INT64) {
      out->data<int64_t>()[k] = 0;
    } else {
      out->data<std::string>()[k].clear();
    }
  }
}

// The product of `dims` (each checked non-negative), capped.
Status CheckedProduct(const std::vector<int64_t>& dims, size_t from,
                      const std::string& what, int64_t* product) {
  int64_t p = 1;
  for (size_t i = from; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      return errors::InvalidArgument(what, " has an unknown dimension ", i,
                                     " (only the first may be unknown)");
    }
    if (dims[i] != 0 && p > kMaxElements / dims[i]) {
      return errors::InvalidArgument(what, " has too many elements");
    }
    p *= dims[i];
  }
  *product = p;
  return Status::OK();
}

Status AllocateChecked(DataType dtype, const std::vector<int64_t>& dims,
                       Tensor* out) {
  TensorShape shape;
  TW_RETURN_IF_ERROR(TensorShape::Build(dims, &shape));
  if (shape.num_elements() > kMaxElements) {
    return errors::InvalidArgument("output shape ", shape.ToString(),
                                   " has too many elements");
  }
  return Tensor::Allocate(dtype, shape, out);
}

std::vector<std::string> Strings(const Tensor& t) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    out.push_back(t.data<std::string>()[i]);
  }
  return out;
}

// Sparse and dense features of a map<string, Feature> (an Example's
// features, or a SequenceExample's context), for a batch of such maps.
struct FeatureSpec {
  std::vector<std::string> sparse_keys;
  std::vector<DataType> sparse_types;
  std::vector<std::string> dense_keys;
  std::vector<DataType> dense_types;
  std::vector<PartialShape> dense_shapes;
  std::vector<Tensor> dense_defaults;
};

struct FeatureOutputs {
  std::vector<Tensor> sparse_indices, sparse_values, sparse_shapes, dense;
};

std::string Where(const std::vector<std::string>& names, int64_t b,
                  const std::string& key) {
  const std::string name =
      b < static_cast<int64_t>(names.size()) ? names[b] : "<unknown>";
  return StrCat("Name: ", name, ", Key: ", key, ", Index: ", b);
}

// `maps[b]` null stands for an empty map. `scalar`: one proto, outputs
// without the batch dimension.
Status ParseFeatureMaps(const std::vector<const FeatureMap*>& maps, bool scalar,
                        const std::vector<std::string>& names,
                        const FeatureSpec& spec, FeatureOutputs* out) {
  const int64_t batch = static_cast<int64_t>(maps.size());
  auto find = [&](int64_t b, const std::string& key) -> const Feature* {
    if (maps[b] == nullptr) return nullptr;
    auto it = maps[b]->find(key);
    return it == maps[b]->end() ? nullptr : &it->second;
  };
  // Sparse: indices [n, rank], values [n], shape [rank].
  for (size_t i = 0; i < spec.sparse_keys.size(); ++i) {
    const std::string& key = spec.sparse_keys[i];
    const DataType dtype = spec.sparse_types[i];
    std::vector<int64_t> counts(batch, 0);
    int64_t total = 0, max_count = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const Feature* f = find(b, key);
      if (f == nullptr) continue;
      TW_RETURN_IF_ERROR(
          ValueCount(*f, dtype, Where(names, b, key), &counts[b]));
      total += counts[b];
      max_count = std::max(max_count, counts[b]);
    }
    const int64_t rank = scalar ? 1 : 2;
    Tensor indices, values, shape;
    TW_RETURN_IF_ERROR(AllocateChecked(DT_INT64, {total, rank}, &indices));
    TW_RETURN_IF_ERROR(AllocateChecked(dtype, {total}, &values));
    TW_RETURN_IF_ERROR(AllocateChecked(DT_INT64, {rank}, &shape));
    int64_t n = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const Feature* f = find(b, key);
      if (f == nullptr) continue;
      CopyValues(*f, dtype, &values, n);
      for (int64_t k = 0; k < counts[b]; ++k, ++n) {
        int64_t* row = indices.data<int64_t>() + n * rank;
        if (!scalar) row[0] = b;
        row[rank - 1] = k;
      }
    }
    if (!scalar) shape.data<int64_t>()[0] = batch;
    shape.data<int64_t>()[rank - 1] = max_count;
    out->sparse_indices.push_back(indices);
    out->sparse_values.push_back(values);
    out->sparse_shapes.push_back(shape);
  }
  // Dense: [batch] + shape; a first dimension of -1 is the number of rows
  // the example has, padded to the longest with the (scalar) default.
  for (size_t i = 0; i < spec.dense_keys.size(); ++i) {
    const std::string& key = spec.dense_keys[i];
    const DataType dtype = spec.dense_types[i];
    const PartialShape& pshape = spec.dense_shapes[i];
    const Tensor& def = spec.dense_defaults[i];
    if (!pshape.known_rank()) {
      return errors::InvalidArgument("dense_shapes[", i,
                                     "] must have a known rank");
    }
    const std::vector<int64_t>& dims = pshape.dims();
    const bool variable = !dims.empty() && dims[0] < 0;
    int64_t row = 1;
    TW_RETURN_IF_ERROR(CheckedProduct(dims, variable ? 1 : 0,
                                      StrCat("dense_shapes[", i, "]"), &row));
    if (variable && def.num_elements() != 1) {
      return errors::InvalidArgument(
          "dense_defaults[", i, "] (key ", key,
          ") must be a scalar padding value for a variable-length feature, "
          "got ",
          def.num_elements(), " values");
    }
    if (!variable && def.num_elements() != 0 && def.num_elements() != row) {
      return errors::InvalidArgument("dense_defaults[", i, "] (key ", key,
                                     ") has ", def.num_elements(),
                                     " values for shape ", pshape.ToString());
    }
    std::vector<int64_t> rows(batch, variable ? 0 : 1);
    int64_t max_rows = variable ? 0 : 1;
    for (int64_t b = 0; b < batch; ++b) {
      const Feature* f = find(b, key);
      if (f == nullptr) {
        if (!variable && def.num_elements() == 0) {
          return errors::InvalidArgument(
              "Name: ",
              b < static_cast<int64_t>(names.size()) ? names[b] : "<unknown>",
              ", Feature: ", key, " (data type: ", KindName(dtype),
              ") is required but could not be found.");
        }
        continue;
      }
      int64_t count = 0;
      TW_RETURN_IF_ERROR(ValueCount(*f, dtype, Where(names, b, key), &count));
      if (variable) {
        if (row == 0 ? count != 0 : count % row != 0) {
          return errors::InvalidArgument(
              Where(names, b, key), ".  Number of ", KindName(dtype),
              " values is not a multiple of stride length. Saw ", count,
              " values but output shape is: ", pshape.ToString());
        }
        rows[b] = row == 0 ? 0 : count / row;
        max_rows = std::max(max_rows, rows[b]);
      } else if (count != row) {
        return errors::InvalidArgument(
            Where(names, b, key), ".  Number of ", KindName(dtype),
            " values != expected.  Values size: ", count,
            " but output shape: ", pshape.ToString());
      }
    }
    std::vector<int64_t> out_dims;
    if (!scalar) out_dims.push_back(batch);
    out_dims.push_back(variable ? max_rows : (dims.empty() ? 1 : dims[0]));
    for (size_t d = 1; d < dims.size(); ++d) out_dims.push_back(dims[d]);
    if (dims.empty()) out_dims.pop_back();
    Tensor values;
    TW_RETURN_IF_ERROR(AllocateChecked(dtype, out_dims, &values));
    const int64_t stride = variable ? max_rows * row : row;
    for (int64_t b = 0; b < batch; ++b) {
      const Feature* f = find(b, key);
      const int64_t base = b * stride;
      if (f == nullptr) {
        CopyFrom(def, def.num_elements(), dtype, &values, base, stride);
        continue;
      }
      CopyValues(*f, dtype, &values, base);
      if (variable) {
        CopyFrom(def, 1, dtype, &values, base + rows[b] * row,
                 stride - rows[b] * row);
      }
    }
    out->dense.push_back(values);
  }
  return Status::OK();
}

Status CheckKeys(const Tensor& keys, size_t expected, const char* what) {
  if (keys.rank() > 1 ||
      keys.num_elements() != static_cast<int64_t>(expected)) {
    return errors::InvalidArgument(what, " must be a vector of ", expected,
                                   " keys, got shape ",
                                   keys.shape().ToString());
  }
  return Status::OK();
}

Status CheckSerialized(const Tensor& serialized, const Tensor& names) {
  if (serialized.rank() > 1) {
    return errors::InvalidArgument(
        "serialized must be a scalar or a vector, got shape ",
        serialized.shape().ToString());
  }
  if (names.num_elements() != 0 &&
      (names.rank() > 1 || names.num_elements() != serialized.num_elements())) {
    return errors::InvalidArgument(
        "names (debug names) must be empty or have the shape of serialized ",
        serialized.shape().ToString(), ", got ", names.shape().ToString());
  }
  return Status::OK();
}

class ParseExampleV2Op : public OpKernel {
 public:
  explicit ParseExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tdense", &spec_.dense_types));
    ctx->SetStatus(ctx->GetAttr("dense_shapes", &spec_.dense_shapes));
    ctx->SetStatus(ctx->GetAttr("sparse_types", &spec_.sparse_types));
    ctx->SetStatus(ctx->GetAttr("num_sparse", &num_sparse_));
    std::vector<DataType> ragged;
    ctx->SetStatus(ctx->GetAttr("ragged_value_types", &ragged));
    if (!ragged.empty()) {
      ctx->SetStatus(errors::Unimplemented(
          "ParseExampleV2: ragged features (RaggedFeature) are not supported"));
    }
    if (num_sparse_ != static_cast<int64_t>(spec_.sparse_types.size())) {
      ctx->SetStatus(errors::InvalidArgument(
          "ParseExampleV2: num_sparse ", num_sparse_, " != len(sparse_types) ",
          spec_.sparse_types.size()));
    }
    if (spec_.dense_shapes.size() != spec_.dense_types.size()) {
      ctx->SetStatus(errors::InvalidArgument(
          "ParseExampleV2: len(dense_shapes) ", spec_.dense_shapes.size(),
          " != len(Tdense) ", spec_.dense_types.size()));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    const Tensor& names = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckSerialized(serialized, names));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(2), spec_.sparse_types.size(),
                                  "sparse_keys"));
    OP_REQUIRES_OK(
        ctx, CheckKeys(ctx->input(3), spec_.dense_types.size(), "dense_keys"));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(4), 0, "ragged_keys"));
    FeatureSpec spec = spec_;
    spec.sparse_keys = Strings(ctx->input(2));
    spec.dense_keys = Strings(ctx->input(3));
    for (size_t i = 0; i < spec.dense_types.size(); ++i) {
      spec.dense_defaults.push_back(ctx->input(5 + static_cast<int>(i)));
    }
    const int64_t batch = serialized.num_elements();
    std::vector<Example> examples(batch);
    std::vector<const FeatureMap*> maps;
    for (int64_t b = 0; b < batch; ++b) {
      const std::string& data = serialized.data<std::string>()[b];
      OP_REQUIRES(
          ctx, examples[b].ParseFromString(data),
          errors::InvalidArgument("Could not parse example input, value: '",
                                  Escaped(data), "'"));
      maps.push_back(&examples[b].features().feature());
    }
    FeatureOutputs out;
    OP_REQUIRES_OK(ctx, ParseFeatureMaps(maps, serialized.rank() == 0,
                                         Strings(names), spec, &out));
    int o = 0;
    for (auto& t : out.sparse_indices) ctx->set_output(o++, t);
    for (auto& t : out.sparse_values) ctx->set_output(o++, t);
    for (auto& t : out.sparse_shapes) ctx->set_output(o++, t);
    for (auto& t : out.dense) ctx->set_output(o++, t);
  }

 private:
  FeatureSpec spec_;
  int64_t num_sparse_ = 0;
};

class ParseSequenceExampleV2Op : public OpKernel {
 public:
  explicit ParseSequenceExampleV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("Tcontext_dense", &context_.dense_types));
    ctx->SetStatus(
        ctx->GetAttr("context_dense_shapes", &context_.dense_shapes));
    ctx->SetStatus(
        ctx->GetAttr("context_sparse_types", &context_.sparse_types));
    ctx->SetStatus(ctx->GetAttr("feature_list_sparse_types", &fl_sparse_));
    ctx->SetStatus(ctx->GetAttr("feature_list_dense_types", &fl_dense_));
    ctx->SetStatus(
        ctx->GetAttr("feature_list_dense_shapes", &fl_dense_shapes_));
    std::vector<DataType> ragged_a, ragged_b;
    ctx->SetStatus(ctx->GetAttr("context_ragged_value_types", &ragged_a));
    ctx->SetStatus(ctx->GetAttr("feature_list_ragged_value_types", &ragged_b));
    if (!ragged_a.empty() || !ragged_b.empty()) {
      ctx->SetStatus(errors::Unimplemented(
          "ParseSequenceExampleV2: ragged features (RaggedFeature) are not "
          "supported"));
    }
    int64_t n = 0;
    ctx->SetStatus(ctx->GetAttr("Ncontext_sparse", &n));
    if (n != static_cast<int64_t>(context_.sparse_types.size())) {
      ctx->SetStatus(
          errors::InvalidArgument("ParseSequenceExampleV2: Ncontext_sparse ", n,
                                  " != len(context_sparse_types)"));
    }
    ctx->SetStatus(ctx->GetAttr("Nfeature_list_sparse", &n));
    if (n != static_cast<int64_t>(fl_sparse_.size())) {
      ctx->SetStatus(errors::InvalidArgument(
          "ParseSequenceExampleV2: Nfeature_list_sparse ", n,
          " != len(feature_list_sparse_types)"));
    }
    ctx->SetStatus(ctx->GetAttr("Nfeature_list_dense", &n));
    if (n != static_cast<int64_t>(fl_dense_.size()) ||
        fl_dense_shapes_.size() != fl_dense_.size()) {
      ctx->SetStatus(errors::InvalidArgument(
          "ParseSequenceExampleV2: Nfeature_list_dense ", n,
          ", len(feature_list_dense_types) and len(feature_list_dense_shapes) "
          "must agree"));
    }
    if (context_.dense_shapes.size() != context_.dense_types.size()) {
      ctx->SetStatus(errors::InvalidArgument(
          "ParseSequenceExampleV2: len(context_dense_shapes) != "
          "len(Tcontext_dense)"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& serialized = ctx->input(0);
    const Tensor& names_t = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckSerialized(serialized, names_t));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(2), context_.sparse_types.size(),
                                  "context_sparse_keys"));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(3), context_.dense_types.size(),
                                  "context_dense_keys"));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(4), 0, "context_ragged_keys"));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(5), fl_sparse_.size(),
                                  "feature_list_sparse_keys"));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(6), fl_dense_.size(),
                                  "feature_list_dense_keys"));
    OP_REQUIRES_OK(ctx,
                   CheckKeys(ctx->input(7), 0, "feature_list_ragged_keys"));
    OP_REQUIRES_OK(ctx, CheckKeys(ctx->input(8), fl_dense_.size(),
                                  "feature_list_dense_missing_assumed_empty"));
    const std::vector<std::string> names = Strings(names_t);
    FeatureSpec context = context_;
    context.sparse_keys = Strings(ctx->input(2));
    context.dense_keys = Strings(ctx->input(3));
    for (size_t i = 0; i < context.dense_types.size(); ++i) {
      context.dense_defaults.push_back(ctx->input(9 + static_cast<int>(i)));
    }
    const std::vector<std::string> fl_sparse_keys = Strings(ctx->input(5));
    const std::vector<std::string> fl_dense_keys = Strings(ctx->input(6));
    const Tensor& assumed_empty = ctx->input(8);
    const bool scalar = serialized.rank() == 0;
    const int64_t batch = serialized.num_elements();
    std::vector<SequenceExample> protos(batch);
    std::vector<const FeatureMap*> maps;
    for (int64_t b = 0; b < batch; ++b) {
      const std::string& data = serialized.data<std::string>()[b];
      OP_REQUIRES(
          ctx, protos[b].ParseFromString(data),
          errors::InvalidArgument("Could not parse example input, value: '",
                                  Escaped(data), "'"));
      maps.push_back(&protos[b].context().feature());
    }
    FeatureOutputs ctx_out;
    OP_REQUIRES_OK(ctx,
                   ParseFeatureMaps(maps, scalar, names, context, &ctx_out));
    auto find_list = [&](int64_t b,
                         const std::string& key) -> const FeatureList* {
      const auto& lists = protos[b].feature_lists().feature_list();
      auto it = lists.find(key);
      return it == lists.end() ? nullptr : &it->second;
    };
    auto name_of = [&](int64_t b) {
      return b < static_cast<int64_t>(names.size()) ? names[b]
                                                    : std::string("<unknown>");
    };
    // Feature-list sparse: indices [n, rank] (batch, step, value).
    std::vector<Tensor> fl_ind, fl_val, fl_shape;
    for (size_t i = 0; i < fl_sparse_.size(); ++i) {
      const std::string& key = fl_sparse_keys[i];
      const DataType dtype = fl_sparse_[i];
      int64_t total = 0, max_steps = 0, max_count = 0;
      for (int64_t b = 0; b < batch; ++b) {
        const FeatureList* list = find_list(b, key);
        if (list == nullptr) continue;
        max_steps = std::max<int64_t>(max_steps, list->feature_size());
        for (int t = 0; t < list->feature_size(); ++t) {
          int64_t count = 0;
          OP_REQUIRES_OK(
              ctx, ValueCount(list->feature(t), dtype,
                              StrCat("Name: ", name_of(b),
                                     ", Feature list: ", key, ", Index: ", t),
                              &count));
          total += count;
          max_count = std::max(max_count, count);
        }
      }
      const int64_t rank = scalar ? 2 : 3;
      Tensor indices, values, shape;
      OP_REQUIRES_OK(ctx, AllocateChecked(DT_INT64, {total, rank}, &indices));
      OP_REQUIRES_OK(ctx, AllocateChecked(dtype, {total}, &values));
      OP_REQUIRES_OK(ctx, AllocateChecked(DT_INT64, {rank}, &shape));
      int64_t n = 0;
      for (int64_t b = 0; b < batch; ++b) {
        const FeatureList* list = find_list(b, key);
        if (list == nullptr) continue;
        for (int t = 0; t < list->feature_size(); ++t) {
          const Feature& f = list->feature(t);
          int64_t count = 0;
          OP_REQUIRES_OK(ctx, ValueCount(f, dtype, key, &count));
          CopyValues(f, dtype, &values, n);
          for (int64_t k = 0; k < count; ++k, ++n) {
            int64_t* row = indices.data<int64_t>() + n * rank;
            if (!scalar) row[0] = b;
            row[rank - 2] = t;
            row[rank - 1] = k;
          }
        }
      }
      int64_t* s = shape.data<int64_t>();
      if (!scalar) s[0] = batch;
      s[rank - 2] = max_steps;
      s[rank - 1] = max_count;
      fl_ind.push_back(indices);
      fl_val.push_back(values);
      fl_shape.push_back(shape);
    }
    // Feature-list dense: [batch, steps] + shape, padded with zeros; lengths.
    std::vector<Tensor> fl_dense, fl_lengths;
    for (size_t i = 0; i < fl_dense_.size(); ++i) {
      const std::string& key = fl_dense_keys[i];
      const DataType dtype = fl_dense_[i];
      const PartialShape& pshape = fl_dense_shapes_[i];
      OP_REQUIRES(ctx, pshape.known_rank(),
                  errors::InvalidArgument("feature_list_dense_shapes[", i,
                                          "] must have a known rank"));
      int64_t row = 1;
      OP_REQUIRES_OK(
          ctx,
          CheckedProduct(pshape.dims(), 0,
                         StrCat("feature_list_dense_shapes[", i, "]"), &row));
      Tensor lengths;
      OP_REQUIRES_OK(ctx, AllocateChecked(DT_INT64,
                                          scalar ? std::vector<int64_t>{}
                                                 : std::vector<int64_t>{batch},
                                          &lengths));
      int64_t max_steps = 0;
      for (int64_t b = 0; b < batch; ++b) {
        const FeatureList* list = find_list(b, key);
        int64_t steps = 0;
        if (list == nullptr) {
          OP_REQUIRES(
              ctx, assumed_empty.data<bool>()[i],
              errors::InvalidArgument(
                  "Name: ", name_of(b), ", Feature list '", key,
                  "' is required but could not be found.  Did you mean to "
                  "include it in feature_list_dense_missing_assumed_empty or "
                  "feature_list_dense_defaults?"));
        } else {
          steps = list->feature_size();
          for (int t = 0; t < steps; ++t) {
            int64_t count = 0;
            const std::string where =
                StrCat("Name: ", name_of(b), ", Key: ", key, ", Index: ", t);
            OP_REQUIRES_OK(ctx,
                           ValueCount(list->feature(t), dtype, where, &count));
            OP_REQUIRES(ctx, count == row,
                        errors::InvalidArgument(
                            where, ".  Number of ", KindName(dtype),
                            " values != expected.  values size: ", count,
                            " but output shape: ", pshape.ToString()));
          }
        }
        lengths.data<int64_t>()[b] = steps;
        max_steps = std::max(max_steps, steps);
      }
      std::vector<int64_t> dims;
      if (!scalar) dims.push_back(batch);
      dims.push_back(max_steps);
      for (int64_t d : pshape.dims()) dims.push_back(d);
      Tensor values;
      OP_REQUIRES_OK(ctx, AllocateChecked(dtype, dims, &values));
      FillZero(dtype, &values);
      for (int64_t b = 0; b < batch; ++b) {
        const FeatureList* list = find_list(b, key);
        if (list == nullptr) continue;
        for (int t = 0; t < list->feature_size(); ++t) {
          CopyValues(list->feature(t), dtype, &values,
                     (b * max_steps + t) * row);
        }
      }
      fl_dense.push_back(values);
      fl_lengths.push_back(lengths);
    }
    int o = 0;
    for (auto& t : ctx_out.sparse_indices) ctx->set_output(o++, t);
    for (auto& t : ctx_out.sparse_values) ctx->set_output(o++, t);
    for (auto& t : ctx_out.sparse_shapes) ctx->set_output(o++, t);
    for (auto& t : ctx_out.dense) ctx->set_output(o++, t);
    for (auto& t : fl_ind) ctx->set_output(o++, t);
    for (auto& t : fl_val) ctx->set_output(o++, t);
    for (auto& t : fl_shape) ctx->set_output(o++, t);
    for (auto& t : fl_dense) ctx->set_output(o++, t);
    for (auto& t : fl_lengths) ctx->set_output(o++, t);
  }

 private:
  FeatureSpec context_;
  std::vector<DataType> fl_sparse_, fl_dense_;
  std::vector<PartialShape> fl_dense_shapes_;
};

REGISTER_KERNEL(KernelDef("ParseExampleV2"), ParseExampleV2Op);
REGISTER_KERNEL(KernelDef("ParseSequenceExampleV2"), ParseSequenceExampleV2Op);

}  // namespace
}  // namespace tensorweave
