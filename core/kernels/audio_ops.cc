// Audio kernels: DecodeWav / EncodeWav (16-bit PCM RIFF WAVE files, every
// offset and size of a hostile file checked) and the speech front end of
// TF's speech-commands models: AudioSpectrogram (periodic-Hann windows,
// FFT in double) and Mfcc (HTK-style triangular mel filterbank over
// the bins, log, DCT-II), computed as TensorFlow computes them.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/fft.h"

namespace tensorweave {
namespace {

constexpr int kPcm = 1;
constexpr int kExtensible = 0xFFFE;
constexpr int64_t kMaxOutputElements = int64_t{1} << 31;

// Reads little-endian fields of a WAV file, each read bounds-checked.
class WavReader {
 public:
  explicit WavReader(const std::string& data) : data_(data) {}

  Status Read(size_t bytes, const char* field, uint64_t* value) {
    if (bytes > data_.size() - offset_) {
      return errors::InvalidArgument("Data too short when trying to read ",
                                     field, ": the WAV file has ", data_.size(),
                                     " bytes, ", field, " would end at byte ",
                                     offset_ + bytes);
    }
    uint64_t v = 0;
    for (size_t i = 0; i < bytes; ++i) {
      v |= static_cast<uint64_t>(static_cast<uint8_t>(data_[offset_ + i]))
           << (8 * i);
    }
    offset_ += bytes;
    *value = v;
    return Status::OK();
  }

  Status Expect(const char* tag) {
    if (4 > data_.size() - offset_) {
      return errors::InvalidArgument("Data too short when trying to read ", tag,
                                     " (the WAV file has ", data_.size(),
                                     " bytes)");
    }
    std::string found = data_.substr(offset_, 4);
    if (found != tag) {
      return errors::InvalidArgument("Header mismatch: Expected ", tag,
                                     " but found ", Printable(found));
    }
    offset_ += 4;
    return Status::OK();
  }

  Status Tag(std::string* tag) {
    if (4 > data_.size() - offset_) {
      return errors::InvalidArgument(
          "Data too short when trying to read a chunk id at byte ", offset_,
          " (the WAV file has ", data_.size(), " bytes)");
    }
    *tag = data_.substr(offset_, 4);
    offset_ += 4;
    return Status::OK();
  }

  Status Skip(uint64_t bytes, const std::string& chunk) {
    if (bytes > data_.size() - offset_) {
      return errors::InvalidArgument(
          "Data too short: chunk '", Printable(chunk), "' declares ", bytes,
          " bytes, ", data_.size() - offset_, " remain in the WAV file");
    }
    offset_ += bytes;
    return Status::OK();
  }

  size_t offset() const { return offset_; }
  size_t remaining() const { return data_.size() - offset_; }

  static std::string Printable(const std::string& s) {
    std::string out;
    for (unsigned char ch : s) {
      if (ch >= 32 && ch < 127) {
        out += static_cast<char>(ch);
      } else {
        static const char kHex[] = "0123456789abcdef";
        out += "\\x";
        out += kHex[ch >> 4];
        out += kHex[ch & 15];
      }
    }
    return out;
  }

