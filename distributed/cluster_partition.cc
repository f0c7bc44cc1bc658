#include "distributed/cluster_partition.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <utility>

#include "core/framework/device_name.h"
#include "core/framework/graph.h"
#include "core/runtime/device.h"
#include "core/runtime/executor.h"
#include "core/runtime/graph_partition.h"
#include "distributed/rendezvous_mgr.h"

namespace tensorweave {
namespace {

int Find(std::vector<int>* parent, int x) {
  while ((*parent)[x] != x) x = (*parent)[x] = (*parent)[(*parent)[x]];
  return x;
}

// Gives the nodes of colocation groups (as the placer forms them: ref
// inputs, "_class" loc:@ entries) that ask for no job the default task.
Status ApplyDefaultTask(Graph* graph, const std::string& default_device) {
  if (default_device.empty()) return Status::OK();
  DeviceName task;
  if (!DeviceName::Parse(default_device, &task) || !task.has_job) {
    return errors::InvalidArgument(
        "the default device '", default_device,
        "' does not name a job (\"/job:worker/replica:0/task:0\")");
  }
  task.has_type = task.has_id = false;
  const int n = graph->num_nodes();
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto join = [&](int a, int b) {
    a = Find(&parent, a);
    b = Find(&parent, b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  for (int id = 0; id < n; ++id) {
    const Node* node = graph->node(id);
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (node->input_is_ref(i)) join(id, node->input(i).node->id());
    }
    auto colocation = node->attrs().find("_class");
    if (colocation == node->attrs().end()) continue;
    for (const std::string& entry : colocation->second.list().s()) {
      if (entry.rfind("loc:@", 0) != 0) continue;
      const Node* other = graph->FindNode(entry.substr(5));
      if (other != nullptr) join(id, other->id());
    }
  }
  std::set<int> groups_with_job;
  for (int id = 0; id < n; ++id) {
    DeviceName requested;
    if (DeviceName::Parse(graph->node(id)->device(), &requested) &&
        requested.has_job) {
      groups_with_job.insert(Find(&parent, id));
    }
  }
  for (int id = 0; id < n; ++id) {
    if (groups_with_job.count(Find(&parent, id)) > 0) continue;
    Node* node = graph->node(id);
    DeviceName requested;
    // A malformed request is left for the placer to report.
    if (!DeviceName::Parse(node->device(), &requested)) continue;
    if (!requested.MergeFrom(task).ok()) continue;
    graph->SetRequestedDevice(node, requested.ToString());
  }
  return Status::OK();
}

// The task graph of a step whose nodes are all on `device`: its nodes, with
// each fed tensor replaced by a placeholder that carries the feed's name.
Status OneDeviceTask(const Graph& graph, const ExecutorSpec& spec,
                     const std::vector<bool>& needed,
                     const std::vector<std::string>& feeds,
                     const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets,
                     const std::string& device, std::vector<TaskGraph>* tasks) {
  TaskGraph t;
  TW_RETURN_IF_ERROR(TaskOfDevice(device, &t.task));
  std::map<std::pair<int, int>, int> feed_of;
  for (size_t f = 0; f < spec.feeds.size(); ++f) {
    feed_of.emplace(
        std::make_pair(spec.feeds[f].node->id(), spec.feeds[f].index),
        static_cast<int>(f));
  }
  std::map<int, std::string> placeholder_of;  // feed index -> node name
  int64_t counter = 0;
  auto placeholder = [&](int f) {
    auto it = placeholder_of.find(f);
    if (it != placeholder_of.end()) return it->second;
    const Endpoint& e = spec.feeds[f];
    std::string name;
    do {
      name = e.node->name() + "_feed/_" + std::to_string(counter++);
    } while (graph.FindNode(name) != nullptr);
    NodeDef* def = t.graph_def.add_node();
    def->set_name(name);
    def->set_op("Placeholder");
    def->set_device(device);
    (*def->mutable_attr())["dtype"].set_type(e.node->output_type(e.index));
    (*def->mutable_attr())[kFeedAttr].set_s(feeds[f]);
    t.feeds.push_back(feeds[f]);
    t.feed_index.push_back(f);
    return placeholder_of[f] = name;
  };
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (!needed[id]) continue;
    const Node& node = *graph.node(id);
    NodeDef def = node.def();
    def.clear_input();
    def.set_device(device);
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Endpoint& in = node.input(i);
      auto fed = feed_of.find({in.node->id(), in.index});
      def.add_input(fed != feed_of.end()
                        ? placeholder(fed->second) + ":0"
                        : in.node->name() + ":" + std::to_string(in.index));
    }
    for (const Node* c : node.control_inputs()) {
      def.add_input("^" + c->name());
    }
    *t.graph_def.add_node() = std::move(def);
  }
  for (size_t f = 0; f < spec.fetches.size(); ++f) {
    const Endpoint& e = spec.fetches[f];
    if (feed_of.count({e.node->id(), e.index}) > 0) continue;
    t.fetches.push_back(fetches[f]);
    t.fetch_index.push_back(static_cast<int>(f));
  }
  for (const Node* n : spec.targets) t.targets.push_back(n->name());
  tasks->push_back(std::move(t));
  return Status::OK();
}

}  // namespace

