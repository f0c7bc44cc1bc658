// TensorArray kernels: a per-step array of tensors behind a string handle,
// with TensorFlow's rules (write once, read once unless clear_after_read is
// false, reads of unwritten elements give zeros when the element shape is
// fully known) and its gradient arrays (writes to one index add up).
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/handle_resource.h"

namespace tensorweave {
namespace {

struct TensorArray;
using TensorArrayRegistry = HandleRegistry<TensorArray>;

// An array's bookkeeping for `size` elements must fit the limit on one
// tensor's bytes (a random or wrong size fails cleanly instead of exhausting
// memory).
Status CheckSize(const std::string& name, int64_t size) {
  const int64_t bytes_per_element = 128;
  if (size > MaxTensorBytes() / bytes_per_element) {
    return errors::ResourceExhausted("TensorArray ", name, ": size ", size,
                                     " exceeds the largest supported, ",
                                     MaxTensorBytes() / bytes_per_element);
  }
  return Status::OK();
}

struct TensorArray {
  struct Element {
    Tensor value;
    bool written = false;
    bool cleared = false;  // read with clear_after_read
  };

  std::string name;
  DataType dtype = DT_INVALID;
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool identical_element_shapes = false;
  bool aggregate_writes = false;  // a gradient array

  std::mutex mu;
  // Under mu:
  PartialShape element_shape;
  std::vector<Element> elements;
  bool closed = false;
  std::map<std::string, std::string> grads;  // source -> registry key

  ~TensorArray() {
    for (const auto& grad : grads) {
      TensorArrayRegistry::Global()->Unref(grad.second);
    }
  }

  std::string Prefix() const { return StrCat("TensorArray ", name, ": "); }

  Status CheckOpen() const {
    if (closed) {
      return errors::InvalidArgument(Prefix(),
                                     "TensorArray has already been closed.");
    }
    return Status::OK();
  }

  // Under mu.
  Status Write(int64_t index, const Tensor& value) {
    TW_RETURN_IF_ERROR(CheckOpen());
    if (index < 0 ||
        (!dynamic_size && index >= static_cast<int64_t>(elements.size()))) {
      return errors::InvalidArgument(
          Prefix(), "Tried to write to index ", index,
          " but array is not resizeable and size is: ", elements.size());
    }
    if (value.dtype() != dtype) {
      return errors::InvalidArgument(Prefix(), "TensorArray dtype is ",
                                     DataTypeName(dtype),
                                     " but Op is trying to write dtype ",
                                     DataTypeName(value.dtype()), ".");
    }
    if (!element_shape.IsCompatibleWith(value.shape())) {
      return errors::InvalidArgument(
          Prefix(), "Could not write to TensorArray index ", index,
          " because the value shape is ", value.shape().ToString(),
          " which is incompatible with the TensorArray's inferred element "
          "shape: ",
          element_shape.ToString(), " (consider setting infer_shape=False).");
    }
    if (identical_element_shapes && !element_shape.IsFullyDefined()) {
      element_shape = PartialShape(value.shape());
    }
    if (index >= static_cast<int64_t>(elements.size())) {
      TW_RETURN_IF_ERROR(CheckSize(name, index + 1));
      elements.resize(index + 1);
    }
    Element& element = elements[index];
    if (element.cleared) {
      return errors::InvalidArgument(
          Prefix(), "Could not write to TensorArray index ", index,
          " because it has already been read.");
    }
    if (!element.written) {
      element.value = value;
      element.written = true;
      return Status::OK();
    }
    if (!aggregate_writes) {
      return errors::InvalidArgument(
          Prefix(), "Could not write to TensorArray index ", index,
          " because it has already been written to.");
    }
    if (element.value.shape() != value.shape()) {
      return errors::InvalidArgument(
          Prefix(), "Could not aggregate to TensorArray index ", index,
          " because the existing shape is ", element.value.shape().ToString(),
          " but the new input shape is ", value.shape().ToString(), ".");
    }
    Tensor sum;
    TW_RETURN_IF_ERROR(Tensor::Allocate(dtype, value.shape(), &sum));
    TW_RETURN_IF_ERROR(DispatchType<TW_NUMBER_TYPES>(dtype, [&](auto tag) {
      using T = decltype(tag);
      const T* a = element.value.data<T>();
      const T* b = value.data<T>();
      T* out = sum.data<T>();
      for (int64_t i = 0; i < sum.num_elements(); ++i) out[i] = a[i] + b[i];
      return Status::OK();
    }));
    element.value = std::move(sum);
    return Status::OK();
  }

