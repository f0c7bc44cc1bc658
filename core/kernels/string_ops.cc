// String kernels (host only): joins, splits, substrings, parsing and
// formatting numbers, TensorFlow's Fingerprint64 hash buckets, regular
// expressions (std::regex, ECMAScript syntax), case, strip and ReduceJoin.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <regex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/framework/shape_inference.h"
#include "core/kernels/farmhash_fingerprint.h"
#include "core/kernels/parse_number.h"

namespace tensorweave {
namespace {

const std::string* Strings(const Tensor& t) { return t.data<std::string>(); }
std::string* Strings(Tensor* t) { return t->data<std::string>(); }

Status ScalarString(const Tensor& t, const char* what, std::string* out) {
  if (t.rank() != 0) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  *out = Strings(t)[0];
  return Status::OK();
}

class StringJoinOp : public OpKernel {
 public:
  explicit StringJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
  }
  void Compute(OpKernelContext* ctx) override {
    TensorShape shape;
    bool have_shape = false;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& t = ctx->input(i);
      if (t.rank() == 0) continue;
      if (have_shape) {
        OP_REQUIRES(ctx, t.shape() == shape,
                    errors::InvalidArgument(
                        "Input shapes do not match: ", shape.ToString(),
                        " vs. ", t.shape().ToString()));
      }
      shape = t.shape();
      have_shape = true;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    for (int64_t e = 0; e < out->num_elements(); ++e) {
      std::string joined;
      for (int i = 0; i < ctx->num_inputs(); ++i) {
        const Tensor& t = ctx->input(i);
        if (i > 0) joined += separator_;
        joined += Strings(t)[t.rank() == 0 ? 0 : e];
      }
      Strings(out)[e] = std::move(joined);
    }
  }

 private:
  std::string separator_;
};

// Writes the (indices, values, shape) of a SparseTensor of tokens.
void EmitSparse(OpKernelContext* ctx,
                const std::vector<std::vector<std::string>>& tokens) {
  int64_t total = 0, widest = 0;
  for (const auto& row : tokens) {
    total += static_cast<int64_t>(row.size());
    widest = std::max<int64_t>(widest, static_cast<int64_t>(row.size()));
  }
  Tensor *indices, *values, *shape;
  OP_REQUIRES_OK(ctx,
                 ctx->allocate_output(0, TensorShape({total, 2}), &indices));
  OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
  OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
  int64_t k = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    for (size_t j = 0; j < tokens[i].size(); ++j, ++k) {
      indices->data<int64_t>()[2 * k] = static_cast<int64_t>(i);
      indices->data<int64_t>()[2 * k + 1] = static_cast<int64_t>(j);
      Strings(values)[k] = tokens[i][j];
    }
  }
  shape->data<int64_t>()[0] = static_cast<int64_t>(tokens.size());
  shape->data<int64_t>()[1] = widest;
}

Status VectorInput(const Tensor& t) {
  if (t.rank() != 1) {
    return errors::InvalidArgument("input must be a vector, got shape: ",
                                   t.shape().ToString());
  }
  return Status::OK();
}

class StringSplitOp : public OpKernel {
 public:
  explicit StringSplitOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("skip_empty", &skip_empty_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, VectorInput(in));
    std::string delimiter;
    OP_REQUIRES_OK(ctx, ScalarString(ctx->input(1), "delimiter", &delimiter));
    std::vector<std::vector<std::string>> tokens(in.num_elements());
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string& s = Strings(in)[i];
      if (delimiter.empty()) {
        for (char ch : s) tokens[i].emplace_back(1, ch);
        continue;
      }
      // An empty string has no tokens, even with skip_empty=false (as
      // TensorFlow's).
      if (s.empty()) continue;
      size_t start = 0;
      for (size_t p = 0; p <= s.size(); ++p) {
        if (p == s.size() || delimiter.find(s[p]) != std::string::npos) {
          if (!(skip_empty_ && p == start)) {
            tokens[i].push_back(s.substr(start, p - start));
          }
          start = p + 1;
        }
      }
    }
    EmitSparse(ctx, tokens);
  }

 private:
  bool skip_empty_ = true;
};

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("maxsplit", &maxsplit_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES_OK(ctx, VectorInput(in));
    std::string sep;
    OP_REQUIRES_OK(ctx, ScalarString(ctx->input(1), "sep", &sep));
    std::vector<std::vector<std::string>> tokens(in.num_elements());
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string& s = Strings(in)[i];
      auto& row = tokens[i];
      if (sep.empty()) {
        // Python's str.split(): runs of whitespace, no empty tokens.
        size_t p = 0;
        while (p < s.size()) {
          while (p < s.size() && IsSpace(s[p])) ++p;
          if (p == s.size()) break;
          if (maxsplit_ >= 0 && static_cast<int64_t>(row.size()) == maxsplit_) {
            // The rest, trailing whitespace included (TensorFlow).
            row.push_back(s.substr(p));
            break;
          }
          size_t q = p;
          while (q < s.size() && !IsSpace(s[q])) ++q;
          row.push_back(s.substr(p, q - p));
          p = q;
        }
        continue;
      }
      size_t start = 0;
      while (true) {
        const size_t p =
            (maxsplit_ >= 0 && static_cast<int64_t>(row.size()) == maxsplit_)
                ? std::string::npos
                : s.find(sep, start);
        if (p == std::string::npos) {
          row.push_back(s.substr(start));
          break;
        }
        row.push_back(s.substr(start, p - start));
        start = p + sep.size();
      }
    }
    EmitSparse(ctx, tokens);
  }

 private:
  int64_t maxsplit_ = -1;
};

