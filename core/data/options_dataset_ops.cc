// PrivateThreadPoolDataset and MaxIntraOpParallelismDataset: the threading
// options of tf.data.Options (threading.private_threadpool_size and
// threading.max_intra_op_parallelism), which the Python front end appends to
// a pipeline when it makes an iterator (as TensorFlow's dataset finalization
// does). Each passes its input's elements through unchanged and gives the
// iterators below it an IteratorContext with its own threads:
//  * PrivateThreadPoolDataset: a pool of num_threads threads (0: one per
//    core) per iterator, on which every function call of the pipeline (map,
//    filter, interleave, ...) runs, all its ops, in place of the caller's
//    thread and the process's shared function pool. A parallel map with more
//    parallel calls than the pool has threads runs at most that many of its
//    calls' ops at once.
//  * MaxIntraOpParallelismDataset: the functions' kernels split their work
//    over at most max_intra_op_parallelism threads: 1 runs them on one
//    thread, n > 1 gives them an intra-op pool of n - 1 helpers (the caller
//    takes part) where the session's is larger, 0 keeps the session's.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace data {
namespace {

enum class Threading { kPrivatePool, kMaxIntraOp };

class ThreadingDataset : public DatasetBase {
 public:
  ThreadingDataset(Threading kind, int64_t value, DatasetPtr input)
      : DatasetBase(input->output_dtypes(), input->output_shapes()),
        kind_(kind),
        value_(value),
        input_(std::move(input)) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    auto it = std::make_unique<Iterator>(*ctx);
    TW_RETURN_IF_ERROR(it->Init(*this));
    *out = std::move(it);
    return Status::OK();
  }

  int64_t Cardinality() const override { return input_->Cardinality(); }

  std::string DebugString() const override {
    return StrCat(kind_ == Threading::kPrivatePool
                      ? "PrivateThreadPoolDataset("
                      : "MaxIntraOpParallelismDataset(",
                  input_->DebugString(), ")");
  }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(const IteratorContext& outer) : ctx_(outer) {}

    Status Init(const ThreadingDataset& dataset) {
      if (dataset.kind_ == Threading::kPrivatePool) {
        const int n = static_cast<int>(dataset.value_);
        TW_RETURN_IF_ERROR(
            ThreadPool::Create(n, "tf_data_private_threadpool", &pool_));
        ctx_.function_pool = pool_.get();
      } else if (dataset.value_ == 1) {
        ctx_.intra_op_pool = nullptr;
      } else if (dataset.value_ > 1) {
        const int helpers = static_cast<int>(dataset.value_ - 1);
        if (ctx_.intra_op_pool == nullptr ||
            ctx_.intra_op_pool->num_threads() > helpers) {
          TW_RETURN_IF_ERROR(
              ThreadPool::Create(helpers, "tf_data_intra_op", &pool_));
          ctx_.intra_op_pool = pool_.get();
        }
      }
      return dataset.input_->MakeIterator(&ctx_, &input_);
    }

    Status GetNext(IteratorContext* /*ctx*/, Element* out,
                   bool* end_of_sequence) override {
      return input_->GetNext(&ctx_, out, end_of_sequence);
    }

   private:
    IteratorContext ctx_;
    std::unique_ptr<ThreadPool> pool_;  // outlives input_ (declared first)
    std::unique_ptr<IteratorBase> input_;
  };

  const Threading kind_;
  const int64_t value_;
  const DatasetPtr input_;
};

template <Threading kKind>
class ThreadingDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;

 protected:
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    const char* arg = kKind == Threading::kPrivatePool
                          ? "num_threads"
                          : "max_intra_op_parallelism";
    int64_t value = 0;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, arg, &value));
    // TensorFlow's messages; the cap keeps a pool's size an int.
    if (value < 0) {
      return errors::InvalidArgument("`", arg, "` must be >= 0 (",
                                     type_string(), " '", name(), "', got ",
                                     value, ")");
    }
    if (value > ThreadPool::MaxThreads()) {
      return errors::InvalidArgument(
          "`", arg, "` must be at most ", ThreadPool::MaxThreads(),
          " (the process's thread cap; ", type_string(), " '", name(),
          "', got ", value, ")");
    }
    if (kKind == Threading::kPrivatePool && value == 0) {
      value = ThreadPool::NumCores();
    }
    *out = std::make_shared<ThreadingDataset>(kKind, value, std::move(input));
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("PrivateThreadPoolDataset"),
                ThreadingDatasetOp<Threading::kPrivatePool>);
REGISTER_KERNEL(KernelDef("MaxIntraOpParallelismDataset"),
                ThreadingDatasetOp<Threading::kMaxIntraOp>);

}  // namespace
}  // namespace data
}  // namespace tensorweave
