// Assert and Print kernels (host only).
#include <atomic>
#include <iostream>
#include <sstream>
#include <string>

#include "core/framework/op_kernel.h"
#include "core/framework/types.h"

namespace tensorweave {
namespace {

// TF's Tensor::SummarizeValue: the first `max_entries` values separated by
// spaces, "..." when more follow (strings as they are).
std::string SummarizeValue(const Tensor& t, int64_t max_entries) {
  std::ostringstream out;
  int64_t n = t.num_elements();
  if (max_entries >= 0) n = std::min<int64_t>(n, max_entries);
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out << " ";
    if (t.dtype() == DT_STRING) {
      out << t.data<std::string>()[i];
      continue;
    }
    Status s = DispatchType<TW_POD_TYPES>(t.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>) {
        out << static_cast<int>(t.data<T>()[i]);
      } else if constexpr (std::is_same_v<T, bool>) {
        out << (t.data<T>()[i] ? 1 : 0);
      } else {
        out << t.data<T>()[i];
      }
      return Status::OK();
    });
    if (!s.ok()) return "<" + std::string(DataTypeName(t.dtype())) + ">";
  }
  if (n < t.num_elements()) out << "...";
  return out.str();
}

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("summarize", &summarize_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    OP_REQUIRES(
        ctx, cond.rank() == 0,
        errors::InvalidArgument("In[0] expected to be a scalar, got shape: ",
                                cond.shape().ToString()));
    if (cond.data<bool>()[0]) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      if (i > 1) msg += " ";
      msg += "[" + SummarizeValue(ctx->input(i), summarize_) + "]";
    }
    ctx->SetStatus(errors::InvalidArgument(msg));
  }

 private:
  int64_t summarize_ = 3;
};

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("message", &message_));
    ctx->SetStatus(ctx->GetAttr("first_n", &first_n_));
    ctx->SetStatus(ctx->GetAttr("summarize", &summarize_));
  }
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    if (first_n_ >= 0 && count_.fetch_add(1) >= first_n_) return;
    std::string msg = message_;
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      msg += "[" + SummarizeValue(ctx->input(i), summarize_) + "]";
    }
    std::cerr << msg << std::endl;
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  std::atomic<int64_t> count_{0};
};

REGISTER_KERNEL(KernelDef("Assert"), AssertOp);
REGISTER_KERNEL(KernelDef("Print"), PrintOp);

}  // namespace
}  // namespace tensorweave
