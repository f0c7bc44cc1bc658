#include "core/runtime/graph_partition.h"

#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tensorweave {

namespace {

// The while-loop frames of a step (TensorFlow's ControlFlowInfo), in the
// executor's terms: the frame a node runs in. An Enter runs in the frame
// around the loop it enters, an Exit in the loop it leaves; a value crosses
// devices in the frame of the node that reads it.
struct LoopFrames {
  struct Frame {
    std::string name;
    int parent = -1;
    int64_t parallel_iterations = 10;
    const Node* loop_cond = nullptr;  // the leader's predicate
  };
  std::vector<Frame> frames = {Frame()};  // [0]: the step's root frame
  std::vector<int> frame_of;              // by node id

  // Follows the edges from the nodes without inputs: an Enter's successors
  // are in the loop it enters, an Exit's in the frame around its loop. (The
  // executor checks the structure; here a malformed loop leaves nodes in the
  // root frame.)
  void Build(const Graph& graph, const std::vector<bool>& needed,
             const std::function<bool(const Node*, int)>& is_fed) {
    const int n = graph.num_nodes();
    frame_of.assign(n, 0);
    std::vector<bool> seen(n, false);
    std::vector<const Node*> stack;
    for (int id = 0; id < n; ++id) {
      const Node* node = graph.node(id);
      if (!needed[id] || !node->control_inputs().empty()) continue;
      bool root = true;
      for (int i = 0; i < node->num_inputs() && root; ++i) {
        root = is_fed(node->input(i).node, node->input(i).index);
      }
      if (root) {
        seen[id] = true;
        stack.push_back(node);
      }
    }
    std::map<std::string, int> by_name;
    while (!stack.empty()) {
      const Node* node = stack.back();
      stack.pop_back();
      const int frame = frame_of[node->id()];
      const std::string& op = node->type_string();
      int out_frame = frame;
      if (op == "Enter" || op == "RefEnter") {
        std::string name;
        if (!GetAttr(node->attrs(), "frame_name", &name).ok()) continue;
        auto [it, inserted] = by_name.try_emplace(name, frames.size());
        if (inserted) {
          Frame f;
          f.name = name;
          f.parent = frame;
          if (!GetAttr(node->attrs(), "parallel_iterations",
                       &f.parallel_iterations)
                   .ok()) {
            f.parallel_iterations = 10;
          }
          frames.push_back(std::move(f));
        }
        out_frame = it->second;
      } else if ((op == "Exit" || op == "RefExit") && frame != 0) {
        out_frame = frames[frame].parent;
      } else if (op == "LoopCond" && frames[frame].loop_cond == nullptr) {
        frames[frame].loop_cond = node;
      }
      auto visit = [&](const Node* dst) {
        if (!needed[dst->id()] || seen[dst->id()]) return;
        seen[dst->id()] = true;
        frame_of[dst->id()] = out_frame;
        stack.push_back(dst);
      };
      for (const Edge& e : node->out_edges()) {
        if (!is_fed(node, e.src_output)) visit(e.dst);
      }
      for (const Node* c : node->control_outputs()) visit(c);
    }
  }
};

// An Enter or NextIteration reading a value on another device gets a copy on
// the device that reads it (TensorFlow moves them there): an Enter's value
// enters a loop there, a NextIteration's starts the next iteration there.
// Cutting the edge after them instead would send the value only in the
// iterations they run in, not in every iteration the receiver runs.
bool Replicable(const Node& node) {
  return node.type_string() == "Enter" || node.type_string() == "NextIteration";
}

// Builds the partitions, one edge at a time.
class Partitioner {
 public:
  Partitioner(const Graph& graph, const ExecutorSpec& spec,
              const std::vector<bool>& needed, const PartitionOptions& options,
              std::vector<Partition>* partitions)
      : graph_(graph),
        needed_(needed),
        options_(options),
        partitions_(partitions) {
    for (size_t f = 0; f < spec.feeds.size(); ++f) {
      feed_of_.emplace(
          std::make_pair(spec.feeds[f].node->id(), spec.feeds[f].index),
          static_cast<int>(f));
    }
    device_.resize(graph.num_nodes());
    bool has_loops = false;
    for (int id = 0; id < graph.num_nodes(); ++id) {
      if (!needed[id]) continue;
      device_[id] = options.device_of(graph.node(id));
      has_loops = has_loops || graph.node(id)->type_string() == "Enter" ||
                  graph.node(id)->type_string() == "RefEnter";
    }
    frames_.frame_of.assign(graph.num_nodes(), 0);
    if (has_loops) {
      frames_.Build(graph, needed, [this](const Node* n, int index) {
        return IsFed(n, index);
      });
    }
    for (const Node* n : spec.targets) targets_.insert(n->id());
  }

