#include "core/runtime/device.h"

#include <algorithm>
#include <mutex>
#include <random>
#include <tuple>

namespace tensorweave {
namespace {

uint64_t RandomIncarnation() {
  static std::mutex mu;
  static std::mt19937_64 engine{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  uint64_t value = 0;
  while (value == 0) value = engine();
  return value;
}

// The CPU: one device by default, `count` when ConfigProto.device_count
// {"CPU": n} asks for them; each reports 256 MiB, as TF's CPU devices do.
class CpuDeviceFactory : public DeviceFactory {
 public:
  Status CreateDevices(int count, const std::string& name_prefix,
                       std::vector<std::unique_ptr<Device>>* devices) override {
    if (count < 0) count = 1;
    for (int i = 0; i < count; ++i) {
      DeviceAttributes attributes;
      attributes.name = name_prefix + "/device:CPU:" + std::to_string(i);
      attributes.device_type = "CPU";
      attributes.memory_limit = int64_t{256} << 20;
      devices->push_back(std::make_unique<Device>(std::move(attributes)));
    }
    return Status::OK();
  }
};

struct Registration {
  std::unique_ptr<DeviceFactory> factory;
  int priority;
};

struct Registry {
  std::mutex mu;
  std::map<std::string, Registration> factories;
};

Registry& GlobalRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry();
    r->factories["CPU"] =
        Registration{std::make_unique<CpuDeviceFactory>(), 70};
    return r;
  }();
  return *registry;
}

// Placement preference: higher type priority first, then the name's fields.
bool DeviceBefore(const Device* a, const Device* b) {
  int pa = DeviceFactory::Priority(a->device_type());
  int pb = DeviceFactory::Priority(b->device_type());
  if (pa != pb) return pa > pb;
  const DeviceName& x = a->parsed_name();
  const DeviceName& y = b->parsed_name();
  return std::tie(x.type, x.job, x.replica, x.task, x.id) <
         std::tie(y.type, y.job, y.replica, y.task, y.id);
}

}  // namespace

Device::Device(DeviceAttributes attributes)
    : attributes_(std::move(attributes)) {
  DeviceName::Parse(attributes_.name, &parsed_name_);
  if (attributes_.incarnation == 0)
    attributes_.incarnation = RandomIncarnation();
}

Device::~Device() = default;

DeviceFactory::~DeviceFactory() = default;

void DeviceFactory::Register(const std::string& device_type,
                             std::unique_ptr<DeviceFactory> factory,
                             int priority) {
  Registry& registry = GlobalRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.factories.find(device_type);
  if (it != registry.factories.end() && it->second.priority >= priority) return;
  registry.factories[device_type] = Registration{std::move(factory), priority};
}

DeviceFactory* DeviceFactory::Get(const std::string& device_type) {
  Registry& registry = GlobalRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.factories.find(device_type);
  return it == registry.factories.end() ? nullptr : it->second.factory.get();
}

int DeviceFactory::Priority(const std::string& device_type) {
  Registry& registry = GlobalRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.factories.find(device_type);
  return it == registry.factories.end() ? -1 : it->second.priority;
}

std::vector<std::string> DeviceFactory::Types() {
  std::vector<std::pair<int, std::string>> by_priority;
  {
    Registry& registry = GlobalRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    for (const auto& [type, registration] : registry.factories) {
      by_priority.emplace_back(-registration.priority, type);
    }
  }
  std::sort(by_priority.begin(), by_priority.end());
  std::vector<std::string> types;
  for (const auto& entry : by_priority) types.push_back(entry.second);
  return types;
}

Status DeviceSet::CreateLocal(const std::map<std::string, int>& device_count,
                              const std::string& job, int replica, int task,
                              std::unique_ptr<DeviceSet>* out) {
  DeviceName prefix;
  if (!DeviceName::Parse("/job:" + job, &prefix) || !prefix.has_job) {
    return errors::InvalidArgument("Invalid job name '", job,
                                   "' for the local devices");
  }
  if (replica < 0 || task < 0) {
    return errors::InvalidArgument("Invalid replica ", replica, " or task ",
                                   task, " for the local devices");
  }
  std::string name_prefix = "/job:" + job +
                            "/replica:" + std::to_string(replica) +
                            "/task:" + std::to_string(task);
  auto set = std::make_unique<DeviceSet>();
  for (const std::string& type : DeviceFactory::Types()) {
    auto it = device_count.find(type);
    int count = it == device_count.end() || it->second < 0 ? -1 : it->second;
    if (type == "CPU" && count == 0) count = 1;
    if (count == 0) continue;
    std::vector<std::unique_ptr<Device>> devices;
    Status status =
        DeviceFactory::Get(type)->CreateDevices(count, name_prefix, &devices);
    if (!status.ok())
      return status.WithContext("Creating the " + type + " devices");
    for (auto& device : devices) set->AddDevice(std::move(device));
  }
  *out = std::move(set);
  return Status::OK();
}

void DeviceSet::AddDevice(std::unique_ptr<Device> device) {
  Device* added = device.get();
  owned_.push_back(std::move(device));
  devices_.insert(
      std::upper_bound(devices_.begin(), devices_.end(), added, DeviceBefore),
      added);
}

Device* DeviceSet::FindByName(const std::string& full_name) const {
  for (Device* device : devices_) {
    if (device->name() == full_name) return device;
  }
  DeviceName parsed;  // a legacy spelling of a full name
                      // ("/job:w/replica:0/task:0/cpu:0")
  if (!DeviceName::Parse(full_name, &parsed) || !parsed.IsFullySpecified())
    return nullptr;
  for (Device* device : devices_) {
    if (device->parsed_name() == parsed) return device;
  }
  return nullptr;
}

std::vector<Device*> DeviceSet::FindMatching(const DeviceName& spec) const {
  std::vector<Device*> matching;
  for (Device* device : devices_) {
    if (spec.Matches(device->parsed_name())) matching.push_back(device);
  }
  return matching;
}

Device* DeviceSet::client_device() const {
  for (Device* device : devices_) {
    if (device->device_type() == "CPU") return device;
  }
  return devices_.empty() ? nullptr : devices_.front();
}

}  // namespace tensorweave
