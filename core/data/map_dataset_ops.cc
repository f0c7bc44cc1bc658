// MapDataset, ParallelMapDatasetV2 and FilterDataset: a function
// (captured_function.h) run on each element of the input dataset.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "core/data/captured_function.h"
#include "core/data/dataset.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace data {
namespace {

using FunctionPtr = std::shared_ptr<const CapturedFunction>;

// What the function's OutOfRange means: the end of the dataset, or with
// preserve_cardinality an error (TensorFlow's rule for both).
Status FunctionEnded(const CapturedFunction& fn, bool preserve_cardinality,
                     const Status& s, bool* end_of_sequence) {
  if (preserve_cardinality) {
    return errors::InvalidArgument(
        "Function invocation produced OutOfRangeError: ", s.message(), " (",
        fn.who(), "; preserve_cardinality is true)");
  }
  *end_of_sequence = true;
  return Status::OK();
}

// --- MapDataset --------------------------------------------------------------

class MapDataset : public DatasetBase {
 public:
  MapDataset(std::string who, DatasetPtr input, FunctionPtr fn,
             std::vector<Tensor> captured, DataTypeVector dtypes,
             std::vector<PartialShape> shapes, bool preserve_cardinality,
             int64_t num_parallel_calls, bool deterministic)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        who_(std::move(who)),
        input_(std::move(input)),
        fn_(std::move(fn)),
        captured_(std::move(captured)),
        preserve_cardinality_(preserve_cardinality),
        num_parallel_calls_(num_parallel_calls),
        deterministic_(deterministic) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override;

  int64_t Cardinality() const override {
    return preserve_cardinality_ ? input_->Cardinality() : kUnknownCardinality;
  }

  std::string DebugString() const override {
    return StrCat(
        num_parallel_calls_ > 0 ? "ParallelMapDataset(" : "MapDataset(",
        input_->DebugString(), ")");
  }

  // Runs the function on one input element.
  Status Call(IteratorContext* ctx, const Element& in, Element* out) const {
    return fn_->RunAndCheck(ctx, in, captured_, output_dtypes(),
                            output_shapes(), out);
  }
  Status Ended(const Status& s, bool* end) const {
    return FunctionEnded(*fn_, preserve_cardinality_, s, end);
  }

  const DatasetPtr& input() const { return input_; }
  int64_t num_parallel_calls() const { return num_parallel_calls_; }
  bool deterministic() const { return deterministic_; }

 private:
  const std::string who_;
  const DatasetPtr input_;
  const FunctionPtr fn_;
  const std::vector<Tensor> captured_;
  const bool preserve_cardinality_;
  const int64_t num_parallel_calls_;  // 0: MapDataset
  const bool deterministic_;
};

class MapIterator : public IteratorBase {
 public:
  MapIterator(const MapDataset* dataset, std::unique_ptr<IteratorBase> input)
      : dataset_(dataset), input_(std::move(input)) {}

  Status GetNext(IteratorContext* ctx, Element* out,
                 bool* end_of_sequence) override {
    *end_of_sequence = false;
    if (ended_) {
      *end_of_sequence = true;
      return Status::OK();
    }
    Element in;
    TW_RETURN_IF_ERROR(input_->GetNext(ctx, &in, end_of_sequence));
    if (*end_of_sequence) {
      ended_ = true;
      return Status::OK();
    }
    Status s = dataset_->Call(ctx, in, out);
    if (s.code() == Code::kOutOfRange) {
      out->clear();
      s = dataset_->Ended(s, end_of_sequence);
      ended_ = *end_of_sequence;
    }
    return s;
  }

 private:
  const MapDataset* dataset_;
  std::unique_ptr<IteratorBase> input_;
  bool ended_ = false;
};

// ParallelMapDatasetV2: `num_parallel_calls` worker threads of the iterator
// each take the next input element (in turn, so that the results queue in
// input order), call the function and mark their result ready; GetNext
// returns the oldest result once it is ready (with deterministic 'false',
// the first ready one). At most 2 * num_parallel_calls results wait. The
// threads start at the first GetNext and end with the iterator.
class ParallelMapIterator : public IteratorBase {
 public:
  ParallelMapIterator(const MapDataset* dataset,
                      std::unique_ptr<IteratorBase> input, int num_threads)
      : dataset_(dataset),
        input_(std::move(input)),
        num_threads_(num_threads),
        capacity_(2 * static_cast<size_t>(num_threads)) {}

