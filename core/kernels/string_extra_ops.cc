// More string kernels (host only): StringFormat (tf.print's formatting of
// tensors), StringNGrams, UnsortedSegmentJoin, StringToHashBucket
// (TensorFlow's legacy Hash64), Fingerprint (FarmHash64), UnicodeTranscode
// and UnicodeEncode (UTF-8, UTF-16-BE, UTF-32-BE).
#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/framework/float16.h"
#include "core/framework/op_kernel.h"
#include "core/kernels/farmhash_fingerprint.h"

namespace tensorweave {
namespace {

// Outputs of these kernels are capped (sizes come from untrusted inputs):
// n-grams by count and bytes, segment joins by their number of strings.
constexpr int64_t kMaxOutputElements = int64_t{1} << 24;
constexpr int64_t kMaxSegmentStrings = int64_t{1} << 22;
constexpr int64_t kMaxOutputBytes = int64_t{1} << 30;

// ---------------------------------------------------------------- format

// TensorFlow's FloatToBuffer / DoubleToBuffer: %.*g with FLT_DIG (DBL_DIG)
// digits, more when that does not read back as the same value.
std::string FormatFloat(float v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", FLT_DIG, v);
  if (std::strtof(buf, nullptr) != v && v == v) {
    std::snprintf(buf, sizeof(buf), "%.*g", FLT_DIG + 3, v);
  }
  return buf;
}
std::string FormatDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", DBL_DIG, v);
  if (std::strtod(buf, nullptr) != v && v == v) {
    std::snprintf(buf, sizeof(buf), "%.*g", DBL_DIG + 2, v);
  }
  return buf;
}

// absl::CEscape as tf.print applies it.
std::string CEscape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\"':
        out += "\\\"";
        break;
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        // Bytes >= 0x80 are kept (TensorFlow prints UTF-8 text as is).
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\%03o", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

template <typename T>
void AppendElement(const T& v, std::string* out) {
  if constexpr (std::is_same_v<T, std::string>) {
    *out += "\"" + CEscape(v) + "\"";
  } else if constexpr (std::is_same_v<T, float>) {
    *out += FormatFloat(v);
  } else if constexpr (std::is_same_v<T, half>) {
    *out += FormatFloat(ToFloat(v));
  } else if constexpr (std::is_same_v<T, double>) {
    *out += FormatDouble(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    *out += v ? "1" : "0";
  } else if constexpr (std::is_signed_v<T>) {
    *out += std::to_string(static_cast<long long>(v));
  } else {
    *out += std::to_string(static_cast<unsigned long long>(v));
  }
}

void AppendDimSpacing(int dim, int rank, std::string* out) {
  if (dim == rank - 1) {
    *out += " ";
    return;
  }
  out->append(rank - dim - 1, '\n');
  out->append(dim + 1, ' ');
}

// TensorFlow's PrintOneDimV2: `ends` entries at each end of every dim.
template <typename T>
void AppendDim(int dim, const std::vector<int64_t>& shape, int64_t ends,
               const T* data, int64_t index, std::string* out) {
  const int rank = static_cast<int>(shape.size());
  if (dim == rank) {
    AppendElement(data[index], out);
    return;
  }
  *out += "[";
  const int64_t count = shape[dim];
  const int64_t start_of_end = std::max(ends, count - ends);
  int64_t stride = 1;
  for (int i = dim + 1; i < rank; ++i) stride *= shape[i];
  for (int64_t i = 0; i < ends && i < count; ++i) {
    if (i > 0) AppendDimSpacing(dim, rank, out);
    AppendDim(dim + 1, shape, ends, data, index + stride * i, out);
  }
  if (count > 2 * ends) {
    AppendDimSpacing(dim, rank, out);
    *out += "...";
  }
  for (int64_t i = start_of_end; i < count; ++i) {
    AppendDimSpacing(dim, rank, out);
    AppendDim(dim + 1, shape, ends, data, index + stride * i, out);
  }
  *out += "]";
}

// TensorFlow's Tensor::SummarizeValue(summarize, /*print_v2=*/true).
Status Summarize(const Tensor& t, int64_t summarize, std::string* out) {
  const int64_t n = t.num_elements();
  const int64_t limit = summarize < 0 ? n : std::min(summarize, n);
  return DispatchType<TW_POD_TYPES, std::string>(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* data = t.data<T>();
    if (t.rank() == 0) {
      for (int64_t i = 0; i < limit; ++i) {
        if (i > 0) *out += " ";
        AppendElement(data[i], out);
      }
      if (n > limit) *out += "...";
      return Status::OK();
    }
    AppendDim(0, t.shape().dims(), limit, data, 0, out);
    return Status::OK();
  });
}

class StringFormatOp : public OpKernel {
 public:
  explicit StringFormatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string tmpl, placeholder;
    ctx->SetStatus(ctx->GetAttr("template", &tmpl));
    ctx->SetStatus(ctx->GetAttr("placeholder", &placeholder));
    ctx->SetStatus(ctx->GetAttr("summarize", &summarize_));
    if (!ctx->status().ok()) return;
    if (placeholder.empty()) {
      ctx->SetStatus(errors::InvalidArgument("placeholder must not be empty"));
      return;
    }
    size_t pos = 0;
    for (;;) {
      const size_t at = tmpl.find(placeholder, pos);
      if (at == std::string::npos) break;
      pieces_.push_back(tmpl.substr(pos, at - pos));
      pos = at + placeholder.size();
    }
    pieces_.push_back(tmpl.substr(pos));
  }
  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    OP_REQUIRES(ctx, n + 1 == static_cast<int>(pieces_.size()),
                errors::InvalidArgument(
                    "num placeholders in template and num inputs must match: ",
                    pieces_.size() - 1, " vs. ", n));
    std::string msg = pieces_[0];
    for (int i = 0; i < n; ++i) {
      OP_REQUIRES_OK(ctx, Summarize(ctx->input(i), summarize_, &msg));
      msg += pieces_[i + 1];
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->data<std::string>()[0] = std::move(msg);
  }