  const std::string& device(const Node* node) const {
    return device_[node->id()];
  }
  const Status& status() const { return status_; }

  bool IsFed(const Node* node, int index) const {
    return feed_of_.count({node->id(), index}) > 0;
  }
  int FeedOf(const Node* node, int index) const {
    auto it = feed_of_.find({node->id(), index});
    return it == feed_of_.end() ? -1 : it->second;
  }

  Partition& PartitionFor(const std::string& device) {
    auto [it, inserted] = index_.try_emplace(device, partitions_->size());
    if (inserted) {
      partitions_->emplace_back();
      partitions_->back().device = device;
    }
    return (*partitions_)[it->second];
  }

  // A name for an added node, unused in the graph and the partitions.
  std::string NewName(const std::string& base) {
    std::string name;
    do {
      name = base + "/_" + std::to_string(counter_++);
    } while (graph_.FindNode(name) != nullptr);
    return name;
  }

  NodeDef* AddNode(Partition& p, const std::string& name,
                   const std::string& op) {
    NodeDef* def = p.graph_def.add_node();
    def->set_name(name);
    def->set_op(op);
    def->set_device(p.device);
    p.added.push_back(name);
    return def;
  }

  // An Enter or NextIteration none of whose successors is on its own device:
  // only its copies (Replica) run.
  bool Replaced(const Node& node) const {
    if (!Replicable(node) || targets_.count(node.id()) > 0) return false;
    const std::string& own = device(&node);
    for (const Edge& e : node.out_edges()) {
      if (needed_[e.dst->id()] && device(e.dst) == own) return false;
    }
    for (const Node* c : node.control_outputs()) {
      if (needed_[c->id()] && device(c) == own) return false;
    }
    return true;
  }

  // The inputs of `node`'s copy on `dst` (the node's own device, or another
  // for a Replica), with transfers for those from other devices.
  Status AddInputs(const Node& node, const std::string& dst, NodeDef* def) {
    const int frame = frames_.frame_of[node.id()];
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Endpoint& in = node.input(i);
      const bool recv_host = OnHost(&node, dst, i, /*input=*/true);
      const int fed = FeedOf(in.node, in.index);
      if (fed >= 0) {
        if (IsHostDevice(dst) || options_.client_device.empty()) {
          def->add_input(FeedInput(in, fed, dst));
        } else {
          const std::string& client = options_.client_device;
          def->add_input(Transfer(client, FeedInput(in, fed, client),
                                  in.node->name(),
                                  in.node->output_type(in.index), dst,
                                  /*send_host=*/true, recv_host, /*frame=*/0));
        }
        continue;
      }
      const std::string& src = device(in.node);
      std::string tensor = in.node->name() + ":" + std::to_string(in.index);
      const bool send_host = OnHost(in.node, src, in.index, false);
      if (src == dst && send_host == recv_host) {
        def->add_input(tensor);
      } else if (node.input_is_ref(i)) {
        return errors::InvalidArgument(
            "Cannot place ", node.DebugName(), " on ", dst,
            ": it updates the variable ", in.node->name(), " on ", src,
            " by reference, and a reference cannot cross devices");
      } else if (src != dst && Replicable(*in.node)) {
        std::string replica;
        TW_RETURN_IF_ERROR(Replica(*in.node, dst, &replica));
        def->add_input(replica + ":" + std::to_string(in.index));
      } else {
        def->add_input(Transfer(src, tensor, in.node->name(),
                                in.node->output_type(in.index), dst, send_host,
                                recv_host, frame));
      }
    }
    for (const Node* c : node.control_inputs()) {
      const std::string& src = device(c);
      if (src == dst) {
        def->add_input("^" + c->name());
      } else if (Replicable(*c)) {
        std::string replica;
        TW_RETURN_IF_ERROR(Replica(*c, dst, &replica));
        def->add_input("^" + replica);
      } else {
        def->add_input("^" + ControlTransfer(*c, src, dst, frame));
      }
    }
    return status_;
  }

