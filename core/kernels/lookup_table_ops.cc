// Kernels of the lookup-table ops (core/ops/lookup_table_ops.cc). A table is
// a session resource (found by its handle, as a queue's): a HashTable filled
// once by an initializer (read before it is: FailedPrecondition, as
// TensorFlow's), a MutableHashTable or a MutableDenseHashTable changed by
// insert and remove. Lookups take a table's lock shared, changes
// exclusively.
#include <algorithm>
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

// The key of text `text` (as KeyText writes it) into element i of `keys`.
void SetKey(const std::string& text, Tensor* keys, int64_t i) {
  switch (keys->dtype()) {
    case DT_STRING:
      keys->data<std::string>()[i] = text;
      break;
    case DT_INT32:
      keys->data<int32_t>()[i] = static_cast<int32_t>(std::stoll(text));
      break;
    default:
      keys->data<int64_t>()[i] = std::stoll(text);
  }
}

// Copies n elements of `from` (from element `from_at`) into `to` at `to_at`.
void CopyElements(const Tensor& from, int64_t from_at, Tensor* to,
                  int64_t to_at, int64_t n) {
  (void)DispatchType<TW_TABLE_VALUE_TYPES>(from.dtype(), [&](auto tag) {
    using T = decltype(tag);
    std::copy_n(from.data<T>() + from_at, n, to->data<T>() + to_at);
    return Status::OK();
  });
}

TensorShape Concat(const TensorShape& a, const TensorShape& b) {
  TensorShape out = a;
  for (int64_t d : b.dims()) out.AddDim(d);
  return out;
}

// A table: keys of one dtype, each mapped to a value of value_shape. Lookups
// take the table's lock shared, changes exclusively.
class LookupTable : public ResourceBase {
 public:
  LookupTable(const char* kind, DataType key_dtype, DataType value_dtype,
              TensorShape value_shape)
      : kind_(kind),
        key_dtype_(key_dtype),
        value_dtype_(value_dtype),
        value_shape_(std::move(value_shape)),
        value_size_(value_shape_.num_elements()) {}
  std::string DebugString() const override { return kind_; }
  DataType key_dtype() const { return key_dtype_; }
  DataType value_dtype() const { return value_dtype_; }
  const TensorShape& value_shape() const { return value_shape_; }

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

  Status CheckKeys(const Tensor& keys, const char* what) const {
    return CheckTypes(keys.dtype(), value_dtype_, what);
  }

  // Each key's value into `out` (keys' shape + value_shape); default_value
  // (value_shape, or keys' shape + value_shape: one per key) for the missing.
  virtual Status Find(const Tensor& keys, const Tensor& default_value,
                      Tensor* out) const = 0;
  virtual Status Insert(const Tensor& keys, const Tensor& values) = 0;
  virtual Status Remove(const Tensor& keys) = 0;
  // Replaces the contents with keys[i] -> values[i].
  virtual Status Import(const Tensor& keys, const Tensor& values) = 0;
  virtual void Export(Tensor* keys, Tensor* values) const = 0;
  virtual int64_t size() const = 0;

 protected:
  // values must have keys' shape + value_shape.
  Status CheckValues(const Tensor& keys, const Tensor& values,
                     const char* what) const {
    TW_RETURN_IF_ERROR(CheckTypes(keys.dtype(), values.dtype(), what));
    const TensorShape want = Concat(keys.shape(), value_shape_);
    if (values.shape() != want) {
      return errors::InvalidArgument("Expected shape ", want.ToString(),
                                     " for value, got ",
                                     values.shape().ToString());
    }
    return Status::OK();
  }

  // Whether default_value has one value per key (else one for all).
  Status CheckDefault(const Tensor& keys, const Tensor& default_value,
                      bool* per_key) const {
    TW_RETURN_IF_ERROR(
        CheckTypes(keys.dtype(), default_value.dtype(), "LookupTableFindV2"));
    *per_key = default_value.shape() == Concat(keys.shape(), value_shape_) &&
               default_value.shape() != value_shape_;
    if (!*per_key && default_value.num_elements() != value_size_) {
      return errors::InvalidArgument(
          "Expected shape ", value_shape_.ToString(), " or ",
          Concat(keys.shape(), value_shape_).ToString(),
          " for default_value, got ", default_value.shape().ToString());
    }
    return Status::OK();
  }

