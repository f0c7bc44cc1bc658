// _Send and _Recv: a tensor crossing a device boundary through the step's
// rendezvous. The key is built once, when the kernel is.
#include <memory>
#include <mutex>

#include "core/framework/cancellation.h"
#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

Status RendezvousKey(OpKernelConstruction* ctx, std::string* key) {
  std::string send_device, recv_device, tensor_name;
  int64_t incarnation = 0;
  TW_RETURN_IF_ERROR(ctx->GetAttr("send_device", &send_device));
  TW_RETURN_IF_ERROR(ctx->GetAttr("recv_device", &recv_device));
  TW_RETURN_IF_ERROR(ctx->GetAttr("tensor_name", &tensor_name));
  TW_RETURN_IF_ERROR(ctx->GetAttr("send_device_incarnation", &incarnation));
  *key = Rendezvous::CreateKey(send_device, static_cast<uint64_t>(incarnation),
                               recv_device, tensor_name);
  return Status::OK();
}

Status NoRendezvous(const OpKernelContext& ctx) {
  return errors::FailedPrecondition(
      ctx.kernel().type_string(),
      " needs the rendezvous of a partitioned step; this step has none");
}

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(RendezvousKey(ctx, &key_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->rendezvous() != nullptr, NoRendezvous(*ctx));
    OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(key_, ctx->input(0), false));
  }

 private:
  std::string key_;
};

// Whether a receive has finished, for its cancellation callback.
struct RecvGuard {
  std::recursive_mutex mu;
  bool finished = false;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    ctx->SetStatus(RendezvousKey(ctx, &key_));
    ctx->SetStatus(ctx->GetAttr("tensor_type", &dtype_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (ctx->rendezvous() == nullptr) {
      ctx->SetStatus(NoRendezvous(*ctx));
      done();
      return;
    }
    // A cancelled step (timeout, Session::Close) stops waiting: the step's
    // rendezvous is aborted, which ends every receive of the step. The
    // callback aborts only while this receive is pending (the step, and its
    // rendezvous, cannot end before it finishes); `guard` orders the two
    // (recursive: the abort may finish this receive on the same thread).
    CancellationManager* cancellation = ctx->cancellation_manager();
    CancellationManager::Token token = 0;
    bool registered = false;
    auto guard = std::make_shared<RecvGuard>();
    if (cancellation != nullptr) {
      Rendezvous* rendezvous = ctx->rendezvous();
      registered = cancellation->RegisterCallback(&token, [guard, rendezvous] {
        std::lock_guard<std::recursive_mutex> lock(guard->mu);
        if (guard->finished) return;
        rendezvous->StartAbort(
            errors::Cancelled("Recv operation was cancelled"));
      });
      if (!registered) {
        ctx->SetStatus(errors::Cancelled("Recv operation was cancelled"));
        done();
        return;
      }
    }
    ctx->rendezvous()->RecvAsync(
        key_, [this, ctx, cancellation, token, registered, guard,
               done = std::move(done)](const Status& s, const Tensor& value,
                                       bool is_dead) {
          {
            std::lock_guard<std::recursive_mutex> lock(guard->mu);
            guard->finished = true;
          }
          if (registered) cancellation->DeregisterCallback(token);
          if (!s.ok()) {
            ctx->SetStatus(s);
          } else if (value.dtype() != dtype_) {
            ctx->SetStatus(
                errors::Internal("received a ", DataTypeName(value.dtype()),
                                 " tensor, expected ", DataTypeName(dtype_)));
          } else {
            ctx->set_output(0, value);
          }
          done();
        });
  }

 private:
  std::string key_;
  DataType dtype_;
};

REGISTER_KERNEL(KernelDef("_Send"), SendOp);
REGISTER_KERNEL(KernelDef("_Recv"), RecvOp);

}  // namespace
}  // namespace tensorweave
