// SaveV2 and RestoreV2: checkpoint files from a graph (format in
// core/util/checkpoint_format.h); ShardedFilename/Filespec and
// MergeV2Checkpoints, the rest of TensorFlow's sharded save.
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/util/checkpoint_format.h"

namespace tensorweave {
namespace {

// Reads the scalar prefix, the names and their shape_and_slices ("" for a
// whole tensor), and checks that there are `count` of each.
Status ReadPrefixAndNames(OpKernelContext* ctx, int64_t count,
                          std::string* prefix, std::vector<std::string>* names,
                          std::vector<std::string>* slices) {
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
    names->push_back(names_t.data<std::string>()[i]);
    slices->push_back(slices_t.data<std::string>()[i]);
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
    std::vector<std::string> names, slices;
    OP_REQUIRES_OK(ctx,
                   ReadPrefixAndNames(ctx, count, &prefix, &names, &slices));
    std::vector<Tensor> tensors;
    for (int64_t i = 0; i < count; ++i) tensors.push_back(ctx->input(3 + i));
    OP_REQUIRES_OK(ctx, checkpoint::Write(prefix, names, tensors, slices));
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
    std::vector<std::string> names, slices;
    OP_REQUIRES_OK(ctx,
                   ReadPrefixAndNames(ctx, count, &prefix, &names, &slices));
    std::vector<checkpoint::TensorRequest> requests;
    for (int64_t i = 0; i < count; ++i) {
      requests.push_back({names[i], dtypes_[i],
                          shapes_.empty() ? PartialShape() : shapes_[i],
                          slices[i]});
    }
    std::vector<Tensor> tensors;
    OP_REQUIRES_OK(ctx, checkpoint::Read(prefix, requests, &tensors));
    for (int64_t i = 0; i < count; ++i) ctx->set_output(i, tensors[i]);
  }

 private:
  std::vector<DataType> dtypes_;
  std::vector<PartialShape> shapes_;
};

Status ScalarInput(OpKernelContext* ctx, int i, const char* what) {
  if (ctx->input(i).rank() != 0) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   ctx->input(i).shape().ToString());
  }
  return Status::OK();
}

// basename-SSSSS-of-NNNNN (ShardedFilename) or basename-?????-of-NNNNN
// (ShardedFilespec), as TensorFlow names the shards of a save.
template <bool kSpec>
class ShardedFilenameOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int count_input = kSpec ? 1 : 2;
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 0, "basename"));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, count_input, "num_shards"));
    const int32_t shards = ctx->input(count_input).data<int32_t>()[0];
    char suffix[48];
    if constexpr (kSpec) {
      std::snprintf(suffix, sizeof(suffix), "-?????-of-%05d", shards);
    } else {
      OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "shard"));
      const int32_t shard = ctx->input(1).data<int32_t>()[0];
      OP_REQUIRES(ctx, shard >= 0 && shard < shards,
                  errors::InvalidArgument("shard ", shard, " is not in [0, ",
                                          shards, ")"));
      std::snprintf(suffix, sizeof(suffix), "-%05d-of-%05d", shard, shards);
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
    out->data<std::string>()[0] = ctx->input(0).data<std::string>()[0] + suffix;
  }
};

class MergeV2CheckpointsOp : public OpKernel {
 public:
  explicit MergeV2CheckpointsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("delete_old_dirs", &delete_old_dirs_));
    ctx->SetStatus(ctx->GetAttr("allow_missing_files", &allow_missing_));
  }
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& sources = ctx->input(0);
    OP_REQUIRES(ctx, sources.rank() == 1,
                errors::InvalidArgument(
                    "checkpoint_prefixes must be a vector, got shape ",
                    sources.shape().ToString()));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "destination_prefix"));
    const std::string destination = ctx->input(1).data<std::string>()[0];
    std::vector<std::string> names, slices, merged_sources;
    std::vector<Tensor> tensors;
    for (int64_t i = 0; i < sources.num_elements(); ++i) {
      const std::string& source = sources.data<std::string>()[i];
      std::vector<checkpoint::ListedTensor> listed;
      Status s = checkpoint::List(source, &listed);
      if (s.code() == Code::kNotFound && allow_missing_) continue;
      OP_REQUIRES_OK(ctx, s);
      std::vector<checkpoint::TensorRequest> requests;
      for (const auto& t : listed) {
        requests.push_back({t.key, t.dtype, PartialShape()});
        names.push_back(t.name);
        slices.push_back(t.slice);
      }
      std::vector<Tensor> read;
      OP_REQUIRES_OK(ctx, checkpoint::Read(source, requests, &read));
      for (Tensor& t : read) tensors.push_back(std::move(t));
      merged_sources.push_back(source);
    }
    // Write refuses duplicate names: two shards holding one tensor (or
    // overlapping slices of it).
    OP_REQUIRES_OK(ctx, checkpoint::Write(destination, names, tensors, slices));
    for (const std::string& source : merged_sources) {
      if (source == destination) continue;
      std::remove((source + checkpoint::kManifestSuffix).c_str());
      std::remove((source + checkpoint::kDataSuffix).c_str());
      if (delete_old_dirs_) {
        const size_t slash = source.rfind('/');
        // Only an empty directory goes, as TensorFlow's.
        if (slash != std::string::npos) rmdir(source.substr(0, slash).c_str());
      }
    }
  }

 private:
  bool delete_old_dirs_ = true, allow_missing_ = false;
};

REGISTER_KERNEL(KernelDef("SaveV2"), SaveV2Op);
REGISTER_KERNEL(KernelDef("RestoreV2"), RestoreV2Op);
REGISTER_KERNEL(KernelDef("ShardedFilename"), ShardedFilenameOp<false>);
REGISTER_KERNEL(KernelDef("ShardedFilespec"), ShardedFilenameOp<true>);
REGISTER_KERNEL(KernelDef("MergeV2Checkpoints"), MergeV2CheckpointsOp);

}  // namespace
}  // namespace tensorweave