  // The placeholder of partition `dst` standing for feed `f` (endpoint e).
  std::string FeedInput(const Endpoint& e, int f, const std::string& dst) {
    auto key = std::make_pair(f, dst);
    auto it = feeds_.find(key);
    if (it != feeds_.end()) return it->second;
    Partition& p = PartitionFor(dst);
    std::string name = NewName(e.node->name() + "_feed");
    NodeDef* def = AddNode(p, name, "Placeholder");
    (*def->mutable_attr())["dtype"].set_type(e.node->output_type(e.index));
    p.feeds.push_back(name + ":0");
    p.feed_index.push_back(f);
    return feeds_[key] = name + ":0";
  }

  // The _Recv in `dst` of tensor `tensor` (an input string of `src`'s
  // partition: "x:1", or the name of an added node), with its _Send.
  // `send_host`: the tensor is in host memory on `src`; `recv_host`: its
  // consumers on `dst` read it in host memory (both false between devices
  // that compute in host memory). Inside loop frame `frame` (not the root)
  // the _Recv runs once per iteration of `dst`'s control loop.
  std::string Transfer(const std::string& src, const std::string& tensor,
                       const std::string& base, DataType dtype,
                       const std::string& dst, bool send_host, bool recv_host,
                       int frame) {
    auto key = std::make_tuple(src, tensor, dst, recv_host);
    auto it = recvs_.find(key);
    if (it != recvs_.end()) return it->second;
    std::string trigger;
    if (frame != 0) {
      trigger = ControlLoop(frame, dst);
      if (src != LeaderDevice(frame)) ControlLoop(frame, src);
      // (Building the control loop may have transferred this tensor: the
      // predicate.)
      it = recvs_.find(key);
      if (it != recvs_.end()) return it->second;
    }
    AttrMap attrs;
    // One tensor may go to both memories of a device: two keys. (';'
    // separates a key's fields: not in a tensor name.)
    attrs["tensor_name"].set_s(
        recv_host && !IsHostDevice(dst) ? tensor + "@host" : tensor);
    attrs["send_device"].set_s(src);
    attrs["send_device_incarnation"].set_i(
        static_cast<int64_t>(options_.incarnation_of(src)));
    attrs["recv_device"].set_s(dst);
    attrs["client_terminated"].set_b(false);

    Partition& sp = PartitionFor(src);
    std::string send = NewName(base);
    NodeDef* send_def = AddNode(sp, send, "_Send");
    send_def->add_input(tensor);
    *send_def->mutable_attr() = attrs;
    (*send_def->mutable_attr())["T"].set_type(dtype);
    if (send_host) (*send_def->mutable_attr())["host_memory"].set_b(true);
    sp.targets.push_back(send);

    Partition& dp = PartitionFor(dst);
    std::string recv = NewName(base);
    NodeDef* recv_def = AddNode(dp, recv, "_Recv");
    *recv_def->mutable_attr() = attrs;
    (*recv_def->mutable_attr())["tensor_type"].set_type(dtype);
    if (recv_host) (*recv_def->mutable_attr())["host_memory"].set_b(true);
    if (!trigger.empty()) recv_def->add_input("^" + trigger);
    return recvs_[key] = recv;
  }

  bool IsHostDevice(const std::string& device) const {
    return !options_.host_memory_device || options_.host_memory_device(device);
  }
  // Where `node`'s argument lives on `device`.
  bool OnHost(const Node* node, const std::string& device, int index,
              bool input) const {
    return IsHostDevice(device) || !options_.memory_type ||
           options_.memory_type(node, index, input) == MemoryType::kHost;
  }

