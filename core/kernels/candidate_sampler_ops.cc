// UniformCandidateSampler, LogUniformCandidateSampler, AllCandidateSampler,
// FixedUnigramCandidateSampler, LearnedUnigramCandidateSampler and
// ComputeAccidentalHits. A unique draw repeats until num_sampled distinct
// classes are found; the expected counts then follow TensorFlow:
// -expm1(tries * log1p(-p)), or p * num_sampled for a draw with repeats.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/random_ops.h"

namespace tensorweave {
namespace {

enum class Sampler {
  kUniform,
  kLogUniform,
  kAll,
  kFixedUnigram,
  kLearnedUnigram
};

// The counts of a learned-unigram sampler (TensorFlow's UnigramSampler): every
// class starts at 1 and each true class a step sees adds 1 (after the step's
// draw). A Fenwick tree keeps drawing and updating O(log range_max).
class LearnedCounts {
 public:
  void Reset(int64_t n) {
    count_.assign(n, 1);
    tree_.assign(n + 1, 0);
    for (int64_t i = 1; i <= n; ++i) {
      tree_[i] += 1;
      const int64_t parent = i + (i & -i);
      if (parent <= n) tree_[parent] += tree_[i];
    }
    total_ = n;
    top_ = 1;
    while (top_ * 2 <= n) top_ *= 2;
  }
  int64_t total() const { return total_; }
  int64_t count(int64_t k) const { return count_[k]; }
  void Add(int64_t k) {
    ++count_[k];
    ++total_;
    for (int64_t i = k + 1; i < static_cast<int64_t>(tree_.size());
         i += i & -i) {
      ++tree_[i];
    }
  }
  // The class whose cumulative count range holds r, for r in [0, total).
  int64_t Find(int64_t r) const {
    int64_t pos = 0;
    for (int64_t step = top_; step > 0; step /= 2) {
      if (pos + step < static_cast<int64_t>(tree_.size()) &&
          tree_[pos + step] <= r) {
        pos += step;
        r -= tree_[pos];
      }
    }
    return pos;
  }

