#include "core/runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <set>
#include <stdexcept>
#include <string>

namespace tensorweave {

struct Executor::Item {
  enum Kind : uint8_t {
    kNormal,
    kSwitch,
    kMerge,
    kEnter,
    kExit,
    kNextIteration,
    kControlTrigger
  };
  struct OutEdge {
    int src_output;
    int slot;  // in the frame the edge leads to
    int dst;   // item to notify, or -1 for a fetch slot
  };
  const Node* node = nullptr;
  OpKernel* kernel = nullptr;
  Kind kind = kNormal;
  int frame = 0;        // the frame the node runs in
  int local = 0;        // its index among the nodes of that frame
  int input_start = 0;  // its first input slot, among the frame's slots
  int initial_pending = 0;
  bool expensive = false;
  // Merge: its index among the frame's merges, its data inputs, and
  // whether one of them is fed (live from the start).
  int merge_index = -1;
  int num_data_inputs = 0;
  bool merge_fed = false;
  // Enter: the frame its output goes to; a constant reaches every
  // iteration of it, a loop variable only the first.
  int child_frame = -1;
  bool is_constant = false;
  std::vector<OutEdge> out_edges;
  std::vector<int> control_dsts;
};

// A static frame: the root (the whole step) or the body of one while loop,
// named by its Enter nodes' frame_name.
struct Executor::FrameInfo {
  std::string name;
  int parent = -1;
  int num_items = 0;
  int num_slots = 0;
  int num_merges = 0;
  int num_enters = 0;  // Enter nodes feeding it: each fires once per instance
  int parallel_iterations = 1;
  std::vector<int> exits;            // its Exit nodes
  std::vector<int> initial_pending;  // by local index
  std::vector<int> fed_merges;       // local merge indexes with a fed input
};

// The state of one iteration of one frame instance.
struct Executor::IterState {
  struct MergeState {
    int dead_inputs = 0;
    bool live = false;        // a live input arrived (and was kept)
    bool enter_dead = false;  // a dead Enter: the loop never runs
    bool fired = false;
  };
  std::vector<TensorValue> slots;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<bool>[]> dead;  // with control flow only
  std::unique_ptr<MergeState[]> merges;
  // Frames other than the root, under the frame's mutex: nodes of this
  // iteration ready or running, and child frames (inner loops) alive.
  int outstanding_ops = 0;
  int outstanding_frames = 0;

  IterState(const FrameInfo& info, bool with_control_flow)
      : slots(info.num_slots), pending(new std::atomic<int>[info.num_items]) {
    for (int i = 0; i < info.num_items; ++i) {
      pending[i].store(info.initial_pending[i], std::memory_order_relaxed);
    }
    if (with_control_flow) {
      dead.reset(new std::atomic<bool>[info.num_items]);
      for (int i = 0; i < info.num_items; ++i) {
        dead[i].store(false, std::memory_order_relaxed);
      }
      merges.reset(new MergeState[info.num_merges]);
    }
  }
};

// One instance of a frame: the root, or one execution of a loop (an inner
// loop has an instance per iteration of the outer one). Its iterations
// live from the first node that reaches them until every node of theirs
// has run; at most parallel_iterations at once.
struct Executor::FrameState {
  const FrameInfo* info = nullptr;
  FrameState* parent = nullptr;  // null for the root
  int64_t parent_iter = 0;
  // Guards everything below, and all activation in a frame other than the
  // root (the root's pending counts are atomic; its merges take `mu`).
  std::mutex mu;
  std::deque<std::unique_ptr<IterState>> iterations;
  int64_t first_iter = 0;       // the oldest iteration still alive
  int64_t iteration_count = 0;  // the newest iteration started
  int num_outstanding_iterations = 1;
  int pending_enters = 0;
  std::vector<std::pair<const Item*, TensorValue>> constants;
  // NextIteration values waiting for an iteration slot.
  std::vector<std::pair<const Item*, TensorValue>> deferred;
  std::set<int> live_exits;
  std::map<std::pair<int64_t, int>, std::unique_ptr<FrameState>> children;

