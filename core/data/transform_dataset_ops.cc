// The transformations that reorder or select elements without a function:
// Repeat, Take, Skip, Shard, Zip, Concatenate, Cache (memory, or a file of
// tensorweave's own format).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"

namespace tensorweave {
namespace data {
namespace {

std::string TypesString(const DataTypeVector& types) {
  std::string s = "[";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i > 0) s += ", ";
    s += DataTypeName(types[i]);
  }
  return s + "]";
}

// The cache file of CacheDataset: `filename`.twcache (written to a temporary
// name, renamed when complete): "TWCACHE1", the element count (u64), then per
// element per component the dtype (i32), rank (i32), dims (i64 each) and the
// data (strings: u64 length and bytes each). Native byte order.
constexpr char kCacheMagic[8] = {'T', 'W', 'C', 'A', 'C', 'H', 'E', '1'};

std::string CachePath(const std::string& filename) {
  return filename + ".twcache";
}

Status WriteCacheFile(const std::string& filename,
                      const std::vector<Element>& elements) {
  const std::string path = CachePath(filename);
  const std::string tmp = path + ".tmp";
  std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
  if (!f) {
    return errors::InvalidArgument("CacheDataset: cannot write the cache file ",
                                   tmp, ": ", std::strerror(errno));
  }
  auto put = [&f](const void* p, size_t n) {
    f.write(static_cast<const char*>(p), static_cast<std::streamsize>(n));
  };
  put(kCacheMagic, sizeof(kCacheMagic));
  const uint64_t count = elements.size();
  put(&count, sizeof(count));
  for (const Element& element : elements) {
    for (const Tensor& t : element) {
      const int32_t dtype = t.dtype(), rank = t.rank();
      put(&dtype, sizeof(dtype));
      put(&rank, sizeof(rank));
      for (int64_t d : t.shape().dims()) put(&d, sizeof(d));
      if (t.dtype() == DT_STRING) {
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          const std::string& s = t.data<std::string>()[i];
          const uint64_t n = s.size();
          put(&n, sizeof(n));
          put(s.data(), s.size());
        }
      } else {
        put(t.raw_data(), t.num_bytes());
      }
    }
  }
  f.close();
  if (!f || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return errors::Internal("CacheDataset: failed writing the cache file ",
                            path);
  }
  return Status::OK();
}

Status ReadCacheFile(const std::string& filename, const DataTypeVector& dtypes,
                     std::vector<Element>* elements, bool* found) {
  const std::string path = CachePath(filename);
  std::ifstream f(path, std::ios::binary);
  *found = static_cast<bool>(f);
  if (!*found) return Status::OK();
  auto corrupt = [&path](const char* what) {
    return errors::DataLoss("CacheDataset: the cache file ", path,
                            " is corrupt (", what, ")");
  };
  auto get = [&f](void* p, size_t n) {
    f.read(static_cast<char*>(p), static_cast<std::streamsize>(n));
    return static_cast<bool>(f);
  };
  char magic[sizeof(kCacheMagic)];
  uint64_t count = 0;
  if (!get(magic, sizeof(magic)) ||
      std::memcmp(magic, kCacheMagic, sizeof(magic)) != 0 ||
      !get(&count, sizeof(count))) {
    return corrupt("bad header");
  }
  elements->reserve(std::min<uint64_t>(count, 1 << 20));
  for (uint64_t e = 0; e < count; ++e) {
    Element element;
    for (size_t c = 0; c < dtypes.size(); ++c) {
      int32_t dtype = 0, rank = 0;
      if (!get(&dtype, sizeof(dtype)) || !get(&rank, sizeof(rank)) ||
          rank < 0 || rank > 64) {
        return corrupt("bad component header");
      }
      if (dtype != dtypes[c]) {
        return errors::InvalidArgument(
            "CacheDataset: the cache file ", path, " holds component ", c,
            " of dtype ", DataTypeName(static_cast<DataType>(dtype)),
            "; the dataset's is ", DataTypeName(dtypes[c]));
      }
      std::vector<int64_t> dims(rank);
      for (int64_t& d : dims) {
        if (!get(&d, sizeof(d))) return corrupt("truncated shape");
      }
      Tensor t;
      TW_RETURN_IF_ERROR(Tensor::Allocate(static_cast<DataType>(dtype),
                                          TensorShape(std::move(dims)), &t));
      if (t.dtype() == DT_STRING) {
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          uint64_t n = 0;
          if (!get(&n, sizeof(n)) || n > (uint64_t{1} << 40)) {
            return corrupt("bad string length");
          }
          std::string& s = t.data<std::string>()[i];
          s.resize(n);
          if (n > 0 && !get(&s[0], n)) return corrupt("truncated string");
        }
      } else if (t.num_bytes() > 0 && !get(t.raw_data(), t.num_bytes())) {
        return corrupt("truncated data");
      }
      element.push_back(std::move(t));
    }
    elements->push_back(std::move(element));
  }
  return Status::OK();
}

