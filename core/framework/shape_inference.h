// InferenceContext: what a shape function sees of a node being added to a
// graph (input shapes and dtypes, constant input values when known, attrs)
// and where it writes the output shapes.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_SHAPE_INFERENCE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_SHAPE_INFERENCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/framework/attr_value.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_shape.h"

namespace tensorweave {

// What graph construction knows of the value of a small integer tensor, a
// scalar or a vector such as a shape, a slice's bounds or tile multiples:
// whether its rank and length are known, and which elements are. TensorFlow
// computes the same by partial evaluation (constant_value_as_shape, the
// shape refiner's ConstantPartialShape); here each node of the graph carries
// it for its integer outputs (partial_value.h).
struct PartialValue {
  // False: nothing is known, not even the rank or the length.
  bool known_length = false;
  // Rank 0 (then exactly one element) rather than rank 1.
  bool scalar = false;
  // Each element, when known.
  std::vector<std::optional<int64_t>> elements;

  static PartialValue Unknown() { return PartialValue(); }
  static PartialValue Scalar(std::optional<int64_t> value);
  static PartialValue Vector(std::vector<std::optional<int64_t>> elements);
  // The value of a constant int32/int64 scalar or vector; Unknown for any
  // other tensor.
  static PartialValue FromTensor(const Tensor& tensor);

  bool fully_known() const;
  // The elements as int64 (call only when fully_known()).
  std::vector<int64_t> values() const;
  // The value as an int32 or int64 tensor (call only when fully_known()).
  Tensor ToTensor(DataType dtype) const;
  // As a shape: element -1 (or unknown) is an unknown dim, a scalar is a
  // one-dim shape, an unknown length is an unknown rank. Elements below -1
  // are an error.
  Status AsShape(PartialShape* shape) const;
};

class InferenceContext {
 public:
  InferenceContext(const AttrMap* attrs, std::vector<PartialShape> inputs,
                   std::vector<DataType> input_types,
                   std::vector<const Tensor*> input_values, int num_outputs);

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const PartialShape& input(int i) const { return inputs_[i]; }
  DataType input_type(int i) const { return input_types_[i]; }
  // The value of input i when it is known at graph construction (a constant,
  // or fully determined by partial evaluation, e.g. tf.shape(x) of a fully
  // defined x), else null.
  const Tensor* input_value(int i) const { return input_values_[i]; }
  // What is known of input i's value when it is a small integer scalar or
  // vector: a constant, or computed from shapes (Shape, StridedSlice, Pack,
  // ConcatV2, Cast, arithmetic, ...) by partial evaluation.
  PartialValue input_partial_value(int i) const;
  // Set by the graph: what is known of each input's value.
  void set_input_partial_values(std::vector<PartialValue> values) {
    input_partial_values_ = std::move(values);
  }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, PartialShape shape) { outputs_[i] = std::move(shape); }
  const PartialShape& output(int i) const { return outputs_[i]; }
  const std::vector<PartialShape>& outputs() const { return outputs_; }

  template <typename T>
  Status GetAttr(const std::string& name, T* value) const {
    return ::tensorweave::GetAttr(*attrs_, name, value);
  }

  // Checks input i against a rank; an unknown rank becomes that rank.
  Status WithRank(int i, int rank, PartialShape* out) const;
  Status WithRankAtLeast(int i, int rank) const;
  // numpy broadcasting of two shapes.
  static Status BroadcastShapes(const PartialShape& a, const PartialShape& b,
                                PartialShape* out);
  // The shape named by a 1-D int32/int64 input (Reshape, Fill): each dim
  // that partial evaluation of the input determines, of known rank when its
  // length is known.
  Status ShapeFromShapeInput(int i, PartialShape* out) const;
  // Every output gets the shape of input i.
  Status UnchangedShape(int i = 0);

  // "[2,3], [4,5]" for error messages.
  std::string InputShapesString() const;

 private:
  const AttrMap* attrs_;
  std::vector<PartialShape> inputs_;
  std::vector<DataType> input_types_;
  std::vector<const Tensor*> input_values_;
  std::vector<PartialShape> outputs_;
  std::vector<PartialValue> input_partial_values_;
};

// Shape functions shared by many ops.
namespace shape_fns {
Status Unchanged(InferenceContext* c);
Status Scalar(InferenceContext* c);
Status NoOutputs(InferenceContext* c);
Status BroadcastBinary(InferenceContext* c);
Status UnknownShape(InferenceContext* c);
// The [m, n] shape of matmul(input a, input b) under the node's transpose_a
// and transpose_b attrs; both inputs must be matrices with equal inner
// dimensions (where known).
Status MatMulProduct(InferenceContext* c, int a, int b, PartialShape* product);
}  // namespace shape_fns

// Reads a 1-D (or scalar) int32/int64 tensor as int64 values.
Status ReadIndexVector(const Tensor& tensor, std::vector<int64_t>* values);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_SHAPE_INFERENCE_H_
