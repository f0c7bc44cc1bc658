// FusedBatchNorm and FusedBatchNormGrad (NHWC): x viewed as [rows, C], the
// statistics per channel. Sums over rows are accumulated in double.
#include <cmath>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

class BatchNormOpBase : public OpKernel {
 public:
  explicit BatchNormOpBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("epsilon", &epsilon_));
    ctx->SetStatus(ctx->GetAttr("is_training", &is_training_));
    std::string data_format;
    ctx->SetStatus(ctx->GetAttr("data_format", &data_format));
    if (ctx->status().ok() && data_format != "NHWC") {
      ctx->SetStatus(errors::InvalidArgument(
          "only data_format NHWC is supported on CPU, got ", data_format));
    }
  }

 protected:
  Status CheckVector(OpKernelContext* ctx, int i, const char* what,
                     int64_t depth) const {
    const Tensor& v = ctx->input(i);
    if (v.rank() != 1 || v.dim(0) != depth) {
      return errors::InvalidArgument(what, " must be a vector of ", depth,
                                     " elements (the depth of x), got shape ",
                                     v.shape().ToString());
    }
    return Status::OK();
  }

  float epsilon_ = 1e-4f;
  bool is_training_ = true;
};

class FusedBatchNormOp : public BatchNormOpBase {
 public:
  using BatchNormOpBase::BatchNormOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.rank() == 4,
                errors::InvalidArgument("x must be 4-D [N,H,W,C], got ",
                                        x.shape().ToString()));
    const int64_t depth = x.dim(3);
    const int64_t rows = depth == 0 ? 0 : x.num_elements() / depth;
    OP_REQUIRES_OK(ctx, CheckVector(ctx, 1, "scale", depth));
    OP_REQUIRES_OK(ctx, CheckVector(ctx, 2, "offset", depth));
    if (!is_training_) {
      OP_REQUIRES_OK(ctx, CheckVector(ctx, 3, "mean", depth));
      OP_REQUIRES_OK(ctx, CheckVector(ctx, 4, "variance", depth));
    }
    Tensor* outs[5];
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &outs[0]));
    for (int i = 1; i < 5; ++i) {
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(i, TensorShape({depth}), &outs[i]));
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(x.dtype(), [&](auto t) {
          using T = decltype(t);
          const T* xp = x.data<T>();
          std::vector<double> mean(depth), var(depth);
          if (is_training_) {
            std::vector<double> sum(depth, 0.0), sq(depth, 0.0);
            for (int64_t r = 0; r < rows; ++r) {
              for (int64_t c = 0; c < depth; ++c) sum[c] += xp[r * depth + c];
            }
            for (int64_t c = 0; c < depth; ++c)
              mean[c] = rows ? sum[c] / rows : 0.0;
            for (int64_t r = 0; r < rows; ++r) {
              for (int64_t c = 0; c < depth; ++c) {
                const double d = xp[r * depth + c] - mean[c];
                sq[c] += d * d;
              }
            }
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
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < depth; ++c) {
              y[r * depth + c] = xp[r * depth + c] * a[c] + b[c];
            }
          }
          // Bessel's correction for the reported batch variance.
          const double adjust = rows > 1 ? double(rows) / (rows - 1) : 1.0;
          for (int64_t c = 0; c < depth; ++c) {
            outs[1]->data<T>()[c] = static_cast<T>(mean[c]);
            outs[2]->data<T>()[c] =
                static_cast<T>(is_training_ ? var[c] * adjust : var[c]);
            outs[3]->data<T>()[c] = static_cast<T>(mean[c]);
            outs[4]->data<T>()[c] = static_cast<T>(var[c]);
          }
          return Status::OK();
        }));
  }
};

class FusedBatchNormGradOp : public BatchNormOpBase {
 public:
  using BatchNormOpBase::BatchNormOpBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    OP_REQUIRES(ctx, x.rank() == 4 && dy.shape() == x.shape(),
                errors::InvalidArgument(
                    "y_backprop and x must have one 4-D shape, got ",
                    dy.shape().ToString(), " and ", x.shape().ToString()));
    const int64_t depth = x.dim(3);
    const int64_t rows = depth == 0 ? 0 : x.num_elements() / depth;
    OP_REQUIRES_OK(ctx, CheckVector(ctx, 2, "scale", depth));
    OP_REQUIRES_OK(ctx, CheckVector(ctx, 3, "reserve_space_1 (mean)", depth));
    OP_REQUIRES_OK(ctx,
                   CheckVector(ctx, 4, "reserve_space_2 (variance)", depth));
    Tensor* outs[5];
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &outs[0]));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(1, TensorShape({depth}), &outs[1]));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_output(2, TensorShape({depth}), &outs[2]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(3, TensorShape({0}), &outs[3]));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(4, TensorShape({0}), &outs[4]));
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
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < depth; ++c) {
              const double gv = g[r * depth + c];
              sum_g[c] += gv;
              sum_gx[c] += gv * (xp[r * depth + c] - mean[c]);
            }
          }
          T* dx = outs[0]->data<T>();
          for (int64_t c = 0; c < depth; ++c) {
            outs[1]->data<T>()[c] = static_cast<T>(sum_gx[c] * inv[c]);
            outs[2]->data<T>()[c] = static_cast<T>(sum_g[c]);
          }
          for (int64_t r = 0; r < rows; ++r) {
            for (int64_t c = 0; c < depth; ++c) {
              const int64_t i = r * depth + c;
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
          }
          return Status::OK();
        }));
  }
};

REGISTER_KERNEL(KernelDef("FusedBatchNorm"), FusedBatchNormOp);
REGISTER_KERNEL(KernelDef("FusedBatchNormGrad"), FusedBatchNormGradOp);

}  // namespace
}  // namespace tensorweave
