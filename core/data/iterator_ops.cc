// The iterator ops: an iterator is a resource of the session (as a queue is),
// named by a session-resource string handle, so that successive steps
// continue one walk of its dataset. MakeIterator (re)starts it; the old
// iterator (and any background thread of it) ends there, or when the
// session's resources are destroyed.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"
#include "core/framework/resource.h"
#include "core/kernels/session_resource_handle.h"

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

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) s += ", ";
    s += shapes[i].ToString();
  }
  return s + "]";
}

class IteratorResource : public ResourceBase {
 public:
  IteratorResource(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                   ResourceMgr* resource_mgr, ThreadPool* intra_op_pool)
      : dtypes_(std::move(dtypes)), shapes_(std::move(shapes)) {
    ctx_.resource_mgr = resource_mgr;
    ctx_.intra_op_pool = intra_op_pool;
  }
  ~IteratorResource() override {
    // The iterator (and its threads) end before the context they use.
    std::lock_guard<std::mutex> lock(mu_);
    iterator_.reset();
  }

  std::string DebugString() const override { return "Iterator"; }
  const DataTypeVector& dtypes() const { return dtypes_; }
  const std::vector<PartialShape>& shapes() const { return shapes_; }

  // Checks that the dataset's elements are this iterator's.
  Status CheckCompatible(const std::string& who, const DataTypeVector& dtypes,
                         const std::vector<PartialShape>& shapes) const {
    if (dtypes != dtypes_) {
      return errors::InvalidArgument(
          who, ": the dataset's output types ", TypesString(dtypes),
          " do not match the iterator's ", TypesString(dtypes_));
    }
    for (size_t i = 0; i < shapes.size() && i < shapes_.size(); ++i) {
      if (!shapes_[i].IsCompatibleWith(shapes[i])) {
        return errors::InvalidArgument(
            who, ": the dataset's output shapes ", ShapesString(shapes),
            " are not compatible with the iterator's ", ShapesString(shapes_));
      }
    }
    return Status::OK();
  }

  // (Re)starts the iterator on `dataset`.
  Status SetDataset(const DatasetPtr& dataset) {
    TW_RETURN_IF_ERROR(CheckCompatible("MakeIterator", dataset->output_dtypes(),
                                       dataset->output_shapes()));
    std::unique_ptr<IteratorBase> iterator;
    TW_RETURN_IF_ERROR(dataset->MakeIterator(&ctx_, &iterator));
    std::unique_ptr<IteratorBase> old;
    DatasetPtr old_dataset;
    {
      std::lock_guard<std::mutex> lock(mu_);
      old = std::move(iterator_);
      old_dataset = std::move(dataset_);
      iterator_ = std::move(iterator);
      dataset_ = dataset;
    }
    old.reset();  // outside the lock: may join a thread
    return Status::OK();
  }

  Status GetNext(Element* out, bool* end_of_sequence) {
    std::lock_guard<std::mutex> lock(mu_);
    if (iterator_ == nullptr) {
      return errors::FailedPrecondition(
          "GetNext() failed because the iterator has not been initialized. "
          "Ensure that you have run the initializer operation for this "
          "iterator before getting the next element.");
    }
    return iterator_->GetNext(&ctx_, out, end_of_sequence);
  }

 private:
  const DataTypeVector dtypes_;
  const std::vector<PartialShape> shapes_;
  IteratorContext ctx_;
  std::mutex mu_;
  DatasetPtr dataset_;  // keeps what iterator_ walks alive
  std::unique_ptr<IteratorBase> iterator_;
};

Status LookupIterator(OpKernelContext* ctx, const Tensor& handle,
                      std::shared_ptr<IteratorResource>* out) {
  std::string container, name;
  TW_RETURN_IF_ERROR(
      DecodeSessionResourceHandle(handle, "an iterator", &container, &name));
  Status s = ctx->resource_mgr()->Lookup(container, name, out);
  if (!s.ok()) {
    return Status(s.code(), StrCat("Iterator: ", s.message()));
  }
  return Status::OK();
}

