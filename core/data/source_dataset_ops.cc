// The dataset sources: TensorDataset, TensorSliceDataset, RangeDataset.
// TensorSliceDataset's elements are views of the components' buffers (no
// copy): a slice of a tensor shares its buffer.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"

namespace tensorweave {
namespace data {
namespace {

// The components of a source op: its inputs, checked against Toutput_types.
Status ComponentInputs(OpKernelContext* ctx, const char* who,
                       const DataTypeVector& dtypes,
                       std::vector<Tensor>* components) {
  if (ctx->num_inputs() != static_cast<int>(dtypes.size())) {
    return errors::InvalidArgument(who, ": ", ctx->num_inputs(),
                                   " components but ", dtypes.size(),
                                   " output types");
  }
  for (int i = 0; i < ctx->num_inputs(); ++i) {
    components->push_back(ctx->input(i));
  }
  return Status::OK();
}

class TensorDataset : public DatasetBase {
 public:
  TensorDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                Element components)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        components_(std::move(components)) {}

  Status MakeIterator(IteratorContext*,
                      std::unique_ptr<IteratorBase>* out) const override {
    *out = std::make_unique<Iterator>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override { return 1; }
  std::string DebugString() const override { return "TensorDataset"; }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(const TensorDataset* dataset) : dataset_(dataset) {}
    Status GetNext(IteratorContext*, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = done_;
      if (!done_) *out = dataset_->components_;
      done_ = true;
      return Status::OK();
    }

   private:
    const TensorDataset* const dataset_;
    bool done_ = false;
  };

  const Element components_;
};

class TensorDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) override {
    Element components;
    TW_RETURN_IF_ERROR(
        ComponentInputs(ctx, "TensorDataset", output_dtypes(), &components));
    TW_RETURN_IF_ERROR(CheckElement("TensorDataset", output_dtypes(),
                                    output_shapes(), components));
    *out = std::make_shared<TensorDataset>(output_dtypes(), output_shapes(),
                                           std::move(components));
    return Status::OK();
  }
};

class TensorSliceDataset : public DatasetBase {
 public:
  TensorSliceDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                     Element components, int64_t n)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        components_(std::move(components)),
        n_(n) {
    for (const Tensor& c : components_) {
      std::vector<int64_t> dims(c.shape().dims().begin() + 1,
                                c.shape().dims().end());
      slice_shapes_.emplace_back(dims);
    }
  }

  Status MakeIterator(IteratorContext*,
                      std::unique_ptr<IteratorBase>* out) const override {
    *out = std::make_unique<Iterator>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override { return n_; }
  std::string DebugString() const override { return "TensorSliceDataset"; }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(const TensorSliceDataset* dataset) : dataset_(dataset) {}
    Status GetNext(IteratorContext*, Element* out,
                   bool* end_of_sequence) override {
      if (i_ >= dataset_->n_) {
        *end_of_sequence = true;
        return Status::OK();
      }
      *end_of_sequence = false;
      out->clear();
      out->reserve(dataset_->components_.size());
      for (size_t c = 0; c < dataset_->components_.size(); ++c) {
        Tensor slice;
        TW_RETURN_IF_ERROR(dataset_->components_[c]
                               .Slice(i_, i_ + 1)
                               .Reshaped(dataset_->slice_shapes_[c], &slice));
        out->push_back(std::move(slice));
      }
      ++i_;
      return Status::OK();
    }

   private:
    const TensorSliceDataset* const dataset_;
    int64_t i_ = 0;
  };

  const Element components_;
  std::vector<TensorShape> slice_shapes_;
  const int64_t n_;
};

class TensorSliceDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) override {
    Element components;
    TW_RETURN_IF_ERROR(ComponentInputs(ctx, "TensorSliceDataset",
                                       output_dtypes(), &components));
    int64_t n = -1;
    for (size_t i = 0; i < components.size(); ++i) {
      const Tensor& c = components[i];
      if (c.rank() < 1) {
        return errors::InvalidArgument(
            "TensorSliceDataset: component ", i,
            " is a scalar; slicing needs tensors of rank >= 1");
      }
      if (c.dtype() != output_dtypes()[i]) {
        return errors::InvalidArgument("TensorSliceDataset: component ", i,
                                       " has dtype ", DataTypeName(c.dtype()),
                                       "; expected ",
                                       DataTypeName(output_dtypes()[i]));
      }
      if (n < 0) {
        n = c.dim(0);
      } else if (c.dim(0) != n) {
        return errors::InvalidArgument(
            "TensorSliceDataset: all components must have the same size in "
            "the 0th dimension; component 0 has ",
            n, " and component ", i, " has ", c.dim(0), " (shape ",
            c.shape().ToString(), ")");
      }
    }
    auto dataset = std::make_shared<TensorSliceDataset>(
        output_dtypes(), output_shapes(), std::move(components), n);
    // The element shapes against output_shapes, once.
    if (n > 0) {
      std::unique_ptr<IteratorBase> it;
      TW_RETURN_IF_ERROR(dataset->MakeIterator(nullptr, &it));
      Element first;
      bool end = false;
      TW_RETURN_IF_ERROR(it->GetNext(nullptr, &first, &end));
      TW_RETURN_IF_ERROR(CheckElement("TensorSliceDataset", output_dtypes(),
                                      output_shapes(), first));
    }
    *out = std::move(dataset);
    return Status::OK();
  }
};

class RangeDataset : public DatasetBase {
 public:
  RangeDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
               int64_t start, int64_t stop, int64_t step)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        start_(start),
        stop_(stop),
        step_(step) {}

  Status MakeIterator(IteratorContext*,
                      std::unique_ptr<IteratorBase>* out) const override {
    *out = std::make_unique<Iterator>(this);
    return Status::OK();
  }
  int64_t Cardinality() const override {
    if (step_ > 0) {
      if (stop_ <= start_) return 0;
      const uint64_t span =
          static_cast<uint64_t>(stop_) - static_cast<uint64_t>(start_);
      return static_cast<int64_t>((span - 1) / step_ + 1);
    }
    if (stop_ >= start_) return 0;
    const uint64_t span =
        static_cast<uint64_t>(start_) - static_cast<uint64_t>(stop_);
    const uint64_t neg = static_cast<uint64_t>(-(step_ + 1)) + 1;
    return static_cast<int64_t>((span - 1) / neg + 1);
  }
  std::string DebugString() const override { return "RangeDataset"; }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(const RangeDataset* dataset)
        : dataset_(dataset), remaining_(dataset->Cardinality()) {}
    Status GetNext(IteratorContext*, Element* out,
                   bool* end_of_sequence) override {
      if (remaining_ <= 0) {
        *end_of_sequence = true;
        return Status::OK();
      }
      *end_of_sequence = false;
      const int64_t v = static_cast<int64_t>(
          static_cast<uint64_t>(dataset_->start_) +
          static_cast<uint64_t>(i_) * static_cast<uint64_t>(dataset_->step_));
      ++i_;
      --remaining_;
      out->clear();
      switch (dataset_->output_dtypes()[0]) {
        case DT_INT32:
          out->push_back(Tensor::Scalar<int32_t>(static_cast<int32_t>(v)));
          break;
        case DT_FLOAT:
          out->push_back(Tensor::Scalar<float>(static_cast<float>(v)));
          break;
        case DT_DOUBLE:
          out->push_back(Tensor::Scalar<double>(static_cast<double>(v)));
          break;
        default:
          out->push_back(Tensor::Scalar<int64_t>(v));
      }
      return Status::OK();
    }

   private:
    const RangeDataset* const dataset_;
    int64_t i_ = 0;
    int64_t remaining_;
  };

  const int64_t start_, stop_, step_;
};

class RangeDatasetOp : public DatasetOpKernel {
 public:
  explicit RangeDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    if (output_dtypes().size() != 1) {
      ctx->SetStatus(
          errors::InvalidArgument("RangeDataset has one component, got ",
                                  output_dtypes().size(), " output types"));
    } else {
      const DataType t = output_dtypes()[0];
      if (t != DT_INT64 && t != DT_INT32 && t != DT_FLOAT && t != DT_DOUBLE) {
        ctx->SetStatus(errors::InvalidArgument(
            "RangeDataset: output type must be int64, int32, float or "
            "double, got ",
            DataTypeName(t)));
      }
    }
  }
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) override {
    int64_t start, stop, step;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 0, "start", &start));
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "stop", &stop));
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 2, "step", &step));
    if (step == 0) {
      return errors::InvalidArgument("RangeDataset: step must be != 0");
    }
    *out = std::make_shared<RangeDataset>(output_dtypes(), output_shapes(),
                                          start, stop, step);
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("TensorDataset"), TensorDatasetOp);
REGISTER_KERNEL(KernelDef("TensorSliceDataset"), TensorSliceDatasetOp);
REGISTER_KERNEL(KernelDef("RangeDataset"), RangeDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