Status PartitionForCluster(const GraphDef& graph_def,
                           const std::vector<ClusterDevice>& devices,
                           const std::vector<std::string>& feeds,
                           const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets,
                           const ClusterPlacementOptions& options,
                           std::vector<TaskGraph>* tasks) {
  tasks->clear();
  if (devices.empty()) {
    return errors::InvalidArgument("the cluster has no devices");
  }
  DeviceSet device_set;
  std::map<std::string, uint64_t> incarnations;
  for (const ClusterDevice& d : devices) {
    DeviceName name;
    if (!DeviceName::Parse(d.name, &name) || !name.IsFullySpecified()) {
      return errors::InvalidArgument("'", d.name,
                                     "' is not a full device name");
    }
    if (d.device_type != name.type) {
      return errors::InvalidArgument("the device ", d.name, " has type '",
                                     d.device_type, "', its name says '",
                                     name.type, "'");
    }
    const std::string canonical = name.ToString();
    if (!incarnations.emplace(canonical, d.incarnation).second) {
      return errors::InvalidArgument("the device ", canonical,
                                     " is listed twice");
    }
    DeviceAttributes attributes;
    attributes.name = canonical;
    attributes.device_type = d.device_type;
    attributes.incarnation = d.incarnation;
    device_set.AddDevice(std::make_unique<Device>(std::move(attributes)));
  }

  Graph graph;
  std::vector<Node*> added;
  TW_RETURN_IF_ERROR(graph.ImportGraphDef(graph_def, ImportOptions(), &added));
  TW_RETURN_IF_ERROR(ApplyDefaultTask(&graph, options.default_device));
  ExecutorSpec spec;
  for (const std::string& name : feeds) {
    Endpoint e;
    TW_RETURN_IF_ERROR(graph.ParseTensorName(name, &e));
    if (e.index < 0) {
      return errors::InvalidArgument("cannot feed a control input '", name,
                                     "'");
    }
    spec.feeds.push_back(e);
  }
  for (const std::string& name : fetches) {
    Endpoint e;
    TW_RETURN_IF_ERROR(graph.ParseTensorName(name, &e));
    if (e.index < 0) {
      return errors::InvalidArgument("cannot fetch '", name,
                                     "': name a tensor, or run it as a target");
    }
    spec.fetches.push_back(e);
  }
  for (const std::string& name : targets) {
    const std::string node_name =
        !name.empty() && name[0] == '^' ? name.substr(1) : name;
    Node* node = graph.FindNode(node_name);
    if (node == nullptr) {
      return errors::NotFound("no node named '", node_name,
                              "' in the graph (a target)");
    }
    spec.targets.push_back(node);
  }
  const std::vector<bool> needed = NodesNeeded(graph, spec);
  std::vector<const Node*> nodes;
  for (int id = 0; id < graph.num_nodes(); ++id) {
    if (needed[id]) nodes.push_back(graph.node(id));
  }
  std::vector<Device*> placement;
  TW_RETURN_IF_ERROR(
      PlaceNodes(graph, nodes, device_set, options.placement, &placement));

  // One device: the step as it is (PartitionGraph cuts steps that span
  // devices, and refuses control flow in them).
  if (!nodes.empty() &&
      std::all_of(nodes.begin(), nodes.end(), [&](const Node* n) {
        return placement[n->id()] == placement[nodes.front()->id()];
      })) {
    return OneDeviceTask(graph, spec, needed, feeds, fetches, targets,
                         placement[nodes.front()->id()]->name(), tasks);
  }
  PartitionOptions partition_options;
  partition_options.device_of = [&placement](const Node* node) {
    return placement[node->id()]->name();
  };
  partition_options.incarnation_of = [&incarnations](const std::string& d) {
    return incarnations.at(d);
  };
  std::vector<Partition> partitions;
  TW_RETURN_IF_ERROR(
      PartitionGraph(graph, spec, needed, partition_options, &partitions));
  std::map<std::string, size_t> task_index;
  for (Partition& p : partitions) {
    std::string task;
    TW_RETURN_IF_ERROR(TaskOfDevice(p.device, &task));
    auto [it, inserted] = task_index.try_emplace(task, tasks->size());
    if (inserted) {
      tasks->emplace_back();
      tasks->back().task = task;
    }
    TaskGraph& t = (*tasks)[it->second];
    // Each placeholder standing for a feed is marked with the feed's name,
    // by which RunGraph feeds it.
    std::map<std::string, int> feed_of;
    for (size_t i = 0; i < p.feeds.size(); ++i) {
      feed_of[p.feeds[i].substr(0, p.feeds[i].rfind(':'))] = p.feed_index[i];
    }
    for (NodeDef& node : *p.graph_def.mutable_node()) {
      auto fed = feed_of.find(node.name());
      if (fed != feed_of.end()) {
        (*node.mutable_attr())[kFeedAttr].set_s(feeds[fed->second]);
      }
      *t.graph_def.add_node() = std::move(node);
    }
    for (int f : p.feed_index) {
      if (std::find(t.feed_index.begin(), t.feed_index.end(), f) ==
          t.feed_index.end()) {
        t.feeds.push_back(feeds[f]);
        t.feed_index.push_back(f);
      }
    }
    for (int f : p.fetch_index) {
      t.fetches.push_back(fetches[f]);
      t.fetch_index.push_back(f);
    }
    t.targets.insert(t.targets.end(), p.targets.begin(), p.targets.end());
  }
  return Status::OK();
}

}  // namespace tensorweave