 private:
  std::vector<std::string> pieces_;
  int64_t summarize_ = 3;
};

// ---------------------------------------------------------------- splits

// Reads row splits (int32 or int64) and checks them against `num_values`.
Status ReadSplits(const Tensor& t, int64_t num_values,
                  std::vector<int64_t>* splits) {
  if (t.rank() != 1 || t.num_elements() < 1) {
    return errors::InvalidArgument("splits must be a non-empty vector, got ",
                                   t.shape().ToString());
  }
  const Status read = DispatchType<int32_t, int64_t>(t.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = t.data<T>();
    splits->assign(p, p + t.num_elements());
    return Status::OK();
  });
  TW_RETURN_IF_ERROR(read);
  if ((*splits)[0] != 0) {
    return errors::InvalidArgument("splits must start with 0, got ",
                                   (*splits)[0]);
  }
  for (size_t i = 1; i < splits->size(); ++i) {
    if ((*splits)[i] < (*splits)[i - 1]) {
      return errors::InvalidArgument("splits must be non-decreasing, got ",
                                     (*splits)[i - 1], " then ", (*splits)[i]);
    }
  }
  if (splits->back() != num_values) {
    return errors::InvalidArgument("the last split (", splits->back(),
                                   ") must equal the number of values (",
                                   num_values, ")");
  }
  return Status::OK();
}

template <typename T>
Status WriteSplits(OpKernelContext* ctx, int index,
                   const std::vector<int64_t>& splits) {
  Tensor* out;
  TW_RETURN_IF_ERROR(ctx->allocate_output(
      index, TensorShape({static_cast<int64_t>(splits.size())}), &out));
  T* o = out->data<T>();
  for (size_t i = 0; i < splits.size(); ++i) o[i] = static_cast<T>(splits[i]);
  return Status::OK();
}

// ---------------------------------------------------------------- ngrams

