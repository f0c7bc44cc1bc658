// The placer: assigns each node of a graph a device, by TF1's rules.
//
// Colocation groups (union-find over the whole graph): an op with a ref input
// joins its producer's group (a variable with its reads, assigns and
// optimizer updates); an op with "_class" entries "loc:@name" joins name's
// group. A group's constraint is the merge of its members' requested devices;
// its candidates are the devices matching it on which every member has a
// kernel, the first in DeviceSet order wins. Soft placement relaxes the
// constraint (type/id, then job/replica/task) when nothing matches.
#ifndef TENSORWEAVE_CORE_RUNTIME_PLACER_H_
#define TENSORWEAVE_CORE_RUNTIME_PLACER_H_

#include <vector>

#include "core/framework/graph.h"
#include "core/framework/status.h"
#include "core/runtime/device.h"

namespace tensorweave {

struct PlacementOptions {
  bool allow_soft_placement = false;
  // Print "<node>: (<op>): <device>" to stderr per newly placed node.
  bool log_device_placement = false;
};

// Places every node of `nodes` (a subset of `graph`, e.g. what one step runs)
// that has no device yet in `*placement` (indexed by node id; resized to
// graph.num_nodes(), nullptr = not placed). Nodes already placed keep their
// device, and a colocation group with a placed member goes where it is.
Status PlaceNodes(const Graph& graph, const std::vector<const Node*>& nodes,
                  const DeviceSet& devices, const PlacementOptions& options,
                  std::vector<Device*>* placement);

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_PLACER_H_