  bool is_root() const { return parent == nullptr; }
  IterState* iteration(int64_t i) {
    return iterations[static_cast<size_t>(i - first_iter)].get();
  }
};

// A node made ready in one iteration of one frame instance; `dead` when an
// input is dead (it then only passes the deadness on).
struct Executor::Tagged {
  int item;
  FrameState* frame;
  IterState* iter_state;
  int64_t iter;
  bool dead;
};

struct Executor::StepState {
  const StepContext* step = nullptr;
  FrameState root;
  std::atomic<int64_t> outstanding{0};
  std::atomic<bool> aborted{false};
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  Status status;
  // RunAsync only: where the fetches go and who hears of the end.
  std::vector<Tensor>* fetches = nullptr;
  std::function<void(const Status&)> done_callback;

  void Fail(const Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (status.ok()) status = s;
      aborted = true;
    }
    if (step->abort != nullptr) step->abort->Fail(s);
  }
  // Nodes stop being started once this step, or any partition of it, failed.
  bool Stopped() const {
    return aborted.load(std::memory_order_relaxed) ||
           (step->abort != nullptr && step->abort->aborted());
  }
};

// The context of an async kernel, alive until its callback runs.
struct Executor::AsyncCall {
  OpKernelContext::Params params;
  OpKernelContext ctx;
  explicit AsyncCall(const OpKernelContext::Params& p)
      : params(p), ctx(params) {}
};

namespace {

Status NodeError(const Node& node, const Status& s) {
  return Status(s.code(), s.message() + "\n\t [[node " + node.name() +
                              " (op: " + node.type_string() + ")]]");
}

// Runs a kernel; the last line of defence against a kernel that allocates
// past what the machine has (std::bad_alloc, std::length_error from a huge
// std::vector) or otherwise throws: the exception becomes the node's error
// instead of terminating the process. Kernels validate sizes first; a try
// block costs nothing when nothing is thrown.
void ComputeGuarded(OpKernel* kernel, OpKernelContext* ctx) {
  try {
    kernel->Compute(ctx);
  } catch (const TensorAllocationError& e) {
    ctx->SetStatus(errors::ResourceExhausted(e.what()));
  } catch (const std::bad_alloc& e) {
    ctx->SetStatus(errors::ResourceExhausted(
        "OOM in kernel: could not allocate memory (", e.what(), ")"));
  } catch (const std::length_error& e) {
    ctx->SetStatus(errors::ResourceExhausted(
        "OOM in kernel: a requested size is too large (", e.what(), ")"));
  } catch (const std::exception& e) {
    ctx->SetStatus(errors::Internal("kernel threw an exception: ", e.what()));
  }
}

}  // namespace

void StepAbort::Fail(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!status_.ok()) return;
    status_ = status;
    aborted_ = true;
  }
  if (rendezvous_ != nullptr) rendezvous_->StartAbort(status);
}

Status StepAbort::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

std::vector<bool> NodesNeeded(const Graph& graph, const ExecutorSpec& spec) {
  std::set<std::pair<int, int>> fed;
  for (const Endpoint& e : spec.feeds) fed.insert({e.node->id(), e.index});
  auto is_fed = [&fed](const Node* n, int index) {
    return fed.count({n->id(), index}) > 0;
  };
  std::vector<bool> needed(graph.num_nodes(), false);
  std::vector<const Node*> stack;
  for (const Endpoint& e : spec.fetches) {
    if (!is_fed(e.node, e.index)) stack.push_back(e.node);
  }
  for (const Node* n : spec.targets) stack.push_back(n);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (needed[n->id()]) continue;
    needed[n->id()] = true;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Endpoint& src = n->input(i);
      if (!is_fed(src.node, src.index)) stack.push_back(src.node);
    }
    for (const Node* c : n->control_inputs()) stack.push_back(c);
  }
  return needed;
}

Executor::~Executor() = default;