class StringNGramsOp : public OpKernel {
 public:
  explicit StringNGramsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
    ctx->SetStatus(ctx->GetAttr("ngram_widths", &widths_));
    ctx->SetStatus(ctx->GetAttr("left_pad", &left_pad_));
    ctx->SetStatus(ctx->GetAttr("right_pad", &right_pad_));
    ctx->SetStatus(ctx->GetAttr("pad_width", &pad_width_));
    ctx->SetStatus(ctx->GetAttr("preserve_short_sequences", &preserve_short_));
    if (!ctx->status().ok()) return;
    for (int64_t w : widths_) {
      if (w < 1 || w > (int64_t{1} << 30)) {
        ctx->SetStatus(errors::InvalidArgument(
            "ngram_widths must be in [1, 2^30], got ", w));
        return;
      }
    }
    if (pad_width_ > (int64_t{1} << 30)) {
      ctx->SetStatus(
          errors::InvalidArgument("pad_width is too large: ", pad_width_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    OP_REQUIRES(ctx, data.rank() == 1,
                errors::InvalidArgument("data must be a vector, got ",
                                        data.shape().ToString()));
    std::vector<int64_t> splits;
    OP_REQUIRES_OK(ctx,
                   ReadSplits(ctx->input(1), data.num_elements(), &splits));
    const std::string* values = data.data<std::string>();
    // Count the n-grams and their bytes first (the caps), then build them.
    const int64_t rows = static_cast<int64_t>(splits.size()) - 1;
    std::vector<int64_t> out_splits(1, 0);
    int64_t total = 0;
    double bytes = 0;
    const double token_bytes =
        static_cast<double>(std::max(left_pad_.size(), right_pad_.size())) +
        separator_.size();
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t length = splits[r + 1] - splits[r];
      int64_t row_bytes = 0;
      for (int64_t i = splits[r]; i < splits[r + 1]; ++i) {
        row_bytes += static_cast<int64_t>(values[i].size());
      }
      int64_t count = 0;
      for (int64_t w : widths_) {
        const int64_t n = NumNGrams(length, w);
        count += n;
        bytes += static_cast<double>(n) *
                 (static_cast<double>(w) * token_bytes + row_bytes);
      }
      if (preserve_short_ && count == 0 && length > 0) {
        count = 1;
        const int64_t pad = pad_width_ < 0 ? 0 : pad_width_;
        bytes +=
            static_cast<double>(length + 2 * pad) * token_bytes + row_bytes;
      }
      total += count;
      OP_REQUIRES(ctx, total <= kMaxOutputElements && bytes <= kMaxOutputBytes,
                  errors::InvalidArgument(
                      "StringNGrams: the output would be too large (", total,
                      " n-grams, about ", bytes, " bytes)"));
      out_splits.push_back(total);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({total}), &out));
    std::string* o = out->data<std::string>();
    for (int64_t r = 0; r < rows; ++r) {
      const std::string* row = values + splits[r];
      const int64_t length = splits[r + 1] - splits[r];
      int64_t at = out_splits[r];
      for (int64_t w : widths_) {
        const int64_t n = NumNGrams(length, w);
        Create(row, o + at, n, w);
        at += n;
      }
      if (preserve_short_ && at == out_splits[r] && length > 0) {
        const int64_t pad = pad_width_ < 0 ? 0 : pad_width_;
        Create(row, o + at, 1, length + 2 * pad);
      }
    }
    OP_REQUIRES_OK(ctx, DispatchType<int32_t, int64_t>(
                            ctx->input(1).dtype(), [&](auto tag) {
                              using T = decltype(tag);
                              return WriteSplits<T>(ctx, 1, out_splits);
                            }));
  }

 private:
  int64_t PadWidth(int64_t width) const {
    return std::min(pad_width_ < 0 ? width - 1 : pad_width_, width - 1);
  }
  int64_t NumNGrams(int64_t length, int64_t width) const {
    return std::max<int64_t>(0, length + 2 * PadWidth(width) - width + 1);
  }
  // TensorFlow's CreateNgrams.
  void Create(const std::string* data, std::string* out, int64_t num,
              int64_t width) const {
    const int64_t pad = PadWidth(width);
    for (int64_t k = 0; k < num; ++k) {
      const int64_t left = std::max<int64_t>(0, pad - k);
      const int64_t right = std::max<int64_t>(0, pad - (num - (k + 1)));
      const int64_t tokens = width - (left + right);
      const int64_t start = left > 0 ? 0 : k - pad;
      std::string& g = out[k];
      for (int64_t n = 0; n < left; ++n) g += left_pad_ + separator_;
      for (int64_t n = 0; n < tokens - 1; ++n) {
        g += data[start + n];
        g += separator_;
      }
      if (tokens > 0) {
        g += data[start + tokens - 1];
        for (int64_t n = 0; n < right; ++n) g += separator_ + right_pad_;
      } else {
        for (int64_t n = 0; n < right - 1; ++n) g += right_pad_ + separator_;
        g += right_pad_;
      }
    }
  }

  std::string separator_, left_pad_, right_pad_;
  std::vector<int64_t> widths_;
  int64_t pad_width_ = 0;
  bool preserve_short_ = false;
};

