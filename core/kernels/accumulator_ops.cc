// Kernels of the conditional accumulators (core/ops/accumulator_ops.cc).
//
// An accumulator is a session resource found by its handle (as a queue's).
// It holds the sum of the gradients applied since the last take, how many
// there were, and a global step: a gradient whose local_step is below the
// global step is stale and dropped. A take is an *attempt* that waits,
// without holding a thread, until enough gradients have arrived; each apply
// serves the waiting attempts in order, and the step's cancellation (its
// timeout, Session::Close) fails a waiting one.
#include <algorithm>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/cancellation.h"
#include "core/framework/op_kernel.h"
#include "core/framework/types.h"
#include "core/kernels/session_resource_handle.h"

namespace tensorweave {
namespace {

#define TW_ACCUMULATOR_TYPES float, double, half

// --- handles -----------------------------------------------------------------

Status ScalarInput(const Tensor& t, DataType dtype, const char* what) {
  if (t.dtype() != dtype || t.rank() != 0) {
    return errors::InvalidArgument(what, " must be a ", DataTypeName(dtype),
                                   " scalar, got a ", DataTypeName(t.dtype()),
                                   " tensor of shape ", t.shape().ToString());
  }
  return Status::OK();
}

// --- the accumulators
// ----------------------------------------------------------

class AccumulatorBase : public ResourceBase,
                        public std::enable_shared_from_this<AccumulatorBase> {
 public:
  using TakeDone =
      std::function<void(const Status&, const std::vector<Tensor>&)>;

  AccumulatorBase(std::string kind, std::string name, DataType dtype,
                  PartialShape shape, bool mean)
      : kind_(std::move(kind)),
        name_(std::move(name)),
        dtype_(dtype),
        shape_(std::move(shape)),
        mean_(mean) {}
  std::string DebugString() const override { return kind_; }
  const std::string& kind() const { return kind_; }
  DataType dtype() const { return dtype_; }

  Status MatchesDefinition(const AccumulatorBase& other) const {
    if (kind_ != other.kind_ || dtype_ != other.dtype_ ||
        shape_ != other.shape_ || mean_ != other.mean_) {
      return errors::InvalidArgument(
          "Shared accumulator '", name_, "' is a ", kind_, " of ",
          DataTypeName(dtype_), " ", shape_.ToString(),
          (mean_ ? " (MEAN)" : " (SUM)"), ", asked for as a ", other.kind_,
          " of ", DataTypeName(other.dtype_), " ", other.shape_.ToString(),
          (other.mean_ ? " (MEAN)" : " (SUM)"));
    }
    return Status::OK();
  }

  Status CheckDtype(DataType dtype) const {
    if (dtype != dtype_) {
      return errors::InvalidArgument(kind_, " '", name_, "' holds ",
                                     DataTypeName(dtype_), " gradients, got ",
                                     DataTypeName(dtype));
    }
    return Status::OK();
  }

  // Adds `gradient` (the apply op's inputs after local_step) unless
  // `local_step` is stale, then serves the waiting takes.
  Status TryApply(int64_t local_step, const std::vector<Tensor>& gradient) {
    Completions completions;
    Status status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (local_step >= global_step_) {
        status = AddLocked(gradient);
        if (status.ok()) ++counter_;
      }
      if (status.ok()) FlushLocked(&completions);
    }
    Run(&completions);
    return status;
  }

  void TryTake(int32_t num_required, CancellationManager* cancellation,
               TakeDone done) {
    auto attempt = std::make_shared<Attempt>();
    attempt->num_required = num_required;
    attempt->cancellation = cancellation;
    attempt->done = std::move(done);
    Completions completions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      attempt->id = next_attempt_id_++;
      if (cancellation != nullptr) {
        std::weak_ptr<AccumulatorBase> self = shared_from_this();
        const int64_t id = attempt->id;
        attempt->registered =
            cancellation->RegisterCallback(&attempt->token, [self, id] {
              if (auto acc = self.lock()) acc->Cancel(id);
            });
        if (!attempt->registered) {
          Finish(attempt, errors::Cancelled("TakeGrad operation was cancelled"),
                 {}, &completions);
        }
      }
      if (cancellation == nullptr || attempt->registered) {
        attempts_.push_back(attempt);
        FlushLocked(&completions);
      }
    }
    Run(&completions);
  }

