// Step capture: a graph-mode system knows a whole step before it runs it.
// After a partitioned step has run a few times with the same feed shapes,
// the work of its device partition (a GPU's kernels) is recorded once (a
// CUDA graph) and replayed by later steps: the host partitions still run
// (they feed values in and take fetches out through the rendezvous), but
// the device partition's kernels are no longer dispatched one by one.
//
// A replay is only right when the step would do the same device work, so
// each replay first receives the partition's inputs and checks them against
// the recording: the dtypes and shapes of values copied to the device, the
// values of those its kernels read on the host (shapes, axes: they are part
// of the recording), and the buffers of the variables it uses. On any
// difference the values go back into the rendezvous and the partition runs
// normally; a new recording is made once the new shapes have held for a few
// steps.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "core/framework/cancellation.h"
#include "core/runtime/session.h"

namespace tensorweave {

namespace {

// Normal runs with the same feed shapes before one is captured (the first
// runs also let kernels settle: cuDNN's algorithm search, allocations).
constexpr int kRunsBeforeCapture = 2;

std::atomic<int64_t> g_captures{0}, g_replays{0}, g_fallbacks{0};

bool CaptureDisabledByEnv() {
  static const bool disabled = [] {
    const char* v = std::getenv("TW_CUDA_GRAPHS");
    return v != nullptr &&
           (std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0);
  }();
  return disabled;
}

// TW_CUDA_GRAPHS_VERBOSE=1: why a step is not captured, or not replayed.
bool Verbose() {
  static const bool verbose = [] {
    const char* v = std::getenv("TW_CUDA_GRAPHS_VERBOSE");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return verbose;
}

template <typename... Args>
void Explain(const Args&... args) {
  if (Verbose()) {
    std::fprintf(stderr, "tensorweave step capture: %s\n",
                 StrCat(args...).c_str());
  }
}

bool SameHostValue(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.dtype() != DT_STRING &&
         std::memcmp(a.raw_data(), b.raw_data(), a.num_bytes()) == 0;
}

// Waits for the value of `key` (the step's host partitions send it).
Status BlockingRecv(Rendezvous* rendezvous, const std::string& key,
                    Tensor* value) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  Status status;
  rendezvous->RecvAsync(key, [&](const Status& s, const Tensor& v, bool dead) {
    std::lock_guard<std::mutex> lock(mu);
    status = s;
    if (s.ok() && dead) {
      status = errors::Internal("a dead value reached a captured step");
    }
    *value = v;
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return status;
}

}  // namespace

Session::CaptureCounters Session::GetCaptureCounters() {
  CaptureCounters c;
  c.captures = g_captures.load();
  c.replays = g_replays.load();
  c.fallbacks = g_fallbacks.load();
  return c;
}

void Session::PrepareCapture(Callable* callable) {
  // Called with mu_ held, once the partitions are made.
  if (CaptureDisabledByEnv()) return;
  int device_partition = -1;
  const int n = static_cast<int>(callable->partitions.size());
  for (int p = 0; p < n; ++p) {
    const Device* device = callable->partitions[p]->device;
    if (device->host_memory()) continue;
    if (device_partition >= 0 || !device->SupportsCapture()) {
      return Explain(
          "not captured: the step runs on several devices with "
          "memory of their own, or on one that cannot capture");
    }
    device_partition = p;
  }
  if (device_partition < 0) return;
  const PartitionRun& part = *callable->partitions[device_partition];
  for (const Node* node : part.executor->nodes()) {
    OpKernel* kernel = nullptr;
    auto added = part.added_kernels.find(node->id());
    if (added != part.added_kernels.end()) {
      kernel = added->second.get();
    } else {
      const Node* original = graph_->FindNode(node->name());
      if (original == nullptr || !GetKernel(original, &kernel).ok()) return;
    }
    if (kernel == nullptr || !kernel->CanBeCaptured()) {
      return Explain("not captured: node ", node->name(), " (",
                     node->type_string(), ") cannot be captured");
    }
  }
  // A value the device computes and its own kernels then read on the host
  // (a same-device copy to host memory) exists only once the recording has
  // run: the host part of the capturing step would read it too early.
  for (const Node* node : part.executor->nodes()) {
    if (node->type_string() != "_Recv") continue;
    bool host_memory = false;
    std::string send_device;
    GetAttr(node->attrs(), "host_memory", &host_memory);
    GetAttr(node->attrs(), "send_device", &send_device);
    if (host_memory && send_device == part.partition.device) {
      std::string tensor;
      GetAttr(node->attrs(), "tensor_name", &tensor);
      return Explain("not captured: ", tensor, " is computed in ", send_device,
                     "'s memory and read on the host by ",
                     node->out_edges().empty()
                         ? std::string("a kernel")
                         : node->out_edges()[0].dst->name());
    }
  }
  // The host partitions may feed the device and fetch from it, but not
  // compute on what it sends them: during the capturing step those values
  // exist only once the recording has run, after every partition is done.
  const std::string& device_name = part.partition.device;
  for (int p = 0; p < n; ++p) {
    if (p == device_partition) continue;
    const Graph& g = *callable->partitions[p]->graph;
    for (int id = 0; id < g.num_nodes(); ++id) {
      const Node* node = g.node(id);
      if (node == nullptr || node->type_string() != "_Recv") continue;
      std::string send_device;
      if (!GetAttr(node->attrs(), "send_device", &send_device).ok() ||
          send_device != device_name) {
        continue;
      }
      if (!node->out_edges().empty() || !node->control_outputs().empty()) {
        const Node* user = !node->out_edges().empty()
                               ? node->out_edges()[0].dst
                               : node->control_outputs()[0];
        return Explain("not captured: ", user->name(), " (",
                       user->type_string(), ") on ",
                       callable->partitions[p]->partition.device,
                       " waits for a value from ", device_name);
      }
    }
  }
  callable->capture = std::make_unique<CaptureState>();
  callable->capture->partition = device_partition;
}

bool Session::RunCaptured(const Callable& callable, StepContext* step,
                          const std::vector<Tensor>& feeds,
                          std::vector<Tensor>* fetches, Status* status) {
  CaptureState& state = *callable.capture;
  // Concurrent steps of one callable: the first uses the capture state,
  // the others run normally.
  std::unique_lock<std::mutex> lock(state.mu, std::try_to_lock);
  if (!lock.owns_lock() || state.failures >= 2) return false;
  std::vector<TensorShape> shapes;
  shapes.reserve(feeds.size());
  for (const Tensor& f : feeds) shapes.push_back(f.shape());
  if (shapes != state.feed_shapes) {
    state.feed_shapes = std::move(shapes);
    state.stable_runs = 0;
    state.captured.reset();
  }
  const int p = state.partition;
  Device* device = callable.partitions[p]->device;

  if (state.captured == nullptr) {
    if (++state.stable_runs <= kRunsBeforeCapture) return false;
    // Capture this step. Another session's step on the device meanwhile
    // would be recorded too: the device refuses to begin then.
    // The variables the partition uses, and their buffers now: the
    // recording reads and writes these addresses.
    std::vector<std::pair<Var*, const void*>> buffers;
    for (const Node* node : callable.partitions[p]->executor->nodes()) {
      if (node->type_string() != "VariableV2") continue;
      std::string container, shared_name;
      GetAttr(node->attrs(), "container", &container);
      GetAttr(node->attrs(), "shared_name", &shared_name);
      Var* var = resource_mgr_.FindVar(
          container, shared_name.empty() ? node->name() : shared_name);
      if (var == nullptr) continue;
      std::lock_guard<std::mutex> var_lock(*var->mu());
      buffers.emplace_back(var, var->tensor()->raw_data());
    }
    if (!device->BeginCapture().ok()) return false;
    // Its own cancellation: a capture that fails cancels only itself, and
    // the step then runs normally with the caller's (which Close and the
    // timeout still reach through the forwarding below).
    // (Shared: the forwarding callback may still run as this returns.)
    auto capture_cancel = std::make_shared<CancellationManager>();
    CancellationManager* outer = step->cancellation_manager;
    CancellationManager::Token token = 0;
    const bool forwarded =
        outer == nullptr || outer->RegisterCallback(&token, [capture_cancel] {
          capture_cancel->StartCancel();
        });
    if (!forwarded) capture_cancel->StartCancel();
    step->cancellation_manager = capture_cancel.get();
    Status run = RunPartitions(callable, step, feeds, fetches);
    step->cancellation_manager = outer;
    if (outer != nullptr && forwarded) outer->DeregisterCallback(token);
    std::unique_ptr<CapturedStep> captured;
    Status end = device->EndCapture(run, &captured);
    if (!run.ok() || !end.ok()) {
      Explain("the capture failed: ",
              run.ok() ? end.ToString() : run.ToString());
    }
    if (!run.ok()) {
      // The step's own error: nothing ran on the device; run it again
      // normally for its error (and effects on the host, if any).
      ++state.failures;
      state.stable_runs = 0;
      return false;
    }
    // A variable given a new buffer by the step (an update that met a
    // reader and copied) would make the replay read the old one: such a
    // recording is dropped, the step's values stand (the recording ran).
    bool moved = false;
    for (const auto& [var, buffer] : buffers) {
      std::lock_guard<std::mutex> var_lock(*var->mu());
      moved = moved || var->tensor()->raw_data() != buffer;
    }
    if (end.ok() && !moved) {
      ++g_captures;
      state.captured = std::move(captured);
      state.var_buffers = std::move(buffers);
      *status = run;
      return true;
    }
    if (end.ok()) {
      Explain("recording dropped: the step gave a variable a new buffer");
      ++state.failures;
      state.stable_runs = 0;
      *status = run;
      return true;
    }
    // The recording failed (a kernel that cannot be captured after all):
    // nothing ran on the device, so the step runs again, normally.
    ++state.failures;
    state.stable_runs = 0;
    return false;
  }

  // Replay: the device partition is replaced by the recording.
  bool replayed = false;
  CapturedStep* captured = state.captured.get();
  auto replayer = [&](Rendezvous* rendezvous,
                      std::function<void(const Status&)> done) {
    const auto& in = captured->inputs();
    std::vector<Tensor> values(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
      Status s = BlockingRecv(rendezvous, in[i].key, &values[i]);
      if (!s.ok()) return done(s);
    }
    bool same = true;
    for (size_t i = 0; i < in.size() && same; ++i) {
      same = in[i].host_memory ? SameHostValue(values[i], in[i].value)
                               : values[i].dtype() == in[i].dtype &&
                                     values[i].shape() == in[i].shape;
    }
    for (const auto& [var, buffer] : state.var_buffers) {
      std::lock_guard<std::mutex> var_lock(*var->mu());
      same = same && var->tensor()->raw_data() == buffer;
    }
    if (!same) {
      ++g_fallbacks;
      Explain(
          "replay skipped: an input's shape or host value, or a "
          "variable's buffer, differs from the recording");
      // Hand the values back and run the partition's kernels.
      for (size_t i = 0; i < in.size(); ++i) {
        Status s = rendezvous->Send(in[i].key, values[i], false);
        if (!s.ok()) return done(s);
      }
      StepContext part_step = *step;
      part_step.rendezvous = rendezvous;
      part_step.device = device;
      auto outputs = std::make_shared<std::vector<Tensor>>();
      Status run =
          callable.partitions[p]->executor->Run(part_step, {}, outputs.get());
      if (run.ok()) run = device->Sync();
      return done(run);
    }
    std::vector<Tensor> outputs;
    Status s = captured->Replay(values, &outputs);
    if (!s.ok()) return done(s);
    const auto& out = captured->outputs();
    for (size_t i = 0; i < out.size(); ++i) {
      s = rendezvous->Send(out[i].key, outputs[i], false);
      if (!s.ok()) return done(s);
    }
    replayed = true;
    ++g_replays;
    done(Status::OK());
  };
  *status = RunPartitions(callable, step, feeds, fetches, nullptr, p, replayer);
  if (!replayed) {
    // The step differed from the recording: record again once it is stable.
    state.captured.reset();
    state.stable_runs = 0;
  }
  return true;
}

}  // namespace tensorweave
