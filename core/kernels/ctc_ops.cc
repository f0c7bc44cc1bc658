// CTCLoss, CTCGreedyDecoder and CTCBeamSearchDecoder kernels: TensorFlow's
// ctc_loss_calculator (log-space alpha/beta over the labels with blanks
// between them, the blank being num_classes - 1) and its prefix beam search.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

template <typename T>
constexpr T kLogZero = -std::numeric_limits<T>::infinity();

// The most cells of alpha (and of beta) one batch entry may take, and the
// most prefixes a beam search may hold: hostile shapes get an error, not an
// allocation of their choosing.
constexpr int64_t kMaxLatticeCells = int64_t{1} << 26;
constexpr size_t kMaxBeamNodes = size_t{1} << 23;

// log(exp(a) + exp(b)), exact when either is log(0) (TF's LogSumExp).
template <typename T>
T LogSumExp(T a, T b) {
  if (a <= kLogZero<T>) return b;
  if (b <= kLogZero<T>) return a;
  return a > b ? a + std::log1p(std::exp(b - a))
               : b + std::log1p(std::exp(a - b));
}

std::string JoinLabels(const std::vector<int>& labels) {
  std::string out;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ",";
    out += std::to_string(labels[i]);
  }
  return out;
}

// --- CTCLoss ---------------------------------------------------------------

// Reads the sparse labels [batch, max_label] into one sequence per entry,
// checking what TF's SparseTensor::IndicesValid checks (in bounds, rows in
// order, no repeats).
Status ReadLabels(const Tensor& indices, const Tensor& values, int64_t batch,
                  std::vector<std::vector<int>>* labels) {
  const int64_t n = indices.dim(0);
  const int64_t* idx = indices.data<int64_t>();
  const int32_t* val = values.data<int32_t>();
  int64_t max_label_len = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (idx[2 * i + 1] >= 0 && idx[2 * i + 1] >= max_label_len) {
      max_label_len = idx[2 * i + 1] == std::numeric_limits<int64_t>::max()
                          ? idx[2 * i + 1]
                          : idx[2 * i + 1] + 1;
    }
  }
  labels->assign(batch, {});
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = idx[2 * i], t = idx[2 * i + 1];
    const std::string where = "indices[" + std::to_string(i) + "] = [" +
                              std::to_string(b) + "," + std::to_string(t) + "]";
    if (b < 0 || b >= batch || t < 0 || t >= max_label_len) {
      return errors::InvalidArgument("label SparseTensor is not valid: ", where,
                                     " is out of bounds: need 0 <= index < [",
                                     batch, ",", max_label_len, "]");
    }
    if (i > 0) {
      const int64_t pb = idx[2 * i - 2], pt = idx[2 * i - 1];
      if (b < pb || (b == pb && t < pt)) {
        return errors::InvalidArgument(
            "label SparseTensor is not valid: ", where,
            " is out of order. Many sparse ops require sorted indices.\n"
            "    Use `tf.sparse.reorder` to create a correctly ordered "
            "copy.\n\n");
      }
      if (b == pb && t == pt) {
        return errors::InvalidArgument(
            "label SparseTensor is not valid: ", where, " is repeated");
      }
    }
    (*labels)[b].push_back(val[i]);
  }
  return Status::OK();
}

// The labels with a blank before each and one at the end (L' = 2L + 1).
std::vector<int> LPrime(const std::vector<int>& l, int blank) {
  std::vector<int> out;
  out.reserve(2 * l.size() + 1);
  for (int label : l) {
    out.push_back(blank);
    out.push_back(label);
  }
  out.push_back(blank);
  return out;
}