  const char* const kind_;
  const DataType key_dtype_, value_dtype_;
  const TensorShape value_shape_;
  const int64_t value_size_;
  mutable std::shared_mutex mu_;
};

// HashTableV2: filled once by an initializer; Insert and Remove are not
// supported (as TF's InitializableLookupTable).
class HashTable : public LookupTable {
 public:
  HashTable(DataType key_dtype, DataType value_dtype)
      : LookupTable("HashTable", key_dtype, value_dtype, TensorShape()) {}

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
      if (SameData(index, values)) return Status::OK();
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
              Tensor* out) const override {
    bool per_key = false;
    TW_RETURN_IF_ERROR(CheckDefault(keys, default_value, &per_key));
    std::shared_lock<std::shared_mutex> lock(mu_);
    if (!initialized_)
      return errors::FailedPrecondition("Table not initialized.");
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      auto it = index_.find(KeyText(keys, i));
      if (it == index_.end()) {
        CopyElements(default_value, per_key ? i : 0, out, i, 1);
      } else {
        CopyElements(values_, it->second, out, i, 1);
      }
    }
    return Status::OK();
  }

  Status Insert(const Tensor&, const Tensor&) override {
    return errors::Unimplemented(
        "Insert not supported by InitializableLookupTable implementations");
  }
  Status Remove(const Tensor&) override {
    return errors::Unimplemented(
        "Remove not supported by InitializableLookupTable implementations");
  }
  Status Import(const Tensor& keys, const Tensor& values) override {
    return Initialize(keys, values, /*replace=*/true);
  }

  int64_t size() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return static_cast<int64_t>(index_.size());
  }

  // The distinct keys and their values.
  void Export(Tensor* keys, Tensor* values) const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    const int64_t n = static_cast<int64_t>(index_.size());
    *keys = Tensor(key_dtype_, TensorShape({n}));
    *values = Tensor(value_dtype_, TensorShape({n}));
    int64_t i = 0;
    for (const auto& entry : index_) {
      CopyElements(keys_, entry.second, keys, i, 1);
      CopyElements(values_, entry.second, values, i, 1);
      ++i;
    }
  }

 private:
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
                const Tensor& values) const {
    if (index.size() != index_.size()) return false;
    for (const auto& [key, row] : index) {
      auto it = index_.find(key);
      if (it == index_.end() || !SameValue(values, row, values_, it->second)) {
        return false;
      }
    }
    return true;
  }

  bool initialized_ = false;
  Tensor keys_, values_;
  std::unordered_map<std::string, int64_t> index_;
};

// MutableHashTableV2 (scalar values) and MutableHashTableOfTensorsV2
// (values of value_shape): each key's value in its own tensor.
class MutableHashTable : public LookupTable {
 public:
  MutableHashTable(DataType key_dtype, DataType value_dtype,
                   TensorShape value_shape)
      : LookupTable("MutableHashTable", key_dtype, value_dtype,
                    std::move(value_shape)) {}

  Status Find(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const override {
    bool per_key = false;
    TW_RETURN_IF_ERROR(CheckDefault(keys, default_value, &per_key));
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      auto it = map_.find(KeyText(keys, i));
      if (it == map_.end()) {
        CopyElements(default_value, per_key ? i * value_size_ : 0, out,
                     i * value_size_, value_size_);
      } else {
        CopyElements(it->second, 0, out, i * value_size_, value_size_);
      }
    }
    return Status::OK();
  }

  Status Insert(const Tensor& keys, const Tensor& values) override {
    TW_RETURN_IF_ERROR(CheckValues(keys, values, "LookupTableInsertV2"));
    std::unique_lock<std::shared_mutex> lock(mu_);
    InsertLocked(keys, values);
    return Status::OK();
  }

