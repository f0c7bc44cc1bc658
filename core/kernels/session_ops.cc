// Kernels of the session tensor ops (core/ops/session_ops.cc): tensors a step
// leaves in the session, by handle, for later steps. They live in one store
// per session, a resource of its ResourceMgr under a container of its own,
// until DeleteSessionTensor or the session's end.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// The device named in handles. The store is the session's, so a handle is
// readable from any of its devices; TensorFlow's handles name one, which
// tf.get_session_tensor places its reader on.
constexpr char kHandleDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";

class SessionTensorStore : public ResourceBase {
 public:
  std::string DebugString() const override { return "SessionTensorStore"; }

  // Keeps `value` and returns its new handle: TensorFlow's text,
  // '<node name>;<id>;<device>', with ids 0, 1, ... in the session.
  std::string Add(const std::string& node_name, Tensor value) {
    std::lock_guard<std::mutex> lock(mu_);
    std::string handle = StrCat(node_name, ";", next_id_++, ";", kHandleDevice);
    tensors_[handle] = std::move(value);
    return handle;
  }

  Status Get(const std::string& handle, Tensor* value) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tensors_.find(handle);
    if (it == tensors_.end()) {
      return errors::InvalidArgument("The tensor with handle '", handle,
                                     "' is not in the session store.");
    }
    *value = it->second;
    return Status::OK();
  }

  Status Delete(const std::string& handle) {
    Tensor doomed;  // freed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tensors_.find(handle);
    if (it == tensors_.end()) {
      return errors::InvalidArgument("Failed to delete a tensor with handle '",
                                     handle, "' in the session store.");
    }
    doomed = std::move(it->second);
    tensors_.erase(it);
    return Status::OK();
  }

 private:
  std::mutex mu_;
  int64_t next_id_ = 0;
  std::map<std::string, Tensor> tensors_;
};

Status GetStore(OpKernelContext* ctx,
                std::shared_ptr<SessionTensorStore>* store) {
  if (ctx->resource_mgr() == nullptr) {
    return errors::FailedPrecondition(
        "session tensors need a session (no resource manager)");
  }
  return ctx->resource_mgr()->LookupOrCreate<SessionTensorStore>(
      "_session_tensors", "store",
      [](std::shared_ptr<SessionTensorStore>* out) {
        *out = std::make_shared<SessionTensorStore>();
        return Status::OK();
      },
      store);
}

Status GetHandle(OpKernelContext* ctx, std::string* handle) {
  const Tensor& t = ctx->input(0);
  if (t.dtype() != DT_STRING || t.shape().rank() != 0) {
    return errors::InvalidArgument(
        "a session tensor handle must be a string scalar, got ",
        DataTypeName(t.dtype()), " ", t.shape().ToString());
  }
  *handle = t.data<std::string>()[0];
  return Status::OK();
}

class GetSessionHandleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<SessionTensorStore> store;
    OP_REQUIRES_OK(ctx, GetStore(ctx, &store));
    ctx->set_output(
        0, Tensor::Scalar<std::string>(store->Add(name(), ctx->input(0))));
  }
};

class GetSessionTensorOp : public OpKernel {
 public:
  explicit GetSessionTensorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::string handle;
    OP_REQUIRES_OK(ctx, GetHandle(ctx, &handle));
    std::shared_ptr<SessionTensorStore> store;
    OP_REQUIRES_OK(ctx, GetStore(ctx, &store));
    Tensor value;
    OP_REQUIRES_OK(ctx, store->Get(handle, &value));
    OP_REQUIRES(
        ctx, value.dtype() == dtype_,
        errors::Internal(
            "Output 0 of type ", DataTypeName(value.dtype()),
            " does not match declared output type ", DataTypeName(dtype_),
            ": the tensor with "
            "handle '",
            handle, "' is a ", DataTypeName(value.dtype()), " tensor"));
    ctx->set_output(0, std::move(value));
  }

 private:
  DataType dtype_ = DT_INVALID;
};

class DeleteSessionTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string handle;
    OP_REQUIRES_OK(ctx, GetHandle(ctx, &handle));
    std::shared_ptr<SessionTensorStore> store;
    OP_REQUIRES_OK(ctx, GetStore(ctx, &store));
    OP_REQUIRES_OK(ctx, store->Delete(handle));
  }
};

REGISTER_KERNEL(KernelDef("GetSessionHandle"), GetSessionHandleOp);
REGISTER_KERNEL(KernelDef("GetSessionHandleV2"), GetSessionHandleOp);
REGISTER_KERNEL(KernelDef("GetSessionTensor"), GetSessionTensorOp);
REGISTER_KERNEL(KernelDef("DeleteSessionTensor"), DeleteSessionTensorOp);

}  // namespace
}  // namespace tensorweave