  int32_t num_accumulated() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int32_t>(counter_);
  }

  void SetGlobalStep(int64_t step) {
    std::lock_guard<std::mutex> lock(mu_);
    global_step_ = step;  // also lower, as TensorFlow (which only warns)
  }

 protected:
  // Under mu_: validates one gradient and adds it to the sum.
  virtual Status AddLocked(const std::vector<Tensor>& gradient) = 0;
  // Under mu_: the outputs (mean or sum of the counter_ gradients); clears
  // the sum.
  virtual Status TakeLocked(std::vector<Tensor>* outputs) = 0;

  const std::string kind_;
  const std::string name_;
  const DataType dtype_;
  const PartialShape shape_;
  const bool mean_;
  int64_t counter_ = 0;  // under mu_

 private:
  struct Attempt {
    int64_t id = 0;
    int32_t num_required = 1;
    CancellationManager* cancellation = nullptr;
    CancellationManager::Token token = 0;
    bool registered = false;
    TakeDone done;
  };
  using Completions = std::vector<std::function<void()>>;

  static void Run(Completions* completions) {
    for (auto& fn : *completions) fn();
  }

  void Finish(const std::shared_ptr<Attempt>& attempt, const Status& status,
              std::vector<Tensor> outputs, Completions* completions) {
    completions->push_back([attempt, status, outputs = std::move(outputs)] {
      if (attempt->registered) {
        attempt->cancellation->DeregisterCallback(attempt->token);
      }
      attempt->done(status, outputs);
    });
  }

  // Serves the attempts in order while enough gradients are there.
  void FlushLocked(Completions* completions) {
    while (!attempts_.empty() && counter_ >= attempts_.front()->num_required) {
      std::shared_ptr<Attempt> attempt = attempts_.front();
      attempts_.pop_front();
      std::vector<Tensor> outputs;
      Status status = TakeLocked(&outputs);
      ++global_step_;
      counter_ = 0;
      Finish(attempt, status, std::move(outputs), completions);
    }
  }

  void Cancel(int64_t id) {
    Completions completions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = std::find_if(attempts_.begin(), attempts_.end(),
                             [id](const auto& a) { return a->id == id; });
      if (it == attempts_.end()) return;  // served meanwhile
      std::shared_ptr<Attempt> attempt = *it;
      attempts_.erase(it);
      attempt->registered = false;  // its callback is the one running
      Finish(attempt, errors::Cancelled("TakeGrad operation was cancelled"), {},
             &completions);
    }
    Run(&completions);
  }

  std::mutex mu_;
  int64_t global_step_ = 0;
  int64_t next_attempt_id_ = 0;
  std::list<std::shared_ptr<Attempt>> attempts_;
};

class DenseAccumulator : public AccumulatorBase {
 public:
  DenseAccumulator(std::string name, DataType dtype, PartialShape shape,
                   bool mean)
      : AccumulatorBase("ConditionalAccumulator", std::move(name), dtype,
                        std::move(shape), mean) {}

 protected:
  Status AddLocked(const std::vector<Tensor>& gradient) override {
    const Tensor& grad = gradient[0];
    TW_RETURN_IF_ERROR(CheckDtype(grad.dtype()));
    if (!shape_.IsCompatibleWith(grad.shape())) {
      return errors::InvalidArgument("Shape mismatch: expected ",
                                     shape_.ToString(), ", got ",
                                     grad.shape().ToString());
    }
    if (counter_ == 0) {
      sum_ = grad.DeepCopy();
      return Status::OK();
    }
    if (grad.shape() != sum_.shape()) {
      return errors::InvalidArgument("Shape mismatch: expected ",
                                     sum_.shape().ToString(), ", got ",
                                     grad.shape().ToString());
    }
    return DispatchType<TW_ACCUMULATOR_TYPES>(dtype_, [&](auto tag) {
      using T = decltype(tag);
      T* sum = sum_.data<T>();
      const T* g = grad.data<T>();
      const int64_t n = grad.num_elements();
      for (int64_t i = 0; i < n; ++i) sum[i] += g[i];
      return Status::OK();
    });
  }

