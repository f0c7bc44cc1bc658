#include "core/kernels/array_op_shapes.h"

#include "core/framework/shape_inference.h"
#include "core/framework/tensor_size.h"

namespace tensorweave {

int64_t DimsProduct(const std::vector<int64_t>& dims, int begin, int end) {
  int64_t p = 1;
  for (int i = begin; i < end; ++i) p *= dims[i];
  return p;
}

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

Status SliceArgs(const OpKernelContext& ctx, std::vector<int64_t>* begin,
                 std::vector<int64_t>* size) {
  const Tensor& x = ctx.input(0);
  TW_RETURN_IF_ERROR(ReadIndexVector(ctx.input(1), begin));
  TW_RETURN_IF_ERROR(ReadIndexVector(ctx.input(2), size));
  const int rank = x.rank();
  if (static_cast<int>(begin->size()) != rank ||
      static_cast<int>(size->size()) != rank) {
    return errors::InvalidArgument(
        "Expected begin and size arguments to be 1-D tensors of size ", rank,
        ", but got shapes ", ctx.input(1).shape().ToString(), " and ",
        ctx.input(2).shape().ToString(), " instead.");
  }
  for (int d = 0; d < rank; ++d) {
    const int64_t b = (*begin)[d];
    if (b < 0 || b > x.dim(d)) {
      return errors::InvalidArgument("Expected begin[", d, "] in [0, ",
                                     x.dim(d), "], but got ", b);
    }
    int64_t& s = (*size)[d];
    if (s == -1) s = x.dim(d) - b;
    if (s < 0 || s > x.dim(d) - b) {
      return errors::InvalidArgument("Expected size[", d, "] in [0, ",
                                     x.dim(d) - b, "], but got ", s);
    }
  }
  return Status::OK();
}

Status TileArgs(const OpKernelContext& ctx, std::vector<int64_t>* multiples,
                std::vector<int64_t>* out_dims) {
  const Tensor& x = ctx.input(0);
  TW_RETURN_IF_ERROR(ReadIndexVector(ctx.input(1), multiples));
  if (ctx.input(1).rank() != 1 ||
      static_cast<int>(multiples->size()) != x.rank()) {
    return errors::InvalidArgument(
        "Expected multiples argument to be a vector of length ", x.rank(),
        " but got shape ", ctx.input(1).shape().ToString());
  }
  out_dims->resize(x.rank());
  for (int d = 0; d < x.rank(); ++d) {
    const int64_t m = (*multiples)[d];
    if (m < 0) {
      return errors::InvalidArgument("Expected multiples[", d,
                                     "] >= 0, but got ", m);
    }
    if (!MultiplyWithoutOverflow(x.dim(d), m, &(*out_dims)[d])) {
      return errors::InvalidArgument("tiled size of dimension ", d, " (",
                                     x.dim(d), " * ", m,
                                     ") does not fit in int64");
    }
  }
  return Status::OK();
}

Status ReadPaddings(const Tensor& paddings, int rank,
                    std::vector<int64_t>* before, std::vector<int64_t>* after) {
  if (paddings.rank() != 2 || paddings.dim(0) != rank || paddings.dim(1) != 2) {
    return errors::InvalidArgument("paddings must be a matrix of shape [", rank,
                                   ", 2] (the input's rank by 2), got shape ",
                                   paddings.shape().ToString());
  }
  Tensor flat;
  TW_RETURN_IF_ERROR(paddings.Reshaped(TensorShape({2 * rank}), &flat));
  std::vector<int64_t> values;
  TW_RETURN_IF_ERROR(ReadIndexVector(flat, &values));
  before->resize(rank);
  after->resize(rank);
  for (int d = 0; d < rank; ++d) {
    (*before)[d] = values[2 * d];
    (*after)[d] = values[2 * d + 1];
    if ((*before)[d] < 0 || (*after)[d] < 0) {
      return errors::InvalidArgument(
          "Paddings must be non-negative: ", (*before)[d], " ", (*after)[d],
          " (dimension ", d, ")");
    }
  }
  return Status::OK();
}

Status PadArgs(const OpKernelContext& ctx, std::vector<int64_t>* before,
               std::vector<int64_t>* after, std::vector<int64_t>* out_dims) {
  const Tensor& x = ctx.input(0);
  TW_RETURN_IF_ERROR(ReadPaddings(ctx.input(1), x.rank(), before, after));
  if (ctx.num_inputs() == 3 && ctx.input(2).rank() != 0) {
    return errors::InvalidArgument(
        "constant_values must be a scalar, got shape ",
        ctx.input(2).shape().ToString());
  }
  out_dims->resize(x.rank());
  for (int d = 0; d < x.rank(); ++d) {
    int64_t& dim = (*out_dims)[d];
    if (!AddWithoutOverflow(x.dim(d), (*before)[d], &dim) ||
        !AddWithoutOverflow(dim, (*after)[d], &dim)) {
      return errors::InvalidArgument("padded size of dimension ", d, " (",
                                     x.dim(d), " + ", (*before)[d], " + ",
                                     (*after)[d], ") does not fit in int64");
    }
  }
  return Status::OK();
}

Status ConcatArgs(const OpKernelContext& ctx, int* axis,
                  std::vector<int64_t>* out_dims,
                  std::vector<int64_t>* widths) {
  const int n = ctx.num_inputs() - 1;
  const Tensor& first = ctx.input(0);
  if (first.rank() == 0) {
    return errors::InvalidArgument(
        "Can't concatenate scalars (use tw.stack instead)");
  }
  TW_RETURN_IF_ERROR(ReadAxis(ctx.input(n), first.rank(), "axis", axis));
  *out_dims = first.shape().dims();
  int64_t& total = (*out_dims)[*axis];
  total = 0;
  widths->resize(n);
  for (int i = 0; i < n; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.rank() != first.rank()) {
      return errors::InvalidArgument(
          "ConcatOp : Ranks of all input tensors should match: shape[0] = ",
          first.shape().ToString(), " vs. shape[", i,
          "] = ", t.shape().ToString());
    }
    for (int d = 0; d < t.rank(); ++d) {
      if (d != *axis && t.dim(d) != first.dim(d)) {
        return errors::InvalidArgument(
            "ConcatOp : Dimension ", d,
            " in both shapes must be equal: shape[0] = ",
            first.shape().ToString(), " vs. shape[", i,
            "] = ", t.shape().ToString());
      }
    }
    if (!AddWithoutOverflow(total, t.dim(*axis), &total)) {
      return errors::InvalidArgument("ConcatOp : the concatenated dimension ",
                                     *axis, " does not fit in int64 (input ", i,
                                     " has shape ", t.shape().ToString(), ")");
    }
    (*widths)[i] = DimsProduct(t.shape().dims(), *axis, t.rank());
  }
  return Status::OK();
}