 private:
  const std::string& data_;
  size_t offset_ = 0;
};

struct WavFormat {
  int channels = 0;
  int64_t sample_rate = 0;
  const char* samples = nullptr;  // little-endian int16, interleaved
  int64_t frames = 0;
};

Status ParseWav(const std::string& data, WavFormat* wav) {
  WavReader r(data);
  uint64_t riff_size, value;
  TW_RETURN_IF_ERROR(r.Expect("RIFF"));
  TW_RETURN_IF_ERROR(r.Read(4, "the RIFF size", &riff_size));
  TW_RETURN_IF_ERROR(r.Expect("WAVE"));
  bool have_format = false;
  while (true) {
    std::string tag;
    uint64_t size;
    TW_RETURN_IF_ERROR(r.Tag(&tag));
    TW_RETURN_IF_ERROR(r.Read(4, "a chunk size", &size));
    if (tag == "fmt ") {
      if (size < 16) {
        return errors::InvalidArgument("Bad fmt chunk size for WAV: ", size,
                                       " (at least 16)");
      }
      const size_t end = r.offset() + size;
      uint64_t format, channels, rate, bits;
      TW_RETURN_IF_ERROR(r.Read(2, "the audio format", &format));
      TW_RETURN_IF_ERROR(r.Read(2, "the channel count", &channels));
      TW_RETURN_IF_ERROR(r.Read(4, "the sample rate", &rate));
      TW_RETURN_IF_ERROR(r.Read(4, "the byte rate", &value));
      TW_RETURN_IF_ERROR(r.Read(2, "the block alignment", &value));
      TW_RETURN_IF_ERROR(r.Read(2, "the bits per sample", &bits));
      if (format == kExtensible && size >= 26) {
        uint64_t subformat;
        TW_RETURN_IF_ERROR(r.Read(2, "the extension size", &value));
        TW_RETURN_IF_ERROR(r.Read(2, "the valid bits", &value));
        TW_RETURN_IF_ERROR(r.Read(4, "the channel mask", &value));
        TW_RETURN_IF_ERROR(r.Read(2, "the sub-format", &subformat));
        format = subformat;
      }
      if (format != kPcm) {
        return errors::InvalidArgument(
            "Bad audio format for WAV: Expected 1 (PCM), but got ", format);
      }
      if (channels == 0) {
        return errors::InvalidArgument("Bad number of channels for WAV: 0");
      }
      if (bits != 16) {
        return errors::InvalidArgument(
            "Can only read 16-bit WAV files, but received ", bits);
      }
      if (rate == 0 ||
          rate > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return errors::InvalidArgument("Bad sample rate for WAV: ", rate);
      }
      wav->channels = static_cast<int>(channels);
      wav->sample_rate = static_cast<int64_t>(rate);
      have_format = true;
      TW_RETURN_IF_ERROR(r.Skip(end - r.offset(), tag));
    } else if (tag == "data") {
      if (!have_format) {
        return errors::InvalidArgument(
            "The WAV file has a data chunk before its fmt chunk");
      }
      // A truncated file keeps the samples that are there, as TF does for a
      // data size of 0xFFFFFFFF written by streaming encoders.
      const uint64_t bytes = std::min<uint64_t>(size, r.remaining());
      wav->samples = data.data() + r.offset();
      wav->frames = static_cast<int64_t>(bytes / (2 * wav->channels));
      return Status::OK();
    } else {
      TW_RETURN_IF_ERROR(r.Skip(size + (size & 1), tag));  // padded to even
    }
  }
}

int16_t SampleAt(const char* p) {
  return static_cast<int16_t>(
      static_cast<uint16_t>(static_cast<uint8_t>(p[0])) |
      (static_cast<uint16_t>(static_cast<uint8_t>(p[1])) << 8));
}

class DecodeWavOp : public OpKernel {
 public:
  explicit DecodeWavOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("desired_channels", &desired_channels_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("desired_samples", &desired_samples_));
    OP_REQUIRES(ctx, desired_channels_ == -1 || desired_channels_ > 0,
                errors::InvalidArgument(
                    "desired_channels must be -1 (the file's) or positive, "
                    "got ",
                    desired_channels_));
    OP_REQUIRES(ctx, desired_samples_ >= -1,
                errors::InvalidArgument("desired_samples must be -1 (the "
                                        "file's) or at least 0, got ",
                                        desired_samples_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& contents = ctx->input(0);
    OP_REQUIRES(ctx, contents.rank() == 0,
                errors::InvalidArgument("contents must be a scalar, got shape ",
                                        contents.shape().ToString()));
    WavFormat wav;
    OP_REQUIRES_OK(ctx, ParseWav(contents.data<std::string>()[0], &wav));
    const int64_t channels =
        desired_channels_ == -1 ? wav.channels : desired_channels_;
    const int64_t frames =
        desired_samples_ == -1 ? wav.frames : desired_samples_;
    OP_REQUIRES(ctx, frames <= kMaxOutputElements / channels,
                errors::InvalidArgument("DecodeWav output of ", frames, " x ",
                                        channels, " samples is too large"));
    Tensor* audio;
    OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({frames, channels}), &audio));
    float* out = audio->data<float>();
    for (int64_t i = 0; i < frames; ++i) {
      for (int64_t c = 0; c < channels; ++c) {
        float value = 0.0f;
        if (i < wav.frames) {
          const int64_t source = std::min<int64_t>(c, wav.channels - 1);
          value = SampleAt(wav.samples + 2 * (i * wav.channels + source)) /
                  32768.0f;
        }
        out[i * channels + c] = value;
      }
    }
    Tensor* rate;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({}), &rate));
    rate->data<int32_t>()[0] = static_cast<int32_t>(wav.sample_rate);
  }

 private:
  int64_t desired_channels_ = -1;
  int64_t desired_samples_ = -1;
};