  // A control edge from `src_node` (on `src`) to a node on `dst` in `frame`:
  // a scalar constant that runs after it, sent across.
  std::string ControlTransfer(const Node& src_node, const std::string& src,
                              const std::string& dst, int frame) {
    auto key = std::make_pair(src_node.id(), dst);
    auto it = control_recvs_.find(key);
    if (it != control_recvs_.end()) return it->second;
    std::string name = NewName(src_node.name() + "_ctrl");
    NodeDef* def = AddNode(PartitionFor(src), name, "Const");
    SetDummyValue(def);
    def->add_input("^" + src_node.name());
    return control_recvs_[key] = Transfer(src, name, src_node.name(), DT_FLOAT,
                                          dst, false, false, frame);
  }

 private:
  static void SetDummyValue(NodeDef* def) {
    (*def->mutable_attr())["dtype"].set_type(DT_FLOAT);
    Tensor zero(DT_FLOAT, TensorShape());
    zero.data<float>()[0] = 0.0f;
    zero.ToProto((*def->mutable_attr())["value"].mutable_tensor());
  }

  // The copy on `dst` of the Enter or NextIteration `node` (see Replicable).
  Status Replica(const Node& node, const std::string& dst, std::string* name) {
    auto key = std::make_pair(node.id(), dst);
    auto it = replicas_.find(key);
    if (it != replicas_.end()) {
      *name = it->second;
      return Status::OK();
    }
    *name = replicas_[key] = NewName(node.name());
    NodeDef def = node.def();
    def.clear_input();
    def.set_name(*name);
    def.set_device(dst);
    TW_RETURN_IF_ERROR(AddInputs(node, dst, &def));
    Partition& p = PartitionFor(dst);
    *p.graph_def.add_node() = std::move(def);
    p.added.push_back(*name);
    return Status::OK();
  }

  std::string LeaderDevice(int frame) const {
    const Node* cond = frames_.frames[frame].loop_cond;
    return cond == nullptr ? std::string() : device(cond);
  }

  // The control loop of `frame` on `device` (its Merge): a loop of dummy
  // values that runs the frame's iterations there, as many as the loop's
  // leader (the device of its LoopCond) runs, because the leader sends it
  // the predicate each iteration:
  //   Enter -> Merge -> Switch(pred) -> (true) NextIteration -> Merge.
  // Its Merge fires once per iteration (the last included): every _Recv of
  // the frame on the device takes a control edge from it. The Enter of a
  // nested frame's control loop reads the enclosing frame's Merge, so that
  // the inner loop starts in every iteration of the outer one.
  std::string ControlLoop(int frame, const std::string& device) {
    auto key = std::make_pair(frame, device);
    auto it = control_loops_.find(key);
    if (it != control_loops_.end()) return it->second;
    const LoopFrames::Frame& f = frames_.frames[frame];
    if (f.loop_cond == nullptr) {
      if (status_.ok()) {
        status_ = errors::InvalidArgument(
            "the while loop '", f.name,
            "' spans several devices but has no LoopCond node: a loop across "
            "devices sends its LoopCond's predicate to each of its devices "
            "every iteration");
      }
      return "";
    }
    const std::string base = f.loop_cond->name() + "/_cloop";
    std::string enter_input;
    if (f.parent == 0) {
      auto [dummy, inserted] = dummies_.try_emplace(device);
      if (inserted) {
        dummy->second = NewName(base + "_start");
        SetDummyValue(AddNode(PartitionFor(device), dummy->second, "Const"));
      }
      enter_input = dummy->second;
    } else {
      enter_input = ControlLoop(f.parent, device);
    }
    const std::string enter = NewName(base + "_enter");
    const std::string merge = NewName(base + "_merge");
    const std::string next = NewName(base + "_next");
    const std::string sw = NewName(base + "_switch");
    control_loops_[key] = merge;
    {
      Partition& p = PartitionFor(device);
      NodeDef* def = AddNode(p, enter, "Enter");
      def->add_input(enter_input);
      auto& attrs = *def->mutable_attr();
      attrs["T"].set_type(DT_FLOAT);
      attrs["frame_name"].set_s(f.name);
      attrs["is_constant"].set_b(false);
      attrs["parallel_iterations"].set_i(f.parallel_iterations);
      def = AddNode(p, merge, "Merge");
      def->add_input(enter);
      def->add_input(next);
      (*def->mutable_attr())["T"].set_type(DT_FLOAT);
      (*def->mutable_attr())["N"].set_i(2);
    }
    const std::string leader = LeaderDevice(frame);
    const std::string pred_name = f.loop_cond->name() + ":0";
    const std::string pred =
        leader == device
            ? pred_name
            : Transfer(leader, pred_name, f.loop_cond->name(), DT_BOOL, device,
                       OnHost(f.loop_cond, leader, 0, false),
                       /*recv_host=*/true, frame);  // a Switch's predicate
    Partition& p = PartitionFor(device);
    NodeDef* def = AddNode(p, sw, "Switch");
    def->add_input(merge);
    def->add_input(pred);
    (*def->mutable_attr())["T"].set_type(DT_FLOAT);
    def = AddNode(p, next, "NextIteration");
    def->add_input(sw + ":1");
    (*def->mutable_attr())["T"].set_type(DT_FLOAT);
    return merge;
  }

