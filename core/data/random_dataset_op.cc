// RandomDataset: an endless dataset of pseudorandom int64 scalars, the 32-bit
// words of Philox(seed, seed2) one at a time, as TensorFlow's RandomDataset
// (seed and seed2 both 0: a seed drawn at random). Each iterator restarts the
// stream.
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "core/data/dataset.h"
#include "core/kernels/random_ops.h"

namespace tensorweave {
namespace data {
namespace {

class RandomDataset : public DatasetBase {
 public:
  RandomDataset(DataTypeVector dtypes, std::vector<PartialShape> shapes,
                uint64_t seed, uint64_t seed2)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        seed_(seed),
        seed2_(seed2) {}

  Status MakeIterator(IteratorContext*,
                      std::unique_ptr<IteratorBase>* out) const override {
    *out = std::make_unique<Iterator>(Philox(seed_, seed2_));
    return Status::OK();
  }
  int64_t Cardinality() const override { return kInfiniteCardinality; }
  std::string DebugString() const override { return "RandomDataset"; }

 private:
  class Iterator : public IteratorBase {
   public:
    explicit Iterator(const Philox& gen) : gen_(gen), words_(&gen_) {}
    Status GetNext(IteratorContext*, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      out->clear();
      out->push_back(Tensor::Scalar<int64_t>(static_cast<int64_t>(words_())));
      return Status::OK();
    }

   private:
    Philox gen_;
    WordStream words_;
  };

  const uint64_t seed_, seed2_;
};

class RandomDatasetOp : public DatasetOpKernel {
 public:
  explicit RandomDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    if (output_dtypes().size() != 1 || output_dtypes()[0] != DT_INT64) {
      ctx->SetStatus(
          errors::InvalidArgument("RandomDataset has one int64 component, got ",
                                  output_dtypes().size(), " output types"));
    }
  }
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr* out) override {
    int64_t seed, seed2;
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 0, "seed", &seed));
    TW_RETURN_IF_ERROR(ParseScalarInput(ctx, 1, "seed2", &seed2));
    if (seed == 0 && seed2 == 0) {
      std::random_device device;
      seed = (static_cast<int64_t>(device()) << 32) | device();
      seed2 = (static_cast<int64_t>(device()) << 32) | device();
    }
    *out = std::make_shared<RandomDataset>(output_dtypes(), output_shapes(),
                                           static_cast<uint64_t>(seed),
                                           static_cast<uint64_t>(seed2));
    return Status::OK();
  }
};

REGISTER_KERNEL(KernelDef("RandomDataset"), RandomDatasetOp);

}  // namespace
}  // namespace data
}  // namespace tensorweave