  Status Remove(const Tensor& keys) override {
    TW_RETURN_IF_ERROR(CheckKeys(keys, "LookupTableRemoveV2"));
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      map_.erase(KeyText(keys, i));
    }
    return Status::OK();
  }

  Status Import(const Tensor& keys, const Tensor& values) override {
    TW_RETURN_IF_ERROR(CheckValues(keys, values, "LookupTableImportV2"));
    std::unique_lock<std::shared_mutex> lock(mu_);
    map_.clear();
    InsertLocked(keys, values);
    return Status::OK();
  }

  void Export(Tensor* keys, Tensor* values) const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    const int64_t n = static_cast<int64_t>(map_.size());
    *keys = Tensor(key_dtype_, TensorShape({n}));
    *values = Tensor(value_dtype_, Concat(TensorShape({n}), value_shape_));
    int64_t i = 0;
    for (const auto& [key, value] : map_) {
      SetKey(key, keys, i);
      CopyElements(value, 0, values, i * value_size_, value_size_);
      ++i;
    }
  }

  int64_t size() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return static_cast<int64_t>(map_.size());
  }

 private:
  void InsertLocked(const Tensor& keys, const Tensor& values) {
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      Tensor value(value_dtype_, TensorShape({value_size_}));
      CopyElements(values, i * value_size_, &value, 0, value_size_);
      map_[KeyText(keys, i)] = std::move(value);
    }
  }

  std::unordered_map<std::string, Tensor> map_;
};

// MutableDenseHashTableV2: open addressing with quadratic probing over a
// power-of-two number of buckets, doubled when an insert would fill more
// than max_load_factor of them. empty_key marks a free bucket and
// deleted_key a removed entry; neither may be used as a key. Export gives
// the buckets (keys [num_buckets, 1], values [num_buckets, value size]), as
// TF's.
class DenseHashTable : public LookupTable {
 public:
  DenseHashTable(DataType key_dtype, DataType value_dtype,
                 TensorShape value_shape, std::string empty_key,
                 std::string deleted_key, float max_load_factor)
      : LookupTable("MutableDenseHashTable", key_dtype, value_dtype,
                    std::move(value_shape)),
        empty_(std::move(empty_key)),
        deleted_(std::move(deleted_key)),
        max_load_factor_(max_load_factor) {}

  // num_buckets: a power of 2, at least 4, and (times the value size) at
  // most kMaxElements.
  Status CheckBuckets(int64_t num_buckets) const {
    if (num_buckets < 4 || (num_buckets & (num_buckets - 1)) != 0) {
      return errors::InvalidArgument(
          "Number of buckets must be at least 4 and a power of 2, got: ",
          num_buckets);
    }
    if (num_buckets > kMaxElements / std::max<int64_t>(value_size_, 1)) {
      return errors::InvalidArgument("Too many buckets (", num_buckets,
                                     ") for values of shape ",
                                     value_shape_.ToString());
    }
    return Status::OK();
  }

  // Empties the table into num_buckets buckets.
  Status Allocate(int64_t num_buckets) {
    TW_RETURN_IF_ERROR(CheckBuckets(num_buckets));
    buckets_.assign(num_buckets, empty_);
    values_ = Tensor(value_dtype_, TensorShape({num_buckets, value_size_}));
    live_ = used_ = 0;
    return Status::OK();
  }

