// DecodeRaw reinterprets bytes as numbers. (ParseExampleV2's kernel is in
// sequence_example_ops.cc, with ParseSequenceExampleV2's.)
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

class DecodeRawOp : public OpKernel {
 public:
  explicit DecodeRawOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("out_type", &out_type_));
    ctx->SetStatus(ctx->GetAttr("little_endian", &little_endian_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const int64_t n = input.num_elements();
    const std::string* strings = input.data<std::string>();
    const size_t element = DataTypeSize(out_type_);
    const size_t length = n > 0 ? strings[0].size() : 0;
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, strings[i].size() == length,
                  errors::InvalidArgument(
                      "DecodeRaw requires input strings to all be the same "
                      "size, but element ",
                      i, " has size ", strings[i].size(), " != ", length));
    }
    OP_REQUIRES(
        ctx, length % element == 0,
        errors::InvalidArgument("Input to DecodeRaw has length ", length,
                                " that is not a multiple of ", element,
                                ", the size of ", DataTypeName(out_type_)));
    std::vector<int64_t> dims = input.shape().dims();
    dims.push_back(static_cast<int64_t>(length / element));
    Tensor out;
    OP_REQUIRES_OK(ctx, Tensor::Allocate(out_type_, TensorShape(dims), &out));
    char* dst = static_cast<char*>(out.raw_data());
    const bool swap = little_endian_ != kHostLittleEndian;
    for (int64_t i = 0; i < n; ++i) {
      char* row = dst + i * length;
      std::memcpy(row, strings[i].data(), length);
      if (swap && element > 1) {
        for (size_t k = 0; k < length; k += element) {
          std::reverse(row + k, row + k + element);
        }
      }
    }
    ctx->set_output(0, out);
  }

 private:
  static constexpr bool kHostLittleEndian =
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  DataType out_type_ = DT_FLOAT;
  bool little_endian_ = true;
};

REGISTER_KERNEL(KernelDef("DecodeRaw"), DecodeRawOp);

}  // namespace
}  // namespace tensorweave
