// Kernels of MutexV2, MutexLock and ConsumeMutexLock (core/ops/session_ops.cc),
// what tf.CriticalSection builds on. The mutex is a resource of the session;
// MutexLock is asynchronous: a step that waits for the mutex holds no thread,
// and the lock it outputs is a handle tensor (core/kernels/handle_resource.h)
// whose last copy, when dropped, releases the mutex to the next waiter.
#include <list>
#include <memory>
#include <mutex>
#include <string>

#include "core/framework/cancellation.h"
#include "core/framework/op_kernel.h"
#include "core/kernels/handle_resource.h"
#include "core/kernels/session_resource_handle.h"

namespace tensorweave {
namespace {

class Mutex : public ResourceBase, public std::enable_shared_from_this<Mutex> {
 public:
  using Done = std::function<void(const Status&)>;

  explicit Mutex(std::string name) : name_(std::move(name)) {}
  std::string DebugString() const override { return "Mutex"; }

  // Calls `done` with OK once the mutex is the caller's (at once when it is
  // free; waiters are served first come, first served), or with Cancelled
  // when `cancellation` (nullable) cancels the step first.
  void Acquire(CancellationManager* cancellation, Done done) {
    Status status;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!locked_) {
        locked_ = true;
      } else {
        Waiter waiter{next_waiter_id_++, cancellation, 0, false, done};
        if (cancellation != nullptr) {
          std::weak_ptr<Mutex> self = shared_from_this();
          const int64_t id = waiter.id;
          waiter.registered =
              cancellation->RegisterCallback(&waiter.token, [self, id] {
                if (auto mutex = self.lock()) mutex->Cancel(id);
              });
          if (!waiter.registered) status = Cancelled();
        }
        if (status.ok()) {
          waiters_.push_back(std::move(waiter));
          return;
        }
      }
    }
    done(status);
  }

  // Hands the mutex to the first waiter, or frees it.
  void Release() {
    Waiter next;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (waiters_.empty()) {
        locked_ = false;
        return;
      }
      next = std::move(waiters_.front());
      waiters_.pop_front();
    }
    // A cancellation callback already running finds no waiter and does
    // nothing.
    if (next.registered) next.cancellation->DeregisterCallback(next.token);
    next.done(Status::OK());
  }

 private:
  struct Waiter {
    int64_t id = 0;
    CancellationManager* cancellation = nullptr;
    CancellationManager::Token token = 0;
    bool registered = false;
    Done done;
  };

  Status Cancelled() const {
    return errors::Cancelled("MutexLock of mutex '", name_,
                             "' was cancelled while waiting for the mutex");
  }

  void Cancel(int64_t id) {
    Done done;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
        if (it->id == id) {
          done = std::move(it->done);
          waiters_.erase(it);
          break;
        }
      }
    }
    if (done) done(Cancelled());
  }

  const std::string name_;
  std::mutex mu_;
  bool locked_ = false;
  int64_t next_waiter_id_ = 0;
  std::list<Waiter> waiters_;
};

// What a lock tensor owns: the mutex, released when the last copy goes.
class HeldMutex {
 public:
  explicit HeldMutex(std::shared_ptr<Mutex> mutex) : mutex_(std::move(mutex)) {}
  ~HeldMutex() { mutex_->Release(); }
  HeldMutex(const HeldMutex&) = delete;
  HeldMutex& operator=(const HeldMutex&) = delete;

 private:
  std::shared_ptr<Mutex> mutex_;
};

using LockRegistry = HandleRegistry<HeldMutex>;

// Creates the mutex in the first step (or finds the one of the same
// shared_name) and outputs its handle in every step.
class MutexV2Op : public OpKernel {
 public:
  explicit MutexV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
  }

  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_.empty()) {
      OP_REQUIRES(ctx, ctx->resource_mgr() != nullptr,
                  errors::FailedPrecondition(
                      "a mutex needs a session (no resource manager)"));
      const std::string name =
          !shared_name_.empty()
              ? shared_name_
              : StrCat("_", ctx->resource_mgr()->GenerateUniqueId(), "_",
                       this->name());
      std::shared_ptr<Mutex> mutex;
      OP_REQUIRES_OK(ctx, ctx->resource_mgr()->LookupOrCreate<Mutex>(
                              container_, name,
                              [&](std::shared_ptr<Mutex>* out) {
                                *out = std::make_shared<Mutex>(name);
                                return Status::OK();
                              },
                              &mutex));
      handle_ = EncodeSessionResourceHandle(container_, name);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(handle_));
  }

 private:
  std::string container_, shared_name_;
  std::mutex mu_;
  std::string handle_;
};

class MutexLockOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::string container, name;
    Status s = DecodeSessionResourceHandle(ctx->input(0), "a mutex", &container,
                                           &name);
    std::shared_ptr<Mutex> mutex;
    if (s.ok() && ctx->resource_mgr() == nullptr) {
      s = errors::FailedPrecondition("MutexLock needs a session");
    }
    if (s.ok()) s = ctx->resource_mgr()->Lookup(container, name, &mutex);
    if (!s.ok()) {
      ctx->SetStatus(s);
      done();
      return;
    }
    mutex->Acquire(
        ctx->cancellation_manager(),
        [ctx, mutex, done = std::move(done)](const Status& status) {
          if (status.ok()) {
            ctx->set_output(
                0, LockRegistry::Global()->Create(
                       "mutex_lock", std::make_shared<HeldMutex>(mutex)));
          } else {
            ctx->SetStatus(status);
          }
          done();
        });
  }
};

class ConsumeMutexLockOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<HeldMutex> held;
    Status s =
        LockRegistry::Global()->Lookup(ctx->input(0), "mutex lock", &held);
    if (!s.ok()) {
      ctx->SetStatus(errors::InvalidArgument(
          "Expected input to be a mutex lock made by MutexLock in this "
          "step: ",
          s.message()));
    }
  }
};

REGISTER_KERNEL(KernelDef("MutexV2"), MutexV2Op);
REGISTER_KERNEL(KernelDef("MutexLock"), MutexLockOp);
REGISTER_KERNEL(KernelDef("ConsumeMutexLock"), ConsumeMutexLockOp);

}  // namespace
}  // namespace tensorweave