  Status Find(const Tensor& keys, const Tensor& default_value,
              Tensor* out) const override {
    bool per_key = false;
    TW_RETURN_IF_ERROR(CheckDefault(keys, default_value, &per_key));
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      const std::string key = KeyText(keys, i);
      TW_RETURN_IF_ERROR(CheckKey(key));
      const int64_t b = Probe(key, nullptr);
      if (b < 0) {
        CopyElements(default_value, per_key ? i * value_size_ : 0, out,
                     i * value_size_, value_size_);
      } else {
        CopyElements(values_, b * value_size_, out, i * value_size_,
                     value_size_);
      }
    }
    return Status::OK();
  }

  Status Insert(const Tensor& keys, const Tensor& values) override {
    TW_RETURN_IF_ERROR(CheckValues(keys, values, "LookupTableInsertV2"));
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      TW_RETURN_IF_ERROR(CheckKey(KeyText(keys, i)));
    }
    std::unique_lock<std::shared_mutex> lock(mu_);
    return InsertLocked(keys, values);
  }

  Status Remove(const Tensor& keys) override {
    TW_RETURN_IF_ERROR(CheckKeys(keys, "LookupTableRemoveV2"));
    std::vector<std::string> texts;
    for (int64_t i = 0; i < keys.num_elements(); ++i) {
      texts.push_back(KeyText(keys, i));
      TW_RETURN_IF_ERROR(CheckKey(texts.back()));
    }
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (const std::string& key : texts) {
      const int64_t b = Probe(key, nullptr);
      if (b >= 0) {
        buckets_[b] = deleted_;
        --live_;
      }
    }
    return Status::OK();
  }

  // Takes exported buckets (keys [n] or [n, 1], values [n, ...]): their
  // entries, re-hashed into n buckets.
  Status Import(const Tensor& keys, const Tensor& values) override {
    TW_RETURN_IF_ERROR(
        CheckTypes(keys.dtype(), values.dtype(), "LookupTableImportV2"));
    const int64_t n = keys.rank() >= 1 ? keys.dim(0) : -1;
    if (n < 0 || keys.num_elements() != n || values.rank() < 1 ||
        values.dim(0) != n || values.num_elements() != n * value_size_) {
      return errors::InvalidArgument(
          "Expected keys [n] or [n,1] and values [n,", value_size_,
          "] of the same n, got ", keys.shape().ToString(), " and ",
          values.shape().ToString());
    }
    std::vector<int64_t> rows;
    for (int64_t i = 0; i < n; ++i) {
      const std::string key = KeyText(keys, i);
      if (key != empty_ && key != deleted_) rows.push_back(i);
    }
    int64_t buckets = 4;
    while ((buckets < n || rows.size() > buckets * max_load_factor_) &&
           buckets <= kMaxElements) {
      buckets *= 2;
    }
    std::unique_lock<std::shared_mutex> lock(mu_);
    TW_RETURN_IF_ERROR(Allocate(buckets));
    for (int64_t i : rows) Put(KeyText(keys, i), values, i * value_size_);
    return Status::OK();
  }

  void Export(Tensor* keys, Tensor* values) const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    const int64_t n = static_cast<int64_t>(buckets_.size());
    *keys = Tensor(key_dtype_, TensorShape({n, 1}));
    for (int64_t i = 0; i < n; ++i) SetKey(buckets_[i], keys, i);
    *values = values_.DeepCopy();
  }

  int64_t size() const override {
    std::shared_lock<std::shared_mutex> lock(mu_);
    return live_;
  }

 private:
  static constexpr int64_t kMaxElements = int64_t{1} << 28;

  Status CheckKey(const std::string& key) const {
    if (key == empty_) {
      return errors::InvalidArgument(
          "Using the empty_key as a table key is not allowed");
    }
    if (key == deleted_) {
      return errors::InvalidArgument(
          "Using the deleted_key as a table key is not allowed");
    }
    return Status::OK();
  }

  // The bucket holding `key` (-1: none). With `free`, also the bucket an
  // insert of it would take: its first deleted or empty bucket.
  int64_t Probe(const std::string& key, int64_t* free) const {
    const int64_t mask = static_cast<int64_t>(buckets_.size()) - 1;
    int64_t b = static_cast<int64_t>(std::hash<std::string>()(key) & mask);
    if (free != nullptr) *free = -1;
    for (int64_t probe = 1; probe <= mask + 1; ++probe) {
      const std::string& at = buckets_[b];
      if (at == key) return b;
      if (at == deleted_ || at == empty_) {
        if (free != nullptr && *free < 0) *free = b;
        if (at == empty_) return -1;
      }
      b = (b + probe) & mask;
    }
    return -1;
  }

  // Stores key -> the value_size_ elements of values from `at` (a bucket
  // must be free: callers keep the load under max_load_factor).
  void Put(const std::string& key, const Tensor& values, int64_t at) {
    int64_t free = -1;
    int64_t b = Probe(key, &free);
    if (b < 0) {
      b = free;
      if (buckets_[b] == empty_) ++used_;
      buckets_[b] = key;
      ++live_;
    }
    CopyElements(values, at, &values_, b * value_size_, value_size_);
  }

  Status InsertLocked(const Tensor& keys, const Tensor& values) {
    const int64_t n = keys.num_elements();
    const int64_t buckets = static_cast<int64_t>(buckets_.size());
    if (used_ + n > buckets * max_load_factor_) {
      // Rehash the live entries (dropping deleted ones) into enough buckets.
      int64_t grown = buckets;
      while (live_ + n > grown * max_load_factor_ && grown <= kMaxElements) {
        grown *= 2;
      }
      TW_RETURN_IF_ERROR(CheckBuckets(grown));  // before the table changes
      std::vector<std::string> old_keys = std::move(buckets_);
      Tensor old_values = values_;
      TW_RETURN_IF_ERROR(Allocate(grown));
      for (size_t i = 0; i < old_keys.size(); ++i) {
        if (old_keys[i] != empty_ && old_keys[i] != deleted_) {
          Put(old_keys[i], old_values, i * value_size_);
        }
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      Put(KeyText(keys, i), values, i * value_size_);
    }
    return Status::OK();
  }

  const std::string empty_, deleted_;
  const float max_load_factor_;
  std::vector<std::string> buckets_;  // each bucket's key (as KeyText)
  Tensor values_;                     // [num_buckets, value size]
  int64_t live_ = 0, used_ = 0;       // entries; entries + deleted buckets
};

