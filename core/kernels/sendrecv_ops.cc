// _Send and _Recv: a tensor crossing a device boundary through the step's
// rendezvous. The key is built once, when the kernel is (inside a loop the
// executor hands the kernel a view of the rendezvous whose keys name the
// frame and iteration). Dead tensors cross too: the executor runs a _Send
// whose input is dead with that input unset, and the _Send sends an empty
// tensor marked dead; a _Recv that receives one leaves its output unset,
// which the executor takes as dead. The rendezvous
// carries host tensors: on a device with memory of its own (a GPU, where
// the same kernels are registered) the device copies the value out before
// sending and in after receiving (DeviceBase::TransferOut / TransferIn),
// unless partitioning marked it host_memory.
#include "core/kernels/sendrecv_ops.h"

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

// The optional host_memory attr (false when absent: graphs from before it).
bool HostMemoryAttr(OpKernelConstruction* ctx) {
  bool host_memory = false;
  if (ctx->node().attrs().count("host_memory") > 0) {
    ctx->SetStatus(ctx->GetAttr("host_memory", &host_memory));
  }
  return host_memory;
}

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx)
      : OpKernel(ctx), host_memory_(HostMemoryAttr(ctx)) {
    ctx->SetStatus(RendezvousKey(ctx, &key_));
    ctx->SetStatus(ctx->GetAttr("T", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->rendezvous() != nullptr, NoRendezvous(*ctx));
    if (!ctx->input(0).valid()) {  // dead
      OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(
                              key_, Tensor(dtype_, TensorShape({0})), true));
      return;
    }
    Tensor host;
    OP_REQUIRES_OK(ctx, ctx->device()->TransferOut(key_, host_memory_,
                                                   ctx->input(0), &host));
    OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(key_, host, false));
  }

 private:
  std::string key_;
  DataType dtype_ = DT_FLOAT;
  const bool host_memory_;
};

// Whether a receive has finished, for its cancellation callback.
struct RecvGuard {
  std::recursive_mutex mu;
  bool finished = false;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx)
      : AsyncOpKernel(ctx), host_memory_(HostMemoryAttr(ctx)) {
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
          } else if (is_dead) {
            // The output stays unset: dead.
          } else if (value.dtype() != dtype_) {
            ctx->SetStatus(
                errors::Internal("received a ", DataTypeName(value.dtype()),
                                 " tensor, expected ", DataTypeName(dtype_)));
          } else {
            Tensor out;
            Status moved =
                ctx->device()->TransferIn(key_, host_memory_, value, &out);
            if (moved.ok()) {
              ctx->set_output(0, std::move(out));
            } else {
              ctx->SetStatus(moved);
            }
          }
          done();
        });
  }

 private:
  std::string key_;
  DataType dtype_;
  const bool host_memory_;
};

REGISTER_KERNEL(KernelDef("_Send"), SendOp);
REGISTER_KERNEL(KernelDef("_Recv"), RecvOp);
// The GPU's: the same kernels, the device moves the values (GPU devices
// exist only when the GPU library is loaded).
REGISTER_KERNEL(KernelDef("_Send").Device("GPU"), SendOp);
REGISTER_KERNEL(KernelDef("_Recv").Device("GPU"), RecvOp);

}  // namespace

void RegisterSendRecvKernels(const std::string& device_type) {
  KernelRegistry::Global()->Register(
      KernelDef("_Send").Device(device_type),
      [](OpKernelConstruction* c) { return std::make_unique<SendOp>(c); });
  KernelRegistry::Global()->Register(
      KernelDef("_Recv").Device(device_type),
      [](OpKernelConstruction* c) { return std::make_unique<RecvOp>(c); });
}
}  // namespace tensorweave
