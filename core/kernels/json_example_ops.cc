// DecodeJSONExample: tf.train.Example protos in protobuf's JSON mapping
// converted to their binary wire format, as TensorFlow does it (protobuf's
// JsonToBinaryString over the generated descriptor pool), so the bytes match
// TensorFlow's for the same JSON text.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>

#include <memory>
#include <string>

#include "core/framework/example.pb.h"
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

constexpr char kTypeUrlPrefix[] = "type.googleapis.com";

class DecodeJSONExampleOp : public OpKernel {
 public:
  explicit DecodeJSONExampleOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    // Linking Example's generated code puts it in the generated pool.
    type_url_ =
        std::string(kTypeUrlPrefix) + "/" + Example::descriptor()->full_name();
    resolver_.reset(google::protobuf::util::NewTypeResolverForDescriptorPool(
        kTypeUrlPrefix, google::protobuf::DescriptorPool::generated_pool()));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    Tensor out;
    OP_REQUIRES_OK(ctx, Tensor::Allocate(DT_STRING, in.shape(), &out));
    const std::string* src = in.data<std::string>();
    std::string* dst = out.data<std::string>();
    for (int64_t i = 0; i < in.num_elements(); ++i) {
      auto status = google::protobuf::util::JsonToBinaryString(
          resolver_.get(), type_url_, src[i], &dst[i]);
      OP_REQUIRES(ctx, status.ok(),
                  errors::InvalidArgument("Error while parsing JSON (element ",
                                          i, "): ", status.ToString()));
    }
    ctx->set_output(0, out);
  }

 private:
  std::string type_url_;
  std::unique_ptr<google::protobuf::util::TypeResolver> resolver_;
};

REGISTER_KERNEL(KernelDef("DecodeJSONExample"), DecodeJSONExampleOp);

}  // namespace
}  // namespace tensorweave
