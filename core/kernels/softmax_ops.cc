// Softmax and LogSoftmax over the last axis, their backprops, the two
// cross-entropy losses and L2Loss. Rows are independent: they are split over
// the intra-op pool.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/cwise_ops.h"
#include "core/kernels/softmax_op_shapes.h"

namespace tensorweave {
namespace {

// Calls fn(row_begin, row_end) over rows of `cols` values, in parallel when
// there is enough work.
void ForRows(OpKernelContext* ctx, int64_t rows, int64_t cols,
             const std::function<void(int64_t, int64_t)>& fn) {
  if (rows * cols < kParallelElementThreshold ||
      ctx->intra_op_pool() == nullptr) {
    fn(0, rows);
    return;
  }
  const int64_t min_rows = std::max<int64_t>(
      1, kParallelElementThreshold / 4 / std::max<int64_t>(cols, 1));
  ctx->intra_op_pool()->ParallelFor(rows, min_rows, fn);
}

// out = log_softmax(row) or softmax(row); returns log(sum(exp(row - max))).
template <typename T, bool kLog>
T SoftmaxRow(const T* in, T* out, int64_t n) {
  T max = in[0];
  for (int64_t i = 1; i < n; ++i) max = std::max(max, in[i]);
  T sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    out[i] = std::exp(in[i] - max);
    sum += out[i];
  }
  const T log_sum = std::log(sum);
  if (kLog) {
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] - max - log_sum;
  } else {
    const T inv = T(1) / sum;
    for (int64_t i = 0; i < n; ++i) out[i] *= inv;
  }
  return max + log_sum;
}

template <bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    Tensor* out;
    int64_t cols;
    OP_REQUIRES_OK(ctx, PrepareSoftmax(ctx, &out, &cols));
    if (cols == 0) return;
    const int64_t rows = logits.num_elements() / cols;
    OP_REQUIRES_OK(
        ctx,
        DispatchType<TW_FLOAT_TYPES, bfloat16>(logits.dtype(), [&](auto t) {
          using T = decltype(t);
          ForRows(ctx, rows, cols, [&](int64_t r0, int64_t r1) {
            std::vector<float> in, o;
            for (int64_t r = r0; r < r1; ++r) {
              const T* row = logits.data<T>() + r * cols;
              T* out_row = out->data<T>() + r * cols;
              if constexpr (std::is_same_v<T, bfloat16>) {
                // In float, rounded once.
                in.assign(cols, 0.0f);
                o.resize(cols);
                for (int64_t i = 0; i < cols; ++i) in[i] = ToFloat(row[i]);
                SoftmaxRow<float, kLog>(in.data(), o.data(), cols);
                for (int64_t i = 0; i < cols; ++i) out_row[i] = T(o[i]);
              } else {
                SoftmaxRow<T, kLog>(row, out_row, cols);
              }
            }
          });
          return Status::OK();
        }));
  }
};

// SoftmaxGrad: (g - sum(g * y)) * y. LogSoftmaxGrad: g - exp(y) * sum(g).
template <bool kLog>
class SoftmaxGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    const Tensor& y = ctx->input(1);
    Tensor* out;
    int64_t cols;
    OP_REQUIRES_OK(ctx, PrepareSoftmaxGrad(ctx, kLog, &out, &cols));
    if (cols == 0) return;
    const int64_t rows = y.num_elements() / cols;
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(y.dtype(), [&](auto t) {
                     using T = decltype(t);
                     ForRows(ctx, rows, cols, [&](int64_t r0, int64_t r1) {
                       for (int64_t r = r0; r < r1; ++r) {
                         const T* g = grad.data<T>() + r * cols;
                         const T* yp = y.data<T>() + r * cols;
                         T* o = out->data<T>() + r * cols;
                         T sum = 0;
                         if (kLog) {
                           for (int64_t i = 0; i < cols; ++i) sum += g[i];
                           for (int64_t i = 0; i < cols; ++i)
                             o[i] = g[i] - std::exp(yp[i]) * sum;
                         } else {
                           for (int64_t i = 0; i < cols; ++i)
                             sum += g[i] * yp[i];
                           for (int64_t i = 0; i < cols; ++i)
                             o[i] = (g[i] - sum) * yp[i];
                         }
                       }
                     });
                     return Status::OK();
                   }));
  }
};