// --------------------------------------------------- unsorted segment join

class UnsortedSegmentJoinOp : public OpKernel {
 public:
  explicit UnsortedSegmentJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& ids = ctx->input(1);
    const Tensor& num_t = ctx->input(2);
    OP_REQUIRES(ctx, num_t.rank() == 0,
                errors::InvalidArgument("num_segments must be a scalar, got ",
                                        num_t.shape().ToString()));
    int64_t num = 0;
    OP_REQUIRES_OK(ctx,
                   DispatchType<int32_t, int64_t>(num_t.dtype(), [&](auto tag) {
                     num = *num_t.data<decltype(tag)>();
                     return Status::OK();
                   }));
    OP_REQUIRES(ctx, num >= 0,
                errors::InvalidArgument(
                    "num_segments must be non-negative, got ", num));
    OP_REQUIRES(ctx, ids.rank() <= in.rank(),
                errors::InvalidArgument("segment_ids ", ids.shape().ToString(),
                                        " must be a prefix of inputs' shape ",
                                        in.shape().ToString()));
    for (int d = 0; d < ids.rank(); ++d) {
      OP_REQUIRES(
          ctx, ids.shape().dim(d) == in.shape().dim(d),
          errors::InvalidArgument("segment_ids ", ids.shape().ToString(),
                                  " must be a prefix of inputs' shape ",
                                  in.shape().ToString()));
    }
    std::vector<int64_t> dims{num};
    int64_t inner = 1;
    for (int d = ids.rank(); d < in.rank(); ++d) {
      dims.push_back(in.shape().dim(d));
      inner *= in.shape().dim(d);
    }
    OP_REQUIRES(ctx,
                num <= kMaxSegmentStrings &&
                    (inner == 0 || num <= kMaxSegmentStrings / inner),
                errors::InvalidArgument(
                    "UnsortedSegmentJoin: the output would be too large: ", num,
                    " segments of ", inner, " strings"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(dims), &out));
    std::string* o = out->data<std::string>();
    std::vector<bool> started(static_cast<size_t>(num), false);
    const std::string* v = in.data<std::string>();
    const int64_t n = ids.num_elements();
    OP_REQUIRES_OK(
        ctx, DispatchType<int32_t, int64_t>(ids.dtype(), [&](auto tag) {
          using T = decltype(tag);
          const T* p = ids.data<T>();
          for (int64_t i = 0; i < n; ++i) {
            const int64_t s = p[i];
            if (s < 0 || s >= num) {
              return errors::InvalidArgument(
                  "segment_ids are not allowed to exceed num_segments or be "
                  "negative: segment_ids[",
                  i, "] = ", s, " with num_segments ", num);
            }
          }
          for (int64_t i = 0; i < n; ++i) {
            const int64_t s = p[i];
            for (int64_t j = 0; j < inner; ++j) {
              std::string& dst = o[s * inner + j];
              if (started[s]) dst += separator_;
              dst += v[i * inner + j];
            }
            started[s] = true;
          }
          return Status::OK();
        }));
  }

 private:
  std::string separator_;
};

// ---------------------------------------------------------------- hashes

