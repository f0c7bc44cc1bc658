#include "core/kernels/queue_base.h"

#include <algorithm>
#include <cstring>

namespace tensorweave {

namespace {

// Copies `src` (one element) into row `row` of `dst` ([n] + shape), padding
// each dimension of `src` up to `dst`'s (the padding already filled).
void CopyIntoRow(const Tensor& src, Tensor* dst, int64_t row) {
  const int rank = src.rank();
  const std::vector<int64_t>& sdims = src.shape().dims();
  std::vector<int64_t> ddims(dst->shape().dims().begin() + 1,
                             dst->shape().dims().end());
  int64_t row_size = 1;
  for (int64_t d : ddims) row_size *= d;
  if (src.num_elements() == 0) return;
  const bool strings = src.dtype() == DT_STRING;
  const size_t esize = DataTypeSize(src.dtype());
  // Contiguous runs: the last dim of src, placed at each index of the
  // leading dims.
  const int64_t run = rank == 0 ? 1 : sdims[rank - 1];
  const int64_t runs = run == 0 ? 0 : src.num_elements() / run;
  std::vector<int64_t> index(std::max(rank - 1, 0), 0);
  for (int64_t r = 0; r < runs; ++r) {
    int64_t offset = 0;
    for (int i = 0; i < rank - 1; ++i) offset = offset * ddims[i] + index[i];
    if (rank > 0) offset *= ddims[rank - 1];
    const int64_t dst_at = row * row_size + offset;
    const int64_t src_at = r * run;
    if (strings) {
      for (int64_t k = 0; k < run; ++k) {
        dst->data<std::string>()[dst_at + k] =
            src.data<std::string>()[src_at + k];
      }
    } else {
      std::memcpy(static_cast<char*>(dst->raw_data()) + dst_at * esize,
                  static_cast<const char*>(src.raw_data()) + src_at * esize,
                  run * esize);
    }
    for (int i = rank - 2; i >= 0; --i) {  // next index of the leading dims
      if (++index[i] < sdims[i]) break;
      index[i] = 0;
    }
  }
}

void FillZero(Tensor* t) {
  if (t->dtype() == DT_STRING) {
    for (int64_t i = 0; i < t->num_elements(); ++i) {
      t->data<std::string>()[i].clear();
    }
  } else if (t->num_bytes() > 0) {
    std::memset(t->raw_data(), 0, t->num_bytes());
  }
}

// The elements' component `c` stacked along a new dim 0, each padded to
// `element_shape`.
Status Stack(const std::vector<QueueBase::Tuple>& elements, int c,
             DataType dtype, const TensorShape& element_shape, bool pad,
             Tensor* out) {
  std::vector<int64_t> dims = {static_cast<int64_t>(elements.size())};
  dims.insert(dims.end(), element_shape.dims().begin(),
              element_shape.dims().end());
  TensorShape shape;
  TW_RETURN_IF_ERROR(TensorShape::Build(dims, &shape));
  TW_RETURN_IF_ERROR(Tensor::Allocate(dtype, shape, out));
  if (pad) FillZero(out);
  for (size_t i = 0; i < elements.size(); ++i) {
    CopyIntoRow(elements[i][c], out, static_cast<int64_t>(i));
  }
  return Status::OK();
}

}  // namespace

QueueBase::QueueBase(std::string kind, std::string name, int64_t capacity,
                     std::vector<DataType> types,
                     std::vector<PartialShape> shapes)
    : kind_(std::move(kind)),
      name_(std::move(name)),
      capacity_(capacity),
      types_(std::move(types)),
      shapes_(std::move(shapes)) {}

Status QueueBase::MatchesDefinition(const QueueBase& other) const {
  if (kind_ != other.kind_) {
    return errors::InvalidArgument("Shared queue '", name_, "' is a ", kind_,
                                   ", asked for as a ", other.kind_);
  }
  if (capacity_ != other.capacity_) {
    return errors::InvalidArgument("Shared queue '", name_, "' has capacity ",
                                   capacity_, " but requested capacity was ",
                                   other.capacity_);
  }
  if (types_ != other.types_) {
    return errors::InvalidArgument("Shared queue '", name_,
                                   "' has other component types than "
                                   "requested");
  }
  if (shapes_ != other.shapes_) {
    return errors::InvalidArgument("Shared queue '", name_,
                                   "' has other component shapes than "
                                   "requested");
  }
  return Status::OK();
}

Status QueueBase::CheckElementShape(int component, const TensorShape& shape,
                                    bool many) const {
  if (shapes_.empty()) return Status::OK();
  const PartialShape& declared = shapes_[component];
  if (!declared.known_rank()) return Status::OK();
  std::vector<int64_t> want = declared.dims();
  if (many) want.insert(want.begin(), shape.rank() > 0 ? shape.dim(0) : -1);
  if (!PartialShape(want).IsCompatibleWith(shape)) {
    return errors::InvalidArgument(
        "Shape mismatch in tuple component ", component, ". Expected ",
        PartialShape(want).ToString(), ", got ", shape.ToString());
  }
  return Status::OK();
}

Status QueueBase::SplitElements(const Tuple& tuple, bool many,
                                std::vector<Tuple>* elements) const {
  if (tuple.size() != types_.size()) {
    return errors::InvalidArgument("Wrong number of components in tuple. ",
                                   "Expected ", types_.size(), ", got ",
                                   tuple.size());
  }
  for (size_t c = 0; c < tuple.size(); ++c) {
    if (tuple[c].dtype() != types_[c]) {
      return errors::InvalidArgument("Type mismatch in tuple component ", c,
                                     ". Expected ", DataTypeName(types_[c]),
                                     ", got ", DataTypeName(tuple[c].dtype()));
    }
    if (many && tuple[c].rank() == 0) {
      return errors::InvalidArgument(
          "Input tensor for component ", c,
          " of EnqueueMany must have at least one dimension (the batch), got "
          "a scalar");
    }
    TW_RETURN_IF_ERROR(
        CheckElementShape(static_cast<int>(c), tuple[c].shape(), many));
  }
  if (!many) {
    elements->push_back(tuple);
    return Status::OK();
  }
  const int64_t batch = tuple.empty() ? 0 : tuple[0].dim(0);
  for (size_t c = 1; c < tuple.size(); ++c) {
    if (tuple[c].dim(0) != batch) {
      return errors::InvalidArgument(
          "Expected all components of EnqueueMany to have the same size in "
          "dimension 0: component 0 has ",
          batch, ", component ", c, " has ", tuple[c].dim(0));
    }
  }
  for (int64_t i = 0; i < batch; ++i) {
    Tuple element;
    for (const Tensor& t : tuple) {
      std::vector<int64_t> dims(t.shape().dims().begin() + 1,
                                t.shape().dims().end());
      Tensor row;
      TW_RETURN_IF_ERROR(t.Slice(i, i + 1).Reshaped(TensorShape(dims), &row));
      // Its own buffer: the batch is not kept alive by one element.
      element.push_back(row.DeepCopy());
    }
    elements->push_back(std::move(element));
  }
  return Status::OK();
}

Status QueueBase::CanDequeueMany() const { return Status::OK(); }

Status QueueBase::Batch(const std::vector<Tuple>& elements, Tuple* out) const {
  out->resize(types_.size());
  for (size_t c = 0; c < types_.size(); ++c) {
    TensorShape shape;
    if (!elements.empty()) {
      shape = elements[0][c].shape();
    } else if (!shapes_.empty() && shapes_[c].IsFullyDefined()) {
      shape = TensorShape(shapes_[c].dims());
    }
    for (const Tuple& e : elements) {
      if (e[c].shape() != shape) {
        return errors::InvalidArgument(
            "Shape mismatch in tuple component ", c, " of a ", kind_,
            " batch: elements of shapes ", shape.ToString(), " and ",
            e[c].shape().ToString());
      }
    }
    TW_RETURN_IF_ERROR(Stack(elements, static_cast<int>(c), types_[c], shape,
                             false, &(*out)[c]));
  }
  return Status::OK();
}

bool QueueBase::RegisterLocked(const std::shared_ptr<Attempt>& attempt,
                               bool is_enqueue) {
  if (attempt->cancellation == nullptr) return true;
  std::weak_ptr<QueueBase> self = shared_from_this();
  const int64_t id = attempt->id;
  attempt->registered = attempt->cancellation->RegisterCallback(
      &attempt->token, [self, id, is_enqueue] {
        if (auto queue = self.lock()) queue->Cancel(id, is_enqueue);
      });
  return attempt->registered;
}

void QueueBase::FinishEnqueue(const std::shared_ptr<Attempt>& attempt,
                              const Status& status, Completions* done) {
  done->push_back([attempt, status] {
    if (attempt->registered) {
      attempt->cancellation->DeregisterCallback(attempt->token);
    }
    attempt->enqueue_done(status);
  });
}

void QueueBase::FinishDequeue(const std::shared_ptr<Attempt>& attempt,
                              const Status& status, Completions* done) {
  Tuple batch;
  Status s = status;
  if (s.ok()) {
    if (attempt->many) {
      s = Batch(attempt->taken, &batch);
    } else {
      batch = std::move(attempt->taken[0]);
    }
  }
  attempt->taken.clear();
  done->push_back([attempt, s, batch = std::move(batch)] {
    if (attempt->registered) {
      attempt->cancellation->DeregisterCallback(attempt->token);
    }
    attempt->dequeue_done(s, batch);
  });
}

void QueueBase::TryEnqueue(std::vector<Tuple> elements,
                           CancellationManager* cancellation,
                           EnqueueDone done) {
  auto attempt = std::make_shared<Attempt>();
  attempt->elements = std::move(elements);
  attempt->cancellation = cancellation;
  attempt->enqueue_done = std::move(done);
  Completions completions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    attempt->id = next_attempt_id_++;
    if (closed_) {
      FinishEnqueue(attempt,
                    errors::Cancelled(kind_, " '", name_, "' is closed."),
                    &completions);
    } else if (!RegisterLocked(attempt, true)) {
      FinishEnqueue(attempt,
                    errors::Cancelled("Enqueue operation was cancelled"),
                    &completions);
    } else {
      enqueue_attempts_.push_back(attempt);
      FlushLocked(&completions);
    }
  }
  Run(&completions);
}