  const Graph& graph_;
  const std::vector<bool>& needed_;
  const PartitionOptions& options_;
  std::vector<Partition>* partitions_;
  std::vector<std::string> device_;  // by node id, for needed nodes
  LoopFrames frames_;
  std::map<std::pair<int, int>, int> feed_of_;  // endpoint -> feed index
  std::set<int> targets_;
  Status status_;  // the first error of a control loop
  std::map<std::string, size_t> index_;
  int64_t counter_ = 0;
  std::map<std::pair<int, std::string>, std::string> feeds_;
  std::map<std::tuple<std::string, std::string, std::string, bool>, std::string>
      recvs_;
  std::map<std::pair<int, std::string>, std::string> control_recvs_;
  std::map<std::pair<int, std::string>, std::string> replicas_;
  std::map<std::pair<int, std::string>, std::string> control_loops_;
  std::map<std::string, std::string> dummies_;  // by device
};

}  // namespace

Status PartitionGraph(const Graph& graph, const ExecutorSpec& spec,
                      const std::vector<bool>& needed,
                      const PartitionOptions& options,
                      std::vector<Partition>* partitions) {
  partitions->clear();
  Partitioner parts(graph, spec, needed, options, partitions);
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (!needed[id]) continue;
    const Node& node = *graph.node(id);
    if (parts.Replaced(node)) continue;
    const std::string& dst = parts.device(&node);
    // The copy's inputs are rebuilt; everything else is kept.
    NodeDef def = node.def();
    def.clear_input();
    def.set_device(dst);
    TW_RETURN_IF_ERROR(parts.AddInputs(node, dst, &def));
    *parts.PartitionFor(dst).graph_def.add_node() = std::move(def);
  }
  for (size_t f = 0; f < spec.fetches.size(); ++f) {
    const Endpoint& e = spec.fetches[f];
    if (parts.IsFed(e.node, e.index)) continue;
    const std::string& src = parts.device(e.node);
    if (parts.IsHostDevice(src) || options.client_device.empty()) {
      Partition& p = parts.PartitionFor(src);
      p.fetches.push_back(e.ToString());
      p.fetch_index.push_back(static_cast<int>(f));
      continue;
    }
    // Fetched from a device's memory: sent to the client.
    const std::string& client = options.client_device;
    std::string recv =
        parts.Transfer(src, e.node->name() + ":" + std::to_string(e.index),
                       e.node->name(), e.node->output_type(e.index), client,
                       parts.OnHost(e.node, src, e.index, false), false,
                       /*frame=*/0);
    Partition& p = parts.PartitionFor(client);
    p.fetches.push_back(recv + ":0");
    p.fetch_index.push_back(static_cast<int>(f));
  }
  for (const Node* n : spec.targets) {
    parts.PartitionFor(parts.device(n)).targets.push_back(n->name());
  }
  return parts.status();
}

}  // namespace tensorweave
