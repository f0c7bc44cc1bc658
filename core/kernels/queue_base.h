// Queues (TensorFlow's FIFOQueue, RandomShuffleQueue, PaddingFIFOQueue,
// PriorityQueue): a session resource holding elements (tuples of tensors)
// that steps enqueue and dequeue. An enqueue into a full queue and a dequeue
// from one with too few elements wait as *attempts*, without holding a
// thread: each later enqueue, dequeue or close serves the waiting attempts in
// order, and a step's cancellation (its timeout, Session::Close) fails them.
#ifndef TENSORWEAVE_CORE_KERNELS_QUEUE_BASE_H_
#define TENSORWEAVE_CORE_KERNELS_QUEUE_BASE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "core/framework/cancellation.h"
#include "core/framework/resource.h"
#include "core/framework/tensor.h"

namespace tensorweave {

class QueueBase : public ResourceBase,
                  public std::enable_shared_from_this<QueueBase> {
 public:
  using Tuple = std::vector<Tensor>;  // one element: a tensor per component
  using EnqueueDone = std::function<void(const Status&)>;
  using DequeueDone = std::function<void(const Status&, const Tuple& batch)>;

  // `kind` names the queue's class in errors ("FIFOQueue"); `name` is its
  // resource name ("_0_fifo_queue" or the shared_name). A capacity < 0 is
  // unbounded. `shapes` is empty (any shapes) or one per component.
  QueueBase(std::string kind, std::string name, int64_t capacity,
            std::vector<DataType> types, std::vector<PartialShape> shapes);
  ~QueueBase() override = default;
  std::string DebugString() const override { return kind_; }

  const std::string& name() const { return name_; }
  const std::vector<DataType>& component_types() const { return types_; }
  const std::vector<PartialShape>& component_shapes() const { return shapes_; }
  // The same kind, dtypes and shapes (a shared_name asked for again).
  Status MatchesDefinition(const QueueBase& other) const;

  // Checks one element (`many`: a batch of elements, split along dim 0) and
  // splits it into elements.
  Status SplitElements(const Tuple& tuple, bool many,
                       std::vector<Tuple>* elements) const;

  // Enqueues `elements` in order, waiting for room as needed; `done` gets
  // OK, Cancelled when the queue is (or becomes, with
  // cancel_pending_enqueues) closed, or Cancelled when `cancellation`
  // (nullable) cancels the step.
  void TryEnqueue(std::vector<Tuple> elements,
                  CancellationManager* cancellation, EnqueueDone done);
  // Dequeues `n` elements (`many`: as a batch along a new dim 0, else one
  // element of n == 1), waiting for them; when the queue is closed with
  // fewer, `allow_small` takes what there is (at least one), else
  // OutOfRange with TensorFlow's message.
  void TryDequeue(int64_t n, bool many, bool allow_small,
                  CancellationManager* cancellation, DequeueDone done);
  void Close(bool cancel_pending_enqueues);
  int64_t size();
  bool is_closed();
  // DequeueMany/DequeueUpTo on this queue: InvalidArgument where the
  // component shapes do not allow batching.
  virtual Status CanDequeueMany() const;

 protected:
  // The elements, under mu_.
  virtual int64_t SizeLocked() const = 0;
  virtual void PushLocked(Tuple element) = 0;
  virtual Tuple PopLocked() = 0;
  // Puts back an element popped by an attempt that then failed.
  virtual void RestoreLocked(Tuple element) = 0;
  // Elements that must stay after a dequeue while the queue is open.
  virtual int64_t MinAfterDequeue() const { return 0; }
  // Stacks elements along a new dim 0 (the padding queue pads first).
  virtual Status Batch(const std::vector<Tuple>& elements, Tuple* out) const;
  Status CheckElementShape(int component, const TensorShape& shape,
                           bool many) const;

  const std::string kind_;
  const std::string name_;
  const int64_t capacity_;
  const std::vector<DataType> types_;
  const std::vector<PartialShape> shapes_;

 private:
  struct Attempt {
    int64_t id = 0;
    CancellationManager* cancellation = nullptr;
    CancellationManager::Token token = 0;
    bool registered = false;
    // Enqueue:
    std::vector<Tuple> elements;
    size_t next = 0;
    EnqueueDone enqueue_done;
    // Dequeue:
    int64_t requested = 0;
    bool many = false;
    bool allow_small = false;
    std::vector<Tuple> taken;
    DequeueDone dequeue_done;
  };
  using Completions = std::vector<std::function<void()>>;
  // Registers the attempt's cancellation; false when the step is already
  // cancelled.
  bool RegisterLocked(const std::shared_ptr<Attempt>& attempt, bool is_enqueue);
  void Cancel(int64_t id, bool is_enqueue);
  // Serves the waiting attempts as far as the elements allow; what they
  // report is added to `done`, run once mu_ is released.
  void FlushLocked(Completions* done);
  void FinishEnqueue(const std::shared_ptr<Attempt>& attempt,
                     const Status& status, Completions* done);
  void FinishDequeue(const std::shared_ptr<Attempt>& attempt,
                     const Status& status, Completions* done);
  static void Run(Completions* done) {
    for (auto& fn : *done) fn();
  }

  std::mutex mu_;
  bool closed_ = false;
  int64_t next_attempt_id_ = 0;
  std::list<std::shared_ptr<Attempt>> enqueue_attempts_;
  std::list<std::shared_ptr<Attempt>> dequeue_attempts_;
};

// Elements in arrival order.
class FIFOQueue : public QueueBase {
 public:
  using QueueBase::QueueBase;
  Status CanDequeueMany() const override;

