// BatchMatMulV2: matrix products over the last two dims, with the leading
// (batch) dims broadcast as numpy does; adj_x/adj_y are adjoints (conjugate
// transposes) of complex operands.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/matmul_op.h"
#include "core/platform/thread_pool.h"

namespace tensorweave {
namespace {

std::vector<float> WidenToFloat(const Tensor& t) {
  std::vector<float> out(t.num_elements());
  const bfloat16* p = t.data<bfloat16>();
  for (size_t i = 0; i < out.size(); ++i) out[i] = ToFloat(p[i]);
  return out;
}

class BatchMatMulOp : public OpKernel {
 public:
  explicit BatchMatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("adj_x", &adj_x_));
    ctx->SetStatus(ctx->GetAttr("adj_y", &adj_y_));
  }
  bool IsExpensive() const override { return true; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    OP_REQUIRES(ctx, x.rank() >= 2 && y.rank() >= 2,
                errors::InvalidArgument(
                    "BatchMatMul needs inputs of rank >= 2, got shapes ",
                    x.shape().ToString(), " and ", y.shape().ToString()));
    const int xr = x.rank(), yr = y.rank();
    const int64_t m = x.dim(adj_x_ ? xr - 1 : xr - 2);
    const int64_t k = x.dim(adj_x_ ? xr - 2 : xr - 1);
    const int64_t ky = y.dim(adj_y_ ? yr - 1 : yr - 2);
    const int64_t n = y.dim(adj_y_ ? yr - 2 : yr - 1);
    OP_REQUIRES(ctx, k == ky,
                errors::InvalidArgument(
                    "BatchMatMul: inner dimensions differ: In[0]: ",
                    x.shape().ToString(), ", In[1]: ", y.shape().ToString()));
    // Broadcast the batch dims; strides in matrices (0 where broadcast).
    const int batch_rank = std::max(xr, yr) - 2;
    std::vector<int64_t> batch(batch_rank), xs(batch_rank), ys(batch_rank);
    int64_t x_stride = 1, y_stride = 1;
    for (int i = batch_rank - 1; i >= 0; --i) {
      const int ix = i - (batch_rank - (xr - 2));
      const int iy = i - (batch_rank - (yr - 2));
      const int64_t dx = ix >= 0 ? x.dim(ix) : 1;
      const int64_t dy = iy >= 0 ? y.dim(iy) : 1;
      OP_REQUIRES(ctx, dx == dy || dx == 1 || dy == 1,
                  errors::InvalidArgument(
                      "BatchMatMul: batch dimensions do not broadcast: ",
                      x.shape().ToString(), " and ", y.shape().ToString()));
      batch[i] = dx == 1 ? dy : dx;
      xs[i] = dx == 1 ? 0 : x_stride;
      ys[i] = dy == 1 ? 0 : y_stride;
      x_stride *= dx;
      y_stride *= dy;
    }
    TensorShape out_shape(batch);
    out_shape.AddDim(m);
    out_shape.AddDim(n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    int64_t batches = 1;
    for (int64_t d : batch) batches *= d;
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(
        ctx,
        DispatchType<TW_REAL_TYPES, bfloat16, TW_COMPLEX_TYPES>(
            x.dtype(), [&](auto tag) {
              using T = decltype(tag);
              // bfloat16 is multiplied in float and rounded once (TensorFlow's
              // CPU kernel accumulates in float).
              using C =
                  std::conditional_t<std::is_same_v<T, bfloat16>, float, T>;
              std::vector<float> fx, fy, fo;
              const C* xp;
              const C* yp;
              C* op;
              if constexpr (std::is_same_v<T, bfloat16>) {
                fx = WidenToFloat(x);
                fy = WidenToFloat(y);
                fo.resize(out->num_elements());
                xp = fx.data();
                yp = fy.data();
                op = fo.data();
              } else {
                xp = x.data<T>();
                yp = y.data<T>();
                op = out->data<T>();
              }
              auto one = [&](int64_t b, ThreadPool* pool) {
                int64_t rest = b, xo = 0, yo = 0;
                for (int i = batch_rank - 1; i >= 0; --i) {
                  const int64_t idx = rest % batch[i];
                  rest /= batch[i];
                  xo += idx * xs[i];
                  yo += idx * ys[i];
                }
                if constexpr (std::is_same_v<C, complex64> ||
                              std::is_same_v<C, complex128>) {
                  // adj_x / adj_y conjugate as they transpose (the adjoint).
                  using blas::ComplexOp;
                  ComplexMatMul<C>(
                      xp + xo * m * k, yp + yo * k * n, op + b * m * n, m, n, k,
                      adj_x_ ? ComplexOp::kAdjoint : ComplexOp::kNone,
                      adj_y_ ? ComplexOp::kAdjoint : ComplexOp::kNone);
                } else {
                  Gemm<C>(pool, xp + xo * m * k, yp + yo * k * n,
                          op + b * m * n, m, n, k, adj_x_, adj_y_);
                }
              };
              ThreadPool* pool = ctx->intra_op_pool();
              const int64_t parts =
                  pool == nullptr ? 1 : pool->num_threads() + 1;
              if (batches >= parts && parts > 1) {
                // Many products: one thread each.
                const int64_t per_batch = std::max<int64_t>(1, m * n * k);
                pool->ParallelFor(batches,
                                  std::max<int64_t>(1, (1 << 16) / per_batch),
                                  [&](int64_t begin, int64_t end) {
                                    for (int64_t b = begin; b < end; ++b) {
                                      one(b, nullptr);
                                    }
                                  });
              } else {
                for (int64_t b = 0; b < batches; ++b) one(b, pool);
              }
              if constexpr (std::is_same_v<T, bfloat16>) {
                T* o = out->data<T>();
                for (size_t i = 0; i < fo.size(); ++i) o[i] = T(fo[i]);
              }
              return Status::OK();
            }));
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

REGISTER_KERNEL(KernelDef("BatchMatMulV2"), BatchMatMulOp);

}  // namespace
}  // namespace tensorweave
