// ShuffleDataset: TensorFlow's buffer semantics and its random draws. The
// iterator fills a ring buffer of buffer_size elements, emits one chosen by a
// Philox word modulo the number buffered, moves the oldest element into its
// place and refills. seed and seed2 fix the order (the same in every run, and
// TensorFlow's order for the same seeds); both 0 seed from the system. With
// reshuffle_each_iteration, each new iterator of the dataset (each epoch of a
// RepeatDataset above it) takes two words of a generator the dataset owns as
// its seeds, so the epochs differ; a new dataset (an iterator initializer run
// again) starts that sequence again, as TensorFlow's does.
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"
#include "core/kernels/random_ops.h"

namespace tensorweave {
namespace data {
namespace {

class ShuffleDataset : public DatasetBase {
 public:
  ShuffleDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                 DatasetPtr input, int64_t buffer_size, uint64_t seed,
                 uint64_t seed2, bool reshuffle)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        buffer_size_(buffer_size),
        seed_(seed),
        seed2_(seed2),
        reshuffle_(reshuffle),
        seed_generator_(seed, seed2),
        seed_words_(&seed_generator_) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    uint64_t seed = seed_, seed2 = seed2_;
    if (reshuffle_) {
      std::lock_guard<std::mutex> lock(mu_);
      seed = seed_words_();
      seed2 = seed_words_();
    }
    *out = std::make_unique<Iterator>(this, std::move(input), seed, seed2);
    return Status::OK();
  }
  int64_t Cardinality() const override { return input_->Cardinality(); }
  std::string DebugString() const override {
    return "ShuffleDataset(" + input_->DebugString() + ")";
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const ShuffleDataset* dataset, std::unique_ptr<IteratorBase> input,
             uint64_t seed, uint64_t seed2)
        : dataset_(dataset),
          input_(std::move(input)),
          generator_(seed, seed2),
          words_(&generator_) {}

    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      const uint64_t capacity = static_cast<uint64_t>(dataset_->buffer_size_);
      while (input_ != nullptr && end_ - start_ < capacity) {
        Element element;
        bool end = false;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &element, &end));
        if (end) {
          input_.reset();
          break;
        }
        // The ring grows to `capacity` slots as elements arrive.
        if (buffer_.size() < capacity) {  // then end_ == buffer_.size()
          buffer_.push_back(std::move(element));
        } else {
          buffer_[end_ % capacity] = std::move(element);
        }
        ++end_;
      }
      if (end_ == start_) {
        *end_of_sequence = true;
        return Status::OK();
      }
      const uint64_t index = (start_ + words_() % (end_ - start_)) % capacity;
      *out = std::move(buffer_[index]);
      std::swap(buffer_[index], buffer_[start_ % capacity]);
      ++start_;
      return Status::OK();
    }

   private:
    const ShuffleDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    std::vector<Element> buffer_;
    uint64_t start_ = 0, end_ = 0;  // the buffered elements: [start_, end_)
    Philox generator_;
    WordStream words_;
  };

  const DatasetPtr input_;
  const int64_t buffer_size_;
  const uint64_t seed_, seed2_;
  const bool reshuffle_;
  mutable std::mutex mu_;
  mutable Philox seed_generator_;
  mutable WordStream seed_words_;
};

class ShuffleDatasetOp : public UnaryDatasetOpKernel {
 public:
  explicit ShuffleDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("reshuffle_each_iteration", &reshuffle_));
  }
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    int64_t buffer_size, seed, seed2;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "buffer_size", &buffer_size));
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 2, "seed", &seed));
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 3, "seed2", &seed2));
    if (buffer_size <= 0) {
      return errors::InvalidArgument(
          "ShuffleDataset: buffer_size must be greater than zero, got ",
          buffer_size);
    }
    if (seed == 0 && seed2 == 0) {
      std::random_device device;
      seed = (static_cast<int64_t>(device()) << 32) ^ device();
      seed2 = (static_cast<int64_t>(device()) << 32) ^ device();
    }
    *out = std::make_shared<ShuffleDataset>(
        output_dtypes(), output_shapes(), std::move(input), buffer_size,
        static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2), reshuffle_);
    return Status::OK();
  }

 private:
  bool reshuffle_ = true;
};

REGISTER_KERNEL(KernelDef("ShuffleDataset"), ShuffleDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