class RepeatDataset : public DatasetBase {
 public:
  RepeatDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                DatasetPtr input, int64_t count)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        count_(count) {}

  Status MakeIterator(IteratorContext*,
                      std::unique_ptr<IteratorBase>* out) const override {
    *out = std::make_unique<Iterator>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (count_ == 0 || n == 0) return 0;
    if (count_ < 0) return kInfiniteCardinality;  // as TensorFlow's
    if (n < 0) return n;
    return n * count_;
  }
  std::string DebugString() const override {
    return "RepeatDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(const RepeatDataset* dataset) : dataset_(dataset) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      while (true) {
        if (done_) {
          *end_of_sequence = true;
          return Status::OK();
        }
        if (input_ == nullptr) {
          if (dataset_->count_ >= 0 && epoch_ >= dataset_->count_) {
            done_ = true;
            continue;
          }
          TW_RETURN_IF_ERROR(dataset_->input_->MakeIterator(ctx, &input_));
          produced_in_epoch_ = false;
        }
        bool end = false;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, out, &end));
        if (!end) {
          produced_in_epoch_ = true;
          return Status::OK();
        }
        input_.reset();
        ++epoch_;
        // An epoch without elements: the next would be empty too.
        if (!produced_in_epoch_) done_ = true;
      }
    }

   private:
    const RepeatDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    int64_t epoch_ = 0;
    bool produced_in_epoch_ = false;
    bool done_ = false;
  };

  const DatasetPtr input_;
  const int64_t count_;
};

// A negative count is "all" (forever for Repeat), as in TensorFlow, which
// accepts any negative count.
Status ParseCount(OpKernelContext* ctx, int64_t* count) {
  TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "count", count));
  if (*count < 0) *count = -1;
  return Status::OK();
}

class RepeatDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t count;
    TW_RETURN_IF_ERROR(ParseCount(ctx, &count));
    *out = std::make_shared<RepeatDataset>(output_dtypes(), output_shapes(),
                                           std::move(input), count);
    return Status::OK();
  }
};

class TakeDataset : public DatasetBase {
 public:
  TakeDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
              DatasetPtr input, int64_t count)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        count_(count) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    if (count_ != 0) TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(this, std::move(input));
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (count_ < 0) return n;
    if (n == kInfiniteCardinality) return count_;
    if (n == kUnknownCardinality) return n;
    return std::min(n, count_);
  }
  std::string DebugString() const override {
    return "TakeDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const TakeDataset* dataset, std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      if (input_ == nullptr ||
          (dataset_->count_ >= 0 && taken_ >= dataset_->count_)) {
        input_.reset();
        *end_of_sequence = true;
        return Status::OK();
      }
      TW_RETURN_IF_ERROR(input_->GetNext(ctx, out, end_of_sequence));
      if (*end_of_sequence) {
        input_.reset();
      } else {
        ++taken_;
      }
      return Status::OK();
    }

   private:
    const TakeDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    int64_t taken_ = 0;
  };

  const DatasetPtr input_;
  const int64_t count_;
};

class TakeDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t count;
    TW_RETURN_IF_ERROR(ParseCount(ctx, &count));
    *out = std::make_shared<TakeDataset>(output_dtypes(), output_shapes(),
                                         std::move(input), count);
    return Status::OK();
  }
};