  // Under mu. `shape_hint` (an op's element_shape attr) is merged with the
  // array's for the zeros of an unwritten element.
  Status Read(int64_t index, const PartialShape& shape_hint, Tensor* out) {
    TW_RETURN_IF_ERROR(CheckOpen());
    if (index < 0 || index >= static_cast<int64_t>(elements.size())) {
      return errors::InvalidArgument("Tried to read from index ", index,
                                     " but array size is: ", elements.size());
    }
    Element& element = elements[index];
    if (element.cleared) {
      return errors::InvalidArgument(
          Prefix(), "Could not read index ", index,
          " twice because it was cleared after a previous read (perhaps try "
          "setting clear_after_read = false?).");
    }
    if (!element.written) {
      PartialShape shape = element_shape;
      if (!shape_hint.IsCompatibleWith(shape) ||
          !shape_hint.Merge(element_shape, &shape).ok() ||
          !shape.IsFullyDefined()) {
        return errors::InvalidArgument(
            Prefix(), "Could not read from TensorArray index ", index,
            ".  Furthermore, the element shape is not fully defined: ",
            element_shape.ToString(),
            ".  It is possible you are working with a resizeable TensorArray "
            "and stop_gradients is not allowing the gradients to be written.  "
            "If you set the full element_shape property on the forward "
            "TensorArray, the proper all-zeros tensor will be returned "
            "instead of incurring this error.");
      }
      TW_RETURN_IF_ERROR(Zeros(TensorShape(shape.dims()), out));
      return Status::OK();
    }
    *out = element.value;
    if (clear_after_read) {
      element.value = Tensor();
      element.cleared = true;
    }
    return Status::OK();
  }

  Status Zeros(const TensorShape& shape, Tensor* out) const {
    TW_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, out));
    if (dtype != DT_STRING && out->num_bytes() > 0) {
      std::memset(out->raw_data(), 0, out->num_bytes());
    }
    return Status::OK();
  }
};

// Copies `count` elements of src from src_off to dst at dst_off.
void CopyElements(const Tensor& src, int64_t src_off, Tensor* dst,
                  int64_t dst_off, int64_t count) {
  if (count == 0) return;
  if (src.dtype() == DT_STRING) {
    for (int64_t i = 0; i < count; ++i) {
      dst->data<std::string>()[dst_off + i] =
          src.data<std::string>()[src_off + i];
    }
    return;
  }
  const size_t size = DataTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst->raw_data()) + dst_off * size,
              static_cast<const char*>(src.raw_data()) + src_off * size,
              count * size);
}

Status ScalarIndex(const Tensor& t, const char* what, int64_t* index) {
  if (t.num_elements() != 1 || t.rank() != 0) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  *index = t.data<int32_t>()[0];
  return Status::OK();
}

Status LookupArray(OpKernelContext* ctx, std::shared_ptr<TensorArray>* ta) {
  return TensorArrayRegistry::Global()->Lookup(ctx->input(0), "TensorArray",
                                               ta);
}

Tensor FlowOut(OpKernelContext* ctx, int flow_input) {
  return ctx->input(flow_input);
}

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr("element_shape", &element_shape_));
    ctx->SetStatus(ctx->GetAttr("dynamic_size", &dynamic_size_));
    ctx->SetStatus(ctx->GetAttr("clear_after_read", &clear_after_read_));
    ctx->SetStatus(
        ctx->GetAttr("identical_element_shapes", &identical_element_shapes_));
    ctx->SetStatus(ctx->GetAttr("tensor_array_name", &name_));
    if (name_.empty()) name_ = ctx->node().name();
  }
  void Compute(OpKernelContext* ctx) override {
    int64_t size;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx->input(0), "size", &size));
    OP_REQUIRES(ctx, size >= 0,
                errors::InvalidArgument("Size should be >= 0, got ", size));
    OP_REQUIRES_OK(ctx, CheckSize(name_, size));
    auto ta = std::make_shared<TensorArray>();
    ta->name = name_;
    ta->dtype = dtype_;
    ta->element_shape = element_shape_;
    ta->dynamic_size = dynamic_size_;
    ta->clear_after_read = clear_after_read_;
    ta->identical_element_shapes = identical_element_shapes_;
    ta->elements.resize(size);
    ctx->set_output(0, TensorArrayRegistry::Global()->Create("ta", ta));
    ctx->set_output(1, Tensor::Scalar<float>(0.0f));
  }

 private:
  DataType dtype_ = DT_INVALID;
  PartialShape element_shape_;
  bool dynamic_size_ = false;
  bool clear_after_read_ = true;
  bool identical_element_shapes_ = false;
  std::string name_;
};