Status SplitArgs(const OpKernelContext& ctx, int* axis,
                 std::vector<int64_t>* sizes) {
  const Tensor& value = ctx.input(1);
  const int n = ctx.num_outputs();
  if (value.rank() == 0) return errors::InvalidArgument("Can't split a scalar");
  TW_RETURN_IF_ERROR(ReadAxis(ctx.input(0), value.rank(), "split_dim", axis));
  if (value.dim(*axis) % n != 0) {
    return errors::InvalidArgument(
        "Number of ways to split should evenly divide the split dimension, "
        "but got split_dim ",
        *axis, " (size = ", value.dim(*axis), ") and num_split ", n);
  }
  sizes->assign(n, value.dim(*axis) / n);
  return Status::OK();
}

Status SplitVArgs(const OpKernelContext& ctx, int* axis,
                  std::vector<int64_t>* sizes) {
  const Tensor& value = ctx.input(0);
  const int n = ctx.num_outputs();
  if (value.rank() == 0) return errors::InvalidArgument("Can't split a scalar");
  TW_RETURN_IF_ERROR(ReadAxis(ctx.input(2), value.rank(), "split_dim", axis));
  TW_RETURN_IF_ERROR(ReadIndexVector(ctx.input(1), sizes));
  if (static_cast<int>(sizes->size()) != n) {
    return errors::InvalidArgument("size_splits has ", sizes->size(),
                                   " entries but num_split is ", n);
  }
  int unknown = -1;
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const int64_t s = (*sizes)[i];
    if (s == -1 && unknown < 0) {
      unknown = i;
      continue;
    }
    if (s < 0) {
      return errors::InvalidArgument("size_splits[", i, "] = ", s,
                                     " is invalid (at most one -1, the "
                                     "others non-negative)");
    }
    if (!AddWithoutOverflow(total, s, &total)) total = INT64_MAX;
  }
  const int64_t dim = value.dim(*axis);
  if (!((unknown < 0 && total == dim) || (unknown >= 0 && total <= dim))) {
    return errors::InvalidArgument(
        "Determined shape must either match input shape along split_dim "
        "exactly if fully specified, or be less than the size of the input "
        "along split_dim if not fully specified. Got: size_splits sum to ",
        total, ", dimension ", *axis, " has size ", dim);
  }
  if (unknown >= 0) (*sizes)[unknown] = dim - total;
  return Status::OK();
}