class SkipDataset : public DatasetBase {
 public:
  SkipDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
              DatasetPtr input, int64_t count)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        count_(count) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    if (count_ >= 0) TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(this, std::move(input));
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (count_ < 0) return 0;
    if (n < 0) return n;
    return std::max<int64_t>(0, n - count_);
  }
  std::string DebugString() const override {
    return "SkipDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const SkipDataset* dataset, std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      if (input_ == nullptr) {
        *end_of_sequence = true;
        return Status::OK();
      }
      while (skipped_ < dataset_->count_) {
        Element skipped;
        bool end = false;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &skipped, &end));
        if (end) {
          input_.reset();
          *end_of_sequence = true;
          return Status::OK();
        }
        ++skipped_;
      }
      TW_RETURN_IF_ERROR(input_->GetNext(ctx, out, end_of_sequence));
      if (*end_of_sequence) input_.reset();
      return Status::OK();
    }

   private:
    const SkipDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    int64_t skipped_ = 0;
  };

  const DatasetPtr input_;
  const int64_t count_;
};

class SkipDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t count;
    TW_RETURN_IF_ERROR(ParseCount(ctx, &count));
    *out = std::make_shared<SkipDataset>(output_dtypes(), output_shapes(),
                                         std::move(input), count);
    return Status::OK();
  }
};

class ShardDataset : public DatasetBase {
 public:
  ShardDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
               DatasetPtr input, int64_t num_shards, int64_t index,
               bool require_non_empty)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        num_shards_(num_shards),
        index_(index),
        require_non_empty_(require_non_empty) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(this, std::move(input));
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t n = input_->Cardinality();
    if (n < 0) return n;
    return n / num_shards_ + (index_ < n % num_shards_ ? 1 : 0);
  }
  std::string DebugString() const override {
    return "ShardDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const ShardDataset* dataset, std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      while (input_ != nullptr) {
        Element element;
        bool end = false;
        const int64_t position = next_++;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &element, &end));
        if (end) break;
        if (position % dataset_->num_shards_ == dataset_->index_) {
          *out = std::move(element);
          produced_ = true;
          return Status::OK();
        }
      }
      input_.reset();
      *end_of_sequence = true;
      if (dataset_->require_non_empty_ && !produced_) {
        produced_ = true;  // said once
        return errors::InvalidArgument(
            "ShardDataset: shard ", dataset_->index_, " of ",
            dataset_->num_shards_,
            " is empty (the input has fewer elements than shards) and "
            "require_non_empty is set");
      }
      return Status::OK();
    }

   private:
    const ShardDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    int64_t next_ = 0;
    bool produced_ = false;
  };

  const DatasetPtr input_;
  const int64_t num_shards_, index_;
  const bool require_non_empty_;
};

class ShardDatasetOp : public UnaryDatasetOpKernel {
 public:
  explicit ShardDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("require_non_empty", &require_non_empty_));
  }
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t num_shards, index;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "num_shards", &num_shards));
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 2, "index", &index));
    if (num_shards <= 0) {
      return errors::InvalidArgument(
          "ShardDataset: num_shards must be greater than zero, got ",
          num_shards);
    }
    if (index < 0 || index >= num_shards) {
      return errors::InvalidArgument("ShardDataset: index must be in [0, ",
                                     num_shards, "), got ", index);
    }
    *out = std::make_shared<ShardDataset>(output_dtypes(), output_shapes(),
                                          std::move(input), num_shards, index,
                                          require_non_empty_);
    return Status::OK();
  }

 private:
  bool require_non_empty_ = false;
};

