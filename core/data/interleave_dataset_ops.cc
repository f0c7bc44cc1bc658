// FlatMapDataset, InterleaveDataset and ParallelInterleaveDatasetV4: a
// function (captured_function.h) makes a dataset of each input element, and
// their elements are concatenated (flat_map) or interleaved.
#include <memory>
#include <utility>
#include <vector>

#include "core/data/captured_function.h"
#include "core/data/dataset.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace data {
namespace {

using FunctionPtr = std::shared_ptr<const CapturedFunction>;

// FlatMap (cycle_length 1, block_length 1) and Interleave, in TensorFlow's
// order: a cycle of `cycle_length` open datasets, `block_length` elements
// from each in turn; a dataset that ends frees its place in the cycle, which
// the next input element's dataset takes when the cycle comes back to it.
class InterleaveDataset : public DatasetBase {
 public:
  InterleaveDataset(std::string who, DatasetPtr input, FunctionPtr fn,
                    std::vector<Tensor> captured, DataTypeVector dtypes,
                    std::vector<PartialShape> shapes, int64_t cycle_length,
                    int64_t block_length, bool flat_map)
      : DatasetBase(std::move(dtypes), std::move(shapes)),
        who_(std::move(who)),
        input_(std::move(input)),
        fn_(std::move(fn)),
        captured_(std::move(captured)),
        cycle_length_(cycle_length),
        block_length_(block_length),
        flat_map_(flat_map) {}

  Status MakeIterator(IteratorContext* ctx,
                      std::unique_ptr<IteratorBase>* out) const override {
    std::unique_ptr<IteratorBase> input;
    TW_RETURN_IF_ERROR(input_->MakeIterator(ctx, &input));
    *out = std::make_unique<Iterator>(this, std::move(input));
    return Status::OK();
  }

  std::string DebugString() const override {
    return StrCat(flat_map_ ? "FlatMapDataset(" : "InterleaveDataset(",
                  input_->DebugString(), ")");
  }

 private:
  class Iterator : public IteratorBase {
   public:
    Iterator(const InterleaveDataset* dataset,
             std::unique_ptr<IteratorBase> input)
        : dataset_(dataset),
          input_(std::move(input)),
          datasets_(dataset->cycle_length_),
          current_(dataset->cycle_length_) {}

    Status GetNext(IteratorContext* ctx, Element* out,
                   bool* end_of_sequence) override {
      *end_of_sequence = false;
      while (!end_of_input_ || num_open_ > 0) {
        std::unique_ptr<IteratorBase>& slot = current_[cycle_index_];
        if (slot != nullptr) {
          bool end_of_element = false;
          TW_RETURN_IF_ERROR(slot->GetNext(ctx, out, &end_of_element));
          if (!end_of_element) {
            TW_RETURN_IF_ERROR(CheckElement(dataset_->who_,
                                            dataset_->output_dtypes(),
                                            dataset_->output_shapes(), *out));
            if (++block_index_ == dataset_->block_length_) AdvanceCycle();
            return Status::OK();
          }
          slot.reset();
          datasets_[cycle_index_].reset();
          --num_open_;
          AdvanceCycle();
        } else if (!end_of_input_) {
          Element in;
          TW_RETURN_IF_ERROR(input_->GetNext(ctx, &in, &end_of_input_));
          if (end_of_input_) continue;
          std::vector<Tensor> rets;
          Status s = dataset_->fn_->Run(ctx, in, dataset_->captured_, &rets);
          if (s.code() == Code::kOutOfRange) {
            end_of_input_ = true;  // the function ended the input
            continue;
          }
          TW_RETURN_IF_ERROR(s);
          if (rets.size() != 1 || rets[0].dtype() != DT_STRING ||
              rets[0].shape().dims().size() != 0) {
            return errors::InvalidArgument(
                dataset_->fn_->who(),
                " must return one dataset (a scalar string handle)");
          }
          DatasetPtr made;
          TW_RETURN_IF_ERROR(GetDatasetFromHandle(
              rets[0], dataset_->fn_->who().c_str(), &made));
          TW_RETURN_IF_ERROR(made->MakeIterator(ctx, &slot));
          // The function's dataset handle dies with its step: the slot's
          // iterator points into `made`, which must outlive it.
          datasets_[cycle_index_] = std::move(made);
          ++num_open_;
        } else {
          AdvanceCycle();
        }
      }
      *end_of_sequence = true;
      return Status::OK();
    }

