// Array ops that select elements by position: slicing, strided slicing,
// gathering, segment sums, one-hot encoding and Where.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/strided_slice.h"

namespace tensorweave {
namespace {

bool ConstantVector(InferenceContext* c, int i, std::vector<int64_t>* values) {
  const Tensor* t = c->input_value(i);
  return t != nullptr && ReadIndexVector(*t, values).ok();
}

Status SliceShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  PartialShape begin_shape, size_shape;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &begin_shape));
  TW_RETURN_IF_ERROR(c->WithRank(2, 1, &size_shape));
  int rank = in.rank();
  if (rank < 0) rank = static_cast<int>(begin_shape.dim(0));
  if (rank < 0) rank = static_cast<int>(size_shape.dim(0));
  if (rank < 0) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  for (const PartialShape* s : {&begin_shape, &size_shape}) {
    if (s->dim(0) >= 0 && s->dim(0) != rank) {
      return errors::InvalidArgument(
          "Expected begin and size arguments to be 1-D tensors of size ", rank,
          ", but got shapes ", begin_shape.ToString(), " and ",
          size_shape.ToString());
    }
  }
  std::vector<int64_t> begin, size;
  const bool begin_known = ConstantVector(c, 1, &begin);
  const bool size_known = ConstantVector(c, 2, &size);
  std::vector<int64_t> dims(rank, -1);
  for (int d = 0; d < rank; ++d) {
    const int64_t dim = in.known_rank() ? in.dim(d) : -1;
    if (begin_known && (begin[d] < 0 || (dim >= 0 && begin[d] > dim))) {
      return errors::InvalidArgument("Expected begin[", d, "] in [0, ", dim,
                                     "], but got ", begin[d]);
    }
    if (!size_known) continue;
    if (size[d] < -1) {
      return errors::InvalidArgument("Expected size[", d, "] >= -1, but got ",
                                     size[d]);
    }
    if (size[d] >= 0) {
      if (begin_known && dim >= 0 && size[d] > dim - begin[d]) {
        return errors::InvalidArgument("Expected size[", d, "] in [0, ",
                                       dim - begin[d], "], but got ", size[d]);
      }
      dims[d] = size[d];
    } else if (begin_known && dim >= 0) {
      dims[d] = dim - begin[d];
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status ReadMasks(InferenceContext* c, StridedSliceMasks* masks) {
  TW_RETURN_IF_ERROR(c->GetAttr("begin_mask", &masks->begin_mask));
  TW_RETURN_IF_ERROR(c->GetAttr("end_mask", &masks->end_mask));
  TW_RETURN_IF_ERROR(c->GetAttr("ellipsis_mask", &masks->ellipsis_mask));
  TW_RETURN_IF_ERROR(c->GetAttr("new_axis_mask", &masks->new_axis_mask));
  TW_RETURN_IF_ERROR(c->GetAttr("shrink_axis_mask", &masks->shrink_axis_mask));
  return Status::OK();
}

Status StridedSliceShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  for (int i = 1; i <= 3; ++i) {
    PartialShape unused;
    TW_RETURN_IF_ERROR(c->WithRank(i, 1, &unused));
  }
  std::vector<int64_t> begin, end, strides;
  if (!in.known_rank() || !ConstantVector(c, 3, &strides)) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  // With begin or end unknown (x[n], x[:, n:n + 2]) the rank is still known,
  // and so is each dim that is shrunk, new, or fully masked.
  const bool bounds_known =
      ConstantVector(c, 1, &begin) && ConstantVector(c, 2, &end);
  if (!bounds_known) {
    begin.assign(strides.size(), 0);
    end.assign(strides.size(), 0);
  }
  StridedSliceMasks masks;
  TW_RETURN_IF_ERROR(ReadMasks(c, &masks));
  StridedSliceSpec spec;
  TW_RETURN_IF_ERROR(ComputeStridedSlice(in.dims(), begin, end, strides, masks,
                                         &spec, bounds_known));
  c->set_output(0, PartialShape(spec.final_shape));
  return Status::OK();
}

Status StridedSliceGradShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(0, &shape));
  c->set_output(0, shape);
  return Status::OK();
}