class ZipDataset : public DatasetBase {
 public:
  ZipDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
             std::vector<DatasetPtr> inputs)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        inputs_(std::move(inputs)) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::vector<std::unique_ptr<IteratorBase>> inputs(inputs_.size());
    for (size_t i = 0; i < inputs_.size(); ++i) {
      TW_RETURN_IF_ERROR(inputs_[i]->MakeIterator(ctx, &inputs[i]));
    }
    *out = std::make_unique<Iterator>(std::move(inputs));
    return Status::OK();
  }
  int64_t Cardinality() const override {
    int64_t result = kInfiniteCardinality;
    for (const DatasetPtr& input : inputs_) {
      const int64_t n = input->Cardinality();
      if (n == kUnknownCardinality) return n;
      if (n == kInfiniteCardinality) continue;
      result = result == kInfiniteCardinality ? n : std::min(result, n);
    }
    return result;
  }
  std::string DebugString() const override { return "ZipDataset"; }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(std::vector<std::unique_ptr<IteratorBase>> inputs)
        : inputs_(std::move(inputs)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      if (done_) {
        *end_of_sequence = true;
        return Status::OK();
      }
      out->clear();
      // Every input advances, even after an error or the end of another
      // (as TensorFlow's).
      Status status;
      bool end = false;
      for (auto& input : inputs_) {
        Element element;
        bool input_end = false;
        Status s = input->GetNext(ctx, &element, &input_end);
        if (!s.ok()) {
          if (status.ok()) status = s;
          continue;
        }
        if (input_end) {
          end = true;
          continue;
        }
        for (Tensor& t : element) out->push_back(std::move(t));
      }
      if (end) {
        done_ = true;
        inputs_.clear();
        out->clear();
        *end_of_sequence = true;
        return Status::OK();
      }
      if (!status.ok()) out->clear();
      return status;
    }

   private:
    std::vector<std::unique_ptr<IteratorBase>> inputs_;
    bool done_ = false;
  };

  const std::vector<DatasetPtr> inputs_;
};

class ZipDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) override {
    std::vector<DatasetPtr> inputs(ctx->num_inputs());
    size_t components = 0;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      TW_RETURN_IF_ERROR(
          GetDatasetFromHandle(ctx->input(i), "input_datasets", &inputs[i]));
      components += inputs[i]->output_dtypes().size();
    }
    if (components != output_dtypes().size()) {
      return errors::InvalidArgument(
          "ZipDataset: the inputs have ", components, " components in all but ",
          output_dtypes().size(), " output types are declared");
    }
    *out = std::make_shared<ZipDataset>(output_dtypes(), output_shapes(),
                                        std::move(inputs));
    return Status::OK();
  }
};

class ConcatenateDataset : public DatasetBase {
 public:
  ConcatenateDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                     DatasetPtr first, DatasetPtr second)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        first_(std::move(first)),
        second_(std::move(second)) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(first_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(this, std::move(input));
    return Status::OK();
  }
  int64_t Cardinality() const override {
    const int64_t a = first_->Cardinality(), b = second_->Cardinality();
    if (a == kInfiniteCardinality || b == kInfiniteCardinality) {
      return kInfiniteCardinality;
    }
    if (a < 0 || b < 0) return kUnknownCardinality;
    return a + b;
  }
  std::string DebugString() const override {
    return "ConcatenateDataset(" + first_->DebugString() + ", " +
           second_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const ConcatenateDataset* dataset,
             std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      while (input_ != nullptr) {
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, out, end_of_sequence));
        if (!*end_of_sequence) return Status::OK();
        input_.reset();
        if (!on_second_) {
          on_second_ = true;
          TW_RETURN_IF_ERROR(dataset_->second_->MakeIterator(ctx, &input_));
        }
      }
      *end_of_sequence = true;
      return Status::OK();
    }

   private:
    const ConcatenateDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    bool on_second_ = false;
  };

  const DatasetPtr first_, second_;
};

class ConcatenateDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    DatasetPtr another;
    TW_RETURN_IF_ERROR(
        GetDatasetFromHandle(ctx->input(1), "another_dataset", &another));
    if (input->output_dtypes() != another->output_dtypes()) {
      return errors::InvalidArgument(
          "ConcatenateDataset: the datasets have different component types: ",
          TypesString(input->output_dtypes()), " and ",
          TypesString(another->output_dtypes()));
    }
    *out = std::make_shared<ConcatenateDataset>(
        output_dtypes(), output_shapes(), std::move(input), std::move(another));
    return Status::OK();
  }
};

