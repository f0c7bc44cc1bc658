// The transformations that reorder or select elements without a function:
// Repeat, Take, Skip, Shard, Zip, Concatenate, Cache.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"

namespace tensorweave {
namespace data {
namespace {

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
    if (count_ < 0) return n == kUnknownCardinality ? n : kInfiniteCardinality;
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

Status ParseCount(OpKernelContext* ctx, const char* who, int64_t* count) {
  TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "count", count));
  if (*count < -1) {
    return errors::InvalidArgument(who, ": count must be >= -1 (-1: all), got ",
                                   *count);
  }
  return Status::OK();
}

class RepeatDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t count;
    TW_RETURN_IF_ERROR(ParseCount(ctx, "RepeatDataset", &count));
    *out = std::make_shared<RepeatDataset>(output_dtypes(), output_shapes(),
                                           std::move(input), count);
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("RepeatDataset"), RepeatDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