   private:
    void AdvanceCycle() {
      block_index_ = 0;
      cycle_index_ = (cycle_index_ + 1) % dataset_->cycle_length_;
    }

    const InterleaveDataset* dataset_;
    std::unique_ptr<IteratorBase> input_;
    std::vector<DatasetPtr> datasets_;  // before current_: destroyed after it
    std::vector<std::unique_ptr<IteratorBase>> current_;
    int64_t cycle_index_ = 0;
    int64_t block_index_ = 0;
    int64_t num_open_ = 0;
    bool end_of_input_ = false;
  };

  const std::string who_;
  const DatasetPtr input_;
  const FunctionPtr fn_;
  const std::vector<Tensor> captured_;
  const int64_t cycle_length_;
  const int64_t block_length_;
  const bool flat_map_;
};

// kind: 0 FlatMapDataset, 1 InterleaveDataset, 2 ParallelInterleaveDatasetV4
// (which produces InterleaveDataset's order, reading its datasets on the
// caller's thread).
template <int kind>
class InterleaveDatasetOp : public UnaryDatasetOpKernel {
 public:
  explicit InterleaveDatasetOp(OpKernelConstruction* ctx)
      : UnaryDatasetOpKernel(ctx) {
    ctx->SetStatus(CreateFunctionFromAttr(ctx, "f", &fn_));
    ctx->SetStatus(ctx->GetAttr("Targuments", &targuments_));
    if (kind == 2) {
      std::string deterministic;
      ctx->SetStatus(ctx->GetAttr("deterministic", &deterministic));
      if (deterministic != "default" && deterministic != "true" &&
          deterministic != "false") {
        ctx->SetStatus(errors::InvalidArgument(
            "deterministic must be 'default', 'true' or 'false', got '",
            deterministic, "'"));
      }
    }
  }

 protected:
  Status MakeDataset(OpKernelContext* ctx, DatasetPtr input,
                     DatasetPtr* out) override {
    const int num_captured = static_cast<int>(targuments_.size());
    const std::string who = StrCat(type_string(), " '", name(), "'");
    int64_t cycle_length = 1;
    int64_t block_length = 1;
    if (kind != 0) {
      const int first = 1 + num_captured;
      TW_RETURN_IF_ERROR(
          ParseScalarInput(ctx, first, "cycle_length", &cycle_length));
      TW_RETURN_IF_ERROR(
          ParseScalarInput(ctx, first + 1, "block_length", &block_length));
      if (cycle_length == -1) cycle_length = ThreadPool::NumCores();
      if (cycle_length <= 0) {
        return errors::InvalidArgument(
            who, ": cycle_length must be greater than zero, got ",
            cycle_length);
      }
      if (block_length <= 0) {
        return errors::InvalidArgument(
            who, ": block_length must be greater than zero, got ",
            block_length);
      }
      if (kind == 2) {
        int64_t value = 0;
        const char* names[] = {"buffer_output_elements",
                               "prefetch_input_elements", "num_parallel_calls"};
        for (int i = 0; i < 3; ++i) {
          TW_RETURN_IF_ERROR(
              ParseScalarInput(ctx, first + 2 + i, names[i], &value));
        }
        if (value <= 0 && value != -1) {
          return errors::InvalidArgument(
              who,
              ": num_parallel_calls must be greater than zero, or -1 "
              "(AUTOTUNE); got ",
              value);
        }
      }
    }
    *out = std::make_shared<InterleaveDataset>(
        who, std::move(input), fn_, CapturedInputs(ctx, 1, num_captured),
        output_dtypes(), output_shapes(), cycle_length, block_length,
        kind == 0);
    return Status::OK();
  }

 private:
  FunctionPtr fn_;
  DataTypeVector targuments_;
};

REGISTER_KERNEL(KernelDef("FlatMapDataset"), InterleaveDatasetOp<0>);
REGISTER_KERNEL(KernelDef("InterleaveDataset"), InterleaveDatasetOp<1>);
REGISTER_KERNEL(KernelDef("ParallelInterleaveDatasetV4"),
                InterleaveDatasetOp<2>);

}  // namespace
}  // namespace data
}  // namespace tensorweave