void PutLE(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  }
}

class EncodeWavOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& audio = ctx->input(0);
    const Tensor& rate = ctx->input(1);
    OP_REQUIRES(ctx, audio.rank() == 2,
                errors::InvalidArgument("audio must be 2-dimensional "
                                        "[frames, channels], got shape ",
                                        audio.shape().ToString()));
    OP_REQUIRES(ctx, rate.rank() == 0,
                errors::InvalidArgument("Input sample_rate should be a "
                                        "scalar tensor, got shape ",
                                        rate.shape().ToString()));
    const int64_t frames = audio.dim(0), channels = audio.dim(1);
    const int32_t sample_rate = rate.data<int32_t>()[0];
    OP_REQUIRES(ctx, sample_rate > 0,
                errors::InvalidArgument("sample_rate must be positive, got ",
                                        sample_rate));
    OP_REQUIRES(ctx, channels > 0 && channels <= 0xFFFF,
                errors::InvalidArgument(
                    "EncodeWav needs 1 to 65535 channels, got ", channels));
    const uint64_t data_bytes = static_cast<uint64_t>(frames) * channels * 2;
    OP_REQUIRES(ctx, data_bytes + 36 <= 0xFFFFFFFFull,
                errors::InvalidArgument("EncodeWav: ", frames, " x ", channels,
                                        " samples do not fit a WAV file"));
    const uint64_t block = static_cast<uint64_t>(channels) * 2;
    std::string wav;
    wav.reserve(44 + data_bytes);
    wav += "RIFF";
    PutLE(&wav, 36 + data_bytes, 4);
    wav += "WAVEfmt ";
    PutLE(&wav, 16, 4);
    PutLE(&wav, kPcm, 2);
    PutLE(&wav, channels, 2);
    PutLE(&wav, sample_rate, 4);
    PutLE(&wav, static_cast<uint64_t>(sample_rate) * block, 4);
    PutLE(&wav, block, 2);
    PutLE(&wav, 16, 2);
    wav += "data";
    PutLE(&wav, data_bytes, 4);
    const float* in = audio.data<float>();
    for (int64_t i = 0; i < frames * channels; ++i) {
      float scaled = std::round(in[i] * 32768.0f);
      if (std::isnan(scaled)) scaled = 0.0f;
      const int16_t sample =
          static_cast<int16_t>(std::min(32767.0f, std::max(-32768.0f, scaled)));
      PutLE(&wav, static_cast<uint16_t>(sample), 2);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->data<std::string>()[0] = std::move(wav);
  }
};

