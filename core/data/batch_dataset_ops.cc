// Batching: BatchDatasetV2, PaddedBatchDatasetV2, UnbatchDataset. A batch is
// one allocated tensor per component, each element copied into its row by
// memcpy (strings by assignment); Unbatch's elements are views of the rows.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"

namespace tensorweave {
namespace data {
namespace {

// Copies `src` (the shape of a row) into row `row` of `dst`.
void CopyRow(const Tensor& src, Tensor* dst, int64_t row) {
  const int64_t n = src.num_elements();
  if (n == 0) return;
  if (src.dtype() == DT_STRING) {
    const std::string* from = src.data<std::string>();
    std::string* to = dst->data<std::string>() + row * n;
    for (int64_t i = 0; i < n; ++i) to[i] = from[i];
  } else {
    const size_t bytes = src.num_bytes();
    std::memcpy(static_cast<char*>(dst->raw_data()) + row * bytes,
                src.raw_data(), bytes);
  }
}

// Stacks the elements (all of one shape per component) into `out`.
Status StackElements(const std::string& who, std::vector<Element>* elements,
                     Element* out) {
  const size_t components = (*elements)[0].size();
  const int64_t n = static_cast<int64_t>(elements->size());
  out->clear();
  out->reserve(components);
  for (size_t c = 0; c < components; ++c) {
    const Tensor& first = (*elements)[0][c];
    for (int64_t i = 1; i < n; ++i) {
      const Tensor& t = (*elements)[i][c];
      if (t.shape() != first.shape()) {
        return errors::InvalidArgument(
            who, ": cannot batch tensors with different shapes in component ",
            c, ". First element had shape ", first.shape().ToString(),
            " and element ", i, " had shape ", t.shape().ToString(), ".");
      }
    }
    std::vector<int64_t> dims = {n};
    dims.insert(dims.end(), first.shape().dims().begin(),
                first.shape().dims().end());
    Tensor batch;
    TW_RETURN_IF_ERROR(
        Tensor::Allocate(first.dtype(), TensorShape(std::move(dims)), &batch));
    for (int64_t i = 0; i < n; ++i) CopyRow((*elements)[i][c], &batch, i);
    out->push_back(std::move(batch));
  }
  return Status::OK();
}

class BatchDataset : public DatasetBase {
 public:
  BatchDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
               DatasetPtr input, int64_t batch_size, bool drop_remainder)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder) {}

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
    return drop_remainder_ ? n / batch_size_
                           : (n + batch_size_ - 1) / batch_size_;
  }
  std::string DebugString() const override {
    return "BatchDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const BatchDataset* dataset, std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      if (input_ == nullptr) {
        *end_of_sequence = true;
        return Status::OK();
      }
      elements_.clear();
      bool end = false;
      while (static_cast<int64_t>(elements_.size()) < dataset_->batch_size_) {
        Element element;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &element, &end));
        if (end) break;
        elements_.push_back(std::move(element));
      }
      if (end) input_.reset();
      if (elements_.empty() ||
          (dataset_->drop_remainder_ &&
           static_cast<int64_t>(elements_.size()) < dataset_->batch_size_)) {
        *end_of_sequence = true;
        elements_.clear();
        return Status::OK();
      }
      Status s = StackElements("BatchDataset", &elements_, out);
      elements_.clear();
      return s;
    }

   private:
    const BatchDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    std::vector<Element> elements_;
  };

  const DatasetPtr input_;
  const int64_t batch_size_;
  const bool drop_remainder_;
};

Status ParseBool(OpKernelContext* ctx, int index, const char* name,
                 bool* value) {
  const Tensor& t = ctx->input(index);
  if (t.dtype() != DT_BOOL || t.rank() != 0) {
    return errors::InvalidArgument(name, " must be a bool scalar, got ",
                                   DataTypeName(t.dtype()), " ",
                                   t.shape().ToString());
  }
  *value = t.data<bool>()[0];
  return Status::OK();
}

class BatchDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t batch_size;
    bool drop_remainder;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "batch_size", &batch_size));
    TW_RETURN_IF_ERROR(ParseBool(ctx, 2, "drop_remainder", &drop_remainder));
    if (batch_size <= 0) {
      return errors::InvalidArgument(
          "BatchDataset: batch_size must be greater than zero, got ",
          batch_size);
    }
    *out = std::make_shared<BatchDataset>(output_dtypes(), output_shapes(),
                                          std::move(input), batch_size,
                                          drop_remainder);
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("BatchDatasetV2"), BatchDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
