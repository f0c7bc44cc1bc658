// Transpose and InvertPermutation kernels. Transpose collapses dimensions
// that stay adjacent, so NHWC <-> NCHW and matrix transposes become batched
// 2-D transposes done in cache-sized blocks; any other permutation goes
// through offset tables.
#include <algorithm>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/offset_tables.h"

namespace tensorweave {
namespace {

// out[b][c][r] = in[b][r][c] for b < batch, r < rows, c < cols.
template <typename T>
void BatchedTranspose2D(OpKernelContext* ctx, const T* in, int64_t batch,
                        int64_t rows, int64_t cols, T* out) {
  constexpr int64_t kBlock = 32;
  const int64_t row_blocks = (rows + kBlock - 1) / kBlock;
  auto work = [&](int64_t begin, int64_t end) {
    for (int64_t task = begin; task < end; ++task) {
      const int64_t b = task / row_blocks;
      const int64_t r0 = (task % row_blocks) * kBlock;
      const int64_t r1 = std::min(rows, r0 + kBlock);
      const T* src = in + b * rows * cols;
      T* dst = out + b * rows * cols;
      for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
        const int64_t c1 = std::min(cols, c0 + kBlock);
        for (int64_t r = r0; r < r1; ++r) {
          for (int64_t c = c0; c < c1; ++c)
            dst[c * rows + r] = src[r * cols + c];
        }
      }
    }
  };
  const int64_t tasks = batch * row_blocks;
  if (ctx->intra_op_pool() == nullptr ||
      batch * rows * cols < kParallelElementThreshold) {
    work(0, tasks);
  } else {
    const int64_t per_task = std::max<int64_t>(1, kBlock * cols);
    ctx->intra_op_pool()->ParallelFor(
        tasks, std::max<int64_t>(1, kParallelElementThreshold / per_task),
        work);
  }
}

Status ReadPermutation(const Tensor& perm_tensor, int rank,
                       std::vector<int64_t>* perm) {
  TW_RETURN_IF_ERROR(ReadIndexVector(perm_tensor, perm));
  if (static_cast<int>(perm->size()) != rank) {
    return errors::InvalidArgument("transpose expects a vector of size ", rank,
                                   ". But input(1) is a vector of size ",
                                   perm->size());
  }
  std::vector<bool> seen(rank, false);
  for (int i = 0; i < rank; ++i) {
    const int64_t p = (*perm)[i];
    if (p < 0 || p >= rank) {
      return errors::InvalidArgument("perm[", i, "] = ", p,
                                     " is out of range [0, ", rank, ")");
    }
    if (seen[p]) {
      return errors::InvalidArgument(p, " is repeated in the permutation");
    }
    seen[p] = true;
  }
  return Status::OK();
}

class TransposeOp : public OpKernel {
 public:
  explicit TransposeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    std::vector<int64_t> perm;
    OP_REQUIRES_OK(ctx, ReadPermutation(ctx->input(1), x.rank(), &perm));
    std::vector<int64_t> out_dims(x.rank());
    for (int i = 0; i < x.rank(); ++i) out_dims[i] = x.dim(perm[i]);
    // Runs of input dims that stay adjacent and in order move as one.
    std::vector<int64_t> dims, order;  // collapsed input dims, permutation
    for (int i = 0; i < x.rank(); ++i) {
      if (i > 0 && perm[i] == perm[i - 1] + 1) continue;
      int64_t size = 1;
      int j = i;
      do {
        size *= x.dim(perm[j]);
        ++j;
      } while (j < x.rank() && perm[j] == perm[j - 1] + 1);
      order.push_back(perm[i]);
      dims.push_back(size);
    }
    // `order` holds the first input dim of each group; rank them.
    std::vector<int64_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> group_perm(order.size());
    std::vector<int64_t> group_dims(order.size());
    for (size_t g = 0; g < order.size(); ++g) {
      group_perm[g] = std::lower_bound(sorted.begin(), sorted.end(), order[g]) -
                      sorted.begin();
      group_dims[group_perm[g]] = dims[g];
    }
    if (group_perm.size() <= 1) {  // the identity: share the buffer
      Tensor out;
      OP_REQUIRES_OK(ctx, x.Reshaped(TensorShape(out_dims), &out));
      ctx->set_output(0, std::move(out));
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    if (out->num_elements() == 0) return;
    OP_REQUIRES_OK(
        ctx, DispatchType<TW_ARRAY_TYPES>(x.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* in = x.data<T>();
          T* o = out->data<T>();
          if (group_perm == std::vector<int64_t>{1, 0}) {
            BatchedTranspose2D(ctx, in, 1, group_dims[0], group_dims[1], o);
          } else if (group_perm == std::vector<int64_t>{0, 2, 1}) {
            BatchedTranspose2D(ctx, in, group_dims[0], group_dims[1],
                               group_dims[2], o);
          } else {
            const std::vector<int64_t> strides =
                RowMajorStrides(x.shape().dims());
            OffsetTables tables(x.rank());
            for (int i = 0; i < x.rank(); ++i) {
              tables[i] = AffineTable(out_dims[i], 0, 1, strides[perm[i]]);
            }
            GatherByTables(ctx, in, tables, o);
          }
          return Status::OK();
        }));
  }
};

class InvertPermutationOp : public OpKernel {
 public:
  explicit InvertPermutationOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    OP_REQUIRES(ctx, x.rank() == 1,
                errors::InvalidArgument("invert_permutation expects a 1D "
                                        "vector, got shape ",
                                        x.shape().ToString()));
    std::vector<int64_t> perm;
    OP_REQUIRES_OK(ctx, ReadPermutation(x, x.dim(0), &perm));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &out));
    OP_REQUIRES_OK(ctx,
                   DispatchType<int32_t, int64_t>(x.dtype(), [&](auto tag) {
                     using T = decltype(tag);
                     for (int64_t i = 0; i < x.dim(0); ++i) {
                       out->data<T>()[perm[i]] = static_cast<T>(i);
                     }
                     return Status::OK();
                   }));
  }
};

REGISTER_KERNEL(KernelDef("Transpose"), TransposeOp);
REGISTER_KERNEL(KernelDef("InvertPermutation"), InvertPermutationOp);

}  // namespace
}  // namespace tensorweave
