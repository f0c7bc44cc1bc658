// The unicode ops (TensorFlow's tf.strings.unicode_transcode, unicode_encode,
// unicode_decode, unicode_decode_with_offsets and unicode_script): host-only
// kernels in core/kernels/unicode_ops.cc.
#include <string>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status EncodeShape(InferenceContext* c) {
  PartialShape s;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &s));
  PartialShape splits;  // rank 1 (an unknown rank becomes [?])
  TW_RETURN_IF_ERROR(c->WithRank(1, 1, &splits));
  const int64_t n = splits.dim(0);
  c->set_output(0, PartialShape({n < 1 ? -1 : n - 1}));
  return Status::OK();
}

// row_splits [num_elements(input) + 1], then the per-character outputs [?].
Status DecodeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  int64_t n = -1;
  if (in.known_rank()) {
    n = 1;
    for (int d = 0; d < in.rank(); ++d) {
      if (in.dim(d) < 0) {
        n = -1;
        break;
      }
      n *= in.dim(d);
    }
  }
  c->set_output(0, PartialShape({n < 0 ? -1 : n + 1}));
  for (int i = 1; i < c->num_outputs(); ++i)
    c->set_output(i, PartialShape({-1}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("UnicodeTranscode")
    .Input("input: string")
    .Output("output: string")
    .Attr("input_encoding: string")
    .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")
    .Attr("replace_control_characters: bool = false")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); })
    .Doc(
        "Each string re-encoded from input_encoding (UTF-8, UTF-16-BE or "
        "UTF-32-BE) to output_encoding; ill-formed input is an error, "
        "replaced or dropped by `errors`.");

REGISTER_OP("UnicodeEncode")
    .Input("input_values: int32")
    .Input("input_splits: Tsplits")
    .Output("output: string")
    .Attr("errors: {'ignore', 'replace', 'strict'} = 'replace'")
    .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
    .Attr("replacement_char: int = 65533")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(EncodeShape)
    .Doc(
        "Each row of code points (a ragged vector: values and row splits) "
        "encoded as one string.");

REGISTER_OP("UnicodeDecode")
    .Input("input: string")
    .Output("row_splits: Tsplits")
    .Output("char_values: int32")
    .Attr("input_encoding: string")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")
    .Attr("replace_control_characters: bool = false")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(DecodeShape)
    .Doc(
        "The code points of each string (input flattened) as a ragged "
        "vector: row_splits and char_values. Ill-formed input is an error, "
        "replaced or dropped by `errors`.");

REGISTER_OP("UnicodeDecodeWithOffsets")
    .Input("input: string")
    .Output("row_splits: Tsplits")
    .Output("char_values: int32")
    .Output("char_to_byte_starts: int64")
    .Attr("input_encoding: string")
    .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
    .Attr("replacement_char: int = 65533")
    .Attr("replace_control_characters: bool = false")
    .Attr("Tsplits: {int32, int64} = int64")
    .SetShapeFn(DecodeShape)
    .Doc(
        "UnicodeDecode, with the byte offset in its string at which each "
        "character starts.");

REGISTER_OP("UnicodeScript")
    .Input("input: int32")
    .Output("output: int32")
    .SetShapeFn([](InferenceContext* c) { return c->UnchangedShape(); })
    .Doc(
        "ICU's script code (UScriptCode) of each code point; -1 for a value "
        "that is not a code point.");

}  // namespace tensorweave
