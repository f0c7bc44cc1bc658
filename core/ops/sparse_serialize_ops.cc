// SerializeSparse, SerializeManySparse and DeserializeManySparse
// (tf.io.serialize_sparse, serialize_many_sparse, deserialize_many_sparse):
// each component of a SparseTensor stored as a serialized TensorProto, as
// TensorFlow does, so the strings are byte-compatible with TensorFlow's.
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("SerializeSparse")
    .Input("sparse_indices: int64")
    .Input("sparse_values: T")
    .Input("sparse_shape: int64")
    .Output("serialized_sparse: out_type")
    .Attr("T: type")
    .Attr("out_type: {string} = string")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, {3});
      return Status::OK();
    })
    .Doc(
        "The SparseTensor (indices, values, dense_shape) as a vector of 3 "
        "strings, each component a serialized TensorProto.");

REGISTER_OP("SerializeManySparse")
    .Input("sparse_indices: int64")
    .Input("sparse_values: T")
    .Input("sparse_shape: int64")
    .Output("serialized_sparse: out_type")
    .Attr("T: type")
    .Attr("out_type: {string} = string")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, {-1, 3});
      return Status::OK();
    })
    .Doc(
        "A SparseTensor of rank >= 2 as an [N, 3] string matrix: row i is "
        "SerializeSparse of its minibatch entry i (the first dimension "
        "removed). Indices must be in range and in row-major order.");

REGISTER_OP("DeserializeManySparse")
    .Input("serialized_sparse: string")
    .Output("sparse_indices: int64")
    .Output("sparse_values: dtype")
    .Output("sparse_shape: int64")
    .Attr("dtype: type")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, {-1, -1});
      c->set_output(1, {-1});
      c->set_output(2, {-1});
      return Status::OK();
    })
    .Doc(
        "The inverse of SerializeManySparse: an [N, 3] matrix of serialized "
        "SparseTensors of one rank R and type dtype, concatenated along a "
        "new first dimension into one SparseTensor of rank R + 1 whose "
        "shape is [N] + the largest of each dimension.");

}  // namespace tensorweave
