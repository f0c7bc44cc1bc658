// PrefetchDataset: a background thread of the iterator produces the input's
// elements (and errors, in order) into a bounded buffer; GetNext waits for
// the oldest. The thread starts at the first GetNext and ends when the
// iterator is destroyed (a new MakeIterator, the session's resources going):
// the destructor wakes it if it waits for room and joins it.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/data/dataset.h"

namespace tensorweave {
namespace data {
namespace {

constexpr int64_t kAutotuneBufferSize = 16;

class PrefetchDataset : public DatasetBase {
 public:
  PrefetchDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                  DatasetPtr input, int64_t buffer_size)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        buffer_size_(buffer_size) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    if (buffer_size_ == 0) {  // no prefetching: the input's iterator
      *out = std::move(input);
    } else {
      *out = std::make_unique<Iterator>(std::move(input), buffer_size_);
    }
    return Status::OK();
  }
  int64_t Cardinality() const override { return input_->Cardinality(); }
  std::string DebugString() const override {
    return "PrefetchDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(std::unique_ptr<IteratorBase> input, int64_t capacity)
        : input_(std::move(input)), capacity_(static_cast<size_t>(capacity)) {}

    ~Iterator() override {
      {
        std::lock_guard<std::mutex> lock(mu_);
        cancelled_ = true;
      }
      room_.notify_all();
      if (thread_.joinable()) thread_.join();
    }

    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      std::unique_lock<std::mutex> lock(mu_);
      if (!started_) {
        started_ = true;
        thread_ = std::thread([this, ctx] { Produce(ctx); });
      }
      ready_.wait(lock, [this] { return !buffer_.empty() || finished_; });
      if (buffer_.empty()) {  // the input ended
        *end_of_sequence = true;
        return Status::OK();
      }
      Item item = std::move(buffer_.front());
      buffer_.pop_front();
      lock.unlock();
      room_.notify_one();
      *end_of_sequence = false;
      if (!item.status.ok()) return item.status;
      *out = std::move(item.element);
      return Status::OK();
    }

   private:
    struct Item {
      Status status;
      Element element;
    };

    void Produce(IteratorContext* ctx) {
      while (true) {
        {
          std::unique_lock<std::mutex> lock(mu_);
          room_.wait(lock, [this] {
            return cancelled_ || buffer_.size() < capacity_;
          });
          if (cancelled_) break;
        }
        Item item;
        bool end = false;
        item.status = input_->GetNext(ctx, &item.element, &end);
        std::lock_guard<std::mutex> lock(mu_);
        if (item.status.ok() && end) break;
        buffer_.push_back(std::move(item));
        ready_.notify_one();
      }
      std::lock_guard<std::mutex> lock(mu_);
      finished_ = true;
      ready_.notify_all();
    }

    std::unique_ptr<IteratorBase> input_;  // used by the thread only
    const size_t capacity_;
    std::mutex mu_;
    std::condition_variable ready_;  // an item or the end arrived
    std::condition_variable room_;   // the buffer has room, or cancelled
    std::deque<Item> buffer_;
    bool started_ = false, finished_ = false, cancelled_ = false;
    std::thread thread_;
  };

  const DatasetPtr input_;
  const int64_t buffer_size_;
};

class PrefetchDatasetOp : public UnaryDatasetOpKernel {
 public:
  using UnaryDatasetOpKernel::UnaryDatasetOpKernel;
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t buffer_size;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "buffer_size", &buffer_size));
    if (buffer_size < -1) {
      return errors::InvalidArgument(
          "PrefetchDataset: buffer_size must be >= 0 or -1 (AUTOTUNE), got ",
          buffer_size);
    }
    if (buffer_size == -1) buffer_size = kAutotuneBufferSize;
    *out = std::make_shared<PrefetchDataset>(output_dtypes(), output_shapes(),
                                             std::move(input), buffer_size);
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("PrefetchDataset"), PrefetchDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