  Status TakeLocked(std::vector<Tensor>* outputs) override {
    Tensor result = std::move(sum_);
    sum_ = Tensor();
    if (mean_) {
      const int64_t count = counter_;
      TW_RETURN_IF_ERROR(
          DispatchType<TW_ACCUMULATOR_TYPES>(dtype_, [&](auto tag) {
            using T = decltype(tag);
            T* sum = result.data<T>();
            const T divisor = static_cast<T>(static_cast<float>(count));
            for (int64_t i = 0; i < result.num_elements(); ++i) {
              sum[i] /= divisor;
            }
            return Status::OK();
          }));
    }
    outputs->push_back(std::move(result));
    return Status::OK();
  }

 private:
  Tensor sum_;  // owned (a deep copy of the first gradient)
};

class SparseAccumulator : public AccumulatorBase {
 public:
  SparseAccumulator(std::string name, DataType dtype, PartialShape shape,
                    bool mean)
      : AccumulatorBase("SparseConditionalAccumulator", std::move(name), dtype,
                        std::move(shape), mean) {}

 protected:
  // gradient: {indices, values, shape (invalid when not known)}.
  Status AddLocked(const std::vector<Tensor>& gradient) override {
    const Tensor& indices = gradient[0];
    const Tensor& values = gradient[1];
    const Tensor& dense_shape = gradient[2];
    TW_RETURN_IF_ERROR(CheckDtype(values.dtype()));
    if (indices.rank() != 1) {
      return errors::InvalidArgument(
          "Input indices should be vector but received shape: ",
          indices.shape().ToString());
    }
    const int64_t nnz = indices.dim(0);
    if (values.rank() < 1 || values.dim(0) != nnz) {
      return errors::InvalidArgument(
          "Expected ", nnz, " non-empty input values, got ",
          values.rank() < 1 ? int64_t{0} : values.dim(0));
    }
    std::vector<int64_t> row_dims(values.shape().dims().begin() + 1,
                                  values.shape().dims().end());
    int64_t limit =
        shape_.known_rank() && shape_.rank() > 0 ? shape_.dim(0) : int64_t{-1};
    if (dense_shape.valid()) {
      if (dense_shape.rank() != 1) {
        return errors::InvalidArgument(
            "Input shape should be a vector but received shape: ",
            dense_shape.shape().ToString());
      }
      const int64_t* s = dense_shape.data<int64_t>();
      const int64_t rank = dense_shape.dim(0);
      // The declared shape constrains the dims it has (TF: "at least").
      if (shape_.known_rank() && shape_.rank() > rank) {
        return errors::InvalidArgument(
            "Shape mismatch: expected shape rank at least ", shape_.rank(),
            ", got ", rank);
      }
      for (int i = 0; shape_.known_rank() && i < shape_.rank(); ++i) {
        if (shape_.dim(i) >= 0 && shape_.dim(i) != s[i]) {
          return errors::InvalidArgument("Shape mismatch: expected shape dim ",
                                         i, " to be ", shape_.dim(i), ", got ",
                                         s[i]);
        }
      }
      if (rank > 0) limit = s[0];
    }
    // The rows must match the accumulated ones exactly, or the dims the
    // declared shape has.
    if (counter_ > 0) {
      if (row_dims_.size() != row_dims.size()) {
        return errors::InvalidArgument("Shape mismatch: expected values rank ",
                                       row_dims_.size() + 1, ", got ",
                                       values.rank());
      }
      for (size_t i = 0; i < row_dims.size(); ++i) {
        if (row_dims_[i] != row_dims[i]) {
          return errors::InvalidArgument("Shape mismatch: expected values dim ",
                                         i + 1, " to be ", row_dims_[i],
                                         ", got ", row_dims[i]);
        }
      }
    } else if (shape_.known_rank()) {
      if (shape_.rank() > values.rank()) {
        return errors::InvalidArgument(
            "Shape mismatch: expected values rank at least ", shape_.rank(),
            ", got ", values.rank());
      }
      for (int i = 1; i < shape_.rank(); ++i) {
        if (shape_.dim(i) >= 0 && shape_.dim(i) != values.dim(i)) {
          return errors::InvalidArgument("Shape mismatch: expected values dim ",
                                         i, " to be ", shape_.dim(i), ", got ",
                                         values.dim(i));
        }
      }
    }
    if (dense_shape.valid()) {
      const int64_t* s = dense_shape.data<int64_t>();
      const int64_t rank = dense_shape.dim(0);
      if (rank != values.rank()) {
        return errors::InvalidArgument(
            "Shape mismatch: the dense shape has rank ", rank,
            ", the values rank ", values.rank());
      }
      for (int64_t i = 1; i < rank; ++i) {
        if (s[i] != values.dim(static_cast<int>(i))) {
          return errors::InvalidArgument(
              "Shape mismatch: the dense shape's dim ", i, " is ", s[i],
              ", the values' ", values.dim(static_cast<int>(i)));
        }
      }
    }
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t i = 0; i < nnz; ++i) {
      if (idx[i] < 0) {
        return errors::InvalidArgument("index of slice ", i,
                                       " is negative: ", idx[i]);
      }
      if (limit >= 0 && idx[i] >= limit) {
        return errors::InvalidArgument("Shape mismatch: index of slice ", i,
                                       " exceeded limits of shape; index is ",
                                       idx[i], " exceeded ", limit);
      }
    }
    // Valid: add each row to its index's sum.
    if (counter_ == 0) {
      rows_.clear();
      row_dims_ = row_dims;
    }
    int64_t row_size = 1;
    for (int64_t d : row_dims) row_size *= d;
    const size_t esize = DataTypeSize(dtype_);
    const char* data = static_cast<const char*>(values.raw_data());
    return DispatchType<TW_ACCUMULATOR_TYPES>(dtype_, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < nnz; ++i) {
        const T* src = reinterpret_cast<const T*>(data + i * row_size * esize);
        auto [it, fresh] = rows_.try_emplace(idx[i]);
        Row& row = it->second;
        if (fresh) {
          row.bytes.assign(reinterpret_cast<const char*>(src),
                           reinterpret_cast<const char*>(src + row_size));
        } else {
          T* dst = reinterpret_cast<T*>(row.bytes.data());
          for (int64_t k = 0; k < row_size; ++k) dst[k] += src[k];
        }
        // An index counts once per gradient (its duplicate rows are one
        // contribution: their sum).
        if (row.last_gradient != counter_) {
          row.last_gradient = counter_;
          ++row.count;
        }
      }
      return Status::OK();
    });
  }

  Status TakeLocked(std::vector<Tensor>* outputs) override {
    const int64_t k = static_cast<int64_t>(rows_.size());
    int64_t row_size = 1;
    for (int64_t d : row_dims_) row_size *= d;
    Tensor indices, values, shape;
    TW_RETURN_IF_ERROR(Tensor::Allocate(DT_INT64, TensorShape({k}), &indices));
    std::vector<int64_t> dims = {k};
    dims.insert(dims.end(), row_dims_.begin(), row_dims_.end());
    TensorShape values_shape;
    TW_RETURN_IF_ERROR(TensorShape::Build(dims, &values_shape));
    TW_RETURN_IF_ERROR(Tensor::Allocate(dtype_, values_shape, &values));
    // The values' rank; each dim the declared shape knows, else the
    // accumulated rows' (dim 0 unknown unless declared), as TensorFlow.
    std::vector<int64_t> dense = {-1};
    dense.insert(dense.end(), row_dims_.begin(), row_dims_.end());
    for (int i = 0; shape_.known_rank() && i < shape_.rank() &&
                    i < static_cast<int>(dense.size());
         ++i) {
      if (shape_.dim(i) >= 0) dense[i] = shape_.dim(i);
    }
    TW_RETURN_IF_ERROR(Tensor::Allocate(
        DT_INT64, TensorShape({static_cast<int64_t>(dense.size())}), &shape));
    std::copy(dense.begin(), dense.end(), shape.data<int64_t>());
    TW_RETURN_IF_ERROR(
        DispatchType<TW_ACCUMULATOR_TYPES>(dtype_, [&](auto tag) {
          using T = decltype(tag);
          int64_t* out_idx = indices.data<int64_t>();
          T* out = values.data<T>();
          int64_t r = 0;
          for (const auto& [index, row] : rows_) {  // ascending indices
            out_idx[r] = index;
            const T* src = reinterpret_cast<const T*>(row.bytes.data());
            const T divisor =
                static_cast<T>(static_cast<float>(mean_ ? row.count : 1));
            for (int64_t j = 0; j < row_size; ++j) {
              out[r * row_size + j] = mean_ ? src[j] / divisor : src[j];
            }
            ++r;
          }
          return Status::OK();
        }));
    rows_.clear();
    outputs->push_back(std::move(indices));
    outputs->push_back(std::move(values));
    outputs->push_back(std::move(shape));
    return Status::OK();
  }

 private:
  struct Row {
    std::vector<char> bytes;  // row_size elements of dtype_
    int64_t count = 0;        // gradients that had this index
    int64_t last_gradient = -1;
  };
  std::map<int64_t, Row> rows_;
  std::vector<int64_t> row_dims_;
};

