// Audio ops: WAV decoding and encoding (tf.audio), and the speech front end
// of TF's speech-commands models: AudioSpectrogram and Mfcc.
#include "core/framework/op_def.h"
#include "core/framework/shape_inference.h"

namespace tensorweave {
namespace {

Status DecodeWavShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 0, &unused));
  int64_t channels = -1, samples = -1;
  TW_RETURN_IF_ERROR(c->GetAttr("desired_channels", &channels));
  TW_RETURN_IF_ERROR(c->GetAttr("desired_samples", &samples));
  c->set_output(0, PartialShape({samples > 0 ? samples : -1,
                                 channels > 0 ? channels : -1}));
  c->set_output(1, PartialShape({}));
  return Status::OK();
}

Status EncodeWavShape(InferenceContext* c) {
  PartialShape unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &unused));
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  c->set_output(0, PartialShape({}));
  return Status::OK();
}

Status AudioSpectrogramShape(InferenceContext* c) {
  PartialShape input;
  TW_RETURN_IF_ERROR(c->WithRank(0, 2, &input));
  int64_t window = 0, stride = 0;
  TW_RETURN_IF_ERROR(c->GetAttr("window_size", &window));
  TW_RETURN_IF_ERROR(c->GetAttr("stride", &stride));
  if (window < 2 || window > (int64_t{1} << 24) || stride < 1) {
    return errors::InvalidArgument(
        "AudioSpectrogram needs window_size in [2, 2^24] and stride >= 1, "
        "got ",
        window, " and ", stride);
  }
  int64_t fft = 1;
  while (fft < window) fft <<= 1;
  int64_t frames = -1;
  if (input.dim(0) >= 0) {
    frames = input.dim(0) < window ? 0 : 1 + (input.dim(0) - window) / stride;
  }
  c->set_output(0, PartialShape({input.dim(1), frames, fft / 2 + 1}));
  return Status::OK();
}

Status MfccShape(InferenceContext* c) {
  PartialShape spectrogram, unused;
  TW_RETURN_IF_ERROR(c->WithRank(0, 3, &spectrogram));
  TW_RETURN_IF_ERROR(c->WithRank(1, 0, &unused));
  int64_t coefficients = 0;
  TW_RETURN_IF_ERROR(c->GetAttr("dct_coefficient_count", &coefficients));
  c->set_output(
      0, PartialShape({spectrogram.dim(0), spectrogram.dim(1), coefficients}));
  return Status::OK();
}

}  // namespace

REGISTER_OP("DecodeWav")
    .Input("contents: string")
    .Output("audio: float")
    .Output("sample_rate: int32")
    .Attr("desired_channels: int = -1")
    .Attr("desired_samples: int = -1")
    .SetShapeFn(DecodeWavShape)
    .Doc(
        "A 16-bit PCM WAV file as [samples, channels] floats in [-1, 1) and "
        "its sample rate; desired_channels / desired_samples (-1: the "
        "file's) repeat the last channel, or pad with zeros / truncate.");

REGISTER_OP("EncodeWav")
    .Input("audio: float")
    .Input("sample_rate: int32")
    .Output("contents: string")
    .SetShapeFn(EncodeWavShape)
    .Doc(
        "[frames, channels] floats (clipped to [-1, 1]) as a 16-bit PCM WAV "
        "file.");

REGISTER_OP("AudioSpectrogram")
    .Input("input: float")
    .Output("spectrogram: float")
    .Attr("window_size: int")
    .Attr("stride: int")
    .Attr("magnitude_squared: bool = false")
    .SetShapeFn(AudioSpectrogramShape)
    .Doc(
        "[samples, channels] audio as [channels, frames, fft_length / 2 + 1] "
        "magnitudes (squared when magnitude_squared) of periodic-Hann "
        "windows every `stride` samples, fft_length the power of two at or "
        "above window_size.");

REGISTER_OP("Mfcc")
    .Input("spectrogram: float")
    .Input("sample_rate: int32")
    .Output("output: float")
    .Attr("upper_frequency_limit: float = 4000")
    .Attr("lower_frequency_limit: float = 20")
    .Attr("filterbank_channel_count: int = 40")
    .Attr("dct_coefficient_count: int = 13")
    .SetShapeFn(MfccShape)
    .Doc(
        "Mel-frequency cepstral coefficients of each frame of a squared-"
        "magnitude spectrogram (AudioSpectrogram's with magnitude_squared): "
        "a triangular mel filterbank, log, and a DCT-II.");

}  // namespace tensorweave