void QueueBase::TryDequeue(int64_t n, bool many, bool allow_small,
                           CancellationManager* cancellation,
                           DequeueDone done) {
  auto attempt = std::make_shared<Attempt>();
  attempt->requested = n;
  attempt->many = many;
  attempt->allow_small = allow_small;
  attempt->cancellation = cancellation;
  attempt->dequeue_done = std::move(done);
  Completions completions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    attempt->id = next_attempt_id_++;
    if (!RegisterLocked(attempt, false)) {
      FinishDequeue(attempt,
                    errors::Cancelled("Dequeue operation was cancelled"),
                    &completions);
    } else {
      dequeue_attempts_.push_back(attempt);
      FlushLocked(&completions);
    }
  }
  Run(&completions);
}

void QueueBase::Cancel(int64_t id, bool is_enqueue) {
  Completions completions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto& attempts = is_enqueue ? enqueue_attempts_ : dequeue_attempts_;
    auto it = std::find_if(attempts.begin(), attempts.end(),
                           [id](const auto& a) { return a->id == id; });
    if (it == attempts.end()) return;  // finished meanwhile
    std::shared_ptr<Attempt> attempt = *it;
    attempts.erase(it);
    attempt->registered = false;  // its callback is the one running
    if (is_enqueue) {
      FinishEnqueue(attempt,
                    errors::Cancelled("Enqueue operation was cancelled"),
                    &completions);
    } else {
      // The elements it took go back: a cancelled step loses nothing.
      for (auto e = attempt->taken.rbegin(); e != attempt->taken.rend(); ++e) {
        RestoreLocked(std::move(*e));
      }
      attempt->taken.clear();
      FinishDequeue(attempt,
                    errors::Cancelled("Dequeue operation was cancelled"),
                    &completions);
    }
    FlushLocked(&completions);
  }
  Run(&completions);
}

