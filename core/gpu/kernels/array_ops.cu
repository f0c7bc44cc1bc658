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

template <typename Fn>
Status DispatchBySize(DataType dtype, Fn&& fn) {
  switch (DataTypeSize(dtype)) {
    case 1:
      return fn(uint8_t{});
    case 2:
      return fn(uint16_t{});
    case 4:
      return fn(uint32_t{});
    case 8:
      return fn(uint64_t{});
    default:
      return errors::Unimplemented("GPU array kernels do not support ",
                                   DataTypeName(dtype));
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

int64_t Product(const std::vector<int64_t>& dims, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= dims[i];
  return p;
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
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &begin));
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(2), &size));
    const int rank = x.rank();
    OP_REQUIRES(
        ctx,
        static_cast<int>(begin.size()) == rank &&
            static_cast<int>(size.size()) == rank,
        errors::InvalidArgument(
            "Expected begin and size arguments to be 1-D tensors of size ",
            rank, ", but got shapes ", ctx->input(1).shape().ToString(),
            " and ", ctx->input(2).shape().ToString(), " instead."));
    for (int d = 0; d < rank; ++d) {
      OP_REQUIRES(ctx, begin[d] >= 0 && begin[d] <= x.dim(d),
                  errors::InvalidArgument("Expected begin[", d, "] in [0, ",
                                          x.dim(d), "], but got ", begin[d]));
      if (size[d] == -1) size[d] = x.dim(d) - begin[d];
      OP_REQUIRES(
          ctx, size[d] >= 0 && size[d] <= x.dim(d) - begin[d],
          errors::InvalidArgument("Expected size[", d, "] in [0, ",
                                  x.dim(d) - begin[d], "], but got ", size[d]));
    }
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
    std::vector<int64_t> multiples;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &multiples));
    OP_REQUIRES(
        ctx,
        ctx->input(1).rank() == 1 &&
            static_cast<int>(multiples.size()) == x.rank(),
        errors::InvalidArgument(
            "Expected multiples argument to be a vector of length ", x.rank(),
            " but got shape ", ctx->input(1).shape().ToString()));
    std::vector<int64_t> out_dims(x.rank());
    for (int d = 0; d < x.rank(); ++d) {
      OP_REQUIRES(ctx, multiples[d] >= 0,
                  errors::InvalidArgument("Expected multiples[", d,
                                          "] >= 0, but got ", multiples[d]));
      OP_REQUIRES(ctx,
                  MultiplyWithoutOverflow(x.dim(d), multiples[d], &out_dims[d]),
                  errors::InvalidArgument("tiled size of dimension ", d, " (",
                                          x.dim(d), " * ", multiples[d],
                                          ") does not fit in int64"));
    }
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
    const Tensor& paddings = ctx->input(1);
    const int rank = x.rank();
    OP_REQUIRES(
        ctx,
        paddings.rank() == 2 && paddings.dim(0) == rank && paddings.dim(1) == 2,
        errors::InvalidArgument("paddings must be a matrix of shape [", rank,
                                ", 2] (the input's rank by 2), got shape ",
                                paddings.shape().ToString()));
    OP_REQUIRES(ctx, rank <= kMaxDims,
                errors::Unimplemented("GPU Pad supports up to ", kMaxDims,
                                      " dimensions, got ", rank));
    Tensor flat;
    OP_REQUIRES_OK(ctx, paddings.Reshaped(TensorShape({2 * rank}), &flat));
    std::vector<int64_t> values;
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &values));
    IndexMap m, before;
    m.rank = rank;
    std::vector<int64_t> out_dims(rank);
    const std::vector<int64_t> strides = RowMajorStrides(x.shape().dims());
    for (int d = 0; d < rank; ++d) {
      const int64_t lo = values[2 * d], hi = values[2 * d + 1];
      OP_REQUIRES(ctx, lo >= 0 && hi >= 0,
                  errors::InvalidArgument("Paddings must be non-negative: ", lo,
                                          " ", hi, " (dimension ", d, ")"));
      out_dims[d] = x.dim(d) + lo + hi;
      m.out_dims[d] = out_dims[d];
      m.mod[d] = x.dim(d);
      m.strides[d] = strides[d];
      before.out_dims[d] = lo;
    }
    const bool has_value = ctx->num_inputs() > 2;
    if (has_value) {
      OP_REQUIRES(ctx, ctx->input(2).num_elements() == 1,
                  errors::InvalidArgument(
                      "constant_values must be a scalar, got shape ",
                      ctx->input(2).shape().ToString()));
    }
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

Status ReadAxis(const Tensor& t, int rank, const char* what, int* axis) {
  std::vector<int64_t> v;
  TW_RETURN_IF_ERROR(ReadIndexVector(t, &v));
  if (v.size() != 1) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  if (v[0] < -rank || v[0] >= rank) {
    return errors::InvalidArgument(what, " ", v[0], " is out of range [", -rank,
                                   ", ", rank, ")");
  }
  *axis = static_cast<int>(v[0] < 0 ? v[0] + rank : v[0]);
  return Status::OK();
}

