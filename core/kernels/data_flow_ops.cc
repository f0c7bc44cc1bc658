// DynamicPartition and DynamicStitch kernels: slices copied as bytes (strings
// element by element).
#include <cstring>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// Copies `count` elements from src[src_off] to dst[dst_off].
void CopyElements(const Tensor& src, int64_t src_off, Tensor* dst,
                  int64_t dst_off, int64_t count) {
  if (count == 0) return;
  if (src.dtype() == DT_STRING) {
    const std::string* s = src.data<std::string>() + src_off;
    std::string* d = dst->data<std::string>() + dst_off;
    for (int64_t i = 0; i < count; ++i) d[i] = s[i];
    return;
  }
  const int64_t size = DataTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst->raw_data()) + dst_off * size,
              static_cast<const char*>(src.raw_data()) + src_off * size,
              count * size);
}

class DynamicPartitionOp : public OpKernel {
 public:
  explicit DynamicPartitionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_partitions", &num_partitions_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& partitions = ctx->input(1);
    const TensorShape& ds = data.shape();
    const TensorShape& ps = partitions.shape();
    bool prefix = ds.rank() >= ps.rank();
    for (int i = 0; prefix && i < ps.rank(); ++i) {
      prefix = ds.dim(i) == ps.dim(i);
    }
    OP_REQUIRES(ctx, prefix,
                errors::InvalidArgument(
                    "data.shape must start with partitions.shape, got "
                    "data.shape = ",
                    ds.ToString(), ", partitions.shape = ", ps.ToString()));
    const int64_t n = partitions.num_elements();
    const int32_t* p = partitions.data<int32_t>();
    std::vector<int64_t> counts(num_partitions_, 0);
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(
          ctx, p[i] >= 0 && p[i] < num_partitions_,
          errors::InvalidArgument("partitions[", i, "] = ", p[i],
                                  " is not in [0, ", num_partitions_, ")"));
      ++counts[p[i]];
    }
    int64_t slice = 1;
    std::vector<int64_t> tail;
    for (int i = ps.rank(); i < ds.rank(); ++i) {
      slice *= ds.dim(i);
      tail.push_back(ds.dim(i));
    }
    std::vector<Tensor*> outs(num_partitions_);
    for (int k = 0; k < num_partitions_; ++k) {
      std::vector<int64_t> dims = {counts[k]};
      dims.insert(dims.end(), tail.begin(), tail.end());
      OP_REQUIRES_OK(ctx, ctx->allocate_output(k, TensorShape(dims), &outs[k]));
    }
    std::vector<int64_t> next(num_partitions_, 0);
    for (int64_t i = 0; i < n; ++i) {
      CopyElements(data, i * slice, outs[p[i]], next[p[i]] * slice, slice);
      ++next[p[i]];
    }
  }

 private:
  int64_t num_partitions_ = 1;
};

class DynamicStitchOp : public OpKernel {
 public:
  explicit DynamicStitchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() / 2;
    const Tensor& data0 = ctx->input(n);
    const TensorShape& idx0 = ctx->input(0).shape();
    OP_REQUIRES(
        ctx, data0.rank() >= idx0.rank(),
        errors::InvalidArgument(
            "data[0].shape = ", data0.shape().ToString(),
            " does not start with indices[0].shape = ", idx0.ToString()));
    std::vector<int64_t> tail(data0.shape().dims().begin() + idx0.rank(),
                              data0.shape().dims().end());
    int64_t slice = 1;
    for (int64_t d : tail) slice *= d;
    int64_t first = 0;
    for (int m = 0; m < n; ++m) {
      const Tensor& idx = ctx->input(m);
      const Tensor& data = ctx->input(n + m);
      std::vector<int64_t> want = idx.shape().dims();
      want.insert(want.end(), tail.begin(), tail.end());
      OP_REQUIRES(ctx, data.shape() == TensorShape(want),
                  errors::InvalidArgument(
                      "data[", m, "].shape = ", data.shape().ToString(),
                      " does not start with indices[", m,
                      "].shape = ", idx.shape().ToString(),
                      " followed by data[0]'s trailing shape"));
      OP_REQUIRES(ctx, data.dtype() == data0.dtype(),
                  errors::InvalidArgument("data types differ"));
      const int32_t* p = idx.data<int32_t>();
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        OP_REQUIRES(ctx, p[i] >= 0,
                    errors::InvalidArgument("indices[", m, "][", i,
                                            "] = ", p[i], " is negative"));
        first = std::max<int64_t>(first, static_cast<int64_t>(p[i]) + 1);
      }
    }
    std::vector<int64_t> dims = {first};
    dims.insert(dims.end(), tail.begin(), tail.end());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    if (out->dtype() != DT_STRING && out->num_elements() > 0) {
      std::memset(out->raw_data(), 0, out->num_bytes());
    }
    for (int m = 0; m < n; ++m) {
      const Tensor& idx = ctx->input(m);
      const int32_t* p = idx.data<int32_t>();
      for (int64_t i = 0; i < idx.num_elements(); ++i) {
        CopyElements(ctx->input(n + m), i * slice, out, p[i] * slice, slice);
      }
    }
  }
};

REGISTER_KERNEL(KernelDef("DynamicPartition"), DynamicPartitionOp);
REGISTER_KERNEL(KernelDef("DynamicStitch"), DynamicStitchOp);

// GPU: int32 shape arithmetic stays in host memory (TensorFlow's GPU kernels
// of these ops keep int32 on the host); the CPU kernel runs there.
REGISTER_KERNEL(KernelDef("DynamicStitch")
                    .Device("GPU")
                    .TypeConstraint("T", {DT_INT32})
                    .AllHostMemory(),
                DynamicStitchOp);

}  // namespace
}  // namespace tensorweave
