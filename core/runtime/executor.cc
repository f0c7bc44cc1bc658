#include "core/runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "core/runtime/frame_rendezvous.h"

namespace tensorweave {

namespace {

// Results too small for a normal float flushed to zero while kernels run
// (flush-to-zero), as TensorFlow's CPU kernels run: TF's sigmoid(-100),
// exp(-90) and 1e-40 * 1.0 are 0, not denormals, and a chain of products
// never slows down 100x on denormals. (TF also reads denormal inputs as zero;
// here they stay what they are, so comparisons such as Relu's see their
// sign.) Process holds one while it runs kernels; the thread's own mode is
// restored after.
class ScopedFlushDenormal {
 public:
  ScopedFlushDenormal() {
#if defined(__SSE__)
    saved_ = _mm_getcsr();
    _mm_setcsr(saved_ | kFlushToZero);
#elif defined(__aarch64__)
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(saved_));
    const uint64_t flush = saved_ | kFlushToZero;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(flush));
#endif
  }
  ~ScopedFlushDenormal() {
#if defined(__SSE__)
    _mm_setcsr(saved_);
#elif defined(__aarch64__)
    __asm__ __volatile__("msr fpcr, %0" : : "r"(saved_));
#endif
  }
  ScopedFlushDenormal(const ScopedFlushDenormal&) = delete;
  ScopedFlushDenormal& operator=(const ScopedFlushDenormal&) = delete;

 private:
#if defined(__SSE__)
  static constexpr unsigned kFlushToZero = 0x8000;  // MXCSR.FTZ
  unsigned saved_ = 0;
#elif defined(__aarch64__)
  static constexpr uint64_t kFlushToZero = uint64_t{1} << 24;  // FPCR.FZ
  uint64_t saved_ = 0;
#endif
};

// TF's control-flow primitives (their Ref forms alike); every other op is a
// plain node.
enum class NodeKind : uint8_t {
  kNormal,
  kSwitch,
  kMerge,
  kEnter,
  kExit,
  kNextIteration,
  kControlTrigger
};

}  // namespace

struct Executor::Item {
  struct OutEdge {
    int src_output;
    int slot;  // in the frame the edge leads to
    int dst;   // item to notify, or -1 for a fetch slot
    // The output's last edge: its value is moved there, not copied (so
    // that a consumer holding the only reference can reuse the buffer).
    bool last_use = false;
  };
  const Node* node = nullptr;
  OpKernel* kernel = nullptr;
  NodeKind kind = NodeKind::kNormal;
  int frame = 0;        // the frame the node runs in
  int local = 0;        // its index among the nodes of that frame
  int input_start = 0;  // its first input slot, among the frame's slots
  int initial_pending = 0;
  bool expensive = false;
  // In a loop's frame, not an Enter, Exit or NextIteration, and no Merge
  // among its successors: its outputs reach only plain nodes of its own
  // iteration (pending counts and slots), so it passes them on without
  // taking the frame's mutex.
  bool lock_free = false;
  bool is_async = false;
  // Nodes the executor runs itself, without their kernel: Identity, Enter,
  // Exit and NextIteration pass their input on, LoopCond a scalar bool, a
  // Switch routes its input, a Merge passes its live one with its index,
  // and a Const on the host gives its value (their Ref forms, and traced
  // steps, use the kernels).
  enum class Inline : uint8_t {
    kNone,
    kForward,
    kLoopCond,
    kSwitch,
    kMerge,
    kConst
  };
  Inline inline_kind = Inline::kNone;
  // kConst: the value; kMerge: the value_index output for each input, when
  // something reads it.
  Tensor constant;
  // A kConst whose one input is a control edge (a constant in a loop's body
  // or under control_dependencies): when that edge arrives, the executor
  // passes the value on at once instead of scheduling the node.
  bool const_on_arrival = false;
  std::vector<Tensor> merge_indices;
  // _Send and _Recv: inside a loop their keys name the frame instance and
  // iteration (FrameView); a dead _Send still runs (it sends the deadness),
  // and a _Recv that gets a dead value is dead.
  enum class Transfer : uint8_t { kNone, kSend, kRecv };
  Transfer transfer = Transfer::kNone;
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
  // Frames other than the root: nodes of this iteration ready or running
  // (atomic: a node whose successors are all plain nodes of its own
  // iteration passes its outputs on without the frame's mutex; see
  // Item::lock_free), and child frames (inner loops) alive (under the
  // frame's mutex). The iteration is finished once both are zero: then no
  // node of it runs, and only the mutex's holders touch it.
  std::atomic<int> outstanding_ops{0};
  int outstanding_frames = 0;

