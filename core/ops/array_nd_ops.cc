// Array ops of TF1's top level added for issue 16: N-d gathers and scatters,
// reversals and rolls, broadcasting, the space/depth/batch rearrangements,
// image patches, LinSpace, Bitcast, sorted search, EnsureShape, IdentityN
// and ShapeN.
#include <limits>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"
#include "core/framework/tensor_size.h"

namespace tensorweave {
namespace {

// The values of constant input i, flattened (false when not constant).
bool ConstantValues(InferenceContext* c, int i, std::vector<int64_t>* values) {
  const Tensor* t = c->input_value(i);
  Tensor flat;
  return t != nullptr &&
         t->Reshaped(TensorShape({t->num_elements()}), &flat).ok() &&
         ReadIndexVector(flat, values).ok();
}

Status ReverseV2Shape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  std::vector<int64_t> axes;
  if (in.known_rank() && ConstantValues(c, 1, &axes)) {
    const int rank = in.rank();
    std::vector<bool> seen(rank, false);
    for (int64_t a : axes) {
      if (a < -rank || a >= rank) {
        return errors::InvalidArgument("axis ", a, " is out of valid range [",
                                       -rank, ", ", rank, ")");
      }
      const int axis = static_cast<int>(a < 0 ? a + rank : a);
      if (seen[axis]) {
        return errors::InvalidArgument("axis ", axis,
                                       " specified more than once.");
      }
      seen[axis] = true;
    }
  }
  return c->UnchangedShape(0);
}

// indices.shape[:-1] + params.shape[indices.shape[-1]:].
Status GatherNdShape(InferenceContext* c) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 1));
  if (!params.known_rank() || !indices.known_rank() ||
      indices.dim(indices.rank() - 1) < 0) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  const int64_t depth = indices.dim(indices.rank() - 1);
  if (depth > params.rank()) {
    return errors::InvalidArgument(
        "indices.shape[-1] must be <= params.rank, but saw indices shape: ",
        indices.ToString(), " and params shape: ", params.ToString());
  }
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), params.dims().begin() + depth, params.dims().end());
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// updates.shape must be indices.shape[:-1] + shape[indices.shape[-1]:].
Status CheckScatterUpdates(const PartialShape& shape,
                           const PartialShape& indices,
                           const PartialShape& updates) {
  if (!shape.known_rank() || !indices.known_rank() || !updates.known_rank()) {
    return Status::OK();
  }
  if (indices.rank() < 1) {
    return errors::InvalidArgument("indices must be at least rank 1, got ",
                                   indices.ToString());
  }
  const int64_t depth = indices.dim(indices.rank() - 1);
  if (depth < 0) return Status::OK();
  if (depth > shape.rank()) {
    return errors::InvalidArgument("indices.shape[-1] = ", depth,
                                   " exceeds the rank of shape ",
                                   shape.ToString());
  }
  std::vector<int64_t> want(indices.dims().begin(), indices.dims().end() - 1);
  want.insert(want.end(), shape.dims().begin() + depth, shape.dims().end());
  if (!PartialShape(want).IsCompatibleWith(updates)) {
    return errors::InvalidArgument(
        "Dimensions [0,", indices.rank() - 1,
        ") of indices[shape=", indices.ToString(),
        "] must match dimensions of updates[shape=", updates.ToString(),
        "] and the outer dimensions of shape ", shape.ToString());
  }
  return Status::OK();
}

Status ScatterNdShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(2, &shape));
  TW_RETURN_IF_ERROR(CheckScatterUpdates(shape, c->input(0), c->input(1)));
  c->set_output(0, shape);
  return Status::OK();
}

Status TensorScatterShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(
      CheckScatterUpdates(c->input(0), c->input(1), c->input(2)));
  c->set_output(0, c->input(0));
  return Status::OK();
}

