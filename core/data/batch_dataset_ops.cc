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

// PaddedBatchDatasetV2: padded_shapes[c] is the shape every element's
// component c is padded to (-1: the batch's longest in that dimension).
class PaddedBatchDataset : public DatasetBase {
 public:
  PaddedBatchDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                     DatasetPtr input, int64_t batch_size, bool drop_remainder,
                     std::vector<std::vector<int64_t>> padded_shapes,
                     std::vector<Tensor> padding_values)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        padded_shapes_(std::move(padded_shapes)),
        padding_values_(std::move(padding_values)) {}

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
    return "PaddedBatchDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const PaddedBatchDataset* dataset,
             std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      if (input_ == nullptr) {
        *end_of_sequence = true;
        return Status::OK();
      }
      std::vector<Element> elements;
      bool end = false;
      while (static_cast<int64_t>(elements.size()) < dataset_->batch_size_) {
        Element element;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &element, &end));
        if (end) break;
        elements.push_back(std::move(element));
      }
      if (end) input_.reset();
      if (elements.empty() ||
          (dataset_->drop_remainder_ &&
           static_cast<int64_t>(elements.size()) < dataset_->batch_size_)) {
        *end_of_sequence = true;
        return Status::OK();
      }
      return dataset_->Pad(elements, out);
    }

   private:
    const PaddedBatchDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
  };

  Status Pad(const std::vector<Element>& elements, Element* out) const {
    const int64_t n = static_cast<int64_t>(elements.size());
    out->clear();
    for (size_t c = 0; c < padded_shapes_.size(); ++c) {
      const std::vector<int64_t>& padded = padded_shapes_[c];
      const int rank = static_cast<int>(padded.size());
      std::vector<int64_t> row(padded);
      for (int d = 0; d < rank; ++d) {
        if (row[d] < 0) row[d] = 0;
      }
      for (int64_t i = 0; i < n; ++i) {
        const Tensor& t = elements[i][c];
        if (t.rank() != rank) {
          return errors::InvalidArgument(
              "PaddedBatchDataset: component ", c, " of element ", i,
              " has shape ", t.shape().ToString(), " but its padded shape ",
              PaddedString(padded), " has rank ", rank);
        }
        for (int d = 0; d < rank; ++d) {
          if (padded[d] < 0) {
            row[d] = std::max(row[d], t.dim(d));
          } else if (t.dim(d) > padded[d]) {
            return errors::InvalidArgument(
                "PaddedBatchDataset: attempted to pad to a smaller size than "
                "the input element: component ",
                c, " of element ", i, " has shape ", t.shape().ToString(),
                ", larger than the padded shape ", PaddedString(padded),
                " in dimension ", d);
          }
        }
      }
      std::vector<int64_t> dims = {n};
      dims.insert(dims.end(), row.begin(), row.end());
      Tensor batch;
      TW_RETURN_IF_ERROR(Tensor::Allocate(
          output_dtypes()[c], TensorShape(std::move(dims)), &batch));
      Fill(padding_values_[c], &batch);
      const TensorShape row_shape{std::vector<int64_t>(row)};
      int64_t row_elements = 1;
      for (int64_t d : row) row_elements *= d;
      for (int64_t i = 0; i < n; ++i) {
        const Tensor& t = elements[i][c];
        if (t.shape() == row_shape) {
          CopyRow(t, &batch, i);
        } else {
          CopyBlock(t, row, i * row_elements, &batch);
        }
      }
      out->push_back(std::move(batch));
    }
    return Status::OK();
  }

  static std::string PaddedString(const std::vector<int64_t>& padded) {
    std::string s = "[";
    for (size_t i = 0; i < padded.size(); ++i) {
      if (i > 0) s += ",";
      s += padded[i] < 0 ? "?" : std::to_string(padded[i]);
    }
    return s + "]";
  }

  // Every entry of `batch` set to the scalar `value`.
  static void Fill(const Tensor& value, Tensor* batch) {
    const int64_t n = batch->num_elements();
    if (value.dtype() == DT_STRING) {
      const std::string& v = value.data<std::string>()[0];
      std::string* to = batch->data<std::string>();
      for (int64_t i = 0; i < n; ++i) to[i] = v;
      return;
    }
    const size_t size = DataTypeSize(value.dtype());
    const char* v = static_cast<const char*>(value.raw_data());
    char* to = static_cast<char*>(batch->raw_data());
    if (std::all_of(v, v + size, [](char b) { return b == 0; })) {
      std::memset(to, 0, batch->num_bytes());
      return;
    }
    for (int64_t i = 0; i < n; ++i) std::memcpy(to + i * size, v, size);
  }

  // Copies `t` into the row of shape `row` that starts at entry `base` of
  // `batch`, at the origin of each dimension; contiguous runs by memcpy.
  static void CopyBlock(const Tensor& t, const std::vector<int64_t>& row,
                        int64_t base, Tensor* batch) {
    const int rank = t.rank();
    if (t.num_elements() == 0) return;
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * row[d + 1];
    const int64_t inner = t.dim(rank - 1);
    const int64_t runs = t.num_elements() / inner;
    std::vector<int64_t> index(rank, 0);
    const bool strings = t.dtype() == DT_STRING;
    const size_t size = strings ? 0 : DataTypeSize(t.dtype());
    for (int64_t r = 0; r < runs; ++r) {
      int64_t offset = base;
      for (int d = 0; d < rank - 1; ++d) offset += index[d] * strides[d];
      if (strings) {
        const std::string* from = t.data<std::string>() + r * inner;
        std::string* to = batch->data<std::string>() + offset;
        for (int64_t k = 0; k < inner; ++k) to[k] = from[k];
      } else {
        std::memcpy(static_cast<char*>(batch->raw_data()) + offset * size,
                    static_cast<const char*>(t.raw_data()) + r * inner * size,
                    inner * size);
      }
      for (int d = rank - 2; d >= 0; --d) {  // the next run's index
        if (++index[d] < t.dim(d)) break;
        index[d] = 0;
      }
    }
  }

  const DatasetPtr input_;
  const int64_t batch_size_;
  const bool drop_remainder_;
  const std::vector<std::vector<int64_t>> padded_shapes_;
  const std::vector<Tensor> padding_values_;
};

class PaddedBatchDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    const int components = static_cast<int>(output_dtypes().size());
    if (ctx->num_inputs() != 3 + 2 * components) {
      return errors::InvalidArgument(
          "PaddedBatchDataset: ", (ctx->num_inputs() - 3) / 2,
          " padded shapes for ", components, " components");
    }
    int64_t batch_size;
    bool drop_remainder;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "batch_size", &batch_size));
    TW_RETURN_IF_ERROR(
        ParseBool(ctx, 2 + 2 * components, "drop_remainder", &drop_remainder));
    if (batch_size <= 0) {
      return errors::InvalidArgument(
          "PaddedBatchDataset: batch_size must be greater than zero, got ",
          batch_size);
    }
    std::vector<std::vector<int64_t>> padded_shapes;
    std::vector<Tensor> padding_values;
    for (int c = 0; c < components; ++c) {
      const Tensor& shape = ctx->input(2 + c);
      if (shape.rank() != 1 || shape.dtype() != DT_INT64) {
        return errors::InvalidArgument("PaddedBatchDataset: padded_shapes[", c,
                                       "] must be an int64 vector, got ",
                                       DataTypeName(shape.dtype()), " ",
                                       shape.shape().ToString());
      }
      std::vector<int64_t> dims(shape.data<int64_t>(),
                                shape.data<int64_t>() + shape.num_elements());
      for (int64_t d : dims) {
        if (d < -1) {
          return errors::InvalidArgument("PaddedBatchDataset: padded_shapes[",
                                         c, "] has a dimension ", d,
                                         " (must be >= 0, or -1)");
        }
      }
      const Tensor& value = ctx->input(2 + components + c);
      if (value.rank() != 0) {
        return errors::InvalidArgument("PaddedBatchDataset: padding_values[", c,
                                       "] must be a scalar, got shape ",
                                       value.shape().ToString());
      }
      if (value.dtype() != output_dtypes()[c] ||
          input->output_dtypes().size() != static_cast<size_t>(components) ||
          input->output_dtypes()[c] != value.dtype()) {
        return errors::InvalidArgument(
            "PaddedBatchDataset: padding_values[", c, "] has dtype ",
            DataTypeName(value.dtype()), " but component ", c, " is ",
            c < static_cast<int>(input->output_dtypes().size())
                ? DataTypeName(input->output_dtypes()[c])
                : std::string("missing"));
      }
      padded_shapes.push_back(std::move(dims));
      padding_values.push_back(value);
    }
    *out = std::make_shared<PaddedBatchDataset>(
        output_dtypes(), output_shapes(), std::move(input), batch_size,
        drop_remainder, std::move(padded_shapes), std::move(padding_values));
    return Status::OK();
  }
};

class UnbatchDataset : public DatasetBase {
 public:
  UnbatchDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                 DatasetPtr input)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(std::move(input));
    return Status::OK();
  }
  std::string DebugString() const override {
    return "UnbatchDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(std::unique_ptr<IteratorBase> input)
        : input_(std::move(input)) {}
    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      while (i_ >= n_) {
        if (input_ == nullptr) {
          *end_of_sequence = true;
          return Status::OK();
        }
        Element batch;
        bool end = false;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &batch, &end));
        if (end) {
          input_.reset();
          continue;
        }
        int64_t n = -1;
        for (size_t c = 0; c < batch.size(); ++c) {
          const Tensor& t = batch[c];
          if (t.rank() < 1) {
            return errors::InvalidArgument(
                "UnbatchDataset: component ", c,
                " of an input element is a scalar; unbatching needs rank >= 1");
          }
          if (n < 0) {
            n = t.dim(0);
          } else if (t.dim(0) != n) {
            return errors::InvalidArgument(
                "UnbatchDataset: input element components have different "
                "batch sizes: component 0 has ",
                n, " and component ", c, " has ", t.dim(0));
          }
        }
        batch_ = std::move(batch);
        row_shapes_.clear();
        for (const Tensor& t : batch_) {
          row_shapes_.emplace_back(std::vector<int64_t>(
              t.shape().dims().begin() + 1, t.shape().dims().end()));
        }
        n_ = std::max<int64_t>(n, 0);
        i_ = 0;
      }
      out->clear();
      for (size_t c = 0; c < batch_.size(); ++c) {
        Tensor row;
        TW_RETURN_IF_ERROR(
            batch_[c].Slice(i_, i_ + 1).Reshaped(row_shapes_[c], &row));
        out->push_back(std::move(row));
      }
      ++i_;
      return Status::OK();
    }

   private:
    std::unique_ptr<IteratorBase> input_;
    Element batch_;
    std::vector<TensorShape> row_shapes_;
    int64_t i_ = 0, n_ = 0;
  };

  const DatasetPtr input_;
};

class UnbatchDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext*, DatasetPtr input,
                     DatasetPtr* out) override {
    *out = std::make_shared<UnbatchDataset>(output_dtypes(), output_shapes(),
                                            std::move(input));
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("BatchDatasetV2"), BatchDatasetOp);
REGISTER_KERNEL(KernelDef("PaddedBatchDatasetV2"), PaddedBatchDatasetOp);
REGISTER_KERNEL(KernelDef("UnbatchDataset"), UnbatchDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