  IterState(const FrameInfo& info, bool with_control_flow)
      : slots(info.num_slots), pending(new std::atomic<int>[info.num_items]) {
    if (with_control_flow) {
      dead.reset(new std::atomic<bool>[info.num_items]);
      merges.reset(new MergeState[info.num_merges]);
    }
    Reset(info);
  }
  // Makes a finished iteration's state new again, for a later iteration.
  void Reset(const FrameInfo& info) {
    for (int i = 0; i < info.num_items; ++i) {
      pending[i].store(info.initial_pending[i], std::memory_order_relaxed);
    }
    if (dead != nullptr) {
      for (int i = 0; i < info.num_items; ++i) {
        dead[i].store(false, std::memory_order_relaxed);
      }
      std::fill(merges.get(), merges.get() + info.num_merges, MergeState());
    }
    for (TensorValue& slot : slots) {
      if (slot.has_value()) slot = TensorValue();  // left by a stopped step
    }
    outstanding_ops.store(0, std::memory_order_relaxed);
    outstanding_frames = 0;
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
  uint64_t id = 0;  // the same on every device of the step (ChildFrameId)
  // Guards everything below, and all activation in a frame other than the
  // root (the root's pending counts are atomic; its merges take `mu`).
  std::mutex mu;
  std::deque<std::unique_ptr<IterState>> iterations;
  std::vector<std::unique_ptr<IterState>> finished;  // for reuse
  int64_t first_iter = 0;       // the oldest iteration still alive
  int64_t iteration_count = 0;  // the newest iteration started
  int num_outstanding_iterations = 1;
  int pending_enters = 0;
  std::vector<std::pair<const Item*, TensorValue>> constants;
  // NextIteration values waiting for an iteration slot.
  std::vector<std::pair<const Item*, TensorValue>> deferred;
  std::set<int> live_exits;
  std::map<std::pair<int64_t, int>, std::unique_ptr<FrameState>> children;
  // Set (under mu) by the one thread that ends the frame: others that reach
  // CleanupIterations for it afterwards (their counts reached zero on other
  // paths, outside the lock) leave it alone.
  bool ended = false;

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
  // Frames that have ended, kept until the step ends: a thread may still
  // hold one (on its way into CleanupIterations) when another ends it.
  std::mutex ended_mu;
  std::vector<std::unique_ptr<FrameState>> ended_frames;
  std::atomic<int64_t> outstanding{0};
  std::atomic<bool> aborted{false};
  // Item::const_on_arrival applies: host memory, no tracing.
  bool consts_on_arrival = false;
  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  Status status;
  // RunAsync only: where the fetches go and who hears of the end.
  std::vector<Tensor>* fetches = nullptr;
  std::function<void(const Status&)> done_callback;

  // Records the step's first error and stops it: no node starts any more,
  // the other partitions stop, and kernels blocked in this step (a dequeue,
  // a _Recv) are cancelled rather than left waiting for their timeout.
  // The caller must hold no frame lock (cancelled kernels finish at once,
  // on this thread).
  void Fail(const Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (status.ok()) status = s;
      aborted = true;
    }
    if (step->abort != nullptr) step->abort->Fail(s);
    if (step->cancellation_manager != nullptr) {
      step->cancellation_manager->StartCancel();
    }
  }
  // Nodes stop being started once this step, or any partition of it, failed
  // or the step was cancelled (a timeout, Session::Close: a loop that would
  // run forever stops too).
  bool Stopped() {
    if (aborted.load(std::memory_order_relaxed) ||
        (step->abort != nullptr && step->abort->aborted())) {
      return true;
    }
    if (step->cancellation_manager != nullptr &&
        step->cancellation_manager->IsCancelled()) {
      Fail(errors::Cancelled("the step was cancelled"));
      return true;
    }
    return false;
  }
};

// The context of an async kernel, alive until its callback runs.
struct Executor::AsyncCall {
  OpKernelContext::Params params;
  OpKernelContext ctx;
  std::optional<FrameIterRendezvous> frame_view;  // see FrameView
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

namespace {

// A fed Placeholder does not run: its control edges leave from the feed (as
// TF's feed rewrite does), so `control_dependencies([placeholder])` waits for
// nothing instead of asking for the placeholder's value.
bool IsFedPlaceholder(const Node* n, const std::set<std::pair<int, int>>& fed) {
  const std::string& op = n->type_string();
  return (op == "Placeholder" || op == "PlaceholderV2") &&
         fed.count({n->id(), 0}) > 0;
}

}  // namespace

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
    for (const Node* c : n->control_inputs()) {
      if (!IsFedPlaceholder(c, fed)) stack.push_back(c);
    }
  }
  return needed;
}

Executor::~Executor() = default;

