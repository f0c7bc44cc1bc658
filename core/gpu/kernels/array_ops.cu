// Array ops on the GPU: Const (copied to the device once, at construction),
// IdentityN and StopGradient (Identity, PlaceholderWithDefault, NoOp,
// Reshape, ExpandDims and Squeeze are the CPU kernels, registered for the GPU
// in core/kernels: they only pass on or relabel the device buffer), Transpose
// (32x32 shared-memory tiles when it swaps the last two dims), Slice,
// StridedSlice, StridedSliceGrad, Tile and Pad (one index-math kernel over up
// to 8 dims), ConcatV2, Pack, Unpack, Split and SplitV (2-D device copies,
// cudaMemcpy2DAsync), Fill and OneHot. Shapes, axes, sizes, perms and paddings
// are HostMemory inputs; their validation and error messages are the CPU
// kernels'.
//
// Element copies go by element size (1, 2, 4 or 8 bytes), so every dtype of
// that size shares one kernel instantiation.
#include <cstring>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/framework/strided_slice.h"
#include "core/gpu/gpu_device.h"
#include "core/gpu/gpu_kernel_util.h"
#include "core/kernels/array_op_shapes.h"

namespace tensorweave {
namespace gpu {
namespace {

constexpr int kMaxDims = 8;

// out[i] = in[offset + sum_d ((idx_d % mod_d) * stride_d)] where idx is i's
// multi-index in out_dims (mod_d == out_dims[d] unless tiling). With
// kScatter the roles swap: out[that offset] = in[i].
struct IndexMap {
  int rank = 0;
  int64_t out_dims[kMaxDims];
  int64_t mod[kMaxDims];
  int64_t strides[kMaxDims];
  int64_t offset = 0;
};

template <typename U, bool kScatter>
__global__ void IndexMapKernel(const U* in, U* out, int64_t n, IndexMap m) {
  TW_GPU_LOOP(i, n) {
    int64_t rem = i, off = m.offset;
    for (int d = m.rank - 1; d >= 0; --d) {
      const int64_t idx = rem % m.out_dims[d];
      rem /= m.out_dims[d];
      off += (idx % m.mod[d]) * m.strides[d];
    }
    if (kScatter) {
      out[off] = in[i];
    } else {
      out[i] = in[off];
    }
  }
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    s[d] = s[d + 1] * dims[d + 1];
  }
  return s;
}

// Runs the index map from `in` to `out` (out has out_dims' element count;
// with scatter, `in` has it).
Status RunIndexMap(OpKernelContext* ctx, const Tensor& in, Tensor* out,
                   const std::vector<int64_t>& out_dims,
                   const std::vector<int64_t>& mod,
                   const std::vector<int64_t>& strides, int64_t offset,
                   bool scatter) {
  if (out_dims.size() > kMaxDims) {
    return errors::Unimplemented("GPU kernel of ", ctx->kernel().type_string(),
                                 " supports up to ", kMaxDims,
                                 " dimensions, got ", out_dims.size());
  }
  IndexMap m;
  m.rank = static_cast<int>(out_dims.size());
  int64_t n = 1;
  for (int d = 0; d < m.rank; ++d) {
    m.out_dims[d] = out_dims[d];
    m.mod[d] = mod[d];
    m.strides[d] = strides[d];
    n *= out_dims[d];
  }
  m.offset = offset;
  if (n == 0) return Status::OK();
  GpuDevice* device = GetGpuDevice(ctx);
  return DispatchBySize(in.dtype(), [&](auto tag) -> Status {
    using U = decltype(tag);
    const U* src = static_cast<const U*>(in.raw_data());
    U* dst = static_cast<U*>(out->raw_data());
    if (scatter) {
      IndexMapKernel<U, true>
          <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(src, dst, n,
                                                                    m);
    } else {
      IndexMapKernel<U, false>
          <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(src, dst, n,
                                                                    m);
    }
    return CheckLaunch(device, "IndexMapKernel");
  });
}

// A rows x width_bytes block copy between pitched device buffers.
Status Copy2D(GpuDevice* device, void* dst, int64_t dpitch, const void* src,
              int64_t spitch, int64_t width, int64_t rows) {
  if (width == 0 || rows == 0) return Status::OK();
  if (rows == 1 || (width == dpitch && width == spitch)) {
    return CudaStatus(
        cudaMemcpyAsync(dst, src, width * rows, cudaMemcpyDeviceToDevice,
                        device->stream()),
        "cudaMemcpyAsync (device to device)");
  }
  return CudaStatus(
      cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, rows,
                        cudaMemcpyDeviceToDevice, device->stream()),
      "cudaMemcpy2DAsync (device to device)");
}

// --- Const and identities ----------------------------------------------------

class ConstGpuOp : public OpKernel {
 public:
  explicit ConstGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    const Tensor* host = ctx->node().constant_value();
    if (host == nullptr) {
      ctx->SetStatus(errors::Internal("Const node ", name(), " has no value"));
      return;
    }
    host_ = *host;
    // Small constants (hyperparameters, masks) are copied once, here, and
    // every step outputs the same device tensor. Large ones (initial values
    // of variables, run once) are copied when they run, so that they do not
    // hold device memory for the session's life.
    if (host_.num_bytes() <= kResidentBytes) {
      ctx->SetStatus(ctx->device()->CopyFromHost(host_, &value_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    if (value_.valid()) {
      ctx->set_output(0, value_);
      return;
    }
    Tensor value;
    OP_REQUIRES_OK(ctx, ctx->device()->CopyFromHost(host_, &value));
    ctx->set_output(0, std::move(value));
  }

 private:
  static constexpr size_t kResidentBytes = 1 << 20;
  Tensor host_;
  Tensor value_;
};

class IdentityGpuOp : public OpKernel {
 public:
  explicit IdentityGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      ctx->set_output(i, ctx->input(i));
    }
  }
};

// --- index-map ops -----------------------------------------------------------

// out[b, c, r] = in[b, r, c] for in of shape [batch, rows, cols]: 32x32 tiles
// through shared memory (padded against bank conflicts), so that both the
// reads and the writes are coalesced.
constexpr int kTile = 32, kTileRows = 8;
template <typename U>
__global__ void Transpose2DKernel(const U* in, U* out, int64_t rows,
                                  int64_t cols) {
  __shared__ U tile[kTile][kTile + 1];
  const int64_t batch_offset = static_cast<int64_t>(blockIdx.z) * rows * cols;
  in += batch_offset;
  out += batch_offset;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * kTile;
  for (int k = threadIdx.y; k < kTile; k += kTileRows) {
    const int64_t r = r0 + k, c = c0 + threadIdx.x;
    if (r < rows && c < cols) tile[k][threadIdx.x] = in[r * cols + c];
  }
  __syncthreads();
  for (int k = threadIdx.y; k < kTile; k += kTileRows) {
    const int64_t c = c0 + k, r = r0 + threadIdx.x;
    if (r < rows && c < cols) out[c * rows + r] = tile[threadIdx.x][k];
  }
}

// The tiled path for a perm that swaps the last two of (batch, rows, cols)
// after merging: rank 2 (1, 0) and rank 3 (0, 2, 1). False: not applicable.
bool TryTranspose2D(OpKernelContext* ctx, const Tensor& x,
                    const std::vector<int64_t>& perm, Tensor* out,
                    Status* status) {
  int64_t batch = 1, rows, cols;
  if (perm.size() == 2 && perm[0] == 1 && perm[1] == 0) {
    rows = x.dim(0);
    cols = x.dim(1);
  } else if (perm.size() == 3 && perm[0] == 0 && perm[1] == 2 && perm[2] == 1) {
    batch = x.dim(0);
    rows = x.dim(1);
    cols = x.dim(2);
  } else {
    return false;
  }
  const int64_t grid_x = (cols + kTile - 1) / kTile;
  const int64_t grid_y = (rows + kTile - 1) / kTile;
  if (batch > 65535 || grid_y > 65535 || grid_x > (int64_t{1} << 31) - 1) {
    return false;
  }
  if (x.num_elements() == 0) {
    *status = Status::OK();
    return true;
  }
  GpuDevice* device = GetGpuDevice(ctx);
  *status = DispatchBySize(x.dtype(), [&](auto tag) -> Status {
    using U = decltype(tag);
    Transpose2DKernel<U>
        <<<dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(grid_y),
                static_cast<unsigned>(batch)),
           dim3(kTile, kTileRows), 0, device->stream()>>>(
            static_cast<const U*>(x.raw_data()),
            static_cast<U*>(out->raw_data()), rows, cols);
    return CheckLaunch(device, "Transpose2DKernel");
  });
  return true;
}

