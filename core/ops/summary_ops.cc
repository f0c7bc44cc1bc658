// Summary ops (TensorFlow's logging_ops): each produces a serialized
// Summary protocol buffer (a scalar string) that a FileWriter writes into an
// event file for TensorBoard.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status ScalarTagScalarOutput(InferenceContext* c) {
  PartialShape s;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &s));
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("ScalarSummary")
    .Input("tags: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr(
        "T: {float32, float64, int32, uint8, int16, int8, int64, uint16, "
        "float16, uint32, uint64}")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A Summary with one simple_value per element of values, tagged by "
        "the element of tags at the same position (tags and values have the "
        "same shape).");

REGISTER_OP("HistogramSummary")
    .Input("tag: string")
    .Input("values: T")
    .Output("summary: string")
    .Attr(
        "T: {float32, float64, int32, uint8, int16, int8, int64, uint16, "
        "float16, uint32, uint64} = float32")
    .SetShapeFn(ScalarTagScalarOutput)
    .Doc(
        "A Summary with a histogram of values over TensorFlow's default "
        "buckets (ranges growing by 10% from 1e-12 to 1e20, both signs); "
        "a non-finite value is an InvalidArgument error.");

REGISTER_OP("ImageSummary")
    .Input("tag: string")
    .Input("tensor: T")
    .Output("summary: string")
    .Attr("max_images: int >= 1 = 3")
    .Attr("T: {uint8, float32, float16, float64} = float32")
    .SetShapeFn(ScalarTagScalarOutput)
    .Doc(
        "A Summary with up to max_images PNG images from a [batch, height, "
        "width, channels] tensor (channels 1, 3 or 4); float images are "
        "scaled into [0, 255] as TensorFlow does (non-finite pixels red).");

REGISTER_OP("AudioSummaryV2")
    .Input("tag: string")
    .Input("tensor: float")
    .Input("sample_rate: float")
    .Output("summary: string")
    .Attr("max_outputs: int >= 1 = 3")
    .SetShapeFn(ScalarTagScalarOutput)
    .Doc(
        "A Summary with up to max_outputs 16-bit PCM WAV clips from a "
        "[batch, frames] or [batch, frames, channels] tensor of samples in "
        "[-1, 1] (clamped) at sample_rate frames per second.");

REGISTER_OP("TensorSummaryV2")
    .Input("tag: string")
    .Input("tensor: T")
    .Input("serialized_summary_metadata: string")
    .Output("summary: string")
    .Attr("T: type")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "A Summary with one value holding the whole tensor as a TensorProto "
        "and the given SummaryMetadata.");

REGISTER_OP("MergeSummary")
    .Input("inputs: N * string")
    .Output("summary: string")
    .Attr("N: int >= 1")
    .SetShapeFn(ScalarOutput)
    .Doc(
        "The union of the values of serialized Summary protos; a tag that "
        "occurs twice is an InvalidArgument error.");

}  // namespace tensorweave
