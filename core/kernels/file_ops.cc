// ReadFile, WriteFile and MatchingFiles on the local file system.
#include <glob.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

Status ScalarString(OpKernelContext* ctx, int i, const char* what,
                    std::string* out) {
  const Tensor& t = ctx->input(i);
  if (t.rank() != 0) {
    return errors::InvalidArgument(what, " must be a scalar, got shape ",
                                   t.shape().ToString());
  }
  *out = t.data<std::string>()[0];
  return Status::OK();
}

class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    std::string filename;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "filename", &filename));
    std::error_code ec;
    if (std::filesystem::is_directory(filename, ec)) {
      OP_REQUIRES(ctx, false,
                  errors::FailedPrecondition(filename, "; Is a directory"));
    }
    std::ifstream in(filename, std::ios::binary);
    OP_REQUIRES(ctx, in.good(),
                errors::NotFound(filename, "; No such file or directory"));
    std::ostringstream contents;
    contents << in.rdbuf();
    OP_REQUIRES(ctx, !in.bad(),
                errors::DataLoss("Error reading ", filename, ": ",
                                 std::strerror(errno)));
    ctx->set_output(0, Tensor::Scalar<std::string>(contents.str()));
  }
};

class WriteFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return true; }
  void Compute(OpKernelContext* ctx) override {
    std::string filename, contents;
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 0, "filename", &filename));
    OP_REQUIRES_OK(ctx, ScalarString(ctx, 1, "contents", &contents));
    const std::filesystem::path path(filename);
    std::error_code ec;
    if (path.has_parent_path()) {
      std::filesystem::create_directories(path.parent_path(), ec);
      OP_REQUIRES(ctx, !ec,
                  errors::PermissionDenied("Could not create directory ",
                                           path.parent_path().string(), ": ",
                                           ec.message()));
    }
    OP_REQUIRES(ctx, !std::filesystem::is_directory(path, ec),
                errors::FailedPrecondition(filename, "; Is a directory"));
    std::ofstream out(filename, std::ios::binary | std::ios::trunc);
    OP_REQUIRES(
        ctx, out.good(),
        errors::PermissionDenied("Could not open ", filename, " for writing"));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    OP_REQUIRES(ctx, !out.fail(), errors::DataLoss("Error writing ", filename));
  }
};

class MatchingFilesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& patterns = ctx->input(0);
    OP_REQUIRES(ctx, patterns.rank() <= 1,
                errors::InvalidArgument(
                    "pattern must be a scalar or a vector, got shape ",
                    patterns.shape().ToString()));
    std::vector<std::string> found;
    for (int64_t i = 0; i < patterns.num_elements(); ++i) {
      const std::string& pattern = patterns.data<std::string>()[i];
      glob_t matches;
      const int rc = ::glob(pattern.c_str(), 0, nullptr, &matches);
      if (rc == 0) {
        for (size_t k = 0; k < matches.gl_pathc; ++k) {
          found.emplace_back(matches.gl_pathv[k]);
        }
      }
      globfree(&matches);
      OP_REQUIRES(ctx, rc == 0 || rc == GLOB_NOMATCH,
                  errors::Internal("Could not match pattern ", pattern));
    }
    std::sort(found.begin(), found.end());
    ctx->set_output(0, Tensor::Vector<std::string>(found));
  }
};

REGISTER_KERNEL(KernelDef("ReadFile"), ReadFileOp);
REGISTER_KERNEL(KernelDef("WriteFile"), WriteFileOp);
REGISTER_KERNEL(KernelDef("MatchingFiles"), MatchingFilesOp);

}  // namespace
}  // namespace tensorweave
