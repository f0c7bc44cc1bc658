// The master's half of a distributed step: place a client's graph on the
// devices of the cluster and cut it into one graph per task.
#ifndef TENSORWEAVE_DISTRIBUTED_CLUSTER_PARTITION_H_
#define TENSORWEAVE_DISTRIBUTED_CLUSTER_PARTITION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/framework/graph.pb.h"
#include "core/framework/status.h"
#include "core/runtime/placer.h"

namespace tensorweave {

// The attr of a placeholder of a task's graph that stands for a feed of the
// step: the feed's name, by which WorkerEnv::RunGraph feeds it.
inline constexpr char kFeedAttr[] = "_feed";

// A device of some task of the cluster, as its worker reports it
// (WorkerEnv::devices()).
struct ClusterDevice {
  std::string name;  // "/job:ps/replica:0/task:0/device:CPU:0"
  std::string device_type;
  uint64_t incarnation = 0;
};

struct ClusterPlacementOptions {
  PlacementOptions placement;
  // The task of the nodes whose colocation group asks for no job (no
  // tw.device naming one): "/job:worker/replica:0/task:0", say. Its job,
  // replica and task fill the fields the nodes leave unset. Empty: the
  // placer's choice (the first device in cluster order).
  std::string default_device;
};

// One task's part of a step.
struct TaskGraph {
  std::string task;  // "/job:worker/replica:0/task:1"
  GraphDef graph_def;
  // The step's feeds this task takes, by the names the step gave them (the
  // placeholders standing for them in graph_def carry the name in their
  // kFeedAttr attr, and RunGraph feeds them by it), and which feed of the
  // step each is.
  std::vector<std::string> feeds;
  std::vector<int> feed_index;
  // The step's fetches computed on this task (by the names the step gave
  // them), and which fetch each is.
  std::vector<std::string> fetches;
  std::vector<int> fetch_index;
  // Nodes run for their effects (the step's targets here, the _Sends).
  std::vector<std::string> targets;
};

// Places the step (feeds, fetches, targets, as Session::Run names them) of
// `graph_def` on `devices` and cuts it per task, in the order tasks first
// appear. A fetch that is also fed is in no task's fetches (the master
// returns the fed value). Errors: the graph does not import, a name is not
// in it, a device cannot be satisfied (the placer's InvalidArgument naming
// the node), a malformed device list or default device (InvalidArgument).
Status PartitionForCluster(const GraphDef& graph_def,
                           const std::vector<ClusterDevice>& devices,
                           const std::vector<std::string>& feeds,
                           const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets,
                           const ClusterPlacementOptions& options,
                           std::vector<TaskGraph>* tasks);

}  // namespace tensorweave

#endif  // TENSORWEAVE_DISTRIBUTED_CLUSTER_PARTITION_H_
