#include "core/runtime/graph_partition.h"

#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace tensorweave {

namespace {

// Builds the partitions, one edge at a time.
class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options,
              std::vector<Partition>* partitions)
      : graph_(graph), options_(options), partitions_(partitions) {}

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
  // that compute in host memory).
  std::string Transfer(const std::string& src, const std::string& tensor,
                       const std::string& base, DataType dtype,
                       const std::string& dst, bool send_host = false,
                       bool recv_host = false) {
    auto key = std::make_tuple(src, tensor, dst, recv_host);
    auto it = recvs_.find(key);
    if (it != recvs_.end()) return it->second;
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

  // A control edge from `src_node` (on `src`) to a node on `dst`: a scalar
  // constant that runs after it, sent across.
  std::string ControlTransfer(const Node& src_node, const std::string& src,
                              const std::string& dst) {
    auto key = std::make_pair(src_node.id(), dst);
    auto it = control_recvs_.find(key);
    if (it != control_recvs_.end()) return it->second;
    Partition& sp = PartitionFor(src);
    std::string name = NewName(src_node.name() + "_ctrl");
    NodeDef* def = AddNode(sp, name, "Const");
    (*def->mutable_attr())["dtype"].set_type(DT_FLOAT);
    Tensor zero(DT_FLOAT, TensorShape());
    zero.data<float>()[0] = 0.0f;
    zero.ToProto((*def->mutable_attr())["value"].mutable_tensor());
    def->add_input("^" + src_node.name());
    return control_recvs_[key] =
               Transfer(src, name, src_node.name(), DT_FLOAT, dst);
  }

 private:
  const Graph& graph_;
  const PartitionOptions& options_;
  std::vector<Partition>* partitions_;
  std::map<std::string, size_t> index_;
  int64_t counter_ = 0;
  std::map<std::pair<int, std::string>, std::string> feeds_;
  std::map<std::tuple<std::string, std::string, std::string, bool>, std::string>
      recvs_;
  std::map<std::pair<int, std::string>, std::string> control_recvs_;
};

}  // namespace

Status PartitionGraph(const Graph& graph, const ExecutorSpec& spec,
                      const std::vector<bool>& needed,
                      const PartitionOptions& options,
                      std::vector<Partition>* partitions) {
  partitions->clear();
  Partitioner parts(graph, options, partitions);
  std::map<std::pair<int, int>, int> feed_of;  // endpoint -> feed index
  for (size_t f = 0; f < spec.feeds.size(); ++f) {
    feed_of.emplace(
        std::make_pair(spec.feeds[f].node->id(), spec.feeds[f].index),
        static_cast<int>(f));
  }
  std::vector<std::string> device(graph.num_nodes());
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (needed[id]) device[id] = options.device_of(graph.node(id));
  }
  // A loop or conditional split across devices would need its frames and
  // deadness carried through the rendezvous (TF's control-loop state
  // machines); not built yet.
  static const std::set<std::string> kControlFlow = {
      "Switch",        "RefSwitch",        "Merge",   "RefMerge",
      "Enter",         "RefEnter",         "Exit",    "RefExit",
      "NextIteration", "RefNextIteration", "LoopCond"};
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (needed[id] && kControlFlow.count(graph.node(id)->type_string())) {
      return errors::Unimplemented(
          "a step that runs on several devices cannot contain control flow "
          "yet: node ",
          graph.node(id)->DebugName(), " is a ", graph.node(id)->type_string(),
          "; place the whole step on one device (with tw.device)");
    }
  }
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (!needed[id]) continue;
    const Node& node = *graph.node(id);
    const std::string& dst = device[id];
    // The copy's inputs are rebuilt below; everything else is kept.
    NodeDef def = node.def();
    def.clear_input();
    def.set_device(dst);
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Endpoint& in = node.input(i);
      const bool recv_host = parts.OnHost(&node, dst, i, /*input=*/true);
      auto fed = feed_of.find({in.node->id(), in.index});
      if (fed != feed_of.end()) {
        if (parts.IsHostDevice(dst) || options.client_device.empty()) {
          def.add_input(parts.FeedInput(in, fed->second, dst));
        } else {
          const std::string& client = options.client_device;
          def.add_input(parts.Transfer(
              client, parts.FeedInput(in, fed->second, client), in.node->name(),
              in.node->output_type(in.index), dst,
              /*send_host=*/true, recv_host));
        }
        continue;
      }
      const std::string& src = device[in.node->id()];
      std::string tensor = in.node->name() + ":" + std::to_string(in.index);
      const bool send_host = parts.OnHost(in.node, src, in.index, false);
      if (src == dst && send_host == recv_host) {
        def.add_input(tensor);
      } else if (node.input_is_ref(i)) {
        return errors::InvalidArgument(
            "Cannot place ", node.DebugName(), " on ", dst,
            ": it updates the variable ", in.node->name(), " on ", src,
            " by reference, and a reference cannot cross devices");
      } else {
        def.add_input(parts.Transfer(src, tensor, in.node->name(),
                                     in.node->output_type(in.index), dst,
                                     send_host, recv_host));
      }
    }
    for (const Node* c : node.control_inputs()) {
      const std::string& src = device[c->id()];
      def.add_input(
          "^" + (src == dst ? c->name() : parts.ControlTransfer(*c, src, dst)));
    }
    *parts.PartitionFor(dst).graph_def.add_node() = std::move(def);
  }
  for (size_t f = 0; f < spec.fetches.size(); ++f) {
    const Endpoint& e = spec.fetches[f];
    if (feed_of.count({e.node->id(), e.index}) > 0) continue;
    const std::string& src = device[e.node->id()];
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
                       parts.OnHost(e.node, src, e.index, false), false);
    Partition& p = parts.PartitionFor(client);
    p.fetches.push_back(recv + ":0");
    p.fetch_index.push_back(static_cast<int>(f));
  }
  for (const Node* n : spec.targets) {
    parts.PartitionFor(device[n->id()]).targets.push_back(n->name());
  }
  return Status::OK();
}

}  // namespace tensorweave