Status BroadcastToShape(InferenceContext* c) {
  PartialShape shape;
  TW_RETURN_IF_ERROR(c->ShapeFromShapeInput(1, &shape));
  const PartialShape& in = c->input(0);
  if (in.known_rank() && shape.known_rank()) {
    if (in.rank() > shape.rank()) {
      return errors::InvalidArgument("Unable to broadcast tensor of shape ",
                                     in.ToString(), " to tensor of shape ",
                                     shape.ToString());
    }
    const int offset = shape.rank() - in.rank();
    std::vector<int64_t> dims = shape.dims();
    for (int d = 0; d < in.rank(); ++d) {
      const int64_t a = in.dim(d), b = dims[offset + d];
      if (a >= 0 && b >= 0 && a != 1 && a != b) {
        return errors::InvalidArgument("Unable to broadcast tensor of shape ",
                                       in.ToString(), " to tensor of shape ",
                                       shape.ToString());
      }
      if (b < 0 && a > 1) dims[offset + d] = a;
    }
    shape = PartialShape(dims);
  }
  c->set_output(0, shape);
  return Status::OK();
}

Status SpaceDepthShape(InferenceContext* c, bool to_depth) {
  int64_t block = 0;
  TW_RETURN_IF_ERROR(c->GetAttr("block_size", &block));
  // TensorFlow reads block_size as an int32 (so block_size^2 fits int64).
  if (block > std::numeric_limits<int32_t>::max()) {
    return errors::InvalidArgument("Attr block_size has value ", block,
                                   " out of range for an int32");
  }
  PartialShape in;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &in));
  std::vector<int64_t> dims = in.dims();
  const int64_t area = block * block;
  // A known dim times the block (or its square); too large is an error.
  auto times = [&](int64_t* d, int64_t by) {
    if (*d >= 0 && !MultiplyWithoutOverflow(*d, by, d)) {
      return errors::InvalidArgument("dimension ", *d, " times ", by,
                                     " overflows int64");
    }
    return Status::OK();
  };
  auto scaled = [&](int64_t d, bool divide, int64_t by, const char* what) {
    if (d < 0) return Status::OK();
    if (divide && d % by != 0) {
      return errors::InvalidArgument(what, " ", d,
                                     " should be divisible by block_size", "^",
                                     by == area ? "2" : "1", ": ", by);
    }
    return Status::OK();
  };
  if (to_depth) {
    TW_RETURN_IF_ERROR(scaled(dims[1], true, block, "Image height"));
    TW_RETURN_IF_ERROR(scaled(dims[2], true, block, "Image width"));
    if (dims[1] >= 0) dims[1] /= block;
    if (dims[2] >= 0) dims[2] /= block;
    TW_RETURN_IF_ERROR(times(&dims[3], area));
  } else {
    TW_RETURN_IF_ERROR(scaled(dims[3], true, area, "Input depth"));
    TW_RETURN_IF_ERROR(times(&dims[1], block));
    TW_RETURN_IF_ERROR(times(&dims[2], block));
    if (dims[3] >= 0) dims[3] /= area;
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// SpaceToBatchND (pad, then divide) and BatchToSpaceND (multiply, then crop).
Status SpaceBatchShape(InferenceContext* c, bool to_batch) {
  PartialShape block_shape, pads;
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &block_shape));
  TW_RETURN_IF_ERROR(c->WithRank(2, 2, &pads));
  const PartialShape& in = c->input(0);
  std::vector<int64_t> block, pad;
  if (!in.known_rank() || !ConstantValues(c, 1, &block)) {
    c->set_output(0, in.known_rank() ? PartialShape::Unknown(in.rank())
                                     : PartialShape::UnknownRank());
    return Status::OK();
  }
  const int m = static_cast<int>(block.size());
  if (m < 1 || in.rank() < m + 1) {
    return errors::InvalidArgument("input rank should be >= ", m + 1,
                                   " instead of ", in.rank());
  }
  for (int64_t b : block) {
    if (b < 1) {
      return errors::InvalidArgument("block_shape must be positive, got ", b);
    }
  }
  int64_t prod = 1;
  for (int64_t b : block) {
    if (!MultiplyWithoutOverflow(prod, b, &prod)) {
      return errors::InvalidArgument("the product of block_shape overflows");
    }
  }
  const auto too_large = [&](const char* what) {
    return errors::InvalidArgument(what, " of input shape ", in.ToString(),
                                   " overflows int64");
  };
  std::vector<int64_t> dims = in.dims();
  const bool pads_known = ConstantValues(c, 2, &pad);
  if (pads_known && static_cast<int>(pad.size()) != 2 * m) {
    return errors::InvalidArgument("paddings/crops must have shape [", m,
                                   ", 2]");
  }
  if (to_batch) {
    if (dims[0] >= 0 && !MultiplyWithoutOverflow(dims[0], prod, &dims[0])) {
      return too_large("the output batch");
    }
  } else if (dims[0] >= 0) {
    if (dims[0] % prod != 0) {
      return errors::InvalidArgument("Input batch dimension (", dims[0],
                                     ") is not divisible by product of block "
                                     "sizes (",
                                     prod, ")");
    }
    dims[0] /= prod;
  }
  for (int i = 0; i < m; ++i) {
    int64_t& d = dims[i + 1];
    if (!pads_known) {
      d = -1;
      continue;
    }
    if (pad[2 * i] < 0 || pad[2 * i + 1] < 0) {
      return errors::InvalidArgument("paddings/crops must be non-negative");
    }
    if (d < 0) continue;
    if (to_batch) {
      int64_t padded = 0;
      if (!AddWithoutOverflow(d, pad[2 * i], &padded) ||
          !AddWithoutOverflow(padded, pad[2 * i + 1], &padded)) {
        return too_large("a padded dimension");
      }
      if (padded % block[i] != 0) {
        return errors::InvalidArgument("padded_shape[", i, "]=", padded,
                                       " is not divisible by block_shape[", i,
                                       "]=", block[i]);
      }
      d = padded / block[i];
    } else {
      int64_t full = 0, crop = 0;
      if (!MultiplyWithoutOverflow(d, block[i], &full) ||
          !AddWithoutOverflow(pad[2 * i], pad[2 * i + 1], &crop)) {
        return too_large("a block-scaled dimension");
      }
      if (crop > full) {
        return errors::InvalidArgument(
            "Crops must be less than or equal to "
            "the block-scaled size ",
            full);
      }
      d = full - pad[2 * i] - pad[2 * i + 1];
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

// Output size and leading padding of one windowed dim (TF's padding rules).
Status WindowedOutput(int64_t in, int64_t k, int64_t stride,
                      const std::string& padding, int64_t* out,
                      int64_t* pad_before) {
  if (padding == "VALID") {
    *out = in < k ? 0 : (in - k + stride) / stride;
    *pad_before = 0;
  } else {
    *out = (in + stride - 1) / stride;
    const int64_t needed = std::max<int64_t>(0, (*out - 1) * stride + k - in);
    *pad_before = needed / 2;
  }
  return Status::OK();
}

Status ExtractImagePatchesShape(InferenceContext* c) {
  std::vector<int64_t> ksizes, strides, rates;
  std::string padding;
  TW_RETURN_IF_ERROR(c->GetAttr("ksizes", &ksizes));
  TW_RETURN_IF_ERROR(c->GetAttr("strides", &strides));
  TW_RETURN_IF_ERROR(c->GetAttr("rates", &rates));
  TW_RETURN_IF_ERROR(c->GetAttr("padding", &padding));
  for (const auto* v : {&ksizes, &strides, &rates}) {
    if (v->size() != 4 || (*v)[0] != 1 || (*v)[3] != 1) {
      return errors::Unimplemented(
          "Only support ksizes, strides and rates of the form [1, r, c, 1] "
          "across the batch and depth dimensions.");
    }
  }
  for (int d = 1; d <= 2; ++d) {
    if (ksizes[d] < 1 || ksizes[d] > (1 << 20) || rates[d] < 1 ||
        rates[d] > (1 << 20) || strides[d] < 1) {
      return errors::InvalidArgument(
          "ksizes and rates must be in [1, ", 1 << 20,
          "] and strides positive, got ksizes[", d, "] = ", ksizes[d],
          ", rates[", d, "] = ", rates[d], ", strides[", d, "] = ", strides[d]);
    }
  }
  PartialShape in;
  TW_RETURN_IF_ERROR(c->WithRank(0, 4, &in));
  std::vector<int64_t> dims = in.dims();
  for (int d = 1; d <= 2; ++d) {
    const int64_t k = ksizes[d] + (ksizes[d] - 1) * (rates[d] - 1);
    int64_t pad;
    if (dims[d] >= 0 && padding == "VALID" &&
        (dims[d] - k + strides[d]) / strides[d] < 0) {
      return errors::InvalidArgument(
          "Computed output size would be negative: ",
          (dims[d] - k + strides[d]) / strides[d], " [input_size: ", dims[d],
          ", effective_filter_size: ", k, ", stride: ", strides[d], "]");
    }
    if (dims[d] >= 0) {
      TW_RETURN_IF_ERROR(
          WindowedOutput(dims[d], k, strides[d], padding, &dims[d], &pad));
    }
  }
  if (dims[3] >= 0) dims[3] *= ksizes[1] * ksizes[2];
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status LinSpaceShape(InferenceContext* c) {
  PartialShape unused;
  for (int i = 0; i < 3; ++i) TW_RETURN_IF_ERROR(c->WithRank(i, 0, &unused));
  std::vector<int64_t> num;
  if (ConstantValues(c, 2, &num)) {
    if (num[0] <= 0) {
      return errors::InvalidArgument("Requires num > 0: ", num[0]);
    }
    c->set_output(0, PartialShape({num[0]}));
  } else {
    c->set_output(0, PartialShape({-1}));
  }
  return Status::OK();
}

Status BitcastShape(InferenceContext* c) {
  DataType to;
  TW_RETURN_IF_ERROR(c->GetAttr("type", &to));
  const PartialShape& in = c->input(0);
  const int64_t from_size = DataTypeSize(c->input_type(0));
  const int64_t to_size = DataTypeSize(to);
  if (from_size == 0 || to_size == 0) {
    return errors::InvalidArgument(
        "Cannot bitcast types with a variable size (strings)");
  }
  if (!in.known_rank()) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> dims = in.dims();
  if (from_size > to_size) {
    dims.push_back(from_size / to_size);
  } else if (from_size < to_size) {
    if (dims.empty()) {
      return errors::InvalidArgument(
          "Cannot bitcast from ", DataTypeName(c->input_type(0)), " to ",
          DataTypeName(to), ": shape ", in.ToString());
    }
    const int64_t last = dims.back();
    if (last >= 0 && last != to_size / from_size) {
      return errors::InvalidArgument(
          "Cannot bitcast from ", DataTypeName(c->input_type(0)), " to ",
          DataTypeName(to), ": shape ", in.ToString());
    }
    dims.pop_back();
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

Status EnsureShapeShape(InferenceContext* c) {
  PartialShape shape, merged;
  TW_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  if (!c->input(0).Merge(shape, &merged).ok()) {
    return errors::InvalidArgument("Shape of tensor ", c->input(0).ToString(),
                                   " is not compatible with expected shape ",
                                   shape.ToString(), ".");
  }
  c->set_output(0, merged);
  return Status::OK();
}

Status ShapeNShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    const PartialShape& in = c->input(i);
    c->set_output(i, PartialShape({in.known_rank() ? in.rank() : -1}));
  }
  return Status::OK();
}

Status SearchSortedShape(InferenceContext* c) {
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(0, 1));
  TW_RETURN_IF_ERROR(c->WithRankAtLeast(1, 1));
  return c->UnchangedShape(1);
}

}  // namespace

REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
    .SetShapeFn(GatherNdShape)
    .Doc(
        "Slices of params at N-d indices: output[i...] = params[indices[i..."
        "]]; an index outside params is an error.");

REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
    .SetShapeFn(ScatterNdShape)
    .Doc(
        "Zeros of `shape` with updates summed in at the N-d indices "
        "(duplicates add).");

REGISTER_OP("TensorScatterUpdate")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
    .SetShapeFn(TensorScatterShape)
    .Doc("A copy of tensor with the slices at indices replaced by updates.");

REGISTER_OP("TensorScatterAdd")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
    .SetShapeFn(TensorScatterShape)
    .Doc("A copy of tensor with updates added at indices.");

REGISTER_OP("TensorScatterSub")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
    .SetShapeFn(TensorScatterShape)
    .Doc("A copy of tensor with updates subtracted at indices.");

REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = int32")
    .Attr("T: type")
    .SetShapeFn(ReverseV2Shape)
    .Doc("tensor with the order of the dims listed in axis reversed.");

REGISTER_OP("Roll")
    .Input("input: T")
    .Input("shift: Tshift")
    .Input("axis: Taxis")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshift: {int32, int64}")
    .Attr("Taxis: {int32, int64}")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(0); })
    .Doc(
        "Elements shifted by shift[i] along axis[i], wrapping around (shifts "
        "along one axis add).");