template <typename T>
Status GetTable(OpKernelContext* ctx, std::shared_ptr<T>* table) {
  std::string container, name;
  TW_RETURN_IF_ERROR(
      DecodeSessionResourceHandle(ctx->input(0), "a table", &container, &name));
  return ctx->resource_mgr()->Lookup(container, name, table);
}

// The table ops: the first step creates the table (or finds the one of the
// same shared_name); every step outputs its handle.
class TableOp : public OpKernel {
 public:
  explicit TableOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), type_(ctx->node().type_string()) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &shared_name_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_node_name_sharing", &node_sharing_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("key_dtype", &key_dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value_dtype", &value_dtype_));
    if (type_ == "MutableHashTableOfTensorsV2" ||
        type_ == "MutableDenseHashTableV2") {
      PartialShape shape;
      OP_REQUIRES_OK(ctx, ctx->GetAttr("value_shape", &shape));
      OP_REQUIRES(
          ctx, shape.known_rank() && shape.IsFullyDefined(),
          errors::InvalidArgument("value_shape must be fully defined, got ",
                                  shape.ToString()));
      OP_REQUIRES_OK(ctx, TensorShape::Build(shape.dims(), &value_shape_));
      OP_REQUIRES(ctx, value_shape_.num_elements() <= (int64_t{1} << 24),
                  errors::InvalidArgument("value_shape ", shape.ToString(),
                                          " is too large"));
    }
    if (type_ == "MutableDenseHashTableV2") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("initial_num_buckets", &num_buckets_));
      OP_REQUIRES(
          ctx, num_buckets_ <= (int64_t{1} << 22),
          errors::InvalidArgument(
              "initial_num_buckets must be at most 2^22, got: ", num_buckets_));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("max_load_factor", &max_load_factor_));
      OP_REQUIRES(ctx, max_load_factor_ > 0 && max_load_factor_ < 1,
                  errors::InvalidArgument(
                      "max_load_factor must be between 0 and 1, got: ",
                      max_load_factor_));
    }
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
                                return Create(ctx, out);
                              },
                              &table));
      OP_REQUIRES_OK(ctx, table->CheckTypes(key_dtype_, value_dtype_,
                                            "shared table " + table_name));
      OP_REQUIRES(ctx,
                  table->DebugString() == Kind() &&
                      table->value_shape() == value_shape_,
                  errors::InvalidArgument("shared table ", table_name, " is a ",
                                          table->DebugString(), " of values ",
                                          table->value_shape().ToString(),
                                          ", not the kind ", type_, " makes"));
      handle_ = EncodeSessionResourceHandle(container_, table_name);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(handle_));
  }

 private:
  const char* Kind() const {
    if (type_ == "HashTableV2") return "HashTable";
    if (type_ == "MutableDenseHashTableV2") return "MutableDenseHashTable";
    return "MutableHashTable";
  }

  Status Create(OpKernelContext* ctx, std::shared_ptr<LookupTable>* out) {
    if (type_ == "HashTableV2") {
      *out = std::make_shared<HashTable>(key_dtype_, value_dtype_);
      return Status::OK();
    }
    if (type_ != "MutableDenseHashTableV2") {
      *out = std::make_shared<MutableHashTable>(key_dtype_, value_dtype_,
                                                value_shape_);
      return Status::OK();
    }
    const Tensor& empty = ctx->input(0);
    const Tensor& deleted = ctx->input(1);
    if (empty.dtype() != key_dtype_ || deleted.dtype() != key_dtype_ ||
        empty.num_elements() != 1 || deleted.num_elements() != 1) {
      return errors::InvalidArgument(
          "empty_key and deleted_key must be scalars of the key dtype ",
          DataTypeName(key_dtype_),
          " (tensorweave's dense tables take "
          "scalar keys), got ",
          empty.shape().ToString(), " and ", deleted.shape().ToString());
    }
    const std::string empty_key = KeyText(empty, 0);
    const std::string deleted_key = KeyText(deleted, 0);
    if (empty_key == deleted_key) {
      return errors::InvalidArgument("Empty and deleted keys cannot be equal");
    }
    auto table = std::make_shared<DenseHashTable>(
        key_dtype_, value_dtype_, value_shape_, empty_key, deleted_key,
        max_load_factor_);
    TW_RETURN_IF_ERROR(table->Allocate(num_buckets_));
    *out = std::move(table);
    return Status::OK();
  }

  const std::string type_;
  std::string container_, shared_name_;
  bool node_sharing_ = false;
  DataType key_dtype_ = DT_STRING, value_dtype_ = DT_INT64;
  TensorShape value_shape_;
  int64_t num_buckets_ = 131072;
  float max_load_factor_ = 0.8f;
  std::mutex mu_;
  std::string handle_;
};