class ConcatV2GpuOp : public OpKernel {
 public:
  explicit ConcatV2GpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs() - 1;
    const Tensor& first = ctx->input(0);
    OP_REQUIRES(ctx, first.rank() > 0,
                errors::InvalidArgument("Can't concatenate scalars (use "
                                        "tw.stack instead)"));
    int axis;
    OP_REQUIRES_OK(ctx, ReadAxis(ctx->input(n), first.rank(), "axis", &axis));
    std::vector<int64_t> out_dims = first.shape().dims();
    out_dims[axis] = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      OP_REQUIRES(ctx, t.rank() == first.rank(),
                  errors::InvalidArgument(
                      "ConcatOp : Ranks of all input tensors should match: "
                      "shape[0] = ",
                      first.shape().ToString(), " vs. shape[", i,
                      "] = ", t.shape().ToString()));
      for (int d = 0; d < t.rank(); ++d) {
        OP_REQUIRES(ctx, d == axis || t.dim(d) == first.dim(d),
                    errors::InvalidArgument(
                        "ConcatOp : Dimension ", d,
                        " in both shapes must be equal: shape[0] = ",
                        first.shape().ToString(), " vs. shape[", i,
                        "] = ", t.shape().ToString()));
      }
      out_dims[axis] += t.dim(axis);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    const int64_t esize = DataTypeSize(out->dtype());
    const int64_t outer = Product(out_dims, 0, axis);
    const int64_t out_width = Product(out_dims, axis, first.rank()) * esize;
    int64_t col = 0;
    for (int i = 0; i < n; ++i) {
      const Tensor& t = ctx->input(i);
      const int64_t width = Product(t.shape().dims(), axis, t.rank()) * esize;
      OP_REQUIRES_OK(ctx, Copy2D(GetGpuDevice(ctx),
                                 static_cast<char*>(out->raw_data()) + col,
                                 out_width, t.raw_data(), width, width, outer));
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
    const int rank = first.rank() + 1;
    OP_REQUIRES(ctx, axis_ >= -rank && axis_ < rank,
                errors::InvalidArgument("axis = ", axis_, " not in [", -rank,
                                        ", ", rank, ")"));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    for (int i = 1; i < n; ++i) {
      OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                  errors::InvalidArgument(
                      "Shapes of all inputs must match: values[0].shape = ",
                      first.shape().ToString(), " != values[", i,
                      "].shape = ", ctx->input(i).shape().ToString()));
    }
    std::vector<int64_t> out_dims = first.shape().dims();
    out_dims.insert(out_dims.begin() + axis, n);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    const int64_t esize = DataTypeSize(out->dtype());
    const int64_t outer = Product(first.shape().dims(), 0, axis);
    const int64_t width =
        Product(first.shape().dims(), axis, first.rank()) * esize;
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
  const int64_t outer = Product(dims, 0, axis);
  const int64_t inner = Product(dims, axis + 1, x.rank());
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
    const Tensor& x = ctx->input(1);
    OP_REQUIRES(ctx, x.rank() > 0,
                errors::InvalidArgument("Can't split a scalar"));
    int axis;
    OP_REQUIRES_OK(ctx, ReadAxis(ctx->input(0), x.rank(), "axis", &axis));
    const int n = ctx->num_outputs();
    OP_REQUIRES(ctx, x.dim(axis) % n == 0,
                errors::InvalidArgument(
                    "Number of ways to split should evenly divide the split "
                    "dimension, but got split_dim ",
                    axis, " (size = ", x.dim(axis), ") and num_split ", n));
    SplitInto(ctx, x, axis, std::vector<int64_t>(n, x.dim(axis) / n));
  }
};

class SplitVGpuOp : public OpKernel {
 public:
  explicit SplitVGpuOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.rank() > 0,
                errors::InvalidArgument("Can't split a scalar"));
    int axis;
    OP_REQUIRES_OK(ctx, ReadAxis(ctx->input(2), x.rank(), "axis", &axis));
    std::vector<int64_t> sizes;
    OP_REQUIRES_OK(ctx, ReadIndexVector(ctx->input(1), &sizes));
    const int n = ctx->num_outputs();
    OP_REQUIRES(ctx, static_cast<int>(sizes.size()) == n,
                errors::InvalidArgument("size_splits has ", sizes.size(),
                                        " values but num_split is ", n));
    int unknown = -1;
    int64_t total = 0;
    for (int i = 0; i < n; ++i) {
      if (sizes[i] == -1) {
        OP_REQUIRES(ctx, unknown < 0,
                    errors::InvalidArgument(
                        "Only one dimensions can have a value of -1. Second "
                        "one found at dimension ",
                        i));
        unknown = i;
      } else {
        OP_REQUIRES(ctx, sizes[i] >= 0,
                    errors::InvalidArgument("size_splits[", i,
                                            "] must be >= 0, got ", sizes[i]));
        total += sizes[i];
      }
    }
    if (unknown >= 0) sizes[unknown] = x.dim(axis) - total;
    OP_REQUIRES(ctx,
                (unknown < 0 && total == x.dim(axis)) ||
                    (unknown >= 0 && total <= x.dim(axis)),
                errors::InvalidArgument(
                    "Determined shape must either match input shape along "
                    "split_dim exactly if fully specified, or be less than the "
                    "size of the input along split_dim if not fully "
                    "specified.  Got: ",
                    total));
    SplitInto(ctx, x, axis, sizes);
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
    OP_REQUIRES(ctx, axis_ >= -rank && axis_ < rank,
                errors::InvalidArgument("axis = ", axis_, " not in [", -rank,
                                        ", ", rank, ")"));
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    const int n = ctx->num_outputs();
    OP_REQUIRES(
        ctx, x.dim(axis) == n,
        errors::InvalidArgument("Input shape axis ", axis, " must equal ", n,
                                ", got shape ", x.shape().ToString()));
    std::vector<int64_t> dims = x.shape().dims();
    const int64_t esize = DataTypeSize(x.dtype());
    const int64_t outer = Product(dims, 0, axis);
    const int64_t width = Product(dims, axis + 1, rank) * esize;
    std::vector<int64_t> out_dims = dims;
    out_dims.erase(out_dims.begin() + axis);
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
    const int64_t suffix = Product(indices.shape().dims(), axis, rank);
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