class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("source", &source_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &ta));
    auto* registry = TensorArrayRegistry::Global();
    std::string key;
    {
      std::lock_guard<std::mutex> lock(ta->mu);
      OP_REQUIRES_OK(ctx, ta->CheckOpen());
      auto it = ta->grads.find(source_);
      if (it != ta->grads.end()) {
        key = it->second;
      } else {
        auto grad = std::make_shared<TensorArray>();
        grad->name = StrCat(ta->name, "@", source_);
        grad->dtype = ta->dtype;
        grad->element_shape = ta->element_shape;
        grad->dynamic_size = false;
        grad->clear_after_read = true;
        grad->identical_element_shapes = ta->identical_element_shapes;
        grad->aggregate_writes = true;
        grad->elements.resize(ta->elements.size());
        key = registry->Insert("ta_grad", std::move(grad));  // ta holds it
        ta->grads[source_] = key;
      }
    }
    Tensor handle;
    OP_REQUIRES_OK(ctx, registry->NewHandle(key, &handle));
    ctx->set_output(0, std::move(handle));
    ctx->set_output(1, FlowOut(ctx, 1));
  }

 private:
  std::string source_;
};

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &ta));
    int64_t index;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx->input(1), "index", &index));
    {
      std::lock_guard<std::mutex> lock(ta->mu);
      OP_REQUIRES_OK(ctx, ta->Write(index, ctx->input(2)));
    }
    ctx->set_output(0, FlowOut(ctx, 3));
  }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &ta));
    OP_REQUIRES(ctx, ta->dtype == dtype_,
                errors::InvalidArgument(ta->Prefix(), "TensorArray dtype is ",
                                        DataTypeName(ta->dtype),
                                        " but Op requested dtype ",
                                        DataTypeName(dtype_), "."));
    int64_t index;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx->input(1), "index", &index));
    Tensor value;
    {
      std::lock_guard<std::mutex> lock(ta->mu);
      OP_REQUIRES_OK(ctx, ta->Read(index, PartialShape(), &value));
    }
    ctx->set_output(0, std::move(value));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