class AudioSpectrogramOp : public OpKernel {
 public:
  explicit AudioSpectrogramOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("window_size", &window_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("stride", &stride_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("magnitude_squared", &squared_));
    OP_REQUIRES(ctx, window_ >= 2 && window_ <= (int64_t{1} << 24),
                errors::InvalidArgument(
                    "window_size must be in [2, 2^24], got ", window_));
    OP_REQUIRES(
        ctx, stride_ >= 1,
        errors::InvalidArgument("stride must be positive, got ", stride_));
    int64_t fft = 1;
    while (fft < window_) fft <<= 1;
    plan_ = std::make_unique<fft::Plan>(fft, /*inverse=*/false);
    const double pi = std::acos(-1.0);
    hann_.resize(window_);
    for (int64_t i = 0; i < window_; ++i) {
      hann_[i] = 0.5 - 0.5 * std::cos(2.0 * pi * i / window_);
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    OP_REQUIRES(ctx, input.rank() == 2,
                errors::InvalidArgument("input must be 2-dimensional "
                                        "[samples, channels], got shape ",
                                        input.shape().ToString()));
    const int64_t samples = input.dim(0), channels = input.dim(1);
    const int64_t frames =
        samples < window_ ? 0 : 1 + (samples - window_) / stride_;
    const int64_t bins = plan_->size() / 2 + 1;
    Tensor* output;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0, TensorShape({channels, frames, bins}), &output));
    const float* in = input.data<float>();
    float* out = output->data<float>();
    std::vector<std::complex<double>> buffer(plan_->size());
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t f = 0; f < frames; ++f) {
        std::fill(buffer.begin(), buffer.end(), std::complex<double>(0.0));
        for (int64_t i = 0; i < window_; ++i) {
          buffer[i] = in[(f * stride_ + i) * channels + c] * hann_[i];
        }
        plan_->Run(buffer.data());
        float* row = out + (c * frames + f) * bins;
        for (int64_t b = 0; b < bins; ++b) {
          const double power = std::norm(buffer[b]);
          row[b] = static_cast<float>(squared_ ? power : std::sqrt(power));
        }
      }
    }
  }

 private:
  int64_t window_ = 0, stride_ = 0;
  bool squared_ = false;
  std::unique_ptr<fft::Plan> plan_;
  std::vector<double> hann_;
};

double FreqToMel(double freq) { return 1127.0 * std::log1p(freq / 700.0); }