// TensorFlow's legacy Hash64 (core/lib/hash/hash.cc), seed 0xDECAFCAFFE.
uint64_t LegacyHash64(const char* data, size_t n) {
  const uint64_t m = 0xc6a4a7935bd1e995ULL;
  const int r = 47;
  uint64_t h = 0xDECAFCAFFEULL ^ (n * m);
  while (n >= 8) {
    uint64_t k;
    std::memcpy(&k, data, 8);
    data += 8;
    n -= 8;
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    for (size_t i = n; i-- > 0;) {
      h ^= static_cast<uint64_t>(static_cast<unsigned char>(data[i]))
           << (8 * i);
    }
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

class StringToHashBucketOp : public OpKernel {
 public:
  explicit StringToHashBucketOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_buckets", &num_buckets_));
    if (ctx->status().ok() && num_buckets_ < 1) {
      ctx->SetStatus(errors::InvalidArgument("num_buckets must be >= 1, got ",
                                             num_buckets_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    int64_t* o = out->data<int64_t>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      o[i] = static_cast<int64_t>(LegacyHash64(s[i].data(), s[i].size()) %
                                  static_cast<uint64_t>(num_buckets_));
    }
  }

 private:
  int64_t num_buckets_ = 1;
};

void StoreLittleEndian(uint64_t v, uint8_t* out) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
}

class FingerprintOp : public OpKernel {
 public:
  explicit FingerprintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {}
  void Compute(OpKernelContext* ctx) override {
    const Tensor& data = ctx->input(0);
    const Tensor& method = ctx->input(1);
    OP_REQUIRES(ctx, method.rank() == 0,
                errors::InvalidArgument("`method` should be a scalar string: ",
                                        method.shape().ToString()));
    const std::string& m = method.data<std::string>()[0];
    OP_REQUIRES(ctx, m == "farmhash64",
                errors::InvalidArgument("Unsupported fingerprint method: ", m));
    OP_REQUIRES(
        ctx, data.rank() >= 1,
        errors::InvalidArgument("`data` should have at least one dimension: ",
                                data.shape().ToString()));
    const int64_t rows = data.shape().dim(0);
    const int64_t cols = rows == 0 ? 0 : data.num_elements() / rows;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows, 8}), &out));
    uint8_t* o = out->data<uint8_t>();
    if (data.dtype() == DT_STRING) {
      const std::string* s = data.data<std::string>();
      std::vector<char> buf;
      for (int64_t r = 0; r < rows; ++r) {
        if (cols == 1) {
          StoreLittleEndian(Fingerprint64(s[r].data(), s[r].size()), o + 8 * r);
          continue;
        }
        // Several strings: the fingerprint of their fingerprints' bytes.
        buf.assign(static_cast<size_t>(8 * cols), 0);
        for (int64_t c = 0; c < cols; ++c) {
          const std::string& x = s[r * cols + c];
          StoreLittleEndian(Fingerprint64(x.data(), x.size()),
                            reinterpret_cast<uint8_t*>(buf.data()) + 8 * c);
        }
        StoreLittleEndian(Fingerprint64(buf.data(), buf.size()), o + 8 * r);
      }
      return;
    }
    const size_t size = DataTypeSize(data.dtype());
    OP_REQUIRES(ctx, size > 0,
                errors::InvalidArgument("Data type not supported: ",
                                        DataTypeName(data.dtype())));
    const char* bytes = static_cast<const char*>(data.raw_data());
    const size_t row_bytes = static_cast<size_t>(cols) * size;
    for (int64_t r = 0; r < rows; ++r) {
      StoreLittleEndian(Fingerprint64(bytes + r * row_bytes, row_bytes),
                        o + 8 * r);
    }
  }
};

// ---------------------------------------------------------------- unicode

enum class Encoding { kUtf8, kUtf16Be, kUtf32Be };
enum class ErrorMode { kStrict, kReplace, kIgnore };

Status ParseEncoding(const std::string& name, Encoding* e) {
  if (name == "UTF-8") {
    *e = Encoding::kUtf8;
  } else if (name == "UTF-16-BE") {
    *e = Encoding::kUtf16Be;
  } else if (name == "UTF-32-BE") {
    *e = Encoding::kUtf32Be;
  } else {
    return errors::InvalidArgument(
        "Unsupported encoding: ", name,
        " (tensorweave supports UTF-8, UTF-16-BE and UTF-32-BE)");
  }
  return Status::OK();
}

Status ParseErrors(const std::string& name, ErrorMode* e) {
  if (name == "strict") {
    *e = ErrorMode::kStrict;
  } else if (name == "replace") {
    *e = ErrorMode::kReplace;
  } else if (name == "ignore") {
    *e = ErrorMode::kIgnore;
  } else {
    return errors::InvalidArgument(
        "errors must be strict, replace or ignore, "
        "got ",
        name);
  }
  return Status::OK();
}

bool IsValidCodePoint(int64_t c) {
  return c >= 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF);
}

