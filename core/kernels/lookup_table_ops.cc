// Kernels of the lookup-table ops (core/ops/lookup_table_ops.cc). A table is
// a session resource (found by its handle, as a queue's) holding its keys
// and values as two tensors and a hash index from each key to its row.
// Lookups take a shared lock, initialization an exclusive one; a table read
// before it is initialized is FailedPrecondition, as TensorFlow's.
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/types.h"
#include "core/kernels/session_resource_handle.h"

namespace tensorweave {
namespace {

#define TW_TABLE_VALUE_TYPES int32_t, int64_t, float, double, bool, std::string

// A key as the string the index hashes: the bytes of a string key, the
// decimal digits of an integer one (int32 and int64 keys alike).
std::string KeyText(const Tensor& keys, int64_t i) {
  switch (keys.dtype()) {
    case DT_STRING:
      return keys.data<std::string>()[i];
    case DT_INT32:
      return std::to_string(keys.data<int32_t>()[i]);
    default:
      return std::to_string(keys.data<int64_t>()[i]);
  }
}

std::string Printable(const Tensor& keys, int64_t i) {
  std::string key = KeyText(keys, i);
  return keys.dtype() == DT_STRING ? "'" + key + "'" : key;
}

class LookupTable : public ResourceBase {
 public:
  LookupTable(DataType key_dtype, DataType value_dtype)
      : key_dtype_(key_dtype), value_dtype_(value_dtype) {}
  std::string DebugString() const override { return "HashTable"; }
  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }

  Status CheckTypes(DataType key, DataType value,
                    const std::string& what) const {
    if (key != key_dtype_) {
      return errors::InvalidArgument(what, ": the table's keys are ",
                                     DataTypeName(key_dtype_), ", got ",
                                     DataTypeName(key));
    }
    if (value != value_dtype_) {
      return errors::InvalidArgument(what, ": the table's values are ",
                                     DataTypeName(value_dtype_), ", got ",
                                     DataTypeName(value));
    }
    return Status::OK();
  }

  // Fills the table. `replace` (LookupTableImportV2) replaces its contents;
  // otherwise a second initialization must bring the same data.
  Status Initialize(const Tensor& keys, const Tensor& values, bool replace) {
    TW_RETURN_IF_ERROR(CheckTypes(keys.dtype(), values.dtype(), "initialize"));
    if (keys.rank() != 1 || values.rank() != 1 ||
        keys.dim(0) != values.dim(0)) {
      return errors::InvalidArgument(
          "Expected shape [n] for keys and values of the same n, got ",
          keys.shape().ToString(), " and ", values.shape().ToString());
    }
    std::unordered_map<std::string, int64_t> index;
    index.reserve(keys.dim(0));
    for (int64_t i = 0; i < keys.dim(0); ++i) {
      auto [it, fresh] = index.emplace(KeyText(keys, i), i);
      if (!fresh && !SameValue(values, it->second, values, i)) {
        return errors::FailedPrecondition(
            "HashTable has different value for same key. Key ",
            Printable(keys, i), " has ", ValueText(values, it->second),
            " and trying to add value ", ValueText(values, i));
      }
    }
    std::unique_lock<std::shared_mutex> lock(mu_);
    if (initialized_ && !replace) {
      if (SameData(index, keys, values)) return Status::OK();
      return errors::FailedPrecondition(
          "Table was already initialized with different data.");
    }
    keys_ = keys;
    values_ = values;
    index_ = std::move(index);
    initialized_ = true;
    return Status::OK();
  }

  Status Find(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const {
    TW_RETURN_IF_ERROR(
        CheckTypes(keys.dtype(), default_value.dtype(), "LookupTableFindV2"));
    if (default_value.num_elements() != 1) {
      return errors::InvalidArgument(
          "default_value must be a scalar, got shape ",
          default_value.shape().ToString());
    }
    std::shared_lock<std::shared_mutex> lock(mu_);
    if (!initialized_)
      return errors::FailedPrecondition("Table not initialized.");
    return DispatchType<TW_TABLE_VALUE_TYPES>(value_dtype_, [&](auto tag) {
      using T = decltype(tag);
      const T* values = values_.data<T>();
      const T fallback = default_value.data<T>()[0];
      T* result = out->data<T>();
      for (int64_t i = 0; i < keys.num_elements(); ++i) {
        auto it = index_.find(KeyText(keys, i));
        result[i] = it == index_.end() ? fallback : values[it->second];
      }
      return Status::OK();
    });
  }

  int64_t size() const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return static_cast<int64_t>(index_.size());
  }

  // The distinct keys and their values.
  void Export(Tensor* keys, Tensor* values) const {
    std::shared_lock<std::shared_mutex> lock(mu_);
    const int64_t n = static_cast<int64_t>(index_.size());
    *keys = Tensor(key_dtype_, TensorShape({n}));
    *values = Tensor(value_dtype_, TensorShape({n}));
    std::vector<int64_t> rows;
    rows.reserve(n);
    for (const auto& entry : index_) rows.push_back(entry.second);
    Gather(keys_, rows, keys);
    Gather(values_, rows, values);
  }

