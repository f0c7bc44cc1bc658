// FractionalMaxPool, FractionalAvgPool and their gradients. The pooling
// sequences follow TensorFlow's GeneratePoolingSequence (fractional_pool_
// common.cc): pseudo-random a_i = ceil(alpha * (i + u)) with u drawn below
// min(u_max1, u_max2) so that every step is floor(alpha) or ceil(alpha), or
// random: the (in % out) long steps shuffled among the short ones. The random
// bits are this project's Philox, so the sequences of a given seed differ
// from TensorFlow's; their distribution is the same.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/random_ops.h"
#include "core/kernels/wrapping_arithmetic.h"

namespace tensorweave {
namespace {

// 32-bit words of a Philox stream, one at a time.
class Words {
 public:
  explicit Words(Philox gen) : gen_(gen) {}
  uint32_t Next() {
    if (used_ == 4) {
      block_ = gen_.Next();
      used_ = 0;
    }
    return block_[used_++];
  }
  // Uniform in [0, 1) with 53 random bits.
  double Double() {
    const uint64_t bits = (static_cast<uint64_t>(Next()) << 32) | Next();
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
  }

 private:
  Philox gen_;
  Philox::Block block_{};
  int used_ = 4;
};

// The steps of a pseudo-random sequence (Graham's a_i = ceil(alpha * (i +
// u)), from a_0 = 1 to a_out = in + 1) for one uniform u below
// min(u_max1, u_max2): u_max1 keeps the first step <= k + 1, u_max2 the last
// >= k. False in the rare case (u within rounding of 0 or of its bound) where
// a step falls outside [k, k + 1].
bool PseudoRandomSteps(int64_t in, int64_t out, Words* words,
                       std::vector<int64_t>* diff) {
  const int64_t k = in / out;
  const double alpha = static_cast<double>(in) / out;
  const double u_max1 = (k + 2) / alpha - 1;
  const double u_max2 = (in + 1 - k) / alpha - (out - 1);
  const double u = words->Double() * std::min(u_max1, u_max2);
  int64_t previous = 1;
  for (int64_t i = 1; i <= out; ++i) {
    const int64_t a =
        i == out ? in + 1 : static_cast<int64_t>(std::ceil(alpha * (i + u)));
    (*diff)[i - 1] = a - previous;
    if (a - previous < k || a - previous > k + 1) return false;
    previous = a;
  }
  return true;
}

// The cumulative pooling sequence of out + 1 boundaries from 0 to in
// (1 <= out <= in): steps of k = in / out or k + 1.
std::vector<int64_t> PoolingSequence(int64_t in, int64_t out,
                                     bool pseudo_random, Words* words) {
  std::vector<int64_t> diff(out);
  bool done = false;
  for (int attempt = 0; pseudo_random && !done && attempt < 4; ++attempt) {
    done = PseudoRandomSteps(in, out, words, &diff);
  }
  if (!done) {  // random: the (in % out) long steps shuffled among the others
    for (int64_t i = 0; i < out; ++i) diff[i] = in / out + (i < in % out);
    for (int64_t i = 0; i + 1 < out; ++i) {  // Fisher-Yates
      std::swap(diff[i], diff[i + words->Next() % (out - i)]);
    }
  }
  std::vector<int64_t> seq(out + 1, 0);
  for (int64_t i = 0; i < out; ++i) seq[i + 1] = seq[i] + diff[i];
  return seq;
}

// Whether seq rises strictly from 0 to `in` (as generated sequences must).
bool IsPartition(const std::vector<int64_t>& seq, int64_t in) {
  for (size_t i = 0; i + 1 < seq.size(); ++i) {
    if (seq[i + 1] <= seq[i]) return false;
  }
  return seq.front() == 0 && seq.back() == in;
}

// The inclusive [first, last] rows (or columns) of each pooling region.
struct Regions {
  std::vector<int64_t> first, last;
  int64_t size() const { return static_cast<int64_t>(first.size()); }
};

Regions MakeRegions(const std::vector<int64_t>& seq, int64_t limit,
                    bool overlapping) {
  Regions r;
  for (size_t i = 0; i + 1 < seq.size(); ++i) {
    r.first.push_back(seq[i]);
    r.last.push_back(
        std::min(overlapping ? seq[i + 1] : seq[i + 1] - 1, limit - 1));
  }
  return r;
}

// A pooling sequence given to a gradient: `cells` + 1 values, increasing,
// each region starting inside the `limit` rows (columns) of the input.
Status ReadSequence(const Tensor& t, const char* name, int64_t cells,
                    int64_t limit, std::vector<int64_t>* seq) {
  if (t.rank() != 1) {
    return errors::InvalidArgument(name, " must be a vector, got shape ",
                                   t.shape().ToString());
  }
  if (t.dim(0) != cells + 1) {
    return errors::InvalidArgument(name, " must have ", cells + 1,
                                   " elements (one more than out_backprop's ",
                                   cells, " cells), got ", t.dim(0));
  }
  const int64_t* v = t.data<int64_t>();
  seq->assign(v, v + t.dim(0));
  for (int64_t i = 0; i < cells; ++i) {
    if (v[i] < 0 || v[i] >= limit || v[i + 1] <= v[i]) {
      return errors::InvalidArgument(
          name, " must increase, each region starting inside the input's ",
          limit, " positions; got ", v[i], " then ", v[i + 1], " at index ", i);
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// FractionalMaxPool and FractionalAvgPool.

template <bool kMax>
class FractionalPoolOp : public OpKernel {
 public:
  explicit FractionalPoolOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("pooling_ratio", &ratio_));
    ctx->SetStatus(ctx->GetAttr("pseudo_random", &pseudo_random_));
    ctx->SetStatus(ctx->GetAttr("overlapping", &overlapping_));
    ctx->SetStatus(ctx->GetAttr("deterministic", &deterministic_));
    ctx->SetStatus(ctx->GetAttr("seed", &seed_));
    ctx->SetStatus(ctx->GetAttr("seed2", &seed2_));
    if (!ctx->status().ok()) return;
    if (ratio_.size() != 4) {
      ctx->SetStatus(errors::InvalidArgument(
          "pooling_ratio field must specify 4 dimensions, got ",
          ratio_.size()));
      return;
    }
    for (float r : ratio_) {
      if (!(r >= 1.0f)) {
        ctx->SetStatus(errors::InvalidArgument(
            "pooling_ratio cannot be smaller than 1, got: ", r));
        return;
      }
    }
    if (ratio_[0] != 1.0f || ratio_[3] != 1.0f) {
      ctx->SetStatus(errors::Unimplemented(
          "Fractional ", kMax ? "max" : "average",
          " pooling is not yet supported on the batch nor channel "
          "dimension."));
      return;
    }
    if (deterministic_) {
      if (seed_ == 0 && seed2_ == 0) {  // fixed for this kernel's lifetime
        std::random_device device;
        seed_ = (static_cast<int64_t>(device()) << 32) | device();
        seed2_ = (static_cast<int64_t>(device()) << 32) | device();
      }
    } else if (seed_ != 0 || seed2_ != 0) {
      ctx->SetStatus(errors::InvalidArgument(
          "Both seed and seed2 should be 0 if deterministic is false."));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.rank() == 4,
                errors::InvalidArgument("tensor_in must be 4-dimensional, got "
                                        "shape ",
                                        input.shape().ToString()));
    std::vector<int64_t> out_dims(4);
    for (int i = 0; i < 4; ++i) {
      out_dims[i] = static_cast<int64_t>(
          std::floor(static_cast<float>(input.dim(i)) / ratio_[i]));
      OP_REQUIRES(ctx, out_dims[i] > 0,
                  errors::InvalidArgument(
                      "Pooling ratio is higher than input dimension size for "
                      "dimension ",
                      i, ". Input dim size: ", input.dim(i),
                      " pooling ratio: ", ratio_[i]));
    }
    // Batch and depth are not pooled; float rounding of a dimension past
    // 2^24 must not put an output dimension above its input's.
    out_dims[0] = input.dim(0);
    out_dims[3] = input.dim(3);
    for (int i = 1; i <= 2; ++i) {
      out_dims[i] = std::min(out_dims[i], input.dim(i));
    }
    uint64_t seed = static_cast<uint64_t>(seed_);
    uint64_t seed2 = static_cast<uint64_t>(seed2_);
    if (!deterministic_) {
      std::random_device device;
      seed = (static_cast<uint64_t>(device()) << 32) | device();
      seed2 = (static_cast<uint64_t>(device()) << 32) | device();
    }
    Words words(Philox(seed, seed2));
    const std::vector<int64_t> rows =
        PoolingSequence(input.dim(1), out_dims[1], pseudo_random_, &words);
    const std::vector<int64_t> cols =
        PoolingSequence(input.dim(2), out_dims[2], pseudo_random_, &words);
    OP_REQUIRES(
        ctx, IsPartition(rows, input.dim(1)) && IsPartition(cols, input.dim(2)),
        errors::Internal("a pooling sequence does not partition the "
                         "input's rows or columns"));

    Tensor *out, *row_seq, *col_seq;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            1, TensorShape({static_cast<int64_t>(rows.size())}),
                            &row_seq));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            2, TensorShape({static_cast<int64_t>(cols.size())}),
                            &col_seq));
    std::copy(rows.begin(), rows.end(), row_seq->data<int64_t>());
    std::copy(cols.begin(), cols.end(), col_seq->data<int64_t>());
    const Regions rr = MakeRegions(rows, input.dim(1), overlapping_);
    const Regions cr = MakeRegions(cols, input.dim(2), overlapping_);
    OP_REQUIRES_OK(ctx, DispatchType<float, double, int32_t, int64_t>(
                            input.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              Pool<T>(input, rr, cr, out->data<T>());
                              return Status::OK();
                            }));
  }

 private:
  template <typename T>
  static void Pool(const Tensor& input, const Regions& rr, const Regions& cr,
                   T* out) {
    const int64_t in_rows = input.dim(1), in_cols = input.dim(2);
    const int64_t depth = input.dim(3);
    const T* x = input.data<T>();
    for (int64_t b = 0; b < input.dim(0); ++b) {
      for (int64_t i = 0; i < rr.size(); ++i) {
        for (int64_t j = 0; j < cr.size(); ++j) {
          T* o = out + ((b * rr.size() + i) * cr.size() + j) * depth;
          std::fill(o, o + depth,
                    kMax ? std::numeric_limits<T>::lowest() : T(0));
          for (int64_t y = rr.first[i]; y <= rr.last[i]; ++y) {
            for (int64_t q = cr.first[j]; q <= cr.last[j]; ++q) {
              const T* v = x + ((b * in_rows + y) * in_cols + q) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                o[c] = kMax ? std::max(o[c], v[c]) : WrappingAdd(o[c], v[c]);
              }
            }
          }
          if (!kMax) {
            const T count = static_cast<T>((rr.last[i] - rr.first[i] + 1) *
                                           (cr.last[j] - cr.first[j] + 1));
            for (int64_t c = 0; c < depth; ++c) o[c] /= count;
          }
        }
      }
    }
  }

  std::vector<float> ratio_;
  bool pseudo_random_ = false, overlapping_ = false, deterministic_ = false;
  int64_t seed_ = 0, seed2_ = 0;
};

