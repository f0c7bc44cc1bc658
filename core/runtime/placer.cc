#include "core/runtime/placer.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <numeric>
#include <string>

#include "core/framework/op_kernel.h"

namespace tensorweave {
namespace {

// Union-find over node ids.
class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b)
      parent_[std::max(a, b)] = std::min(a, b);  // the oldest node is the root
  }

 private:
  std::vector<int> parent_;
};

// Joins every node to its colocation group: a ref input's producer, the
// nodes named by "_class" entries "loc:@name".
void BuildGroups(const Graph& graph, UnionFind* groups) {
  for (int id = 0; id < graph.num_nodes(); ++id) {
    const Node* node = graph.node(id);
    for (int i = 0; i < node->num_inputs(); ++i) {
      if (node->input_is_ref(i)) groups->Union(id, node->input(i).node->id());
    }
    auto colocation = node->attrs().find("_class");
    if (colocation == node->attrs().end()) continue;
    for (const std::string& entry : colocation->second.list().s()) {
      if (entry.rfind("loc:@", 0) != 0) continue;
      // As TF, a name not in the graph (e.g. pruned away) is ignored.
      const Node* other = graph.FindNode(entry.substr(5));
      if (other == nullptr) continue;
      groups->Union(id, other->id());
    }
  }
}

// "[ a, b ]" as TF's placer errors write device lists.
std::string DeviceList(const std::vector<Device*>& devices) {
  std::string out = "[ ";
  for (size_t i = 0; i < devices.size(); ++i) {
    out += (i == 0 ? "" : ", ") + devices[i]->name();
  }
  return out + " ]";
}

// Where one colocation group may go.
class GroupPlacer {
 public:
  GroupPlacer(std::vector<const Node*> members, const DeviceSet& devices,
              const PlacementOptions& options)
      : members_(std::move(members)), devices_(devices), options_(options) {}

  // The device for the group, `placed` when a member already has one.
  Status Place(Device* placed, Device** device) {
    DeviceName constraint;
    const Node* requester = nullptr;
    TW_RETURN_IF_ERROR(MergeRequests(&constraint, &requester));
    if (placed != nullptr) {
      if (!options_.allow_soft_placement &&
          !constraint.Matches(placed->parsed_name())) {
        return errors::InvalidArgument(
            "Cannot assign a device for operation ", requester->name(),
            ": {{node ", requester->name(), "}} was explicitly assigned to ",
            requester->device(),
            " but its colocation group is already placed on ", placed->name());
      }
      *device = placed;
      return Status::OK();
    }
    Device* client = devices_.client_device();
    if (!AnyMemberHasKernel() && constraint.Matches(client->parsed_name())) {
      *device = client;  // the kernel-creation error then reports the op
      return Status::OK();
    }
    std::vector<Device*> candidates = Candidates(constraint);
    if (candidates.empty() && options_.allow_soft_placement) {
      DeviceName relaxed = constraint;
      relaxed.has_type = relaxed.has_id = false;
      candidates = Candidates(relaxed);
      if (candidates.empty()) candidates = Candidates(DeviceName());
      if (candidates.empty()) candidates.push_back(client);
    }
    if (candidates.empty()) return NoDeviceError(constraint, requester);
    *device = candidates.front();
    return Status::OK();
  }

 private:
  // The merge of the members' requested devices; `requester` is the first
  // member that asked for one (else the first member).
  Status MergeRequests(DeviceName* constraint, const Node** requester) {
    *requester = members_.front();
    std::vector<std::pair<const Node*, DeviceName>> merged;
    for (const Node* member : members_) {
      if (member->device().empty()) continue;
      DeviceName requested;
      if (!DeviceName::Parse(member->device(), &requested)) {
        return errors::InvalidArgument("Malformed device specification '",
                                       member->device(), "' in node ",
                                       member->DebugName());
      }
      if (merged.empty()) *requester = member;
      Status status =
          constraint->MergeFrom(requested, options_.allow_soft_placement);
      if (!status.ok()) return ConflictError(merged, member, requested, status);
      merged.emplace_back(member, requested);
    }
    return Status::OK();
  }

  // Names the earlier member whose own request conflicts with `member`'s.
  Status ConflictError(
      const std::vector<std::pair<const Node*, DeviceName>>& merged,
      const Node* member, const DeviceName& requested, const Status& status) {
    for (const auto& [other, other_requested] : merged) {
      DeviceName pair = requested;
      Status pair_status = pair.MergeFrom(other_requested);
      if (!pair_status.ok()) {
        return errors::InvalidArgument(
            "Cannot colocate nodes {{colocation_node ", member->name(),
            "}} and {{colocation_node ", other->name(),
            "}}: ", pair_status.message());
      }
    }
    return errors::InvalidArgument("Cannot colocate node '", member->name(),
                                   "' with its group: ", status.message());
  }

  // The devices matching `constraint` with a kernel for every member (a
  // member no device has a kernel for does not count).
  std::vector<Device*> Candidates(const DeviceName& constraint) const {
    std::vector<Device*> candidates;
    for (Device* device : devices_.FindMatching(constraint)) {
      if (SupportsGroup(device->device_type())) candidates.push_back(device);
    }
    return candidates;
  }

  bool SupportsGroup(const std::string& device_type) const {
    for (const Node* member : members_) {
      if (!Supports(member, device_type) && HasAnyKernel(member)) return false;
    }
    return true;
  }

  static bool Supports(const Node* node, const std::string& device_type) {
    return KernelRegistry::Global()->SupportsNode(*node, device_type);
  }

  bool AnyMemberHasKernel() const {
    for (const Node* member : members_) {
      if (HasAnyKernel(member)) return true;
    }
    return false;
  }

