#include "core/framework/shape_inference.h"

namespace tensorweave {

InferenceContext::InferenceContext(const AttrMap* attrs,
                                   std::vector<PartialShape> inputs,
                                   std::vector<DataType> input_types,
                                   std::vector<const Tensor*> input_values,
                                   int num_outputs)
    : attrs_(attrs),
      inputs_(std::move(inputs)),
      input_types_(std::move(input_types)),
      input_values_(std::move(input_values)),
      outputs_(num_outputs) {}

Status InferenceContext::WithRank(int i, int rank, PartialShape* out) const {
  const PartialShape& shape = inputs_[i];
  if (!shape.known_rank()) {
    *out = PartialShape::Unknown(rank);
    return Status::OK();
  }
  if (shape.rank() != rank) {
    return errors::InvalidArgument("Shape must be rank ", rank, " but is rank ",
                                   shape.rank());
  }
  *out = shape;
  return Status::OK();
}

Status InferenceContext::WithRankAtLeast(int i, int rank) const {
  const PartialShape& shape = inputs_[i];
  if (shape.known_rank() && shape.rank() < rank) {
    return errors::InvalidArgument("Shape must be at least rank ", rank,
                                   " but is rank ", shape.rank());
  }
  return Status::OK();
}

Status InferenceContext::BroadcastShapes(const PartialShape& a,
                                         const PartialShape& b,
                                         PartialShape* out) {
  if (!a.known_rank() || !b.known_rank()) {
    *out = PartialShape::UnknownRank();
    return Status::OK();
  }
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a.dim(ia) : 1;
    int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1) {
      dims[i] = db;
    } else if (db == 1) {
      dims[i] = da;
    } else if (da == -1 || db == -1) {
      // An unknown dim broadcast against a known one (> 1) must equal it.
      dims[i] = da == -1 ? db : da;
    } else if (da == db) {
      dims[i] = da;
    } else {
      return errors::InvalidArgument("Incompatible shapes: ", a.ToString(),
                                     " vs. ", b.ToString());
    }
  }
  *out = PartialShape(std::move(dims));
  return Status::OK();
}

Status ReadIndexVector(const Tensor& tensor, std::vector<int64_t>* values) {
  if (tensor.rank() > 1) {
    return errors::InvalidArgument("expected a vector, got shape ",
                                   tensor.shape().ToString());
  }
  values->resize(tensor.num_elements());
  if (tensor.dtype() == DT_INT32) {
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      (*values)[i] = tensor.data<int32_t>()[i];
    }
  } else if (tensor.dtype() == DT_INT64) {
    for (int64_t i = 0; i < tensor.num_elements(); ++i) {
      (*values)[i] = tensor.data<int64_t>()[i];
    }
  } else {
    return errors::InvalidArgument("expected int32 or int64, got ",
                                   DataTypeName(tensor.dtype()));
  }
  return Status::OK();
}

PartialValue PartialValue::Scalar(std::optional<int64_t> value) {
  PartialValue v;
  v.known_length = true;
  v.scalar = true;
  v.elements = {value};
  return v;
}

PartialValue PartialValue::Vector(
    std::vector<std::optional<int64_t>> elements) {
  PartialValue v;
  v.known_length = true;
  v.elements = std::move(elements);
  return v;
}

PartialValue PartialValue::FromTensor(const Tensor& tensor) {
  std::vector<int64_t> values;
  if (!tensor.valid() || tensor.rank() > 1 ||
      !ReadIndexVector(tensor, &values).ok()) {
    return Unknown();
  }
  std::vector<std::optional<int64_t>> elements(values.begin(), values.end());
  if (tensor.rank() == 0) return Scalar(elements[0]);
  return Vector(std::move(elements));
}

bool PartialValue::fully_known() const {
  if (!known_length) return false;
  for (const auto& e : elements) {
    if (!e.has_value()) return false;
  }
  return true;
}

std::vector<int64_t> PartialValue::values() const {
  std::vector<int64_t> out;
  out.reserve(elements.size());
  for (const auto& e : elements) out.push_back(e.value_or(-1));
  return out;
}

Tensor PartialValue::ToTensor(DataType dtype) const {
  const std::vector<int64_t> v = values();
  if (dtype == DT_INT32) {
    std::vector<int32_t> narrow(v.begin(), v.end());
    return scalar ? Tensor::Scalar<int32_t>(narrow[0])
                  : Tensor::Vector<int32_t>(narrow);
  }
  return scalar ? Tensor::Scalar<int64_t>(v[0]) : Tensor::Vector<int64_t>(v);
}