Status PackArgs(const OpKernelContext& ctx, int64_t axis_attr, int* axis,
                std::vector<int64_t>* out_dims) {
  const int n = ctx.num_inputs();
  const Tensor& first = ctx.input(0);
  const int rank = first.rank() + 1;
  if (axis_attr < -rank || axis_attr >= rank) {
    return errors::InvalidArgument("axis = ", axis_attr, " not in [", -rank,
                                   ", ", rank, ")");
  }
  *axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  for (int i = 1; i < n; ++i) {
    if (ctx.input(i).shape() != first.shape()) {
      return errors::InvalidArgument(
          "Shapes of all inputs must match: values[0].shape = ",
          first.shape().ToString(), " != values[", i,
          "].shape = ", ctx.input(i).shape().ToString());
    }
  }
  *out_dims = first.shape().dims();
  out_dims->insert(out_dims->begin() + *axis, n);
  return Status::OK();
}

Status UnpackArgs(const OpKernelContext& ctx, int64_t axis_attr, int* axis,
                  std::vector<int64_t>* out_dims) {
  const Tensor& value = ctx.input(0);
  const int rank = value.rank();
  if (rank == 0) return errors::InvalidArgument("Can't unstack a scalar");
  if (axis_attr < -rank || axis_attr >= rank) {
    return errors::InvalidArgument("axis = ", axis_attr, " not in [", -rank,
                                   ", ", rank, ")");
  }
  *axis = static_cast<int>(axis_attr < 0 ? axis_attr + rank : axis_attr);
  const int n = ctx.num_outputs();
  if (value.dim(*axis) != n) {
    return errors::InvalidArgument("Input shape ", value.shape().ToString(),
                                   " has dimension ", *axis, " of size ",
                                   value.dim(*axis), " but num is ", n);
  }
  *out_dims = value.shape().dims();
  out_dims->erase(out_dims->begin() + *axis);
  return Status::OK();
}

Status GatherArgs(const OpKernelContext& ctx, int64_t batch_dims, int* axis,
                  std::vector<int64_t>* out_dims) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  if (batch_dims != 0) {
    return errors::Unimplemented("GatherV2 supports batch_dims=0 only, got ",
                                 batch_dims);
  }
  int64_t a = 0;
  if (ctx.num_inputs() == 3) {
    std::vector<int64_t> axis_value;
    TW_RETURN_IF_ERROR(ReadIndexVector(ctx.input(2), &axis_value));
    if (axis_value.size() != 1) {
      return errors::InvalidArgument("axis must be a scalar, got shape ",
                                     ctx.input(2).shape().ToString());
    }
    a = axis_value[0];
  }
  const int rank = params.rank();
  if (rank < 1) {
    return errors::InvalidArgument("params must be at least 1 dimensional");
  }
  if (a < -rank || a >= rank) {
    return errors::InvalidArgument("Expected axis in the range [", -rank, ", ",
                                   rank, "), but got ", a);
  }
  *axis = static_cast<int>(a < 0 ? a + rank : a);
  const std::vector<int64_t>& p = params.shape().dims();
  out_dims->assign(p.begin(), p.begin() + *axis);
  out_dims->insert(out_dims->end(), indices.shape().dims().begin(),
                   indices.shape().dims().end());
  out_dims->insert(out_dims->end(), p.begin() + *axis + 1, p.end());
  return Status::OK();
}

