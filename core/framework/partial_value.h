// Partial evaluation of small integer tensors at graph construction: what
// is known of a shape tensor such as [tf.shape(x)[0], 3, 1] or
// tf.concat([tf.shape(x)[:-1], [n]], 0) before anything runs. Every shape
// function that reads a shape, bounds or multiples input sees it through
// InferenceContext::input_partial_value, so Reshape, Fill, the random ops,
// Tile, Slice and StridedSlice all keep the dims that TensorFlow keeps.
#ifndef TENSORWEAVE_CORE_FRAMEWORK_PARTIAL_VALUE_H_
#define TENSORWEAVE_CORE_FRAMEWORK_PARTIAL_VALUE_H_

#include "core/framework/graph.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

// What is known of output `output` of `node` (whose inputs carry their own
// partial values already) when it is an int32/int64
// scalar or short vector: constants, Shape/Size/Rank of tensors of known
// (partial) shape, and what Identity, Cast, Pack, ConcatV2, StridedSlice,
// Slice, Fill, Reshape/ExpandDims/Squeeze and integer arithmetic (Add, Sub,
// Mul, FloorDiv, FloorMod, Maximum, Minimum) make of them. Anything else
// gives what its static shape tells (a vector's length).
PartialValue EvaluatePartialValue(const Node& node, int output);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_FRAMEWORK_PARTIAL_VALUE_H_