// One batch entry: y is the softmax [steps][classes]; fills the loss and,
// over the entry's steps, grad [steps][classes].
template <typename T>
void LossAndGradient(const std::vector<int>& lp,
                     const std::vector<std::vector<T>>& y, int blank,
                     bool merge_repeated, T* loss, std::vector<T>* grad) {
  const int U = static_cast<int>(lp.size());
  const int steps = static_cast<int>(y.size());
  const int classes = static_cast<int>(y[0].size());
  std::vector<T> alpha(static_cast<size_t>(U) * steps, kLogZero<T>);
  std::vector<T> beta(alpha.size(), kLogZero<T>);
  auto a = [&](int u, int t) -> T& { return alpha[size_t(u) * steps + t]; };
  auto be = [&](int u, int t) -> T& { return beta[size_t(u) * steps + t]; };
  auto logy = [&](int c, int t) { return std::log(y[t][c]); };
  // Forward (Graves' Eq 7.5-7.9).
  a(0, 0) = logy(blank, 0);
  if (U > 1) a(1, 0) = logy(lp[1], 0);
  for (int t = 1; t < steps; ++t) {
    for (int u = std::max(0, U - 2 * (steps - t)); u < std::min(U, 2 * (t + 1));
         ++u) {
      T sum = kLogZero<T>;
      if (merge_repeated || lp[u] == blank) sum = a(u, t - 1);
      if (u > 0) sum = LogSumExp(sum, a(u - 1, t - 1));
      if (u > 1) {
        const bool merge = merge_repeated && lp[u] == lp[u - 2];
        if (lp[u] != blank && !merge) sum = LogSumExp(sum, a(u - 2, t - 1));
      }
      a(u, t) = logy(lp[u], t) + sum;
    }
  }
  // Backward (Eq 7.13-7.15); beta excludes the step's own emission.
  for (int u = std::max(0, U - 2); u < U; ++u) be(u, steps - 1) = 0;
  for (int t = steps - 2; t >= 0; --t) {
    for (int u = std::max(0, U - 2 * (steps - t)); u < std::min(U, 2 * (t + 1));
         ++u) {
      T& b = be(u, t);
      if (merge_repeated || lp[u] == blank) {
        b = LogSumExp(b, be(u, t + 1) + logy(lp[u], t + 1));
      }
      if (u + 1 < U)
        b = LogSumExp(b, be(u + 1, t + 1) + logy(lp[u + 1], t + 1));
      if (u + 2 < U) {
        const bool merge = merge_repeated && lp[u] == lp[u + 2];
        if (lp[u + 2] != blank && !merge) {
          b = LogSumExp(b, be(u + 2, t + 1) + logy(lp[u + 2], t + 1));
        }
      }
    }
  }
  T log_pzx = kLogZero<T>;
  for (int u = 0; u < U; ++u) log_pzx = LogSumExp(log_pzx, a(u, 0) + be(u, 0));
  *loss = -log_pzx;
  grad->assign(static_cast<size_t>(steps) * classes, T(0));
  if (log_pzx <= kLogZero<T>) {  // no valid path: the gradient is y
    for (int t = 0; t < steps; ++t) {
      std::copy(y[t].begin(), y[t].end(), grad->begin() + size_t(t) * classes);
    }
    return;
  }
  std::vector<T> prob_sum(classes);
  for (int t = 0; t < steps; ++t) {
    std::fill(prob_sum.begin(), prob_sum.end(), kLogZero<T>);
    for (int u = 0; u < U; ++u) {
      prob_sum[lp[u]] = LogSumExp(prob_sum[lp[u]], a(u, t) + be(u, t));
    }
    for (int c = 0; c < classes; ++c) {
      (*grad)[size_t(t) * classes + c] =
          y[t][c] - std::exp(prob_sum[c] - log_pzx);
    }
  }
}