namespace {

NodeKind KindOf(const std::string& op) {
  static const std::map<std::string, NodeKind> kinds = {
      {"Switch", NodeKind::kSwitch},
      {"RefSwitch", NodeKind::kSwitch},
      {"Merge", NodeKind::kMerge},
      {"RefMerge", NodeKind::kMerge},
      {"Enter", NodeKind::kEnter},
      {"RefEnter", NodeKind::kEnter},
      {"Exit", NodeKind::kExit},
      {"RefExit", NodeKind::kExit},
      {"NextIteration", NodeKind::kNextIteration},
      {"RefNextIteration", NodeKind::kNextIteration},
      {"ControlTrigger", NodeKind::kControlTrigger},
  };
  auto it = kinds.find(op);
  return it == kinds.end() ? NodeKind::kNormal : it->second;
}

}  // namespace

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
  std::vector<int> item_of(num_nodes, -1);
  for (int id = 0; id < num_nodes; ++id) {
    if (!needed[id]) continue;
    Item item;
    item.node = graph.node(id);
    item.kind = KindOf(item.node->type_string());
    for (int i = 0; i < item.node->num_inputs(); ++i) {
      const Endpoint& src = item.node->input(i);
      if (is_fed(src.node, src.index)) {
        item.merge_fed = item.kind == NodeKind::kMerge;
      } else if (item.kind != NodeKind::kMerge) {
        ++item.initial_pending;
      }
    }
    item.num_data_inputs = item.node->num_inputs();
    for (const Node* c : item.node->control_inputs()) {
      if (!IsFedPlaceholder(c, fed)) ++item.initial_pending;
    }
    TW_RETURN_IF_ERROR(kernels(item.node, &item.kernel));
    item.expensive = item.kernel->IsExpensive();
    item.is_async = item.kernel->AsAsync() != nullptr;
    const std::string& op = item.node->type_string();
    if (op == "Identity" || op == "Enter" || op == "Exit" ||
        op == "NextIteration") {
      item.inline_kind = Item::Inline::kForward;
    } else if (op == "LoopCond") {
      item.inline_kind = Item::Inline::kLoopCond;
    } else if (op == "Switch") {
      item.inline_kind = Item::Inline::kSwitch;
    } else if (op == "Merge") {
      item.inline_kind = Item::Inline::kMerge;
    } else if (op == "Const" && item.node->constant_value() != nullptr) {
      item.inline_kind = Item::Inline::kConst;
      item.constant = *item.node->constant_value();
      item.const_on_arrival = item.initial_pending == 1;
    } else if (op == "_Send") {
      item.transfer = Item::Transfer::kSend;
    } else if (op == "_Recv") {
      item.transfer = Item::Transfer::kRecv;
    }
    // (A _Recv may receive a dead value, from a cond on another device.)
    if (item.kind != NodeKind::kNormal ||
        item.transfer == Item::Transfer::kRecv) {
      ex->has_control_flow_ = true;
    }
    item_of[id] = static_cast<int>(ex->items_.size());
    ex->items_.push_back(std::move(item));
  }
  for (Item& item : ex->items_) {
    for (const Edge& e : item.node->out_edges()) {
      int dst = item_of[e.dst->id()];
      if (dst < 0 || is_fed(item.node, e.src_output)) continue;
      item.out_edges.push_back({e.src_output, e.dst_input, dst});
    }
    if (IsFedPlaceholder(item.node, fed)) continue;
    for (const Node* c : item.node->control_outputs()) {
      if (item_of[c->id()] >= 0) item.control_dsts.push_back(item_of[c->id()]);
    }
  }
  TW_RETURN_IF_ERROR(ex->BuildFrames());
  // Input slots, per frame; an out edge's slot is in its destination's frame.
  for (Item& item : ex->items_) {
    FrameInfo& frame = ex->frames_[item.frame];
    item.local = frame.num_items++;
    item.input_start = frame.num_slots;
    frame.num_slots += item.node->num_inputs();
    frame.initial_pending.push_back(item.initial_pending);
    if (item.kind == NodeKind::kMerge) {
      item.merge_index = frame.num_merges++;
      if (item.merge_fed) frame.fed_merges.push_back(item.merge_index);
    }
    if (item.kind == NodeKind::kExit) {
      frame.exits.push_back(&item - ex->items_.data());
    }
    if (item.kind == NodeKind::kEnter)
      ++ex->frames_[item.child_frame].num_enters;
  }
  for (Item& item : ex->items_) {
    for (Item::OutEdge& e : item.out_edges) {
      e.slot += ex->items_[e.dst].input_start;
    }
    const bool ready_at_start =
        item.initial_pending == 0 &&
        (item.kind != NodeKind::kMerge || item.merge_fed);
    if (ready_at_start) {
      if (item.frame != 0) {
        return errors::InvalidArgument(
            "node ", item.node->DebugName(), " is inside the while loop '",
            ex->frames_[item.frame].name,
            "' but has no input from it: a node in a loop needs an input or "
            "a control input from the loop");
      }
      ex->roots_.push_back(&item - ex->items_.data());
    }
  }
  // Feeds go to every slot that reads them; fetches get slots of their own.
  // Both are in the root frame: a value inside a loop has one instance per
  // iteration.
  FrameInfo& root = ex->frames_[0];
  ex->feed_slots_.resize(spec.feeds.size());
  for (size_t f = 0; f < spec.feeds.size(); ++f) {
    const Endpoint& e = spec.feeds[f];
    for (const Edge& edge : e.node->out_edges()) {
      int dst = item_of[edge.dst->id()];
      if (dst < 0 || edge.src_output != e.index) continue;
      const Item& item = ex->items_[dst];
      if (item.frame != 0) {
        return errors::InvalidArgument(
            "cannot feed '", e.ToString(), "': it is read by node ",
            item.node->DebugName(), " inside the while loop '",
            ex->frames_[item.frame].name, "'");
      }
      ex->feed_slots_[f].push_back(item.input_start + edge.dst_input);
    }
  }
  for (const Endpoint& e : spec.fetches) {
    int fetch_slot = root.num_slots++;
    ex->fetch_slots_.push_back(fetch_slot);
    ex->fetch_nodes_.push_back(e.node);
    auto fed_at = std::find_if(spec.feeds.begin(), spec.feeds.end(),
                               [&e](const Endpoint& f) {
                                 return f.node == e.node && f.index == e.index;
                               });
    if (fed_at != spec.feeds.end()) {
      ex->feed_slots_[fed_at - spec.feeds.begin()].push_back(fetch_slot);
      continue;
    }
    Item& producer = ex->items_[item_of[e.node->id()]];
    if (ex->OutputFrame(producer) != 0) {
      return errors::InvalidArgument(
          "cannot fetch '", e.ToString(), "': it is inside the while loop '",
          ex->frames_[ex->OutputFrame(producer)].name,
          "' (fetch a value the loop returns)");
    }
    producer.out_edges.push_back({e.index, fetch_slot, -1});
  }
  for (Item& item : ex->items_) {
    std::set<int> seen;
    for (auto e = item.out_edges.rbegin(); e != item.out_edges.rend(); ++e) {
      e->last_use = seen.insert(e->src_output).second;
    }
    if (item.inline_kind == Item::Inline::kMerge && seen.count(1)) {
      for (int i = 0; i < item.num_data_inputs; ++i) {
        item.merge_indices.push_back(Tensor::Scalar<int32_t>(i));
      }
    }
    // A constant passed on at arrival reaches its own successors under the
    // lock its predecessor holds.
    std::function<bool(int)> is_merge = [&ex, &is_merge](int dst) {
      if (dst < 0) return false;
      const Item& d = ex->items_[dst];
      if (d.kind == NodeKind::kMerge) return true;
      if (!d.const_on_arrival) return false;
      return std::any_of(
                 d.out_edges.begin(), d.out_edges.end(),
                 [&](const Item::OutEdge& e) { return is_merge(e.dst); }) ||
             std::any_of(d.control_dsts.begin(), d.control_dsts.end(),
                         is_merge);
    };
    item.lock_free =
        item.frame != 0 && item.kind != NodeKind::kEnter &&
        item.kind != NodeKind::kExit && item.kind != NodeKind::kNextIteration &&
        std::none_of(item.out_edges.begin(), item.out_edges.end(),
                     [&](const Item::OutEdge& e) { return is_merge(e.dst); }) &&
        std::none_of(item.control_dsts.begin(), item.control_dsts.end(),
                     is_merge);
  }
  *out = std::move(ex);
  return Status::OK();
}

int Executor::OutputFrame(const Item& item) const {
  if (item.kind == NodeKind::kEnter) return item.child_frame;
  if (item.kind == NodeKind::kExit) return frames_[item.frame].parent;
  return item.frame;
}