// Dense labels (kSparse false) or class indices.
template <bool kSparse>
class XentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    Tensor *loss, *backprop;
    int64_t rows, cols;
    OP_REQUIRES_OK(ctx,
                   PrepareXent(ctx, kSparse, &loss, &backprop, &rows, &cols));
    if (kSparse) {
      OP_REQUIRES_OK(
          ctx, DispatchType<int32_t, int64_t>(labels.dtype(), [&](auto t) {
            using L = decltype(t);
            const L* lp = labels.data<L>();
            for (int64_t r = 0; r < rows; ++r) {
              if (lp[r] < 0 || lp[r] >= cols) {
                return errors::InvalidArgument(
                    "Received a label value of ", lp[r], " at index ", r,
                    " which is outside the valid range of [0, ", cols, ")");
              }
            }
            return Status::OK();
          }));
    }
    if (rows == 0) return;
    if (cols == 0) {
      OP_REQUIRES(
          ctx, false,
          errors::InvalidArgument("logits must have at least one class"));
    }
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(logits.dtype(), [&](auto t) {
          using T = decltype(t);
          ForRows(ctx, rows, cols, [&](int64_t r0, int64_t r1) {
            for (int64_t r = r0; r < r1; ++r) {
              T* b = backprop->data<T>() + r * cols;
              // b = log_softmax(row), then softmax - labels.
              SoftmaxRow<T, true>(logits.data<T>() + r * cols, b, cols);
              T sum = 0;
              if (kSparse) {
                const int64_t label = labels.dtype() == DT_INT32
                                          ? labels.data<int32_t>()[r]
                                          : labels.data<int64_t>()[r];
                sum = -b[label];
                for (int64_t i = 0; i < cols; ++i) b[i] = std::exp(b[i]);
                b[label] -= T(1);
              } else {
                const T* lab = labels.data<T>() + r * cols;
                for (int64_t i = 0; i < cols; ++i) {
                  if (lab[i] != T(0)) sum -= lab[i] * b[i];
                  b[i] = std::exp(b[i]) - lab[i];
                }
              }
              loss->data<T>()[r] = sum;
            }
          });
          return Status::OK();
        }));
  }
};

class L2LossOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(x.dtype(), [&](auto t) {
                     using T = decltype(t);
                     const T* p = x.data<T>();
                     // Eight partial sums: vectorizes, and rounds less.
                     T acc[8] = {};
                     const int64_t n = x.num_elements();
                     int64_t i = 0;
                     for (; i + 8 <= n; i += 8) {
                       for (int k = 0; k < 8; ++k)
                         acc[k] += p[i + k] * p[i + k];
                     }
                     for (; i < n; ++i) acc[0] += p[i] * p[i];
                     T sum = 0;
                     for (T a : acc) sum += a;
                     out->data<T>()[0] = sum / T(2);
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("Softmax"), SoftmaxOp<false>);
REGISTER_KERNEL(KernelDef("LogSoftmax"), SoftmaxOp<true>);
REGISTER_KERNEL(KernelDef("SoftmaxGrad"), SoftmaxGradOp<false>);
REGISTER_KERNEL(KernelDef("LogSoftmaxGrad"), SoftmaxGradOp<true>);
REGISTER_KERNEL(KernelDef("SoftmaxCrossEntropyWithLogits"), XentOp<false>);
REGISTER_KERNEL(KernelDef("SparseSoftmaxCrossEntropyWithLogits"), XentOp<true>);
REGISTER_KERNEL(KernelDef("L2Loss"), L2LossOp);

}  // namespace
}  // namespace tensorweave