REGISTER_OP("ReverseSequence")
    .Input("input: T")
    .Input("seq_lengths: Tlen")
    .Output("output: T")
    .Attr("seq_dim: int")
    .Attr("batch_dim: int = 0")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = int64")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(0); })
    .Doc(
        "For each b along batch_dim, the first seq_lengths[b] elements along "
        "seq_dim reversed, the rest unchanged.");

REGISTER_OP("BroadcastTo")
    .Input("input: T")
    .Input("shape: Tidx")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn(BroadcastToShape)
    .Doc("input broadcast (numpy rules) to shape.");

REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return SpaceDepthShape(c, true); })
    .Doc(
        "Moves block_size x block_size spatial blocks into the depth "
        "dimension (NHWC).");

REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC'} = 'NHWC'")
    .SetShapeFn([](InferenceContext* c) { return SpaceDepthShape(c, false); })
    .Doc("The inverse of SpaceToDepth.");

REGISTER_OP("SpaceToBatchND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = int32")
    .Attr("Tpaddings: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) { return SpaceBatchShape(c, true); })
    .Doc(
        "Zero-pads the spatial dims, then moves blocks of block_shape into "
        "the batch dimension.");

REGISTER_OP("BatchToSpaceND")
    .Input("input: T")
    .Input("block_shape: Tblock_shape")
    .Input("crops: Tcrops")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tblock_shape: {int32, int64} = int32")
    .Attr("Tcrops: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) { return SpaceBatchShape(c, false); })
    .Doc("The inverse of SpaceToBatchND, cropping instead of padding.");

REGISTER_OP("ExtractImagePatches")
    .Input("images: T")
    .Output("patches: T")
    .Attr("ksizes: list(int) >= 4")
    .Attr("strides: list(int) >= 4")
    .Attr("rates: list(int) >= 4")
    .Attr("T: type")
    .Attr("padding: {'SAME', 'VALID'}")
    .SetShapeFn(ExtractImagePatchesShape)
    .Doc(
        "Each ksizes window of images (dilated by rates, moved by strides), "
        "flattened into the depth dimension; outside the image is zero.");

REGISTER_OP("LinSpace")
    .Input("start: T")
    .Input("stop: T")
    .Input("num: Tidx")
    .Output("output: T")
    .Attr("T: {float32, float64}")
    .Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn(LinSpaceShape)
    .Doc("num evenly spaced values from start to stop, both included.");

REGISTER_OP("Bitcast")
    .Input("input: T")
    .Output("output: type")
    .Attr(
        "T: {bool, int8, int16, int32, int64, uint8, uint16, uint32, "
        "uint64, float16, float32, float64}")
    .Attr(
        "type: {bool, int8, int16, int32, int64, uint8, uint16, uint32, "
        "uint64, float16, float32, float64}")
    .SetShapeFn(BitcastShape)
    .Doc(
        "The bytes of input read as `type`: a last dimension is added or "
        "removed when the sizes differ.");

REGISTER_OP("LowerBound")
    .Input("sorted_inputs: T")
    .Input("values: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(SearchSortedShape)
    .Doc(
        "For each row, the first index where values[i] could be inserted "
        "into sorted_inputs keeping it sorted.");

REGISTER_OP("UpperBound")
    .Input("sorted_inputs: T")
    .Input("values: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(SearchSortedShape)
    .Doc(
        "For each row, the last index where values[i] could be inserted "
        "into sorted_inputs keeping it sorted.");

REGISTER_OP("EnsureShape")
    .Input("input: T")
    .Output("output: T")
    .Attr("shape: shape")
    .Attr("T: type")
    .SetShapeFn(EnsureShapeShape)
    .Doc("input, checked at run time to have a shape compatible with shape.");

REGISTER_OP("IdentityN")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 1")
    .SetShapeFn([](InferenceContext* c) {
      for (int i = 0; i < c->num_outputs(); ++i) {
        c->set_output(i, c->input(i));
      }
      return Status::OK();
    })
    .Doc("Each input unchanged.");

REGISTER_OP("ShapeN")
    .Input("input: N * T")
    .Output("output: N * out_type")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = int32")
    .SetShapeFn(ShapeNShape)
    .Doc("The shape of each input.");

REGISTER_OP("TensorScatterMax")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
    .SetShapeFn(TensorScatterShape)
    .Doc(
        "A copy of tensor with each slice at indices the maximum of itself and "
        "its updates.");

REGISTER_OP("TensorScatterMin")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("bad_indices_policy: {'', 'DEFAULT', 'ERROR', 'IGNORE'} = ''")
    .SetShapeFn(TensorScatterShape)
    .Doc(
        "A copy of tensor with each slice at indices the minimum of itself and "
        "its updates.");

REGISTER_OP("BroadcastArgs")
    .Input("s0: T")
    .Input("s1: T")
    .Output("r0: T")
    .Attr("T: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape a, b;
      TW_RETURN_IF_ERROR(c->WithRank(0, 1, &a));
      TW_RETURN_IF_ERROR(c->WithRank(1, 1, &b));
      const int64_t n =
          a.dim(0) < 0 || b.dim(0) < 0 ? -1 : std::max(a.dim(0), b.dim(0));
      c->set_output(0, PartialShape({n}));
      return Status::OK();
    })
    .Doc("The shape that shapes s0 and s1 broadcast to.");

REGISTER_OP("UnravelIndex")
    .Input("indices: Tidx")
    .Input("dims: Tidx")
    .Output("output: Tidx")
    .Attr("Tidx: {int32, int64} = int32")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape dims;
      TW_RETURN_IF_ERROR(c->WithRank(1, 1, &dims));
      const PartialShape& in = c->input(0);
      if (!in.known_rank()) {
        c->set_output(0, PartialShape::UnknownRank());
      } else if (in.rank() == 0) {
        c->set_output(0, PartialShape({dims.dim(0)}));
      } else if (in.rank() == 1) {
        c->set_output(0, PartialShape({dims.dim(0), in.dim(0)}));
      } else {
        return errors::InvalidArgument(
            "indices must be a scalar or a vector, got ", in.ToString());
      }
      return Status::OK();
    })
    .Doc(
        "The coordinates of flat indices in an array of shape dims "
        "(row-major).");

REGISTER_OP("CheckNumerics")
    .Input("tensor: T")
    .Output("output: T")
    .Attr("T: {float16, float32, float64}")
    .Attr("message: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(0); })
    .Doc(
        "tensor unchanged; an InvalidArgument error naming message if it holds "
        "a NaN or an infinity.");

REGISTER_OP("Diag")
    .Input("diagonal: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      const PartialShape& in = c->input(0);
      if (!in.known_rank()) {
        c->set_output(0, PartialShape::UnknownRank());
        return Status::OK();
      }
      if (in.rank() < 1) {
        return errors::InvalidArgument("Input must be at least rank 1, got ",
                                       in.ToString());
      }
      std::vector<int64_t> dims = in.dims();
      dims.insert(dims.end(), in.dims().begin(), in.dims().end());
      c->set_output(0, PartialShape(dims));
      return Status::OK();
    })
    .Doc(
        "A tensor of rank 2k with diagonal on its diagonal: output[i, j] = "
        "diagonal[i] if i == j, else 0 (i, j multi-indices).");

REGISTER_OP("DiagPart")
    .Input("input: T")
    .Output("diagonal: T")
    .Attr("T: type")
    .SetShapeFn([](InferenceContext* c) {
      const PartialShape& in = c->input(0);
      if (!in.known_rank()) {
        c->set_output(0, PartialShape::UnknownRank());
        return Status::OK();
      }
      if (in.rank() < 2 || in.rank() % 2 != 0) {
        return errors::InvalidArgument(
            "Input must have even and non-zero rank, input rank is ",
            in.rank());
      }
      const int k = in.rank() / 2;
      std::vector<int64_t> dims(k);
      for (int i = 0; i < k; ++i) {
        const int64_t a = in.dim(i), b = in.dim(i + k);
        if (a >= 0 && b >= 0 && a != b) {
          return errors::InvalidArgument("Dimensions must be equal, but are ",
                                         a, " and ", b);
        }
        dims[i] = a >= 0 ? a : b;
      }
      c->set_output(0, PartialShape(dims));
      return Status::OK();
    })
    .Doc(
        "The diagonal of a tensor of rank 2k: diagonal[i] = input[i, i] (i a "
        "multi-index).");

}  // namespace tensorweave