class CTCLossOp : public OpKernel {
 public:
  explicit CTCLossOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("preprocess_collapse_repeated",
                                     &preprocess_collapse_repeated_));
    OP_REQUIRES_OK(ctx,
                   ctx->GetAttr("ctc_merge_repeated", &ctc_merge_repeated_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ignore_longer_outputs_than_inputs",
                                     &ignore_longer_outputs_than_inputs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& values = ctx->input(2);
    const Tensor& seq_len = ctx->input(3);
    OP_REQUIRES(ctx, inputs.rank() == 3,
                errors::InvalidArgument("inputs is not a 3-Tensor"));
    OP_REQUIRES(ctx, seq_len.rank() == 1,
                errors::InvalidArgument("sequence_length is not a vector"));
    OP_REQUIRES(ctx, indices.rank() == 2,
                errors::InvalidArgument("labels_indices is not a matrix"));
    OP_REQUIRES(ctx, indices.dim(1) == 2,
                errors::InvalidArgument(
                    "labels_indices second dimension must be 2 ([batch, "
                    "position] pairs). Received ",
                    indices.dim(1)));
    OP_REQUIRES(ctx, values.rank() == 1,
                errors::InvalidArgument("labels_values is not a vector"));
    const int64_t max_time = inputs.dim(0);
    const int64_t batch = inputs.dim(1);
    const int64_t num_classes = inputs.dim(2);
    OP_REQUIRES(ctx, max_time != 0,
                errors::InvalidArgument(
                    "Max time or first dimension of input cannot be 0."));
    OP_REQUIRES(ctx, num_classes > 0 && num_classes <= (int64_t{1} << 30),
                errors::InvalidArgument(
                    "num_classes (the last dimension of inputs) must be in "
                    "[1, 2^30], got ",
                    num_classes));
    OP_REQUIRES(
        ctx, batch == seq_len.dim(0),
        errors::InvalidArgument("len(sequence_length) != batch_size.  "
                                "len(sequence_length):  ",
                                seq_len.dim(0), " batch_size: ", batch));
    OP_REQUIRES(
        ctx, indices.dim(0) == values.dim(0),
        errors::InvalidArgument(
            "labels_indices and labels_values must contain the same "
            "number of rows, but saw shapes: ",
            indices.shape().ToString(), " vs. ", values.shape().ToString()));
    OP_REQUIRES(ctx, batch != 0,
                errors::InvalidArgument("batch_size must not be 0"));
    std::vector<std::vector<int>> labels;
    OP_REQUIRES_OK(ctx, ReadLabels(indices, values, batch, &labels));
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES(
          ctx, !labels[b].empty(),
          errors::InvalidArgument("Labels length is zero in batch ", b));
    }
    const int32_t* len = seq_len.data<int32_t>();
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES(
          ctx, len[b] <= max_time,
          errors::InvalidArgument("sequence_length(", b, ") <= ", max_time));
    }
    const int blank = static_cast<int>(num_classes - 1);
    // The extended labels of each entry (TF's PopulateLPrimes checks).
    std::vector<std::vector<int>> l_primes(batch);
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES(ctx, len[b] >= 0,
                  errors::InvalidArgument("seq_len(", b, ") < 0: ", len[b]));
      std::vector<int> l;
      for (size_t i = 0; i < labels[b].size(); ++i) {
        if (!preprocess_collapse_repeated_ || i == 0 ||
            labels[b][i] != labels[b][i - 1]) {
          l.push_back(labels[b][i]);
        }
      }
      for (int label : l) {
        OP_REQUIRES(ctx, label >= 0,
                    errors::InvalidArgument(
                        "All labels must be nonnegative integers, batch: ", b,
                        " labels: ", JoinLabels(l)));
        OP_REQUIRES(
            ctx, label < num_classes,
            errors::InvalidArgument("No label may be greater than num_classes. "
                                    "num_classes: ",
                                    num_classes, ", batch: ", b,
                                    " labels: ", JoinLabels(l)));
      }
      const int64_t required =
          static_cast<int64_t>(labels[b].size());  // before collapsing, as TF
      if (!ignore_longer_outputs_than_inputs_) {
        OP_REQUIRES(ctx, required <= len[b],
                    errors::InvalidArgument(
                        "Not enough time for target transition sequence "
                        "(required: ",
                        required, ", available: ", len[b], ")", b,
                        "You can turn this error into a warning by using the "
                        "flag ignore_longer_outputs_than_inputs"));
      }
      l_primes[b] = LPrime(l, blank);
    }
    Tensor *loss, *gradient;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, seq_len.shape(), &loss));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, inputs.shape(), &gradient));
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(inputs.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* x = inputs.data<T>();
          T* loss_out = loss->data<T>();
          T* grad_out = gradient->data<T>();
          std::fill(grad_out, grad_out + gradient->num_elements(), T(0));
          std::vector<T> grad;
          for (int64_t b = 0; b < batch; ++b) {
            loss_out[b] = T(0);
            const int steps = len[b];
            // An empty sequence, or labels longer than it when that is
            // allowed: loss and gradient 0.
            if (steps == 0 ||
                (ignore_longer_outputs_than_inputs_ &&
                 static_cast<int64_t>(labels[b].size()) > steps)) {
              continue;
            }
            const int64_t cells =
                static_cast<int64_t>(l_primes[b].size()) * steps;
            if (cells > kMaxLatticeCells) {
              return errors::ResourceExhausted(
                  "CTCLoss: batch entry ", b, " needs ", cells,
                  " lattice cells (labels x steps), more than ",
                  kMaxLatticeCells);
            }
            std::vector<std::vector<T>> y(steps, std::vector<T>(num_classes));
            for (int t = 0; t < steps; ++t) {
              const T* row = x + (t * batch + b) * num_classes;
              const T m = *std::max_element(row, row + num_classes);
              T sum = T(0);
              for (int64_t c = 0; c < num_classes; ++c) {
                y[t][c] = std::exp(row[c] - m);
                sum += y[t][c];
              }
              for (int64_t c = 0; c < num_classes; ++c) y[t][c] /= sum;
            }
            LossAndGradient<T>(l_primes[b], y, blank, ctc_merge_repeated_,
                               &loss_out[b], &grad);
            for (int t = 0; t < steps; ++t) {
              std::copy(grad.begin() + t * num_classes,
                        grad.begin() + (t + 1) * num_classes,
                        grad_out + (t * batch + b) * num_classes);
            }
          }
          return Status::OK();
        }));
  }

 private:
  bool preprocess_collapse_repeated_ = false;
  bool ctc_merge_repeated_ = true;
  bool ignore_longer_outputs_than_inputs_ = false;
};