// IteratorV2 and OneShotIterator: the first step creates the resource (or
// finds the one of the same shared_name); every step outputs its handle.
class IteratorHandleOp : public OpKernel {
 public:
  explicit IteratorHandleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("output_types", &dtypes_));
    ctx->SetStatus(ctx->GetAttr("output_shapes", &shapes_));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
    if (dtypes_.size() != shapes_.size()) {
      ctx->SetStatus(errors::InvalidArgument(
          type_string(), ": output_shapes has ", shapes_.size(),
          " shapes but there are ", dtypes_.size(), " output types"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_.empty()) {
      const std::string name =
          !shared_name_.empty()
              ? shared_name_
              : "_" + std::to_string(ctx->resource_mgr()->GenerateUniqueId()) +
                    "_" + this->name();
      std::shared_ptr<IteratorResource> iterator;
      OP_REQUIRES_OK(ctx, ctx->resource_mgr()->LookupOrCreate<IteratorResource>(
                              container_, name,
                              [&](std::shared_ptr<IteratorResource>* out) {
                                *out = std::make_shared<IteratorResource>(
                                    dtypes_, shapes_, ctx->resource_mgr(),
                                    ctx->intra_op_pool());
                                return Status::OK();
                              },
                              &iterator));
      OP_REQUIRES_OK(
          ctx, iterator->CheckCompatible(type_string() + " " + this->name(),
                                         dtypes_, shapes_));
      OP_REQUIRES_OK(ctx, Initialize(ctx, iterator.get()));
      handle_ = EncodeSessionResourceHandle(container_, name);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(handle_));
  }

 protected:
  virtual Status Initialize(OpKernelContext*, IteratorResource*) {
    return Status::OK();
  }

 private:
  DataTypeVector dtypes_;
  std::vector<PartialShape> shapes_;
  std::string container_, shared_name_;
  std::mutex mu_;
  std::string handle_;
};

class OneShotIteratorOp : public IteratorHandleOp {
 public:
  using IteratorHandleOp::IteratorHandleOp;

 protected:
  Status Initialize(OpKernelContext* ctx, IteratorResource* iterator) override {
    DatasetPtr dataset;
    TW_RETURN_IF_ERROR(
        GetDatasetFromHandle(ctx->input(0), "dataset", &dataset));
    return iterator->SetDataset(dataset);
  }
};

class MakeIteratorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DatasetPtr dataset;
    OP_REQUIRES_OK(ctx,
                   GetDatasetFromHandle(ctx->input(0), "dataset", &dataset));
    std::shared_ptr<IteratorResource> iterator;
    OP_REQUIRES_OK(ctx, LookupIterator(ctx, ctx->input(1), &iterator));
    OP_REQUIRES_OK(ctx, iterator->SetDataset(dataset));
  }
};