 protected:
  int64_t SizeLocked() const override { return queue_.size(); }
  void PushLocked(Tuple element) override {
    queue_.push_back(std::move(element));
  }
  Tuple PopLocked() override;
  void RestoreLocked(Tuple element) override {
    queue_.push_front(std::move(element));
  }

 private:
  std::deque<Tuple> queue_;
};

// FIFO whose components may vary in the dims declared unknown (-1); a batch
// pads each component with zeros (empty strings) to the largest element.
class PaddingFIFOQueue : public FIFOQueue {
 public:
  using FIFOQueue::FIFOQueue;
  Status CanDequeueMany() const override { return Status::OK(); }

 protected:
  Status Batch(const std::vector<Tuple>& elements, Tuple* out) const override;
};

// Dequeues a uniformly random element; while open, keeps at least
// min_after_dequeue elements.
class RandomShuffleQueue : public QueueBase {
 public:
  RandomShuffleQueue(std::string name, int64_t capacity,
                     int64_t min_after_dequeue, int64_t seed, int64_t seed2,
                     std::vector<DataType> types,
                     std::vector<PartialShape> shapes);
  Status CanDequeueMany() const override;

 protected:
  int64_t SizeLocked() const override { return elements_.size(); }
  void PushLocked(Tuple element) override {
    elements_.push_back(std::move(element));
  }
  Tuple PopLocked() override;
  void RestoreLocked(Tuple element) override {
    elements_.push_back(std::move(element));
  }
  int64_t MinAfterDequeue() const override { return min_after_dequeue_; }

 private:
  const int64_t min_after_dequeue_;
  std::mt19937_64 generator_;
  std::vector<Tuple> elements_;
};

// Component 0 is an int64 scalar priority; the smallest comes out first
// (ties in arrival order).
class PriorityQueue : public QueueBase {
 public:
  using QueueBase::QueueBase;
  Status CanDequeueMany() const override;

 protected:
  int64_t SizeLocked() const override { return heap_.size(); }
  void PushLocked(Tuple element) override;
  Tuple PopLocked() override;
  void RestoreLocked(Tuple element) override;

 private:
  struct Entry {
    int64_t priority;
    int64_t order;
    Tuple element;
  };
  int64_t next_order_ = 0;
  int64_t restored_order_ = -1;  // restored elements go before their equals
  std::vector<Entry> heap_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_KERNELS_QUEUE_BASE_H_
