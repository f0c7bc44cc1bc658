// RaggedCross (TensorFlow's signature): the feature crosses of ragged, sparse
// and dense inputs, row by row. Row b of the output holds one cross for each
// choice of one value from row b of every input, the last input varying
// fastest: the values joined by `separator` ("_X_", an attr TensorFlow's
// RaggedCross lacks, for its SparseCrossV2's; int64 values in decimal), or,
// with hashed_output, hashed as TensorFlow's SparseCross does: starting from
// hash_key, h = FingerprintCat64(h, f) for each value's f (Fingerprint64 of a
// string, an int64 as is), then h % num_buckets (0: h % INT64_MAX).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/farmhash_fingerprint.h"
#include "core/kernels/ragged_splits.h"

namespace tensorweave {
namespace {

// TensorFlow's FingerprintCat64 (tensorflow/core/platform/fingerprint.h).
uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  auto shift_mix = [](uint64_t v) { return v ^ (v >> 47); };
  uint64_t result = fp1 ^ kMul;
  result ^= shift_mix(fp2 * kMul) * kMul;
  result *= kMul;
  result = shift_mix(result) * kMul;
  return shift_mix(result);
}

// One input's values, row by row: row b is values[starts[b], starts[b+1]).
struct Feature {
  const Tensor* values = nullptr;
  std::vector<int64_t> starts;
  bool IsString() const { return values->dtype() == DT_STRING; }
  int64_t Count(int64_t b) const { return starts[b + 1] - starts[b]; }
  std::string Text(int64_t b, int64_t i) const {
    const int64_t k = starts[b] + i;
    return IsString() ? values->data<std::string>()[k]
                      : std::to_string(values->data<int64_t>()[k]);
  }
  uint64_t Hash(int64_t b, int64_t i) const {
    const int64_t k = starts[b] + i;
    if (IsString()) {
      const std::string& s = values->data<std::string>()[k];
      return Fingerprint64(s.data(), s.size());
    }
    return static_cast<uint64_t>(values->data<int64_t>()[k]);
  }
};

class RaggedCrossOp : public OpKernel {
 public:
  explicit RaggedCrossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::vector<DataType> ragged_types, sparse_types, dense_types;
    ctx->SetStatus(ctx->GetAttr("ragged_values_types", &ragged_types));
    ctx->SetStatus(ctx->GetAttr("sparse_values_types", &sparse_types));
    ctx->SetStatus(ctx->GetAttr("dense_types", &dense_types));
    ctx->SetStatus(ctx->GetAttr("Nsparse", &num_sparse_));
    ctx->SetStatus(ctx->GetAttr("input_order", &input_order_));
    ctx->SetStatus(ctx->GetAttr("hashed_output", &hashed_));
    ctx->SetStatus(ctx->GetAttr("num_buckets", &num_buckets_));
    ctx->SetStatus(ctx->GetAttr("hash_key", &hash_key_));
    ctx->SetStatus(ctx->GetAttr("out_row_splits_type", &splits_type_));
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
    num_ragged_ = static_cast<int>(ragged_types.size());
    num_dense_ = static_cast<int>(dense_types.size());
    if (!ctx->status().ok()) return;
    if (static_cast<int64_t>(sparse_types.size()) != num_sparse_) {
      ctx->SetStatus(errors::InvalidArgument(
          "sparse_values_types has ", sparse_types.size(),
          " types but Nsparse is ", num_sparse_));
    }
    int counts[3] = {0, 0, 0};
    for (char c : input_order_) {
      if (c == 'R') {
        ++counts[0];
      } else if (c == 'S') {
        ++counts[1];
      } else if (c == 'D') {
        ++counts[2];
      } else {
        ctx->SetStatus(errors::InvalidArgument(
            "input_order must hold only R, S and D, got '", input_order_, "'"));
        return;
      }
    }
    if (counts[0] != num_ragged_ || counts[1] != num_sparse_ ||
        counts[2] != num_dense_) {
      ctx->SetStatus(errors::InvalidArgument(
          "input_order '", input_order_, "' does not match the inputs (",
          num_ragged_, " ragged, ", num_sparse_, " sparse, ", num_dense_,
          " dense)"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const int sparse_base = 2 * num_ragged_;
    const int dense_base = sparse_base + 3 * static_cast<int>(num_sparse_);
    std::vector<Feature> ragged(num_ragged_), sparse(num_sparse_),
        dense(num_dense_);
    int64_t batch = -1;
    auto same_batch = [&](int64_t rows) -> Status {
      if (batch >= 0 && rows != batch) {
        return errors::InvalidArgument(
            "inputs must all have the same batch dimension size.");
      }
      batch = rows;
      return Status::OK();
    };
    for (int i = 0; i < num_ragged_; ++i) {
      const Tensor& values = ctx->input(i);
      OP_REQUIRES(ctx, values.rank() == 1,
                  errors::InvalidArgument("ragged_values[", i,
                                          "] must be a vector, got ",
                                          values.shape().ToString()));
      Status s = ReadSplits(ctx->input(num_ragged_ + i), values.num_elements(),
                            &ragged[i].starts);
      OP_REQUIRES(
          ctx, s.ok(),
          errors::InvalidArgument("ragged_row_splits[", i, "]: ", s.message()));
      ragged[i].values = &values;
      OP_REQUIRES_OK(ctx, same_batch(ragged[i].starts.size() - 1));
    }
    for (int i = 0; i < num_sparse_; ++i) {
      OP_REQUIRES_OK(ctx,
                     ReadSparse(i, ctx->input(sparse_base + i),
                                ctx->input(sparse_base + num_sparse_ + i),
                                ctx->input(sparse_base + 2 * num_sparse_ + i),
                                &sparse[i]));
      OP_REQUIRES_OK(ctx, same_batch(sparse[i].starts.size() - 1));
    }
    for (int i = 0; i < num_dense_; ++i) {
      const Tensor& t = ctx->input(dense_base + i);
      OP_REQUIRES(ctx, t.rank() == 2,
                  errors::InvalidArgument("dense_inputs[", i,
                                          "] must be a matrix, got ",
                                          t.shape().ToString()));
      dense[i].values = &t;
      for (int64_t b = 0; b <= t.dim(0); ++b) {
        dense[i].starts.push_back(b * t.dim(1));
      }
      OP_REQUIRES_OK(ctx, same_batch(t.dim(0)));
    }
    std::vector<const Feature*> features;
    int next[3] = {0, 0, 0};
    for (char c : input_order_) {
      if (c == 'R') features.push_back(&ragged[next[0]++]);
      if (c == 'S') features.push_back(&sparse[next[1]++]);
      if (c == 'D') features.push_back(&dense[next[2]++]);
    }
    if (batch < 0) batch = 0;

    std::vector<int64_t> splits(1, 0);
    for (int64_t b = 0; b < batch; ++b) {
      int64_t n = features.empty() ? 0 : 1;
      for (const Feature* f : features) {
        const int64_t count = f->Count(b);
        OP_REQUIRES(
            ctx,
            count == 0 || n <= std::numeric_limits<int32_t>::max() /
                                   std::max<int64_t>(count, 1),
            errors::ResourceExhausted("row ", b, " has too many crosses"));
        n *= count;
      }
      splits.push_back(splits.back() + n);
    }
    Tensor* out_values;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({splits.back()}),
                                             &out_values));
    OP_REQUIRES_OK(ctx, WriteSplitsAs(splits_type_, ctx, 1, splits));
    int64_t k = 0;
    std::vector<int64_t> choice(features.size());
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t n = splits[b + 1] - splits[b];
      std::fill(choice.begin(), choice.end(), 0);
      for (int64_t j = 0; j < n; ++j, ++k) {
        if (hashed_) {
          uint64_t h = static_cast<uint64_t>(hash_key_);
          for (size_t f = 0; f < features.size(); ++f) {
            h = FingerprintCat64(h, features[f]->Hash(b, choice[f]));
          }
          const uint64_t mod =
              num_buckets_ > 0
                  ? static_cast<uint64_t>(num_buckets_)
                  : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
          out_values->data<int64_t>()[k] = static_cast<int64_t>(h % mod);
        } else {
          std::string s;
          for (size_t f = 0; f < features.size(); ++f) {
            if (f > 0) s += separator_;
            s += features[f]->Text(b, choice[f]);
          }
          out_values->data<std::string>()[k] = std::move(s);
        }
        // The next choice: the last feature varies fastest.
        for (size_t f = features.size(); f-- > 0;) {
          if (++choice[f] < features[f]->Count(b)) break;
          choice[f] = 0;
        }
      }
    }
  }

