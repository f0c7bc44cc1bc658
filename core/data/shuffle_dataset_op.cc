// ShuffleDataset: TensorFlow's buffer semantics. The iterator fills a buffer
// of buffer_size elements, emits one chosen uniformly at random and replaces
// it with the next input element. seed and seed2 fix the order (the same in
// every run); both 0 seed from the system. With reshuffle_each_iteration,
// each new iterator of the dataset (each epoch of a RepeatDataset above it)
// draws its seed from a generator the dataset owns, so the epochs differ; a
// new dataset (an iterator initializer run again) starts that sequence again,
// as TensorFlow's does.
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"

namespace tensorweave {
namespace data {
namespace {

uint64_t Mix(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class ShuffleDataset : public DatasetBase {
 public:
  ShuffleDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                 DatasetPtr input, int64_t buffer_size, uint64_t seed,
                 bool reshuffle)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        input_(std::move(input)),
        buffer_size_(buffer_size),
        seed_(seed),
        reshuffle_(reshuffle),
        seed_generator_(seed) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    uint64_t seed = seed_;
    if (reshuffle_) {
      std::lock_guard<std::mutex> lock(mu_);
      seed = seed_generator_();
    }
    *out = std::make_unique<Iterator>(this, std::move(input), seed);
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
             uint64_t seed)
        : dataset_(dataset), input_(std::move(input)), rng_(seed) {}

    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      const size_t capacity = static_cast<size_t>(
          std::min<int64_t>(dataset_->buffer_size_, int64_t{1} << 40));
      if (buffer_.empty() && capacity < (size_t{1} << 16)) {
        buffer_.reserve(capacity);
      }
      while (input_ != nullptr && buffer_.size() < capacity) {
        Element element;
        bool end = false;
        TW_RETURN_IF_ERROR(input_->GetNext(ctx, &element, &end));
        if (end) {
          input_.reset();
          break;
        }
        buffer_.push_back(std::move(element));
      }
      if (buffer_.empty()) {
        *end_of_sequence = true;
        return Status::OK();
      }
      const size_t i = static_cast<size_t>(rng_() % buffer_.size());
      *out = std::move(buffer_[i]);
      if (i + 1 != buffer_.size()) buffer_[i] = std::move(buffer_.back());
      buffer_.pop_back();
      return Status::OK();
    }

   private:
    const ShuffleDataset* const dataset_;
    std::unique_ptr<IteratorBase> input_;
    std::vector<Element> buffer_;
    std::mt19937_64 rng_;
  };

  const DatasetPtr input_;
  const int64_t buffer_size_;
  const uint64_t seed_;
  const bool reshuffle_;
  mutable std::mutex mu_;
  mutable std::mt19937_64 seed_generator_;
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
    uint64_t mixed;
    if (seed == 0 && seed2 == 0) {
      std::random_device device;
      mixed = (static_cast<uint64_t>(device()) << 32) ^ device();
    } else {
      mixed =
          Mix(Mix(static_cast<uint64_t>(seed)) ^ static_cast<uint64_t>(seed2));
    }
    *out = std::make_shared<ShuffleDataset>(output_dtypes(), output_shapes(),
                                            std::move(input), buffer_size,
                                            mixed, reshuffle_);
    return Status::OK();
  }

 private:
  bool reshuffle_ = true;
};

REGISTER_KERNEL(KernelDef("ShuffleDataset"), ShuffleDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