class TransposeGpuOp : public OpKernel {
 public:
  explicit TransposeGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int rank = x.rank();
    std::vector<int64_t> perm;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &perm));
    OP_REQUIRES(
        ctx, static_cast<int>(perm.size()) == rank,
        errors::InvalidArgument("transpose expects a vector of size ", rank,
                                ". But input(1) is a vector of "
                                "size ",
                                perm.size()));
    std::vector<bool> seen(rank, false);
    for (int i = 0; i < rank; ++i) {
      const int64_t p = perm[i];
      OP_REQUIRES(ctx, p >= 0 && p < rank,
                  errors::InvalidArgument("perm[", i, "] = ", p,
                                          " is out of range [0, ", rank, ")"));
      OP_REQUIRES(
          ctx, !seen[p],
          errors::InvalidArgument(p, " is repeated in the permutation"));
      seen[p] = true;
    }
    std::vector<int64_t> out_dims(rank), strides(rank);
    const std::vector<int64_t> in_strides = RowMajorStrides(x.shape().dims());
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      out_dims[i] = x.dim(perm[i]);
      strides[i] = in_strides[perm[i]];
      identity = identity && perm[i] == i;
    }
    if (identity) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    Status tiled;
    if (TryTranspose2D(ctx, x, perm, out, &tiled)) {
      OP_REQUIRES_OK(ctx, tiled);
      return;
    }
    OP_REQUIRES_OK(
        ctx, RunIndexMap(ctx, x, out, out_dims, out_dims, strides, 0, false));
  }
};