  bool HasAnyKernel(const Node* node) const {
    for (const Device* device : devices_.devices()) {
      if (Supports(node, device->device_type())) return true;
    }
    return false;
  }

  Status NoDeviceError(const DeviceName& constraint,
                       const Node* requester) const {
    std::string prefix =
        "Cannot assign a device for operation " + requester->name() + ": ";
    std::vector<Device*> matching = devices_.FindMatching(constraint);
    if (matching.empty()) {
      return errors::InvalidArgument(
          prefix, "{{node ", requester->name(),
          "}} was explicitly assigned to ", requester->device(),
          " but available devices are ", DeviceList(devices_.devices()),
          ". Make sure the device specification refers to a valid device.",
          constraint.type == "GPU" && DeviceFactory::Get("GPU") == nullptr
              ? " The requested device appears to be a GPU, but CUDA is not "
                "enabled."
              : "",
          constraint.type == "GPU"
              ? " To run it on the CPU instead, create the session with "
                "config=tw.ConfigProto(allow_soft_placement=True)."
              : "");
    }
    std::vector<Device*> with_kernels;
    for (Device* device : devices_.devices()) {
      if (SupportsGroup(device->device_type())) with_kernels.push_back(device);
    }
    std::string group;
    for (const Node* member : members_) {
      group += " " + member->name() + " (" + member->type_string() + ")";
    }
    if (requester->device().empty()) {
      return errors::InvalidArgument(
          prefix,
          "no device has a kernel for every op of its colocation "
          "group; available devices are ",
          DeviceList(devices_.devices()), ".\nColocation group:", group);
    }
    std::string type =
        constraint.has_type ? constraint.type : matching.front()->device_type();
    return errors::InvalidArgument(
        prefix, "Could not satisfy explicit device specification '",
        requester->device(), "' because no supported kernel for ", type,
        " devices is available.\nColocation group:", group,
        "\nDevices with a kernel for every op of the group: ",
        DeviceList(with_kernels));
  }

  const std::vector<const Node*> members_;
  const DeviceSet& devices_;
  const PlacementOptions& options_;
};

// TF's generator heuristic: a node with no inputs and one non-ref output.
bool IsGenerator(const Node* node) {
  return node->num_inputs() == 0 && node->control_inputs().empty() &&
         node->num_outputs() == 1 && !node->output_is_ref(0);
}

// The device that the placed data consumers of `node` share (consumers not
// placed are outside this step), or nullptr when none is or they differ.
Device* ConsumersDevice(const Node* node,
                        const std::vector<Device*>& placement) {
  Device* shared = nullptr;
  for (const Edge& edge : node->out_edges()) {
    Device* device = placement[edge.dst->id()];
    if (device == nullptr) continue;
    if (shared != nullptr && device != shared) return nullptr;
    shared = device;
  }
  return shared;
}

}  // namespace

Status PlaceNodes(const Graph& graph, const std::vector<const Node*>& nodes,
                  const DeviceSet& devices, const PlacementOptions& options,
                  std::vector<Device*>* placement) {
  const int num_nodes = graph.num_nodes();
  // Placed into a copy, so that an error leaves `*placement` as it was.
  std::vector<Device*> placed = *placement;
  placed.resize(num_nodes, nullptr);
  std::vector<const Node*> unplaced;
  for (const Node* node : nodes) {
    if (placed[node->id()] == nullptr) unplaced.push_back(node);
  }
  if (unplaced.empty()) {
    *placement = std::move(placed);
    return Status::OK();
  }
  if (devices.devices().empty()) {
    return errors::FailedPrecondition("No devices to place nodes on");
  }

  UnionFind groups(num_nodes);
  BuildGroups(graph, &groups);
  std::map<int, std::vector<const Node*>> members;  // by root
  std::map<int, Device*> placed_member;
  for (int id = 0; id < num_nodes; ++id) {
    int root = groups.Find(id);
    members[root].push_back(graph.node(id));
    if (placed[id] != nullptr) placed_member[root] = placed[id];
  }

  std::map<int, Device*> group_device;
  std::vector<const Node*> generators;
  for (const Node* node : unplaced) {
    int root = groups.Find(node->id());
    if (members[root].size() == 1 && node->device().empty() &&
        IsGenerator(node)) {
      generators.push_back(node);  // placed with its consumers, below
      continue;
    }
    auto found = group_device.find(root);
    if (found == group_device.end()) {
      Device* device = nullptr;
      GroupPlacer placer(members[root], devices, options);
      Status status = placer.Place(
          placed_member.count(root) ? placed_member[root] : nullptr, &device);
      if (!status.ok()) return status;
      found = group_device.emplace(root, device).first;
    }
    placed[node->id()] = found->second;
  }
  for (const Node* node : generators) {
    Device* device = ConsumersDevice(node, placed);
    if (device == nullptr ||
        !KernelRegistry::Global()->SupportsNode(*node, device->device_type())) {
      GroupPlacer placer({node}, devices, options);
      TW_RETURN_IF_ERROR(placer.Place(nullptr, &device));
    }
    placed[node->id()] = device;
  }
  if (options.log_device_placement) {  // in the order placed, as TF
    std::stable_partition(
        unplaced.begin(), unplaced.end(), [&](const Node* node) {
          return std::find(generators.begin(), generators.end(), node) ==
                 generators.end();
        });
    for (const Node* node : unplaced) {
      std::cerr << node->name() << ": (" << node->type_string()
                << "): " << placed[node->id()]->name() << "\n";
    }
  }
  *placement = std::move(placed);
  return Status::OK();
}

}  // namespace tensorweave
