// Array ops that rearrange elements: transposing, joining and splitting,
// stacking, tiling, padding, adding and removing size-1 dimensions.
#include <algorithm>
#include <string>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// The values of constant input i, or false when it is not constant.
bool ConstantVector(InferenceContext* c, int i, std::vector<int64_t>* values) {
  const Tensor* t = c->input_value(i);
  return t != nullptr && ReadIndexVector(*t, values).ok();
}

// `axis` in [-rank, rank) made non-negative.
Status CanonicalAxis(int64_t axis, int rank, const char* what, int64_t* out) {
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument(what, " ", axis, " is out of range [", -rank,
                                   ", ", rank, ")");
  }
  *out = axis < 0 ? axis + rank : axis;
  return Status::OK();
}

Status TransposeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> perm;
  const bool known = ConstantVector(c, 1, &perm);
  int rank = in.rank();
  if (rank < 0 && known) rank = static_cast<int>(perm.size());
  if (rank < 0 && c->input(1).known_rank() && c->input(1).rank() == 1) {
    rank = static_cast<int>(c->input(1).dim(0));
  }
  if (rank < 0) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (!known) {
    c->set_output(0, PartialShape::Unknown(rank));
    return Status::OK();
  }
  if (static_cast<int>(perm.size()) != rank) {
    // TF's shape function's wording (its kernel's, at run time: "transpose
    // expects a vector of size ...").
    return errors::InvalidArgument("Dimension must be ", rank, " but is ",
                                   perm.size());
  }
  std::vector<bool> seen(rank, false);
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= rank || seen[perm[i]]) {
      return errors::InvalidArgument(perm[i], " is out of range [0 .. ", rank,
                                     ") or repeated in the permutation");
    }
    seen[perm[i]] = true;
    dims[i] = in.known_rank() ? in.dim(static_cast<int>(perm[i])) : -1;
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status InvertPermutationShape(InferenceContext* c) {
  PartialShape x;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &x));
  c->set_output(0, x);
  return Status::OK();
}

// Concat along `axis` of inputs [first, first + n).
Status ConcatShapeOf(InferenceContext* c, int first, int n, int axis_input) {
  std::vector<int64_t> axis_value;
  int rank = -1;
  for (int i = first; i < first + n; ++i) {
    if (c->input(i).known_rank()) {
      if (rank >= 0 && c->input(i).rank() != rank) {
        // TensorFlow's shape function checks each input WithRank.
        return errors::InvalidArgument("Shape must be rank ", rank,
                                       " but is rank ", c->input(i).rank());
      }
      rank = c->input(i).rank();
    }
  }
  if (rank < 0) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (rank == 0) {
    return errors::InvalidArgument(
        "Can't concatenate scalars (use tw.stack "
        "instead)");
  }
  if (!ConstantVector(c, axis_input, &axis_value) || axis_value.size() != 1) {
    c->set_output(0, PartialShape::Unknown(rank));
    return Status::OK();
  }
  // TF's ConcatV2 shape function: a positive axis past the end asks for a
  // higher rank, a negative one is out of range.
  if (axis_value[0] >= rank) {
    return errors::InvalidArgument("Shape must be at least rank ",
                                   axis_value[0] + 1, " but is rank ", rank);
  }
  if (axis_value[0] < -rank) {
    return errors::InvalidArgument(
        "ConcatOp : Expected concatenating dimensions in the range [", -rank,
        ", ", rank, "), but got ", axis_value[0]);
  }
  int64_t axis;
  TW_RETURN_IF_ERROR(CanonicalAxis(axis_value[0], rank, "axis", &axis));
  std::vector<int64_t> dims(rank, -1);
  int64_t concat_dim = 0;
  for (int i = first; i < first + n; ++i) {
    const PartialShape& s = c->input(i);
    if (!s.known_rank()) {
      concat_dim = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      if (dims[d] >= 0 && s.dim(d) >= 0 && dims[d] != s.dim(d)) {
        return errors::InvalidArgument(
            "ConcatOp : Dimension ", d,
            " in both shapes must be equal: shape[0] = ",
            c->input(first).ToString(), " vs. shape[", i - first,
            "] = ", s.ToString());
      }
      if (dims[d] < 0) dims[d] = s.dim(d);
    }
    if (concat_dim >= 0) {
      const int64_t size = s.dim(static_cast<int>(axis));
      if (size < 0) {
        concat_dim = -1;
      } else if (__builtin_add_overflow(concat_dim, size, &concat_dim)) {
        return errors::InvalidArgument("ConcatOp : the concatenated dimension ",
                                       axis, " does not fit in int64 (input ",
                                       i - first, " has shape ", s.ToString(),
                                       ")");
      }
    }
  }
  dims[axis] = concat_dim;
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status ConcatV2Shape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(c->num_inputs() - 1, 0, &unused));
  return ConcatShapeOf(c, 0, c->num_inputs() - 1, c->num_inputs() - 1);
}