// Index of element e of an output of shape `out` in an input broadcast to it.
int64_t BroadcastIndex(const TensorShape& in, const TensorShape& out,
                       int64_t e) {
  int64_t index = 0, stride = 1;
  const int offset = out.rank() - in.rank();
  for (int d = out.rank() - 1; d >= 0; --d) {
    const int64_t coord = e % out.dim(d);
    e /= out.dim(d);
    const int id = d - offset;
    if (id < 0) break;
    if (in.dim(id) != 1) index += coord * stride;
    stride *= in.dim(id);
  }
  return index;
}

Status BroadcastShape(const std::vector<const Tensor*>& ts, TensorShape* out) {
  PartialShape shape({});
  for (const Tensor* t : ts) {
    PartialShape next;
    Status s = InferenceContext::BroadcastShapes(
        shape, PartialShape(t->shape()), &next);
    if (!s.ok()) {
      return errors::InvalidArgument("Incompatible shapes: ", shape.ToString(),
                                     " vs. ", t->shape().ToString());
    }
    shape = next;
  }
  *out = TensorShape(shape.dims());
  return Status::OK();
}

// UTF-8: the byte offset of character `chars` from `from` (or npos).
size_t Utf8Advance(const std::string& s, size_t from, int64_t chars) {
  size_t p = from;
  while (chars > 0) {
    if (p >= s.size()) return std::string::npos;
    ++p;
    while (p < s.size() && (static_cast<unsigned char>(s[p]) & 0xC0) == 0x80) {
      ++p;
    }
    --chars;
  }
  return p;
}

int64_t Utf8Length(const std::string& s) {
  int64_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

class SubstrOp : public OpKernel {
 public:
  explicit SubstrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    ctx->SetStatus(ctx->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& pos_t = ctx->input(1);
    const Tensor& len_t = ctx->input(2);
    OP_REQUIRES(
        ctx, pos_t.shape() == len_t.shape(),
        errors::InvalidArgument("pos and len should have the same shape, got: ",
                                pos_t.shape().ToString(), " vs. ",
                                len_t.shape().ToString()));
    TensorShape shape;
    OP_REQUIRES_OK(ctx, BroadcastShape({&in, &pos_t}, &shape));
    std::vector<int64_t> pos, len;
    OP_REQUIRES_OK(ctx, ReadAll(pos_t, &pos));
    OP_REQUIRES_OK(ctx, ReadAll(len_t, &len));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    for (int64_t e = 0; e < out->num_elements(); ++e) {
      const int64_t si = BroadcastIndex(in.shape(), shape, e);
      const int64_t pi = BroadcastIndex(pos_t.shape(), shape, e);
      const std::string& s = Strings(in)[si];
      const int64_t size =
          utf8_ ? Utf8Length(s) : static_cast<int64_t>(s.size());
      int64_t p = pos[pi];
      OP_REQUIRES(
          ctx, p <= size && p >= -size,
          errors::InvalidArgument("pos ", p, " out of range for string b'", s,
                                  "' at index ", e));
      if (p < 0) p += size;
      // TensorFlow reads a negative len as "to the end" (size_t conversion).
      const int64_t n = len[pi] < 0 ? size - p : std::min(len[pi], size - p);
      if (!utf8_) {
        Strings(out)[e] = s.substr(p, n);
      } else {
        const size_t begin = Utf8Advance(s, 0, p);
        const size_t end = Utf8Advance(s, begin, n);
        Strings(out)[e] = s.substr(
            begin, end == std::string::npos ? std::string::npos : end - begin);
      }
    }
  }

 private:
  static Status ReadAll(const Tensor& t, std::vector<int64_t>* v) {
    Tensor flat;
    TW_RETURN_IF_ERROR(t.Reshaped(TensorShape({t.num_elements()}), &flat));
    return ReadIndexVector(flat, v);
  }
  bool utf8_ = false;
};

class StringToNumberOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DataType out_type;
    OP_REQUIRES_OK(ctx, GetAttr(node().attrs(), "out_type", &out_type));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    OP_REQUIRES_OK(
        ctx,
        DispatchType<float, double, int32_t, int64_t>(out_type, [&](auto tag) {
          using T = decltype(tag);
          for (int64_t i = 0; i < in.num_elements(); ++i) {
            if (!ParseNumber(Strings(in)[i], &out->data<T>()[i])) {
              return errors::InvalidArgument(
                  "StringToNumberOp could not correctly convert "
                  "string: ",
                  Strings(in)[i]);
            }
          }
          return Status::OK();
        }));
  }
};

