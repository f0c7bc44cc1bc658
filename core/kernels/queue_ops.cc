// Kernels of the queue ops (core/ops/queue_ops.cc). The queue itself is a
// resource of the session (core/kernels/queue_base.h); enqueue and dequeue
// are asynchronous kernels that finish when the queue serves them, so a
// waiting step holds no thread.
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/framework/op_kernel.h"
#include "core/kernels/queue_base.h"
#include "core/kernels/session_resource_handle.h"

namespace tensorweave {
namespace {

Status GetQueue(OpKernelContext* ctx, std::shared_ptr<QueueBase>* queue) {
  std::string container, name;
  TW_RETURN_IF_ERROR(
      DecodeSessionResourceHandle(ctx->input(0), "a queue", &container, &name));
  return ctx->resource_mgr()->Lookup(container, name, queue);
}

// The ops that create a queue: the first step creates it (or finds the one
// of the same shared_name) and every step outputs its handle.
class QueueOp : public OpKernel {
 public:
  explicit QueueOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("component_types", &types_));
    ctx->SetStatus(ctx->GetAttr("shapes", &shapes_));
    ctx->SetStatus(ctx->GetAttr("capacity", &capacity_));
    ctx->SetStatus(ctx->GetAttr("container", &container_));
    ctx->SetStatus(ctx->GetAttr("shared_name", &shared_name_));
    if (!shapes_.empty() && shapes_.size() != types_.size()) {
      ctx->SetStatus(errors::InvalidArgument(
          "Shapes must be provided for all components, but received ",
          types_.size(), " dtypes and ", shapes_.size(), " shapes."));
    }
    if (capacity_ == 0) {
      ctx->SetStatus(errors::InvalidArgument(
          "capacity must be positive (or negative: unbounded), got 0"));
    }
    // TensorFlow's queues take int32 attrs (a larger one was accepted here).
    CheckInt32(ctx, "capacity", capacity_);
  }

  static void CheckInt32(OpKernelConstruction* ctx, const char* attr,
                         int64_t value) {
    if (value < std::numeric_limits<int32_t>::min() ||
        value > std::numeric_limits<int32_t>::max()) {
      ctx->SetStatus(errors::InvalidArgument(
          "Attr ", attr, " has value ", value, " out of range for an int32"));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (handle_.empty()) {
      const std::string name =
          !shared_name_.empty()
              ? shared_name_
              : "_" + std::to_string(ctx->resource_mgr()->GenerateUniqueId()) +
                    "_" + this->name();
      std::shared_ptr<QueueBase> created;
      OP_REQUIRES_OK(ctx, Create(name, &created));
      std::shared_ptr<QueueBase> queue;
      OP_REQUIRES_OK(ctx, ctx->resource_mgr()->LookupOrCreate<QueueBase>(
                              container_, name,
                              [&](std::shared_ptr<QueueBase>* out) {
                                *out = created;
                                return Status::OK();
                              },
                              &queue));
      OP_REQUIRES_OK(ctx, queue->MatchesDefinition(*created));
      handle_ = EncodeSessionResourceHandle(container_, name);
    }
    ctx->set_output(0, Tensor::Scalar<std::string>(handle_));
  }

 protected:
  virtual Status Create(const std::string& name,
                        std::shared_ptr<QueueBase>* queue) = 0;

  std::vector<DataType> types_;
  std::vector<PartialShape> shapes_;
  int64_t capacity_ = -1;

 private:
  std::string container_, shared_name_;
  std::mutex mu_;
  std::string handle_;
};

Status CheckShapesKnownRank(const std::vector<PartialShape>& shapes,
                            const char* kind) {
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (!shapes[i].known_rank()) {
      return errors::InvalidArgument(kind, " requires the rank of shape ", i,
                                     " to be known");
    }
  }
  return Status::OK();
}

class FIFOQueueOp : public QueueOp {
 public:
  using QueueOp::QueueOp;
  Status Create(const std::string& name,
                std::shared_ptr<QueueBase>* queue) override {
    *queue = std::make_shared<FIFOQueue>("FIFOQueue", name, capacity_, types_,
                                         shapes_);
    return Status::OK();
  }
};

