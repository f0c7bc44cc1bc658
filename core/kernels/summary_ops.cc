// Summary kernels: ScalarSummary, HistogramSummary, ImageSummary,
// TensorSummaryV2 and MergeSummary each write a serialized Summary proto
// (TensorFlow's summary.proto field numbers, encoded here on the wire
// directly) into a scalar string. ImageSummary encodes PNG through zlib.
#include <zlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// --- protobuf wire format -------------------------------------------------

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

void PutTag(int field, int wire, std::string* out) {
  PutVarint((static_cast<uint64_t>(field) << 3) | wire, out);
}

void PutBytes(int field, const std::string& bytes, std::string* out) {
  PutTag(field, 2, out);
  PutVarint(bytes.size(), out);
  out->append(bytes);
}

void PutFloat(int field, float v, std::string* out) {
  PutTag(field, 5, out);
  char b[4];
  std::memcpy(b, &v, 4);
  out->append(b, 4);
}

void PutDouble(int field, double v, std::string* out) {
  PutTag(field, 1, out);
  char b[8];
  std::memcpy(b, &v, 8);
  out->append(b, 8);
}

void PutInt(int field, int64_t v, std::string* out) {
  PutTag(field, 0, out);
  PutVarint(static_cast<uint64_t>(v), out);
}

void PutPackedDoubles(int field, const std::vector<double>& v,
                      std::string* out) {
  std::string body(v.size() * 8, '\0');
  if (!v.empty()) std::memcpy(&body[0], v.data(), v.size() * 8);
  PutBytes(field, body, out);
}

bool GetVarint(const std::string& s, size_t* pos, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*pos >= s.size()) return false;
    const uint8_t b = static_cast<uint8_t>(s[(*pos)++]);
    *v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

// Skips one field's payload of wire type `wire`; the length-delimited
// payload is returned in [*begin, *end).
bool SkipField(const std::string& s, size_t* pos, int wire, size_t* begin,
               size_t* end) {
  uint64_t v;
  switch (wire) {
    case 0:
      return GetVarint(s, pos, &v);
    case 1:
      *pos += 8;
      return *pos <= s.size();
    case 5:
      *pos += 4;
      return *pos <= s.size();
    case 2:
      if (!GetVarint(s, pos, &v) || v > s.size() - *pos) return false;
      *begin = *pos;
      *pos += v;
      *end = *pos;
      return true;
    default:
      return false;
  }
}

// The Summary.Value entries of a serialized Summary (each as its bytes and
// its tag); false when the bytes are not a Summary.
bool ParseSummary(const std::string& s, std::vector<std::string>* values,
                  std::vector<std::string>* tags) {
  size_t pos = 0;
  while (pos < s.size()) {
    uint64_t key;
    if (!GetVarint(s, &pos, &key)) return false;
    size_t b = 0, e = 0;
    const int wire = static_cast<int>(key & 7);
    if (!SkipField(s, &pos, wire, &b, &e)) return false;
    if ((key >> 3) != 1) continue;
    if (wire != 2) return false;
    const std::string value = s.substr(b, e - b);
    std::string tag;
    size_t vp = 0;
    while (vp < value.size()) {
      uint64_t vkey;
      if (!GetVarint(value, &vp, &vkey)) return false;
      size_t vb = 0, ve = 0;
      const int vwire = static_cast<int>(vkey & 7);
      if (!SkipField(value, &vp, vwire, &vb, &ve)) return false;
      if ((vkey >> 3) == 1 && vwire == 2) tag = value.substr(vb, ve - vb);
    }
    values->push_back(value);
    tags->push_back(tag);
  }
  return true;
}

std::string SummaryOf(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) PutBytes(1, v, &out);
  return out;
}

Status WriteScalarString(OpKernelContext* ctx, const std::string& value) {
  Tensor* out;
  TW_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({}), &out));
  out->data<std::string>()[0] = value;
  return Status::OK();
}