Status PartialValue::AsShape(PartialShape* shape) const {
  if (!known_length) {
    *shape = PartialShape::UnknownRank();
    return Status::OK();
  }
  std::vector<int64_t> dims;
  for (const auto& e : elements) {
    if (e.has_value() && *e < -1) {
      return errors::InvalidArgument("shape has negative dimension ", *e);
    }
    dims.push_back(e.value_or(-1));
  }
  *shape = PartialShape(std::move(dims));
  return Status::OK();
}

PartialValue InferenceContext::input_partial_value(int i) const {
  if (input_values_[i] != nullptr) {
    return PartialValue::FromTensor(*input_values_[i]);
  }
  if (i < static_cast<int>(input_partial_values_.size())) {
    return input_partial_values_[i];
  }
  return PartialValue::Unknown();
}

Status InferenceContext::ShapeFromShapeInput(int i, PartialShape* out) const {
  const PartialShape& shape = inputs_[i];
  if (shape.known_rank() && shape.rank() > 1) {
    return errors::InvalidArgument("shape input must be a vector, got shape ",
                                   shape.ToString());
  }
  const PartialValue value = input_partial_value(i);
  if (value.known_length) return value.AsShape(out);
  if (shape.known_rank() && shape.rank() == 1 && shape.dim(0) >= 0) {
    *out = PartialShape::Unknown(static_cast<int>(shape.dim(0)));
  } else {
    *out = PartialShape::UnknownRank();
  }
  return Status::OK();
}

Status InferenceContext::UnchangedShape(int i) {
  for (auto& output : outputs_) output = inputs_[i];
  return Status::OK();
}

std::string InferenceContext::InputShapesString() const {
  std::string out;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (i > 0) out += ", ";
    out += inputs_[i].ToString();
  }
  return out;
}

namespace shape_fns {

Status Unchanged(InferenceContext* c) { return c->UnchangedShape(0); }

Status Scalar(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialShape({}));
  return Status::OK();
}

Status NoOutputs(InferenceContext* c) { return Status::OK(); }

Status MatMulProduct(InferenceContext* c, int a, int b, PartialShape* product) {
  PartialShape a_shape, b_shape;
  TW_RETURN_IF_ERROR(c->WithRank(a, 2, &a_shape));
  TW_RETURN_IF_ERROR(c->WithRank(b, 2, &b_shape));
  bool transpose_a, transpose_b;
  TW_RETURN_IF_ERROR(c->GetAttr("transpose_a", &transpose_a));
  TW_RETURN_IF_ERROR(c->GetAttr("transpose_b", &transpose_b));
  const int64_t ka = a_shape.dim(transpose_a ? 0 : 1);
  const int64_t kb = b_shape.dim(transpose_b ? 1 : 0);
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return errors::InvalidArgument("Dimensions must be equal, but are ", ka,
                                   " and ", kb);
  }
  *product = PartialShape(
      {a_shape.dim(transpose_a ? 1 : 0), b_shape.dim(transpose_b ? 0 : 1)});
  return Status::OK();
}

Status BroadcastBinary(InferenceContext* c) {
  const PartialShape& a = c->input(0);
  const PartialShape& b = c->input(1);
  if (a.known_rank() && b.known_rank()) {
    // TensorFlow's broadcasting shape function words a mismatch as a failed
    // dimension merge (the kernels say "Incompatible shapes").
    int rank = std::max(a.rank(), b.rank());
    for (int i = 0; i < rank; ++i) {
      int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
      int64_t da = ia >= 0 ? a.dim(ia) : 1;
      int64_t db = ib >= 0 ? b.dim(ib) : 1;
      if (da > 1 && db > 1 && da != db) {
        return errors::InvalidArgument("Dimensions must be equal, but are ", da,
                                       " and ", db);
      }
    }
  }
  PartialShape out;
  TW_RETURN_IF_ERROR(InferenceContext::BroadcastShapes(a, b, &out));
  c->set_output(0, out);
  return Status::OK();
}

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape::UnknownRank());
  }
  return Status::OK();
}

}  // namespace shape_fns
}  // namespace tensorweave