// --- the decoders ----------------------------------------------------------

// TF's CTCDecodeHelper checks of inputs [max_time, batch, classes] and
// sequence_length [batch].
Status ValidateDecoderInputs(const Tensor& inputs, const Tensor& seq_len) {
  if (inputs.rank() != 3) {
    return errors::InvalidArgument("inputs is not a 3-Tensor");
  }
  if (seq_len.rank() != 1) {
    return errors::InvalidArgument("sequence_length is not a vector");
  }
  const int64_t max_time = inputs.dim(0), batch = inputs.dim(1);
  if (max_time == 0) return errors::InvalidArgument("max_time is 0");
  if (seq_len.dim(0) != batch) {
    return errors::InvalidArgument(
        "len(sequence_length) != batch_size.  len(sequence_length):  ",
        seq_len.dim(0), " batch_size: ", batch);
  }
  const int32_t* len = seq_len.data<int32_t>();
  for (int64_t b = 0; b < batch; ++b) {
    if (len[b] > max_time) {
      return errors::FailedPrecondition("sequence_length(", b,
                                        ") <= ", max_time);
    }
  }
  if (inputs.dim(2) > (int64_t{1} << 30)) {
    return errors::InvalidArgument("num_classes cannot exceed 2^30, got ",
                                   inputs.dim(2));
  }
  return Status::OK();
}