// InitializeTableV2 (a HashTable) and LookupTableImportV2 (any table).
class InitializeTableOp : public OpKernel {
 public:
  explicit InitializeTableOp(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        import_(ctx->node().type_string() == "LookupTableImportV2") {}

  void Compute(OpKernelContext* ctx) override {
    if (import_) {
      std::shared_ptr<LookupTable> table;
      OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
      OP_REQUIRES_OK(ctx, table->Import(ctx->input(1), ctx->input(2)));
      return;
    }
    std::shared_ptr<HashTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    OP_REQUIRES_OK(ctx, table->Initialize(ctx->input(1), ctx->input(2),
                                          /*replace=*/false));
  }

 private:
  const bool import_;
};

class LookupTableInsertOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    OP_REQUIRES_OK(ctx, table->Insert(ctx->input(1), ctx->input(2)));
  }
};

class LookupTableRemoveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    OP_REQUIRES_OK(ctx, table->Remove(ctx->input(1)));
  }
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
    std::shared_ptr<HashTable> table;
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
  static constexpr int64_t kMaxOutput = int64_t{1} << 31;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<LookupTable> table;
    OP_REQUIRES_OK(ctx, GetTable(ctx, &table));
    const Tensor& keys = ctx->input(1);
    const TensorShape& value_shape = table->value_shape();
    OP_REQUIRES(
        ctx,
        keys.num_elements() <=
            kMaxOutput / std::max<int64_t>(value_shape.num_elements(), 1),
        errors::InvalidArgument("Looking up ", keys.num_elements(),
                                " keys of values ", value_shape.ToString(),
                                " is too large an output"));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, Concat(keys.shape(), value_shape), &out));
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

REGISTER_KERNEL(KernelDef("HashTableV2"), TableOp);
REGISTER_KERNEL(KernelDef("MutableHashTableV2"), TableOp);
REGISTER_KERNEL(KernelDef("MutableHashTableOfTensorsV2"), TableOp);
REGISTER_KERNEL(KernelDef("MutableDenseHashTableV2"), TableOp);
REGISTER_KERNEL(KernelDef("LookupTableInsertV2"), LookupTableInsertOp);
REGISTER_KERNEL(KernelDef("LookupTableRemoveV2"), LookupTableRemoveOp);
REGISTER_KERNEL(KernelDef("InitializeTableV2"), InitializeTableOp);
REGISTER_KERNEL(KernelDef("LookupTableImportV2"), InitializeTableOp);
REGISTER_KERNEL(KernelDef("InitializeTableFromTextFileV2"),
                InitializeTableFromTextFileOp);
REGISTER_KERNEL(KernelDef("LookupTableFindV2"), LookupTableFindOp);
REGISTER_KERNEL(KernelDef("LookupTableSizeV2"), LookupTableSizeOp);
REGISTER_KERNEL(KernelDef("LookupTableExportV2"), LookupTableExportOp);

}  // namespace tensorweave