class SliceGpuOp : public OpKernel {
 public:
  explicit SliceGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> begin, size;
    OP_REQUIRES_OK(ctx, SliceArgs(*ctx, &begin, &size));
    const int rank = x.rank();
    if (TensorShape(size) == x.shape()) {
      ctx->set_output(0, x);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(size), &out));
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    int64_t offset = 0;
    for (int d = 0; d < rank; ++d) offset += begin[d] * strides[d];
    OP_REQUIRES_OK(
        ctx, RunIndexMap(ctx, x, out, size, size, strides, offset, false));
  }
};

class StridedSliceGpuBase : public OpKernel {
 public:
  explicit StridedSliceGpuBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("begin_mask", &masks_.begin_mask));
    ctx->SetStatus(ctx->GetAttr("end_mask", &masks_.end_mask));
    ctx->SetStatus(ctx->GetAttr("ellipsis_mask", &masks_.ellipsis_mask));
    ctx->SetStatus(ctx->GetAttr("new_axis_mask", &masks_.new_axis_mask));
    ctx->SetStatus(ctx->GetAttr("shrink_axis_mask", &masks_.shrink_axis_mask));
  }

 protected:
  Status Spec(OpKernelContext* ctx, const std::vector<int64_t>& dims, int first,
              StridedSliceSpec* spec) const {
    std::vector<int64_t> begin, end, strides;
    TW_RETURN_IF_ERROR(ReadIndexVector(ctx->input(first), &begin));
    TW_RETURN_IF_ERROR(ReadIndexVector(ctx->input(first + 1), &end));
    TW_RETURN_IF_ERROR(ReadIndexVector(ctx->input(first + 2), &strides));
    return ComputeStridedSlice(dims, begin, end, strides, masks_, spec);
  }
  // The map over the input dims (`dims`) that the spec reads.
  static void SpecMap(const std::vector<int64_t>& dims,
                      const StridedSliceSpec& spec,
                      std::vector<int64_t>* strides, int64_t* offset) {
    const std::vector<int64_t> row = RowMajorStrides(dims);
    strides->resize(dims.size());
    *offset = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
      (*strides)[d] = spec.strides[d] * row[d];
      *offset += spec.begin[d] * row[d];
    }
  }

 private:
  StridedSliceMasks masks_;
};