void QueueBase::FlushLocked(Completions* done) {
  bool progress = true;
  while (progress) {
    progress = false;
    while (!enqueue_attempts_.empty()) {
      std::shared_ptr<Attempt> a = enqueue_attempts_.front();
      if (closed_) {
        enqueue_attempts_.pop_front();
        FinishEnqueue(a, errors::Cancelled(kind_, " '", name_, "' is closed."),
                      done);
        continue;
      }
      while (a->next < a->elements.size() &&
             (capacity_ < 0 || SizeLocked() < capacity_)) {
        PushLocked(std::move(a->elements[a->next++]));
        progress = true;
      }
      if (a->next < a->elements.size()) break;  // full: wait for room
      enqueue_attempts_.pop_front();
      FinishEnqueue(a, Status::OK(), done);
      progress = true;
    }
    while (!dequeue_attempts_.empty()) {
      std::shared_ptr<Attempt> a = dequeue_attempts_.front();
      const int64_t keep = closed_ ? 0 : MinAfterDequeue();
      while (static_cast<int64_t>(a->taken.size()) < a->requested &&
             SizeLocked() > keep) {
        a->taken.push_back(PopLocked());
        progress = true;
      }
      const int64_t taken = static_cast<int64_t>(a->taken.size());
      if (taken == a->requested) {
        dequeue_attempts_.pop_front();
        FinishDequeue(a, Status::OK(), done);
        progress = true;
      } else if (closed_ && a->allow_small && taken > 0) {
        dequeue_attempts_.pop_front();
        FinishDequeue(a, Status::OK(), done);
        progress = true;
      } else if (closed_) {
        dequeue_attempts_.pop_front();
        for (auto e = a->taken.rbegin(); e != a->taken.rend(); ++e) {
          RestoreLocked(std::move(*e));
        }
        a->taken.clear();
        FinishDequeue(a,
                      errors::OutOfRange(
                          kind_, " '", name_,
                          "' is closed and has insufficient elements "
                          "(requested ",
                          a->requested, ", current size ", SizeLocked(), ")"),
                      done);
      } else {
        break;  // waits for elements
      }
    }
  }
}

