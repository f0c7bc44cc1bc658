// LRN and LRNGrad: local response normalization across the channels of each
// pixel of an [N,H,W,C] input, as TensorFlow defines it.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

class LrnOpBase : public OpKernel {
 public:
  explicit LrnOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t radius = 5;
    ctx->SetStatus(ctx->GetAttr("depth_radius", &radius));
    ctx->SetStatus(ctx->GetAttr("bias", &bias_));
    ctx->SetStatus(ctx->GetAttr("alpha", &alpha_));
    ctx->SetStatus(ctx->GetAttr("beta", &beta_));
    if (ctx->status().ok() && (radius < 0 || radius > (1 << 30))) {
      ctx->SetStatus(errors::InvalidArgument(
          "depth_radius must be in [0, 2^30], got ", radius));
    }
    radius_ = radius;
  }

 protected:
  Status CheckInput(const Tensor& t, const char* what) const {
    if (t.rank() != 4) {
      return errors::InvalidArgument(what, " must be 4-D [N,H,W,C], got ",
                                     t.shape().ToString());
    }
    return Status::OK();
  }

  // norm[c] = bias + alpha * (sum of x^2 over channels [c - r, c + r]) for
  // one pixel of `depth` channels.
  template <typename T>
  void Norms(const T* x, int64_t depth, std::vector<double>* norm) const {
    norm->assign(depth, 0.0);
    for (int64_t c = 0; c < depth; ++c) {
      const int64_t lo = std::max<int64_t>(0, c - radius_);
      const int64_t hi = std::min<int64_t>(depth - 1, c + radius_);
      double sum = 0.0;
      for (int64_t j = lo; j <= hi; ++j) sum += double(x[j]) * x[j];
      (*norm)[c] = bias_ + alpha_ * sum;
    }
  }

  int64_t radius_ = 5;
  float bias_ = 1.0f, alpha_ = 1.0f, beta_ = 0.5f;
};

class LrnOp : public LrnOpBase {
 public:
  using LrnOpBase::LrnOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES_OK(ctx, CheckInput(input, "input"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input.shape(), &out));
    const int64_t depth = input.dim(3);
    const int64_t pixels = depth == 0 ? 0 : input.num_elements() / depth;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(input.dtype(), [&](auto t) {
          using T = decltype(t);
          std::vector<double> norm;
          for (int64_t p = 0; p < pixels; ++p) {
            const T* x = input.data<T>() + p * depth;
            T* y = out->data<T>() + p * depth;
            Norms(x, depth, &norm);
            for (int64_t c = 0; c < depth; ++c) {
              y[c] = static_cast<T>(x[c] * std::pow(norm[c], -double(beta_)));
            }
          }
          return Status::OK();
        }));
  }
};

// With N_i = bias + alpha * sum_{j in W(i)} x_j^2 and y_i = x_i N_i^-beta:
// dx_j = g_j N_j^-beta - 2 alpha beta x_j sum_{i in W(j)} g_i x_i
// N_i^(-beta-1).
class LrnGradOp : public LrnOpBase {
 public:
  using LrnOpBase::LrnOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grads = ctx->input(0);
    const Tensor& image = ctx->input(1);
    const Tensor& output = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckInput(grads, "input_grads"));
    OP_REQUIRES(
        ctx, grads.shape() == image.shape() && grads.shape() == output.shape(),
        errors::InvalidArgument(
            "input_grads, input_image and output_image must have one "
            "shape, got ",
            grads.shape().ToString(), ", ", image.shape().ToString(), " and ",
            output.shape().ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, image.shape(), &out));
    const int64_t depth = image.dim(3);
    const int64_t pixels = depth == 0 ? 0 : image.num_elements() / depth;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(image.dtype(), [&](auto t) {
          using T = decltype(t);
          std::vector<double> norm, weighted(depth);
          for (int64_t p = 0; p < pixels; ++p) {
            const T* x = image.data<T>() + p * depth;
            const T* g = grads.data<T>() + p * depth;
            T* dx = out->data<T>() + p * depth;
            Norms(x, depth, &norm);
            for (int64_t i = 0; i < depth; ++i) {
              weighted[i] =
                  double(g[i]) * x[i] * std::pow(norm[i], -double(beta_) - 1);
            }
            for (int64_t j = 0; j < depth; ++j) {
              const int64_t lo = std::max<int64_t>(0, j - radius_);
              const int64_t hi = std::min<int64_t>(depth - 1, j + radius_);
              double sum = 0.0;
              for (int64_t i = lo; i <= hi; ++i) sum += weighted[i];
              dx[j] = static_cast<T>(g[j] * std::pow(norm[j], -double(beta_)) -
                                     2.0 * alpha_ * beta_ * x[j] * sum);
            }
          }
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("LRN"), LrnOp);
REGISTER_KERNEL(KernelDef("LRNGrad"), LrnGradOp);

}  // namespace
}  // namespace tensorweave