class StringToHashBucketFastOp : public OpKernel {
 public:
  explicit StringToHashBucketFastOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_buckets", &num_buckets_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string& s = Strings(in)[i];
      out->data<int64_t>()[i] =
          static_cast<int64_t>(Fingerprint64(s.data(), s.size()) %
                               static_cast<uint64_t>(num_buckets_));
    }
  }

 private:
  int64_t num_buckets_ = 1;
};

// SipHash-2-4 with a 128-bit key (TensorFlow's StrongKeyedHash).
uint64_t SipHash24(const uint64_t key[2], const char* s, size_t len) {
  uint64_t v0 = key[0] ^ 0x736f6d6570736575ULL;
  uint64_t v1 = key[1] ^ 0x646f72616e646f6dULL;
  uint64_t v2 = key[0] ^ 0x6c7967656e657261ULL;
  uint64_t v3 = key[1] ^ 0x7465646279746573ULL;
  auto rotl = [](uint64_t x, int b) { return (x << b) | (x >> (64 - b)); };
  auto round = [&] {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  };
  const size_t full = len - len % 8;
  for (size_t i = 0; i < full; i += 8) {
    const uint64_t m = farmhash::Fetch64(s + i);
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(len & 0xff) << 56;
  for (size_t i = 0; i < len % 8; ++i) {
    last |= static_cast<uint64_t>(static_cast<uint8_t>(s[full + i])) << (8 * i);
  }
  v3 ^= last;
  round();
  round();
  v0 ^= last;
  v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) round();
  return v0 ^ v1 ^ v2 ^ v3;
}

class StringToHashBucketStrongOp : public OpKernel {
 public:
  explicit StringToHashBucketStrongOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("num_buckets", &num_buckets_));
    std::vector<int64_t> key;
    ctx->SetStatus(ctx->GetAttr("key", &key));
    if (ctx->status().ok() && key.size() != 2) {
      ctx->SetStatus(errors::InvalidArgument("Key must have 2 elements"));
      return;
    }
    if (key.size() == 2) {
      key_[0] = static_cast<uint64_t>(key[0]);
      key_[1] = static_cast<uint64_t>(key[1]);
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string& s = Strings(in)[i];
      out->data<int64_t>()[i] =
          static_cast<int64_t>(SipHash24(key_, s.data(), s.size()) %
                               static_cast<uint64_t>(num_buckets_));
    }
  }

 private:
  int64_t num_buckets_ = 1;
  uint64_t key_[2] = {0, 0};
};

