// Partitioning: the nodes of one step, placed on several devices, become one
// graph per device. Every data edge between devices becomes a _Send on the
// producer's device and a _Recv on the consumer's, one pair per tensor and
// destination device however many consumers read it there; a control edge
// between devices becomes a small constant sent the same way. Fed tensors
// become placeholders in each partition that reads them.
//
// Devices with memory of their own (a GPU): a value moves between host and
// device memory only through a _Send/_Recv pair, whose device-side kernel
// copies it. So an edge whose producer writes one memory and whose consumer
// reads the other is cut even on one device, and the step's feeds and
// fetches of such a device pass through the client's device.
//
// Control flow (TensorFlow's AddControlFlow): a dead tensor crosses devices
// like a live one (its _Send sends it marked dead), so a cond's branches may
// be on other devices than its Switch and Merge. A while loop's values cross
// devices once per iteration, under rendezvous keys that name the frame and
// iteration (frame_rendezvous.h); each device that receives (or sends) a
// value inside a loop frame runs a control loop, Enter -> Merge ->
// Switch(pred) -> NextIteration, whose predicate is the frame's LoopCond,
// sent from its device (the frame's leader) every iteration, so that every
// device runs the frame's iterations as the leader does; each _Recv of the
// frame on that device takes a control edge from the control loop's Merge.
// Nested frames nest their control loops. An Enter or NextIteration whose
// consumer is on another device is copied there, its input sent instead.
#ifndef TENSORWEAVE_CORE_RUNTIME_GRAPH_PARTITION_H_
#define TENSORWEAVE_CORE_RUNTIME_GRAPH_PARTITION_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/framework/device_base.h"
#include "core/framework/graph.h"
#include "core/runtime/executor.h"

namespace tensorweave {

struct PartitionOptions {
  // The full name of the device of a node of the step.
  std::function<std::string(const Node*)> device_of;
  // The incarnation of a device (part of every rendezvous key).
  std::function<uint64_t(const std::string& device)> incarnation_of;
  // Optional (unset: every device computes in host memory). Whether a
  // device computes in host memory, and, for a node on a device that does
  // not, where input (`input` true) or output `index` of its kernel lives.
  std::function<bool(const std::string& device)> host_memory_device;
  std::function<MemoryType(const Node* node, int index, bool input)>
      memory_type;
  // Where feeds and fetches of devices without host memory enter and leave
  // (the session's CPU).
  std::string client_device;
};

struct Partition {
  std::string device;
  GraphDef graph_def;
  // Tensors of graph_def standing for the step's feeds ("name:0"), and which
  // feed of the step each is.
  std::vector<std::string> feeds;
  std::vector<int> feed_index;
  // Tensors of graph_def that are fetches of the step, and which fetch each
  // is.
  std::vector<std::string> fetches;
  std::vector<int> fetch_index;
  // Nodes run for their effects: the step's targets on this device and
  // every _Send.
  std::vector<std::string> targets;
  // Names of the nodes partitioning added (not in the step's graph).
  std::vector<std::string> added;
};

// Cuts the step `spec` of `graph` (its nodes `needed`, as NodesNeeded gives
// them) into one partition per device, in the order devices first appear.
// A fetch that is also fed is in no partition (the caller returns the fed
// value).
Status PartitionGraph(const Graph& graph, const ExecutorSpec& spec,
                      const std::vector<bool>& needed,
                      const PartitionOptions& options,
                      std::vector<Partition>* partitions);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_GRAPH_PARTITION_H_