Status Executor::Create(const Graph& graph, const ExecutorSpec& spec,
                        const KernelLookup& kernels,
                        std::unique_ptr<Executor>* out) {
  std::unique_ptr<Executor> ex(new Executor());
  std::set<std::pair<int, int>> fed;
  for (const Endpoint& e : spec.feeds) fed.insert({e.node->id(), e.index});
  auto is_fed = [&fed](const Node* n, int index) {
    return fed.count({n->id(), index}) > 0;
  };
  const int num_nodes = graph.num_nodes();
  const std::vector<bool> needed = NodesNeeded(graph, spec);
  // Items in graph order, which is topological: a node only refers to
  // nodes added before it.
  std::vector<int> item_of(num_nodes, -1);
  int slot = 0;
  for (int id = 0; id < num_nodes; ++id) {
    if (!needed[id]) continue;
    Item item;
    item.node = graph.node(id);
    item.input_start = slot;
    slot += item.node->num_inputs();
    for (int i = 0; i < item.node->num_inputs(); ++i) {
      const Endpoint& src = item.node->input(i);
      if (!is_fed(src.node, src.index)) ++item.initial_pending;
    }
    item.initial_pending += item.node->control_inputs().size();
    TW_RETURN_IF_ERROR(kernels(item.node, &item.kernel));
    item.expensive = item.kernel->IsExpensive();
    item_of[id] = static_cast<int>(ex->items_.size());
    ex->items_.push_back(std::move(item));
  }
  for (Item& item : ex->items_) {
    for (const Edge& e : item.node->out_edges()) {
      int dst = item_of[e.dst->id()];
      if (dst < 0 || is_fed(item.node, e.src_output)) continue;
      item.out_edges.push_back(
          {e.src_output, ex->items_[dst].input_start + e.dst_input, dst});
    }
    for (const Node* c : item.node->control_outputs()) {
      if (item_of[c->id()] >= 0) item.control_dsts.push_back(item_of[c->id()]);
    }
    if (item.initial_pending == 0) {
      ex->roots_.push_back(&item - ex->items_.data());
    }
  }
  // Feeds go to every slot that reads them; fetches get slots of their own.
  ex->feed_slots_.resize(spec.feeds.size());
  auto feed_index = [&spec](const Endpoint& e) {
    for (size_t f = 0; f < spec.feeds.size(); ++f) {
      if (spec.feeds[f].node == e.node && spec.feeds[f].index == e.index) {
        return static_cast<int>(f);
      }
    }
    return -1;
  };
  for (size_t f = 0; f < spec.feeds.size(); ++f) {
    const Endpoint& e = spec.feeds[f];
    for (const Edge& edge : e.node->out_edges()) {
      int dst = item_of[edge.dst->id()];
      if (dst >= 0 && edge.src_output == e.index) {
        ex->feed_slots_[f].push_back(ex->items_[dst].input_start +
                                     edge.dst_input);
      }
    }
  }
  for (const Endpoint& e : spec.fetches) {
    int fetch_slot = slot++;
    ex->fetch_slots_.push_back(fetch_slot);
    ex->fetch_nodes_.push_back(e.node);
    int f = feed_index(e);
    if (f >= 0) {
      ex->feed_slots_[f].push_back(fetch_slot);
    } else {
      ex->items_[item_of[e.node->id()]].out_edges.push_back(
          {e.index, fetch_slot, -1});
    }
  }
  ex->num_slots_ = slot;
  *out = std::move(ex);
  return Status::OK();
}

bool Executor::StartsCheap() const {
  return std::none_of(roots_.begin(), roots_.end(),
                      [this](int id) { return items_[id].expensive; });
}

std::vector<const Node*> Executor::nodes() const {
  std::vector<const Node*> nodes;
  for (const Item& item : items_) nodes.push_back(item.node);
  return nodes;
}

// Fills the feed slots and starts the roots: the cheap ones on this thread.
void Executor::Start(StepState* state, const std::vector<Tensor>& feeds) const {
  state->slots.resize(num_slots_);
  state->pending.reset(new std::atomic<int>[items_.size()]);
  for (size_t i = 0; i < items_.size(); ++i) {
    state->pending[i].store(items_[i].initial_pending,
                            std::memory_order_relaxed);
  }
  for (size_t f = 0; f < feeds.size(); ++f) {
    for (int slot : feed_slots_[f]) state->slots[slot].tensor = feeds[f];
  }
  std::vector<int> inline_ready;
  if (Schedule(state, roots_, &inline_ready)) return;
  if (!inline_ready.empty()) Process(state, std::move(inline_ready));
}