Status GetAccumulator(OpKernelContext* ctx,
                      std::shared_ptr<AccumulatorBase>* acc) {
  std::string container, name;
  TW_RETURN_IF_ERROR(DecodeSessionResourceHandle(
      ctx->input(0), "an accumulator", &container, &name));
  return ctx->resource_mgr()->Lookup(container, name, acc);
}

// --- kernels
// -------------------------------------------------------------------

// ConditionalAccumulator and SparseConditionalAccumulator: the first step
// creates the accumulator (or finds the one of the same shared_name); every
// step outputs its handle.
template <bool kSparse>
class AccumulatorOp : public OpKernel {
 public:
  explicit AccumulatorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
    ctx->SetStatus(ctx->GetAttr("shape", &shape_));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
    std::string reduction;
    ctx->SetStatus(ctx->GetAttr("reduction_type", &reduction));
    if (reduction != "MEAN" && reduction != "SUM") {
      ctx->SetStatus(errors::InvalidArgument(
          "reduction_type must be MEAN or SUM, got '", reduction, "'"));
    }
    mean_ = reduction == "MEAN";
  }

  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_.empty()) {
      const std::string name =
          !shared_name_.empty()
              ? shared_name_
              : "_" + std::to_string(ctx->resource_mgr()->GenerateUniqueId()) +
                    "_" + this->name();
      std::shared_ptr<AccumulatorBase> created;
      if (kSparse) {
        created =
            std::make_shared<SparseAccumulator>(name, dtype_, shape_, mean_);
      } else {
        created =
            std::make_shared<DenseAccumulator>(name, dtype_, shape_, mean_);
      }
      std::shared_ptr<AccumulatorBase> acc;
      OP_REQUIRES_OK(ctx, ctx->resource_mgr()->LookupOrCreate<AccumulatorBase>(
                              container_, name,
                              [&](std::shared_ptr<AccumulatorBase>* out) {
                                *out = created;
                                return Status::OK();
                              },
                              &acc));
      OP_REQUIRES_OK(ctx, acc->MatchesDefinition(*created));
      handle_ = EncodeSessionResourceHandle(container_, name);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(handle_));
  }

 private:
  DataType dtype_ = DT_FLOAT;
  PartialShape shape_;
  std::string container_, shared_name_;
  bool mean_ = true;
  std::mutex mu_;
  std::string handle_;
};