class StridedSliceGpuOp : public StridedSliceGpuBase {
 public:
  explicit StridedSliceGpuOp(OpKernelConstruction* ctx)
      : StridedSliceGpuBase(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, Spec(ctx, x.shape().dims(), 1, &spec));
    Tensor* out;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape(spec.final_shape), &out));
    if (out->num_elements() == 0) return;
    std::vector<int64_t> strides;
    int64_t offset;
    SpecMap(x.shape().dims(), spec, &strides, &offset);
    OP_REQUIRES_OK(ctx, RunIndexMap(ctx, x, out, spec.processing,
                                    spec.processing, strides, offset, false));
  }
};

class StridedSliceGradGpuOp : public StridedSliceGpuBase {
 public:
  explicit StridedSliceGradGpuOp(OpKernelConstruction* ctx)
      : StridedSliceGpuBase(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &dims));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &shape));
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, Spec(ctx, dims, 1, &spec));
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, dy.shape() == TensorShape(spec.final_shape),
                errors::InvalidArgument(
                    "shape of dy was ", dy.shape().ToString(), " instead of ",
                    TensorShape(spec.final_shape).ToString()));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (out->num_bytes() > 0) {
      OP_REQUIRES_CUDA_OK(ctx,
                          cudaMemsetAsync(out->raw_data(), 0, out->num_bytes(),
                                          GetGpuDevice(ctx)->stream()));
    }
    if (dy.num_elements() == 0) return;
    // Nonzero strides: every dy element lands on its own position.
    std::vector<int64_t> strides;
    int64_t offset;
    SpecMap(dims, spec, &strides, &offset);
    OP_REQUIRES_OK(ctx, RunIndexMap(ctx, dy, out, spec.processing,
                                    spec.processing, strides, offset, true));
  }
};

class TileGpuOp : public OpKernel {
 public:
  explicit TileGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> multiples, out_dims;
    OP_REQUIRES_OK(ctx, TileArgs(*ctx, &multiples, &out_dims));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(ctx,
                   RunIndexMap(ctx, x, out, out_dims, x.shape().dims(),
                               RowMajorStrides(x.shape().dims()), 0, false));
  }
};

template <typename U>
__global__ void PadKernel(const U* in, U* out, int64_t n, IndexMap m,
                          IndexMap before, U value) {
  // m.out_dims: the output dims; m.mod: the input dims; m.strides: the
  // input's row-major strides; before.out_dims: the leading paddings.
  TW_GPU_LOOP(i, n) {
    int64_t rem = i, off = 0;
    bool inside = true;
    for (int d = m.rank - 1; d >= 0; --d) {
      const int64_t idx = rem % m.out_dims[d] - before.out_dims[d];
      rem /= m.out_dims[d];
      inside = inside && idx >= 0 && idx < m.mod[d];
      off += idx * m.strides[d];
    }
    out[i] = inside ? in[off] : value;
  }
}

