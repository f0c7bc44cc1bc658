// EditDistance kernel: the Levenshtein distance between the sequences (the
// last dimension) of two sparse tensors whose indices are in row-major
// order, one distance per position of the leading dimensions.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// The edit distance between s and t (insertions, deletions, substitutions
// of cost 1), in O(|t|) memory.
template <typename T>
int64_t Levenshtein(const T* s, int64_t s_size, const T* t, int64_t t_size) {
  if (t_size > s_size) return Levenshtein(t, t_size, s, s_size);
  if (t_size == 0) return s_size;
  std::vector<int64_t> row(t_size);
  for (int64_t j = 0; j < t_size; ++j) row[j] = j + 1;
  for (int64_t i = 1; i <= s_size; ++i) {
    int64_t diagonal = i - 1;  // cost(i - 1, j - 1)
    int64_t left = i;          // cost(i, j - 1)
    for (int64_t j = 1; j <= t_size; ++j) {
      const int64_t substitution = diagonal + (s[i - 1] == t[j - 1] ? 0 : 1);
      const int64_t cheapest =
          std::min({row[j - 1] + 1, left + 1, substitution});
      diagonal = row[j - 1];
      row[j - 1] = cheapest;
      left = cheapest;
    }
  }
  return row[t_size - 1];
}

// One sparse operand: validated shapes, and the runs of rows that share
// their leading (group) coordinates.
struct SparseSequences {
  const int64_t* indices = nullptr;
  int64_t rows = 0;
  int64_t rank = 0;
  std::vector<int64_t> dense_shape;
  // [begin, end) row ranges of consecutive rows with equal group keys.
  std::vector<std::pair<int64_t, int64_t>> groups;

  bool SameGroup(int64_t a, int64_t b) const {
    return std::equal(indices + a * rank, indices + a * rank + rank - 1,
                      indices + b * rank);
  }
  const int64_t* Key(int64_t group) const {
    return indices + groups[group].first * rank;
  }
};

Status ReadSparse(const char* name, const Tensor& indices, const Tensor& values,
                  const Tensor& shape, SparseSequences* out) {
  if (indices.rank() != 2) {
    return errors::InvalidArgument(name,
                                   "_indices should be a matrix, but "
                                   "got shape: ",
                                   indices.shape().ToString());
  }
  if (values.rank() != 1) {
    return errors::InvalidArgument(name,
                                   "_values should be a vector, but got "
                                   "shape: ",
                                   values.shape().ToString());
  }
  if (shape.rank() != 1) {
    return errors::InvalidArgument(name,
                                   "_shape should be a vector, but got "
                                   "shape: ",
                                   shape.shape().ToString());
  }
  if (values.num_elements() != indices.dim(0)) {
    return errors::InvalidArgument(
        "Expected ", name, "_values.NumElements == #rows(", name,
        "_indices), their shapes are: ", values.shape().ToString(), " and ",
        indices.shape().ToString());
  }
  if (shape.num_elements() != indices.dim(1)) {
    return errors::InvalidArgument(
        "Expected ", name, "_shape.NumElements == #cols(", name,
        "_indices), their shapes are: ", shape.shape().ToString(), " and ",
        indices.shape().ToString());
  }
  out->indices = indices.data<int64_t>();
  out->rows = indices.dim(0);
  out->rank = indices.dim(1);
  const int64_t* dims = shape.data<int64_t>();
  out->dense_shape.assign(dims, dims + shape.num_elements());
  int64_t elements = 1;
  for (int64_t d : out->dense_shape) {
    if (d < 0) {
      return errors::InvalidArgument("Dimension ", d, " must be >= 0 (", name,
                                     "_shape)");
    }
    if (d != 0 && elements > std::numeric_limits<int64_t>::max() / d) {
      return errors::InvalidArgument(name, "_shape ", shape.DebugString(),
                                     " has more than 2**63 - 1 elements");
    }
    elements *= d;
  }
  return Status::OK();
}

void Group(SparseSequences* sp) {
  sp->groups.clear();
  for (int64_t r = 0; r < sp->rows; ++r) {
    if (r == 0 || !sp->SameGroup(r - 1, r)) {
      sp->groups.push_back({r, r + 1});
    } else {
      sp->groups.back().second = r + 1;
    }
  }
}