// ---------------------------------------------------------------------------
// The gradients.

// The regions of a gradient's sequences (inputs `row` and `col`) over an
// input of `in_rows` x `in_cols`, for an out_backprop of `grad_shape`.
Status GradRegions(OpKernelContext* ctx, int row, const TensorShape& grad_shape,
                   int64_t in_rows, int64_t in_cols, bool overlapping,
                   Regions* rr, Regions* cr) {
  std::vector<int64_t> rows, cols;
  TW_RETURN_IF_ERROR(ReadSequence(ctx->input(row), "row_pooling_sequence",
                                  grad_shape.dim(1), in_rows, &rows));
  TW_RETURN_IF_ERROR(ReadSequence(ctx->input(row + 1), "col_pooling_sequence",
                                  grad_shape.dim(2), in_cols, &cols));
  *rr = MakeRegions(rows, in_rows, overlapping);
  *cr = MakeRegions(cols, in_cols, overlapping);
  return Status::OK();
}

Status CheckGradShapes(const TensorShape& in, const TensorShape& grad) {
  if (in.rank() != 4 || grad.rank() != 4) {
    return errors::InvalidArgument(
        "the input and out_backprop must be 4-D [N,H,W,C], got ", in.ToString(),
        " and ", grad.ToString());
  }
  if (in.dim(0) != grad.dim(0) || in.dim(3) != grad.dim(3)) {
    return errors::InvalidArgument(
        "out_backprop ", grad.ToString(),
        " must have the batch and depth of the input ", in.ToString());
  }
  return Status::OK();
}

