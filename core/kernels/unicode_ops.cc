// Unicode kernels (host only), as TensorFlow's: UnicodeTranscode,
// UnicodeEncode, UnicodeDecode, UnicodeDecodeWithOffsets (UTF-8, UTF-16-BE,
// UTF-32-BE; errors strict/replace/ignore) and UnicodeScript (ICU's script
// codes, from the system's libicuuc loaded at first use, so that the
// extension itself does not depend on one ICU version). The decoders give a
// ragged result: values and row splits.
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/ragged_splits.h"

namespace tensorweave {
namespace {

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

const char* EncodingName(Encoding e) {
  switch (e) {
    case Encoding::kUtf8:
      return "UTF-8";
    case Encoding::kUtf16Be:
      return "UTF-16-BE";
    case Encoding::kUtf32Be:
      return "UTF-32-BE";
  }
  return "?";
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
        if (i < n && i + 2 > n) {  // cut off in its low surrogate: one error
          *pos = n;
          return -1;
        }
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
        // A control character is an error of the `errors` mode (as TF).
        if (replace_control_ && c >= 0 && c < 0x20) c = -1;
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

// UnicodeDecode (kWithOffsets false) and UnicodeDecodeWithOffsets: the code
// points of each string of the input (any shape, flattened) as a ragged
// vector: row_splits [n + 1], char_values, and each character's byte offset.
template <bool kWithOffsets>
class UnicodeDecodeOp : public OpKernel {
 public:
  explicit UnicodeDecodeOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    std::string in_enc, errors_name;
    ctx->SetStatus(ctx->GetAttr("input_encoding", &in_enc));
    ctx->SetStatus(ctx->GetAttr("errors", &errors_name));
    ctx->SetStatus(ctx->GetAttr("replacement_char", &replacement_));
    ctx->SetStatus(
        ctx->GetAttr("replace_control_characters", &replace_control_));
    ctx->SetStatus(ctx->GetAttr("Tsplits", &splits_type_));
    if (!ctx->status().ok()) return;
    ctx->SetStatus(ParseEncoding(in_enc, &in_));
    ctx->SetStatus(ParseErrors(errors_name, &mode_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(
        ctx, mode_ != ErrorMode::kReplace || IsValidCodePoint(replacement_),
        errors::InvalidArgument("replacement_char is not a valid code point: ",
                                replacement_));
    const std::string* s = in.data<std::string>();
    const int64_t n = in.num_elements();
    std::vector<int64_t> splits(1, 0);
    splits.reserve(n + 1);
    std::vector<int32_t> chars;
    std::vector<int64_t> starts;
    for (int64_t k = 0; k < n; ++k) {
      size_t pos = 0;
      while (pos < s[k].size()) {
        const size_t start = pos;
        int32_t c = DecodeNext(s[k], &pos, in_);
        // TF's decoders replace a control character in every errors mode but
        // 'ignore', which drops it.
        const bool control = replace_control_ && c >= 0 && c < 0x20;
        if (control || c < 0 || !IsValidCodePoint(c)) {
          OP_REQUIRES(ctx, control || mode_ != ErrorMode::kStrict,
                      errors::InvalidArgument(
                          "Invalid formatting on input string ", k, " at byte ",
                          start, " (not valid ", EncodingName(in_), ")"));
          if (mode_ == ErrorMode::kIgnore) continue;
          OP_REQUIRES(ctx, IsValidCodePoint(replacement_),
                      errors::InvalidArgument(
                          "replacement_char is not a valid code point: ",
                          replacement_));
          c = static_cast<int32_t>(replacement_);
        }
        chars.push_back(c);
        if (kWithOffsets) starts.push_back(static_cast<int64_t>(start));
      }
      splits.push_back(static_cast<int64_t>(chars.size()));
    }
    OP_REQUIRES_OK(ctx, WriteSplitsAs(splits_type_, ctx, 0, splits));
    const int64_t count = static_cast<int64_t>(chars.size());
    Tensor* values;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({count}), &values));
    std::copy(chars.begin(), chars.end(), values->data<int32_t>());
    if (kWithOffsets) {
      Tensor* offsets;
      OP_REQUIRES_OK(ctx,
                     ctx->allocate_output(2, TensorShape({count}), &offsets));
      std::copy(starts.begin(), starts.end(), offsets->data<int64_t>());
    }
  }

 private:
  Encoding in_ = Encoding::kUtf8;
  ErrorMode mode_ = ErrorMode::kReplace;
  int64_t replacement_ = 0xFFFD;
  bool replace_control_ = false;
  DataType splits_type_ = DT_INT64;
};

// ICU's uscript_getScript(UChar32, UErrorCode*). ICU versions its symbols
// (uscript_getScript_72 in libicuuc.so.72); its script codes (UScriptCode)
// only grow from version to version.
using GetScriptFn = int (*)(int32_t, int*);

GetScriptFn LoadIcuGetScript() {
  static const GetScriptFn fn = []() -> GetScriptFn {
    for (int version = 99; version >= 50; --version) {
      const std::string lib = "libicuuc.so." + std::to_string(version);
      void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle == nullptr) continue;
      const std::string name = "uscript_getScript_" + std::to_string(version);
      void* sym = dlsym(handle, name.c_str());
      if (sym == nullptr) sym = dlsym(handle, "uscript_getScript");
      if (sym != nullptr) return reinterpret_cast<GetScriptFn>(sym);
      dlclose(handle);
    }
    return nullptr;
  }();
  return fn;
}

// ICU's script code (UScriptCode) of each code point; -1 where ICU has none
// (not a code point).
class UnicodeScriptOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const GetScriptFn get_script = LoadIcuGetScript();
    OP_REQUIRES(ctx, get_script != nullptr,
                errors::Unimplemented(
                    "UnicodeScript needs ICU's libicuuc.so.<version> (Debian "
                    "and Ubuntu: apt-get install libicu-dev), which was not "
                    "found"));
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int32_t* c = in.data<int32_t>();
    int32_t* o = out->data<int32_t>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      int status = 0;  // U_ZERO_ERROR; failures are > 0
      const int script = get_script(c[i], &status);
      o[i] = status <= 0 ? static_cast<int32_t>(script) : -1;
    }
  }
};

}  // namespace

REGISTER_KERNEL(KernelDef("UnicodeTranscode"), UnicodeTranscodeOp);
REGISTER_KERNEL(KernelDef("UnicodeEncode"), UnicodeEncodeOp);
REGISTER_KERNEL(KernelDef("UnicodeDecode"), UnicodeDecodeOp<false>);
REGISTER_KERNEL(KernelDef("UnicodeDecodeWithOffsets"), UnicodeDecodeOp<true>);
REGISTER_KERNEL(KernelDef("UnicodeScript"), UnicodeScriptOp);

}  // namespace tensorweave