// paths[b][p]: the decoded classes of entry b's p-th path. Writes the
// outputs decoded_indices/values/shape of each path p (output p, P + p,
// 2P + p) as TF's StoreAllDecodedSequences.
Status StoreDecoded(OpKernelContext* ctx,
                    const std::vector<std::vector<std::vector<int>>>& paths,
                    int num_paths) {
  const int64_t batch = static_cast<int64_t>(paths.size());
  for (int p = 0; p < num_paths; ++p) {
    int64_t total = 0, max_len = 0;
    for (const auto& entry : paths) {
      total += static_cast<int64_t>(entry[p].size());
      max_len = std::max<int64_t>(max_len, entry[p].size());
    }
    Tensor *indices, *values, *shape;
    TW_RETURN_IF_ERROR(
        ctx->allocate_output(p, TensorShape({total, 2}), &indices));
    TW_RETURN_IF_ERROR(
        ctx->allocate_output(num_paths + p, TensorShape({total}), &values));
    TW_RETURN_IF_ERROR(
        ctx->allocate_output(2 * num_paths + p, TensorShape({2}), &shape));
    int64_t* io = indices->data<int64_t>();
    int64_t* vo = values->data<int64_t>();
    int64_t offset = 0;
    for (int64_t b = 0; b < batch; ++b) {
      const std::vector<int>& seq = paths[b][p];
      for (size_t t = 0; t < seq.size(); ++t, ++offset) {
        io[2 * offset] = b;
        io[2 * offset + 1] = static_cast<int64_t>(t);
        vo[offset] = seq[t];
      }
    }
    shape->data<int64_t>()[0] = batch;
    shape->data<int64_t>()[1] = max_len;
  }
  return Status::OK();
}

class CTCGreedyDecoderOp : public OpKernel {
 public:
  explicit CTCGreedyDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("merge_repeated", &merge_repeated_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("blank_index", &blank_index_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateDecoderInputs(inputs, seq_len));
    const int64_t batch = inputs.dim(1), num_classes = inputs.dim(2);
    const int64_t blank =
        blank_index_ < 0 ? num_classes + blank_index_ : blank_index_;
    OP_REQUIRES(
        ctx, blank >= 0 && blank < num_classes,
        errors::InvalidArgument("blank_index expected to be between ",
                                -num_classes, " and ", num_classes - 1));
    Tensor* log_prob;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(3, TensorShape({batch, 1}), &log_prob));
    const int32_t* len = seq_len.data<int32_t>();
    std::vector<std::vector<std::vector<int>>> paths(
        batch, std::vector<std::vector<int>>(1));
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double>(inputs.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* x = inputs.data<T>();
          T* lp = log_prob->data<T>();
          for (int64_t b = 0; b < batch; ++b) {
            lp[b] = T(0);
            std::vector<int>& seq = paths[b][0];
            int64_t prev = -1;
            for (int64_t t = 0; t < len[b]; ++t) {
              const T* row = x + (t * batch + b) * num_classes;
              int64_t best = 0;
              for (int64_t c = 1; c < num_classes; ++c) {
                if (row[c] > row[best]) best = c;
              }
              lp[b] += -row[best];
              if (best != blank && !(merge_repeated_ && best == prev)) {
                seq.push_back(static_cast<int>(best));
              }
              prev = best;
            }
          }
          return Status::OK();
        }));
    OP_REQUIRES_OK(ctx, StoreDecoded(ctx, paths, 1));
  }

 private:
  bool merge_repeated_ = false;
  int64_t blank_index_ = -1;
};

// TF's CTCBeamSearchDecoder (ctc_beam_search.h) with its default scorer:
// a tree of prefixes, each with the log probability of ending in a blank
// and in its last label; the beam keeps the beam_width best by total.
template <typename T>
class PrefixBeamSearch {
 public:
  PrefixBeamSearch(int num_classes, int64_t beam_width)
      : num_classes_(num_classes),
        blank_(num_classes - 1),
        beam_width_(beam_width) {}

  void Reset() {
    nodes_.clear();
    children_.clear();
    leaves_.clear();
    Node root;
    root.newp.total = 0;
    root.newp.blank = 0;
    nodes_.push_back(root);
    leaves_.push_back(0);
  }