  ~ParallelMapIterator() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      cancelled_ = true;
    }
    cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  Status GetNext(IteratorContext* ctx, Element* out,
                 bool* end_of_sequence) override {
    *end_of_sequence = false;
    std::unique_lock<std::mutex> lock(mu_);
    if (ended_) {
      *end_of_sequence = true;
      return Status::OK();
    }
    if (threads_.empty()) {
      ctx_ = ctx;
      for (int i = 0; i < num_threads_; ++i) {
        threads_.emplace_back([this] { WorkerLoop(); });
      }
    }
    std::deque<std::shared_ptr<Result>>::iterator found;
    cv_.wait(lock, [&] {
      found = results_.end();
      for (auto it = results_.begin(); it != results_.end(); ++it) {
        if ((*it)->ready) {
          found = it;
          break;
        }
        if (dataset_->deterministic()) break;
      }
      return found != results_.end() || (results_.empty() && input_ended_);
    });
    if (found == results_.end()) {
      ended_ = true;
      *end_of_sequence = true;
      return Status::OK();
    }
    std::shared_ptr<Result> result = *found;
    results_.erase(found);
    lock.unlock();
    cv_.notify_all();
    if (result->status.code() == Code::kOutOfRange) {
      Status s = dataset_->Ended(result->status, end_of_sequence);
      if (*end_of_sequence) {
        lock.lock();
        ended_ = true;
      }
      return s;
    }
    TW_RETURN_IF_ERROR(result->status);
    *out = std::move(result->element);
    return Status::OK();
  }

 private:
  struct Result {
    bool ready = false;
    Status status;
    Element element;
  };

  void WorkerLoop() {
    while (true) {
      std::shared_ptr<Result> result;
      Element in;
      {
        // One worker reads the input at a time, and queues its result
        // before the next one reads: results queue in input order.
        std::lock_guard<std::mutex> input_lock(input_mu_);
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [&] {
            return cancelled_ || ended_ || input_ended_ ||
                   results_.size() < capacity_;
          });
          if (cancelled_ || ended_ || input_ended_) return;
        }
        bool end = false;
        Status s = input_->GetNext(ctx_, &in, &end);
        result = std::make_shared<Result>();
        std::lock_guard<std::mutex> lock(mu_);
        if (s.ok() && end) {
          input_ended_ = true;
          cv_.notify_all();
          return;
        }
        if (!s.ok()) {
          // An input error is delivered in its place; reading goes on.
          result->status = s;
          result->ready = true;
        }
        results_.push_back(result);
        if (!s.ok()) {
          cv_.notify_all();
          continue;
        }
      }
      Element out;
      Status s = dataset_->Call(ctx_, in, &out);
      {
        std::lock_guard<std::mutex> lock(mu_);
        result->status = s;
        result->element = std::move(out);
        result->ready = true;
      }
      cv_.notify_all();
    }
  }

  const MapDataset* dataset_;
  std::unique_ptr<IteratorBase> input_;  // read under input_mu_
  const int num_threads_;
  const size_t capacity_;
  IteratorContext* ctx_ = nullptr;
  std::mutex input_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Result>> results_;
  bool input_ended_ = false;  // the input said end of sequence
  bool ended_ = false;        // GetNext said end of sequence
  bool cancelled_ = false;    // the iterator is being destroyed
  std::vector<std::thread> threads_;
};

Status MapDataset::MakeIterator(IteratorContext* ctx,
                                std::unique_ptr<IteratorBase>* out) const {
  std::unique_ptr<IteratorBase> input;
  TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
  if (num_parallel_calls_ > 0) {
    *out = std::make_unique<ParallelMapIterator>(
        this, std::move(input), static_cast<int>(num_parallel_calls_));
  } else {
    *out = std::make_unique<MapIterator>(this, std::move(input));
  }
  return Status::OK();
}