// Pad and PadV2 (constant_values, input 2, in host memory).
class PadGpuOp : public OpKernel {
 public:
  explicit PadGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int rank = x.rank();
    OP_REQUIRES(ctx, rank <= kMaxDims,
                errors::Unimplemented("GPU Pad supports up to ", kMaxDims,
                                      " dimensions, got ", rank));
    std::vector<int64_t> before_dims, after_dims, out_dims;
    OP_REQUIRES_OK(ctx, PadArgs(*ctx, &before_dims, &after_dims, &out_dims));
    IndexMap m, before;
    m.rank = rank;
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    for (int d = 0; d < rank; ++d) {
      m.out_dims[d] = out_dims[d];
      m.mod[d] = x.dim(d);
      m.strides[d] = strides[d];
      before.out_dims[d] = before_dims[d];
    }
    const bool has_value = ctx->num_inputs() > 2;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    const int64_t n = out->num_elements();
    if (n == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchBySize(x.dtype(), [&](auto tag) -> Status {
          using U = decltype(tag);
          U value{};
          if (has_value) {
            std::memcpy(&value, ctx->input(2).raw_data(), sizeof(U));
          }
          PadKernel<U><<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
              static_cast<const U*>(x.raw_data()),
              static_cast<U*>(out->raw_data()), n, m, before, value);
          return CheckLaunch(device, "PadKernel");
        }));
  }
};

// --- concatenation and splitting (2-D copies) --------------------------------

class ConcatV2GpuOp : public OpKernel {
 public:
  explicit ConcatV2GpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(0);
    int axis;
    std::vector<int64_t> out_dims, widths;
    OP_REQUIRES_OK(ctx, ConcatArgs(*ctx, &axis, &out_dims, &widths));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    const int64_t esize = DataTypeSize(out->dtype());
    const int64_t outer = DimsProduct(out_dims, 0, axis);
    const int64_t out_width = DimsProduct(out_dims, axis, first.rank()) * esize;
    int64_t col = 0;
    for (int i = 0; i < n; ++i) {
      const int64_t width = widths[i] * esize;
      OP_REQUIRES_OK(
          ctx,
          Copy2D(GetGpuDevice(ctx), static_cast<char*>(out->raw_data()) + col,
                 out_width, ctx->input(i).raw_data(), width, width, outer));
      col += width;
    }
  }
};

// Pack: the inputs (one shape) stacked along a new axis.
class PackGpuOp : public OpKernel {
 public:
  explicit PackGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    int axis;
    std::vector<int64_t> out_dims;
    OP_REQUIRES_OK(ctx, PackArgs(*ctx, axis_, &axis, &out_dims));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    const int64_t esize = DataTypeSize(out->dtype());
    const int64_t outer = DimsProduct(first.shape().dims(), 0, axis);
    const int64_t width =
        DimsProduct(first.shape().dims(), axis, first.rank()) * esize;
    for (int i = 0; i < n; ++i) {
      OP_REQUIRES_OK(
          ctx,
          Copy2D(GetGpuDevice(ctx),
                 static_cast<char*>(out->raw_data()) + i * width, n * width,
                 ctx->input(i).raw_data(), width, width, outer));
    }
  }

 private:
  int64_t axis_ = 0;
};

// Writes the pieces of `x` along `axis` (sizes[i] each) to outputs 0..n-1.
void SplitInto(OpKernelContext* ctx, const Tensor& x, int axis,
               const std::vector<int64_t>& sizes) {
  const int64_t esize = DataTypeSize(x.dtype());
  const std::vector<int64_t> dims = x.shape().dims();
  const int64_t outer = DimsProduct(dims, 0, axis);
  const int64_t inner = DimsProduct(dims, axis + 1, x.rank());
  const int64_t in_width = dims[axis] * inner * esize;
  int64_t col = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    std::vector<int64_t> out_dims = dims;
    out_dims[axis] = sizes[i];
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(static_cast<int>(i),
                                             TensorShape(out_dims), &out));
    const int64_t width = sizes[i] * inner * esize;
    if (out->num_elements() > 0) {
      OP_REQUIRES_OK(ctx, Copy2D(GetGpuDevice(ctx), out->raw_data(), width,
                                 static_cast<const char*>(x.raw_data()) + col,
                                 in_width, width, outer));
    }
    col += width;
  }
}

class SplitGpuOp : public OpKernel {
 public:
  explicit SplitGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    int axis;
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx, SplitArgs(*ctx, &axis, &sizes));
    SplitInto(ctx, ctx->input(1), axis, sizes);
  }
};

