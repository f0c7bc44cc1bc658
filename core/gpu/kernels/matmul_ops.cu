// GPU matrix products through cuBLAS: MatMul, BatchMatMulV2 (batch dims
// broadcast as the CPU kernel does) and FusedMatMulApplyGradientDescent
// (var -= lr * op(a) op(b) as ONE GEMM into the variable, alpha = -lr read
// from device memory: no host sync, so the step stays capturable).
// float32 and float64; the device's cuBLAS handle runs with the default
// math mode (TF32 off).
#include <algorithm>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/resource.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/gpu/kernels/gpu_gemm.h"
#include "core/kernels/matmul_op.h"

namespace tensorweave {
namespace gpu {
namespace {

// Sets n elements of T at p to zero on the device's stream.
template <typename T>
Status ZeroFill(GpuDevice* device, T* p, int64_t n) {
  if (n == 0) return Status::OK();
  return CudaStatus(cudaMemsetAsync(p, 0, n * sizeof(T), device->stream()),
                    "cudaMemsetAsync");
}

class MatMulGpuOp : public OpKernel {
 public:
  explicit MatMulGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    int64_t m, n, k;
    OP_REQUIRES_OK(ctx, MatMulDims(a, b, transpose_a_, transpose_b_, "In[0]",
                                   "In[1]", &m, &n, &k));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (m == 0 || n == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(ctx, DispatchType<TW_FLOAT_TYPES>(a.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     if (k == 0) return ZeroFill(device, out->data<T>(), m * n);
                     const CublasApi* api;
                     cublasHandle_t handle;
                     TW_RETURN_IF_ERROR(device->Cublas(&api, &handle));
                     const T one = 1, zero = 0;
                     return RowMajorGemm<T>(
                         api, handle, transpose_a_, transpose_b_, m, n, k, &one,
                         a.data<T>(), b.data<T>(), &zero, out->data<T>());
                   }));
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

REGISTER_KERNEL(KernelDef("MatMul")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                MatMulGpuOp);

class BatchMatMulGpuOp : public OpKernel {
 public:
  explicit BatchMatMulGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("adj_x", &adj_x_));
    ctx->SetStatus(ctx->GetAttr("adj_y", &adj_y_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    // The CPU kernel's checks and messages (core/kernels/batch_matmul_op.cc).
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
    const int batch_rank = std::max(xr, yr) - 2;
    std::vector<int64_t> batch(batch_rank), xs(batch_rank), ys(batch_rank);
    int64_t x_batches = 1, y_batches = 1;
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
      xs[i] = dx == 1 ? 0 : x_batches;
      ys[i] = dy == 1 ? 0 : y_batches;
      x_batches *= dx;
      y_batches *= dy;
    }
    TensorShape out_shape(batch);
    out_shape.AddDim(m);
    out_shape.AddDim(n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->num_elements() == 0) return;
    int64_t batches = 1;
    for (int64_t d : batch) batches *= d;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_FLOAT_TYPES>(x.dtype(), [&](auto tag) -> Status {
          using T = decltype(tag);
          if (k == 0) {
            return ZeroFill(device, out->data<T>(), out->num_elements());
          }
          const CublasApi* api;
          cublasHandle_t handle;
          TW_RETURN_IF_ERROR(device->Cublas(&api, &handle));
          const T one = 1, zero = 0;
          // One strided-batched call when each operand is either whole (one
          // matrix per output batch) or a single matrix reused (stride 0).
          const bool x_simple = x_batches == batches || x_batches == 1;
          const bool y_simple = y_batches == batches || y_batches == 1;
          if (x_simple && y_simple) {
            return RowMajorGemmStridedBatched<T>(
                api, handle, adj_x_, adj_y_, m, n, k, &one, x.data<T>(),
                x_batches == 1 ? 0 : m * k, y.data<T>(),
                y_batches == 1 ? 0 : k * n, &zero, out->data<T>(), m * n,
                batches);
          }
          // Mixed broadcasting ([2,1] x [1,3]): one GEMM per output batch.
          for (int64_t b = 0; b < batches; ++b) {
            int64_t rest = b, xo = 0, yo = 0;
            for (int i = batch_rank - 1; i >= 0; --i) {
              const int64_t idx = rest % batch[i];
              rest /= batch[i];
              xo += idx * xs[i];
              yo += idx * ys[i];
            }
            TW_RETURN_IF_ERROR(RowMajorGemm<T>(
                api, handle, adj_x_, adj_y_, m, n, k, &one,
                x.data<T>() + xo * m * k, y.data<T>() + yo * k * n, &zero,
                out->data<T>() + b * m * n));
          }
          return Status::OK();
        }));
  }