// Split(split_dim, value): num_split equal parts.
Status SplitShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  const PartialShape& in = c->input(1);
  const int n = c->num_outputs();
  std::vector<int64_t> axis_value;
  if (!in.known_rank()) return shape_fns::UnknownShape(c);
  if (!ConstantVector(c, 0, &axis_value)) {
    for (int i = 0; i < n; ++i)
      c->set_output(i, PartialShape::Unknown(in.rank()));
    return Status::OK();
  }
  int64_t axis;
  TW_RETURN_IF_ERROR(
      CanonicalAxis(axis_value[0], in.rank(), "split_dim", &axis));
  std::vector<int64_t> dims = in.dims();
  if (dims[axis] >= 0) {
    if (dims[axis] % n != 0) {
      // TensorFlow's wording: its Divide check, then the Split context.
      return errors::InvalidArgument(
          "Dimension size must be evenly divisible by ", n, " but is ",
          dims[axis],
          "\n\tNumber of ways to split should evenly "
          "divide the split dimension, but got "
          "split_dim ",
          axis, " (size = ", dims[axis], ") and num_split ", n);
    }
    dims[axis] /= n;
  }
  for (int i = 0; i < n; ++i) c->set_output(i, PartialShape(dims));
  return Status::OK();
}

// SplitV(value, size_splits, split_dim): one size may be -1.
Status SplitVShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &unused));
  const PartialShape& in = c->input(0);
  const int n = c->num_outputs();
  if (!in.known_rank()) return shape_fns::UnknownShape(c);
  std::vector<int64_t> axis_value, sizes;
  if (!ConstantVector(c, 2, &axis_value)) {
    for (int i = 0; i < n; ++i)
      c->set_output(i, PartialShape::Unknown(in.rank()));
    return Status::OK();
  }
  int64_t axis;
  TW_RETURN_IF_ERROR(
      CanonicalAxis(axis_value[0], in.rank(), "split_dim", &axis));
  if (!ConstantVector(c, 1, &sizes)) {
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> dims = in.dims();
      dims[axis] = -1;
      c->set_output(i, PartialShape(dims));
    }
    return Status::OK();
  }
  if (static_cast<int>(sizes.size()) != n) {
    return errors::InvalidArgument("size_splits has ", sizes.size(),
                                   " entries but num_split is ", n);
  }
  int unknown = -1;
  int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    if (sizes[i] == -1) {
      if (unknown >= 0) {
        return errors::InvalidArgument(
            "size_splits may have at most one -1, got ", unknown, " and ", i);
      }
      unknown = i;
    } else if (sizes[i] < 0) {
      return errors::InvalidArgument("size_splits[", i, "] = ", sizes[i],
                                     " is negative");
    } else if (__builtin_add_overflow(total, sizes[i], &total)) {
      return errors::InvalidArgument(
          "size_splits add up to more than int64 "
          "holds at size_splits[",
          i, "] = ", sizes[i]);
    }
  }
  const int64_t dim = in.dim(static_cast<int>(axis));
  if (dim >= 0) {
    if (unknown < 0 && total != dim) {  // TF's wording
      std::string pieces;
      for (size_t i = 0; i < sizes.size(); ++i) {
        pieces += (i ? "," : "") + std::to_string(sizes[i]);
      }
      return errors::InvalidArgument("can't split axis of size ", dim,
                                     " into pieces of size [", pieces, "]");
    }
    if (unknown >= 0 && total > dim) {
      return errors::InvalidArgument(
          "Determined shape must either match input shape along split_dim "
          "exactly if fully specified, or be less than the size of the input "
          "along split_dim if not fully specified. Got: size_splits sum to ",
          total, ", dimension ", axis, " has size ", dim);
    }
    if (unknown >= 0) sizes[unknown] = dim - total;
  }
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> dims = in.dims();
    dims[axis] = sizes[i];
    c->set_output(i, PartialShape(dims));
  }
  return Status::OK();
}