template <bool kSparse>
class ApplyGradientOp : public OpKernel {
 public:
  explicit ApplyGradientOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kSparse) {
      ctx->SetStatus(ctx->GetAttr("has_known_shape", &has_known_shape_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<AccumulatorBase> acc;
    OP_REQUIRES_OK(ctx, GetAccumulator(ctx, &acc));
    OP_REQUIRES(ctx, kSparse == (acc->kind() == "SparseConditionalAccumulator"),
                errors::InvalidArgument(type_string(), " needs a ",
                                        kSparse ? "SparseConditionalAccumulator"
                                                : "ConditionalAccumulator",
                                        ", got a ", acc->kind()));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx->input(1), DT_INT64, "local_step"));
    const int64_t local_step = ctx->input(1).data<int64_t>()[0];
    std::vector<Tensor> gradient;
    if (kSparse) {
      gradient = {ctx->input(2), ctx->input(3),
                  has_known_shape_ ? ctx->input(4) : Tensor()};
    } else {
      gradient = {ctx->input(2)};
    }
    OP_REQUIRES_OK(ctx, acc->TryApply(local_step, gradient));
  }

 private:
  bool has_known_shape_ = false;
};

template <bool kSparse>
class TakeGradientOp : public AsyncOpKernel {
 public:
  explicit TakeGradientOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<AccumulatorBase> acc;
    Status s = GetAccumulator(ctx, &acc);
    if (s.ok() && kSparse != (acc->kind() == "SparseConditionalAccumulator")) {
      s = errors::InvalidArgument(
          type_string(), " needs a ",
          kSparse ? "SparseConditionalAccumulator" : "ConditionalAccumulator",
          ", got a ", acc->kind());
    }
    if (s.ok()) s = acc->CheckDtype(dtype_);
    if (s.ok()) s = ScalarInput(ctx->input(1), DT_INT32, "num_required");
    if (s.ok() && ctx->input(1).data<int32_t>()[0] < 1) {
      s = errors::InvalidArgument(
          "Argument num_required must be positive, but was ",
          ctx->input(1).data<int32_t>()[0]);
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      done();
      return;
    }
    acc->TryTake(ctx->input(1).data<int32_t>()[0], ctx->cancellation_manager(),
                 [ctx, done = std::move(done)](
                     const Status& status, const std::vector<Tensor>& outputs) {
                   ctx->SetStatus(status);
                   if (status.ok()) {
                     for (size_t i = 0; i < outputs.size(); ++i) {
                       ctx->set_output(static_cast<int>(i), outputs[i]);
                     }
                   }
                   done();
                 });
  }

 private:
  DataType dtype_ = DT_FLOAT;
};

class AccumulatorNumAccumulatedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<AccumulatorBase> acc;
    OP_REQUIRES_OK(ctx, GetAccumulator(ctx, &acc));
    ctx->set_output(0, Tensor::Scalar<int32_t>(acc->num_accumulated()));
  }
};

class AccumulatorSetGlobalStepOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<AccumulatorBase> acc;
    OP_REQUIRES_OK(ctx, GetAccumulator(ctx, &acc));
    OP_REQUIRES_OK(ctx,
                   ScalarInput(ctx->input(1), DT_INT64, "new_global_step"));
    acc->SetGlobalStep(ctx->input(1).data<int64_t>()[0]);
  }
};

REGISTER_KERNEL(KernelDef("ConditionalAccumulator"), AccumulatorOp<false>);
REGISTER_KERNEL(KernelDef("SparseConditionalAccumulator"), AccumulatorOp<true>);
REGISTER_KERNEL(KernelDef("AccumulatorApplyGradient"), ApplyGradientOp<false>);
REGISTER_KERNEL(KernelDef("SparseAccumulatorApplyGradient"),
                ApplyGradientOp<true>);
REGISTER_KERNEL(KernelDef("AccumulatorTakeGradient"), TakeGradientOp<false>);
REGISTER_KERNEL(KernelDef("SparseAccumulatorTakeGradient"),
                TakeGradientOp<true>);
REGISTER_KERNEL(KernelDef("AccumulatorNumAccumulated"),
                AccumulatorNumAccumulatedOp);
REGISTER_KERNEL(KernelDef("AccumulatorSetGlobalStep"),
                AccumulatorSetGlobalStepOp);

}  // namespace
}  // namespace tensorweave