class FractionalMaxPoolGradOp : public OpKernel {
 public:
  explicit FractionalMaxPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("overlapping", &overlapping_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& grad = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckGradShapes(input.shape(), grad.shape()));
    OP_REQUIRES(ctx, ctx->input(1).shape() == grad.shape(),
                errors::InvalidArgument(
                    "orig_output ", ctx->input(1).shape().ToString(),
                    " and out_backprop ", grad.shape().ToString(),
                    " must have the same shape"));
    Regions rr, cr;
    OP_REQUIRES_OK(ctx, GradRegions(ctx, 3, grad.shape(), input.dim(1),
                                    input.dim(2), overlapping_, &rr, &cr));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<float, double, int32_t, int64_t>(
                            input.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              Route<T>(input, grad.data<T>(), rr, cr,
                                       out->data<T>());
                              return Status::OK();
                            }));
  }

 private:
  // Each gradient goes to the first maximum of its region (row-major scan).
  template <typename T>
  static void Route(const Tensor& input, const T* grad, const Regions& rr,
                    const Regions& cr, T* out) {
    const int64_t in_rows = input.dim(1), in_cols = input.dim(2);
    const int64_t depth = input.dim(3);
    const T* x = input.data<T>();
    std::fill(out, out + input.num_elements(), T(0));
    std::vector<int64_t> best(depth);
    for (int64_t b = 0; b < input.dim(0); ++b) {
      for (int64_t i = 0; i < rr.size(); ++i) {
        for (int64_t j = 0; j < cr.size(); ++j) {
          std::fill(best.begin(), best.end(), -1);
          for (int64_t y = rr.first[i]; y <= rr.last[i]; ++y) {
            for (int64_t q = cr.first[j]; q <= cr.last[j]; ++q) {
              const int64_t at = ((b * in_rows + y) * in_cols + q) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                if (best[c] < 0 || x[best[c]] < x[at + c]) best[c] = at + c;
              }
            }
          }
          const T* g = grad + ((b * rr.size() + i) * cr.size() + j) * depth;
          for (int64_t c = 0; c < depth; ++c) {
            out[best[c]] = WrappingAdd(out[best[c]], g[c]);
          }
        }
      }
    }
  }

  bool overlapping_ = false;
};