// IteratorGetNext (kOrEnd false: OutOfRange past the end) and
// IteratorGetNextOrEnd (a leading has_value output; past the end false and
// zeros, unknown dimensions 0).
template <bool kOrEnd>
class IteratorGetNextOp : public OpKernel {
 public:
  explicit IteratorGetNextOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("output_types", &dtypes_));
    ctx->SetStatus(ctx->GetAttr("output_shapes", &shapes_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<IteratorResource> iterator;
    OP_REQUIRES_OK(ctx, LookupIterator(ctx, ctx->input(0), &iterator));
    Element element;
    bool end_of_sequence = false;
    OP_REQUIRES_OK(ctx, iterator->GetNext(&element, &end_of_sequence));
    constexpr int kFirst = kOrEnd ? 1 : 0;
    if (kOrEnd) {
      Tensor has_value(DT_BOOL, TensorShape({}));
      has_value.data<bool>()[0] = !end_of_sequence;
      ctx->set_output(0, std::move(has_value));
    }
    if (end_of_sequence) {
      OP_REQUIRES(ctx, kOrEnd, errors::OutOfRange("End of sequence"));
      for (size_t i = 0; i < dtypes_.size(); ++i) {
        std::vector<int64_t> dims;
        if (i < shapes_.size() && shapes_[i].known_rank()) {
          for (int d = 0; d < shapes_[i].rank(); ++d) {
            dims.push_back(std::max<int64_t>(shapes_[i].dim(d), 0));
          }
        }
        Tensor* zeros;
        OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(i) + kFirst,
                                                 TensorShape(dims), &zeros));
        if (zeros->dtype() != DT_STRING && zeros->num_elements() > 0) {
          std::memset(zeros->raw_data(), 0, zeros->num_bytes());
        }
      }
      return;
    }
    OP_REQUIRES_OK(ctx, CheckElement(type_string() + " " + name(), dtypes_,
                                     shapes_, element));
    for (size_t i = 0; i < element.size(); ++i) {
      ctx->set_output(static_cast<int>(i) + kFirst, std::move(element[i]));
    }
  }

 private:
  DataTypeVector dtypes_;
  std::vector<PartialShape> shapes_;
};

class IteratorToStringHandleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<IteratorResource> iterator;
    OP_REQUIRES_OK(ctx, LookupIterator(ctx, ctx->input(0), &iterator));
    ctx->set_output(0, ctx->input(0));
  }
};

class IteratorFromStringHandleOp : public OpKernel {
 public:
  explicit IteratorFromStringHandleOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("output_types", &dtypes_));
    ctx->SetStatus(ctx->GetAttr("output_shapes", &shapes_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<IteratorResource> iterator;
    OP_REQUIRES_OK(ctx, LookupIterator(ctx, ctx->input(0), &iterator));
    if (!dtypes_.empty()) {
      OP_REQUIRES(ctx, dtypes_ == iterator->dtypes(),
                  errors::InvalidArgument(
                      "IteratorFromStringHandle: the iterator's output types ",
                      TypesString(iterator->dtypes()),
                      " do not match the expected ", TypesString(dtypes_)));
    }
    for (size_t i = 0; i < shapes_.size() && i < iterator->shapes().size();
         ++i) {
      OP_REQUIRES(
          ctx, shapes_[i].IsCompatibleWith(iterator->shapes()[i]),
          errors::InvalidArgument(
              "IteratorFromStringHandle: the iterator's output shapes ",
              ShapesString(iterator->shapes()),
              " are not compatible with the expected ", ShapesString(shapes_)));
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  DataTypeVector dtypes_;
  std::vector<PartialShape> shapes_;
};

class DatasetCardinalityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    DatasetPtr dataset;
    OP_REQUIRES_OK(
        ctx, GetDatasetFromHandle(ctx->input(0), "input_dataset", &dataset));
    ctx->set_output(0, Tensor::Scalar<int64_t>(dataset->Cardinality()));
  }
};

REGISTER_KERNEL(KernelDef("IteratorV2"), IteratorHandleOp);
REGISTER_KERNEL(KernelDef("OneShotIterator"), OneShotIteratorOp);
REGISTER_KERNEL(KernelDef("MakeIterator"), MakeIteratorOp);
REGISTER_KERNEL(KernelDef("IteratorGetNext"), IteratorGetNextOp<false>);
REGISTER_KERNEL(KernelDef("IteratorGetNextOrEnd"), IteratorGetNextOp<true>);
REGISTER_KERNEL(KernelDef("IteratorToStringHandle"), IteratorToStringHandleOp);
REGISTER_KERNEL(KernelDef("IteratorFromStringHandleV2"),
                IteratorFromStringHandleOp);
REGISTER_KERNEL(KernelDef("DatasetCardinality"), DatasetCardinalityOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