void AppendCodePoint(int32_t c, Encoding e, std::string* out) {
  const uint32_t u = static_cast<uint32_t>(c);
  switch (e) {
    case Encoding::kUtf8:
      if (u < 0x80) {
        *out += static_cast<char>(u);
      } else if (u < 0x800) {
        *out += static_cast<char>(0xC0 | (u >> 6));
        *out += static_cast<char>(0x80 | (u & 0x3F));
      } else if (u < 0x10000) {
        *out += static_cast<char>(0xE0 | (u >> 12));
        *out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
        *out += static_cast<char>(0x80 | (u & 0x3F));
      } else {
        *out += static_cast<char>(0xF0 | (u >> 18));
        *out += static_cast<char>(0x80 | ((u >> 12) & 0x3F));
        *out += static_cast<char>(0x80 | ((u >> 6) & 0x3F));
        *out += static_cast<char>(0x80 | (u & 0x3F));
      }
      return;
    case Encoding::kUtf16Be: {
      auto unit = [out](uint32_t v) {
        *out += static_cast<char>((v >> 8) & 0xFF);
        *out += static_cast<char>(v & 0xFF);
      };
      if (u < 0x10000) {
        unit(u);
      } else {
        const uint32_t v = u - 0x10000;
        unit(0xD800 | (v >> 10));
        unit(0xDC00 | (v & 0x3FF));
      }
      return;
    }
    case Encoding::kUtf32Be:
      for (int shift = 24; shift >= 0; shift -= 8) {
        *out += static_cast<char>((u >> shift) & 0xFF);
      }
      return;
  }
}

// Decodes the next code point at s[*pos]; -1 for an ill-formed sequence
// (its maximal subpart consumed, as ICU and the Unicode standard's
// recommended practice: one replacement per maximal subpart).
int32_t DecodeNext(const std::string& s, size_t* pos, Encoding e) {
  const size_t n = s.size();
  const auto byte = [&s](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(s[i]));
  };
  size_t i = *pos;
  switch (e) {
    case Encoding::kUtf8: {
      const uint32_t b0 = byte(i++);
      if (b0 < 0x80) {
        *pos = i;
        return static_cast<int32_t>(b0);
      }
      int need;
      uint32_t cp, lo = 0x80, hi = 0xBF;
      if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
        cp = b0 & 0x1F;
      } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        cp = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
      } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        cp = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
      } else {
        *pos = i;
        return -1;
      }
      for (int k = 0; k < need; ++k) {
        if (i >= n) {
          *pos = i;
          return -1;
        }
        const uint32_t b = byte(i);
        const uint32_t l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
        if (b < l || b > h) {
          *pos = i;
          return -1;
        }
        cp = (cp << 6) | (b & 0x3F);
        ++i;
      }
      *pos = i;
      return static_cast<int32_t>(cp);
    }
    case Encoding::kUtf16Be: {
      if (i + 2 > n) {
        *pos = n;
        return -1;
      }
      const uint32_t u = (byte(i) << 8) | byte(i + 1);
      i += 2;
      if (u >= 0xD800 && u <= 0xDBFF) {
        if (i + 2 <= n) {
          const uint32_t l = (byte(i) << 8) | byte(i + 1);
          if (l >= 0xDC00 && l <= 0xDFFF) {
            *pos = i + 2;
            return static_cast<int32_t>(0x10000 + ((u - 0xD800) << 10) +
                                        (l - 0xDC00));
          }
        }
        *pos = i;
        return -1;
      }
      *pos = i;
      if (u >= 0xDC00 && u <= 0xDFFF) return -1;
      return static_cast<int32_t>(u);
    }
    case Encoding::kUtf32Be: {
      if (i + 4 > n) {
        *pos = n;
        return -1;
      }
      const uint32_t u = (byte(i) << 24) | (byte(i + 1) << 16) |
                         (byte(i + 2) << 8) | byte(i + 3);
      *pos = i + 4;
      return IsValidCodePoint(u) ? static_cast<int32_t>(u) : -1;
    }
  }
  *pos = n;
  return -1;
}

// Appends code point `c` (or handles it as an error by `mode`); `valid`
// says whether c is a valid code point.
Status AppendOrHandle(int64_t c, bool valid, ErrorMode mode,
                      int32_t replacement, Encoding out_enc, std::string* out) {
  if (valid) {
    AppendCodePoint(static_cast<int32_t>(c), out_enc, out);
    return Status::OK();
  }
  switch (mode) {
    case ErrorMode::kStrict:
      return errors::InvalidArgument(
          "Invalid formatting on input string (an ill-formed sequence or "
          "code point ",
          c, ")");
    case ErrorMode::kReplace:
      AppendCodePoint(replacement, out_enc, out);
      return Status::OK();
    case ErrorMode::kIgnore:
      return Status::OK();
  }
  return Status::OK();
}