class PaddingFIFOQueueOp : public QueueOp {
 public:
  using QueueOp::QueueOp;
  Status Create(const std::string& name,
                std::shared_ptr<QueueBase>* queue) override {
    if (shapes_.size() != types_.size()) {
      return errors::InvalidArgument(
          "PaddingFIFOQueue needs a shape per component: ", types_.size(),
          " dtypes and ", shapes_.size(), " shapes");
    }
    TW_RETURN_IF_ERROR(CheckShapesKnownRank(shapes_, "PaddingFIFOQueue"));
    *queue = std::make_shared<PaddingFIFOQueue>("PaddingFIFOQueue", name,
                                                capacity_, types_, shapes_);
    return Status::OK();
  }
};

class RandomShuffleQueueOp : public QueueOp {
 public:
  explicit RandomShuffleQueueOp(OpKernelConstruction* ctx) : QueueOp(ctx) {
    ctx->SetStatus(ctx->GetAttr("min_after_dequeue", &min_after_dequeue_));
    ctx->SetStatus(ctx->GetAttr("seed", &seed_));
    ctx->SetStatus(ctx->GetAttr("seed2", &seed2_));
    CheckInt32(ctx, "min_after_dequeue", min_after_dequeue_);
    if (min_after_dequeue_ < 0) {
      ctx->SetStatus(errors::InvalidArgument(
          "min_after_dequeue must be >= 0, got ", min_after_dequeue_));
    } else if (capacity_ >= 0 && min_after_dequeue_ >= capacity_) {
      ctx->SetStatus(errors::InvalidArgument(
          "Capacity (", capacity_, ") must be larger than min_after_dequeue (",
          min_after_dequeue_, ")"));
    }
  }
  Status Create(const std::string& name,
                std::shared_ptr<QueueBase>* queue) override {
    *queue = std::make_shared<RandomShuffleQueue>(
        name, capacity_, min_after_dequeue_, seed_, seed2_, types_, shapes_);
    return Status::OK();
  }

 private:
  int64_t min_after_dequeue_ = 0, seed_ = 0, seed2_ = 0;
};

class PriorityQueueOp : public QueueOp {
 public:
  using QueueOp::QueueOp;
  Status Create(const std::string& name,
                std::shared_ptr<QueueBase>* queue) override {
    // The priority is component 0, an int64 scalar.
    std::vector<DataType> types = {DT_INT64};
    types.insert(types.end(), types_.begin(), types_.end());
    std::vector<PartialShape> shapes = {PartialShape({})};
    for (size_t i = 0; i < types_.size(); ++i) {
      shapes.push_back(shapes_.empty() ? PartialShape::UnknownRank()
                                       : shapes_[i]);
    }
    *queue = std::make_shared<PriorityQueue>("PriorityQueue", name, capacity_,
                                             types, shapes);
    return Status::OK();
  }
};

class EnqueueOp : public AsyncOpKernel {
 public:
  EnqueueOp(OpKernelConstruction* ctx, bool many)
      : AsyncOpKernel(ctx), many_(many) {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<QueueBase> queue;
    std::vector<QueueBase::Tuple> elements;
    Status s = GetQueue(ctx, &queue);
    if (s.ok()) {
      QueueBase::Tuple tuple;
      for (int i = 1; i < ctx->num_inputs(); ++i)
        tuple.push_back(ctx->input(i));
      s = queue->SplitElements(tuple, many_, &elements);
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      done();
      return;
    }
    queue->TryEnqueue(std::move(elements), ctx->cancellation_manager(),
                      [ctx, done = std::move(done)](const Status& status) {
                        ctx->SetStatus(status);
                        done();
                      });
  }

 private:
  const bool many_;
};

class QueueEnqueueOp : public EnqueueOp {
 public:
  explicit QueueEnqueueOp(OpKernelConstruction* ctx) : EnqueueOp(ctx, false) {}
};
class QueueEnqueueManyOp : public EnqueueOp {
 public:
  explicit QueueEnqueueManyOp(OpKernelConstruction* ctx)
      : EnqueueOp(ctx, true) {}
};