// `a` merged with `b`, failing with the words of TensorFlow's
// InferenceContext::Merge.
Status MergeAsTensorFlow(const PartialShape& a, const PartialShape& b,
                         PartialShape* out) {
  if (a.known_rank() && b.known_rank()) {
    if (a.rank() != b.rank()) {
      return errors::InvalidArgument("Shapes must be equal rank, but are ",
                                     a.rank(), " and ", b.rank());
    }
    for (int d = 0; d < a.rank(); ++d) {
      if (a.dim(d) >= 0 && b.dim(d) >= 0 && a.dim(d) != b.dim(d)) {
        return errors::InvalidArgument(
            "Dimension ", d, " in both shapes must be equal, but are ",
            a.dim(d), " and ", b.dim(d), ". Shapes are ", a.ToString(), " and ",
            b.ToString(), ".");
      }
    }
  }
  return a.Merge(b, out);
}

Status PackShape(InferenceContext* c) {
  // As TensorFlow's: merged from the last input back to the first.
  PartialShape merged = c->input(c->num_inputs() - 1);
  for (int i = c->num_inputs() - 2; i >= 0; --i) {
    Status s = MergeAsTensorFlow(c->input(i), merged, &merged);
    if (!s.ok()) {
      return errors::InvalidArgument(s.message(), "\n\tFrom merging shape ", i,
                                     " with other shapes.");
    }
  }
  int64_t axis;
  TW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (!merged.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  const int rank = merged.rank() + 1;
  TW_RETURN_IF_ERROR(CanonicalAxis(axis, rank, "axis", &axis));
  std::vector<int64_t> dims = merged.dims();
  dims.insert(dims.begin() + axis, c->num_inputs());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status UnpackShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  int64_t axis;
  TW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  if (!in.known_rank()) return shape_fns::UnknownShape(c);
  TW_RETURN_IF_ERROR(CanonicalAxis(axis, in.rank(), "axis", &axis));
  std::vector<int64_t> dims = in.dims();
  const int64_t n = dims[axis];
  if (n >= 0 && n != c->num_outputs()) {
    return errors::InvalidArgument("Dimension ", axis, " has size ", n,
                                   " but num is ", c->num_outputs());
  }
  dims.erase(dims.begin() + axis);
  for (int i = 0; i < c->num_outputs(); ++i)
    c->set_output(i, PartialShape(dims));
  return Status::OK();
}

Status TileShape(InferenceContext* c) {
  PartialShape multiples_shape;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &multiples_shape));
  const PartialShape& in = c->input(0);
  // Each multiple that partial evaluation knows gives its dim.
  const PartialValue multiples = c->input_partial_value(1);
  int rank = in.rank();
  if (rank < 0) rank = static_cast<int>(multiples_shape.dim(0));
  if (rank < 0 && multiples.known_length && !multiples.scalar) {
    rank = static_cast<int>(multiples.elements.size());
  }
  if (rank < 0) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (multiples_shape.dim(0) >= 0 && multiples_shape.dim(0) != rank) {
    // TensorFlow's words (its shape function checks the input's rank
    // against the multiples' length).
    return errors::InvalidArgument("Shape must be rank ", rank, " but is rank ",
                                   multiples_shape.dim(0));
  }
  const bool known_length = multiples.known_length && !multiples.scalar &&
                            static_cast<int>(multiples.elements.size()) == rank;
  std::vector<int64_t> dims(rank, -1);
  for (int d = 0; d < rank && known_length; ++d) {
    const std::optional<int64_t>& m = multiples.elements[d];
    if (!m.has_value()) continue;
    if (*m < 0) {
      return errors::InvalidArgument("Expected multiples[", d,
                                     "] >= 0, but got ", *m);
    }
    if (in.known_rank() && in.dim(d) >= 0 &&
        __builtin_mul_overflow(in.dim(d), *m, &dims[d])) {
      return errors::InvalidArgument("tiled size of dimension ", d, " (",
                                     in.dim(d), " * ", *m,
                                     ") does not fit in int64");
    }
    if (*m == 0) dims[d] = 0;
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// Pad, PadV2, MirrorPad: paddings is [rank, 2].
Status PadShape(InferenceContext* c) {
  PartialShape paddings_shape;
  TW_RETURN_IF_ERROR(c->WithRank(1, 2, &paddings_shape));
  if (paddings_shape.dim(1) >= 0 && paddings_shape.dim(1) != 2) {
    return errors::InvalidArgument(
        "paddings must be a matrix with 2 columns, "
        "got shape ",
        paddings_shape.ToString());
  }
  const PartialShape& in = c->input(0);
  int rank = in.rank();
  if (rank < 0) rank = static_cast<int>(paddings_shape.dim(0));
  if (rank < 0) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (paddings_shape.dim(0) >= 0 && paddings_shape.dim(0) != rank) {
    // TF's wording: the input taken with the rank the paddings give.
    return errors::InvalidArgument("Shape must be rank ", paddings_shape.dim(0),
                                   " but is rank ", rank);
  }
  std::vector<int64_t> pads;
  std::vector<int64_t> dims(rank, -1);
  if (c->input_value(1) != nullptr) {
    Tensor flat;
    TW_RETURN_IF_ERROR(c->input_value(1)->Reshaped(
        TensorShape({c->input_value(1)->num_elements()}), &flat));
    TW_RETURN_IF_ERROR(ReadIndexVector(flat, &pads));
    for (int d = 0; d < rank; ++d) {
      if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) {
        return errors::InvalidArgument("Paddings must be non-negative: ",
                                       pads[2 * d], " ", pads[2 * d + 1]);
      }
      if (in.known_rank() && in.dim(d) >= 0 &&
          (__builtin_add_overflow(in.dim(d), pads[2 * d], &dims[d]) ||
           __builtin_add_overflow(dims[d], pads[2 * d + 1], &dims[d]))) {
        return errors::InvalidArgument(
            "padded size of dimension ", d, " (", in.dim(d), " + ", pads[2 * d],
            " + ", pads[2 * d + 1], ") does not fit in int64");
      }
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status PadV2Shape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &unused));
  return PadShape(c);
}