// double -> T; integers saturate (NaN is 0) instead of overflowing.
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(v)) return T(0);
    if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
  }
  return static_cast<T>(v);
}

class FractionalAvgPoolGradOp : public OpKernel {
 public:
  explicit FractionalAvgPoolGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("overlapping", &overlapping_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    OP_REQUIRES(ctx, shape_t.rank() == 1 && shape_t.num_elements() == 4,
                errors::InvalidArgument(
                    "original input tensor shape must be 1-dimensional and 4 "
                    "elements, got shape ",
                    shape_t.shape().ToString()));
    const int64_t* d = shape_t.data<int64_t>();
    TensorShape in_shape;
    OP_REQUIRES_OK(ctx,
                   TensorShape::Build({d[0], d[1], d[2], d[3]}, &in_shape));
    OP_REQUIRES_OK(ctx, CheckGradShapes(in_shape, grad.shape()));
    Regions rr, cr;
    OP_REQUIRES_OK(ctx, GradRegions(ctx, 2, grad.shape(), in_shape.dim(1),
                                    in_shape.dim(2), overlapping_, &rr, &cr));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in_shape, &out));
    OP_REQUIRES_OK(ctx, DispatchType<float, double, int32_t, int64_t>(
                            grad.dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              Spread<T>(in_shape, grad.data<T>(), rr, cr,
                                        out->data<T>());
                              return Status::OK();
                            }));
  }

 private:
  // Each gradient divided evenly over its region, summed in double.
  template <typename T>
  static void Spread(const TensorShape& in, const T* grad, const Regions& rr,
                     const Regions& cr, T* out) {
    const int64_t in_rows = in.dim(1), in_cols = in.dim(2);
    const int64_t depth = in.dim(3);
    std::vector<double> sum(in.num_elements(), 0.0);
    for (int64_t b = 0; b < in.dim(0); ++b) {
      for (int64_t i = 0; i < rr.size(); ++i) {
        for (int64_t j = 0; j < cr.size(); ++j) {
          const double count = static_cast<double>(
              (rr.last[i] - rr.first[i] + 1) * (cr.last[j] - cr.first[j] + 1));
          const T* g = grad + ((b * rr.size() + i) * cr.size() + j) * depth;
          for (int64_t y = rr.first[i]; y <= rr.last[i]; ++y) {
            for (int64_t q = cr.first[j]; q <= cr.last[j]; ++q) {
              double* s =
                  sum.data() + ((b * in_rows + y) * in_cols + q) * depth;
              for (int64_t c = 0; c < depth; ++c) {
                s[c] += static_cast<double>(g[c]) / count;
              }
            }
          }
        }
      }
    }
    for (size_t k = 0; k < sum.size(); ++k) out[k] = FromDouble<T>(sum[k]);
  }

  bool overlapping_ = false;
};

REGISTER_KERNEL(KernelDef("FractionalMaxPool"), FractionalPoolOp<true>);
REGISTER_KERNEL(KernelDef("FractionalAvgPool"), FractionalPoolOp<false>);
REGISTER_KERNEL(KernelDef("FractionalMaxPoolGrad"), FractionalMaxPoolGradOp);
REGISTER_KERNEL(KernelDef("FractionalAvgPoolGrad"), FractionalAvgPoolGradOp);

}  // namespace
}  // namespace tensorweave