 private:
  std::vector<int64_t> count_, tree_;
  int64_t total_ = 0, top_ = 1;
};

template <Sampler kKind>
class CandidateSamplerOp : public OpKernel {
 public:
  explicit CandidateSamplerOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), gen_(Philox(0, 0)) {
    int64_t seed = 0, seed2 = 0;
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
    ctx->SetStatus(ctx->GetAttr("num_sampled", &num_sampled_));
    ctx->SetStatus(ctx->GetAttr("unique", &unique_));
    ctx->SetStatus(ctx->GetAttr("seed", &seed));
    ctx->SetStatus(ctx->GetAttr("seed2", &seed2));
    if (kKind == Sampler::kAll) {
      range_max_ = num_sampled_;
    } else {
      ctx->SetStatus(ctx->GetAttr("range_max", &range_max_));
    }
    if (!ctx->status().ok()) return;
    if (range_max_ < 1) {
      ctx->SetStatus(
          errors::InvalidArgument("range_max must be >= 1, got ", range_max_));
    } else if (unique_ && num_sampled_ > range_max_) {
      ctx->SetStatus(errors::InvalidArgument(
          "Sampler's range is too small: num_sampled ", num_sampled_,
          " unique candidates from range_max ", range_max_));
    }
    if (seed == 0 && seed2 == 0) {
      std::random_device device;
      seed = (static_cast<int64_t>(device()) << 32) | device();
      seed2 = (static_cast<int64_t>(device()) << 32) | device();
    }
    gen_.Reset(
        Philox(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2)));
    log_range_ = std::log1p(static_cast<double>(range_max_));
    if (kKind == Sampler::kFixedUnigram && ctx->status().ok()) {
      ctx->SetStatus(LoadUnigrams(ctx));
    }
    if (kKind == Sampler::kLearnedUnigram && ctx->status().ok()) {
      // TensorFlow's UnigramSampler keeps int32 counts.
      if (range_max_ >= std::numeric_limits<int32_t>::max()) {
        ctx->SetStatus(errors::InvalidArgument(
            "range_max must be < 2147483647 for a learned unigram sampler, "
            "got ",
            range_max_));
      } else {
        learned_.Reset(range_max_);
      }
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    OP_REQUIRES(
        ctx, true_classes.rank() == 2 && true_classes.dim(1) == num_true_,
        errors::InvalidArgument("true_classes must be a matrix of num_true (",
                                num_true_, ") columns, got ",
                                true_classes.shape().ToString()));
    const int64_t* t = true_classes.data<int64_t>();
    for (int64_t i = 0; i < true_classes.num_elements(); ++i) {
      OP_REQUIRES(ctx, t[i] >= 0 && t[i] < range_max_,
                  errors::InvalidArgument("`true_candidate` out of range [0, ",
                                          range_max_, "), received ", t[i]));
    }
    Tensor *sampled, *true_count, *sampled_count;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({num_sampled_}), &sampled));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, true_classes.shape(), &true_count));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({num_sampled_}),
                                             &sampled_count));
    int64_t* s = sampled->data<int64_t>();
    int64_t tries = num_sampled_;
    // Held from the draw through the learned counts' update.
    std::unique_lock<std::mutex> lock(mu_, std::defer_lock);
    if (kKind == Sampler::kAll) {
      for (int64_t i = 0; i < num_sampled_; ++i) s[i] = i;
    } else {
      lock.lock();
      // TensorFlow reserves 2048 words per sampled class for each run.
      Philox local = gen_.Reserve(512 * static_cast<uint64_t>(num_sampled_));
      WordStream words(&local);
      if (unique_) {
        std::unordered_set<int64_t> seen;
        tries = 0;
        for (int64_t i = 0; i < num_sampled_;) {
          const int64_t v = Sample(words);
          ++tries;
          if (seen.insert(v).second) s[i++] = v;
        }
      } else {
        for (int64_t i = 0; i < num_sampled_; ++i) s[i] = Sample(words);
      }
    }
    auto expected = [&](int64_t k) -> float {
      if (kKind == Sampler::kAll) return 1.0f;
      // In float, as TensorFlow's samplers give probabilities.
      const float p = static_cast<float>(Probability(k));
      if (tries == num_sampled_) return p * static_cast<float>(num_sampled_);
      return -std::expm1(static_cast<float>(tries) * std::log1p(-p));
    };
    for (int64_t i = 0; i < num_sampled_; ++i) {
      sampled_count->data<float>()[i] = expected(s[i]);
    }
    for (int64_t i = 0; i < true_classes.num_elements(); ++i) {
      true_count->data<float>()[i] = expected(t[i]);
    }
    if (kKind == Sampler::kLearnedUnigram) {
      // The counts learn this step's true classes after its draw (as
      // TensorFlow); the total stays below 2^31 as TensorFlow's does.
      const int64_t room =
          std::numeric_limits<int32_t>::max() - learned_.total();
      const int64_t n = std::min(true_classes.num_elements(), room);
      for (int64_t i = 0; i < n; ++i) {
        learned_.Add(t[i]);
      }
    }
  }

 private:
  // The weights of a fixed-unigram sampler: num_reserved_ids zeros, then each
  // unigram (from the attr or the vocabulary file) ** distortion; ids of
  // other shards weigh 0.
  Status LoadUnigrams(OpKernelConstruction* ctx) {
    std::string vocab_file;
    std::vector<float> unigrams;
    float distortion = 1.0f;
    int64_t reserved = 0, num_shards = 1, shard = 0;
    TW_RETURN_IF_ERROR(ctx->GetAttr("vocab_file", &vocab_file));
    TW_RETURN_IF_ERROR(ctx->GetAttr("unigrams", &unigrams));
    TW_RETURN_IF_ERROR(ctx->GetAttr("distortion", &distortion));
    TW_RETURN_IF_ERROR(ctx->GetAttr("num_reserved_ids", &reserved));
    TW_RETURN_IF_ERROR(ctx->GetAttr("num_shards", &num_shards));
    TW_RETURN_IF_ERROR(ctx->GetAttr("shard", &shard));
    if (vocab_file.empty() == unigrams.empty()) {
      return errors::InvalidArgument(
          "Must provide either vocab_file or unigrams, and not both");
    }
    if (reserved < 0) {
      return errors::InvalidArgument("num_reserved_ids must be >= 0, got ",
                                     reserved);
    }
    // The weights table has range_max doubles: bounded as a tensor is.
    int64_t table_bytes = 0;
    if (!MultiplyWithoutOverflow(range_max_, int64_t{2 * sizeof(double)},
                                 &table_bytes) ||
        table_bytes > MaxTensorBytes()) {
      return errors::ResourceExhausted("range_max ", range_max_,
                                       " is too large for the unigram table");
    }
    if (num_shards < 1 || shard < 0 || shard >= num_shards) {
      return errors::InvalidArgument("shard ", shard, " must be in [0, ",
                                     num_shards, ")");
    }
    if (!vocab_file.empty()) {
      std::ifstream in(vocab_file);
      if (!in) {
        return errors::NotFound("vocab_file ", vocab_file, " cannot be opened");
      }
      std::string line;
      while (std::getline(in, line)) {
        const size_t comma = line.rfind(',');
        const std::string field =
            comma == std::string::npos ? line : line.substr(comma + 1);
        char* end = nullptr;
        const double w = std::strtod(field.c_str(), &end);
        if (end == field.c_str()) {
          return errors::InvalidArgument("vocab_file ", vocab_file,
                                         ": no weight on line '", line, "'");
        }
        unigrams.push_back(static_cast<float>(w));
      }
    }
    // Checked before the table is sized (reserved may be huge).
    if (reserved > range_max_ ||
        static_cast<int64_t>(unigrams.size()) != range_max_ - reserved) {
      return errors::InvalidArgument(
          "range_max ", range_max_, " must equal num_reserved_ids (", reserved,
          ") + the number of unigrams (", unigrams.size(), ")");
    }
    weights_.assign(reserved, 0.0);
    for (float u : unigrams)
      weights_.push_back(std::pow(double(u), distortion));
    for (int64_t i = 0; i < range_max_; ++i) {
      if (i % num_shards != shard) weights_[i] = 0.0;
    }
    cumulative_.resize(weights_.size());
    double total = 0;
    for (size_t i = 0; i < weights_.size(); ++i) {
      total += weights_[i];
      cumulative_[i] = total;
    }
    if (!(total > 0)) {
      return errors::InvalidArgument("the unigram weights sum to ", total);
    }
    total_weight_ = total;
    return Status::OK();
  }

  // A class as TensorFlow's samplers draw it (uniform: 64 bits modulo the
  // range; log-uniform: exp(u * log(range + 1)) - 1).
  int64_t Sample(WordStream& words) {
    if (kKind == Sampler::kLearnedUnigram) {
      const int64_t r = std::min<int64_t>(
          static_cast<int64_t>(words.Double() * learned_.total()),
          learned_.total() - 1);
      return learned_.Find(r);
    }
    if (kKind == Sampler::kFixedUnigram) {
      const double r = words.Double() * total_weight_;
      const auto it =
          std::upper_bound(cumulative_.begin(), cumulative_.end(), r);
      return std::min<int64_t>(it - cumulative_.begin(), range_max_ - 1);
    }
    if (kKind == Sampler::kUniform) {
      return static_cast<int64_t>(words.Bits64() %
                                  static_cast<uint64_t>(range_max_));
    }
    const int64_t v =
        static_cast<int64_t>(std::exp(words.Double() * log_range_)) - 1;
    return v % range_max_;
  }

  double Probability(int64_t k) const {
    if (k < 0 || k >= range_max_) return 0.0;
    if (kKind == Sampler::kUniform) return 1.0 / range_max_;
    if (kKind == Sampler::kFixedUnigram) return weights_[k] / total_weight_;
    if (kKind == Sampler::kLearnedUnigram) {
      // float / float, as TensorFlow's UnigramSampler.
      return static_cast<float>(learned_.count(k)) /
             static_cast<float>(learned_.total());
    }
    return std::log((k + 2.0) / (k + 1.0)) / log_range_;
  }

  int64_t num_true_ = 1, num_sampled_ = 1, range_max_ = 1;
  bool unique_ = true;
  double log_range_ = 0;
  std::vector<double> weights_, cumulative_;
  double total_weight_ = 1;
  LearnedCounts learned_;
  std::mutex mu_;
  GuardedPhilox gen_;
};