class SplitVGpuOp : public OpKernel {
 public:
  explicit SplitVGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    int axis;
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx, SplitVArgs(*ctx, &axis, &sizes));
    SplitInto(ctx, ctx->input(0), axis, sizes);
  }
};

class UnpackGpuOp : public OpKernel {
 public:
  explicit UnpackGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const int rank = x.rank();
    const int n = ctx->num_outputs();
    int axis;
    std::vector<int64_t> out_dims;
    OP_REQUIRES_OK(ctx, UnpackArgs(*ctx, axis_, &axis, &out_dims));
    const std::vector<int64_t>& dims = x.shape().dims();
    const int64_t esize = DataTypeSize(x.dtype());
    const int64_t outer = DimsProduct(dims, 0, axis);
    const int64_t width = DimsProduct(dims, axis + 1, rank) * esize;
    for (int i = 0; i < n; ++i) {
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape(out_dims), &out));
      if (out->num_elements() == 0) continue;
      OP_REQUIRES_OK(ctx,
                     Copy2D(GetGpuDevice(ctx), out->raw_data(), width,
                            static_cast<const char*>(x.raw_data()) + i * width,
                            n * width, width, outer));
    }
  }

 private:
  int64_t axis_ = 0;
};

// --- Fill and OneHot ---------------------------------------------------------

template <typename U>
__global__ void FillKernel(U* out, int64_t n, const U* value) {
  const U v = *value;
  TW_GPU_LOOP(i, n) { out[i] = v; }
}

// Fill: dims in host memory, the value in device memory (read by the
// kernel: no copy to the host, and a captured step takes each step's
// value).
class FillGpuOp : public OpKernel {
 public:
  explicit FillGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    std::vector<int64_t> dims;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(0), &dims));
    const Tensor& value = ctx->input(1);
    OP_REQUIRES(ctx, value.rank() == 0,
                errors::InvalidArgument("value must be a scalar, got shape ",
                                        value.shape().ToString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, TensorShape::Build(dims, &shape));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = out->num_elements();
    if (n == 0) return;
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchBySize(value.dtype(), [&](auto tag) -> Status {
          using U = decltype(tag);
          FillKernel<U>
              <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                  static_cast<U*>(out->raw_data()), n,
                  static_cast<const U*>(value.raw_data()));
          return CheckLaunch(device, "FillKernel");
        }));
  }
};

// out[p, d, s] = indices[p, s] == d ? *on : *off (on and off in device
// memory).
template <typename T, typename I>
__global__ void OneHotKernel(const I* indices, const T* on, const T* off,
                             T* out, int64_t n, int64_t depth, int64_t suffix) {
  TW_GPU_LOOP(i, n) {
    const int64_t s = i % suffix;
    const int64_t d = (i / suffix) % depth;
    const int64_t p = i / (suffix * depth);
    out[i] = static_cast<int64_t>(indices[p * suffix + s]) == d ? *on : *off;
  }
}

class OneHotGpuOp : public OpKernel {
 public:
  explicit OneHotGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(0);
    const Tensor& depth_t = ctx->input(1);
    const Tensor& on = ctx->input(2);
    const Tensor& off = ctx->input(3);
    OP_REQUIRES(ctx, depth_t.rank() == 0,
                errors::InvalidArgument("depth must be a scalar, got shape ",
                                        depth_t.shape().ToString()));
    OP_REQUIRES(ctx, on.rank() == 0,
                errors::InvalidArgument("on_value must be a scalar, got shape ",
                                        on.shape().ToString()));
    OP_REQUIRES(
        ctx, off.rank() == 0,
        errors::InvalidArgument("off_value must be a scalar, got shape ",
                                off.shape().ToString()));
    const int64_t depth = depth_t.data<int32_t>()[0];
    OP_REQUIRES(
        ctx, depth >= 0,
        errors::InvalidArgument("depth must be non-negative, got: ", depth));
    const int rank = indices.rank();
    OP_REQUIRES(
        ctx, axis_ == -1 || (axis_ >= 0 && axis_ <= rank),
        errors::InvalidArgument("Expected axis to be -1 or between [0, ", rank,
                                "].  But received: ", axis_));
    const int axis = static_cast<int>(axis_ == -1 ? rank : axis_);
    std::vector<int64_t> dims = indices.shape().dims();
    dims.insert(dims.begin() + axis, depth);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    const int64_t n = out->num_elements();
    if (n == 0) return;
    const int64_t suffix = DimsProduct(indices.shape().dims(), axis, rank);
    GpuDevice* device = GetGpuDevice(ctx);
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double, int64_t, int32_t,
                          bool>(out->dtype(), [&](auto tag) -> Status {
          using T = decltype(tag);
          return DispatchType<int32_t, int64_t, uint8_t>(
              indices.dtype(), [&](auto itag) -> Status {
                using I = decltype(itag);
                OneHotKernel<T, I>
                    <<<BlocksFor(n), kThreadsPerBlock, 0, device->stream()>>>(
                        indices.data<I>(), on.data<T>(), off.data<T>(),
                        out->data<T>(), n, depth, suffix);
                return CheckLaunch(device, "OneHotKernel");
              });
        }));
  }

 private:
  int64_t axis_ = -1;
};