class EditDistanceOp : public OpKernel {
 public:
  explicit EditDistanceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("normalize", &normalize_));
  }

  void Compute(OpKernelContext* ctx) override {
    SparseSequences hyp, truth;
    OP_REQUIRES_OK(ctx, ReadSparse("hypothesis", ctx->input(0), ctx->input(1),
                                   ctx->input(2), &hyp));
    OP_REQUIRES_OK(ctx, ReadSparse("truth", ctx->input(3), ctx->input(4),
                                   ctx->input(5), &truth));
    OP_REQUIRES(ctx, truth.dense_shape.size() >= 2,
                errors::InvalidArgument(
                    "Input SparseTensors must have rank at least 2, but "
                    "truth_shape rank is: ",
                    truth.dense_shape.size()));
    OP_REQUIRES(ctx, truth.dense_shape.size() == hyp.dense_shape.size(),
                errors::InvalidArgument(
                    "Expected truth and hypothesis to have matching ranks, "
                    "but their shapes are: ",
                    ctx->input(5).shape().ToString(), " and ",
                    ctx->input(2).shape().ToString()));
    OP_REQUIRES(ctx, ctx->input(1).dtype() == ctx->input(4).dtype(),
                errors::InvalidArgument(
                    "hypothesis_values and truth_values must have one dtype"));
    const size_t out_rank = truth.dense_shape.size() - 1;
    std::vector<int64_t> out_dims(out_rank);
    for (size_t d = 0; d < out_rank; ++d) {
      out_dims[d] = std::max(hyp.dense_shape[d], truth.dense_shape[d]);
    }
    Tensor* output;
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(0, TensorShape(out_dims), &output));
    const int64_t out_elements = output->num_elements();
    OP_REQUIRES(
        ctx, out_elements > 0,
        errors::InvalidArgument("Got output shape ", output->shape().ToString(),
                                " which has 0 elements"));
    float* out = output->data<float>();
    std::fill(out, out + out_elements, 0.0f);
    Group(&hyp);
    Group(&truth);
    // The flat output position of a group key; Internal (as TF) when the
    // key lies outside the output.
    auto location = [&](const int64_t* key, int64_t* loc) -> Status {
      int64_t flat = 0;
      for (size_t d = 0; d < out_rank; ++d) {
        if (key[d] < 0 || key[d] >= out_dims[d]) {
          return errors::Internal(
              "Got an index ", key[d], " in dimension ", d,
              " which would require writing to outside of the buffer for "
              "the output tensor (shape ",
              output->shape().ToString(), ")");
        }
        flat = flat * out_dims[d] + key[d];
      }
      *loc = flat;
      return Status::OK();
    };
    OP_REQUIRES_OK(ctx, DispatchType<TW_POD_TYPES, std::string>(
                            ctx->input(1).dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              const T* hv = ctx->input(1).data<T>();
                              const T* tv = ctx->input(4).data<T>();
                              return Distances<T>(hyp, hv, truth, tv, location,
                                                  out);
                            }));
  }

 private:
  template <typename T, typename Location>
  Status Distances(const SparseSequences& hyp, const T* hv,
                   const SparseSequences& truth, const T* tv,
                   const Location& location, float* out) const {
    const int64_t key_len = truth.rank - 1;
    size_t h = 0, t = 0;
    int64_t loc;
    while (h < hyp.groups.size() || t < truth.groups.size()) {
      int order;  // <0: hypothesis group first (empty truth), >0: truth first
      if (h == hyp.groups.size()) {
        order = 1;
      } else if (t == truth.groups.size()) {
        order = -1;
      } else {
        const int64_t* hk = hyp.Key(h);
        const int64_t* tk = truth.Key(t);
        order = std::lexicographical_compare(hk, hk + key_len, tk, tk + key_len)
                    ? -1
                    : (std::equal(hk, hk + key_len, tk) ? 0 : 1);
      }
      if (order == 0) {
        const auto [hb, he] = hyp.groups[h];
        const auto [tb, te] = truth.groups[t];
        TW_RETURN_IF_ERROR(location(truth.Key(t), &loc));
        out[loc] =
            static_cast<float>(Levenshtein(tv + tb, te - tb, hv + hb, he - hb));
        if (normalize_) out[loc] /= static_cast<float>(te - tb);
        ++h;
        ++t;
      } else if (order < 0) {  // an empty truth
        const auto [hb, he] = hyp.groups[h];
        TW_RETURN_IF_ERROR(location(hyp.Key(h), &loc));
        out[loc] = static_cast<float>(he - hb);
        if (normalize_ && out[loc] != 0.0f) {
          out[loc] = std::numeric_limits<float>::infinity();
        }
        ++h;
      } else {  // an empty hypothesis
        const auto [tb, te] = truth.groups[t];
        TW_RETURN_IF_ERROR(location(truth.Key(t), &loc));
        out[loc] = normalize_ ? 1.0f : static_cast<float>(te - tb);
        ++t;
      }
    }
    return Status::OK();
  }

  bool normalize_ = true;
};

REGISTER_KERNEL(KernelDef("EditDistance"), EditDistanceOp);

}  // namespace
}  // namespace tensorweave