Status ReadReductionAxes(const Tensor& input, const Tensor& axes_tensor,
                         std::vector<bool>* reduced) {
  if (axes_tensor.rank() > 1) {
    return errors::InvalidArgument(
        "reduction_indices must be a scalar or a vector, got shape ",
        axes_tensor.shape().ToString());
  }
  std::vector<int64_t> axes;
  TW_RETURN_IF_ERROR(ReadIndexVector(axes_tensor, &axes));
  const int rank = input.rank();
  reduced->assign(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", axis,
                                     " for input of shape ",
                                     input.shape().ToString());
    }
    const int64_t a = axis < 0 ? axis + rank : axis;
    if ((*reduced)[a]) {
      return errors::InvalidArgument("Duplicate reduction dimension ", axis,
                                     " in reduction_indices");
    }
    (*reduced)[a] = true;
  }
  return Status::OK();
}

Status ArgReductionArgs(const OpKernelContext& ctx, int* axis,
                        TensorShape* out_shape, int64_t* outer, int64_t* n,
                        int64_t* inner) {
  const Tensor& input = ctx.input(0);
  const Tensor& dimension = ctx.input(1);
  if (dimension.rank() != 0) {
    return errors::InvalidArgument("dimension must be a scalar, got shape ",
                                   dimension.shape().ToString());
  }
  std::vector<int64_t> axis_value;
  TW_RETURN_IF_ERROR(ReadIndexVector(dimension, &axis_value));
  const int rank = input.rank();
  const int64_t a = axis_value[0];
  if (rank == 0 || a < -rank || a >= rank) {
    return errors::InvalidArgument("Invalid dimension ", a,
                                   " for input of shape ",
                                   input.shape().ToString());
  }
  *axis = static_cast<int>(a < 0 ? a + rank : a);
  *n = input.dim(*axis);
  if (*n == 0) {
    return errors::InvalidArgument("Reduction axis ", *axis,
                                   " is empty in shape ",
                                   input.shape().ToString());
  }
  *outer = 1;
  *inner = 1;
  *out_shape = TensorShape();
  for (int i = 0; i < rank; ++i) {
    if (i < *axis) *outer *= input.dim(i);
    if (i > *axis) *inner *= input.dim(i);
    if (i != *axis) out_shape->AddDim(input.dim(i));
  }
  return Status::OK();
}

Status SelectArgs(const OpKernelContext& ctx, bool* rows) {
  const Tensor& cond = ctx.input(0);
  const Tensor& t = ctx.input(1);
  const Tensor& e = ctx.input(2);
  if (t.shape() != e.shape()) {
    return errors::InvalidArgument(
        "Select: t and e must have the same shape, got ", t.shape().ToString(),
        " and ", e.shape().ToString());
  }
  const bool scalar = cond.rank() == 0;
  *rows = cond.rank() == 1 && t.rank() > 1;
  if (!scalar && cond.shape() != t.shape() && !*rows) {
    return errors::InvalidArgument(
        "Select: condition of shape ", cond.shape().ToString(),
        " must be a scalar, a vector over the first dimension or of the shape "
        "of t, ",
        t.shape().ToString());
  }
  if (*rows && cond.dim(0) != t.dim(0)) {
    return errors::InvalidArgument("Select: condition of length ", cond.dim(0),
                                   " must match the first dimension of t, ",
                                   t.shape().ToString());
  }
  return Status::OK();
}

}  // namespace tensorweave