// Finds the frame of every node: a node runs in the frame of its inputs,
// an Enter's successors in the loop it enters, an Exit's in the loop's
// parent. Also checks that the graph's only cycles are while loops (each
// passes a NextIteration -> Merge back edge).
Status Executor::BuildFrames() {
  frames_.assign(1, FrameInfo());
  const int n = static_cast<int>(items_.size());
  // Cycles: a topological order must exist without the back edges.
  std::vector<int> pending(n, 0);
  for (const Item& item : items_) {
    if (item.kind == NodeKind::kNextIteration) continue;
    for (const Item::OutEdge& e : item.out_edges) ++pending[e.dst];
    for (int c : item.control_dsts) ++pending[c];
  }
  std::vector<int> order;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) order.push_back(i);
  }
  for (size_t k = 0; k < order.size(); ++k) {
    const Item& item = items_[order[k]];
    if (item.kind == NodeKind::kNextIteration) continue;
    auto release = [&](int dst) {
      if (--pending[dst] == 0) order.push_back(dst);
    };
    for (const Item::OutEdge& e : item.out_edges) release(e.dst);
    for (int c : item.control_dsts) release(c);
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        return errors::InvalidArgument(
            "the graph has a cycle through node ", items_[i].node->DebugName(),
            " that is not a while loop (a loop's only back edge runs from a "
            "NextIteration node to a Merge node)");
      }
    }
  }
  if (!has_control_flow_) return Status::OK();
  // Frames, in topological order: each node's frame is known before its
  // successors are visited.
  std::map<std::string, int> frame_by_name;
  std::vector<bool> assigned(n, false);
  for (int i : order) {
    Item& item = items_[i];
    if (!assigned[i]) {
      item.frame = 0;  // a root, or fed only: the step's frame
      assigned[i] = true;
    }
    if (item.kind == NodeKind::kEnter) {
      std::string name;
      TW_RETURN_IF_ERROR(GetAttr(item.node->attrs(), "frame_name", &name));
      TW_RETURN_IF_ERROR(
          GetAttr(item.node->attrs(), "is_constant", &item.is_constant));
      int64_t parallel = 10;
      TW_RETURN_IF_ERROR(
          GetAttr(item.node->attrs(), "parallel_iterations", &parallel));
      if (parallel < 1) {
        return errors::InvalidArgument(
            "node ", item.node->DebugName(),
            ": parallel_iterations must be at least 1, got ", parallel);
      }
      auto it = frame_by_name.find(name);
      if (it == frame_by_name.end()) {
        it = frame_by_name.emplace(name, frames_.size()).first;
        FrameInfo info;
        info.name = name;
        info.parent = item.frame;
        info.parallel_iterations = static_cast<int>(parallel);
        frames_.push_back(std::move(info));
      } else if (frames_[it->second].parent != item.frame) {
        return errors::InvalidArgument(
            "node ", item.node->DebugName(), " enters the frame '", name,
            "' from the frame '", frames_[item.frame].name,
            "', but other Enter nodes enter it from the frame '",
            frames_[frames_[it->second].parent].name, "'");
      }
      item.child_frame = it->second;
    }
    if (item.kind == NodeKind::kExit && item.frame == 0) {
      return errors::InvalidArgument("node ", item.node->DebugName(),
                                     " is an Exit outside any while loop");
    }
    if (item.kind == NodeKind::kNextIteration && item.frame == 0) {
      return errors::InvalidArgument(
          "node ", item.node->DebugName(),
          " is a NextIteration outside any while loop");
    }
    const int out_frame = OutputFrame(item);
    auto visit = [&](int dst) -> Status {
      // A back edge goes from an iteration to the next of the same frame.
      if (!assigned[dst]) {
        items_[dst].frame = out_frame;
        assigned[dst] = true;
      } else if (items_[dst].frame != out_frame) {
        return errors::InvalidArgument(
            "node ", items_[dst].node->DebugName(),
            " has inputs from the "
            "frame '",
            frames_[items_[dst].frame].name, "' and the frame '",
            frames_[out_frame].name,
            "': a value from outside a while loop must enter it through an "
            "Enter node, and leave it through an Exit node");
      }
      return Status::OK();
    };
    for (const Item::OutEdge& e : item.out_edges)
      TW_RETURN_IF_ERROR(visit(e.dst));
    for (int c : item.control_dsts) TW_RETURN_IF_ERROR(visit(c));
  }
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
  const DeviceBase* device = state->step->device;
  state->consts_on_arrival = state->step->stats == nullptr &&
                             (device == nullptr || device->host_memory());
  FrameState& root = state->root;
  root.info = &frames_[0];
  root.iterations.push_back(
      std::make_unique<IterState>(frames_[0], has_control_flow_));
  IterState* iter_state = root.iterations[0].get();
  for (size_t f = 0; f < feeds.size(); ++f) {
    for (int slot : feed_slots_[f]) iter_state->slots[slot].tensor = feeds[f];
  }
  for (int m : frames_[0].fed_merges) iter_state->merges[m].live = true;
  std::vector<Tagged> ready;
  ready.reserve(roots_.size());
  for (int id : roots_) ready.push_back({id, &root, iter_state, 0, false});
  std::vector<Tagged> inline_ready;
  if (Schedule(state, ready, &inline_ready, /*is_start=*/true)) return;
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
  Start(&state, feeds);
  if (!roots_.empty()) {
    std::unique_lock<std::mutex> lock(state.mu);
    state.done_cv.wait(lock, [&state] { return state.done; });
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
  // Once started, the step can end on another thread, and its caller then
  // free this executor: nothing of it is read after Start.
  const bool no_roots = roots_.empty();
  Start(state, feeds);
  if (no_roots) Finish(state);
}

