// Devices: what ops are placed on. A DeviceFactory per device type makes the
// local devices of its type; the CPU factory is built in, other types
// (a CUDA plug-in, test-only fakes) register their own. A DeviceSet holds the
// devices one session may use, in placement preference order.
#ifndef TENSORWEAVE_CORE_RUNTIME_DEVICE_H_
#define TENSORWEAVE_CORE_RUNTIME_DEVICE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/device_base.h"
#include "core/framework/device_name.h"
#include "core/framework/status.h"

namespace tensorweave {

struct DeviceAttributes {
  std::string name;          // full name
  std::string device_type;   // "CPU", "GPU"
  int64_t memory_limit = 0;  // bytes
  uint64_t incarnation = 0;  // random nonzero, fixed for the device's life
  std::string physical_device_desc;
};

class Device : public DeviceBase {
 public:
  // `attributes.name` must be a fully specified device name; an incarnation
  // of 0 is replaced by a random nonzero one.
  explicit Device(DeviceAttributes attributes);
  ~Device() override;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const std::string& name() const { return attributes_.name; }
  const std::string& device_type() const { return attributes_.device_type; }
  const DeviceName& parsed_name() const { return parsed_name_; }
  const DeviceAttributes& attributes() const { return attributes_; }

 private:
  DeviceAttributes attributes_;
  DeviceName parsed_name_;
};

// Device plug-ins: one factory per type, registered with a priority (TF's:
// GPU 210, CPU 70). Registering a type again keeps the higher priority
// factory (the first one on a tie).
class DeviceFactory {
 public:
  virtual ~DeviceFactory();
  // Appends up to `count` devices (count < 0: all the machine has; CPU: 1)
  // named name_prefix + "/device:<TYPE>:<i>", name_prefix like
  // "/job:localhost/replica:0/task:0".
  virtual Status CreateDevices(
      int count, const std::string& name_prefix,
      std::vector<std::unique_ptr<Device>>* devices) = 0;

  // Memory use of the process's device `index` of this type (all sessions
  // together), as tf.config.experimental.get_memory_info: bytes in use now
  // and at the peak since the start or the last ResetMemoryStats. False
  // for types that do not track it (the CPU) or an index out of range.
  virtual bool GetMemoryInfo(int index, int64_t* current, int64_t* peak) {
    return false;
  }
  virtual bool ResetMemoryStats(int index) { return false; }

  static void Register(const std::string& device_type,
                       std::unique_ptr<DeviceFactory> factory, int priority);
  static DeviceFactory* Get(const std::string& device_type);  // nullptr if none
  static int Priority(const std::string& device_type);        // -1 if none
  static std::vector<std::string> Types();  // highest priority first
};

class DeviceSet {
 public:
  // The local devices: for every registered type, device_count[type] devices
  // when given (for CPU exactly max(n, 1), as TF treats 0 as 1; for other
  // types at most n), else the factory's default; named
  // /job:<job>/replica:<replica>/task:<task>/device:<TYPE>:<i>.
  static Status CreateLocal(const std::map<std::string, int>& device_count,
                            const std::string& job, int replica, int task,
                            std::unique_ptr<DeviceSet>* out);

  void AddDevice(
      std::unique_ptr<Device> device);  // tests, remote devices later
  // By type priority (highest first), then job, replica, task and id.
  const std::vector<Device*>& devices() const { return devices_; }
  Device* FindByName(const std::string& full_name) const;  // nullptr if none
  std::vector<Device*> FindMatching(
      const DeviceName& spec) const;  // in devices() order
  Device* client_device()
      const;  // the first CPU device (else the first device)

 private:
  std::vector<std::unique_ptr<Device>> owned_;
  std::vector<Device*> devices_;
};

}  // namespace tensorweave

#endif  // TENSORWEAVE_CORE_RUNTIME_DEVICE_H_