// The elements of a numeric tensor as doubles.
std::vector<double> AsDoubles(const Tensor& t) {
  const int64_t n = t.num_elements();
  std::vector<double> out(n);
  auto copy = [&](auto* p) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<double>(p[i]);
  };
  switch (t.dtype()) {
    case DT_FLOAT:
      copy(t.data<float>());
      break;
    case DT_DOUBLE:
      copy(t.data<double>());
      break;
    case DT_INT32:
      copy(t.data<int32_t>());
      break;
    case DT_INT64:
      copy(t.data<int64_t>());
      break;
    case DT_UINT8:
      copy(t.data<uint8_t>());
      break;
    case DT_INT8:
      copy(t.data<int8_t>());
      break;
    case DT_INT16:
      copy(t.data<int16_t>());
      break;
    case DT_UINT16:
      copy(t.data<uint16_t>());
      break;
    case DT_UINT32:
      copy(t.data<uint32_t>());
      break;
    case DT_UINT64:
      copy(t.data<uint64_t>());
      break;
    case DT_HALF: {
      const half* p = t.data<half>();
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(p[i]);
      break;
    }
    default:
      break;
  }
  return out;
}

// --- kernels --------------------------------------------------------------

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(
        ctx, tags.shape() == values.shape(),
        errors::InvalidArgument(
            "tags and values are not the same shape: ", tags.shape().ToString(),
            " != ", values.shape().ToString()));
    const std::vector<double> v = AsDoubles(values);
    const std::string* t = tags.data<std::string>();
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      std::string value;
      PutBytes(1, t[i], &value);
      PutFloat(2, static_cast<float>(v[i]), &value);
      PutBytes(1, value, &out);
    }
    OP_REQUIRES_OK(ctx, WriteScalarString(ctx, out));
  }
};

// TensorFlow's default histogram bucket limits.
const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double>* limits = [] {
    std::vector<double> pos, neg;
    double v = 1.0e-12;
    while (v < 1.0e20) {
      pos.push_back(v);
      neg.push_back(-v);
      v *= 1.1;
    }
    pos.push_back(DBL_MAX);
    neg.push_back(-DBL_MAX);
    std::reverse(neg.begin(), neg.end());
    auto* all = new std::vector<double>(neg);
    all->push_back(0.0);
    all->insert(all->end(), pos.begin(), pos.end());
    return all;
  }();
  return *limits;
}

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, tag.rank() == 0,
                errors::InvalidArgument("tags must be scalar"));
    const std::string& name = tag.data<std::string>()[0];
    const std::vector<double> v = AsDoubles(ctx->input(1));
    const std::vector<double>& limits = DefaultBucketLimits();
    std::vector<double> buckets(limits.size(), 0.0);
    double lo = limits.back(), hi = -DBL_MAX, sum = 0, sum_sq = 0;
    for (double x : v) {
      OP_REQUIRES(ctx, std::isfinite(x),
                  errors::InvalidArgument(std::isnan(x) ? "Nan" : "Infinity",
                                          " in summary histogram for: ", name));
      const size_t b =
          std::upper_bound(limits.begin(), limits.end(), x) - limits.begin();
      buckets[std::min(b, buckets.size() - 1)] += 1.0;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      sum += x;
      sum_sq += x * x;
    }
    // Runs of empty buckets collapse into one (EncodeToProto without
    // preserve_zero_buckets).
    std::vector<double> out_limits, out_counts;
    for (size_t i = 0; i < buckets.size();) {
      double end = limits[i], count = buckets[i];
      size_t j = i + 1;
      if (count <= 0.0) {
        while (j < buckets.size() && buckets[j] <= 0.0) {
          end = limits[j];
          count = buckets[j];
          ++j;
        }
      }
      out_limits.push_back(end);
      out_counts.push_back(count);
      i = j;
    }
    std::string histo;
    if (lo != 0) PutDouble(1, lo, &histo);
    if (hi != 0) PutDouble(2, hi, &histo);
    if (!v.empty()) PutDouble(3, static_cast<double>(v.size()), &histo);
    if (sum != 0) PutDouble(4, sum, &histo);
    if (sum_sq != 0) PutDouble(5, sum_sq, &histo);
    PutPackedDoubles(6, out_limits, &histo);
    PutPackedDoubles(7, out_counts, &histo);
    std::string value;
    PutBytes(1, name, &value);
    PutBytes(5, histo, &value);
    std::string out;
    PutBytes(1, value, &out);
    OP_REQUIRES_OK(ctx, WriteScalarString(ctx, out));
  }
};