// Stacks elements along a new first dimension (gather) or concatenates them
// along their first (concat); all must agree in the other dimensions.
class TensorArrayPackOp : public OpKernel {
 public:
  explicit TensorArrayPackOp(OpKernelConstruction* ctx, bool concat)
      : OpKernel(ctx), concat_(concat) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr(
        concat ? "element_shape_except0" : "element_shape", &element_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &ta));
    OP_REQUIRES(ctx, ta->dtype == dtype_,
                errors::InvalidArgument(ta->Prefix(), "TensorArray dtype is ",
                                        DataTypeName(ta->dtype),
                                        " but Op requested dtype ",
                                        DataTypeName(dtype_), "."));
    std::vector<Tensor> values;
    PartialShape array_shape;
    {
      std::lock_guard<std::mutex> lock(ta->mu);
      OP_REQUIRES_OK(ctx, ta->CheckOpen());
      std::vector<int64_t> indices;
      if (concat_) {
        for (size_t i = 0; i < ta->elements.size(); ++i) indices.push_back(i);
      } else {
        const Tensor& t = ctx->input(1);
        OP_REQUIRES(ctx, t.rank() == 1,
                    errors::InvalidArgument("indices must be a vector, got "
                                            "shape ",
                                            t.shape().ToString()));
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          indices.push_back(t.data<int32_t>()[i]);
        }
      }
      PartialShape hint = element_shape_;
      if (concat_) hint = PartialShape::UnknownRank();
      for (int64_t index : indices) {
        Tensor value;
        OP_REQUIRES_OK(ctx, ta->Read(index, hint, &value));
        values.push_back(std::move(value));
      }
      array_shape = ta->element_shape;
    }
    if (concat_) {
      ConcatValues(ctx, values);
    } else {
      StackValues(ctx, values, array_shape);
    }
  }

 private:
  void StackValues(OpKernelContext* ctx, const std::vector<Tensor>& values,
                   const PartialShape& array_shape) {
    PartialShape shape = element_shape_;
    if (values.empty()) {
      OP_REQUIRES(
          ctx, shape.Merge(array_shape, &shape).ok() && shape.IsFullyDefined(),
          errors::Unimplemented(
              "TensorArray has size zero, but element shape ", shape.ToString(),
              " is not fully defined. Currently only static shapes "
              "are supported when packing zero-size TensorArrays."));
    } else {
      shape = PartialShape(values[0].shape());
    }
    for (size_t i = 1; i < values.size(); ++i) {
      OP_REQUIRES(ctx, values[i].shape() == values[0].shape(),
                  errors::InvalidArgument(
                      "TensorArray has inconsistent shapes.  Index 0 has "
                      "shape: ",
                      values[0].shape().ToString(), " but index ", i,
                      " has shape: ", values[i].shape().ToString()));
    }
    std::vector<int64_t> dims = {static_cast<int64_t>(values.size())};
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    int64_t offset = 0;
    for (const Tensor& v : values) {
      CopyElements(v, 0, out, offset, v.num_elements());
      offset += v.num_elements();
    }
  }

  void ConcatValues(OpKernelContext* ctx, const std::vector<Tensor>& values) {
    std::vector<int64_t> tail;
    if (values.empty()) {
      OP_REQUIRES(ctx, element_shape_.IsFullyDefined(),
                  errors::Unimplemented(
                      "TensorArray has size zero, but element_shape_except0 ",
                      element_shape_.ToString(),
                      " is not fully defined. Currently only static shapes "
                      "are supported when concatenating zero-size "
                      "TensorArrays."));
      tail = element_shape_.dims();
    }
    int64_t rows = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorShape& s = values[i].shape();
      OP_REQUIRES(ctx, s.rank() >= 1,
                  errors::InvalidArgument(
                      "Concat saw a scalar shape at index ", i,
                      " but requires at least vectors.  Did you mean to call "
                      "stack?"));
      std::vector<int64_t> rest(s.dims().begin() + 1, s.dims().end());
      if (i == 0) tail = rest;
      OP_REQUIRES(ctx, rest == tail,
                  errors::InvalidArgument(
                      "TensorArray has inconsistent shapes.  Index 0 has "
                      "(excepting dimension 0) shape: ",
                      TensorShape(tail).ToString(), " but index ", i,
                      " has (excepting dimension 0) shape: ",
                      TensorShape(rest).ToString()));
      rows += s.dim(0);
    }
    std::vector<int64_t> dims = {rows};
    dims.insert(dims.end(), tail.begin(), tail.end());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    Tensor* lengths;
    OP_REQUIRES_OK(
        ctx,
        ctx->allocate_output(
            1, TensorShape({static_cast<int64_t>(values.size())}), &lengths));
    int64_t offset = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      lengths->data<int64_t>()[i] = values[i].dim(0);
      CopyElements(values[i], 0, out, offset, values[i].num_elements());
      offset += values[i].num_elements();
    }
  }

  const bool concat_;
  DataType dtype_ = DT_INVALID;
  PartialShape element_shape_;
};

class TensorArrayGatherOp : public TensorArrayPackOp {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx)
      : TensorArrayPackOp(ctx, /*concat=*/false) {}
};

class TensorArrayConcatOp : public TensorArrayPackOp {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx)
      : TensorArrayPackOp(ctx, /*concat=*/true) {}
};