 private:
  static void Gather(const Tensor& from, const std::vector<int64_t>& rows,
                     Tensor* to) {
    (void)DispatchType<TW_TABLE_VALUE_TYPES>(from.dtype(), [&](auto tag) {
      using T = decltype(tag);
      for (size_t i = 0; i < rows.size(); ++i) {
        to->data<T>()[i] = from.data<T>()[rows[i]];
      }
      return Status::OK();
    });
  }

  static bool SameValue(const Tensor& a, int64_t i, const Tensor& b,
                        int64_t j) {
    bool same = false;
    (void)DispatchType<TW_TABLE_VALUE_TYPES>(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      same = a.data<T>()[i] == b.data<T>()[j];
      return Status::OK();
    });
    return same;
  }

  static std::string ValueText(const Tensor& values, int64_t i) {
    std::string text;
    (void)DispatchType<TW_TABLE_VALUE_TYPES>(values.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, std::string>) {
        text = "'" + values.data<T>()[i] + "'";
      } else {
        text = std::to_string(values.data<T>()[i]);
      }
      return Status::OK();
    });
    return text;
  }

  bool SameData(const std::unordered_map<std::string, int64_t>& index,
                const Tensor& keys, const Tensor& values) const {
    if (index.size() != index_.size()) return false;
    for (const auto& [key, row] : index) {
      auto it = index_.find(key);
      if (it == index_.end() || !SameValue(values, row, values_, it->second)) {
        return false;
      }
    }
    (void)keys;
    return true;
  }

  const DataType key_dtype_, value_dtype_;
  mutable std::shared_mutex mu_;
  bool initialized_ = false;
  Tensor keys_, values_;
  std::unordered_map<std::string, int64_t> index_;
};

Status GetTable(OpKernelContext* ctx, std::shared_ptr<LookupTable>* table) {
  std::string container, name;
  TW_RETURN_IF_ERROR(
      DecodeSessionResourceHandle(ctx->input(0), "a table", &container, &name));
  return ctx->resource_mgr()->Lookup(container, name, table);
}

// HashTableV2: the first step creates the table (or finds the one of the
// same shared_name); every step outputs its handle.
class HashTableOp : public OpKernel {
 public:
  explicit HashTableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_node_name_sharing", &node_sharing_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("key_dtype", &key_dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value_dtype", &value_dtype_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_.empty()) {
      std::string table_name = shared_name_;
      if (table_name.empty()) {
        table_name =
            node_sharing_
                ? name()
                : "_" +
                      std::to_string(ctx->resource_mgr()->GenerateUniqueId()) +
                      "_" + name();
      }
      std::shared_ptr<LookupTable> table;
      OP_REQUIRES_OK(ctx, ctx->resource_mgr()->LookupOrCreate<LookupTable>(
                              container_, table_name,
                              [&](std::shared_ptr<LookupTable>* out) {
                                *out = std::make_shared<LookupTable>(
                                    key_dtype_, value_dtype_);
                                return Status::OK();
                              },
                              &table));
      OP_REQUIRES_OK(ctx, table->CheckTypes(key_dtype_, value_dtype_,
                                            "shared table " + table_name));
      handle_ = EncodeSessionResourceHandle(container_, table_name);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(handle_));
  }

 private:
  std::string container_, shared_name_;
  bool node_sharing_ = false;
  DataType key_dtype_ = DT_STRING, value_dtype_ = DT_INT64;
  std::mutex mu_;
  std::string handle_;
};

class InitializeTableOp : public OpKernel {
 public:
  explicit InitializeTableOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        replace_(ctx->node().type_string() == "LookupTableImportV2") {}

  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    OP_REQUIRES_OK(ctx,
                   table->Initialize(ctx->input(1), ctx->input(2), replace_));
  }

 private:
  const bool replace_;
};

// One field of a text-file line as a key or value tensor element.
Status ParseField(const std::string& text, DataType dtype, int64_t line,
                  Tensor* out, int64_t i) {
  char* end = nullptr;
  errno = 0;
  switch (dtype) {
    case DT_STRING:
      out->data<std::string>()[i] = text;
      return Status::OK();
    case DT_INT32:
    case DT_INT64: {
      const long long v = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0' || errno == ERANGE ||
          (dtype == DT_INT32 && (v < INT32_MIN || v > INT32_MAX))) {
        return errors::InvalidArgument("Field ", text, " in line ", line,
                                       " is not a valid ", DataTypeName(dtype));
      }
      if (dtype == DT_INT32) {
        out->data<int32_t>()[i] = static_cast<int32_t>(v);
      } else {
        out->data<int64_t>()[i] = v;
      }
      return Status::OK();
    }
    case DT_FLOAT:
    case DT_DOUBLE: {
      const double v = std::strtod(text.c_str(), &end);
      if (text.empty() || *end != '\0') {
        return errors::InvalidArgument("Field ", text, " in line ", line,
                                       " is not a valid ", DataTypeName(dtype));
      }
      if (dtype == DT_FLOAT) {
        out->data<float>()[i] = static_cast<float>(v);
      } else {
        out->data<double>()[i] = v;
      }
      return Status::OK();
    }
    default:
      return errors::InvalidArgument("a text file cannot fill ",
                                     DataTypeName(dtype), " entries");
  }
}

