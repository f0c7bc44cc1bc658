// tf.io's remaining ops (kernels in core/kernels/io_extra_ops.cc): DecodeCSV,
// DecodeCompressed, SerializeTensor and ParseTensor, with TensorFlow's
// signatures.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

// Every output has the shape of `records`; each default is a scalar or a
// vector of at most one value.
Status DecodeCSVShape(InferenceContext* c) {
  for (int i = 1; i < c->num_inputs(); ++i) {
    if (c->input(i).rank() > 1) {
      return errors::InvalidArgument(
          "Each record default should be at most rank 1, got shape ",
          c->input(i).ToString(), " for field ", i - 1);
    }
    if (c->input(i).rank() == 1 && c->input(i).dims()[0] > 1) {
      return errors::InvalidArgument(
          "There should only be 1 default per field but field ", i - 1,
          " has ", c->input(i).dims()[0]);
    }
  }
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(0));
  return Status::OK();
}

}  // namespace

REGISTER_OP("DecodeCSV")
    .Input("records: string")
    .Input("record_defaults: OUT_TYPE")
    .Output("output: OUT_TYPE")
    .Attr("OUT_TYPE: list({float32, float64, int32, int64, string})")
    .Attr("field_delim: string = ','")
    .Attr("use_quote_delim: bool = true")
    .Attr("na_value: string = ''")
    .Attr("select_cols: list(int) = []")
    .SetShapeFn(DecodeCSVShape)
    .Doc(
        "Splits each CSV record into its fields (RFC 4180 quoting when "
        "use_quote_delim), one output per column; an empty or na_value field "
        "takes its record default (required when the default is empty).");

REGISTER_OP("DecodeCompressed")
    .Input("bytes: string")
    .Output("output: string")
    .Attr("compression_type: string = ''")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Decompresses each string (\"ZLIB\" or \"GZIP\"; \"\" copies).");

REGISTER_OP("SerializeTensor")
    .Input("tensor: T")
    .Output("serialized: string")
    .Attr("T: type")
    .SetShapeFn(shape_fns::Scalar)
    .Doc("The serialized TensorProto of a tensor (TensorFlow's bytes).");

REGISTER_OP("ParseTensor")
    .Input("serialized: string")
    .Output("output: out_type")
    .Attr("out_type: type")
    .SetShapeFn(shape_fns::UnknownShape)
    .Doc(
        "The tensor of a serialized TensorProto, whose dtype must be "
        "out_type.");

}  // namespace tensorweave