// Writes row blocks of a value: scatter (block i is row i, at indices[i])
// and split (block i is lengths[i] rows, at index i).
class TensorArrayUnpackOp : public OpKernel {
 public:
  TensorArrayUnpackOp(OpKernelConstruction* ctx, bool split)
      : OpKernel(ctx), split_(split) {}
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &ta));
    const Tensor& value = ctx->input(split_ ? 1 : 2);
    OP_REQUIRES(ctx, value.rank() >= 1,
                errors::InvalidArgument(
                    "Expected value to be at least a vector, but received "
                    "shape: ",
                    value.shape().ToString()));
    std::vector<int64_t> targets, lengths;
    const Tensor& arg = ctx->input(split_ ? 2 : 1);
    OP_REQUIRES(ctx, arg.rank() == 1,
                errors::InvalidArgument(split_ ? "lengths" : "indices",
                                        " must be a vector, got shape ",
                                        arg.shape().ToString()));
    int64_t total = 0;
    for (int64_t i = 0; i < arg.num_elements(); ++i) {
      if (split_) {
        const int64_t n = arg.data<int64_t>()[i];
        OP_REQUIRES(
            ctx, n >= 0,
            errors::InvalidArgument("lengths[", i, "] = ", n, " is negative"));
        // The sum may not overflow: past the value's rows it is an error.
        OP_REQUIRES(
            ctx, n <= value.dim(0) - total,
            errors::InvalidArgument(
                "Expected sum of lengths to be equal to values.shape[0], but "
                "sum of lengths exceeds it at lengths[",
                i, "] and value's shape is: ", value.shape().ToString()));
        targets.push_back(i);
        lengths.push_back(n);
        total += n;
      } else {
        targets.push_back(arg.data<int32_t>()[i]);
        lengths.push_back(1);
        total += 1;
      }
    }
    if (split_) {
      OP_REQUIRES(
          ctx, total == value.dim(0),
          errors::InvalidArgument(
              "Expected sum of lengths to be equal to values.shape[0], but "
              "sum of lengths is ",
              total, " and value's shape is: ", value.shape().ToString()));
    } else {
      OP_REQUIRES(ctx, total == value.dim(0),
                  errors::InvalidArgument(
                      "Expected len(indices) == values.shape[0], but saw: ",
                      total, " vs. ", value.dim(0)));
    }
    std::vector<int64_t> row_dims(value.shape().dims().begin() + 1,
                                  value.shape().dims().end());
    int64_t row_size = 1;
    for (int64_t d : row_dims) row_size *= d;
    std::lock_guard<std::mutex> lock(ta->mu);
    int64_t row = 0;
    for (size_t i = 0; i < targets.size(); ++i) {
      std::vector<int64_t> dims = row_dims;
      if (split_) dims.insert(dims.begin(), lengths[i]);
      Tensor piece;
      OP_REQUIRES_OK(
          ctx, Tensor::Allocate(value.dtype(), TensorShape(dims), &piece));
      CopyElements(value, row * row_size, &piece, 0, lengths[i] * row_size);
      OP_REQUIRES_OK(ctx, ta->Write(targets[i], piece));
      row += lengths[i];
    }
    ctx->set_output(0, FlowOut(ctx, 3));
  }

 private:
  const bool split_;
};

class TensorArrayScatterOp : public TensorArrayUnpackOp {
 public:
  explicit TensorArrayScatterOp(OpKernelConstruction* ctx)
      : TensorArrayUnpackOp(ctx, /*split=*/false) {}
};

class TensorArraySplitOp : public TensorArrayUnpackOp {
 public:
  explicit TensorArraySplitOp(OpKernelConstruction* ctx)
      : TensorArrayUnpackOp(ctx, /*split=*/true) {}
};

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &ta));
    std::lock_guard<std::mutex> lock(ta->mu);
    OP_REQUIRES_OK(ctx, ta->CheckOpen());
    ctx->set_output(
        0, Tensor::Scalar<int32_t>(static_cast<int32_t>(ta->elements.size())));
  }
};

class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, LookupArray(ctx, &ta));
    std::vector<TensorArray::Element> released;  // freed outside the lock
    std::lock_guard<std::mutex> lock(ta->mu);
    OP_REQUIRES_OK(ctx, ta->CheckOpen());
    ta->closed = true;
    released.swap(ta->elements);
  }
};

REGISTER_KERNEL(KernelDef("TensorArrayV3"), TensorArrayOp);
REGISTER_KERNEL(KernelDef("TensorArrayGradV3"), TensorArrayGradOp);
REGISTER_KERNEL(KernelDef("TensorArrayWriteV3"), TensorArrayWriteOp);
REGISTER_KERNEL(KernelDef("TensorArrayReadV3"), TensorArrayReadOp);
REGISTER_KERNEL(KernelDef("TensorArrayGatherV3"), TensorArrayGatherOp);
REGISTER_KERNEL(KernelDef("TensorArrayConcatV3"), TensorArrayConcatOp);
REGISTER_KERNEL(KernelDef("TensorArrayScatterV3"), TensorArrayScatterOp);
REGISTER_KERNEL(KernelDef("TensorArraySplitV3"), TensorArraySplitOp);
REGISTER_KERNEL(KernelDef("TensorArraySizeV3"), TensorArraySizeOp);
REGISTER_KERNEL(KernelDef("TensorArrayCloseV3"), TensorArrayCloseOp);

}  // namespace
}  // namespace tensorweave