// GatherV2: params.shape[:axis] + indices.shape + params.shape[axis+1:].
Status GatherShapeWithAxis(InferenceContext* c, bool has_axis) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  // As TF: params of rank 0 have nothing to gather from (with an unknown
  // axis the output rank params + indices - 1 would be negative).
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  if (has_axis) {
    PartialShape unused;
    TW_RETURN_IF_ERROR(c->WithRank(2, 0, &unused));
    int64_t batch_dims = 0;
    TW_RETURN_IF_ERROR(c->GetAttr("batch_dims", &batch_dims));
    if (batch_dims != 0) {
      return errors::Unimplemented("GatherV2 supports batch_dims=0 only, got ",
                                   batch_dims);
    }
  }
  int64_t axis = 0;
  std::vector<int64_t> axis_value;
  if (has_axis) {
    if (!ConstantVector(c, 2, &axis_value)) {
      // The axis is unknown, but not the rank.
      c->set_output(
          0, params.known_rank() && indices.known_rank()
                 ? PartialShape::Unknown(params.rank() + indices.rank() - 1)
                 : PartialShape::UnknownRank());
      return Status::OK();
    }
    axis = axis_value[0];
  }
  if (!params.known_rank() || !indices.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  const int rank = params.rank();
  if (axis < -rank || axis >= rank) {
    return errors::InvalidArgument("Expected axis in the range [", -rank, ", ",
                                   rank, "), but got ", axis);
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> dims(params.dims().begin(),
                            params.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + axis + 1,
              params.dims().end());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status GatherV2Shape(InferenceContext* c) {
  return GatherShapeWithAxis(c, true);
}
Status GatherShape(InferenceContext* c) {
  return GatherShapeWithAxis(c, false);
}

// [num_segments] + data.shape[segment_ids.rank:].
Status UnsortedSegmentSumShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(2, 0, &unused));
  const PartialShape& data = c->input(0);
  const PartialShape& ids = c->input(1);
  std::vector<int64_t> num;
  const int64_t num_segments = ConstantVector(c, 2, &num) ? num[0] : -1;
  if (!data.known_rank() || !ids.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (ids.rank() > data.rank()) {
    return errors::InvalidArgument("segment_ids shape ", ids.ToString(),
                                   " is not a prefix of data shape ",
                                   data.ToString());
  }
  for (int d = 0; d < ids.rank(); ++d) {
    if (ids.dim(d) >= 0 && data.dim(d) >= 0 && ids.dim(d) != data.dim(d)) {
      return errors::InvalidArgument("segment_ids shape ", ids.ToString(),
                                     " is not a prefix of data shape ",
                                     data.ToString());
    }
  }
  if (num.size() == 1 && num_segments < 0) {
    return errors::InvalidArgument("num_segments must be non-negative, got ",
                                   num_segments);
  }
  std::vector<int64_t> dims = {num_segments};
  dims.insert(dims.end(), data.dims().begin() + ids.rank(), data.dims().end());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status OneHotShape(InferenceContext* c) {
  PartialShape unused;
  for (int i = 1; i <= 3; ++i) TW_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  int64_t axis;
  TW_RETURN_IF_ERROR(c->GetAttr("axis", &axis));
  const PartialShape& indices = c->input(0);
  if (!indices.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  if (axis < -1 || axis > indices.rank()) {
    return errors::InvalidArgument("Expected axis to be -1 or between [0, ",
                                   indices.rank(), "].  But received: ", axis);
  }
  std::vector<int64_t> depth;
  int64_t d = ConstantVector(c, 1, &depth) ? depth[0] : -1;
  if (depth.size() == 1 && d < 0) {
    return errors::InvalidArgument("depth must be non-negative, got ", d);
  }
  std::vector<int64_t> dims = indices.dims();
  dims.insert(axis == -1 ? dims.end() : dims.begin() + axis, d);
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status WhereShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, PartialShape({-1, in.known_rank() ? in.rank() : -1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("Slice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("size: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .SetShapeFn(SliceShape)
    .Doc(
        "input[begin[0]:begin[0]+size[0], ...]; size[d] = -1 takes the "
        "rest of dimension d.");

REGISTER_OP("StridedSlice")
    .Input("input: T")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceShape)
    .Doc(
        "Python's extended slicing, input[b0:e0:s0, ..., None, ...], with "
        "TensorFlow's masks: bit i of begin_mask/end_mask ignores begin[i]/"
        "end[i]; ellipsis_mask marks `...`; new_axis_mask inserts a "
        "dimension of 1; shrink_axis_mask takes the single index begin[i] "
        "and drops the dimension.");

REGISTER_OP("StridedSliceGrad")
    .Input("shape: Index")
    .Input("begin: Index")
    .Input("end: Index")
    .Input("strides: Index")
    .Input("dy: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Index: {int32, int64}")
    .Attr("begin_mask: int = 0")
    .Attr("end_mask: int = 0")
    .Attr("ellipsis_mask: int = 0")
    .Attr("new_axis_mask: int = 0")
    .Attr("shrink_axis_mask: int = 0")
    .SetShapeFn(StridedSliceGradShape)
    .Doc(
        "The gradient of StridedSlice: zeros of `shape` with dy written "
        "where the slice read.");

REGISTER_OP("GatherV2")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Input("axis: Taxis")
    .Output("output: Tparams")
    .Attr("batch_dims: int = 0")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn(GatherV2Shape)
    .Doc(
        "Slices of params along axis at indices; an index out of [0, "
        "params.shape[axis]) is an error.");

REGISTER_OP("Gather")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("validate_indices: bool = true")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .SetShapeFn(GatherShape)
    .Doc("GatherV2 along axis 0 (the legacy op).");

REGISTER_OP("UnsortedSegmentSum")
    .Input("data: T")
    .Input("segment_ids: Tindices")
    .Input("num_segments: Tnumsegments")
    .Output("output: T")
    .Attr("T: {float32, float64, int32, int64, complex64, complex128}")
    .Attr("Tindices: {int32, int64}")
    .Attr("Tnumsegments: {int32, int64} = int32")
    .SetShapeFn(UnsortedSegmentSumShape)
    .Doc(
        "output[i, ...] = sum of data[j..., ...] over j with segment_ids[j"
        "...] == i (segment_ids' shape is a prefix of data's). Negative ids "
        "are dropped; ids >= num_segments are an error.");

REGISTER_OP("OneHot")
    .Input("indices: TI")
    .Input("depth: int32")
    .Input("on_value: T")
    .Input("off_value: T")
    .Output("output: T")
    .Attr("axis: int = -1")
    .Attr("T: type")
    .Attr("TI: {uint8, int8, int32, int64} = int64")
    .SetShapeFn(OneHotShape)
    .Doc(
        "on_value where the new axis' position equals the index, off_value "
        "elsewhere (an index outside [0, depth) gives a row of off_value).");

REGISTER_OP("Where")
    .Input("input: T")
    .Output("index: int64")
    .Attr("T: {float32, float64, int32, int64, uint8, bool} = bool")
    .SetShapeFn(WhereShape)
    .Doc(
        "The coordinates of the true (non-zero) elements of input, one row "
        "per element, in row-major order.");

}  // namespace tensorweave