Status Executor::Run(const StepContext& step, const std::vector<Tensor>& feeds,
                     std::vector<Tensor>* fetches) const {
  if (feeds.size() != feed_slots_.size()) {
    return errors::InvalidArgument("expected ", feed_slots_.size(),
                                   " feeds, got ", feeds.size());
  }
  StepState state;
  state.step = &step;
  if (!roots_.empty()) {
    Start(&state, feeds);
    std::unique_lock<std::mutex> lock(state.mu);
    state.done_cv.wait(lock, [&state] { return state.done; });
  } else {
    Start(&state, feeds);  // fills the slots of fed fetches
  }
  if (!state.status.ok()) return state.status;
  return CollectFetches(&state, fetches);
}

void Executor::RunAsync(const StepContext& step,
                        const std::vector<Tensor>& feeds,
                        std::vector<Tensor>* fetches,
                        std::function<void(const Status&)> done) const {
  if (feeds.size() != feed_slots_.size()) {
    done(errors::InvalidArgument("expected ", feed_slots_.size(),
                                 " feeds, got ", feeds.size()));
    return;
  }
  auto* state = new StepState();
  state->step = &step;
  state->fetches = fetches;
  state->done_callback = std::move(done);
  if (roots_.empty()) {
    Start(state, feeds);
    Finish(state);
    return;
  }
  Start(state, feeds);
}

Status Executor::CollectFetches(StepState* state,
                                std::vector<Tensor>* fetches) const {
  fetches->resize(fetch_slots_.size());
  for (size_t i = 0; i < fetch_slots_.size(); ++i) {
    TensorValue& value = state->slots[fetch_slots_[i]];
    if (value.ref != nullptr) {
      // A fetched variable is read here, after its node ran: an error
      // (uninitialized) is that node's.
      Status s = value.ref->Snapshot(&(*fetches)[i]);
      if (!s.ok()) return NodeError(*fetch_nodes_[i], s);
    } else {
      (*fetches)[i] = std::move(value.tensor);
    }
  }
  return Status::OK();
}

// The step is over: wake Run, or hand the result to RunAsync's callback.
void Executor::Finish(StepState* state) const {
  if (!state->done_callback) {
    std::lock_guard<std::mutex> lock(state->mu);
    state->done = true;
    state->done_cv.notify_all();
    return;
  }
  Status s = state->status;
  if (s.ok()) s = CollectFetches(state, state->fetches);
  auto done = std::move(state->done_callback);
  delete state;
  done(s);
}

// Runs the nodes on `stack`, then, on this thread, every cheap node they
// make ready.
void Executor::Process(StepState* state, std::vector<int> stack) const {
  std::vector<int> ready;
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    ready.clear();
    // An async node that has not finished yet accounts for itself later.
    if (!state->Stopped() && !RunItem(state, items_[id], &ready)) continue;
    if (Schedule(state, ready, &stack)) return;
  }
}

// Continues a step from an async kernel's callback. Callbacks can nest (a
// _Send whose receiver goes on to send back): past kMaxCallbackDepth levels
// (a few kilobytes of stack each) the work goes to the pool instead of
// deeper into this thread's stack.
constexpr int kMaxCallbackDepth = 64;

void Executor::ProcessAfterCallback(StepState* state,
                                    std::vector<int> stack) const {
  static thread_local int depth = 0;
  if (depth >= kMaxCallbackDepth && state->step->inter_op_pool != nullptr) {
    state->step->inter_op_pool->Schedule(
        [this, state, stack = std::move(stack)]() mutable {
          Process(state, std::move(stack));
        });
    return;
  }
  ++depth;
  Process(state, std::move(stack));
  --depth;
}

// Accounts for one finished node and its newly ready successors: the cheap
// ones are pushed on `inline_ready`, one expensive one too when nothing
// else is, the other expensive ones go to the pool. Returns true when the
// step is complete (the state must not be touched afterwards).
bool Executor::Schedule(StepState* state, const std::vector<int>& ready,
                        std::vector<int>* inline_ready) const {
  const bool is_roots = &ready == &roots_;
  const int64_t delta = static_cast<int64_t>(ready.size()) - (is_roots ? 0 : 1);
  if (delta != 0 &&
      state->outstanding.fetch_add(delta, std::memory_order_acq_rel) + delta ==
          0) {
    Finish(state);
    return true;
  }
  int kept_expensive = -1;
  for (int id : ready) {
    if (!items_[id].expensive) {
      inline_ready->push_back(id);
    } else if (kept_expensive < 0) {
      kept_expensive = id;
    } else {
      state->step->inter_op_pool->Schedule(
          [this, state, id] { Process(state, {id}); });
    }
  }
  if (kept_expensive >= 0) {
    if (inline_ready->empty()) {
      inline_ready->push_back(kept_expensive);
    } else {
      state->step->inter_op_pool->Schedule(
          [this, state, kept_expensive] { Process(state, {kept_expensive}); });
    }
  }
  return false;
}

