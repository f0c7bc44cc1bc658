// TF1's readers (tf.TFRecordReader, tf.TextLineReader, ...), with
// TensorFlow's V2 op names, inputs, outputs and attrs. A reader is a session
// resource like a queue: its handle is a scalar string naming it in the
// session's resources (TensorFlow's is a `resource` tensor). Reading takes
// work units (filenames) from a queue of strings as it needs them.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {

namespace {

Status ScalarOutputs(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) {
    c->set_output(i, PartialShape({}));
  }
  return Status::OK();
}

// Inputs [0, n) are scalar handles (or scalar state).
Status ScalarInputs(InferenceContext* c, int n) {
  for (int i = 0; i < n; ++i) {
    PartialShape scalar;
    TW_RETURN_IF_ERROR(c->WithRank(i, 0, &scalar));
  }
  return Status::OK();
}

}  // namespace

REGISTER_OP("TFRecordReaderV2")
    .Output("reader_handle: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("compression_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc(
        "A reader of the records of TFRecord files; a record's key is "
        "'<filename>:<offset of the record>'. compression_type: '', 'ZLIB' "
        "or 'GZIP'.");

REGISTER_OP("TextLineReaderV2")
    .Output("reader_handle: string")
    .Attr("skip_header_lines: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc(
        "A reader of the lines of files (without the newline, and without a "
        "'\\r' before it); a line's key is '<filename>:<line number from "
        "1>'. skip_header_lines (>= 0) lines of each file are skipped.");

REGISTER_OP("WholeFileReaderV2")
    .Output("reader_handle: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc(
        "A reader whose one record per file is the file's contents, keyed by "
        "the filename.");

REGISTER_OP("FixedLengthRecordReaderV2")
    .Output("reader_handle: string")
    .Attr("header_bytes: int = 0")
    .Attr("record_bytes: int")
    .Attr("footer_bytes: int = 0")
    .Attr("hop_bytes: int = 0")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .Attr("encoding: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc(
        "A reader of records of record_bytes bytes after header_bytes, "
        "starting hop_bytes apart (0: record_bytes), while a whole record and "
        "footer_bytes remain; key '<filename>:<record number from 0>'. "
        "encoding: '', 'ZLIB' or 'GZIP' (the file is compressed).");

REGISTER_OP("IdentityReaderV2")
    .Output("reader_handle: string")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(ScalarOutputs)
    .Doc(
        "A reader whose one record per work unit is the work unit itself, as "
        "key and value.");

REGISTER_OP("ReaderReadV2")
    .Input("reader_handle: string")
    .Input("queue_handle: string")
    .Output("key: string")
    .Output("value: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInputs(c, 2));
      return ScalarOutputs(c);
    })
    .Doc(
        "The next record (key, value) of the reader, which dequeues a work "
        "unit (a filename) from the queue when it needs one, waiting for it. "
        "A closed, empty queue is OutOfRange.");

REGISTER_OP("ReaderReadUpToV2")
    .Input("reader_handle: string")
    .Input("queue_handle: string")
    .Input("num_records: int64")
    .Output("keys: string")
    .Output("values: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInputs(c, 3));
      c->set_output(0, PartialShape({-1}));
      c->set_output(1, PartialShape({-1}));
      return Status::OK();
    })
    .Doc(
        "Up to num_records (>= 0) records of the reader: fewer where the "
        "current work unit ends after at least one.");

REGISTER_OP("ReaderNumRecordsProducedV2")
    .Input("reader_handle: string")
    .Output("records_produced: int64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInputs(c, 1));
      return ScalarOutputs(c);
    })
    .Doc("The number of records the reader has produced.");

REGISTER_OP("ReaderNumWorkUnitsCompletedV2")
    .Input("reader_handle: string")
    .Output("units_completed: int64")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInputs(c, 1));
      return ScalarOutputs(c);
    })
    .Doc("The number of work units the reader has finished.");

REGISTER_OP("ReaderSerializeStateV2")
    .Input("reader_handle: string")
    .Output("state: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TW_RETURN_IF_ERROR(ScalarInputs(c, 1));
      return ScalarOutputs(c);
    })
    .Doc(
        "The reader's state (TensorFlow's ReaderBaseState bytes); "
        "Unimplemented for readers whose position in a file it cannot hold "
        "(all but WholeFileReader and IdentityReader).");

REGISTER_OP("ReaderRestoreStateV2")
    .Input("reader_handle: string")
    .Input("state: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ScalarInputs(c, 2); })
    .Doc("Restores a state that ReaderSerializeStateV2 produced.");

REGISTER_OP("ReaderResetV2")
    .Input("reader_handle: string")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) { return ScalarInputs(c, 1); })
    .Doc("Returns the reader to its initial state.");

}  // namespace tensorweave