 private:
  // A [batch, width] SparseTensor's values, row by row: its indices must be
  // in row order (as a SparseTensor's canonical order).
  static Status ReadSparse(int i, const Tensor& indices, const Tensor& values,
                           const Tensor& shape, Feature* out) {
    if (indices.rank() != 2 || indices.dim(1) != 2 || values.rank() != 1 ||
        values.dim(0) != indices.dim(0) || shape.rank() != 1 ||
        shape.dim(0) != 2) {
      return errors::InvalidArgument(
          "sparse input ", i,
          " must be a 2-D SparseTensor: indices [n, 2], values [n] and "
          "dense_shape [2], got ",
          indices.shape().ToString(), ", ", values.shape().ToString(), ", ",
          shape.shape().ToString());
    }
    const int64_t rows = shape.data<int64_t>()[0];
    if (rows < 0) {
      return errors::InvalidArgument("sparse input ", i,
                                     " has a negative dense_shape");
    }
    out->values = &values;
    out->starts.assign(rows + 1, 0);
    const int64_t* idx = indices.data<int64_t>();
    int64_t last = 0;
    for (int64_t j = 0; j < indices.dim(0); ++j) {
      const int64_t row = idx[2 * j];
      if (row < last || row >= rows) {
        return errors::InvalidArgument(
            "sparse input ", i, ": index ", j, " has row ", row,
            (row >= rows ? ", outside the dense_shape" : ", out of row order"));
      }
      last = row;
      ++out->starts[row + 1];
    }
    for (int64_t b = 0; b < rows; ++b) out->starts[b + 1] += out->starts[b];
    return Status::OK();
  }

  int num_ragged_ = 0, num_dense_ = 0;
  int64_t num_sparse_ = 0;
  std::string input_order_, separator_;
  bool hashed_ = false;
  int64_t num_buckets_ = 0, hash_key_ = 0;
  DataType splits_type_ = DT_INT64;
};

REGISTER_KERNEL(KernelDef("RaggedCross"), RaggedCrossOp);

}  // namespace
}  // namespace tensorweave