void QueueBase::Close(bool cancel_pending_enqueues) {
  Completions completions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancel_pending_enqueues) {
      for (auto& a : enqueue_attempts_) {
        FinishEnqueue(a, errors::Cancelled("Enqueue operation was cancelled"),
                      &completions);
      }
      enqueue_attempts_.clear();
    }
    closed_ = true;
    FlushLocked(&completions);
  }
  Run(&completions);
}

int64_t QueueBase::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return SizeLocked();
}

bool QueueBase::is_closed() {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

// --- FIFOQueue ---------------------------------------------------------------

Status FIFOQueue::CanDequeueMany() const {
  if (shapes_.empty() ||
      !std::all_of(shapes_.begin(), shapes_.end(),
                   [](const PartialShape& s) { return s.IsFullyDefined(); })) {
    return errors::InvalidArgument(
        kind_,
        "'s DequeueMany and DequeueUpTo require the components to have "
        "specified shapes.");
  }
  return Status::OK();
}

QueueBase::Tuple FIFOQueue::PopLocked() {
  Tuple element = std::move(queue_.front());
  queue_.pop_front();
  return element;
}

Status PaddingFIFOQueue::Batch(const std::vector<Tuple>& elements,
                               Tuple* out) const {
  out->resize(types_.size());
  for (size_t c = 0; c < types_.size(); ++c) {
    const PartialShape& declared = shapes_[c];
    std::vector<int64_t> dims(declared.rank(), 0);
    for (int d = 0; d < declared.rank(); ++d) {
      if (declared.dim(d) >= 0) dims[d] = declared.dim(d);
    }
    for (const Tuple& e : elements) {
      for (int d = 0; d < declared.rank(); ++d) {
        dims[d] = std::max(dims[d], e[c].dim(d));
      }
    }
    TW_RETURN_IF_ERROR(Stack(elements, static_cast<int>(c), types_[c],
                             TensorShape(dims), true, &(*out)[c]));
  }
  return Status::OK();
}

// --- RandomShuffleQueue ------------------------------------------------------

RandomShuffleQueue::RandomShuffleQueue(std::string name, int64_t capacity,
                                       int64_t min_after_dequeue, int64_t seed,
                                       int64_t seed2,
                                       std::vector<DataType> types,
                                       std::vector<PartialShape> shapes)
    : QueueBase("RandomShuffleQueue", std::move(name), capacity,
                std::move(types), std::move(shapes)),
      min_after_dequeue_(min_after_dequeue) {
  if (seed == 0 && seed2 == 0) {
    std::random_device device;
    generator_.seed((static_cast<uint64_t>(device()) << 32) ^ device());
  } else {
    std::seed_seq sequence{static_cast<uint64_t>(seed),
                           static_cast<uint64_t>(seed2)};
    generator_.seed(sequence);
  }
}

Status RandomShuffleQueue::CanDequeueMany() const {
  if (shapes_.empty() ||
      !std::all_of(shapes_.begin(), shapes_.end(),
                   [](const PartialShape& s) { return s.IsFullyDefined(); })) {
    return errors::InvalidArgument(
        "RandomShuffleQueue's DequeueMany and DequeueUpTo require the "
        "components to have specified shapes.");
  }
  return Status::OK();
}

QueueBase::Tuple RandomShuffleQueue::PopLocked() {
  std::uniform_int_distribution<size_t> pick(0, elements_.size() - 1);
  const size_t i = pick(generator_);
  std::swap(elements_[i], elements_.back());
  Tuple element = std::move(elements_.back());
  elements_.pop_back();
  return element;
}

// --- PriorityQueue -----------------------------------------------------------

namespace {
template <typename Entry>
bool LaterFirst(const Entry& a, const Entry& b) {
  // A max-heap of "comes later": the top is the smallest (priority, order).
  return a.priority != b.priority ? a.priority > b.priority : a.order > b.order;
}
}  // namespace

Status PriorityQueue::CanDequeueMany() const {
  if (shapes_.empty() ||
      !std::all_of(shapes_.begin(), shapes_.end(),
                   [](const PartialShape& s) { return s.IsFullyDefined(); })) {
    return errors::InvalidArgument(
        "PriorityQueue's DequeueMany and DequeueUpTo require the components "
        "to have specified shapes.");
  }
  return Status::OK();
}

void PriorityQueue::PushLocked(Tuple element) {
  const int64_t priority = element[0].data<int64_t>()[0];
  heap_.push_back(Entry{priority, next_order_++, std::move(element)});
  std::push_heap(heap_.begin(), heap_.end(), LaterFirst<Entry>);
}

void PriorityQueue::RestoreLocked(Tuple element) {
  const int64_t priority = element[0].data<int64_t>()[0];
  heap_.push_back(Entry{priority, restored_order_--, std::move(element)});
  std::push_heap(heap_.begin(), heap_.end(), LaterFirst<Entry>);
}

QueueBase::Tuple PriorityQueue::PopLocked() {
  std::pop_heap(heap_.begin(), heap_.end(), LaterFirst<Entry>);
  Tuple element = std::move(heap_.back().element);
  heap_.pop_back();
  return element;
}

}  // namespace tensorweave