// CacheDataset: the first iterator that walks the whole input keeps its
// elements (in memory; with a filename, also in the file `filename`, which
// later datasets read instead of the input); later iterators of the dataset
// replay them.
class CacheDataset : public DatasetBase {
 public:
  using Cache = std::vector<Element>;
  CacheDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
               DatasetPtr input, std::string filename,
               std::shared_ptr<const Cache> from_file)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        filename_(std::move(filename)),
        cache_(std::move(from_file)) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::shared_ptr<const Cache> cache;
    {
      std::lock_guard<std::mutex> lock(mu_);
      cache = cache_;
    }
    if (cache != nullptr) {
      *out = std::make_unique<ReadIterator>(std::move(cache));
      return Status::OK();
    }
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<WriteIterator>(this, std::move(input));
    return Status::OK();
  }
  int64_t Cardinality() const override { return input_->Cardinality(); }
  std::string DebugString() const override {
    return "CacheDataset(" + input_->DebugString() + ")";
  }

 private:
  class ReadIterator : public IteratorBase {
   public:
    explicit ReadIterator(std::shared_ptr<const Cache> cache)
        : cache_(std::move(cache)) {}
    Status GetNext(IteratorContext*, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = i_ >= cache_->size();
      if (!*end_of_sequence) *out = (*cache_)[i_++];
      return Status::OK();
    }

   private:
    const std::shared_ptr<const Cache> cache_;
    size_t i_ = 0;
  };

  class WriteIterator : public IteratorBase {
   public:
    WriteIterator(const CacheDataset* dataset,
                  std::unique_ptr<IteratorBase> input)
        : dataset_(dataset),
          input_(std::move(input)),
          cache_(std::make_shared<Cache>()) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      if (input_ == nullptr) {
        *end_of_sequence = true;
        return Status::OK();
      }
      Status s = input_->GetNext(ctx, out, end_of_sequence);
      if (!s.ok()) {
        failed_ = true;  // an incomplete pass is not cached
        return s;
      }
      if (!*end_of_sequence) {
        if (!failed_) cache_->push_back(*out);
        return Status::OK();
      }
      input_.reset();
      if (!failed_) TW_RETURN_IF_ERROR(dataset_->Publish(cache_));
      return Status::OK();
    }

   private:
    const CacheDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    std::shared_ptr<Cache> cache_;
    bool failed_ = false;
  };

  Status Publish(std::shared_ptr<const Cache> cache) const {
    std::lock_guard<std::mutex> lock(mu_);
    if (cache_ != nullptr) return Status::OK();
    if (!filename_.empty()) {
      TW_RETURN_IF_ERROR(WriteCacheFile(filename_, *cache));
    }
    cache_ = std::move(cache);
    return Status::OK();
  }

  const DatasetPtr input_;
  const std::string filename_;
  mutable std::mutex mu_;
  mutable std::shared_ptr<const Cache> cache_;
};

class CacheDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    const Tensor& filename = ctx->input(1);
    if (filename.dtype() != DT_STRING || filename.rank() != 0) {
      return errors::InvalidArgument(
          "CacheDataset: filename must be a string scalar, got ",
          DataTypeName(filename.dtype()), " ", filename.shape().ToString());
    }
    const std::string& name = filename.data<std::string>()[0];
    std::shared_ptr<const CacheDataset::Cache> from_file;
    if (!name.empty()) {
      auto cache = std::make_shared<CacheDataset::Cache>();
      bool found = false;
      TW_RETURN_IF_ERROR(
          ReadCacheFile(name, output_dtypes(), cache.get(), &found));
      if (found) from_file = std::move(cache);
    }
    *out = std::make_shared<CacheDataset>(output_dtypes(), output_shapes(),
                                          std::move(input), name,
                                          std::move(from_file));
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("RepeatDataset"), RepeatDatasetOp);
REGISTER_KERNEL(KernelDef("TakeDataset"), TakeDatasetOp);
REGISTER_KERNEL(KernelDef("SkipDataset"), SkipDatasetOp);
REGISTER_KERNEL(KernelDef("ShardDataset"), ShardDatasetOp);
REGISTER_KERNEL(KernelDef("ZipDataset"), ZipDatasetOp);
REGISTER_KERNEL(KernelDef("ConcatenateDataset"), ConcatenateDatasetOp);
REGISTER_KERNEL(KernelDef("CacheDataset"), CacheDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
