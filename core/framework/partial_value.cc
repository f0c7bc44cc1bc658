#include "core/framework/partial_value.h"

#include <algorithm>
#include <climits>
#include <string>

#include "core/framework/strided_slice.h"

namespace tensorweave {
namespace {

using Element = std::optional<int64_t>;

// Shapes, slice bounds and multiples are short; longer vectors are not
// worth evaluating element by element.
constexpr int64_t kMaxElements = 64;
bool IsIndexType(DataType t) { return t == DT_INT32 || t == DT_INT64; }

// Each node carries what is known of its outputs, computed when it was
// added: evaluating a node reads its inputs' values, never walks further.
const PartialValue& InputValue(const Node& node, int i) {
  const Endpoint& src = node.input(i);
  return src.node->partial_value(src.index);
}

// What the static shape of the output tells: a scalar, or a vector of known
// length, its elements unknown.
PartialValue FromStaticShape(const Node& node, int output) {
  const PartialShape& shape = node.output_shape(output);
  if (!shape.known_rank()) return PartialValue::Unknown();
  if (shape.rank() == 0) return PartialValue::Scalar(std::nullopt);
  if (shape.rank() == 1 && shape.dim(0) >= 0 && shape.dim(0) <= kMaxElements) {
    return PartialValue::Vector(
        std::vector<Element>(static_cast<size_t>(shape.dim(0))));
  }
  return PartialValue::Unknown();
}

PartialValue ShapeValue(const PartialShape& shape) {
  if (!shape.known_rank() || shape.rank() > kMaxElements) {
    return PartialValue::Unknown();
  }
  std::vector<Element> elements;
  for (int64_t d : shape.dims()) {
    elements.push_back(d >= 0 ? Element(d) : std::nullopt);
  }
  return PartialValue::Vector(std::move(elements));
}

bool ReadIntVector(const Node& node, int i, std::vector<int64_t>* values) {
  const PartialValue v = InputValue(node, i);
  if (!v.fully_known()) return false;
  *values = v.values();
  return true;
}

PartialValue PackValue(const Node& node) {
  std::vector<Element> elements;
  for (int i = 0; i < node.num_inputs(); ++i) {
    const PartialValue v = InputValue(node, i);
    elements.push_back(v.known_length && v.scalar ? v.elements[0]
                                                  : std::nullopt);
  }
  return PartialValue::Vector(std::move(elements));
}

PartialValue ConcatValue(const Node& node) {
  const int n = node.num_inputs() - 1;  // the last input is the axis
  std::vector<int64_t> axis;
  if (!ReadIntVector(node, n, &axis) || axis.size() != 1 ||
      (axis[0] != 0 && axis[0] != -1)) {
    return PartialValue::Unknown();
  }
  std::vector<Element> elements;
  for (int i = 0; i < n; ++i) {
    const PartialValue v = InputValue(node, i);
    if (!v.known_length || v.scalar) return PartialValue::Unknown();
    elements.insert(elements.end(), v.elements.begin(), v.elements.end());
  }
  return PartialValue::Vector(std::move(elements));
}

PartialValue StridedSliceValue(const Node& node) {
  const PartialValue in = InputValue(node, 0);
  std::vector<int64_t> begin, end, strides;
  if (!in.known_length || in.scalar || !ReadIntVector(node, 1, &begin) ||
      !ReadIntVector(node, 2, &end) || !ReadIntVector(node, 3, &strides)) {
    return PartialValue::Unknown();
  }
  StridedSliceMasks masks;
  const AttrMap& attrs = node.attrs();
  if (!GetAttr(attrs, "begin_mask", &masks.begin_mask).ok() ||
      !GetAttr(attrs, "end_mask", &masks.end_mask).ok() ||
      !GetAttr(attrs, "ellipsis_mask", &masks.ellipsis_mask).ok() ||
      !GetAttr(attrs, "new_axis_mask", &masks.new_axis_mask).ok() ||
      !GetAttr(attrs, "shrink_axis_mask", &masks.shrink_axis_mask).ok()) {
    return PartialValue::Unknown();
  }
  StridedSliceSpec spec;
  const std::vector<int64_t> dims = {static_cast<int64_t>(in.elements.size())};
  if (!ComputeStridedSlice(dims, begin, end, strides, masks, &spec).ok() ||
      spec.final_shape.size() > 1) {
    return PartialValue::Unknown();
  }
  std::vector<Element> elements;
  for (int64_t k = 0; k < spec.processing[0]; ++k) {
    elements.push_back(in.elements[spec.begin[0] + k * spec.strides[0]]);
  }
  if (spec.final_shape.empty()) {
    return elements.size() == 1 ? PartialValue::Scalar(elements[0])
                                : PartialValue::Unknown();
  }
  return PartialValue::Vector(std::move(elements));
}

PartialValue SliceValue(const Node& node) {
  const PartialValue in = InputValue(node, 0);
  std::vector<int64_t> begin, size;
  if (!in.known_length || in.scalar || !ReadIntVector(node, 1, &begin) ||
      !ReadIntVector(node, 2, &size) || begin.size() != 1 || size.size() != 1) {
    return PartialValue::Unknown();
  }
  const int64_t n = static_cast<int64_t>(in.elements.size());
  const int64_t b = begin[0];
  const int64_t count = size[0] == -1 ? n - b : size[0];
  if (b < 0 || count < 0 || b + count > n) return PartialValue::Unknown();
  return PartialValue::Vector(std::vector<Element>(
      in.elements.begin() + b, in.elements.begin() + b + count));
}

PartialValue FillValue(const Node& node) {
  std::vector<int64_t> dims;
  const PartialValue value = InputValue(node, 1);
  if (!ReadIntVector(node, 0, &dims) || dims.size() > 1 ||
      !value.known_length || !value.scalar) {
    return PartialValue::Unknown();
  }
  if (dims.empty()) return PartialValue::Scalar(value.elements[0]);
  if (dims[0] < 0 || dims[0] > kMaxElements) return PartialValue::Unknown();
  return PartialValue::Vector(
      std::vector<Element>(static_cast<size_t>(dims[0]), value.elements[0]));
}

// Reshape, ExpandDims, Squeeze: the same elements as a scalar or vector.
PartialValue ReshapedValue(const Node& node) {
  const PartialValue in = InputValue(node, 0);
  const PartialShape& out = node.output_shape(0);
  if (!in.known_length || !out.known_rank()) return PartialValue::Unknown();
  if (out.rank() == 0 && in.elements.size() == 1) {
    return PartialValue::Scalar(in.elements[0]);
  }
  if (out.rank() == 1 &&
      (out.dim(0) < 0 ||
       out.dim(0) == static_cast<int64_t>(in.elements.size()))) {
    return PartialValue::Vector(in.elements);
  }
  return PartialValue::Unknown();
}

// One element of integer arithmetic; unknown on overflow or division by 0.
Element Arithmetic(const std::string& op, Element a, Element b) {
  if (!a.has_value() || !b.has_value()) return std::nullopt;
  const int64_t x = *a, y = *b;
  int64_t r;
  if (op == "Add" || op == "AddV2") {
    if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Sub") {
    if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "Mul") {
    if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
  } else if (op == "FloorDiv" || op == "FloorMod") {
    if (y == 0 || (x == INT64_MIN && y == -1)) return std::nullopt;
    int64_t q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
    r = op == "FloorDiv" ? q : x - q * y;
  } else if (op == "Maximum") {
    r = std::max(x, y);
  } else if (op == "Minimum") {
    r = std::min(x, y);
  } else {
    return std::nullopt;
  }
  return r;
}

PartialValue ArithmeticValue(const Node& node) {
  const PartialValue a = InputValue(node, 0);
  const PartialValue b = InputValue(node, 1);
  if (!a.known_length || !b.known_length) return PartialValue::Unknown();
  const size_t na = a.elements.size(), nb = b.elements.size();
  if (!a.scalar && !b.scalar && na != nb) return PartialValue::Unknown();
  const size_t n = a.scalar ? nb : na;
  std::vector<Element> elements;
  for (size_t k = 0; k < n; ++k) {
    elements.push_back(Arithmetic(node.type_string(),
                                  a.elements[a.scalar ? 0 : k],
                                  b.elements[b.scalar ? 0 : k]));
  }
  if (a.scalar && b.scalar) return PartialValue::Scalar(elements[0]);
  return PartialValue::Vector(std::move(elements));
}

// Drops what an int32 output cannot hold (arithmetic runs in int64).
PartialValue FitToType(PartialValue value, DataType dtype) {
  if (dtype != DT_INT32) return value;
  for (auto& e : value.elements) {
    if (e.has_value() && (*e < INT32_MIN || *e > INT32_MAX)) e = std::nullopt;
  }
  return value;
}

PartialValue Evaluate(const Node& node, int output) {
  if (!IsIndexType(node.output_type(output))) return PartialValue::Unknown();
  const std::string& op = node.type_string();
  PartialValue value;
  if (op == "Const") {
    const Tensor* t = node.constant_value();
    if (t != nullptr && t->num_elements() <= kMaxElements) {
      value = PartialValue::FromTensor(*t);
    }
  } else if (op == "Shape") {
    value = ShapeValue(node.input(0).node->output_shape(node.input(0).index));
  } else if (op == "Size" || op == "Rank") {
    const PartialShape& in =
        node.input(0).node->output_shape(node.input(0).index);
    if (op == "Rank" && in.known_rank()) {
      value = PartialValue::Scalar(in.rank());
    } else if (op == "Size" && in.IsFullyDefined()) {
      value = PartialValue::Scalar(in.num_elements());
    }
  } else if (op == "ZerosLike" || op == "OnesLike") {
    value = FromStaticShape(node, output);
    for (auto& e : value.elements) e = op == "OnesLike" ? 1 : 0;
  } else if (op == "Identity" || op == "StopGradient" || op == "Snapshot") {
    value = InputValue(node, 0);
  } else if (op == "Cast") {
    if (IsIndexType(node.input_type(0))) value = InputValue(node, 0);
  } else if (op == "Pack") {
    if (node.output_shape(0).rank() == 1) value = PackValue(node);
  } else if (op == "ConcatV2") {
    value = ConcatValue(node);
  } else if (op == "StridedSlice") {
    value = StridedSliceValue(node);
  } else if (op == "Slice") {
    value = SliceValue(node);
  } else if (op == "Fill") {
    value = FillValue(node);
  } else if (op == "Reshape" || op == "ExpandDims" || op == "Squeeze") {
    value = ReshapedValue(node);
  } else if (op == "Add" || op == "AddV2" || op == "Sub" || op == "Mul" ||
             op == "FloorDiv" || op == "FloorMod" || op == "Maximum" ||
             op == "Minimum") {
    value = ArithmeticValue(node);
  }
  if (!value.known_length) return FromStaticShape(node, output);
  return FitToType(std::move(value), node.output_type(output));
}

}  // namespace

PartialValue EvaluatePartialValue(const Node& node, int output) {
  return Evaluate(node, output);
}

}  // namespace tensorweave