void PutChunk(const char* type, const std::string& data, std::string* png) {
  const uint32_t n = static_cast<uint32_t>(data.size());
  const char len[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                       static_cast<char>(n >> 8), static_cast<char>(n)};
  png->append(len, 4);
  std::string body = std::string(type, 4) + data;
  png->append(body);
  const uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(body.data()), body.size()));
  const char c[4] = {static_cast<char>(crc >> 24), static_cast<char>(crc >> 16),
                     static_cast<char>(crc >> 8), static_cast<char>(crc)};
  png->append(c, 4);
}

// An 8-bit PNG (gray, gray+alpha, RGB or RGBA by `channels`) of the
// row-major pixels; every row with filter type 0; zlib's deflate.
bool EncodePng(const uint8_t* pixels, int64_t height, int64_t width,
               int channels, std::string* png) {
  std::string raw;
  raw.reserve(height * (width * channels + 1));
  for (int64_t y = 0; y < height; ++y) {
    raw.push_back('\0');
    raw.append(reinterpret_cast<const char*>(pixels + y * width * channels),
               width * channels);
  }
  uLongf size = compressBound(raw.size());
  std::string deflated(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(&deflated[0]), &size,
                reinterpret_cast<const Bytef*>(raw.data()), raw.size(),
                Z_DEFAULT_COMPRESSION) != Z_OK) {
    return false;
  }
  deflated.resize(size);
  static const int kColorType[] = {0, 0, 4, 2, 6};
  std::string ihdr(13, '\0');
  const uint32_t w = static_cast<uint32_t>(width);
  const uint32_t h = static_cast<uint32_t>(height);
  for (int i = 0; i < 4; ++i) {
    ihdr[i] = static_cast<char>(w >> (24 - 8 * i));
    ihdr[4 + i] = static_cast<char>(h >> (24 - 8 * i));
  }
  ihdr[8] = 8;
  ihdr[9] = static_cast<char>(kColorType[channels]);
  png->assign("\x89PNG\r\n\x1a\n", 8);
  PutChunk("IHDR", ihdr, png);
  PutChunk("IDAT", deflated, png);
  PutChunk("IEND", "", png);
  return true;
}