 private:
  bool adj_x_ = false;
  bool adj_y_ = false;
};

REGISTER_KERNEL(KernelDef("BatchMatMulV2")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                BatchMatMulGpuOp);

// scalars[0] = -lr, scalars[1] = 1: cuBLAS's alpha and beta in device
// memory, so lr is never copied to the host.
template <typename T>
__global__ void NegLrAndOneKernel(const T* lr, T* scalars) {
  scalars[0] = -lr[0];
  scalars[1] = T(1);
}

std::string InputName(const OpKernel& kernel, int i) {
  const auto& inputs = kernel.node().op_def().inputs;
  return i < static_cast<int>(inputs.size()) ? inputs[i].name
                                             : "input " + std::to_string(i);
}

class FusedMatMulApplyGradientDescentGpuOp : public OpKernel {
 public:
  explicit FusedMatMulApplyGradientDescentGpuOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    const Tensor& alpha = ctx->input(1);
    OP_REQUIRES(ctx, alpha.rank() == 0,
                errors::InvalidArgument(InputName(*this, 1),
                                        " must be a scalar, got shape ",
                                        alpha.shape().ToString()));
    const Tensor& a = ctx->input(2);
    const Tensor& b = ctx->input(3);
    int64_t m, n, k;
    OP_REQUIRES_OK(ctx, MatMulDims(a, b, transpose_a_, transpose_b_, "a", "b",
                                   &m, &n, &k));
    std::lock_guard<std::mutex> lock(*var->mu());
    Tensor* current = var->tensor();
    // The CPU kernel's checks (core/kernels/training_ops.cc WritableTargets).
    OP_REQUIRES(ctx, current->valid(),
                errors::FailedPrecondition(
                    "Attempting to use uninitialized value ", var->name(), " (",
                    InputName(*this, 0), ")"));
    OP_REQUIRES(
        ctx, current->dtype() == a.dtype(),
        errors::InvalidArgument(InputName(*this, 0), " (", var->name(), ") is ",
                                DataTypeName(current->dtype()), " but grad is ",
                                DataTypeName(a.dtype())));
    const TensorShape shape({m, n});
    OP_REQUIRES(ctx, current->shape() == shape,
                errors::InvalidArgument(InputName(*this, 0), " (", var->name(),
                                        ") and grad must have the same shape: ",
                                        current->shape().ToString(), " vs ",
                                        shape.ToString()));
    GpuDevice* device = GetGpuDevice(ctx);
    // Readers holding a snapshot of the buffer keep it: update a copy then.
    // (Asked before `target` takes a reference of its own.)
    const bool shared = !current->BufferUniquelyOwned();
    Tensor target = *current;
    if (shared) {
      OP_REQUIRES_OK(ctx, ctx->allocate_temp(current->dtype(), shape, &target));
      if (current->num_bytes() > 0) {
        OP_REQUIRES_CUDA_OK(
            ctx, cudaMemcpyAsync(target.raw_data(), current->raw_data(),
                                 current->num_bytes(), cudaMemcpyDeviceToDevice,
                                 device->stream()));
      }
    }
    if (m > 0 && n > 0 && k > 0) {
      OP_REQUIRES_OK(
          ctx, DispatchType<TW_FLOAT_TYPES>(a.dtype(), [&](auto tag) -> Status {
            using T = decltype(tag);
            Tensor scalars;
            TW_RETURN_IF_ERROR(
                ctx->allocate_temp(a.dtype(), TensorShape({2}), &scalars));
            T* s = scalars.data<T>();
            NegLrAndOneKernel<T>
                <<<1, 1, 0, device->stream()>>>(alpha.data<T>(), s);
            TW_RETURN_IF_ERROR(CheckLaunch(device, "NegLrAndOneKernel"));
            const CublasApi* api;
            cublasHandle_t handle;
            TW_RETURN_IF_ERROR(device->Cublas(&api, &handle));
            std::lock_guard<std::recursive_mutex> lock(CublasCallMutex());
            TW_RETURN_IF_ERROR(CublasCheck(api->SetPointerMode(handle, 1),
                                           "cublasSetPointerMode(DEVICE)"));
            Status st = RowMajorGemm<T>(api, handle, transpose_a_, transpose_b_,
                                        m, n, k, s, a.data<T>(), b.data<T>(),
                                        s + 1, target.data<T>());
            // Back to host scalars for every other user of the handle.
            Status reset = CublasCheck(api->SetPointerMode(handle, 0),
                                       "cublasSetPointerMode(HOST)");
            TW_RETURN_IF_ERROR(st);
            return reset;
          }));
    }
    *current = target;
    ctx->set_output_ref(0, var);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

REGISTER_KERNEL(KernelDef("FusedMatMulApplyGradientDescent")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE}),
                FusedMatMulApplyGradientDescentGpuOp);

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