class ComputeAccidentalHitsOp : public OpKernel {
 public:
  explicit ComputeAccidentalHitsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_true", &num_true_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& true_classes = ctx->input(0);
    const Tensor& sampled = ctx->input(1);
    OP_REQUIRES(
        ctx, true_classes.rank() == 2 && true_classes.dim(1) == num_true_,
        errors::InvalidArgument("true_classes must be a matrix of num_true (",
                                num_true_, ") columns, got ",
                                true_classes.shape().ToString()));
    OP_REQUIRES(ctx, sampled.rank() == 1,
                errors::InvalidArgument("sampled_candidates must be a vector, "
                                        "got ",
                                        sampled.shape().ToString()));
    std::unordered_map<int64_t, int64_t> position;  // the last wins, as TF
    for (int64_t j = 0; j < sampled.dim(0); ++j) {
      position[sampled.data<int64_t>()[j]] = j;
    }
    std::vector<int32_t> rows;
    std::vector<int64_t> ids;
    const int64_t* t = true_classes.data<int64_t>();
    for (int64_t i = 0; i < true_classes.dim(0); ++i) {
      for (int64_t j = 0; j < num_true_; ++j) {
        auto found = position.find(t[i * num_true_ + j]);
        if (found != position.end()) {
          rows.push_back(static_cast<int32_t>(i));
          ids.push_back(found->second);
        }
      }
    }
    const int64_t n = static_cast<int64_t>(rows.size());
    Tensor *indices, *out_ids, *weights;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({n}), &indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({n}), &out_ids));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({n}), &weights));
    for (int64_t k = 0; k < n; ++k) {
      indices->data<int32_t>()[k] = rows[k];
      out_ids->data<int64_t>()[k] = ids[k];
      weights->data<float>()[k] = -std::numeric_limits<float>::max();
    }
  }

 private:
  int64_t num_true_ = 1;
};

REGISTER_KERNEL(KernelDef("UniformCandidateSampler"),
                CandidateSamplerOp<Sampler::kUniform>);
REGISTER_KERNEL(KernelDef("LogUniformCandidateSampler"),
                CandidateSamplerOp<Sampler::kLogUniform>);
REGISTER_KERNEL(KernelDef("AllCandidateSampler"),
                CandidateSamplerOp<Sampler::kAll>);
REGISTER_KERNEL(KernelDef("FixedUnigramCandidateSampler"),
                CandidateSamplerOp<Sampler::kFixedUnigram>);
REGISTER_KERNEL(KernelDef("LearnedUnigramCandidateSampler"),
                CandidateSamplerOp<Sampler::kLearnedUnigram>);
REGISTER_KERNEL(KernelDef("ComputeAccidentalHits"), ComputeAccidentalHitsOp);

}  // namespace
}  // namespace tensorweave
