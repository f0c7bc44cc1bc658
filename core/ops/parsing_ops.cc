// Parsing serialized tf.train.Example protos (tf.io.parse_example,
// parse_single_example). ParseExampleV2 has TensorFlow's signature; the
// kernel (core/kernels/sequence_example_ops.cc) parses sparse and dense keys;
// the ragged lists must be empty.
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

REGISTER_OP("ParseExampleV2")
    .Input("serialized: string")
    .Input("names: string")
    .Input("sparse_keys: string")
    .Input("dense_keys: string")
    .Input("ragged_keys: string")
    .Input("dense_defaults: Tdense")
    .Output("sparse_indices: num_sparse * int64")
    .Output("sparse_values: sparse_types")
    .Output("sparse_shapes: num_sparse * int64")
    .Output("dense_values: Tdense")
    .Output("ragged_values: ragged_value_types")
    .Output("ragged_row_splits: ragged_split_types")
    .Attr("Tdense: list({float32, int64, string}) >= 0")
    .Attr("num_sparse: int >= 0")
    .Attr("sparse_types: list({float32, int64, string}) >= 0")
    .Attr("ragged_value_types: list({float32, int64, string}) >= 0")
    .Attr("ragged_split_types: list({int32, int64}) >= 0")
    .Attr("dense_shapes: list(shape) >= 0")
    .SetShapeFn([](InferenceContext* c) {
      int64_t num_sparse = 0;
      TW_RETURN_IF_ERROR(c->GetAttr("num_sparse", &num_sparse));
      std::vector<PartialShape> dense_shapes;
      TW_RETURN_IF_ERROR(c->GetAttr("dense_shapes", &dense_shapes));
      if (c->num_outputs() !=
          static_cast<int>(3 * num_sparse + dense_shapes.size())) {
        return errors::Unimplemented(
            "ParseExampleV2: ragged features (RaggedFeature) are not "
            "supported");
      }
      const PartialShape& serialized = c->input(0);
      if (serialized.known_rank() && serialized.rank() > 1) {
        return errors::InvalidArgument(
            "serialized must be a scalar or a vector, got shape ",
            serialized.ToString());
      }
      const int64_t rank = serialized.known_rank() ? serialized.rank() + 1 : -1;
      const int n = static_cast<int>(num_sparse);
      for (int i = 0; i < n; ++i) {
        c->set_output(i, PartialShape({-1, rank}));
        c->set_output(n + i, PartialShape({-1}));
        c->set_output(2 * n + i, PartialShape({rank}));
      }
      for (size_t i = 0; i < dense_shapes.size(); ++i) {
        const int o = 3 * n + static_cast<int>(i);
        if (!serialized.known_rank() || !dense_shapes[i].known_rank()) {
          c->set_output(o, PartialShape::UnknownRank());
          continue;
        }
        std::vector<int64_t> dims = serialized.dims();
        for (int64_t d : dense_shapes[i].dims()) dims.push_back(d);
        c->set_output(o, PartialShape(dims));
      }
      return Status::OK();
    })
    .Doc(
        "Parses serialized Example protos (a scalar or a vector of them). "
        "Sparse keys give (indices, values, dense_shape) of a SparseTensor "
        "[batch, max count]; dense keys give [batch] + dense_shapes[i] from "
        "the feature's values, or dense_defaults[i] where the feature is "
        "missing (an error when that default is empty). A dense shape whose "
        "first dimension is unknown is variable-length "
        "(FixedLenSequenceFeature):"
        " [batch, max rows] + rest, padded with the scalar default. Ragged "
        "features are not supported.");

REGISTER_OP("DecodeRaw")
    .Input("bytes: string")
    .Output("output: out_type")
    .Attr(
        "out_type: {float16, float32, float64, int8, int16, int32, int64, "
        "uint8, uint16, bool}")
    .Attr("little_endian: bool = true")
    .SetShapeFn([](InferenceContext* c) {
      const PartialShape& in = c->input(0);
      if (!in.known_rank()) {
        c->set_output(0, PartialShape::UnknownRank());
        return Status::OK();
      }
      std::vector<int64_t> dims = in.dims();
      dims.push_back(-1);
      c->set_output(0, PartialShape(dims));
      return Status::OK();
    })
    .Doc(
        "Reinterprets the bytes of each string as a vector of out_type "
        "(little- or big-endian): output shape bytes.shape + [length / "
        "sizeof(out_type)]. Every string must have the same length, a "
        "multiple of the element size.");

}  // namespace tensorweave