// Runs one node. Returns false for an async kernel that finishes later (its
// callback then accounts for it); else the node's newly ready successors
// are in `ready`.
bool Executor::RunItem(StepState* state, const Item& item,
                       std::vector<int>* ready) const {
  const Node& node = *item.node;
  TensorValue* inputs = state->slots.data() + item.input_start;
  for (int i = 0; i < node.num_inputs(); ++i) {
    TensorValue& in = inputs[i];
    if (node.input_is_ref(i)) {
      if (in.ref == nullptr) {
        state->Fail(NodeError(
            node, errors::InvalidArgument("input ", i,
                                          " must be a variable, but a value "
                                          "was fed for it")));
        return true;
      }
    } else if (in.ref != nullptr) {
      Status s = in.ref->Snapshot(&in.tensor);
      in.ref = nullptr;
      if (!s.ok()) {
        state->Fail(NodeError(node, s));
        return true;
      }
    }
  }
  OpKernelContext::Params params;
  params.kernel = item.kernel;
  params.inputs = inputs;
  params.resource_mgr = state->step->resource_mgr;
  params.intra_op_pool = state->step->intra_op_pool;
  params.rendezvous = state->step->rendezvous;
  params.cancellation_manager = state->step->cancellation_manager;
  params.step_id = state->step->step_id;
  StepStatsCollector* stats = state->step->stats;
  const int64_t start_us = stats != nullptr ? NowMicrosSinceEpoch() : 0;
  if (AsyncOpKernel* async = item.kernel->AsAsync()) {
    auto* call = new AsyncCall(params);
    async->ComputeAsync(
        &call->ctx, [this, state, &item, call, stats, start_us] {
          if (stats != nullptr) {
            stats->RecordNode(*item.node, start_us, NowMicrosSinceEpoch(),
                              call->ctx);
          }
          std::vector<int> ready;
          FinishItem(state, item, &call->ctx, &ready);
          delete call;
          std::vector<int> inline_ready;
          if (Schedule(state, ready, &inline_ready)) return;
          if (!inline_ready.empty()) {
            ProcessAfterCallback(state, std::move(inline_ready));
          }
        });
    return false;
  }
  OpKernelContext ctx(params);
  ComputeGuarded(item.kernel, &ctx);
  if (stats != nullptr) {
    stats->RecordNode(node, start_us, NowMicrosSinceEpoch(), ctx);
  }
  FinishItem(state, item, &ctx, ready);
  return true;
}

// After a node's kernel: its inputs are released, its error recorded, or its
// outputs passed on to the successors (those made ready go on `ready`).
void Executor::FinishItem(StepState* state, const Item& item,
                          OpKernelContext* ctx, std::vector<int>* ready) const {
  const Node& node = *item.node;
  TensorValue* inputs = state->slots.data() + item.input_start;
  for (int i = 0; i < node.num_inputs(); ++i) inputs[i] = TensorValue();
  if (!ctx->status().ok()) {
    state->Fail(NodeError(node, ctx->status()));
    return;
  }
  std::vector<TensorValue>& outputs = *ctx->mutable_outputs();
  for (int o = 0; o < node.num_outputs(); ++o) {
    const TensorValue& v = outputs[o];
    if (!v.has_value() ||
        (v.ref == nullptr && v.tensor.dtype() != node.output_type(o))) {
      state->Fail(
          NodeError(node, errors::Internal("kernel produced no ",
                                           DataTypeName(node.output_type(o)),
                                           " value for output ", o)));
      return;
    }
  }
  for (const Item::OutEdge& e : item.out_edges) {
    state->slots[e.slot] = outputs[e.src_output];
    if (e.dst >= 0 &&
        state->pending[e.dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ready->push_back(e.dst);
    }
  }
  for (int dst : item.control_dsts) {
    if (state->pending[dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ready->push_back(dst);
    }
  }
}

}  // namespace tensorweave
