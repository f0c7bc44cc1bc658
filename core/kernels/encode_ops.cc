// Web-safe base64 kernels (TF's alphabet: '-' and '_' for '+' and '/').
#include <string>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string Encode(const std::string& in, bool pad) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) |
                       (static_cast<uint8_t>(in[i + 1]) << 8) |
                       static_cast<uint8_t>(in[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const size_t rest = in.size() - i;
  if (rest == 1) {
    const uint32_t v = static_cast<uint8_t>(in[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    if (pad) out += "==";
  } else if (rest == 2) {
    const uint32_t v = (static_cast<uint8_t>(in[i]) << 16) |
                       (static_cast<uint8_t>(in[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    if (pad) out += "=";
  }
  return out;
}

int DecodeChar(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

Status Decode(const std::string& in, std::string* out) {
  size_t len = in.size();
  // Up to two '=' of padding, when the padded length is a multiple of 4.
  if (len % 4 == 0) {
    if (len >= 1 && in[len - 1] == '=') --len;
    if (len >= 1 && in[len - 1] == '=') --len;
  }
  if (len % 4 == 1) {
    return errors::InvalidArgument("Invalid base64 data: its length (", len,
                                   ") leaves a single character");
  }
  out->clear();
  out->reserve(len / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < len; ++i) {
    const int v = DecodeChar(in[i]);
    if (v < 0) {
      return errors::InvalidArgument("Invalid character found in base64.");
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return Status::OK();
}

template <bool kEncode>
class Base64Op : public OpKernel {
 public:
  explicit Base64Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kEncode) ctx->SetStatus(ctx->GetAttr("pad", &pad_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const std::string* s = in.data<std::string>();
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      if (kEncode) {
        o[i] = Encode(s[i], pad_);
      } else {
        OP_REQUIRES_OK(ctx, Decode(s[i], &o[i]));
      }
    }
  }

 private:
  bool pad_ = false;
};

REGISTER_KERNEL(KernelDef("EncodeBase64"), Base64Op<true>);
REGISTER_KERNEL(KernelDef("DecodeBase64"), Base64Op<false>);

}  // namespace
}  // namespace tensorweave