class AsStringOp : public OpKernel {
 public:
  explicit AsStringOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t precision, width;
    bool scientific, shortest;
    std::string fill;
    ctx->SetStatus(ctx->GetAttr("precision", &precision));
    ctx->SetStatus(ctx->GetAttr("scientific", &scientific));
    ctx->SetStatus(ctx->GetAttr("shortest", &shortest));
    ctx->SetStatus(ctx->GetAttr("width", &width));
    ctx->SetStatus(ctx->GetAttr("fill", &fill));
    DataType dtype;
    ctx->SetStatus(GetAttr(ctx->node().attrs(), "T", &dtype));
    if (!ctx->status().ok()) return;
    const bool is_float = dtype == DT_FLOAT || dtype == DT_DOUBLE;
    if (scientific && shortest) {
      ctx->SetStatus(errors::InvalidArgument(
          "Cannot select both scientific and shortest notation"));
      return;
    }
    if ((scientific || shortest || precision > -1) && !is_float) {
      ctx->SetStatus(errors::InvalidArgument(
          "scientific, shortest and precision apply only to float types, "
          "not ",
          DataTypeName(dtype)));
      return;
    }
    if (fill.size() > 1) {
      ctx->SetStatus(errors::InvalidArgument(
          "Fill string must be one or fewer characters"));
      return;
    }
    // TensorFlow reads width and precision as int32s (printf's too).
    for (auto [name, value] : {std::pair<const char*, int64_t>{"width", width},
                               {"precision", precision}}) {
      if (value > std::numeric_limits<int32_t>::max() ||
          value < std::numeric_limits<int32_t>::min()) {
        ctx->SetStatus(errors::InvalidArgument(
            "Attr ", name, " has value ", value, " out of range for an int32"));
        return;
      }
    }
    // printf writes a float's digits one at a time (~20 ns each): past a
    // double's 1074th decimal they are zeros, and a precision of 2^31 - 1
    // would format for a minute an element. Refused beyond this bound.
    constexpr int64_t kMaxPrecision = 1 << 16;
    if (precision > kMaxPrecision) {
      ctx->SetStatus(errors::InvalidArgument(
          "AsString: precision ", precision, " is over ", kMaxPrecision,
          " (a double has at most 1074 nonzero decimals)"));
      return;
    }
    // The longest string one element may format to (a double's integer part
    // has at most 309 digits), to bound the output before formatting.
    max_element_bytes_ =
        std::max<int64_t>(width, 0) + std::max<int64_t>(precision, 0) + 320;
    format_ = "%";
    if (!fill.empty()) {
      if (std::string(" +-0#").find(fill[0]) == std::string::npos) {
        ctx->SetStatus(errors::InvalidArgument(
            "Fill argument not supported: \"", fill, "\""));
        return;
      }
      format_ += fill;
    }
    if (width > -1) format_ += std::to_string(width);
    if (precision > -1) format_ += "." + std::to_string(precision);
    if (is_float) {
      format_ += shortest ? "g" : (scientific ? "e" : "f");
    } else if (dtype == DT_BOOL) {
      format_ += "s";
    } else {
      format_ += PRId64;
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    // A width of 2^31 - 1 asks for 2 GB per element: bounded as a tensor's
    // bytes are (ResourceExhausted, not minutes of padding).
    int64_t bytes = 0;
    OP_REQUIRES(ctx,
                MultiplyWithoutOverflow(in.num_elements(), max_element_bytes_,
                                        &bytes) &&
                    bytes <= MaxTensorBytes(),
                errors::ResourceExhausted(
                    "OOM: formatting ", in.num_elements(),
                    " elements of up to ", max_element_bytes_,
                    " bytes each (width, precision) exceeds the tensor limit"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    // Formatted to its full length (a fixed buffer cut wide fields short).
    auto format = [&](std::string* dst, auto value) {
      const int n = std::snprintf(nullptr, 0, format_.c_str(), value);
      if (n <= 0) {
        dst->clear();
        return;
      }
      dst->assign(static_cast<size_t>(n) + 1, '\0');
      std::snprintf(dst->data(), dst->size(), format_.c_str(), value);
      dst->resize(static_cast<size_t>(n));
    };
    OP_REQUIRES_OK(
        ctx, DispatchType<float, double, int32_t, int64_t, uint8_t, int8_t,
                          int16_t, bool>(in.dtype(), [&](auto tag) {
          using T = decltype(tag);
          for (int64_t i = 0; i < in.num_elements(); ++i) {
            const T v = in.data<T>()[i];
            std::string& dst = Strings(out)[i];
            if constexpr (std::is_same_v<T, bool>) {
              format(&dst, v ? "true" : "false");
            } else if constexpr (std::is_floating_point_v<T>) {
              format(&dst, static_cast<double>(v));
            } else {
              format(&dst, static_cast<int64_t>(v));
            }
          }
          return Status::OK();
        }));
  }

 private:
  std::string format_;
  int64_t max_element_bytes_ = 320;
};

Status CompileRegex(const std::string& pattern, std::regex* re) {
  try {
    *re = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return errors::InvalidArgument("Invalid pattern: ", pattern,
                                   ", error: ", e.what());
  }
  return Status::OK();
}

// RE2's rewrite (\0..\9 name groups, \\ a backslash) as a std::regex format
// string ($& / $n, $$ a dollar sign).
Status TranslateRewrite(const std::string& rewrite, std::string* format) {
  format->clear();
  for (size_t i = 0; i < rewrite.size(); ++i) {
    const char c = rewrite[i];
    if (c == '$') {
      *format += "$$";
    } else if (c == '\\') {
      if (i + 1 >= rewrite.size()) {
        return errors::InvalidArgument("Invalid rewrite pattern: ", rewrite,
                                       " (a trailing backslash)");
      }
      const char next = rewrite[++i];
      if (next == '\\') {
        *format += '\\';
      } else if (next == '0') {
        *format += "$&";
      } else if (next >= '1' && next <= '9') {
        *format += '$';
        *format += next;
      } else {
        return errors::InvalidArgument("Invalid rewrite pattern: ", rewrite);
      }
    } else {
      *format += c;
    }
  }
  return Status::OK();
}

// RegexReplace and RegexFullMatch read the pattern (and the rewrite) from
// inputs; their Static variants (what tf.strings builds for a Python string
// pattern) from attributes, compiled once.
template <bool kStatic>
class RegexReplaceOp : public OpKernel {
 public:
  explicit RegexReplaceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("replace_global", &global_));
    if constexpr (kStatic) {
      std::string pattern, rewrite;
      ctx->SetStatus(ctx->GetAttr("pattern", &pattern));
      ctx->SetStatus(ctx->GetAttr("rewrite", &rewrite));
      ctx->SetStatus(TranslateRewrite(rewrite, &format_));
      ctx->SetStatus(CompileRegex(pattern, &re_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::regex dynamic_re;
    std::string dynamic_format;
    if constexpr (!kStatic) {
      std::string pattern, rewrite;
      OP_REQUIRES_OK(ctx, ScalarString(ctx->input(1), "Pattern", &pattern));
      OP_REQUIRES_OK(ctx, ScalarString(ctx->input(2), "Rewrite", &rewrite));
      OP_REQUIRES_OK(ctx, TranslateRewrite(rewrite, &dynamic_format));
      OP_REQUIRES_OK(ctx, CompileRegex(pattern, &dynamic_re));
    }
    const std::regex& re = kStatic ? re_ : dynamic_re;
    const std::string& format = kStatic ? format_ : dynamic_format;
    const auto flags = global_ ? std::regex_constants::format_default
                               : std::regex_constants::format_first_only;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      Strings(out)[i] = std::regex_replace(Strings(in)[i], re, format, flags);
    }
  }

 private:
  bool global_ = true;
  std::regex re_;
  std::string format_;
};

template <bool kStatic>
class RegexFullMatchOp : public OpKernel {
 public:
  explicit RegexFullMatchOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if constexpr (kStatic) {
      std::string pattern;
      ctx->SetStatus(ctx->GetAttr("pattern", &pattern));
      ctx->SetStatus(CompileRegex(pattern, &re_));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::regex dynamic_re;
    if constexpr (!kStatic) {
      std::string pattern;
      OP_REQUIRES_OK(ctx, ScalarString(ctx->input(1), "Pattern", &pattern));
      OP_REQUIRES_OK(ctx, CompileRegex(pattern, &dynamic_re));
    }
    const std::regex& re = kStatic ? re_ : dynamic_re;
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      out->data<bool>()[i] = std::regex_match(Strings(in)[i], re);
    }
  }

 private:
  std::regex re_;
};

class StringLengthOp : public OpKernel {
 public:
  explicit StringLengthOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string unit;
    ctx->SetStatus(ctx->GetAttr("unit", &unit));
    utf8_ = unit == "UTF8_CHAR";
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      const std::string& s = Strings(in)[i];
      out->data<int32_t>()[i] = static_cast<int32_t>(
          utf8_ ? Utf8Length(s) : static_cast<int64_t>(s.size()));
    }
  }

 private:
  bool utf8_ = false;
};