// --- registrations -----------------------------------------------------------

#define TW_GPU_ARRAY_TYPES \
  { DT_FLOAT, DT_DOUBLE, DT_INT64, DT_BOOL }

REGISTER_KERNEL(KernelDef("Const")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("dtype", TW_GPU_ARRAY_TYPES),
                ConstGpuOp);
REGISTER_KERNEL(KernelDef("StopGradient")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES),
                IdentityGpuOp);
REGISTER_KERNEL(KernelDef("IdentityN").Device(DEVICE_GPU), IdentityGpuOp);
// (Reshape, ExpandDims and Squeeze only relabel their input's buffer: the
// CPU kernels serve the GPU too, registered in core/kernels.)
REGISTER_KERNEL(KernelDef("Transpose")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(1),
                TransposeGpuOp);
REGISTER_KERNEL(KernelDef("Slice")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(1)
                    .HostMemoryInput(2),
                SliceGpuOp);
REGISTER_KERNEL(KernelDef("StridedSlice")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(1)
                    .HostMemoryInput(2)
                    .HostMemoryInput(3),
                StridedSliceGpuOp);
REGISTER_KERNEL(KernelDef("StridedSliceGrad")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64})
                    .HostMemoryInput(0)
                    .HostMemoryInput(1)
                    .HostMemoryInput(2)
                    .HostMemoryInput(3),
                StridedSliceGradGpuOp);
REGISTER_KERNEL(KernelDef("Tile")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(1),
                TileGpuOp);
REGISTER_KERNEL(KernelDef("Pad")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(1),
                PadGpuOp);
REGISTER_KERNEL(KernelDef("PadV2")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(1)
                    .HostMemoryInput(2),
                PadGpuOp);
REGISTER_KERNEL(KernelDef("ConcatV2")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(-1),
                ConcatV2GpuOp);
REGISTER_KERNEL(KernelDef("Pack")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES),
                PackGpuOp);
REGISTER_KERNEL(KernelDef("Unpack")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES),
                UnpackGpuOp);
REGISTER_KERNEL(KernelDef("Split")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(0),
                SplitGpuOp);
REGISTER_KERNEL(KernelDef("SplitV")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(1)
                    .HostMemoryInput(2),
                SplitVGpuOp);
REGISTER_KERNEL(KernelDef("Fill")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", TW_GPU_ARRAY_TYPES)
                    .HostMemoryInput(0),
                FillGpuOp);
REGISTER_KERNEL(KernelDef("OneHot")
                    .Device(DEVICE_GPU)
                    .TypeConstraint("T", {DT_FLOAT, DT_DOUBLE, DT_INT64,
                                          DT_INT32, DT_BOOL})
                    .HostMemoryInput(1),
                OneHotGpuOp);
#undef TW_GPU_ARRAY_TYPES

}  // namespace
}  // namespace gpu
}  // namespace tensorweave