// TF's MFCC: a mel filterbank whose channels overlap triangularly over the
// spectrogram bins (DC excluded, as HTK), the log of each channel's energy
// (floored at 1e-12), and a DCT-II with sqrt(2 / channels) scaling.
class MfccOp : public OpKernel {
 public:
  explicit MfccOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("upper_frequency_limit", &upper_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("lower_frequency_limit", &lower_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("filterbank_channel_count", &channels_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dct_coefficient_count", &coefficients_));
    OP_REQUIRES(
        ctx, channels_ >= 1 && channels_ <= 4096,
        errors::InvalidArgument(
            "filterbank_channel_count must be in [1, 4096], got ", channels_));
    OP_REQUIRES(ctx, coefficients_ >= 1 && coefficients_ <= channels_,
                errors::InvalidArgument("dct_coefficient_count must be in [1, "
                                        "filterbank_channel_count = ",
                                        channels_, "], got ", coefficients_));
    OP_REQUIRES(
        ctx, lower_ >= 0.0f && upper_ > lower_,
        errors::InvalidArgument("Mfcc needs 0 <= lower_frequency_limit < "
                                "upper_frequency_limit, got ",
                                lower_, " and ", upper_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& spectrogram = ctx->input(0);
    const Tensor& rate = ctx->input(1);
    OP_REQUIRES(ctx, spectrogram.rank() == 3,
                errors::InvalidArgument(
                    "spectrogram must be 3-dimensional [channels, frames, "
                    "bins], got shape ",
                    spectrogram.shape().ToString()));
    OP_REQUIRES(ctx, rate.rank() == 0,
                errors::InvalidArgument("Input sample_rate should be a "
                                        "scalar tensor, got shape ",
                                        rate.shape().ToString()));
    const int64_t bins = spectrogram.dim(2);
    const int32_t sample_rate = rate.data<int32_t>()[0];
    OP_REQUIRES(ctx, sample_rate > 0,
                errors::InvalidArgument("sample_rate must be positive, got ",
                                        sample_rate));
    OP_REQUIRES(ctx, bins >= 2,
                errors::InvalidArgument(
                    "the spectrogram needs at least 2 bins, got ", bins));
    OP_REQUIRES(
        ctx, upper_ <= 0.5 * sample_rate,
        errors::InvalidArgument(
            "upper_frequency_limit ", upper_,
            " is above the Nyquist frequency of sample_rate ", sample_rate));
    Filterbank bank;
    OP_REQUIRES_OK(ctx, MakeFilterbank(bins, sample_rate, &bank));
    const int64_t rows = spectrogram.dim(0) * spectrogram.dim(1);
    Tensor* output;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(
                            0,
                            TensorShape({spectrogram.dim(0), spectrogram.dim(1),
                                         coefficients_}),
                            &output));
    const float* in = spectrogram.data<float>();
    float* out = output->data<float>();
    std::vector<double> energy(channels_);
    for (int64_t r = 0; r < rows; ++r) {
      const float* frame = in + r * bins;
      std::fill(energy.begin(), energy.end(), 0.0);
      for (int64_t i = bank.start; i <= bank.end; ++i) {
        const double magnitude = std::sqrt(static_cast<double>(frame[i]));
        const double weighted = magnitude * bank.weights[i];
        int64_t channel = bank.band[i];
        if (channel >= 0) energy[channel] += weighted;
        ++channel;
        if (channel < channels_) energy[channel] += magnitude - weighted;
      }
      for (double& e : energy) e = std::log(std::max(e, 1e-12));
      for (int64_t k = 0; k < coefficients_; ++k) {
        double sum = 0.0;
        for (int64_t j = 0; j < channels_; ++j) {
          sum += energy[j] * bank.cosines[k * channels_ + j];
        }
        out[r * coefficients_ + k] = static_cast<float>(sum);
      }
    }
  }

 private:
  struct Filterbank {
    int64_t start = 0, end = -1;
    std::vector<int64_t> band;    // per bin: the channel below it, -1, -2
    std::vector<double> weights;  // per bin: its share of that channel
    std::vector<double> cosines;  // [coefficients, channels] DCT-II
  };

  Status MakeFilterbank(int64_t bins, int32_t sample_rate,
                        Filterbank* bank) const {
    const double mel_low = FreqToMel(lower_), mel_high = FreqToMel(upper_);
    const double spacing = (mel_high - mel_low) / (channels_ + 1);
    std::vector<double> centers(channels_ + 1);
    for (int64_t i = 0; i <= channels_; ++i) {
      centers[i] = mel_low + spacing * (i + 1);
    }
    const double hz_per_bin = 0.5 * sample_rate / (bins - 1);
    bank->start = static_cast<int64_t>(1.5 + lower_ / hz_per_bin);
    bank->end =
        std::min<int64_t>(static_cast<int64_t>(upper_ / hz_per_bin), bins - 1);
    bank->band.assign(bins, -2);
    bank->weights.assign(bins, 0.0);
    int64_t channel = 0;
    for (int64_t i = bank->start; i <= bank->end; ++i) {
      const double mel = FreqToMel(i * hz_per_bin);
      while (channel < channels_ && centers[channel] < mel) ++channel;
      const int64_t below = channel - 1;
      bank->band[i] = below;
      bank->weights[i] = below >= 0
                             ? (centers[below + 1] - mel) /
                                   (centers[below + 1] - centers[below])
                             : (centers[0] - mel) / (centers[0] - mel_low);
    }
    const double pi = std::acos(-1.0);
    const double scale = std::sqrt(2.0 / channels_);
    bank->cosines.resize(coefficients_ * channels_);
    for (int64_t k = 0; k < coefficients_; ++k) {
      for (int64_t j = 0; j < channels_; ++j) {
        bank->cosines[k * channels_ + j] =
            std::cos(k * (j + 0.5) * pi / channels_) * scale;
      }
    }
    return Status::OK();
  }

  float upper_ = 4000.0f, lower_ = 20.0f;
  int64_t channels_ = 40, coefficients_ = 13;
};

}  // namespace

REGISTER_KERNEL(KernelDef("DecodeWav"), DecodeWavOp);
REGISTER_KERNEL(KernelDef("EncodeWav"), EncodeWavOp);
REGISTER_KERNEL(KernelDef("AudioSpectrogram"), AudioSpectrogramOp);
REGISTER_KERNEL(KernelDef("Mfcc"), MfccOp);

}  // namespace tensorweave