class UnicodeTranscodeOp : public OpKernel {
 public:
  explicit UnicodeTranscodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string in_enc, out_enc, errors_name;
    ctx->SetStatus(ctx->GetAttr("input_encoding", &in_enc));
    ctx->SetStatus(ctx->GetAttr("output_encoding", &out_enc));
    ctx->SetStatus(ctx->GetAttr("errors", &errors_name));
    ctx->SetStatus(ctx->GetAttr("replacement_char", &replacement_));
    ctx->SetStatus(
        ctx->GetAttr("replace_control_characters", &replace_control_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ParseEncoding(in_enc, &in_));
    ctx->SetStatus(ParseEncoding(out_enc, &out_));
    ctx->SetStatus(ParseErrors(errors_name, &mode_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    std::string* o = out->data<std::string>();
    const bool replacement_ok = IsValidCodePoint(replacement_);
    for (int64_t k = 0; k < in.num_elements(); ++k) {
      std::string& dst = o[k];
      size_t pos = 0;
      while (pos < s[k].size()) {
        int32_t c = DecodeNext(s[k], &pos, in_);
        if (replace_control_ && c >= 0 && c < 0x20) {
          c = replacement_ok ? static_cast<int32_t>(replacement_) : -1;
        }
        bool valid = c >= 0 && IsValidCodePoint(c);
        if (!valid && mode_ == ErrorMode::kReplace) {
          OP_REQUIRES(ctx, replacement_ok,
                      errors::InvalidArgument(
                          "replacement_char is not a valid code point: ",
                          replacement_));
        }
        OP_REQUIRES_OK(
            ctx, AppendOrHandle(c, valid, mode_, replacement_, out_, &dst));
      }
    }
  }

 private:
  Encoding in_ = Encoding::kUtf8, out_ = Encoding::kUtf8;
  ErrorMode mode_ = ErrorMode::kReplace;
  int64_t replacement_ = 0xFFFD;
  bool replace_control_ = false;
};

class UnicodeEncodeOp : public OpKernel {
 public:
  explicit UnicodeEncodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string out_enc, errors_name;
    ctx->SetStatus(ctx->GetAttr("output_encoding", &out_enc));
    ctx->SetStatus(ctx->GetAttr("errors", &errors_name));
    ctx->SetStatus(ctx->GetAttr("replacement_char", &replacement_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ParseEncoding(out_enc, &out_));
    ctx->SetStatus(ParseErrors(errors_name, &mode_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& values = ctx->input(0);
    OP_REQUIRES(ctx, values.rank() == 1,
                errors::InvalidArgument("input_values must be a vector, got ",
                                        values.shape().ToString()));
    OP_REQUIRES(
        ctx, mode_ != ErrorMode::kReplace || IsValidCodePoint(replacement_),
        errors::InvalidArgument("replacement_char is not a valid code point: ",
                                replacement_));
    std::vector<int64_t> splits;
    OP_REQUIRES_OK(ctx,
                   ReadSplits(ctx->input(1), values.num_elements(), &splits));
    const int64_t rows = static_cast<int64_t>(splits.size()) - 1;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({rows}), &out));
    std::string* o = out->data<std::string>();
    const int32_t* v = values.data<int32_t>();
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t i = splits[r]; i < splits[r + 1]; ++i) {
        OP_REQUIRES_OK(ctx, AppendOrHandle(v[i], IsValidCodePoint(v[i]), mode_,
                                           static_cast<int32_t>(replacement_),
                                           out_, &o[r]));
      }
    }
  }

 private:
  Encoding out_ = Encoding::kUtf8;
  ErrorMode mode_ = ErrorMode::kReplace;
  int64_t replacement_ = 0xFFFD;
};

}  // namespace

REGISTER_KERNEL(KernelDef("StringFormat"), StringFormatOp);
REGISTER_KERNEL(KernelDef("StringNGrams"), StringNGramsOp);
REGISTER_KERNEL(KernelDef("UnsortedSegmentJoin"), UnsortedSegmentJoinOp);
REGISTER_KERNEL(KernelDef("StringToHashBucket"), StringToHashBucketOp);
REGISTER_KERNEL(KernelDef("Fingerprint"), FingerprintOp);
REGISTER_KERNEL(KernelDef("UnicodeTranscode"), UnicodeTranscodeOp);
REGISTER_KERNEL(KernelDef("UnicodeEncode"), UnicodeEncodeOp);

}  // namespace tensorweave