  Status Step(const T* x) {
    const T m = *std::max_element(x, x + num_classes_);
    T sum = T(0);
    for (int c = 0; c < num_classes_; ++c) sum += std::exp(x[c] - m);
    const T norm = m + std::log(sum);
    std::vector<int32_t> branches = SortedLeaves(leaves_);
    leaves_.clear();
    for (int32_t b : branches) nodes_[b].oldp = nodes_[b].newp;
    for (int32_t b : branches) {
      Node& n = nodes_[b];
      if (n.parent >= 0) {
        const Node& parent = nodes_[n.parent];
        if (Active(parent)) {
          const T previous =
              n.label == parent.label ? parent.oldp.blank : parent.oldp.total;
          n.newp.label = LogSumExp(n.newp.label, previous);
        }
        n.newp.label += x[n.label] - norm;
      }
      n.newp.blank = n.oldp.total + x[blank_] - norm;
      n.newp.total = LogSumExp(n.newp.blank, n.newp.label);
      leaves_.push_back(b);
    }
    for (int32_t b : branches) {
      if (!IsCandidate(nodes_[b].oldp)) continue;
      for (int c = 0; c < num_classes_; ++c) {
        if (c == blank_) continue;
        const int64_t key = static_cast<int64_t>(b) * num_classes_ + c;
        auto it = children_.find(key);
        if (it != children_.end() && Active(nodes_[it->second])) continue;
        const Node& parent = nodes_[b];
        Prob p;
        const T previous =
            c == parent.label ? parent.oldp.blank : parent.oldp.total;
        p.label = x[c] - norm + previous;
        p.total = p.label;
        if (IsCandidate(p)) {
          if (static_cast<int64_t>(leaves_.size()) == beam_width_) {
            auto bottom = BottomLeaf();
            nodes_[*bottom].newp = Prob();
            leaves_.erase(bottom);
          }
          int32_t child;
          if (it != children_.end()) {
            child = it->second;
          } else {
            if (nodes_.size() >= kMaxBeamNodes) {
              return errors::ResourceExhausted(
                  "CTCBeamSearchDecoder: the search would hold more than ",
                  kMaxBeamNodes, " prefixes");
            }
            child = static_cast<int32_t>(nodes_.size());
            Node fresh;
            fresh.parent = b;
            fresh.label = c;
            nodes_.push_back(fresh);
            children_.emplace(key, child);
          }
          nodes_[child].newp = p;
          leaves_.push_back(child);
        } else if (it != children_.end()) {
          nodes_[it->second].oldp = Prob();
          nodes_[it->second].newp = Prob();
        }
      }
    }
    return Status::OK();
  }

  Status TopPaths(int n, bool merge_repeated,
                  std::vector<std::vector<int>>* paths,
                  std::vector<T>* log_probs) const {
    if (n > beam_width_) {
      return errors::InvalidArgument(
          "requested more paths than the beam width.");
    }
    if (n > static_cast<int64_t>(leaves_.size())) {
      return errors::InvalidArgument(
          "Less leaves in the beam search than requested.");
    }
    std::vector<int32_t> sorted = SortedLeaves(leaves_);
    paths->assign(n, {});
    log_probs->assign(n, T(0));
    for (int i = 0; i < n; ++i) {
      std::vector<int>& seq = (*paths)[i];
      int prev = -1;
      for (int32_t c = sorted[i]; nodes_[c].parent >= 0; c = nodes_[c].parent) {
        if (!merge_repeated || nodes_[c].label != prev) {
          seq.push_back(nodes_[c].label);
        }
        prev = nodes_[c].label;
      }
      std::reverse(seq.begin(), seq.end());
      (*log_probs)[i] = nodes_[sorted[i]].newp.total;
    }
    return Status::OK();
  }

 private:
  struct Prob {
    T total = kLogZero<T>;
    T blank = kLogZero<T>;
    T label = kLogZero<T>;
  };
  struct Node {
    int32_t parent = -1;
    int label = -1;
    Prob oldp, newp;
  };

  static bool Active(const Node& n) { return n.newp.total != kLogZero<T>; }