class InitializeTableFromTextFileOp : public OpKernel {
 public:
  explicit InitializeTableFromTextFileOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("key_index", &key_index_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value_index", &value_index_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("vocab_size", &vocab_size_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delimiter", &delimiter_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("offset", &offset_));
    OP_REQUIRES(ctx, delimiter_.size() == 1,
                errors::InvalidArgument(
                    "delimiter should be only 1 char, got '", delimiter_, "'"));
  }

  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    const Tensor& filename = ctx->input(1);
    OP_REQUIRES(ctx, filename.dtype() == DT_STRING && filename.rank() == 0,
                errors::InvalidArgument("filename should be a string scalar, "
                                        "got shape ",
                                        filename.shape().ToString()));
    const std::string& path = filename.data<std::string>()[0];
    std::ifstream file(path, std::ios::binary);
    OP_REQUIRES(ctx, file.is_open(),
                errors::NotFound(path, ": No such file or directory"));
    std::vector<std::string> lines;
    std::string line;
    while (
        (vocab_size_ < 0 || static_cast<int64_t>(lines.size()) < vocab_size_) &&
        std::getline(file, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
    }
    OP_REQUIRES(
        ctx,
        vocab_size_ < 0 || static_cast<int64_t>(lines.size()) == vocab_size_,
        errors::InvalidArgument("Invalid vocab_size in ", path, ": expected ",
                                vocab_size_, " but got ", lines.size()));
    const int64_t n = static_cast<int64_t>(lines.size());
    Tensor keys(table->key_dtype(), TensorShape({n}));
    Tensor values(table->value_dtype(), TensorShape({n}));
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES_OK(ctx, Fill(path, lines[i], i, key_index_, &keys));
      OP_REQUIRES_OK(ctx, Fill(path, lines[i], i, value_index_, &values));
    }
    OP_REQUIRES_OK(ctx, table->Initialize(keys, values, /*replace=*/false));
  }

 private:
  Status Fill(const std::string& path, const std::string& line, int64_t i,
              int64_t index, Tensor* out) const {
    if (index == -2) return ParseField(line, out->dtype(), i, out, i);
    if (index == -1) {
      if (out->dtype() != DT_INT64) {
        return errors::InvalidArgument(
            "A line number (index -1) needs an int64 key or value, got ",
            DataTypeName(out->dtype()));
      }
      out->data<int64_t>()[i] = i + offset_;
      return Status::OK();
    }
    std::vector<std::string> fields;
    size_t start = 0;
    while (true) {
      const size_t cut = line.find(delimiter_[0], start);
      fields.push_back(line.substr(start, cut - start));
      if (cut == std::string::npos) break;
      start = cut + 1;
    }
    if (index >= static_cast<int64_t>(fields.size())) {
      return errors::InvalidArgument(
          "Invalid number of columns in ", path, " line ", i, " (", line,
          ") : expected at least ", index + 1, " got ", fields.size());
    }
    return ParseField(fields[index], out->dtype(), i, out, i);
  }

  int64_t key_index_ = -2, value_index_ = -1, vocab_size_ = -1, offset_ = 0;
  std::string delimiter_;
};

class LookupTableFindOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    const Tensor& keys = ctx->input(1);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, keys.shape(), &out));
    OP_REQUIRES_OK(ctx, table->Find(keys, ctx->input(2), out));
  }
};

class LookupTableSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    ctx->set_output(0, Tensor::Scalar<int64_t>(table->size()));
  }
};

class LookupTableExportOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    Tensor keys, values;
    table->Export(&keys, &values);
    ctx->set_output(0, std::move(keys));
    ctx->set_output(1, std::move(values));
  }
};

}  // namespace

REGISTER_KERNEL(KernelDef("HashTableV2"), HashTableOp);
REGISTER_KERNEL(KernelDef("InitializeTableV2"), InitializeTableOp);
REGISTER_KERNEL(KernelDef("LookupTableImportV2"), InitializeTableOp);
REGISTER_KERNEL(KernelDef("InitializeTableFromTextFileV2"),
                InitializeTableFromTextFileOp);
REGISTER_KERNEL(KernelDef("LookupTableFindV2"), LookupTableFindOp);
REGISTER_KERNEL(KernelDef("LookupTableSizeV2"), LookupTableSizeOp);
REGISTER_KERNEL(KernelDef("LookupTableExportV2"), LookupTableExportOp);

}  // namespace tensorweave
