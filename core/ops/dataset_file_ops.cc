// tf.data's file datasets (core/data/file_dataset_ops.cc): the records of
// TFRecord files, the lines of text files, the fixed-length records of binary
// files. `filenames` is a string scalar or vector; the files are read in
// order. Stateful (as RangeDataset): a file's contents are not a constant.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

Status FileDatasetShape(InferenceContext* c) {
  // filenames: a scalar or a vector; the other inputs are scalars.
  if (c->num_inputs() > 0) {
    const PartialShape& f = c->input(0);
    if (f.rank() > 1) {
      return errors::InvalidArgument(
          "`filenames` must be a scalar or a vector, got shape ", f.ToString());
    }
  }
  for (int i = 1; i < c->num_inputs(); ++i) {
    const PartialShape& s = c->input(i);
    if (s.rank() > 0) {
      return errors::InvalidArgument(
          "input ", i, " must be a scalar, got shape ", s.ToString());
    }
  }
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("TFRecordDataset")
    .Input("filenames: string")
    .Input("compression_type: string")
    .Input("buffer_size: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(FileDatasetShape)
    .Doc(
        "The records of TFRecord files (string scalars), file after file; "
        "compression_type \"\", \"ZLIB\" or \"GZIP\"; buffer_size bytes are "
        "read at a time (-1: 256 KiB).");

REGISTER_OP("TextLineDataset")
    .Input("filenames: string")
    .Input("compression_type: string")
    .Input("buffer_size: int64")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(FileDatasetShape)
    .Doc(
        "The lines of text files (string scalars without the newline), file "
        "after file.");

REGISTER_OP("FixedLengthRecordDatasetV2")
    .Input("filenames: string")
    .Input("header_bytes: int64")
    .Input("record_bytes: int64")
    .Input("footer_bytes: int64")
    .Input("buffer_size: int64")
    .Input("compression_type: string")
    .Output("handle: string")
    .SetIsStateful()
    .Attr("output_types: list(type) >= 1")
    .Attr("output_shapes: list(shape) >= 1")
    .Attr("metadata: string = ''")
    .SetShapeFn(FileDatasetShape)
    .Doc(
        "The record_bytes-long records of binary files, after header_bytes "
        "and before footer_bytes of each file.");

}  // namespace tensorweave