// StringLower / StringUpper / StringStrip: one string to one string.
template <typename Fn>
class StringMapOp : public OpKernel {
 public:
  explicit StringMapOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string encoding;
    if (ctx->GetAttr("encoding", &encoding).ok() && !encoding.empty() &&
        encoding != "utf-8") {
      ctx->SetStatus(errors::InvalidArgument(
          "encoding must be '' or 'utf-8', got '", encoding, "'"));
    }
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      Strings(out)[i] = Fn::Apply(Strings(in)[i]);
    }
  }
};

struct LowerFn {
  static std::string Apply(std::string s) {
    for (char& c : s)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
};
struct UpperFn {
  static std::string Apply(std::string s) {
    for (char& c : s)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  }
};
struct StripFn {
  static std::string Apply(const std::string& s) {
    size_t begin = 0, end = s.size();
    while (begin < end && IsSpace(s[begin])) ++begin;
    while (end > begin && IsSpace(s[end - 1])) --end;
    return s.substr(begin, end - begin);
  }
};

// ReduceJoin: the first listed dim varies fastest in each joined sequence
// (TensorFlow: reduce_join([["a","b"],["c","d"]], [0, 1]) is "acbd").
class ReduceJoinOp : public OpKernel {
 public:
  explicit ReduceJoinOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("keep_dims", &keep_dims_));
    ctx->SetStatus(ctx->GetAttr("separator", &separator_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> axes;
    Tensor flat;
    OP_REQUIRES_OK(
        ctx, ctx->input(1).Reshaped(TensorShape({ctx->input(1).num_elements()}),
                                    &flat));
    OP_REQUIRES_OK(ctx, ReadIndexVector(flat, &axes));
    const int rank = in.rank();
    std::vector<bool> reduced(rank, false);
    std::vector<int> order;
    for (int64_t a : axes) {
      OP_REQUIRES(ctx, a >= -rank && a < rank,
                  errors::OutOfRange("Invalid reduction dimension ", a,
                                     " for input with ", rank, " dimensions."));
      const int d = static_cast<int>(a < 0 ? a + rank : a);
      OP_REQUIRES(ctx, !reduced[d],
                  errors::InvalidArgument("Duplicate reduction dimension ", a));
      reduced[d] = true;
      order.push_back(d);
    }
    std::vector<int64_t> out_dims, kept;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        out_dims.push_back(in.dim(d));
        kept.push_back(d);
      } else if (keep_dims_) {
        out_dims.push_back(1);
      }
    }
    std::vector<int64_t> strides(rank, 1);
    for (int d = rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * in.dim(d + 1);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(out_dims), &out));
    int64_t group = 1;
    for (int d : order) group *= in.dim(d);
    for (int64_t o = 0; o < out->num_elements(); ++o) {
      int64_t base = 0, rest = o;
      for (int k = static_cast<int>(kept.size()) - 1; k >= 0; --k) {
        const int d = static_cast<int>(kept[k]);
        base += (rest % in.dim(d)) * strides[d];
        rest /= in.dim(d);
      }
      std::string joined;
      for (int64_t g = 0; g < group; ++g) {
        int64_t offset = base, r = g;
        for (int d : order) {
          offset += (r % in.dim(d)) * strides[d];
          r /= in.dim(d);
        }
        if (g > 0) joined += separator_;
        joined += Strings(in)[offset];
      }
      Strings(out)[o] = std::move(joined);
    }
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

