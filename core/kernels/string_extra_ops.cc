// More string kernels (host only): StringFormat (tf.print's formatting of
// tensors), StringNGrams, UnsortedSegmentJoin, StringToHashBucket
// (TensorFlow's legacy Hash64) and Fingerprint (FarmHash64). The unicode
// kernels are in unicode_ops.cc.
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
#include "core/kernels/ragged_splits.h"

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
  } else if constexpr (kIsReducedFloat<T>) {
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

}  // namespace

REGISTER_KERNEL(KernelDef("StringFormat"), StringFormatOp);
REGISTER_KERNEL(KernelDef("StringNGrams"), StringNGramsOp);
REGISTER_KERNEL(KernelDef("UnsortedSegmentJoin"), UnsortedSegmentJoinOp);
REGISTER_KERNEL(KernelDef("StringToHashBucket"), StringToHashBucketOp);
REGISTER_KERNEL(KernelDef("Fingerprint"), FingerprintOp);

}  // namespace tensorweave