class ImageSummaryOp : public OpKernel {
 public:
  explicit ImageSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t max_images = 3;
    ctx->SetStatus(ctx->GetAttr("max_images", &max_images));
    max_images_ = max_images;
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, tag.rank() == 0,
                errors::InvalidArgument("Tags must be a scalar"));
    const std::string& name = tag.data<std::string>()[0];
    const Tensor& tensor = ctx->input(1);
    OP_REQUIRES(ctx,
                tensor.rank() == 4 &&
                    (tensor.shape().dim(3) == 1 || tensor.shape().dim(3) == 3 ||
                     tensor.shape().dim(3) == 4),
                errors::InvalidArgument(
                    "Tensor must be 4-D with last dim 1, 3, or 4, not ",
                    tensor.shape().ToString()));
    const int64_t batch = tensor.shape().dim(0), h = tensor.shape().dim(1),
                  w = tensor.shape().dim(2);
    const int depth = static_cast<int>(tensor.shape().dim(3));
    // TensorFlow's check: a zero-height or zero-width image has no PNG.
    OP_REQUIRES(ctx, h > 0 && w > 0,
                errors::InvalidArgument(
                    "input tensor must have non-zero dims. Found: [", batch,
                    ", ", h, ", ", w, ", ", depth, "]."));
    OP_REQUIRES(ctx,
                h < (int64_t{1} << 29) && w < (int64_t{1} << 29) &&
                    h * w < (int64_t{1} << 29),
                errors::InvalidArgument("Image too large: ", h, " x ", w));
    const int64_t n = std::min(batch, max_images_);
    const int64_t hw = h * w, image_size = hw * depth;
    std::string out;
    std::vector<uint8_t> pixels(image_size);
    for (int64_t i = 0; i < n; ++i) {
      if (tensor.dtype() == DT_UINT8) {
        std::memcpy(pixels.data(), tensor.data<uint8_t>() + i * image_size,
                    image_size);
      } else {
        Normalize(tensor, i * image_size, hw, depth, pixels.data());
      }
      std::string png;
      OP_REQUIRES(ctx, EncodePng(pixels.data(), h, w, depth, &png),
                  errors::Internal("PNG encoding failed"));
      std::string image;
      PutInt(1, h, &image);
      PutInt(2, w, &image);
      PutInt(3, depth, &image);
      PutBytes(4, png, &image);
      std::string value;
      PutBytes(1,
               max_images_ == 1 ? name + "/image"
                                : name + "/image/" + std::to_string(i),
               &value);
      PutBytes(4, image, &value);
      PutBytes(1, value, &out);
    }
    OP_REQUIRES_OK(ctx, WriteScalarString(ctx, out));
  }

 private:
  // TensorFlow's affine map into uint8: by 255 / max when no pixel is
  // negative, else by 127 / max|x| around 128; non-finite pixels red.
  static void Normalize(const Tensor& t, int64_t offset, int64_t hw, int depth,
                        uint8_t* out) {
    std::vector<float> v(hw * depth);
    for (int64_t k = 0; k < hw * depth; ++k) {
      switch (t.dtype()) {
        case DT_FLOAT:
          v[k] = t.data<float>()[offset + k];
          break;
        case DT_DOUBLE:
          v[k] = static_cast<float>(t.data<double>()[offset + k]);
          break;
        default:
          v[k] = static_cast<float>(t.data<half>()[offset + k]);
          break;
      }
    }
    auto finite = [&](int64_t i) {
      for (int j = 0; j < depth; ++j) {
        if (!std::isfinite(v[i * depth + j])) return false;
      }
      return true;
    };
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < hw; ++i) {
      if (!finite(i)) continue;
      for (int j = 0; j < depth; ++j) {
        lo = std::min(lo, v[i * depth + j]);
        hi = std::max(hi, v[i * depth + j]);
      }
    }
    const float kZeroThreshold = 1e-6f;
    float scale, shift;
    if (lo < 0) {
      const float m = std::max(std::abs(lo), std::abs(hi));
      scale = m < kZeroThreshold ? 0.0f : 127.0f / m;
      shift = 128.0f;
    } else {
      scale = hi < kZeroThreshold ? 0.0f : 255.0f / hi;
      shift = 0.0f;
    }
    static const uint8_t kBad[4] = {255, 0, 0, 255};
    for (int64_t i = 0; i < hw; ++i) {
      const bool ok = finite(i);
      for (int j = 0; j < depth; ++j) {
        out[i * depth + j] =
            ok ? static_cast<uint8_t>(v[i * depth + j] * scale + shift)
               : kBad[j];
      }
    }
  }

  int64_t max_images_ = 3;
};

void PutLE(uint32_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i)
    out->push_back(static_cast<char>(v >> (8 * i)));
}

// A 16-bit little-endian PCM WAV file of interleaved float samples (as
// TensorFlow's EncodeAudioAsS16LEWav: rounded, clamped to int16).
std::string EncodeWav(const float* samples, int64_t frames, int channels,
                      uint32_t rate) {
  const uint32_t data_size = static_cast<uint32_t>(frames * channels * 2);
  std::string wav = "RIFF";
  PutLE(36 + data_size, 4, &wav);
  wav += "WAVEfmt ";
  PutLE(16, 4, &wav);
  PutLE(1, 2, &wav);
  PutLE(static_cast<uint32_t>(channels), 2, &wav);
  PutLE(rate, 4, &wav);
  PutLE(rate * channels * 2, 4, &wav);
  PutLE(static_cast<uint32_t>(channels * 2), 2, &wav);
  PutLE(16, 2, &wav);
  wav += "data";
  PutLE(data_size, 4, &wav);
  for (int64_t i = 0; i < frames * channels; ++i) {
    const float v = std::min(
        std::max(std::round(samples[i] * 32768.0f), -32768.0f), 32767.0f);
    PutLE(static_cast<uint16_t>(static_cast<int16_t>(v)), 2, &wav);
  }
  return wav;
}

