// String ops (TensorFlow's tf.strings and TF1's top-level string names):
// host-only kernels over DT_STRING tensors.
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

// The shape of an element-wise op over inputs that are each a scalar or of
// one common shape (StringJoin); numpy broadcasting for Substr.
Status BroadcastAll(InferenceContext* c) {
  PartialShape out({});
  for (int i = 0; i < c->num_inputs(); ++i) {
    PartialShape next;
    TW_RETURN_IF_ERROR(
        InferenceContext::BroadcastShapes(out, c->input(i), &next));
    out = next;
  }
  c->set_output(0, out);
  return Status::OK();
}

Status SplitShape(InferenceContext* c) {
  PartialShape s;
  TW_RETURN_IF_ERROR(c->WithRank(0, 1, &s));
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &s));
  c->set_output(0, PartialShape({-1, 2}));
  c->set_output(1, PartialShape({-1}));
  c->set_output(2, PartialShape({2}));
  return Status::OK();
}

Status ScalarPatternUnchanged(InferenceContext* c) {
  PartialShape s;
  for (int i = 1; i < c->num_inputs(); ++i) {
    TW_RETURN_IF_ERROR(c->WithRank(i, 0, &s));
  }
  c->set_output(0, c->input(0));
  return Status::OK();
}

// ReduceJoin: the reduced dims removed (kept as 1 with keep_dims) when the
// reduction indices are a constant; else a shape of unknown rank.
Status ReduceJoinShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  bool keep_dims;
  TW_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims));
  const Tensor* axes_t = c->input_value(1);
  if (!in.known_rank() || axes_t == nullptr) {
    c->set_output(0, PartialShape::UnknownRank());
    return Status::OK();
  }
  std::vector<int64_t> axes;
  TW_RETURN_IF_ERROR(ReadIndexVector(*axes_t, &axes));
  const int rank = in.rank();
  // An empty list reduces nothing (TensorFlow's ReduceJoin).
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) {
      return errors::InvalidArgument("Invalid reduction dimension ", a,
                                     " for input with ", rank, " dimensions.");
    }
    const int64_t d = a < 0 ? a + rank : a;
    if (reduced[d]) {
      return errors::InvalidArgument("Duplicate reduction dimension ", a);
    }
    reduced[d] = true;
  }
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      dims.push_back(in.dim(d));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  c->set_output(0, PartialShape(dims));
  return Status::OK();
}

}  // namespace

REGISTER_OP("StringJoin")
    .Input("inputs: N * string")
    .Output("output: string")
    .Attr("N: int >= 0")
    .Attr("separator: string = ''")
    .SetShapeFn(BroadcastAll)
    .Doc(
        "Joins the strings of the inputs element-wise with the separator "
        "(scalars are repeated).");

REGISTER_OP("StringSplit")
    .Input("input: string")
    .Input("delimiter: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("skip_empty: bool = true")
    .SetShapeFn(SplitShape)
    .Doc(
        "Splits each string of a vector at any character of the delimiter "
        "(into characters when it is empty): a SparseTensor's parts.");

REGISTER_OP("StringSplitV2")
    .Input("input: string")
    .Input("sep: string")
    .Output("indices: int64")
    .Output("values: string")
    .Output("shape: int64")
    .Attr("maxsplit: int = -1")
    .SetShapeFn(SplitShape)
    .Doc(
        "Splits each string of a vector at the separator string (at runs of "
        "whitespace when it is empty, as Python's str.split).");

REGISTER_OP("Substr")
    .Input("input: string")
    .Input("pos: T")
    .Input("len: T")
    .Output("output: string")
    .Attr("T: {int32, int64}")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .SetShapeFn([](InferenceContext* c) {
      PartialShape merged;  // the kernel indexes len by pos's index
      if (!c->input(1).Merge(c->input(2), &merged).ok()) {
        return errors::InvalidArgument(
            "pos and len shapes must match: ", c->input(1).ToString(), " vs. ",
            c->input(2).ToString());
      }
      return BroadcastAll(c);
    })
    .Doc(
        "The substrings [pos, pos + len) of each string (negative pos from "
        "the end).");

REGISTER_OP("StringToNumber")
    .Input("string_tensor: string")
    .Output("output: out_type")
    .Attr("out_type: {float, double, int32, int64} = float")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Each string parsed as a number (InvalidArgument when one is not).");

REGISTER_OP("StringToHashBucketFast")
    .Input("input: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Fingerprint64(s) mod num_buckets (TensorFlow's buckets).");

REGISTER_OP("StringToHashBucketStrong")
    .Input("input: string")
    .Output("output: int64")
    .Attr("num_buckets: int >= 1")
    .Attr("key: list(int)")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("SipHash-2-4(key, s) mod num_buckets (TensorFlow's buckets).");

REGISTER_OP("AsString")
    .Input("input: T")
    .Output("output: string")
    .Attr("T: {float, double, int32, int64, uint8, int8, int16, bool}")
    .Attr("precision: int = -1")
    .Attr("scientific: bool = false")
    .Attr("shortest: bool = false")
    .Attr("width: int = -1")
    .Attr("fill: string = ''")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Each element formatted as a string (printf rules, as TensorFlow).");

REGISTER_OP("RegexReplace")
    .Input("input: string")
    .Input("pattern: string")
    .Input("rewrite: string")
    .Output("output: string")
    .Attr("replace_global: bool = true")
    .SetShapeFn(ScalarPatternUnchanged)
    .Doc(
        "Replaces the matches of the pattern (ECMAScript syntax) by the "
        "rewrite, where \\1 names a group.");

REGISTER_OP("RegexFullMatch")
    .Input("input: string")
    .Input("pattern: string")
    .Output("output: bool")
    .SetShapeFn(ScalarPatternUnchanged)
    .Doc("Whether each whole string matches the pattern.");

REGISTER_OP("StaticRegexReplace")
    .Input("input: string")
    .Output("output: string")
    .Attr("pattern: string")
    .Attr("rewrite: string")
    .Attr("replace_global: bool = true")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("RegexReplace with the pattern and rewrite as attributes.");

REGISTER_OP("StaticRegexFullMatch")
    .Input("input: string")
    .Output("output: bool")
    .Attr("pattern: string")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("RegexFullMatch with the pattern as an attribute.");

REGISTER_OP("StringLength")
    .Input("input: string")
    .Output("output: int32")
    .Attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("The length of each string in bytes or UTF-8 characters.");

REGISTER_OP("StringLower")
    .Input("input: string")
    .Output("output: string")
    .Attr("encoding: string = ''")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Each string with ASCII letters lowercased.");

REGISTER_OP("StringUpper")
    .Input("input: string")
    .Output("output: string")
    .Attr("encoding: string = ''")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Each string with ASCII letters uppercased.");

REGISTER_OP("StringStrip")
    .Input("input: string")
    .Output("output: string")
    .SetShapeFn(shape_fns::Unchanged)
    .Doc("Each string without its leading and trailing whitespace.");

REGISTER_OP("ReduceJoin")
    .Input("inputs: string")
    .Input("reduction_indices: int32")
    .Output("output: string")
    .Attr("keep_dims: bool = false")
    .Attr("separator: string = ''")
    .SetShapeFn(ReduceJoinShape)
    .Doc("Joins the strings along the given dims with the separator.");

}  // namespace tensorweave