  std::vector<int32_t> SortedLeaves(const std::vector<int32_t>& leaves) const {
    std::vector<int32_t> out = leaves;
    std::stable_sort(out.begin(), out.end(), [&](int32_t a, int32_t b) {
      return nodes_[a].newp.total > nodes_[b].newp.total;
    });
    return out;
  }

  std::vector<int32_t>::iterator BottomLeaf() {
    return std::min_element(
        leaves_.begin(), leaves_.end(), [&](int32_t a, int32_t b) {
          return nodes_[a].newp.total < nodes_[b].newp.total;
        });
  }

  bool IsCandidate(const Prob& p) {
    return p.total > kLogZero<T> &&
           (static_cast<int64_t>(leaves_.size()) < beam_width_ ||
            p.total > nodes_[*BottomLeaf()].newp.total);
  }

  const int num_classes_;
  const int blank_;
  const int64_t beam_width_;
  std::vector<Node> nodes_;
  std::unordered_map<int64_t, int32_t> children_;  // parent * C + label
  std::vector<int32_t> leaves_;
};

class CTCBeamSearchDecoderOp : public OpKernel {
 public:
  explicit CTCBeamSearchDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("merge_repeated", &merge_repeated_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("beam_width", &beam_width_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("top_paths", &top_paths_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    OP_REQUIRES_OK(ctx, ValidateDecoderInputs(inputs, seq_len));
    OP_REQUIRES(
        ctx, beam_width_ >= 1 && top_paths_ >= 1,
        errors::InvalidArgument("beam_width and top_paths must be >= 1, got ",
                                beam_width_, " and ", top_paths_));
    OP_REQUIRES(
        ctx, top_paths_ <= beam_width_,
        errors::InvalidArgument("requested more paths than the beam width."));
    OP_REQUIRES(
        ctx, top_paths_ <= (int64_t{1} << 20),
        errors::InvalidArgument("top_paths must be <= 2^20, got ", top_paths_));
    const int64_t batch = inputs.dim(1), num_classes = inputs.dim(2);
    OP_REQUIRES(ctx, num_classes > 0,
                errors::InvalidArgument(
                    "num_classes (the last dimension of inputs) must be at "
                    "least 1 (the blank)"));
    const int paths_n = static_cast<int>(top_paths_);
    Tensor* log_prob;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(3 * paths_n, TensorShape({batch, top_paths_}),
                                  &log_prob));
    const int32_t* len = seq_len.data<int32_t>();
    std::vector<std::vector<std::vector<int>>> paths(batch);
    OP_REQUIRES_OK(ctx,
                   DispatchType<float, double>(inputs.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     const T* x = inputs.data<T>();
                     T* lp = log_prob->data<T>();
                     PrefixBeamSearch<T> search(static_cast<int>(num_classes),
                                                beam_width_);
                     std::vector<T> log_probs;
                     for (int64_t b = 0; b < batch; ++b) {
                       search.Reset();
                       for (int64_t t = 0; t < len[b]; ++t) {
                         TW_RETURN_IF_ERROR(
                             search.Step(x + (t * batch + b) * num_classes));
                       }
                       TW_RETURN_IF_ERROR(search.TopPaths(
                           paths_n, merge_repeated_, &paths[b], &log_probs));
                       for (int p = 0; p < paths_n; ++p) {
                         lp[b * paths_n + p] = log_probs[p];
                       }
                     }
                     return Status::OK();
                   }));
    OP_REQUIRES_OK(ctx, StoreDecoded(ctx, paths, paths_n));
  }

 private:
  bool merge_repeated_ = true;
  int64_t beam_width_ = 1;
  int64_t top_paths_ = 1;
};

REGISTER_KERNEL(KernelDef("CTCLoss"), CTCLossOp);
REGISTER_KERNEL(KernelDef("CTCGreedyDecoder"), CTCGreedyDecoderOp);
REGISTER_KERNEL(KernelDef("CTCBeamSearchDecoder"), CTCBeamSearchDecoderOp);

}  // namespace
}  // namespace tensorweave