Status Executor::CollectFetches(StepState* state,
                                std::vector<Tensor>* fetches) const {
  fetches->resize(fetch_slots_.size());
  IterState* root = state->root.iterations[0].get();
  for (size_t i = 0; i < fetch_slots_.size(); ++i) {
    TensorValue& value = root->slots[fetch_slots_[i]];
    if (value.ref != nullptr) {
      // A fetched variable is read here, after its node ran: an error
      // (uninitialized) is that node's.
      Status s = value.ref->Snapshot(&(*fetches)[i]);
      if (!s.ok()) return NodeError(*fetch_nodes_[i], s);
    } else if (!value.tensor.valid()) {
      return NodeError(
          *fetch_nodes_[i],
          errors::InvalidArgument(
              "the fetched tensor was not computed: it is dead (on the "
              "untaken side of a cond's Switch)"));
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

// Runs the nodes on `queue`, then, on this thread, every cheap node they
// make ready. The step's outstanding count includes the nodes on `queue`:
// while this thread works, those `owned` counts stand for everything it
// holds, so the nodes it makes ready and runs itself are not counted one by
// one (one atomic operation per call rather than per node); a node it hands
// to another thread (the pool, an async kernel's callback) gets a count of
// its own first.
//
// Nodes run in the order they became ready (first in, first out, as
// TensorFlow's executor): a cheap node made ready early, such as a read of a
// variable, runs before a long chain made ready after it (the chain that ends
// in that variable's update, say).
void Executor::Process(StepState* state, std::vector<Tagged> queue) const {
  const ScopedFlushDenormal flush_denormals;  // as TF's CPU kernels
  int64_t owned = static_cast<int64_t>(queue.size());
  std::vector<Tagged> ready;
  size_t next = 0;
  while (next < queue.size()) {
    const Tagged tagged = queue[next++];
    if (next >= 1024 && 2 * next >= queue.size()) {  // drop what has run
      queue.erase(queue.begin(), queue.begin() + next);
      next = 0;
    }
    if (state->Stopped()) continue;
    const bool async = items_[tagged.item].is_async && !tagged.dead;
    if (async) HandOver(state, &owned);
    ready.clear();
    if (!RunItem(state, tagged, &ready)) continue;  // its callback goes on
    if (async) ++owned;  // it failed before starting: its count is ours
    Distribute(state, ready, &queue, &owned, next);
  }
  if (state->outstanding.fetch_sub(owned, std::memory_order_acq_rel) == owned) {
    Finish(state);
  }
}

// Gives a node its own count of the step's outstanding nodes, before another
// thread gets it: one of `owned` when the caller has more than the one it
// keeps, else a new one.
void Executor::HandOver(StepState* state, int64_t* owned) const {
  if (owned != nullptr && *owned > 1) {
    --*owned;
  } else if (owned != nullptr) {
    state->outstanding.fetch_add(1, std::memory_order_acq_rel);
  }
}

// Newly ready nodes: the cheap ones (and dead ones: they only pass their
// deadness on) go on `inline_ready`, one expensive one too when nothing else
// waits there (its entries from `first_pending` on), the other expensive
// ones to the pool. With `owned`, the nodes are not counted yet (see
// Process); without, each already is.
void Executor::Distribute(StepState* state, const std::vector<Tagged>& ready,
                          std::vector<Tagged>* inline_ready, int64_t* owned,
                          size_t first_pending) const {
  auto to_pool = [&](const Tagged& t) {
    HandOver(state, owned);
    state->step->inter_op_pool->Schedule(
        [this, state, t] { Process(state, {t}); });
  };
  const Tagged* kept_expensive = nullptr;
  for (const Tagged& t : ready) {
    if (t.dead || !items_[t.item].expensive) {
      inline_ready->push_back(t);
    } else if (kept_expensive == nullptr) {
      kept_expensive = &t;
    } else {
      to_pool(t);
    }
  }
  if (kept_expensive != nullptr) {
    if (inline_ready->size() == first_pending) {
      inline_ready->push_back(*kept_expensive);
    } else {
      to_pool(*kept_expensive);
    }
  }
}

// Continues a step from an async kernel's callback. Callbacks can nest (a
// _Send whose receiver goes on to send back): past kMaxCallbackDepth levels
// (a few kilobytes of stack each) the work goes to the pool instead of
// deeper into this thread's stack.
constexpr int kMaxCallbackDepth = 64;

void Executor::ProcessAfterCallback(StepState* state,
                                    std::vector<Tagged> stack) const {
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

// Accounts for one finished node (none at the start) and its newly ready
// successors, then distributes them (the caller runs `inline_ready` with
// Process). Returns true when the step is complete (the state must not be
// touched afterwards).
bool Executor::Schedule(StepState* state, const std::vector<Tagged>& ready,
                        std::vector<Tagged>* inline_ready,
                        bool is_start) const {
  const int64_t delta = static_cast<int64_t>(ready.size()) - (is_start ? 0 : 1);
  if (delta != 0 &&
      state->outstanding.fetch_add(delta, std::memory_order_acq_rel) + delta ==
          0) {
    Finish(state);
    return true;
  }
  Distribute(state, ready, inline_ready, /*owned=*/nullptr);
  return false;
}

// Runs one node. Returns false for an async kernel that finishes later (its
// callback then accounts for it); else the node's newly ready successors
// are in `ready`.
bool Executor::RunItem(StepState* state, const Tagged& tagged,
                       std::vector<Tagged>* ready) const {
  const Item& item = items_[tagged.item];
  const Node& node = *item.node;
  TensorValue* inputs = tagged.iter_state->slots.data() + item.input_start;
  if (tagged.dead) {  // passes the deadness on; its live inputs are dropped
    for (int i = 0; i < node.num_inputs(); ++i) inputs[i] = TensorValue();
    // A dead _Send still runs: with its input unset, its kernel sends the
    // deadness to the device waiting for it.
    if (item.transfer != Item::Transfer::kSend) {
      PropagateOutputs(state, tagged, nullptr, ready);
      return true;
    }
  }
  for (int i = 0; i < node.num_inputs(); ++i) {
    TensorValue& in = inputs[i];
    if (node.input_is_ref(i)) {
      if (in.ref == nullptr &&
          !(item.kind == NodeKind::kMerge && !in.has_value())) {
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
  StepStatsCollector* stats = state->step->stats;
  if (item.inline_kind != Item::Inline::kNone && stats == nullptr &&
      RunInline(state, tagged, inputs, ready)) {
    return true;
  }
  OpKernelContext::Params params;
  params.kernel = item.kernel;
  params.inputs = inputs;
  params.resource_mgr = state->step->resource_mgr;
  params.intra_op_pool = state->step->intra_op_pool;
  params.rendezvous = state->step->rendezvous;
  params.cancellation_manager = state->step->cancellation_manager;
  params.step_id = state->step->step_id;
  params.device = state->step->device;
  const int64_t start_us = stats != nullptr ? NowMicrosSinceEpoch() : 0;
  if (AsyncOpKernel* async = item.kernel->AsAsync()) {
    auto* call = new AsyncCall(params);
    call->params.rendezvous =
        FrameView(tagged, params.rendezvous, &call->frame_view);
    async->ComputeAsync(
        &call->ctx, [this, state, tagged, call, stats, start_us] {
          if (stats != nullptr) {
            stats->RecordNode(*items_[tagged.item].node, start_us,
                              NowMicrosSinceEpoch(), call->ctx);
          }
          std::vector<Tagged> ready;
          FinishItem(state, tagged, &call->ctx, &ready);
          delete call;
          std::vector<Tagged> inline_ready;
          if (Schedule(state, ready, &inline_ready, /*is_start=*/false)) return;
          if (!inline_ready.empty()) {
            ProcessAfterCallback(state, std::move(inline_ready));
          }
        });
    return false;
  }
  std::optional<FrameIterRendezvous> frame_view;
  params.rendezvous = FrameView(tagged, params.rendezvous, &frame_view);
  OpKernelContext ctx(params);
  ComputeGuarded(item.kernel, &ctx);
  if (stats != nullptr) {
    stats->RecordNode(node, start_us, NowMicrosSinceEpoch(), ctx);
  }
  FinishItem(state, tagged, &ctx, ready);
  return true;
}

// The rendezvous a node's kernel sees: `step_rendezvous`, except for a _Send
// or _Recv inside a loop, which sees it through a view (made in `view`)
// whose keys name the frame instance and iteration.
Rendezvous* Executor::FrameView(
    const Tagged& tagged, Rendezvous* step_rendezvous,
    std::optional<FrameIterRendezvous>* view) const {
  if (step_rendezvous == nullptr || tagged.frame->is_root() ||
      items_[tagged.item].transfer == Item::Transfer::kNone) {
    return step_rendezvous;
  }
  view->emplace(step_rendezvous, tagged.frame->id, tagged.iter);
  return &view->value();
}

// Runs a node of Item::inline_kind without its kernel. False when the
// kernel must run instead: a predicate that is not a scalar bool (the kernel
// reports it), a Const on a device whose memory is not the host's.
bool Executor::RunInline(StepState* state, const Tagged& tagged,
                         TensorValue* inputs,
                         std::vector<Tagged>* ready) const {
  const Item& item = items_[tagged.item];
  auto is_scalar_bool = [](const Tensor& t) {
    return t.dtype() == DT_BOOL && t.shape().rank() == 0;
  };
  TensorValue outputs[2];
  switch (item.inline_kind) {
    case Item::Inline::kSwitch:
      if (!is_scalar_bool(inputs[1].tensor)) return false;
      outputs[inputs[1].tensor.data<bool>()[0] ? 1 : 0] = std::move(inputs[0]);
      inputs[1] = TensorValue();
      break;
    case Item::Inline::kMerge: {
      int live = 0;
      while (!inputs[live].has_value()) {
        if (++live == item.num_data_inputs) return false;
      }
      outputs[0] = std::move(inputs[live]);
      if (!item.merge_indices.empty()) {
        outputs[1].tensor = item.merge_indices[live];
      }
      for (int i = live + 1; i < item.num_data_inputs; ++i) {
        inputs[i] = TensorValue();
      }
      break;
    }
    case Item::Inline::kConst:
      if (state->step->device != nullptr &&
          !state->step->device->host_memory()) {
        return false;
      }
      outputs[0].tensor = item.constant;
      break;
    case Item::Inline::kLoopCond:
      if (!is_scalar_bool(inputs[0].tensor)) return false;
      [[fallthrough]];
    default:
      outputs[0] = std::move(inputs[0]);
  }
  PropagateOutputs(state, tagged, outputs, ready);
  return true;
}

// After a node's kernel: its inputs are released, its error recorded, or its
// outputs passed on to the successors (those made ready go on `ready`).
void Executor::FinishItem(StepState* state, const Tagged& tagged,
                          OpKernelContext* ctx,
                          std::vector<Tagged>* ready) const {
  const Item& item = items_[tagged.item];
  const Node& node = *item.node;
  TensorValue* inputs = tagged.iter_state->slots.data() + item.input_start;
  for (int i = 0; i < node.num_inputs(); ++i) inputs[i] = TensorValue();
  if (!ctx->status().ok()) {
    state->Fail(NodeError(node, ctx->status()));
    return;
  }
  TensorValue* outputs = ctx->mutable_outputs();
  if (item.transfer == Item::Transfer::kRecv && !outputs[0].has_value()) {
    // The value sent was dead (see sendrecv_ops.cc): so is this one.
    Tagged dead = tagged;
    dead.dead = true;
    PropagateOutputs(state, dead, nullptr, ready);
    return;
  }
  for (int o = 0; o < node.num_outputs(); ++o) {
    const TensorValue& v = outputs[o];
    // A Switch leaves its untaken output unset: dead.
    if (!v.has_value() && item.kind == NodeKind::kSwitch) continue;
    if (!v.has_value() ||
        (v.ref == nullptr && v.tensor.dtype() != node.output_type(o))) {
      state->Fail(
          NodeError(node, errors::Internal("kernel produced no ",
                                           DataTypeName(node.output_type(o)),
                                           " value for output ", o)));
      return;
    }
  }
  PropagateOutputs(state, tagged, outputs, ready);
}

// Passes a node's outputs (its deadness when tagged dead) to the iteration and
// frame they belong to: an Enter's to its loop's first iteration (a constant's
// to every iteration), an Exit's to the parent frame, a NextIteration's to the
// next iteration of its loop, every other node's to its own iteration.
void Executor::PropagateOutputs(StepState* state, const Tagged& tagged,
                                TensorValue* outputs,
                                std::vector<Tagged>* ready) const {
  const Item& item = items_[tagged.item];
  FrameState* frame = tagged.frame;
  const bool dead =
      tagged.dead;  // (a node with no outputs has outputs == nullptr)
  switch (item.kind) {
    case NodeKind::kEnter: {
      FrameState* child = ChildFrame(state, frame, tagged.iter, item);
      bool first_done = false;
      {
        std::lock_guard<std::mutex> lock(child->mu);
        if (!dead && item.is_constant) {
          child->constants.emplace_back(&item, outputs[0]);
          for (int64_t i = child->first_iter; i <= child->iteration_count;
               ++i) {
            ActivateNodes(state, item, outputs, false, child, i, ready,
                          /*reused=*/true);
          }
        } else {
          ActivateNodes(state, item, outputs, dead, child, child->first_iter,
                        ready);
        }
        first_done = --child->pending_enters == 0;
      }
      if (first_done) CleanupIterations(state, child, ready);
      break;
    }
    case NodeKind::kExit: {
      // Live in the loop's last iteration only; an Exit that never is
      // passes its deadness on when the loop's frame ends.
      if (dead) break;
      bool twice;
      {
        std::lock_guard<std::mutex> lock(frame->mu);
        twice = !frame->live_exits.insert(tagged.item).second;
      }
      if (twice) {
        state->Fail(NodeError(
            *item.node, errors::Internal("an Exit node produced a value in "
                                         "two iterations of its loop")));
        break;
      }
      FrameState* parent = frame->parent;
      std::unique_lock<std::mutex> lock(parent->mu, std::defer_lock);
      if (!parent->is_root()) lock.lock();
      ActivateNodes(state, item, outputs, false, parent, frame->parent_iter,
                    ready);
      break;
    }
    case NodeKind::kNextIteration: {
      bool idle;
      {
        std::lock_guard<std::mutex> lock(frame->mu);
        // A dead one is the loop's last iteration: no next one.
        if (!dead && tagged.iter == frame->iteration_count &&
            frame->num_outstanding_iterations ==
                frame->info->parallel_iterations) {
          frame->deferred.emplace_back(&item, std::move(outputs[0]));
        } else if (!dead) {
          if (tagged.iter == frame->iteration_count) {
            NewIteration(state, frame, ready);
          }
          ActivateNodes(state, item, outputs, false, frame, tagged.iter + 1,
                        ready);
        }
        idle = tagged.iter_state->outstanding_ops.fetch_sub(
                   1, std::memory_order_acq_rel) == 1;
      }
      if (idle) CleanupIterations(state, frame, ready);
      return;
    }
    default: {
      if (frame->is_root()) {
        ActivateNodes(state, item, outputs, dead, frame, tagged.iter, ready);
        return;
      }
      std::unique_lock<std::mutex> lock(frame->mu, std::defer_lock);
      if (!item.lock_free) lock.lock();
      // The iteration's count changes by the successors made ready less
      // this node: one atomic operation, none for a node that makes one
      // successor ready (the count cannot reach zero meanwhile: this node's
      // part of it stands until then).
      int made_ready = 0;
      ActivateNodes(state, item, outputs, dead, frame, tagged.iter, ready,
                    /*reused=*/false, tagged.iter_state, &made_ready);
      const int delta = made_ready - 1;
      const bool idle =
          delta != 0 && tagged.iter_state->outstanding_ops.fetch_add(
                            delta, std::memory_order_acq_rel) +
                                delta ==
                            0;
      if (lock.owns_lock()) lock.unlock();
      if (idle) CleanupIterations(state, frame, ready);
      return;
    }
  }
  if (!frame->is_root()) NodeDone(state, frame, tagged.iter, ready);
}

// Delivers the outputs of `item` (its deadness when `dead`) to its
// successors in iteration `iter` of `frame`; those made ready go on
// `ready`. Outside the root frame the caller holds frame->mu.
void Executor::ActivateNodes(StepState* state, const Item& item,
                             TensorValue* outputs, bool dead, FrameState* frame,
                             int64_t iter, std::vector<Tagged>* ready,
                             bool reused, IterState* it,
                             int* made_ready) const {
  if (it == nullptr) it = frame->iteration(iter);
  // A node made ready in a loop's iteration is counted there: by the caller
  // when it asks (made_ready), else here.
  auto count_ready = [&] {
    if (made_ready != nullptr) {
      ++*made_ready;
    } else if (!frame->is_root()) {
      it->outstanding_ops.fetch_add(1, std::memory_order_relaxed);
    }
  };
  const bool from_enter = item.kind == NodeKind::kEnter;
  // `value`: the input (null for a dead one, or a control edge).
  auto arrive = [&](int dst_id, int slot, TensorValue* value, bool move,
                    bool control) {
    const Item& dst = items_[dst_id];
    if (dst.const_on_arrival && state->consts_on_arrival) {
      TensorValue constant;
      const bool const_dead = control ? dead : value == nullptr;
      if (!const_dead) constant.tensor = dst.constant;
      ActivateNodes(state, dst, &constant, const_dead, frame, iter, ready,
                    /*reused=*/false, it, made_ready);
      return;
    }
    if (dst.kind == NodeKind::kMerge) {
      ActivateMerge(state, dst, slot, value, move, control, from_enter, frame,
                    iter, ready);
      return;
    }
    if (value != nullptr) it->slots[slot] = move ? std::move(*value) : *value;
    const bool input_dead = control ? dead : value == nullptr;
    if (dst.initial_pending == 1) {  // its only input: ready now
      ready->push_back({dst_id, frame, it, iter,
                        input_dead && dst.kind != NodeKind::kControlTrigger});
      count_ready();
      return;
    }
    if (input_dead) it->dead[dst.local].store(true, std::memory_order_relaxed);
    if (it->pending[dst.local].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      const bool dst_dead = has_control_flow_ &&
                            dst.kind != NodeKind::kControlTrigger &&
                            it->dead[dst.local].load(std::memory_order_relaxed);
      ready->push_back({dst_id, frame, it, iter, dst_dead});
      count_ready();
    }
  };
  for (const Item::OutEdge& e : item.out_edges) {
    TensorValue* value = !dead && outputs[e.src_output].has_value()
                             ? &outputs[e.src_output]
                             : nullptr;
    const bool move = e.last_use && !reused;
    if (e.dst < 0) {  // a fetch
      if (value != nullptr) {
        it->slots[e.slot] = move ? std::move(*value) : *value;
      }
      continue;
    }
    arrive(e.dst, e.slot, value, move, false);
  }
  for (int c : item.control_dsts) arrive(c, -1, nullptr, false, true);
}

// A Merge is ready once its control inputs have arrived and either a live
// data input has (the first one is kept) or every data input is dead (a
// dead Enter counts for all: the loop it starts never runs).
void Executor::ActivateMerge(StepState* state, const Item& dst, int slot,
                             TensorValue* value, bool move, bool control,
                             bool from_enter, FrameState* frame, int64_t iter,
                             std::vector<Tagged>* ready) const {
  std::unique_lock<std::mutex> lock(frame->mu, std::defer_lock);
  if (frame->is_root()) lock.lock();
  IterState* it = frame->iteration(iter);
  IterState::MergeState& m = it->merges[dst.merge_index];
  if (m.fired) return;
  if (control) {
    it->pending[dst.local].fetch_sub(1, std::memory_order_relaxed);
  } else if (value != nullptr) {
    if (!m.live) it->slots[slot] = move ? std::move(*value) : *value;
    m.live = true;
  } else {
    ++m.dead_inputs;
    m.enter_dead = m.enter_dead || from_enter;
  }
  if (it->pending[dst.local].load(std::memory_order_relaxed) != 0) return;
  const bool all_dead =
      !m.live && (m.enter_dead || m.dead_inputs == dst.num_data_inputs);
  if (!m.live && !all_dead) return;
  m.fired = true;
  ready->push_back(
      {static_cast<int>(&dst - items_.data()), frame, it, iter, !m.live});
  if (!frame->is_root()) {
    it->outstanding_ops.fetch_add(1, std::memory_order_relaxed);
  }
}

// Starts the next iteration of `frame` (whose mutex the caller holds): the
// loop constants that have arrived reach it at once.
void Executor::NewIteration(StepState* state, FrameState* frame,
                            std::vector<Tagged>* ready) const {
  ++frame->iteration_count;
  ++frame->num_outstanding_iterations;
  if (frame->finished.empty()) {
    frame->iterations.push_back(
        std::make_unique<IterState>(*frame->info, has_control_flow_));
  } else {
    frame->finished.back()->Reset(*frame->info);
    frame->iterations.push_back(std::move(frame->finished.back()));
    frame->finished.pop_back();
  }
  for (auto& [enter, value] : frame->constants) {
    ActivateNodes(state, *enter, &value, false, frame, frame->iteration_count,
                  ready, /*reused=*/true);
  }
}

// The instance of the loop `enter` enters, for iteration `parent_iter` of
// `parent`: created by the first of its Enter nodes to fire.
Executor::FrameState* Executor::ChildFrame(StepState* state, FrameState* parent,
                                           int64_t parent_iter,
                                           const Item& enter) const {
  std::lock_guard<std::mutex> lock(parent->mu);
  auto& child = parent->children[{parent_iter, enter.child_frame}];
  if (child == nullptr) {
    child = std::make_unique<FrameState>();
    child->info = &frames_[enter.child_frame];
    child->parent = parent;
    child->parent_iter = parent_iter;
    if (state->step->rendezvous != nullptr) {  // keys of partitioned loops
      child->id = ChildFrameId(parent->id, parent_iter, child->info->name);
    }
    child->pending_enters = child->info->num_enters;
    child->iterations.push_back(
        std::make_unique<IterState>(*child->info, has_control_flow_));
    if (!parent->is_root())
      ++parent->iteration(parent_iter)->outstanding_frames;
  }
  return child.get();
}

// A node of iteration `iter` of `frame` (not the root) has run and passed
// its outputs on.
void Executor::NodeDone(StepState* state, FrameState* frame, int64_t iter,
                        std::vector<Tagged>* ready) const {
  bool idle;
  {
    std::lock_guard<std::mutex> lock(frame->mu);
    idle = frame->iteration(iter)->outstanding_ops.fetch_sub(
               1, std::memory_order_acq_rel) == 1;
  }
  if (idle) CleanupIterations(state, frame, ready);
}

// Deletes the finished iterations of `frame`, oldest first (starting the
// iterations that waited for a slot), and the frame itself once every
// iteration is finished and every Enter has fired: its Exit nodes that
// never produced a value pass their deadness on, and the parent's
// iteration may finish in turn.
void Executor::CleanupIterations(StepState* state, FrameState* frame,
                                 std::vector<Tagged>* ready) const {
  while (!frame->is_root()) {
    {
      std::lock_guard<std::mutex> lock(frame->mu);
      while (frame->first_iter <= frame->iteration_count) {
        IterState* it = frame->iteration(frame->first_iter);
        const bool done = it->outstanding_ops.load() == 0 &&
                          it->outstanding_frames == 0 &&
                          (frame->first_iter > 0 || frame->pending_enters == 0);
        if (!done) break;
        frame->finished.push_back(std::move(frame->iterations.front()));
        frame->iterations.pop_front();
        ++frame->first_iter;
        --frame->num_outstanding_iterations;
        if (!frame->deferred.empty()) {
          NewIteration(state, frame, ready);
          for (auto& [next, value] : frame->deferred) {
            ActivateNodes(state, *next, &value, false, frame,
                          frame->iteration_count, ready);
          }
          frame->deferred.clear();
        }
      }
      if (frame->num_outstanding_iterations > 0 || frame->pending_enters > 0 ||
          frame->ended) {
        return;
      }
      frame->ended = true;
    }
    FrameState* parent = frame->parent;
    const int64_t parent_iter = frame->parent_iter;
    std::unique_lock<std::mutex> lock(parent->mu, std::defer_lock);
    if (!parent->is_root()) lock.lock();
    for (int exit : frame->info->exits) {
      if (frame->live_exits.count(exit) == 0) {
        ActivateNodes(state, items_[exit], nullptr, true, parent, parent_iter,
                      ready);
      }
    }
    if (parent->is_root()) lock.lock();
    bool parent_idle = false;
    if (!parent->is_root()) {
      IterState* it = parent->iteration(parent_iter);
      parent_idle =
          --it->outstanding_frames == 0 && it->outstanding_ops.load() == 0;
    }
    auto child = parent->children.find(
        {parent_iter, static_cast<int>(frame->info - frames_.data())});
    if (child != parent->children.end()) {
      std::lock_guard<std::mutex> ended_lock(state->ended_mu);
      state->ended_frames.push_back(std::move(child->second));
      parent->children.erase(child);
    }
    lock.unlock();
    if (!parent_idle) return;
    frame = parent;
  }
}

}  // namespace tensorweave
