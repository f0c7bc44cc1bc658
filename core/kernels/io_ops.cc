// SaveV2 and RestoreV2: checkpoint files from a graph (format in
// core/util/checkpoint_format.h).
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/util/checkpoint_format.h"

namespace tensorweave {
namespace {

// Reads the scalar prefix and the names, and checks that the slices are
// empty (whole tensors) and that there are `count` of each.
Status ReadPrefixAndNames(OpKernelContext* ctx, int64_t count,
                          std::string* prefix,
                          std::vector<std::string>* names) {
  const Tensor& prefix_t = ctx->input(0);
  const Tensor& names_t = ctx->input(1);
  const Tensor& slices_t = ctx->input(2);
  if (prefix_t.rank() != 0) {
    return errors::InvalidArgument("prefix must be a scalar, got shape ",
                                   prefix_t.shape().ToString());
  }
  *prefix = prefix_t.data<std::string>()[0];
  if (prefix->empty()) {
    return errors::InvalidArgument("the checkpoint prefix is empty");
  }
  // A file name ends at a NUL: the files would be written or read under a
  // shorter name than the one asked for.
  if (prefix->find('\0') != std::string::npos) {
    return errors::InvalidArgument(
        "the checkpoint prefix contains a NUL character: '",
        prefix->substr(0, prefix->find('\0')), "\\0...'");
  }
  if (names_t.rank() != 1 || names_t.num_elements() != count ||
      slices_t.rank() != 1 || slices_t.num_elements() != count) {
    return errors::InvalidArgument(
        "expected ", count, " tensor_names and shape_and_slices, got shapes ",
        names_t.shape().ToString(), " and ", slices_t.shape().ToString());
  }
  for (int64_t i = 0; i < count; ++i) {
    if (!slices_t.data<std::string>()[i].empty()) {
      return errors::Unimplemented(
          "saving or restoring slices is not supported (shape_and_slices[", i,
          "] = '", slices_t.data<std::string>()[i], "')");
    }
    names->push_back(names_t.data<std::string>()[i]);
  }
  return Status::OK();
}

class SaveV2Op : public OpKernel {
 public:
  explicit SaveV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtypes", &dtypes_));
  }
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    const int64_t count = static_cast<int64_t>(dtypes_.size());
    std::string prefix;
    std::vector<std::string> names;
    OP_REQUIRES_OK(ctx, ReadPrefixAndNames(ctx, count, &prefix, &names));
    std::vector<Tensor> tensors;
    for (int64_t i = 0; i < count; ++i) tensors.push_back(ctx->input(3 + i));
    OP_REQUIRES_OK(ctx, checkpoint::Write(prefix, names, tensors));
  }

 private:
  std::vector<DataType> dtypes_;
};

class RestoreV2Op : public OpKernel {
 public:
  explicit RestoreV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtypes", &dtypes_));
    ctx->SetStatus(ctx->GetAttr("shapes", &shapes_));
  }
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    const int64_t count = static_cast<int64_t>(dtypes_.size());
    std::string prefix;
    std::vector<std::string> names;
    OP_REQUIRES_OK(ctx, ReadPrefixAndNames(ctx, count, &prefix, &names));
    std::vector<checkpoint::TensorRequest> requests;
    for (int64_t i = 0; i < count; ++i) {
      requests.push_back({names[i], dtypes_[i],
                          shapes_.empty() ? PartialShape() : shapes_[i]});
    }
    std::vector<Tensor> tensors;
    OP_REQUIRES_OK(ctx, checkpoint::Read(prefix, requests, &tensors));
    for (int64_t i = 0; i < count; ++i) ctx->set_output(i, tensors[i]);
  }

 private:
  std::vector<DataType> dtypes_;
  std::vector<PartialShape> shapes_;
};

REGISTER_KERNEL(KernelDef("SaveV2"), SaveV2Op);
REGISTER_KERNEL(KernelDef("RestoreV2"), RestoreV2Op);

}  // namespace
}  // namespace tensorweave
