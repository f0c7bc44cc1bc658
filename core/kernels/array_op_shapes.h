// What the CPU and GPU kernels of the array ops share: reading and checking
// their arguments and computing their output shapes, so that a bad argument
// gives the same error on every device.
#ifndef TENSORWEAVE_CORE_KERNELS_ARRAY_OP_SHAPES_H_
#define TENSORWEAVE_CORE_KERNELS_ARRAY_OP_SHAPES_H_

#include <cstdint>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"

namespace tensorweave {

// The product of dims[begin, end).
int64_t DimsProduct(const std::vector<int64_t>& dims, int begin, int end);

// A scalar axis tensor in [-rank, rank), made non-negative.
Status ReadAxis(const Tensor& t, int rank, const char* what, int* axis);

// Slice(x, begin, size): begin and size with size -1 resolved.
Status SliceArgs(const OpKernelContext& ctx, std::vector<int64_t>* begin,
                 std::vector<int64_t>* size);

// Tile(x, multiples): the multiples and the output dims.
Status TileArgs(const OpKernelContext& ctx, std::vector<int64_t>* multiples,
                std::vector<int64_t>* out_dims);

// paddings: a [rank, 2] int tensor of non-negative values.
Status ReadPaddings(const Tensor& paddings, int rank,
                    std::vector<int64_t>* before, std::vector<int64_t>* after);

// Pad(x, paddings) and PadV2(x, paddings, constant_values): the paddings
// and the output dims.
Status PadArgs(const OpKernelContext& ctx, std::vector<int64_t>* before,
               std::vector<int64_t>* after, std::vector<int64_t>* out_dims);

// ConcatV2(values..., axis): the axis, the output dims, and each input's row
// width (its elements from `axis` on).
Status ConcatArgs(const OpKernelContext& ctx, int* axis,
                  std::vector<int64_t>* out_dims, std::vector<int64_t>* widths);

// Split(split_dim, value) and SplitV(value, size_splits, split_dim): the axis
// and the size of each output along it.
Status SplitArgs(const OpKernelContext& ctx, int* axis,
                 std::vector<int64_t>* sizes);
Status SplitVArgs(const OpKernelContext& ctx, int* axis,
                  std::vector<int64_t>* sizes);

// Pack(values...) with attr axis: the axis and the output dims.
Status PackArgs(const OpKernelContext& ctx, int64_t axis_attr, int* axis,
                std::vector<int64_t>* out_dims);

// Unpack(value) with attr axis: the axis and each output's dims.
Status UnpackArgs(const OpKernelContext& ctx, int64_t axis_attr, int* axis,
                  std::vector<int64_t>* out_dims);

// Gather(params, indices) and GatherV2(params, indices, axis) with attr
// batch_dims: the axis and the output dims (the indices' values are not
// checked here).
Status GatherArgs(const OpKernelContext& ctx, int64_t batch_dims, int* axis,
                  std::vector<int64_t>* out_dims);

// The reduction ops (Sum, Mean, Max...; input 1 the reduction_indices):
// which of the input's dims are reduced.
Status ReadReductionAxes(const Tensor& input, const Tensor& axes,
                         std::vector<bool>* reduced);

// ArgMax / ArgMin(input, dimension): the axis, the output shape, and the
// input as [outer, n, inner] around the axis.
Status ArgReductionArgs(const OpKernelContext& ctx, int* axis,
                        TensorShape* out_shape, int64_t* outer, int64_t* n,
                        int64_t* inner);

// Select(condition, t, e) (TF1's rules, not SelectV2's broadcasting): t and e
// of one shape; the condition a scalar, a vector over the first dimension
// (*rows set) or of t's shape.
Status SelectArgs(const OpKernelContext& ctx, bool* rows);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_ARRAY_OP_SHAPES_H_
