// IgnoreErrorsDataset: the input's elements, an element whose production
// failed skipped (TensorFlow's ignore_errors).
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "core/data/dataset.h"

namespace tensorweave {
namespace data {
namespace {

class IgnoreErrorsDataset : public DatasetBase {
 public:
  IgnoreErrorsDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                      DatasetPtr input, bool log_warning)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        log_warning_(log_warning) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(this, std::move(input));
    return Status::OK();
  }
  std::string DebugString() const override {
    return "IgnoreErrorsDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const IgnoreErrorsDataset* dataset,
             std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      while (input_ != nullptr) {
        Status s = input_->GetNext(ctx, out, end_of_sequence);
        if (s.ok()) {
          if (*end_of_sequence) input_.reset();
          return Status::OK();
        }
        if (dataset_->log_warning_) {
          std::fprintf(stderr, "W IgnoreErrorsDataset: error ignored: %s\n",
                       s.ToString().c_str());
        }
        out->clear();
      }
      *end_of_sequence = true;
      return Status::OK();
    }

   private:
    const IgnoreErrorsDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
  };

  const DatasetPtr input_;
  const bool log_warning_;
};

class IgnoreErrorsDatasetOp : public UnaryDatasetOpKernel {
 public:
  explicit IgnoreErrorsDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOpKernel(ctx) {
    if (!ctx->GetAttr("log_warning", &log_warning_).ok()) log_warning_ = false;
  }
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    *out = std::make_shared<IgnoreErrorsDataset>(
        output_dtypes(), output_shapes(), std::move(input), log_warning_);
    return Status::OK();
  }

 private:
  bool log_warning_ = false;
};

REGISTER_KERNEL(KernelDef("IgnoreErrorsDataset"), IgnoreErrorsDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