// MirrorPadGrad: the input shape, when the paddings are known.
Status MirrorPadGradShape(InferenceContext* c) {
  PartialShape paddings_shape;
  TW_RETURN_IF_ERROR(c->WithRank(1, 2, &paddings_shape));
  const PartialShape& in = c->input(0);
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims(in.rank(), -1);
  if (c->input_value(1) != nullptr &&
      c->input_value(1)->num_elements() == 2 * in.rank()) {
    Tensor flat;
    TW_RETURN_IF_ERROR(c->input_value(1)->Reshaped(
        TensorShape({c->input_value(1)->num_elements()}), &flat));
    std::vector<int64_t> pads;
    TW_RETURN_IF_ERROR(ReadIndexVector(flat, &pads));
    for (int d = 0; d < in.rank(); ++d) {
      if (pads[2 * d] < 0 || pads[2 * d + 1] < 0) {
        return errors::InvalidArgument(
            "Paddings must be non-negative: ", pads[2 * d], " ",
            pads[2 * d + 1], " (dimension ", d, ")");
      }
      // Compared before subtracting (huge pads must not overflow).
      const int64_t size = in.dim(d), before = pads[2 * d],
                    after = pads[2 * d + 1];
      if (size >= 0) {
        dims[d] =
            before > size || after > size - before ? -1 : size - before - after;
      }
      if (in.dim(d) >= 0 && dims[d] < 0) {
        return errors::InvalidArgument("paddings of dimension ", d,
                                       " exceed its size ", in.dim(d));
      }
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status ExpandDimsShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> dim;
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (!ConstantVector(c, 1, &dim)) {  // as TensorFlow: nothing is known
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (dim.size() != 1) {
    return errors::InvalidArgument(
        "'dim' must be a tensor with a single value, got ", dim.size());
  }
  if (dim[0] < -(in.rank() + 1) || dim[0] > in.rank()) {  // TF's wording
    return errors::InvalidArgument("dim ", dim[0], " not in the interval [",
                                   -(in.rank() + 1), ", ", in.rank(), "].");
  }
  int64_t axis;
  TW_RETURN_IF_ERROR(CanonicalAxis(dim[0], in.rank() + 1, "dim", &axis));
  std::vector<int64_t> dims = in.dims();
  dims.insert(dims.begin() + axis, 1);
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status SqueezeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> squeeze_dims;
  TW_RETURN_IF_ERROR(c->GetAttr("squeeze_dims", &squeeze_dims));
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<bool> remove(in.rank(), false);
  for (int64_t d : squeeze_dims) {
    int64_t axis;
    TW_RETURN_IF_ERROR(CanonicalAxis(d, in.rank(), "squeeze dim", &axis));
    if (in.dim(static_cast<int>(axis)) >= 0 &&
        in.dim(static_cast<int>(axis)) != 1) {
      return errors::InvalidArgument("Can not squeeze dim[", axis,
                                     "], expected a dimension of 1, got ",
                                     in.dim(static_cast<int>(axis)));
    }
    remove[axis] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < in.rank(); ++d) {
    if (squeeze_dims.empty()) {
      if (in.dim(d) == 1) continue;
      if (in.dim(d) < 0) {  // might be 1: the rank is not known
        c->set_output(0, PartialShape::UnknownRank());
        return Status::OK();
      }
    } else if (remove[d]) {
      continue;
    }
    dims.push_back(in.dim(d));
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Transpose")
    .Input("x: T")
    .Input("perm: Tperm")
    .Output("y: T")
    .Attr("T: type")
    .Attr("Tperm: {int32, int64} = int32")
    .SetShapeFn(TransposeShape)
    .Doc("Permutes the dimensions of x: y.shape[i] = x.shape[perm[i]].");

REGISTER_OP("InvertPermutation")
    .Input("x: T")
    .Output("y: T")
    .Attr("T: {int32, int64} = int32")
    .SetShapeFn(InvertPermutationShape)
    .Doc("The inverse permutation: y[x[i]] = i.");

REGISTER_OP("ConcatV2")
    .Input("values: N * T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("N: int >= 2")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn(ConcatV2Shape)
    .Doc(
        "Joins tensors along dimension `axis` (negative counts from the end).");

REGISTER_OP("Split")
    .Input("split_dim: int32")
    .Input("value: T")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .SetShapeFn(SplitShape)
    .Doc("Splits value along split_dim into num_split equal parts.");

REGISTER_OP("SplitV")
    .Input("value: T")
    .Input("size_splits: Tlen")
    .Input("split_dim: int32")
    .Output("output: num_split * T")
    .Attr("num_split: int >= 1")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = int64")
    .SetShapeFn(SplitVShape)
    .Doc(
        "Splits value along split_dim into parts of the given sizes (one "
        "may be -1: the rest).");

REGISTER_OP("Pack")
    .Input("values: N * T")
    .Output("output: T")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(PackShape)
    .Doc("Stacks N tensors of one shape into one of rank + 1, along axis.");

REGISTER_OP("Unpack")
    .Input("value: T")
    .Output("output: num * T")
    .Attr("num: int >= 0")
    .Attr("T: type")
    .Attr("axis: int = 0")
    .SetShapeFn(UnpackShape)
    .Doc("Unstacks the `num` slices of value along axis.");

REGISTER_OP("Tile")
    .Input("input: T")
    .Input("multiples: Tmultiples")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tmultiples: {int32, int64} = int32")
    .SetShapeFn(TileShape)
    .Doc("Repeats input multiples[d] times along each dimension d.");

REGISTER_OP("Pad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = int32")
    .SetShapeFn(PadShape)
    .Doc("Pads with zeros: paddings[d] = [before, after] for dimension d.");

REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = int32")
    .SetShapeFn(PadV2Shape)
    .Doc("Pads with the scalar constant_values.");

REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = int32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(PadShape)
    .Doc(
        "Pads with a mirror image of input: REFLECT leaves out the edge "
        "element (pads < size), SYMMETRIC repeats it (pads <= size).");

REGISTER_OP("MirrorPadGrad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: {float32, float64, int32, int64}")
    .Attr("Tpaddings: {int32, int64} = int32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadGradShape)
    .Doc(
        "The gradient of MirrorPad: folds the padded parts back onto the "
        "elements they mirror, summing.");

REGISTER_OP("ExpandDims")
    .Input("input: T")
    .Input("dim: Tdim")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tdim: {int32, int64} = int32")
    .SetShapeFn(ExpandDimsShape)
    .Doc("Inserts a dimension of size 1 at index dim (in [-rank-1, rank]).");

REGISTER_OP("Squeeze")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("squeeze_dims: list(int) = []")
    .SetShapeFn(SqueezeShape)
    .Doc("Removes dimensions of size 1 (all of them, or those listed).");

}  // namespace tensorweave
