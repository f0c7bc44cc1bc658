// FusedBatchNorm and FusedBatchNormGrad (NHWC or NCHW): x viewed as
// [outer, C, inner] (NHWC: [N*H*W, C, 1]; NCHW: [N, C, H*W]), the statistics
// per channel. Sums are accumulated in double.
#include <cmath>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/fused_batch_norm.h"

namespace tensorweave {
namespace {

class FusedBatchNormOp : public BatchNormOpBase {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : BatchNormOpBase(ctx) {
    ctx->SetStatus(
        ctx->GetAttr("exponential_avg_factor", &exponential_avg_factor_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    BatchNormLayout layout;
    Tensor* outs[5];
    OP_REQUIRES_OK(ctx, PrepareForward(ctx, &layout, outs));
    const int64_t depth = layout.depth;
    // TF: in training with exponential_avg_factor f != 1, batch_mean and
    // batch_variance are (1 - f) * running + f * batch statistics, the
    // running values being the mean and variance inputs.
    const bool blend = is_training_ && exponential_avg_factor_ != 1.0f;
    if (blend) {
      for (int i = 3; i <= 4; ++i) {
        const Tensor& v = ctx->input(i);
        OP_REQUIRES(ctx, v.rank() == 1 && v.dim(0) == depth,
                    errors::InvalidArgument(
                        i == 3 ? "mean" : "variance", " must have ", depth,
                        " elements (the depth of x) when is_training and "
                        "exponential_avg_factor != 1, got ",
                        v.shape().ToString()));
      }
    }
    const int64_t rows = layout.rows();
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(x.dtype(), [&](auto t) {
          using T = decltype(t);
          const T* xp = x.data<T>();
          std::vector<double> mean(depth), var(depth);
          if (is_training_) {
            std::vector<double> sum(depth, 0.0), sq(depth, 0.0);
            layout.ForEach([&](int64_t i, int64_t c) { sum[c] += xp[i]; });
            for (int64_t c = 0; c < depth; ++c)
              mean[c] = rows ? sum[c] / rows : 0.0;
            layout.ForEach([&](int64_t i, int64_t c) {
              const double d = xp[i] - mean[c];
              sq[c] += d * d;
            });
            for (int64_t c = 0; c < depth; ++c)
              var[c] = rows ? sq[c] / rows : 0.0;
          } else {
            for (int64_t c = 0; c < depth; ++c) {
              mean[c] = ctx->input(3).data<T>()[c];
              var[c] = ctx->input(4).data<T>()[c];
            }
          }
          const T* scale = ctx->input(1).data<T>();
          const T* offset = ctx->input(2).data<T>();
          std::vector<T> a(depth), b(depth);
          for (int64_t c = 0; c < depth; ++c) {
            const double inv = 1.0 / std::sqrt(var[c] + epsilon_);
            a[c] = static_cast<T>(scale[c] * inv);
            b[c] = static_cast<T>(offset[c] - mean[c] * scale[c] * inv);
          }
          T* y = outs[0]->data<T>();
          layout.ForEach(
              [&](int64_t i, int64_t c) { y[i] = xp[i] * a[c] + b[c]; });
          // Bessel's correction for the reported batch variance.
          const double adjust = rows > 1 ? double(rows) / (rows - 1) : 1.0;
          const double f = exponential_avg_factor_;
          for (int64_t c = 0; c < depth; ++c) {
            double out_mean = mean[c];
            double out_var = is_training_ ? var[c] * adjust : var[c];
            if (blend) {
              out_mean =
                  (1.0 - f) * static_cast<double>(ctx->input(3).data<T>()[c]) +
                  f * out_mean;
              out_var =
                  (1.0 - f) * static_cast<double>(ctx->input(4).data<T>()[c]) +
                  f * out_var;
            }
            outs[1]->data<T>()[c] = static_cast<T>(out_mean);
            outs[2]->data<T>()[c] = static_cast<T>(out_var);
            outs[3]->data<T>()[c] = static_cast<T>(mean[c]);
            outs[4]->data<T>()[c] = static_cast<T>(var[c]);
          }
          return Status::OK();
        }));
  }

 private:
  float exponential_avg_factor_ = 1.0f;
};

class FusedBatchNormGradOp : public BatchNormOpBase {
 public:
  using BatchNormOpBase::BatchNormOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    BatchNormLayout layout;
    Tensor* outs[5];
    OP_REQUIRES_OK(ctx, PrepareBackward(ctx, &layout, outs));
    const int64_t depth = layout.depth;
    const int64_t rows = layout.rows();
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(x.dtype(), [&](auto t) {
          using T = decltype(t);
          const T* g = dy.data<T>();
          const T* xp = x.data<T>();
          const T* scale = ctx->input(2).data<T>();
          const T* mean = ctx->input(3).data<T>();
          const T* var = ctx->input(4).data<T>();
          std::vector<double> inv(depth), sum_g(depth, 0.0), sum_gx(depth, 0.0);
          for (int64_t c = 0; c < depth; ++c)
            inv[c] = 1.0 / std::sqrt(double(var[c]) + epsilon_);
          layout.ForEach([&](int64_t i, int64_t c) {
            const double gv = g[i];
            sum_g[c] += gv;
            sum_gx[c] += gv * (xp[i] - mean[c]);
          });
          T* dx = outs[0]->data<T>();
          for (int64_t c = 0; c < depth; ++c) {
            outs[1]->data<T>()[c] = static_cast<T>(sum_gx[c] * inv[c]);
            outs[2]->data<T>()[c] = static_cast<T>(sum_g[c]);
          }
          layout.ForEach([&](int64_t i, int64_t c) {
            {
              if (is_training_) {
                // dx = scale * inv * (g - mean(g) - xhat * mean(g * xhat)).
                const double xhat = (xp[i] - mean[c]) * inv[c];
                dx[i] = static_cast<T>(scale[c] * inv[c] *
                                       (g[i] - sum_g[c] / rows -
                                        xhat * sum_gx[c] * inv[c] / rows));
              } else {
                dx[i] = static_cast<T>(g[i] * scale[c] * inv[c]);
              }
            }
          });
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("FusedBatchNorm"), FusedBatchNormOp);
REGISTER_KERNEL(KernelDef("FusedBatchNormGrad"), FusedBatchNormGradOp);

}  // namespace
}  // namespace tensorweave