// Dequeue (kind 0), DequeueMany (1), DequeueUpTo (2).
class DequeueOp : public AsyncOpKernel {
 public:
  DequeueOp(OpKernelConstruction* ctx, int kind)
      : AsyncOpKernel(ctx), kind_(kind) {
    ctx->SetStatus(ctx->GetAttr("component_types", &types_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<QueueBase> queue;
    Status s = GetQueue(ctx, &queue);
    int64_t n = 1;
    if (s.ok() && queue->component_types() != types_) {
      s = errors::InvalidArgument(
          "the op's component_types do not match those of ",
          queue->DebugString(), " '", queue->name(), "' (", types_.size(),
          " and ", queue->component_types().size(), " components)");
    }
    if (s.ok() && kind_ != 0) {
      const Tensor& count = ctx->input(1);
      if (count.dtype() != DT_INT32 || count.num_elements() != 1) {
        s = errors::InvalidArgument("n must be an int32 scalar, got ",
                                    count.shape().ToString());
      } else {
        n = count.data<int32_t>()[0];
        if (n < 0) {
          s = errors::InvalidArgument(type_string(), " requested ", n,
                                      " < 0 elements");
        } else {
          s = queue->CanDequeueMany();
        }
      }
    }
    if (!s.ok()) {
      ctx->SetStatus(s);
      done();
      return;
    }
    queue->TryDequeue(n, kind_ != 0, kind_ == 2, ctx->cancellation_manager(),
                      [ctx, done = std::move(done)](
                          const Status& status, const QueueBase::Tuple& tuple) {
                        ctx->SetStatus(status);
                        if (status.ok()) {
                          for (size_t i = 0; i < tuple.size(); ++i) {
                            ctx->set_output(static_cast<int>(i), tuple[i]);
                          }
                        }
                        done();
                      });
  }

 private:
  const int kind_;
  std::vector<DataType> types_;
};

class QueueDequeueOp : public DequeueOp {
 public:
  explicit QueueDequeueOp(OpKernelConstruction* ctx) : DequeueOp(ctx, 0) {}
};
class QueueDequeueManyOp : public DequeueOp {
 public:
  explicit QueueDequeueManyOp(OpKernelConstruction* ctx) : DequeueOp(ctx, 1) {}
};
class QueueDequeueUpToOp : public DequeueOp {
 public:
  explicit QueueDequeueUpToOp(OpKernelConstruction* ctx) : DequeueOp(ctx, 2) {}
};

class QueueCloseOp : public OpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(
        ctx->GetAttr("cancel_pending_enqueues", &cancel_pending_enqueues_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK(ctx, GetQueue(ctx, &queue));
    queue->Close(cancel_pending_enqueues_);
  }

 private:
  bool cancel_pending_enqueues_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK(ctx, GetQueue(ctx, &queue));
    ctx->set_output(
        0, Tensor::Scalar<int32_t>(static_cast<int32_t>(queue->size())));
  }
};

class QueueIsClosedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK(ctx, GetQueue(ctx, &queue));
    ctx->set_output(0, Tensor::Scalar<bool>(queue->is_closed()));
  }
};

REGISTER_KERNEL(KernelDef("FIFOQueueV2"), FIFOQueueOp);
REGISTER_KERNEL(KernelDef("PaddingFIFOQueueV2"), PaddingFIFOQueueOp);
REGISTER_KERNEL(KernelDef("RandomShuffleQueueV2"), RandomShuffleQueueOp);
REGISTER_KERNEL(KernelDef("PriorityQueueV2"), PriorityQueueOp);
REGISTER_KERNEL(KernelDef("QueueEnqueueV2"), QueueEnqueueOp);
REGISTER_KERNEL(KernelDef("QueueEnqueueManyV2"), QueueEnqueueManyOp);
REGISTER_KERNEL(KernelDef("QueueDequeueV2"), QueueDequeueOp);
REGISTER_KERNEL(KernelDef("QueueDequeueManyV2"), QueueDequeueManyOp);
REGISTER_KERNEL(KernelDef("QueueDequeueUpToV2"), QueueDequeueUpToOp);
REGISTER_KERNEL(KernelDef("QueueCloseV2"), QueueCloseOp);
REGISTER_KERNEL(KernelDef("QueueSizeV2"), QueueSizeOp);
REGISTER_KERNEL(KernelDef("QueueIsClosedV2"), QueueIsClosedOp);

}  // namespace
}  // namespace tensorweave