class MapDatasetOp : public UnaryDatasetOpKernel {
 public:
  explicit MapDatasetOp(OpKernelConstruction* ctx, bool parallel = false)
      : UnaryDatasetOpKernel(ctx), parallel_(parallel) {
    ctx->SetStatus(CreateFunctionFromAttr(ctx, "f", &fn_));
    ctx->SetStatus(ctx->GetAttr("Targuments", &targuments_));
    ctx->SetStatus(
        ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
    if (parallel) {
      std::string deterministic;
      ctx->SetStatus(ctx->GetAttr("deterministic", &deterministic));
      if (deterministic != "default" && deterministic != "true" &&
          deterministic != "false") {
        ctx->SetStatus(errors::InvalidArgument(
            "deterministic must be 'default', 'true' or 'false', got '",
            deterministic, "'"));
      }
      deterministic_ = deterministic != "false";
    }
  }

 protected:
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    const int num_captured = static_cast<int>(targuments_.size());
    int64_t num_parallel_calls = 0;
    const std::string who = StrCat(type_string(), " '", name(), "'");
    if (parallel_) {
      TW_RETURN_IF_ERROR(ParseScalarInput(
          ctx, 1 + num_captured, "num_parallel_calls", &num_parallel_calls));
      if (num_parallel_calls == -1) {
        num_parallel_calls = ThreadPool::NumCores();
      } else if (num_parallel_calls <= 0) {
        return errors::InvalidArgument(
            who,
            ": num_parallel_calls must be greater than zero, or -1 "
            "(AUTOTUNE); got ",
            num_parallel_calls);
      }
    }
    *out = std::make_shared<MapDataset>(
        who, std::move(input), fn_, CapturedInputs(ctx, 1, num_captured),
        output_dtypes(), output_shapes(), preserve_cardinality_,
        num_parallel_calls, deterministic_);
    return Status::OK();
  }

 private:
  const bool parallel_;
  FunctionPtr fn_;
  DataTypeVector targuments_;
  bool preserve_cardinality_ = false;
  bool deterministic_ = true;
};

class ParallelMapDatasetOp : public MapDatasetOp {
 public:
  explicit ParallelMapDatasetOp(OpKernelConstruction* ctx)
      : MapDatasetOp(ctx, /*parallel=*/true) {}
};

// --- FilterDataset -----------------------------------------------------------

class FilterDataset : public DatasetBase {
 public:
  FilterDataset(DatasetPtr input, FunctionPtr fn, std::vector<Tensor> captured)
      : DatasetBase(input->output_dtypes(), input->output_shapes()),
        input_(std::move(input)),
        fn_(std::move(fn)),
        captured_(std::move(captured)) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(this, std::move(input));
    return Status::OK();
  }

  std::string DebugString() const override {
    return StrCat("FilterDataset(", input_->DebugString(), ")");
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const FilterDataset* dataset, std::unique_ptr<IteratorBase> input)
        : dataset_(dataset), input_(std::move(input)) {}

    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      while (!ended_) {
        Element in;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &in, end_of_sequence));
        if (*end_of_sequence) {
          ended_ = true;
          break;
        }
        std::vector<Tensor> rets;
        Status s = dataset_->fn_->Run(ctx, in, dataset_->captured_, &rets);
        if (s.code() == Code::kOutOfRange) {
          ended_ = true;
          break;
        }
        TW_RETURN_IF_ERROR(s);
        if (rets.size() != 1 || rets[0].dtype() != DT_BOOL ||
            rets[0].shape().dims().size() != 0) {
          return errors::InvalidArgument(
              "Filter predicate `", dataset_->fn_->name(),
              "` must return a scalar bool (", dataset_->fn_->who(), ")");
        }
        if (rets[0].data<bool>()[0]) {
          *out = std::move(in);
          return Status::OK();
        }
      }
      *end_of_sequence = true;
      return Status::OK();
    }

   private:
    const FilterDataset* dataset_;
    std::unique_ptr<IteratorBase> input_;
    bool ended_ = false;
  };

  const DatasetPtr input_;
  const FunctionPtr fn_;
  const std::vector<Tensor> captured_;
};

class FilterDatasetOp : public UnaryDatasetOpKernel {
 public:
  explicit FilterDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOpKernel(ctx) {
    ctx->SetStatus(CreateFunctionFromAttr(ctx, "predicate", &fn_));
    ctx->SetStatus(ctx->GetAttr("Targuments", &targuments_));
  }

 protected:
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    *out = std::make_shared<FilterDataset>(
        std::move(input), fn_,
        CapturedInputs(ctx, 1, static_cast<int>(targuments_.size())));
    return Status::OK();
  }

 private:
  FunctionPtr fn_;
  DataTypeVector targuments_;
};

REGISTER_KERNEL(KernelDef("MapDataset"), MapDatasetOp);
REGISTER_KERNEL(KernelDef("ParallelMapDatasetV2"), ParallelMapDatasetOp);
REGISTER_KERNEL(KernelDef("FilterDataset"), FilterDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