REGISTER_KERNEL(KernelDef("StringJoin"), StringJoinOp);
REGISTER_KERNEL(KernelDef("StringSplit"), StringSplitOp);
REGISTER_KERNEL(KernelDef("StringSplitV2"), StringSplitV2Op);
REGISTER_KERNEL(KernelDef("Substr"), SubstrOp);
REGISTER_KERNEL(KernelDef("StringToNumber"), StringToNumberOp);
REGISTER_KERNEL(KernelDef("StringToHashBucketFast"), StringToHashBucketFastOp);
REGISTER_KERNEL(KernelDef("StringToHashBucketStrong"),
                StringToHashBucketStrongOp);
REGISTER_KERNEL(KernelDef("AsString"), AsStringOp);
REGISTER_KERNEL(KernelDef("RegexReplace"), RegexReplaceOp<false>);
REGISTER_KERNEL(KernelDef("StaticRegexReplace"), RegexReplaceOp<true>);
REGISTER_KERNEL(KernelDef("RegexFullMatch"), RegexFullMatchOp<false>);
REGISTER_KERNEL(KernelDef("StaticRegexFullMatch"), RegexFullMatchOp<true>);
REGISTER_KERNEL(KernelDef("StringLength"), StringLengthOp);
REGISTER_KERNEL(KernelDef("StringLower"), StringMapOp<LowerFn>);
REGISTER_KERNEL(KernelDef("StringUpper"), StringMapOp<UpperFn>);
REGISTER_KERNEL(KernelDef("StringStrip"), StringMapOp<StripFn>);
REGISTER_KERNEL(KernelDef("ReduceJoin"), ReduceJoinOp);

}  // namespace
}  // namespace tensorweave