class AudioSummaryV2Op : public OpKernel {
 public:
  explicit AudioSummaryV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("max_outputs", &max_outputs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, tag.rank() == 0,
                errors::InvalidArgument("Tag must be a scalar"));
    const Tensor& rate_t = ctx->input(2);
    OP_REQUIRES(ctx, rate_t.rank() == 0,
                errors::InvalidArgument("sample_rate must be rank-0"));
    const float rate = rate_t.data<float>()[0];
    OP_REQUIRES(ctx, rate > 0.0f,
                errors::InvalidArgument("sample_rate must be > 0"));
    const Tensor& tensor = ctx->input(1);
    OP_REQUIRES(ctx, tensor.rank() == 2 || tensor.rank() == 3,
                errors::InvalidArgument("Tensor must be 3-D or 2-D, got: ",
                                        tensor.shape().ToString()));
    const std::string& name = tag.data<std::string>()[0];
    const int64_t batch = tensor.shape().dim(0);
    const int64_t frames = tensor.shape().dim(1);
    const int64_t channels = tensor.rank() == 3 ? tensor.shape().dim(2) : 1;
    OP_REQUIRES(ctx,
                channels > 0 && channels < (1 << 15) &&
                    frames * channels * 2 < (int64_t{1} << 31),
                errors::InvalidArgument("Audio too large: ", frames,
                                        " frames of ", channels, " channels"));
    const int64_t n = std::min(batch, max_outputs_);
    std::string out;
    for (int64_t i = 0; i < n; ++i) {
      std::string audio;
      PutFloat(1, rate, &audio);
      PutInt(2, channels, &audio);
      PutInt(3, frames, &audio);
      PutBytes(
          4,
          EncodeWav(tensor.data<float>() + i * frames * channels, frames,
                    static_cast<int>(channels), static_cast<uint32_t>(rate)),
          &audio);
      PutBytes(5, "audio/wav", &audio);
      std::string value;
      PutBytes(1,
               max_outputs_ == 1 ? name + "/audio"
                                 : name + "/audio/" + std::to_string(i),
               &value);
      PutBytes(6, audio, &value);
      PutBytes(1, value, &out);
    }
    OP_REQUIRES_OK(ctx, WriteScalarString(ctx, out));
  }

 private:
  int64_t max_outputs_ = 3;
};

class TensorSummaryV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, tag.rank() == 0,
                errors::InvalidArgument("tag must be a scalar"));
    const Tensor& meta = ctx->input(2);
    OP_REQUIRES(ctx, meta.rank() == 0,
                errors::InvalidArgument(
                    "serialized_summary_metadata must be a scalar"));
    TensorProto proto;
    ctx->input(1).ToProto(&proto);
    std::string tensor_bytes;
    OP_REQUIRES(ctx, proto.SerializeToString(&tensor_bytes),
                errors::Internal("TensorProto serialization failed"));
    std::string value;
    PutBytes(1, tag.data<std::string>()[0], &value);
    PutBytes(8, tensor_bytes, &value);
    PutBytes(9, meta.data<std::string>()[0], &value);
    std::string out;
    PutBytes(1, value, &out);
    OP_REQUIRES_OK(ctx, WriteScalarString(ctx, out));
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::vector<std::string> values;
    std::set<std::string> seen;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      const std::string* s = in.data<std::string>();
      for (int64_t k = 0; k < in.num_elements(); ++k) {
        std::vector<std::string> vals, tags;
        OP_REQUIRES(ctx, ParseSummary(s[k], &vals, &tags),
                    errors::InvalidArgument(
                        "Could not parse one of the summary inputs"));
        for (size_t j = 0; j < vals.size(); ++j) {
          OP_REQUIRES(ctx, seen.insert(tags[j]).second,
                      errors::InvalidArgument("Duplicate tag ", tags[j],
                                              " found in summary inputs "));
          values.push_back(vals[j]);
        }
      }
    }
    OP_REQUIRES_OK(ctx, WriteScalarString(ctx, SummaryOf(values)));
  }
};

REGISTER_KERNEL(KernelDef("ScalarSummary"), ScalarSummaryOp);
REGISTER_KERNEL(KernelDef("HistogramSummary"), HistogramSummaryOp);
REGISTER_KERNEL(KernelDef("ImageSummary"), ImageSummaryOp);
REGISTER_KERNEL(KernelDef("AudioSummaryV2"), AudioSummaryV2Op);
REGISTER_KERNEL(KernelDef("TensorSummaryV2"), TensorSummaryV2Op);
REGISTER_KERNEL(KernelDef("MergeSummary"), MergeSummaryOp);

}  // namespace
}  // namespace tensorweave
